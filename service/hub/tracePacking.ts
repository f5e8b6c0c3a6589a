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

// Repeat slots (`ValueWriter.valueInSlot`) of the fields that often hold the value they held in the event before:
// an intent's id over its few events, the ticker, the epoch, an asset. A field of one kind may share its slot
// with the same field of another kind. Every event kept whole makes both sides forget their slots.
const SLOT_INTENT_ID = 0
const SLOT_STATUS = 1
const SLOT_EPOCH = 2
const SLOT_TICKER = 3
const SLOT_DEPOSIT_DOMAIN = 4
const SLOT_SETTLEMENT_DOMAIN = 5
const SLOT_ENTRY_EPOCH = 6
const SLOT_ASSET = 7
const SLOT_UPDATE_VIRTUAL_BALANCE = 8

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
      // Slots may hold values of the fields packed before the one refused, which the reader will not see.
      this.writer.forget()
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
        return w.valueInSlot(SLOT_INTENT_ID, event.intentId) && w.valueInSlot(SLOT_STATUS, event.status)
      case "DepositProcessed":
        w.byte(DEPOSIT_PROCESSED)
        return (
          w.valueInSlot(SLOT_EPOCH, event.epoch) &&
          w.valueInSlot(SLOT_DEPOSIT_DOMAIN, event.domain) &&
          w.valueInSlot(SLOT_TICKER, event.tickerHash) &&
          w.valueInSlot(SLOT_INTENT_ID, event.intentId) &&
          w.value(event.amountAndRewards)
        )
      case "DepositEnqueued":
        w.byte(DEPOSIT_ENQUEUED)
        return (
          w.valueInSlot(SLOT_EPOCH, event.epoch) &&
          w.valueInSlot(SLOT_DEPOSIT_DOMAIN, event.domain) &&
          w.valueInSlot(SLOT_TICKER, event.tickerHash) &&
          w.valueInSlot(SLOT_INTENT_ID, event.intentId) &&
          w.value(event.amount)
        )
      case "SettlementEnqueued":
        w.byte(SETTLEMENT_ENQUEUED)
        return (
          w.valueInSlot(SLOT_INTENT_ID, event.intentId) &&
          w.valueInSlot(SLOT_SETTLEMENT_DOMAIN, event.domain) &&
          w.valueInSlot(SLOT_ENTRY_EPOCH, event.entryEpoch) &&
          w.valueInSlot(SLOT_ASSET, event.asset) &&
          w.value(event.amount) &&
          w.valueInSlot(SLOT_UPDATE_VIRTUAL_BALANCE, event.updateVirtualBalance) &&
          w.value(event.owner)
        )
      case "InvoiceEnqueued":
        w.byte(INVOICE_ENQUEUED)
        return (
          w.valueInSlot(SLOT_INTENT_ID, event.intentId) &&
          w.valueInSlot(SLOT_TICKER, event.tickerHash) &&
          w.valueInSlot(SLOT_ENTRY_EPOCH, event.entryEpoch) &&
          w.value(event.amount) &&
          w.value(event.owner)
        )
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
        const intentId: Bytes32 = r.valueInSlot(SLOT_INTENT_ID)
        const status: IntentStatusName = r.valueInSlot(SLOT_STATUS)
        events.push({ kind: "IntentProcessed", intentId, status })
        break
      }
      case DEPOSIT_PROCESSED:
        events.push({
          kind: "DepositProcessed",
          epoch: r.valueInSlot(SLOT_EPOCH),
          domain: r.valueInSlot(SLOT_DEPOSIT_DOMAIN),
          tickerHash: r.valueInSlot(SLOT_TICKER),
          intentId: r.valueInSlot(SLOT_INTENT_ID),
          amountAndRewards: r.value(),
        })
        break
      case DEPOSIT_ENQUEUED:
        events.push({
          kind: "DepositEnqueued",
          epoch: r.valueInSlot(SLOT_EPOCH),
          domain: r.valueInSlot(SLOT_DEPOSIT_DOMAIN),
          tickerHash: r.valueInSlot(SLOT_TICKER),
          intentId: r.valueInSlot(SLOT_INTENT_ID),
          amount: r.value(),
        })
        break
      case SETTLEMENT_ENQUEUED:
        events.push({
          kind: "SettlementEnqueued",
          intentId: r.valueInSlot(SLOT_INTENT_ID),
          domain: r.valueInSlot(SLOT_SETTLEMENT_DOMAIN),
          entryEpoch: r.valueInSlot(SLOT_ENTRY_EPOCH),
          asset: r.valueInSlot(SLOT_ASSET),
          amount: r.value(),
          updateVirtualBalance: r.valueInSlot(SLOT_UPDATE_VIRTUAL_BALANCE),
          owner: r.value(),
        })
        break
      case INVOICE_ENQUEUED:
        events.push({
          kind: "InvoiceEnqueued",
          intentId: r.valueInSlot(SLOT_INTENT_ID),
          tickerHash: r.valueInSlot(SLOT_TICKER),
          entryEpoch: r.valueInSlot(SLOT_ENTRY_EPOCH),
          amount: r.value(),
          owner: r.value(),
        })
        break
      case WHOLE: {
        r.forget()
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
