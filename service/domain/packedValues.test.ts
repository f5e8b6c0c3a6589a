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

  it("writes a value that repeats its slot's last one as one byte, and reads it back, across forgets on both sides", () => {
    // Few distinct values, so that slots often repeat; -0 and 0 are distinct values (Object.is), as are NaN and itself not.
    const pool = fc.constantFrom<unknown>("0xabc", "0xdef", "", 0, -0, Number.NaN, 7, 1n << 100n, 5n, true, false)
    const op = fc.oneof(fc.record({ slot: fc.integer({ min: 0, max: 5 }), value: pool }), fc.constant("forget" as const))
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const w = new ValueWriter(1 << 16)
        const plain = new ValueWriter(1 << 16)
        for (const o of ops) {
          if (o === "forget") w.forget()
          else {
            expect(w.valueInSlot(o.slot, o.value)).toBe(true)
            plain.value(o.value)
          }
        }
        const bytes = w.take()
        expect(bytes.length).toBeLessThanOrEqual(plain.take().length)
        const r = new ValueReader(structuredClone(bytes))
        for (const o of ops) {
          if (o === "forget") r.forget()
          else expect(Object.is(r.valueInSlot(o.slot) as unknown, o.value), `slot ${o.slot}`).toBe(true)
        }
        expect(r.done).toBe(true)
      }),
      { numRuns: 300 },
    )
  })

  it("writes a repeat as one byte only for the same value in the same slot since the last take or forget", () => {
    const id = `0x${"ab".repeat(32)}`
    const w = new ValueWriter(1024)
    w.valueInSlot(0, id)
    const full = w.offset
    w.valueInSlot(0, `0x${"ab".repeat(32)}`) // equal content, another string: a repeat
    expect(w.offset).toBe(full + 1)
    w.valueInSlot(1, id) // another slot: written in full
    expect(w.offset).toBe(2 * full + 1)
    w.forget()
    w.valueInSlot(0, id)
    expect(w.offset).toBe(3 * full + 1)
    w.take()
    w.valueInSlot(0, id)
    expect(w.offset).toBe(full) // a new batch starts with no slot values
  })

  it("refuses a repeat mark read as a plain value, or for a slot that holds nothing", () => {
    const w = new ValueWriter(64)
    w.valueInSlot(0, 1)
    w.valueInSlot(0, 1)
    const bytes = w.take()
    const plain = new ValueReader(bytes)
    plain.value()
    expect(() => plain.value()).toThrow(/repeat mark at byte 9 where a value was written without a slot/)
    const other = new ValueReader(bytes)
    other.valueInSlot(0)
    other.forget()
    expect(() => other.valueInSlot(0)).toThrow(/slot 0, which holds no value/)
  })
  it("refuses a non-ASCII string even where its bytes would fill the room exactly, and a repeat mark with no byte left", () => {
    // "éa" is 3 UTF-8 bytes for 2 units: with 2 bytes of room, "é" alone fits in as many bytes as the string has units.
    expect(new ValueWriter(7).value("éa")).toBe(false)
    const w = new ValueWriter(9)
    expect(w.valueInSlot(0, 1)).toBe(true) // 9 of 9 bytes
    expect(w.valueInSlot(0, 1)).toBe(false) // the repeat mark needs 1 more byte
    expect(w.offset).toBe(9)
  })

  it("keeps a slot's value when a write is refused, and never writes undefined as a repeat", () => {
    const w = new ValueWriter(64)
    expect(w.valueInSlot(0, "a")).toBe(true) // 6 bytes
    expect(w.valueInSlot(0, "é")).toBe(false) // refused: slot 0 still holds "a"
    expect(w.valueInSlot(0, "a")).toBe(true)
    expect(w.offset).toBe(7) // a one-byte repeat
    expect(w.valueInSlot(1, undefined)).toBe(false) // slot 1 holds nothing, and undefined has no packed form
    expect(w.offset).toBe(7)
  })

  it("writes 2^64 - 1 in one limb (9 bytes) and 2^64 in two (17 bytes)", () => {
    const w = new ValueWriter(64)
    w.value((1n << 64n) - 1n)
    expect(w.offset).toBe(9)
    w.value(1n << 64n)
    expect(w.offset).toBe(9 + 17)
  })
})
