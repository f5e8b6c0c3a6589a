import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, truncateSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it, vi } from "vitest"
import { tokensToUnits } from "../../service/domain/protocol.ts"
import { keccak256Bytes } from "../../service/domain/keccak.ts"
import { loadScenario, MAX_SCENARIO_BYTES, parseScenario, ScenarioError, scenarioWarningLines } from "./load.ts"
import { usdcUsdtText } from "./testing.ts"

const valid = `
name: two-chain
seed: 7
horizon: { hours: 2 }
chains:
  - { id: 31001 }
  - { id: 31002 }
assets:
  - symbol: USDC
    chains:
      - { chain: 31001, decimals: 6 }
      - { chain: 31002, decimals: 18 }
agents:
  rebalancers:
    - name: users
      count: 4
      asset: USDC
      arrival: { kind: poisson, perHour: 60 }
      flows: [{ from: 31001, to: 31002 }, { from: 31002, to: 31001 }]
      size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }
properties:
  - nettingRatio >= 0.5
  - { coverage: invoiceCreated }
`

const problemsOf = (text: string) => {
  try {
    parseScenario(text, "s.yaml")
  } catch (error) {
    if (error instanceof ScenarioError) return error.problems
    throw error
  }
  throw new Error("expected a ScenarioError")
}

describe("scenario files", () => {
  it("decodes a valid scenario and hashes its bytes", () => {
    const loaded = parseScenario(valid, "s.yaml")
    expect(loaded.spec.name).toBe("two-chain")
    expect(loaded.spec.agents.rebalancers?.[0]?.flows).toHaveLength(2)
    expect(loaded.scenarioHash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(parseScenario(valid, "s.yaml").scenarioHash).toBe(loaded.scenarioHash)
  })

  it("reports the path, line and expectation of a schema error", () => {
    const problems = problemsOf(valid.replace("perHour: 60", "perHour: -3"))
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatchObject({ path: "agents.rebalancers[0].arrival.perHour", line: 18, column: 42, message: "Expected a positive rate, got -3" })
    expect(problems[0]!.message).toMatch(/Expected/)
  })

  it("says a whole number past 2^53 - 1 is too large, once, rather than not an integer", () => {
    expect(problemsOf(valid.replace(/^seed: .*$/m, "seed: 99999999999999999999"))).toEqual([
      expect.objectContaining({ path: "seed", message: "Expected a seed of at most 9007199254740991 (2^53 - 1), got 100000000000000000000" }),
    ])
    expect(problemsOf(valid.replace("{ id: 31001 }", "{ id: 31001, blockTimeSeconds: 1e17 }"))).toEqual([
      expect.objectContaining({ path: "chains[0].blockTimeSeconds", message: "Expected an integer of at most 9007199254740991 (2^53 - 1), got 100000000000000000" }),
    ])
    // A population past the agent limit (each agent is a funded account made at start-up) is refused at once.
    expect(problemsOf(valid.replace("count: 4", "count: 1e9"))).toEqual([
      expect.objectContaining({ path: "agents.rebalancers[0].count", message: "Expected a number of agents from 1 to 100000 (each has its own funded account), got 1000000000" }),
    ])
  })

  it("refuses a name made only of dots (a scenario's name is its output directory under reports/out/)", () => {
    for (const name of ['".."', '"."']) {
      expect(problemsOf(valid.replace("name: two-chain", `name: ${name}`))[0]).toMatchObject({ path: "name", message: `Expected a name (1-40 letters, digits, . _ -, not only dots), got ${name}` })
    }
    expect(parseScenario(valid.replace("name: two-chain", "name: v1.2"), "s.yaml").spec.name).toBe("v1.2")
  })

  it("reports a missing field at its parent's line", () => {
    const problems = problemsOf(valid.replace("horizon: { hours: 2 }\n", ""))
    expect(problems[0]).toMatchObject({ path: "horizon", message: "Missing key: expected one of the forms { epochs } | { hours } | { seconds }", line: 2 })
    // A missing key says what it takes, as a wrong value does.
    expect(problemsOf(valid.replace("      asset: USDC\n", ""))).toEqual([
      expect.objectContaining({ path: "agents.rebalancers[0].asset", message: "Missing key: expected a token symbol (1-16 letters, digits, . _ -, not only digits) as a string" }),
    ])
  })

  it("checks references between fields", () => {
    const problems = problemsOf(valid.replace("{ from: 31002, to: 31001 }", "{ from: 31003, to: 31001 }"))
    expect(problems).toEqual([expect.objectContaining({ path: "agents.rebalancers[0].flows[1].from", message: "chain 31003 is not in chains", line: 19 })])
    // A chain the scenario lacks is named as such, at either end of a flow, not as a chain without the asset.
    expect(problemsOf(valid.replace("{ from: 31002, to: 31001 }", "{ from: 31002, to: 31003 }"))).toEqual([
      expect.objectContaining({ path: "agents.rebalancers[0].flows[1].to", message: "chain 31003 is not in chains", line: 19 }),
    ])
    // A chain of the scenario without the asset is that.
    const third = valid.replace("  - { id: 31002 }\n", "  - { id: 31002 }\n  - { id: 31003 }\n").replace("{ from: 31002, to: 31001 }", "{ from: 31003, to: 31001 }")
    expect(problemsOf(third)).toEqual([expect.objectContaining({ path: "agents.rebalancers[0].flows[1].from", message: "asset USDC is not configured on chain 31003" })])
  })

  it("checks that transport routes are between a declared chain and the hub", () => {
    const withRoutes = `${valid}transport:
  latency: { kind: fixed, seconds: 30 }
  routes:
    - { from: 31001, to: 25327, latency: { kind: fixed, seconds: 5 } }
    - { from: 25327, to: 31002, latency: { kind: fixed, seconds: 5 } }
    - { from: 31003, to: 25327, latency: { kind: fixed, seconds: 5 } }
    - { from: 25327, to: 3102, latency: { kind: fixed, seconds: 5 } }
    - { from: 31001, to: 31002, latency: { kind: fixed, seconds: 5 } }
`
    const expected = "expected one of the chain ids (31001, 31002) or the hub domain 25327"
    expect(problemsOf(withRoutes)).toEqual([
      { path: "transport.routes[2].from", line: 29, column: 15, message: `domain 31003 is neither a chain nor the hub (${expected})` },
      { path: "transport.routes[3].to", line: 30, column: 26, message: `domain 3102 is neither a chain nor the hub (${expected})` },
      {
        path: "transport.routes[4]",
        line: 31,
        column: 7,
        message: "route 31001 → 31002 carries no message (expected one end to be the hub domain 25327 and the other a chain)",
      },
    ])
    const error = (() => {
      try {
        parseScenario(withRoutes, "s.yaml")
      } catch (e) {
        return e as ScenarioError
      }
    })()
    expect(error?.message).toContain(`s.yaml: invalid scenario\n  29:15 transport.routes[2].from: domain 31003 is neither a chain nor the hub (${expected})`)
    // Routes between each chain and the hub, both ways, load.
    expect(() => parseScenario(withRoutes.split("\n").slice(0, 28).join("\n"), "s.yaml")).not.toThrow()
    // A route given twice: the transport kept the last entry's latency and ignored the first without a word.
    const twice = `${withRoutes.split("\n").slice(0, 28).join("\n")}\n    - { from: 31001, to: 25327, latency: { kind: fixed, seconds: 500 } }\n`
    expect(problemsOf(twice)).toEqual([
      {
        path: "transport.routes[2]",
        line: 29,
        column: 7,
        message: "route 31001 → 25327 is listed twice, at routes[0] and here (expected each route once: a route has one latency)",
      },
    ])
  })

  it("rejects initial liquidity of an xERC20 asset (never custodied: the service would refuse every seed)", () => {
    const xerc20 = valid.replace("      - { chain: 31002, decimals: 18 }", "      - { chain: 31002, decimals: 18, strategy: xerc20 }")
    expect(() => parseScenario(`${xerc20}initialLiquidity: [{ chain: 31001, asset: USDC, tokens: 1000 }]\n`, "s.yaml")).not.toThrow()
    expect(problemsOf(`${xerc20}initialLiquidity: [{ chain: 31002, asset: USDC, tokens: 1000 }]\n`)).toEqual([
      expect.objectContaining({
        path: "initialLiquidity[0]",
        message: "asset USDC is an xERC20 on chain 31002: it is burnt and minted, never custodied, so it takes no initial liquidity (expected a default-strategy asset)",
      }),
    ])
  })

  it("rejects xERC20 limits above type(uint256).max / 2 token units (XERC20Token.setLimits refuses them), at the limit", () => {
    const max = (2n ** 256n - 1n) / 2n
    // 18 decimals: max / 10^18 whole tokens is the largest mintLimit; one token more is refused.
    const tokens = max / 10n ** 18n
    const xerc20 = (limit: bigint) => valid.replace("      - { chain: 31002, decimals: 18 }", `      - { chain: 31002, decimals: 18, strategy: xerc20, mintLimit: "${limit}", burnLimit: 1000 }`)
    expect(() => parseScenario(xerc20(tokens), "s.yaml")).not.toThrow()
    expect(problemsOf(xerc20(tokens + 1n))).toEqual([
      expect.objectContaining({
        path: "assets[0].chains[1].mintLimit",
        message: `${tokens + 1n} tokens at 18 decimals is above the xERC20 maximum, type(uint256).max / 2 token units (XERC20Token.setLimits refuses it)`,
      }),
    ])
  })

  it("rejects a uniform range whose min exceeds its max, at the min", () => {
    const uniformSize = valid.replace("{ kind: lognormal, medianTokens: 1000, sigma: 0.5 }", '{ kind: uniform, minTokens: "100.5", maxTokens: 100.25 }')
    expect(problemsOf(uniformSize)).toEqual([
      { path: "agents.rebalancers[0].size.minTokens", line: 20, column: 41, message: "must not exceed maxTokens 100.25, got 100.5" },
    ])
    // Equal bounds, and amounts that differ only past a number's float precision, are compared exactly.
    expect(() => parseScenario(valid.replace("{ kind: lognormal, medianTokens: 1000, sigma: 0.5 }", '{ kind: uniform, minTokens: "0.100000000000000000001", maxTokens: "0.100000000000000000002" }'), "s.yaml")).not.toThrow()
    expect(() => parseScenario(valid.replace("{ kind: lognormal, medianTokens: 1000, sigma: 0.5 }", "{ kind: uniform, minTokens: 5, maxTokens: 5 }"), "s.yaml")).not.toThrow()
    expect(problemsOf(valid.replace("{ kind: lognormal, medianTokens: 1000, sigma: 0.5 }", '{ kind: uniform, minTokens: "0.100000000000000000002", maxTokens: "0.100000000000000000001" }'))[0]).toMatchObject({
      path: "agents.rebalancers[0].size.minTokens",
    })

    const latencies = `${valid}  solvers:
    - { name: op, count: 1, feeDbps: 20, inventory: [], reactionSeconds: { kind: uniform, minSeconds: 9, maxSeconds: 3 } }
transport:
  latency: { kind: uniform, minSeconds: 60, maxSeconds: 30 }
  routes:
    - { from: 31001, to: 25327, latency: { kind: uniform, minSeconds: 10, maxSeconds: 10 } }
    - { from: 25327, to: 31002, latency: { kind: uniform, minSeconds: 11, maxSeconds: 10.5 } }
`.replace("properties:\n  - nettingRatio >= 0.5\n  - { coverage: invoiceCreated }\n", "")
    expect(problemsOf(latencies)).toEqual([
      { path: "transport.latency.minSeconds", line: 24, column: 41, message: "must not exceed maxSeconds 30, got 60" },
      { path: "transport.routes[1].latency.minSeconds", line: 27, column: 71, message: "must not exceed maxSeconds 10.5, got 11" },
      { path: "agents.solvers[0].reactionSeconds.minSeconds", line: 22, column: 103, message: "must not exceed maxSeconds 3, got 9" },
    ])
    // Latencies and delays whose milliseconds would not be finite (1e306 s; a σ of 100 draws e^857) are refused.
    const transport = (body: string) => problemsOf(`${valid}transport:\n${body}`.replace("properties:\n  - nettingRatio >= 0.5\n  - { coverage: invoiceCreated }\n", ""))
    expect(transport("  latency: { kind: fixed, seconds: 1e306 }\n")).toEqual([expect.objectContaining({ path: "transport.latency.seconds", message: expect.stringContaining("a number of seconds from 0 to 1e+12") })])
    expect(transport("  latency: { kind: lognormal, medianSeconds: 0, sigma: 100 }\n")).toEqual([expect.objectContaining({ path: "transport.latency.sigma", message: expect.stringContaining("a shape σ between 0 and 20") })])
    expect(transport("  latency: { kind: fixed, seconds: 1 }\n  faults: { dropProbability: 0.1, redeliveryDelaySeconds: 1e307 }\n")).toEqual([
      expect.objectContaining({ path: "transport.faults.redeliveryDelaySeconds", message: expect.stringContaining("a number of seconds from 0 to 1e+12") }),
    ])
  })

  it("names a binary or non-UTF-8 file as such, and cuts a YAML message quoting a long token", () => {
    const dir = mkdtempSync(join(tmpdir(), "clearsim-load-"))
    try {
      const binary = join(dir, "binary.yaml")
      writeFileSync(binary, Buffer.from([0x6e, 0x61, 0x6d, 0x65, 0x3a, 0x20, 0x00, 0xff]))
      expect(() => loadScenario(binary)).toThrow(`${binary}: cannot read the scenario file: not a text file (a NUL byte at offset 6); expected a YAML scenario`)
      const latin1 = join(dir, "latin1.yaml")
      writeFileSync(latin1, Buffer.from("name: caf\xe9\n", "latin1"))
      expect(() => loadScenario(latin1)).toThrow(`${latin1}: cannot read the scenario file: not UTF-8 text; expected a YAML scenario`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    // The parser quotes the whole unexpected token (here 300 characters long).
    const messages = problemsOf(`name: x\n]${"q".repeat(300)}\n`).map((p) => p.message)
    expect(messages.some((m) => m.endsWith("…"))).toBe(true)
    for (const message of messages) expect(message.length).toBeLessThanOrEqual(207)
  })

  it("refuses a horizon virtual time cannot count: in seconds or hours at the field (a range the JSON Schema has too), in epochs at the horizon", () => {
    const horizon = (h: string) => valid.replace("horizon: { hours: 2 }", `horizon: ${h}`)
    expect(problemsOf(horizon("{ hours: 1e12 }"))).toEqual([
      expect.objectContaining({ path: "horizon.hours", message: "Expected a horizon of at most 2501999792.983333 h (9007199254740 s, what virtual time can count: about 285,000 years), got 1000000000000" }),
    ])
    expect(problemsOf(horizon("{ seconds: 9007199254741 }"))).toEqual([
      expect.objectContaining({ path: "horizon.seconds", message: "Expected a horizon of at most 9007199254740 s (what virtual time can count: about 285,000 years), got 9007199254741" }),
    ])
    // A value of another type is told the whole range, as one expectation.
    expect(problemsOf(horizon("{ seconds: 2025-01-01 }"))).toEqual([
      expect.objectContaining({ path: "horizon.seconds", message: 'Expected a positive number of seconds of at most 9007199254740 s (what virtual time can count: about 285,000 years), got "2025-01-01"' }),
    ])
    // An infinity is told once, as not finite.
    expect(problemsOf(horizon("{ hours: .inf }"))).toEqual([expect.objectContaining({ path: "horizon.hours", message: "Expected a finite number, got Infinity" })])
    // Epochs last as long as the hub makes them: the loader counts their seconds.
    expect(problemsOf(horizon("{ epochs: 1e15 }"))).toEqual([
      expect.objectContaining({ path: "horizon", message: "480000000000000000 s is beyond what virtual time can count (at most 9007199254740 s, about 285,000 years)" }),
    ])
    expect(() => parseScenario(horizon("{ seconds: 9007199254740 }"), "s.yaml")).not.toThrow()
    expect(() => parseScenario(horizon("{ hours: 2501999792.98 }"), "s.yaml")).not.toThrow()
  })

  it("reports each mistake once, where it is: an unknown asset, an asset listed twice, a chain on the hub's default domain", () => {
    expect(problemsOf(valid.replace("      asset: USDC", "      asset: USDX"))).toEqual([
      expect.objectContaining({ path: "agents.rebalancers[0].asset", message: "asset USDX is not in assets" }),
    ])
    const twice = valid.replace("agents:", "  - symbol: USDC\n    chains: [{ chain: 31001, decimals: 6 }]\nagents:")
    expect(problemsOf(twice)).toEqual([expect.objectContaining({ path: "assets[1].symbol", message: "asset USDC is listed twice" })])
    expect(problemsOf(valid.replace("{ id: 31001 }", "{ id: 25327 }").replaceAll("31001", "25327"))).toEqual([
      expect.objectContaining({ path: "chains[0].id", message: "chain id 25327 is the hub's default domain: pick another id, or set hub.domain" }),
    ])
  })

  it("rejects fewer solver repayment chains than the hub's minSolverSupportedDomains", async () => {
    const withSolver = (repayment: string, hub = "") =>
      `${hub}${valid}  solvers:
    - { name: op, count: 1, feeDbps: 20, inventory: [], repaymentChains: ${repayment} }
`.replace("properties:\n  - nettingRatio >= 0.5\n  - { coverage: invoiceCreated }\n", "")
    expect(problemsOf(withSolver("[31002]"))).toEqual([
      expect.objectContaining({ path: "agents.solvers[0].repaymentChains", message: "the hub takes at least 2 repayment chain(s) (hub.minSolverSupportedDomains), got 1" }),
    ])
    expect(() => parseScenario(withSolver("[31001, 31002]"), "s.yaml")).not.toThrow()
    // A chain twice: the hub refuses the list (the solver ran unregistered, a revert in the report); it is not two.
    expect(problemsOf(withSolver("[31001, 31001]"))).toEqual([
      expect.objectContaining({
        path: "agents.solvers[0].repaymentChains",
        line: 22,
        column: 74,
        message: "Expected each chain once (the hub refuses a list that names a domain twice: UsersManager_SetUserSupportedDomains_DuplicatedDomain), got [31001,31001]",
      }),
    ])
    // The JSON Schema has it too (uniqueItems): an editor flags it as the loader does.
    const { parse } = await import("yaml")
    const { Ajv2020 } = await import("ajv/dist/2020.js")
    const { scenarioJsonSchema } = await import("./jsonSchema.ts")
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(scenarioJsonSchema())
    expect(validate(parse(withSolver("[31001, 31001]")))).toBe(false)
    expect(validate.errors).toContainEqual(expect.objectContaining({ instancePath: "/agents/solvers/0/repaymentChains", keyword: "uniqueItems" }))
    expect(validate(parse(withSolver("[31001, 31002]")))).toBe(true)
    expect(() => parseScenario(withSolver("[31002]", "hub: { minSolverSupportedDomains: 1 }\n"), "s.yaml")).not.toThrow()
    // By default a solver registers every chain: here two, fewer than the hub would take.
    const byDefault = (hub: string) =>
      `${hub}${valid}  solvers:
    - { name: op, count: 1, feeDbps: 20, inventory: [] }
`.replace("properties:\n  - nettingRatio >= 0.5\n  - { coverage: invoiceCreated }\n", "")
    expect(problemsOf(byDefault("hub: { minSolverSupportedDomains: 3 }\n"))).toEqual([
      expect.objectContaining({
        path: "agents.solvers[0]",
        message: "the hub takes at least 3 repayment chain(s) (hub.minSolverSupportedDomains), but the scenario has 2 chains, which this solver registers by default",
      }),
    ])
    expect(() => parseScenario(byDefault(""), "s.yaml")).not.toThrow()
  })

  it("names the outage by its index", () => {
    const outages = `${valid}transport:
  latency: { kind: fixed, seconds: 30 }
  faults:
    outages:
      - { domain: 31002, kind: partition, fromSeconds: 60, toSeconds: 120 }
      - { domain: 31020, kind: halt, fromSeconds: 60, toSeconds: 120 }
      - { domain: 25327, kind: partition, fromSeconds: 600, toSeconds: 300 }
`
    expect(problemsOf(outages)).toEqual([
      {
        path: "transport.faults.outages[1].domain",
        line: 29,
        column: 19,
        message: "domain 31020 is neither a chain nor the hub (expected one of the chain ids (31001, 31002) or the hub domain 25327)",
      },
      { path: "transport.faults.outages[2].toSeconds", line: 30, column: 72, message: "outage of 25327 ends before it starts (expected toSeconds > fromSeconds 600)" },
    ])
  })

  it("takes a pause of the hub only, and not starting or ending inside a hub halt", () => {
    const withOutages = (lines: string) => `${valid}transport:
  latency: { kind: fixed, seconds: 30 }
  faults:
    outages:
${lines}`
    expect(() => parseScenario(withOutages("      - { domain: 25327, kind: pause, fromSeconds: 60, toSeconds: 120 }\n"), "s.yaml")).not.toThrow()
    // A paused hub's refused deliveries are retried after the redelivery delay: a delay under a second is refused.
    const withDelay = (seconds: number) =>
      withOutages("      - { domain: 25327, kind: pause, fromSeconds: 60, toSeconds: 120 }\n").replace("  faults:\n", `  faults:\n    redeliveryDelaySeconds: ${seconds}\n`)
    expect(problemsOf(withDelay(0))).toEqual([
      expect.objectContaining({ path: "transport.faults.redeliveryDelaySeconds", message: "must be at least 1 s when the hub is paused (the relayer retries each refused delivery after it), got 0" }),
    ])
    expect(() => parseScenario(withDelay(1), "s.yaml")).not.toThrow()
    expect(() => parseScenario(withDelay(0).replace("kind: pause", "kind: halt"), "s.yaml")).not.toThrow()
    expect(problemsOf(withOutages("      - { domain: 31002, kind: pause, fromSeconds: 60, toSeconds: 120 }\n"))).toEqual([
      expect.objectContaining({
        path: "transport.faults.outages[0].domain",
        message: "a pause applies to the hub only: domain 31002 is a chain (expected the hub domain 25327, or kind partition or halt)",
      }),
    ])
    const overlapping = withOutages(`      - { domain: 25327, kind: halt, fromSeconds: 100, toSeconds: 200 }
      - { domain: 25327, kind: pause, fromSeconds: 150, toSeconds: 300 }
      - { domain: 25327, kind: pause, fromSeconds: 50, toSeconds: 100 }
`)
    expect(problemsOf(overlapping)).toEqual([
      expect.objectContaining({
        path: "transport.faults.outages[1].fromSeconds",
        message: "the hub's pause would start at 150 s, inside its halt from 100 s to 200 s, when the hub takes no inputs (expected a time outside every hub halt)",
      }),
      // Windows are [from, to): at 100 s the hub is already halted, so an unpause then could not be applied.
      expect.objectContaining({
        path: "transport.faults.outages[2].toSeconds",
        message: "the hub's pause would end at 100 s, inside its halt from 100 s to 200 s, when the hub takes no inputs (expected a time outside every hub halt)",
      }),
    ])
    expect(() => parseScenario(withOutages("      - { domain: 25327, kind: halt, fromSeconds: 100, toSeconds: 200 }\n      - { domain: 25327, kind: pause, fromSeconds: 200, toSeconds: 300 }\n"), "s.yaml")).not.toThrow()
    // Edges are compared on the milliseconds the world acts on: a pause from where a halt ends at 64.4 s is after it
    // (64.4 × 1000 is 64,400.00000000001), and one ending at 99.9996 s, at 100,000 ms, is inside a halt from 100 s.
    expect(() => parseScenario(withOutages("      - { domain: 25327, kind: halt, fromSeconds: 30, toSeconds: 64.4 }\n      - { domain: 25327, kind: pause, fromSeconds: 64.4, toSeconds: 300 }\n"), "s.yaml")).not.toThrow()
    expect(problemsOf(withOutages("      - { domain: 25327, kind: halt, fromSeconds: 100, toSeconds: 200 }\n      - { domain: 25327, kind: pause, fromSeconds: 50, toSeconds: 99.9996 }\n"))).toEqual([
      expect.objectContaining({ path: "transport.faults.outages[1].toSeconds", message: expect.stringContaining("the hub's pause would end at 99.9996 s, inside its halt from 100 s to 200 s") }),
    ])
    // A window within one millisecond covers none: it held nothing (a pause of it paused and unpaused the hub at one instant).
    const empty = withOutages("      - { domain: 25327, kind: pause, fromSeconds: 300.0001, toSeconds: 300.0004 }\n      - { domain: 31001, kind: halt, fromSeconds: 400.0001, toSeconds: 400.001 }\n")
    expect(problemsOf(empty)).toEqual([
      expect.objectContaining({
        path: "transport.faults.outages[0].toSeconds",
        message: "the pause of 25327 from 300.0001 s to 300.0004 s covers no whole millisecond of the virtual clock (a window runs from the first millisecond at or after its start to the last before its end; expected toSeconds above 300.001)",
      }),
      expect.objectContaining({ path: "transport.faults.outages[1].toSeconds", message: expect.stringContaining("the halt of 31001 from 400.0001 s to 400.001 s covers no whole millisecond") }),
    ])
    // One millisecond is a window: 400,001 ms.
    expect(() => parseScenario(empty.replace("toSeconds: 300.0004", "toSeconds: 300.0011").replace("toSeconds: 400.001 ", "toSeconds: 400.0011 "), "s.yaml")).not.toThrow()
  })

  it("reports YAML syntax errors with their line", () => {
    const problems = problemsOf("name: x\nchains: [1, 2\n")
    expect(problems[0]!.message).toMatch(/^YAML:/)
    expect(problems[0]!.line).toBeGreaterThan(0)
  })

  it("names a key given twice with its path, a second document, and an alias of no anchor with its place", () => {
    // The parser's own words: "Map keys must be unique" (which key?), "please use YAML.parseAllDocuments()" (a
    // function of the library), and an unresolved alias with no line.
    expect(problemsOf(valid.replace("      count: 4\n", "      count: 4\n      name: again\n"))).toEqual([
      { path: "agents.rebalancers[0].name", line: 17, column: 7, message: 'YAML: the key "name" is given twice in this mapping (expected each key once)' },
    ])
    expect(problemsOf(`name: a\nseed: 1\nname: b\n`)).toEqual([{ path: "name", line: 3, column: 1, message: 'YAML: the key "name" is given twice in this mapping (expected each key once)' }])
    expect(problemsOf(`${valid}---\n${valid}`)).toEqual([
      { path: "", line: valid.split("\n").length, column: 1, message: "YAML: a second document starts here (after ---); expected one scenario per file" },
    ])
    expect(problemsOf(valid.replace("agents:\n", "agents:\n  x: [1, *nope]\n"))).toEqual([
      { path: "agents.x[1]", line: 14, column: 10, message: "YAML: Unresolved alias (the anchor must be set before the alias): nope" },
    ])
  })

  it("says an empty file is empty, and refuses a !!binary value at its place (was: a Buffer's JSON as the value got)", () => {
    const empty = [{ path: "", message: "the file is empty (nothing but blank lines or comments): expected a mapping of scenario fields" }]
    expect(problemsOf("")).toEqual(empty)
    expect(problemsOf("\n  \n# a comment only\n")).toEqual(empty)
    const binary = "YAML: a !!binary value (bytes), which no field takes; expected text or a number"
    expect(problemsOf(valid.replace(/^name: .*$/m, "name: !!binary aGVsbG8="))).toEqual([{ path: "name", line: 2, column: 16, message: binary }])
    expect(problemsOf(valid.replace("count: 4", "count: !!binary AA=="))).toEqual([{ path: "agents.rebalancers[0].count", line: 16, column: 23, message: binary }])
  })

  it("refuses a tag YAML does not know at the tag, with its path (the parser only warned, and read the value as a string)", () => {
    const unknown = (tag: string) => `YAML: unknown tag ${tag}; expected no tag, or one of YAML's own (!!str, !!int, !!float, !!bool, !!null, !!map, !!seq)`
    expect(problemsOf(`${valid}extra: !foo 5\n`)).toEqual([{ path: "extra", line: 24, column: 8, message: unknown("!foo") }])
    expect(problemsOf(valid.replace("agents:\n", "agents: !bar\n"))).toEqual([{ path: "agents", line: 13, column: 9, message: unknown("!bar") }])
    // YAML's own tags are taken as before, one whose value does not fit it too (the parser only warns: a string).
    expect(() => parseScenario(valid.replace(/^name: (.*)$/m, "name: !!str $1"), "s.yaml")).not.toThrow()
    expect(parseScenario(valid.replace("medianTokens: 1000", "medianTokens: !!float 1000"), "s.yaml").spec.agents.rebalancers![0]!.size).toMatchObject({ medianTokens: "1000" })
  })

  it("places a problem under a key that is a number or a boolean at that key, not at the top of the file", () => {
    // doc.getIn looked keys up by value: the string "31001" of the path missed the number key 31001.
    expect(problemsOf(valid.replace("agents:\n", "agents:\n  31001: { count: 1 }\n"))).toEqual([
      { path: "agents.31001", line: 14, column: 10, message: "unknown key (not a field here; a typo?)" },
    ])
    expect(problemsOf(`${valid}true: 1\n`)).toEqual([{ path: "true", line: 24, column: 7, message: "unknown key (not a field here; a typo?)" }])
  })

  it("says a property's number past a double's range is not finite, rather than asking for the form it has", () => {
    expect(problemsOf(`${valid}  - nettingRatio >= 1e999\n`)).toEqual([
      { path: "properties[2]", line: 24, column: 5, message: 'expected "<metric> <op> <number>" with a finite number (at most about 1.8e308), got "nettingRatio >= 1e999"' },
    ])
  })

  it("refuses an asset symbol that every JavaScript object has as a member (toString, constructor, __proto__)", () => {
    for (const symbol of ["toString", "constructor", "__proto__", "valueOf"]) {
      const text = valid.replace("symbol: USDC", `symbol: ${symbol}`).replace("asset: USDC", `asset: ${symbol}`)
      expect(problemsOf(text).map((p) => [p.path, p.message])).toEqual([
        ["assets[0].symbol", `${symbol} is the name of a member every JavaScript object has (Object.prototype.${symbol}), which tables keyed by symbol cannot hold: expected another symbol`],
      ])
    }
  })

  it("refuses a repeating period under the virtual clock's millisecond (the run hung at one millisecond), and takes one of exactly 1 ms", () => {
    const withPeriods = (cron: number) =>
      valid.replace("horizon: { hours: 2 }", `horizon: { hours: 2 }\nhub: { blockTimeSeconds: ${cron} }\nkeepers: { intentQueue: { cronSeconds: ${cron} }, expiredIntentsCronSeconds: ${cron}, chains: [{ chain: 31002, fillQueue: { cronSeconds: ${cron} } }] }`)
    const message = "Expected a period of at least 0.001 s, the virtual clock's millisecond (a shorter one would repeat at one millisecond forever: the run would hang), got 1e-7"
    expect(problemsOf(withPeriods(1e-7)).map((p) => [p.path, p.message])).toEqual([
      ["hub.blockTimeSeconds", message],
      ["keepers.intentQueue.cronSeconds", message],
      ["keepers.expiredIntentsCronSeconds", message],
      ["keepers.chains[0].fillQueue.cronSeconds", message],
    ])
    const arbitrageur = valid.replace("properties:", "  arbitrageurs: [{ name: mm, count: 1, pollSeconds: 0.0004, capital: [] }]\nproperties:")
    expect(problemsOf(arbitrageur).map((p) => p.path)).toEqual(["agents.arbitrageurs[0].pollSeconds"])
    expect(() => parseScenario(withPeriods(0.001), "s.yaml")).not.toThrow()
  })

  it("has the periods' millisecond floor in the JSON Schema too (an editor flags a 0.0004 s poll, as the loader refuses it)", async () => {
    const { parse } = await import("yaml")
    const { Ajv2020 } = await import("ajv/dist/2020.js")
    const { scenarioJsonSchema } = await import("./jsonSchema.ts")
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(scenarioJsonSchema())
    const periods = (seconds: number) =>
      valid
        .replace("horizon: { hours: 2 }", `horizon: { hours: 2 }\nhub: { blockTimeSeconds: ${seconds} }\nkeepers: { intentQueue: { cronSeconds: ${seconds} }, processDepositsAndInvoicesCronSeconds: ${seconds}, expiredIntentsCronSeconds: ${seconds}, chains: [{ chain: 31002, fillQueue: { cronSeconds: ${seconds} } }] }`)
        .replace("properties:", `  arbitrageurs: [{ name: mm, count: 1, pollSeconds: ${seconds}, capital: [] }]\nproperties:`)
    expect(validate(parse(periods(0.0004)))).toBe(false)
    expect(validate.errors?.filter((e) => e.keyword === "minimum").map((e) => e.instancePath)).toEqual([
      "/hub/blockTimeSeconds",
      "/keepers/intentQueue/cronSeconds",
      "/keepers/processDepositsAndInvoicesCronSeconds",
      "/keepers/expiredIntentsCronSeconds",
      "/keepers/chains/0/fillQueue/cronSeconds",
      "/agents/arbitrageurs/0/pollSeconds",
    ])
    expect(problemsOf(periods(0.0004))).toHaveLength(6)
    expect(validate(parse(periods(0.001))), JSON.stringify(validate.errors)).toBe(true)
    expect(() => parseScenario(periods(0.001), "s.yaml")).not.toThrow()
  })

  it("refuses a key that is a mapping or a list as an unknown key, without a Node warning on stderr", () => {
    const warning = vi.spyOn(process, "emitWarning").mockImplementation(() => {})
    try {
      expect(problemsOf(`${valid}[a, b]: 1\n`)).toEqual([expect.objectContaining({ path: "[ a, b ]", message: "unknown key (not a field here; a typo?)" })])
      expect(warning).not.toHaveBeenCalled()
    } finally {
      warning.mockRestore()
    }
  })

  it("names the horizon's forms instead of each form's complaints about the others' keys", () => {
    const horizon = (h: string) => problemsOf(valid.replace("horizon: { hours: 2 }", `horizon: ${h}`))
    // One form fits the keys: only its own problem.
    expect(horizon("{ hours: 0 }")).toEqual([expect.objectContaining({ path: "horizon.hours", message: "Expected a positive number of hours, got 0" })])
    expect(horizon("{ hours: 2, extra: 1 }")).toEqual([expect.objectContaining({ path: "horizon.extra", message: "unknown key (not a field here; a typo?)" })])
    // None fits: one line with the forms.
    const forms = "Expected exactly one of the forms { epochs } | { hours } | { seconds }"
    expect(horizon("{ hours: 2, epochs: 3 }")).toEqual([expect.objectContaining({ path: "horizon", message: `${forms}, got {"hours":2,"epochs":3}` })])
    expect(horizon("{ minutes: 5 }")).toEqual([expect.objectContaining({ path: "horizon", message: `${forms}, got {"minutes":5}` })])
  })

  it("takes a property's threshold in exponent notation, either case, signed exponent", () => {
    for (const threshold of ["1e9", "1E9", "2.5e+3", "5E-1"]) {
      expect(() => parseScenario(valid.replace("nettingRatio >= 0.5", `p99LatencySeconds <= ${threshold}`), "s.yaml"), threshold).not.toThrow()
    }
  })

  it("refuses swap weight when no flow's destination has a second asset to swap into", () => {
    const swaps = valid.replace("size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }", "size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }\n      paths: { basic: 1, swap: 1 }")
    expect(problemsOf(swaps)).toEqual([
      expect.objectContaining({
        path: "agents.rebalancers[0].paths.swap",
        message: "no flow of USDC goes to a chain with another default-strategy asset to swap into (expected a second asset on a destination chain, or no swap weight)",
      }),
    ])
    const withUsdt = swaps.replace("agents:", "  - symbol: USDT\n    chains:\n      - { chain: 31002, decimals: 6 }\nagents:")
    expect(() => parseScenario(withUsdt, "s.yaml")).not.toThrow()
    // swapTo names the asset: one of the scenario's, not the population's own, present on some flow's destination.
    const withSwapTo = (symbol: string) => withUsdt.replace("paths: { basic: 1, swap: 1 }", `paths: { basic: 1, swap: 1 }\n      swapTo: ${symbol}`)
    const swapTo = (symbol: string) => problemsOf(withSwapTo(symbol))
    expect(() => parseScenario(withSwapTo("USDT"), "s.yaml")).not.toThrow()
    expect(swapTo("DAI")).toEqual([
      expect.objectContaining({ path: "agents.rebalancers[0].swapTo", message: "expected another asset of the scenario than USDC (USDT), got DAI" }),
      expect.objectContaining({
        path: "agents.rebalancers[0].paths.swap",
        message: "no flow of USDC goes to a chain with DAI as a default-strategy asset to swap into (expected DAI on a destination chain, or no swap weight)",
      }),
    ])
    expect(swapTo("USDC").map((p) => p.path)).toEqual(["agents.rebalancers[0].swapTo", "agents.rebalancers[0].paths.swap"])
    // USDC an xERC20 on 31001: its flow from there takes the basic path, so only the flow from 31002 (to 31001, no
    // USDT there) could swap.
    const xerc20Origin = withUsdt.replace("- { chain: 31001, decimals: 6 }", "- { chain: 31001, decimals: 6, strategy: xerc20 }")
    expect(problemsOf(xerc20Origin).map((p) => p.path)).toEqual(["agents.rebalancers[0].paths.swap"])
    // Every flow from an xERC20 chain: no fast or swap weight at all.
    const allXerc20 = xerc20Origin.replace("flows: [{ from: 31001, to: 31002 }, { from: 31002, to: 31001 }]", "flows: [{ from: 31001, to: 31002 }]")
    expect(problemsOf(allXerc20)).toEqual([
      expect.objectContaining({ path: "agents.rebalancers[0].paths", message: "every flow starts where USDC is an xERC20, whose intents take the basic path only (expected no fast or swap weight)" }),
    ])
  })

  it("refuses a flow to a chain without the population's asset, naming the population, the assets and the chains (a swap there could never settle)", () => {
    // USDC is on 31001 and 31002 only; USDT on 31002 and 31003. A swap of USDC from 31001 into USDT on 31003 that no
    // solver fills would, once expired, be settled in USDC on 31003, which has none: an invoice that never settles.
    const text = (paths: string, swapTo = "") =>
      usdcUsdtText(
        "{ hours: 1 }",
        `{ name: swappers, count: 1, asset: USDC, ${swapTo}arrival: { kind: poisson, perHour: 60 }, flows: [{ from: 31001, to: 31002 }, { from: 31001, to: 31003 }], size: { kind: fixed, tokens: 100 }, paths: ${paths} }`,
      )
    const swap =
      "asset USDC is not configured on chain 31003, where population swappers swaps USDC from chain 31001 into USDT: a swap no solver fills is settled in its input asset on its " +
      "destination once it expires, so without USDC on chain 31003 its invoice would never settle (the service refuses such a swap: UnsupportedAsset); expected USDC on chain 31003, or no flow of swappers to it"
    for (const swapTo of ["", "swapTo: USDT, "]) {
      expect(problemsOf(text("{ fast: 1, swap: 1 }", swapTo))).toEqual([expect.objectContaining({ path: "agents.rebalancers[0].flows[1].to", message: swap, line: 12 })])
    }
    // Without swaps (or swaps to an asset not on that chain, sent there as plain fast intents) the flow is refused all the same.
    const plain =
      "asset USDC is not configured on chain 31003, where population swappers sends USDC from chain 31001: its intents are paid out in USDC on their destination (a fill or a settlement), " +
      "so the service would refuse every one (UnsupportedAsset); expected USDC on chain 31003, or no flow of swappers to it"
    expect(problemsOf(text("{ fast: 1 }"))).toEqual([expect.objectContaining({ path: "agents.rebalancers[0].flows[1].to", message: plain })])
    const dai = text("{ fast: 1, swap: 1 }", "swapTo: DAI, ").replace("agents:", "  - symbol: DAI\n    chains: [{ chain: 31001, decimals: 18 }, { chain: 31002, decimals: 18 }]\nagents:")
    expect(problemsOf(dai)).toEqual([expect.objectContaining({ path: "agents.rebalancers[0].flows[1].to", message: plain })])
  })

  it("says why a seed past 2^53 - 1 is refused", () => {
    expect(problemsOf(valid.replace("seed: 7", "seed: 9007199254740992")).map((p) => p.message)).toContain("Expected a seed of at most 9007199254740991 (2^53 - 1), got 9007199254740992")
  })

  it("names the values a kind takes when it is none of them", () => {
    expect(problemsOf(valid.replace("arrival: { kind: poisson, perHour: 60 }", "arrival: { kind: uniform, perHour: 60 }"))).toEqual([
      expect.objectContaining({ path: "agents.rebalancers[0].arrival.kind", message: 'Expected one of "scripted" | "poisson" | "bursty", got "uniform"' }),
    ])
    expect(problemsOf(valid.replace("arrival: { kind: poisson, perHour: 60 }", "arrival: { perHour: 60 }"))).toEqual([
      expect.objectContaining({ path: "agents.rebalancers[0].arrival.kind", message: 'Missing key: expected one of "scripted" | "poisson" | "bursty"' }),
    ])
  })

  it("answers a value of the wrong type with the format the field takes and, when the format does not say it, its type", () => {
    const message = (from: string, to: string) => {
      const problems = problemsOf(valid.replace(from, to))
      expect(problems, to).toHaveLength(1)
      return `${problems[0]!.path}: ${problems[0]!.message}`
    }
    // The seed's checks (non-negative, at most 2^53 - 1) read as one expectation, not joined by "and".
    expect(message("seed: 7", 'seed: "7"')).toBe('seed: Expected a non-negative integer of at most 9007199254740991 (2^53 - 1) as a number, got "7"')
    expect(message("seed: 7", "seed: abc")).toBe('seed: Expected a non-negative integer of at most 9007199254740991 (2^53 - 1) as a number, got "abc"')
    expect(message("perHour: 60", "perHour: [60]")).toBe("agents.rebalancers[0].arrival.perHour: Expected a positive rate as a number, got [60]")
    // A format that names its type already is not told twice; a count of agents is a number.
    expect(message("count: 4", "count: abc")).toBe('agents.rebalancers[0].count: Expected a number of agents from 1 to 100000 (each has its own funded account), got "abc"')
    // A number or a decimal string, each with its own format.
    // A number or a decimal string, said once (the union's own expected).
    expect(message("medianTokens: 1000", "medianTokens: true")).toBe("agents.rebalancers[0].size.medianTokens: Expected a non-negative amount of tokens, as a number or a decimal string, got true")
    expect(message("symbol: USDC", "symbol: USDC\n    priceUsd: [1]")).toBe("assets[0].priceUsd: Expected a positive price in USD, as a number or a decimal string, got [1]")
    // effect's "a value greater than or equal to 0" names the type it wants instead of adding "as a number".
    expect(message("sigma: 0.5", 'sigma: "x"')).toBe('agents.rebalancers[0].size.sigma: Expected a number greater than or equal to 0, got "x"')
    // Without a format: the type with its article, a struct by its keys, a list of literals by its values.
    expect(message("  - { coverage: invoiceCreated }", "  - { coverage: 5 }")).toBe("properties[1].coverage: Expected a string, got 5")
    expect(message("flows: [{ from: 31001, to: 31002 }, { from: 31002, to: 31001 }]", "flows: [5]")).toBe("agents.rebalancers[0].flows[0]: Expected an object { from, to, weight }, got 5")
    expect(message("properties:", "backend: foo\nproperties:")).toBe('backend: Expected one of "memory" | "anvil", got "foo"')
    expect(message("properties:", "hub: { userMaxDiscount: yes }\nproperties:")).toBe('hub.userMaxDiscount: Expected a boolean, got "yes"')
    // A range of dbps that does not name its JSON type.
    expect(message("      count: 4", '      count: 4\n      fastMaxFeeDbps: "5"')).toBe('agents.rebalancers[0].fastMaxFeeDbps: Expected an integer of dbps between 0 and 100000 as a number, got "5"')
    // A struct of many optional keys: the first few and "...".
    expect(message("properties:", "hub: 5\nproperties:")).toBe("hub: Expected an object { domain, blockTimeSeconds, epochLength, expiryTimeBufferSeconds, discountExemptEpochs, userMaxDiscount, ... }, got 5")
    // A union of structs that is given no object: its forms, tags included.
    expect(message("horizon: { hours: 2 }", "horizon: 2")).toBe("horizon: Expected one of the forms { epochs } | { hours } | { seconds }, got 2")
    expect(message("arrival: { kind: poisson, perHour: 60 }", "arrival: poisson")).toBe(
      'agents.rebalancers[0].arrival: Expected one of the forms { kind: "scripted", atSeconds } | { kind: "poisson", perHour } | { kind: "bursty", everySeconds, size, spreadSeconds }, got "poisson"',
    )
    expect(message("chains:\n  - { id: 31001 }\n  - { id: 31002 }", "chains: 31001")).toBe("chains: Expected an array (at least two chains), got 31001")
    // A string of a format or a struct: the struct's keys.
    expect(message("  - { coverage: invoiceCreated }", "  - 5")).toBe('properties[1]: Expected a comparison like "nettingRatio >= 0.5" as a string or an object { coverage }, got 5')
  })

  it("shows NaN and infinities as they are, not as JSON's null", () => {
    expect(problemsOf(valid.replace("horizon: { hours: 2 }", "horizon: { hours: .inf }"))).toEqual([expect.objectContaining({ path: "horizon.hours", message: "Expected a finite number, got Infinity" })])
    expect(problemsOf(valid.replace("perHour: 60", "perHour: .nan"))[0]).toMatchObject({ path: "agents.rebalancers[0].arrival.perHour", message: "Expected a finite number, got NaN" })
  })

  it("refuses aliases that expand exponentially (a typed error, not the YAML library's exception)", () => {
    const lines = ["l0: &l0 [a, a, a, a, a, a, a, a, a, a]"]
    for (let i = 1; i <= 8; i++) lines.push(`l${i}: &l${i} [${Array(10).fill(`*l${i - 1}`).join(", ")}]`)
    expect(problemsOf(`${valid}${lines.join("\n")}\n`)).toEqual([{ path: "", message: expect.stringMatching(/^YAML: Excessive alias count/) }])
  })

  it("takes YAML merge keys (<<: *anchor) for shared settings", () => {
    const merged = valid.replace(
      "    - name: users\n      count: 4\n      asset: USDC\n",
      "    - &base\n      name: users\n      count: 4\n      asset: USDC\n",
    ).replace("size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }", "size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }\n    - <<: *base\n      name: others")
    const spec = parseScenario(merged, "s.yaml").spec
    expect(spec.agents.rebalancers?.map((r) => [r.name, r.count, r.arrival.kind])).toEqual([
      ["users", 4, "poisson"],
      ["others", 4, "poisson"],
    ])
  })

  it("refuses amounts one account puts in beyond what it is funded with (10^12 whole tokens of each asset per chain), summed per chain and asset", () => {
    const withMoney = (inventory: string, liquidity: string) => `
name: funded
horizon: { hours: 1 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 18 }]
agents:
  solvers:
    - name: s
      count: 1
      feeDbps: 10
      reactionSeconds: { kind: fixed, seconds: 1 }
      inventory: [{ chain: 31001, asset: USDC, tokens: ${inventory} }, { chain: 31002, asset: USDC, tokens: 1 }]
initialLiquidity:
  - { chain: 31001, asset: USDC, tokens: ${liquidity} }
  - { chain: 31001, asset: USDC, tokens: ${liquidity} }
`
    expect(() => parseScenario(withMoney("1000000000000", "500000000000"), "s.yaml")).not.toThrow()
    const problems = problemsOf(withMoney('"1000000000000.000001"', "500000000000.5"))
    expect(problems.map((p) => [p.path, p.message])).toEqual([
      ["agents.solvers[0].inventory[0].tokens", "the inventory of USDC on chain 31001 exceeds the 1000000000000 whole tokens an account is funded with"],
      ["initialLiquidity[1].tokens", "the initial liquidity of USDC on chain 31001, with the 1 entry for it before this one, exceeds the 1000000000000 whole tokens an account is funded with"],
    ])
    // Reported once per chain and asset: a third entry past the total adds no line.
    const third = withMoney("1", "500000000000.5").replace("initialLiquidity:\n", "initialLiquidity:\n  - { chain: 31001, asset: USDC, tokens: 1 }\n")
    expect(problemsOf(third).map((p) => p.path)).toEqual(["initialLiquidity[2].tokens"])
  })

  it("converts whole tokens to units exactly", () => {
    expect(tokensToUnits(1000, 6)).toBe(1_000_000_000n)
    expect(tokensToUnits("0.000001", 6)).toBe(1n)
    expect(tokensToUnits("1.23456789", 6)).toBe(1_234_567n)
    expect(tokensToUnits(0.5, 18)).toBe(5n * 10n ** 17n)
    expect(tokensToUnits("12", 0)).toBe(12n)
  })
})

describe("scenario JSON Schema", () => {
  it("is committed up to date (npx clearsim schema regenerates it)", async () => {
    const { readFileSync } = await import("node:fs")
    const { renderScenarioJsonSchema } = await import("./jsonSchema.ts")
    const committed = readFileSync(new URL("../../scenarios/scenario.schema.json", import.meta.url), "utf8")
    expect(committed).toBe(renderScenarioJsonSchema())
  })

  it("describes every field (what an editor shows on hover), an empirical latency's quantiles too", async () => {
    const { scenarioJsonSchema } = await import("./jsonSchema.ts")
    const undescribed: string[] = []
    const walk = (node: unknown, path: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${path}/${i}`))
      if (typeof node !== "object" || node === null) return
      const schema = node as Record<string, unknown>
      if (schema["type"] === "object" && typeof schema["properties"] === "object") {
        for (const [key, field] of Object.entries(schema["properties"] as Record<string, Record<string, unknown>>)) {
          if (field["description"] === undefined && field["$ref"] === undefined) undescribed.push(`${path}.${key}`)
        }
      }
      for (const [key, value] of Object.entries(schema)) walk(value, `${path}/${key}`)
    }
    walk(scenarioJsonSchema(), "")
    expect(undescribed).toEqual([])
  })

  /**
   * Each file through both: the JSON Schema an editor validates with, and the loader. Every rule of the loader that
   * JSON Schema can say is in it (the file is refused by both); the rules it cannot say (an order between two
   * points, a reference to another part of the file) are listed apart, refused by the loader only.
   */
  it("refuses what the loader refuses wherever JSON Schema can say the rule, and accepts every shipped scenario, as the loader does", async () => {
    const { readdirSync, readFileSync } = await import("node:fs")
    const { parse } = await import("yaml")
    const { Ajv2020 } = await import("ajv/dist/2020.js")
    const { scenarioJsonSchema } = await import("./jsonSchema.ts")
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(scenarioJsonSchema())
    const editor = (text: string) => validate(parse(text, { merge: true }))
    const loader = (text: string) => {
      try {
        parseScenario(text, "s.yaml")
        return true
      } catch (error) {
        if (error instanceof ScenarioError) return false
        throw error
      }
    }
    const dir = new URL("../../scenarios/", import.meta.url)
    for (const file of readdirSync(dir).filter((f) => f.endsWith(".yaml"))) {
      const text = readFileSync(new URL(file, dir), "utf8")
      expect([file, editor(text), loader(text)]).toEqual([file, true, true])
    }
    const latency = (spec: string) => `${valid}transport:\n  latency: ${spec}\n`
    const quantiles = (points: string) => latency(`{ kind: empirical, quantiles: ${points} }`)
    const users = (from: string, to: string) => valid.replace(from, to)
    const expressible: Record<string, string> = {
      "one quantile only": quantiles("[{ q: 0, seconds: 10 }]"),
      "a first quantile above 0": quantiles("[{ q: 0.1, seconds: 10 }, { q: 1, seconds: 60 }]"),
      "no quantile at 1": quantiles("[{ q: 0, seconds: 10 }, { q: 0.9, seconds: 60 }]"),
      "two quantiles at 1": quantiles("[{ q: 0, seconds: 10 }, { q: 1, seconds: 60 }, { q: 1, seconds: 90 }]"),
      "a horizon of too many seconds": users("horizon: { hours: 2 }", "horizon: { seconds: 1e13 }"),
      "a horizon of too many hours": users("horizon: { hours: 2 }", "horizon: { hours: 1e12 }"),
      "a horizon of .inf hours": users("horizon: { hours: 2 }", "horizon: { hours: .inf }"),
      "a rate of .inf": users("perHour: 60", "perHour: .inf"),
      "a size of .inf tokens": users("medianTokens: 1000", "medianTokens: .inf"),
      "a sigma of .inf": users("sigma: 0.5", "sigma: .inf"),
      "a latency of .inf seconds": latency("{ kind: fixed, seconds: .inf }"),
      "a route from domain 0": `${valid}transport:\n  routes: [{ from: 0, to: 25327, latency: { kind: fixed, seconds: 5 } }]\n`,
      "an outage of domain 0": `${valid}transport:\n  faults: { outages: [{ domain: 0, kind: partition, fromSeconds: 10, toSeconds: 20 }] }\n`,
      "an unknown coverage predicate": users("{ coverage: invoiceCreated }", "{ coverage: invoiceCreatd }"),
      "an asset named toString": users("symbol: USDC", "symbol: toString"),
      "flows of weight 0 only": users("flows: [{ from: 31001, to: 31002 }, { from: 31002, to: 31001 }]", "flows: [{ from: 31001, to: 31002, weight: 0 }]"),
      "paths of weight 0 only": users("size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }", "size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }\n      paths: { basic: 0, fast: 0 }"),
      "no path": users("size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }", "size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }\n      paths: {}"),
      "a burn limit of a default-strategy chain": users("{ chain: 31001, decimals: 6 }", "{ chain: 31001, decimals: 6, burnLimit: 100 }"),
    }
    for (const [what, text] of Object.entries(expressible)) expect([what, editor(text), loader(text)]).toEqual([what, false, false])
    // A limit of an xERC20 chain, a flow of weight 0 beside one of weight 1, quantiles in order: both take them.
    const taken = [
      users("{ chain: 31001, decimals: 6 }", "{ chain: 31001, decimals: 6, strategy: xerc20, burnLimit: 100 }"),
      users("flows: [{ from: 31001, to: 31002 }, { from: 31002, to: 31001 }]", "flows: [{ from: 31001, to: 31002, weight: 0 }, { from: 31002, to: 31001 }]"),
      quantiles("[{ q: 0, seconds: 10 }, { q: 0.5, seconds: 30 }, { q: 1, seconds: 60 }]"),
    ]
    for (const text of taken) expect([editor(text), loader(text)], JSON.stringify(validate.errors)).toEqual([true, true])
    // What JSON Schema cannot say: an order between two points or fields, a horizon in epochs (its seconds depend on
    // the hub's timing), a reference to another part of the file. The loader alone refuses these.
    const loaderOnly: Record<string, string> = {
      "quantiles out of order": quantiles("[{ q: 0, seconds: 10 }, { q: 0.7, seconds: 30 }, { q: 0.5, seconds: 40 }, { q: 1, seconds: 60 }]"),
      "seconds decreasing": quantiles("[{ q: 0, seconds: 10 }, { q: 0.5, seconds: 5 }, { q: 1, seconds: 60 }]"),
      "a horizon of too many epochs": users("horizon: { hours: 2 }", "horizon: { epochs: 1e15 }"),
      "a flow to its origin": users("{ from: 31002, to: 31001 }", "{ from: 31002, to: 31002 }"),
      "an unknown metric": users("nettingRatio >= 0.5", "nettingRatioo >= 0.5"),
    }
    for (const [what, text] of Object.entries(loaderOnly)) expect([what, editor(text), loader(text)]).toEqual([what, true, false])
  })

  it("accepts every shipped scenario and, as the loader does, refuses a misspelt key (an editor flags what a run would)", async () => {
    const { readdirSync, readFileSync } = await import("node:fs")
    const { parse } = await import("yaml")
    const { Ajv2020 } = await import("ajv/dist/2020.js")
    const { scenarioJsonSchema } = await import("./jsonSchema.ts")
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(scenarioJsonSchema())
    const dir = new URL("../../scenarios/", import.meta.url)
    const files = readdirSync(dir).filter((f) => f.endsWith(".yaml"))
    expect(files.length).toBeGreaterThanOrEqual(9)
    for (const file of files) {
      const text = readFileSync(new URL(file, dir), "utf8")
      expect(validate(parse(text, { merge: true })), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true)
    }
    const typo = parse(valid.replace("flows:", "flow:"))
    expect(validate(typo)).toBe(false)
    expect(validate.errors).toContainEqual(expect.objectContaining({ instancePath: "/agents/rebalancers/0", keyword: "additionalProperties", params: { additionalProperty: "flow" } }))
    expect(problemsOf(valid.replace("flows:", "flow:")).map((p) => p.path)).toContain("agents.rebalancers[0].flow")
  })
})

describe("token amounts from YAML numbers", () => {
  it("use the number's shortest decimal form, not its binary expansion", () => {
    expect(tokensToUnits(0.1, 18)).toBe(10n ** 17n)
    expect(tokensToUnits(0.3, 18)).toBe(3n * 10n ** 17n)
    expect(tokensToUnits(2.675, 6)).toBe(2_675_000n)
    expect(tokensToUnits(1e22, 6)).toBe(10n ** 28n)
    expect(tokensToUnits(1.5e-7, 18)).toBe(150_000_000_000n)
  })
})

describe("asset prices (priceUsd)", () => {
  /** `valid` with a second asset, WETH, on both chains, and the prices given (undefined: none). */
  const twoAssets = (usdc: string | undefined, weth: string | undefined) =>
    valid
      .replace("  - symbol: USDC\n", `  - symbol: USDC\n${usdc === undefined ? "" : `    priceUsd: ${usdc}\n`}`)
      .replace("agents:\n", `  - symbol: WETH\n${weth === undefined ? "" : `    priceUsd: ${weth}\n`}    chains: [{ chain: 31001, decimals: 18 }, { chain: 31002, decimals: 18 }]\nagents:\n`)

  it("takes a YAML number or a decimal string, kept as written (exact, no float)", async () => {
    const { valuationOf } = await import("../metrics/valuation.ts")
    const loaded = parseScenario(twoAssets("1", '"3012.345678901234567891"'), "p.yaml")
    expect(loaded.spec.assets.map((a) => a.priceUsd)).toEqual([1, "3012.345678901234567891"])
    expect(loaded.warnings).toEqual([])
    // Every price over 10^18 (the most decimals written): 1 USDC is 10^18, 1 WETH 3012345678901234567891.
    const valuation = valuationOf(loaded.spec.assets)
    expect([valuation.unit, valuation.decimals]).toEqual(["USD", 18 + 18])
    expect(valuation.weigh("WETH", 10n ** 18n)).toBe(3012345678901234567891n * 10n ** 18n)
    expect(valuation.format(valuation.weigh("WETH", 10n ** 18n) + valuation.weigh("USDC", 5n * 10n ** 17n))).toBe("3012.845678901234567891")
    // YAML numbers in their shortest decimal form: 0.1 and 0.0000001 (not 0.1000000000000000055511151231257827).
    const small = valuationOf(parseScenario(twoAssets("0.1", "1e-7"), "p.yaml").spec.assets)
    expect(small.decimals).toBe(18 + 7)
    expect(small.format(small.weigh("USDC", 3n * 10n ** 18n))).toBe("0.3")
    expect(small.format(small.weigh("WETH", 10n ** 18n))).toBe("0.0000001")
    // Without prices, tokens as they are.
    expect(valuationOf(parseScenario(valid, "p.yaml").spec.assets)).toMatchObject({ unit: "tokens", decimals: 18 })
  })

  it("refuses a price that is not a positive decimal, with its path", () => {
    for (const bad of ["0", '"0.000"', "-1", '"1e3"', '"1,5"', '"-2"', '"01"']) {
      const problems = problemsOf(twoAssets("1", bad))
      expect(problems.map((p) => p.path), bad).toEqual(["assets[1].priceUsd"])
      expect(problems[0]!.message, bad).toMatch(/positive (decimal )?price in USD/)
    }
  })

  it("takes a price on every asset or on none: some but not all is an error naming the assets without one", () => {
    expect(problemsOf(twoAssets("1", undefined))).toEqual([
      { path: "assets[1]", line: expect.any(Number), column: expect.any(Number), message: "asset WETH has no priceUsd, while USDC has one (expected a priceUsd on every asset, or on none)" },
    ])
    const three = twoAssets(undefined, "3000").replace("agents:\n", "  - symbol: USDT\n    chains: [{ chain: 31001, decimals: 6 }]\nagents:\n")
    expect(problemsOf(three).map((p) => [p.path, p.message])).toEqual([
      ["assets[0]", "asset USDC has no priceUsd, while WETH has one (expected a priceUsd on every asset, or on none)"],
      ["assets[2]", "asset USDT has no priceUsd, while WETH has one (expected a priceUsd on every asset, or on none)"],
    ])
  })

  it("warns, at assets, that totals add tokens as they are when several assets have no price; not for one asset, nor with prices", () => {
    const loaded = parseScenario(twoAssets(undefined, undefined), "p.yaml")
    expect(loaded.warnings.map((w) => [w.path, w.message])).toEqual([
      [
        "assets",
        "USDC, WETH have no priceUsd: the report's totals over assets (netting ratio and volumes, discount paid and its bps) add their tokens as they are, 1 WETH counting as 1 USDC; give every asset a priceUsd (the USD value of one whole token) to weigh them by value",
      ],
    ])
    expect(scenarioWarningLines(loaded)[0]).toMatch(/^clearsim: warning: p\.yaml:\d+:\d+: assets: USDC, WETH have no priceUsd/)
    // An xERC20 asset counts too: its settlements are in the volume discounts.paidBps is measured against.
    const xerc20 = twoAssets(undefined, undefined).replace("[{ chain: 31001, decimals: 18 }, { chain: 31002, decimals: 18 }]", "[{ chain: 31001, decimals: 18, strategy: xerc20 }, { chain: 31002, decimals: 18, strategy: xerc20 }]")
    expect(parseScenario(xerc20, "p.yaml").warnings.map((w) => w.path)).toEqual(["assets"])
    expect(parseScenario(valid, "p.yaml").warnings).toEqual([])
    expect(parseScenario(valid.replace("  - symbol: USDC\n", "  - symbol: USDC\n    priceUsd: 1\n"), "p.yaml").warnings).toEqual([])
    expect(parseScenario(twoAssets("1", "3000"), "p.yaml").warnings).toEqual([])
  })
})

describe("settings without effect", () => {
  it("are told as warnings with their place in the file, and the scenario still loads", () => {
    const text = valid
      .replace("size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }", "size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }\n      swapTo: USDT\n      fastTtlSeconds: 600")
      .replace("agents:\n", "  - symbol: USDT\n    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]\nagents:\n")
      .replace("agents:\n", "transport:\n  latency: { kind: fixed, seconds: 30 }\n  faults: { reorderWindowSeconds: 90, redeliveryDelaySeconds: 120, reorderProbability: 0 }\nkeepers: { chains: [{ chain: 31001 }] }\nagents:\n")
    const loaded = parseScenario(text, "w.yaml")
    expect(loaded.warnings.map((w) => [w.path, w.message])).toEqual([
      ["transport.faults.reorderWindowSeconds", "has no effect without a reorderProbability above 0"],
      ["transport.faults.redeliveryDelaySeconds", "has no effect without a dropProbability above 0 or a pause of the hub (what it delays)"],
      ["agents.rebalancers[0].swapTo", "has no effect without a swap weight in paths"],
      ["agents.rebalancers[0].fastTtlSeconds", "has no effect without a fast or swap weight in paths"],
      ["keepers.chains[0]", "sets nothing for chain 31001 (expected intentQueue, fillQueue or settlementQueue)"],
      [
        "assets",
        "USDC, USDT have no priceUsd: the report's totals over assets (netting ratio and volumes, discount paid and its bps) add their tokens as they are, 1 USDT counting as 1 USDC; give every asset a priceUsd (the USD value of one whole token) to weigh them by value",
      ],
    ])
    const [first] = scenarioWarningLines(loaded)
    expect(first).toMatch(/^clearsim: warning: w\.yaml:\d+:\d+: transport\.faults\.reorderWindowSeconds: has no effect without a reorderProbability above 0$/)
    // With the fault on, the path weighted and the chain given a threshold, nothing to say.
    const quiet = text
      .replace("reorderProbability: 0", "reorderProbability: 0.1, dropProbability: 0.01")
      .replace("keepers: { chains: [{ chain: 31001 }] }", "keepers: { chains: [{ chain: 31001, fillQueue: { maxSize: 2 } }] }")
      .replace("swapTo: USDT", "swapTo: USDT\n      paths: { basic: 1, swap: 1 }")
      .replace("  - symbol: USDC\n", "  - symbol: USDC\n    priceUsd: 1\n")
      .replace("  - symbol: USDT\n", "  - symbol: USDT\n    priceUsd: 1\n")
    expect(parseScenario(quiet, "w.yaml").warnings).toEqual([])
    // An xERC20-first settlement order for an asset that is no xERC20 anywhere is the default order.
    const xerc20First = (strategy: string) =>
      parseScenario(quiet.replace("  - symbol: USDC\n", "  - symbol: USDC\n    prioritizedStrategy: xerc20\n").replace("{ chain: 31002, decimals: 18 }", `{ chain: 31002, decimals: 18, strategy: ${strategy} }`), "w.yaml").warnings.map((w) => [w.path, w.message])
    expect(xerc20First("default")).toEqual([["assets[0].prioritizedStrategy", 'xerc20 has no effect: USDC has no chain with strategy xerc20, so the hub settles it as with "default"']])
    expect(xerc20First("xerc20")).toEqual([])
    // Reorders with a window of 0 hold nothing.
    const noWindow = (window: string) =>
      parseScenario(quiet.replace("reorderProbability: 0.1", `reorderProbability: 0.1, reorderWindowSeconds: ${window}`).replace("reorderWindowSeconds: 90, ", ""), "w.yaml").warnings.map((w) => [w.path, w.message])
    expect(noWindow("0")).toEqual([
      ["transport.faults.reorderProbability", "has no effect with a reorderWindowSeconds of 0: a reordered message is held up to that window more, so none is held (each is still counted as reordered)"],
    ])
    expect(noWindow("0.001")).toEqual([])
    // An entry whose queues are empty sets nothing either.
    const empty = quiet.replace("keepers: { chains: [{ chain: 31001, fillQueue: { maxSize: 2 } }] }", "keepers: { chains: [{ chain: 31001, intentQueue: {} }] }")
    expect(parseScenario(empty, "w.yaml").warnings.map((w) => w.path)).toEqual(["keepers.chains[0]"])
  })

  it("tell a fixed size no intent can be sent at, per origin chain: under half a unit, over the funding, over the budget", () => {
    // USDC has 6 decimals on 31001 and 18 on 31002: 0.0000004 is under half a unit on the first only.
    const sized = (size: string, extra = "") => parseScenario(valid.replace("size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }", `size: ${size}${extra}`), "w.yaml").warnings.map((w) => [w.path, w.message])
    expect(sized('{ kind: fixed, tokens: "0.0000004" }')).toEqual([
      ["agents.rebalancers[0].size.tokens", "0.0000004 is below half a unit of USDC on chain 31001 (6 decimals): every intent from there would be 0 units, refused as zeroAmount"],
    ])
    // Half a unit is 1 unit (rounded half up): sent.
    expect(sized('{ kind: fixed, tokens: "0.0000005" }')).toEqual([])
    expect(sized('{ kind: fixed, tokens: "1000000000000.000001" }')).toEqual([
      ["agents.rebalancers[0].size.tokens", "1000000000000.000001 exceeds the 1000000000000 whole tokens of USDC on chain 31001 (6 decimals) each account is funded with: no intent from there can be paid"],
      ["agents.rebalancers[0].size.tokens", "1000000000000.000001 exceeds the 1000000000000 whole tokens of USDC on chain 31002 (18 decimals) each account is funded with: no intent from there can be paid"],
    ])
    expect(sized("{ kind: fixed, tokens: 1000000000000 }")).toEqual([])
    expect(sized("{ kind: fixed, tokens: 100 }", "\n      balanceTokens: 99.5")).toEqual([
      ["agents.rebalancers[0].balanceTokens", "99.5 (99500000 units) is less than one intent's size, 100 (100000000 units) of USDC on chain 31001 (6 decimals): every intent from there would be refused as budgetExhausted"],
      ["agents.rebalancers[0].balanceTokens", "99.5 (99500000000000000000 units) is less than one intent's size, 100 (100000000000000000000 units) of USDC on chain 31002 (18 decimals): every intent from there would be refused as budgetExhausted"],
    ])
    expect(sized("{ kind: fixed, tokens: 100 }", "\n      balanceTokens: 100")).toEqual([])
    // As the rebalancer counts them: 100.0000005 rounded half up is 100,000,001 units of the 6-decimal USDC, over a
    // budget of 100.0000009 truncated to 100,000,000 there; on the 18-decimal chain both are exact, within it.
    expect(sized('{ kind: fixed, tokens: "100.0000005" }', '\n      balanceTokens: "100.0000009"')).toEqual([
      ["agents.rebalancers[0].balanceTokens", "100.0000009 (100000000 units) is less than one intent's size, 100.0000005 (100000001 units) of USDC on chain 31001 (6 decimals): every intent from there would be refused as budgetExhausted"],
    ])
  })
})

describe("a drawn size that is always 0 units", () => {
  it("is told at the bound that makes it so, per origin chain, and the scenario still loads", () => {
    // USDC has 6 decimals on 31001 and 18 on 31002; drawn sizes are rounded to at most 6 decimals.
    const sized = (size: string) => parseScenario(valid.replace("size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }", `size: ${size}`), "w.yaml").warnings.map((w) => [w.path, w.message])
    const zero = (at: string, value: string, what: string, chain: number, decimals: number) => [
      `agents.rebalancers[0].size.${at}`,
      `${value}, ${what}, is 0 units of USDC on chain ${chain} (${decimals} decimals; a drawn size is rounded to at most 6 decimals): every intent from there would be 0 units, refused as zeroAmount`,
    ]
    expect(sized('{ kind: uniform, minTokens: 0, maxTokens: "0.0000004" }')).toEqual([
      zero("maxTokens", "0.0000004", "the largest size drawn", 31001, 6),
      zero("maxTokens", "0.0000004", "the largest size drawn", 31002, 18),
    ])
    expect(sized('{ kind: uniform, minTokens: 0, maxTokens: "0.000001" }')).toEqual([])
    expect(sized("{ kind: lognormal, medianTokens: 5, sigma: 1, maxTokens: 0 }")).toEqual([
      zero("maxTokens", "0", "the cap", 31001, 6),
      zero("maxTokens", "0", "the cap", 31002, 18),
    ])
    // A cap of 0.0000004 is 0 units of the 6-decimal USDC, but 4 * 10^11 of the 18-decimal one: sizes at the cap are sent there.
    expect(sized('{ kind: lognormal, medianTokens: 5, sigma: 1, maxTokens: "0.0000004" }')).toEqual([zero("maxTokens", "0.0000004", "the cap", 31001, 6)])
    expect(sized("{ kind: lognormal, medianTokens: 0, sigma: 1 }")).toEqual([
      zero("medianTokens", "0", "the median (every size drawn is 0)", 31001, 6),
      zero("medianTokens", "0", "the median (every size drawn is 0)", 31002, 18),
    ])
    expect(sized("{ kind: lognormal, medianTokens: 0.0000001, sigma: 1 }")).toEqual([])
  })
})

describe("a solver fee that beats no protocol fee", () => {
  it("is told at its feeDbps (the solver would fill nothing: unprofitable), and the scenario still loads", () => {
    const solver = (fee: number, protocolFee = "") =>
      parseScenario(
        valid.replace("  - symbol: USDC\n", `  - symbol: USDC\n${protocolFee}`).replace("properties:", `  solvers: [{ name: op, count: 1, feeDbps: ${fee}, inventory: [] }]\nproperties:`),
        "w.yaml",
      ).warnings.map((w) => [w.path, w.message])
    const told = (fee: number, lowest: number) => [
      [
        "agents.solvers[0].feeDbps",
        `${fee} does not exceed the protocol fee of any asset (USDC ${lowest} dbps): the hub repays a fill less that fee, so this solver fills nothing (every fast intent counted as unprofitable); expected above ${lowest}`,
      ],
    ]
    expect(solver(0)).toEqual(told(0, 2))
    expect(solver(2)).toEqual(told(2, 2))
    expect(solver(3)).toEqual([])
    expect(solver(10, "    protocolFeeDbps: 10\n")).toEqual(told(10, 10))
    expect(solver(0, "    protocolFeeDbps: 0\n")).toEqual(told(0, 0))
    expect(solver(1, "    protocolFeeDbps: 0\n")).toEqual([])
  })
})

describe("amounts that do not cover the asset's fixedFeeTokens", () => {
  it("are told for a fixed size and an initial liquidity seed (refused as InvalidAmount), and the scenario still loads", () => {
    // USDC has 6 decimals on 31001 and 18 on 31002.
    const withFee = (fee: string, size: string, seeds: string) =>
      parseScenario(
        `${valid.replace("  - symbol: USDC\n", `  - symbol: USDC\n    fixedFeeTokens: ${fee}\n`).replace("size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }", `size: { kind: fixed, tokens: ${size} }`)}initialLiquidity: [${seeds}]\n`,
        "w.yaml",
      ).warnings.map((w) => [w.path, w.message])
    expect(withFee("100", "100", '{ chain: 31001, asset: USDC, tokens: 100 }, { chain: 31002, asset: USDC, tokens: "100.000001" }')).toEqual([
      ["agents.rebalancers[0].size.tokens", "100 does not exceed the fixedFeeTokens 100 of USDC (the API's quote fee) on chain 31001: every intent from there would leave nothing once the fee is taken, refused as InvalidAmount"],
      ["agents.rebalancers[0].size.tokens", "100 does not exceed the fixedFeeTokens 100 of USDC (the API's quote fee) on chain 31002: every intent from there would leave nothing once the fee is taken, refused as InvalidAmount"],
      ["initialLiquidity[0].tokens", "100 does not exceed the fixedFeeTokens 100 of USDC (the API's quote fee) on chain 31001: the seed would leave nothing once the fee is taken, refused as InvalidAmount"],
    ])
    // Above the fee in units: 100.0000001 is 100,000,000 units of the 6-decimal USDC (refused there), more on the 18-decimal one.
    expect(withFee("100", '"100.0000001"', '{ chain: 31002, asset: USDC, tokens: "100.0000001" }').map(([path]) => path)).toEqual(["agents.rebalancers[0].size.tokens"])
    expect(withFee('"99.99"', "100", "{ chain: 31001, asset: USDC, tokens: 100 }")).toEqual([])
  })
})

describe("netting ratio properties of xERC20 assets", () => {
  it("are told when they can have no value (an asset that is an xERC20 on every chain, a run of such assets only), and the scenario still loads", () => {
    const xerc20 = (strategy2: string, withUsdt: boolean) =>
      valid
        .replace("{ chain: 31001, decimals: 6 }", "{ chain: 31001, decimals: 6, strategy: xerc20 }")
        .replace("{ chain: 31002, decimals: 18 }", `{ chain: 31002, decimals: 18, strategy: ${strategy2} }`)
        .replace("agents:\n", withUsdt ? "  - symbol: USDT\n    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]\nagents:\n" : "agents:\n")
        .replace("  - nettingRatio >= 0.5\n", "  - nettingRatio >= 0.5\n  - asset.USDC.nettingRatio >= 0.5\n  - netting.ratio > 0\n  - asset.USDC.settledShare > 0\n")
    const told = (text: string) => parseScenario(text, "w.yaml").warnings.filter((w) => w.path.startsWith("properties")).map((w) => [w.path, w.message])
    const none = 'is an xERC20 on every chain, burnt and minted, never held in custody, so it has no netting ratio; the property fails with "no samples"'
    const overall = 'has no value: every asset is an xERC20 on every chain, burnt and minted, never held in custody, so the run has no netting ratio; the property fails with "no samples"'
    expect(told(xerc20("xerc20", false))).toEqual([
      ["properties[0]", `nettingRatio ${overall}`],
      ["properties[1]", `asset.USDC.nettingRatio has no value: USDC ${none}`],
      ["properties[2]", `netting.ratio ${overall}`],
    ])
    // With a default-strategy asset beside it, the overall ratio has a value.
    expect(told(xerc20("xerc20", true))).toEqual([["properties[1]", `asset.USDC.nettingRatio has no value: USDC ${none}`]])
    // An xERC20 on one chain only is held in custody on the other.
    expect(told(xerc20("default", false))).toEqual([])
  })
})

describe("path latency properties without a sender", () => {
  /** `valid` (USDC on both chains, its users sending basic intents only) with these paths and properties. */
  const withPaths = (paths: string | undefined, properties: readonly string[]) =>
    valid
      .replace("size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }", `size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }${paths === undefined ? "" : `\n      paths: ${paths}`}`)
      .replace("  - nettingRatio >= 0.5\n  - { coverage: invoiceCreated }\n", properties.map((p) => `  - ${p}\n`).join(""))
  const told = (text: string) => parseScenario(text, "w.yaml").warnings.filter((w) => w.path.startsWith("properties")).map((w) => [w.path, w.message])
  const latencies = ["latency.fast.p99 <= 600", "latency.settlement.swap.max <= 7200", "latency.xerc20.p50 <= 600", "latency.basic.p90 <= 7200", "latency.p99 <= 7200"]
  const tail = `and a path's latencies are of rebalancers' intents only; the property fails with "no samples"`

  it("are told at the property when no rebalancer sends on the path (a weight of 0 or left out), and the scenario still loads", () => {
    const fast = `latency.fast.p99 has no value: no rebalancer sends fast-path intents (none has a fast weight in paths and a flow from a chain where its asset is not an xERC20, nor a swap weight and such a flow to a chain without another asset to swap into, which sends the swap as a fast intent), ${tail}`
    const swap = `latency.settlement.swap.max has no value: no rebalancer sends swaps (none has a swap weight in paths and a flow from a chain where its asset is not an xERC20 to a chain with another asset to swap into), ${tail}`
    const xerc20 = `latency.xerc20.p50 has no value: no rebalancer sends xERC20 intents (none has a flow from a chain where its asset is an xERC20), ${tail}`
    expect(told(withPaths(undefined, latencies))).toEqual([
      ["properties[0]", fast],
      ["properties[1]", swap],
      ["properties[2]", xerc20],
    ])
    expect(told(withPaths("{ basic: 1, fast: 0 }", latencies)).map(([path]) => path)).toEqual(["properties[0]", "properties[1]", "properties[2]"])
    // Fast intents refused a fast path fall back to basic: a fast weight alone sends on both.
    expect(told(withPaths("{ fast: 1 }", latencies)).map(([path]) => path)).toEqual(["properties[1]", "properties[2]"])
    // Swaps with no second asset on the destination are sent as fast intents (the loader refuses swaps no flow can make).
    // (USDT on 31002 only: the flow to 31002 swaps, the one to 31001 sends a fast intent, which may fall back to basic.)
    const withUsdt = (text: string) => text.replace("agents:\n", "  - symbol: USDT\n    chains: [{ chain: 31002, decimals: 6 }]\nagents:\n")
    expect(told(withUsdt(withPaths("{ swap: 1 }", latencies))).map(([path]) => path)).toEqual(["properties[2]"])
    expect(told(withUsdt(withPaths("{ swap: 1 }", latencies)).replace("{ from: 31002, to: 31001 }", "{ from: 31002, to: 31001, weight: 0 }")).map(([path]) => path)).toEqual([
      "properties[0]",
      "properties[2]",
      "properties[3]",
    ])
    // USDC an xERC20 on 31001: its flow from there takes the xERC20 route; a flow of weight 0 sends nothing.
    const xerc20From31001 = withPaths(undefined, latencies).replace("      - { chain: 31001, decimals: 6 }", "      - { chain: 31001, decimals: 6, strategy: xerc20 }")
    expect(told(xerc20From31001).map(([path]) => path)).toEqual(["properties[0]", "properties[1]"])
    expect(told(xerc20From31001.replace("{ from: 31001, to: 31002 }", "{ from: 31001, to: 31002, weight: 0 }")).map(([path]) => path)).toEqual(["properties[0]", "properties[1]", "properties[2]"])
  })

  it("fail the run with no samples, as told", async () => {
    const { runScenario } = await import("../run.ts")
    const loaded = parseScenario(withPaths(undefined, ["latency.fast.p99 <= 600", "latency.basic.max <= 7200"]).replace("horizon: { hours: 2 }", "horizon: { hours: 1 }"), "w.yaml")
    const { report } = await runScenario(loaded, { seed: 7, backend: "memory" })
    expect(report.intents.created).toBeGreaterThan(10)
    const [fast, basic] = report.properties
    expect([fast?.pass, fast?.reason]).toEqual([false, "no samples: the run produced no value for latency.fast.p99"])
    // The path its users send on has its latencies.
    expect(basic?.value).toBeGreaterThan(0)
  })
})

describe("xERC20 settings a run cannot use", () => {
  /** `valid` with USDC an xERC20 on 31001 (these fields added) and on 31002 too when `both`. */
  const xerc20 = (fields: string, both = false) =>
    valid
      .replace("      - { chain: 31001, decimals: 6 }", `      - { chain: 31001, decimals: 6, strategy: xerc20${fields} }`)
      .replace("      - { chain: 31002, decimals: 18 }", both ? "      - { chain: 31002, decimals: 18, strategy: xerc20 }" : "      - { chain: 31002, decimals: 18 }")
  const told = (text: string) => parseScenario(text, "w.yaml").warnings.map((w) => [w.path, w.message])
  const reverts = "every intent from there would revert (XERC20Module_HandleBurnStrategy_InsufficientBurningLimit)"

  it("tell a burnLimit that holds no intent's burn on a chain users send from: 0 units, or below a fixed size less its fees", () => {
    expect(told(xerc20(", burnLimit: 0"))).toEqual([
      ["assets[0].chains[0].burnLimit", `0 is 0 units of USDC on chain 31001 (6 decimals): nothing can be burnt there, where users sends USDC from, so ${reverts}; expected a limit above 0, or no flow from chain 31001`],
    ])
    expect(told(xerc20(', burnLimit: "0.0000004"')).map(([path]) => path)).toEqual(["assets[0].chains[0].burnLimit"])
    // No flow of weight from there: nothing to burn.
    expect(told(xerc20(", burnLimit: 0").replace("{ from: 31001, to: 31002 }", "{ from: 31001, to: 31002, weight: 0 }"))).toEqual([])
    // A fixed size of 100: a limit of 99 holds none (100 less at most 10 bps of fees is 99.9); 99.95, it may.
    const fixed = (limit: string) => told(xerc20(`, burnLimit: ${limit}`).replace("size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }", "size: { kind: fixed, tokens: 100 }"))
    expect(fixed("99")).toEqual([
      [
        "assets[0].chains[0].burnLimit",
        `99 tokens of USDC on chain 31001 is less than each intent of users from there burns (its fixed size, 100 tokens, less the quote's fees): the limit, replenished up to itself, never holds one, so ${reverts}; expected a limit of at least 100`,
      ],
    ])
    expect(fixed("99.95")).toEqual([])
    expect(fixed("100")).toEqual([])
  })

  it("burn nothing in a run, as told: every intent from the chain reverts", async () => {
    const { runScenario } = await import("../run.ts")
    const text = xerc20(", burnLimit: 0").replace("horizon: { hours: 2 }", "horizon: { hours: 1 }").replace("{ from: 31002, to: 31001 }", "{ from: 31001, to: 31002 }")
    const { report } = await runScenario(parseScenario(text, "w.yaml"), { seed: 7, backend: "memory" })
    const users = report.agents.find((a) => a.population === "users")!
    expect([report.intents.created, Object.keys(users.rejections)]).toEqual([0, ["XERC20Module_HandleBurnStrategy_InsufficientBurningLimit"]])
  })

  it("tell a solver's inventory or an arbitrageur's capital of an asset that is an xERC20 on every chain (no fast path, no invoice: never used); not where a default-strategy chain sends fast intents to it", async () => {
    const solver = `  solvers:\n    - { name: op, count: 1, feeDbps: 20, inventory: [{ chain: 31002, asset: USDC, tokens: 10000 }] }\nproperties:`
    const withSolver = (text: string) => text.replace("properties:", solver)
    expect(told(withSolver(xerc20("", true)).replace("  - nettingRatio >= 0.5\n", ""))).toEqual([
      [
        "agents.solvers[0].inventory[0]",
        "USDC is an xERC20 on every chain: its intents are burnt and minted, never on the fast path, so no intent is filled from this inventory (deposited on chain 31002, it stays idle); expected an asset with a default-strategy chain that sends fast intents",
      ],
    ])
    // An arbitrageur's capital of it: no invoice to buy.
    const arbitrageur = `  arbitrageurs:\n    - { name: mm, count: 1, capital: [{ chain: 31001, asset: USDC, tokens: 10000 }] }\nproperties:`
    expect(told(xerc20("", true).replace("properties:", arbitrageur).replace("  - nettingRatio >= 0.5\n", ""))).toEqual([
      [
        "agents.arbitrageurs[0].capital[0]",
        "USDC is an xERC20 on every chain: its intents are burnt and minted, never invoiced, so there is no invoice of it to buy and this capital on chain 31001 is never spent; expected an asset with a default-strategy chain",
      ],
    ])
    expect(told(valid.replace("properties:", arbitrageur))).toEqual([])
    // USDC an xERC20 on 31002 only: fast intents from 31001 to it are filled from the inventory there.
    const mixed = withSolver(valid.replace("      - { chain: 31002, decimals: 18 }", "      - { chain: 31002, decimals: 18, strategy: xerc20 }"))
      .replace("size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }", "size: { kind: fixed, tokens: 100 }\n      paths: { fast: 1 }")
      .replace("{ from: 31002, to: 31001 }", "{ from: 31001, to: 31002 }")
      .replace("horizon: { hours: 2 }", "horizon: { hours: 1 }")
    expect(told(mixed)).toEqual([])
    const { runScenario } = await import("../run.ts")
    const { report } = await runScenario(parseScenario(mixed, "w.yaml"), { seed: 7, backend: "memory" })
    expect(report.agents.find((a) => a.population === "op")?.actions["fill"]).toBeGreaterThan(10)
  })
})

describe("a domain gas limit below one settlement", () => {
  it("is told at hub.domainGasLimit (every settlement batch would revert), and the scenario still loads", () => {
    const limited = (limit: number) => parseScenario(`hub: { domainGasLimit: ${limit} }\n${valid}`, "w.yaml").warnings.map((w) => [w.path, w.message, w.line])
    // (40,000 + 50,000) gas, plus the 10 % buffer: 99,000 for one settlement.
    expect(limited(98_999)).toEqual([
      [
        "hub.domainGasLimit",
        "98999 is below the 99000 gas a settlement batch of one needs: every processSettlementQueue reverts (Settler_DomainBlockGasLimitReached), so the hub settles nothing on the spokes; expected at least 99000",
        1,
      ],
    ])
    expect(limited(99_000)).toEqual([])
  })
})

describe("initial liquidity below one unit", () => {
  it("is told at its tokens (the seed would be 0 units, which the service refuses), and the scenario still loads", () => {
    // USDC has 6 decimals on 31001 and 18 on 31002; a seed's tokens are truncated to units.
    const seeds = (entries: string) => parseScenario(`${valid}initialLiquidity: [${entries}]\n`, "w.yaml").warnings.map((w) => [w.path, w.message, w.line])
    expect(seeds('{ chain: 31001, asset: USDC, tokens: 0 }, { chain: 31001, asset: USDC, tokens: "0.0000009" }, { chain: 31002, asset: USDC, tokens: "0.0000009" }')).toEqual([
      ["initialLiquidity[0].tokens", "0 is below one unit of USDC on chain 31001 (6 decimals): the seed would be 0 units, refused as InvalidAmount (expected at least 0.000001)", 24],
      ["initialLiquidity[1].tokens", "0.0000009 is below one unit of USDC on chain 31001 (6 decimals): the seed would be 0 units, refused as InvalidAmount (expected at least 0.000001)", 24],
    ])
    expect(seeds('{ chain: 31001, asset: USDC, tokens: "0.000001" }, { chain: 31002, asset: USDC, tokens: 1 }')).toEqual([])
  })
})

describe("names that are keys of report.json objects", () => {
  it("are not digits only (JSON lists such keys first, out of the scenario's order)", () => {
    expect(problemsOf(valid.replace("name: users", "name: \"123\""))).toMatchObject([
      { path: "agents.rebalancers[0].name", message: 'Expected a name (1-40 letters, digits, . _ -, not only dots, not only digits), got "123"' },
    ])
    expect(problemsOf(valid.replaceAll("USDC", "\"777\""))[0]).toMatchObject({ path: "assets[0].symbol", message: 'Expected a token symbol (1-16 letters, digits, . _ -, not only digits), got "777"' })
    expect(parseScenario(valid.replace("name: users", "name: users2"), "s.yaml").spec.agents.rebalancers?.[0]?.name).toBe("users2")
  })
})

describe("cross-field checks, each at its place", () => {
  const noProperties = (text: string) => text.replace("properties:\n  - nettingRatio >= 0.5\n  - { coverage: invoiceCreated }\n", "")
  const withUsdt = (text: string, usdt = "{ chain: 31002, decimals: 6 }") => text.replace("agents:\n", `  - symbol: USDT\n    chains: [${usdt}]\nagents:\n`)
  const pathsAndMessages = (text: string) => problemsOf(text).map((p) => [p.path, p.message])

  it("reports a chain, an asset's chain, a keeper chain and a population name listed twice", () => {
    expect(pathsAndMessages(valid.replace("  - { id: 31002 }\n", "  - { id: 31002 }\n  - { id: 31002 }\n"))).toEqual([["chains[2].id", "chain 31002 is listed twice"]])
    expect(pathsAndMessages(valid.replace("      - { chain: 31002, decimals: 18 }\n", "      - { chain: 31002, decimals: 18 }\n      - { chain: 31002, decimals: 6 }\n"))).toEqual([
      ["assets[0].chains[2].chain", "chain 31002 is listed twice for USDC"],
    ])
    expect(pathsAndMessages(`${noProperties(valid)}  solvers:\n    - { name: users, count: 1, feeDbps: 20, inventory: [] }\n`)).toEqual([
      ["agents.solvers[0].name", "agent population name users is used twice"],
    ])
    const keepers = "keepers: { chains: [{ chain: 31003, fillQueue: { maxSize: 2 } }, { chain: 31001, fillQueue: { maxSize: 2 } }, { chain: 31001, intentQueue: { maxSize: 3 } }] }\n"
    expect(pathsAndMessages(`${valid}${keepers}`)).toEqual([
      ["keepers.chains[0].chain", "chain 31003 is not in chains"],
      ["keepers.chains[2].chain", "chain 31001 is listed twice in keepers.chains"],
    ])
  })

  it("reports a flow to its own origin, and a solver's, arbitrageur's or seed's chain or asset the scenario lacks", () => {
    expect(pathsAndMessages(valid.replace("{ from: 31002, to: 31001 }", "{ from: 31002, to: 31002 }"))).toEqual([["agents.rebalancers[0].flows[1]", "from and to must differ"]])
    const agents = `${noProperties(valid)}  solvers:
    - { name: op, count: 1, feeDbps: 20, inventory: [], repaymentChains: [31001, 31003] }
  arbitrageurs:
    - { name: arb, count: 1, capital: [{ chain: 31001, asset: DAI, tokens: 5 }] }
initialLiquidity: [{ chain: 31003, asset: USDC, tokens: 1 }]
`
    expect(pathsAndMessages(agents)).toEqual([
      ["agents.solvers[0].repaymentChains[1]", "chain 31003 is not in chains"],
      ["agents.arbitrageurs[0].capital[0]", "asset DAI is not in assets"],
      ["initialLiquidity[0]", "chain 31003 is not in chains"],
    ])
  })

  it("takes xERC20 limits of an xerc20 chain only, up to type(uint256).max / 2 units inclusive, both of them", () => {
    expect(pathsAndMessages(valid.replace("      - { chain: 31002, decimals: 18 }", "      - { chain: 31002, decimals: 18, burnLimit: 5 }"))).toEqual([
      ["assets[0].chains[1]", "mintLimit/burnLimit apply only to strategy xerc20"],
    ])
    // At 0 decimals a token is a unit: the mint limit is exactly the maximum (taken), the burn limit one above it.
    const max = (2n ** 256n - 1n) / 2n
    const limits = valid.replace("      - { chain: 31002, decimals: 18 }", `      - { chain: 31002, decimals: 0, strategy: xerc20, mintLimit: "${max}", burnLimit: "${max + 1n}" }`)
    expect(pathsAndMessages(limits)).toEqual([
      ["assets[0].chains[1].burnLimit", `${max + 1n} tokens at 0 decimals is above the xERC20 maximum, type(uint256).max / 2 token units (XERC20Token.setLimits refuses it)`],
    ])
  })

  it("takes a discount per epoch up to the cap, with the defaults 3 and 12 dbps", () => {
    const asset = (fields: string) => valid.replace("  - symbol: USDC\n", `  - symbol: USDC\n${fields}`)
    expect(() => parseScenario(asset("    discountPerEpochDbps: 12\n"), "s.yaml")).not.toThrow()
    expect(pathsAndMessages(asset("    discountPerEpochDbps: 13\n"))).toEqual([["assets[0].discountPerEpochDbps", "must not exceed maxDiscountDbps"]])
    expect(pathsAndMessages(asset("    maxDiscountDbps: 2\n"))).toEqual([["assets[0].discountPerEpochDbps", "must not exceed maxDiscountDbps"]])
  })

  it("adds a second listing's chains to the first's (the listing is the one mistake)", () => {
    const split = valid.replace("      - { chain: 31002, decimals: 18 }\n", "  - symbol: USDC\n    chains: [{ chain: 31002, decimals: 18 }]\n")
    expect(pathsAndMessages(split)).toEqual([["assets[1].symbol", "asset USDC is listed twice"]])
  })

  it("sums funded amounts per chain and asset, reports each once, and checks arbitrageurs' capital", () => {
    const seeds = (entries: string) => `${valid}initialLiquidity: [${entries}]\n`
    // 1 token at 18 decimals and 10^12 at 6 are both 10^18 units, on different chains: each within its funding.
    expect(() => parseScenario(seeds("{ chain: 31002, asset: USDC, tokens: 1 }, { chain: 31001, asset: USDC, tokens: 1000000000000 }"), "s.yaml")).not.toThrow()
    const past = seeds("{ chain: 31001, asset: USDC, tokens: 1000000000000 }, { chain: 31001, asset: USDC, tokens: 1 }, { chain: 31001, asset: USDC, tokens: 1 }")
    expect(problemsOf(past).map((p) => p.path)).toEqual(["initialLiquidity[1].tokens"])
    const capital = `${noProperties(valid)}  arbitrageurs:\n    - { name: arb, count: 1, capital: [{ chain: 31001, asset: USDC, tokens: "1000000000000.000001" }] }\n`
    expect(pathsAndMessages(capital)).toEqual([
      ["agents.arbitrageurs[0].capital[0].tokens", "the capital of USDC on chain 31001 exceeds the 1000000000000 whole tokens an account is funded with"],
    ])
  })

  it("refuses an unknown metric, and a coverage predicate named like an Object method", () => {
    const problems = problemsOf(valid.replace("nettingRatio >= 0.5", "nettingRatioo >= 0.5").replace("{ coverage: invoiceCreated }", "{ coverage: toString }"))
    expect(problems.map((p) => p.path)).toEqual(["properties[0]", "properties[1].coverage"])
    expect(problems[0]!.message).toMatch(/^unknown metric "nettingRatioo" \(known: /)
    expect(problems[1]!.message).toMatch(/^unknown coverage predicate "toString" \(known: /)
  })

  it("weighs paths and flows: swap alone is a path, a flow of weight 0 sends nothing, a swap needs a default-strategy asset", () => {
    const paths = (text: string, mix: string) => text.replace("size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }", `size: { kind: lognormal, medianTokens: 1000, sigma: 0.5 }\n      paths: ${mix}`)
    expect(() => parseScenario(paths(withUsdt(valid), "{ swap: 1 }"), "s.yaml")).not.toThrow()
    expect(problemsOf(paths(withUsdt(valid, "{ chain: 31002, decimals: 6, strategy: xerc20 }"), "{ basic: 1, swap: 1 }")).map((p) => p.path)).toEqual(["agents.rebalancers[0].paths.swap"])
    // USDC an xERC20 on 31001: a fast weight with every sending flow from there is refused; a flow of weight 0 from 31002 does not count.
    const xerc20 = valid.replace("      - { chain: 31001, decimals: 6 }", "      - { chain: 31001, decimals: 6, strategy: xerc20 }")
    const fromXerc20 = "every flow starts where USDC is an xERC20, whose intents take the basic path only (expected no fast or swap weight)"
    for (const flows of ["[{ from: 31001, to: 31002 }]", "[{ from: 31001, to: 31002 }, { from: 31002, to: 31001, weight: 0 }]"]) {
      expect(pathsAndMessages(paths(xerc20.replace("flows: [{ from: 31001, to: 31002 }, { from: 31002, to: 31001 }]", `flows: ${flows}`), "{ fast: 1 }")), flows).toEqual([["agents.rebalancers[0].paths", fromXerc20]])
    }
    // No flow with weight: that one problem, not also one about the paths of no flow.
    expect(pathsAndMessages(paths(xerc20.replace("flows: [{ from: 31001, to: 31002 }, { from: 31002, to: 31001 }]", "flows: [{ from: 31001, to: 31002, weight: 0 }]"), "{ fast: 1 }"))).toEqual([
      ["agents.rebalancers[0].flows", "at least one flow needs a positive weight"],
    ])
  })

  it("refuses initial liquidity of an asset on one chain only", () => {
    expect(pathsAndMessages(`${withUsdt(valid)}initialLiquidity: [{ chain: 31002, asset: USDT, tokens: 1 }]\n`)).toEqual([
      ["initialLiquidity[0].asset", "asset USDT is on one chain only: initial liquidity is sent to another chain"],
    ])
  })

  it("refuses an empty outage, names an unknown domain once, and compares pauses with the hub's halts only", () => {
    const outages = (lines: string) => `${valid}transport:\n  latency: { kind: fixed, seconds: 30 }\n  faults:\n    outages:\n${lines}`
    expect(pathsAndMessages(outages("      - { domain: 31002, kind: partition, fromSeconds: 60, toSeconds: 60 }\n"))).toEqual([
      ["transport.faults.outages[0].toSeconds", "outage of 31002 ends before it starts (expected toSeconds > fromSeconds 60)"],
    ])
    expect(problemsOf(outages("      - { domain: 31020, kind: pause, fromSeconds: 60, toSeconds: 120 }\n")).map((p) => p.path)).toEqual(["transport.faults.outages[0].domain"])
    expect(() => parseScenario(outages("      - { domain: 31002, kind: halt, fromSeconds: 100, toSeconds: 200 }\n      - { domain: 25327, kind: pause, fromSeconds: 150, toSeconds: 300 }\n"), "s.yaml")).not.toThrow()
    expect(problemsOf(outages("      - { domain: 25327, kind: halt, fromSeconds: 100, toSeconds: 200 }\n      - { domain: 31002, kind: pause, fromSeconds: 150, toSeconds: 300 }\n")).map((p) => p.message)).toEqual([
      "a pause applies to the hub only: domain 31002 is a chain (expected the hub domain 25327, or kind partition or halt)",
    ])
  })

  it("tells no warning for a redelivery delay with a hub pause, or a chain with only a settlement queue", () => {
    const text = `${valid}transport:
  latency: { kind: fixed, seconds: 30 }
  faults:
    redeliveryDelaySeconds: 120
    outages: [{ domain: 25327, kind: pause, fromSeconds: 60, toSeconds: 120 }]
keepers: { chains: [{ chain: 31001, settlementQueue: { maxSize: 2 } }] }
`
    expect(parseScenario(text, "s.yaml").warnings).toEqual([])
  })

  it("names unreadable files: missing, UTF-16 big-endian, a NUL first; and a document that is a list", () => {
    const dir = mkdtempSync(join(tmpdir(), "clearsim-load-"))
    try {
      const missing = join(dir, "missing.yaml")
      expect(() => loadScenario(missing)).toThrow(`${missing}: cannot read the scenario file: it does not exist (ENOENT)`)
      const utf16be = join(dir, "be.yaml")
      writeFileSync(utf16be, Buffer.from([0xfe, 0xff, 0x00, 0x6e]))
      expect(() => loadScenario(utf16be)).toThrow(`${utf16be}: cannot read the scenario file: UTF-16 text; expected a YAML scenario in UTF-8 (save it as UTF-8)`)
      const nul = join(dir, "nul.yaml")
      writeFileSync(nul, Buffer.from([0x00, 0x61]))
      expect(() => loadScenario(nul)).toThrow(`${nul}: cannot read the scenario file: not a text file (a NUL byte at offset 0); expected a YAML scenario`)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
    expect(problemsOf("- a\n")).toEqual([{ path: "", line: 1, column: 1, message: 'Expected an object { name, horizon, chains, assets, agents, ... }, got ["a"]' }])
  })

  it("refuses a file past MAX_SCENARIO_BYTES, or a device that never ends, without reading it all; reads a pipe", () => {
    const dir = mkdtempSync(join(tmpdir(), "clearsim-load-"))
    try {
      // Sparse: its size is told before a byte is read. (Was: read whole, as /dev/zero was, until memory ran out.)
      const large = join(dir, "large.yaml")
      writeFileSync(large, "")
      truncateSync(large, MAX_SCENARIO_BYTES + 1)
      expect(() => loadScenario(large)).toThrow(`${large}: cannot read the scenario file: more than 64 MiB; expected a YAML scenario (a few kilobytes)`)
      const atMost = join(dir, "at-most.yaml")
      writeFileSync(atMost, "")
      truncateSync(atMost, MAX_SCENARIO_BYTES)
      expect(() => loadScenario(atMost)).toThrow("not a text file (a NUL byte at offset 0)")
      if (process.platform === "linux") expect(() => loadScenario("/dev/zero")).toThrow("/dev/zero: cannot read the scenario file: more than 64 MiB")
      // A pipe's bytes are read as they come. (A shell pipe: spawnSync's `input` is a socket, which /dev/stdin cannot be opened on.)
      const file = join(dir, "valid.yaml")
      writeFileSync(file, valid)
      const script = `import("${join(import.meta.dirname, "load.ts")}").then((m) => console.log(m.loadScenario("/dev/stdin").spec.name))`
      const piped = spawnSync("sh", ["-c", `cat '${file}' | '${process.execPath}' -e '${script}'`], { encoding: "utf8" })
      expect(piped.stdout.trim(), piped.stderr).toBe("two-chain")
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("blames hub.domain when it is set to a spoke's id, and takes a spoke on the default domain when the hub has moved", () => {
    expect(pathsAndMessages(`hub: { domain: 31002 }\n${valid}`)).toEqual([["hub.domain", "the hub domain 31002 must differ from every spoke chain id"]])
    expect(() => parseScenario(`hub: { domain: 31005 }\n${valid.replaceAll("31001", "25327")}`, "s.yaml")).not.toThrow()
  })

  it("hashes the file's bytes as they are, leading and trailing newlines included", () => {
    expect(valid.startsWith("\n") && valid.endsWith("\n")).toBe(true)
    expect(parseScenario(valid, "s.yaml").scenarioHash).toBe(keccak256Bytes(new TextEncoder().encode(valid)))
    expect(parseScenario(`${valid}\n`, "s.yaml").scenarioHash).not.toBe(parseScenario(valid, "s.yaml").scenarioHash)
  })

  it("lists a population's metrics for a population.* metric even in a scenario without populations", () => {
    const text = valid.replace(/agents:\n[\s\S]*properties:/u, "agents: {}\nproperties:").replace("nettingRatio >= 0.5", "population.users.latency.p99 <= 600")
    const [problem] = problemsOf(text)
    expect(problem?.path).toBe("properties[0]")
    expect(problem?.message).toContain("; a population's metrics: ")
    expect(problem?.message).toContain(" for the populations (none); an asset's: ")
  })

  it("takes the schema's bounds inclusive: 100000 dbps, chain id 2^32 - 1, 36 decimals", () => {
    expect(() => parseScenario(valid.replace("  - symbol: USDC\n", "  - symbol: USDC\n    maxDiscountDbps: 100000\n"), "s.yaml")).not.toThrow()
    expect(pathsAndMessages(valid.replace("  - symbol: USDC\n", "  - symbol: USDC\n    maxDiscountDbps: 100001\n"))).toEqual([["assets[0].maxDiscountDbps", "Expected an integer of dbps between 0 and 100000, got 100001"]])
    expect(() => parseScenario(valid.replaceAll("31002", "4294967295"), "s.yaml")).not.toThrow()
    expect(() => parseScenario(valid.replace("decimals: 18", "decimals: 36"), "s.yaml")).not.toThrow()
    expect(pathsAndMessages(valid.replace("decimals: 18", "decimals: 37"))).toEqual([["assets[0].chains[1].decimals", "Expected token decimals between 0 and 36, got 37"]])
  })

  it("keeps a YAML message of 200 characters whole and cuts one of 201", () => {
    // The parser's message is `Unexpected scalar token in YAML stream: "<token>"`, 42 characters and the token's.
    const message = (length: number) => problemsOf(`name: x\n]${"q".repeat(length - 42)}\n`)[1]!.message
    expect(message(200)).toBe(`YAML: Unexpected scalar token in YAML stream: "${"q".repeat(158)}"`)
    expect(message(201)).toBe(`YAML: Unexpected scalar token in YAML stream: "${"q".repeat(159)}…`)
  })
})
