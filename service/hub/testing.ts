/**
 * Test builders for the hub rules tests (`rules-*.test.ts`): a small config with three domains and two
 * tickers, an intent factory with auto-incrementing nonces, a `TestHub` that wraps `Hub` with a
 * `CollectingSink` and hands out the events of each step (running the conservation check after it), and
 * builders for the expected events. Test-only: nothing in the engine imports this file.
 */
import { intentId as computeIntentId, tickerHash } from "../domain/encoding.ts"
import { addressToBytes32, type Bytes32, ZERO_BYTES32 } from "../domain/hex.ts"
import { type FillMessage, type Intent, IntentStatusName } from "../domain/protocol.ts"
import type { HubConfigInput } from "./config.ts"
import type { HubEvent, HubEventKind } from "./events.ts"
import { Hub } from "./hub.ts"
import type { QueuedSettlement, TickerState } from "./state.ts"
import { CollectingSink } from "./trace.ts"

// ---------------------------------------------------------------------------------------------------------
// Units

const WAD = 10n ** 18n

/** An 18-decimal amount from a decimal string or an integer number of whole tokens: `u("96.03")`. */
export const u = (value: string | number): bigint => {
  const text = String(value)
  const match = /^(\d+)(?:\.(\d{1,18}))?$/.exec(text)
  if (match === null) throw new Error(`bad amount ${text}`)
  const whole = BigInt(match[1]!)
  const frac = (match[2] ?? "").padEnd(18, "0")
  return whole * WAD + BigInt(frac)
}

// ---------------------------------------------------------------------------------------------------------
// Domains, assets, users

export const DOMAIN_A = 1
export const DOMAIN_B = 10
export const DOMAIN_C = 8453
/** Hub-supported, listed only by USDC (DAI has no asset there). */
export const DOMAIN_D = 56
/** Not supported by the hub. */
export const UNSUPPORTED_DOMAIN = 777

const addr = (byte: string): Bytes32 => addressToBytes32(`0x${byte.repeat(20)}`)
const assetWord = (suffix: string): Bytes32 => addressToBytes32(`0x${"0".repeat(40 - suffix.length)}${suffix}`)

export const ASSETS = {
  DAI: { [DOMAIN_A]: assetWord("d1"), [DOMAIN_B]: assetWord("d2"), [DOMAIN_C]: assetWord("d3") } as Record<number, Bytes32>,
  USDC: { [DOMAIN_A]: assetWord("c1"), [DOMAIN_B]: assetWord("c2"), [DOMAIN_D]: assetWord("c4") } as Record<number, Bytes32>,
  XT: { [DOMAIN_A]: assetWord("e1"), [DOMAIN_B]: assetWord("e2"), [DOMAIN_C]: assetWord("e3") } as Record<number, Bytes32>,
}
/** An asset no ticker lists. */
export const UNKNOWN_ASSET = assetWord("dead")

export const INITIATOR = addr("fa")
export const RECEIVER = addr("a1")
export const RECEIVER2 = addr("a2")
export const SOLVER = addr("5a")
export const SOLVER2 = addr("5b")
export const FEE1 = addr("f1")
export const FEE2 = addr("f2")
export const FEE_DEST = addr("fd")

export const DAI = tickerHash("DAI")
export const USDC = tickerHash("USDC")
export const XT = tickerHash("XT")
export type TickerSymbol = "DAI" | "USDC" | "XT"
const HASH_OF: Record<TickerSymbol, Bytes32> = { DAI, USDC, XT }

export const assetOf = (symbol: TickerSymbol, domain: number): Bytes32 => {
  const asset = ASSETS[symbol][domain]
  if (asset === undefined) throw new Error(`${symbol} has no asset on ${domain}`)
  return asset
}

// ---------------------------------------------------------------------------------------------------------
// Config

export const EPOCH_LENGTH = 10
export const EXPIRY_BUFFER = 1_000
export const T0 = 1_700_000_000
export const BLOCK_TIME = 12
/** Hub time of a block in the tests' default clock. */
export const timeOf = (block: number): number => T0 + block * BLOCK_TIME

type TickerInput = HubConfigInput["tickers"][number]

/**
 * DAI: fees 1000 + 2000 dbps (3 %), 1000 dbps discount per epoch, cap 10_000, domains A, B, C (default).
 * Same economics as reference §7 vector A.
 */
export const daiTicker = (overrides: Partial<TickerInput> = {}): TickerInput => ({
  symbol: "DAI",
  discountPerEpoch: 1000,
  maxDiscountDbps: 10_000,
  prioritizedStrategy: "default",
  fees: [
    { recipient: FEE1, fee: 1000 },
    { recipient: FEE2, fee: 2000 },
  ],
  domains: [
    { domain: DOMAIN_A, asset: assetOf("DAI", DOMAIN_A), decimals: 18, strategy: "default" },
    { domain: DOMAIN_B, asset: assetOf("DAI", DOMAIN_B), decimals: 6, strategy: "default" },
    { domain: DOMAIN_C, asset: assetOf("DAI", DOMAIN_C), decimals: 18, strategy: "default" },
  ],
  ...overrides,
})

/** USDC: production-like economics (2 dbps fee, 3 dbps per epoch, cap 12), domains A, B, D. */
export const usdcTicker = (overrides: Partial<TickerInput> = {}): TickerInput => ({
  symbol: "USDC",
  discountPerEpoch: 3,
  maxDiscountDbps: 12,
  prioritizedStrategy: "default",
  fees: [{ recipient: FEE1, fee: 2 }],
  domains: [
    { domain: DOMAIN_A, asset: assetOf("USDC", DOMAIN_A), decimals: 6, strategy: "default" },
    { domain: DOMAIN_B, asset: assetOf("USDC", DOMAIN_B), decimals: 6, strategy: "default" },
    { domain: DOMAIN_D, asset: assetOf("USDC", DOMAIN_D), decimals: 18, strategy: "default" },
  ],
  ...overrides,
})

/** XT: an xERC20 ticker (A and C burn/mint, B custodied), xERC20 prioritized, fees 1000 + 2000 dbps. */
export const xtTicker = (overrides: Partial<TickerInput> = {}): TickerInput => ({
  symbol: "XT",
  discountPerEpoch: 1000,
  maxDiscountDbps: 10_000,
  prioritizedStrategy: "xerc20",
  fees: [
    { recipient: FEE1, fee: 1000 },
    { recipient: FEE2, fee: 2000 },
  ],
  domains: [
    { domain: DOMAIN_A, asset: assetOf("XT", DOMAIN_A), decimals: 18, strategy: "xerc20" },
    { domain: DOMAIN_B, asset: assetOf("XT", DOMAIN_B), decimals: 18, strategy: "default" },
    { domain: DOMAIN_C, asset: assetOf("XT", DOMAIN_C), decimals: 18, strategy: "xerc20" },
  ],
  ...overrides,
})

/** The tests' hub config: DAI and USDC, epoch length 10 blocks, expiry buffer 1000 s, min 2 solver domains. */
export const makeConfig = (overrides: Partial<HubConfigInput> = {}): HubConfigInput => ({
  epochLength: EPOCH_LENGTH,
  expiryTimeBuffer: EXPIRY_BUFFER,
  minSolverSupportedDomains: 2,
  tickers: [daiTicker(), usdcTicker()],
  ...overrides,
})

// ---------------------------------------------------------------------------------------------------------
// Intents

export interface IntentParams {
  readonly symbol?: TickerSymbol
  readonly origin?: number
  readonly destinations?: readonly number[]
  readonly amount?: bigint
  readonly ttl?: number
  readonly maxFee?: number
  readonly timestamp?: number
  readonly initiator?: Bytes32
  readonly receiver?: Bytes32
  /** Defaults to the ticker's asset on the origin. */
  readonly inputAsset?: Bytes32
  readonly outputAsset?: Bytes32
}

/** Builds V1 intents with auto-incrementing nonces (from 1, as the spokes do). */
export class IntentFactory {
  private nonce = 0n

  private readonly now: () => number
  constructor(now: () => number = () => T0) {
    this.now = now
  }

  make(p: IntentParams = {}): Intent {
    const symbol = p.symbol ?? "DAI"
    const origin = p.origin ?? DOMAIN_A
    return {
      initiator: p.initiator ?? INITIATOR,
      receiver: p.receiver ?? RECEIVER,
      inputAsset: p.inputAsset ?? assetOf(symbol, origin),
      outputAsset: p.outputAsset ?? ZERO_BYTES32,
      maxFee: p.maxFee ?? 0,
      origin,
      nonce: ++this.nonce,
      timestamp: p.timestamp ?? this.now(),
      ttl: p.ttl ?? 0,
      amount: p.amount ?? u(100),
      destinations: p.destinations ?? [DOMAIN_B],
      data: "0x",
    }
  }
}

export const idOf = (intent: Intent): Bytes32 => computeIntentId(intent)

// ---------------------------------------------------------------------------------------------------------
// The hub under test

export interface InvoiceView {
  readonly intentId: Bytes32
  readonly owner: Bytes32
  readonly entryEpoch: number
  readonly amount: bigint
}

export interface SettlementView {
  readonly intentId: Bytes32
  readonly amount: bigint
  readonly asset: Bytes32
  readonly recipient: Bytes32
  readonly updateVirtualBalance: boolean
}

/**
 * A `Hub` with a `CollectingSink`. Every step method returns the events the step emitted (and only those)
 * after checking conservation. The first block (default 100, epoch 10) is set by the constructor.
 */
export class TestHub {
  readonly sink = new CollectingSink()
  readonly hub: Hub
  readonly intents: IntentFactory
  private cursor = 0

  constructor(config: HubConfigInput = makeConfig(), firstBlock = 100, firstTimestamp = timeOf(firstBlock)) {
    this.hub = new Hub(config, this.sink)
    this.intents = new IntentFactory(() => this.hub.state.timestamp)
    this.hub.setBlock(firstBlock, firstTimestamp)
    this.hub.checkConservation()
    this.cursor = this.sink.events.length
  }

  get state() {
    return this.hub.state
  }

  /** Events emitted since the previous call; runs the conservation check. */
  events(): HubEvent[] {
    const out = this.sink.events.slice(this.cursor)
    this.cursor = this.sink.events.length
    this.hub.checkConservation()
    return out
  }

  step(fn: () => void): HubEvent[] {
    fn()
    return this.events()
  }

  block(number: number, timestamp = timeOf(number)): HubEvent[] {
    return this.step(() => this.hub.setBlock(number, timestamp))
  }

  intent(p: IntentParams = {}): Intent {
    return this.intents.make(p)
  }

  send(...intents: Intent[]): HubEvent[] {
    return this.step(() => this.hub.receiveIntents(intents))
  }

  /** Builds an intent, sends it, and returns it with its id and the events. */
  submit(p: IntentParams = {}): { intent: Intent; id: Bytes32; events: HubEvent[] } {
    const intent = this.intent(p)
    return { intent, id: idOf(intent), events: this.send(intent) }
  }

  fill(intentId: Bytes32, solver: Bytes32 = SOLVER, fee = 0): HubEvent[] {
    const message: FillMessage = { intentId, solver, initiator: INITIATOR, fee, executionTimestamp: this.state.timestamp }
    return this.step(() => this.hub.receiveFills([message]))
  }

  process(symbol: TickerSymbol = "DAI", maxEpochs = 0, maxDeposits = 0, maxInvoices = 0): HubEvent[] {
    return this.step(() => this.hub.processDepositsAndInvoices(symbol, maxEpochs, maxDeposits, maxInvoices))
  }

  ticker(symbol: TickerSymbol = "DAI"): TickerState {
    return this.state.tickers.get(HASH_OF[symbol])!
  }

  custody(domain: number, symbol: TickerSymbol = "DAI"): bigint {
    return this.ticker(symbol).custodied(domain)
  }

  /** Custody on every domain of the ticker, in configured order. */
  custodies(symbol: TickerSymbol = "DAI"): Record<number, bigint> {
    const out: Record<number, bigint> = {}
    for (const d of this.ticker(symbol).config.domains) out[d.domain] = this.ticker(symbol).custodied(d.domain)
    return out
  }

  vault(recipient: Bytes32, symbol: TickerSymbol = "DAI"): bigint {
    return this.ticker(symbol).feeVault18.get(recipient) ?? 0n
  }

  status(intentId: Bytes32): IntentStatusName {
    const ctx = this.state.contexts.get(intentId)
    return ctx === undefined ? "NONE" : IntentStatusName[ctx.status]!
  }

  invoices(symbol: TickerSymbol = "DAI"): InvoiceView[] {
    const out: InvoiceView[] = []
    for (let n = this.ticker(symbol).invoices.head; n !== undefined; n = n.next) {
      out.push({ intentId: n.intentId, owner: n.owner, entryEpoch: n.entryEpoch, amount: n.amount18 })
    }
    return out
  }

  /** Settlements waiting in a domain's queue, oldest first. */
  queued(domain: number): SettlementView[] {
    const queue = this.state.settlementQueues.get(domain)
    if (queue === undefined) return []
    return queue.items.slice(queue.first).map(settlementView)
  }

  lastClosed(symbol: TickerSymbol = "DAI"): number {
    return this.ticker(symbol).lastClosedEpochsProcessed
  }

  pendingRewards(intentId: Bytes32): bigint {
    return this.state.contexts.get(intentId)!.pendingRewards18
  }

  /**
   * The deposits of (epoch, domain) still queued (not popped by the cleanup), with their purchase power, and
   * the queue's `depositsAvailableInEpoch`. Undefined when the queue does not exist.
   */
  deposits(epoch: number, domain: number, symbol: TickerSymbol = "DAI"): DepositsView | undefined {
    const queue = this.ticker(symbol).depositQueue(epoch, domain)
    if (queue === undefined) return undefined
    return {
      items: queue.items.slice(queue.first).map((d) => ({ intentId: depositIntentId(d), purchasePower: d.purchasePower18 })),
      available: queue.available18,
    }
  }

  /** A deep-enough snapshot of the state to prove that a reverted call changed nothing. */
  snapshot(): unknown {
    const tickers = [...this.state.tickers.values()].map((t) => ({
      custody: [...t.custodied18],
      vault: [...t.feeVault18],
      invoices: this.invoices(t.config.symbol as TickerSymbol),
      deposits: [...t.deposits].map(([e, byDomain]) => [
        e,
        [...byDomain].map(([d, q]) => [d, q.first, q.firstWithPurchasePower, q.available18, q.items.map((i) => [depositIntentId(i), i.purchasePower18])]),
      ]),
      waiting: [...t.waiting],
      lastClosed: t.lastClosedEpochsProcessed,
      ledger: { ...t.ledger },
    }))
    const contexts = [...this.state.contexts].map(([id, c]) => [id, c.status, c.solver, c.amountAfterFees18, c.pendingRewards18])
    const queues = [...this.state.settlementQueues].map(([d, q]) => [d, q.first, q.items.map(settlementView)])
    return {
      tickers,
      contexts,
      queues,
      outbox: this.state.outbox.length,
      nonce: this.state.messageNonce,
      payments: this.state.paymentNonce,
      vb: [...this.state.updateVirtualBalance],
      domains: [...this.state.userSupportedDomains],
      epoch: this.hub.currentEpoch(),
    }
  }
}

export interface DepositsView {
  readonly items: readonly { readonly intentId: Bytes32; readonly purchasePower: bigint }[]
  readonly available: bigint
}

/** A queued deposit's intent id, whether the deposit stores the id or the intent's context. */
const depositIntentId = (deposit: object): Bytes32 => {
  const loose = deposit as { readonly intentId?: Bytes32; readonly ctx?: { readonly intentId: Bytes32 } }
  return loose.intentId ?? loose.ctx!.intentId
}

const settlementView = (s: QueuedSettlement): SettlementView => ({
  intentId: s.intentId,
  amount: s.amount,
  asset: s.asset,
  recipient: s.recipient,
  updateVirtualBalance: s.updateVirtualBalance,
})

// ---------------------------------------------------------------------------------------------------------
// Event helpers

export const ofKind = <K extends HubEventKind>(events: readonly HubEvent[], kind: K): Extract<HubEvent, { kind: K }>[] =>
  events.filter((e): e is Extract<HubEvent, { kind: K }> => e.kind === kind)

export const kinds = (events: readonly HubEvent[]): HubEventKind[] => events.map((e) => e.kind)

/** Builders of expected events (DAI unless a ticker is given). */
export const ev = {
  intentProcessed: (intentId: Bytes32, status: IntentStatusName): HubEvent => ({ kind: "IntentProcessed", intentId, status }),
  fillProcessed: (intentId: Bytes32, status: IntentStatusName): HubEvent => ({ kind: "FillProcessed", intentId, status }),
  depositProcessed: (epoch: number, domain: number, intentId: Bytes32, amountAndRewards: bigint, symbol: TickerSymbol = "DAI"): HubEvent => ({
    kind: "DepositProcessed",
    epoch,
    domain,
    tickerHash: HASH_OF[symbol],
    intentId,
    amountAndRewards,
  }),
  depositEnqueued: (epoch: number, domain: number, intentId: Bytes32, amount: bigint, symbol: TickerSymbol = "DAI"): HubEvent => ({
    kind: "DepositEnqueued",
    epoch,
    domain,
    tickerHash: HASH_OF[symbol],
    intentId,
    amount,
  }),
  invoiceEnqueued: (intentId: Bytes32, entryEpoch: number, amount: bigint, owner: Bytes32, symbol: TickerSymbol = "DAI"): HubEvent => ({
    kind: "InvoiceEnqueued",
    intentId,
    tickerHash: HASH_OF[symbol],
    entryEpoch,
    amount,
    owner,
  }),
  settlementEnqueued: (p: {
    intentId: Bytes32
    domain: number
    epoch: number
    amount: bigint
    owner: Bytes32
    updateVirtualBalance?: boolean
    symbol?: TickerSymbol
  }): HubEvent => ({
    kind: "SettlementEnqueued",
    intentId: p.intentId,
    domain: p.domain,
    entryEpoch: p.epoch,
    asset: assetOf(p.symbol ?? "DAI", p.domain),
    amount: p.amount,
    updateVirtualBalance: p.updateVirtualBalance ?? false,
    owner: p.owner,
  }),
  closedEpochsProcessed: (lastClosedEpochProcessed: number, symbol: TickerSymbol = "DAI"): HubEvent => ({
    kind: "ClosedEpochsProcessed",
    tickerHash: HASH_OF[symbol],
    lastClosedEpochProcessed,
  }),
}

/** The settlement a queue should hold for an expected `SettlementEnqueued`. */
export const settlement = (p: {
  intentId: Bytes32
  domain: number
  amount: bigint
  recipient: Bytes32
  updateVirtualBalance?: boolean
  symbol?: TickerSymbol
}): SettlementView => ({
  intentId: p.intentId,
  amount: p.amount,
  asset: assetOf(p.symbol ?? "DAI", p.domain),
  recipient: p.recipient,
  updateVirtualBalance: p.updateVirtualBalance ?? false,
})
