/**
 * The hub's state, as plain mutable structures over which the operations in this folder run. Nothing here
 * iterates an unordered collection: JS Maps iterate in insertion order, and insertion follows the inputs.
 */
import { IdMap } from "../domain/idMap.ts"
import type { Bytes32 } from "../domain/hex.ts"
import { type Intent, IntentStatus, type Settlement } from "../domain/protocol.ts"
import type { DomainAsset, HubConfig, TickerConfig } from "./config.ts"
import type { HubEvent, HubEventSink } from "./events.ts"

/** What the hub knows of one intent (`IntentContext` of the contracts). */
export class IntentContext {
  /** The open invoice of this intent, while there is one. */
  invoice: InvoiceNode | undefined = undefined
  readonly intentId: Bytes32
  constructor(intentId: Bytes32) {
    this.intentId = intentId
  }
  /** Undefined while only the fill message has arrived. */
  intent: Intent | undefined = undefined
  ticker: TickerState | undefined = undefined
  status: IntentStatus = IntentStatus.NONE
  solver: Bytes32 | undefined = undefined
  fillFeeDbps = 0
  fillTimestamp = 0
  totalProtocolFeeDbps = 0
  amountAfterFees18 = 0n
  pendingRewards18 = 0n
  /** Destinations of a fee-withdrawal payment (payments have no intent). */
  paymentDestinations: readonly number[] | undefined = undefined
}

/** An open invoice, a node of the per-ticker FIFO list. */
export class InvoiceNode {
  prev: InvoiceNode | undefined = undefined
  next: InvoiceNode | undefined = undefined
  readonly ctx: IntentContext
  readonly owner: Bytes32
  readonly entryEpoch: number
  readonly amount18: bigint
  /** Hub time at enqueue (read model). */
  readonly enqueuedTimestamp: number
  constructor(ctx: IntentContext, owner: Bytes32, entryEpoch: number, amount18: bigint, enqueuedTimestamp: number) {
    this.ctx = ctx
    this.owner = owner
    this.entryEpoch = entryEpoch
    this.amount18 = amount18
    this.enqueuedTimestamp = enqueuedTimestamp
  }

  get intentId(): Bytes32 {
    return this.ctx.intentId
  }
}

/** Doubly linked FIFO of invoices: append at the tail, unlink anywhere, walk from the head. */
export class InvoiceList {
  head: InvoiceNode | undefined = undefined
  tail: InvoiceNode | undefined = undefined
  length = 0
  /**
   * Invoices unlinked so far. Invoices are only ever appended at the tail, so while it stays the same every
   * invoice's predecessors stay the same (`MinAmountsCache`).
   */
  removals = 0

  append(node: InvoiceNode): void {
    node.prev = this.tail
    if (this.tail) this.tail.next = node
    else this.head = node
    this.tail = node
    this.length++
    node.ctx.invoice = node
  }

  remove(node: InvoiceNode): void {
    if (node.prev) node.prev.next = node.next
    else this.head = node.next
    if (node.next) node.next.prev = node.prev
    else this.tail = node.prev
    node.prev = node.next = undefined
    this.length--
    this.removals++
    node.ctx.invoice = undefined
  }

  /** The open invoices, oldest first. */
  *[Symbol.iterator](): IterableIterator<InvoiceNode> {
    for (let node = this.head; node !== undefined; node = node.next) yield node
  }
}

export interface Deposit {
  readonly ctx: IntentContext
  purchasePower18: bigint
}

/** Deposits of one (epoch, origin domain, ticker), FIFO, with the first one that still has purchase power. */
export class DepositQueue {
  readonly items: Deposit[] = []
  /** Index of the first deposit not yet popped by the closed-epoch cleanup. */
  first = 0
  /** Index of the first deposit with purchase power left (`firstDepositWithPurchasePower`). */
  firstWithPurchasePower = 0
  /** `depositsAvailableInEpoch`: pre-fee amounts, reduced by each invoice settled on this domain. */
  available18 = 0n

  get size(): number {
    return this.items.length - this.first
  }
}

/** Deposits of one epoch, per origin domain in arrival order. */
export type EpochDeposits = Map<number, DepositQueue>

/** Independent counters behind the conservation check (see `conservation.ts`). */
export interface TickerLedger {
  /** Σ amounts added to custody on intent arrival (DEFAULT input assets). */
  intakeCustodied18: bigint
  /** Σ settlements paid out of custody (DEFAULT destination assets). */
  settledFromCustody18: bigint
  /** Σ amounts of xERC20-input intents (burnt on origin, not custodied). */
  xerc20Intake18: bigint
  /** Σ settlements on xERC20 destinations (minted, not taken from custody). */
  xerc20Settled18: bigint
  /** Discounts taken from invoices minus rewards credited to deposits: custody nobody is owed. */
  surplus18: bigint
}

export class TickerState {
  readonly invoices = new InvoiceList()
  /** Deposit queues by arrival epoch, epochs in increasing order. */
  readonly deposits = new Map<number, EpochDeposits>()
  /** Epochs that still hold deposit queues, ascending (deposits only arrive in the current epoch). */
  readonly depositEpochs: number[] = []
  /** Intents in DEPOSIT_PROCESSED (waiting for a fill or expiry), in order of arrival there. */
  readonly waiting = new Set<Bytes32>()
  /** `custodiedAssets` per domain (18-dec), for DEFAULT-strategy assets. */
  readonly custodied18 = new Map<number, bigint>()
  /** `feeVault[ticker][recipient]`. */
  readonly feeVault18 = new Map<Bytes32, bigint>()
  lastClosedEpochsProcessed: number
  readonly assetByDomain = new Map<number, DomainAsset>()
  /** `[asset]` per domain: the destination list of a one-destination intent, shared instead of rebuilt. */
  readonly onlyDomain = new Map<number, readonly DomainAsset[]>()
  readonly ledger: TickerLedger = { intakeCustodied18: 0n, settledFromCustody18: 0n, xerc20Intake18: 0n, xerc20Settled18: 0n, surplus18: 0n }

  readonly config: TickerConfig
  constructor(config: TickerConfig, lastClosedEpochsProcessed: number) {
    this.config = config
    this.lastClosedEpochsProcessed = lastClosedEpochsProcessed
    for (const d of config.domains) {
      this.assetByDomain.set(d.domain, d)
      this.onlyDomain.set(d.domain, [d])
      this.custodied18.set(d.domain, 0n)
    }
  }

  custodied(domain: number): bigint {
    return this.custodied18.get(domain) ?? 0n
  }

  depositQueue(epoch: number, domain: number): DepositQueue | undefined {
    return this.deposits.get(epoch)?.get(domain)
  }

  /** The queue for (epoch, domain), created on first use. */
  openDepositQueue(epoch: number, domain: number): DepositQueue {
    let byDomain = this.deposits.get(epoch)
    if (byDomain === undefined) {
      byDomain = new Map()
      this.deposits.set(epoch, byDomain)
      this.depositEpochs.push(epoch)
    }
    let queue = byDomain.get(domain)
    if (queue === undefined) {
      queue = new DepositQueue()
      byDomain.set(domain, queue)
    }
    return queue
  }
}

/** A settlement waiting in a domain's queue. */
export interface QueuedSettlement extends Settlement {
  /** Hub time at enqueue (read model, latency metrics). */
  readonly enqueuedTimestamp: number
}

/** A FIFO of settlements for one domain (all tickers mixed). */
export class SettlementQueue {
  items: QueuedSettlement[] = []
  first = 0

  get size(): number {
    return this.items.length - this.first
  }

  push(settlement: QueuedSettlement): void {
    this.items.push(settlement)
  }

  take(count: number): QueuedSettlement[] {
    const out = this.items.slice(this.first, this.first + count)
    this.first += count
    if (this.first > 1024 && this.first * 2 > this.items.length) {
      this.items = this.items.slice(this.first)
      this.first = 0
    }
    return out
  }
}

/** A message the hub sends to a spoke (SETTLEMENT batches). */
export interface OutboundMessage {
  readonly messageId: Bytes32
  readonly origin: number
  readonly destination: number
  readonly nonce: bigint
  readonly settlements: readonly Settlement[]
  /** Gas limit requested for the batch on the destination. */
  readonly gasLimit: bigint
  /** The encoded SETTLEMENT message. */
  readonly message: `0x${string}`
}

/** What invoice processing found for one invoice on its chosen domain (read model, min-amounts). */
export interface InvoiceEvaluation {
  readonly discountDbps: number
  readonly domain: number
  readonly liquidity18: bigint
  readonly toDiscount18: bigint
  readonly rewards18: bigint
  readonly amountAfterDiscount18: bigint
}

/** Optional hooks for observers that need more than events (the read model); never alter state. */
export interface HubObserver {
  /** Custody of a DEFAULT asset changed on `domain`: `+amount` on intake, `-amount` on a settlement from custody. */
  onCustody?(ticker: TickerState, domain: number, delta18: bigint, intentId: Bytes32): void
  /**
   * Called for every invoice evaluated on the default path, with the chosen domain if any, the domains the
   * settlement could go to (`settlementDomains`) and the invoice's discount this epoch, as the hub used them.
   */
  onInvoiceEvaluated?(
    ticker: TickerState,
    invoice: InvoiceNode,
    epoch: number,
    chosen: InvoiceEvaluation | undefined,
    domains: readonly DomainAsset[],
    discountDbps: number,
  ): void
}

export class HubState {
  observer: HubObserver | undefined = undefined
  /** False until the first block is set: token configs are initialized at the hub's first block. */
  started = false
  blockNumber = 0
  timestamp = 0
  epochLengthBlocks: number
  carryEpoch = 0
  lastBlockNumberCarryEpochUpdated = 0
  readonly contexts = new IdMap<IntentContext>()
  readonly tickers = new Map<Bytes32, TickerState>()
  /** Asset lookup: domain → asset (bytes32) → (ticker, asset config). */
  readonly assets = new Map<number, Map<Bytes32, { readonly ticker: TickerState; readonly asset: DomainAsset }>>()
  readonly supportedDomains: ReadonlySet<number>
  readonly settlementQueues = new Map<number, SettlementQueue>()
  readonly updateVirtualBalance = new Map<Bytes32, boolean>()
  readonly userSupportedDomains = new Map<Bytes32, readonly number[]>()
  /** `paused` (reference §3.14): gateway messages and the `whenNotPaused` calls revert while set (`pause.ts`). */
  paused = false
  /** Changes of `userSupportedDomains` so far (an invoice's settlement domains read it: `MinAmountsCache`). */
  userDomainsChanges = 0
  /** Outbound message counter (message ids). */
  messageNonce = 0n
  paymentNonce = 0n
  /** Messages produced and not yet taken by the transport. */
  outbox: OutboundMessage[] = []

  readonly config: HubConfig
  readonly sink: HubEventSink
  constructor(config: HubConfig, sink: HubEventSink) {
    this.config = config
    this.sink = sink
    this.epochLengthBlocks = config.epochLengthBlocks
    this.supportedDomains = new Set(config.supportedDomains)
    for (const d of config.supportedDomains) this.settlementQueues.set(d, new SettlementQueue())
    for (const t of config.tickers) {
      const ticker = new TickerState(t, 0)
      this.tickers.set(t.tickerHash, ticker)
      for (const d of t.domains) {
        let byAsset = this.assets.get(d.domain)
        if (byAsset === undefined) this.assets.set(d.domain, (byAsset = new Map()))
        byAsset.set(d.asset, { ticker, asset: d })
      }
    }
  }

  /** `getCurrentEpoch`: carry epoch plus whole epochs since the carry was last updated. */
  currentEpoch(): number {
    return this.epochAt(this.blockNumber)
  }

  /** The epoch of hub block `blockNumber` (not before the current one) as the hub counts epochs now. */
  epochAt(blockNumber: number): number {
    return this.carryEpoch + Math.floor((blockNumber - this.lastBlockNumberCarryEpochUpdated) / this.epochLengthBlocks)
  }

  /** The (ticker, config) of `asset` on `domain`, if the hub supports it. */
  assetOn(domain: number, asset: Bytes32): { readonly ticker: TickerState; readonly asset: DomainAsset } | undefined {
    return this.assets.get(domain)?.get(asset)
  }

  emit(event: HubEvent): void {
    this.sink.emit(event)
  }

  context(intentId: Bytes32): IntentContext {
    let ctx = this.contexts.get(intentId)
    if (ctx === undefined) {
      ctx = new IntentContext(intentId)
      this.contexts.set(intentId, ctx)
    }
    return ctx
  }
}
