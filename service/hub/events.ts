/**
 * Hub events (reference §4.7), one object per state change, with the reference's names and fields in the
 * reference's order. Amounts are 18-decimal bigints; the JSON line form prints them as decimal strings.
 */
import type { Bytes32 } from "../domain/hex.ts"
import type { IntentStatusName } from "../domain/protocol.ts"

export type HubEvent =
  | { readonly kind: "IntentProcessed"; readonly intentId: Bytes32; readonly status: IntentStatusName }
  | { readonly kind: "FillProcessed"; readonly intentId: Bytes32; readonly status: IntentStatusName }
  | {
      readonly kind: "DepositEnqueued"
      readonly epoch: number
      readonly domain: number
      readonly tickerHash: Bytes32
      readonly intentId: Bytes32
      readonly amount: bigint
    }
  | {
      readonly kind: "DepositProcessed"
      readonly epoch: number
      readonly domain: number
      readonly tickerHash: Bytes32
      readonly intentId: Bytes32
      readonly amountAndRewards: bigint
    }
  | {
      readonly kind: "InvoiceEnqueued"
      readonly intentId: Bytes32
      readonly tickerHash: Bytes32
      readonly entryEpoch: number
      readonly amount: bigint
      readonly owner: Bytes32
    }
  | {
      readonly kind: "SettlementEnqueued"
      readonly intentId: Bytes32
      readonly domain: number
      readonly entryEpoch: number
      readonly asset: Bytes32
      readonly amount: bigint
      readonly updateVirtualBalance: boolean
      readonly owner: Bytes32
    }
  | { readonly kind: "SettlementQueueProcessed"; readonly messageId: Bytes32; readonly domain: number; readonly amount: number; readonly quote: bigint }
  | { readonly kind: "ClosedEpochsProcessed"; readonly tickerHash: Bytes32; readonly lastClosedEpochProcessed: number }
  | { readonly kind: "ExpiredIntentsHandled"; readonly intentIds: readonly Bytes32[] }
  | { readonly kind: "ReturnUnsupportedIntent"; readonly domain: number; readonly messageId: Bytes32; readonly intentId: Bytes32 }
  | {
      readonly kind: "FeesWithdrawn"
      readonly withdrawer: Bytes32
      readonly feeRecipient: Bytes32
      readonly tickerHash: Bytes32
      readonly amount: bigint
      readonly paymentId: Bytes32
    }
  | { readonly kind: "IncreaseVirtualBalanceSet"; readonly user: Bytes32; readonly status: boolean }
  | { readonly kind: "SolverConfigUpdated"; readonly solver: Bytes32; readonly supportedDomains: readonly number[] }
  | { readonly kind: "EpochLengthUpdated"; readonly oldLength: number; readonly newLength: number }
  /** `pause()` / `unpause()` (reference §3.14, event names of §4.7's admin events); `caller` is who called it. */
  | { readonly kind: "Paused"; readonly caller: Bytes32 }
  | { readonly kind: "Unpaused"; readonly caller: Bytes32 }
  /** A hub call that reverted: nothing changed. Part of the trace so that diverging agents are caught. */
  | { readonly kind: "Reverted"; readonly call: string; readonly error: string; readonly message: string }

export type HubEventKind = HubEvent["kind"]

/** Receives every hub event in emission order. */
export interface HubEventSink {
  emit(event: HubEvent): void
}

const jsonValue = (value: unknown): string => {
  switch (typeof value) {
    case "bigint":
      return `"${value}"`
    case "number":
    case "boolean":
      return String(value)
    case "string":
      return JSON.stringify(value)
    default:
      if (Array.isArray(value)) return `[${value.map(jsonValue).join(",")}]`
      throw new Error(`unexpected event field value ${String(value)}`)
  }
}

/** The generic form: every own enumerable field in insertion order (events of unknown kinds). */
const formatFields = (event: object): string => {
  let out = "{"
  let first = true
  for (const key in event) {
    out += `${first ? "" : ","}"${key}":${jsonValue((event as Record<string, unknown>)[key])}`
    first = false
  }
  return `${out}}`
}

// Per-field forms, identical to `jsonValue` (which they fall back to, and which throws, on another type).
const str = (value: string): string => (typeof value === "string" ? JSON.stringify(value) : jsonValue(value))
const num = (value: number): string => (typeof value === "number" ? `${value}` : jsonValue(value))
const big = (value: bigint): string => (typeof value === "bigint" ? `"${value}"` : jsonValue(value))
const bool = (value: boolean): string => (typeof value === "boolean" ? `${value}` : jsonValue(value))

/**
 * One JSON line (no newline) with the event's fields in declaration order; bigints as decimal strings.
 *
 * Each kind is written by hand, fields in the order `HubEvent` declares them, which is the order every
 * emitting site creates them in: the text is what walking the object's keys gives (`formatFields`, kept for
 * kinds not listed), without the generic walk.
 */
export const formatEvent = (event: HubEvent): string => {
  switch (event.kind) {
    case "IntentProcessed":
      return `{"kind":"IntentProcessed","intentId":${str(event.intentId)},"status":${str(event.status)}}`
    case "FillProcessed":
      return `{"kind":"FillProcessed","intentId":${str(event.intentId)},"status":${str(event.status)}}`
    case "DepositEnqueued":
      return `{"kind":"DepositEnqueued","epoch":${num(event.epoch)},"domain":${num(event.domain)},"tickerHash":${str(event.tickerHash)},"intentId":${str(event.intentId)},"amount":${big(event.amount)}}`
    case "DepositProcessed":
      return `{"kind":"DepositProcessed","epoch":${num(event.epoch)},"domain":${num(event.domain)},"tickerHash":${str(event.tickerHash)},"intentId":${str(event.intentId)},"amountAndRewards":${big(event.amountAndRewards)}}`
    case "InvoiceEnqueued":
      return `{"kind":"InvoiceEnqueued","intentId":${str(event.intentId)},"tickerHash":${str(event.tickerHash)},"entryEpoch":${num(event.entryEpoch)},"amount":${big(event.amount)},"owner":${str(event.owner)}}`
    case "SettlementEnqueued":
      return `{"kind":"SettlementEnqueued","intentId":${str(event.intentId)},"domain":${num(event.domain)},"entryEpoch":${num(event.entryEpoch)},"asset":${str(event.asset)},"amount":${big(event.amount)},"updateVirtualBalance":${bool(event.updateVirtualBalance)},"owner":${str(event.owner)}}`
    case "SettlementQueueProcessed":
      return `{"kind":"SettlementQueueProcessed","messageId":${str(event.messageId)},"domain":${num(event.domain)},"amount":${num(event.amount)},"quote":${big(event.quote)}}`
    case "ClosedEpochsProcessed":
      return `{"kind":"ClosedEpochsProcessed","tickerHash":${str(event.tickerHash)},"lastClosedEpochProcessed":${num(event.lastClosedEpochProcessed)}}`
    default:
      return formatFields(event)
  }
}
