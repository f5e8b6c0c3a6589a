import { describe, expect, it } from "vitest"
import { NettingTracker, ratioOf } from "./netting.ts"
import { SampleUnion, Samples } from "./percentiles.ts"

const alice = { kind: "user" as const, owner: "user/a" }
const bob = { kind: "user" as const, owner: "user/b" }
const lp = { kind: "initial" as const, owner: "initial" }
const arb = { kind: "arbitrageur" as const, owner: "arb/1" }

describe("netting ratio by FIFO attribution", () => {
  it("counts only other users' custody as netted, oldest lots first", () => {
    const t = new NettingTracker()
    // Domain 10 holds: 50 initial liquidity, then Bob's 100, then an arbitrageur's 30.
    t.custodyIn("USDC", 10, 50n, lp, "seed")
    t.custodyIn("USDC", 10, 100n, bob, "b1")
    t.custodyIn("USDC", 10, 30n, arb, "x1")
    // Alice's intent 1→10 settles 120 on 10: 50 from the initial lot, 70 from Bob's.
    t.custodyOut("USDC", 10, 120n, { owner: "user/a", lane: "1>10", epoch: 5 })
    expect(t.overall.totalVolume18).toBe(120n)
    expect(t.overall.nettedVolume18).toBe(70n)
    expect(t.overall.bySource18.initial).toBe(50n)
    expect(ratioOf(t.overall)).toBeCloseTo(70 / 120, 6)
    // Bob settles 40 on 10: 30 left of his own lot (self, not netting), then 10 of the arbitrageur's.
    t.custodyOut("USDC", 10, 40n, { owner: "user/b", lane: "1>10", epoch: 6 })
    expect(t.overall.totalVolume18).toBe(160n)
    expect(t.overall.nettedVolume18).toBe(70n)
    expect(t.overall.bySource18.self).toBe(30n)
    expect(t.overall.bySource18.arbitrageur).toBe(10n)
    expect(ratioOf(t.byEpoch.get(5)!)).toBeCloseTo(70 / 120, 6)
    expect(ratioOf(t.byEpoch.get(6)!)).toBe(0)
    expect(t.byLane.get("1>10")!.totalVolume18).toBe(160n)
  })

  it("keeps totals by ticker and lane: lanes listed in the order they first settled, tickers apart, the overall their sum", () => {
    const t = new NettingTracker()
    t.custodyIn("USDC", 2, 100n, bob, "b1")
    t.custodyIn("WETH", 3, 7n, bob, "b2")
    t.custodyIn("USDC", 1, 50n, bob, "b3")
    t.custodyOut("USDC", 2, 60n, { owner: "user/a", lane: "1>2", epoch: 1 })
    t.custodyOut("WETH", 3, 5n, { owner: "user/a", lane: "2>3", epoch: 1 })
    t.custodyOut("USDC", 1, 40n, { owner: "user/a", lane: "3>1", epoch: 2 })
    t.custodyOut("USDC", 2, 10n, { owner: "user/a", lane: "1>2", epoch: 2 })
    expect([...t.byLane.keys()]).toEqual(["1>2", "2>3", "3>1"])
    expect(t.byLane.get("1>2")!.totalVolume18).toBe(70n)
    expect([...t.byTicker.keys()]).toEqual(["USDC", "WETH"])
    expect(t.byTicker.get("USDC")).toMatchObject({ totalVolume18: 110n, nettedVolume18: 110n })
    expect(t.byTicker.get("WETH")).toMatchObject({ totalVolume18: 5n, nettedVolume18: 5n })
    expect(t.overall).toMatchObject({ totalVolume18: 115n, nettedVolume18: 115n })
    // One asset's lanes, in the same order: a lane both assets use adds their tokens in byLane, not in lanesOf.
    t.custodyIn("WETH", 2, 3n, bob, "b4")
    t.custodyOut("WETH", 2, 2n, { owner: "user/a", lane: "1>2", epoch: 3 })
    expect(t.byLane.get("1>2")!.totalVolume18).toBe(72n)
    expect([...t.lanesOf("USDC")].map(([lane, v]) => [lane, v.totalVolume18])).toEqual([["1>2", 70n], ["3>1", 40n]])
    expect([...t.lanesOf("WETH")].map(([lane, v]) => [lane, v.totalVolume18])).toEqual([["1>2", 2n], ["2>3", 5n]])
    expect(t.lanesOf("DAI").size).toBe(0)
  })

  it("takes a settlement on the intent's own origin from its own deposit first: a pass-through, not netting", () => {
    const t = new NettingTracker()
    // Domain 1 holds Bob's 100, then Alice's fast intent's 80 arrives; the solver that filled it is repaid 80 on
    // domain 1, its origin, in the same hub step. Pure FIFO would take Bob's lot and call it netted.
    t.custodyIn("USDC", 1, 100n, bob, "b1")
    t.custodyIn("USDC", 1, 80n, alice, "a1")
    t.custodyOut("USDC", 1, 80n, { owner: "user/a", lane: "1>10", epoch: 1 }, "a1")
    expect([t.overall.nettedVolume18, t.overall.bySource18.self]).toEqual([0n, 80n])
    // Bob's lot is whole: a settlement of 120 on domain 1 for Carol takes it, then finds nothing more.
    t.custodyOut("USDC", 1, 120n, { owner: "user/c", lane: "10>1", epoch: 1 }, "c1")
    expect([t.overall.nettedVolume18, t.overall.bySource18.unattributed]).toEqual([100n, 20n])
    // An own lot already spent (or never there) changes nothing: plain FIFO.
    t.custodyIn("USDC", 1, 50n, bob, "b2")
    t.custodyOut("USDC", 1, 30n, { owner: "user/a", lane: "1>10", epoch: 2 }, "a1")
    expect(t.overall.nettedVolume18).toBe(130n)
  })

  it("consumes lots without counting for non-user settlements, and reports uncovered amounts", () => {
    const t = new NettingTracker()
    t.custodyIn("USDC", 1, 100n, alice, "a1")
    t.custodyOut("USDC", 1, 60n, undefined) // e.g. a solver repayment of an arbitrageur's intent
    t.custodyOut("USDC", 1, 60n, { owner: "user/b", lane: "10>1", epoch: 1 })
    expect(t.overall.nettedVolume18).toBe(40n)
    expect(t.overall.bySource18.unattributed).toBe(20n)
    expect(t.custodyBySource().user).toBe(0n)
  })
})

describe("percentiles", () => {
  it("uses the linear (type 7) definition on exact samples", () => {
    const s = new Samples()
    for (const v of [10, 20, 30, 40, 50, 60, 70, 80, 90, 100]) s.add(v)
    const p = s.percentiles()!
    expect(p.p50).toBe(55)
    expect(p.p90).toBeCloseTo(91, 9)
    expect(p.p99).toBeCloseTo(99.1, 9)
    expect(p.max).toBe(100)
    expect(p.mean).toBe(55)
    expect(new Samples().percentiles()).toBeUndefined()
  })

  it("grows past its initial capacity", () => {
    const s = new Samples()
    for (let i = 1; i <= 1000; i++) s.add(i)
    expect(s.percentiles()!.p50).toBe(500.5)
  })

  it("gives a union of sets the percentiles of one set holding all their samples, and reuses a set's sorted copy", () => {
    const parts = [new Samples(), new Samples(), new Samples(), new Samples()]
    const union = new SampleUnion(parts)
    const all = new Samples()
    let x = 7
    for (let i = 0; i < 5000; i++) {
      x = (x * 1103515245 + 12345) % 2147483648
      const value = (x % 100_000) / 7
      const part = parts[x % 3]! // the fourth set stays empty
      part.add(value)
      union.add(value)
      all.add(value)
    }
    expect(union.percentiles()).toEqual(all.percentiles())
    expect(parts[0]!.sorted()).toBe(parts[0]!.sorted())
    expect(new SampleUnion([new Samples()]).percentiles()).toBeUndefined()
    // One non-empty part: its own percentiles.
    const only = new Samples()
    const single = new SampleUnion([new Samples(), only])
    for (const v of [3, 1, 2]) {
      only.add(v)
      single.add(v)
    }
    expect(single.percentiles()).toEqual(only.percentiles())
  })
})
