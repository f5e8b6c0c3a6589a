/**
 * Chain pool benchmarks (tinybench): pool start-up, and transactions through the batched sender, 2,000 per
 * block, as native-ETH transfers and as ERC-20 `transfer` calls. Signing and submit+mine are timed apart.
 *
 * Run: `npx tsx bench/chains.bench.ts` (or `npm run bench -- chains`).
 * Env: CHAINS_BENCH_TXS (default 2000), CHAINS_BENCH_ITERATIONS (default 5).
 *
 * Pitfalls handled here: transactions are queued (and, where stated, signed) in `beforeEach`, outside the
 * timed window; a sign-only iteration's transactions are flushed in `afterEach` so nonces stay consistent; one
 * warm-up iteration per task lets V8 optimize signing and anvil warm its caches. Every task is declared
 * `async: true`: otherwise tinybench calls the function once at `add()` to detect it, which here would sign or
 * flush a block outside any hook. anvil runs on its own core
 * beside Node, so on a 2-core machine anything else running (other tests, benchmarks) shows up in these figures.
 */
import type { Address, Hex } from "viem"
import { encodeFunctionData } from "viem/utils"
import { Bench } from "tinybench"
import { requireSuccess } from "../sim/chains/outcomes.ts"
import { ChainPool } from "../sim/chains/pool.ts"
import { createSender, type TransactionRequest } from "../sim/chains/sender.ts"
import { testTokenAbi, testTokenBytecode } from "../sim/chains/testdata/testToken.ts"

const TXS = Number(process.env["CHAINS_BENCH_TXS"] ?? 2_000)
const ITERATIONS = Number(process.env["CHAINS_BENCH_ITERATIONS"] ?? 5)
const SENDERS = 40
const T0 = 1_700_000_000n

interface Row {
  readonly case: string
  readonly "ms (median)": number
  readonly "ms (min..max)": string
  readonly "per second": string
}
const rows: Row[] = []

const record = (bench: Bench, name: string, perIteration: number, unit: string): void => {
  const task = bench.tasks.find((candidate) => candidate.name === name)
  const result = task?.result
  if (result === undefined || result.state !== "completed") {
    const cause = result !== undefined && "error" in result ? result.error : undefined
    throw new Error(`${name}: ${result?.state ?? "missing"}`, { cause })
  }
  const { p50, min, max } = result.latency
  rows.push({
    case: name,
    "ms (median)": Math.round(p50),
    "ms (min..max)": `${Math.round(min)}..${Math.round(max)}`,
    "per second": `${Math.round((perIteration / p50) * 1000).toLocaleString("en-US")} ${unit}`,
  })
}

// 1. Start-up: ChainPool.start for 3 chains (10 dev accounts each); stop is outside the timed window.
{
  let pool: ChainPool | undefined
  const bench = new Bench({ iterations: 10, time: 0, warmupIterations: 1 })
  bench.add(
    "ChainPool.start, 3 chains",
    async () => {
      pool = await ChainPool.start({ chainIds: [1, 10, 8453], genesisTimestamp: T0 })
    },
    { async: true, afterEach: async () => pool?.stop() },
  )
  await bench.run()
  record(bench, "ChainPool.start, 3 chains", 1, "starts")
}

// 2. Transactions through the sender, TXS per block.
const pool = await ChainPool.start({ chainIds: [31_337], genesisTimestamp: T0, accounts: SENDERS })
try {
  const chain = pool.chain(31_337)
  const sender = createSender(chain)
  let clock = T0
  const tick = (): bigint => (clock += 12n)
  const accounts = chain.accounts
  const account = (k: number) => {
    const found = accounts[k % SENDERS]
    if (found === undefined) throw new Error("no account")
    return found
  }
  const recipient = (k: number): Address => `0x${(0xbeef0000 + (k % 256)).toString(16).padStart(40, "0")}`

  sender.queue({ from: account(0), data: testTokenBytecode, gas: 1_000_000n })
  const token = requireSuccess(await sender.flush(tick()))[0]?.contractAddress
  if (token === undefined) throw new Error("token deployment failed")
  for (const holder of accounts) {
    sender.queueContract({
      from: account(0),
      address: token,
      abi: testTokenAbi,
      functionName: "mint",
      args: [holder.address, 10n ** 30n],
      gas: 100_000n,
    })
  }
  requireSuccess(await sender.flush(tick()))

  // Calldata is encoded once, outside the timed window (encoding is the caller's cost, not the sender's).
  const transferData: Hex[] = Array.from({ length: 256 }, (_, k) =>
    encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [recipient(k), 1n] }),
  )
  const kinds: readonly { readonly kind: string; readonly make: (k: number) => TransactionRequest }[] = [
    { kind: "ETH transfer", make: (k) => ({ from: account(k), to: recipient(k), value: 1n, gas: 21_000n }) },
    {
      kind: "ERC-20 transfer",
      make: (k) => ({ from: account(k), to: token, data: transferData[k % 256] ?? "0x", gas: 60_000n }),
    },
  ]
  const queueBlock = (make: (k: number) => TransactionRequest) => {
    for (let k = 0; k < TXS; k++) sender.queue(make(k))
  }
  const flushAll = async (receipts: boolean) => {
    const result = await sender.flush(tick(), { receipts })
    if (result.block.transactions.length !== TXS) throw new Error(`block holds ${result.block.transactions.length} txs`)
    requireSuccess(result)
  }

  for (const { kind, make } of kinds) {
    const bench = new Bench({ iterations: ITERATIONS, time: 0, warmupIterations: 1 })
    const names = {
      sign: `${kind}: sign ${TXS}`,
      submit: `${kind}: submit+mine+outcomes, pre-signed`,
      flush: `${kind}: flush (sign || submit), mine, outcomes`,
      receipts: `${kind}: flush + full receipts`,
    }
    bench.add(names.sign, async () => sender.sign(), {
      async: true,
      beforeEach: () => queueBlock(make),
      afterEach: () => flushAll(false),
    })
    bench.add(names.submit, async () => flushAll(false), {
      async: true,
      beforeEach: async () => {
        queueBlock(make)
        await sender.sign()
      },
    })
    bench.add(names.flush, async () => flushAll(false), { async: true, beforeEach: () => queueBlock(make) })
    bench.add(names.receipts, async () => flushAll(true), { async: true, beforeEach: () => queueBlock(make) })
    await bench.run()
    record(bench, names.sign, TXS, "signatures")
    record(bench, names.submit, TXS, "tx")
    record(bench, names.flush, TXS, "tx")
    record(bench, names.receipts, TXS, "tx")
  }
} finally {
  await pool.stop()
}

console.log(
  `\nclearsim chain pool, ${TXS} transactions per block, ${ITERATIONS} iterations (+1 warm-up), node ${process.version}`,
)
console.table(rows)
