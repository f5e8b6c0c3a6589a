/**
 * Hub engine benchmarks (tinybench): intake with the intent-id hash, keccak and encoding alone beside it,
 * and invoice/deposit matching in `processDepositsAndInvoices`. Run: `npm run bench -- hub`.
 *
 * Pitfalls handled here: workloads are generated before timing; each timed iteration gets a fresh hub in
 * `beforeEach` (not timed); one warm-up iteration lets V8 optimize the hot functions; events go to a sink
 * that drops them (the trace hash is measured separately); GC pauses are part of the figures, as in real runs,
 * but each iteration starts from a collected heap (`global.gc`, `npm run bench` passes `--expose-gc`) so that
 * it does not pay for sweeping the previous iteration's hub.
 */
import { Bench } from "tinybench"
import { IntentEncoder } from "../domain/encoding.ts"
import { keccak256Bytes } from "../domain/keccak.ts"
import type { Intent } from "../domain/protocol.ts"
import { Hub } from "./hub.ts"
import { discardSink, TraceHasher } from "./trace.ts"
import { generateIntents, generateLane, workloadConfig } from "./workload.ts"

const sizes = (process.env.HUB_BENCH_SIZES ?? "100000,1000000").split(",").map(Number)
const BATCH = 100
const E18 = 10n ** 18n

const rows: { case: string; n: number; ms: number; perSecond: number; nsPerOp: number }[] = []
const record = (name: string, n: number, bench: Bench) => {
  const task = bench.tasks.at(-1)!
  const result = task.result
  if (result.state !== "completed") throw new Error(`${name}: ${result.state}`, { cause: "error" in result ? result.error : undefined })
  const ms = result.latency.mean
  rows.push({ case: name, n, ms: Math.round(ms), perSecond: Math.round((n / ms) * 1000), nsPerOp: Math.round((ms * 1e6) / n) })
}

/** A fresh hub at block 40,000, after a full collection of whatever the previous iteration left. */
const freshHub = (sink: ConstructorParameters<typeof Hub>[1]): Hub => {
  globalThis.gc?.()
  const hub = new Hub(workloadConfig(), sink)
  hub.setBlock(40_000, 1_700_000_000)
  return hub
}

/**
 * Fresh copies of the intents (not timed): intent ids are memoized per intent object (`IntentEncoder`), so an
 * iteration over objects a previous one already hashed would measure a map lookup instead of the hash.
 */
const freshCopies = (intents: readonly Intent[]): Intent[] => intents.map((i) => ({ ...i }))

const intake = (hub: Hub, intents: readonly Intent[]) => {
  for (let i = 0; i < intents.length; i += BATCH) hub.receiveIntents(intents.slice(i, i + BATCH))
}

// 1. keccak and the encoder alone, on the same 512-byte intents.
{
  const intents = generateIntents({ count: 100_000, seed: 1 })
  const encoder = new IntentEncoder()
  const encoded = intents.map((i) => encoder.encode(i).slice())
  const bench = new Bench({ iterations: 5, time: 0, warmupIterations: 1 })
  bench.add("keccak256 alone (hash-wasm)", () => {
    for (const bytes of encoded) keccak256Bytes(bytes)
  })
  await bench.run()
  record("keccak256 of a 512-byte intent encoding", encoded.length, bench)
  bench.add("encode alone", () => {
    for (const intent of intents) encoder.encode(intent)
  })
  await bench.run()
  record("abi.encode(intent), fast encoder", intents.length, bench)
  let unhashed: Intent[] = []
  bench.add(
    "intent id",
    () => {
      for (const intent of unhashed) encoder.intentId(intent)
    },
    { beforeEach: () => void (unhashed = freshCopies(intents)) },
  )
  await bench.run()
  record("intent id (encode + keccak256)", intents.length, bench)
}

for (const n of sizes) {
  const generated = generateIntents({ count: n, seed: 7 })
  let intents: Intent[] = []
  // 2. Intake: INTENT batches of 100 into a fresh hub (custody, fees, settle-or-invoice, deposits).
  {
    let hub!: Hub
    const bench = new Bench({ iterations: n >= 1_000_000 ? 2 : 5, time: 0, warmupIterations: 1 })
    bench.add(`intake ${n}`, () => intake(hub, intents), {
      beforeEach: () => {
        hub = undefined!
        intents = []
        intents = freshCopies(generated)
        hub = freshHub(discardSink)
      },
    })
    await bench.run()
    record(`intake, ${n.toLocaleString("en")} intents (mixed)`, n, bench)
  }
  // 3. The same intake with the trace hash on (every event formatted and hashed).
  {
    let hub!: Hub
    const bench = new Bench({ iterations: n >= 1_000_000 ? 1 : 3, time: 0, warmupIterations: 1 })
    bench.add(`intake+trace ${n}`, () => intake(hub, intents), {
      beforeEach: () => {
        hub = undefined!
        intents = []
        intents = freshCopies(generated)
        hub = freshHub(new TraceHasher())
      },
    })
    await bench.run()
    record(`intake with trace hash, ${n.toLocaleString("en")} intents`, n, bench)
  }
  // 4. Matching: n invoices (S→B, unfunded) bought by n current-epoch deposits (B→S) in one call.
  {
    const S = 1
    const B = 10
    const toB = generateLane(n, "USDC", S, B, 1_000n * E18, 1n, 1_700_000_000)
    const toS = generateLane(n, "USDC", B, S, 1_000n * E18, 1n, 1_700_000_100)
    let hub!: Hub
    let pairings = 0
    const bench = new Bench({ iterations: n >= 1_000_000 ? 1 : 3, time: 0, warmupIterations: 1 })
    bench.add(
      `match ${n}`,
      () => {
        hub.processDepositsAndInvoices("USDC")
      },
      {
        beforeEach: () => {
          hub = undefined!
          hub = freshHub(discardSink) // block 40,000: epoch 1000
          intake(hub, toB) // one invoice, then n-1 deposits of epoch 1000 on S
          hub.setBlock(40_040, 1_700_000_480) // epoch 1001: the deposits become invoices (B holds nothing)
          hub.processDepositsAndInvoices("USDC")
          hub.setBlock(40_080, 1_700_000_960) // epoch 1002: deposits on B, discounted purchase
          intake(hub, toS)
          if (hub.state.tickers.values().next().value!.invoices.length !== n) throw new Error("setup: expected n invoices")
        },
        afterEach: () => {
          const ticker = hub.state.tickers.values().next().value!
          if (ticker.invoices.length !== 0) throw new Error("not every invoice was matched")
          // Each invoice is paired with the deposit the cursor stands on, plus one more per deposit it used up.
          const queue = ticker.depositQueue(hub.currentEpoch(), B)!
          pairings = n + queue.firstWithPurchasePower
        },
      },
    )
    await bench.run()
    record(`processDepositsAndInvoices, ${n.toLocaleString("en")} invoices matched`, n, bench)
    record(`  the same, per invoice–deposit pairing (${pairings.toLocaleString("en")} pairings)`, pairings, bench)
  }
}

console.log(`hub engine, Node ${process.version}, one core`)
console.table(
  rows.map((r) => ({
    case: r.case,
    "mean ms": r.ms,
    "ops/s": r.perSecond.toLocaleString("en"),
    "ns/op": r.nsPerOp,
  })),
)
