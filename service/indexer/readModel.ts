/**
 * The read model behind the API: intent records, batches, open invoices with their processing history, and the
 * observations behind quotes (settlement times, solver inventory). It is fed by
 * - hub events (`hubSink()`), with the hub block and time at emission, and the hub's invoice evaluations
 *   (it is the hub's `HubObserver` once `attachHub` ran);
 * - decoded spoke events with their transaction (`onSpokeEvent`), see `inputs.ts`;
 * - transport deliveries (`onDelivery`).
 * Pure, synchronous and deterministic: time comes only from the events. Every query is answered from maps and
 * ordered indexes (cursor pages in O(page · log n)).
 */
import { type Address, addressToBytes32, type Bytes32, bytes32ToAddress, type Hex, isAddressWord } from "../domain/hex.ts"
import { BoundedMemo } from "../domain/boundedMemo.ts"
import { BigintColumn } from "../domain/bigintColumn.ts"
import { keccak256Utf8 } from "../domain/keccak.ts"
import { DBPS_DENOMINATOR, type Intent, normalizeDecimals, NORMALIZED_DECIMALS } from "../domain/protocol.ts"
import type { DomainAsset } from "../hub/config.ts"
import type { HubEvent, HubEventSink } from "../hub/events.ts"
import type { Hub } from "../hub/hub.ts"
import { IdMap } from "../domain/idMap.ts"
import type { HubObserver, InvoiceEvaluation, InvoiceNode, TickerState } from "../hub/state.ts"
import { type Delivery, memoryTxHash, type SpokeEventBody, type SpokeEventMeta } from "./inputs.ts"
import { custodyOn, InvoiceIndex, type InvoicePage, type InvoiceQuery, invoiceRecord } from "./invoices.ts"
import { type InvoiceMinAmounts, MinAmountsCache } from "./minAmounts.ts"
import { type ApiIntentStatus, type BatchRecord, type IntentRecord, type InvoiceProcessingHistoryEntry, type InvoiceRecord } from "./records.ts"
import { KeyedSeqs, mergeAsc, mergeDesc, RangeSeqs, type SeqSource, SortedSeqs } from "./sequence.ts"
import { SettlementTimes } from "./settlementTimes.ts"
import { deriveStatus, type HubStatus, type OriginStatus, type SettlementStatus } from "./status.ts"

/** What a fill told the read model (fast path): the `fill_*` fields of the record. */
interface FillFacts {
  readonly solver: string
  readonly domain: number
  readonly txHash: string
  readonly timestamp: number
  /** Token units the receiver got, and the solver's fee (destination decimals). */
  readonly amount: bigint
  readonly feeToken: bigint
  readonly feeDbps: bigint
  readonly intent: Intent
  readonly sender: string
  readonly gasFee: bigint | undefined
}

/**
 * Whether the intent's calldata is still to be executed once settled: it has calldata, no fill ran it (a fill
 * executes it, reference §4.3), and the hub settled on its first destination (`executeIntentCalldata` runs
 * only there, §4.5; settled elsewhere, the spoke of the first destination never reaches SETTLED). Unknown
 * settlement domain (not enqueued yet): pending.
 */
export const calldataPending = (e: IntentEntry): boolean =>
  e.intent !== undefined &&
  e.intent.data !== "0x" &&
  e.fill === undefined &&
  (e.settlementDomain === undefined || e.settlementDomain === e.intent.destinations[0])

const COLUMN_START = 1024

/** A memory-backend transaction's index in its block, when its hash is to be made from it (else its hash is read). */
const lazyTxIndex = (meta: SpokeEventMeta): number | undefined => {
  const index = meta.memoryTxIndex
  return index !== undefined && Number.isSafeInteger(index) && index >= 0 ? index : undefined
}

/**
 * The transaction that created each entry's intent (`IntentAdded`), by seq: its facts in columns rather than the
 * event's meta object kept per intent. A memory-backend transaction's hash is made from its domain, block and
 * index when read (`memoryTxHash`), as the meta would have made it.
 */
class CreatedTransactions {
  private blockNumbers = new Float64Array(COLUMN_START)
  private timestamps = new Float64Array(COLUMN_START)
  private domains = new Float64Array(COLUMN_START)
  private txNonces = new Float64Array(COLUMN_START)
  /** The memory backend's index of the transaction in its block; -1 when its hash is in `txHashes`. */
  private txIndexes = new Float64Array(COLUMN_START)
  /** One slot per entry, in seq order (kept packed); undefined: no creating transaction seen. */
  private readonly txFroms: (Address | undefined)[] = []
  private readonly txHashes: (Hex | undefined)[] = []
  private readonly gasFees = new BigintColumn()

  /** A slot for the next entry. */
  add(): void {
    this.txFroms.push(undefined)
    this.txHashes.push(undefined)
  }

  /** Keeps the transaction's facts; returns its memory-backend index when its hash is to be made from it. */
  set(seq: number, meta: SpokeEventMeta): number | undefined {
    if (seq >= this.blockNumbers.length) this.grow(seq)
    this.blockNumbers[seq] = meta.blockNumber
    this.timestamps[seq] = meta.timestamp
    this.domains[seq] = meta.domain
    this.txNonces[seq] = meta.txNonce
    const index = lazyTxIndex(meta)
    this.txIndexes[seq] = index ?? -1
    this.txHashes[seq] = index === undefined ? meta.txHash : undefined
    this.txFroms[seq] = meta.txFrom
    this.gasFees.set(seq, meta.gasFee)
    return index
  }

  private grow(seq: number): void {
    let size = this.blockNumbers.length
    while (size <= seq) size *= 2
    const grown = (old: Float64Array<ArrayBuffer>): Float64Array<ArrayBuffer> => {
      const next = new Float64Array(size)
      next.set(old)
      return next
    }
    this.blockNumbers = grown(this.blockNumbers)
    this.timestamps = grown(this.timestamps)
    this.domains = grown(this.domains)
    this.txNonces = grown(this.txNonces)
    this.txIndexes = grown(this.txIndexes)
  }

  txFrom(seq: number): Address | undefined {
    return this.txFroms[seq]
  }

  txHash(seq: number): Hex | undefined {
    if (this.txFroms[seq] === undefined) return undefined
    const index = this.txIndexes[seq]!
    return index < 0 ? this.txHashes[seq] : memoryTxHash(this.domains[seq]!, this.blockNumbers[seq]!, index)
  }

  /** The transaction as its event told it (a new object each call). */
  meta(seq: number): SpokeEventMeta | undefined {
    const txFrom = this.txFroms[seq]
    if (txFrom === undefined) return undefined
    const gasFee = this.gasFees.get(seq)
    const index = this.txIndexes[seq]!
    return {
      domain: this.domains[seq]!,
      blockNumber: this.blockNumbers[seq]!,
      timestamp: this.timestamps[seq]!,
      txHash: this.txHash(seq)!,
      txFrom,
      txNonce: this.txNonces[seq]!,
      ...(gasFee === undefined ? {} : { gasFee }),
      ...(index < 0 ? {} : { memoryTxIndex: index }),
    }
  }
}

// An entry's references, `REFS` slots per entry side by side (an entry's refs share a cache line or two), in
// chunks of `1 << CHUNK_BITS` entries (no reallocation of one ever larger array as entries are added). A chunk
// stays well under the length at which V8 makes `new Array(length)` a dictionary (65,536 in Node 22's V8).
const REFS = 13
const CHUNK_BITS = 11
const CHUNK_MASK = (1 << CHUNK_BITS) - 1
const R_ID = 0
const R_INTENT = 1
const R_TICKER = 2
const R_OWNER = 3
const R_BATCH = 4
const R_FEE_INITIATOR = 5
const R_RECEIVED = 6
const R_JSON = 7
const R_RESPONSE_JSON = 8
const R_ORIGIN_STATUS = 9
const R_HUB_STATUS = 10
const R_SETTLEMENT_STATUS = 11
const R_COUNTED_STATUS = 12
// An entry's numbers, `NUMS` per entry (NaN: not known).
const NUMS = 2
const N_SETTLEMENT_DOMAIN = 0
const N_QUEUE_IDX = 1
// An entry's small facts, `BYTES` per entry.
const BYTES = 2
const B_INPUT_DECIMALS = 0
const B_FLAGS = 1
const F_UNCOUNTED = 1
const F_SETTLEMENT_VIRTUAL = 2

/**
 * The read model's intents, in columns indexed by the entry's `seq`: no object per intent. A million-intent run
 * keeps every entry to its end, and each object kept that long costs the garbage collector about 1 µs (a copy
 * when it is promoted, a visit in every full collection; docs/performance-history.md). An entry's references (the
 * intent, statuses, ids, cached JSON) sit side by side in a chunk of references, its numbers and flags in typed
 * arrays, its amounts in `BigintColumn`s; an `IntentEntry` is a view on one seq, made when needed.
 */
export class EntryColumns {
  /** Entries made (seqs 0 to count - 1). */
  count = 0
  private readonly chunks: unknown[][] = []
  private capacity = COLUMN_START
  nums = new Float64Array(COLUMN_START * NUMS)
  bytes = new Uint8Array(COLUMN_START * BYTES)
  readonly settledAmount = new BigintColumn()
  readonly tokenFee = new BigintColumn()
  readonly nativeFee = new BigintColumn()
  readonly settledGasFee = new BigintColumn()
  /** Fast-path fills by seq (few intents have one). */
  readonly fills = new Map<number, FillFacts>()
  readonly created = new CreatedTransactions()

  /** A new entry for `intentId`; returns its seq. */
  add(intentId: Bytes32): number {
    const seq = this.count++
    if (seq >= this.capacity) this.grow()
    if ((seq & CHUNK_MASK) === 0) this.chunks.push(EntryColumns.newChunk())
    this.setRef(seq, R_ID, intentId)
    this.nums[seq * NUMS + N_SETTLEMENT_DOMAIN] = Number.NaN
    this.nums[seq * NUMS + N_QUEUE_IDX] = Number.NaN
    this.bytes[seq * BYTES + B_INPUT_DECIMALS] = NORMALIZED_DECIMALS
    this.created.add()
    return seq
  }

  private grow(): void {
    this.capacity *= 2
    const nums = new Float64Array(this.capacity * NUMS)
    nums.set(this.nums)
    this.nums = nums
    const bytes = new Uint8Array(this.capacity * BYTES)
    bytes.set(this.bytes)
    this.bytes = bytes
  }

  /** A chunk's references: unset (`undefined`), but for the three statuses, "NONE". */
  private static newChunk(): unknown[] {
    const chunk = new Array<unknown>((CHUNK_MASK + 1) * REFS)
    for (let at = 0; at < chunk.length; at += REFS) {
      chunk[at + R_ORIGIN_STATUS] = "NONE"
      chunk[at + R_HUB_STATUS] = "NONE"
      chunk[at + R_SETTLEMENT_STATUS] = "NONE"
    }
    return chunk
  }

  ref(seq: number, field: number): unknown {
    return this.chunks[seq >>> CHUNK_BITS]![(seq & CHUNK_MASK) * REFS + field]
  }

  setRef(seq: number, field: number, value: unknown): void {
    this.chunks[seq >>> CHUNK_BITS]![(seq & CHUNK_MASK) * REFS + field] = value
  }

  /** The number in `field`, undefined when unset. */
  num(seq: number, field: number): number | undefined {
    const value = this.nums[seq * NUMS + field]!
    return Number.isNaN(value) ? undefined : value
  }

  setNum(seq: number, field: number, value: number | undefined): void {
    this.nums[seq * NUMS + field] = value ?? Number.NaN
  }

  flag(seq: number, flag: number): boolean {
    return (this.bytes[seq * BYTES + B_FLAGS]! & flag) !== 0
  }

  setFlag(seq: number, flag: number, on: boolean): void {
    const at = seq * BYTES + B_FLAGS
    this.bytes[at] = on ? this.bytes[at]! | flag : this.bytes[at]! & ~flag
  }
}

/**
 * One intent as the read model knows it: the facts its events told (the intent struct, transactions, fees,
 * statuses), not the API record. The record (49 fields of strings, mostly `null` for a while) is built from the
 * facts when a query asks for it: a simulation indexes a million intents and reads a few. A view on the model's
 * columns (see `EntryColumns`): two views of one seq read and write the same facts.
 */
export class IntentEntry {
  readonly seq: number
  /** The model's columns, indexed by `seq`. */
  private readonly columns: EntryColumns
  constructor(seq: number, columns: EntryColumns) {
    this.seq = seq
    this.columns = columns
  }

  get intentId(): Bytes32 {
    return this.columns.ref(this.seq, R_ID) as Bytes32
  }

  get intent(): Intent | undefined {
    return this.columns.ref(this.seq, R_INTENT) as Intent | undefined
  }
  set intent(intent: Intent | undefined) {
    this.columns.setRef(this.seq, R_INTENT, intent)
  }

  /** Decimals of the input asset on the origin when the intent was first seen. */
  get inputDecimals(): number {
    return this.columns.bytes[this.seq * BYTES + B_INPUT_DECIMALS]!
  }
  /** An ERC-20's `decimals()` is a uint8: anything else is refused (a byte would keep it wrapped). */
  set inputDecimals(decimals: number) {
    if (!Number.isInteger(decimals) || decimals < 0 || decimals > 255) throw new RangeError(`IntentEntry.inputDecimals: ${decimals} is not a uint8`)
    this.columns.bytes[this.seq * BYTES + B_INPUT_DECIMALS] = decimals
  }

  get originStatus(): OriginStatus {
    return this.columns.ref(this.seq, R_ORIGIN_STATUS) as OriginStatus
  }
  set originStatus(status: OriginStatus) {
    this.columns.setRef(this.seq, R_ORIGIN_STATUS, status)
  }

  get hubStatus(): HubStatus {
    return this.columns.ref(this.seq, R_HUB_STATUS) as HubStatus
  }
  set hubStatus(status: HubStatus) {
    this.columns.setRef(this.seq, R_HUB_STATUS, status)
  }

  get settlementStatus(): SettlementStatus {
    return this.columns.ref(this.seq, R_SETTLEMENT_STATUS) as SettlementStatus
  }
  set settlementStatus(status: SettlementStatus) {
    this.columns.setRef(this.seq, R_SETTLEMENT_STATUS, status)
  }

  /** The status `ReadModel.statusCounts` counts this entry under (brought up to date by `countByStatus`). */
  get countedStatus(): ApiIntentStatus | undefined {
    return this.columns.ref(this.seq, R_COUNTED_STATUS) as ApiIntentStatus | undefined
  }
  set countedStatus(status: ApiIntentStatus | undefined) {
    this.columns.setRef(this.seq, R_COUNTED_STATUS, status)
  }

  /** Changed since its status was last counted (in `ReadModel.uncounted`). */
  get uncounted(): boolean {
    return this.columns.flag(this.seq, F_UNCOUNTED)
  }
  set uncounted(on: boolean) {
    this.columns.setFlag(this.seq, F_UNCOUNTED, on)
  }

  get tickerHash(): Bytes32 | undefined {
    return this.columns.ref(this.seq, R_TICKER) as Bytes32 | undefined
  }
  set tickerHash(ticker: Bytes32 | undefined) {
    this.columns.setRef(this.seq, R_TICKER, ticker)
  }

  /** Who the hub settles to, on which domain, and whether to their virtual balance. */
  get settlementOwner(): Bytes32 | undefined {
    return this.columns.ref(this.seq, R_OWNER) as Bytes32 | undefined
  }
  set settlementOwner(owner: Bytes32 | undefined) {
    this.columns.setRef(this.seq, R_OWNER, owner)
  }

  get settlementVirtual(): boolean {
    return this.columns.flag(this.seq, F_SETTLEMENT_VIRTUAL)
  }
  set settlementVirtual(on: boolean) {
    this.columns.setFlag(this.seq, F_SETTLEMENT_VIRTUAL, on)
  }

  get settlementDomain(): number | undefined {
    return this.columns.num(this.seq, N_SETTLEMENT_DOMAIN)
  }
  set settlementDomain(domain: number | undefined) {
    this.columns.setNum(this.seq, N_SETTLEMENT_DOMAIN, domain)
  }

  // Creation (origin spoke): `IntentAdded`, then the intent-queue dispatch.
  get queueIdx(): number | undefined {
    return this.columns.num(this.seq, N_QUEUE_IDX)
  }
  set queueIdx(idx: number | undefined) {
    this.columns.setNum(this.seq, N_QUEUE_IDX, idx)
  }

  get batchId(): Bytes32 | undefined {
    return this.columns.ref(this.seq, R_BATCH) as Bytes32 | undefined
  }
  set batchId(batchId: Bytes32 | undefined) {
    this.columns.setRef(this.seq, R_BATCH, batchId)
  }

  // Fees through the fee adapter (undefined: not known).
  get tokenFee(): bigint | undefined {
    return this.columns.tokenFee.get(this.seq)
  }
  set tokenFee(fee: bigint | undefined) {
    this.columns.tokenFee.set(this.seq, fee)
  }

  get nativeFee(): bigint | undefined {
    return this.columns.nativeFee.get(this.seq)
  }
  set nativeFee(fee: bigint | undefined) {
    this.columns.nativeFee.set(this.seq, fee)
  }

  get feeAdapterInitiator(): string | undefined {
    return this.columns.ref(this.seq, R_FEE_INITIATOR) as string | undefined
  }
  set feeAdapterInitiator(initiator: string | undefined) {
    this.columns.setRef(this.seq, R_FEE_INITIATOR, initiator)
  }

  get fill(): FillFacts | undefined {
    return this.columns.fills.get(this.seq)
  }
  set fill(fill: FillFacts | undefined) {
    if (fill === undefined) this.columns.fills.delete(this.seq)
    else this.columns.fills.set(this.seq, fill)
  }

  /** The settlement's transaction on the destination spoke (the event's meta, one per transaction). */
  get received(): SpokeEventMeta | undefined {
    return this.columns.ref(this.seq, R_RECEIVED) as SpokeEventMeta | undefined
  }
  set received(meta: SpokeEventMeta | undefined) {
    this.columns.setRef(this.seq, R_RECEIVED, meta)
  }

  get settledGasFee(): bigint | undefined {
    return this.columns.settledGasFee.get(this.seq)
  }
  set settledGasFee(fee: bigint | undefined) {
    this.columns.settledGasFee.set(this.seq, fee)
  }

  /** Cached `JSON.stringify(record)` and `{"intent":<record>}`, dropped on every change. */
  get json(): string | undefined {
    return this.columns.ref(this.seq, R_JSON) as string | undefined
  }
  set json(json: string | undefined) {
    this.columns.setRef(this.seq, R_JSON, json)
  }

  get responseJson(): string | undefined {
    return this.columns.ref(this.seq, R_RESPONSE_JSON) as string | undefined
  }
  set responseJson(json: string | undefined) {
    this.columns.setRef(this.seq, R_RESPONSE_JSON, json)
  }

  /** Paid to the receiver by the settlement (token units), when the settlement paid the receiver. */
  get settledAmount(): bigint | undefined {
    return this.columns.settledAmount.get(this.seq)
  }

  set settledAmount(amount: bigint | undefined) {
    this.columns.settledAmount.set(this.seq, amount)
  }

  /** The `IntentAdded` transaction (hash, block, sender, nonce, gas) as its event told it; a new object each call. */
  get created(): SpokeEventMeta | undefined {
    return this.columns.created.meta(this.seq)
  }

  get createdTxHash(): string | undefined {
    return this.columns.created.txHash(this.seq)?.toLowerCase()
  }

  get receiveTxHash(): string | undefined {
    return this.received?.txHash.toLowerCase()
  }

  get isFastPath(): boolean | null {
    return this.intent === undefined ? null : this.intent.ttl > 0
  }

  /** The API status, from the origin, hub and settlement statuses (made when read: a few string comparisons). */
  get status(): ApiIntentStatus {
    return deriveStatus(this.originStatus, this.hubStatus, this.settlementStatus, calldataPending(this))
  }

  /**
   * Addresses a `userAddress` filter matches (lowercase 20-byte, without repeats): the receiver and the initiator
   * when they are addresses, the senders of the creating and the filling transactions, and the fee adapter's
   * initiator. Made from the facts when a filter or the user index reads them.
   */
  get users(): readonly string[] {
    const users: string[] = []
    const add = (address: string | undefined) => {
      if (address === undefined) return
      const a = lowerAddress(address)
      if (!users.includes(a)) users.push(a)
    }
    if (this.intent !== undefined) {
      add(wordUser(this.intent.receiver))
      add(wordUser(this.intent.initiator))
    }
    add(this.columns.created.txFrom(this.seq))
    if (this.feeAdapterInitiator !== undefined && this.feeAdapterInitiator.length === 42) add(this.feeAdapterInitiator)
    add(this.fill?.sender)
    return users
  }

  /** The API record (SPEC.md's Intent, every field in its order), made from the facts; a new object each call. */
  get record(): IntentRecord {
    const intent = this.intent
    const fill = this.fill
    const decimals = this.inputDecimals
    const fillAmount = fill === undefined ? null : fill.amount.toString()
    const created = this.created
    return {
      intent_id: this.intentId,
      batch_id: this.batchId ?? null,
      queue_idx: this.queueIdx ?? null,
      message_id: this.batchId ?? null,
      status: this.status,
      receiver: intent?.receiver ?? null,
      input_asset: intent?.inputAsset ?? null,
      output_asset: intent?.outputAsset ?? null,
      origin_amount: intent === undefined ? null : normalizeDecimals(intent.amount, NORMALIZED_DECIMALS, decimals).toString(),
      destination_amount: fill !== undefined ? fillAmount : optionalString(this.settledAmount),
      origin: intent === undefined ? null : String(intent.origin),
      destinations: intent === undefined ? null : intent.destinations.map(String),
      nonce: intent === undefined ? null : Number(intent.nonce),
      transaction_hash: created?.txHash.toLowerCase() ?? null,
      receive_tx_hash: this.receiveTxHash ?? null,
      intent_created_timestamp: intent?.timestamp ?? null,
      settlement_timestamp: this.received?.timestamp ?? null,
      intent_created_block_number: created?.blockNumber ?? null,
      receive_blocknumber: this.received?.blockNumber ?? null,
      tx_origin: created === undefined ? null : lowerAddress(created.txFrom),
      tx_nonce: created?.txNonce ?? null,
      auto_id: this.seq,
      amount_out_min:
        intent === undefined || intent.ttl <= 0
          ? null
          : normalizeDecimals(intent.amount - (intent.amount * BigInt(intent.maxFee)) / DBPS_DENOMINATOR, NORMALIZED_DECIMALS, decimals).toString(),
      call_data: intent?.data ?? null,
      filled: fill !== undefined,
      initiator: intent?.initiator ?? null,
      native_fee: optionalString(this.nativeFee),
      token_fee: optionalString(this.tokenFee),
      fee_adapter_initiator: this.feeAdapterInitiator ?? null,
      origin_gas_fees: optionalString(created?.gasFee),
      destination_gas_fees: fill !== undefined ? optionalString(fill.gasFee) : optionalString(this.settledGasFee),
      hub_settlement_domain: this.settlementDomain === undefined ? null : String(this.settlementDomain),
      ttl: intent?.ttl ?? null,
      is_fast_path: this.isFastPath,
      fill_solver: fill?.solver ?? null,
      fill_domain: fill === undefined ? null : String(fill.domain),
      fill_destinations: fill === undefined ? null : fill.intent.destinations.map(String),
      fill_transaction_hash: fill?.txHash ?? null,
      fill_timestamp: fill?.timestamp ?? null,
      fill_amount: fillAmount,
      fill_fee_token: fill === undefined ? null : fill.feeToken.toString(),
      fill_fee_dbps: fill === undefined ? null : fill.feeDbps.toString(),
      fill_input_asset: fill?.intent.inputAsset ?? null,
      fill_output_asset: fill?.intent.outputAsset ?? null,
      fill_sender: fill?.sender ?? null,
      fill_status: fill === undefined ? null : "FILLED",
      fill_initiator: fill?.intent.initiator ?? null,
      fill_receiver: fill?.intent.receiver ?? null,
      max_fee: intent === undefined ? null : String(intent.maxFee),
    }
  }
}

const optionalString = (value: bigint | undefined): string | null => (value === undefined ? null : value.toString())

interface BatchEntry {
  readonly seq: number
  readonly batchId: Bytes32
  readonly domain: number
  readonly intentIds: readonly Bytes32[]
  readonly nativeFee: bigint
  readonly timestamp: number
  readonly blockNumber: number
  readonly txHash: Hex
  deliveredTimestamp: number | undefined
}

export interface IntentQuery {
  /** Newest-first pages: the first record of the page has `auto_id <= cursor`. */
  readonly cursor?: number | undefined
  /** Paging back: the page holds the `limit` records nearest above `prevCursor` (inclusive). */
  readonly prevCursor?: number | undefined
  readonly limit: number
  readonly statuses?: readonly ApiIntentStatus[] | undefined
  readonly origins?: readonly number[] | undefined
  /** Intents with any of these destinations. */
  readonly destinations?: readonly number[] | undefined
  /** Intents with all of these destinations. */
  readonly allDestinations?: readonly number[] | undefined
  /** Creation or fill transaction hash, lowercase. */
  readonly txHash?: string | undefined
  /** Sender, fee-adapter initiator, initiator or receiver, lowercase 20-byte address. */
  readonly userAddress?: string | undefined
  /** Creation time bounds, unix seconds, inclusive. */
  readonly startDate?: number | undefined
  readonly endDate?: number | undefined
  readonly isFastPath?: boolean | undefined
  readonly tickerHash?: Bytes32 | undefined
  /** Input asset, lowercase bytes32. */
  readonly asset?: Bytes32 | undefined
}

export interface IntentPage {
  readonly entries: readonly IntentEntry[]
  readonly nextCursor: string | null
  readonly prevCursor: string | null
  readonly maxCount: number
}

export interface BatchQuery {
  readonly cursor?: number | undefined
  readonly limit: number
  readonly isFastPath?: boolean | undefined
  readonly origins?: readonly number[] | undefined
}

export interface BatchPage {
  readonly items: readonly BatchRecord[]
  readonly nextCursor: string | null
}

export interface HistoryPage {
  readonly invoiceProcessingHistory: readonly InvoiceProcessingHistoryEntry[]
  readonly nextCursor: string | null
}

/**
 * One shared copy of each recurring short string (addresses, small amounts, domain ids): records of a million
 * intents name the same few hundred senders, initiators and fees. Bounded: forgotten when full (copies still
 * compare equal; only the sharing is lost).
 */
const INTERN_LIMIT = 1 << 16
const interned = new BoundedMemo<string, string>(INTERN_LIMIT, (value) => value)
const intern = (value: string): string => interned.get(value)
/** Lowercase addresses by the spelling they came in (checksummed senders recur on every intent). */
const lowered = new BoundedMemo<string, string>(INTERN_LIMIT, (address) => intern(address.toLowerCase()))
const lowerAddress = (address: string): string => lowered.get(address)
/** Addresses of recurring address words (receivers, initiators), by word. */
const wordUsers = new BoundedMemo<Bytes32, string>(INTERN_LIMIT, (word) => intern(bytes32ToAddress(word)))
/** A protocol word as an address when it is one (for `userAddress` matching). */
const wordUser = (word: Bytes32): string | undefined => (isAddressWord(word) ? wordUsers.get(word) : undefined)

const addTo = <K>(map: Map<K, SortedSeqs>, key: K, seq: number): void => {
  let index = map.get(key)
  if (index === undefined) map.set(key, (index = new SortedSeqs()))
  index.add(seq)
}

export interface ReadModelOptions {
  /** Solvers whose spoke virtual balances are tracked for fast-path limits (lowercase or checksummed). */
  readonly solvers?: readonly Address[]
  /** Settlement-time observations kept per route. Default 1000. */
  readonly settlementWindow?: number
}

export class ReadModel implements HubObserver {
  private hub: Hub | undefined = undefined
  /** Bumped by every change (memoized counts, fingerprints). */
  version = 0
  /** The intents, by seq (see `EntryColumns`). */
  private readonly columns = new EntryColumns()
  // Open addressing on the ids' last characters: a million intents are looked up several times each.
  private readonly bySeqOfId = new IdMap<number>()
  private readonly all = new RangeSeqs(() => this.columns.count)
  private readonly byOrigin = new Map<number, SortedSeqs>()
  private readonly byDestination = new Map<number, SortedSeqs>()
  private readonly byTicker = new Map<Bytes32, SortedSeqs>()
  private readonly byFastPath = new Map<boolean, SortedSeqs>()
  private readonly byUser = new KeyedSeqs<string>()
  /**
   * Creation and fill transaction hashes → records, built on the first `txHash` query and brought up to date by
   * each one after it (`txHashesPending`, transactions whose hashes are read only then): most runs never query by
   * hash, a map of a million hashes costs, and a memory-backend transaction's hash is made when first read.
   */
  private readonly byTxHash = new KeyedSeqs<string>()
  /**
   * Runs of `hash, seq` (a hash known: a fill's, lowercase, or a creation's as its meta had it, lowercased when the
   * index is built) or `domain, blockNumber, index, seq` (a memory-backend creation, whose hash is made when the
   * index is built): numbers and strings kept elsewhere too, no object per transaction.
   */
  private txHashesPending: (string | number)[] = []
  /** Seqs of entries whose origin, destinations, asset, fast-path flag, ticker or users changed since the last query. */
  private unindexed: number[] = []
  private readonly byAsset = new Map<Bytes32, SortedSeqs>()
  private readonly statusCounts = new Map<ApiIntentStatus, number>()
  private readonly countMemo = new Map<string, { readonly version: number; readonly count: number }>()
  /** Intent-queue positions not dispatched yet: domain → queue index → the intent's seq. */
  private readonly originQueues = new Map<number, Map<number, number>>()
  private readonly batches: BatchEntry[] = []
  private readonly batchById = new Map<Bytes32, BatchEntry>()
  /**
   * Mirror of the hub's per-domain settlement queues, to know what a dispatch sent: the entries' seqs, or the ids
   * of intents the read model did not know when they were enqueued (looked up again at the dispatch).
   */
  private readonly settlementFifos = new Map<number, { ids: (number | Bytes32)[]; first: number }>()
  readonly invoices = new InvoiceIndex()
  readonly settlementTimes: SettlementTimes
  private readonly solvers: ReadonlySet<string>
  /** Solver virtual balances: `${domain}:${asset}:${solver}` → token units. */
  private readonly solverBalances = new Map<string, bigint>()

  constructor(options: ReadModelOptions = {}) {
    this.settlementTimes = new SettlementTimes(options.settlementWindow ?? 1000)
    this.solvers = new Set((options.solvers ?? []).map(lowerAddress))
  }

  // -------------------------------------------------------------------------------------------------------
  // Wiring

  /** Reads invoices and custody from `hub` and records its invoice evaluations. */
  attachHub(hub: Hub): void {
    this.hub = hub
    hub.state.observer = this
    // Another hub's answers, whatever its state.
    this.minAmountsCache.clear()
  }

  /** A sink for the hub's events (statuses need nothing but the event; the rest is read from the attached hub). */
  hubSink(): HubEventSink {
    return { emit: (event) => this.onHubEvent(event) }
  }

  private requireHub(): Hub {
    if (this.hub === undefined) throw new Error("ReadModel: attachHub(hub) must run before invoice queries")
    return this.hub
  }

  // -------------------------------------------------------------------------------------------------------
  // Entries

  /**
   * The entry of `intentId`, if known. The last one found is checked first: an intent's events come in runs (its
   * `IntentAdded` and fee event in one transaction, its `IntentProcessed` and `SettlementEnqueued` in one hub
   * call), and at a million entries each map lookup is a few cache misses.
   */
  private find(intentId: Bytes32): IntentEntry | undefined {
    const last = this.lastFound
    if (last !== undefined && last.intentId === intentId) return last
    const e = this.byId(intentId)
    if (e !== undefined) this.lastFound = e
    return e
  }

  private lastFound: IntentEntry | undefined = undefined

  /** The entry of `intentId` (its id map only). */
  private byId(intentId: Bytes32): IntentEntry | undefined {
    const seq = this.bySeqOfId.get(intentId)
    return seq === undefined ? undefined : new IntentEntry(seq, this.columns)
  }

  /** The entry of `seq`, which exists. */
  private at(seq: number): IntentEntry {
    return new IntentEntry(seq, this.columns)
  }

  /** The entry of `intentId`, made if new (one probe of the id map either way). */
  private entry(intentId: Bytes32): IntentEntry {
    const last = this.lastFound
    if (last !== undefined && last.intentId === intentId) return last
    const next = this.columns.count
    const seq = this.bySeqOfId.setIfAbsent(intentId, next)
    const e = this.at(seq)
    this.lastFound = e
    if (seq === next) {
      this.columns.add(intentId)
      this.markUncounted(e)
    }
    return e
  }

  /** After a change: the cached JSON is dropped and the entry's status is counted again by the next `countByStatus`. */
  private touch(e: IntentEntry): void {
    this.markUncounted(e)
    e.json = undefined
    e.responseJson = undefined
    this.version++
  }

  /**
   * Entries whose status may differ from the one `statusCounts` has them under. Counting is left to queries: an
   * intent changes status five or six times, and most runs never ask for counts.
   */
  private uncounted: number[] = []

  private markUncounted(e: IntentEntry): void {
    if (e.uncounted) return
    e.uncounted = true
    this.uncounted.push(e.seq)
  }

  /** Marks `e` for the filter indexes, which queries bring up to date (`syncIndexes`): most runs never filter. */
  private toIndex(e: IntentEntry): void {
    const pending = this.unindexed
    if (pending[pending.length - 1] !== e.seq) pending.push(e.seq)
  }

  /** Adds what changed since the last query to the filter indexes (each index ignores a seq it already holds). */
  private syncIndexes(): void {
    const pending = this.unindexed
    if (pending.length === 0) return
    this.unindexed = []
    for (const seq of pending) {
      const e = this.at(seq)
      const intent = e.intent
      if (intent !== undefined) {
        addTo(this.byOrigin, intent.origin, seq)
        for (const d of intent.destinations) addTo(this.byDestination, d, seq)
        addTo(this.byFastPath, intent.ttl > 0, seq)
        addTo(this.byAsset, intent.inputAsset, seq)
      }
      if (e.tickerHash !== undefined) addTo(this.byTicker, e.tickerHash, seq)
      for (const user of e.users) this.byUser.add(user, seq)
    }
  }

  private decimalsOf(domain: number, asset: Bytes32): number {
    return this.hub?.state.assetOn(domain, asset)?.asset.decimals ?? NORMALIZED_DECIMALS
  }

  /** The fields that come from the intent struct itself (origin data without its transaction). */
  private applyIntent(e: IntentEntry, intent: Intent): void {
    if (e.intent !== undefined) return
    e.intent = intent
    e.inputDecimals = this.decimalsOf(intent.origin, intent.inputAsset)
    this.toIndex(e)
    const ticker = this.hub?.state.assetOn(intent.origin, intent.inputAsset)?.ticker.config.tickerHash
    if (ticker !== undefined) this.setTicker(e, ticker)
  }

  private setTicker(e: IntentEntry, ticker: Bytes32): void {
    if (e.tickerHash !== undefined) return
    e.tickerHash = ticker
    this.toIndex(e)
  }

  // -------------------------------------------------------------------------------------------------------
  // Hub events

  onHubEvent(event: HubEvent): void {
    switch (event.kind) {
      case "IntentProcessed":
      case "FillProcessed": {
        const e = this.entry(event.intentId)
        e.hubStatus = event.status
        if (e.tickerHash === undefined) {
          const ticker = this.hub?.state.contexts.get(event.intentId)?.ticker?.config.tickerHash
          if (ticker !== undefined) this.setTicker(e, ticker)
        }
        this.touch(e)
        return
      }
      case "DepositProcessed": {
        // A closed-epoch deposit that neither settles nor becomes an invoice waits in DEPOSIT_PROCESSED, and
        // no other event says so; a settlement or invoice event right after overrides this.
        const e = this.find(event.intentId)
        if (e === undefined) return
        e.hubStatus = "DEPOSIT_PROCESSED"
        this.touch(e)
        return
      }
      case "InvoiceEnqueued": {
        const ctx = this.hub?.state.contexts.get(event.intentId)
        const origin = ctx?.intent?.origin ?? this.hub?.config.hubDomain ?? 0
        const destinations = ctx?.intent?.destinations ?? ctx?.paymentDestinations ?? []
        this.invoices.add(event.intentId, event.tickerHash, origin, destinations)
        this.version++
        const e = this.find(event.intentId)
        if (e === undefined) return
        e.hubStatus = "INVOICED"
        this.touch(e)
        return
      }
      case "SettlementEnqueued": {
        if (this.invoices.remove(event.intentId)) this.version++
        let fifo = this.settlementFifos.get(event.domain)
        if (fifo === undefined) this.settlementFifos.set(event.domain, (fifo = { ids: [], first: 0 }))
        const e = this.find(event.intentId)
        fifo.ids.push(e?.seq ?? event.intentId)
        if (e === undefined) return
        e.hubStatus = "SETTLED"
        e.settlementOwner = event.owner
        e.settlementVirtual = event.updateVirtualBalance
        e.settlementDomain = event.domain
        this.touch(e)
        return
      }
      case "SettlementQueueProcessed": {
        const fifo = this.settlementFifos.get(event.domain)
        if (fifo === undefined) return
        const end = Math.min(fifo.ids.length, fifo.first + event.amount)
        for (let i = fifo.first; i < end; i++) {
          const queued = fifo.ids[i]!
          const e = typeof queued === "string" ? this.byId(queued) : this.at(queued)
          if (e === undefined || e.hubStatus !== "SETTLED") continue
          e.hubStatus = "DISPATCHED"
          this.touch(e)
        }
        fifo.first = end
        if (fifo.first > 1024 && fifo.first * 2 > fifo.ids.length) {
          fifo.ids = fifo.ids.slice(fifo.first)
          fifo.first = 0
        }
        this.version++
        return
      }
      case "ReturnUnsupportedIntent": {
        const e = this.find(event.intentId)
        if (e === undefined) return
        e.hubStatus = "UNSUPPORTED_RETURNED"
        this.touch(e)
        return
      }
      default:
        return
    }
  }

  /** `HubObserver`: one history entry per invoice and epoch (the last evaluation of the epoch). */
  onInvoiceEvaluated(
    ticker: TickerState,
    invoice: InvoiceNode,
    epoch: number,
    chosen: InvoiceEvaluation | undefined,
    domains: readonly DomainAsset[],
    discount: number,
  ): void {
    const hub = this.requireHub()
    const ctx = invoice.ctx
    this.invoices.recordEvaluation(invoice.intentId, {
      epoch,
      domain: ctx.intent?.origin ?? hub.config.hubDomain,
      custodiedAssets: custodyOn(ticker, domains),
      amountToBeDiscounted: chosen?.toDiscount18 ?? 0n,
      rewardsForDepositors: chosen?.rewards18 ?? 0n,
      amountAfterDiscount: chosen?.amountAfterDiscount18 ?? invoice.amount18,
      discountdbps: discount,
      selectedDestinationDomain: chosen?.domain ?? 0,
      selectedDestinationDomainLiquidity: chosen?.liquidity18 ?? 0n,
      timestamp: hub.state.timestamp,
    })
    this.version++
  }

  // -------------------------------------------------------------------------------------------------------
  // Spoke events

  /** One decoded spoke event and the transaction that emitted it. Events the read model does not use are ignored. */
  onSpokeEvent(event: SpokeEventBody, meta: SpokeEventMeta): void {
    switch (event.name) {
      case "IntentAdded":
        return this.onIntentAdded(event.intentId, event.queueIdx, event.intent, meta)
      case "IntentQueueProcessed":
        return this.onIntentQueueProcessed(event.messageId, event.firstIdx, event.lastIdx, event.quote, meta)
      case "IntentFilled":
        return this.onIntentFilled(event.intentId, event.solver, event.totalFeeDBPS, event.intent, meta)
      case "Settled":
        return this.onSettled(event.intentId, event.account, event.amount, meta)
      case "ExternalCalldataExecuted": {
        const e = this.find(event.intentId)
        if (e === undefined) return
        e.settlementStatus = "SETTLED_AND_MANUALLY_EXECUTED"
        this.touch(e)
        return
      }
      case "IntentWithFeesAdded": {
        const e = this.entry(event.intentId)
        e.tokenFee = event.tokenFee
        e.nativeFee = event.nativeFee
        e.feeAdapterInitiator = wordUser(event.initiator) ?? event.initiator
        this.toIndex(e)
        this.touch(e)
        return
      }
      case "OrderCreated": {
        // One fee for the whole order: the first intent carries it, the others 0, so sums stay right.
        event.intentIds.forEach((id, i) => {
          const e = this.entry(id)
          e.tokenFee = i === 0 ? event.tokenFee : 0n
          e.nativeFee = i === 0 ? event.nativeFee : 0n
          e.feeAdapterInitiator = wordUser(event.initiator) ?? event.initiator
          this.toIndex(e)
          this.touch(e)
        })
        return
      }
      case "Deposited":
        return this.moveSolverBalance(meta.domain, event.asset, event.depositant, event.amount)
      case "Withdrawn":
        return this.moveSolverBalance(meta.domain, event.asset, event.withdrawer, -event.amount)
      default:
        return
    }
  }

  private onIntentAdded(intentId: Bytes32, queueIdx: bigint, intent: Intent, meta: SpokeEventMeta): void {
    const e = this.entry(intentId)
    this.applyIntent(e, intent)
    e.queueIdx = Number(queueIdx)
    const index = this.columns.created.set(e.seq, meta)
    // The hash as the meta has it (the string the column keeps), lowercased when the index is built.
    if (index === undefined) this.txHashesPending.push(meta.txHash, e.seq)
    else this.txHashesPending.push(meta.domain, meta.blockNumber, index, e.seq)
    this.toIndex(e)
    if (e.originStatus === "NONE") e.originStatus = "ADDED"
    let queue = this.originQueues.get(meta.domain)
    if (queue === undefined) this.originQueues.set(meta.domain, (queue = new Map()))
    queue.set(Number(queueIdx), e.seq)
    this.touch(e)
  }

  private onIntentQueueProcessed(messageId: Bytes32, firstIdx: bigint, lastIdx: bigint, quote: bigint, meta: SpokeEventMeta): void {
    const queue = this.originQueues.get(meta.domain)
    const intentIds: Bytes32[] = []
    for (let idx = Number(firstIdx), last = Number(lastIdx); idx < last; idx++) {
      const seq = queue?.get(idx)
      if (seq === undefined) continue
      queue!.delete(idx)
      const e = this.at(seq)
      intentIds.push(e.intentId)
      e.originStatus = "DISPATCHED"
      e.batchId = messageId
      this.touch(e)
    }
    const batch: BatchEntry = {
      seq: this.batches.length,
      batchId: messageId,
      domain: meta.domain,
      intentIds,
      nativeFee: quote,
      timestamp: meta.timestamp,
      blockNumber: meta.blockNumber,
      txHash: meta.txHash,
      deliveredTimestamp: undefined,
    }
    this.batches.push(batch)
    this.batchById.set(messageId, batch)
    this.version++
  }

  private onIntentFilled(intentId: Bytes32, solver: Address, totalFeeDbps: bigint, intent: Intent, meta: SpokeEventMeta): void {
    const e = this.entry(intentId)
    this.applyIntent(e, intent)
    const outputDecimals = this.decimalsOf(meta.domain, intent.outputAsset)
    const amountOut = normalizeDecimals(intent.amount, NORMALIZED_DECIMALS, outputDecimals)
    const feeToken = (amountOut * totalFeeDbps) / DBPS_DENOMINATOR
    const txHash = meta.txHash.toLowerCase()
    // On the fast path the receiver is paid by the fill: the record's destination amount is the fill's.
    e.fill = {
      solver: lowerAddress(solver),
      domain: meta.domain,
      txHash,
      timestamp: meta.timestamp,
      amount: amountOut - feeToken,
      feeToken,
      feeDbps: totalFeeDbps,
      intent,
      sender: lowerAddress(meta.txFrom),
      gasFee: meta.gasFee,
    }
    this.txHashesPending.push(txHash, e.seq)
    this.toIndex(e)
    this.moveSolverBalance(meta.domain, bytes32ToAddress(intent.outputAsset), solver, -(amountOut - feeToken))
    this.settlementTimes.record(intent.origin, meta.domain, "fast", meta.timestamp - intent.timestamp)
    this.touch(e)
  }

  private onSettled(intentId: Bytes32, account: Address, amount: bigint, meta: SpokeEventMeta): void {
    const e = this.find(intentId)
    if (e === undefined) return
    // A returned unsupported intent is paid back on its origin; that is a refund, not the settlement.
    if (e.settlementDomain !== meta.domain) return
    if (e.settlementStatus === "NONE") e.settlementStatus = "SETTLED"
    e.received = meta
    const toReceiver = e.intent !== undefined && e.settlementOwner === e.intent.receiver && e.fill === undefined
    if (toReceiver) {
      e.settledAmount = amount
      e.settledGasFee = meta.gasFee
      if (e.intent !== undefined) this.settlementTimes.record(e.intent.origin, meta.domain, "basic", meta.timestamp - e.intent.timestamp)
    }
    if (e.settlementVirtual && e.settlementOwner === addressToBytes32(account)) {
      const asset = this.hub?.state.tickers.get(e.tickerHash ?? ("0x" as Bytes32))?.assetByDomain.get(meta.domain)?.asset
      if (asset !== undefined) this.moveSolverBalance(meta.domain, bytes32ToAddress(asset), account, amount)
    }
    this.touch(e)
  }

  private moveSolverBalance(domain: number, asset: Address, account: Address, delta: bigint): void {
    const who = lowerAddress(account)
    if (!this.solvers.has(who)) return
    const key = `${domain}:${lowerAddress(asset)}:${who}`
    this.solverBalances.set(key, (this.solverBalances.get(key) ?? 0n) + delta)
    this.version++
  }

  // -------------------------------------------------------------------------------------------------------
  // Transport

  onDelivery(delivery: Delivery): void {
    const batch = this.batchById.get(delivery.messageId)
    if (batch === undefined || batch.deliveredTimestamp !== undefined) return
    batch.deliveredTimestamp = delivery.timestamp
    this.version++
  }

  // -------------------------------------------------------------------------------------------------------
  // Queries: intents

  get intentCount(): number {
    return this.columns.count
  }

  intentEntry(intentId: Bytes32): IntentEntry | undefined {
    return this.byId(intentId)
  }

  intent(intentId: Bytes32): IntentRecord | undefined {
    return this.byId(intentId)?.record
  }

  /** `JSON.stringify` of the record, cached until the record changes. */
  recordJson(e: IntentEntry): string {
    if (e.json === undefined) e.json = JSON.stringify(e.record)
    return e.json
  }

  /** `{"intent":<record>}` (the `GET /intents/{intentId}` body), cached until the record changes. */
  intentResponseJson(e: IntentEntry): string {
    if (e.responseJson === undefined) e.responseJson = `{"intent":${this.recordJson(e)}}`
    return e.responseJson
  }

  countByStatus(status: ApiIntentStatus): number {
    const pending = this.uncounted
    if (pending.length > 0) {
      this.uncounted = []
      const counts = this.statusCounts
      for (const seq of pending) {
        const e = this.at(seq)
        e.uncounted = false
        const status = e.status
        if (status === e.countedStatus) continue
        if (e.countedStatus !== undefined) counts.set(e.countedStatus, counts.get(e.countedStatus)! - 1)
        counts.set(status, (counts.get(status) ?? 0) + 1)
        e.countedStatus = status
      }
    }
    return this.statusCounts.get(status) ?? 0
  }

  private txHashIndex(): KeyedSeqs<string> {
    const pending = this.txHashesPending
    if (pending.length > 0) {
      for (let i = 0; i < pending.length; ) {
        const first = pending[i]!
        if (typeof first === "string") {
          // A hash known: a fill's (lowercase already), or a creation's on a chain with real hashes.
          this.byTxHash.add(first.toLowerCase(), pending[i + 1] as number)
          i += 2
        } else {
          // A memory-backend creation: its hash made now.
          this.byTxHash.add(memoryTxHash(first, pending[i + 1] as number, pending[i + 2] as number).toLowerCase(), pending[i + 3] as number)
          i += 4
        }
      }
      this.txHashesPending = []
    }
    return this.byTxHash
  }

  private intentSources(q: IntentQuery): readonly SeqSource[] {
    this.syncIndexes()
    const options: (readonly SeqSource[])[] = [[this.all]]
    const pick = <K>(map: { get(key: K): SeqSource | undefined }, keys: readonly K[]): SeqSource[] =>
      keys.map((k) => map.get(k)).filter((s): s is SeqSource => s !== undefined)
    if (q.origins !== undefined && q.origins.length > 0) options.push(pick(this.byOrigin, q.origins))
    if (q.destinations !== undefined && q.destinations.length > 0) options.push(pick(this.byDestination, q.destinations))
    for (const d of q.allDestinations ?? []) options.push(pick(this.byDestination, [d]))
    if (q.txHash !== undefined) options.push(pick(this.txHashIndex(), [q.txHash]))
    if (q.userAddress !== undefined) options.push(pick(this.byUser, [q.userAddress]))
    if (q.tickerHash !== undefined) options.push(pick(this.byTicker, [q.tickerHash]))
    if (q.asset !== undefined) options.push(pick(this.byAsset, [q.asset]))
    if (q.isFastPath !== undefined) options.push(pick(this.byFastPath, [q.isFastPath]))
    const size = (sources: readonly SeqSource[]) => sources.reduce((n, s) => n + s.size, 0)
    return options.reduce((best, o) => (size(o) < size(best) ? o : best))
  }

  private intentPredicate(q: IntentQuery): (e: IntentEntry) => boolean {
    const statuses = q.statuses !== undefined && q.statuses.length > 0 ? new Set<string>(q.statuses) : undefined
    return (e) => {
      const intent = e.intent
      if (statuses !== undefined && !statuses.has(e.status)) return false
      if (q.origins !== undefined && q.origins.length > 0 && (intent === undefined || !q.origins.includes(intent.origin))) return false
      if (q.destinations !== undefined && q.destinations.length > 0 && (intent === undefined || !intent.destinations.some((d) => q.destinations!.includes(d))))
        return false
      if (q.allDestinations !== undefined && q.allDestinations.length > 0 && (intent === undefined || !q.allDestinations.every((d) => intent.destinations.includes(d))))
        return false
      if (q.txHash !== undefined && e.createdTxHash !== q.txHash && e.fill?.txHash !== q.txHash) return false
      if (q.userAddress !== undefined && !e.users.includes(q.userAddress)) return false
      if (q.tickerHash !== undefined && e.tickerHash !== q.tickerHash) return false
      if (q.asset !== undefined && intent?.inputAsset !== q.asset) return false
      if (q.isFastPath !== undefined && e.isFastPath !== q.isFastPath) return false
      if (q.startDate !== undefined && (intent === undefined || intent.timestamp < q.startDate)) return false
      if (q.endDate !== undefined && (intent === undefined || intent.timestamp > q.endDate)) return false
      return true
    }
  }

  private countIntents(q: IntentQuery, sources: readonly SeqSource[], matches: (e: IntentEntry) => boolean): number {
    const key = JSON.stringify({ ...q, cursor: undefined, prevCursor: undefined, limit: undefined })
    const memo = this.countMemo.get(key)
    if (memo !== undefined && memo.version === this.version) return memo.count
    let count = 0
    if (key === "{}") count = this.columns.count
    else for (const seq of mergeAsc(sources, 0)) if (matches(this.at(seq))) count++
    if (this.countMemo.size > 256) this.countMemo.clear()
    this.countMemo.set(key, { version: this.version, count })
    return count
  }

  /** Newest first (by `auto_id`). */
  listIntents(q: IntentQuery): IntentPage {
    const sources = this.intentSources(q)
    const matches = this.intentPredicate(q)
    const page: IntentEntry[] = []
    let nextCursor: number | null = null
    let prevCursor: number | null = null
    if (q.prevCursor === undefined) {
      const start = q.cursor ?? Number.MAX_SAFE_INTEGER
      for (const seq of mergeDesc(sources, start)) {
        const e = this.at(seq)
        if (!matches(e)) continue
        if (page.length === q.limit) {
          nextCursor = seq
          break
        }
        page.push(e)
      }
      if (q.cursor !== undefined || page.length > 0) {
        const above = (page[0]?.seq ?? q.cursor!) + 1
        for (const seq of mergeAsc(sources, above)) {
          if (matches(this.at(seq))) {
            prevCursor = seq
            break
          }
        }
      }
    } else {
      for (const seq of mergeAsc(sources, q.prevCursor)) {
        const e = this.at(seq)
        if (!matches(e)) continue
        if (page.length === q.limit) {
          prevCursor = seq
          break
        }
        page.push(e)
      }
      page.reverse()
      const below = (page[page.length - 1]?.seq ?? q.prevCursor) - 1
      for (const seq of mergeDesc(sources, below)) {
        if (matches(this.at(seq))) {
          nextCursor = seq
          break
        }
      }
    }
    return {
      entries: page,
      nextCursor: nextCursor === null ? null : String(nextCursor),
      prevCursor: prevCursor === null ? null : String(prevCursor),
      maxCount: this.countIntents(q, sources, matches),
    }
  }

  // -------------------------------------------------------------------------------------------------------
  // Queries: batches

  private batchRecord(batch: BatchEntry, intents: readonly IntentRecord[]): BatchRecord {
    return { type: "batch", batchId: batch.batchId, token_fee: "0", native_fee: batch.nativeFee.toString(), intents }
  }

  batch(batchId: Bytes32): BatchRecord | undefined {
    const batch = this.batchById.get(batchId)
    if (batch === undefined) return undefined
    return this.batchRecord(batch, batch.intentIds.map((id) => this.byId(id)!.record))
  }

  /** Newest first; a fast-path filter keeps batches holding at least one matching intent. */
  listBatches(q: BatchQuery): BatchPage {
    const items: BatchRecord[] = []
    let nextCursor: string | null = null
    const start = Math.min(q.cursor ?? Number.MAX_SAFE_INTEGER, this.batches.length - 1)
    for (let seq = start; seq >= 0; seq--) {
      const batch = this.batches[seq]!
      if (q.origins !== undefined && q.origins.length > 0 && !q.origins.includes(batch.domain)) continue
      const entries = batch.intentIds.map((id) => this.byId(id)!)
      if (q.isFastPath !== undefined && !entries.some((e) => e.isFastPath === q.isFastPath)) continue
      if (items.length === q.limit) {
        nextCursor = String(seq)
        break
      }
      items.push(this.batchRecord(batch, entries.map((e) => e.record)))
    }
    return { items, nextCursor }
  }

  // -------------------------------------------------------------------------------------------------------
  // Queries: invoices

  listInvoices(q: InvoiceQuery): InvoicePage {
    return this.invoices.list(this.requireHub(), q)
  }

  private readonly minAmountsCache = new MinAmountsCache()
  private defaultInvoicePage: { readonly version: number; readonly epoch: number; readonly limit: number; readonly json: string } | undefined

  /**
   * `listInvoices` as the response body (invoice JSON cached per epoch; the first unfiltered page, the one bots
   * poll, cached until anything changes).
   */
  listInvoicesJson(q: InvoiceQuery): string {
    const hub = this.requireHub()
    const isDefault =
      q.cursor === undefined && q.prevCursor === undefined && q.tickerHash === undefined && q.sortOrderByDiscount === undefined && !q.origins?.length && !q.destinations?.length
    if (!isDefault) return this.invoices.listJson(hub, q)
    const epoch = hub.state.currentEpoch()
    const cached = this.defaultInvoicePage
    if (cached !== undefined && cached.version === this.version && cached.epoch === epoch && cached.limit === q.limit) return cached.json
    const json = this.invoices.listJson(hub, q)
    this.defaultInvoicePage = { version: this.version, epoch, limit: q.limit, json }
    return json
  }

  invoice(intentId: Bytes32): InvoiceRecord | undefined {
    const entry = this.invoices.get(intentId)
    return entry === undefined ? undefined : invoiceRecord(this.requireHub(), entry)
  }

  /**
   * Min-amounts of an open invoice, kept until something they are computed from changes (`MinAmountsCache`):
   * arbitrageurs poll the same invoices again and again, between hub changes or across them.
   */
  minAmounts(intentId: Bytes32): InvoiceMinAmounts | undefined {
    const hub = this.requireHub()
    const ctx = hub.state.contexts.get(intentId)
    if (ctx?.invoice === undefined || ctx.ticker === undefined) return undefined
    return this.minAmountsCache.get(hub, ctx.ticker, ctx.invoice)
  }

  /** Undefined when the hub never evaluated or enqueued the intent as an invoice. */
  history(intentId: Bytes32, cursor: number, limit: number): HistoryPage | undefined {
    const page = this.invoices.historyOf(intentId, cursor, cursor + limit)
    if (page === undefined) {
      const e = this.byId(intentId)
      const wasInvoiced = this.invoices.get(intentId) !== undefined || e?.hubStatus === "INVOICED"
      return wasInvoiced ? { invoiceProcessingHistory: [], nextCursor: null } : undefined
    }
    return { invoiceProcessingHistory: page.entries, nextCursor: cursor + limit < page.total ? String(cursor + limit) : null }
  }

  // -------------------------------------------------------------------------------------------------------
  // Observations for quotes

  /** Virtual balance of `solver` in `asset` on `domain` (token units), as seen from its spoke events. */
  solverBalance(domain: number, asset: Address, solver: Address): bigint {
    return this.solverBalances.get(`${domain}:${lowerAddress(asset)}:${lowerAddress(solver)}`) ?? 0n
  }

  /**
   * The largest virtual balance of a tracked solver in `asset` on `domain`: one solver fills an intent, so this is
   * the most one fast-path intent can get (the sum over solvers would quote intents no single solver can fill).
   */
  largestSolverInventory(domain: number, asset: Address): bigint {
    let largest = 0n
    for (const solver of this.solvers) {
      const balance = this.solverBalance(domain, asset, solver as Address)
      if (balance > largest) largest = balance
    }
    return largest
  }

  // -------------------------------------------------------------------------------------------------------
  // Fingerprint

  /**
   * keccak256 over everything the read model serves (records, batches, open invoices, history) and a summary
   * of the hub state: equal fingerprints mean no observable change. O(size): for tests.
   */
  fingerprint(): Bytes32 {
    const parts: string[] = []
    for (let seq = 0; seq < this.columns.count; seq++) parts.push(this.recordJson(this.at(seq)))
    for (const b of this.batches) parts.push(`${b.batchId}:${b.intentIds.join(",")}:${b.nativeFee}:${b.deliveredTimestamp ?? "-"}`)
    parts.push([...this.invoices.ids()].join(","), String(this.invoices.historyCount()))
    for (const [k, v] of this.solverBalances) parts.push(`${k}=${v}`)
    const hub = this.hub?.state
    if (hub !== undefined) {
      parts.push(`hub:${hub.blockNumber}:${hub.timestamp}:${hub.contexts.size}:${hub.messageNonce}:${hub.paymentNonce}:${hub.outbox.length}:${hub.paused ? "paused" : "live"}`)
      for (const [hash, t] of hub.tickers) {
        parts.push(`${hash}:${t.invoices.length}:${[...t.custodied18].join(";")}:${[...t.feeVault18].join(";")}`)
      }
      for (const [d, q] of hub.settlementQueues) parts.push(`${d}:${q.size}`)
      for (const [u, s] of hub.updateVirtualBalance) parts.push(`${u}:${s}`)
      for (const [u, s] of hub.userSupportedDomains) parts.push(`${u}:${s.join(",")}`)
    }
    return keccak256Utf8(parts.join("\n"))
  }
}

