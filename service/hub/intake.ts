/**
 * Inbound INTENT and FILL batches (reference §3.3, §3.4).
 */
import { IntentEncoder } from "../domain/encoding.ts"
import { type Bytes32, ZERO_BYTES32 } from "../domain/hex.ts"
import { DBPS_DENOMINATOR, type FillMessage, type Intent, IntentStatus, IntentStatusName, Strategy } from "../domain/protocol.ts"
import { createSettlementOrInvoice } from "./settler.ts"
import { type HubState, IntentContext, type TickerState } from "./state.ts"

const encoder = new IntentEncoder()

/**
 * `_checkSupportedIntent`: the input asset must be approved on its origin, every destination supported by
 * the hub, and a single-destination intent with an output asset must name the same ticker's asset there,
 * except fast-path swaps (ttl > 0) when `allowFastPathSwaps` is on: their output asset only has to be
 * supported on that domain (SPEC's "priority settlement swap"; the V1 contracts would call it unsupported).
 * Returns the input asset's ticker, or undefined when unsupported.
 */
const supportedTicker = (hub: HubState, intent: Intent): { ticker: TickerState; strategy: number } | undefined => {
  const input = hub.assetOn(intent.origin, intent.inputAsset)
  if (input === undefined) return undefined
  for (const d of intent.destinations) if (!hub.supportedDomains.has(d)) return undefined
  if (intent.destinations.length === 1 && intent.outputAsset !== ZERO_BYTES32) {
    const output = hub.assetOn(intent.destinations[0]!, intent.outputAsset)
    if (output === undefined) return undefined
    if (output.ticker !== input.ticker && !(intent.ttl > 0 && hub.config.allowFastPathSwaps)) return undefined
  }
  return { ticker: input.ticker, strategy: input.asset.strategy }
}

/**
 * An INTENT message: each intent of the batch in order. `knownIds[i]`, when given, is `intentId(intents[i])`
 * as the sender computed it (see `HubInput`).
 */
export const receiveIntents = (hub: HubState, intents: readonly Intent[], knownIds?: readonly Bytes32[]): void => {
  if (knownIds !== undefined && knownIds.length !== intents.length) throw new Error(`receiveIntents: ${knownIds.length} known ids for ${intents.length} intents`)
  for (let i = 0; i < intents.length; i++) {
    const intent = intents[i]!
    receiveIntent(hub, intent, knownIds === undefined ? encoder.intentId(intent) : knownIds[i]!)
  }
}

const receiveIntent = (hub: HubState, intent: Intent, intentId: Bytes32): void => {
  // One probe: the context found, or a new one added (a repeated intent, rare, costs an unused context).
  const fresh = new IntentContext(intentId)
  const ctx = hub.contexts.setIfAbsent(intentId, fresh)
  // De-duplication: only a new intent, or one whose fill arrived first, is processed.
  if (ctx !== fresh && ctx.status !== IntentStatus.NONE && ctx.status !== IntentStatus.FILLED) return
  ctx.intent = intent
  const support = supportedTicker(hub, intent)
  if (support === undefined) {
    ctx.status = IntentStatus.UNSUPPORTED
    hub.emit({ kind: "IntentProcessed", intentId, status: "UNSUPPORTED" })
    return
  }
  const ticker = support.ticker
  ctx.ticker = ticker
  const amount18 = intent.amount
  if (support.strategy === Strategy.DEFAULT) {
    ticker.custodied18.set(intent.origin, ticker.custodied(intent.origin) + amount18)
    ticker.ledger.intakeCustodied18 += amount18
    hub.observer?.onCustody?.(ticker, intent.origin, amount18, intentId)
  } else {
    ticker.ledger.xerc20Intake18 += amount18
  }
  // Protocol fees, each floored separately.
  let fees18 = 0n
  let totalFeeDbps = 0
  for (const fee of ticker.config.fees) {
    const fee18 = (amount18 * BigInt(fee.feeDbps)) / DBPS_DENOMINATOR
    ticker.feeVault18.set(fee.recipient, (ticker.feeVault18.get(fee.recipient) ?? 0n) + fee18)
    fees18 += fee18
    totalFeeDbps += fee.feeDbps
  }
  ctx.amountAfterFees18 = fees18 === 0n ? amount18 : amount18 - fees18
  ctx.totalProtocolFeeDbps = totalFeeDbps
  const filled = ctx.status === IntentStatus.FILLED
  const epoch = hub.currentEpoch()
  // Invoice-or-deposit is decided by ticker only: any open invoice makes this intent a deposit.
  if (ticker.invoices.length === 0) {
    hub.emit({ kind: "DepositProcessed", epoch, domain: intent.origin, tickerHash: ticker.config.tickerHash, intentId, amountAndRewards: amount18 })
    if (intent.ttl === 0) createSettlementOrInvoice(hub, ticker, intentId, ctx, intent.receiver)
    else if (filled) createSettlementOrInvoice(hub, ticker, intentId, ctx, ctx.solver!)
    else {
      ctx.status = IntentStatus.DEPOSIT_PROCESSED
      ticker.waiting.add(intentId)
    }
  } else {
    const queue = ticker.openDepositQueue(epoch, intent.origin)
    queue.items.push({ ctx, purchasePower18: amount18 })
    queue.available18 += amount18
    ctx.status = filled ? IntentStatus.ADDED_AND_FILLED : IntentStatus.ADDED
    hub.emit({ kind: "DepositEnqueued", epoch, domain: intent.origin, tickerHash: ticker.config.tickerHash, intentId, amount: amount18 })
  }
  hub.emit({ kind: "IntentProcessed", intentId, status: IntentStatusName[ctx.status]! })
}

/** A FILL message: each fill of the batch in order. */
export const receiveFills = (hub: HubState, fills: readonly FillMessage[]): void => {
  for (const fill of fills) receiveFill(hub, fill)
}

const receiveFill = (hub: HubState, fill: FillMessage): void => {
  const existing = hub.contexts.get(fill.intentId)
  const previous = existing?.status ?? IntentStatus.NONE
  // Late fills (intent already settled, invoiced, filled or unsupported) are ignored: the solver is not repaid.
  if (previous !== IntentStatus.NONE && previous !== IntentStatus.ADDED && previous !== IntentStatus.DEPOSIT_PROCESSED) return
  const ctx = existing ?? hub.context(fill.intentId)
  ctx.solver = fill.solver
  ctx.fillFeeDbps = fill.fee
  ctx.fillTimestamp = fill.executionTimestamp
  if (previous === IntentStatus.DEPOSIT_PROCESSED) {
    const ticker = ctx.ticker!
    ticker.waiting.delete(fill.intentId)
    createSettlementOrInvoice(hub, ticker, fill.intentId, ctx, fill.solver)
  } else {
    ctx.status = previous === IntentStatus.ADDED ? IntentStatus.ADDED_AND_FILLED : IntentStatus.FILLED
  }
  hub.emit({ kind: "FillProcessed", intentId: fill.intentId, status: IntentStatusName[ctx.status]! })
}
