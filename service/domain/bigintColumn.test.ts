import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { BigintColumn } from "./bigintColumn.ts"

describe("BigintColumn", () => {
  it("gives back what was set last at each index, across growth, overflow and unset", () => {
    const value = fc.oneof(fc.constant(undefined), fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.bigInt({ min: -(1n << 300n), max: 1n << 300n }))
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(5000), value), { maxLength: 200 }), (writes) => {
        const column = new BigintColumn()
        const expected = new Map<number, bigint | undefined>()
        for (const [index, v] of writes) {
          column.set(index, v)
          expected.set(index, v)
        }
        for (const [index, v] of expected) expect(column.get(index)).toBe(v)
        expect(column.get(5001)).toBeUndefined()
      }),
      { numRuns: 200 },
    )
  })

  it("refuses an index that is not a non-negative integer", () => {
    const column = new BigintColumn()
    for (const index of [-1, 1.5, Number.NaN]) expect(() => column.set(index, 1n)).toThrow(RangeError)
  })
})
