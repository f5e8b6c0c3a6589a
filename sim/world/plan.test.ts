/**
 * The plan of a run: the hub's defaults (production's, PROTOCOL.md "Time"), the horizon in seconds, the hub's first
 * block on an epoch start, and the accounts the agents get.
 */
import { describe, expect, it } from "vitest"
import { parseScenario } from "../scenario/load.ts"
import { horizonSeconds, hubGenesisBlock, planWorld } from "./plan.ts"

const scenario = (horizon: string, hub = "") =>
  parseScenario(
    `
name: plan
horizon: ${horizon}
${hub}
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
agents:
  solvers:
    - { name: s, count: 2, feeDbps: 20, inventory: [{ chain: 31002, asset: USDC, tokens: 1000 }] }
`,
    "plan.yaml",
  ).spec

describe("planWorld", () => {
  it("fills in production's hub defaults: 12 s blocks, epochs of 40, 12 h expiry buffer, 3 dbps an epoch up to 12, a 2 dbps fee", () => {
    const plan = planWorld(scenario("{ seconds: 600 }"))
    expect(plan.hubBlockTimeSeconds).toBe(12)
    expect(plan.hub).toMatchObject({ epochLength: 40, expiryTimeBuffer: 43_200, discountExemptEpochs: 0, userMaxDiscount: true })
    expect(plan.hub.tickers[0]).toMatchObject({ discountPerEpoch: 3, maxDiscountDbps: 12, fees: [{ fee: 2 }] })
  })

  it("counts a horizon in epochs as epochs × epoch length × hub block time, and in hours as 3,600 s each", () => {
    expect(horizonSeconds(scenario("{ epochs: 3 }"))).toBe(3 * 40 * 12)
    expect(horizonSeconds(scenario("{ epochs: 3 }", "hub: { blockTimeSeconds: 2, epochLength: 10 }"))).toBe(60)
    expect(horizonSeconds(scenario("{ hours: 2 }"))).toBe(7200)
  })

  it("starts the hub on the first epoch start at or after block 20,000,000", () => {
    expect(hubGenesisBlock(40)).toBe(20_000_000)
    // 20,000,000 / 30 = 666,666.7: epoch 666,667 starts at block 20,000,010.
    expect(hubGenesisBlock(30)).toBe(20_000_010)
  })

  it("gives each solver a rebalance receiver of its own, after every other account", () => {
    const plan = planWorld(scenario("{ seconds: 600 }"))
    const receivers = plan.agents.map((a) => a.rebalanceReceiver?.index)
    // Accounts 0-4 are the service's, 5 and 6 the solvers', 7 and 8 their receivers.
    expect(plan.agents.map((a) => a.account.index)).toEqual([5, 6])
    expect(receivers).toEqual([7, 8])
    expect(plan.accountCount).toBe(9)
  })
})
