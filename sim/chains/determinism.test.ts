/**
 * The pool's determinism guarantee: two fresh pools given the same scripted transactions at the same timestamps
 * produce identical blocks (hashes), whatever the ports, the batch size, pre-signing, or the load of running
 * both at once.
 */
import type { Address, Hash } from "viem"
import { expect, test } from "vitest"
import { requireSuccess } from "./outcomes.ts"
import { ChainPool, withChainPool } from "./pool.ts"
import { createSender } from "./sender.ts"
import { testTokenAbi, testTokenBytecode } from "./testdata/testToken.ts"
import { TEST_GENESIS_TIMESTAMP } from "./testing.ts"

const CHAIN_IDS = [1, 10]
const T0 = TEST_GENESIS_TIMESTAMP

interface ScriptOptions {
  readonly batchSize: number
  readonly presign: boolean
  readonly step: bigint
}

interface ChainTrace {
  readonly chainId: number
  readonly blocks: readonly Hash[]
  readonly outcomes: readonly string[]
}

/** Deploys a token, mints, then three blocks of mixed ETH and token transfers (one of them reverting). */
const script = async (pool: ChainPool, options: ScriptOptions): Promise<readonly ChainTrace[]> =>
  Promise.all(
    pool.chains.map(async (chain) => {
      const sender = createSender(chain, { batchSize: options.batchSize })
      const flush = async (timestamp: bigint) => {
        if (options.presign) await sender.sign()
        return sender.flush(timestamp)
      }
      const blocks: Hash[] = [(await chain.block(0n)).hash]
      const outcomes: string[] = []
      const accounts = chain.accounts
      const deployer = accounts[0]
      if (deployer === undefined) throw new Error("no accounts")

      sender.queue({ from: deployer, data: testTokenBytecode, gas: 1_000_000n })
      const deployed = requireSuccess(await flush(T0 + options.step))
      const token = deployed[0]?.contractAddress as Address
      blocks.push((await chain.latestBlock()).hash)

      for (const account of accounts) {
        sender.queueContract({ from: deployer, address: token, abi: testTokenAbi, functionName: "mint", args: [account.address, 1_000n], gas: 100_000n })
      }
      blocks.push((await flush(T0 + 2n * options.step)).block.hash)

      for (let round = 0; round < 3; round++) {
        for (const [i, account] of accounts.entries()) {
          const next = accounts[(i + 1 + round) % accounts.length]?.address as Address
          sender.queue({ from: account, to: next, value: BigInt(1 + i + round), gas: 21_000n })
          const amount = i === 3 && round === 1 ? 5_000n : BigInt(10 + i)
          sender.queueContract({ from: account, address: token, abi: testTokenAbi, functionName: "transfer", args: [next, amount], gas: 100_000n })
        }
        const result = await flush(T0 + BigInt(round + 3) * options.step)
        blocks.push(result.block.hash)
        outcomes.push(...result.outcomes.map((outcome) => `${outcome.status}:${outcome.hash}`))
      }
      return { chainId: chain.chainId, blocks, outcomes }
    }),
  )

test("two fresh pools give identical block hashes for the same transfers", async () => {
  const start = () => ChainPool.start({ chainIds: CHAIN_IDS, genesisTimestamp: T0, accounts: 12 })
  const [a, b] = await Promise.all([start(), start()])
  try {
    expect(a.chains.map((chain) => chain.port)).not.toEqual(b.chains.map((chain) => chain.port))
    // Concurrently, with different batch sizes and signing strategies.
    const [traceA, traceB] = await Promise.all([
      script(a, { batchSize: 30, presign: false, step: 12n }),
      script(b, { batchSize: 7, presign: true, step: 12n }),
    ])
    expect(traceA).toEqual(traceB)
    for (const chain of traceA) {
      expect(chain.blocks).toHaveLength(6)
      expect(new Set(chain.blocks).size).toBe(6)
      expect(chain.outcomes.filter((outcome) => outcome.startsWith("reverted"))).toHaveLength(1)
    }
    // Same genesis on both chains (the chain id is not part of a block); different histories afterwards.
    expect(traceA[0]?.blocks[0]).toBe(traceA[1]?.blocks[0])
    expect(traceA[0]?.blocks[1]).not.toBe(traceA[1]?.blocks[1])
  } finally {
    await Promise.all([a.stop(), b.stop()])
  }
})

test("the hashes depend on the caller's timestamps, not on the wall clock", async () => {
  const run = (step: bigint) =>
    withChainPool({ chainIds: [1], genesisTimestamp: T0, accounts: 4 }, (pool) =>
      script(pool, { batchSize: 30, presign: false, step }),
    )
  const [twelve, thirteen] = [await run(12n), await run(13n)]
  expect(twelve[0]?.blocks[0]).toBe(thirteen[0]?.blocks[0])
  expect(twelve[0]?.blocks[1]).not.toBe(thirteen[0]?.blocks[1])
  // Transactions do not carry timestamps, so they are the same; only the blocks differ.
  expect(twelve[0]?.outcomes).toEqual(thirteen[0]?.outcomes)
  expect(await run(12n)).toEqual(twelve)
})
