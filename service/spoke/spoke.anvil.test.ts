/**
 * What only the anvil backend does: deployment through the `Spokes.anvil` layer checked against the planned layout,
 * raw transaction requests, transactions sent around the backend (the API's users signing their own), receipts
 * with gas, and the errors for a chain that is not fresh or a sender without a key.
 */
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { createWalletClient, http, maxUint256, zeroAddress } from "viem"
import { afterAll, beforeAll, describe, expect, test } from "vitest"
import { ChainPool } from "../../sim/chains/index.ts"
import type { Address } from "../domain/hex.ts"
import { IntentStatus } from "../domain/protocol.ts"
import { ClearingSpokeAbi, TestERC20Abi } from "./abi.ts"
import { AnvilSpokeChain, UnknownSenderError } from "./anvil/chain.ts"
import { SpokeLayoutMismatchError } from "./anvil/deploy.ts"
import {
  Call,
  encodeSpokeCall,
  eventsNamed,
  planSpokeLayout,
  Spokes,
  type SpokesConfig,
  type SpokesDeployError,
  type SpokesShape,
  UnknownSpokeCallError,
} from "./spoke.ts"

const T0 = 1_700_000_000n
const DOMAIN = 31_001
let pool: ChainPool

const config = (): SpokesConfig => {
  const accounts = pool.chain(DOMAIN).accounts
  return {
    hubDomain: 25_327,
    genesisTimestamp: T0,
    chains: [
      {
        domain: DOMAIN,
        deployer: accounts[0]!.address,
        relayer: accounts[1]!.address,
        feeSigner: accounts[2]!.address,
        tokens: [{ symbol: "USDC", decimals: 6 }],
        funding: { accounts: [accounts[3]!.address, accounts[6]!.address], amount: 1_000n },
      },
    ],
  }
}

let spokes: SpokesShape

beforeAll(async () => {
  pool = await ChainPool.start({ chainIds: [DOMAIN], genesisTimestamp: T0 })
  spokes = await Effect.runPromise(Effect.provide(Spokes.use(Effect.succeed), Spokes.anvil(pool, config())))
}, 120_000)

afterAll(async () => {
  await pool?.stop()
})

describe("anvil spokes", () => {
  test("deploy at the planned addresses, with the planned number of blocks", async () => {
    const chain = spokes.chain(DOMAIN)
    const layout = planSpokeLayout(25_327, config().chains[0]!)
    expect(spokes.backend).toBe("anvil")
    expect(chain.addresses).toEqual(layout.addresses)
    expect(await chain.blockNumber()).toBe(BigInt(layout.deploymentBlocks))
    expect(await pool.chain(DOMAIN).publicClient.getCode({ address: chain.addresses.feeAdapter })).toMatch(/^0x[0-9a-f]{100,}/)
  })

  test("a raw transaction request runs like the typed call; unknown calldata and keyless senders are refused", async () => {
    const chain = spokes.chain(DOMAIN)
    const alice = pool.chain(DOMAIN).accounts[3]!.address
    const usdc = chain.addresses.tokens.USDC!.address
    const { to, data } = encodeSpokeCall(chain.addresses, Call.erc20.approve(usdc, chain.addresses.spoke, maxUint256))
    chain.submitRaw({ from: alice, to, data })
    chain.submitRaw({ from: alice, ...encodeSpokeCall(chain.addresses, Call.spoke.deposit(usdc, 5_000_000n)) })
    expect(() => chain.submitRaw({ from: alice, to: chain.addresses.spoke, data: "0xdeadbeef" })).toThrowError(UnknownSpokeCallError)
    expect(() => chain.submit({ from: "0x000000000000000000000000000000000000c0de", call: Call.spoke.pause() })).toThrowError(UnknownSenderError)
    const block = await chain.mine(T0 + 12n)
    expect(block.receipts.map((r) => r.call.kind)).toEqual(["erc20.approve", "spoke.deposit"])
    expect(block.receipts.map((r) => r.status)).toEqual(["success", "success"])
    expect(block.receipts[1]?.transactionHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await chain.virtualBalance(usdc, alice)).toBe(5_000_000n)
  })

  test("intents created by transactions sent around the backend are found by intentQueue and events", async () => {
    const chain = spokes.chain(DOMAIN)
    const base = pool.chain(DOMAIN)
    const outsider = base.accounts[6]!
    const wallet = createWalletClient({ chain: base.viemChain, transport: http(base.rpcUrl), account: outsider })
    const usdc = chain.addresses.tokens.USDC!.address
    await wallet.writeContract({ address: usdc, abi: TestERC20Abi, functionName: "approve", args: [chain.addresses.spoke, maxUint256], gas: 100_000n })
    await chain.mine(T0 + 24n)
    expect([await chain.intentQueueLength(), await chain.fillQueueLength()]).toEqual([0, 0])
    await wallet.writeContract({
      address: chain.addresses.spoke,
      abi: ClearingSpokeAbi,
      functionName: "newIntent",
      args: [[10], outsider.address, usdc, zeroAddress, 7_000_000n, 0, 0, "0x"],
      gas: 600_000n,
    })
    const block = await chain.mine(T0 + 36n)
    expect(block.receipts).toEqual([]) // the backend sent nothing itself
    const queue = await chain.intentQueue()
    expect(queue).toHaveLength(1)
    expect(await chain.intentQueueLength()).toBe(1)
    expect(queue[0]?.intent).toMatchObject({ amount: 7n * 10n ** 18n, origin: DOMAIN, timestamp: Number(T0 + 36n) })
    expect(await chain.status(queue[0]!.intentId)).toBe(IntentStatus.ADDED)
    const added = eventsNamed(await chain.events(block.blockNumber), "IntentAdded")
    expect(added.map((e) => e.intentId)).toEqual([queue[0]!.intentId])
    expect(added[0]?.transactionHash).toMatch(/^0x[0-9a-f]{64}$/)
  })

  test("receipts carry gasUsed when asked for", async () => {
    const base = pool.chain(DOMAIN)
    const layout = planSpokeLayout(25_327, config().chains[0]!)
    const head = await base.latestBlock()
    const chain = new AnvilSpokeChain(base, layout, { number: head.number, timestamp: head.timestamp }, { receipts: true })
    const bob = base.accounts[4]!.address as Address
    chain.submit({ from: bob, call: Call.spoke.pause() })
    const [receipt] = (await chain.mine(T0 + 48n)).receipts
    expect(receipt).toMatchObject({ status: "reverted", error: { name: "ClearingSpoke_Pause_NotAuthorized", args: [bob.toLowerCase()] } })
    expect(receipt?.gasUsed).toBeGreaterThan(21_000n)
  })

  test("deploying again on a chain that is not fresh fails with the layout mismatch", async () => {
    const exit = await Effect.runPromiseExit(Effect.provide(Spokes.use(Effect.succeed), Spokes.anvil(pool, config())))
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) {
      const error = Cause.squash(exit.cause) as SpokesDeployError
      expect(error._tag).toBe("SpokesDeployError")
      expect(error.cause).toBeInstanceOf(SpokeLayoutMismatchError)
      expect((error.cause as SpokeLayoutMismatchError).what).toBe("the deployer's nonce")
    }
  })
})
