/**
 * Minimum purchase amounts of an invoice (reference §3.15, PROTOCOL.md "API behaviour not in the reference").
 *
 * For each candidate settlement domain d of the invoice: the smallest deposit (pre-fee, 18 decimals) that,
 * arriving on d in the current epoch, lets the next `processDepositsAndInvoices` of the epoch settle the
 * invoice. For an invoice alone on d this is the reference's formula
 *
 *     x = (100_000 * (invoice - custodied) - discountDbps * depositedThisEpoch) / (100_000 + discountDbps) + 1
 *
 * (0 when the current custody already covers it). Because invoices are processed oldest first, earlier
 * invoices of the ticker that the deposit makes settleable on d consume that liquidity first, so the amount is
 * found by replaying the FIFO processing of the earlier invoices with the extra deposit and raising it by the
 * formula's shortfall until the invoice settles; when earlier invoices took part, a bisection then finds the
 * smallest deposit that still settles it (their discounts grow with the deposit). The replay uses the hub's own evaluation
 * (`evaluateInvoice`, `settlementDomains`, `discountDbps`) on an overlay of custody and current-epoch
 * deposits, and never writes to the hub.
 */
import type { DomainAsset } from "../hub/config.ts"
import type { Hub } from "../hub/hub.ts"
import { discountDbps, evaluateInvoice, settlementDomains } from "../hub/settler.ts"
import type { InvoiceNode, TickerState } from "../hub/state.ts"
import { DBPS_DENOMINATOR, Strategy } from "../domain/protocol.ts"

export interface InvoiceMinAmounts {
  /** Invoice amount (18 decimals) before discount. */
  readonly invoiceAmount: bigint
  /** Current discount in dbps. */
  readonly discountDbps: number
  /** Per candidate domain: what the invoice settles for when bought with `minAmounts[d]` on d. */
  readonly amountAfterDiscounts: ReadonlyMap<number, bigint>
  /** Per candidate domain: custodied liquidity now. */
  readonly custodiedAmounts: ReadonlyMap<number, bigint>
  /** Per candidate domain: the minimum current-epoch deposit on that domain. */
  readonly minAmounts: ReadonlyMap<number, bigint>
}

/** The reference formula for one invoice on one domain; 0 when custody already covers it. */
export const minDepositFormula = (invoice18: bigint, custodied18: bigint, depositedThisEpoch18: bigint, discount: number): bigint => {
  const dbps = BigInt(discount)
  const covered = depositedThisEpoch18 < invoice18 ? depositedThisEpoch18 : invoice18
  if (custodied18 >= invoice18 - (covered * dbps) / DBPS_DENOMINATOR) return 0n
  return (DBPS_DENOMINATOR * (invoice18 - custodied18) - dbps * depositedThisEpoch18) / (DBPS_DENOMINATOR + dbps) + 1n
}

interface Overlay {
  readonly custodied: Map<number, bigint>
  readonly available: Map<number, bigint>
}

/** A read-only view of the ticker whose custody and current-epoch deposits come from the overlay. */
const viewOf = (ticker: TickerState, overlay: Overlay): TickerState =>
  ({
    custodied: (domain: number) => overlay.custodied.get(domain) ?? ticker.custodied(domain),
    depositQueue: (_epoch: number, domain: number) => ({ available18: overlay.available.get(domain) ?? 0n }),
  }) as unknown as TickerState

interface Replay {
  readonly settled: boolean
  /** The overlay right before the target invoice was evaluated. */
  readonly before: Overlay
}

/** Replays `processDepositsAndInvoices` phase 1 from the head to `target` with `extra18` deposited on `domain`. */
const replay = (hub: Hub, ticker: TickerState, target: InvoiceNode, domain: number, extra18: bigint): Replay => {
  const state = hub.state
  const epoch = state.currentEpoch()
  const overlay: Overlay = { custodied: new Map(), available: new Map() }
  for (const d of ticker.config.domains) {
    overlay.custodied.set(d.domain, ticker.custodied(d.domain))
    overlay.available.set(d.domain, ticker.depositQueue(epoch, d.domain)?.available18 ?? 0n)
  }
  overlay.custodied.set(domain, (overlay.custodied.get(domain) ?? 0n) + extra18)
  overlay.available.set(domain, (overlay.available.get(domain) ?? 0n) + extra18)
  const view = viewOf(ticker, overlay)
  const xerc20First = ticker.config.prioritizedStrategy === Strategy.XERC20
  for (let invoice = ticker.invoices.head; invoice !== undefined; invoice = invoice.next) {
    const isTarget = invoice === target
    const before: Overlay = isTarget ? { custodied: new Map(overlay.custodied), available: new Map(overlay.available) } : overlay
    const domains = settlementDomains(state, ticker, invoice.ctx, invoice.owner)
    const hasXerc20 = domains.some((d) => d.strategy === Strategy.XERC20)
    let settled = xerc20First && hasXerc20
    if (!settled) {
      const discount = discountDbps(state, ticker, epoch, invoice.entryEpoch, invoice.ctx)
      const found = evaluateInvoice(view, epoch, invoice.amount18, discount, domains)
      if (found !== undefined) {
        settled = true
        const after = found.amountAfterDiscount18
        overlay.custodied.set(found.domain, (overlay.custodied.get(found.domain) ?? 0n) - after)
        const available = overlay.available.get(found.domain) ?? 0n
        overlay.available.set(found.domain, available > after ? available - after : 0n)
      } else settled = !xerc20First && hasXerc20
    }
    if (isTarget) return { settled, before }
  }
  return { settled: false, before: overlay }
}

/** The minimum amounts of the open invoice `node` of `ticker`, per candidate domain. */
export const computeMinAmounts = (hub: Hub, ticker: TickerState, node: InvoiceNode): InvoiceMinAmounts => {
  const state = hub.state
  const epoch = state.currentEpoch()
  const discount = discountDbps(state, ticker, epoch, node.entryEpoch, node.ctx)
  const candidates: DomainAsset[] = settlementDomains(state, ticker, node.ctx, node.owner).filter((d) => d.strategy === Strategy.DEFAULT)
  const amountAfterDiscounts = new Map<number, bigint>()
  const custodiedAmounts = new Map<number, bigint>()
  const minAmounts = new Map<number, bigint>()
  const invoiceCount = ticker.invoices.length
  for (const candidate of candidates) {
    const d = candidate.domain
    custodiedAmounts.set(d, ticker.custodied(d))
    let extra = 0n
    let below = -1n
    let rounds = 0
    let result = replay(hub, ticker, node, d, extra)
    // Each round either settles the invoice or lets one more earlier invoice take liquidity on d.
    for (; !result.settled && rounds <= invoiceCount + 2; rounds++) {
      const shortfall = minDepositFormula(node.amount18, result.before.custodied.get(d) ?? 0n, result.before.available.get(d) ?? 0n, discount)
      if (shortfall === 0n) break // d cannot help this invoice
      below = extra
      extra += shortfall
      result = replay(hub, ticker, node, d, extra)
    }
    if (!result.settled) continue
    if (rounds > 1) {
      // Earlier invoices took part: their own discounts grow with the deposit, so the last step may overshoot.
      // Bisect between the last amount that failed and the one that settles.
      let lo = below
      let hi = extra
      while (hi - lo > 1n) {
        const mid = (lo + hi) / 2n
        if (replay(hub, ticker, node, d, mid).settled) hi = mid
        else lo = mid
      }
      extra = hi
      result = replay(hub, ticker, node, d, extra)
    }
    minAmounts.set(d, extra)
    const deposits = result.before.available.get(d) ?? 0n
    const covered = deposits < node.amount18 ? deposits : node.amount18
    amountAfterDiscounts.set(d, node.amount18 - (covered * BigInt(discount)) / DBPS_DENOMINATOR)
  }
  return { invoiceAmount: node.amount18, discountDbps: discount, amountAfterDiscounts, custodiedAmounts, minAmounts }
}
