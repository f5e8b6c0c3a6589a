/**
 * Metrics on a scenario small enough to compute by hand: two users, one intent each way, fixed sizes, a fixed
 * 30 s transport and the default keepers (crons every 60 s from time 0, before the chains' block ticks at the
 * same second; an arrival scheduled at the start also runs before the block tick of its second).
 *
 *  t=10  alice sends 1,000 USDC 31001→31002, mined by the block tick of the same second (created 10 s).
 *  t=60  keeper dispatches the intent queue (mined at 60); the hub receives it at 90: no liquidity on 31002,
 *        so an invoice of 999.98 (2 dbps protocol fee) enters at epoch E = 500,000.
 *  t=100 bob sends 1,000 USDC 31002→31001; created 100, dispatched at 120, at the hub at 150: an invoice is
 *        open, so it is a deposit of epoch E on 31002 (custody there: 1,000).
 *  t=180 processDepositsAndInvoices: the invoice is still in its entry epoch (no discount) and 31002's custody
 *        covers 999.98: settled on 31002. The settlement keeper (which runs before it at each minute) sends
 *        the batch at 240; delivered and mined on 31002 at 270: alice's latency 270 − 10 = 260 s.
 *  t=480 epoch E+1: the cleanup settles bob's deposit (999.98) on 31001 from alice's 1,000; sent at 540,
 *        paid at 570: bob's latency 570 − 100 = 470 s.
 * Both settlements were paid from the other user's custody: netting ratio exactly 1, volume 1,999.96, no
 * discount. Percentiles (linear, type 7) of {260, 470}: p50 365, p90 449, p99 467.9, max 470.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { type Address, addressToBytes32, type Bytes32, bytes32ToAddress } from "../../service/domain/hex.ts"
import { createMemorySpokes } from "../../service/spoke/spoke.ts"
import type { SpokeReceipt } from "../../service/spoke/types.ts"
import { createIntents, sendTransaction } from "../agents/common.ts"
import { assembleRun, type Backend, buildRunResult, measureInFlight, type RunAssembly, runScenario } from "../run.ts"
import { parseScenario } from "../scenario/load.ts"
import { planWorld } from "../world/plan.ts"
import { Samples, toMilliseconds } from "./percentiles.ts"
import { type EpochSeries, Timeseries } from "./timeseries.ts"

const scenario = `
name: hand-computed
horizon: { seconds: 900 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    fixedFeeTokens: "0"
    maxVariableFeeBps: 0
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
transport: { latency: { kind: fixed, seconds: 30 } }
agents:
  rebalancers:
    - { name: alice, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [10] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 1000 } }
    - { name: bob, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [100] }, flows: [{ from: 31002, to: 31001 }], size: { kind: fixed, tokens: 1000 } }
`

describe("metrics on a hand-computed scenario", () => {
  it("gives netting ratio 1, no discount, and the latencies worked out above", async () => {
    const { report, timeseries } = await runScenario(parseScenario(scenario, "hand-computed.yaml"), { seed: 1, backend: "memory" })
    expect(report.intents).toMatchObject({ created: 2, settled: 2 })
    expect(report.netting).toMatchObject({ ratio: 1, nettedVolume: "1999.96", totalVolume: "1999.96" })
    // The volume discounts are measured against: every settlement, alice's invoice and bob's deposit alike.
    expect(report.discounts).toMatchObject({ paid: "0", settledVolume: "1999.96", invoicesCreated: 1, invoicesSettled: 1 })
    // Per epoch: alice's settlement (hub at 180, paid at 270) in E, bob's (hub at 480, paid at 570) in E+1, each
    // epoch's ratio and latencies its own settlements'.
    const E = 500_000
    expect(seriesOf(timeseries, "nettingRatioEpoch")).toEqual([[E, 1], [E + 1, 1]])
    expect(seriesOf(timeseries, "settledShare")).toEqual([[E, 0.5], [E + 1, 1]])
    expect(seriesOf(timeseries, "p50SettlementLatencySeconds")).toEqual([[E, 260], [E + 1, 470]])
    expect(report.latency).toMatchObject({ count: 2, p50: 365, p90: 449, p99: 467.9, max: 470 })
    expect(report.latency.settlement).toMatchObject({ p50: 365, max: 470 })
    expect(report.epochs).toMatchObject({ first: 500_000, last: 500_001 })
  })

  it("has no settled share in an epoch before the first intent", async () => {
    // The same timeline one epoch (480 s) later: E sees no intent, so its row has counts of 0 and no share.
    const later = scenario.replace("horizon: { seconds: 900 }", "horizon: { seconds: 1380 }").replace("atSeconds: [10]", "atSeconds: [490]").replace("atSeconds: [100]", "atSeconds: [580]")
    const { report, timeseries } = await runScenario(parseScenario(later, "hand-computed-later.yaml"), { seed: 1, backend: "memory" })
    expect(report.latency).toMatchObject({ count: 2, p50: 365, max: 470 })
    const E = 500_000
    expect(seriesOf(timeseries, "intentsCreated")).toEqual([[E, 0], [E + 1, 2], [E + 2, 2]])
    expect(seriesOf(timeseries, "settledShare")).toEqual([[E + 1, 0.5], [E + 2, 1]])
  })
})

/**
 * The discount, by hand. Same timing as above (fixed 30 s transport, default keepers: an intent queue is
 * dispatched at the first cron after an intent joins it, every cron each 60 s from 0; epoch = 40 hub blocks of
 * 12 s = 480 s, E = 500,000 from t=0). USDC: protocol fee 2 dbps (default), discountPerEpochDbps 100,
 * maxDiscountDbps 250 (DBPS denominator 100,000: 100 dbps = 10 bps). Discount of an invoice processed in epoch e:
 * `min((e − entryEpoch) × discountPerEpoch, cap)`, 0 while e = entryEpoch; cap = the ticker's max, or
 * min(maxFee, ticker max) for a ttl=0 intent with maxFee > 0 (userMaxDiscount). Rewards = min(deposits of the
 * current epoch on the destination, invoice) × discount / 100,000; the invoice settles for invoice − rewards.
 *
 *  t=10   alice sends 1,000 31001→31002 (max_fee 0: the ticker cap applies); at the hub at 90, no custody on
 *         31002: invoice I1 = 1,000 − 1,000 × 2 / 100,000 = 999.98, entry epoch E.
 *  t=500  carol (E+1) sends 500 31001→31002 with max_fee 50; at the hub at 570, I1 is open: a deposit of E+1.
 *  t=960  first process call of E+2: I1 still has no custody on 31002; the cleanup of E+1 cannot settle carol's
 *         deposit on 31002 either: invoice I2 = 500 − 0.01 = 499.99, entry epoch E+2.
 *  t=1450 bob (E+3) sends 1,500 31002→31001; at the hub at 1530: a deposit of E+3 on 31002 (custody 1,500,
 *         deposits of E+3 on 31002: 1,500).
 *  t=1560 process call, invoices oldest first:
 *         I1: min(3 × 100, 250) = 250 dbps; toDiscount = min(1,500, 999.98) = 999.98;
 *             rewards = 999.98 × 250 / 100,000 = 2.49995 → settles 997.48005 on 31002.
 *             Deposits of E+3 left: 1,500 − 997.48005 = 502.51995.
 *         I2: min(1 × 100, min(50, 250)) = 50 dbps (carol's max_fee); toDiscount = min(502.51995, 499.99) = 499.99;
 *             rewards = 499.99 × 50 / 100,000 = 0.249995 → settles 499.740005 (custody 502.51995 covers it).
 *         Custody left on 31002: 502.51995 − 499.740005 = 2.779945.
 *  Discount paid 2.49995 + 0.249995 = 2.749945 tokens, on settled volume 997.48005 + 499.740005 = 1,497.220055:
 *  2.749945 / 1,497.220055 × 10,000 = 18.36700617… bps → 18.367006 (six decimals).
 *  Per invoice: 2.49995 / 999.98 = 25 bps and 0.249995 / 499.99 = 5 bps; percentiles (type 7) of {5, 25}:
 *  p50 15, p90 5 + 0.9 × 20 = 23, p99 5 + 0.99 × 20 = 24.8, max 25, mean 15.
 *  The settlements go out at 1620 and are paid at 1650: alice 1650 − 10 = 1640 s, carol 1650 − 500 = 1150 s.
 *  t=1920 (E+4, the horizon; events at the horizon still run): the snapshot of E+3 is taken at the first hub step
 *         of E+4, then the cleanup of E+3 owes bob 1,499.97 + his rewards 2.749945 = 1,502.719945 on 31001, which
 *         holds 1,500 (alice's and carol's): a third invoice, open at the end (the distribution counts settled
 *         invoices only).
 */
const discountScenario = `
name: hand-computed-discount
horizon: { seconds: 1920 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    discountPerEpochDbps: 100
    maxDiscountDbps: 250
    fixedFeeTokens: "0"
    maxVariableFeeBps: 0
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
transport: { latency: { kind: fixed, seconds: 30 } }
agents:
  rebalancers:
    - { name: alice, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [10] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 1000 } }
    - { name: carol, count: 1, maxDiscountDbps: 50, asset: USDC, arrival: { kind: scripted, atSeconds: [500] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 500 } }
    - { name: bob, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [1450] }, flows: [{ from: 31002, to: 31001 }], size: { kind: fixed, tokens: 1500 } }
`

/** The series' value of `metric` per epoch, in epoch order (absent epochs left out). */
const seriesOf = (timeseries: Timeseries | EpochSeries, metric: string): [number, number][] => {
  const points: [number, number][] = []
  const series = timeseries instanceof Timeseries ? timeseries.series : timeseries
  series.forEachValue(metric, (epoch, value) => void points.push([epoch, value]))
  return points
}

describe("discount on a hand-computed scenario", () => {
  it("gives the discount total, bps of settled volume and per-invoice distribution worked out above", async () => {
    const { report, timeseries } = await runScenario(parseScenario(discountScenario, "hand-computed-discount.yaml"), { seed: 1, backend: "memory" })
    expect(report.discounts).toEqual({
      paid: "2.749945",
      paidBps: 18.367006,
      // What paidBps is of: 2.749945 / 1,497.220055 = 18.36700618 bps, to six decimals.
      settledVolume: "1497.220055",
      // One asset, no price: tokens.
      unit: "tokens",
      invoicesCreated: 3,
      invoicesSettled: 2,
      // Of the invoices it was taken from: 2.749945 / (999.98 + 499.99) = 18.3333… bps.
      paidBpsOfInvoices: 18.333333,
      invoicedVolume: "1499.97",
      byTicker: { USDC: { paid: "2.749945", invoicedVolume: "1499.97", paidBpsOfInvoices: 18.333333, invoicesSettled: 2 } },
      perInvoiceBps: { count: 2, p50: 15, p90: 23, p99: 24.8, max: 25, mean: 15 },
    })
    expect(report.coverage).toEqual(expect.arrayContaining(["discountPaid", "maxDiscountReached"]))
    expect(report.latency).toMatchObject({ count: 2, p50: 1395, max: 1640 })
    // The horizon tick (E+4's first second) runs its events: the keepers' cleanup of E+3 makes the third invoice
    // there, which the report counts, so E+4 (of no length) is the report's last epoch and its row the end state.
    expect(report.epochs).toMatchObject({ first: 500_000, last: 500_004 })
    // Per epoch: nothing paid until E+3; no settled volume (no bps row) before it either.
    expect(seriesOf(timeseries, "discountPaidTokens")).toEqual([[500_000, 0], [500_001, 0], [500_002, 0], [500_003, 2.749945], [500_004, 2.749945]])
    expect(seriesOf(timeseries, "discountPaidBps")).toEqual([[500_003, 18.367006], [500_004, 18.367006]])
    // No netting ratio before the first user volume settled from custody (E+3: both invoices, from bob's deposit).
    expect(seriesOf(timeseries, "nettingRatio")).toEqual([[500_003, 1], [500_004, 1]])
    expect(seriesOf(timeseries, "invoicesOpen.USDC")).toEqual([[500_000, 1], [500_001, 1], [500_002, 2], [500_003, 0], [500_004, 1]])
    expect(seriesOf(timeseries, "invoicesSettled")).toEqual([[500_000, 0], [500_001, 0], [500_002, 0], [500_003, 2], [500_004, 2]])
    expect(seriesOf(timeseries, "custody.USDC.31002")).toContainEqual([500_003, 2.779945])
    expect(report.discounts.invoicesCreated).toBe(3)
  })

  it("names the epoch a failing property has failed since alike under a metric's two names", async () => {
    // Netting ratio 1 and 18.367006 bps from E+3 (no value before): each property fails from E+3, by either name.
    const pairs: [string, string][] = [
      ["nettingRatio < 1", "netting.ratio < 1"],
      ["discountPaidBps <= 10", "discounts.paidBps <= 10"],
      ["discountPaidBpsOfInvoices <= 10", "discounts.paidBpsOfInvoices <= 10"],
    ]
    const withProperties = `${discountScenario}properties:\n${pairs.flat().map((p) => `  - ${p}\n`).join("")}`
    const { report } = await runScenario(parseScenario(withProperties, "hand-computed-discount-aliases.yaml"), { seed: 1, backend: "memory" })
    const since = new Map(report.properties.map((p) => [p.name, [p.pass, p.firstFailingEpoch]]))
    for (const [name, alias] of pairs) {
      expect(since.get(name), name).toEqual([false, 500_003])
      expect(since.get(alias), alias).toEqual([false, 500_003])
    }
  })

  it("names the epoch a failing latency property has failed since alike as latency.<q> and <q>LatencySeconds", async () => {
    // Every latency is above a second: each property fails from the first epoch with a latency, by either name.
    const pairs: [string, string][] = [
      ["p99LatencySeconds <= 1", "latency.p99 <= 1"],
      ["p50SettlementLatencySeconds <= 1", "latency.settlement.p50 <= 1"],
    ]
    const withProperties = `${discountScenario}properties:\n${pairs.flat().map((p) => `  - ${p}\n`).join("")}`
    const { report, timeseries } = await runScenario(parseScenario(withProperties, "hand-computed-discount-latency-aliases.yaml"), { seed: 1, backend: "memory" })
    const since = new Map(report.properties.map((p) => [p.name, [p.pass, p.firstFailingEpoch]]))
    for (const [name, alias] of pairs) {
      const first = seriesOf(timeseries, name.split(" ")[0]!)[0]![0]
      expect(since.get(name), name).toEqual([false, first])
      expect(since.get(alias), alias).toEqual([false, first])
    }
  })
})

/**
 * Two assets weighed by their prices, by hand: the discount scenario above (USDC at 1 USD) and one WETH intent (at
 * 2,000 USD) settled out of initial liquidity. WETH: 18 decimals on both chains, no quote fees, protocol fee 2 dbps.
 *
 *  t=1    the liquidity provider seeds 10 WETH on 31002 (a fast intent to itself, at the hub at 90: custody, "initial").
 *  t=100  dave sends 1 WETH 31001→31002 (dispatched at 120, at the hub at 150, epoch E): 0.99998 WETH after the
 *         fee, settled out of 31002's custody at once, all of it from the initial lot: netted 0.
 *  USDC as above: 997.48005 + 499.740005 = 1,497.220055 netted (bob's lots) of as much settled from custody in
 *  E+3; discount 2.749945 on invoices of 999.98 + 499.99 = 1,499.97.
 *
 *  In USD: user volume settled from custody 1,497.220055 + 0.99998 × 2,000 = 3,497.180055, of which 1,497.220055
 *  netted: ratio 5,989 / 13,989 = 0.428122095… → 0.428122. The hub settled the same 3,497.180055 USD: discount
 *  2.749945 USD = 110,000 / 13,989 = 7.863321… bps of it; of the invoices (all USDC) 18.333333 bps as before.
 *  Tokens as they are (no prices): 1,497.220055 of 1,498.220035 = 0.999332 (truncated), 18.354747 bps.
 */
const pricedScenario = discountScenario
  .replace(
    `  - symbol: USDC
    discountPerEpochDbps: 100`,
    `  - symbol: USDC
    priceUsd: 1
    discountPerEpochDbps: 100`,
  )
  .replace(
    "transport:",
    `  - symbol: WETH
    priceUsd: "2000"
    fixedFeeTokens: "0"
    maxVariableFeeBps: 0
    chains: [{ chain: 31001, decimals: 18 }, { chain: 31002, decimals: 18 }]
initialLiquidity: [{ chain: 31002, asset: WETH, tokens: 10 }]
transport:`,
  )
  .replace(/^agents:\n  rebalancers:\n/m, "agents:\n  rebalancers:\n    - { name: dave, count: 1, asset: WETH, arrival: { kind: scripted, atSeconds: [100] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 1 } }\n")

describe("two assets weighed by their prices, by hand", () => {
  it("gives the netting ratio and the discount over assets in USD, each asset's own figures in its tokens", async () => {
    const loaded = parseScenario(pricedScenario, "hand-computed-priced.yaml")
    expect(loaded.warnings).toEqual([])
    const { report, timeseries } = await runScenario(loaded, { seed: 1, backend: "memory" })
    expect(report.netting).toMatchObject({ unit: "USD", ratio: 0.428122, nettedVolume: "1497.220055", totalVolume: "3497.180055" })
    expect(report.netting.bySource).toMatchObject({ user: "1497.220055", initial: "1999.96", self: "0" })
    expect(report.netting.byLane).toEqual({ "31001>31002": { ratio: 0.428122, totalVolume: "3497.180055" } })
    expect(report.netting.byTicker).toEqual({
      USDC: { ratio: 1, nettedVolume: "1497.220055", totalVolume: "1497.220055", byLane: { "31001>31002": { ratio: 1, totalVolume: "1497.220055" } } },
      WETH: { ratio: 0, nettedVolume: "0", totalVolume: "0.99998", byLane: { "31001>31002": { ratio: 0, totalVolume: "0.99998" } } },
    })
    expect(report.discounts).toMatchObject({
      unit: "USD",
      paid: "2.749945",
      settledVolume: "3497.180055",
      paidBps: 7.863321,
      invoicedVolume: "1499.97",
      paidBpsOfInvoices: 18.333333,
      byTicker: { USDC: { paid: "2.749945", invoicedVolume: "1499.97", paidBpsOfInvoices: 18.333333, invoicesSettled: 2 } },
    })
    // Per epoch, weighed the same way: dave's WETH (netted 0) in E, the USDC invoices (netted 1) in E+3.
    expect(seriesOf(timeseries, "nettingRatioEpoch")).toEqual([[500_000, 0], [500_003, 1]])
    expect(seriesOf(timeseries, "nettingRatio")).toEqual([[500_000, 0], [500_001, 0], [500_002, 0], [500_003, 0.428122], [500_004, 0.428122]])
    expect(seriesOf(timeseries, "discountPaidBps")).toEqual([[500_000, 0], [500_001, 0], [500_002, 0], [500_003, 7.863321], [500_004, 7.863321]])
    expect(seriesOf(timeseries, "discountPaidUsd")).toEqual([[500_000, 0], [500_001, 0], [500_002, 0], [500_003, 2.749945], [500_004, 2.749945]])
    expect(seriesOf(timeseries, "discountPaidTokens")).toEqual([])
  })

  it("adds the assets' tokens as they are without prices, as before prices existed, and the loader says so", async () => {
    const unpriced = pricedScenario.replace("    priceUsd: 1\n", "").replace('    priceUsd: "2000"\n', "")
    const loaded = parseScenario(unpriced, "hand-computed-unpriced.yaml")
    expect(loaded.warnings.map((w) => w.path)).toEqual(["assets"])
    const { report, timeseries } = await runScenario(loaded, { seed: 1, backend: "memory" })
    expect(report.netting).toMatchObject({ unit: "tokens", ratio: 0.999332, nettedVolume: "1497.220055", totalVolume: "1498.220035" })
    expect(report.discounts).toMatchObject({ unit: "tokens", paid: "2.749945", settledVolume: "1498.220035", paidBps: 18.354747, paidBpsOfInvoices: 18.333333 })
    expect(seriesOf(timeseries, "discountPaidTokens").at(-1)).toEqual([500_004, 2.749945])
    expect(seriesOf(timeseries, "discountPaidUsd")).toEqual([])
  })
})

/**
 * Spoke queue depths, by hand. Keepers dispatch an intent queue at 3 intents and a fill queue at 2 fills (age
 * thresholds of a day never bite); crons every 60 s (intents) and 180 s (fills) from 0; an epoch is 480 s and its
 * row is the state at its end (the world closes it at the first hub step at the boundary, before that second's
 * blocks). A solver with inventory on 31002 fills dave's fast intents there, 5 s after seeing each.
 *
 *  31001 intent queue: dave 20 (1), alice 100 (2) | E ends: 2 | dave 610 (3), dispatched by the cron at 660 (0)
 *                      | E+1 ends: 0 | dave 1100 (1) | E+2 ends: 1.
 *  31002 intent queue: bob 200 (1) | E: 1 | E+1: 1 | bob 1000 (2) | E+2: 2 (never 3: never dispatched).
 *  31002 fill queue:   fill of dave's first ~25 (1) | E: 1 | second ~615 (2), dispatched by the cron at 720 (0)
 *                      | E+1: 0 | third ~1105 (1) | E+2: 1.
 *  31001 fill queue:   no fills: 0 throughout.
 * One intent dispatch and one fill dispatch in all; at the horizon (1440, nothing moves at that second) the
 * chains' own queues hold what the last rows say. The events carry the queue indexes on both backends, so anvil
 * gives the same rows (and the same trace hash: the rows are not hub inputs).
 */
const queueScenario = `
name: hand-computed-queues
horizon: { seconds: 1440 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    fixedFeeTokens: "0"
    maxVariableFeeBps: 0
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
transport: { latency: { kind: fixed, seconds: 30 } }
keepers:
  intentQueue: { maxSize: 3, maxAgeSeconds: 86400 }
  fillQueue: { maxSize: 2, maxAgeSeconds: 86400 }
agents:
  rebalancers:
    - { name: dave, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [20, 610, 1100] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 } }
    - { name: alice, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [100] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 1000 } }
    - { name: bob, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [200, 1000] }, flows: [{ from: 31002, to: 31001 }], size: { kind: fixed, tokens: 1000 } }
  solvers:
    - { name: sol, count: 1, feeDbps: 10, reactionSeconds: { kind: fixed, seconds: 5 }, inventory: [{ chain: 31002, asset: USDC, tokens: 10000 }] }
`

describe("the epoch a horizon cuts short", () => {
  it("is snapshotted, and what only its successor would have seen is not claimed", async () => {
    // The same scenario ended at 1,200 s, halfway through E+2: alice's invoice (entered in E+0, 3 epochs to its
    // maximum discount) would reach its maximum only when E+3 begins, which this run never sees.
    const cut = discountScenario.replace("horizon: { seconds: 1920 }", "horizon: { seconds: 1200 }")
    const { report, timeseries } = await runScenario(parseScenario(cut, "cut.yaml"), { seed: 1, backend: "memory" })
    expect(report.epochs).toMatchObject({ first: 500_000, last: 500_002 })
    expect(seriesOf(timeseries, "invoicesOpen.USDC")).toEqual([[500_000, 1], [500_001, 1], [500_002, 2]])
    expect(report.coverage).not.toContain("maxDiscountReached")
  })

  it("counts the hub's exempt epochs before an invoice can reach its maximum discount", async () => {
    // A cap of one epoch's discount (100 dbps) behind 2 exempt epochs: alice's invoice (entry E) is discounted
    // (e − E − 2) × 100, capped at 100, so its maximum first applies when E+3 begins (1,440 s).
    const exempt = discountScenario.replace("maxDiscountDbps: 250", "maxDiscountDbps: 100").replace("transport:", "hub: { discountExemptEpochs: 2 }\ntransport:")
    const run = (seconds: number) => runScenario(parseScenario(exempt.replace("horizon: { seconds: 1920 }", `horizon: { seconds: ${seconds} }`), "exempt.yaml"), { seed: 1, backend: "memory" })
    expect((await run(1200)).report.coverage).not.toContain("maxDiscountReached")
    expect((await run(1500)).report.coverage).toContain("maxDiscountReached")
  })

  it("sees an invoice reach the maximum its owner's max_fee set, below the ticker's", async () => {
    // The cut run above with alice's max_fee at 50 dbps (userMaxDiscount): her invoice (entry E) is discounted
    // min(100, 50) = 50 dbps from E+1, its maximum, though the ticker's 250 would take until E+3.
    const capped = discountScenario
      .replace("horizon: { seconds: 1920 }", "horizon: { seconds: 1200 }")
      .replace("{ name: alice, count: 1, asset: USDC", "{ name: alice, count: 1, maxDiscountDbps: 50, asset: USDC")
    const { report } = await runScenario(parseScenario(capped, "capped.yaml"), { seed: 1, backend: "memory" })
    expect(report.epochs).toMatchObject({ first: 500_000, last: 500_002 })
    expect(report.coverage).toContain("maxDiscountReached")
  })
})

describe("spoke queue depths per epoch on a hand-computed scenario", () => {
  const traceHashes = new Map<Backend, string>()
  for (const backend of ["memory", "anvil"] as const) {
    it(`gives the intent and fill queue depths worked out above (${backend})`, async () => {
      const atEnd = new Map<string, number>()
      const { report, timeseries } = await runScenario(parseScenario(queueScenario, "hand-computed-queues.yaml"), {
        seed: 1,
        backend,
        inspect: async (world) => {
          for (const domain of [31001, 31002]) {
            atEnd.set(`intentQueue.${domain}`, (await world.chain(domain).intentQueue()).length)
            atEnd.set(`fillQueue.${domain}`, await world.chain(domain).fillQueueLength())
          }
        },
      })
      expect(report.backend).toBe(backend)
      expect(report.intents).toMatchObject({ created: 6 })
      expect(report.intents.byPath.fast.created).toBe(3)
      expect(report.keepers).toMatchObject({ intentDispatches: 1, fillDispatches: 1 })
      // dave's first two fast intents reach the hub in one batch with alice's (dave, alice, dave), each repaid to the
      // solver on 31001, its origin, as it arrives: from its own deposit (self), not from alice's older one (no
      // netting: alice's invoice on 31002 is never settled).
      expect(report.netting).toMatchObject({ ratio: 0, nettedVolume: "0" })
      expect(report.netting.bySource).toMatchObject({ self: report.netting.totalVolume })
      // In flight at the end: nothing of dave's (all three filled, the third not yet repaid to the solver),
      // alice's invoice, and bob's two intents still in 31002's queue.
      const inFlight = Object.fromEntries(report.agents.map((a) => [a.population, a.inFlight]))
      expect(inFlight).toEqual({ dave: {}, alice: { USDC: 1000 }, bob: { USDC: 2000 }, sol: {} })
      const E = 500_000
      // E+3 is the horizon tick's epoch (of no length): its row is the state the run ended in.
      expect(seriesOf(timeseries, "intentQueue.31001")).toEqual([[E, 2], [E + 1, 0], [E + 2, 1], [E + 3, 1]])
      expect(seriesOf(timeseries, "intentQueue.31002")).toEqual([[E, 1], [E + 1, 1], [E + 2, 2], [E + 3, 2]])
      expect(seriesOf(timeseries, "fillQueue.31002")).toEqual([[E, 1], [E + 1, 0], [E + 2, 1], [E + 3, 1]])
      expect(seriesOf(timeseries, "fillQueue.31001")).toEqual([[E, 0], [E + 1, 0], [E + 2, 0], [E + 3, 0]])
      for (const [metric, length] of atEnd) expect(seriesOf(timeseries, metric).at(-1), metric).toEqual([E + 3, length])
      traceHashes.set(backend, report.traceHash)
      if (traceHashes.size === 2) expect(traceHashes.get("anvil")).toBe(traceHashes.get("memory"))
    }, 120_000)
  }
})

/**
 * A sender outside every population (a `clearsim up` user over HTTP) is a user too: the first scenario with bob
 * replaced by a funded dev account that no agent signs with, which approves the fee adapter at 0 s and sends the
 * same 1,000 USDC 31002→31001 at t=100 through the service. The timeline is bob's, so both settlements net each
 * other: ratio 1 on 1,999.96, and the outside intent is counted under `(other senders)`.
 */
describe("an intent from a sender outside the populations", () => {
  it("nets like any user's and is counted under (other senders)", async () => {
    const loaded = parseScenario(scenario.replace(/\n    - \{ name: bob.*\n/, "\n"), "outside-sender.yaml")
    const plan = planWorld(loaded.spec, { userAccounts: 1 })
    const assembly = assembleRun(loaded.spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes) })
    const w = assembly.world
    const user = plan.users[0]!.address
    const usdc = plan.assets.get("USDC:31002")!.address
    const reverts: string[] = []
    const onReceipt = (receipt: SpokeReceipt) => void (receipt.status === "reverted" && reverts.push(receipt.error.name))
    w.scheduler.at(0, "approve", () => w.submit(31002, user, { kind: "erc20.approve", token: usdc, spender: w.chain(31002).addresses.feeAdapter, amount: 2n ** 256n - 1n }, undefined, onReceipt))
    w.scheduler.at(100_000, "outside user", async () => {
      const tx = await createIntents(assembly.service, { origin: "31002", destinations: ["31001"], inputAsset: usdc, amount: "1000000000", to: user, from: user })
      if (!tx.ok) throw new Error(`POST /intents: ${tx.error}`)
      sendTransaction(w, user, tx.value, onReceipt)
    })
    await w.run(plan.horizonSeconds)
    measureInFlight(plan, assembly)
    const { report } = buildRunResult(loaded, assembly, { seed: 1, run: 0, backend: "memory", horizonSeconds: plan.horizonSeconds, wallSeconds: 0 })
    w.close()
    expect(reverts).toEqual([])
    expect(report.intents).toMatchObject({ created: 2, settled: 2 })
    expect(report.intents.byPopulation).toMatchObject({ alice: { created: 1, settled: 1 }, "(other senders)": { created: 1, settled: 1 } })
    expect(report.netting).toMatchObject({ ratio: 1, nettedVolume: "1999.96", totalVolume: "1999.96" })
  })
})

describe("per-epoch latency samples", () => {
  it("are the users' only: one-sided-drain's time series matches the drainers' own latencies epoch by epoch", async () => {
    const spec = parseScenario(readFileSync(new URL("../../scenarios/one-sided-drain.yaml", import.meta.url), "utf8"), "one-sided-drain.yaml").spec
    const plan = planWorld(spec)
    const assembly = assembleRun(spec, plan, { seed: 21, spokes: createMemorySpokes(plan.spokes) })
    const { world } = assembly
    const drainers = new Set(plan.agents.filter((a) => a.population === "drainers").map((a) => a.account.address.toLowerCase()))
    // The drainers' intents, paid at their settlement to the receiver (basic path), grouped by the epoch they
    // were paid in as the collector groups its samples: between two of the world's epoch changes.
    const created = new Map<string, { at: number; receiver: string }>()
    let current = new Samples()
    const byEpoch = new Map<number, Samples>()
    world.observe({
      onSpokeEvent: (event, context) => {
        const now = world.nowMs / 1000
        if (event.name === "IntentAdded" && drainers.has(context.receipt.from.toLowerCase())) created.set(event.intentId, { at: now, receiver: bytes32ToAddress(event.intent.receiver).toLowerCase() })
        if (event.name === "Settled") {
          const intent = created.get(event.intentId)
          if (intent === undefined || event.account.toLowerCase() !== intent.receiver) return
          created.delete(event.intentId)
          current.add(now - intent.at)
        }
      },
      onEpoch: (epoch) => {
        byEpoch.set(epoch - 1, current)
        current = new Samples()
      },
    })
    await world.run(plan.horizonSeconds)
    world.close()
    const series = (metric: string) => new Map(seriesOf(assembly.metrics.timeseries, metric))
    const p50 = series("p50LatencySeconds")
    const max = series("maxLatencySeconds")
    const expected = [...byEpoch].filter(([, samples]) => samples.count > 0)
    expect(expected.length).toBeGreaterThan(10)
    // An epoch with samples has its row, and no other epoch has one (an arbitrageur's purchase alone adds none).
    expect([...p50.keys()].sort()).toEqual(expected.map(([epoch]) => epoch).sort())
    for (const [epoch, samples] of expected) {
      const p = samples.percentiles()!
      expect([epoch, p50.get(epoch), max.get(epoch)]).toEqual([epoch, toMilliseconds(p.p50), toMilliseconds(p.max)])
    }
  })

  it("are the epoch's in which the receiver was paid, though the world closes that epoch's predecessor only later", async () => {
    // The first hand-computed scenario with 50-s epochs (5 hub blocks of 10 s; E = 20,000,000 / 5 from t=0) beside
    // the keepers' 60-s crons: alice's settlement goes out at 240 (E+4) and is paid on 31002 at 270, in E+5
    // ([250, 300)); the next hub step, where the world closes E+4, is the cron at 300. Her latency (260 s) and the
    // settled count are E+5's, not E+4's.
    const fifty = scenario.replace("horizon: { seconds: 900 }", "horizon: { seconds: 600 }\nhub: { blockTimeSeconds: 10, epochLength: 5 }")
    const { report, timeseries } = await runScenario(parseScenario(fifty, "hand-computed-50s.yaml"), { seed: 1, backend: "memory" })
    const E = 4_000_000
    expect(report.latency).toMatchObject({ count: 1, p50: 260, max: 260 })
    expect(seriesOf(timeseries, "p50LatencySeconds")).toEqual([[E + 5, 260]])
    expect(seriesOf(timeseries, "maxSettlementLatencySeconds")).toEqual([[E + 5, 260]])
    expect(seriesOf(timeseries, "intentsSettled").slice(3, 7)).toEqual([[E + 3, 0], [E + 4, 0], [E + 5, 1], [E + 6, 1]])
  })
})

/**
 * The first scenario with an outside sender (a funded dev account no agent signs with) beside alice and bob:
 * `script` schedules its calls. The report of the run.
 */
const runWithOutsideUser = async (text: string, script: (w: RunAssembly["world"], user: Address, service: RunAssembly["service"]) => void) => {
  const loaded = parseScenario(text, "outside-user.yaml")
  const plan = planWorld(loaded.spec, { userAccounts: 1 })
  const assembly = assembleRun(loaded.spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes) })
  script(assembly.world, plan.users[0]!.address, assembly.service)
  await assembly.world.run(plan.horizonSeconds)
  measureInFlight(plan, assembly)
  const result = buildRunResult(loaded, assembly, { seed: 1, run: 0, backend: "memory", horizonSeconds: plan.horizonSeconds, wallSeconds: 0 })
  assembly.world.close()
  return result
}

/**
 * An unsupported intent refunded (reference §3.3 step 3, `returnUnsupportedIntent`): the first scenario, and an
 * outside user sends 1,000 USDC 31001→31002 straight to the spoke at t=20 with an output asset no chain has.
 * The hub takes it in at 90 as UNSUPPORTED (no custody: alice's and bob's timeline is unchanged); the user's
 * returnUnsupportedIntent at 120 sends the whole amount back to 31001, where it is Settled to the user (its
 * receiver too) at 150. A refund is not a settlement: 3 intents created, alice's and bob's 2 settled, their
 * latencies only (260 and 470 s); bob's settlement at 570, after the refund, still counts.
 */
describe("an unsupported intent returned to its sender", () => {
  it("is created, but its refund is neither a settlement nor a payment", async () => {
    const reverts: string[] = []
    const { report } = await runWithOutsideUser(scenario, (w, user) => {
      const usdc = w.plan.assets.get("USDC:31001")!.address
      const onReceipt = (receipt: SpokeReceipt) => void (receipt.status === "reverted" && reverts.push(receipt.error.name))
      let intentId: Bytes32 | undefined
      w.observe({ onSpokeEvent: (e, c) => void (e.name === "IntentAdded" && c.receipt.from.toLowerCase() === user.toLowerCase() && (intentId = e.intentId)) })
      w.scheduler.at(0, "approve", () => w.submit(31001, user, { kind: "erc20.approve", token: usdc, spender: w.chain(31001).addresses.spoke, amount: 2n ** 256n - 1n }, undefined, onReceipt))
      const intent = { destinations: [31002], receiver: user, inputAsset: usdc, outputAsset: "0x000000000000000000000000000000000000dEaD" as Address, amount: 1_000_000_000n, maxFee: 0, ttl: 0, data: "0x" as const }
      w.scheduler.at(20_000, "unsupported intent", () => w.submit(31001, user, { kind: "spoke.newIntent", ...intent }, undefined, onReceipt))
      w.scheduler.at(120_000, "return it", () => {
        const revert = w.applyHub({ kind: "returnUnsupportedIntent", intentId: intentId! })
        if (revert !== undefined) reverts.push(revert.errorName)
      })
    })
    expect(reverts).toEqual([])
    expect(report.coverage).toContain("unsupportedReturned")
    expect(report.intents).toMatchObject({ created: 3, settled: 2 })
    expect(report.intents.byPopulation).toMatchObject({ "(other senders)": { created: 1, settled: 0 } })
    expect(report.latency).toMatchObject({ count: 2, p50: 365, max: 470 })
    expect(report.latency.settlement).toMatchObject({ count: 2, p50: 365, max: 470 })
  })
})

/**
 * The path of an intent is worked out once per route (input and output asset, origin, destination, fast or
 * not). On three chains an outside user sends 100 USDC from 31001: a fast intent to 31002 (its output asset
 * USDC there), then basic intents to 31002 and to 31003 naming their output asset, which is allowed for the
 * ticker's own asset (reference §3.3 step 3). USDC has one address on every chain (the same deployer and nonce),
 * so the three share input and output asset: only the fast flag and the destination tell them apart.
 * They are sent at 200, 210 and 220 s and reach the hub at 270, after alice's invoice settled (180): the fast one
 * finds no invoice open and waits for a fill (no solver: waiting through the end); the basic one to 31002 finds
 * 0.02 in custody there and is invoiced; the one to 31003, an invoice now open, is a deposit of E on 31001, queued
 * beside bob's of E on 31002 until the cleanup of E at 480.
 */
describe("intents of one asset pair on the fast and the basic path", () => {
  it("are counted on their own paths, and their deposits queued or waiting per epoch", async () => {
    const threeChains = scenario.replace("chains: [{ id: 31001 }, { id: 31002 }]", "chains: [{ id: 31001 }, { id: 31002 }, { id: 31003 }]").replace("{ chain: 31002, decimals: 6 }]", "{ chain: 31002, decimals: 6 }, { chain: 31003, decimals: 6 }]")
    const failures: string[] = []
    const { report, timeseries } = await runWithOutsideUser(threeChains, (w, user, service) => {
      const usdc = w.plan.assets.get("USDC:31001")!.address
      expect([w.plan.assets.get("USDC:31002")!.address, w.plan.assets.get("USDC:31003")!.address]).toEqual([usdc, usdc])
      const onReceipt = (receipt: SpokeReceipt) => void (receipt.status === "reverted" && failures.push(receipt.error.name))
      w.scheduler.at(0, "approve", () => w.submit(31001, user, { kind: "erc20.approve", token: usdc, spender: w.chain(31001).addresses.feeAdapter, amount: 2n ** 256n - 1n }, undefined, onReceipt))
      const sends = [
        { destinations: ["31002"], isFastPath: true },
        { destinations: ["31002"], outputAsset: usdc },
        { destinations: ["31003"], outputAsset: usdc },
      ]
      sends.forEach((route, i) =>
        w.scheduler.at((200 + 10 * i) * 1000, "outside user", async () => {
          const tx = await createIntents(service, { origin: "31001", inputAsset: usdc, amount: "100000000", to: user, from: user, ...route })
          if (!tx.ok) return void failures.push(tx.error)
          sendTransaction(w, user, tx.value, onReceipt)
        }),
      )
    })
    expect(failures).toEqual([])
    expect(report.intents.byPopulation).toMatchObject({ "(other senders)": { created: 3 } })
    expect(report.intents.byPath.fast.created).toBe(1)
    // alice's and bob's, and the outside user's two.
    expect(report.intents.byPath.basic.created).toBe(4)
    expect(seriesOf(timeseries, "depositsQueued.USDC")).toEqual([[500_000, 2], [500_001, 0]])
    expect(seriesOf(timeseries, "depositsWaiting.USDC")).toEqual([[500_000, 1], [500_001, 1]])
  })
})

/**
 * An xERC20 mint over the bridge's limit, by hand. XT (6 decimals here, so that the owed amounts are scaled to
 * 18 decimals), minting limit 1,000 a day on each chain, protocol fee 2 dbps; the debt keeper mints every 600 s
 * from 300 s, as much as the limit allows.
 *
 *  t=10  bridgers sends 1,000.5 XT 31001→31002 (burnt); dispatched at 60, at the hub at 90, where it settles to
 *        31002 for 1,000.5 − 0.02001 = 1,000.47999 (xERC20: no custody), sent at 120.
 *  t=150 on 31002 the mint of 1,000.47999 is over the limit (1,000): AssetMintFailed, then Settled: settled
 *        (latency 140 s), but the receiver is owed 1,000.47999.
 *  t=300 the keeper mints 1,000 (the whole limit): 0.47999 still owed.
 *  t=900 the limit has refilled by 600 × 1,000 / 86,400 = 6.94: the keeper mints the 0.47999 left, exactly the
 *        debt: the receiver is paid (latency 890 s).
 * What the bridgers have in flight is what is still owed: 1,000.47999 at 200 s, 0.47999 at 600 s, nothing at
 * 1,200 s. No mint succeeded at a settlement, so there is no xerc20Settled.
 */
const debtScenario = (horizonSeconds: number) => `
name: hand-computed-debt
horizon: { seconds: ${horizonSeconds} }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: XT
    prioritizedStrategy: xerc20
    chains:
      - { chain: 31001, decimals: 6, strategy: xerc20, mintLimit: 1000, burnLimit: 10000000 }
      - { chain: 31002, decimals: 6, strategy: xerc20, mintLimit: 1000, burnLimit: 10000000 }
transport: { latency: { kind: fixed, seconds: 30 } }
agents:
  rebalancers:
    - { name: bridgers, count: 1, asset: XT, arrival: { kind: scripted, atSeconds: [10] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: "1000.5" } }
`

describe("an xERC20 debt on a hand-computed scenario", () => {
  it("pays the receiver when the mint that covers the rest of the debt exactly is mined", async () => {
    const run = async (seconds: number) => (await runScenario(parseScenario(debtScenario(seconds), "hand-computed-debt.yaml"), { seed: 1, backend: "memory" })).report
    const inFlight = async (seconds: number) => (await run(seconds)).agents.find((a) => a.population === "bridgers")!.inFlight
    expect(await inFlight(200)).toEqual({ XT: 1000.47999 })
    expect(await inFlight(600)).toEqual({ XT: 0.47999 })
    const report = await run(1200)
    expect(report.keepers.debtMints).toBe(2)
    expect(report.agents.find((a) => a.population === "bridgers")!.inFlight).toEqual({})
    expect(report.intents).toMatchObject({ created: 1, settled: 1 })
    expect(report.latency).toMatchObject({ count: 1, max: 890 })
    expect(report.latency.settlement).toMatchObject({ count: 1, max: 140 })
    expect(report.coverage).toEqual(["xerc20DebtMinted", "xerc20MintDebt"])
  })
})

/**
 * An invoice settled on an xERC20 chain over its minting limit, by hand (reference §3.6 step 4: an XERC20
 * destination settles the full invoice amount; §4.5 step 5: a failed mint is `mintable` debt of the recipient,
 * minted later by `mintDebt`). XT is custodied on 31001 and 31002 (6 decimals) and an xERC20 on 31003 (18
 * decimals, minting limit 1,000 a day), the default strategy first, no quote fees, protocol fee 2 dbps.
 *
 *  t=10   alice sends 1,000.5 XT 31001→31002; dispatched at 60, at the hub at 90: nothing custodied on 31002 and
 *         no xERC20 among her destinations, so an invoice of 1,000.5 − 0.02001 = 1,000.47999.
 *  t=100  alice registers her domains on the hub (as anyone may, through its JSON-RPC): 31002 and 31003.
 *  t=120  processDepositsAndInvoices: still nothing on 31002, so the xERC20 domain 31003, for the whole
 *         1,000.47999; sent at 180, on 31003 at 210.
 *  t=210  the mint of 1,000.47999 · 10^18 units is over the limit (1,000): AssetMintFailed, then Settled: settled
 *         (latency 200 s), alice owed 1,000.47999.
 *  t=300  the debt keeper mints 1,000: 0.47999 owed.
 *  t=900  the limit has refilled by 600 × 1,000 / 86,400 = 6.94: it mints the 0.47999 left; alice is paid
 *         (latency 890 s).
 */
describe("an invoice settled on an xERC20 chain whose mint fails", () => {
  it("is a settled invoice and a debt of its owner, paid when the debt is minted", async () => {
    const text = `
name: invoice-to-xerc20
horizon: { seconds: 1200 }
chains: [{ id: 31001 }, { id: 31002 }, { id: 31003 }]
assets:
  - symbol: XT
    fixedFeeTokens: "0"
    maxVariableFeeBps: 0
    chains:
      - { chain: 31001, decimals: 6 }
      - { chain: 31002, decimals: 6 }
      - { chain: 31003, decimals: 18, strategy: xerc20, mintLimit: 1000, burnLimit: 10000000 }
transport: { latency: { kind: fixed, seconds: 30 } }
agents:
  rebalancers:
    - { name: alice, count: 1, asset: XT, arrival: { kind: scripted, atSeconds: [10] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: "1000.5" }, paths: { basic: 1 } }
`
    const run = async (seconds: number) => {
      const loaded = parseScenario(text.replace("{ seconds: 1200 }", `{ seconds: ${seconds} }`), "invoice-to-xerc20.yaml")
      const plan = planWorld(loaded.spec)
      const assembly = assembleRun(loaded.spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes) })
      const w = assembly.world
      const alice = plan.agents.find((a) => a.population === "alice")!.account.address
      const hub: (string | undefined)[] = []
      w.scheduler.at(100_000, "alice's domains", () => void hub.push(w.applyHub({ kind: "setUserSupportedDomains", user: addressToBytes32(alice), domains: [31002, 31003] })?.errorName))
      const events: [number, string, bigint][] = []
      w.observe({
        onSpokeEvent: (e, context) => {
          if (context.domain === 31003 && (e.name === "AssetMintFailed" || e.name === "DebtMinted" || e.name === "Settled")) events.push([w.nowMs / 1000, e.name, e.amount])
        },
      })
      await w.run(plan.horizonSeconds)
      measureInFlight(plan, assembly)
      const { report } = buildRunResult(loaded, assembly, { seed: 1, run: 0, backend: "memory", horizonSeconds: plan.horizonSeconds, wallSeconds: 0 })
      const owed = await w.chain(31003).mintable(alice, plan.assets.get("XT:31003")!.address)
      w.close()
      expect(hub).toEqual([undefined])
      return { report, events, owed, inFlight: report.agents.find((a) => a.population === "alice")!.inFlight }
    }
    expect((await run(250)).inFlight).toEqual({ XT: 1000.47999 })
    expect((await run(600)).inFlight).toEqual({ XT: 0.47999 })
    const { report, events, owed } = await run(1200)
    expect(events).toEqual([
      [210, "AssetMintFailed", 1_000_479_990_000_000_000_000n],
      [210, "Settled", 1_000_479_990_000_000_000_000n],
      [300, "DebtMinted", 1_000_000_000_000_000_000_000n],
      [900, "DebtMinted", 479_990_000_000_000_000n],
    ])
    expect(owed).toBe(0n)
    expect(report.discounts).toMatchObject({ paid: "0", settledVolume: "1000.47999", invoicesCreated: 1, invoicesSettled: 1 })
    expect(report.keepers).toMatchObject({ debtMints: 2, reverts: 0 })
    expect(report.intents).toMatchObject({ created: 1, settled: 1 })
    expect(report.latency).toMatchObject({ count: 1, max: 890 })
    expect(report.latency.settlement).toMatchObject({ count: 1, max: 200 })
    expect(report.agents.find((a) => a.population === "alice")!.inFlight).toEqual({})
    // No mint succeeded at a settlement: no xerc20Settled.
    expect(report.coverage).toEqual(["invoiceCreated", "invoiceSettled", "xerc20DebtMinted", "xerc20MintDebt"])
  })
})

/**
 * An arbitrageur's purchase, by hand: alice's invoice as in the discount scenario (999.98 on 31002, entry E,
 * 100 dbps an epoch), and an arbitrageur `mm` with capital on 31002 that polls every 1,000 s from 500 s (one
 * agent: half its period). At 500 (E+1) the invoice is discounted 100 dbps: mm buys it with a deposit of about
 * 999 USDC on 31002, dispatched at 540, at the hub at 570. Bob also sends 1,000 USDC from 31002:
 *  - at 490: his deposit and mm's reach the hub in one batch at 570, his first. The process call at 600 settles
 *    the invoice for 998.98002 from the deposits of E+1 on 31002, consumed in order: bob's 1,000 covers it all and
 *    earns the whole reward; mm's deposit earns none (processed at 960, the cleanup of E+1, for its amount after
 *    fees). No arbitrage purchase.
 *  - at 450: his deposit reaches the hub at 510 and settles the invoice at 540; mm's deposit, at 570, finds no
 *    invoice open and is taken in as any intent then is (its DepositProcessed carries its amount before the
 *    protocol fee, reference §3.3 step 6), settled to mm on 31001 without a reward. No arbitrage purchase.
 *  - never: mm's deposit alone covers the invoice at 600 and earns the reward. An arbitrage purchase.
 */
describe("an arbitrageur's deposit on a hand-computed scenario", () => {
  const arbitrage = (bob: string) =>
    discountScenario.replace("horizon: { seconds: 1920 }", "horizon: { seconds: 1200 }").replace(/\n    - \{ name: carol.*\n    - \{ name: bob.*\n/, `\n${bob}`) +
    "  arbitrageurs:\n    - { name: mm, count: 1, pollSeconds: 1000, minDiscountBps: 0, minInvoiceAgeSeconds: 1, capital: [{ chain: 31002, asset: USDC, tokens: 10000 }] }\n"
  const bobAt = (seconds: number) => `    - { name: bob, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [${seconds}] }, flows: [{ from: 31002, to: 31001 }], size: { kind: fixed, tokens: 1000 } }\n`
  const run = async (bob: string) => {
    const { report } = await runScenario(parseScenario(arbitrage(bob), "hand-computed-arbitrage.yaml"), { seed: 1, backend: "memory" })
    expect(report.agents.find((a) => a.population === "mm")!.actions).toMatchObject({ purchase: 1 })
    return report
  }

  it("is a purchase only if it earned a reward", async () => {
    const late = await run(bobAt(490))
    expect(late.discounts).toMatchObject({ paid: "0.99998", invoicesSettled: 1 })
    expect(late.coverage).not.toContain("arbitragePurchase")
    expect((await run(bobAt(450))).coverage).not.toContain("arbitragePurchase")
    expect((await run("")).coverage).toContain("arbitragePurchase")
  })
})

/**
 * Custody in the time series of an 18-decimal token: the first scenario with USDC of 18 decimals and alice
 * sending 1,000.00005. Her invoice is 1,000.00005 − 0.020000001 (2 dbps) = 999.980049999, settled at 180 on
 * 31002 from bob's 1,000: 0.019950001 left there (nine decimals: a token of 6 decimals could not hold it).
 * Bob's 999.98 settles at 480 on 31001 from alice's 1,000.00005: 0.02005 left.
 */
describe("custody of an 18-decimal token in the time series", () => {
  it("is in whole tokens, to the token's fine decimals", async () => {
    const fine = scenario.replace("{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }", "{ chain: 31001, decimals: 18 }, { chain: 31002, decimals: 18 }").replace("size: { kind: fixed, tokens: 1000 } }\n    - { name: bob", 'size: { kind: fixed, tokens: "1000.00005" } }\n    - { name: bob')
    const { report, timeseries } = await runScenario(parseScenario(fine, "hand-computed-18.yaml"), { seed: 1, backend: "memory" })
    expect(report.intents).toMatchObject({ created: 2, settled: 2 })
    const E = 500_000
    expect(seriesOf(timeseries, "custody.USDC.31002")).toEqual([[E, 0.019950001], [E + 1, 0.019950001]])
    expect(seriesOf(timeseries, "custody.USDC.31001")).toEqual([[E, 1000.00005], [E + 1, 0.02005]])
  })
})

/**
 * A solver's rebalancing is not a user's intent: dave sends 100 USDC 31001→31002 on the fast path at 20 s; the
 * solver fills it from its 150 on 31002, which leaves it below half its start there, so it sends a netting intent
 * from 31001 (its rich chain) to rebalance (the queue scenario, with the default keepers and dave alone). The
 * run's figures are dave's intent alone (created, repaid to the solver: settled, one latency); the solver's
 * intent counts in its own population only. The fill is a fast path's, not a swap's.
 */
describe("a solver's rebalancing intent", () => {
  it("counts in the solver's population, not in the users' figures", async () => {
    const text = queueScenario
      .replace(/\nkeepers:\n.*\n.*\n/, "\n")
      .replace("atSeconds: [20, 610, 1100]", "atSeconds: [20]")
      .replace(/\n    - \{ name: alice.*\n    - \{ name: bob.*\n/, "\n")
      .replace("inventory: [{ chain: 31002, asset: USDC, tokens: 10000 }]", "rebalanceBelowShare: 0.5, inventory: [{ chain: 31002, asset: USDC, tokens: 150 }, { chain: 31001, asset: USDC, tokens: 1000 }]")
    const { report } = await runScenario(parseScenario(text, "solver-rebalance.yaml"), { seed: 1, backend: "memory" })
    expect(report.agents.find((a) => a.population === "sol")!.actions).toEqual({ fill: 1, rebalance: 1 })
    expect(report.intents).toMatchObject({ created: 1, settled: 1 })
    expect(report.intents.byPath.basic.created).toBe(0)
    expect(report.intents.byPopulation).toMatchObject({ dave: { created: 1, settled: 1 }, sol: { created: 1 } })
    expect(report.latency.count).toBe(1)
    // dave's intent was filled on the fast path: no swap.
    expect(report.coverage).toContain("fastPathFilled")
    expect(report.coverage).not.toContain("swapFilled")
  })
})
