/**
 * Netting ratio by FIFO attribution of custody. Each (ticker, domain) keeps its custodied liquidity as a FIFO
 * of lots tagged with where the tokens came from (a user's intent, an arbitrageur's purchase, a solver's
 * rebalancing, the initial liquidity). A settlement paid out of custody consumes the oldest lots first. The
 * part of a user intent's settlement covered by OTHER users' lots is netted volume; the netting ratio is
 * netted volume / user volume settled out of custody, overall, per lane (origin→destination) and per epoch.
 * Each ticker's figures are in its own tokens; the figures over tickers (overall, per lane, per epoch) weigh each
 * ticker's tokens by its weight (its price, `valuation.ts`), or add them as they are when the tracker has none.
 */

export type SourceKind = "user" | "arbitrageur" | "solver" | "initial" | "protocol"

export interface CustodySource {
  readonly kind: SourceKind
  /** Agent id (e.g. `rebalancer/lp/3`); lots of the same owner are not netting for it. */
  readonly owner: string
}

/**
 * One (ticker, domain)'s lots, oldest first, as two parallel arrays from `head` (no object per lot: a lot lives
 * from an intent's arrival at the hub to the settlement that consumes it, minutes of a run's time, and a
 * million-intent run makes a million of them).
 */
class LotQueue {
  sources: CustodySource[] = []
  amounts18: bigint[] = []
  /** The intent each lot came from (its own settlement on this domain takes it first). */
  intents: string[] = []
  head = 0

  push(source: CustodySource, amount18: bigint, intentId: string): void {
    this.sources.push(source)
    this.amounts18.push(amount18)
    this.intents.push(intentId)
  }

  /** The index of `intentId`'s lot while it holds tokens, newest first (it is usually the newest), or -1. */
  find(intentId: string): number {
    for (let i = this.amounts18.length - 1; i >= this.head; i--) if (this.intents[i] === intentId) return this.amounts18[i]! > 0n ? i : -1
    return -1
  }

  /** Drops the consumed lots once they are most of the arrays. */
  compact(): void {
    if (this.head > 4096 && this.head * 2 > this.amounts18.length) {
      this.sources = this.sources.slice(this.head)
      this.amounts18 = this.amounts18.slice(this.head)
      this.intents = this.intents.slice(this.head)
      this.head = 0
    }
  }
}

export type NettingSource = SourceKind | "self" | "unattributed"

/** One ticker's totals, in its own tokens. */
export interface NettingTotals {
  /** User volume settled out of custody (18-dec). */
  totalVolume18: bigint
  /** The part of it covered by other users' intents. */
  nettedVolume18: bigint
  /** By source kind of the covering lots. */
  bySource18: Record<NettingSource, bigint>
}

/**
 * Totals over tickers (`overall`, `byLane`, `byEpoch`): each ticker's 18-decimal amounts times its weight. Without
 * weights, 18-decimal tokens of every ticker added as they are; with prices (`Valuation`), integer units of
 * 10^-(18 + priceDecimals) USD.
 */
export interface WeightedTotals {
  /** User volume settled out of custody. */
  totalVolume: bigint
  /** The part of it covered by other users' intents. */
  nettedVolume: bigint
  /** By source kind of the covering lots. */
  bySource: Record<NettingSource, bigint>
}

const noSources = (): Record<NettingSource, bigint> => ({ user: 0n, arbitrageur: 0n, solver: 0n, initial: 0n, protocol: 0n, self: 0n, unattributed: 0n })

const emptyTotals = (): NettingTotals => ({ totalVolume18: 0n, nettedVolume18: 0n, bySource18: noSources() })

const emptyWeighted = (): WeightedTotals => ({ totalVolume: 0n, nettedVolume: 0n, bySource: noSources() })

/** Totals as read (`NettingTracker.byTicker` is made on each read: writing to it would change nothing). */
export type NettingTotalsView = { readonly [K in keyof NettingTotals]: K extends "bySource18" ? Readonly<NettingTotals[K]> : NettingTotals[K] }

/** Totals over tickers as read (`overall` and `byLane` are made on each read). */
export type WeightedTotalsView = { readonly [K in keyof WeightedTotals]: K extends "bySource" ? Readonly<WeightedTotals[K]> : WeightedTotals[K] }

/**
 * `netted / total` to 6 decimals, truncated (`(netted × 10^6) div total`, in integers: no floating-point product to
 * lose or gain a last digit); 0 when `total` is 0. The rule of every ratio and bps figure a report gives.
 */
export const ratioOf = (netted: bigint, total: bigint): number => (total === 0n ? 0 : Number((netted * 1_000_000n) / total) / 1_000_000)

/** Adds one ticker's totals times `weight` (1: no multiplication) to totals over tickers. */
const addWeighted = (into: WeightedTotals, t: NettingTotalsView, weight: bigint): void => {
  into.totalVolume += t.totalVolume18 * weight
  into.nettedVolume += t.nettedVolume18 * weight
  for (const kind of Object.keys(into.bySource) as NettingSource[]) into.bySource[kind] += t.bySource18[kind] * weight
}

const addTotals = (into: NettingTotals, t: NettingTotals): void => {
  into.totalVolume18 += t.totalVolume18
  into.nettedVolume18 += t.nettedVolume18
  for (const kind of Object.keys(into.bySource18) as NettingSource[]) into.bySource18[kind] += t.bySource18[kind]
}

export class NettingTracker {
  private readonly queues = new Map<string, LotQueue>()
  /** Totals by ticker, then lane: each user settlement counts in exactly one. */
  private readonly byTickerLane = new Map<string, Map<string, NettingTotals>>()
  /** Each epoch's user settlements, over tickers (weighed). */
  readonly byEpoch = new Map<number, WeightedTotals>()
  /** A ticker's weight in the totals over tickers (its price); undefined: every ticker's tokens count as they are. */
  private readonly weightOf: ((ticker: string) => bigint) | undefined

  constructor(weightOf?: (ticker: string) => bigint) {
    this.weightOf = weightOf
  }

  private weight(ticker: string): bigint {
    return this.weightOf === undefined ? 1n : this.weightOf(ticker)
  }

  /**
   * Every user settlement's totals, over tickers (weighed): the sum of the (ticker, lane) totals, made when read
   * (once per epoch and in the report) instead of added to on every settlement.
   */
  get overall(): WeightedTotalsView {
    // Kept until the next settlement: the collector reads it every epoch, and most epochs of a long run settle nothing.
    if (this.overallMemo !== undefined && this.overallMemo.settlements === this.settlements) return this.overallMemo.totals
    const out = emptyWeighted()
    for (const [ticker, lanes] of this.byTickerLane) {
      const weight = this.weight(ticker)
      for (const t of lanes.values()) addWeighted(out, t, weight)
    }
    this.overallMemo = { settlements: this.settlements, totals: out }
    return out
  }

  /** User settlements added so far (`add`), for `overall`'s memo. */
  private settlements = 0
  private overallMemo: { readonly settlements: number; readonly totals: WeightedTotalsView } | undefined = undefined

  /** Lanes in the order of their first user settlement, whichever ticker (the order `byLane` lists them in). */
  private readonly laneOrder = new Set<string>()

  /** By lane (`origin>destination`), the tickers' totals weighed and added (made when read), in the order lanes first settled. */
  get byLane(): ReadonlyMap<string, WeightedTotalsView> {
    const out = new Map<string, WeightedTotals>()
    for (const lane of this.laneOrder) out.set(lane, emptyWeighted())
    for (const [ticker, lanes] of this.byTickerLane) {
      const weight = this.weight(ticker)
      for (const [lane, t] of lanes) addWeighted(out.get(lane)!, t, weight)
    }
    return out
  }

  /** One ticker's lanes (`origin>destination`), in the order lanes first settled (any ticker's), as `byLane`. */
  lanesOf(ticker: string): ReadonlyMap<string, NettingTotalsView> {
    const lanes = this.byTickerLane.get(ticker)
    const out = new Map<string, NettingTotalsView>()
    if (lanes === undefined) return out
    for (const lane of this.laneOrder) {
      const t = lanes.get(lane)
      if (t !== undefined) out.set(lane, t)
    }
    return out
  }

  /** By ticker, the lanes' totals added (made when read): one asset's netting, in its own tokens. */
  get byTicker(): ReadonlyMap<string, NettingTotalsView> {
    const out = new Map<string, NettingTotals>()
    for (const [ticker, lanes] of this.byTickerLane) for (const t of lanes.values()) addTotals(this.totals(out, ticker), t)
    return out
  }

  /** The queues by ticker, then domain (the same queues as `queues`, without building a key per call). */
  private readonly queuesByTicker = new Map<string, Map<number, LotQueue>>()

  private queue(ticker: string, domain: number): LotQueue {
    let byDomain = this.queuesByTicker.get(ticker)
    if (byDomain === undefined) this.queuesByTicker.set(ticker, (byDomain = new Map()))
    let q = byDomain.get(domain)
    if (q === undefined) {
      q = new LotQueue()
      byDomain.set(domain, q)
      this.queues.set(`${ticker}:${domain}`, q)
    }
    return q
  }

  /** Tokens enter custody on `domain` (intent `intentId`'s full amount on arrival at the hub). */
  custodyIn(ticker: string, domain: number, amount18: bigint, source: CustodySource, intentId: string): void {
    if (amount18 > 0n) this.queue(ticker, domain).push(source, amount18, intentId)
  }

  /**
   * A settlement of `amount18` paid out of custody on `domain`: the oldest lots are consumed first. `user`
   * describes the settled intent when it is a user's (its volume counts); otherwise the lots are consumed
   * without counting. The parts are classified as they are consumed: other users' (netted), the owner's own
   * (self), what no lot covered (unattributed), and the other kinds' parts (kept in `parts`).
   *
   * `ownIntentId`, given when the settlement is on the settled intent's own origin, names a lot taken first while it
   * is in custody: the intent's own deposit paying out where it came in (a fast-path repayment to the solver on the
   * origin, in the same hub step) is a pass-through, not netting, whichever lots are older.
   */
  custodyOut(
    ticker: string,
    domain: number,
    amount18: bigint,
    user: { readonly owner: string; readonly lane: string; readonly epoch: number } | undefined,
    ownIntentId?: string,
  ): void {
    const queue = this.queue(ticker, domain)
    const sources = queue.sources
    const amounts = queue.amounts18
    const end = amounts.length
    let head = queue.head
    let remaining = amount18
    let netted = 0n
    let self = 0n
    const parts = this.parts
    const own = ownIntentId === undefined ? -1 : queue.find(ownIntentId)
    if (own >= 0) {
      const lot = amounts[own]!
      const part = lot <= remaining ? lot : remaining
      amounts[own] = lot - part
      remaining -= part
      if (user !== undefined) {
        const source = sources[own]!
        if (source.kind !== "user") parts.push(source, part)
        else if (source.owner !== user.owner) netted += part
        else self += part
      }
    }
    while (remaining > 0n && head < end) {
      const lot = amounts[head]!
      const source = sources[head]!
      let part: bigint
      if (lot <= remaining) {
        part = lot
        head++
      } else {
        part = remaining
        amounts[head] = lot - remaining
      }
      remaining -= part
      if (user === undefined) continue
      if (source.kind !== "user") parts.push(source, part)
      else if (source.owner !== user.owner) netted += part
      else self += part
    }
    queue.head = head
    queue.compact()
    if (user === undefined) return
    let lanes = this.byTickerLane.get(ticker)
    if (lanes === undefined) this.byTickerLane.set(ticker, (lanes = new Map()))
    let t = lanes.get(user.lane)
    if (t === undefined) {
      lanes.set(user.lane, (t = emptyTotals()))
      this.laneOrder.add(user.lane)
    }
    this.add(t, amount18, remaining, netted, self)
    this.addToEpoch(user.epoch, this.weight(ticker), amount18, remaining, netted, self)
    parts.length = 0
  }

  /** The non-user (source, part) pairs of the settlement being consumed, flat (reused between calls). */
  private readonly parts: (CustodySource | bigint)[] = []

  /** Adds one settlement to `t` (a zero part adds nothing, so it is skipped); `parts` holds its non-user parts. */
  private add(t: NettingTotals, amount18: bigint, uncovered: bigint, netted: bigint, self: bigint): void {
    this.settlements++
    t.totalVolume18 += amount18
    const bySource = t.bySource18
    if (uncovered !== 0n) bySource.unattributed += uncovered
    if (netted !== 0n) {
      t.nettedVolume18 += netted
      bySource.user += netted
    }
    if (self !== 0n) bySource.self += self
    const parts = this.parts
    for (let i = 0; i < parts.length; i += 2) bySource[(parts[i] as CustodySource).kind] += parts[i + 1] as bigint
  }

  /** Adds one settlement, its amounts times `weight` (its ticker's; 1 multiplies nothing), to `epoch`'s totals over tickers. */
  private addToEpoch(epoch: number, weight: bigint, amount18: bigint, uncovered: bigint, netted: bigint, self: bigint): void {
    let t = this.byEpoch.get(epoch)
    if (t === undefined) this.byEpoch.set(epoch, (t = emptyWeighted()))
    const weighed = weight !== 1n
    t.totalVolume += weighed ? amount18 * weight : amount18
    const bySource = t.bySource
    if (uncovered !== 0n) bySource.unattributed += weighed ? uncovered * weight : uncovered
    if (netted !== 0n) {
      const value = weighed ? netted * weight : netted
      t.nettedVolume += value
      bySource.user += value
    }
    if (self !== 0n) bySource.self += weighed ? self * weight : self
    const parts = this.parts
    for (let i = 0; i < parts.length; i += 2) {
      const part = parts[i + 1] as bigint
      bySource[(parts[i] as CustodySource).kind] += weighed ? part * weight : part
    }
  }

  /** Custody currently attributed to each source kind (reports). */
  custodyBySource(): Record<SourceKind, bigint> {
    const out: Record<SourceKind, bigint> = { user: 0n, arbitrageur: 0n, solver: 0n, initial: 0n, protocol: 0n }
    for (const q of this.queues.values()) for (let i = q.head; i < q.amounts18.length; i++) out[q.sources[i]!.kind] += q.amounts18[i]!
    return out
  }

  private totals<K>(map: Map<K, NettingTotals>, key: K): NettingTotals {
    let t = map.get(key)
    if (t === undefined) map.set(key, (t = emptyTotals()))
    return t
  }
}
