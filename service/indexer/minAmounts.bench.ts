/**
 * Min-amounts benchmark (tinybench): one arbitrageur poll, min-amounts for every open invoice of a ticker with n
 * open invoices on three domains, little custody and some current-epoch deposits (most invoices can settle only once
 * a deposit covers the earlier ones: the FIFO replays at their longest). Two ways: `computeMinAmounts` alone (each
 * call replays the invoices before its target without deposit, its base, again), and the first poll through a fresh
 * `MinAmountsCache`, as the read model answers a run's first poll after the hub changed (one base shared by the
 * poll's invoices). Run: `npm run bench -- minAmounts`.
 */
import { uniformBigInt } from "pure-rand/distribution/uniformBigInt"
import { uniformInt } from "pure-rand/distribution/uniformInt"
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus"
import { Bench } from "tinybench"
import type { Bytes32 } from "../domain/hex.ts"
import type { Intent } from "../domain/protocol.ts"
import { Hub } from "../hub/hub.ts"
import { IntentContext, InvoiceNode } from "../hub/state.ts"
import { discardSink } from "../hub/trace.ts"
import { computeMinAmounts, MinAmountsCache } from "./minAmounts.ts"

const sizes = (process.env.MIN_AMOUNTS_BENCH_SIZES ?? "100,300").split(",").map(Number)
const E18 = 10n ** 18n
const DOMAINS = [1, 10, 8453]
const word = (prefix: string, n: number): Bytes32 => `0x${prefix}${n.toString(16).padStart(64 - prefix.length, "0")}` as Bytes32

/** A USDC-like ticker (3 dbps per epoch, cap 12) in epoch 20 with `n` invoices of 1 to 5,000 tokens, 1 to 8 epochs old. */
const hubWith = (n: number): Hub => {
  const rng = xoroshiro128plus(n)
  const hub = new Hub(
    { epochLength: 10, tickers: [{ symbol: "USDC", discountPerEpoch: 3, maxDiscountDbps: 12, domains: DOMAINS.map((domain) => ({ domain, asset: word("aa", domain), decimals: 18 })) }] },
    discardSink,
  )
  hub.setBlock(200, 1_700_000_000)
  const ticker = hub.state.tickers.values().next().value!
  for (const d of DOMAINS) {
    ticker.custodied18.set(d, BigInt(uniformInt(rng, 0, 50)) * E18 + uniformBigInt(rng, 0n, E18))
    if (uniformInt(rng, 0, 1) === 1) ticker.openDepositQueue(20, d).available18 = BigInt(uniformInt(rng, 0, 20)) * E18
  }
  for (let k = 0; k < n; k++) {
    const ctx = new IntentContext(word("1d", k))
    ctx.ticker = ticker
    const origin = DOMAINS[uniformInt(rng, 0, 2)]!
    const destinations = DOMAINS.filter((d) => d !== origin && uniformInt(rng, 0, 2) > 0)
    const intent: Intent = {
      initiator: word("1a", 1),
      receiver: word("1b", 1),
      inputAsset: word("aa", origin),
      outputAsset: word("00", 0),
      maxFee: 0,
      origin,
      nonce: BigInt(k),
      timestamp: 0,
      ttl: 0,
      amount: 0n,
      destinations,
      data: "0x",
    }
    ctx.intent = intent
    hub.state.contexts.set(ctx.intentId, ctx)
    ticker.invoices.append(new InvoiceNode(ctx, word("0e", 1), 20 - uniformInt(rng, 1, 8), BigInt(uniformInt(rng, 1, 5000)) * E18 + uniformBigInt(rng, 0n, E18), 0))
  }
  return hub
}

const rows: { case: string; "mean ms": number; "µs per invoice": number }[] = []
for (const n of sizes) {
  const hub = hubWith(n)
  const ticker = hub.state.tickers.values().next().value!
  const bench = new Bench({ iterations: 3, warmupIterations: 1, time: 0 })
  bench.add(`poll of ${n} open invoices, computeMinAmounts each`, () => {
    for (let node = ticker.invoices.head; node !== undefined; node = node.next) computeMinAmounts(hub, ticker, node)
  })
  bench.add(`poll of ${n} open invoices, a fresh MinAmountsCache`, () => {
    const cache = new MinAmountsCache()
    for (let node = ticker.invoices.head; node !== undefined; node = node.next) cache.get(hub, ticker, node)
  })
  await bench.run()
  for (const task of bench.tasks) {
    const result = task.result
    if (result.state !== "completed") throw new Error(`${task.name}: ${result.state}`)
    rows.push({ case: task.name, "mean ms": Math.round(result.latency.mean), "µs per invoice": Math.round((result.latency.mean * 1000) / n) })
  }
}
console.log(`min-amounts, Node ${process.version}, one core`)
console.table(rows)
