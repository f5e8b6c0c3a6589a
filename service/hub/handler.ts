/**
 * Permissionless hub calls other than `processDepositsAndInvoices`: settlement dispatch (reference §3.7),
 * user preferences (§3.8), unsupported returns (§3.9), expired intents (§3.10), fee withdrawal (§3.11),
 * and the epoch-length update with carry (§3.1). Dispatch, unsupported returns and expired intents are
 * `whenNotPaused` (§3.14, `pause.ts`); fee withdrawal is not.
 */
import { encodeAbiParameters, keccak256, toBytes } from "viem/utils"
import { encodeSettlementMessageBytes, messageIdOf as fastMessageIdOf } from "../domain/encoding.ts"
import { type Bytes32, bytesToHex, hexToBytes } from "../domain/hex.ts"
import { IntentStatus, IntentStatusName, type Settlement } from "../domain/protocol.ts"
import { keccak256Bytes } from "../domain/keccak.ts"
import { HubRevert } from "./errors.ts"
import { requireNotPaused } from "./pause.ts"
import { createSettlementOrInvoice } from "./settler.ts"
import type { HubState, OutboundMessage } from "./state.ts"

/** Gas limit of the `returnUnsupportedIntent` settlement message (`DEFAULT_GAS_LIMIT`). */
export const RETURN_UNSUPPORTED_GAS_LIMIT = 50_000n

/**
 * Message id of a hub→spoke message: `keccak256(abi.encode(uint32 origin, uint32 destination, uint256 nonce,
 * bytes message))`, the same rule the spoke gateways use for their outbound messages.
 */
export const messageIdOf = (origin: number, destination: number, nonce: bigint, message: `0x${string}`): Bytes32 =>
  fastMessageIdOf(origin, destination, nonce, hexToBytes(message))

const send = (hub: HubState, destination: number, settlements: readonly Settlement[], gasLimit: bigint): OutboundMessage => {
  const nonce = ++hub.messageNonce
  const bytes = encodeSettlementMessageBytes(settlements)
  const messageId = fastMessageIdOf(hub.config.hubDomain, destination, nonce, bytes)
  const message: OutboundMessage = { messageId, origin: hub.config.hubDomain, destination, nonce, settlements, gasLimit, message: bytesToHex(bytes) }
  hub.outbox.push(message)
  return message
}

/** V1 gas rule: `base = settlementBaseGasUnits + averageGasUnitsPerSettlement * n`, plus `bufferDBPS`. */
export const settlementBatchGasLimit = (hub: HubState, count: number): bigint => {
  const gas = hub.config.gasConfig
  const base = gas.settlementBaseGasUnits + gas.averageGasUnitsPerSettlement * BigInt(count)
  return base + (base * gas.bufferDbps) / 100_000n
}

/** `processSettlementQueue(domain, amount)`: dequeues `amount` settlements FIFO and sends one batch. */
export const processSettlementQueue = (hub: HubState, domain: number, amount: number): OutboundMessage => {
  requireNotPaused(hub, "processSettlementQueue")
  const queue = hub.settlementQueues.get(domain)
  if (queue === undefined) throw new HubRevert("Settler_ProcessSettlementQueue_UnsupportedDomain", `domain ${domain} is not supported by the hub`)
  if (!Number.isInteger(amount) || amount <= 0 || amount > queue.size) {
    throw new HubRevert(
      "Settler_ProcessSettlementQueue_InvalidAmount",
      `amount ${amount} must be between 1 and the ${queue.size} settlement(s) queued for domain ${domain}`,
    )
  }
  const gasLimit = settlementBatchGasLimit(hub, amount)
  const domainLimit = hub.config.domainGasLimit.get(domain) ?? hub.config.defaultDomainGasLimit
  if (gasLimit > domainLimit) {
    throw new HubRevert("Settler_DomainBlockGasLimitReached", `a batch of ${amount} needs gas ${gasLimit}, above domain ${domain}'s limit ${domainLimit}`)
  }
  const settlements: Settlement[] = queue.take(amount).map((s) => ({
    intentId: s.intentId,
    amount: s.amount,
    asset: s.asset,
    recipient: s.recipient,
    updateVirtualBalance: s.updateVirtualBalance,
  }))
  const message = send(hub, domain, settlements, gasLimit)
  hub.emit({ kind: "SettlementQueueProcessed", messageId: message.messageId, domain, amount, quote: 0n })
  return message
}

/** `setUpdateVirtualBalance(status)` by `user`. */
export const setUpdateVirtualBalance = (hub: HubState, user: Bytes32, status: boolean): void => {
  hub.updateVirtualBalance.set(user, status)
  hub.emit({ kind: "IncreaseVirtualBalanceSet", user, status })
}

/** `setUserSupportedDomains(domains)` by `user`: at least `minSolverSupportedDomains`, all supported, distinct. */
export const setUserSupportedDomains = (hub: HubState, user: Bytes32, domains: readonly number[]): void => {
  if (domains.length < hub.config.minSolverSupportedDomains) {
    throw new HubRevert(
      "UsersManager_SetUserSupportedDomains_InvalidLength",
      `${domains.length} domain(s) given, at least ${hub.config.minSolverSupportedDomains} required`,
    )
  }
  const seen = new Set<number>()
  for (const d of domains) {
    if (!hub.supportedDomains.has(d)) throw new HubRevert("UsersManager_SetUserSupportedDomains_UnsupportedDomain", `domain ${d} is not supported by the hub`)
    if (seen.has(d)) throw new HubRevert("UsersManager_SetUserSupportedDomains_DuplicatedDomain", `domain ${d} is listed twice`)
    seen.add(d)
  }
  hub.userSupportedDomains.set(user, [...domains])
  hub.userDomainsChanges++
  hub.emit({ kind: "SolverConfigUpdated", solver: user, supportedDomains: [...domains] })
}

/**
 * `returnUnsupportedIntent(intentId)`: the full pre-fee amount back to the initiator's virtual balance on the
 * origin, sent directly (not through the settlement queue).
 */
export const returnUnsupportedIntent = (hub: HubState, intentId: Bytes32): OutboundMessage => {
  requireNotPaused(hub, "returnUnsupportedIntent")
  const ctx = hub.contexts.get(intentId)
  if (ctx === undefined || ctx.status !== IntentStatus.UNSUPPORTED || ctx.intent === undefined) {
    const status = IntentStatusName[ctx?.status ?? IntentStatus.NONE]
    throw new HubRevert("Handler_ReturnUnsupportedIntent_InvalidStatus", `intent ${intentId} is ${status}, not UNSUPPORTED`)
  }
  const intent = ctx.intent
  ctx.status = IntentStatus.UNSUPPORTED_RETURNED
  const message = send(
    hub,
    intent.origin,
    [{ intentId, amount: intent.amount, asset: intent.inputAsset, recipient: intent.initiator, updateVirtualBalance: true }],
    RETURN_UNSUPPORTED_GAS_LIMIT,
  )
  hub.emit({ kind: "ReturnUnsupportedIntent", domain: intent.origin, messageId: message.messageId, intentId })
  return message
}

/**
 * `handleExpiredIntents(ids)`: each must wait in DEPOSIT_PROCESSED with `now >= timestamp + ttl + buffer`.
 * The contract checks and then handles each id in order, so the first failing id decides the error; an id
 * listed again has already been settled or invoiced by its earlier entry, so it reverts InvalidStatus there
 * (ids [A, A, B] with B not yet expired: InvalidStatus at the second A, not NotExpired at B). All ids are
 * checked before any is handled, which gives the same outcome: handling one id never changes another's
 * status, ttl or timestamp, and a revert undoes the whole call.
 */
export const handleExpiredIntents = (hub: HubState, intentIds: readonly Bytes32[]): void => {
  requireNotPaused(hub, "handleExpiredIntents")
  const seen = new Set<Bytes32>()
  for (const id of intentIds) {
    if (seen.has(id)) {
      throw new HubRevert(
        "Handler_HandleExpiredIntents_InvalidStatus",
        `intent ${id} is listed again after an earlier entry of this call handled it, so it is no longer DEPOSIT_PROCESSED`,
      )
    }
    seen.add(id)
    const ctx = hub.contexts.get(id)
    if (ctx === undefined || ctx.status !== IntentStatus.DEPOSIT_PROCESSED) {
      const status = IntentStatusName[ctx?.status ?? IntentStatus.NONE]
      throw new HubRevert("Handler_HandleExpiredIntents_InvalidStatus", `intent ${id} is ${status}, not DEPOSIT_PROCESSED`)
    }
    const intent = ctx.intent!
    if (intent.ttl === 0) throw new HubRevert("Handler_HandleExpiredIntents_ZeroTTL", `intent ${id} has ttl 0`)
    const expiry = intent.timestamp + intent.ttl + hub.config.expiryTimeBufferSeconds
    if (hub.timestamp < expiry) {
      throw new HubRevert("Handler_HandleExpiredIntents_NotExpired", `intent ${id} expires at ${expiry}, hub time is ${hub.timestamp}`)
    }
  }
  for (const id of intentIds) {
    const ctx = hub.contexts.get(id)!
    ctx.ticker!.waiting.delete(id)
    createSettlementOrInvoice(hub, ctx.ticker!, id, ctx, ctx.intent!.receiver)
  }
  hub.emit({ kind: "ExpiredIntentsHandled", intentIds: [...intentIds] })
}

const PROTOCOL_PAYMENT = keccak256Bytes(toBytes("protocol_payment"))

/**
 * `withdrawFees(feeRecipient, ticker, amount, destinations)` by `withdrawer` (the vault owner): settled or
 * invoiced to `feeRecipient` exactly like an intent, under a payment id.
 */
export const withdrawFees = (
  hub: HubState,
  withdrawer: Bytes32,
  feeRecipient: Bytes32,
  tickerHash: Bytes32,
  amount18: bigint,
  destinations: readonly number[],
): Bytes32 => {
  const ticker = hub.tickers.get(tickerHash)
  const vault18 = ticker?.feeVault18.get(withdrawer) ?? 0n
  if (ticker === undefined || amount18 <= 0n || vault18 < amount18) {
    throw new HubRevert("Handler_WithdrawFees_InsufficientFunds", `${withdrawer} has ${vault18} in the ${tickerHash} fee vault, cannot withdraw ${amount18}`)
  }
  for (const d of destinations) {
    if (!hub.supportedDomains.has(d)) throw new HubRevert("Handler_WithdrawFees_UnsupportedDomain", `domain ${d} is not supported by the hub`)
  }
  ticker.feeVault18.set(withdrawer, vault18 - amount18)
  const paymentId = keccak256(
    encodeAbiParameters(
      [{ type: "bytes32" }, { type: "bytes32" }, { type: "uint256" }, { type: "bytes32" }, { type: "bytes32" }, { type: "uint32[]" }, { type: "uint256" }],
      [PROTOCOL_PAYMENT, tickerHash, amount18, withdrawer, feeRecipient, [...destinations], ++hub.paymentNonce],
    ),
  )
  const ctx = hub.context(paymentId)
  ctx.ticker = ticker
  ctx.amountAfterFees18 = amount18
  ctx.paymentDestinations = [...destinations]
  hub.emit({ kind: "FeesWithdrawn", withdrawer, feeRecipient, tickerHash, amount: amount18, paymentId })
  createSettlementOrInvoice(hub, ticker, paymentId, ctx, feeRecipient)
  return paymentId
}

/** `updateEpochLength(n)`: freezes the current epoch as the carry, so epochs never go backwards. */
export const updateEpochLength = (hub: HubState, newLengthBlocks: number): void => {
  if (!Number.isInteger(newLengthBlocks) || newLengthBlocks <= 0) {
    throw new HubRevert("ProtocolManager_UpdateEpochLength_InvalidLength", `epoch length ${newLengthBlocks} must be a positive integer`)
  }
  const old = hub.epochLengthBlocks
  hub.carryEpoch = hub.currentEpoch()
  hub.lastBlockNumberCarryEpochUpdated = hub.blockNumber
  hub.epochLengthBlocks = newLengthBlocks
  hub.emit({ kind: "EpochLengthUpdated", oldLength: old, newLength: newLengthBlocks })
}

/** Why the hub would refuse to move to this block and time (it never goes backwards), or undefined. */
export const blockRefusal = (hub: Pick<HubState, "blockNumber" | "timestamp">, blockNumber: number, timestamp: number): HubRevert | undefined => {
  if (!Number.isSafeInteger(blockNumber) || blockNumber < hub.blockNumber) {
    return new HubRevert("Hub_InvalidBlock", `block ${blockNumber} is before the current hub block ${hub.blockNumber}`)
  }
  if (!Number.isSafeInteger(timestamp) || timestamp < hub.timestamp) {
    return new HubRevert("Hub_InvalidTimestamp", `timestamp ${timestamp} is before the current hub time ${hub.timestamp}`)
  }
  return undefined
}

/** Advances the hub block and time (never backwards). The first block initializes the tickers' epochs. */
export const setBlock = (hub: HubState, blockNumber: number, timestamp: number): void => {
  const refusal = blockRefusal(hub, blockNumber, timestamp)
  if (refusal !== undefined) throw refusal
  hub.blockNumber = blockNumber
  hub.timestamp = timestamp
  if (!hub.started) {
    hub.started = true
    // setTokenConfigs(initLastClosedEpochProcessed = true) at deployment: block / epochLength - 1. In epoch 0
    // the contract's unsigned subtraction would revert; clamped to 0 deliberately (README, "Epoch 0 is clamped").
    const initial = Math.max(0, Math.floor(blockNumber / hub.epochLengthBlocks) - 1)
    for (const ticker of hub.tickers.values()) ticker.lastClosedEpochsProcessed = initial
  }
}
