/**
 * The spoke interface shared by both backends: `SpokeChain` (one spoke domain: submit calls, mine a block, read
 * state), its receipts and views. `spoke.ts` re-exports everything here together with the `Spokes` service.
 */
import type { Address, Bytes32, Hex } from "../domain/hex.ts"
import type { Intent, IntentStatus } from "../domain/protocol.ts"
import type { SpokeCall } from "./calls.ts"
import type { SpokeEvent } from "./events.ts"
import type { SpokeAddresses, SpokeLayout } from "./layout.ts"

export type SpokeBackend = "memory" | "anvil"

/** A custom error (`ClearingSpoke_Paused`, ...), `Panic` (args `[code]`), `Error` (args `[reason]`), or `Revert` (no data). */
export interface SpokeError {
  readonly name: string
  readonly args: readonly unknown[]
}

export interface SpokeSubmission {
  /** The sender; on anvil a dev account of the pool (transactions are signed locally). */
  readonly from: Address
  readonly call: SpokeCall
  /** Wei sent with the call. Default 0. */
  readonly value?: bigint
}

/** A raw transaction request (for example one built by the HTTP API); decoded into a `SpokeCall`. */
export interface RawSubmission {
  readonly from: Address
  readonly to: Address
  readonly data: Hex
  readonly value?: bigint
}

/** Handle of a queued call: its receipt is `block.receipts[index]` of the next `mine`. */
export interface SubmittedCall {
  readonly domain: number
  readonly index: number
}

interface ReceiptBase {
  /** Position in the block (= submission order). */
  readonly index: number
  readonly from: Address
  readonly call: SpokeCall
  /** anvil only, when receipts were fetched. */
  readonly gasUsed?: bigint
  /** anvil only. */
  readonly transactionHash?: Hex
}

export type SpokeReceipt =
  | (ReceiptBase & { readonly status: "success"; readonly events: readonly SpokeEvent[] })
  | (ReceiptBase & { readonly status: "reverted"; readonly error: SpokeError; readonly events: readonly [] })

export interface MinedSpokeBlock {
  readonly domain: number
  readonly blockNumber: bigint
  readonly timestamp: bigint
  /** One per submitted call, in submission order. */
  readonly receipts: readonly SpokeReceipt[]
}

export interface QueuedIntent {
  readonly queueIdx: bigint
  readonly intentId: Bytes32
  readonly intent: Intent
}

/** `XERC20Token.DURATION`: a limit refills from 0 to its maximum over this many seconds, linearly. */
export const XERC20_DURATION = 86_400

/** xERC20 bridge limits of one bridge, in token units. */
export interface XERC20Limits {
  readonly mintingCurrentLimit: bigint
  readonly burningCurrentLimit: bigint
  readonly mintingMaxLimit: bigint
  readonly burningMaxLimit: bigint
}

/**
 * Reads of one spoke domain, as of the last mined block. `SpokeReader` returns values (the memory backend's
 * synchronous reads); `SpokeChain` returns promises of the same values.
 */
export interface SpokeReader {
  blockNumber(): bigint
  timestamp(): bigint
  erc20Balance(token: Address, account: Address): bigint
  allowance(token: Address, owner: Address, spender: Address): bigint
  totalSupply(token: Address): bigint
  /** The spoke's `balances(asset, account)` (solver deposits and credited settlements), token units. */
  virtualBalance(asset: Address, account: Address): bigint
  status(intentId: Bytes32): IntentStatus
  /** Pending intents in queue order (the first `limit` when given). */
  intentQueue(limit?: number): readonly QueuedIntent[]
  /** Intents in the intent queue (`intentQueueLast - intentQueueFirst + 1`). */
  intentQueueLength(): number
  fillQueueLength(): number
  quoteMessage(destination: number, message: Hex): bigint
  /** The XERC20 module's recorded debt `mintable(recipient, asset)`. */
  mintable(recipient: Address, asset: Address): bigint
  /** Limits of `bridge` (default: the domain's XERC20 module) on an xERC20 token. */
  xerc20Limits(token: Address, bridge?: Address): XERC20Limits
  /** The spoke's intent nonce (the last intent's nonce). */
  nonce(): bigint
  paused(): boolean
  /** Whether the gateway has delivered this message id. */
  delivered(messageId: Bytes32): boolean
}

type Async<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : T[K] }

/** One spoke domain on either backend. */
export interface SpokeChain extends Async<SpokeReader> {
  readonly backend: SpokeBackend
  readonly domain: number
  readonly hubDomain: number
  readonly addresses: SpokeAddresses
  readonly layout: SpokeLayout
  /** Calls queued for the next block. */
  readonly pending: number
  /** Queues a call for the next block (throws `InvalidSpokeCallError` for a call that cannot be encoded). */
  submit(submission: SpokeSubmission): SubmittedCall
  /** Queues a raw transaction (throws `UnknownSpokeCallError` when it is not a call `SpokeCall` covers). */
  submitRaw(submission: RawSubmission): SubmittedCall
  /** Executes every queued call, in submission order, in ONE block at `timestamp` (seconds, never decreasing). */
  mine(timestamp: bigint): Promise<MinedSpokeBlock>
  /** Events of blocks `fromBlock..toBlock` (inclusive; default the head), in chain order. */
  events(fromBlock: bigint, toBlock?: bigint): Promise<readonly SpokeEvent[]>
}

/** A raw transaction that is not one of the calls `SpokeCall` covers. */
export class UnknownSpokeCallError extends Error {
  override readonly name = "UnknownSpokeCallError"
  readonly domain: number
  readonly to: Address
  readonly selector: string
  constructor(domain: number, to: Address, selector: string) {
    super(`Domain ${domain}: the call to ${to} with selector ${selector} is not a spoke call clearsim knows.`)
    this.domain = domain
    this.to = to
    this.selector = selector
  }
}

/** `mine` was asked for a timestamp before the head's. */
export class SpokeTimestampError extends Error {
  override readonly name = "SpokeTimestampError"
  readonly domain: number
  readonly requested: bigint
  readonly head: bigint
  constructor(domain: number, requested: bigint, head: bigint) {
    super(`Domain ${domain}: cannot mine a block at ${requested}, before the head block's timestamp ${head}.`)
    this.domain = domain
    this.requested = requested
    this.head = head
  }
}
