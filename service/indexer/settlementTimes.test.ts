import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { SettlementTimes } from "./settlementTimes.ts"

const prior = { p25Minutes: 15, p50Minutes: 17.5, p75Minutes: 20, observations: 0 }

describe("settlement times", () => {
  it("answer the prior until a route (or its path) has enough observations, then percentiles in minutes", () => {
    const times = new SettlementTimes(100, 3)
    expect(times.estimate(1, 10, "basic", prior)).toBe(prior)
    times.record(1, 10, "basic", 600)
    times.record(1, 10, "basic", 1200)
    expect(times.estimate(1, 10, "basic", prior)).toBe(prior)
    times.record(1, 10, "basic", 1800)
    expect(times.estimate(1, 10, "basic", prior)).toEqual({ p25Minutes: 15, p50Minutes: 20, p75Minutes: 25, observations: 3 })
    // Another route of the same path falls back to the path's observations; another path to the prior.
    expect(times.estimate(8453, 1, "basic", prior).observations).toBe(3)
    expect(times.estimate(1, 10, "fast", prior)).toBe(prior)
  })

  it("answer a route's own figures from exactly minObservations, even when its path holds other routes' too", () => {
    const times = new SettlementTimes(100, 3)
    for (let i = 0; i < 3; i++) times.record(1, 10, "basic", 600)
    for (let i = 0; i < 3; i++) times.record(1, 8453, "basic", 3000)
    expect(times.estimate(1, 10, "basic", prior)).toEqual({ p25Minutes: 10, p50Minutes: 10, p75Minutes: 10, observations: 3 })
  })

  it("ignore a negative duration (clocks of two chains out of step)", () => {
    const times = new SettlementTimes(100, 1)
    times.record(1, 10, "fast", -60)
    expect(times.estimate(1, 10, "fast", prior)).toBe(prior)
  })

  it("keep the last `window` observations", () => {
    const times = new SettlementTimes(4, 1)
    for (const minutes of [100, 100, 100, 100, 1, 2, 3, 4]) times.record(1, 10, "fast", minutes * 60)
    expect(times.estimate(1, 10, "fast", prior)).toMatchObject({ p25Minutes: 1.75, p50Minutes: 2.5, p75Minutes: 3.25, observations: 4 })
  })

  it("give the percentiles of the last `window` observations, sorted afresh, for any sequence (repeats included)", () => {
    const percentile = (sorted: readonly number[], q: number): number => {
      const pos = (sorted.length - 1) * q
      const lo = Math.floor(pos)
      const hi = Math.ceil(pos)
      return Math.round((sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)) * 100) / 100
    }
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 12 }), fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 120 }), (window, seconds) => {
        const times = new SettlementTimes(window, 1)
        seconds.forEach((s, i) => {
          times.record(1, 10, "basic", s * 30)
          const kept = seconds.slice(Math.max(0, i + 1 - window), i + 1).map((x) => (x * 30) / 60)
          kept.sort((a, b) => a - b)
          expect(times.estimate(1, 10, "basic", prior)).toEqual({ p25Minutes: percentile(kept, 0.25), p50Minutes: percentile(kept, 0.5), p75Minutes: percentile(kept, 0.75), observations: kept.length })
        })
      }),
      { numRuns: 300 },
    )
  })
})
