/**
 * `ClearingSpoke` in memory: intents and their queue, fills and the fill queue, solver virtual balances, settlement
 * receipt, calldata execution, pause and the owner setters. Each function follows `contracts/ClearingSpoke.sol`
 * line by line: the same checks in the same order, the same errors and arguments, the same truncations and events.
 */
import { encodeAbiParameters, keccak256 } from "viem/utils"
import { encodeFillMessage, IntentEncoder } from "../../domain/encoding.ts"
import { IdMap } from "../../domain/idMap.ts"
import { type Address, addressToBytes32, type Bytes32, bytes32ToAddress, type Hex, ZERO_ADDRESS } from "../../domain/hex.ts"
import {
  DBPS_DENOMINATOR,
  type FillMessage,
  type Intent,
  IntentStatus,
  MAX_CALLDATA_SIZE,
  MAX_DESTINATIONS,
  MessageType,
  NORMALIZED_DECIMALS,
  oneDestination,
  powerOfTen,
  Strategy,
} from "../../domain/protocol.ts"
import type { NewIntentParams, Permit2Params } from "../calls.ts"
import type { QueuedIntent } from "../types.ts"
import { get2, set2 } from "./context.ts"
import type { SentIntents } from "./gateway.ts"
import { checkedAdd, checkedMul, PANIC_OVERFLOW, revert, SpokeRevert } from "./journal.ts"
import { lowerIntent } from "./lower.ts"
import { decodeIntentCalldata, type DecodedSettlement, decodeSettlementMessage, type ParsedHubMessage } from "./messages.ts"
import type { MemoryWorld } from "./world.ts"

const variableHash = (name: string): Bytes32 => keccak256(encodeAbiParameters([{ type: "string" }], [name])).toLowerCase() as Bytes32

/** `keccak256(abi.encode("GATEWAY"))` etc. (abi-encoded strings): the VAR_UPDATE variables the spoke accepts. */
export const VARIABLE_HASHES = {
  GATEWAY: variableHash("GATEWAY"),
  MAILBOX: variableHash("MAILBOX"),
  LIGHTHOUSE: variableHash("LIGHTHOUSE"),
  WATCHTOWER: variableHash("WATCHTOWER"),
}

const EXECUTE_COPY_BYTES = 256

const WORD = 32

/** `abi.encode(uint8(INTENT), abi.encode(intents))` as bytes (the same bytes as `encodeIntentMessage`). */
const intentMessageBytes = (encoder: IntentEncoder, intents: readonly Intent[]): Uint8Array => {
  const payload = encoder.encodeArray(intents)
  // The payload is a whole number of words: no padding after it.
  const out = new Uint8Array(3 * WORD + payload.length)
  out[WORD - 1] = MessageType.INTENT
  out[2 * WORD - 1] = 0x40
  new DataView(out.buffer).setUint32(3 * WORD - 4, payload.length)
  out.set(payload, 3 * WORD)
  return out
}

/** `Protocol.normalizeDecimals` with Solidity's checked multiplication. */
export const normalizeChecked = (amount: bigint, fromDecimals: number, toDecimals: number): bigint => {
  if (fromDecimals === toDecimals) return amount
  if (fromDecimals < toDecimals) {
    // `10 ** difference` is itself checked: from 78 on it overflows, whatever the amount.
    if (toDecimals - fromDecimals > 77) throw new SpokeRevert("Panic", [PANIC_OVERFLOW])
    return checkedMul(amount, powerOfTen(toDecimals - fromDecimals))
  }
  const difference = fromDecimals - toDecimals
  if (difference > 77) return 0n
  return amount / powerOfTen(difference)
}

export class MemoryClearingSpoke {
  owner: Address
  gateway: Address
  lighthouse: Address
  watchtower: Address
  hubDomain: number
  paused = false
  nonce = 0n
  // Every intent created or settled here, for the whole run: an IdMap (see service/domain/idMap.ts).
  readonly status = new IdMap<IntentStatus>()
  readonly balances = new Map<Address, Map<Address, bigint>>()
  readonly strategies = new Map<Address, Strategy>()
  readonly modules = new Map<Strategy, Address>()
  intentQueueFirst = 1
  intentQueueLast = 0
  /**
   * Queue index -> the queued intent (the contract stores the id; the intent is kept for keepers, as an indexer
   * would). The objects are immutable: `queuedIntents` hands them out as they are.
   */
  readonly intentQueue = new Map<number, QueuedIntent>()
  fillQueueFirst = 1
  fillQueueLast = 0
  readonly fillQueue = new Map<number, FillMessage>()
  private readonly encoder = new IntentEncoder()
  private readonly initiatorWords = new Map<Address, Bytes32>()
  private readonly wordAddresses = new Map<Bytes32, Address>()

  private readonly world: MemoryWorld
  readonly address: Address
  constructor(
    world: MemoryWorld,
    address: Address,
    config: { owner: Address; hubDomain: number; gateway: Address; lighthouse: Address; watchtower: Address; xerc20Module: Address },
  ) {
    this.world = world
    this.address = address
    this.owner = config.owner
    this.hubDomain = config.hubDomain
    this.gateway = config.gateway
    this.lighthouse = config.lighthouse
    this.watchtower = config.watchtower
    this.modules.set(Strategy.XERC20, config.xerc20Module)
  }

  private get ctx() {
    return this.world.ctx
  }

  private whenNotPaused(): void {
    if (this.paused) revert("ClearingSpoke_Paused")
  }

  private onlyOwner(sender: Address): void {
    if (sender !== this.owner) revert("ClearingSpoke_NotOwner", sender)
  }

  private onlyPauser(sender: Address): void {
    if (sender !== this.lighthouse && sender !== this.watchtower) revert("ClearingSpoke_Pause_NotAuthorized", sender)
  }

  /** `bytes32(uint256(uint160(address)))`, cached for the few addresses that recur (adapter, assets, users). */
  word(address: Address): Bytes32 {
    let word = this.initiatorWords.get(address)
    if (word === undefined) {
      word = addressToBytes32(address)
      if (this.initiatorWords.size < 1024) this.initiatorWords.set(address, word)
    }
    return word
  }

  /** `address(uint160(uint256(word)))`, cached for the few words that recur (assets, receivers). */
  private addressOf(word: Bytes32): Address {
    let address = this.wordAddresses.get(word)
    if (address === undefined) {
      address = bytes32ToAddress(word)
      if (this.wordAddresses.size < 4096) this.wordAddresses.set(word, address)
    }
    return address
  }

  intentId(intent: Intent): Bytes32 {
    return this.encoder.intentId(intent)
  }

  balanceOf(asset: Address, account: Address): bigint {
    return get2(this.balances, asset, account)
  }

  queuedIntents(limit: number): QueuedIntent[] {
    const out: QueuedIntent[] = []
    for (let i = this.intentQueueFirst; i <= this.intentQueueLast && out.length < limit; i++) {
      const stored = this.intentQueue.get(i)
      if (stored !== undefined) out.push(stored)
    }
    return out
  }

  // ---------------------------------------------------------------------------------------------------------
  // Intents

  /**
   * With `permit2Params`, the Permit2 overload: `amount` pulled with `Permit2.permitTransferFrom`, whatever the
   * strategy, first (after the pause check, as the production spoke), then the intent checks.
   */
  newIntent(sender: Address, p: NewIntentParams, permit2Params?: Permit2Params): { readonly intentId: Bytes32; readonly intent: Intent } {
    this.whenNotPaused()
    if (permit2Params !== undefined) {
      this.world.permit2.permitTransferFrom(this.address, { token: p.inputAsset, amount: p.amount, nonce: permit2Params.nonce, deadline: permit2Params.deadline }, this.address, p.amount, sender, permit2Params.signature)
    }
    const destinations = p.destinations
    const count = destinations.length
    const outputAsset = p.outputAsset
    if (count > MAX_DESTINATIONS) revert("ClearingSpoke_NewIntent_InvalidIntent")
    if (count === 1) {
      if (p.ttl !== 0 && outputAsset === ZERO_ADDRESS) revert("ClearingSpoke_NewIntent_InvalidIntent")
    } else if (p.ttl !== 0 || outputAsset !== ZERO_ADDRESS) {
      revert("ClearingSpoke_NewIntent_InvalidIntent")
    }
    if (p.maxFee > 100_000) revert("ClearingSpoke_NewIntent_MaxFeeExceeded", p.maxFee, 100_000)
    if ((p.data.length - 2) / 2 > MAX_CALLDATA_SIZE) revert("ClearingSpoke_NewIntent_CalldataExceedsLimit")
    const inputAsset = p.inputAsset
    const normalizedAmount = normalizeChecked(p.amount, this.decimals(inputAsset), NORMALIZED_DECIMALS)
    if (normalizedAmount === 0n) revert("ClearingSpoke_NewIntent_ZeroAmount")
    if (permit2Params === undefined) this.takeFunds(sender, inputAsset, p.amount)

    const ctx = this.ctx
    const nonce = this.nonce + 1n
    ctx.journal.field(this as MemoryClearingSpoke, "nonce", nonce)
    const intent: Intent = {
      initiator: this.word(sender),
      receiver: this.word(p.receiver),
      inputAsset: this.word(inputAsset),
      outputAsset: this.word(outputAsset),
      maxFee: p.maxFee,
      origin: ctx.domain,
      nonce,
      timestamp: ctx.now,
      ttl: p.ttl,
      amount: normalizedAmount,
      destinations: count === 1 ? oneDestination(destinations[0]!) : [...destinations],
      data: p.data,
    }
    const intentId = this.encoder.intentId(intent)
    ctx.journal.set(this.status, intentId, IntentStatus.ADDED)
    const queueIdx = this.intentQueueLast + 1
    ctx.journal.field(this as MemoryClearingSpoke, "intentQueueLast", queueIdx)
    // The queue has entries at indices first..last only (a rollback restores both the entries and the bounds):
    // none at last + 1 yet.
    const queued: QueuedIntent = { queueIdx: BigInt(queueIdx), intentId, intent }
    ctx.journal.replace(this.intentQueue, queueIdx, undefined, queued)
    ctx.emit(this.address, { name: "IntentAdded", intentId, queueIdx: queued.queueIdx, intent })
    return queued
  }

  /** `given` in any case (see `lowerIntent`). */
  processIntentQueue(value: bigint, given: readonly Intent[]): void {
    this.whenNotPaused()
    const amount = given.length
    const first = this.intentQueueFirst
    this.validateQueueAmount(first, this.intentQueueLast, amount)
    const journal = this.ctx.journal
    // The intents in lowercase (a copy: the hub takes this array with the message).
    const intents = given.slice()
    const ids: Bytes32[] = new Array(amount)
    for (let i = 0; i < amount; i++) {
      const stored = this.intentQueue.get(first + i)
      let intentId: Bytes32
      // The stored intent object is immutable and lowercase: passing it back (what keepers do) needs no
      // lowercasing and no re-hash.
      if (stored !== undefined && stored.intent === given[i]) {
        intentId = stored.intentId
      } else {
        const intent = lowerIntent(given[i]!)
        intents[i] = intent
        intentId = this.encoder.intentId(intent)
      }
      if (stored?.intentId !== intentId) revert("ClearingSpoke_ProcessIntentQueue_NotFound", intentId, BigInt(i))
      ids[i] = intentId
      journal.remove(this.intentQueue, first + i, stored!)
    }
    this.ctx.journal.field(this as MemoryClearingSpoke, "intentQueueFirst", first + amount)
    const bytes = intentMessageBytes(this.encoder, intents)
    const { messageId, quote } = this.sendToHub(value, bytes, { intents, ids })
    this.ctx.emit(this.address, {
      name: "IntentQueueProcessed",
      messageId,
      firstIdx: BigInt(first),
      lastIdx: BigInt(first + amount),
      quote,
    })
  }

  // ---------------------------------------------------------------------------------------------------------
  // Fills

  fillIntent(sender: Address, intent: Intent, fee: number): FillMessage {
    this.whenNotPaused()
    if (intent.destinations.length === 0 || intent.destinations[0] !== this.ctx.domain) revert("ClearingSpoke_WrongDestination")
    if (this.ctx.now >= intent.timestamp + intent.ttl) revert("ClearingSpoke_FillIntent_IntentExpired")
    if (fee > intent.maxFee) revert("ClearingSpoke_FillIntent_MaxFeeExceeded", fee, intent.maxFee)
    const intentId = this.encoder.intentId(intent)
    const current = this.status.get(intentId) ?? IntentStatus.NONE
    if (current !== IntentStatus.NONE) revert("ClearingSpoke_FillIntent_InvalidStatus", current)

    const outputAsset = this.addressOf(intent.outputAsset)
    const amountOut = this.amountAfterFee(outputAsset, intent.amount, fee)
    const available = this.balanceOf(outputAsset, sender)
    if (available < amountOut) revert("ClearingSpoke_FillIntent_InsufficientFunds", amountOut, available)
    set2(this.ctx.journal, this.balances, outputAsset, sender, available - amountOut)
    this.ctx.journal.set(this.status, intentId, IntentStatus.FILLED)

    const receiver = this.addressOf(intent.receiver)
    if (receiver !== ZERO_ADDRESS && outputAsset !== ZERO_ADDRESS && amountOut !== 0n) this.push(outputAsset, receiver, amountOut)
    if (intent.data.length > 2) this.executeCalldata(intentId, intent.data)

    // Queued after the receiver is paid and the calldata ran (the reference's order).
    const fillMessage: FillMessage = {
      intentId,
      solver: this.word(sender),
      initiator: intent.initiator,
      fee,
      executionTimestamp: this.ctx.now,
    }
    const queueIdx = this.fillQueueLast + 1
    this.ctx.journal.field(this as MemoryClearingSpoke, "fillQueueLast", queueIdx)
    this.ctx.journal.set(this.fillQueue, queueIdx, fillMessage)
    this.ctx.emit(this.address, {
      name: "IntentFilled",
      intentId,
      solver: sender,
      totalFeeDBPS: BigInt(fee),
      queueIdx: BigInt(queueIdx),
      intent,
    })
    return fillMessage
  }

  processFillQueue(value: bigint, amount: number): void {
    this.whenNotPaused()
    const first = this.fillQueueFirst
    this.validateQueueAmount(first, this.fillQueueLast, amount)
    const fills: FillMessage[] = new Array(amount)
    for (let i = 0; i < amount; i++) {
      fills[i] = this.fillQueue.get(first + i)!
      this.ctx.journal.delete(this.fillQueue, first + i)
    }
    this.ctx.journal.field(this as MemoryClearingSpoke, "fillQueueFirst", first + amount)
    const { messageId, quote } = this.sendToHub(value, encodeFillMessage(fills))
    this.ctx.emit(this.address, { name: "FillQueueProcessed", messageId, firstIdx: BigInt(first), lastIdx: BigInt(first + amount), quote })
  }

  // ---------------------------------------------------------------------------------------------------------
  // Virtual balances

  deposit(sender: Address, asset: Address, amount: bigint): void {
    this.whenNotPaused()
    this.pull(asset, sender, amount)
    set2(this.ctx.journal, this.balances, asset, sender, checkedAdd(this.balanceOf(asset, sender), amount))
    this.ctx.emit(this.address, { name: "Deposited", depositant: sender, asset, amount })
  }

  withdraw(sender: Address, asset: Address, amount: bigint): void {
    this.whenNotPaused()
    const available = this.balanceOf(asset, sender)
    if (available < amount) revert("ClearingSpoke_Withdraw_InsufficientBalance", amount, available)
    set2(this.ctx.journal, this.balances, asset, sender, available - amount)
    this.push(asset, sender, amount)
    this.ctx.emit(this.address, { name: "Withdrawn", withdrawer: sender, asset, amount })
  }

  // ---------------------------------------------------------------------------------------------------------
  // Messages from the hub

  /**
   * Hub messages: from the gateway while not paused, or from the owner at any time (reference §4.8).
   * `settlements` (when given) are what decoding the SETTLEMENT `message` gives: it is not decoded again.
   */
  receiveMessage(sender: Address, message: Hex, settlements?: readonly DecodedSettlement[]): void {
    if (sender !== this.owner) {
      if (sender !== this.gateway) revert("ClearingSpoke_ReceiveMessage_NotAuthorized", sender)
      if (this.paused) revert("ClearingSpoke_Paused")
    }
    const parsed: ParsedHubMessage = settlements !== undefined ? { type: "SETTLEMENT", settlements } : decodeSettlementMessage(message)
    switch (parsed.type) {
      case "SETTLEMENT":
        for (const settlement of parsed.settlements) {
          this.handleSettlement(settlement.intentId, settlement.amount, settlement.asset, settlement.recipient, settlement.updateVirtualBalance)
        }
        return
      case "VAR_UPDATE":
        if (parsed.variable === VARIABLE_HASHES.GATEWAY) this.updateGatewayTo(parsed.address())
        else if (parsed.variable === VARIABLE_HASHES.MAILBOX) this.world.gatewayAt(this.gateway).updateMailbox(this.address, parsed.address())
        else if (parsed.variable === VARIABLE_HASHES.LIGHTHOUSE) this.updateLighthouseTo(parsed.address())
        else if (parsed.variable === VARIABLE_HASHES.WATCHTOWER) this.updateWatchtowerTo(parsed.address())
        else revert("ClearingSpoke_InvalidVarUpdate", parsed.variable)
        return
      case "OTHER":
        revert("ClearingSpoke_ReceiveMessage_InvalidMessageType", parsed.messageType)
    }
  }

  executeIntentCalldata(intent: Intent): void {
    this.whenNotPaused()
    if (intent.destinations.length === 0 || intent.destinations[0] !== this.ctx.domain) revert("ClearingSpoke_WrongDestination")
    const intentId = this.encoder.intentId(intent)
    const current = this.status.get(intentId) ?? IntentStatus.NONE
    if (current !== IntentStatus.SETTLED) revert("ClearingSpoke_ExecuteIntentCalldata_InvalidStatus", current)
    this.ctx.journal.set(this.status, intentId, IntentStatus.SETTLED_AND_MANUALLY_EXECUTED)
    if (intent.data.length > 2) this.executeCalldata(intentId, intent.data)
    else this.ctx.emit(this.address, { name: "ExternalCalldataExecuted", intentId, returnData: "0x" })
  }

  // ---------------------------------------------------------------------------------------------------------
  // Roles and configuration

  pause(sender: Address): void {
    this.onlyPauser(sender)
    this.ctx.journal.field(this as MemoryClearingSpoke, "paused", true)
    this.ctx.emit(this.address, { name: "Paused" })
  }

  unpause(sender: Address): void {
    this.onlyPauser(sender)
    this.ctx.journal.field(this as MemoryClearingSpoke, "paused", false)
    this.ctx.emit(this.address, { name: "Unpaused" })
  }

  updateGateway(sender: Address, gateway: Address): void {
    this.onlyOwner(sender)
    this.updateGatewayTo(gateway)
  }

  updateLighthouse(sender: Address, lighthouse: Address): void {
    this.onlyOwner(sender)
    this.updateLighthouseTo(lighthouse)
  }

  updateWatchtower(sender: Address, watchtower: Address): void {
    this.onlyOwner(sender)
    this.updateWatchtowerTo(watchtower)
  }

  updateHubDomain(sender: Address, hubDomain: number): void {
    this.onlyOwner(sender)
    this.ctx.emit(this.address, { name: "HubDomainUpdated", previous: this.hubDomain, current: hubDomain })
    this.ctx.journal.field(this as MemoryClearingSpoke, "hubDomain", hubDomain)
  }

  setStrategyForAsset(sender: Address, asset: Address, strategy: Strategy): void {
    this.onlyOwner(sender)
    this.ctx.journal.set(this.strategies, asset, strategy)
    this.ctx.emit(this.address, { name: "StrategySetForAsset", asset, strategy })
  }

  setModuleForStrategy(sender: Address, strategy: Strategy, module: Address): void {
    this.onlyOwner(sender)
    this.ctx.journal.set(this.modules, strategy, module)
    this.ctx.emit(this.address, { name: "ModuleSetForStrategy", strategy, module })
  }

  private updateGatewayTo(gateway: Address): void {
    this.ctx.emit(this.address, { name: "GatewayUpdated", previous: this.gateway, current: gateway })
    this.ctx.journal.field(this as MemoryClearingSpoke, "gateway", gateway)
  }

  private updateLighthouseTo(lighthouse: Address): void {
    this.ctx.emit(this.address, { name: "LighthouseUpdated", previous: this.lighthouse, current: lighthouse })
    this.ctx.journal.field(this as MemoryClearingSpoke, "lighthouse", lighthouse)
  }

  private updateWatchtowerTo(watchtower: Address): void {
    this.ctx.emit(this.address, { name: "WatchtowerUpdated", previous: this.watchtower, current: watchtower })
    this.ctx.journal.field(this as MemoryClearingSpoke, "watchtower", watchtower)
  }

  // ---------------------------------------------------------------------------------------------------------
  // Internals

  private validateQueueAmount(first: number, last: number, amount: number): void {
    if (amount === 0) revert("ClearingSpoke_ProcessQueue_ZeroAmount")
    if (first + amount - 1 > last) revert("ClearingSpoke_ProcessQueue_InvalidAmount", BigInt(first), BigInt(last), BigInt(amount))
  }

  /** `message` as hex, or as bytes (the gateway's event makes the hex only if it is read). */
  private sendToHub(value: bigint, message: Hex | Uint8Array, intents?: SentIntents): { readonly messageId: Bytes32; readonly quote: bigint } {
    const gateway = this.world.gatewayAt(this.gateway)
    const destination = this.hubDomain
    const quote = gateway.quote(message)
    if (value < quote) revert("ClearingSpoke_ProcessQueue_InsufficientFee", value, quote)
    const messageId = gateway.sendMessage(this.address, value, destination, message, intents)
    return { messageId, quote }
  }

  private takeFunds(sender: Address, asset: Address, amount: bigint): void {
    if ((this.strategies.get(asset) ?? Strategy.DEFAULT) === Strategy.XERC20) {
      this.world.moduleAt(this.module(Strategy.XERC20)).handleBurnStrategy(this.address, asset, sender, amount)
    } else {
      this.pull(asset, sender, amount)
    }
  }

  private amountAfterFee(outputAsset: Address, amount: bigint, fee: number): bigint {
    if (outputAsset === ZERO_ADDRESS) return 0n
    const amountOut = normalizeChecked(amount, NORMALIZED_DECIMALS, this.decimals(outputAsset))
    // A fee above 100 % (a filled intent's maxFee is not bounded here) makes the checked subtraction underflow.
    const feeAmount = checkedMul(amountOut, BigInt(fee)) / DBPS_DENOMINATOR
    if (feeAmount > amountOut) throw new SpokeRevert("Panic", [PANIC_OVERFLOW])
    return amountOut - feeAmount
  }

  private handleSettlement(intentId: Bytes32, amount18: bigint, assetWord: Bytes32, recipientWord: Bytes32, updateVirtualBalance: boolean): void {
    const stored = this.status.get(intentId)
    if (stored === IntentStatus.SETTLED || stored === IntentStatus.SETTLED_AND_MANUALLY_EXECUTED) return
    this.ctx.journal.replace(this.status, intentId, stored, IntentStatus.SETTLED)
    const asset = this.addressOf(assetWord)
    const recipient = this.addressOf(recipientWord)
    const decimals = this.world.tryDecimals(asset) ?? NORMALIZED_DECIMALS
    const amount = normalizeChecked(amount18, NORMALIZED_DECIMALS, decimals)
    if (amount > 0n) {
      if ((this.strategies.get(asset) ?? Strategy.DEFAULT) === Strategy.XERC20) this.settleXERC20(asset, recipient, amount, updateVirtualBalance)
      else this.settleDefault(asset, recipient, amount, updateVirtualBalance)
    }
    this.ctx.emit(this.address, { name: "Settled", intentId, account: recipient, asset, amount })
  }

  private credit(asset: Address, account: Address, amount: bigint): void {
    set2(this.ctx.journal, this.balances, asset, account, checkedAdd(this.balanceOf(asset, account), amount))
  }

  private settleDefault(asset: Address, recipient: Address, amount: bigint, updateVirtualBalance: boolean): void {
    if (updateVirtualBalance) {
      this.credit(asset, recipient, amount)
      return
    }
    const result = this.world.tryTransfer(asset, this.address, recipient, amount)
    if (result !== true) {
      this.credit(asset, recipient, amount)
      this.ctx.emit(this.address, { name: "AssetTransferFailed", asset, recipient, amount })
    }
  }

  private settleXERC20(asset: Address, recipient: Address, amount: bigint, updateVirtualBalance: boolean): void {
    const mintRecipient = updateVirtualBalance ? this.address : recipient
    const success = this.world.moduleAt(this.module(Strategy.XERC20)).handleMintStrategy(this.address, asset, mintRecipient, recipient, amount)
    if (!success) this.ctx.emit(this.address, { name: "AssetMintFailed", asset, recipient, amount, strategy: Strategy.XERC20 })
    else if (updateVirtualBalance) this.credit(asset, recipient, amount)
  }

  private executeCalldata(intentId: Bytes32, data: Hex): void {
    const { target, callData } = decodeIntentCalldata(data)
    const result = this.world.callExternal(this.address, target, callData)
    if (!result.success) revert("ClearingSpoke_ExecuteIntentCalldata_ExternalCallFailed")
    const returnData = result.returnData.length > 2 + 2 * EXECUTE_COPY_BYTES ? (result.returnData.slice(0, 2 + 2 * EXECUTE_COPY_BYTES) as Hex) : result.returnData
    this.ctx.emit(this.address, { name: "ExternalCalldataExecuted", intentId, returnData })
  }

  private module(strategy: Strategy): Address {
    const module = this.modules.get(strategy) ?? ZERO_ADDRESS
    if (module === ZERO_ADDRESS) revert("ClearingSpoke_StrategyModuleNotSet", strategy)
    return module
  }

  private decimals(asset: Address): number {
    const decimals = this.world.tryDecimals(asset)
    if (decimals === undefined) revert("ClearingSpoke_DecimalsUnavailable", asset)
    return decimals!
  }

  private pull(asset: Address, from: Address, amount: bigint): void {
    const result = this.world.tryTransferFrom(asset, this.address, from, this.address, amount)
    if (result === true) return
    if (result instanceof SpokeRevert) throw result
    revert("ClearingSpoke_TransferFailed", asset, from, this.address, amount)
  }

  private push(asset: Address, to: Address, amount: bigint): void {
    const result = this.world.tryTransfer(asset, this.address, to, amount)
    if (result === true) return
    if (result instanceof SpokeRevert) throw result
    revert("ClearingSpoke_TransferFailed", asset, this.address, to, amount)
  }
}
