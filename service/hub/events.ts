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

/** One JSON line (no newline) with the event's fields in declaration order; bigints as decimal strings. */
export const formatEvent = (event: HubEvent): string => {
  let out = "{"
  let first = true
  for (const key in event) {
    out += `${first ? "" : ","}"${key}":${jsonValue((event as Record<string, unknown>)[key])}`
    first = false
  }
  return `${out}}`
}
