import { describe, expect, it } from "vitest"
import { Rng, RngStreams } from "./rng.ts"

describe("RngStreams", () => {
  it("gives the same sequence for the same seed and name, whatever the creation order", () => {
    const a = new RngStreams(42)
    const b = new RngStreams(42)
    b.get("transport") // created first here, second in `a`
    const fromA = Array.from({ length: 20 }, () => a.get("agent/1").int(0, 1_000_000))
    const fromB = Array.from({ length: 20 }, () => b.get("agent/1").int(0, 1_000_000))
    expect(fromB).toEqual(fromA)
  })

  it("gives different sequences for different names and seeds", () => {
    const s = new RngStreams(1)
    const x = Array.from({ length: 8 }, () => s.get("x").float())
    const y = Array.from({ length: 8 }, () => s.get("y").float())
    const z = Array.from({ length: 8 }, () => new RngStreams(2).get("x").float())
    expect(x).not.toEqual(y)
    expect(x.slice(0, 1)).not.toEqual(z.slice(0, 1))
  })

  it("draws floats in [0, 1) and ints in range, with the expected means", () => {
    const rng = new RngStreams(7).get("stats")
    let sum = 0
    let expSum = 0
    let logSum = 0
    const n = 20_000
    for (let i = 0; i < n; i++) {
      const f = rng.float()
      expect(f >= 0 && f < 1).toBe(true)
      sum += f
      expSum += rng.exponential(10)
      logSum += Math.log(rng.lognormal(30, 0.5))
      const k = rng.int(3, 5)
      expect(k >= 3 && k <= 5).toBe(true)
    }
    expect(sum / n).toBeCloseTo(0.5, 1)
    expect(expSum / n).toBeGreaterThan(9.5)
    expect(expSum / n).toBeLessThan(10.5)
    expect(Math.exp(logSum / n)).toBeGreaterThan(29)
    expect(Math.exp(logSum / n)).toBeLessThan(31)
  })

  it("picks by weight", () => {
    const rng = new RngStreams(9).get("w")
    const counts = [0, 0, 0]
    for (let i = 0; i < 10_000; i++) counts[rng.weightedIndex([1, 0, 3])]!++
    expect(counts[1]).toBe(0)
    expect(counts[2]! / counts[0]!).toBeGreaterThan(2.6)
    expect(counts[2]! / counts[0]!).toBeLessThan(3.4)
  })

  it("never picks a weight of 0, even for a draw whose sum of weights rounds past the total", () => {
    // The largest float below 1 (1 - 2^-53): with weights 0.03 and 0.26, 0.29 minus both leaves a rounding residue
    // >= 0, and the last index (weight 0) was returned.
    const top = new Rng("top", { next: () => -1 } as unknown as ConstructorParameters<typeof Rng>[1])
    expect(top.float()).toBe(1 - 2 ** -53)
    expect(top.weightedIndex([0.03, 0.26, 0])).toBe(1)
    expect(top.weightedIndex([0.03, 0, 0.26, 0, 0])).toBe(2)
    expect(top.weightedIndex([2, 1])).toBe(1)
    expect(() => top.weightedIndex([0, 0])).toThrow(/positive weight/)
  })

  it("draws weights whose sum overflows a double relative to the largest: as their ratios, not always the last", () => {
    const huge = new RngStreams(9).get("w")
    const small = new RngStreams(9).get("w")
    const draws = Array.from({ length: 1000 }, () => huge.weightedIndex([1.7e308, 0, 1.7e308]))
    // The same draws as weights 1, 0, 1 (1.7e308 / 1.7e308), about half each.
    expect(draws).toEqual(Array.from({ length: 1000 }, () => small.weightedIndex([1, 0, 1])))
    expect(draws.filter((i) => i === 0).length).toBeGreaterThan(400)
    expect(draws.filter((i) => i === 0).length).toBeLessThan(600)
    expect(draws).not.toContain(1)
  })

  it("draws nothing for a chance of 0", () => {
    const a = new RngStreams(5).get("c")
    const b = new RngStreams(5).get("c")
    expect(a.chance(0)).toBe(false)
    expect(a.float()).toBe(b.float())
  })
})
