/**
 * Hub events packed for the trace hasher's worker thread (`TraceHasher`): the frequent kinds as their field
 * values written into one byte buffer per batch (`service/domain/packedValues.ts`); other kinds, and any event
 * with a value that has no packed form (a non-ASCII string, a bigint that is negative or needs more than 128
 * bits), go as they are beside the bytes. Posting the values as an array instead cost the structured clone about
 * twice as much on each side. The worker reads the values back with their types, rebuilds the events and formats
 * each with `formatEvent`, so the lines are the ones this thread would have hashed.
 *
 * Loaded by that worker with Node's type stripping: type-only imports besides `events.ts` and
 * `packedValues.ts`, no enums, no parameter properties.
 */
import type { Bytes32 } from "../domain/hex.ts"
import { ValueReader, ValueWriter } from "../domain/packedValues.ts"
import type { IntentStatusName } from "../domain/protocol.ts"
import { formatEvent, type HubEvent } from "./events.ts"

// Tags of the packed kinds (then their fields in `HubEvent`'s order), and of an event kept whole.
const INTENT_PROCESSED = 0
const DEPOSIT_PROCESSED = 1
const DEPOSIT_ENQUEUED = 2
const SETTLEMENT_ENQUEUED = 3
const INVOICE_ENQUEUED = 4
const WHOLE = 5

/** Bytes of a batch's buffer. */
const BATCH_BYTES = 1 << 20
/**
 * A batch is full when less than this is left: room for a few events of ids (a few hundred bytes each). An event
 * with a value that does not fit in what is left is kept whole instead, so this bounds no event's size.
 */
const EVENT_ROOM = 4096

/** A batch as posted: the packed events' bytes, and the events kept whole, in the order their tags say. */
export interface PackedEvents {
  readonly bytes: Uint8Array
  readonly whole: readonly HubEvent[]
}

/** Packs events into batches (see the module's comment). */
export class EventPacker {
  private readonly writer = new ValueWriter(BATCH_BYTES)
  private whole: HubEvent[] = []
  /** Events in the current batch. */
  events = 0

  /** Whether the batch should be taken before the next event. */
  get full(): boolean {
    return this.writer.remaining < EVENT_ROOM
  }

  /**
   * Appends `event` to the batch. Throws (a RangeError, the batch unchanged) when not even its tag byte fits:
   * take the batch when `full`.
   */
  add(event: HubEvent): void {
    const start = this.writer.offset
    if (!this.pack(event)) {
      this.writer.offset = start
      this.writer.byte(WHOLE)
      this.whole.push(event)
    }
    this.events++
  }

  /** The batch so far (its bytes copied), and a new empty batch. */
  take(): PackedEvents {
    const batch = { bytes: this.writer.take(), whole: this.whole }
    this.whole = []
    this.events = 0
    return batch
  }

  /** Writes the event's tag and fields; false when a value has no packed form. */
  private pack(event: HubEvent): boolean {
    const w = this.writer
    switch (event.kind) {
      case "IntentProcessed":
        w.byte(INTENT_PROCESSED)
        return w.value(event.intentId) && w.value(event.status)
      case "DepositProcessed":
        w.byte(DEPOSIT_PROCESSED)
        return w.value(event.epoch) && w.value(event.domain) && w.value(event.tickerHash) && w.value(event.intentId) && w.value(event.amountAndRewards)
      case "DepositEnqueued":
        w.byte(DEPOSIT_ENQUEUED)
        return w.value(event.epoch) && w.value(event.domain) && w.value(event.tickerHash) && w.value(event.intentId) && w.value(event.amount)
      case "SettlementEnqueued":
        w.byte(SETTLEMENT_ENQUEUED)
        return (
          w.value(event.intentId) &&
          w.value(event.domain) &&
          w.value(event.entryEpoch) &&
          w.value(event.asset) &&
          w.value(event.amount) &&
          w.value(event.updateVirtualBalance) &&
          w.value(event.owner)
        )
      case "InvoiceEnqueued":
        w.byte(INVOICE_ENQUEUED)
        return w.value(event.intentId) && w.value(event.tickerHash) && w.value(event.entryEpoch) && w.value(event.amount) && w.value(event.owner)
      default:
        return false
    }
  }
}

/** The events of a packed batch, in order (fields in `HubEvent`'s order). */
export const unpackEvents = (batch: PackedEvents): HubEvent[] => {
  const events: HubEvent[] = []
  const r = new ValueReader(batch.bytes)
  let whole = 0
  while (!r.done) {
    const tag = r.byte()
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
  if (whole !== batch.whole.length) throw new Error(`unpackEvents: ${batch.whole.length} events kept whole, ${whole} whole-event tags`)
  return events
}

/** The trace lines of a packed batch: each event's `formatEvent` line and its newline. */
export const formatPackedEvents = (batch: PackedEvents): string => {
  let text = ""
  for (const event of unpackEvents(batch)) text += `${formatEvent(event)}\n`
  return text
}
