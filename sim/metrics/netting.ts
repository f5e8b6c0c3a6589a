/**
 * Netting ratio by FIFO attribution of custody. Each (ticker, domain) keeps its custodied liquidity as a FIFO
 * of lots tagged with where the tokens came from (a user's intent, an arbitrageur's purchase, a solver's
 * rebalancing, the initial liquidity). A settlement paid out of custody consumes the oldest lots first. The
 * part of a user intent's settlement covered by OTHER users' lots is netted volume; the netting ratio is
 * netted volume / user volume settled out of custody, overall, per lane (origin→destination) and per epoch.
 */

export type SourceKind = "user" | "arbitrageur" | "solver" | "initial" | "protocol"

export interface CustodySource {
  readonly kind: SourceKind
  /** Agent id (e.g. `rebalancer/lp/3`); lots of the same owner are not netting for it. */
  readonly owner: string
}

interface Lot {
  readonly source: CustodySource
  amount18: bigint
}

class LotQueue {
  lots: Lot[] = []
  head = 0
  total18 = 0n

  push(lot: Lot): void {
    this.lots.push(lot)
    this.total18 += lot.amount18
  }

  /** Consumes `amount18` FIFO, calling `take` for each part. Returns what could not be covered by lots. */
  consume(amount18: bigint, take: (source: CustodySource, part18: bigint) => void): bigint {
    let remaining = amount18
    while (remaining > 0n && this.head < this.lots.length) {
      const lot = this.lots[this.head]!
      const part = lot.amount18 < remaining ? lot.amount18 : remaining
      take(lot.source, part)
      lot.amount18 -= part
      remaining -= part
      this.total18 -= part
      if (lot.amount18 === 0n) this.head++
    }
    if (this.head > 4096 && this.head * 2 > this.lots.length) {
      this.lots = this.lots.slice(this.head)
      this.head = 0
    }
    return remaining
  }
}

export interface NettingTotals {
  /** User volume settled out of custody (18-dec). */
  totalVolume18: bigint
  /** The part of it covered by other users' intents. */
  nettedVolume18: bigint
  /** By source kind of the covering lots. */
  bySource18: Record<SourceKind | "self" | "unattributed", bigint>
}

const emptyTotals = (): NettingTotals => ({
  totalVolume18: 0n,
  nettedVolume18: 0n,
  bySource18: { user: 0n, arbitrageur: 0n, solver: 0n, initial: 0n, protocol: 0n, self: 0n, unattributed: 0n },
})

export const ratioOf = (t: NettingTotals): number => (t.totalVolume18 === 0n ? 0 : Number((t.nettedVolume18 * 1_000_000n) / t.totalVolume18) / 1_000_000)

const IGNORE = (): void => {}

export class NettingTracker {
  private readonly queues = new Map<string, LotQueue>()
  readonly overall: NettingTotals = emptyTotals()
  readonly byLane = new Map<string, NettingTotals>()
  readonly byEpoch = new Map<number, NettingTotals>()

  /** The queues by ticker, then domain (the same queues as `queues`, without building a key per call). */
  private readonly byTicker = new Map<string, Map<number, LotQueue>>()

  private queue(ticker: string, domain: number): LotQueue {
    let byDomain = this.byTicker.get(ticker)
    if (byDomain === undefined) this.byTicker.set(ticker, (byDomain = new Map()))
    let q = byDomain.get(domain)
    if (q === undefined) {
      q = new LotQueue()
      byDomain.set(domain, q)
      this.queues.set(`${ticker}:${domain}`, q)
    }
    return q
  }

  /** Tokens enter custody on `domain` (an intent's full amount on arrival at the hub). */
  custodyIn(ticker: string, domain: number, amount18: bigint, source: CustodySource): void {
    if (amount18 > 0n) this.queue(ticker, domain).push({ source, amount18 })
  }

  /**
   * A settlement of `amount18` paid out of custody on `domain`. `user` describes the settled intent when it
   * is a user's (its volume counts); otherwise the lots are consumed without counting.
   */
  custodyOut(ticker: string, domain: number, amount18: bigint, user: { readonly owner: string; readonly lane: string; readonly epoch: number } | undefined): void {
    const queue = this.queue(ticker, domain)
    if (user === undefined) {
      queue.consume(amount18, IGNORE)
      return
    }
    const parts = this.parts
    parts.length = 0
    const uncovered = queue.consume(amount18, this.collect)
    // The parts classified once: other users' (netted), the owner's own, and the rest (kept in `parts`).
    let netted = 0n
    let self = 0n
    let others = 0
    for (let i = 0; i < parts.length; i += 2) {
      const source = parts[i] as CustodySource
      const part = parts[i + 1] as bigint
      if (source.kind !== "user") {
        parts[others++] = source
        parts[others++] = part
      } else if (source.owner !== user.owner) netted += part
      else self += part
    }
    parts.length = others
    this.add(this.overall, amount18, uncovered, netted, self)
    this.add(this.totals(this.byLane, user.lane), amount18, uncovered, netted, self)
    this.add(this.totals(this.byEpoch, user.epoch), amount18, uncovered, netted, self)
    parts.length = 0
  }

  /** The (source, part) pairs of the settlement being consumed, flat (reused between calls). */
  private readonly parts: (CustodySource | bigint)[] = []
  private readonly collect = (source: CustodySource, part18: bigint): void => void this.parts.push(source, part18)

  /** Adds one settlement to `t` (a zero part adds nothing, so it is skipped); `parts` holds its non-user parts. */
  private add(t: NettingTotals, amount18: bigint, uncovered: bigint, netted: bigint, self: bigint): void {
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

  /** Custody currently attributed to each source kind (reports). */
  custodyBySource(): Record<SourceKind, bigint> {
    const out: Record<SourceKind, bigint> = { user: 0n, arbitrageur: 0n, solver: 0n, initial: 0n, protocol: 0n }
    for (const q of this.queues.values()) for (let i = q.head; i < q.lots.length; i++) out[q.lots[i]!.source.kind] += q.lots[i]!.amount18
    return out
  }

  private totals<K>(map: Map<K, NettingTotals>, key: K): NettingTotals {
    let t = map.get(key)
    if (t === undefined) map.set(key, (t = emptyTotals()))
    return t
  }
}
