import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { ValueReader, ValueWriter } from "./packedValues.ts"

/** Values with a packed form: ASCII strings, numbers (any double), bigints in [0, 2^128), booleans. */
const packable = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)) }),
  fc.double(),
  fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }),
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }),
  fc.boolean(),
)

describe("ValueWriter / ValueReader", () => {
  it("reads back every packable value with its type (Object.is for numbers: -0 and NaN included)", () => {
    fc.assert(
      fc.property(fc.array(packable, { maxLength: 30 }), (values) => {
        const w = new ValueWriter(1 << 16)
        for (const v of values) expect(w.value(v)).toBe(true)
        const r = new ValueReader(structuredClone(w.take()))
        const back = values.map(() => r.value() as unknown)
        expect(r.done).toBe(true)
        expect(back).toStrictEqual(values)
      }),
      { numRuns: 300 },
    )
  })

  it("refuses what has no packed form, and what does not fit", () => {
    const w = new ValueWriter(64)
    for (const v of ["é", "\ud800", -1n, 1n << 128n, undefined, null, { a: 1 }, [1], Symbol("s")]) expect(w.value(v), String(typeof v)).toBe(false)
    const small = new ValueWriter(20)
    expect(small.value("x".repeat(16))).toBe(false) // 5 + 3 × 16 bytes of room needed
    expect(small.value(1n << 100n)).toBe(true)
    expect(small.value(1)).toBe(false) // 17 of 20 bytes used
    expect(small.remaining).toBe(3)
    small.byte(7)
    small.byte(7)
    small.byte(7)
    expect(() => small.byte(7)).toThrow(RangeError) // not dropped past the end
    expect(small.take().length).toBe(20)
  })

  it("reads back exactly the boundaries of the bigint limbs, -0, NaN and every ASCII unit", () => {
    const values: unknown[] = [0n, (1n << 64n) - 1n, 1n << 64n, (1n << 64n) + 1n, (1n << 128n) - 1n, 1n << 127n, -0, 0, Number.NaN, Infinity, -Infinity, Number.MIN_VALUE, ""]
    values.push(Array.from({ length: 128 }, (_, c) => String.fromCharCode(c)).join(""))
    const w = new ValueWriter(4096)
    for (const v of values) expect(w.value(v)).toBe(true)
    const r = new ValueReader(w.take())
    for (const v of values) expect(Object.is(r.value() as unknown, v), String(v)).toBe(true)
    expect(r.done).toBe(true)
  })

  it("takes a copy of its own length: later writes leave it as it was", () => {
    const w = new ValueWriter(1 << 16)
    w.value("first")
    const first = w.take()
    expect(first.buffer.byteLength).toBe(first.length)
    w.value("other")
    expect(new ValueReader(first).value() as unknown).toBe("first")
  })
})
