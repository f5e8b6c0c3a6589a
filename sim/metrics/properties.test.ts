import { describe, expect, it } from "vitest"
import { evaluateProperties, parseComparison } from "./properties.ts"

describe("scenario properties", () => {
  it("parses comparisons", () => {
    expect(parseComparison(" latency.p99 <= 3600 ")).toEqual({ metric: "latency.p99", op: "<=", threshold: 3600 })
    expect(() => parseComparison("nettingRatio ~ 3")).toThrow(/expected/)
    expect(() => parseComparison("nettingRatio >= 1.2.3")).toThrow(/expected/)
    expect(() => parseComparison("nettingRatio >= .")).toThrow(/expected/)
    // Without spaces the two-character operators are still read whole.
    expect(parseComparison("nettingRatio<=0.5")).toEqual({ metric: "nettingRatio", op: "<=", threshold: 0.5 })
    expect(parseComparison("x>=2")).toEqual({ metric: "x", op: ">=", threshold: 2 })
    expect(parseComparison("x!=2")).toEqual({ metric: "x", op: "!=", threshold: 2 })
  })

  it("passes a value equal to the threshold for >=, <= and ==, and fails it for >, < and !=", () => {
    const metrics = new Map([["x", 0.3]])
    const specs = ["x >= 0.3", "x <= 0.3", "x == 0.3", "x > 0.3", "x < 0.3", "x != 0.3", "x != 0.4", "x == 0.30000000000000004"]
    expect(evaluateProperties(specs, metrics, [], new Set()).map((r) => r.pass)).toEqual([true, true, true, false, false, false, true, false])
  })

  it("knows only its own coverage predicates, not an object's inherited names", () => {
    const [result] = evaluateProperties([{ coverage: "toString" }], new Map(), [], new Set(["toString"]))
    expect(result).toMatchObject({ pass: false, reason: expect.stringMatching(/^unknown coverage predicate/) })
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
