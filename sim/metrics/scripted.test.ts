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
import { describe, expect, it } from "vitest"
import { runScenario } from "../run.ts"
import { parseScenario } from "../scenario/load.ts"

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
    const { report } = await runScenario(parseScenario(scenario, "hand-computed.yaml"), { seed: 1, backend: "memory" })
    expect(report.intents).toMatchObject({ created: 2, settled: 2 })
    expect(report.netting).toMatchObject({ ratio: 1, nettedVolume: "1999.96", totalVolume: "1999.96" })
    expect(report.discounts).toMatchObject({ paid: "0", invoicesCreated: 1, invoicesSettled: 1 })
    expect(report.latency).toMatchObject({ count: 2, p50: 365, p90: 449, p99: 467.9, max: 470 })
    expect(report.latency.settlement).toMatchObject({ p50: 365, max: 470 })
    expect(report.epochs).toMatchObject({ first: 500_000, last: 500_001 })
  })
})
