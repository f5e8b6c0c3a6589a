import { describe, expect, it } from "vitest"
import { tokensToUnits } from "../../service/domain/protocol.ts"
import { parseScenario, ScenarioError } from "./load.ts"

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

  it("reports a missing field at its parent's line", () => {
    const problems = problemsOf(valid.replace("horizon: { hours: 2 }\n", ""))
    expect(problems[0]).toMatchObject({ path: "horizon", message: "Missing key", line: 2 })
  })

  it("checks references between fields", () => {
    const problems = problemsOf(valid.replace("{ from: 31002, to: 31001 }", "{ from: 31003, to: 31001 }"))
    expect(problems).toEqual([expect.objectContaining({ path: "agents.rebalancers[0].flows[1].from", message: "asset USDC is not configured on chain 31003", line: 19 })])
  })

  it("reports YAML syntax errors with their line", () => {
    const problems = problemsOf("name: x\nchains: [1, 2\n")
    expect(problems[0]!.message).toMatch(/^YAML:/)
    expect(problems[0]!.line).toBeGreaterThan(0)
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
