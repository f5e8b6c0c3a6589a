/**
 * Plain values written into a byte buffer and read back with their types, for batches posted to a worker thread
 * (the trace hash's hub events, `service/hub/tracePacking.ts`). Posting the bytes costs one copy; posting the same
 * values in an array made the structured clone write, and the worker read, each one with its type: on the hub
 * events of 2 virtual hours of the stress scenario that cost 80-105 ms to pack and post and 190-280 ms to read and
 * format in the worker, against 60-85 ms and 135-175 ms this way. (The trace file's hub inputs, long runs of
 * id strings, gained nothing this way and are still posted as arrays: `service/hub/inputLines.ts`.)
 *
 * Each value is a type byte, then: a string's bytes (ASCII only, after a u32 length), a number's float64, a
 * bigint's one or two u64 limbs (0 ≤ n < 2^128), or nothing for a boolean. A value outside those forms (a
 * non-ASCII string, a negative or larger bigint, anything else) is refused (`value` returns false): callers then
 * post that item whole, beside the bytes.
 *
 * A field that often holds the value it held last (a ticker hash, an intent id over the few events of one intent)
 * may be written in a numbered slot (`valueInSlot`): when the value is the one last written in that slot
 * (`Object.is`), only a one-byte repeat mark is written, and the reader gives back the value it last read in the
 * slot. Both sides forget their slots when the writer is emptied (`take`), or when told to (`forget`, at the same
 * point of the stream on both sides).
 *
 * Loaded by worker threads with Node's type stripping: no enums, no parameter properties.
 */

const STRING = 1
const NUMBER = 2
const BIGINT_64 = 3
const BIGINT_128 = 4
const TRUE = 5
const FALSE = 6
/** The value last written in the same slot (`valueInSlot`). */
const REPEAT = 7

const MAX_U64 = (1n << 64n) - 1n
const MAX_U128 = (1n << 128n) - 1n

export class ValueWriter {
  private readonly buffer: Buffer
  private readonly view: DataView
  /** Bytes written so far. */
  offset = 0
  /** The value last written in each slot since the writer was emptied or told to forget. */
  private recent: unknown[] = []

  constructor(capacity: number) {
    this.buffer = Buffer.allocUnsafeSlow(capacity)
    this.view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength)
  }

  /** Bytes left. */
  get remaining(): number {
    return this.buffer.length - this.offset
  }

  /**
   * Writes one byte (a caller's tag). Throws when no byte is left: a typed array drops a write past its end
   * silently, and the tag, and everything read after it, would be lost.
   */
  byte(b: number): void {
    if (this.offset >= this.buffer.length) throw new RangeError(`ValueWriter: no room for a byte at ${this.offset} of ${this.buffer.length}`)
    this.buffer[this.offset++] = b
  }

  /** Writes `v` with its type; false when it has no packed form or does not fit (the offset is then undefined). */
  value(v: unknown): boolean {
    const at = this.offset
    switch (typeof v) {
      case "string": {
        // UTF-8 with room for 3 bytes per unit: as many bytes as units exactly when every unit is ASCII.
        if (at + 5 + 3 * v.length > this.buffer.length) return false
        const written = this.buffer.write(v, at + 5, "utf8")
        if (written !== v.length) return false
        this.buffer[at] = STRING
        this.view.setUint32(at + 1, written, true)
        this.offset = at + 5 + written
        return true
      }
      case "number":
        if (at + 9 > this.buffer.length) return false
        this.buffer[at] = NUMBER
        this.view.setFloat64(at + 1, v, true)
        this.offset = at + 9
        return true
      case "bigint":
        if (v < 0n || v > MAX_U128 || at + 17 > this.buffer.length) return false
        if (v <= MAX_U64) {
          this.buffer[at] = BIGINT_64
          this.view.setBigUint64(at + 1, v, true)
          this.offset = at + 9
        } else {
          this.buffer[at] = BIGINT_128
          this.view.setBigUint64(at + 1, BigInt.asUintN(64, v), true)
          this.view.setBigUint64(at + 9, v >> 64n, true)
          this.offset = at + 17
        }
        return true
      case "boolean":
        if (at + 1 > this.buffer.length) return false
        this.buffer[at] = v ? TRUE : FALSE
        this.offset = at + 1
        return true
      default:
        return false
    }
  }

  /**
   * Writes `v` as `value` does, or as a one-byte repeat mark when it is the value last written in `slot` (a
   * small non-negative integer the reader passes for the same field). False as `value` is; the slot then keeps
   * its value, but what was written since the last `forget` or `take` may no longer be read back as written:
   * a caller that drops those bytes calls `forget` (and its reader too, at the same point).
   */
  valueInSlot(slot: number, v: unknown): boolean {
    if (v !== undefined && Object.is(this.recent[slot], v)) {
      if (this.offset >= this.buffer.length) return false
      this.buffer[this.offset++] = REPEAT
      return true
    }
    if (!this.value(v)) return false
    this.recent[slot] = v
    return true
  }

  /** Forgets every slot's value: the next value of each slot is written in full (`ValueReader.forget`). */
  forget(): void {
    this.recent = []
  }

  /**
   * A copy of the bytes written (its own buffer of that length), and the writer emptied (its slots forgotten). Not `Buffer#slice`, a
   * view on the writer's buffer: the next writes would change it, and posting it clones the whole buffer.
   */
  take(): Uint8Array {
    const bytes = new Uint8Array(this.offset)
    bytes.set(this.buffer.subarray(0, this.offset))
    this.offset = 0
    this.recent = []
    return bytes
  }
}

export class ValueReader {
  private offset = 0
  private readonly bytes: Buffer
  private readonly view: DataView
  /** The value last read in each slot since the reader started or was told to forget. */
  private recent: unknown[] = []

  constructor(bytes: Uint8Array) {
    this.bytes = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  get done(): boolean {
    return this.offset >= this.bytes.length
  }

  /** Reads one byte (a caller's tag). */
  byte(): number {
    return this.bytes[this.offset++]!
  }

  /** Reads a value with the type it was written with (typed as the field the caller reads it into). */
  value(): never {
    const at = this.offset
    const type = this.bytes[at]
    switch (type) {
      case STRING: {
        const length = this.view.getUint32(at + 1, true)
        this.offset = at + 5 + length
        return this.bytes.toString("latin1", at + 5, at + 5 + length) as never
      }
      case NUMBER:
        this.offset = at + 9
        return this.view.getFloat64(at + 1, true) as never
      case BIGINT_64:
        this.offset = at + 9
        return this.view.getBigUint64(at + 1, true) as never
      case BIGINT_128:
        this.offset = at + 17
        return ((this.view.getBigUint64(at + 9, true) << 64n) | this.view.getBigUint64(at + 1, true)) as never
      case TRUE:
      case FALSE:
        this.offset = at + 1
        return (type === TRUE) as never
      case REPEAT:
        throw new Error(`ValueReader: a repeat mark at byte ${at} where a value was written without a slot`)
      default:
        throw new Error(`ValueReader: unknown value type ${String(type)} at byte ${at}`)
    }
  }

  /** Reads a value written with `ValueWriter.valueInSlot` in `slot`. */
  valueInSlot(slot: number): never {
    if (this.bytes[this.offset] !== REPEAT) {
      const v: unknown = this.value()
      this.recent[slot] = v
      return v as never
    }
    const v = this.recent[slot]
    if (v === undefined) throw new Error(`ValueReader: a repeat mark at byte ${this.offset} for slot ${slot}, which holds no value`)
    this.offset++
    return v as never
  }

  /** Forgets every slot's value, where the writer did (`ValueWriter.forget`). */
  forget(): void {
    this.recent = []
  }
}
