/**
 * A solver rebalances when a fill it could afford takes a chain's inventory below `rebalanceBelowShare` of its
 * start (the documented meaning of the field), not only when a fill cannot be afforded: 10,000 USDC on each
 * of two chains, share 0.5, and one fast-path intent of 6,000 USDC 31001→31002. The fill leaves ~4,000 on
 * 31002 (below 5,000), so the solver moves funds from 31001 with a netting intent; no fill is ever
 * unaffordable.
 */
import { describe, expect, it, vi } from "vitest"
import { runScenario } from "../run.ts"
import { Scheduler } from "../scheduler.ts"
import { parseScenario } from "../scenario/load.ts"
import { twoChainUsdc } from "../scenario/testing.ts"
import { ACCOUNT_FUNDING_TOKENS } from "../scenario/schema.ts"
import { addressToBytes32 } from "../../service/domain/hex.ts"
import { REBALANCE_COOLDOWN_MS, rebalanceRetryMs } from "./solver.ts"

/**
 * Two chains of USDC, one user sending a fast intent of 6,000 31001→31002 at 60 s, and one solver holding 10,000 on
 * 31002 and `inventory31001` on 31001, rebalancing below `share` of its start.
 */
const solverScenario = (p: {
  readonly name: string
  readonly horizonSeconds: number
  readonly share: number
  readonly inventory31001: string
  readonly usdc?: string
  readonly faults?: string
  readonly initialLiquidity?: string
}) => `
name: ${p.name}
horizon: { seconds: ${p.horizonSeconds} }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
${p.usdc ?? ""}    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
transport: { latency: { kind: fixed, seconds: 30 }${p.faults === undefined ? "" : `, faults: ${p.faults}`} }
${p.initialLiquidity ?? ""}agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 6000 }, paths: { fast: 1 } }
  solvers:
    - name: solver
      count: 1
      feeDbps: 20
      reactionSeconds: { kind: fixed, seconds: 5 }
      rebalanceBelowShare: ${p.share}
      inventory:
        - { chain: 31001, asset: USDC, tokens: ${p.inventory31001} }
        - { chain: 31002, asset: USDC, tokens: 10000 }
`

const scenario = (share: number) => solverScenario({ name: "solver-low-inventory", horizonSeconds: 1200, share, inventory31001: "10000" })

const solverStats = async (share: number) => {
  const { report } = await runScenario(parseScenario(scenario(share), "solver-low-inventory.yaml"), { seed: 1, backend: "memory" })
  return report.agents.find((a) => a.kind === "solver")!
}

describe("solver rebalancing", () => {
  it("rebalances when an affordable fill takes a chain's inventory below the share of its start", async () => {
    const solver = await solverStats(0.5)
    expect(solver.actions.fill).toBe(1)
    expect(solver.rejections.insufficientInventory).toBeUndefined()
    expect(solver.actions.rebalance).toBe(1)
  })

  it("adds up inventory listed in two entries for the same chain (as the loader sums them): its start is the sum", async () => {
    // 31002's 10,000 as 2,000 + 8,000 (or 8,000 + 2,000): the fill leaves about 4,012, below half of 10,000. Taking
    // the last entry for its start (floor 4,000, or 1,000), the solver saw no need to rebalance.
    for (const split of [["2000", "8000"], ["8000", "2000"]]) {
      const text = scenario(0.5).replace(
        "        - { chain: 31002, asset: USDC, tokens: 10000 }",
        split.map((tokens) => `        - { chain: 31002, asset: USDC, tokens: ${tokens} }`).join("\n"),
      )
      const { report } = await runScenario(parseScenario(text, "solver-split-inventory.yaml"), { seed: 1, backend: "memory" })
      const solver = report.agents.find((a) => a.kind === "solver")!
      expect([solver.actions, solver.rejections]).toEqual([{ fill: 1, rebalance: 1 }, {}])
    }
  })

  it("does not rebalance while the inventory stays above the share", async () => {
    const solver = await solverStats(0.3)
    expect(solver.actions.fill).toBe(1)
    expect(solver.actions.rebalance).toBeUndefined()
  })
})

/**
 * A rebalance lands on the chain it was sent to. The solver registered both chains for repayment, and the hub pays
 * such a recipient on its most liquid registered chain: 31001 here (100,000 of initial liquidity against 20,000 on
 * 31002), where the rebalance comes from. Paid to the solver's rebalance receiver instead, which registered
 * nothing, the intent settles on 31002, and the tokens end in the solver's inventory there.
 */
describe("solver rebalancing lands where it was sent", () => {
  it("settles the rebalance on the poor chain and deposits it into the solver's inventory there", async () => {
    const text = scenario(0.5).replace("horizon: { seconds: 1200 }", "horizon: { seconds: 3600 }").replace(
      "agents:",
      "initialLiquidity:\n  - { chain: 31001, asset: USDC, tokens: 100000 }\n  - { chain: 31002, asset: USDC, tokens: 20000 }\nagents:",
    )
    const loaded = parseScenario(text, "solver-rebalance-lands.yaml")
    let inventory31002 = 0n
    let receiverHolds = -1n
    const { report } = await runScenario(loaded, {
      seed: 1,
      backend: "memory",
      inspect: async (world) => {
        const solver = world.plan.agents.find((a) => a.kind === "solver")!
        const usdc = world.plan.assets.get("USDC:31002")!.address
        inventory31002 = await world.chain(31002).virtualBalance(usdc, solver.account.address)
        receiverHolds = await world.chain(31002).erc20Balance(usdc, solver.rebalanceReceiver!.address)
      },
    })
    const solver = report.agents.find((a) => a.kind === "solver")!
    expect([solver.actions.fill, solver.actions.rebalance, solver.actions.rebalanceDeposit]).toEqual([1, 1, 1])
    // 10,000 - the fill's 5,988 + the rebalance of 5,000 (half the start) less the API's and the hub's fees (about
    // 15 tokens here): paid on 31001 instead, 31002 would hold 4,012.
    expect(inventory31002).toBeGreaterThan(10_000_000_000n - 5_988_000_000n + 4_950_000_000n)
    expect(inventory31002).toBeLessThan(10_000_000_000n - 5_988_000_000n + 5_000_000_000n)
    expect(receiverHolds).toBe(0n)
  })
})

describe("solver inventory promised to fills in flight", () => {
  it("does not send a second fill the first one's output leaves it unable to pay (it would revert)", async () => {
    const text = scenario(0.5).replace("atSeconds: [60]", "atSeconds: [60, 60]")
    const { report } = await runScenario(parseScenario(text, "solver-two-fills.yaml"), { seed: 1, backend: "memory" })
    const solver = report.agents.find((a) => a.kind === "solver")!
    expect(solver.actions.fill).toBe(1)
    expect(solver.rejections).toEqual({ insufficientInventory: 1 })
    expect(report.world.spokeReverts).toBe(0)
  })
})

describe("solver rebalancing on a timer", () => {
  it("rebalances a chain left below its share once the hour's cooldown is over, with no fill to ask for it", async () => {
    // A fill at 60 s takes 31002 below half: rebalance, then an hour's cooldown. A second fill at 900 s takes it
    // below again, inside the cooldown; the fast path is then refused (too little inventory), so no fill comes to
    // ask again: only the ten-minute check rebalances it, at 4,200 s. (Repayments go to 31001, the most liquid.)
    const text = scenario(0.5)
      .replace("horizon: { seconds: 1200 }", "horizon: { seconds: 5400 }")
      .replace("atSeconds: [60]", "atSeconds: [60, 900, 1800, 2700]")
      .replace("agents:", "initialLiquidity:\n  - { chain: 31001, asset: USDC, tokens: 100000 }\n  - { chain: 31002, asset: USDC, tokens: 20000 }\nagents:")
    const { report } = await runScenario(parseScenario(text, "solver-timer.yaml"), { seed: 1, backend: "memory" })
    const solver = report.agents.find((a) => a.kind === "solver")!
    const user = report.agents.find((a) => a.kind === "rebalancer")!
    expect(solver.actions.fill).toBe(2)
    expect(user.fallbacks["basicForFast:OverSolverLimit"]).toBe(2)
    expect(solver.actions.rebalance).toBe(2)
  })
})

/**
 * Two fast intents one each way on two chains, 31001 mining every 12 s: a's of 6,000 to 31002 at 60 s, b's of 5,500
 * to 31001 at `bAtSeconds`; one solver with 10,000 on each chain, rebalancing below half.
 */
const crossingFills = (bAtSeconds: number) =>
  parseScenario(
    `
name: solver-crossing-fills
horizon: { seconds: 1200 }
chains: [{ id: 31001, blockTimeSeconds: 12 }, { id: 31002, blockTimeSeconds: 2 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
transport: { latency: { kind: fixed, seconds: 30 } }
agents:
  rebalancers:
    - { name: a, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 6000 }, paths: { fast: 1 } }
    - { name: b, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [${bAtSeconds}] }, flows: [{ from: 31002, to: 31001 }], size: { kind: fixed, tokens: 5500 }, paths: { fast: 1 } }
  solvers:
    - name: solver
      count: 1
      feeDbps: 20
      reactionSeconds: { kind: fixed, seconds: 5 }
      rebalanceBelowShare: 0.5
      inventory:
        - { chain: 31001, asset: USDC, tokens: 10000 }
        - { chain: 31002, asset: USDC, tokens: 10000 }
`,
    "solver-crossing-fills.yaml",
  )

describe("solver inventory spoken for", () => {
  it("does not take a rebalance from inventory a fill in flight has promised (the withdrawal would revert)", async () => {
    // Both at 60 s: 31002 falls below its share and looks to 31001, whose 10,000 are promised to b's fill
    // (31001 mines every 12 s, so that fill is still in flight).
    const { report } = await runScenario(crossingFills(60), { seed: 1, backend: "memory" })
    const solver = report.agents.find((a) => a.kind === "solver")!
    expect(solver.actions).toEqual({ fill: 2 })
    expect(report.world.spokeReverts).toBe(0)
  })

  it("does not send a fill the inventory a rebalance is withdrawing cannot pay (it would revert)", async () => {
    // a's fill on 31002 at 65 s takes it below half: the solver withdraws 5,000 from 31001 to rebalance. b's
    // intent, created at 66 s, asks for 5,489 of the 10,000 there before that block: not sent then. It waits,
    // and is filled once inventory comes back to 31001 (a's fill repaid there), well within its hour.
    const { report } = await runScenario(crossingFills(66), { seed: 1, backend: "memory" })
    const solver = report.agents.find((a) => a.kind === "solver")!
    expect([solver.actions.fill, solver.actions.rebalance, solver.rejections.insufficientInventory]).toEqual([2, 1, 1])
    expect(report.world.spokeReverts).toBe(0)
    expect(report.latency.byPath.fast.count).toBe(2)
  })
})

describe("solver profitability", () => {
  it("does not fill at a fee that does not beat the hub's protocol fee (every fill would lose money)", async () => {
    const at = async (protocolFeeDbps: number) => {
      const text = scenario(0.5).replace("- symbol: USDC\n", `- symbol: USDC\n    protocolFeeDbps: ${protocolFeeDbps}\n`)
      const { report } = await runScenario(parseScenario(text, "solver-profit.yaml"), { seed: 1, backend: "memory" })
      return report.agents.find((a) => a.kind === "solver")!
    }
    // The solver's fee is 20 dbps.
    expect((await at(19)).actions.fill).toBe(1)
    const losing = await at(20)
    expect([losing.actions.fill, losing.rejections.unprofitable]).toEqual([undefined, 1])
  })
})

describe("the fast path's limit", () => {
  it("is the largest single solver's inventory, not the sum: one solver fills an intent", async () => {
    // Two solvers with 10,000 each on 31002 and an intent of 15,000: no solver could fill it, so the quote refuses
    // the fast path and the user sends it as a basic intent (with the sum, 20,000, both solvers refused to fill it).
    const text = scenario(0.5).replace("count: 1\n      feeDbps", "count: 2\n      feeDbps").replace("tokens: 6000", "tokens: 15000")
    const { report } = await runScenario(parseScenario(text, "solver-limit.yaml"), { seed: 1, backend: "memory" })
    const user = report.agents.find((a) => a.kind === "rebalancer")!
    const solvers = report.agents.find((a) => a.kind === "solver")!
    expect(user.fallbacks["basicForFast:OverSolverLimit"]).toBe(1)
    expect([solvers.agents, solvers.actions.fill, solvers.rejections.insufficientInventory]).toEqual([2, undefined, undefined])
  })
})

/**
 * A solver's `repaymentChains` reach the hub whenever the hub accepts them (`hub.minSolverSupportedDomains`),
 * one chain included when the hub's minimum is 1; the loader refuses fewer chains than the minimum. Before, a
 * single chain was silently dropped (the solver sent its domains only from two on).
 */
describe("solver repayment chains", () => {
  const domainsOf = async (hub: string, repayment: string) => {
    const { createMemorySpokes } = await import("../../service/spoke/spoke.ts")
    const { assembleRun } = await import("../run.ts")
    const { planWorld } = await import("../world/plan.ts")
    const { addressToBytes32 } = await import("../../service/domain/hex.ts")
    const spec = parseScenario(
      `
name: solver-repayment
horizon: { seconds: 60 }
${hub}
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
agents:
  solvers:
    - { name: solver, count: 1, feeDbps: 20, ${repayment} inventory: [{ chain: 31002, asset: USDC, tokens: 1000 }] }
`,
      "solver-repayment.yaml",
    ).spec
    const plan = planWorld(spec)
    const { world } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false }) })
    await world.run(plan.horizonSeconds)
    world.close()
    const solver = plan.agents.find((a) => a.kind === "solver")!.account.address
    return world.hub.state.userSupportedDomains.get(addressToBytes32(solver))
  }

  it("sends a single repayment chain when the hub's minimum is 1", async () => {
    expect(await domainsOf("hub: { minSolverSupportedDomains: 1 }", "repaymentChains: [31002],")).toEqual([31002])
  })

  it("sends every spoke chain by default, and the listed ones otherwise", async () => {
    expect(await domainsOf("", "")).toEqual([31001, 31002])
    expect(await domainsOf("", "repaymentChains: [31002, 31001],")).toEqual([31002, 31001])
  })

  it("reach a hub halted at the start when the halt ends (a halted hub refuses them: no repayment chains, no virtual balance)", async () => {
    const { createMemorySpokes } = await import("../../service/spoke/spoke.ts")
    const { assembleRun } = await import("../run.ts")
    const { planWorld } = await import("../world/plan.ts")
    const { addressToBytes32 } = await import("../../service/domain/hex.ts")
    const spec = parseScenario(
      `
name: solver-setup-halt
horizon: { seconds: 300 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
transport: { latency: { kind: fixed, seconds: 30 }, faults: { outages: [{ domain: 25327, kind: halt, fromSeconds: 0, toSeconds: 120 }] } }
agents:
  solvers:
    - { name: solver, count: 1, feeDbps: 20, inventory: [{ chain: 31002, asset: USDC, tokens: 1000 }] }
`,
      "solver-setup-halt.yaml",
    ).spec
    const plan = planWorld(spec)
    const inputs: { t: number; kind: string }[] = []
    const { world, populations } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false }) })
    const apply = world.hub.apply.bind(world.hub)
    world.hub.apply = (input) => {
      inputs.push({ t: world.nowMs / 1000, kind: input.kind })
      return apply(input)
    }
    await world.run(plan.horizonSeconds)
    world.close()
    const solver = addressToBytes32(plan.agents.find((a) => a.kind === "solver")!.account.address)
    expect(world.hub.state.userSupportedDomains.get(solver)).toEqual([31001, 31002])
    expect(world.hub.state.updateVirtualBalance.get(solver)).toBe(true)
    expect(populations.find((p) => p.kind === "solver")!.rejections).toEqual({})
    expect(inputs.filter((i) => i.kind.startsWith("set"))).toEqual([
      { t: 120, kind: "setUserSupportedDomains" },
      { t: 120, kind: "setUpdateVirtualBalance" },
    ])
  })

  it("refuses at load time fewer repayment chains than the hub takes", () => {
    expect(() => parseScenario(`
name: solver-repayment
horizon: { seconds: 60 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
agents:
  solvers:
    - { name: solver, count: 1, feeDbps: 20, repaymentChains: [31002], inventory: [{ chain: 31002, asset: USDC, tokens: 1000 }] }
`, "s.yaml")).toThrow(/at least 2 repayment chain/)
  })
})

describe("solver capacity", () => {
  /** Two solvers of 20 fills an hour race for 120 fast intents an hour over two hours: one wins each race. */
  const racing = twoChainUsdc(
      "solver-capacity",
      "{ hours: 2 }",
      `agents:
  rebalancers:
    - { name: u, count: 5, asset: USDC, arrival: { kind: poisson, perHour: 120 }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 } }
  solvers:
    - name: s
      count: 2
      feeDbps: 20
      capacityPerHour: 20
      reactionSeconds: { kind: fixed, seconds: 5 }
      inventory:
        - { chain: 31001, asset: USDC, tokens: 1000000 }
        - { chain: 31002, asset: USDC, tokens: 1000000 }
`, { seed: 7 },
    )

  it("is spent by fills that land, not by those another solver beat it to (they revert and fill nothing)", async () => {
    const { report } = await runScenario(racing, { seed: 7, backend: "memory" })
    const solvers = report.agents.find((a) => a.kind === "solver")!
    // Both solvers see every intent at the same reaction time: each race has one loser, whose fill reverts.
    expect(solvers.rejections.ClearingSpoke_FillIntent_InvalidStatus).toBeGreaterThan(0)
    // Two solvers of 20 an hour fill up to 80 in two hours; counting the lost races against capacity let them fill 40.
    expect(solvers.actions.fill).toBeGreaterThan(70)
    expect(solvers.actions.fill).toBeLessThanOrEqual(80)
  })
})

describe("initial liquidity and solvers", () => {
  it("seeds (intents to their own origin, which nobody can fill) are not rejections of the solvers", async () => {
    const text = twoChainUsdc(
      "seeds-only",
      "{ seconds: 600 }",
      `initialLiquidity:
  - { chain: 31001, asset: USDC, tokens: 50000 }
  - { chain: 31002, asset: USDC, tokens: 50000 }
agents:
  solvers:
    - name: op
      count: 2
      feeDbps: 20
      inventory:
        - { chain: 31001, asset: USDC, tokens: 1000 }
        - { chain: 31002, asset: USDC, tokens: 1000 }
`,
    )
    const { report } = await runScenario(text, { seed: 1, backend: "memory" })
    const solvers = report.agents.find((a) => a.kind === "solver")!
    expect(report.agents.find((a) => a.kind === "liquidity")?.actions).toBeDefined()
    expect(solvers.rejections).toEqual({})
  })
})

/** Runs a scenario (seed 1, memory) and gives the label of every event it scheduled, in order. */
const runLabelled = async (scenario: Parameters<typeof runScenario>[0]) => {
  const labels: string[] = []
  const at = Scheduler.prototype.at
  const spy = vi.spyOn(Scheduler.prototype, "at").mockImplementation(function (this: Scheduler, timeMs, label, run) {
    labels.push(label)
    return at.call(this, timeMs, label, run)
  })
  try {
    return { report: (await runScenario(scenario, { seed: 1, backend: "memory" })).report, labels }
  } finally {
    spy.mockRestore()
  }
}

describe("solvers looking again", () => {
  it("fill an intent refused for capacity once the hour's oldest fill leaves the window, within its ttl", async () => {
    const text = twoChainUsdc(
      "solver-capacity-wait",
      "{ hours: 3 }",
      `agents:
  rebalancers:
    - { name: u, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60, 61, 62, 63] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 }, fastTtlSeconds: 7200 }
  solvers:
    - name: s
      count: 1
      feeDbps: 20
      capacityPerHour: 2
      reactionSeconds: { kind: fixed, seconds: 5 }
      inventory:
        - { chain: 31001, asset: USDC, tokens: 100000 }
        - { chain: 31002, asset: USDC, tokens: 100000 }
`,
    )
    // Every event the run schedules, by label: the solver's wait for capacity must be one event, not a poll.
    const { report, labels } = await runLabelled(text)
    // A wake-up as each of the two first fills (a block apart) leaves the window: the first looks at both waiting
    // intents and fills one, the second fills the other (it used to wake every millisecond of the second before
    // each: 2,000 wake-ups and 3,000 looks).
    expect(labels.filter((l) => l.endsWith("/capacity"))).toHaveLength(2)
    expect(labels.filter((l) => l.endsWith("/retry"))).toHaveLength(3)
    const solver = report.agents.find((a) => a.kind === "solver")!
    // Two fills at once, two refused for capacity (counted once each) and filled an hour later.
    expect([solver.actions.fill, solver.rejections.capacity]).toEqual([2 + 2, 2])
    const fast = report.latency.byPath.fast
    expect(fast.count).toBe(4)
    expect(fast.p50!).toBeGreaterThan(1000) // two of four an hour late
    expect(fast.max!).toBeGreaterThan(3600)
    expect(fast.max!).toBeLessThan(3700)
  })
})

describe("a solver's capacity window", () => {
  it("still holds a fill sent exactly an hour before (it leaves the window the second after)", async () => {
    // One fill an hour; the second intent comes 3,600 s after the first, so the solver looks at it exactly an hour
    // after sending the first fill: refused for capacity, then filled a second later.
    const text = twoChainUsdc(
      "capacity-hour",
      "{ hours: 2 }",
      `agents:
  rebalancers:
    - { name: u, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60, 3660] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 } }
  solvers:
    - { name: s, count: 1, feeDbps: 20, capacityPerHour: 1, reactionSeconds: { kind: fixed, seconds: 5 }, inventory: [{ chain: 31001, asset: USDC, tokens: 1000 }, { chain: 31002, asset: USDC, tokens: 1000 }] }`,
    )
    const { report } = await runScenario(text, { seed: 1, backend: "memory" })
    const s = report.agents.find((x) => x.population === "s")!
    expect([s.actions, s.rejections]).toEqual([{ fill: 2 }, { capacity: 1 }])
  })
})

describe("a solver's reverted fill", () => {
  it("gives back the inventory it held, and what waits for that chain is filled with it", async () => {
    // Solver a has 150 USDC on 31002 (12 s blocks): its fill of the first intent holds 100 of it, so the second,
    // 4 s later, waits. b (faster, one fill an hour) wins the first; a's fill reverts and frees the 100.
    const text = twoChainUsdc(
      "revert-retry",
      "{ seconds: 1800 }",
      `agents:
  rebalancers:
    - { name: u, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60, 64] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 } }
  solvers:
    - { name: a, count: 1, feeDbps: 20, reactionSeconds: { kind: fixed, seconds: 5 }, inventory: [{ chain: 31001, asset: USDC, tokens: 1000 }, { chain: 31002, asset: USDC, tokens: 150 }] }
    - { name: b, count: 1, feeDbps: 20, capacityPerHour: 1, reactionSeconds: { kind: fixed, seconds: 4 }, inventory: [{ chain: 31001, asset: USDC, tokens: 1000 }, { chain: 31002, asset: USDC, tokens: 100000 }] }
`, { blockTimeSeconds: [2, 12] },
    )
    const { report } = await runScenario(text, { seed: 1, backend: "memory" })
    const a = report.agents.find((x) => x.population === "a")!
    expect(a.rejections).toEqual({ insufficientInventory: 1, ClearingSpoke_FillIntent_InvalidStatus: 1 })
    expect(a.actions).toEqual({ fill: 1 })
    // Both receivers paid by fills, the second within half a minute (it waited for the slow path before).
    expect(report.latency.byPath.fast.count).toBe(2)
    expect(report.latency.byPath.fast.max!).toBeLessThan(30)
  })
})

describe("a solver's freed capacity", () => {
  const fast = (name: string, atSeconds: number[], from: number, to: number) =>
    `    - { name: ${name}, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [${atSeconds.join(", ")}] }, flows: [{ from: ${from}, to: ${to} }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 } }`
  const both = "inventory: [{ chain: 31001, asset: USDC, tokens: 100000 }, { chain: 31002, asset: USDC, tokens: 100000 }]"

  it("after a reverted fill goes to an intent waiting for another chain", async () => {
    // a and b (one fill an hour each) race for u1 (to 31002, 12 s blocks); b is first, a's fill reverts. u2 (to
    // 31001) came while a's fill was in flight and waits for a's capacity: the revert frees it (it waited for a
    // timer an hour later, past its ttl, before).
    const scenario = twoChainUsdc(
      "capacity-after-revert",
      "{ seconds: 5400 }",
      `agents:
  rebalancers:
${fast("u1", [55], 31001, 31002)}
${fast("u2", [59], 31002, 31001)}
  solvers:
    - { name: a, count: 1, feeDbps: 20, capacityPerHour: 1, reactionSeconds: { kind: fixed, seconds: 5 }, ${both} }
    - { name: b, count: 1, feeDbps: 20, capacityPerHour: 1, reactionSeconds: { kind: fixed, seconds: 4 }, ${both} }`,
      { blockTimeSeconds: [2, 12] },
    )
    const { report } = await runScenario(scenario, { seed: 1, backend: "memory" })
    const a = report.agents.find((x) => x.population === "a")!
    expect(a.rejections).toMatchObject({ ClearingSpoke_FillIntent_InvalidStatus: 1, capacity: 1 })
    expect(a.actions.fill).toBe(1)
    expect(report.latency.byPopulation!.u2!.count).toBe(1)
  })

  it("goes to the intents that waited longest, whichever chain they go to", async () => {
    // Two fills at about 67 s take the solver's two an hour. x (to 31002) waits from about 107 s, y (to 31001)
    // from about 207 s, z (to 31002) from about 307 s. When both slots free, x and y get them; z expires.
    const scenario = twoChainUsdc(
      "capacity-order",
      "{ seconds: 5400 }",
      `agents:
  rebalancers:
${fast("first", [60, 61], 31001, 31002)}
${fast("x", [100], 31001, 31002)}
${fast("y", [200], 31002, 31001)}
${fast("z", [300], 31001, 31002)}
  solvers:
    - { name: s, count: 1, feeDbps: 20, capacityPerHour: 2, reactionSeconds: { kind: fixed, seconds: 5 }, ${both} }`,
    )
    const { report } = await runScenario(scenario, { seed: 1, backend: "memory" })
    const paid = report.latency.byPopulation!
    expect([paid.x!.count, paid.y!.count, paid.z!.count]).toEqual([1, 1, 0])
    expect(report.agents.find((x) => x.kind === "solver")!.actions.fill).toBe(4)
  })

  it("is a whole number of fills an hour", () => {
    expect(() =>
      twoChainUsdc("fractional", "{ seconds: 600 }", `agents:\n  solvers:\n    - { name: s, count: 1, feeDbps: 20, capacityPerHour: 1.5, ${both} }`),
    ).toThrow(/agents\.solvers\[0\]\.capacityPerHour: Expected an integer, got 1\.5/)
  })
})

describe("solver rebalancing sources", () => {
  const solvers = (inventory: string, extra = "") => `  solvers:
    - { name: op, count: 1, feeDbps: 20, rebalanceBelowShare: 0.5, reactionSeconds: { kind: fixed, seconds: 5 }, inventory: [${inventory}]${extra} }`

  it("compare chains in 18 decimals: the richest chain gives, whatever its token's decimals", async () => {
    // 100,000 on 31001 and 10,000 on 31002 (6 decimals), 100 on 31003; a 6,000 fill takes 31002 below half. With
    // 31003's token at 18 decimals its raw balance looked the largest: it was drained to its floor, 50 tokens moved.
    const text = (decimals: number) => `
name: rebalance-decimals
horizon: { seconds: 1500 }
chains: [{ id: 31001 }, { id: 31002 }, { id: 31003 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }, { chain: 31003, decimals: ${decimals} }]
transport: { latency: { kind: fixed, seconds: 30 } }
agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 6000 }, paths: { fast: 1 } }
${solvers("{ chain: 31001, asset: USDC, tokens: 100000 }, { chain: 31002, asset: USDC, tokens: 10000 }, { chain: 31003, asset: USDC, tokens: 100 }")}
`
    const inventories = async (decimals: number) => {
      const held: Record<number, number> = {}
      await runScenario(parseScenario(text(decimals), "rebalance-decimals.yaml"), {
        seed: 1,
        backend: "memory",
        inspect: async (world) => {
          const solver = world.plan.agents.find((a) => a.kind === "solver")!
          for (const d of [31001, 31002, 31003]) {
            const asset = world.plan.assets.get(`USDC:${d}`)!
            held[d] = Number(await world.chain(d).virtualBalance(asset.address, solver.account.address)) / 10 ** asset.decimals
          }
        },
      })
      return held
    }
    // 31001 gave 5,000 and was repaid the 6,000 fill there; 31003 kept its 100.
    const mixed = await inventories(18)
    expect(mixed[31003]).toBe(100)
    expect(await inventories(6)).toEqual(mixed)
  })

  it("are ranked by what they can give above their floor, not by what they hold", async () => {
    // A 50,000 fill takes 31001 from 100,000 to its floor (half) plus the fee; 31002 holds 30,000 (floor 15,000).
    // When a 6,000 fill takes 31003 below half, 31002 gives 5,000; 31001, the largest holder, gave its 10 tokens.
    const text = `
name: rich-at-floor
horizon: { seconds: 1500 }
hub: { minSolverSupportedDomains: 1 }
chains: [{ id: 31001 }, { id: 31002 }, { id: 31003 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }, { chain: 31003, decimals: 6 }]
transport: { latency: { kind: fixed, seconds: 30 } }
agents:
  rebalancers:
    - { name: drain, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31003, to: 31001 }], size: { kind: fixed, tokens: 50000 }, paths: { fast: 1 } }
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [600] }, flows: [{ from: 31001, to: 31003 }], size: { kind: fixed, tokens: 6000 }, paths: { fast: 1 } }
${solvers("{ chain: 31001, asset: USDC, tokens: 100000 }, { chain: 31002, asset: USDC, tokens: 30000 }, { chain: 31003, asset: USDC, tokens: 10000 }", ", repaymentChains: [31002]")}
`
    const held: Record<number, number> = {}
    await runScenario(parseScenario(text, "rich-at-floor.yaml"), {
      seed: 1,
      backend: "memory",
      inspect: async (world) => {
        const solver = world.plan.agents.find((a) => a.kind === "solver")!
        for (const d of [31001, 31002, 31003]) held[d] = Number(await world.chain(d).virtualBalance(world.plan.assets.get(`USDC:${d}`)!.address, solver.account.address)) / 1e6
      },
    })
    expect(held[31002]).toBe(25_000)
    expect(held[31003]).toBeGreaterThan(9_000)
  })

  it("include the chains the hub repays on without inventory there", async () => {
    // Inventory on 31002 only; the hub repays the solver's fills on 31001 (every chain is a repayment chain by
    // default), which held nothing to start with. Rebalancing brings those repayments back to 31002, netted
    // against the users sending the other way: 9 fills instead of 5 (it found no source, and the repayments lay
    // on 31001 unused).
    const scenario = twoChainUsdc(
      "stranded-repayments",
      "{ hours: 3 }",
      `transport: { latency: { kind: fixed, seconds: 30 } }
initialLiquidity: [{ chain: 31001, asset: USDC, tokens: 100000 }, { chain: 31002, asset: USDC, tokens: 20000 }]
agents:
  rebalancers:
    - { name: u, count: 1, asset: USDC, arrival: { kind: poisson, perHour: 20 }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 1000 }, paths: { fast: 1 } }
    - { name: back, count: 1, asset: USDC, arrival: { kind: poisson, perHour: 10 }, flows: [{ from: 31002, to: 31001 }], size: { kind: fixed, tokens: 1000 }, paths: { basic: 1 } }
${solvers("{ chain: 31002, asset: USDC, tokens: 5000 }")}`,
    )
    const { report } = await runScenario(scenario, { seed: 1, backend: "memory" })
    const op = report.agents.find((x) => x.kind === "solver")!
    expect(op.actions.rebalanceDeposit).toBeGreaterThan(0)
    expect(op.actions.fill).toBeGreaterThan(5)
    // Sent from a chain without inventory through its fee adapter, approved at set-up.
    expect(Object.keys(op.rejections).filter((r) => r.startsWith("ERC20_"))).toEqual([])
  })
})

describe("what a solver looks at", () => {
  it("only fast intents to chains it holds inventory on: not netting intents, not chains without its inventory", async () => {
    // a holds USDC on 31001 only: the fast intent goes to 31002 (b fills it), the netting one to 31001 has ttl 0.
    const text = twoChainUsdc(
      "solver-looks",
      "{ seconds: 600 }",
      `agents:
  rebalancers:
    - { name: fast, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 } }
    - { name: basic, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31002, to: 31001 }], size: { kind: fixed, tokens: 100 }, paths: { basic: 1 } }
  solvers:
    - { name: a, count: 1, feeDbps: 20, reactionSeconds: { kind: fixed, seconds: 5 }, inventory: [{ chain: 31001, asset: USDC, tokens: 1000 }] }
    - { name: b, count: 1, feeDbps: 20, reactionSeconds: { kind: fixed, seconds: 5 }, inventory: [{ chain: 31001, asset: USDC, tokens: 1000 }, { chain: 31002, asset: USDC, tokens: 1000 }] }`,
    )
    const { report } = await runScenario(text, { seed: 1, backend: "memory" })
    const a = report.agents.find((x) => x.population === "a")!
    const b = report.agents.find((x) => x.population === "b")!
    expect([a.actions, a.rejections]).toEqual([{}, {}])
    expect([b.actions, b.rejections]).toEqual([{ fill: 1 }, {}])
  })

  it("an intent whose maxFee equals its fee (the spoke refuses only a fee above maxFee)", async () => {
    const text = scenario(0.5).replace("paths: { fast: 1 } }", "paths: { fast: 1 }, fastMaxFeeDbps: 20 }")
    const { report } = await runScenario(parseScenario(text, "solver-max-fee.yaml"), { seed: 1, backend: "memory" })
    const solver = report.agents.find((a) => a.kind === "solver")!
    expect([solver.actions.fill, solver.rejections]).toEqual([1, {}])
  })

  it("not at an intent it looks at when its ttl has run out (default reaction 5 s, ttl 5 s), which the spoke would refuse", async () => {
    // The intent is mined at t and seen then; the solver looks at t + 5 = timestamp + ttl: expired (§4.3).
    const text = twoChainUsdc(
      "solver-expired",
      "{ seconds: 600 }",
      `agents:
  rebalancers:
    - { name: u, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 }, fastTtlSeconds: 5 }
  solvers:
    - { name: s, count: 1, feeDbps: 20, inventory: [{ chain: 31001, asset: USDC, tokens: 1000 }, { chain: 31002, asset: USDC, tokens: 1000 }] }`,
    )
    const { report } = await runScenario(text, { seed: 1, backend: "memory" })
    const s = report.agents.find((x) => x.population === "s")!
    expect([s.actions, s.rejections]).toEqual([{}, { expired: 1 }])
  })
})

describe("a solver's inventory for a fill", () => {
  /**
   * 100 USDC sent fast, no fixed or variable fee: the intent is 100 USDC (the fast path's fee is its maxFee, the
   * solver's). At 20 dbps the spoke takes 100,000,000 - 100,000,000 · 20 / 100,000 = 99,980,000 units from the solver
   * (§4.3). Solver a holds `tokens` on 31002 and looks first; b (ample inventory, the quote's limit) 30 s later.
   */
  const run = async (tokens: string) => {
    const text = twoChainUsdc(
      "solver-exact-inventory",
      "{ seconds: 600 }",
      `agents:
  rebalancers:
    - { name: u, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 } }
  solvers:
    - { name: a, count: 1, feeDbps: 20, reactionSeconds: { kind: fixed, seconds: 5 }, inventory: [{ chain: 31001, asset: USDC, tokens: 1000 }, { chain: 31002, asset: USDC, tokens: ${tokens} }] }
    - { name: b, count: 1, feeDbps: 20, reactionSeconds: { kind: fixed, seconds: 30 }, inventory: [{ chain: 31001, asset: USDC, tokens: 1000 }, { chain: 31002, asset: USDC, tokens: 1000 }] }`,
      { usdc: { fixedFeeTokens: '"0"', maxVariableFeeBps: 0 } },
    )
    const { report } = await runScenario(text, { seed: 1, backend: "memory" })
    const a = report.agents.find((x) => x.population === "a")!
    return { a: [a.actions, a.rejections], reverts: report.world.spokeReverts }
  }

  it("is the output less its fee: exactly that much fills", async () => {
    expect(await run('"99.98"')).toEqual({ a: [{ fill: 1 }, {}], reverts: 0 })
  })

  it("one unit short is not enough (the fill would revert)", async () => {
    expect(await run('"99.979999"')).toEqual({ a: [{}, { insufficientInventory: 1 }], reverts: 0 })
  })
})

describe("solver rebalancing amounts and retries", () => {
  const noFees = (text: string) => text.replace("- symbol: USDC\n", '- symbol: USDC\n    fixedFeeTokens: "0"\n    maxVariableFeeBps: 0\n')

  it("takes the share as written, not to 3 decimals: 4,001.2 left of 10,000 is below 0.40013 (rebalanced), not below 0.40012", async () => {
    // No fixed or variable fee: the fill takes 5,998.8 of 10,000. Rounded to 0.400, a share of 0.40013 put the floor
    // at 4,000, and the chain was left 1.3 tokens below its share without a rebalance.
    const rebalances = async (share: number) => {
      const { report } = await runScenario(parseScenario(noFees(scenario(share)), "solver-share.yaml"), { seed: 1, backend: "memory" })
      const solver = report.agents.find((a) => a.kind === "solver")!
      return [solver.actions.fill, solver.actions.rebalance]
    }
    expect(await rebalances(0.40013)).toEqual([1, 1])
    expect(await rebalances(0.40012)).toEqual([1, undefined])
  })

  it("does not rebalance a chain a fill leaves exactly at its share (below, not at)", async () => {
    // No fixed or variable fee: the intent is 6,000; the fill takes 6,000 - 6,000 · 20 / 100,000 = 5,998.8 of
    // 11,997.6, leaving exactly half.
    const text = noFees(scenario(0.5)).replace("{ chain: 31002, asset: USDC, tokens: 10000 }", '{ chain: 31002, asset: USDC, tokens: "11997.6" }')
    const { report } = await runScenario(parseScenario(text, "solver-at-floor.yaml"), { seed: 1, backend: "memory" })
    const solver = report.agents.find((a) => a.kind === "solver")!
    expect([solver.actions, solver.rejections]).toEqual([{ fill: 1 }, {}])
  })

  it("moves no more than the source has above its floor: 4,000 of 8,000, not half the poor chain's start", async () => {
    // Repaid on 31002 only: 31001 changes only by the rebalance.
    const text = scenario(0.5)
      .replace("{ chain: 31001, asset: USDC, tokens: 10000 }", "{ chain: 31001, asset: USDC, tokens: 8000 }")
      .replace("      inventory:", "      repaymentChains: [31002]\n      inventory:")
      .replace("horizon: { seconds: 1200 }", "horizon: { seconds: 1200 }\nhub: { minSolverSupportedDomains: 1 }")
    let held31001 = -1n
    const { report } = await runScenario(parseScenario(text, "solver-surplus.yaml"), {
      seed: 1,
      backend: "memory",
      inspect: async (world) => {
        const solver = world.plan.agents.find((a) => a.kind === "solver")!
        held31001 = await world.chain(31001).virtualBalance(world.plan.assets.get("USDC:31001")!.address, solver.account.address)
      },
    })
    expect(report.agents.find((a) => a.kind === "solver")!.actions.rebalance).toBe(1)
    expect(held31001).toBe(4_000_000_000n)
  })

  it("deposits nothing of a rebalance settled to its receiver as 0 (reference §4.5: 0 units, nothing paid)", async () => {
    // 31001 holds 2 units (0.000002 USDC), floor 1: the fill leaving 31002 below half finds 1 unit to give there. No
    // API fee: the rebalance is 1 unit, 10^12 in 18 decimals, less the hub's 2 dbps = 999,980,000,000, settled on
    // 31002 (custody from the initial liquidity) as 0 units: Settled(receiver, 0), nothing to hand over or deposit.
    const text = noFees(scenario(0.5))
      .replace("horizon: { seconds: 1200 }", "horizon: { seconds: 3600 }")
      .replace("{ chain: 31001, asset: USDC, tokens: 10000 }", '{ chain: 31001, asset: USDC, tokens: "0.000002" }')
      .replace("agents:", "initialLiquidity:\n  - { chain: 31002, asset: USDC, tokens: 1000 }\nagents:")
    const { createMemorySpokes } = await import("../../service/spoke/spoke.ts")
    const { assembleRun } = await import("../run.ts")
    const { planWorld } = await import("../world/plan.ts")
    const spec = parseScenario(text, "solver-rebalance-zero.yaml").spec
    const plan = planWorld(spec)
    const { world, populations } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false }) })
    const receiver = plan.agents.find((a) => a.kind === "solver")!.rebalanceReceiver!.address.toLowerCase()
    const settled: [number, bigint][] = []
    world.observe({
      onSpokeEvent: (event, context) => void (event.name === "Settled" && event.account.toLowerCase() === receiver && settled.push([context.domain, event.amount])),
    })
    await world.run(plan.horizonSeconds)
    world.close()
    expect(settled).toEqual([[31002, 0n]])
    const solver = populations.find((p) => p.kind === "solver")!
    expect([solver.actions, solver.rejections]).toEqual([{ fill: 1, rebalance: 1 }, {}])
  })

  it("fills an intent waiting for inventory once the rebalance is deposited on its chain", async () => {
    // Two intents of 6,000 at once: the second waits (the first's fill holds the inventory) and asks for a
    // rebalance. Repaid on 31001 only, 31002 gets inventory back from the rebalance alone.
    const text = scenario(0.5)
      .replace("horizon: { seconds: 1200 }", "horizon: { seconds: 3600 }\nhub: { minSolverSupportedDomains: 1 }")
      .replace("atSeconds: [60]", "atSeconds: [60, 60]")
      .replace("      inventory:", "      repaymentChains: [31001]\n      inventory:")
      .replace("agents:", "initialLiquidity:\n  - { chain: 31001, asset: USDC, tokens: 100000 }\n  - { chain: 31002, asset: USDC, tokens: 20000 }\nagents:")
    const { report } = await runScenario(parseScenario(text, "solver-deposit-retry.yaml"), { seed: 1, backend: "memory" })
    const solver = report.agents.find((a) => a.kind === "solver")!
    expect([solver.actions, solver.rejections]).toEqual([{ fill: 2, rebalance: 1, rebalanceDeposit: 1 }, { insufficientInventory: 1 }])
  })
})

/**
 * The intents waiting for a chain are swept of expired ones when a new one would join 64 or more waiting, and then
 * again at twice the number left, 64 at least (amortized O(1) a wait). SPEC says nothing of solvers' queues: the rule is
 * solver.ts's own (an intent waits until it expires or another fills it; past its ttl the spoke refuses a fill,
 * reference §4.3). A sweep leaves no trace but the queue's size: counted here as the looks again (`/retry` events) when
 * the solver's one fill of the hour leaves its window (at about 3,668 s), one per intent still waiting then, expired
 * or not. The first intent (60 s) is filled; every later one is refused for capacity and waits for 31002 (repayments
 * go to 31001, the only chain with custody: no Settled on 31002 wakes them). Intents of ttl 300 s sent before
 * 170 s or so have all expired by 500 s; those of 7,200 s outlive the run.
 */
describe("a solver's waiting intents swept of expired ones", () => {
  const seconds = (from: number, count: number) => Array.from({ length: count }, (_, i) => from + i)
  /** Users each sending fast intents of 100 USDC 31001→31002 of one ttl at `atSeconds`. */
  const users = (groups: readonly { readonly name: string; readonly atSeconds: readonly number[]; readonly ttl: number }[]) =>
    groups
      .map(({ name, atSeconds, ttl }) => `    - { name: ${name}, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [${atSeconds.join(", ")}] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 }, fastTtlSeconds: ${ttl} }`)
      .join("\n")
  /** The looks again when capacity frees (once in the run), the intents refused for capacity and the fills (the first, then the oldest alive at the wake). */
  const retries = async (groups: Parameters<typeof users>[0]) => {
    const scenario = twoChainUsdc(
      "solver-sweep",
      "{ seconds: 3700 }",
      `agents:
  rebalancers:
    - { name: first, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 } }
${users(groups)}
  solvers:
    - { name: s, count: 1, feeDbps: 20, capacityPerHour: 1, reactionSeconds: { kind: fixed, seconds: 5 }, inventory: [{ chain: 31001, asset: USDC, tokens: 100000 }, { chain: 31002, asset: USDC, tokens: 100000 }] }`,
    )
    const { report, labels } = await runLabelled(scenario)
    const s = report.agents.find((x) => x.kind === "solver")!
    return { looks: labels.filter((l) => l.endsWith("/retry")).length, capacity: s.rejections.capacity, fill: s.actions.fill }
  }

  it("first when a 65th would join 64 waiting (not 63, not 65): 64 expired ones swept, 1 left", async () => {
    // 64 of ttl 300 s (100-163 s) wait, all alive at the 64th; one of 7,200 s at 1,000 s finds 64 waiting, all
    // expired: swept, it waits alone. Swept at 63 (none expired then, next at 126) or at 65, all 65 are looked at.
    expect(await retries([
      { name: "short", atSeconds: seconds(100, 64), ttl: 300 },
      { name: "long", atSeconds: [1000], ttl: 7200 },
    ])).toEqual({ looks: 1, capacity: 65, fill: 2 })
  })

  it("takes out an intent whose ttl runs out at the second of the sweep (the spoke refuses its fill then, §4.3), not one a second younger", async () => {
    // 63 of ttl 300 s (100-162 s) and one at 200 s, then one long at 1,000 s: sent 800 s apart on 2 s blocks, seen
    // 800 s apart, the long one 5 s after its timestamp. A ttl of 805 s runs out at that second: swept with the 63.
    // Of 806 s, it is alive then and waits with the long one.
    const edge = (ttl: number) => retries([
      { name: "short", atSeconds: seconds(100, 63), ttl: 300 },
      { name: "edge", atSeconds: [200], ttl },
      { name: "long", atSeconds: [1000], ttl: 7200 },
    ])
    expect(await edge(805)).toEqual({ looks: 1, capacity: 65, fill: 2 })
    expect(await edge(806)).toEqual({ looks: 2, capacity: 65, fill: 2 })
  })

  it("next at 64 again when a sweep leaves fewer than 32 (not at twice what is left, not at 65)", async () => {
    // As above: after 1,000 s one waits (L1), next sweep at max(64, 2 · 0) = 64. Then 3 of ttl 300 s (1,100-1,102 s)
    // and one long at 2,000 s (L2): 5 waiting, below 64, no sweep (with no floor, a sweep at 4 takes the 3 expired
    // ones out). Then 59 of ttl 300 s (2,100-2,158 s): 64 waiting; one long at 3,000 s (L3) sweeps the 62 expired
    // ones: L1, L2, L3 wait (a floor of 65: 65 waiting).
    expect(await retries([
      { name: "a", atSeconds: seconds(100, 64), ttl: 300 },
      { name: "b", atSeconds: seconds(1100, 3), ttl: 300 },
      { name: "c", atSeconds: seconds(2100, 59), ttl: 300 },
      { name: "long", atSeconds: [1000, 2000, 3000], ttl: 7200 },
    ])).toEqual({ looks: 3, capacity: 64 + 3 + 59 + 3, fill: 2 })
  })

  it("next at twice the number left: 40 alive after the first sweep, next at 80", async () => {
    // 24 of ttl 300 s (100-123 s) and 40 of 7,200 s (130-169 s) wait; one long at 1,000 s sweeps the 24 expired:
    // 40 left, next at 80; it joins them (41). 23 of ttl 300 s (1,100-1,122 s): 64, below 80, and one long at
    // 2,000 s: 65, no sweep (at max(64, 40) = 64, the 23 expired would go). 15 of ttl 300 s (2,100-2,114 s): 80, and
    // one long at 3,000 s sweeps the 38 expired: 42 left, 43 with it.
    expect(await retries([
      { name: "a", atSeconds: seconds(100, 24), ttl: 300 },
      { name: "alive", atSeconds: seconds(130, 40), ttl: 7200 },
      { name: "b", atSeconds: seconds(1100, 23), ttl: 300 },
      { name: "c", atSeconds: seconds(2100, 15), ttl: 300 },
      { name: "long", atSeconds: [1000, 2000, 3000], ttl: 7200 },
    ])).toEqual({ looks: 43, capacity: 24 + 40 + 23 + 15 + 3, fill: 2 })
  })
})

/**
 * A rebalance that fails (its intent refused by the service, or its transaction reverted) starts no cooldown: it is
 * counted as `rebalance:<reason>` and tried again after a minute, then 2, 4, ... minutes while it keeps failing, at
 * most the hour. It used to hold the chain's rebalancing for the hour, as one that went through. The solver holds
 * 10,000 USDC on 31002 and some on 31001, rebalancing below half; a fast intent of 6,000 31001→31002 at 60 s takes
 * 31002 below half at its fill (66 s). Repayments go to 31001 (the most custody).
 */
describe("a failed solver rebalance", () => {
  const scenarioText = (inventory31001: string, extra: { usdc?: string; faults?: string; horizonSeconds: number }) =>
    solverScenario({
      name: "solver-rebalance-fails",
      share: 0.5,
      inventory31001,
      ...extra,
      initialLiquidity: "initialLiquidity:\n  - { chain: 31001, asset: USDC, tokens: 100000 }\n  - { chain: 31002, asset: USDC, tokens: 20000 }\n",
    })
  /**
   * The seconds at which the solver tried a failed rebalance again (its `/rebalance-retry` events) and at which its
   * rebalance intents were created (IntentAdded paying its rebalance receiver), its counters, and its USDC on 31001
   * at the end (spoke virtual balance, wallet).
   */
  const run = async (text: string) => {
    const { createMemorySpokes } = await import("../../service/spoke/spoke.ts")
    const { assembleRun } = await import("../run.ts")
    const { planWorld } = await import("../world/plan.ts")
    const spec = parseScenario(text, "solver-rebalance-fails.yaml").spec
    const plan = planWorld(spec)
    const { world, populations } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false }) })
    const solver = plan.agents.find((a) => a.kind === "solver")!
    const receiver = addressToBytes32(solver.rebalanceReceiver!.address)
    const retries: number[] = []
    const at = world.scheduler.at.bind(world.scheduler)
    world.scheduler.at = (timeMs, label, handler) => {
      if (label.endsWith("/rebalance-retry")) retries.push(timeMs / 1000)
      at(timeMs, label, handler)
    }
    const created: number[] = []
    world.observe({ onSpokeEvent: (event) => void (event.name === "IntentAdded" && event.intent.receiver === receiver && created.push(world.nowMs / 1000)) })
    await world.run(plan.horizonSeconds)
    const usdc = plan.assets.get("USDC:31001")!.address
    const held31001 = [await world.chain(31001).virtualBalance(usdc, solver.account.address), await world.chain(31001).erc20Balance(usdc, solver.account.address)]
    world.close()
    const stats = populations.find((p) => p.kind === "solver")!
    return { retries, created, actions: stats.actions, rejections: stats.rejections, held31001 }
  }
  /** What each account is funded with on each chain, in USDC units (6 decimals). */
  const funding = ACCOUNT_FUNDING_TOKENS * 10n ** 6n

  it("refused by the service is tried again after 1, 2, 4 minutes until it goes through, not an hour later", async () => {
    // A fixed API fee of 10 USDC: 31001's 10 USDC leave 5 above the floor, an intent of 5 that does not cover the fee
    // (InvalidAmount) at 66 s (the fill's block), again at 126 s and 246 s. By 486 s the fill's repayment (about
    // 5,999.88) has landed on 31001: 5,000 are moved (the intent mined at 488 s). With the hour's cooldown after the
    // first refusal, nothing moved in the 30 minutes.
    const result = await run(scenarioText("10", { usdc: '    fixedFeeTokens: "10"\n', horizonSeconds: 1800 }))
    expect(result.retries).toEqual([126, 246, 486])
    expect(result.created).toEqual([488])
    expect(result.rejections).toEqual({ "rebalance:InvalidAmount": 3 })
    expect(result.actions).toEqual({ fill: 1, rebalance: 1, rebalanceDeposit: 1 })
  })

  it("reverted is deposited back and tried again a minute later, its chain held while its intent was in flight", async () => {
    // 31001 halts from 64 s to 5,000 s: the rebalance sent at 66 s (a withdrawal of 5,000 and the intent) is mined at
    // 5,000 s, past the fee signature's deadline (an hour, on a 10-minute grid): the intent reverts
    // (FeeAdapter_InvalidDeadline), the 5,000 withdrawn go back into the inventory, and the rebalance is sent again at
    // 5,060 s (created 5,062 s). Before: the hour's cooldown ran out while the intent waited, the ten-minute check at
    // 4,200 s found nothing to move (the 5,000 being withdrawn), a second hour's cooldown followed, no rebalance went
    // through by 7,200 s, and the 5,000 stayed in the solver's wallet.
    const halt = "{ outages: [{ domain: 31001, kind: halt, fromSeconds: 64, toSeconds: 5000 }] }"
    const result = await run(scenarioText("10000", { faults: halt, horizonSeconds: 7200 }))
    expect(result.retries).toEqual([5060])
    expect(result.created).toEqual([5062])
    expect(result.rejections).toEqual({ "rebalance:FeeAdapter_InvalidDeadline": 1 })
    expect(result.actions).toEqual({ fill: 1, rebalanceRedeposit: 1, rebalance: 1, rebalanceDeposit: 1 })
    // The wallet holds its funding less the inventory deposited: nothing withdrawn is left outside the spoke.
    expect(result.held31001[1]).toBe(funding - 10_000_000_000n)
  })

  it("waits 1, 2, 4, ... minutes after failures in a row, at most the hour's cooldown", () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8].map(rebalanceRetryMs)).toEqual([60_000, 120_000, 240_000, 480_000, 960_000, 1_920_000, 3_600_000, 3_600_000])
    expect(rebalanceRetryMs(7)).toBe(REBALANCE_COOLDOWN_MS)
  })
})
