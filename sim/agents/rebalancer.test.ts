/**
 * Rebalancers (users): the budget of whole tokens each may send from each chain (`balanceTokens`) is charged when
 * an intent is sent and given back when it reverts (it sent nothing).
 */
import { describe, expect, it } from "vitest"
import { runScenario } from "../run.ts"
import type { ScenarioSpec } from "../scenario/schema.ts"
import { twoChainUsdc, usdcUsdtText } from "../scenario/testing.ts"

/** A 300-s scenario of WETH (18 decimals, no fees) on chains 31001 and 31002 with the rebalancers `rebalancers` (YAML list items). */
const wethScenario = (name: string, rebalancers: string): string => `
name: ${name}
horizon: { seconds: 300 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: WETH
    fixedFeeTokens: "0"
    maxVariableFeeBps: 0
    protocolFeeDbps: 0
    chains: [{ chain: 31001, decimals: 18 }, { chain: 31002, decimals: 18 }]
agents:
  rebalancers:
${rebalancers}
`

/** Runs `spec` in memory (seed 1) and gives the amount (18 decimals) of every intent added on a spoke, in order. */
const intentAmountsOf = async (spec: ScenarioSpec) => {
  const { assembleRun } = await import("../run.ts")
  const { planWorld } = await import("../world/plan.ts")
  const { createMemorySpokes } = await import("../../service/spoke/spoke.ts")
  const plan = planWorld(spec)
  const { world, populations } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes) })
  const amounts: bigint[] = []
  world.observe({ onSpokeEvent: (event) => void (event.name === "IntentAdded" && amounts.push(event.intent.amount)) })
  await world.run(plan.horizonSeconds)
  world.close()
  return { amounts, populations }
}

const run = async (arrivals: readonly number[], outage = "", balanceTokens = 250) => {
  // 31001 mines every 12 s; a user sending at 30 s is mined at 36 s.
  const scenario = twoChainUsdc(
    "budget",
    "{ hours: 2 }",
    `transport: { latency: { kind: fixed, seconds: 30 }${outage} }
agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, balanceTokens: ${balanceTokens}, arrival: { kind: scripted, atSeconds: [${arrivals.join(", ")}] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { basic: 1 } }`,
    { blockTimeSeconds: [12, 2] },
  )
  const { report } = await runScenario(scenario, { seed: 1, backend: "memory" })
  return report.agents.find((a) => a.population === "user")!
}

describe("a rebalancer's budget", () => {
  it("refuses an intent past it", async () => {
    const user = await run([30, 90, 150, 210])
    expect(user.actions.basic).toBe(2)
    expect(user.rejections.budgetExhausted).toBe(2)
  })

  it("may be spent to the last token", async () => {
    const user = await run([30, 90, 150], "", 200)
    expect([user.actions.basic, user.rejections]).toEqual([2, { budgetExhausted: 1 }])
  })

  it("is given back by an intent that reverts", async () => {
    // 31001 halts from 31 s to 5,031 s: the intent sent at 30 s is mined after its fee signature expired (3,600 s
    // rounded up to ten minutes) and reverts. The budget it held pays for the two sent after the halt.
    const user = await run([30, 5100, 5160, 5220], `, faults: { outages: [{ domain: 31001, kind: halt, fromSeconds: 31, toSeconds: 5031 }] }`)
    expect(Object.entries(user.rejections).filter(([reason]) => reason !== "budgetExhausted")).toEqual([[expect.stringMatching(/deadline|expired/i), 1]])
    expect(user.actions.basic).toBe(2)
    expect(user.rejections.budgetExhausted).toBe(1)
  })
})

describe("a rebalancer's budget per chain", () => {
  it("is counted on each origin chain apart: 100 tokens on each pays one intent of 100 from each", async () => {
    // Twenty intents, each drawn from one of two flows with equal weights: both origins are drawn (all twenty from one
    // has odds of 2^-19), and each pays for one intent.
    const scenario = twoChainUsdc(
      "budget-per-chain",
      "{ hours: 1 }",
      `agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, balanceTokens: 100, arrival: { kind: scripted, atSeconds: [${Array.from({ length: 20 }, (_, i) => 30 + 60 * i).join(", ")}] }, flows: [{ from: 31001, to: 31002 }, { from: 31002, to: 31001 }], size: { kind: fixed, tokens: 100 }, paths: { basic: 1 } }`,
    )
    const { report } = await runScenario(scenario, { seed: 1, backend: "memory" })
    const user = report.agents.find((a) => a.population === "user")!
    expect([user.actions, user.rejections]).toEqual([{ basic: 2 }, { budgetExhausted: 18 }])
  })
})

describe("a rebalancer population's Poisson arrivals", () => {
  it("come at `perHour` for the population, shared by its agents", async () => {
    // 600 an hour over four agents: about 600 intents in the hour (a standard deviation of about 25); at 600 per
    // agent it would be about 2,400.
    const scenario = twoChainUsdc(
      "poisson-rate",
      "{ hours: 1 }",
      `agents:
  rebalancers:
    - { name: user, count: 4, asset: USDC, arrival: { kind: poisson, perHour: 600 }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 1 }, paths: { basic: 1 } }`,
    )
    const { report } = await runScenario(scenario, { seed: 1, backend: "memory" })
    const sent = report.agents.find((a) => a.population === "user")!.actions.basic!
    expect(sent).toBeGreaterThan(500)
    expect(sent).toBeLessThan(700)
  })
})

describe("a rebalancer's swaps", () => {
  const run = async (assets: string, swapTo = "", flows = "[{ from: 31001, to: 31002 }]", arrivals = "[60]") => {
    const { parseScenario } = await import("../scenario/load.ts")
    const text = `
name: swaps
horizon: { seconds: 900 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
${assets}
agents:
  rebalancers:
    - { name: u, count: 1, asset: USDC, ${swapTo}arrival: { kind: scripted, atSeconds: ${arrivals} }, flows: ${flows}, size: { kind: fixed, tokens: 100 }, paths: { swap: 1 } }
`
    const { report } = await runScenario(parseScenario(text, "swaps.yaml"), { seed: 1, backend: "memory" })
    const u = report.agents.find((a) => a.population === "u")!
    return [u.actions, u.rejections, u.fallbacks]
  }

  it("go to `swapTo` only where it is a default-strategy asset: to an xERC20 the intent takes the fast path, refused, so netting", async () => {
    // XT is a default-strategy asset on 31001 and an xERC20 on 31002. Ten intents on two flows: to 31001 a swap into
    // XT, refused (no solver); to 31002 a fast intent, refused, so sent as netting (over the limit: no custody).
    const xt = "  - symbol: XT\n    chains: [{ chain: 31001, decimals: 18 }, { chain: 31002, decimals: 18, strategy: xerc20 }]"
    // The same with XT named in `swapTo` or found as the destination's other asset.
    for (const swapTo of ["swapTo: XT, ", ""]) {
      const [actions, rejections, fallbacks] = await run(xt, swapTo, "[{ from: 31001, to: 31002 }, { from: 31002, to: 31001 }]", "[60, 120, 180, 240, 300, 360, 420, 480, 540, 600]")
      const basic = actions!.basic!
      expect(basic).toBeGreaterThan(0)
      expect([actions, rejections, fallbacks]).toEqual([{ basic }, { "fastPath:OverSolverLimit": 10 - basic }, { "basicForFast:OverSolverLimit": basic, sentOverLimit: basic }])
    }
  })

  it("are refused, not sent as netting, when the fast path is (no solver holds the output)", async () => {
    expect(await run("  - symbol: DAI\n    chains: [{ chain: 31002, decimals: 18 }]")).toEqual([{}, { "fastPath:OverSolverLimit": 1 }, {}])
  })
})

/**
 * A swap whose input ticker has no asset on the destination: the hub takes it (a fast-path swap's output asset only
 * has to be supported there), and if no solver fills it, it is settled in its input asset on the destination once it
 * expires, which cannot be: an invoice that never settles. A rebalancer cannot make one. The scenario loader refuses
 * a flow to a chain without the population's asset (sim/scenario/load.test.ts), and the clearing service the agents
 * go through (quote, then POST /intents) refuses the route, as asked here of the service of a run whose population
 * swaps USDC from 31001 into USDT on 31002: the same swap to 31003, where USDT is and USDC is not.
 */
describe("a swap into a chain without the input's asset", () => {
  it("is refused by the quote and by POST /intents (UnsupportedAsset): no rebalancer can send one", async () => {
    const { parseScenario } = await import("../scenario/load.ts")
    const { createMemorySpokes } = await import("../../service/spoke/spoke.ts")
    const { assembleRun } = await import("../run.ts")
    const { planWorld } = await import("../world/plan.ts")
    const { callNow, createIntents } = await import("./common.ts")
    const spec = parseScenario(
      usdcUsdtText(
        "{ seconds: 60 }",
        "{ name: u, count: 1, asset: USDC, swapTo: USDT, arrival: { kind: scripted, atSeconds: [30] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { swap: 1 } }",
      ),
      "swap-destination.yaml",
    ).spec
    const plan = planWorld(spec)
    const { world, service } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false }) })
    await world.run(plan.horizonSeconds)
    const from = plan.agents.find((a) => a.kind === "rebalancer")!.account.address
    const swap = (to: number) => ({
      origin: "31001",
      destinations: [String(to)],
      inputAsset: plan.assets.get("USDC:31001")!.address,
      outputAsset: plan.assets.get(`USDT:${to}`)!.address,
      amount: "100000000",
      to: from,
      from,
    })
    const refused = { ok: false, error: "UnsupportedAsset", message: "destinations[0]: USDC has no asset on domain 31003." }
    expect(callNow(() => service.quoteValuesNow(swap(31003)))).toEqual(refused)
    expect(await createIntents(service, { ...swap(31003), isFastPath: true })).toEqual(refused)
    // The population's own swap, to 31002, is quoted and built.
    expect(callNow(() => service.quoteValuesNow(swap(31002))).ok).toBe(true)
    expect((await createIntents(service, { ...swap(31002), isFastPath: true })).ok).toBe(true)
    world.close()
  })
})

describe("a rebalancer population's scripted arrivals", () => {
  it("go to its agents in turn, each with its own budget: two agents of 100 tokens send one intent of 100 each", async () => {
    const scenario = twoChainUsdc(
      "scripted-turns",
      "{ seconds: 600 }",
      `agents:
  rebalancers:
    - { name: user, count: 2, asset: USDC, balanceTokens: 100, arrival: { kind: scripted, atSeconds: [30, 90] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { basic: 1 } }`,
    )
    const { report } = await runScenario(scenario, { seed: 1, backend: "memory" })
    const user = report.agents.find((a) => a.population === "user")!
    expect([user.actions, user.rejections]).toEqual([{ basic: 2 }, {}])
  })
})

describe("a rebalancer's sizes", () => {
  const run = async (size: string, balanceTokens: string, arrivals = "[30]") => {
    const scenario = twoChainUsdc(
      "sizes",
      "{ seconds: 600 }",
      `agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, balanceTokens: ${balanceTokens}, arrival: { kind: scripted, atSeconds: ${arrivals} }, flows: [{ from: 31001, to: 31002 }], size: ${size}, paths: { basic: 1 } }`,
    )
    const { report } = await runScenario(scenario, { seed: 1, backend: "memory" })
    const user = report.agents.find((a) => a.population === "user")!
    return [user.actions, user.rejections]
  }

  it("are rounded to the nearest unit: 1.001 tokens are 1,001,000 units and 2.007 are 2,007,000, whatever the double's error", async () => {
    // As doubles 1.001 · 10^6 is 1,000,999.9999999999 and 2.007 · 10^6 is 2,007,000.0000000002. A budget one unit
    // short of the first refuses it; a budget of exactly the second pays it.
    expect(await run("{ kind: fixed, tokens: 1.001 }", '"1.000999"')).toEqual([{}, { budgetExhausted: 1 }])
    expect(await run("{ kind: fixed, tokens: 2.007 }", '"2.007"')).toEqual([{ basic: 1 }, {}])
  })

  it("below half a unit are zero, refused before any quote: 0.0000004 tokens of a 6-decimal USDC", async () => {
    expect(await run("{ kind: fixed, tokens: 0.0000004 }", "1")).toEqual([{}, { zeroAmount: 1 }])
  })

  it("past the largest double are that double, refused, not a stopped run (a lognormal of σ 1000, a uniform's max of 401 digits)", async () => {
    // e^(1000·z) overflows for z above 0.71: about a quarter of the draws were Infinity ("Cannot convert Infinity to
    // a BigInt"); 0 · Infinity, with a median of 0, was NaN. Every intent is accounted for: sent or refused.
    const six = "[30, 60, 90, 120, 150, 180]"
    const huge = `"1${"0".repeat(400)}"`
    const [actions, rejections] = await run("{ kind: lognormal, medianTokens: 5, sigma: 1000 }", huge, six)
    expect(Object.values({ ...actions, ...rejections }).reduce((a, b) => a + b, 0)).toBe(6)
    expect(rejections).toHaveProperty("quote:InvalidAmount")
    expect(await run("{ kind: lognormal, medianTokens: 0, sigma: 1000 }", "1", six)).toEqual([{}, { zeroAmount: 6 }])
    expect(await run(`{ kind: uniform, minTokens: ${huge}, maxTokens: ${huge} }`, huge, "[30]")).toEqual([{}, { "quote:InvalidAmount": 1 }])
  })

  it("drawn from a lognormal are capped at maxTokens: a median of 1,000 capped at 100 sends 100 each, three in a budget of 300", async () => {
    // sigma 0.5: a draw under 100 is 4.6 standard deviations below the median (odds about 2 · 10^-6).
    expect(await run("{ kind: lognormal, medianTokens: 1000, sigma: 0.5, maxTokens: 100 }", "300", "[30, 90, 150, 210]")).toEqual([{ basic: 3 }, { budgetExhausted: 1 }])
  })

  it("capped at maxTokens on an 18-decimal token are that cap in the token's own units, below and past 10^9 tokens", async () => {
    // A cap of 123,456.789 tokens is 123,456,789 · 10^15 units; one of 1,234,567,890.123456 is past 10^9 tokens,
    // where the six rounded decimals no longer fit the exact double path (10^15 scaled units): converted at the
    // token's 18 decimals there too, 1,234,567,890,123,456 · 10^12 units. No fees, so the intent's amount on the
    // chain is the amount sent. sigma 0.5 around a median of 10^11: a draw under either cap is at least 8.9
    // standard deviations below it.
    const { parseScenario } = await import("../scenario/load.ts")
    const text = wethScenario(
      "cap-18",
      `    - { name: fish, count: 1, asset: WETH, arrival: { kind: scripted, atSeconds: [30] }, flows: [{ from: 31001, to: 31002 }], size: { kind: lognormal, medianTokens: 100000000000, sigma: 0.5, maxTokens: "123456.789" }, paths: { basic: 1 } }
    - { name: whale, count: 1, asset: WETH, arrival: { kind: scripted, atSeconds: [90, 150] }, flows: [{ from: 31001, to: 31002 }], size: { kind: lognormal, medianTokens: 100000000000, sigma: 0.5, maxTokens: "1234567890.123456" }, paths: { basic: 1 } }`,
    )
    const { amounts } = await intentAmountsOf(parseScenario(text, "cap-18.yaml").spec)
    expect(amounts).toEqual([123_456_789_000_000_000_000_000n, 1_234_567_890_123_456_000_000_000_000n, 1_234_567_890_123_456_000_000_000_000n])
  })
})

describe("a rebalancer's written sizes on an 18-decimal token", () => {
  it("are exact: a fixed size or a lognormal's cap with more than 6 decimals is not rounded to 6 (0.000000001 WETH is 10^9 units, not 0)", async () => {
    const { parseScenario } = await import("../scenario/load.ts")
    const population = (name: string, at: number, size: string) =>
      `    - { name: ${name}, count: 1, asset: WETH, arrival: { kind: scripted, atSeconds: [${at}] }, flows: [{ from: 31001, to: 31002 }], size: ${size}, paths: { basic: 1 } }`
    const text = wethScenario(
      "written-18",
      [
        population("dust", 30, '{ kind: fixed, tokens: "0.000000001" }'),
        population("exact", 60, '{ kind: fixed, tokens: "1.123456789123456789" }'),
        population("number", 90, "{ kind: fixed, tokens: 0.0000012345 }"),
        population("capped", 120, '{ kind: lognormal, medianTokens: 100000000000, sigma: 0.5, maxTokens: "0.123456789123456789" }'),
      ].join("\n"),
    )
    const { amounts, populations } = await intentAmountsOf(parseScenario(text, "written-18.yaml").spec)
    // Rounded to 6 decimals before: 0 (refused as zeroAmount), 1.123457, 0.000001 and 0.123457 tokens.
    expect(amounts).toEqual([1_000_000_000n, 1_123_456_789_123_456_789n, 1_234_500_000_000n, 123_456_789_123_456_789n])
    expect(populations.flatMap((p) => Object.keys(p.rejections))).toEqual([])
  })

  it("are rounded to the nearest unit past the token's decimals: 1.0000005 USDC (6 decimals) is 1,000,001 units, 1.0000004 is 1,000,000", async () => {
    const scenario = twoChainUsdc(
      "written-6",
      "{ seconds: 300 }",
      `agents:
  rebalancers:
    - { name: up, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [30] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: "1.0000005" }, paths: { basic: 1 } }
    - { name: down, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: "1.0000004" }, paths: { basic: 1 } }`,
      { usdc: { fixedFeeTokens: '"0"', maxVariableFeeBps: 0, protocolFeeDbps: 0 } },
    )
    const { amounts } = await intentAmountsOf(scenario.spec)
    // Intent amounts are 18-decimal.
    expect(amounts).toEqual([1_000_001n * 10n ** 12n, 1_000_000n * 10n ** 12n])
  })
})

describe("a rebalancer's intent over the route's limit", () => {
  it("is counted sentOverLimit only past the destination's custody: 1,000 custodied pays 1,000, not 1,000.000001", async () => {
    // No fees: `a`'s 1,000 from 31002 to 31001 is invoiced (no custody on 31001) and its deposit is 31002's custody.
    const run = async (tokens: string) => {
      const scenario = twoChainUsdc(
        "over-limit",
        "{ seconds: 1200 }",
        `agents:
  rebalancers:
    - { name: a, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [30] }, flows: [{ from: 31002, to: 31001 }], size: { kind: fixed, tokens: 1000 }, paths: { basic: 1 } }
    - { name: b, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [900] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: ${tokens} }, paths: { basic: 1 } }`,
        { usdc: { fixedFeeTokens: '"0"', maxVariableFeeBps: 0, protocolFeeDbps: 0 } },
      )
      const { report } = await runScenario(scenario, { seed: 1, backend: "memory" })
      const b = report.agents.find((a) => a.population === "b")!
      return [b.actions, b.fallbacks]
    }
    expect(await run("1000")).toEqual([{ basic: 1 }, {}])
    expect(await run('"1000.000001"')).toEqual([{ basic: 1 }, { sentOverLimit: 1 }])
  })
})

describe("a rebalancer population's bursts", () => {
  it("spread a burst's intents over 60 s by default", async () => {
    const { assembleRun } = await import("../run.ts")
    const { planWorld } = await import("../world/plan.ts")
    const { createMemorySpokes } = await import("../../service/spoke/spoke.ts")
    const scenario = twoChainUsdc(
      "burst-spread",
      "{ hours: 2 }",
      `agents:
  rebalancers:
    - { name: user, count: 2, asset: USDC, arrival: { kind: bursty, everySeconds: 100000, size: 20 }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 1 } }`,
    )
    const plan = planWorld(scenario.spec)
    const { world, service } = assembleRun(scenario.spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false }) })
    // The times the intents are quoted: when each arrives.
    const times: number[] = []
    const quote = service.quoteValuesNow.bind(service)
    service.quoteValuesNow = (request) => (times.push(world.nowMs / 1000), quote(request))
    // The first burst is at an exponential time of mean 100,000 s: run until it (seed 1 draws it within 200,000 s).
    await world.run(200_000)
    world.close()
    expect(times.length).toBeGreaterThanOrEqual(20)
    const burst = times.slice(0, 20)
    const spread = Math.max(...burst) - Math.min(...burst)
    // Twenty uniform draws over 60 s: spread over more than 30 s (odds of less below 10^-4), and never past 60 s.
    expect(spread).toBeGreaterThan(30)
    expect(spread).toBeLessThanOrEqual(60)
  })
})

describe("a rebalancer's asset, an xERC20 on one chain only", () => {
  it("takes the path asked for from the chain where it is not (the destination's strategy does not matter), the basic one, burnt, from the other", async () => {
    const { parseScenario } = await import("../scenario/load.ts")
    const text = `
name: mixed-strategy
horizon: { seconds: 600 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: XT
    chains: [{ chain: 31001, decimals: 18, strategy: xerc20, mintLimit: 1000000, burnLimit: 1000000 }, { chain: 31002, decimals: 18 }]
agents:
  rebalancers:
    - { name: in, count: 1, asset: XT, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31002, to: 31001 }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 } }
    - { name: out, count: 1, asset: XT, maxDiscountDbps: 100, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 } }
`
    const { report } = await runScenario(parseScenario(text, "mixed-strategy.yaml"), { seed: 1, backend: "memory" })
    const of = (name: string) => {
      const p = report.agents.find((a) => a.population === name)!
      return [p.actions, p.rejections, p.fallbacks]
    }
    // Into 31001: a fast intent, refused (no solver), sent as netting; XT minted on 31001 is within its limit.
    expect(of("in")).toEqual([{ basic: 1 }, {}, { "basicForFast:OverSolverLimit": 1 }])
    // Out of 31001: burnt (the xerc20 action) with a max_fee of 0 whatever maxDiscountDbps asks (the API refuses
    // another for an xERC20), over the limit of 31002 (no custody there: invoiced).
    expect(of("out")).toEqual([{ xerc20: 1 }, {}, { sentOverLimit: 1 }])
  })
})

describe("a rebalancer's fast intent", () => {
  it("is not counted over the route's limit: a solver fills it, whatever the destination's custody (none here)", async () => {
    const scenario = twoChainUsdc(
      "fast-limit",
      "{ seconds: 600 }",
      `agents:
  solvers:
    - { name: solver, count: 1, feeDbps: 20, inventory: [{ chain: 31002, asset: USDC, tokens: 1000 }] }
  rebalancers:
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [300] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 } }`,
    )
    const { report } = await runScenario(scenario, { seed: 1, backend: "memory" })
    const user = report.agents.find((a) => a.population === "user")!
    expect([user.actions, user.rejections, user.fallbacks]).toEqual([{ fast: 1 }, {}, {}])
  })
})

describe("a rebalancer's intent fields", () => {
  it("carry maxDiscountDbps as a netting intent's max fee, and fastTtlSeconds and fastMaxFeeDbps on a fast one", async () => {
    const { assembleRun } = await import("../run.ts")
    const { planWorld } = await import("../world/plan.ts")
    const { createMemorySpokes } = await import("../../service/spoke/spoke.ts")
    const scenario = twoChainUsdc(
      "intent-fields",
      "{ seconds: 600 }",
      `agents:
  solvers:
    - { name: solver, count: 1, feeDbps: 20, inventory: [{ chain: 31002, asset: USDC, tokens: 1000 }] }
  rebalancers:
    - { name: net, count: 1, asset: USDC, maxDiscountDbps: 300, arrival: { kind: scripted, atSeconds: [300] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 } }
    - { name: fast, count: 1, asset: USDC, fastTtlSeconds: 7200, fastMaxFeeDbps: 50, arrival: { kind: scripted, atSeconds: [300] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 } }`,
    )
    const plan = planWorld(scenario.spec)
    const { world } = assembleRun(scenario.spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false }) })
    const population = new Map(plan.agents.map((a) => [a.account.address.toLowerCase(), a.population]))
    const intents: Record<string, { maxFee: number; ttl: number }> = {}
    world.observe({
      onSpokeEvent: (event, context) => {
        const who = population.get(context.receipt.from.toLowerCase())
        if (event.name === "IntentAdded" && who !== undefined) intents[who] = { maxFee: Number(event.intent.maxFee), ttl: Number(event.intent.ttl) }
      },
    })
    await world.run(plan.horizonSeconds)
    world.close()
    expect(intents).toEqual({ net: { maxFee: 300, ttl: 0 }, fast: { maxFee: 50, ttl: 7200 } })
  })
})
