/**
 * Optional bigints by dense index (0, 1, 2, ...), those in [0, 2^64) kept in a typed array: such a value is not a
 * heap object of its own. For per-intent amounts kept to the end of a run (a million of them): each retained
 * object costs the garbage collector a copy when it is promoted and a visit in every full collection, about 1 µs
 * per object over a million-intent run (docs/performance-history.md). Values of 2^64 and more, and negative ones (rare),
 * are kept in a map.
 * Reading a value makes a bigint (callers read rarely: API records).
 */
import { MAX_UINT64 } from "./protocol.ts"

const ABSENT = 0
const INLINE = 1
const OVERFLOW = 2

export class BigintColumn {
  private values = new BigUint64Array(1024)
  private states = new Uint8Array(1024)
  private readonly overflow = new Map<number, bigint>()

  get(index: number): bigint | undefined {
    switch (this.states[index]) {
      case INLINE:
        return this.values[index]
      case OVERFLOW:
        return this.overflow.get(index)
      default:
        return undefined
    }
  }

  set(index: number, value: bigint | undefined): void {
    if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`BigintColumn: index ${index} is not a non-negative integer`)
    if (index >= this.states.length) {
      if (value === undefined) return // unset already: no growth for it
      this.grow(index)
    }
    if (this.states[index] === OVERFLOW) this.overflow.delete(index)
    if (value === undefined) {
      this.states[index] = ABSENT
    } else if (value >= 0n && value <= MAX_UINT64) {
      this.values[index] = value
      this.states[index] = INLINE
    } else {
      this.overflow.set(index, value)
      this.states[index] = OVERFLOW
    }
  }

  private grow(index: number): void {
    let size = this.states.length
    while (size <= index) size *= 2
    const values = new BigUint64Array(size)
    values.set(this.values)
    const states = new Uint8Array(size)
    states.set(this.states)
    this.values = values
    this.states = states
  }
}
