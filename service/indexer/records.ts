/**
 * The resources of the read model, with exactly the field names of SPEC.md ("Resources and their fields").
 *
 * Conventions (documented in `service/api/README.md`):
 * - domain ids are decimal strings where the spec types them `string`, JSON numbers where it says integer;
 * - amounts are decimal strings of integer units (never JSON numbers, which lose precision above 2^53),
 *   including the history fields the spec types as integers;
 * - a field whose value is not known yet (no fill, no settlement) is `null`;
 * - 32-byte protocol words (receiver, assets, initiator, owner) are lowercase `0x` + 64 hex digits, as the
 *   protocol stores them; transaction senders are lowercase 20-byte addresses.
 */

/** API intent status (reference §6.4). */
export const API_INTENT_STATUSES = [
  "NONE",
  "ADDED",
  "ADDED_SPOKE",
  "ADDED_HUB",
  "DEPOSIT_PROCESSED",
  "FILLED",
  "ADDED_AND_FILLED",
  "INVOICED",
  "SETTLED",
  "SETTLED_AND_COMPLETED",
  "SETTLED_AND_MANUALLY_EXECUTED",
  "UNSUPPORTED",
  "UNSUPPORTED_RETURNED",
  "DISPATCHED_HUB",
  "DISPATCHED_SPOKE",
  "DISPATCHED_UNSUPPORTED",
] as const
export type ApiIntentStatus = (typeof API_INTENT_STATUSES)[number]

/** The Intent record of SPEC.md, every field of its table, in its order. */
export interface IntentRecord {
  intent_id: string
  batch_id: string | null
  queue_idx: number | null
  message_id: string | null
  status: ApiIntentStatus
  receiver: string | null
  input_asset: string | null
  output_asset: string | null
  origin_amount: string | null
  destination_amount: string | null
  origin: string | null
  destinations: string[] | null
  nonce: number | null
  transaction_hash: string | null
  receive_tx_hash: string | null
  intent_created_timestamp: number | null
  settlement_timestamp: number | null
  intent_created_block_number: number | null
  receive_blocknumber: number | null
  tx_origin: string | null
  tx_nonce: number | null
  auto_id: number
  amount_out_min: string | null
  call_data: string | null
  filled: boolean
  initiator: string | null
  native_fee: string | null
  token_fee: string | null
  fee_adapter_initiator: string | null
  origin_gas_fees: string | null
  destination_gas_fees: string | null
  hub_settlement_domain: string | null
  ttl: number | null
  is_fast_path: boolean | null
  fill_solver: string | null
  fill_domain: string | null
  fill_destinations: string[] | null
  fill_transaction_hash: string | null
  fill_timestamp: number | null
  fill_amount: string | null
  fill_fee_token: string | null
  fill_fee_dbps: string | null
  fill_input_asset: string | null
  fill_output_asset: string | null
  fill_sender: string | null
  fill_status: string | null
  fill_initiator: string | null
  fill_receiver: string | null
  max_fee: string | null
}

/** An intent-queue dispatch (one INTENT message): `batchId` is the message id. */
export interface BatchRecord {
  readonly type: "batch"
  readonly batchId: string
  readonly token_fee: string
  readonly native_fee: string
  readonly intents: readonly IntentRecord[]
}

/** An open invoice with its current discount (`discountBps` in basis points, a decimal number). */
export interface InvoiceRecord {
  readonly intent_id: string
  readonly owner: string
  readonly entry_epoch: number
  readonly amount: string
  readonly discountBps: number
  readonly origin: string
  readonly destinations: readonly string[]
  readonly hub_status: string
  readonly ticker_hash: string
  readonly hub_invoice_enqueued_timestamp: string
}

/** What the hub decided for an invoice in one epoch (the last evaluation of that epoch). */
export interface InvoiceProcessingHistoryEntry {
  readonly epoch: number
  /** Origin domain of the invoiced intent (the hub domain for fee-withdrawal payments). */
  readonly domain: number
  /** Custodied liquidity (18 decimals) summed over the invoice's candidate settlement domains. */
  readonly custodiedAssets: string
  readonly amountToBeDiscounted: string
  readonly rewardsForDepositors: string
  readonly amountAfterDiscount: string
  readonly discountdbps: number
  /** 0 when no domain could settle the invoice in that epoch. */
  readonly selectedDestinationDomain: number
  readonly selectedDestinationDomainLiquidity: string
  /** Hub time of the evaluation, unix seconds as a decimal string. */
  readonly timestamp: string
}
