import { describe, expect, it } from "vitest"
import { evaluateProperties, parseComparison } from "./properties.ts"

describe("scenario properties", () => {
  it("parses comparisons", () => {
    expect(parseComparison(" latency.p99 <= 3600 ")).toEqual({ metric: "latency.p99", op: "<=", threshold: 3600 })
    expect(() => parseComparison("nettingRatio ~ 3")).toThrow(/expected/)
    expect(() => parseComparison("nettingRatio >= 1.2.3")).toThrow(/expected/)
    expect(() => parseComparison("nettingRatio >= .")).toThrow(/expected/)
  })

  it("evaluates final values, names the first failing epoch, and checks coverage", () => {
    const metrics = new Map([
      ["nettingRatio", 0.42],
      ["latency.p99", 1200],
    ])
    const epochs = [
      { epoch: 10, metrics: new Map([["nettingRatio", 0.6]]) },
      { epoch: 11, metrics: new Map([["nettingRatio", 0.45]]) },
      { epoch: 12, metrics: new Map([["nettingRatio", 0.42]]) },
    ]
    const results = evaluateProperties(
      ["nettingRatio >= 0.5", "latency.p99 <= 3600", "bogus > 1", { coverage: "invoiceCreated" }, { coverage: "maxDiscountReached" }, { coverage: "nope" }],
      metrics,
      epochs,
      new Set(["invoiceCreated"]),
    )
    expect(results[0]).toEqual({ name: "nettingRatio >= 0.5", pass: false, value: 0.42, firstFailingEpoch: 11 })
    expect(results[1]).toEqual({ name: "latency.p99 <= 3600", pass: true, value: 1200 })
    expect(results[2]).toMatchObject({ pass: false, reason: expect.stringMatching(/^unknown metric bogus/) })
    expect(results[3]).toEqual({ name: "coverage: invoiceCreated", pass: true })
    expect(results[4]).toMatchObject({ pass: false, reason: "never happened: some invoice reached its maximum discount" })
    expect(results[5]).toMatchObject({ pass: false, reason: expect.stringMatching(/^unknown coverage predicate/) })
    const noSamples = evaluateProperties(["latency.fast.p90 <= 120"], metrics, epochs, new Set(), ["latency.fast.p90"])
    expect(noSamples[0]).toMatchObject({ pass: false, reason: "no samples: the run produced no value for latency.fast.p90" })
  })
})
