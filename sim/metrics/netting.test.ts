import { describe, expect, it } from "vitest"
import { bpsOf } from "./collector.ts"
import { NettingTracker, ratioOf } from "./netting.ts"
import { SampleUnion, Samples, toMilliseconds } from "./percentiles.ts"

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
    expect(t.overall.totalVolume).toBe(120n)
    expect(t.overall.nettedVolume).toBe(70n)
    expect(t.overall.bySource.initial).toBe(50n)
    expect(ratioOf(t.overall.nettedVolume, t.overall.totalVolume)).toBeCloseTo(70 / 120, 6)
    // Kept until the next settlement (read every epoch), then made again (below).
    expect(t.overall).toBe(t.overall)
    // Bob settles 40 on 10: 30 left of his own lot (self, not netting), then 10 of the arbitrageur's.
    t.custodyOut("USDC", 10, 40n, { owner: "user/b", lane: "1>10", epoch: 6 })
    expect(t.overall.totalVolume).toBe(160n)
    expect(t.overall.nettedVolume).toBe(70n)
    expect(t.overall.bySource.self).toBe(30n)
    expect(t.overall.bySource.arbitrageur).toBe(10n)
    // Each settlement's own parts only: the initial lot (Alice's settlement) is not counted again, and Bob's own
    // 30 is self, not a user's lot.
    expect(t.overall.bySource.initial).toBe(50n)
    expect(t.overall.bySource.user).toBe(70n)
    expect(ratioOf(t.byEpoch.get(5)!.nettedVolume, t.byEpoch.get(5)!.totalVolume)).toBeCloseTo(70 / 120, 6)
    expect(ratioOf(t.byEpoch.get(6)!.nettedVolume, t.byEpoch.get(6)!.totalVolume)).toBe(0)
    expect(t.byLane.get("1>10")!.totalVolume).toBe(160n)
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
    expect(t.byLane.get("1>2")!.totalVolume).toBe(70n)
    expect([...t.byTicker.keys()]).toEqual(["USDC", "WETH"])
    expect(t.byTicker.get("USDC")).toMatchObject({ totalVolume18: 110n, nettedVolume18: 110n })
    expect(t.byTicker.get("WETH")).toMatchObject({ totalVolume18: 5n, nettedVolume18: 5n })
    expect(t.overall).toMatchObject({ totalVolume: 115n, nettedVolume: 115n })
    // One asset's lanes, in the same order: a lane both assets use adds their tokens in byLane, not in lanesOf.
    t.custodyIn("WETH", 2, 3n, bob, "b4")
    t.custodyOut("WETH", 2, 2n, { owner: "user/a", lane: "1>2", epoch: 3 })
    expect(t.byLane.get("1>2")!.totalVolume).toBe(72n)
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
    expect([t.overall.nettedVolume, t.overall.bySource.self]).toEqual([0n, 80n])
    // Bob's lot is whole: a settlement of 120 on domain 1 for Carol takes it, then finds nothing more.
    t.custodyOut("USDC", 1, 120n, { owner: "user/c", lane: "10>1", epoch: 1 }, "c1")
    expect([t.overall.nettedVolume, t.overall.bySource.unattributed]).toEqual([100n, 20n])
    // An own lot already spent (or never there) changes nothing: plain FIFO.
    t.custodyIn("USDC", 1, 50n, bob, "b2")
    t.custodyOut("USDC", 1, 30n, { owner: "user/a", lane: "1>10", epoch: 2 }, "a1")
    expect(t.overall.nettedVolume).toBe(130n)
  })

  it("consumes lots without counting for non-user settlements, and reports uncovered amounts", () => {
    const t = new NettingTracker()
    t.custodyIn("USDC", 1, 100n, alice, "a1")
    t.custodyOut("USDC", 1, 60n, undefined) // e.g. a solver repayment of an arbitrageur's intent
    t.custodyOut("USDC", 1, 60n, { owner: "user/b", lane: "10>1", epoch: 1 })
    expect(t.overall.nettedVolume).toBe(40n)
    expect(t.overall.bySource.unattributed).toBe(20n)
    // What no lot covered is still user volume settled: 40 of 60.
    expect(t.overall.totalVolume).toBe(60n)
    expect(ratioOf(t.overall.nettedVolume, t.overall.totalVolume)).toBe(0.666666) // six decimals, rounded down
    expect(t.custodyBySource().user).toBe(0n)
  })
})

describe("netting over tickers, weighed", () => {
  it("weighs each ticker's amounts by its weight overall, per lane and per epoch, sources included; a ticker's own figures stay in its tokens", () => {
    // USDC at 1, WETH at 2,000 (whole USD: weights of a price with no decimals).
    const t = new NettingTracker((ticker) => (ticker === "WETH" ? 2000n : 1n))
    t.custodyIn("USDC", 2, 100n, bob, "b1")
    t.custodyIn("WETH", 2, 1n, lp, "seed")
    t.custodyIn("WETH", 2, 2n, bob, "b2")
    // Alice: 60 USDC on 2, all bob's (netted); 2 WETH on 2, 1 from the initial lot and 1 of bob's.
    t.custodyOut("USDC", 2, 60n, { owner: "user/a", lane: "1>2", epoch: 7 })
    t.custodyOut("WETH", 2, 2n, { owner: "user/a", lane: "1>2", epoch: 7 })
    // Tokens: 61 netted of 62. Weighed: 60 + 2,000 netted of 60 + 4,000.
    expect(t.overall).toMatchObject({ totalVolume: 4060n, nettedVolume: 2060n, bySource: { user: 2060n, initial: 2000n, self: 0n } })
    expect(ratioOf(t.overall.nettedVolume, t.overall.totalVolume)).toBe(0.507389) // 2,060 / 4,060 = 0.5073891…
    expect(t.byLane.get("1>2")).toMatchObject({ totalVolume: 4060n, nettedVolume: 2060n })
    expect(t.byEpoch.get(7)).toMatchObject({ totalVolume: 4060n, nettedVolume: 2060n, bySource: { user: 2060n, initial: 2000n } })
    expect(t.byTicker.get("WETH")).toMatchObject({ totalVolume18: 2n, nettedVolume18: 1n, bySource18: { initial: 1n } })
    expect(ratioOf(t.byTicker.get("WETH")!.nettedVolume18, t.byTicker.get("WETH")!.totalVolume18)).toBe(0.5)
  })
})

describe("ratios and bps as reported", () => {
  it("are six decimals, truncated, from the exact integers: the netting ratio, and the discount's bps alike", () => {
    expect(ratioOf(2n, 3n)).toBe(0.666666)
    // 2 of 3 in bps is 6,666.6666…: 6,666.666666, as the ratio (was rounded half up, 6,666.666667).
    expect(bpsOf(2n, 3n)).toBe(6666.666666)
    // balanced-two-chain's discount: 0.0108739… bps is 0.010873 (was 0.010874).
    expect(bpsOf(108_739n, 100_000_000_000n)).toBe(0.010873)
    expect(bpsOf(1n, 10_000n)).toBe(1)
    expect(bpsOf(1n, 10n ** 11n)).toBe(0) // 0.0000001 bps: under the sixth decimal
    expect(bpsOf(0n, 5n)).toBe(0)
  })
})

describe("netting edge cases", () => {
  it("gives no volume a ratio of 0, not 1", () => {
    const t = new NettingTracker()
    expect(ratioOf(t.overall.nettedVolume, t.overall.totalVolume)).toBe(0)
    t.custodyIn("USDC", 1, 10n, bob, "b1")
    t.custodyOut("USDC", 1, 10n, undefined)
    expect(ratioOf(t.overall.nettedVolume, t.overall.totalVolume)).toBe(0)
  })

  it("takes only the settled amount from a larger own deposit, and leaves the rest to later settlements", () => {
    const t = new NettingTracker()
    // Alice's 100 arrives on her origin; the solver is repaid 90 there (her deposit less fees): self 90.
    t.custodyIn("USDC", 1, 100n, alice, "a1")
    t.custodyOut("USDC", 1, 90n, { owner: "user/a", lane: "1>10", epoch: 1 }, "a1")
    expect([t.overall.totalVolume, t.overall.nettedVolume, t.overall.bySource.self]).toEqual([90n, 0n, 90n])
    expect(t.custodyBySource().user).toBe(10n)
    // The 10 left pays 10 of Bob's settlement there (netted), the other 5 uncovered.
    t.custodyOut("USDC", 1, 15n, { owner: "user/b", lane: "10>1", epoch: 1 })
    expect([t.overall.nettedVolume, t.overall.bySource.unattributed]).toEqual([10n, 5n])
  })

  it("splits one settlement into its own deposit (self) and other users' lots (user)", () => {
    const t = new NettingTracker()
    t.custodyIn("USDC", 1, 30n, bob, "b1")
    t.custodyIn("USDC", 1, 50n, alice, "a1")
    // Alice's 60 on her origin: her own 50 first, then 10 of Bob's older lot.
    t.custodyOut("USDC", 1, 60n, { owner: "user/a", lane: "1>10", epoch: 1 }, "a1")
    expect(t.overall).toMatchObject({ totalVolume: 60n, nettedVolume: 10n, bySource: { user: 10n, self: 50n, unattributed: 0n } })
  })

  it("still finds an intent's own deposit after the consumed lots are compacted away", () => {
    const t = new NettingTracker()
    // 4,100 lots of 1 from Bob; a non-user payout of 4,097 consumes all but 3, past the compaction threshold (4,096).
    for (let i = 0; i < 4100; i++) t.custodyIn("USDC", 1, 1n, bob, `b${i}`)
    t.custodyOut("USDC", 1, 4097n, undefined)
    // Alice's deposit arrives behind Bob's 3 and pays her own settlement on its origin: self, not netted.
    t.custodyIn("USDC", 1, 10n, alice, "a1")
    t.custodyOut("USDC", 1, 10n, { owner: "user/a", lane: "1>10", epoch: 1 }, "a1")
    expect([t.overall.nettedVolume, t.overall.bySource.self]).toEqual([0n, 10n])
    expect(t.custodyBySource().user).toBe(3n)
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

  it("rounds seconds to the nearest millisecond", () => {
    expect(toMilliseconds(688.479999999999)).toBe(688.48)
    expect(toMilliseconds(1.0006)).toBe(1.001)
    expect(toMilliseconds(1.0004)).toBe(1)
  })

  it("sorts again after a sample is added to a set already read", () => {
    const s = new Samples()
    for (const v of [30, 10]) s.add(v)
    expect(s.percentiles()).toMatchObject({ p50: 20, max: 30 })
    s.add(50)
    expect(s.percentiles()).toMatchObject({ count: 3, p50: 30, max: 50, mean: 30 })
    expect([...s.sorted()]).toEqual([10, 30, 50])
  })

  it("grows past its initial capacity", () => {
    const s = new Samples()
    for (let i = 1; i <= 1000; i++) s.add(i)
    expect(s.percentiles()!.p50).toBe(500.5)
  })

  it("starts over when cleared (the collector's per-epoch samples), as a new set would: count, sum and sorted copy", () => {
    const s = new Samples()
    for (let i = 1; i <= 1000; i++) s.add(i)
    expect(s.percentiles()!.max).toBe(1000)
    s.clear()
    expect(s.count).toBe(0)
    expect(s.percentiles()).toBeUndefined()
    // Three samples after a thousand: the percentiles of these three only.
    for (const v of [30, 10, 50]) s.add(v)
    const fresh = new Samples()
    for (const v of [30, 10, 50]) fresh.add(v)
    expect(s.percentiles()).toEqual(fresh.percentiles())
    expect([...s.sorted()]).toEqual([10, 30, 50])
    // As many samples as the sorted copy read before the clear: that copy is not taken for theirs.
    s.clear()
    for (const v of [7, 8, 9]) s.add(v)
    expect(s.percentiles()).toMatchObject({ count: 3, p50: 8, max: 9, mean: 8 })
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
