/**
 * A scenario's transport section: its latency may be left out (a section that gives only faults) and is then the
 * latency a scenario without the section has.
 */
import { describe, expect, it } from "vitest"
import { runScenario } from "../run.ts"
import { scenarioJsonSchema } from "./jsonSchema.ts"
import { DEFAULT_TRANSPORT_LATENCY } from "./schema.ts"
import { twoChainUsdc } from "./testing.ts"

const users = `agents:
  rebalancers:
    - { name: users, count: 4, asset: USDC, arrival: { kind: poisson, perHour: 120 }, flows: [{ from: 31001, to: 31002 }, { from: 31002, to: 31001 }], size: { kind: fixed, tokens: 100 } }`

describe("a transport section without latency", () => {
  it("loads, with the default latency (lognormal, median 60 s, sigma 0.4, at most 600 s) and its faults as given", () => {
    const loaded = twoChainUsdc("faults-only", "{ seconds: 900 }", `transport: { faults: { dropProbability: 0.1 } }\n${users}`)
    expect(loaded.spec.transport).toEqual({ latency: { kind: "lognormal", medianSeconds: 60, sigma: 0.4, maxSeconds: 600 }, faults: { dropProbability: 0.1 } })
    expect(DEFAULT_TRANSPORT_LATENCY).toEqual({ kind: "lognormal", medianSeconds: 60, sigma: 0.4, maxSeconds: 600 })
    expect(loaded.warnings).toEqual([])
    // A latency given is kept.
    const given = twoChainUsdc("latency", "{ seconds: 900 }", `transport: { latency: { kind: fixed, seconds: 5 } }\n${users}`)
    expect(given.spec.transport?.latency).toEqual({ kind: "fixed", seconds: 5 })
  })

  it("runs as a scenario without the section when its faults draw nothing: the same trace hash (the world's default latency)", async () => {
    const hash = async (transport: string) => {
      const loaded = twoChainUsdc("default-latency", "{ seconds: 1800 }", `${transport}${users}`)
      const { report } = await runScenario(loaded, { seed: 3, backend: "memory" })
      expect(report.intents.created).toBeGreaterThan(10)
      return report.traceHash
    }
    expect(await hash("transport: { faults: { duplicateProbability: 0 } }\n")).toBe(await hash(""))
  })

  it("is valid for editors too (the JSON Schema does not require latency)", async () => {
    const { Ajv2020 } = await import("ajv/dist/2020.js")
    const { parse } = await import("yaml")
    const validate = new Ajv2020({ strict: false, allErrors: true }).compile(scenarioJsonSchema())
    const text = `name: faults-only
horizon: { seconds: 900 }
chains: [{ id: 31001 }, { id: 31002 }]
assets: [{ symbol: USDC, chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }] }]
transport: { faults: { dropProbability: 0.1 } }
agents: {}
`
    expect(validate(parse(text)), JSON.stringify(validate.errors)).toBe(true)
  })
})
