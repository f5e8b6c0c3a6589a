/**
 * Spoke benchmarks (tinybench): intents created per second through the fee adapter, 2,000 per block, on the anvil
 * backend, against the raw anvil ERC-20 `transfer` rate measured in the same run on the same chain with the chain
 * pool's sender; then the memory backend. Run: `npm run bench -- spoke`.
 *
 * Measurement notes:
 * - Both anvil cases time the whole path a simulation pays for a block: encoding the calls, signing (overlapped with
 *   submission by the sender), JSON-RPC batches, `evm_mine`, and reading the outcomes (the intent case also decodes
 *   every log into `SpokeEvent`s). The pre-signed rows time submission, mining and outcomes only.
 * - The cases alternate block by block (one warm-up block each, then `SPOKE_BENCH_ROUNDS` rounds, default 7): on a
 *   shared 2-core machine the load changes faster than a run of one case takes, so the headline is the median of
 *   the per-round ratios. The chain grows across rounds, as in a simulation.
 * - Each timed block is one tinybench task run with warm-up off and `async: true` (otherwise tinybench calls the
 *   function once more, untimed, to warm up or to detect that it is async, and that call would mine the block).
 * - The memory case reuses one fee signature (recovered once, then cached), as a fee signer's quote is reused until
 *   its deadline, and keeps no event log (`retainEvents: false`); GC pauses are part of the figures.
 */
import { Bench } from "tinybench"
import { encodeAbiParameters, encodeFunctionData, keccak256, maxUint256 } from "viem"
import { ChainPool, createSender, deriveDevAccounts, requireSuccess, TEST_MNEMONIC } from "../../sim/chains/index.ts"
import type { Address } from "../domain/hex.ts"
import { TestERC20Abi } from "./abi.ts"
import { Call, createAnvilSpokes, createMemorySpokes, type SpokeChain, type SpokesConfig } from "./spoke.ts"

const DOMAIN = 31_001
const GENESIS = 1_700_000_000n
const PER_BLOCK = Number(process.env.SPOKE_BENCH_PER_BLOCK ?? 2_000)
const USERS = 40
const MEMORY_BLOCKS = Number(process.env.SPOKE_BENCH_MEMORY_BLOCKS ?? 50)

// Intents and raw transfers are sent from different accounts: each sender owns the nonces of its accounts.
const accounts = deriveDevAccounts(TEST_MNEMONIC, 2 * USERS + 3)
const [deployer, relayer, feeSigner] = accounts as [(typeof accounts)[0], (typeof accounts)[0], (typeof accounts)[0]]
const users = accounts.slice(3, 3 + USERS).map((a) => a.address.toLowerCase() as Address)
const transferrers = accounts.slice(3 + USERS)

const config: SpokesConfig = {
  hubDomain: 25_327,
  genesisTimestamp: GENESIS,
  chains: [
    {
      domain: DOMAIN,
      deployer: deployer.address,
      relayer: relayer.address,
      feeSigner: feeSigner.address,
      tokens: [{ symbol: "USDC", decimals: 6 }],
      funding: { accounts: [...users, ...transferrers.map((a) => a.address)], amount: 1_000_000_000n },
    },
  ],
}

const ANVIL_ROUNDS = Number(process.env.SPOKE_BENCH_ROUNDS ?? 7)

const rows: { case: string; perBlock: number; ms: number; perSecond: number }[] = []
/** anvil backend rate / raw rate, per interleaved round. */
const ratios: number[] = []
const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}
const recordMedian = (name: string, perBlock: number, samplesMs: readonly number[]): number => {
  const ms = median(samplesMs)
  const perSecond = Math.round((perBlock / ms) * 1000)
  rows.push({ case: `${name}, median of ${samplesMs.length}`, perBlock, ms: Math.round(ms), perSecond })
  return perSecond
}
const record = (name: string, perBlock: number, bench: Bench): number => {
  const result = bench.tasks.at(-1)!.result
  if (result.state !== "completed") throw new Error(`${name}: ${result.state}`, { cause: "error" in result ? result.error : undefined })
  const ms = result.latency.mean
  const perSecond = Math.round((perBlock / ms) * 1000)
  rows.push({ case: name, perBlock, ms: Math.round(ms), perSecond })
  return perSecond
}

const deadline = GENESIS + 365n * 86_400n
const fee = 1_000n

const feeSignature = async (usdc: Address) =>
  feeSigner.signMessage({
    message: {
      raw: keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }, { type: "address" }, { type: "uint256" }], [fee, 0n, usdc, deadline])),
    },
  })

/** Queues one block of fee-adapter intents (netting, USDC, 100 tokens, round-robin over the users). */
const submitIntents = (chain: SpokeChain, usdc: Address, sig: `0x${string}`, count: number): void => {
  for (let i = 0; i < count; i++) {
    const user = users[i % USERS]!
    chain.submit({
      from: user,
      call: Call.feeAdapter.newIntent({
        destinations: [10],
        receiver: user,
        inputAsset: usdc,
        outputAsset: "0x0000000000000000000000000000000000000000",
        amount: 100_000_000n,
        feeParams: { fee, deadline, sig },
      }),
    })
  }
}

const approveAll = async (chain: SpokeChain, usdc: Address, timestamp: bigint): Promise<void> => {
  for (const user of users) chain.submit({ from: user, call: Call.erc20.approve(usdc, chain.addresses.feeAdapter, maxUint256) })
  const block = await chain.mine(timestamp)
  if (block.receipts.some((r) => r.status !== "success")) throw new Error("approvals failed")
}

// 1. anvil: raw ERC-20 transfers and fee-adapter intents on the same chain.
let rawRate = 0
let anvilRate = 0
{
  const pool = await ChainPool.start({ chainIds: [DOMAIN], genesisTimestamp: GENESIS, accounts: accounts.length })
  try {
    const spokes = await createAnvilSpokes(pool, config)
    const chain = spokes.chain(DOMAIN)
    const usdc = chain.addresses.tokens.USDC!.address
    const sig = await feeSignature(usdc)
    let now = GENESIS
    await approveAll(chain, usdc, (now += 12n))

    const sender = createSender(pool.chain(DOMAIN))
    const transferData = encodeFunctionData({ abi: TestERC20Abi, functionName: "transfer", args: ["0x000000000000000000000000000000000000bEEF", 1n] })
    const transfers = async () => {
      for (let i = 0; i < PER_BLOCK; i++) sender.queue({ from: transferrers[i % USERS]!, to: usdc, data: transferData, gas: 80_000n })
      requireSuccess(await sender.flush((now += 12n)))
    }
    const intents = async () => {
      submitIntents(chain, usdc, sig, PER_BLOCK)
      const block = await chain.mine((now += 12n))
      if (block.receipts.some((r) => r.status !== "success")) throw new Error("an intent reverted")
    }
    // Interleaved rounds (one block of each per round), so that both cases see the same machine load.
    const once = async (name: string, fn: () => Promise<void>): Promise<number> => {
      // `async: true`: without it tinybench calls the function once more to detect whether it is async.
      const bench = new Bench({ iterations: 1, time: 0, warmup: false }).add(name, fn, { async: true })
      await bench.run()
      const result = bench.tasks[0]!.result
      if (result.state !== "completed") throw new Error(`${name}: ${result.state}`, { cause: "error" in result ? result.error : undefined })
      return result.latency.mean
    }
    // Pre-signed variants: only submission, mining and outcomes are timed (signing is the same ~0.4 ms per
    // transaction in both cases and dilutes the difference in anvil's own work).
    const transfersSigned = async () => {
      for (let i = 0; i < PER_BLOCK; i++) sender.queue({ from: transferrers[i % USERS]!, to: usdc, data: transferData, gas: 80_000n })
      await sender.sign()
      return once("raw ERC-20 transfers, pre-signed", async () => void requireSuccess(await sender.flush((now += 12n))))
    }
    const intentsSigned = async () => {
      submitIntents(chain, usdc, sig, PER_BLOCK)
      await chain.sign()
      return once("anvil intents, pre-signed", async () => {
        const block = await chain.mine((now += 12n))
        if (block.receipts.some((r) => r.status !== "success")) throw new Error("an intent reverted")
      })
    }
    await transfers()
    await intents()
    const rawMs: number[] = []
    const backendMs: number[] = []
    const rawSignedMs: number[] = []
    const backendSignedMs: number[] = []
    for (let round = 0; round < ANVIL_ROUNDS; round++) {
      rawMs.push(await once("raw ERC-20 transfers", transfers))
      backendMs.push(await once("anvil intents", intents))
      rawSignedMs.push(await transfersSigned())
      backendSignedMs.push(await intentsSigned())
    }
    rawRate = recordMedian("anvil: raw ERC-20 transfer (chain pool sender)", PER_BLOCK, rawMs)
    anvilRate = recordMedian("anvil backend: FeeAdapter.newIntent (submit + mine + decoded receipts)", PER_BLOCK, backendMs)
    recordMedian("anvil: raw ERC-20 transfer, pre-signed (submit + mine + outcomes)", PER_BLOCK, rawSignedMs)
    recordMedian("anvil backend: FeeAdapter.newIntent, pre-signed", PER_BLOCK, backendSignedMs)
    ratios.push(...rawMs.map((ms, i) => ms / backendMs[i]!))
  } finally {
    await pool.stop()
  }
}

// 2. memory: the same calls, same block size, then many blocks back to back.
let memoryRate = 0
{
  const spokes = createMemorySpokes(config, { retainEvents: false })
  const chain = spokes.chain(DOMAIN)
  const usdc = chain.addresses.tokens.USDC!.address
  const sig = await feeSignature(usdc)
  let now = GENESIS
  await approveAll(chain, usdc, (now += 12n))
  submitIntents(chain, usdc, sig, 1)
  await chain.mine((now += 12n)) // recovers the signature once; every later block reads the cache
  const bench = new Bench({ iterations: 5, time: 0, warmupIterations: 1 })
  bench.add(
    "memory intents",
    () => {
      for (let b = 0; b < MEMORY_BLOCKS; b++) {
        submitIntents(chain, usdc, sig, PER_BLOCK)
        const block = chain.mineSync((now += 12n))
        if (block.receipts[0]?.status !== "success") throw new Error("an intent reverted")
      }
    },
    { async: false },
  )
  await bench.run()
  memoryRate = record(`memory backend: FeeAdapter.newIntent, ${MEMORY_BLOCKS} blocks (submit + mineSync)`, PER_BLOCK * MEMORY_BLOCKS, bench)
}

console.log(`spoke backends, Node ${process.version}, ${PER_BLOCK.toLocaleString("en")} calls per block`)
console.table(rows.map((r) => ({ case: r.case, "calls timed": r.perBlock.toLocaleString("en"), "mean ms": r.ms, "per second": r.perSecond.toLocaleString("en") })))
console.log(
  `anvil backend / raw transfers: median of per-round ratios ${median(ratios).toFixed(2)} (rounds: ${ratios.map((r) => r.toFixed(2)).join(", ")}; ratio of median rates ${(anvilRate / rawRate).toFixed(2)}; target >= 0.5); memory / anvil backend: ${Math.round(memoryRate / anvilRate)}x`,
)
