/**
 * Request and response schemas of the HTTP API, with exactly the field names of SPEC.md. They drive request
 * decoding, the OpenAPI document and the typed client. Amounts are decimal strings of integer units; domain
 * ids are decimal strings where the spec says string.
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as SchemaTransformation from "effect/SchemaTransformation"
import { API_INTENT_STATUSES } from "../indexer/records.ts"
import { NULL_MEANS_ABSENT } from "../domain/schemas.ts"

/**
 * A string matching `re`. Effect's JSON Schema carries a pattern only for a RegExp with the Unicode flag (its
 * meaning then matches JSON Schema's); these ASCII patterns mean the same with it, so it is added, and the OpenAPI
 * document shows the formats the API checks.
 */
const pattern = (re: RegExp, expected: string, description: string) =>
  Schema.String.check(Schema.isPattern(re.unicode ? re : new RegExp(re.source, `${re.flags}u`), { expected })).annotate({ description })

export const DomainId = pattern(/^[1-9][0-9]{0,9}$/, "a chain id (a positive uint32 as a decimal string)", "Chain id (domain), decimal string")
export const AddressString = pattern(/^0x[0-9a-fA-F]{40}$/, "a 0x-prefixed 20-byte address", "20-byte address")
export const Bytes32String = pattern(/^0x[0-9a-fA-F]{64}$/, "a 0x-prefixed 32-byte hex value", "32-byte hex value")
export const IntentId = pattern(/^0x[0-9a-fA-F]{64}$/, "a 32-byte intent id (0x + 64 hex digits)", "Intent id: keccak256 of the ABI-encoded intent")
export const AmountString = pattern(/^(0|[1-9][0-9]{0,77})$/, "an integer amount in token units as a decimal string of at most 78 digits (a uint256)", "Integer amount in token units, decimal string")
export const CalldataString = pattern(/^(0x([0-9a-fA-F]{2})*)?$/, "0x-prefixed hex bytes of even length, or an empty string", "Calldata, hex")
const IntegerString = pattern(/^(0|[1-9][0-9]{0,15})$/, "a non-negative integer of at most 16 digits, without leading zeros", "Non-negative integer, decimal string")
const BooleanString = Schema.Literals(["true", "false"]).annotate({ description: "true or false" })
const Cursor = pattern(/^[0-9]{1,16}$/, "a cursor from a previous page", "Cursor returned by a previous page")
/** `max_fee`/`maxFee`: dbps (the on-chain `_maxFee`), as a string or integer. */
/**
 * An integer JSON number in [minimum, maximum], every failure told as `expected` (a fraction too: effect's own
 * integer check says only "an integer", not what the field takes).
 */
const boundedInt = (minimum: number, maximum: number, expected: string) => Schema.Number.check(Schema.isInt({ expected }), Schema.isBetween({ minimum, maximum }, { expected }))
const MaxFee = Schema.Union([
  pattern(/^(0|[1-9][0-9]{0,5})$/, "a fee in dbps (0 to 100000)", "Maximum solver fee in dbps (1/100,000), 0 to 100000"),
  boundedInt(0, 100_000, "a fee in dbps (0 to 100000)"),
])
const Ttl = boundedInt(0, 2 ** 48 - 1, "a ttl in seconds (uint48)").annotate({
  description: "Time to live in seconds; above 0 selects the fast path and requires a solver fee",
})
const Destinations = Schema.Array(DomainId).check(Schema.isMinLength(1, { expected: "at least one destination" }), Schema.isMaxLength(10, { expected: "at most 10 destinations" }))

/**
 * An optional field of a request body that also takes JSON `null` for "absent": many JSON clients write null for
 * a field they leave out. Decoded to a missing key, so what the service receives never holds a null (a null and
 * an absent field build the same transaction; messages leave the null out: `NULL_MEANS_ABSENT`); the OpenAPI
 * document shows the field as `anyOf: [<schema>, { type: "null" }]`. Required fields stay non-nullable: a null
 * there is a 400 naming the field.
 */
const optionalOrNull = <S extends Schema.Top>(schema: S) =>
  Schema.optionalKey(Schema.NullOr(schema).annotate({ [NULL_MEANS_ABSENT]: true })).pipe(
    Schema.decodeTo(
      Schema.optionalKey(Schema.toType(schema)),
      SchemaTransformation.transformOptional({ decode: Option.filter((value) => value !== null), encode: (value) => value }),
    ),
  )

export const Permit2Params = Schema.Struct({
  nonce: optionalOrNull(Schema.String),
  deadline: optionalOrNull(Schema.String),
  signature: optionalOrNull(Schema.String),
}).annotate({
  description:
    "Permit2 SignatureTransfer parameters (POST /intents, one intent): with a real 65- or 64-byte signature the fee adapter pulls `amount` (fee included) from `from` through Permit2; " +
    "`from` signs EIP-712 PermitTransferFrom{permitted: {inputAsset, amount}, spender: the origin's fee adapter, nonce, deadline} in the domain {name: Permit2, chainId: origin, verifyingContract: 0x000000000022D473030F116dDEE9F6B43aC78BA3}. " +
    "nonce and deadline are uint256 decimal (or 0x-hex) strings. An empty, 0x or all-zero (e.g. 0x0) signature is a placeholder: the adapter uses an ERC-20 allowance instead. " +
    "In an order (an array) anything but a real signature is a placeholder and ignored; a real one is refused (Permit2NotSupportedForOrders)",
})

// ---------------------------------------------------------------------------------------------------------
// Requests

/** The optional fields of a `POST /intents` body (also taken by the route questions, below); null is taken as absent. */
const optionalIntentFields = {
  callData: optionalOrNull(CalldataString),
  ttl: optionalOrNull(Ttl),
  max_fee: optionalOrNull(MaxFee),
  maxFee: optionalOrNull(MaxFee),
  permit2Params: optionalOrNull(Permit2Params),
  order_id: optionalOrNull(Schema.String),
  isFastPath: optionalOrNull(Schema.Boolean),
}

export const IntentRequest = Schema.Struct({
  origin: DomainId,
  destinations: Destinations,
  to: AddressString.annotate({ description: "Receiver address" }),
  from: AddressString.annotate({ description: "Sender address" }),
  inputAsset: AddressString,
  outputAsset: optionalOrNull(AddressString.annotate({ description: "Destination asset; give it only for swaps or to pin the fast-path asset" })),
  amount: AmountString.annotate({ description: "Amount in the input token's decimal units, fee included" }),
  ...optionalIntentFields,
}).annotate({ identifier: "IntentRequest" })
export type IntentRequest = typeof IntentRequest.Type

export const IntentsPayload = Schema.Union([IntentRequest, Schema.Array(IntentRequest).check(Schema.isMinLength(1, { expected: "at least one intent" }))])
export type IntentsPayload = typeof IntentsPayload.Type

export const Altchain1IntentRequest = Schema.Struct({
  origin: DomainId,
  destinations: Destinations,
  to: AddressString,
  from: AddressString,
  inputAsset: AddressString,
  amount: AmountString,
  callData: optionalOrNull(CalldataString),
  maxFee: optionalOrNull(AmountString.annotate({ description: "Maximum fee in the input token's decimal units" })),
  user: optionalOrNull(Schema.String),
  userTokenAccountPublicKey: optionalOrNull(Schema.String),
  programVaultAccountPublicKey: optionalOrNull(Schema.String),
  permit2Params: optionalOrNull(Permit2Params),
  order_id: optionalOrNull(Schema.String),
}).annotate({ identifier: "Altchain1IntentRequest" })
export type Altchain1IntentRequest = typeof Altchain1IntentRequest.Type

export const LookupTableRequest = Schema.Struct({
  inputAsset: AddressString,
  user: AddressString,
  userTokenAccountPublicKey: optionalOrNull(Schema.String),
  programVaultAccountPublicKey: optionalOrNull(Schema.String),
}).annotate({ identifier: "LookupTableRequest" })
export type LookupTableRequest = typeof LookupTableRequest.Type

export const ExecuteRequest = Schema.Struct({ domain: DomainId }).annotate({ identifier: "ExecuteRequest" })
export type ExecuteRequest = typeof ExecuteRequest.Type

/**
 * The other fields of a `POST /intents` body, which the route questions take too (their format checked as there;
 * their meaning only where the answer uses it) so that a client can ask about the body it will send; a field no
 * endpoint takes is still refused.
 */
const intentBodyFields = {
  to: optionalOrNull(AddressString),
  from: optionalOrNull(AddressString),
  ...optionalIntentFields,
}

export const QuoteRequest = Schema.Struct({
  origin: DomainId,
  destinations: Destinations,
  inputAsset: AddressString,
  outputAsset: optionalOrNull(AddressString),
  amount: AmountString,
  ...intentBodyFields,
}).annotate({ identifier: "QuoteRequest" })
export type QuoteRequest = typeof QuoteRequest.Type

export const LimitsRequest = Schema.Struct({
  origin: DomainId,
  destinations: Destinations,
  inputAsset: AddressString,
  outputAsset: optionalOrNull(AddressString),
  amount: optionalOrNull(AmountString),
  ...intentBodyFields,
}).annotate({ identifier: "LimitsRequest" })
export type LimitsRequest = typeof LimitsRequest.Type

const listOf = <S extends Schema.Top>(item: S) => Schema.optionalKey(Schema.Array(item))
/** A status or a comma-separated list of them: split by the service, which then checks each (400 InvalidStatus). */
const StatusList = Schema.String.annotate({ description: `One of ${API_INTENT_STATUSES.join(", ")}, or a comma-separated list of them` })

/** An asset filter: the 20-byte address, or the 32-byte word the records show (`input_asset`). */
const AssetFilter = pattern(/^0x([0-9a-fA-F]{24})?[0-9a-fA-F]{40}$/, "a 0x-prefixed 20-byte address, or the 32-byte word records show", "Asset: a 20-byte address or its 32-byte word")

export const IntentsQuery = {
  cursor: Schema.optionalKey(Cursor),
  prevCursor: Schema.optionalKey(Cursor),
  limit: Schema.optionalKey(IntegerString.annotate({ description: "Page size, 1 to 100 (default 10)" })),
  statuses: listOf(StatusList),
  "statuses[]": listOf(StatusList),
  origins: listOf(Schema.String),
  "origins[]": listOf(Schema.String),
  destinations: listOf(Schema.String),
  "destinations[]": listOf(Schema.String),
  allDestinations: listOf(Schema.String),
  "allDestinations[]": listOf(Schema.String),
  txHash: Schema.optionalKey(Bytes32String),
  userAddress: Schema.optionalKey(AddressString),
  startDate: Schema.optionalKey(IntegerString.annotate({ description: "Created at or after, unix seconds" })),
  endDate: Schema.optionalKey(IntegerString.annotate({ description: "Created at or before, unix seconds" })),
  isFastPath: Schema.optionalKey(BooleanString),
  tickerHash: Schema.optionalKey(Bytes32String),
  asset: Schema.optionalKey(AssetFilter),
}

export const InvoicesQuery = {
  cursor: Schema.optionalKey(Schema.String.annotate({ description: "Cursor from a previous page (with sortOrderByDiscount: <dbps>-<n>)" })),
  prevCursor: Schema.optionalKey(Schema.String.annotate({ description: "prevCursor of a later page: the page ending there (with sortOrderByDiscount: <dbps>-<n>)" })),
  limit: Schema.optionalKey(IntegerString.annotate({ description: "Page size, 1 to 100 (default 10)" })),
  tickerHash: Schema.optionalKey(Bytes32String),
  origins: listOf(Schema.String),
  "origins[]": listOf(Schema.String),
  destinations: listOf(Schema.String),
  "destinations[]": listOf(Schema.String),
  sortOrderByDiscount: Schema.optionalKey(Schema.Literals(["asc", "desc"])),
}

export const BatchesQuery = {
  cursor: Schema.optionalKey(Cursor),
  limit: Schema.optionalKey(IntegerString),
  isFastPath: Schema.optionalKey(BooleanString),
  origins: listOf(Schema.String),
  "origins[]": listOf(Schema.String),
}

export const AssetsQuery = {
  page: Schema.optionalKey(IntegerString.annotate({ description: "Page number from 1 (default 1)" })),
  limit: Schema.optionalKey(IntegerString.annotate({ description: "Page size, 1 to 100 (default 100)" })),
  type: Schema.optionalKey(Schema.Literals(["default", "xerc20"]).annotate({ description: "Asset strategy" })),
  domain: Schema.optionalKey(DomainId),
}

export const HistoryQuery = {
  cursor: Schema.optionalKey(Cursor),
  limit: Schema.optionalKey(IntegerString),
  domain: Schema.optionalKey(DomainId.annotate({ description: "Only epochs whose selected destination is this domain" })),
  asset: Schema.optionalKey(
    AssetFilter.annotate({ description: "An asset of the invoice's ticker, its address or 32-byte word (SPEC: 400 for an invalid one); another ticker's asset gives no entries" }),
  ),
}

// ---------------------------------------------------------------------------------------------------------
// Responses

export const TransactionRequest = Schema.Struct({
  to: Schema.String,
  from: Schema.optionalKey(Schema.String),
  nonce: Schema.optionalKey(Schema.String),
  gasLimit: Schema.optionalKey(Schema.String),
  gasPrice: Schema.optionalKey(Schema.String),
  data: Schema.String.annotate({ description: "Calldata, hex" }),
  value: Schema.String,
  chainId: Schema.Int,
  type: Schema.optionalKey(Schema.Int),
  accessList: Schema.optionalKey(Schema.Array(Schema.Struct({ address: Schema.String, storageKeys: Schema.Array(Schema.String) }))),
  maxPriorityFeePerGas: Schema.optionalKey(Schema.String),
  maxFeePerGas: Schema.optionalKey(Schema.String),
  customData: Schema.optionalKey(Schema.Record(Schema.String, Schema.Unknown)),
  ccipReadEnabled: Schema.optionalKey(Schema.Boolean),
}).annotate({ identifier: "TransactionRequest" })
export type TransactionRequest = typeof TransactionRequest.Type

const S = Schema.NullOr(Schema.String)
/** Integers SPEC types as `integer` (null when not known yet). */
const N = Schema.NullOr(Schema.Int)

export const IntentRecord = Schema.Struct({
  intent_id: Schema.String,
  batch_id: S,
  queue_idx: N,
  message_id: S,
  status: Schema.Literals(API_INTENT_STATUSES),
  receiver: S,
  input_asset: S,
  output_asset: S,
  origin_amount: S,
  destination_amount: S,
  origin: S,
  destinations: Schema.NullOr(Schema.Array(Schema.String)),
  nonce: N,
  transaction_hash: S,
  receive_tx_hash: S,
  intent_created_timestamp: N,
  settlement_timestamp: N,
  intent_created_block_number: N,
  receive_blocknumber: N,
  tx_origin: S,
  tx_nonce: N,
  auto_id: Schema.Int,
  amount_out_min: S,
  call_data: S,
  filled: Schema.Boolean,
  initiator: S,
  native_fee: S,
  token_fee: S,
  fee_adapter_initiator: S,
  origin_gas_fees: S,
  destination_gas_fees: S,
  hub_settlement_domain: S,
  ttl: N,
  is_fast_path: Schema.NullOr(Schema.Boolean),
  fill_solver: S,
  fill_domain: S,
  fill_destinations: Schema.NullOr(Schema.Array(Schema.String)),
  fill_transaction_hash: S,
  fill_timestamp: N,
  fill_amount: S,
  fill_fee_token: S,
  fill_fee_dbps: S,
  fill_input_asset: S,
  fill_output_asset: S,
  fill_sender: S,
  fill_status: S,
  fill_initiator: S,
  fill_receiver: S,
  max_fee: S,
}).annotate({ identifier: "IntentRecord", description: "Fields not known yet are null" })

export const IntentResponse = Schema.Struct({ intent: IntentRecord })
export const IntentsPage = Schema.Struct({
  intents: Schema.Array(IntentRecord),
  nextCursor: S,
  prevCursor: S,
  maxCount: Schema.Int,
})

export const BatchListItem = Schema.Struct({
  type: Schema.Literal("batch"),
  batchId: Schema.String,
  token_fee: Schema.String,
  native_fee: Schema.String,
  intents: Schema.Array(IntentRecord),
}).annotate({ identifier: "Batch" })
export const BatchResponse = Schema.Struct({
  batchId: Schema.String,
  token_fee: Schema.String,
  native_fee: Schema.String,
  intents: Schema.Array(IntentRecord),
})
export const BatchesPage = Schema.Struct({ items: Schema.Array(BatchListItem), nextCursor: S })

export const Invoice = Schema.Struct({
  intent_id: Schema.String,
  owner: Schema.String,
  entry_epoch: Schema.Int,
  amount: Schema.String,
  discountBps: Schema.Finite.annotate({ description: "Current discount in basis points (dbps / 10, may be fractional)" }),
  origin: Schema.String,
  destinations: Schema.Array(Schema.String),
  hub_status: Schema.String,
  ticker_hash: Schema.String,
  hub_invoice_enqueued_timestamp: Schema.String,
}).annotate({ identifier: "Invoice" })
export const InvoiceResponse = Schema.Struct({ invoice: Invoice })
export const InvoicesPage = Schema.Struct({ invoices: Schema.Array(Invoice), nextCursor: S, prevCursor: S, maxCount: Schema.Int })

const DomainMap = Schema.Record(Schema.String, Schema.String)
export const MinAmounts = Schema.Struct({
  invoiceAmount: Schema.String,
  amountAfterDiscounts: DomainMap,
  discountBps: Schema.String,
  custodiedAmounts: DomainMap,
  minAmounts: DomainMap.annotate({ description: "Minimum current-epoch deposit per destination domain, 18-decimal units" }),
}).annotate({ identifier: "InvoiceMinAmounts" })

export const AssetConfig = Schema.Struct({
  local: Schema.String,
  adopted: Schema.String,
  canonical_id: Schema.String,
  canonical_domain: Schema.String,
  domain: Schema.String,
  key: Schema.String,
  id: Schema.String,
  decimal: Schema.Int,
  adopted_decimal: Schema.Int,
}).annotate({ identifier: "AssetConfig" })
export const AssetsResponse = Schema.Struct({ assets: Schema.Array(AssetConfig) })

const FastPathQuote = Schema.Struct({
  fixedFeeUnits: Schema.String,
  variableFeeBps: Schema.Finite,
  totalFeeBps: Schema.Finite,
  expectedAmount: Schema.String,
  expectedFillTime: Schema.String.annotate({ description: "Seconds" }),
})
const FastPathError = Schema.Struct({ error: Schema.String, message: Schema.String })
export const Quote = Schema.Struct({
  fixedFeeUnits: Schema.String,
  variableFeeBps: Schema.Finite,
  totalFeeBps: Schema.Finite,
  expectedAmount: Schema.String,
  currentLimit: Schema.String,
  splitCount: Schema.Int,
  reqType: Schema.Literals(["bridge", "swap", "x-swap", "invalid"]),
  fastPathQuote: Schema.optionalKey(Schema.Union([FastPathQuote, FastPathError])),
  settlementEstimate: Schema.Struct({ p25Minutes: Schema.Finite, p50Minutes: Schema.Finite, p75Minutes: Schema.Finite }),
}).annotate({ identifier: "Quote" })
export const LimitsResponse = Schema.Struct({ currentLimit: Schema.String })

export const HistoryEntry = Schema.Struct({
  epoch: Schema.Int,
  domain: Schema.Int,
  custodiedAssets: Schema.String,
  amountToBeDiscounted: Schema.String,
  rewardsForDepositors: Schema.String,
  amountAfterDiscount: Schema.String,
  discountdbps: Schema.Int,
  selectedDestinationDomain: Schema.Int,
  selectedDestinationDomainLiquidity: Schema.String,
  timestamp: Schema.String,
}).annotate({ identifier: "InvoiceProcessingHistoryEntry" })
export const HistoryPage = Schema.Struct({ invoiceProcessingHistory: Schema.Array(HistoryEntry), nextCursor: S })

export const Health = Schema.Struct({
  status: Schema.Literal("ok"),
  hubDomain: Schema.Int,
  hubBlockNumber: Schema.Int,
  epoch: Schema.Int,
  intents: Schema.Int,
  openInvoices: Schema.Int,
})
