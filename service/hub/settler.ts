/**
 * Settlement-or-invoice decisions, invoice processing and the closed-epoch cleanup (reference §3.5, §3.6;
 * PROTOCOL.md "Hub behaviour" and "Order and rounding").
 */
import type { Bytes32 } from "../domain/hex.ts"
import { DBPS_DENOMINATOR, IntentStatus, Strategy } from "../domain/protocol.ts"
import type { DomainAsset } from "./config.ts"
import { HubRevert } from "./errors.ts"
import { type DepositQueue, type HubState, type IntentContext, type InvoiceEvaluation, InvoiceNode, type TickerState } from "./state.ts"

// ---------------------------------------------------------------------------------------------------------
// Destinations

/**
 * `_getDestinations`: the recipient's own supported domains if it set any, else the intent's destinations,
 * else every domain of the ticker. Domains where the ticker has no asset are dropped (they can never hold
 * liquidity for it).
 */
export const settlementDomains = (hub: HubState, ticker: TickerState, ctx: IntentContext, recipient: Bytes32): readonly DomainAsset[] => {
  const own = hub.userSupportedDomains.get(recipient)
  const listed = own !== undefined && own.length > 0 ? own : (ctx.intent?.destinations ?? ctx.paymentDestinations ?? [])
  if (listed.length === 0) return ticker.config.domains
  if (listed.length === 1) return ticker.onlyDomain.get(listed[0]!) ?? []
  const out: DomainAsset[] = []
  for (const d of listed) {
    const asset = ticker.assetByDomain.get(d)
    if (asset !== undefined) out.push(asset)
  }
  return out
}

const firstXerc20 = (domains: readonly DomainAsset[]): DomainAsset | undefined => domains.find((d) => d.strategy === Strategy.XERC20)

/** Default search: a DEFAULT domain whose custody covers `amount`, the most liquid one (ties keep list order). */
const mostLiquidCovering = (ticker: TickerState, domains: readonly DomainAsset[], amount18: bigint): DomainAsset | undefined => {
  let best: DomainAsset | undefined
  let bestLiquidity = -1n
  for (const d of domains) {
    if (d.strategy !== Strategy.DEFAULT) continue
    const liquidity = ticker.custodied(d.domain)
    if (liquidity >= amount18 && liquidity > bestLiquidity) {
      best = d
      bestLiquidity = liquidity
    }
  }
  return best
}

/** `_findDestinationWithStrategies`. */
const findDestination = (ticker: TickerState, domains: readonly DomainAsset[], amount18: bigint): DomainAsset | undefined =>
  ticker.config.prioritizedStrategy === Strategy.XERC20
    ? (firstXerc20(domains) ?? mostLiquidCovering(ticker, domains, amount18))
    : (mostLiquidCovering(ticker, domains, amount18) ?? firstXerc20(domains))

// ---------------------------------------------------------------------------------------------------------
// Settlements and invoices

/** `_createSettlement`: status SETTLED, custody reduced (DEFAULT), settlement queued for `destination`. */
export const createSettlement = (
  hub: HubState,
  ticker: TickerState,
  intentId: Bytes32,
  ctx: IntentContext,
  amount18: bigint,
  destination: DomainAsset,
  recipient: Bytes32,
): void => {
  ctx.status = IntentStatus.SETTLED
  if (destination.strategy === Strategy.DEFAULT) {
    ticker.custodied18.set(destination.domain, ticker.custodied(destination.domain) - amount18)
    ticker.ledger.settledFromCustody18 += amount18
    hub.observer?.onCustody?.(ticker, destination.domain, -amount18, intentId)
  } else {
    ticker.ledger.xerc20Settled18 += amount18
  }
  const updateVirtualBalance = hub.updateVirtualBalance.get(recipient) === true
  hub.settlementQueues.get(destination.domain)!.push({
    intentId,
    amount: amount18,
    asset: destination.asset,
    recipient,
    updateVirtualBalance,
    enqueuedTimestamp: hub.timestamp,
  })
  hub.emit({
    kind: "SettlementEnqueued",
    intentId,
    domain: destination.domain,
    entryEpoch: hub.currentEpoch(),
    asset: destination.asset,
    amount: amount18,
    updateVirtualBalance,
    owner: recipient,
  })
}

/** `_createSettlementOrInvoice`: pays `amountAfterFees + pendingRewards` to `recipient` now, or invoices it. */
export const createSettlementOrInvoice = (hub: HubState, ticker: TickerState, intentId: Bytes32, ctx: IntentContext, recipient: Bytes32): void => {
  const amount18 = ctx.amountAfterFees18 + ctx.pendingRewards18
  ctx.pendingRewards18 = 0n
  const destination = findDestination(ticker, settlementDomains(hub, ticker, ctx, recipient), amount18)
  if (destination !== undefined) {
    createSettlement(hub, ticker, intentId, ctx, amount18, destination, recipient)
    return
  }
  ctx.status = IntentStatus.INVOICED
  const entryEpoch = hub.currentEpoch()
  ticker.invoices.append(new InvoiceNode(ctx, recipient, entryEpoch, amount18, hub.timestamp))
  hub.emit({ kind: "InvoiceEnqueued", intentId, tickerHash: ticker.config.tickerHash, entryEpoch, amount: amount18, owner: recipient })
}

// ---------------------------------------------------------------------------------------------------------
// Discount

/**
 * The invoice's discount cap: with `userMaxDiscount`, a ttl=0 intent's `maxFee` (when > 0) caps it below the
 * ticker's `maxDiscountDbps`; otherwise the ticker cap alone (the contracts' behaviour).
 */
const discountCapDbps = (hub: HubState, ticker: TickerState, ctx: IntentContext | undefined): number => {
  const tickerCap = ticker.config.maxDiscountDbps
  const intent = ctx?.intent
  if (!hub.config.userMaxDiscount || intent === undefined || intent.ttl !== 0 || intent.maxFee === 0) return tickerCap
  return Math.min(intent.maxFee, tickerCap)
}

/**
 * `_getDiscountDbps`: 0 while `epoch <= entryEpoch`, then `(epoch - entryEpoch - discountExemptEpochs) *
 * discountPerEpoch` floored at 0 and capped.
 */
export const discountDbps = (hub: HubState, ticker: TickerState, epoch: number, entryEpoch: number, ctx: IntentContext | undefined): number => {
  if (epoch <= entryEpoch) return 0
  const epochs = epoch - entryEpoch - hub.config.discountExemptEpochs
  if (epochs <= 0) return 0
  return Math.min(epochs * ticker.config.discountPerEpochDbps, discountCapDbps(hub, ticker, ctx))
}

/** Whether `discountDbps` is the same in every epoch after `epoch` as in it: at its cap, or never above 0. */
export const discountFinal = (hub: HubState, ticker: TickerState, epoch: number, entryEpoch: number, ctx: IntentContext | undefined): boolean => {
  const cap = discountCapDbps(hub, ticker, ctx)
  if (cap <= 0 || ticker.config.discountPerEpochDbps <= 0) return true
  return discountDbps(hub, ticker, epoch, entryEpoch, ctx) >= cap
}

// ---------------------------------------------------------------------------------------------------------
// processDepositsAndInvoices

export type { InvoiceEvaluation }

/**
 * `_findLowestDiscountAndHighestLiquidity`: per DEFAULT domain, the discount applies to the part covered by
 * this epoch's deposits there; the domain must hold `after` in custody; the largest `after` wins, ties to the
 * strictly larger liquidity (so list order breaks exact ties).
 */
/** `BigInt(dbps)` for the small discounts that occur (0 to a ticker's cap), made once each. */
const DISCOUNT_BIGINTS: bigint[] = []
const discountAsBigInt = (dbps: number): bigint => {
  if (dbps > 100_000) return BigInt(dbps)
  return (DISCOUNT_BIGINTS[dbps] ??= BigInt(dbps))
}

export const evaluateInvoice = (
  ticker: TickerState,
  epoch: number,
  invoiceAmount18: bigint,
  discount: number,
  domains: readonly DomainAsset[],
): InvoiceEvaluation | undefined => {
  const discountBig = discountAsBigInt(discount)
  let best: InvoiceEvaluation | undefined
  for (const d of domains) {
    if (d.strategy !== Strategy.DEFAULT) continue
    const deposits18 = ticker.depositQueue(epoch, d.domain)?.available18 ?? 0n
    const toDiscount18 = deposits18 < invoiceAmount18 ? deposits18 : invoiceAmount18
    const rewards18 = (toDiscount18 * discountBig) / DBPS_DENOMINATOR
    const after18 = invoiceAmount18 - rewards18
    const liquidity18 = ticker.custodied(d.domain)
    if (liquidity18 < after18) continue
    if (best === undefined || after18 > best.amountAfterDiscount18 || (after18 === best.amountAfterDiscount18 && liquidity18 > best.liquidity18)) {
      best = { discountDbps: discount, domain: d.domain, liquidity18, toDiscount18, rewards18, amountAfterDiscount18: after18 }
    }
  }
  return best
}

/**
 * Credits this epoch's deposits on the chosen domain, FIFO from the first with purchase power, each with
 * `consumed * rewards / after` (floored). Returns the total credited (less than `rewards` when deposits cover
 * less than `after`: the rest stays in custody as surplus).
 */
const distributeRewards = (queue: DepositQueue | undefined, after18: bigint, rewards18: bigint): bigint => {
  if (queue === undefined) return 0n
  let remaining18 = after18
  let credited18 = 0n
  const items = queue.items
  // Arithmetic as written in the contract; shortcuts only where the result is the same value (a whole
  // invoice's share is `rewards` itself; adding to zero is the addend), which saves bigint allocations.
  while (remaining18 > 0n && queue.firstWithPurchasePower < items.length) {
    const deposit = items[queue.firstWithPurchasePower]!
    const power18 = deposit.purchasePower18
    const consumed18 = power18 < remaining18 ? power18 : remaining18
    const reward18 = consumed18 === after18 ? rewards18 : rewards18 === 0n ? 0n : (consumed18 * rewards18) / after18
    const ctx = deposit.ctx
    if (reward18 !== 0n) {
      ctx.pendingRewards18 = ctx.pendingRewards18 === 0n ? reward18 : ctx.pendingRewards18 + reward18
      credited18 = credited18 === 0n ? reward18 : credited18 + reward18
    }
    if (consumed18 === power18) {
      deposit.purchasePower18 = 0n
      queue.firstWithPurchasePower++
    } else deposit.purchasePower18 = power18 - consumed18
    remaining18 -= consumed18
  }
  return credited18
}

/** `_processInvoice`: settles the invoice on the best domain if any. True when settled. */
const processInvoice = (hub: HubState, ticker: TickerState, epoch: number, invoice: InvoiceNode): boolean => {
  const ctx = invoice.ctx
  const domains = settlementDomains(hub, ticker, ctx, invoice.owner)
  const xerc20First = ticker.config.prioritizedStrategy === Strategy.XERC20
  if (xerc20First) {
    const x = firstXerc20(domains)
    if (x !== undefined) {
      createSettlement(hub, ticker, invoice.intentId, ctx, invoice.amount18, x, invoice.owner)
      return true
    }
  }
  const discount = discountDbps(hub, ticker, epoch, invoice.entryEpoch, ctx)
  const found = evaluateInvoice(ticker, epoch, invoice.amount18, discount, domains)
  hub.observer?.onInvoiceEvaluated?.(ticker, invoice, epoch, found, domains, discount)
  if (found !== undefined) {
    const queue = ticker.depositQueue(epoch, found.domain)
    const after18 = found.amountAfterDiscount18
    const credited18 = distributeRewards(queue, after18, found.rewards18)
    if (queue !== undefined) queue.available18 = queue.available18 > after18 ? queue.available18 - after18 : 0n
    // amount - after - credited, where amount - after is exactly the rewards.
    const surplus18 = found.rewards18 - credited18
    if (surplus18 !== 0n) ticker.ledger.surplus18 += surplus18
    createSettlement(hub, ticker, invoice.intentId, ctx, after18, ticker.assetByDomain.get(found.domain)!, invoice.owner)
    return true
  }
  if (!xerc20First) {
    const x = firstXerc20(domains)
    if (x !== undefined) {
      createSettlement(hub, ticker, invoice.intentId, ctx, invoice.amount18, x, invoice.owner)
      return true
    }
  }
  return false
}

/**
 * `_processDeposit` for a deposit of a closed epoch: ttl=0 → settle or invoice to the receiver; filled →
 * to the solver; unfilled and expired (`now > timestamp + ttl + expiryTimeBuffer`) → slow path to the
 * receiver; otherwise wait in DEPOSIT_PROCESSED.
 */
const processClosedDeposit = (hub: HubState, ticker: TickerState, epoch: number, domain: number, ctx: IntentContext): void => {
  const intentId = ctx.intentId
  const intent = ctx.intent!
  hub.emit({
    kind: "DepositProcessed",
    epoch,
    domain,
    tickerHash: ticker.config.tickerHash,
    intentId,
    amountAndRewards: ctx.amountAfterFees18 + ctx.pendingRewards18,
  })
  if (intent.ttl === 0) createSettlementOrInvoice(hub, ticker, intentId, ctx, intent.receiver)
  else if (ctx.status === IntentStatus.ADDED_AND_FILLED) createSettlementOrInvoice(hub, ticker, intentId, ctx, ctx.solver!)
  else if (hub.timestamp > intent.timestamp + intent.ttl + hub.config.expiryTimeBufferSeconds) {
    createSettlementOrInvoice(hub, ticker, intentId, ctx, intent.receiver)
  } else {
    ctx.status = IntentStatus.DEPOSIT_PROCESSED
    ticker.waiting.add(intentId)
  }
}

/**
 * `_cleanUpClosedEpochsDeposits`: pops every deposit of the epochs from `lastClosedEpochsProcessed`
 * (inclusive) to `epoch - 1`, domains in configured order. `maxDeposits` stops after that many deposits
 * (resuming one epoch earlier next time), `maxEpochs` after that many epochs. Empty epochs are skipped
 * without being visited, which is equivalent: they hold nothing to pop.
 */
const cleanUpClosedEpochsDeposits = (hub: HubState, ticker: TickerState, epoch: number, maxEpochs: number, maxDeposits: number): void => {
  if (epoch === 0) return // no epoch has closed yet
  const lastClosed = epoch - 1
  const start = ticker.lastClosedEpochsProcessed
  if (!(lastClosed > start || lastClosed === 0)) return
  const stopEpoch = maxEpochs > 0 ? Math.min(lastClosed, start + maxEpochs - 1) : lastClosed
  let processed = 0
  const epochs = ticker.depositEpochs
  while (epochs.length > 0 && epochs[0]! <= stopEpoch) {
    const e = epochs[0]!
    const byDomain = ticker.deposits.get(e)!
    for (const d of ticker.config.domains) {
      const queue = byDomain.get(d.domain)
      if (queue === undefined) continue
      while (queue.first < queue.items.length) {
        const deposit = queue.items[queue.first++]!
        processClosedDeposit(hub, ticker, e, d.domain, deposit.ctx)
        processed++
        if (maxDeposits > 0 && processed === maxDeposits) {
          if (queue.first === queue.items.length) byDomain.delete(d.domain)
          if (byDomain.size === 0) dropEpoch(ticker, e)
          setLastClosed(hub, ticker, Math.max(0, e - 1))
          return
        }
      }
      byDomain.delete(d.domain)
    }
    // Deposits from domains the ticker no longer lists cannot exist: intake only queues configured assets.
    dropEpoch(ticker, e)
  }
  setLastClosed(hub, ticker, stopEpoch)
}

const dropEpoch = (ticker: TickerState, epoch: number): void => {
  ticker.deposits.delete(epoch)
  if (ticker.depositEpochs[0] === epoch) ticker.depositEpochs.shift()
}

const setLastClosed = (hub: HubState, ticker: TickerState, value: number): void => {
  const advanced = value !== ticker.lastClosedEpochsProcessed
  ticker.lastClosedEpochsProcessed = value
  if (advanced) hub.emit({ kind: "ClosedEpochsProcessed", tickerHash: ticker.config.tickerHash, lastClosedEpochProcessed: value })
}

/**
 * `processDepositsAndInvoices(ticker, maxEpochs, maxDeposits, maxInvoices)`: phase 1 walks the invoices
 * oldest first (an unsettleable invoice does not block later ones; `maxInvoices` bounds the visits), phase 2
 * cleans up closed-epoch deposits. Permissionless, not gated by pause.
 */
export const processDepositsAndInvoices = (hub: HubState, tickerHash: Bytes32, maxEpochs: number, maxDeposits: number, maxInvoices: number): void => {
  const ticker = hub.tickers.get(tickerHash)
  if (ticker === undefined || ticker.config.domains.length === 0) {
    throw new HubRevert("Settler_ProcessDepositsAndInvoices_InvalidTickerHash", `ticker ${tickerHash} has no domains on the hub`)
  }
  const epoch = hub.currentEpoch()
  let visited = 0
  for (let invoice = ticker.invoices.head; invoice !== undefined; ) {
    if (maxInvoices > 0 && visited === maxInvoices) break
    visited++
    const next = invoice.next
    if (processInvoice(hub, ticker, epoch, invoice)) ticker.invoices.remove(invoice)
    invoice = next
  }
  cleanUpClosedEpochsDeposits(hub, ticker, epoch, maxEpochs, maxDeposits)
}
