/**
 * One memory chain's contracts and execution state: the tokens, the spoke, gateway, fee adapter, xERC20 module and
 * optional call target at their anvil addresses, the journal, and the running call's events. `execute` runs one
 * `SpokeCall` as a transaction from `from`; the contracts call each other through the world, which also gives the
 * EVM's low-level rules: calls to an address without code, `TokenLib.tryCall`, native transfers.
 */
import { FillMessageAbi } from "../../domain/encoding.ts"
import type { Address, Hex } from "../../domain/hex.ts"
import type { Abi } from "viem"
import { decodeFunctionData, encodeAbiParameters, toFunctionSelector } from "viem/utils"
import { BlacklistERC20Abi, ClearingSpokeAbi, TestERC20Abi, XERC20TokenAbi } from "../abi.ts"
import type { TokenKind } from "../deploy.ts"
import { decodeSpokeCall, InvalidSpokeCallError, PAYABLE_CALLS, type SpokeCall, TOKEN_CALLS, validateSpokeCall } from "../calls.ts"
import type { SpokeEvent, SpokeEventBody } from "../events.ts"
import type { SpokeLayout } from "../layout.ts"
import { MemoryCallTarget } from "./callTarget.ts"
import { MemoryClearingSpoke } from "./clearingSpoke.ts"
import type { ExecutionContext } from "./context.ts"
import { MemoryFeeAdapter } from "./feeAdapter.ts"
import { MemoryGateway } from "./gateway.ts"
import { MemoryPermit2 } from "./permit2.ts"
import { Journal, revertEmpty, SpokeRevert } from "./journal.ts"
import { lc, lowerIntent, lowerParams, lowerPermit2Params } from "./lower.ts"
import { attachedSettlements } from "./messages.ts"
import { FeeSignatureCache } from "./signature.ts"
import { MemoryToken } from "./tokens.ts"
import { MemoryXERC20Module } from "./xerc20Module.ts"

/** Intent calldata aimed at a contract the memory backend does not model. */
export class UnsupportedMemoryCallError extends Error {
  override readonly name = "UnsupportedMemoryCallError"
  readonly target: Address
  readonly selector: string
  constructor(target: Address, selector: string) {
    super(`The memory backend cannot execute selector ${selector} on ${target}: only tokens, the test call target (which may forward a spoke fillIntent) and addresses without code are modelled as calldata targets.`)
    this.target = target
    this.selector = selector
  }
}

export interface Checkpoint {
  readonly journal: number
  readonly events: number
}

const SELECTOR = {
  transfer: "0xa9059cbb",
  approve: "0x095ea7b3",
  transferFrom: "0x23b872dd",
  balanceOf: "0x70a08231",
  allowance: "0xdd62ed3e",
  totalSupply: "0x18160ddd",
  decimals: "0x313ce567",
} as const

/** The selectors of each test token contract's functions (its own and inherited), lowercase. */
const selectorsOf = (abi: Abi): ReadonlySet<string> =>
  new Set(abi.flatMap((item) => (item.type === "function" ? [toFunctionSelector(item).toLowerCase()] : [])))
const TOKEN_SELECTORS: Record<TokenKind, ReadonlySet<string>> = {
  erc20: selectorsOf(TestERC20Abi),
  blacklist: selectorsOf(BlacklistERC20Abi),
  xerc20: selectorsOf(XERC20TokenAbi),
}

/** Calldata arguments with the checks of Solidity's dispatcher (short calldata or a dirty address reverts). */
class Args {
  private readonly data: Hex
  constructor(data: Hex) {
    this.data = data
  }
  private word(i: number): string {
    const start = 10 + 64 * i
    if (this.data.length < start + 64) return revertEmpty()
    return this.data.slice(start, start + 64)
  }
  uint(i: number): bigint {
    return BigInt(`0x${this.word(i)}`)
  }
  address(i: number): Address {
    const word = this.word(i)
    if (!word.startsWith("000000000000000000000000")) return revertEmpty()
    return `0x${word.slice(24)}`
  }
}


const uintWord = (value: bigint | number): Hex => `0x${value.toString(16).padStart(64, "0")}`

export class MemoryWorld implements ExecutionContext {
  readonly journal = new Journal()
  readonly tokens = new Map<Address, MemoryToken>()
  readonly signatures = new FeeSignatureCache()
  /** Addresses with code: every contract of the domain. */
  readonly code = new Set<Address>()
  readonly spoke: MemoryClearingSpoke
  readonly gateway: MemoryGateway
  readonly feeAdapter: MemoryFeeAdapter
  readonly module: MemoryXERC20Module
  readonly permit2: MemoryPermit2
  readonly callTarget: MemoryCallTarget | undefined
  private readonly addresses: SpokeLayout["addresses"]
  readonly domain: number
  now: number
  blockNumber: bigint
  txIndex = 0
  /** Log index of the running call's first event. */
  logBase = 0
  callEvents: SpokeEvent[] = []
  /** `tx.origin` of the running call: its sender (every call is a transaction of its own). */
  txOrigin: Address = "0x0000000000000000000000000000000000000000"
  /**
   * Native (ETH) balance changes since deployment, by address, made by the calls' values: what senders paid, what
   * the fee adapter forwarded, what the gateway keeps and refunds. Gas is not modelled (anvil's is 0 in the
   * differential test), nor are the accounts' genesis balances.
   */
  readonly native = new Map<Address, bigint>()

  readonly layout: SpokeLayout
  constructor(layout: SpokeLayout, genesisTimestamp: number) {
    this.layout = layout
    const { addresses } = layout
    this.addresses = addresses
    this.domain = layout.domain
    this.now = genesisTimestamp
    this.blockNumber = BigInt(layout.deploymentBlocks)
    for (const token of Object.values(addresses.tokens)) {
      this.tokens.set(token.address, new MemoryToken(token.address, token.symbol, token.decimals, token.kind, layout.deployer))
    }
    this.gateway = new MemoryGateway(this, addresses.gateway, {
      owner: layout.deployer,
      spoke: addresses.spoke,
      relayer: layout.relayer,
      hubDomain: layout.hubDomain,
      fees: layout.gatewayFees,
    })
    this.module = new MemoryXERC20Module(this, addresses.xerc20Module, addresses.spoke)
    this.spoke = new MemoryClearingSpoke(this, addresses.spoke, {
      owner: layout.deployer,
      hubDomain: layout.hubDomain,
      gateway: addresses.gateway,
      lighthouse: layout.lighthouse,
      watchtower: layout.watchtower,
      xerc20Module: addresses.xerc20Module,
    })
    this.feeAdapter = new MemoryFeeAdapter(this, addresses.feeAdapter, addresses.spoke, addresses.xerc20Module, {
      owner: layout.deployer,
      feeRecipient: layout.feeRecipient,
      feeSigner: layout.feeSigner,
    })
    this.permit2 = new MemoryPermit2(this, addresses.permit2)
    this.code.add(addresses.permit2)
    this.callTarget = addresses.callTarget === undefined ? undefined : new MemoryCallTarget(this, addresses.callTarget)
    for (const address of [addresses.gateway, addresses.xerc20Module, addresses.spoke, addresses.feeAdapter, ...this.tokens.keys()]) {
      this.code.add(address)
    }
    if (addresses.callTarget !== undefined) this.code.add(addresses.callTarget)
    this.deploy()
  }

  /** The wiring and funding transactions of `deploySpoke`; their events are not part of any mined block. */
  private deploy(): void {
    const { layout } = this
    for (const token of Object.values(layout.addresses.tokens)) {
      if (token.kind !== "xerc20") continue
      this.spoke.setStrategyForAsset(layout.deployer, token.address, token.strategy)
      this.tokens.get(token.address)!.setLimits(this, layout.deployer, layout.addresses.xerc20Module, token.mintingLimit, token.burningLimit)
    }
    for (const account of layout.funding?.accounts ?? []) {
      for (const token of Object.values(layout.addresses.tokens)) {
        this.tokens.get(token.address)!.ownerMint(this, layout.deployer, account, layout.funding!.amount * 10n ** BigInt(token.decimals))
      }
    }
    this.journal.commit()
    this.callEvents = []
  }

  get ctx(): ExecutionContext {
    return this
  }

  emit(address: Address, body: SpokeEventBody): void {
    const event = body as SpokeEventBody & { address: Address; blockNumber: bigint; logIndex: number; txIndex: number }
    event.address = address
    event.blockNumber = this.blockNumber
    event.logIndex = this.logBase + this.callEvents.length
    event.txIndex = this.txIndex
    this.callEvents.push(event)
  }

  checkpoint(): Checkpoint {
    return { journal: this.journal.mark(), events: this.callEvents.length }
  }

  restore(checkpoint: Checkpoint): void {
    this.journal.rollback(checkpoint.journal)
    this.callEvents.length = checkpoint.events
  }

  // ---------------------------------------------------------------------------------------------------------
  // Low-level calls

  /**
   * `TokenLib.tryCall`: `true` when the token call succeeded; `false` when it returned false, the address has no
   * code, or it reverted without data; the revert when it reverted with data (callers bubble it up).
   */
  tryTokenCall(asset: Address, call: (token: MemoryToken) => boolean): true | false | SpokeRevert {
    const token = this.tokens.get(asset)
    if (token === undefined) return false
    const journalMark = this.journal.mark()
    const eventsMark = this.callEvents.length
    try {
      if (call(token)) return true
    } catch (error) {
      return this.tokenCallFailed(error, journalMark, eventsMark)
    }
    return this.tokenCallFailed(undefined, journalMark, eventsMark)
  }

  // `tryTokenCall` of the two calls made for every intent, without a closure per call.

  /** `tryTokenCall(asset, (token) => token.transfer(this, sender, to, amount))`. */
  tryTransfer(asset: Address, sender: Address, to: Address, amount: bigint): true | false | SpokeRevert {
    const token = this.tokens.get(asset)
    if (token === undefined) return false
    const journalMark = this.journal.mark()
    const eventsMark = this.callEvents.length
    try {
      if (token.transfer(this, sender, to, amount)) return true
    } catch (error) {
      return this.tokenCallFailed(error, journalMark, eventsMark)
    }
    return this.tokenCallFailed(undefined, journalMark, eventsMark)
  }

  /** `tryTokenCall(asset, (token) => token.transferFrom(this, sender, from, to, amount))`. */
  tryTransferFrom(asset: Address, sender: Address, from: Address, to: Address, amount: bigint): true | false | SpokeRevert {
    const token = this.tokens.get(asset)
    if (token === undefined) return false
    const journalMark = this.journal.mark()
    const eventsMark = this.callEvents.length
    try {
      if (token.transferFrom(this, sender, from, to, amount)) return true
    } catch (error) {
      return this.tokenCallFailed(error, journalMark, eventsMark)
    }
    return this.tokenCallFailed(undefined, journalMark, eventsMark)
  }

  /**
   * A token call returned false (`error` undefined) or threw `error`: undoes its writes and events, and gives what
   * `tryTokenCall` returns; rethrows anything but a revert.
   */
  private tokenCallFailed(error: unknown, journalMark: number, eventsMark: number): false | SpokeRevert {
    if (error !== undefined && !(error instanceof SpokeRevert)) throw error
    this.journal.rollback(journalMark)
    this.callEvents.length = eventsMark
    return error !== undefined && error.hasData ? error : false
  }

  /** `TokenLib.tryDecimals`. */
  tryDecimals(asset: Address): number | undefined {
    return this.tokens.get(asset)?.decimals
  }

  /**
   * A plain value transfer from contract `from` (`to.call{value: amount}("")`): accounts without code accept it;
   * none of the contracts has a receive function. False (and nothing moves) when refused.
   */
  sendNative(from: Address, to: Address, amount: bigint): boolean {
    if (this.code.has(to)) return false
    this.moveNative(from, to, amount)
    return true
  }

  /** Moves `amount` wei from `from` to `to` in the native ledger (journaled). */
  moveNative(from: Address, to: Address, amount: bigint): void {
    if (amount === 0n || from === to) return
    this.journal.set(this.native, from, this.nativeOf(from) - amount)
    this.journal.set(this.native, to, this.nativeOf(to) + amount)
  }

  /** The native balance change of `address` since deployment (wei; negative for a payer). */
  nativeOf(address: Address): bigint {
    return this.native.get(address) ?? 0n
  }

  /** High-level calls revert without data when the address is not the expected contract. */
  spokeAt(address: Address): MemoryClearingSpoke {
    return address === this.spoke.address ? this.spoke : revertEmpty()
  }

  gatewayAt(address: Address): MemoryGateway {
    return address === this.gateway.address ? this.gateway : revertEmpty()
  }

  moduleAt(address: Address): MemoryXERC20Module {
    return address === this.module.address ? this.module : revertEmpty()
  }

  /** A low-level `call(target, callData)` from `sender` (intent calldata execution). */
  callExternal(sender: Address, target: Address, callData: Hex): { readonly success: boolean; readonly returnData: Hex } {
    if (!this.code.has(target)) return { success: true, returnData: "0x" }
    const mark = this.checkpoint()
    try {
      const returnData = this.dispatchExternal(sender, target, callData)
      return { success: true, returnData }
    } catch (error) {
      if (!(error instanceof SpokeRevert)) throw error
      this.restore(mark)
      return { success: false, returnData: "0x" }
    }
  }

  private dispatchExternal(sender: Address, target: Address, callData: Hex): Hex {
    const selector = callData.slice(0, 10)
    const args = new Args(callData)
    if (this.callTarget !== undefined && target === this.callTarget.address) return this.callTarget.call(sender, selector, args, callData)
    if (target === this.spoke.address) return this.callSpoke(sender, callData)
    const token = this.tokens.get(target)
    if (token === undefined) throw new UnsupportedMemoryCallError(target, selector)
    switch (selector) {
      case SELECTOR.transfer:
        return uintWord(token.transfer(this, sender, args.address(0), args.uint(1)) ? 1 : 0)
      case SELECTOR.approve:
        return uintWord(token.approve(this, sender, args.address(0), args.uint(1)) ? 1 : 0)
      case SELECTOR.transferFrom:
        return uintWord(token.transferFrom(this, sender, args.address(0), args.address(1), args.uint(2)) ? 1 : 0)
      case SELECTOR.balanceOf:
        return uintWord(token.balanceOf(args.address(0)))
      case SELECTOR.allowance:
        return uintWord(token.allowance(args.address(0), args.address(1)))
      case SELECTOR.totalSupply:
        return uintWord(token.totalSupply)
      case SELECTOR.decimals:
        return uintWord(token.decimals)
      default:
        // Calldata that names no function of the token (or is under 4 bytes) meets no fallback: the call reverts.
        // A function the token has but the twin does not model is an error, not a silent revert.
        if (callData.length < 10 || !TOKEN_SELECTORS[token.kind].has(selector)) return revertEmpty()
        throw new UnsupportedMemoryCallError(target, selector)
    }
  }

  /**
   * A contract's call into the spoke (intent calldata forwarded by the test call target): `fillIntent`, which
   * returns its FillMessage ABI-encoded as the contract does. Calldata that is not a spoke function reverts.
   */
  private callSpoke(sender: Address, callData: Hex): Hex {
    // Calldata that is no spoke function (or does not decode as its arguments) reverts, as on the EVM; a spoke
    // function other than fillIntent (a getter, say) is not modelled here: an error, not a silent revert.
    let functionName: string
    try {
      functionName = decodeFunctionData({ abi: ClearingSpokeAbi, data: callData }).functionName
    } catch {
      return revertEmpty()
    }
    const call = functionName === "fillIntent" ? decodeSpokeCall(this.addresses, this.spoke.address, callData) : undefined
    if (call?.kind !== "spoke.fillIntent") throw new UnsupportedMemoryCallError(this.spoke.address, callData.slice(0, 10))
    // viem gives a uintN word with bits above N as the larger number; Solidity's decoder reverts on it.
    try {
      validateSpokeCall(call)
    } catch (error) {
      if (error instanceof InvalidSpokeCallError) return revertEmpty()
      throw error
    }
    const m = this.spoke.fillIntent(sender, lowerIntent(call.intent), call.fee)
    return encodeAbiParameters([FillMessageAbi], [m]) // fillIntent's return value
  }

  // ---------------------------------------------------------------------------------------------------------
  // Transactions

  /**
   * Runs one call as a transaction from `from`, lowercase (`MemorySpokeChain.submit` lowercases senders); throws
   * `SpokeRevert` when it reverts, and the caller rolls back.
   */
  execute(from: Address, value: bigint, call: SpokeCall): void {
    // A contract's function that is not payable refuses value; an address without code takes it (a token call to
    // one moves the wei and does nothing else).
    if (value !== 0n && !PAYABLE_CALLS.has(call.kind)) {
      const target = TOKEN_CALLS.has(call.kind) ? lc((call as { readonly token: Address }).token) : undefined
      if (target === undefined || this.code.has(target)) return revertEmpty()
      this.moveNative(from, target, value)
      return
    }
    const sender = from
    this.txOrigin = sender
    if (value !== 0n) this.moveNative(sender, call.kind.startsWith("feeAdapter.") ? this.feeAdapter.address : this.spoke.address, value)
    switch (call.kind) {
      case "feeAdapter.newIntent":
        this.feeAdapter.newIntent(sender, value, lowerParams(call), call.feeParams)
        return
      case "feeAdapter.newOrder":
        this.feeAdapter.newOrder(sender, value, call.fee, call.deadline, call.sig, call.params.map(lowerParams))
        return
      case "feeAdapter.returnUnsupportedIntent":
        return this.feeAdapter.returnUnsupportedIntent(sender, lc(call.asset), call.amount, lc(call.recipient))
      case "feeAdapter.updateFeeRecipient":
        return this.feeAdapter.updateFeeRecipient(sender, lc(call.feeRecipient))
      case "feeAdapter.updateFeeSigner":
        return this.feeAdapter.updateFeeSigner(sender, lc(call.feeSigner))
      case "spoke.newIntent":
        this.spoke.newIntent(sender, lowerParams(call))
        return
      case "spoke.newIntentPermit2":
        this.spoke.newIntent(sender, lowerParams(call), lowerPermit2Params(call.permit2Params))
        return
      case "feeAdapter.newIntentPermit2":
        this.feeAdapter.newIntentPermit2(sender, value, lowerParams(call), lowerPermit2Params(call.permit2Params), call.feeParams)
        return
      case "permit2.permitTransferFrom":
        return this.permit2.permitTransferFrom(
          sender,
          { token: lc(call.token), amount: call.amount, nonce: call.nonce, deadline: call.deadline },
          lc(call.to),
          call.requestedAmount,
          lc(call.owner),
          lc(call.signature),
        )
      case "permit2.invalidateUnorderedNonces":
        return this.permit2.invalidateUnorderedNonces(sender, call.wordPos, call.mask)
      case "spoke.processIntentQueue":
        // The spoke lowercases the intents that are not the ones it stored (those already are).
        return this.spoke.processIntentQueue(value, call.intents)
      case "spoke.fillIntent":
        this.spoke.fillIntent(sender, lowerIntent(call.intent), call.fee)
        return
      case "spoke.processFillQueue":
        return this.spoke.processFillQueue(value, call.amount)
      case "spoke.deposit":
        return this.spoke.deposit(sender, lc(call.asset), call.amount)
      case "spoke.withdraw":
        return this.spoke.withdraw(sender, lc(call.asset), call.amount)
      case "spoke.executeIntentCalldata":
        return this.spoke.executeIntentCalldata(lowerIntent(call.intent))
      case "spoke.pause":
        return this.spoke.pause(sender)
      case "spoke.unpause":
        return this.spoke.unpause(sender)
      case "spoke.updateGateway":
        return this.spoke.updateGateway(sender, lc(call.gateway))
      case "spoke.updateLighthouse":
        return this.spoke.updateLighthouse(sender, lc(call.lighthouse))
      case "spoke.updateWatchtower":
        return this.spoke.updateWatchtower(sender, lc(call.watchtower))
      case "spoke.updateHubDomain":
        return this.spoke.updateHubDomain(sender, call.hubDomain)
      case "spoke.setStrategyForAsset":
        return this.spoke.setStrategyForAsset(sender, lc(call.asset), call.strategy)
      case "spoke.setModuleForStrategy":
        return this.spoke.setModuleForStrategy(sender, call.strategy, lc(call.module))
      // With settlements attached, the message's bytes are never read: no lowercase copy of a long hex string.
      case "spoke.receiveMessage": {
        const settlements = attachedSettlements(call)
        return this.spoke.receiveMessage(sender, settlements === undefined ? lc(call.message) : call.message, settlements)
      }
      case "gateway.receiveMessage": {
        const settlements = attachedSettlements(call)
        return this.gateway.receiveMessage(sender, call.origin, lc(call.messageId), settlements === undefined ? lc(call.message) : call.message, settlements)
      }
      case "gateway.setFees":
        return this.gateway.setFees(sender, call.baseFee, call.feePerByte)
      case "gateway.updateRelayer":
        return this.gateway.updateRelayer(sender, lc(call.relayer))
      case "xerc20Module.mintDebt":
        return this.module.mintDebt(lc(call.asset), lc(call.recipient), call.amount)
      default:
        return this.executeTokenCall(sender, call)
    }
  }

  private executeTokenCall(sender: Address, call: SpokeCall): void {
    const address = lc((call as { readonly token: Address }).token)
    const token = this.tokens.get(address)
    // A transaction to an address without code succeeds and does nothing; another contract has no such function.
    if (token === undefined) {
      if (this.code.has(address)) revertEmpty()
      return
    }
    switch (call.kind) {
      case "erc20.approve":
        token.approve(this, sender, lc(call.spender), call.amount)
        return
      case "erc20.transfer":
        token.transfer(this, sender, lc(call.to), call.amount)
        return
      case "erc20.transferFrom":
        token.transferFrom(this, sender, lc(call.from), lc(call.to), call.amount)
        return
      case "erc20.mint":
        return token.ownerMint(this, sender, lc(call.to), call.amount)
      case "xerc20.setLimits":
        if (token.kind !== "xerc20") revertEmpty()
        return token.setLimits(this, sender, lc(call.bridge), call.mintingLimit, call.burningLimit)
      case "blacklist.setBlacklisted":
        if (token.kind !== "blacklist") revertEmpty()
        return token.setBlacklisted(this, sender, lc(call.account), call.blacklisted)
      case "blacklist.setRevertOnBlacklisted":
        if (token.kind !== "blacklist") revertEmpty()
        return token.setRevertOnBlacklisted(this, sender, call.revert)
      default:
        throw new Error(`internal: ${call.kind} is not a token call`)
    }
  }
}

