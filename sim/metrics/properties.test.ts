import { describe, expect, it } from "vitest"
import { evaluateProperties, parseComparison, shareOf } from "./properties.ts"

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

  it("evaluates final values, names the epoch a failure has lasted since, and checks coverage", () => {
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

  it("names the start of the failing stretch that lasted to the end, not a first epoch that failed and then passed", () => {
    // A cumulative ratio starts at 0: the first epoch fails, the run then passes for a while, and fails from epoch 13 on.
    const share = (values: readonly (number | undefined)[]) =>
      values.map((v, i) => ({ epoch: 10 + i, metrics: new Map(v === undefined ? [] : [["settledShare", v]]) }))
    const run = (values: readonly (number | undefined)[], final: number) => evaluateProperties(["settledShare >= 0.5"], new Map([["settledShare", final]]), share(values), new Set())[0]
    expect(run([0, 0.6, 0.7, 0.45, 0.4], 0.4)).toEqual({ name: "settledShare >= 0.5", pass: false, value: 0.4, firstFailingEpoch: 13 })
    // Epochs without a value neither pass nor end the stretch.
    expect(run([0, 0.6, undefined, 0.45, undefined, 0.4], 0.4)?.firstFailingEpoch).toBe(13)
    expect(run([0, 0.6, 0.45, undefined], 0.45)?.firstFailingEpoch).toBe(12)
    // Never passed: the stretch is the whole run, from the first epoch with a value.
    expect(run([undefined, 0, 0.2, 0.3], 0.3)?.firstFailingEpoch).toBe(11)
    // Failing only in the last epoch: that epoch.
    expect(run([0.6, 0.6, 0.45], 0.45)?.firstFailingEpoch).toBe(12)
    // The last epoch passes (an epoch's own latency can while the run's fails): no stretch reaches the end.
    const latency = evaluateProperties(["latency.p99 <= 600"], new Map([["latency.p99", 700]]), [
      { epoch: 1, metrics: new Map([["latency.p99", 900]]) },
      { epoch: 2, metrics: new Map([["latency.p99", 300]]) },
    ], new Set())[0]
    expect(latency).toEqual({ name: "latency.p99 <= 600", pass: false, value: 700 })
  })

  it("gives a settled share to 6 decimals, truncated in integers like the netting ratio, and judges the value it is given", () => {
    expect(shareOf(497, 508)).toBe(0.978346)
    expect(shareOf(2, 3)).toBe(0.666666)
    // Quotients with 6 decimals or fewer keep them (in floating point, 41 / 80 * 1e6 is 512499.99999999994).
    expect([[41, 80], [41, 320], [29, 100], [7, 7], [0, 7], [699_988, 1_000_000], [1, 1_000_000], [999_999, 1_000_000]].map(([p, w]) => shareOf(p!, w!))).toEqual([
      0.5125, 0.128125, 0.29, 1, 0, 0.699988, 0.000001, 0.999999,
    ])
    // Exact at any count: 1000 of 1,000,000,001 is 0.000000999999999 and 2^53 - 2 of 2^53 - 1 just under 1, which
    // the floating-point quotient (times 1e6, plus 1e-9, floored) gave as 0.000001 and 1.
    expect(shareOf(1000, 1_000_000_001)).toBe(0)
    expect(shareOf(Number.MAX_SAFE_INTEGER - 1, Number.MAX_SAFE_INTEGER)).toBe(0.999999)
    expect(shareOf(0, 0)).toBe(0)
    const [share] = evaluateProperties(["settledShare >= 0.5"], new Map([["settledShare", shareOf(497, 508)]]), [], new Set())
    expect(share).toEqual({ name: "settledShare >= 0.5", pass: true, value: 0.978346 })
    // Truncated once, where a share is made: a property takes the value as given, and 0.4999996 is below one half.
    const [below] = evaluateProperties(["settledShare >= 0.5"], new Map([["settledShare", 0.4999996]]), [{ epoch: 7, metrics: new Map([["settledShare", 0.4999996]]) }], new Set())
    expect(below).toEqual({ name: "settledShare >= 0.5", pass: false, value: 0.4999996, firstFailingEpoch: 7 })
  })
})
