/**
 * The per-ticker conservation check. Two identities and two signs, each recomputed from independent sources:
 *
 * 1. Σ custodied == intake into custody − settlements out of custody (the custody map against the ledger).
 * 2. Σ custodied + (xERC20 intake − xERC20 settlements) == outstanding obligations + surplus, where
 *    outstanding = open invoices + queued deposits + intents waiting in DEPOSIT_PROCESSED (each
 *    `amountAfterFees + pendingRewards`) + fee vaults, walked from the state, and surplus is the running
 *    total of discounts taken minus rewards credited.
 * 3. custodied ≥ 0 on every domain; surplus ≥ 0.
 *
 * With spokes attached, the simulator extends this to tokens held by the spokes (sim/metrics).
 */
import { ConservationViolation } from "./errors.ts"
import type { HubState, TickerState } from "./state.ts"

export interface TickerBalances {
  readonly custodied18: bigint
  readonly openInvoices18: bigint
  readonly queuedDeposits18: bigint
  readonly waiting18: bigint
  readonly feeVault18: bigint
  readonly surplus18: bigint
}

/** The quantities of one ticker the check compares (also useful in reports). */
export const tickerBalances = (hub: HubState, ticker: TickerState): TickerBalances => {
  let custodied18 = 0n
  for (const value of ticker.custodied18.values()) custodied18 += value
  let openInvoices18 = 0n
  for (let node = ticker.invoices.head; node !== undefined; node = node.next) openInvoices18 += node.amount18
  let queuedDeposits18 = 0n
  for (const byDomain of ticker.deposits.values()) {
    for (const queue of byDomain.values()) {
      for (let i = queue.first; i < queue.items.length; i++) {
        const ctx = queue.items[i]!.ctx
        queuedDeposits18 += ctx.amountAfterFees18 + ctx.pendingRewards18
      }
    }
  }
  let waiting18 = 0n
  for (const id of ticker.waiting) {
    const ctx = hub.contexts.get(id)!
    waiting18 += ctx.amountAfterFees18 + ctx.pendingRewards18
  }
  let feeVault18 = 0n
  for (const value of ticker.feeVault18.values()) feeVault18 += value
  return { custodied18, openInvoices18, queuedDeposits18, waiting18, feeVault18, surplus18: ticker.ledger.surplus18 }
}

/** Throws `ConservationViolation` naming the first quantity that breaks an identity. */
export const checkConservation = (hub: HubState): void => {
  for (const ticker of hub.tickers.values()) {
    const symbol = ticker.config.symbol
    for (const [domain, value] of ticker.custodied18) {
      if (value < 0n) throw new ConservationViolation(symbol, `custodied on domain ${domain}`, 0n, value)
    }
    const b = tickerBalances(hub, ticker)
    const ledger = ticker.ledger
    const expectedCustody = ledger.intakeCustodied18 - ledger.settledFromCustody18
    if (b.custodied18 !== expectedCustody) throw new ConservationViolation(symbol, "total custodied (intake − settled from custody)", expectedCustody, b.custodied18)
    if (b.surplus18 < 0n) throw new ConservationViolation(symbol, "surplus (discounts − rewards credited)", 0n, b.surplus18)
    const assets = b.custodied18 + ledger.xerc20Intake18 - ledger.xerc20Settled18
    const liabilities = b.openInvoices18 + b.queuedDeposits18 + b.waiting18 + b.feeVault18 + b.surplus18
    if (assets !== liabilities) {
      throw new ConservationViolation(symbol, "custody + xERC20 in flight (vs invoices + deposits + waiting + fee vault + surplus)", liabilities, assets)
    }
  }
}
