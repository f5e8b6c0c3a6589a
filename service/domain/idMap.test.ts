import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { keccak256Utf8 } from "./keccak.ts"
import { IdMap } from "./idMap.ts"

describe("IdMap", () => {
  it("behaves like Map for get, has, set, delete, size and insertion-ordered iteration; swap and setIfAbsent as their Map equivalents", () => {
    // Keys from a small alphabet collide often (same last characters), ids of every length, and real digests.
    const key = fc.oneof(fc.string({ unit: fc.constantFrom("a", "b", "0"), maxLength: 10 }), fc.nat(300).map((n) => keccak256Utf8(String(n))))
    const op = fc.oneof(
      fc.tuple(fc.constant("set" as const), key, fc.integer()),
      fc.tuple(fc.constant("swap" as const), key, fc.integer()),
      fc.tuple(fc.constant("setIfAbsent" as const), key, fc.integer()),
      fc.tuple(fc.constant("get" as const), key, fc.constant(0)),
      fc.tuple(fc.constant("delete" as const), key, fc.constant(0)),
    )
    fc.assert(
      fc.property(fc.array(op, { maxLength: 3000 }), fc.nat(64), (ops, initial) => {
        const ours = new IdMap<number>(initial)
        const reference = new Map<string, number>()
        for (const [kind, k, v] of ops) {
          if (kind === "set") {
            ours.set(k, v)
            reference.set(k, v)
          } else if (kind === "swap") {
            // Returns what `get` gave before, then holds the new value.
            expect(ours.swap(k, v)).toBe(reference.get(k))
            reference.set(k, v)
          } else if (kind === "setIfAbsent") {
            const expected = reference.has(k) ? reference.get(k)! : v
            if (!reference.has(k)) reference.set(k, v)
            expect(ours.setIfAbsent(k, v)).toBe(expected)
          } else if (kind === "delete") {
            expect(ours.delete(k)).toBe(reference.delete(k))
          } else {
            expect(ours.get(k)).toBe(reference.get(k))
            expect(ours.has(k)).toBe(reference.has(k))
          }
        }
        expect(ours.size).toBe(reference.size)
        expect([...ours]).toEqual([...reference])
        expect([...ours.keys()]).toEqual([...reference.keys()])
        expect([...ours.values()]).toEqual([...reference.values()])
      }),
      { numRuns: 60 },
    )
  })

  it("keeps every entry through many doublings", () => {
    const ids = Array.from({ length: 50_000 }, (_, i) => keccak256Utf8(`id ${i}`))
    const map = new IdMap<number>(1)
    ids.forEach((id, i) => map.set(id, i))
    expect(map.size).toBe(ids.length)
    expect(ids.every((id, i) => map.get(id) === i)).toBe(true)
    expect(map.get(keccak256Utf8("absent"))).toBeUndefined()
  })
})
