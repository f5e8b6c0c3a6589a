import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { LiveSeqs, mergeAsc, mergeDesc, SortedSeqs } from "./sequence.ts"

describe("LiveSeqs", () => {
  it("answers atOrAfter/atOrBefore like a brute-force set under appends and removals", () => {
    fc.assert(
      fc.property(fc.array(fc.oneof(fc.constant("add" as const), fc.nat(3000)), { minLength: 200, maxLength: 4000 }), fc.array(fc.integer({ min: -5, max: 3100 }), { maxLength: 50 }), (ops, probes) => {
        const live = new LiveSeqs()
        const model = new Set<number>()
        let next = 0
        for (const op of ops) {
          if (op === "add") {
            live.add(next)
            model.add(next)
            next += 1 + (next % 3)
          } else {
            const target = op % Math.max(1, next)
            expect(live.remove(target)).toBe(model.delete(target))
          }
        }
        const sorted = [...model].sort((a, b) => a - b)
        expect(live.size).toBe(sorted.length)
        for (const p of probes) {
          expect(live.atOrAfter(p)).toBe(sorted.find((s) => s >= p))
          expect(live.atOrBefore(p)).toBe([...sorted].reverse().find((s) => s <= p))
        }
        expect([...mergeAsc([live], 0)]).toEqual(sorted)
      }),
      { numRuns: 60 },
    )
  })

  it("compacts once most entries are dead and keeps answering", () => {
    const live = new LiveSeqs()
    for (let i = 0; i < 5000; i++) live.add(i)
    for (let i = 0; i < 4990; i++) live.remove(i)
    expect(live.size).toBe(10)
    expect(live.atOrAfter(0)).toBe(4990)
    expect(live.atOrBefore(10_000)).toBe(4999)
    live.add(6000)
    expect(live.atOrAfter(5000)).toBe(6000)
  })
})

describe("merging sorted sources", () => {
  it("walks the union without duplicates, both ways", () => {
    const a = new SortedSeqs()
    const b = new SortedSeqs()
    for (const s of [1, 4, 6, 9]) a.add(s)
    for (const s of [2, 4, 9, 12]) b.add(s)
    b.add(3) // out of order insert
    expect([...mergeAsc([a, b], 0)]).toEqual([1, 2, 3, 4, 6, 9, 12])
    expect([...mergeAsc([a, b], 5)]).toEqual([6, 9, 12])
    expect([...mergeDesc([a, b], 8)]).toEqual([6, 4, 3, 2, 1])
  })
})
