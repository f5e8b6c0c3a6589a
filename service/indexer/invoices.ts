/**
 * Open invoices across tickers in FIFO order (the order the hub enqueued them), indexed by ticker, origin and
 * destination for the filters of `GET /invoices`, and the per-epoch processing history of every invoice. The
 * invoice data itself (amount, owner, entry epoch, current discount) is read from the hub's own invoice nodes,
 * so it is never stale.
 */
import type { Bytes32 } from "../domain/hex.ts"
import type { DomainAsset } from "../hub/config.ts"
import type { Hub } from "../hub/hub.ts"
import { discountDbps } from "../hub/settler.ts"
import type { InvoiceNode, TickerState } from "../hub/state.ts"
import type { InvoiceProcessingHistoryEntry, InvoiceRecord } from "./records.ts"
import { LiveSeqs, mergeAsc, mergeDesc, type SeqSource } from "./sequence.ts"

export interface InvoiceIndexEntry {
  readonly seq: number
  readonly intentId: Bytes32
  readonly tickerHash: Bytes32
  readonly origin: number
  readonly destinations: readonly number[]
  /** The record's JSON and the epoch it was computed in (only the discount changes, and only with the epoch). */
  cachedJson?: string
  cachedEpoch?: number
}

export type DiscountSortOrder = "asc" | "desc"

export interface InvoiceQuery {
  /** First invoice number of the page (inclusive), FIFO order. */
  readonly cursor?: number | undefined
  /** Last invoice number of the page (inclusive), paging backwards. */
  readonly prevCursor?: number | undefined
  readonly limit: number
  readonly tickerHash?: Bytes32 | undefined
  readonly origins?: readonly number[] | undefined
  readonly destinations?: readonly number[] | undefined
  /** Order by current discount (ties in FIFO order) instead of FIFO; cursors are then `<dbps>-<seq>`. */
  readonly sortOrderByDiscount?: DiscountSortOrder | undefined
  /** Only with `sortOrderByDiscount`: the first row of the page, `<dbps>-<seq>` (a page's `nextCursor`). */
  readonly sortedCursor?: string | undefined
  /** Only with `sortOrderByDiscount`: the last row of the page, paging backwards (a page's `prevCursor`). */
  readonly sortedPrevCursor?: string | undefined
}

export interface InvoicePage {
  readonly invoices: readonly InvoiceRecord[]
  readonly nextCursor: string | null
  readonly prevCursor: string | null
  readonly maxCount: number
}

interface EntryPage {
  readonly entries: readonly InvoiceIndexEntry[]
  readonly nextCursor: string | null
  readonly prevCursor: string | null
  readonly maxCount: number
}

const pushSeq = (map: Map<string | number, LiveSeqs>, key: string | number, seq: number): void => {
  let index = map.get(key)
  if (index === undefined) map.set(key, (index = new LiveSeqs()))
  index.add(seq)
}

/** What the hub decided for an invoice in one epoch, as numbers (`InvoiceProcessingHistoryEntry` without the strings). */
export interface InvoiceEvaluationFacts {
  readonly epoch: number
  readonly domain: number
  readonly custodiedAssets: bigint
  readonly amountToBeDiscounted: bigint
  readonly rewardsForDepositors: bigint
  readonly amountAfterDiscount: bigint
  readonly discountdbps: number
  readonly selectedDestinationDomain: number
  readonly selectedDestinationDomainLiquidity: bigint
  readonly timestamp: number
}

const historyEntry = (f: InvoiceEvaluationFacts): InvoiceProcessingHistoryEntry => ({
  epoch: f.epoch,
  domain: f.domain,
  custodiedAssets: f.custodiedAssets.toString(),
  amountToBeDiscounted: f.amountToBeDiscounted.toString(),
  rewardsForDepositors: f.rewardsForDepositors.toString(),
  amountAfterDiscount: f.amountAfterDiscount.toString(),
  discountdbps: f.discountdbps,
  selectedDestinationDomain: f.selectedDestinationDomain,
  selectedDestinationDomainLiquidity: f.selectedDestinationDomainLiquidity.toString(),
  timestamp: String(f.timestamp),
})

export class InvoiceIndex {
  private nextSeq = 0
  private readonly bySeq = new Map<number, InvoiceIndexEntry>()
  private readonly byId = new Map<Bytes32, InvoiceIndexEntry>()
  private readonly all = new LiveSeqs()
  private readonly byTicker = new Map<string | number, LiveSeqs>()
  private readonly byOrigin = new Map<string | number, LiveSeqs>()
  private readonly byDestination = new Map<string | number, LiveSeqs>()
  private readonly history = new Map<Bytes32, InvoiceEvaluationFacts[]>()

  get size(): number {
    return this.all.size
  }

  get(intentId: Bytes32): InvoiceIndexEntry | undefined {
    return this.byId.get(intentId)
  }

  add(intentId: Bytes32, tickerHash: Bytes32, origin: number, destinations: readonly number[]): void {
    if (this.byId.has(intentId)) return
    const seq = this.nextSeq++
    const entry: InvoiceIndexEntry = { seq, intentId, tickerHash, origin, destinations }
    this.bySeq.set(seq, entry)
    this.byId.set(intentId, entry)
    this.all.add(seq)
    pushSeq(this.byTicker, tickerHash, seq)
    pushSeq(this.byOrigin, origin, seq)
    for (const d of new Set(destinations)) pushSeq(this.byDestination, d, seq)
  }

  remove(intentId: Bytes32): boolean {
    const entry = this.byId.get(intentId)
    if (entry === undefined) return false
    this.byId.delete(intentId)
    this.bySeq.delete(entry.seq)
    this.all.remove(entry.seq)
    this.byTicker.get(entry.tickerHash)?.remove(entry.seq)
    this.byOrigin.get(entry.origin)?.remove(entry.seq)
    for (const d of new Set(entry.destinations)) this.byDestination.get(d)?.remove(entry.seq)
    return true
  }

  // -------------------------------------------------------------------------------------------------------
  // Processing history (kept as the hub's numbers; the API's strings are made when a page is read)

  recordEvaluation(intentId: Bytes32, entry: InvoiceEvaluationFacts): void {
    let list = this.history.get(intentId)
    if (list === undefined) this.history.set(intentId, (list = []))
    // One entry per epoch: the last evaluation of the epoch is what the hub decided in it.
    if (list.length > 0 && list[list.length - 1]!.epoch === entry.epoch) list[list.length - 1] = entry
    else list.push(entry)
  }

  /** The history entries `from` (inclusive) to `to` (exclusive), and how many there are; undefined when none. */
  historyOf(intentId: Bytes32, from = 0, to = Number.POSITIVE_INFINITY): { readonly entries: InvoiceProcessingHistoryEntry[]; readonly total: number } | undefined {
    const list = this.history.get(intentId)
    if (list === undefined) return undefined
    return { entries: list.slice(from, to).map(historyEntry), total: list.length }
  }

  historyCount(): number {
    let n = 0
    for (const list of this.history.values()) n += list.length
    return n
  }

  // -------------------------------------------------------------------------------------------------------
  // Queries

  private sourcesFor(q: InvoiceQuery): readonly SeqSource[] {
    const options: (readonly SeqSource[])[] = [[this.all]]
    // Each key once: a filter may name a domain twice (`origins=1,1`), and `filterCount` sums the sources' sizes.
    const pick = (map: Map<string | number, LiveSeqs>, keys: readonly (string | number)[]) =>
      [...new Set(keys)].map((k) => map.get(k)).filter((s): s is LiveSeqs => s !== undefined)
    if (q.tickerHash !== undefined) options.push(pick(this.byTicker, [q.tickerHash]))
    if (q.origins !== undefined && q.origins.length > 0) options.push(pick(this.byOrigin, q.origins))
    if (q.destinations !== undefined && q.destinations.length > 0) options.push(pick(this.byDestination, q.destinations))
    const size = (sources: readonly SeqSource[]) => sources.reduce((n, s) => n + s.size, 0)
    return options.reduce((best, o) => (size(o) < size(best) ? o : best))
  }

  private matches(q: InvoiceQuery, entry: InvoiceIndexEntry): boolean {
    if (q.tickerHash !== undefined && entry.tickerHash !== q.tickerHash) return false
    if (q.origins !== undefined && q.origins.length > 0 && !q.origins.includes(entry.origin)) return false
    if (q.destinations !== undefined && q.destinations.length > 0 && !entry.destinations.some((d) => q.destinations!.includes(d))) return false
    return true
  }

  private filterCount(q: InvoiceQuery, sources: readonly SeqSource[]): number {
    const filters = (q.tickerHash !== undefined ? 1 : 0) + (q.origins?.length ? 1 : 0) + (q.destinations?.length ? 1 : 0)
    if (filters === 0) return this.all.size
    if (filters === 1 && (q.tickerHash !== undefined || q.origins?.length)) return sources.reduce((n, s) => n + s.size, 0)
    let n = 0
    for (const seq of mergeAsc(sources, 0)) if (this.matches(q, this.bySeq.get(seq)!)) n++
    return n
  }

  list(hub: Hub, q: InvoiceQuery): InvoicePage {
    const page = this.page(hub, q)
    const invoices: InvoiceRecord[] = []
    for (const entry of page.entries) {
      const record = invoiceRecord(hub, entry)
      if (record !== undefined) invoices.push(record)
    }
    return { invoices, nextCursor: page.nextCursor, prevCursor: page.prevCursor, maxCount: page.maxCount }
  }

  /** The page as the `GET /invoices` response body; each invoice's JSON is cached for the epoch. */
  listJson(hub: Hub, q: InvoiceQuery): string {
    const page = this.page(hub, q)
    const epoch = hub.state.currentEpoch()
    const parts: string[] = []
    for (const entry of page.entries) {
      if (entry.cachedEpoch !== epoch || entry.cachedJson === undefined) {
        const record = invoiceRecord(hub, entry)
        if (record === undefined) continue
        entry.cachedJson = JSON.stringify(record)
        entry.cachedEpoch = epoch
      }
      parts.push(entry.cachedJson)
    }
    return `{"invoices":[${parts.join(",")}],"nextCursor":${JSON.stringify(page.nextCursor)},"prevCursor":${JSON.stringify(page.prevCursor)},"maxCount":${page.maxCount}}`
  }

  private page(hub: Hub, q: InvoiceQuery): EntryPage {
    const sources = this.sourcesFor(q)
    const maxCount = this.filterCount(q, sources)
    if (q.sortOrderByDiscount !== undefined) return this.listByDiscount(hub, q, sources, maxCount)
    const page: InvoiceIndexEntry[] = []
    let nextCursor: number | null = null
    let prevCursor: number | null = null
    if (q.prevCursor === undefined) {
      for (const seq of mergeAsc(sources, q.cursor ?? 0)) {
        const entry = this.bySeq.get(seq)!
        if (!this.matches(q, entry)) continue
        if (page.length === q.limit) {
          nextCursor = seq
          break
        }
        page.push(entry)
      }
      const before = (page[0]?.seq ?? q.cursor ?? 0) - 1
      for (const seq of mergeDesc(sources, before)) {
        if (this.matches(q, this.bySeq.get(seq)!)) {
          prevCursor = seq
          break
        }
      }
    } else {
      for (const seq of mergeDesc(sources, q.prevCursor)) {
        const entry = this.bySeq.get(seq)!
        if (!this.matches(q, entry)) continue
        if (page.length === q.limit) {
          prevCursor = seq
          break
        }
        page.push(entry)
      }
      page.reverse()
      const after = (page[page.length - 1]?.seq ?? q.prevCursor) + 1
      for (const seq of mergeAsc(sources, after)) {
        if (this.matches(q, this.bySeq.get(seq)!)) {
          nextCursor = seq
          break
        }
      }
    }
    return {
      entries: page,
      nextCursor: nextCursor === null ? null : String(nextCursor),
      prevCursor: prevCursor === null ? null : String(prevCursor),
      maxCount,
    }
  }

  /** Sorted by current discount: needs every matching invoice's discount, so it costs O(n log n). */
  private listByDiscount(hub: Hub, q: InvoiceQuery, sources: readonly SeqSource[], maxCount: number): EntryPage {
    const rows: { entry: InvoiceIndexEntry; dbps: number }[] = []
    for (const seq of mergeAsc(sources, 0)) {
      const entry = this.bySeq.get(seq)!
      if (!this.matches(q, entry)) continue
      const dbps = currentDiscount(hub, entry.intentId)
      if (dbps !== undefined) rows.push({ entry, dbps })
    }
    const sign = q.sortOrderByDiscount === "desc" ? -1 : 1
    rows.sort((a, b) => sign * (a.dbps - b.dbps) || a.entry.seq - b.entry.seq)
    const keyOf = (row: { entry: InvoiceIndexEntry; dbps: number }) => `${row.dbps}-${row.entry.seq}`
    // The first row at or after a key in the sort order (discounts move with the epoch: keys need not be rows).
    const firstFrom = (key: string): number => {
      const [dbps, seq] = key.split("-").map(Number) as [number, number]
      const i = rows.findIndex((r) => sign * (r.dbps - dbps) > 0 || (r.dbps === dbps && r.entry.seq >= seq))
      return i < 0 ? rows.length : i
    }
    // As in FIFO order: `nextCursor` is the first row after the page (passed as `cursor`), `prevCursor` the last
    // row before it (passed as `prevCursor`, it ends the previous page).
    let start = 0
    let end: number
    if (q.sortedPrevCursor !== undefined) {
      const [dbps, seq] = q.sortedPrevCursor.split("-").map(Number) as [number, number]
      const at = firstFrom(q.sortedPrevCursor)
      end = at < rows.length && rows[at]!.dbps === dbps && rows[at]!.entry.seq === seq ? at + 1 : at
      start = Math.max(0, end - q.limit)
    } else {
      if (q.sortedCursor !== undefined) start = firstFrom(q.sortedCursor)
      end = Math.min(rows.length, start + q.limit)
    }
    const entries = rows.slice(start, end).map((r) => r.entry)
    const next = rows[end]
    const prev = start > 0 ? rows[start - 1] : undefined
    return { entries, nextCursor: next === undefined ? null : keyOf(next), prevCursor: prev === undefined ? null : keyOf(prev), maxCount }
  }

  /** Every live invoice id in FIFO order (fingerprints). */
  *ids(): Generator<Bytes32> {
    for (const seq of mergeAsc([this.all], 0)) yield this.bySeq.get(seq)!.intentId
  }
}

const tickerOf = (hub: Hub, intentId: Bytes32): { ticker: TickerState; node: InvoiceNode } | undefined => {
  const ctx = hub.state.contexts.get(intentId)
  const node = ctx?.invoice
  const ticker = ctx?.ticker
  if (node === undefined || ticker === undefined) return undefined
  return { ticker, node }
}

/** The invoice's discount if it were processed now, in dbps. */
export const currentDiscount = (hub: Hub, intentId: Bytes32): number | undefined => {
  const found = tickerOf(hub, intentId)
  if (found === undefined) return undefined
  return discountDbps(hub.state, found.ticker, hub.state.currentEpoch(), found.node.entryEpoch, found.node.ctx)
}

export const invoiceRecord = (hub: Hub, entry: InvoiceIndexEntry): InvoiceRecord | undefined => {
  const found = tickerOf(hub, entry.intentId)
  if (found === undefined) return undefined
  const { node, ticker } = found
  const dbps = discountDbps(hub.state, ticker, hub.state.currentEpoch(), node.entryEpoch, node.ctx)
  return {
    intent_id: entry.intentId,
    owner: node.owner,
    entry_epoch: node.entryEpoch,
    amount: node.amount18.toString(),
    discountBps: dbps / 10,
    origin: String(entry.origin),
    destinations: entry.destinations.map(String),
    hub_status: "INVOICED",
    ticker_hash: entry.tickerHash,
    hub_invoice_enqueued_timestamp: String(node.enqueuedTimestamp),
  }
}

/** Custody summed over an invoice's candidate settlement domains (`settlementDomains`): the history's `custodiedAssets`. */
export const custodyOn = (ticker: TickerState, domains: readonly DomainAsset[]): bigint => {
  let total = 0n
  for (const d of domains) total += ticker.custodied(d.domain)
  return total
}
