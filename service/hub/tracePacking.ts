/**
 * Hub events packed for the trace hasher's worker thread (`TraceHasher`): the frequent kinds as their field
 * values written into one byte buffer per batch, each value a type byte and its bytes (a string's ASCII, a
 * number's float64, a bigint's one or two 64-bit limbs, a boolean's type alone); other kinds, and any event with a
 * value outside those forms (a non-ASCII string, a bigint that is negative or needs more than 128 bits), go as
 * they are beside the bytes. Posting a batch then costs a copy of its bytes. Posting the same values as an array
 * of strings, numbers and bigints cost the structured clone about 1 µs per event, three events per intent (0.8 s
 * of an 11 s profile of 6 virtual hours of the stress scenario), and as many again to read it in the worker. The
 * worker reads the values back with their types, rebuilds the events and formats each with `formatEvent`, so the
 * lines are the ones this thread would have hashed.
 *
 * Loaded by that worker with Node's type stripping: type-only imports besides `events.ts`, no enums, no
 * parameter properties.
 */
import type { Bytes32 } from "../domain/hex.ts"
import type { IntentStatusName } from "../domain/protocol.ts"
import { formatEvent, type HubEvent } from "./events.ts"

// Tags of the packed kinds (then their fields in `HubEvent`'s order), and of an event kept whole.
const INTENT_PROCESSED = 0
const DEPOSIT_PROCESSED = 1
const DEPOSIT_ENQUEUED = 2
const SETTLEMENT_ENQUEUED = 3
const INVOICE_ENQUEUED = 4
const WHOLE = 5

// Types of packed values.
const STRING = 1
const NUMBER = 2
const BIGINT_64 = 3
const BIGINT_128 = 4
const TRUE = 5
const FALSE = 6

const MAX_U64 = (1n << 64n) - 1n
const MAX_U128 = (1n << 128n) - 1n

/** Bytes of a batch's buffer. */
const BATCH_BYTES = 1 << 20
/** A batch is full when less than this is left: more than any packed event needs (its strings are ids). */
const EVENT_ROOM = 4096

/** A batch as posted: the packed events' bytes, and the events kept whole, in the order their tags say. */
export interface PackedEvents {
  readonly bytes: Uint8Array
  readonly whole: readonly HubEvent[]
}

/** Packs events into batches (see the module's comment). */
export class EventPacker {
  private buffer = Buffer.allocUnsafeSlow(BATCH_BYTES)
  private view = new DataView(this.buffer.buffer, this.buffer.byteOffset, this.buffer.byteLength)
  private offset = 0
  private whole: HubEvent[] = []
  /** Events in the current batch. */
  events = 0

  /** Whether the batch should be taken before the next event. */
  get full(): boolean {
    return this.offset > BATCH_BYTES - EVENT_ROOM
  }

  /** Appends `event` to the batch. */
  add(event: HubEvent): void {
    const start = this.offset
    if (!this.pack(event)) {
      this.offset = start
      this.buffer[this.offset++] = WHOLE
      this.whole.push(event)
    }
    this.events++
  }

  /** The batch so far (its bytes copied), and a new empty batch. */
  take(): PackedEvents {
    const batch = { bytes: this.buffer.slice(0, this.offset), whole: this.whole }
    this.offset = 0
    this.whole = []
    this.events = 0
    return batch
  }

  /** Writes the event's tag and fields; false (the offset left anywhere) when a value has no packed form. */
  private pack(event: HubEvent): boolean {
    switch (event.kind) {
      case "IntentProcessed":
        this.buffer[this.offset++] = INTENT_PROCESSED
        return this.value(event.intentId) && this.value(event.status)
      case "DepositProcessed":
        this.buffer[this.offset++] = DEPOSIT_PROCESSED
        return this.value(event.epoch) && this.value(event.domain) && this.value(event.tickerHash) && this.value(event.intentId) && this.value(event.amountAndRewards)
      case "DepositEnqueued":
        this.buffer[this.offset++] = DEPOSIT_ENQUEUED
        return this.value(event.epoch) && this.value(event.domain) && this.value(event.tickerHash) && this.value(event.intentId) && this.value(event.amount)
      case "SettlementEnqueued":
        this.buffer[this.offset++] = SETTLEMENT_ENQUEUED
        return (
          this.value(event.intentId) &&
          this.value(event.domain) &&
          this.value(event.entryEpoch) &&
          this.value(event.asset) &&
          this.value(event.amount) &&
          this.value(event.updateVirtualBalance) &&
          this.value(event.owner)
        )
      case "InvoiceEnqueued":
        this.buffer[this.offset++] = INVOICE_ENQUEUED
        return this.value(event.intentId) && this.value(event.tickerHash) && this.value(event.entryEpoch) && this.value(event.amount) && this.value(event.owner)
      default:
        return false
    }
  }

  /** Writes one value with its type; false when it has no packed form or does not fit. */
  private value(v: unknown): boolean {
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
        this.buffer[at] = NUMBER
        this.view.setFloat64(at + 1, v, true)
        this.offset = at + 9
        return true
      case "bigint":
        if (v < 0n || v > MAX_U128) return false
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
        this.buffer[at] = v ? TRUE : FALSE
        this.offset = at + 1
        return true
      default:
        return false
    }
  }
}

/** Reads a batch's values back, in order. */
class PackedReader {
  private offset = 0
  private readonly bytes: Buffer
  private readonly view: DataView

  constructor(bytes: Uint8Array) {
    this.bytes = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  }

  get done(): boolean {
    return this.offset >= this.bytes.length
  }

  tag(): number {
    return this.bytes[this.offset++]!
  }

  // Typed as the field it is read into: the value has whatever type was packed, as the event had it.
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
      default:
        throw new Error(`unpackEvents: unknown value type ${String(type)} at byte ${at}`)
    }
  }
}

/** The events of a packed batch, in order (fields in `HubEvent`'s order). */
export const unpackEvents = (batch: PackedEvents): HubEvent[] => {
  const events: HubEvent[] = []
  const r = new PackedReader(batch.bytes)
  let whole = 0
  while (!r.done) {
    const tag = r.tag()
    switch (tag) {
      case INTENT_PROCESSED: {
        const intentId: Bytes32 = r.value()
        const status: IntentStatusName = r.value()
        events.push({ kind: "IntentProcessed", intentId, status })
        break
      }
      case DEPOSIT_PROCESSED:
        events.push({ kind: "DepositProcessed", epoch: r.value(), domain: r.value(), tickerHash: r.value(), intentId: r.value(), amountAndRewards: r.value() })
        break
      case DEPOSIT_ENQUEUED:
        events.push({ kind: "DepositEnqueued", epoch: r.value(), domain: r.value(), tickerHash: r.value(), intentId: r.value(), amount: r.value() })
        break
      case SETTLEMENT_ENQUEUED:
        events.push({
          kind: "SettlementEnqueued",
          intentId: r.value(),
          domain: r.value(),
          entryEpoch: r.value(),
          asset: r.value(),
          amount: r.value(),
          updateVirtualBalance: r.value(),
          owner: r.value(),
        })
        break
      case INVOICE_ENQUEUED:
        events.push({ kind: "InvoiceEnqueued", intentId: r.value(), tickerHash: r.value(), entryEpoch: r.value(), amount: r.value(), owner: r.value() })
        break
      case WHOLE: {
        const event = batch.whole[whole++]
        if (event === undefined) throw new Error("unpackEvents: more whole-event tags than events kept whole")
        events.push(event)
        break
      }
      default:
        throw new Error(`unpackEvents: unknown tag ${String(tag)}`)
    }
  }
  return events
}

/** The trace lines of a packed batch: each event's `formatEvent` line and its newline. */
export const formatPackedEvents = (batch: PackedEvents): string => {
  let text = ""
  for (const event of unpackEvents(batch)) text += `${formatEvent(event)}\n`
  return text
}
