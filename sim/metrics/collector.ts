/**
 * Run metrics, observed from the world's events: intents by path, latencies (user: creation to the receiver
 * being paid, by a fill or a settlement; settlement: creation to the settlement on the destination spoke; creation
 * is the intent's block on its origin chain, not its submission: `TrackedIntent.createdAt`), the
 * discount paid on invoices, netting by FIFO attribution of custody, per-epoch time series (queue depths of the
 * hub and of the spokes, ratios) and coverage flags for scenario properties.
 */
import { BoundedMemo } from "../../service/domain/boundedMemo.ts"
import { type Address, type Bytes32, bytes32ToAddress } from "../../service/domain/hex.ts"
import { type Intent, IntentStatus, NORMALIZED_DECIMALS, normalizeDecimals, Strategy } from "../../service/domain/protocol.ts"
import type { HubEvent } from "../../service/hub/events.ts"
import { discountDbps } from "../../service/hub/settler.ts"
import type { TickerState } from "../../service/hub/state.ts"
import type { SpokeEvent } from "../../service/spoke/events.ts"
import type { AgentKind, AgentPlan, AssetOnChainPlan } from "../world/plan.ts"
import type { SpokeEventContext, World, WorldObserver } from "../world/world.ts"
import { type CustodySource, NettingTracker, ratioOf, type SourceKind } from "./netting.ts"
import { SampleUnion, Samples, toMilliseconds } from "./percentiles.ts"
import { type EpochValues, shareOf } from "./properties.ts"
import { EpochSeries, type TimeseriesRow } from "./timeseries.ts"
import { formatUnits, type Valuation, valuationOf } from "./valuation.ts"

export type { TimeseriesRow }

export type IntentPath = "basic" | "fast" | "swap" | "xerc20"
export const PATHS: readonly IntentPath[] = ["basic", "fast", "swap", "xerc20"]

/** What `classify` finds for an intent's route, once per route. */
interface Classified {
  readonly path: IntentPath
  readonly symbol: string
  readonly counts: { created: number; settled: number }
}

interface TrackedIntent {
  readonly agent: AgentPlan | undefined
  /**
   * Where the intent's deposit comes from, for netting: its agent's kind and id, or for a sender no population owns
   * (an HTTP client of `clearsim up`) a user identified by its address.
   */
  readonly source: CustodySource
  /**
   * The counts and latencies of the sender's population; undefined for the initial-liquidity provider's seeds
   * (sim/agents/liquidity.ts): their custody is attributed to "initial" liquidity, but they are not intents of the
   * run's users (not counted, no latency samples).
   */
  readonly population: PopulationIntents | undefined
  readonly path: IntentPath
  readonly ticker: string
  /** Its input asset's counts (`byTicker`), held here: no lookup when it settles. */
  readonly assetCounts: { created: number; settled: number }
  readonly origin: number
  readonly destination: number
  readonly receiver: Address
  /**
   * When the intent was created, the start of both latencies: its `IntentAdded` block on the origin chain (the
   * intent's `timestamp`), not the moment its sender submitted it. The wait for the origin's block is left out, and
   * so, under a `halt` of the origin chain, is the halt (an intent sent during it is timed from the first block after
   * it); a halt of the destination or of the hub is counted. Creation is what the protocol and the read model record,
   * the same for every sender (a transaction an HTTP client of `clearsim up` sends itself reaches the world only
   * mined), and the settlement latency starts there too. From the submission instead, every shipped scenario's
   * user latency would grow by the origin's block wait (about 1 s at the median on 2-s blocks, 6 s on
   * throughput-10k's 12-s blocks: its p50 192 s → 200.2 s) and transport-faults' p99 by 98 s (4,405.78 s →
   * 4,503.91 s, intents sent during its 31003 halt, the longest wait 789 s), every baseline moved for a choice of
   * clock, not a fix; README's Latency paragraph says the same.
   */
  readonly createdAt: number
  readonly amount18: bigint
  paidAt: number | undefined
  settledAt: number | undefined
  /** After a failed xERC20 mint: what is still owed, 18-decimal units. */
  owed18: bigint | undefined
}

/** Intents of one agent population (or of senders no population owns): counts and latency samples. */
export interface PopulationIntents {
  /**
   * Whether its intents are users' (a rebalancer population, or senders no population owns): those count in the
   * run's headline figures. An arbitrageur's purchases and a solver's rebalancing count in their population only.
   */
  readonly users: boolean
  created: number
  settled: number
  /** Creation to the receiver paid. */
  readonly user: Samples
  /** Creation to the settlement on the destination. */
  readonly settlement: Samples
}

/** The `byPopulation` key of intents sent by accounts no agent population owns (an HTTP client of `clearsim up`, say). */
export const OTHER_SENDERS = "(other senders)"

/**
 * `part` in basis points of `whole` (> 0), to six decimals, truncated (`(part × 10^10) div whole`, in integers): the
 * report's and every epoch's discount rates and each invoice's, by the rule of every ratio a report gives (`ratioOf`).
 */
export const bpsOf = (part: bigint, whole: bigint): number => Number((part * 10_000_000_000n) / whole) / 1_000_000

/** The overall discount figures, in the run's total unit (`MetricsCollector.valuation`: tokens or USD). */
export interface DiscountTotals {
  /** Discount paid on the invoices settled. */
  readonly paid: bigint
  /** Everything the hub settled (all owners, all strategies): what `discounts.paidBps` is in bps of. */
  readonly settled: bigint
  /** The amounts of the invoices settled, before their discount: what `discounts.paidBpsOfInvoices` is in bps of. */
  readonly invoiced: bigint
}

/**
 * One spoke queue (intents or fills) as its events show it: the index of the last item added and the index of the
 * next item to dispatch (the spoke's `first`). Indexes rather than counts: the same on both backends (the events
 * carry them), no chain read, and one dispatch event corrects any item added before the collector was watching.
 */
class SpokeQueueCursor {
  /** Index of the last item added (0: none seen). */
  last = 0
  /** Index of the next item to dispatch; undefined until the first item or dispatch is seen. */
  next: number | undefined = undefined

  added(queueIdx: bigint): void {
    const idx = Number(queueIdx)
    if (this.next === undefined) this.next = idx
    if (idx > this.last) this.last = idx
  }

  /** A dispatch of the items `firstIdx` to `lastIdx - 1` (the spoke's event: `lastIdx` is the new `first`). */
  dispatched(lastIdx: bigint): void {
    const next = Number(lastIdx)
    if (this.next === undefined || next > this.next) this.next = next
  }

  /** Items added and not yet dispatched. */
  get pending(): number {
    return this.next === undefined || this.last < this.next ? 0 : this.last - this.next + 1
  }
}

/**
 * The other names properties may give a metric recorded per epoch (report.ts's `metricsOf` puts both): a property
 * on `netting.ratio >= x` names the epoch it has failed since from the epochs' `nettingRatio` as one on
 * `nettingRatio >= x` does; so do the latency percentiles' `latency.<q>` and `latency.settlement.<q>`.
 */
const EPOCH_METRIC_ALIASES: ReadonlyMap<string, string> = new Map([
  ["netting.ratio", "nettingRatio"],
  ["discounts.paidBps", "discountPaidBps"],
  ["discounts.paidBpsOfInvoices", "discountPaidBpsOfInvoices"],
  ...(["p50", "p90", "p99", "max"] as const).flatMap((q): [string, string][] => [
    [`latency.${q}`, `${q}LatencySeconds`],
    [`latency.settlement.${q}`, `${q}SettlementLatencySeconds`],
  ]),
])

/** A number made from an amount (`tokens18`, the valuation's `toNumber`), made again only when the amount changed. */
class AmountNumber {
  private amount: bigint | undefined = undefined
  private value = 0
  private readonly toNumber: (amount: bigint) => number

  constructor(toNumber: (amount: bigint) => number) {
    this.toNumber = toNumber
  }

  of(amount: bigint): number {
    if (amount !== this.amount) {
      this.value = this.toNumber(amount)
      this.amount = amount
    }
    return this.value
  }
}

/** An asset's per-epoch metric names, made once (a name made per epoch is a string to build and hash each time). */
interface TickerMetrics {
  readonly invoicesOpen: string
  readonly depositsQueued: string
  readonly depositsWaiting: string
  /** `custody.<symbol>.<domain>` and its last amount's number, by domain. */
  readonly custody: Map<number, { readonly name: string; readonly tokens: AmountNumber }>
}

/** A chain's per-epoch metric names. */
interface DomainMetrics {
  readonly settlementQueue: string
  readonly intentQueue: string
  readonly fillQueue: string
}

const SOURCE_OF: Record<AgentKind, SourceKind> = { rebalancer: "user", solver: "solver", arbitrageur: "arbitrageur", liquidity: "initial" }

export class MetricsCollector implements WorldObserver {
  /**
   * How the overall figures add several assets: with the scenario's prices, each asset's tokens weighed by its
   * price (USD); without, tokens added as they are.
   */
  readonly valuation: Valuation
  readonly netting: NettingTracker
  private readonly intents = new Map<Bytes32, TrackedIntent>()
  /** Whether the hub returned an unsupported intent yet (until then no settlement can be such a refund). */
  private unsupportedReturned = false
  private readonly agentsByAccount = new Map<string, AgentPlan>()
  /**
   * The headline figures (counts by path and asset, latencies, the per-epoch samples) are the users' intents only
   * (`PopulationIntents.users`): an arbitrageur's purchase, settled as soon as it buys an invoice, would pull the
   * users' latencies down. Every population's own figures are in `byPopulation`.
   */
  readonly created: Record<IntentPath, number> = { basic: 0, fast: 0, swap: 0, xerc20: 0 }
  /** Users' intents created and settled by input asset symbol (every asset of the run, in the scenario's order). */
  readonly byTicker = new Map<string, { created: number; settled: number }>()
  readonly settled: Record<IntentPath, number> = { basic: 0, fast: 0, swap: 0, xerc20: 0 }
  /**
   * Counts and latencies by agent population (the scenario's names, in the plan's order, the initial liquidity
   * left out), then `OTHER_SENDERS` once such an intent is seen.
   */
  readonly byPopulation = new Map<string, PopulationIntents>()
  private readonly populationOf = new Map<AgentPlan, PopulationIntents>()
  readonly userLatency = new Map<IntentPath, Samples>(PATHS.map((p) => [p, new Samples()]))
  readonly settlementLatency = new Map<IntentPath, Samples>(PATHS.map((p) => [p, new Samples()]))
  readonly allUserLatency = new SampleUnion([...this.userLatency.values()])
  readonly allSettlementLatency = new SampleUnion([...this.settlementLatency.values()])
  /** Samples of the current epoch only (per-epoch snapshots). */
  private epochUserLatency = new Samples()
  private epochSettlementLatency = new Samples()
  /** Everything the hub settled (all owners, all strategies): the volume discounts are measured against (every asset's tokens added as they are). */
  settledVolume18 = 0n
  /** With prices: the same, each settlement weighed by its asset's price (units of the valuation). */
  private settledValue = 0n
  /** With prices: each asset's weight by settlement domain, then asset word (`SettlementEnqueued` names no ticker). */
  private readonly weightAt = new Map<number, Map<Bytes32, bigint>>()
  /** Discount per settled invoice, bps of the invoice. */
  readonly discountBps = new Samples()
  discountPaid18 = 0n
  /** The amounts of the invoices settled (before their discount): what the discount was taken from. */
  settledInvoiceVolume18 = 0n
  /** Discount paid, invoice amounts and invoices settled, by asset symbol (in order of their first settled invoice). */
  readonly discountByTicker = new Map<string, { paid18: bigint; invoiced18: bigint; invoices: number }>()
  private readonly openInvoices = new Map<Bytes32, { readonly amount18: bigint; readonly ticker: Bytes32; readonly entryEpoch: number }>()
  invoicesCreated = 0
  invoicesSettled = 0
  readonly coverage = new Set<string>()
  /** The per-epoch series (one epoch per snapshot, `onEpoch`): timeseries.csv's rows and the per-epoch property checks. */
  readonly timeseries = new EpochSeries()
  /** The last epoch snapshotted (`onEpoch`); undefined before the first. */
  private lastSnapshotEpoch: number | undefined = undefined
  private readonly tickerMetrics = new Map<string, TickerMetrics>()
  private readonly domainMetrics = new Map<number, DomainMetrics>()
  /** The discount paid of the epochs' `discountPaidUsd` or `discountPaidTokens`, made again only when it changed. */
  private readonly discountPaidNumber: AmountNumber
  /** Each spoke's intent queue and fill queue, by domain (every chain of the run, in the world's order). */
  private readonly spokeQueues = new Map<number, { readonly intents: SpokeQueueCursor; readonly fills: SpokeQueueCursor }>()
  private readonly symbolOf = new Map<Bytes32, string>()
  /** The run's assets by `${domain}:${address}`. */
  private readonly assetAt = new Map<string, AssetOnChainPlan>()
  /** The last AssetMintFailed, until the Settled that follows it in the same receipt. */
  private mintFailure: { readonly receipt: unknown; readonly asset: Address; readonly recipient: Address } | undefined
  /** xERC20 amounts owed to a recipient after failed mints, oldest first, per `${domain}:${asset}:${recipient}`. */
  private readonly debts = new Map<string, { readonly intentId: Bytes32; amount: bigint }[]>()

  private readonly world: World
  constructor(world: World) {
    this.world = world
    this.valuation = valuationOf(world.plan.scenario.assets)
    const valuation = this.valuation
    this.netting = new NettingTracker(valuation.priced ? (ticker) => valuation.weightOf(ticker) : undefined)
    this.discountPaidNumber = new AmountNumber(valuation.priced ? (amount) => valuation.toNumber(amount) : tokensOf18)
    // By the address as plans and receipts spell it (checksummed) and in lowercase: no case folding per intent.
    for (const agent of world.plan.agents) {
      this.agentsByAccount.set(agent.account.address, agent)
      this.agentsByAccount.set(agent.account.address.toLowerCase(), agent)
      if (agent.kind !== "liquidity") this.populationOf.set(agent, this.populationIntents(agent.population, agent.kind === "rebalancer"))
    }
    for (const ticker of world.hub.state.tickers.values()) {
      this.symbolOf.set(ticker.config.tickerHash, ticker.config.symbol)
      // Every asset has its counts, 0 when it sends nothing (its properties then have a value), in scenario order.
      this.tickerCounts(ticker.config.symbol)
    }
    for (const a of world.plan.assets.values()) this.assetAt.set(`${a.domain}:${a.address}`, a)
    for (const domain of world.spokes.domains) this.spokeQueuesOf(domain)
  }

  private tickerCounts(symbol: string): { created: number; settled: number } {
    let counts = this.byTicker.get(symbol)
    if (counts === undefined) this.byTicker.set(symbol, (counts = { created: 0, settled: 0 }))
    return counts
  }

  private populationIntents(name: string, users: boolean): PopulationIntents {
    let p = this.byPopulation.get(name)
    if (p === undefined) this.byPopulation.set(name, (p = { users, created: 0, settled: 0, user: new Samples(), settlement: new Samples() }))
    return p
  }

  private spokeQueuesOf(domain: number): { readonly intents: SpokeQueueCursor; readonly fills: SpokeQueueCursor } {
    let queues = this.spokeQueues.get(domain)
    if (queues === undefined) this.spokeQueues.set(domain, (queues = { intents: new SpokeQueueCursor(), fills: new SpokeQueueCursor() }))
    return queues
  }

  private pathOf(domain: number, inputAsset: Address, destination: number, outputAsset: Address, ttl: number): IntentPath {
    const input = this.assetAt.get(`${domain}:${inputAsset}`)
    if (input?.strategy === "xerc20") return "xerc20"
    if (ttl === 0) return "basic"
    const output = this.assetAt.get(`${destination}:${outputAsset}`)
    return input !== undefined && output !== undefined && output.symbol !== input.symbol ? "swap" : "fast"
  }

  /** Path and input symbol of intents by input asset, output asset, origin, then destination and fast-path flag. */
  private readonly classified = new Map<Bytes32, Map<Bytes32, Map<number, Map<number, Classified>>>>()

  /** The intent's path, input asset symbol and that asset's counts (memoized: the intents of a run share a few asset combinations). */
  private classify(domain: number, intent: Intent): Classified {
    const destination = intent.destinations[0] ?? 0
    let byOutput = this.classified.get(intent.inputAsset)
    if (byOutput === undefined) this.classified.set(intent.inputAsset, (byOutput = new Map()))
    let byOrigin = byOutput.get(intent.outputAsset)
    if (byOrigin === undefined) byOutput.set(intent.outputAsset, (byOrigin = new Map()))
    let byRoute = byOrigin.get(domain)
    if (byRoute === undefined) byOrigin.set(domain, (byRoute = new Map()))
    const routeKey = destination * 2 + (intent.ttl > 0 ? 1 : 0)
    let c = byRoute.get(routeKey)
    if (c === undefined) {
      const inputAsset = bytes32ToAddress(intent.inputAsset)
      const symbol = this.assetAt.get(`${domain}:${inputAsset}`)?.symbol ?? "?"
      c = { path: this.pathOf(domain, inputAsset, destination, bytes32ToAddress(intent.outputAsset), intent.ttl), symbol, counts: this.tickerCounts(symbol) }
      byRoute.set(routeKey, c)
    }
    return c
  }

  /** Receivers' addresses by word: one string per receiver, not per intent. */
  private readonly addresses = new BoundedMemo<Bytes32, Address>(1 << 16, bytes32ToAddress)

  private addressOf(word: Bytes32): Address {
    return this.addresses.get(word)
  }

  /** The agent that owns an intent still in flight (netting attribution); undefined for unknown senders and finished intents. */
  ownerOf(intentId: Bytes32): AgentPlan | undefined {
    return this.intents.get(intentId)?.agent
  }

  onSpokeEvent(event: SpokeEvent, context: SpokeEventContext): void {
    this.closeElapsedEpochs()
    const now = this.world.nowMs / 1000
    switch (event.name) {
      case "IntentAdded": {
        this.spokeQueuesOf(context.domain).intents.added(event.queueIdx)
        const intent = event.intent
        const { path, symbol, counts } = this.classify(context.domain, intent)
        const agent = this.agentsByAccount.get(context.receipt.from) ?? this.agentsByAccount.get(context.receipt.from.toLowerCase())
        const population = agent === undefined ? this.populationIntents(OTHER_SENDERS, true) : this.populationOf.get(agent)
        this.intents.set(event.intentId, {
          agent,
          source: agent === undefined ? this.outsideSource(context.receipt.from) : this.sourceOf(agent),
          population,
          path,
          ticker: symbol,
          assetCounts: counts,
          origin: intent.origin,
          destination: intent.destinations[0] ?? 0,
          receiver: this.addressOf(intent.receiver),
          createdAt: now,
          amount18: intent.amount,
          paidAt: undefined,
          settledAt: undefined,
          owed18: undefined,
        })
        if (population !== undefined) {
          population.created++
          if (population.users) {
            this.created[path]++
            counts.created++
          }
        }
        break
      }
      case "IntentQueueProcessed":
        this.spokeQueuesOf(context.domain).intents.dispatched(event.lastIdx)
        break
      case "FillQueueProcessed":
        this.spokeQueuesOf(context.domain).fills.dispatched(event.lastIdx)
        break
      case "IntentFilled": {
        this.spokeQueuesOf(context.domain).fills.added(event.queueIdx)
        const tracked = this.intents.get(event.intentId)
        if (tracked === undefined || tracked.paidAt !== undefined) break
        this.markPaid(tracked, now)
        this.coverage.add(tracked.path === "swap" ? "swapFilled" : "fastPathFilled")
        break
      }
      case "Settled": {
        const failure = this.mintFailure
        this.mintFailure = undefined
        const tracked = this.intents.get(event.intentId)
        if (tracked === undefined || tracked.settledAt !== undefined) break
        // A refund of an unsupported intent on its origin is not a settlement.
        if (this.unsupportedReturned && this.world.hub.state.contexts.get(event.intentId)?.status === IntentStatus.UNSUPPORTED_RETURNED) break
        tracked.settledAt = now
        if (tracked.population !== undefined) {
          tracked.population.settled++
          tracked.population.settlement.add(now - tracked.createdAt)
          if (tracked.population.users) {
            this.settled[tracked.path]++
            tracked.assetCounts.settled++
            this.settlementLatency.get(tracked.path)!.add(now - tracked.createdAt)
            this.allSettlementLatency.add(now - tracked.createdAt)
            this.epochSettlementLatency.add(now - tracked.createdAt)
          }
        }
        // The mint just before this settlement in the same receipt failed: the receiver is owed a debt, paid
        // when it is minted.
        const minted = !(failure !== undefined && failure.receipt === context.receipt && failure.recipient === event.account && failure.asset === event.asset)
        if (!minted) {
          const key = `${context.domain}:${event.asset}:${event.account}`
          let owed = this.debts.get(key)
          if (owed === undefined) this.debts.set(key, (owed = []))
          owed.push({ intentId: event.intentId, amount: event.amount })
          tracked.owed18 = normalizeDecimals(event.amount, this.assetAt.get(`${context.domain}:${event.asset}`)?.decimals ?? 18, NORMALIZED_DECIMALS)
        } else if (tracked.paidAt === undefined && event.account === tracked.receiver) this.markPaid(tracked, now)
        if (tracked.path === "xerc20" && minted) this.coverage.add("xerc20Settled")
        this.forgetIfDone(event.intentId, tracked)
        break
      }
      case "AssetMintFailed":
        this.mintFailure = { receipt: context.receipt, asset: event.asset, recipient: event.recipient }
        this.coverage.add("xerc20MintDebt")
        break
      case "DebtMinted": {
        this.coverage.add("xerc20DebtMinted")
        // Debts are minted in order: pay the oldest owed intents this mint covers.
        const owed = this.debts.get(`${context.domain}:${event.asset}:${event.recipient}`)
        let left = event.amount
        while (owed !== undefined && owed.length > 0 && owed[0]!.amount <= left) {
          const debt = owed.shift()!
          left -= debt.amount
          const tracked = this.intents.get(debt.intentId)
          if (tracked !== undefined && tracked.paidAt === undefined) {
            this.markPaid(tracked, now)
            this.forgetIfDone(debt.intentId, tracked)
          }
        }
        if (owed !== undefined && owed.length > 0 && left > 0n) {
          owed[0]!.amount -= left
          const partly = this.intents.get(owed[0]!.intentId)
          if (partly !== undefined) partly.owed18 = normalizeDecimals(owed[0]!.amount, this.assetAt.get(`${context.domain}:${event.asset}`)?.decimals ?? 18, NORMALIZED_DECIMALS)
        }
        break
      }
    }
  }

  /**
   * A settled intent whose receiver was paid has nothing left to measure (no later event names it): it is dropped,
   * so that a million-intent run does not keep a million of these.
   */
  private forgetIfDone(intentId: Bytes32, tracked: TrackedIntent): void {
    if (tracked.settledAt !== undefined && tracked.paidAt !== undefined) this.intents.delete(intentId)
  }

  private markPaid(tracked: TrackedIntent, now: number): void {
    tracked.paidAt = now
    if (tracked.population === undefined) return
    tracked.population.user.add(now - tracked.createdAt)
    if (!tracked.population.users) return
    this.userLatency.get(tracked.path)!.add(now - tracked.createdAt)
    this.allUserLatency.add(now - tracked.createdAt)
    this.epochUserLatency.add(now - tracked.createdAt)
  }

  onHubEvent(event: HubEvent): void {
    switch (event.kind) {
      case "InvoiceEnqueued":
        this.openInvoices.set(event.intentId, { amount18: event.amount, ticker: event.tickerHash, entryEpoch: event.entryEpoch })
        this.invoicesCreated++
        this.coverage.add("invoiceCreated")
        break
      case "SettlementEnqueued": {
        this.settledVolume18 += event.amount
        if (this.valuation.priced) this.settledValue += event.amount * this.settlementWeight(event.domain, event.asset)
        const invoice = this.openInvoices.get(event.intentId)
        if (invoice === undefined) break
        this.openInvoices.delete(event.intentId)
        this.invoicesSettled++
        this.coverage.add("invoiceSettled")
        this.settledInvoiceVolume18 += invoice.amount18
        const discount18 = invoice.amount18 > event.amount ? invoice.amount18 - event.amount : 0n
        if (discount18 > 0n) {
          this.discountPaid18 += discount18
          this.coverage.add("discountPaid")
        }
        // Per asset, in its own tokens (per invoice settled: a small share of the intents).
        const symbol = this.symbolOf.get(invoice.ticker) ?? "?"
        let byAsset = this.discountByTicker.get(symbol)
        if (byAsset === undefined) this.discountByTicker.set(symbol, (byAsset = { paid18: 0n, invoiced18: 0n, invoices: 0 }))
        byAsset.paid18 += discount18
        byAsset.invoiced18 += invoice.amount18
        byAsset.invoices++
        this.discountBps.add(invoice.amount18 === 0n ? 0 : bpsOf(discount18, invoice.amount18))
        break
      }
      case "DepositProcessed": {
        // An arbitrageur's deposit that earned rewards bought (part of) an invoice. Only a deposit of a closed epoch
        // can have earned any (its event carries amount after fees + rewards, reference §3.6); one taken in while
        // no invoice was open is processed in the current epoch, and its event carries the amount before the
        // protocol fee (§3.3 step 6), no reward.
        if (this.ownerOf(event.intentId)?.kind !== "arbitrageur") break
        const ctx = this.world.hub.state.contexts.get(event.intentId)
        if (ctx !== undefined && event.epoch < this.world.hub.currentEpoch() && event.amountAndRewards > ctx.amountAfterFees18) this.coverage.add("arbitragePurchase")
        break
      }
      case "ExpiredIntentsHandled":
        this.coverage.add("expiredIntentHandled")
        break
      case "ReturnUnsupportedIntent":
        this.unsupportedReturned = true
        this.coverage.add("unsupportedReturned")
        break
    }
  }

  /** With prices: the weight of the asset a settlement pays (`asset`, a word, on `domain`), memoized. */
  private settlementWeight(domain: number, asset: Bytes32): bigint {
    let byAsset = this.weightAt.get(domain)
    if (byAsset === undefined) this.weightAt.set(domain, (byAsset = new Map()))
    let weight = byAsset.get(asset)
    if (weight === undefined) {
      const symbol = this.assetAt.get(`${domain}:${bytes32ToAddress(asset)}`)?.symbol
      if (symbol === undefined) throw new Error(`a settlement on ${domain} pays ${asset}, no asset of the scenario`)
      byAsset.set(asset, (weight = this.valuation.weightOf(symbol)))
    }
    return weight
  }

  /**
   * The overall discount figures in the valuation's unit: without prices, 18-decimal tokens of every asset added as
   * they are (`discountPaid18`, `settledVolume18`, `settledInvoiceVolume18`); with prices, each asset's weighed by
   * its price (from the per-asset sums, exact).
   */
  discountTotals(): DiscountTotals {
    if (!this.valuation.priced) return { paid: this.discountPaid18, settled: this.settledVolume18, invoiced: this.settledInvoiceVolume18 }
    let paid = 0n
    let invoiced = 0n
    for (const [symbol, d] of this.discountByTicker) {
      const weight = this.valuation.weightOf(symbol)
      paid += d.paid18 * weight
      invoiced += d.invoiced18 * weight
    }
    return { paid, settled: this.settledValue, invoiced }
  }

  /** Custody sources by agent id or outside sender address (one object per owner, shared by its lots). */
  private readonly sources = new Map<string, CustodySource>()
  private static readonly UNKNOWN_SOURCE: CustodySource = { kind: "protocol", owner: "unknown" }
  /** Lane names `${origin}>${destination}` by origin, then destination. */
  private readonly lanes = new Map<number, Map<number, string>>()

  private sourceOf(agent: AgentPlan): CustodySource {
    let source = this.sources.get(agent.id)
    if (source === undefined) this.sources.set(agent.id, (source = { kind: SOURCE_OF[agent.kind], owner: agent.id }))
    return source
  }

  /** A sender no population owns: a user of its own, by lowercase address (agent ids have no `0x`). */
  private outsideSource(sender: Address): CustodySource {
    const owner = sender.toLowerCase()
    let source = this.sources.get(owner)
    if (source === undefined) this.sources.set(owner, (source = { kind: "user", owner }))
    return source
  }

  private laneOf(origin: number, destination: number): string {
    let byDestination = this.lanes.get(origin)
    if (byDestination === undefined) this.lanes.set(origin, (byDestination = new Map()))
    let lane = byDestination.get(destination)
    if (lane === undefined) byDestination.set(destination, (lane = `${origin}>${destination}`))
    return lane
  }

  /**
   * Custody changes only inside the hub's `apply`, after the world has brought the hub to its block: the epoch is
   * the hub's own (`world.hubEpoch` would sync the hub's block first, an input an observer must not add).
   */
  onCustody(ticker: TickerState, domain: number, delta18: bigint, intentId: Bytes32): void {
    const symbol = ticker.config.symbol
    const tracked = this.intents.get(intentId)
    if (delta18 > 0n) {
      this.netting.custodyIn(symbol, domain, delta18, tracked?.source ?? MetricsCollector.UNKNOWN_SOURCE, intentId)
      return
    }
    const user =
      tracked?.source.kind === "user"
        ? { owner: tracked.source.owner, lane: this.laneOf(tracked.origin, tracked.destination), epoch: this.world.hub.currentEpoch() }
        : undefined
    // Paid out where it came in: the intent's own deposit, if still in custody, is taken first.
    this.netting.custodyOut(symbol, domain, -delta18, user, tracked?.origin === domain ? intentId : undefined)
  }

  /**
   * Snapshot of the epoch that just closed (`epoch - 1`): cumulative counters and ratios under the metric names
   * properties use (a ratio without volume yet is left out), latency percentiles of that epoch's own samples,
   * queue depths and custody. Rows go to the time series, which the per-epoch property checks read (`epochValues`).
   * Queue depths are those when the epoch is closed (the world's first hub step in the next one, which the default
   * keepers take at the boundary, or before that the first spoke event of a later epoch, `closeElapsedEpochs`: the
   * state at the boundary either way): the hub's queues, then every spoke's intent and fill queue (`intentQueue.<chain>`,
   * `fillQueue.<chain>`: items added and not yet dispatched, from the spokes' events). `began` is false when the
   * run ended before `epoch` began (`closeEpochsThrough`).
   */
  onEpoch(epoch: number, began = true): void {
    const previous = epoch - 1
    // Already snapshotted when a spoke event of a later epoch came first (`closeElapsedEpochs`).
    if (this.lastSnapshotEpoch !== undefined && previous <= this.lastSnapshotEpoch) return
    this.lastSnapshotEpoch = previous
    const state = this.world.hub.state
    const series = this.timeseries
    series.beginEpoch(previous)
    // Over assets, in the valuation's unit (USD with prices): the report's `netting.ratio` and its epochs'.
    const overall = this.netting.overall
    if (overall.totalVolume > 0n) series.push("nettingRatio", ratioOf(overall.nettedVolume, overall.totalVolume))
    const perEpoch = this.netting.byEpoch.get(previous)
    if (perEpoch !== undefined && perEpoch.totalVolume > 0n) series.push("nettingRatioEpoch", ratioOf(perEpoch.nettedVolume, perEpoch.totalVolume))
    const created = this.created.basic + this.created.fast + this.created.swap + this.created.xerc20
    const settled = this.settled.basic + this.settled.fast + this.settled.swap + this.settled.xerc20
    series.push("intentsCreated", created)
    series.push("intentsSettled", settled)
    // To 6 decimals, truncated, as the netting ratio and the report give it; properties take it as it is.
    if (created > 0) series.push("settledShare", shareOf(settled, created))
    series.push("invoicesCreated", this.invoicesCreated)
    series.push("invoicesSettled", this.invoicesSettled)
    // The report's `discounts` figures: in USD with prices (`discountPaidUsd`), otherwise tokens added as they are.
    const discount = this.discountTotals()
    series.push(this.valuation.priced ? "discountPaidUsd" : "discountPaidTokens", this.discountPaidNumber.of(discount.paid))
    if (discount.settled > 0n) series.push("discountPaidBps", bpsOf(discount.paid, discount.settled))
    if (discount.invoiced > 0n) series.push("discountPaidBpsOfInvoices", bpsOf(discount.paid, discount.invoiced))
    const user = this.epochUserLatency.percentiles()
    if (user !== undefined) {
      series.push("p50LatencySeconds", toMilliseconds(user.p50))
      series.push("p90LatencySeconds", toMilliseconds(user.p90))
      series.push("p99LatencySeconds", toMilliseconds(user.p99))
      series.push("maxLatencySeconds", toMilliseconds(user.max))
    }
    const settlement = this.epochSettlementLatency.percentiles()
    if (settlement !== undefined) {
      series.push("p50SettlementLatencySeconds", toMilliseconds(settlement.p50))
      series.push("p90SettlementLatencySeconds", toMilliseconds(settlement.p90))
      series.push("p99SettlementLatencySeconds", toMilliseconds(settlement.p99))
      series.push("maxSettlementLatencySeconds", toMilliseconds(settlement.max))
    }
    this.epochUserLatency.clear()
    this.epochSettlementLatency.clear()
    for (const ticker of state.tickers.values()) {
      const names = this.tickerMetricsOf(ticker.config.symbol)
      series.push(names.invoicesOpen, ticker.invoices.length)
      let deposits = 0
      for (const byDomain of ticker.deposits.values()) for (const q of byDomain.values()) deposits += q.size
      series.push(names.depositsQueued, deposits)
      series.push(names.depositsWaiting, ticker.waiting.size)
      // (An epoch the run ended before, `began` false, saw no discount: nothing reached it there.)
      if (began && ticker.config.discountPerEpochDbps > 0 && !this.coverage.has("maxDiscountReached") && this.maxDiscountReachedIn(ticker, epoch)) {
        this.coverage.add("maxDiscountReached")
      }
      for (const d of ticker.config.domains) {
        if (d.strategy !== Strategy.DEFAULT) continue
        let custody = names.custody.get(d.domain)
        if (custody === undefined) names.custody.set(d.domain, (custody = { name: `custody.${ticker.config.symbol}.${d.domain}`, tokens: new AmountNumber(tokensOf18) }))
        series.push(custody.name, custody.tokens.of(ticker.custodied(d.domain)))
      }
    }
    for (const [domain, queue] of state.settlementQueues) series.push(this.domainMetricsOf(domain).settlementQueue, queue.size)
    for (const [domain, queues] of this.spokeQueues) {
      const names = this.domainMetricsOf(domain)
      series.push(names.intentQueue, queues.intents.pending)
      series.push(names.fillQueue, queues.fills.pending)
    }
  }

  private tickerMetricsOf(symbol: string): TickerMetrics {
    let names = this.tickerMetrics.get(symbol)
    if (names === undefined) {
      names = { invoicesOpen: `invoicesOpen.${symbol}`, depositsQueued: `depositsQueued.${symbol}`, depositsWaiting: `depositsWaiting.${symbol}`, custody: new Map() }
      this.tickerMetrics.set(symbol, names)
    }
    return names
  }

  private domainMetricsOf(domain: number): DomainMetrics {
    let names = this.domainMetrics.get(domain)
    if (names === undefined) {
      names = { settlementQueue: `settlementQueue.${domain}`, intentQueue: `intentQueue.${domain}`, fillQueue: `fillQueue.${domain}` }
      this.domainMetrics.set(domain, names)
    }
    return names
  }

  /**
   * The epochs' values as the per-epoch property checks read them: a metric of the time series by its name there
   * or by the other name a property may give it (`netting.ratio`, `latency.p99`: `EPOCH_METRIC_ALIASES`).
   */
  readonly epochValues: EpochValues = {
    forEachValue: (metric, visit) => this.timeseries.forEachValue(EPOCH_METRIC_ALIASES.get(metric) ?? metric, visit),
  }

  /**
   * Whether an open invoice of `ticker` is discounted in `epoch` at its own maximum, as the hub discounts it
   * (`discountDbps`): the ticker's cap, or with `userMaxDiscount` a basic intent's `maxFee` below it (the oldest
   * invoice alone, against the ticker's cap, missed an invoice whose owner capped it lower). Invoices are in entry
   * order: the walk stops at the first whose discount has not begun (none after it has begun either).
   */
  private maxDiscountReachedIn(ticker: TickerState, epoch: number): boolean {
    const state = this.world.hub.state
    const exempt = state.config.discountExemptEpochs
    for (let node = ticker.invoices.head; node !== undefined; node = node.next) {
      if (epoch - node.entryEpoch - exempt < 0) return false
      const cap = discountDbps(state, ticker, Number.MAX_SAFE_INTEGER, node.entryEpoch, node.ctx)
      if (discountDbps(state, ticker, epoch, node.entryEpoch, node.ctx) >= cap) return true
    }
    return false
  }

  /**
   * Snapshots the epochs that ended before now and that the world has not closed yet, before a spoke event is taken
   * in: the world closes an epoch at its first hub step in the next one, which may come well after the boundary (a
   * keeper cron of 45 s beside 480-s epochs, one-second epochs between minute crons), and the receivers paid
   * meanwhile are the next epochs' samples, not the last closed one's. The epoch is the hub's at this second (its
   * blocks skip a hub halt's ticks, so a halted hub's epoch stands still, as the world's). Nothing the snapshot
   * reads has changed since the boundary: hub state changes only in hub steps (each after the world's epoch change),
   * the spokes' queues and the counters only in spoke events.
   */
  private closeElapsedEpochs(): void {
    const world = this.world
    if (world.firstEpoch < 0) return
    const epoch = world.hub.state.epochAt(world.hubBlockNumberAt(world.scheduler.nowSeconds))
    const closed = this.lastSnapshotEpoch
    for (let e = closed === undefined ? world.firstEpoch : closed + 1; e < epoch; e++) this.onEpoch(e + 1)
  }

  /**
   * Snapshots the epochs up to `lastEpoch` that no epoch change closed: at the end of a run, the epoch the horizon
   * cut short (and any before it that saw no hub block), with queue depths as the run left them. Epochs already
   * snapshotted, and a run that never saw a hub block, add nothing.
   */
  closeEpochsThrough(lastEpoch: number, firstEpoch: number): void {
    if (firstEpoch < 0) return
    const last = this.lastSnapshotEpoch
    for (let e = last === undefined ? firstEpoch : last + 1; e <= lastEpoch; e++) this.onEpoch(e + 1, e < lastEpoch)
  }

  /**
   * What each agent has sent and not yet received, per symbol, in 18-decimal units: its intents whose receiver has not been paid
   * (by a fill, a settlement or the mint of an xERC20 debt), amounts before hub fees. Holdings change + in flight is the PnL once everything lands.
   */
  inFlight18(): Map<string, Record<string, bigint>> {
    const byAgent = new Map<string, Record<string, bigint>>()
    for (const t of this.intents.values()) {
      if (t.agent === undefined || t.paidAt !== undefined) continue
      let out = byAgent.get(t.agent.id)
      if (out === undefined) byAgent.set(t.agent.id, (out = {}))
      out[t.ticker] = (out[t.ticker] ?? 0n) + (t.owed18 ?? t.amount18)
    }
    return byAgent
  }

  /** An 18-decimal amount in whole tokens, as a float (reports and time series only): `tokensOf18`. */
  tokens18(amount18: bigint): number {
    return tokensOf18(amount18)
  }
}

/**
 * An 18-decimal amount in whole tokens: the double nearest its exact decimal (the value report.json's decimal string
 * reads as), so that timeseries.csv's last `discountPaidTokens` is the report's `discounts.paid`. (Nine decimals,
 * truncated, made 342.581043593943167572 tokens 342.581043593.)
 */
export const tokensOf18 = (amount18: bigint): number => Number(formatUnits(amount18, 18))
