/**
 * Run metrics, observed from the world's events: intents by path, latencies (user: creation to the receiver
 * being paid, by a fill or a settlement; settlement: creation to the settlement on the destination spoke), the
 * discount paid on invoices, netting by FIFO attribution of custody, per-epoch time series (queue depths,
 * ratios) and coverage flags for scenario properties.
 */
import { type Address, type Bytes32, bytes32ToAddress } from "../../service/domain/hex.ts"
import { IntentStatus, NORMALIZED_DECIMALS, normalizeDecimals, Strategy } from "../../service/domain/protocol.ts"
import type { HubEvent } from "../../service/hub/events.ts"
import type { TickerState } from "../../service/hub/state.ts"
import type { SpokeEvent } from "../../service/spoke/events.ts"
import type { AgentKind, AgentPlan } from "../world/plan.ts"
import type { SpokeEventContext, World, WorldObserver } from "../world/world.ts"
import { type NettingTotals, NettingTracker, ratioOf, type SourceKind } from "./netting.ts"
import { type Percentiles, Samples } from "./percentiles.ts"

export type IntentPath = "basic" | "fast" | "swap" | "xerc20"
export const PATHS: readonly IntentPath[] = ["basic", "fast", "swap", "xerc20"]

interface TrackedIntent {
  readonly agent: AgentPlan | undefined
  readonly path: IntentPath
  readonly ticker: string
  readonly origin: number
  readonly destination: number
  readonly receiver: Address
  readonly createdAt: number
  readonly amount18: bigint
  paidAt: number | undefined
  settledAt: number | undefined
}

export interface TimeseriesRow {
  readonly epoch: number
  readonly metric: string
  readonly value: number
}

const SOURCE_OF: Record<AgentKind, SourceKind> = { rebalancer: "user", solver: "solver", arbitrageur: "arbitrageur", liquidity: "initial" }

export class MetricsCollector implements WorldObserver {
  readonly netting = new NettingTracker()
  private readonly intents = new Map<Bytes32, TrackedIntent>()
  private readonly agentsByAccount = new Map<string, AgentPlan>()
  readonly created: Record<IntentPath, number> = { basic: 0, fast: 0, swap: 0, xerc20: 0 }
  readonly settled: Record<IntentPath, number> = { basic: 0, fast: 0, swap: 0, xerc20: 0 }
  readonly userLatency = new Map<IntentPath, Samples>(PATHS.map((p) => [p, new Samples()]))
  readonly settlementLatency = new Map<IntentPath, Samples>(PATHS.map((p) => [p, new Samples()]))
  readonly allUserLatency = new Samples()
  readonly allSettlementLatency = new Samples()
  /** Discount per settled invoice, bps of the invoice. */
  readonly discountBps = new Samples()
  discountPaid18 = 0n
  private readonly openInvoices = new Map<Bytes32, { readonly amount18: bigint; readonly ticker: Bytes32; readonly entryEpoch: number }>()
  invoicesCreated = 0
  invoicesSettled = 0
  readonly coverage = new Set<string>()
  readonly timeseries: TimeseriesRow[] = []
  readonly epochSnapshots: { epoch: number; metrics: Map<string, number> }[] = []
  private epochNetting: NettingTotals | undefined
  private readonly symbolOf = new Map<Bytes32, string>()
  private readonly decimals = new Map<string, number>()
  private readonly strategy = new Map<string, string>()

  constructor(private readonly world: World) {
    for (const agent of world.plan.agents) this.agentsByAccount.set(agent.account.address.toLowerCase(), agent)
    for (const ticker of world.hub.state.tickers.values()) this.symbolOf.set(ticker.config.tickerHash, ticker.config.symbol)
    for (const a of world.plan.assets.values()) {
      this.decimals.set(`${a.domain}:${a.address}`, a.decimals)
      this.strategy.set(`${a.domain}:${a.address}`, a.strategy)
    }
  }

  private pathOf(domain: number, inputAsset: Address, outputAsset: Address, ttl: number): IntentPath {
    if (this.strategy.get(`${domain}:${inputAsset}`) === "xerc20") return "xerc20"
    if (ttl === 0) return "basic"
    const input = [...this.world.plan.assets.values()].find((a) => a.domain === domain && a.address === inputAsset)
    const output = [...this.world.plan.assets.values()].find((a) => a.address === outputAsset)
    return input !== undefined && output !== undefined && output.symbol !== input.symbol ? "swap" : "fast"
  }

  /** The agent that owns an intent (for netting attribution and PnL); undefined for unknown senders. */
  ownerOf(intentId: Bytes32): AgentPlan | undefined {
    return this.intents.get(intentId)?.agent
  }

  onSpokeEvent(event: SpokeEvent, context: SpokeEventContext): void {
    const now = this.world.nowMs / 1000
    switch (event.name) {
      case "IntentAdded": {
        const intent = event.intent
        const inputAsset = bytes32ToAddress(intent.inputAsset)
        const path = this.pathOf(context.domain, inputAsset, bytes32ToAddress(intent.outputAsset), intent.ttl)
        const asset = [...this.world.plan.assets.values()].find((a) => a.domain === context.domain && a.address === inputAsset)
        this.intents.set(event.intentId, {
          agent: this.agentsByAccount.get(context.receipt.from.toLowerCase()),
          path,
          ticker: asset?.symbol ?? "?",
          origin: intent.origin,
          destination: intent.destinations[0] ?? 0,
          receiver: bytes32ToAddress(intent.receiver),
          createdAt: now,
          amount18: intent.amount,
          paidAt: undefined,
          settledAt: undefined,
        })
        this.created[path]++
        break
      }
      case "IntentFilled": {
        const tracked = this.intents.get(event.intentId)
        if (tracked === undefined || tracked.paidAt !== undefined) break
        tracked.paidAt = now
        this.userLatency.get(tracked.path)!.add(now - tracked.createdAt)
        this.allUserLatency.add(now - tracked.createdAt)
        this.coverage.add(tracked.path === "swap" ? "swapFilled" : "fastPathFilled")
        break
      }
      case "Settled": {
        const tracked = this.intents.get(event.intentId)
        if (tracked === undefined || tracked.settledAt !== undefined) break
        // A refund of an unsupported intent on its origin is not a settlement.
        if (this.world.hub.state.contexts.get(event.intentId)?.status === IntentStatus.UNSUPPORTED_RETURNED) break
        tracked.settledAt = now
        this.settled[tracked.path]++
        this.settlementLatency.get(tracked.path)!.add(now - tracked.createdAt)
        this.allSettlementLatency.add(now - tracked.createdAt)
        if (tracked.paidAt === undefined && event.account === tracked.receiver) {
          tracked.paidAt = now
          this.userLatency.get(tracked.path)!.add(now - tracked.createdAt)
          this.allUserLatency.add(now - tracked.createdAt)
        }
        if (tracked.path === "xerc20") this.coverage.add("xerc20Settled")
        break
      }
      case "AssetMintFailed":
        this.coverage.add("xerc20MintDebt")
        break
      case "DebtMinted":
        this.coverage.add("xerc20DebtMinted")
        break
    }
  }

  onHubEvent(event: HubEvent): void {
    switch (event.kind) {
      case "InvoiceEnqueued":
        this.openInvoices.set(event.intentId, { amount18: event.amount, ticker: event.tickerHash, entryEpoch: event.entryEpoch })
        this.invoicesCreated++
        this.coverage.add("invoiceCreated")
        break
      case "SettlementEnqueued": {
        const invoice = this.openInvoices.get(event.intentId)
        if (invoice === undefined) break
        this.openInvoices.delete(event.intentId)
        this.invoicesSettled++
        this.coverage.add("invoiceSettled")
        const discount18 = invoice.amount18 > event.amount ? invoice.amount18 - event.amount : 0n
        if (discount18 > 0n) {
          this.discountPaid18 += discount18
          this.coverage.add("discountPaid")
        }
        this.discountBps.add(invoice.amount18 === 0n ? 0 : Number((discount18 * 10_000_000n) / invoice.amount18) / 1000)
        break
      }
      case "DepositProcessed": {
        // An arbitrageur's deposit that earned rewards bought (part of) an invoice.
        if (this.ownerOf(event.intentId)?.kind !== "arbitrageur") break
        const ctx = this.world.hub.state.contexts.get(event.intentId)
        if (ctx !== undefined && event.amountAndRewards > ctx.amountAfterFees18) this.coverage.add("arbitragePurchase")
        break
      }
      case "ExpiredIntentsHandled":
        this.coverage.add("expiredIntentHandled")
        break
      case "ReturnUnsupportedIntent":
        this.coverage.add("unsupportedReturned")
        break
    }
  }

  onCustody(ticker: TickerState, domain: number, delta18: bigint, intentId: Bytes32): void {
    const symbol = ticker.config.symbol
    const tracked = this.intents.get(intentId)
    if (delta18 > 0n) {
      const agent = tracked?.agent
      this.netting.custodyIn(symbol, domain, delta18, agent === undefined ? { kind: "protocol", owner: "unknown" } : { kind: SOURCE_OF[agent.kind], owner: agent.id })
      return
    }
    const user =
      tracked?.agent?.kind === "rebalancer"
        ? { owner: tracked.agent.id, lane: `${tracked.origin}>${tracked.destination}`, epoch: this.world.hubEpoch }
        : undefined
    this.netting.custodyOut(symbol, domain, -delta18, user)
  }

  onEpoch(epoch: number): void {
    const previous = epoch - 1
    const state = this.world.hub.state
    const values = new Map<string, number>()
    const push = (metric: string, value: number) => {
      this.timeseries.push({ epoch: previous, metric, value })
      values.set(metric, value)
    }
    push("nettingRatio", ratioOf(this.netting.overall))
    const perEpoch = this.netting.byEpoch.get(previous)
    push("nettingRatioEpoch", perEpoch === undefined ? 0 : ratioOf(perEpoch))
    push("intentsCreated", PATHS.reduce((n, p) => n + this.created[p], 0))
    push("intentsSettled", PATHS.reduce((n, p) => n + this.settled[p], 0))
    push("discountPaidTokens", this.tokens18(this.discountPaid18))
    for (const ticker of state.tickers.values()) {
      const symbol = ticker.config.symbol
      push(`invoicesOpen.${symbol}`, ticker.invoices.length)
      let deposits = 0
      for (const byDomain of ticker.deposits.values()) for (const q of byDomain.values()) deposits += q.size
      push(`depositsQueued.${symbol}`, deposits)
      push(`depositsWaiting.${symbol}`, ticker.waiting.size)
      const head = ticker.invoices.head
      if (head !== undefined && ticker.config.discountPerEpochDbps > 0) {
        const epochsToCap = Math.ceil(ticker.config.maxDiscountDbps / ticker.config.discountPerEpochDbps) + state.config.discountExemptEpochs
        if (epoch - head.entryEpoch >= epochsToCap) this.coverage.add("maxDiscountReached")
      }
      for (const d of ticker.config.domains) {
        if (d.strategy === Strategy.DEFAULT) push(`custody.${symbol}.${d.domain}`, this.tokens18(ticker.custodied(d.domain)))
      }
    }
    for (const [domain, queue] of state.settlementQueues) push(`settlementQueue.${domain}`, queue.size)
    const p = this.allSettlementLatency.percentiles()
    if (p !== undefined) push("p99LatencySeconds", p.p99)
    this.epochSnapshots.push({ epoch: previous, metrics: values })
  }

  /**
   * Tokens each agent has sent and not yet received, per symbol: its intents neither settled to it nor paid by a
   * solver (amounts before hub fees). Holdings change + in flight is the PnL once everything lands.
   */
  inFlight(): Map<string, Record<string, number>> {
    const byAgent = new Map<string, Record<string, number>>()
    for (const t of this.intents.values()) {
      if (t.agent === undefined || t.settledAt !== undefined || t.paidAt !== undefined) continue
      let out = byAgent.get(t.agent.id)
      if (out === undefined) byAgent.set(t.agent.id, (out = {}))
      out[t.ticker] = (out[t.ticker] ?? 0) + this.tokens18(t.amount18)
    }
    return byAgent
  }

  /** An 18-decimal amount in whole tokens, as a float (reports and time series only). */
  tokens18(amount18: bigint): number {
    return Number(amount18 / 10n ** 9n) / 1e9
  }

  percentilesOf(samples: Samples): Percentiles | undefined {
    return samples.percentiles()
  }

  /** A token-native amount in 18-decimal units (for per-ticker sums across decimals). */
  static to18(amount: bigint, decimals: number): bigint {
    return normalizeDecimals(amount, decimals, NORMALIZED_DECIMALS)
  }
}
