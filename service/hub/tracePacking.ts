/**
 * Hub events packed for the trace hasher's worker thread (`TraceHasher`): the frequent kinds as flat runs of
 * field values in one array per batch, the others as they are. Posting an array of strings, numbers and
 * bigints costs a third of posting the event objects, whose field names the structured clone would write out
 * again for every event. The worker turns a batch back into the events and formats each with `formatEvent`, so
 * the lines are the ones this thread would have hashed.
 *
 * Loaded by that worker with Node's type stripping: type-only imports besides `events.ts`, no enums, no
 * parameter properties.
 */
import type { Bytes32 } from "../domain/hex.ts"
import type { IntentStatusName } from "../domain/protocol.ts"
import { formatEvent, type HubEvent } from "./events.ts"

// Tags of the packed kinds (then their fields in this order), and of an event posted whole.
const INTENT_PROCESSED = 0
const DEPOSIT_PROCESSED = 1
const DEPOSIT_ENQUEUED = 2
const SETTLEMENT_ENQUEUED = 3
const INVOICE_ENQUEUED = 4
const WHOLE = 5

/** Appends `event` to the batch `out`. */
export const packEvent = (out: unknown[], event: HubEvent): void => {
  switch (event.kind) {
    case "IntentProcessed":
      out.push(INTENT_PROCESSED, event.intentId, event.status)
      return
    case "DepositProcessed":
      out.push(DEPOSIT_PROCESSED, event.epoch, event.domain, event.tickerHash, event.intentId, event.amountAndRewards)
      return
    case "DepositEnqueued":
      out.push(DEPOSIT_ENQUEUED, event.epoch, event.domain, event.tickerHash, event.intentId, event.amount)
      return
    case "SettlementEnqueued":
      out.push(SETTLEMENT_ENQUEUED, event.intentId, event.domain, event.entryEpoch, event.asset, event.amount, event.updateVirtualBalance, event.owner)
      return
    case "InvoiceEnqueued":
      out.push(INVOICE_ENQUEUED, event.intentId, event.tickerHash, event.entryEpoch, event.amount, event.owner)
      return
    default:
      out.push(WHOLE, event)
  }
}

/** The events of a packed batch, in order (fields in `HubEvent`'s order). */
export const unpackEvents = (batch: readonly unknown[]): HubEvent[] => {
  const events: HubEvent[] = []
  const v = batch as readonly never[]
  for (let i = 0; i < v.length; ) {
    const tag = v[i] as unknown as number
    switch (tag) {
      case INTENT_PROCESSED:
        events.push({ kind: "IntentProcessed", intentId: v[i + 1]! as Bytes32, status: v[i + 2]! as IntentStatusName })
        i += 3
        break
      case DEPOSIT_PROCESSED:
        events.push({ kind: "DepositProcessed", epoch: v[i + 1]!, domain: v[i + 2]!, tickerHash: v[i + 3]!, intentId: v[i + 4]!, amountAndRewards: v[i + 5]! })
        i += 6
        break
      case DEPOSIT_ENQUEUED:
        events.push({ kind: "DepositEnqueued", epoch: v[i + 1]!, domain: v[i + 2]!, tickerHash: v[i + 3]!, intentId: v[i + 4]!, amount: v[i + 5]! })
        i += 6
        break
      case SETTLEMENT_ENQUEUED:
        events.push({
          kind: "SettlementEnqueued",
          intentId: v[i + 1]!,
          domain: v[i + 2]!,
          entryEpoch: v[i + 3]!,
          asset: v[i + 4]!,
          amount: v[i + 5]!,
          updateVirtualBalance: v[i + 6]!,
          owner: v[i + 7]!,
        })
        i += 8
        break
      case INVOICE_ENQUEUED:
        events.push({ kind: "InvoiceEnqueued", intentId: v[i + 1]!, tickerHash: v[i + 2]!, entryEpoch: v[i + 3]!, amount: v[i + 4]!, owner: v[i + 5]! })
        i += 6
        break
      case WHOLE:
        events.push(v[i + 1]!)
        i += 2
        break
      default:
        throw new Error(`unpackEvents: unknown tag ${String(tag)} at ${i}`)
    }
  }
  return events
}

/** The trace lines of a packed batch: each event's `formatEvent` line and its newline. */
export const formatPackedEvents = (batch: readonly unknown[]): string => {
  let text = ""
  for (const event of unpackEvents(batch)) text += `${formatEvent(event)}\n`
  return text
}
