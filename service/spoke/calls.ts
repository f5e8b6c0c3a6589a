/**
 * Typed spoke calls: one `SpokeCall` value per contract function the simulator, the API and the agents use. Both
 * backends share them: the memory backend executes them directly, the anvil backend encodes them to calldata
 * (`encodeSpokeCall`). `decodeSpokeCall` turns calldata back into a `SpokeCall`, so a raw transaction request
 * (as the HTTP API builds it) runs on either backend.
 *
 * Addresses may be given in any case; words and data come back lowercase from `decodeSpokeCall`.
 */
import type { Abi } from "viem"
import { decodeFunctionData, encodeFunctionData } from "viem/utils"
import type { Address, Bytes32, Hex } from "../domain/hex.ts"
import { type Intent, MAX_UINT256, type Strategy } from "../domain/protocol.ts"
import {
  BlacklistERC20Abi,
  ClearingSpokeAbi,
  FeeAdapterAbi,
  Permit2Abi,
  SpokeGatewayAbi,
  TestERC20Abi,
  XERC20ModuleAbi,
  XERC20TokenAbi,
} from "./abi.ts"
import { type SpokeAddresses, tokenAt } from "./layout.ts"
import type { Permit2Params } from "./permit2.ts"

export type { Permit2Params }

/** The arguments of `newIntent` (spoke and fee adapter) and of one order entry. `amount` in input-token units. */
export interface NewIntentParams {
  readonly destinations: readonly number[]
  readonly receiver: Address
  readonly inputAsset: Address
  readonly outputAsset: Address
  readonly amount: bigint
  /** dbps (uint24). */
  readonly maxFee: number
  /** Seconds (uint48); 0 = netting only. */
  readonly ttl: number
  /** `abi.encode(address target, bytes callData)` or `0x`. */
  readonly data: Hex
}

/** The fee signer's signed fee: `fee` in input-token units, valid until `deadline` (seconds). */
export interface FeeParams {
  readonly fee: bigint
  readonly deadline: bigint
  /** 65-byte EIP-191 signature over `keccak256(abi.encode(fee, msg.value, inputAsset, deadline))`. */
  readonly sig: Hex
}

/** `Permit2.permitTransferFrom(permit, transferDetails, owner, signature)`, flattened. */
export interface PermitTransferFromParams {
  /** `permit.permitted.token`. */
  readonly token: Address
  /** `permit.permitted.amount`: the most the signature allows. */
  readonly amount: bigint
  readonly nonce: bigint
  readonly deadline: bigint
  /** `transferDetails.to`. */
  readonly to: Address
  /** `transferDetails.requestedAmount`. */
  readonly requestedAmount: bigint
  readonly owner: Address
  readonly signature: Hex
}

export type SpokeCall =
  // FeeAdapter
  | ({ readonly kind: "feeAdapter.newIntent"; readonly feeParams: FeeParams } & NewIntentParams)
  /** `FeeAdapter.newIntent(..., permit2Params, feeParams)`: `amount + fee` pulled through Permit2. */
  | ({ readonly kind: "feeAdapter.newIntentPermit2"; readonly permit2Params: Permit2Params; readonly feeParams: FeeParams } & NewIntentParams)
  | {
      readonly kind: "feeAdapter.newOrder"
      readonly fee: bigint
      readonly deadline: bigint
      readonly sig: Hex
      readonly params: readonly NewIntentParams[]
    }
  | { readonly kind: "feeAdapter.returnUnsupportedIntent"; readonly asset: Address; readonly amount: bigint; readonly recipient: Address }
  | { readonly kind: "feeAdapter.updateFeeRecipient"; readonly feeRecipient: Address }
  | { readonly kind: "feeAdapter.updateFeeSigner"; readonly feeSigner: Address }
  // ClearingSpoke
  | ({ readonly kind: "spoke.newIntent" } & NewIntentParams)
  /** `ClearingSpoke.newIntent(..., permit2Params)`: `amount` pulled through Permit2. */
  | ({ readonly kind: "spoke.newIntentPermit2"; readonly permit2Params: Permit2Params } & NewIntentParams)
  | { readonly kind: "spoke.processIntentQueue"; readonly intents: readonly Intent[] }
  | { readonly kind: "spoke.fillIntent"; readonly intent: Intent; readonly fee: number }
  | { readonly kind: "spoke.processFillQueue"; readonly amount: number }
  | { readonly kind: "spoke.deposit"; readonly asset: Address; readonly amount: bigint }
  | { readonly kind: "spoke.withdraw"; readonly asset: Address; readonly amount: bigint }
  | { readonly kind: "spoke.executeIntentCalldata"; readonly intent: Intent }
  | { readonly kind: "spoke.pause" }
  | { readonly kind: "spoke.unpause" }
  | { readonly kind: "spoke.updateGateway"; readonly gateway: Address }
  | { readonly kind: "spoke.updateLighthouse"; readonly lighthouse: Address }
  | { readonly kind: "spoke.updateWatchtower"; readonly watchtower: Address }
  | { readonly kind: "spoke.updateHubDomain"; readonly hubDomain: number }
  | { readonly kind: "spoke.setStrategyForAsset"; readonly asset: Address; readonly strategy: Strategy }
  | { readonly kind: "spoke.setModuleForStrategy"; readonly strategy: Strategy; readonly module: Address }
  /** A hub message handed to the spoke directly (the owner may, paused or not; the gateway calls it otherwise). */
  | { readonly kind: "spoke.receiveMessage"; readonly message: Hex }
  // SpokeGateway
  | { readonly kind: "gateway.receiveMessage"; readonly origin: number; readonly messageId: Bytes32; readonly message: Hex }
  | { readonly kind: "gateway.setFees"; readonly baseFee: bigint; readonly feePerByte: bigint }
  | { readonly kind: "gateway.updateRelayer"; readonly relayer: Address }
  // Permit2
  | ({ readonly kind: "permit2.permitTransferFrom" } & PermitTransferFromParams)
  | { readonly kind: "permit2.invalidateUnorderedNonces"; readonly wordPos: bigint; readonly mask: bigint }
  // XERC20Module
  | { readonly kind: "xerc20Module.mintDebt"; readonly asset: Address; readonly recipient: Address; readonly amount: bigint }
  // Tokens
  | { readonly kind: "erc20.approve"; readonly token: Address; readonly spender: Address; readonly amount: bigint }
  | { readonly kind: "erc20.transfer"; readonly token: Address; readonly to: Address; readonly amount: bigint }
  | {
      readonly kind: "erc20.transferFrom"
      readonly token: Address
      readonly from: Address
      readonly to: Address
      readonly amount: bigint
    }
  /** Owner-only test mint: `mint` on TestERC20/BlacklistERC20, `ownerMint` on XERC20Token. */
  | { readonly kind: "erc20.mint"; readonly token: Address; readonly to: Address; readonly amount: bigint }
  | {
      readonly kind: "xerc20.setLimits"
      readonly token: Address
      readonly bridge: Address
      readonly mintingLimit: bigint
      readonly burningLimit: bigint
    }
  | { readonly kind: "blacklist.setBlacklisted"; readonly token: Address; readonly account: Address; readonly blacklisted: boolean }
  | { readonly kind: "blacklist.setRevertOnBlacklisted"; readonly token: Address; readonly revert: boolean }

export type SpokeCallKind = SpokeCall["kind"]

/** Calls whose function is `payable`; every other call reverts when sent with value. */
export const PAYABLE_CALLS: ReadonlySet<SpokeCallKind> = new Set<SpokeCallKind>([
  "feeAdapter.newIntent",
  "feeAdapter.newIntentPermit2",
  "feeAdapter.newOrder",
  "spoke.processIntentQueue",
  "spoke.processFillQueue",
])

/** Calls sent to their `token` (ERC-20, xERC20 and blacklist functions); Permit2's transfer names a token but goes to Permit2. */
export const TOKEN_CALLS: ReadonlySet<SpokeCallKind> = new Set<SpokeCallKind>([
  "erc20.approve",
  "erc20.transfer",
  "erc20.transferFrom",
  "erc20.mint",
  "xerc20.setLimits",
  "blacklist.setBlacklisted",
  "blacklist.setRevertOnBlacklisted",
])

// ---------------------------------------------------------------------------------------------------------
// Builders (defaults: no calldata, netting intent, maxFee 0).

type IntentInput = Omit<NewIntentParams, "data" | "maxFee" | "ttl"> & Partial<Pick<NewIntentParams, "data" | "maxFee" | "ttl">>
const intentParams = (p: IntentInput): NewIntentParams => ({
  destinations: p.destinations,
  receiver: p.receiver,
  inputAsset: p.inputAsset,
  outputAsset: p.outputAsset,
  amount: p.amount,
  maxFee: p.maxFee ?? 0,
  ttl: p.ttl ?? 0,
  data: p.data ?? "0x",
})

/** Builders of `SpokeCall` values, grouped by contract: `Call.feeAdapter.newIntent({...})`. */
export const Call = {
  feeAdapter: {
    newIntent: (p: IntentInput & { readonly feeParams: FeeParams }): SpokeCall => ({
      kind: "feeAdapter.newIntent",
      ...intentParams(p),
      feeParams: p.feeParams,
    }),
    newIntentPermit2: (p: IntentInput & { readonly permit2Params: Permit2Params; readonly feeParams: FeeParams }): SpokeCall => ({
      kind: "feeAdapter.newIntentPermit2",
      ...intentParams(p),
      permit2Params: p.permit2Params,
      feeParams: p.feeParams,
    }),
    newOrder: (fee: FeeParams, params: readonly IntentInput[]): SpokeCall => ({
      kind: "feeAdapter.newOrder",
      fee: fee.fee,
      deadline: fee.deadline,
      sig: fee.sig,
      params: params.map(intentParams),
    }),
    returnUnsupportedIntent: (asset: Address, amount: bigint, recipient: Address): SpokeCall => ({
      kind: "feeAdapter.returnUnsupportedIntent",
      asset,
      amount,
      recipient,
    }),
    updateFeeRecipient: (feeRecipient: Address): SpokeCall => ({ kind: "feeAdapter.updateFeeRecipient", feeRecipient }),
    updateFeeSigner: (feeSigner: Address): SpokeCall => ({ kind: "feeAdapter.updateFeeSigner", feeSigner }),
  },
  spoke: {
    newIntent: (p: IntentInput): SpokeCall => ({ kind: "spoke.newIntent", ...intentParams(p) }),
    newIntentPermit2: (p: IntentInput & { readonly permit2Params: Permit2Params }): SpokeCall => ({
      kind: "spoke.newIntentPermit2",
      ...intentParams(p),
      permit2Params: p.permit2Params,
    }),
    processIntentQueue: (intents: readonly Intent[]): SpokeCall => ({ kind: "spoke.processIntentQueue", intents }),
    fillIntent: (intent: Intent, fee: number): SpokeCall => ({ kind: "spoke.fillIntent", intent, fee }),
    processFillQueue: (amount: number): SpokeCall => ({ kind: "spoke.processFillQueue", amount }),
    deposit: (asset: Address, amount: bigint): SpokeCall => ({ kind: "spoke.deposit", asset, amount }),
    withdraw: (asset: Address, amount: bigint): SpokeCall => ({ kind: "spoke.withdraw", asset, amount }),
    executeIntentCalldata: (intent: Intent): SpokeCall => ({ kind: "spoke.executeIntentCalldata", intent }),
    pause: (): SpokeCall => ({ kind: "spoke.pause" }),
    unpause: (): SpokeCall => ({ kind: "spoke.unpause" }),
    updateGateway: (gateway: Address): SpokeCall => ({ kind: "spoke.updateGateway", gateway }),
    updateLighthouse: (lighthouse: Address): SpokeCall => ({ kind: "spoke.updateLighthouse", lighthouse }),
    updateWatchtower: (watchtower: Address): SpokeCall => ({ kind: "spoke.updateWatchtower", watchtower }),
    updateHubDomain: (hubDomain: number): SpokeCall => ({ kind: "spoke.updateHubDomain", hubDomain }),
    setStrategyForAsset: (asset: Address, strategy: Strategy): SpokeCall => ({ kind: "spoke.setStrategyForAsset", asset, strategy }),
    setModuleForStrategy: (strategy: Strategy, module: Address): SpokeCall => ({ kind: "spoke.setModuleForStrategy", strategy, module }),
    receiveMessage: (message: Hex): SpokeCall => ({ kind: "spoke.receiveMessage", message }),
  },
  gateway: {
    receiveMessage: (origin: number, messageId: Bytes32, message: Hex): SpokeCall => ({
      kind: "gateway.receiveMessage",
      origin,
      messageId,
      message,
    }),
    setFees: (baseFee: bigint, feePerByte: bigint): SpokeCall => ({ kind: "gateway.setFees", baseFee, feePerByte }),
    updateRelayer: (relayer: Address): SpokeCall => ({ kind: "gateway.updateRelayer", relayer }),
  },
  permit2: {
    permitTransferFrom: (p: PermitTransferFromParams): SpokeCall => ({ kind: "permit2.permitTransferFrom", ...p }),
    invalidateUnorderedNonces: (wordPos: bigint, mask: bigint): SpokeCall => ({ kind: "permit2.invalidateUnorderedNonces", wordPos, mask }),
  },
  xerc20Module: {
    mintDebt: (asset: Address, recipient: Address, amount: bigint): SpokeCall => ({ kind: "xerc20Module.mintDebt", asset, recipient, amount }),
  },
  erc20: {
    approve: (token: Address, spender: Address, amount: bigint): SpokeCall => ({ kind: "erc20.approve", token, spender, amount }),
    transfer: (token: Address, to: Address, amount: bigint): SpokeCall => ({ kind: "erc20.transfer", token, to, amount }),
    transferFrom: (token: Address, from: Address, to: Address, amount: bigint): SpokeCall => ({
      kind: "erc20.transferFrom",
      token,
      from,
      to,
      amount,
    }),
    mint: (token: Address, to: Address, amount: bigint): SpokeCall => ({ kind: "erc20.mint", token, to, amount }),
  },
  xerc20: {
    setLimits: (token: Address, bridge: Address, mintingLimit: bigint, burningLimit: bigint): SpokeCall => ({
      kind: "xerc20.setLimits",
      token,
      bridge,
      mintingLimit,
      burningLimit,
    }),
  },
  blacklist: {
    setBlacklisted: (token: Address, account: Address, blacklisted: boolean): SpokeCall => ({
      kind: "blacklist.setBlacklisted",
      token,
      account,
      blacklisted,
    }),
    setRevertOnBlacklisted: (token: Address, revert: boolean): SpokeCall => ({ kind: "blacklist.setRevertOnBlacklisted", token, revert }),
  },
} as const

// ---------------------------------------------------------------------------------------------------------
// Validation: what viem would refuse to encode. Both backends check it at `submit`, so a malformed call fails
// the same way (synchronously, before anything is queued) on either.

/** A call that cannot be encoded (an argument out of its ABI type's range, a malformed address or hex). */
export class InvalidSpokeCallError extends Error {
  override readonly name = "InvalidSpokeCallError"
  readonly kind: string
  readonly field: string
  readonly reason: string
  constructor(kind: string, field: string, reason: string) {
    super(`${kind}: argument \`${field}\` ${reason}.`)
    this.kind = kind
    this.field = field
    this.reason = reason
  }
}

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/
const WORD_RE = /^0x[0-9a-fA-F]{64}$/
const HEX_RE = /^0x([0-9a-fA-F]{2})*$/

/**
 * A uint field: up to 48 bits a JS number (the types say so, and the memory twin compares them as numbers: a bigint
 * `ttl` of 0n is not 0 there), above that a bigint or a safe integer number.
 */
const checkUint = (kind: string, field: string, value: number | bigint, bits: number): void => {
  if (bits <= 48 && typeof value !== "number") throw new InvalidSpokeCallError(kind, field, `must be a uint${bits} as a number, got ${typeof value} ${String(value)}`)
  if (typeof value === "number") {
    if (!Number.isInteger(value) || value < 0 || value > 2 ** bits - 1) {
      throw new InvalidSpokeCallError(kind, field, `must be a uint${bits}, got ${value}`)
    }
    return
  }
  if (typeof value !== "bigint" || value < 0n || value > (bits === 256 ? MAX_UINT256 : (1n << BigInt(bits)) - 1n)) {
    throw new InvalidSpokeCallError(kind, field, `must be a uint${bits}, got ${String(value)}`)
  }
}
const checkAddress = (kind: string, field: string, value: string): void => {
  if (typeof value !== "string" || !ADDRESS_RE.test(value)) throw new InvalidSpokeCallError(kind, field, `must be a 20-byte hex address, got ${String(value)}`)
}
const checkWord = (kind: string, field: string, value: string): void => {
  if (typeof value !== "string" || !WORD_RE.test(value)) throw new InvalidSpokeCallError(kind, field, `must be a 32-byte hex word, got ${String(value)}`)
}
const checkHex = (kind: string, field: string, value: string): void => {
  if (typeof value !== "string" || !HEX_RE.test(value)) throw new InvalidSpokeCallError(kind, field, "must be even-length 0x-prefixed hex")
}
const checkDestinations = (kind: string, field: string, destinations: readonly number[]): void => {
  if (!Array.isArray(destinations)) throw new InvalidSpokeCallError(kind, field, "must be an array of uint32")
  for (let i = 0; i < destinations.length; i++) checkUint(kind, `${field}[${i}]`, destinations[i]!, 32)
}
const checkIntentParams = (kind: string, prefix: string, p: NewIntentParams): void => {
  checkDestinations(kind, `${prefix}destinations`, p.destinations)
  checkAddress(kind, `${prefix}receiver`, p.receiver)
  checkAddress(kind, `${prefix}inputAsset`, p.inputAsset)
  checkAddress(kind, `${prefix}outputAsset`, p.outputAsset)
  checkUint(kind, `${prefix}amount`, p.amount, 256)
  checkUint(kind, `${prefix}maxFee`, p.maxFee, 24)
  checkUint(kind, `${prefix}ttl`, p.ttl, 48)
  checkHex(kind, `${prefix}data`, p.data)
}
const checkIntent = (kind: string, prefix: string, intent: Intent): void => {
  checkWord(kind, `${prefix}initiator`, intent.initiator)
  checkWord(kind, `${prefix}receiver`, intent.receiver)
  checkWord(kind, `${prefix}inputAsset`, intent.inputAsset)
  checkWord(kind, `${prefix}outputAsset`, intent.outputAsset)
  checkUint(kind, `${prefix}maxFee`, intent.maxFee, 24)
  checkUint(kind, `${prefix}origin`, intent.origin, 32)
  checkUint(kind, `${prefix}nonce`, intent.nonce, 64)
  checkUint(kind, `${prefix}timestamp`, intent.timestamp, 48)
  checkUint(kind, `${prefix}ttl`, intent.ttl, 48)
  checkUint(kind, `${prefix}amount`, intent.amount, 256)
  checkDestinations(kind, `${prefix}destinations`, intent.destinations)
  checkHex(kind, `${prefix}data`, intent.data)
}

const checkPermit2Params = (kind: string, p: Permit2Params): void => {
  if (typeof p !== "object" || p === null) throw new InvalidSpokeCallError(kind, "permit2Params", "must be { nonce, deadline, signature }")
  checkUint(kind, "permit2Params.nonce", p.nonce, 256)
  checkUint(kind, "permit2Params.deadline", p.deadline, 256)
  checkHex(kind, "permit2Params.signature", p.signature)
}

/** Throws `InvalidSpokeCallError` when an argument does not fit its ABI type. */
export const validateSpokeCall = (call: SpokeCall): void => {
  const k = call.kind
  switch (call.kind) {
    case "feeAdapter.newIntent":
      checkIntentParams(k, "", call)
      checkUint(k, "feeParams.fee", call.feeParams.fee, 256)
      checkUint(k, "feeParams.deadline", call.feeParams.deadline, 256)
      checkHex(k, "feeParams.sig", call.feeParams.sig)
      return
    case "feeAdapter.newIntentPermit2":
      checkIntentParams(k, "", call)
      checkPermit2Params(k, call.permit2Params)
      checkUint(k, "feeParams.fee", call.feeParams.fee, 256)
      checkUint(k, "feeParams.deadline", call.feeParams.deadline, 256)
      checkHex(k, "feeParams.sig", call.feeParams.sig)
      return
    case "feeAdapter.newOrder":
      checkUint(k, "fee", call.fee, 256)
      checkUint(k, "deadline", call.deadline, 256)
      checkHex(k, "sig", call.sig)
      call.params.forEach((p, i) => checkIntentParams(k, `params[${i}].`, p))
      return
    case "feeAdapter.returnUnsupportedIntent":
      checkAddress(k, "asset", call.asset)
      checkUint(k, "amount", call.amount, 256)
      checkAddress(k, "recipient", call.recipient)
      return
    case "feeAdapter.updateFeeRecipient":
      return checkAddress(k, "feeRecipient", call.feeRecipient)
    case "feeAdapter.updateFeeSigner":
      return checkAddress(k, "feeSigner", call.feeSigner)
    case "spoke.newIntent":
      return checkIntentParams(k, "", call)
    case "spoke.newIntentPermit2":
      checkIntentParams(k, "", call)
      return checkPermit2Params(k, call.permit2Params)
    case "spoke.processIntentQueue":
      call.intents.forEach((intent, i) => checkIntent(k, `intents[${i}].`, intent))
      return
    case "spoke.fillIntent":
      checkIntent(k, "intent.", call.intent)
      return checkUint(k, "fee", call.fee, 24)
    case "spoke.processFillQueue":
      return checkUint(k, "amount", call.amount, 32)
    case "spoke.deposit":
    case "spoke.withdraw":
      checkAddress(k, "asset", call.asset)
      return checkUint(k, "amount", call.amount, 256)
    case "spoke.executeIntentCalldata":
      return checkIntent(k, "intent.", call.intent)
    case "spoke.pause":
    case "spoke.unpause":
      return
    case "spoke.updateGateway":
      return checkAddress(k, "gateway", call.gateway)
    case "spoke.updateLighthouse":
      return checkAddress(k, "lighthouse", call.lighthouse)
    case "spoke.updateWatchtower":
      return checkAddress(k, "watchtower", call.watchtower)
    case "spoke.updateHubDomain":
      return checkUint(k, "hubDomain", call.hubDomain, 32)
    case "spoke.setStrategyForAsset":
      checkAddress(k, "asset", call.asset)
      return checkUint(k, "strategy", call.strategy, 1)
    case "spoke.setModuleForStrategy":
      checkUint(k, "strategy", call.strategy, 1)
      return checkAddress(k, "module", call.module)
    case "spoke.receiveMessage":
      return checkHex(k, "message", call.message)
    case "gateway.receiveMessage":
      checkUint(k, "origin", call.origin, 32)
      checkWord(k, "messageId", call.messageId)
      return checkHex(k, "message", call.message)
    case "gateway.setFees":
      checkUint(k, "baseFee", call.baseFee, 256)
      return checkUint(k, "feePerByte", call.feePerByte, 256)
    case "gateway.updateRelayer":
      return checkAddress(k, "relayer", call.relayer)
    case "permit2.permitTransferFrom":
      checkAddress(k, "token", call.token)
      checkUint(k, "amount", call.amount, 256)
      checkUint(k, "nonce", call.nonce, 256)
      checkUint(k, "deadline", call.deadline, 256)
      checkAddress(k, "to", call.to)
      checkUint(k, "requestedAmount", call.requestedAmount, 256)
      checkAddress(k, "owner", call.owner)
      return checkHex(k, "signature", call.signature)
    case "permit2.invalidateUnorderedNonces":
      checkUint(k, "wordPos", call.wordPos, 256)
      return checkUint(k, "mask", call.mask, 256)
    case "xerc20Module.mintDebt":
      checkAddress(k, "asset", call.asset)
      checkAddress(k, "recipient", call.recipient)
      return checkUint(k, "amount", call.amount, 256)
    case "erc20.approve":
      checkAddress(k, "token", call.token)
      checkAddress(k, "spender", call.spender)
      return checkUint(k, "amount", call.amount, 256)
    case "erc20.transfer":
    case "erc20.mint":
      checkAddress(k, "token", call.token)
      checkAddress(k, "to", call.to)
      return checkUint(k, "amount", call.amount, 256)
    case "erc20.transferFrom":
      checkAddress(k, "token", call.token)
      checkAddress(k, "from", call.from)
      checkAddress(k, "to", call.to)
      return checkUint(k, "amount", call.amount, 256)
    case "xerc20.setLimits":
      checkAddress(k, "token", call.token)
      checkAddress(k, "bridge", call.bridge)
      checkUint(k, "mintingLimit", call.mintingLimit, 256)
      return checkUint(k, "burningLimit", call.burningLimit, 256)
    case "blacklist.setBlacklisted":
      checkAddress(k, "token", call.token)
      return checkAddress(k, "account", call.account)
    case "blacklist.setRevertOnBlacklisted":
      return checkAddress(k, "token", call.token)
  }
}

// ---------------------------------------------------------------------------------------------------------
// Calldata.

const viemIntent = (intent: Intent) => ({ ...intent, destinations: [...intent.destinations] })
const viemIntentParams = (p: NewIntentParams) => [
  [...p.destinations],
  p.receiver,
  p.inputAsset,
  p.outputAsset,
  p.amount,
  p.maxFee,
  p.ttl,
  p.data,
] as const

const encode = (abi: Abi, functionName: string, args: readonly unknown[]): Hex => encodeFunctionData({ abi, functionName, args })

/** The token's ABI: the mint function differs between test tokens and the xERC20. */
const tokenAbi = (addresses: SpokeAddresses, token: Address): Abi => {
  const layout = tokenAt(addresses, token)
  if (layout?.kind === "xerc20") return XERC20TokenAbi
  if (layout?.kind === "blacklist") return BlacklistERC20Abi
  return TestERC20Abi
}

/** The target address and calldata of a call (throws `InvalidSpokeCallError` for an unencodable call). */
export const encodeSpokeCall = (addresses: SpokeAddresses, call: SpokeCall): { readonly to: Address; readonly data: Hex } => {
  validateSpokeCall(call)
  switch (call.kind) {
    case "feeAdapter.newIntent":
      return {
        to: addresses.feeAdapter,
        data: encode(FeeAdapterAbi, "newIntent", [...viemIntentParams(call), { ...call.feeParams }]),
      }
    case "feeAdapter.newIntentPermit2":
      return {
        to: addresses.feeAdapter,
        data: encode(FeeAdapterAbi, "newIntent", [...viemIntentParams(call), { ...call.permit2Params }, { ...call.feeParams }]),
      }
    case "feeAdapter.newOrder":
      return {
        to: addresses.feeAdapter,
        data: encode(FeeAdapterAbi, "newOrder", [
          call.fee,
          call.deadline,
          call.sig,
          call.params.map((p) => ({ ...p, destinations: [...p.destinations] })),
        ]),
      }
    case "feeAdapter.returnUnsupportedIntent":
      return { to: addresses.feeAdapter, data: encode(FeeAdapterAbi, "returnUnsupportedIntent", [call.asset, call.amount, call.recipient]) }
    case "feeAdapter.updateFeeRecipient":
      return { to: addresses.feeAdapter, data: encode(FeeAdapterAbi, "updateFeeRecipient", [call.feeRecipient]) }
    case "feeAdapter.updateFeeSigner":
      return { to: addresses.feeAdapter, data: encode(FeeAdapterAbi, "updateFeeSigner", [call.feeSigner]) }
    case "spoke.newIntent":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "newIntent", viemIntentParams(call)) }
    case "spoke.newIntentPermit2":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "newIntent", [...viemIntentParams(call), { ...call.permit2Params }]) }
    case "spoke.processIntentQueue":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "processIntentQueue", [call.intents.map(viemIntent)]) }
    case "spoke.fillIntent":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "fillIntent", [viemIntent(call.intent), call.fee]) }
    case "spoke.processFillQueue":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "processFillQueue", [call.amount]) }
    case "spoke.deposit":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "deposit", [call.asset, call.amount]) }
    case "spoke.withdraw":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "withdraw", [call.asset, call.amount]) }
    case "spoke.executeIntentCalldata":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "executeIntentCalldata", [viemIntent(call.intent)]) }
    case "spoke.pause":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "pause", []) }
    case "spoke.unpause":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "unpause", []) }
    case "spoke.updateGateway":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "updateGateway", [call.gateway]) }
    case "spoke.updateLighthouse":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "updateLighthouse", [call.lighthouse]) }
    case "spoke.updateWatchtower":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "updateWatchtower", [call.watchtower]) }
    case "spoke.updateHubDomain":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "updateHubDomain", [call.hubDomain]) }
    case "spoke.setStrategyForAsset":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "setStrategyForAsset", [call.asset, call.strategy]) }
    case "spoke.setModuleForStrategy":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "setModuleForStrategy", [call.strategy, call.module]) }
    case "spoke.receiveMessage":
      return { to: addresses.spoke, data: encode(ClearingSpokeAbi, "receiveMessage", [call.message]) }
    case "gateway.receiveMessage":
      return { to: addresses.gateway, data: encode(SpokeGatewayAbi, "receiveMessage", [call.origin, call.messageId, call.message]) }
    case "gateway.setFees":
      return { to: addresses.gateway, data: encode(SpokeGatewayAbi, "setFees", [call.baseFee, call.feePerByte]) }
    case "gateway.updateRelayer":
      return { to: addresses.gateway, data: encode(SpokeGatewayAbi, "updateRelayer", [call.relayer]) }
    case "permit2.permitTransferFrom":
      return {
        to: addresses.permit2,
        data: encode(Permit2Abi, "permitTransferFrom", [
          { permitted: { token: call.token, amount: call.amount }, nonce: call.nonce, deadline: call.deadline },
          { to: call.to, requestedAmount: call.requestedAmount },
          call.owner,
          call.signature,
        ]),
      }
    case "permit2.invalidateUnorderedNonces":
      return { to: addresses.permit2, data: encode(Permit2Abi, "invalidateUnorderedNonces", [call.wordPos, call.mask]) }
    case "xerc20Module.mintDebt":
      return { to: addresses.xerc20Module, data: encode(XERC20ModuleAbi, "mintDebt", [call.asset, call.recipient, call.amount]) }
    case "erc20.approve":
      return { to: call.token, data: encode(TestERC20Abi, "approve", [call.spender, call.amount]) }
    case "erc20.transfer":
      return { to: call.token, data: encode(TestERC20Abi, "transfer", [call.to, call.amount]) }
    case "erc20.transferFrom":
      return { to: call.token, data: encode(TestERC20Abi, "transferFrom", [call.from, call.to, call.amount]) }
    case "erc20.mint": {
      const abi = tokenAbi(addresses, call.token)
      return { to: call.token, data: encode(abi, abi === XERC20TokenAbi ? "ownerMint" : "mint", [call.to, call.amount]) }
    }
    case "xerc20.setLimits":
      return { to: call.token, data: encode(XERC20TokenAbi, "setLimits", [call.bridge, call.mintingLimit, call.burningLimit]) }
    case "blacklist.setBlacklisted":
      return { to: call.token, data: encode(BlacklistERC20Abi, "setBlacklisted", [call.account, call.blacklisted]) }
    case "blacklist.setRevertOnBlacklisted":
      return { to: call.token, data: encode(BlacklistERC20Abi, "setRevertOnBlacklisted", [call.revert]) }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Decoding calldata back into calls.

const low = <T extends string>(value: string): T => value.toLowerCase() as T

type ViemIntent = {
  initiator: string
  receiver: string
  inputAsset: string
  outputAsset: string
  maxFee: number
  origin: number
  nonce: bigint
  timestamp: number
  ttl: number
  amount: bigint
  destinations: readonly number[]
  data: string
}

/** A viem-decoded intent tuple in clearsim's form (lowercase words and data). */
export const intentFromViem = (i: ViemIntent): Intent => ({
  initiator: low(i.initiator),
  receiver: low(i.receiver),
  inputAsset: low(i.inputAsset),
  outputAsset: low(i.outputAsset),
  maxFee: i.maxFee,
  origin: i.origin,
  nonce: i.nonce,
  timestamp: i.timestamp,
  ttl: i.ttl,
  amount: i.amount,
  destinations: [...i.destinations],
  data: low(i.data),
})

const intentParamsFromArgs = (args: readonly unknown[]): NewIntentParams => ({
  destinations: [...(args[0] as readonly number[])],
  receiver: low(args[1] as string),
  inputAsset: low(args[2] as string),
  outputAsset: low(args[3] as string),
  amount: args[4] as bigint,
  maxFee: args[5] as number,
  ttl: args[6] as number,
  data: low(args[7] as string),
})

type Decoded = { readonly functionName: string; readonly args: readonly unknown[] }

const permit2ParamsFromArg = (arg: unknown): Permit2Params => {
  const p = arg as { nonce: bigint; deadline: bigint; signature: string }
  return { nonce: p.nonce, deadline: p.deadline, signature: low(p.signature) }
}

const decodePermit2Call = ({ functionName, args }: Decoded): SpokeCall | undefined => {
  switch (functionName) {
    case "permitTransferFrom": {
      const permit = args[0] as { permitted: { token: string; amount: bigint }; nonce: bigint; deadline: bigint }
      const details = args[1] as { to: string; requestedAmount: bigint }
      return {
        kind: "permit2.permitTransferFrom",
        token: low(permit.permitted.token),
        amount: permit.permitted.amount,
        nonce: permit.nonce,
        deadline: permit.deadline,
        to: low(details.to),
        requestedAmount: details.requestedAmount,
        owner: low(args[2] as string),
        signature: low(args[3] as string),
      }
    }
    case "invalidateUnorderedNonces":
      return { kind: "permit2.invalidateUnorderedNonces", wordPos: args[0] as bigint, mask: args[1] as bigint }
    default:
      return undefined
  }
}

const decodeWith = (abi: Abi, data: Hex): Decoded | undefined => {
  try {
    const decoded = decodeFunctionData({ abi, data })
    return { functionName: decoded.functionName, args: (decoded.args ?? []) as readonly unknown[] }
  } catch {
    return undefined
  }
}

const decodeFeeAdapterCall = ({ functionName, args }: Decoded): SpokeCall | undefined => {
  switch (functionName) {
    case "newIntent": {
      if (args.length === 10) {
        const fee = args[9] as { fee: bigint; deadline: bigint; sig: string }
        return {
          kind: "feeAdapter.newIntentPermit2",
          ...intentParamsFromArgs(args),
          permit2Params: permit2ParamsFromArg(args[8]),
          feeParams: { fee: fee.fee, deadline: fee.deadline, sig: low(fee.sig) },
        }
      }
      const fee = args[8] as { fee: bigint; deadline: bigint; sig: string }
      return { kind: "feeAdapter.newIntent", ...intentParamsFromArgs(args), feeParams: { fee: fee.fee, deadline: fee.deadline, sig: low(fee.sig) } }
    }
    case "newOrder": {
      const params = args[3] as readonly {
        destinations: readonly number[]
        receiver: string
        inputAsset: string
        outputAsset: string
        amount: bigint
        maxFee: number
        ttl: number
        data: string
      }[]
      return {
        kind: "feeAdapter.newOrder",
        fee: args[0] as bigint,
        deadline: args[1] as bigint,
        sig: low(args[2] as string),
        params: params.map((p) =>
          intentParamsFromArgs([p.destinations, p.receiver, p.inputAsset, p.outputAsset, p.amount, p.maxFee, p.ttl, p.data]),
        ),
      }
    }
    case "returnUnsupportedIntent":
      return { kind: "feeAdapter.returnUnsupportedIntent", asset: low(args[0] as string), amount: args[1] as bigint, recipient: low(args[2] as string) }
    case "updateFeeRecipient":
      return { kind: "feeAdapter.updateFeeRecipient", feeRecipient: low(args[0] as string) }
    case "updateFeeSigner":
      return { kind: "feeAdapter.updateFeeSigner", feeSigner: low(args[0] as string) }
    default:
      return undefined
  }
}

const decodeSpokeFunction = ({ functionName, args }: Decoded): SpokeCall | undefined => {
  switch (functionName) {
    case "newIntent":
      if (args.length === 9) return { kind: "spoke.newIntentPermit2", ...intentParamsFromArgs(args), permit2Params: permit2ParamsFromArg(args[8]) }
      return { kind: "spoke.newIntent", ...intentParamsFromArgs(args) }
    case "processIntentQueue":
      return { kind: "spoke.processIntentQueue", intents: (args[0] as readonly ViemIntent[]).map(intentFromViem) }
    case "fillIntent":
      return { kind: "spoke.fillIntent", intent: intentFromViem(args[0] as ViemIntent), fee: args[1] as number }
    case "processFillQueue":
      return { kind: "spoke.processFillQueue", amount: args[0] as number }
    case "deposit":
      return { kind: "spoke.deposit", asset: low(args[0] as string), amount: args[1] as bigint }
    case "withdraw":
      return { kind: "spoke.withdraw", asset: low(args[0] as string), amount: args[1] as bigint }
    case "executeIntentCalldata":
      return { kind: "spoke.executeIntentCalldata", intent: intentFromViem(args[0] as ViemIntent) }
    case "pause":
      return { kind: "spoke.pause" }
    case "unpause":
      return { kind: "spoke.unpause" }
    case "updateGateway":
      return { kind: "spoke.updateGateway", gateway: low(args[0] as string) }
    case "updateLighthouse":
      return { kind: "spoke.updateLighthouse", lighthouse: low(args[0] as string) }
    case "updateWatchtower":
      return { kind: "spoke.updateWatchtower", watchtower: low(args[0] as string) }
    case "updateHubDomain":
      return { kind: "spoke.updateHubDomain", hubDomain: args[0] as number }
    case "setStrategyForAsset":
      return { kind: "spoke.setStrategyForAsset", asset: low(args[0] as string), strategy: args[1] as Strategy }
    case "setModuleForStrategy":
      return { kind: "spoke.setModuleForStrategy", strategy: args[0] as Strategy, module: low(args[1] as string) }
    case "receiveMessage":
      return { kind: "spoke.receiveMessage", message: low(args[0] as string) }
    default:
      return undefined
  }
}

const decodeGatewayCall = ({ functionName, args }: Decoded): SpokeCall | undefined => {
  switch (functionName) {
    case "receiveMessage":
      return { kind: "gateway.receiveMessage", origin: args[0] as number, messageId: low(args[1] as string), message: low(args[2] as string) }
    case "setFees":
      return { kind: "gateway.setFees", baseFee: args[0] as bigint, feePerByte: args[1] as bigint }
    case "updateRelayer":
      return { kind: "gateway.updateRelayer", relayer: low(args[0] as string) }
    default:
      return undefined
  }
}

const decodeTokenCall = (token: Address, abi: Abi, { functionName, args }: Decoded): SpokeCall | undefined => {
  // XERC20Token's `mint(user, amount)` is the bridge mint, limited by the caller's minting limit: not the owner's
  // test mint (`ownerMint`) that `erc20.mint` encodes for an xERC20, so no `SpokeCall` (like the bridge `burn`).
  if (functionName === "mint" && abi === XERC20TokenAbi) return undefined
  switch (functionName) {
    case "approve":
      return { kind: "erc20.approve", token, spender: low(args[0] as string), amount: args[1] as bigint }
    case "transfer":
      return { kind: "erc20.transfer", token, to: low(args[0] as string), amount: args[1] as bigint }
    case "transferFrom":
      return { kind: "erc20.transferFrom", token, from: low(args[0] as string), to: low(args[1] as string), amount: args[2] as bigint }
    case "mint":
    case "ownerMint":
      return { kind: "erc20.mint", token, to: low(args[0] as string), amount: args[1] as bigint }
    case "setLimits":
      return { kind: "xerc20.setLimits", token, bridge: low(args[0] as string), mintingLimit: args[1] as bigint, burningLimit: args[2] as bigint }
    case "setBlacklisted":
      return { kind: "blacklist.setBlacklisted", token, account: low(args[0] as string), blacklisted: args[1] as boolean }
    case "setRevertOnBlacklisted":
      return { kind: "blacklist.setRevertOnBlacklisted", token, revert: args[0] as boolean }
    default:
      return undefined
  }
}

/**
 * The `SpokeCall` behind a raw transaction to `to` with calldata `data`, or `undefined` when `to` is not a
 * contract of this domain or the calldata is not one of the functions `SpokeCall` covers.
 */
export const decodeSpokeCall = (addresses: SpokeAddresses, to: string, data: Hex): SpokeCall | undefined => {
  const target = to.toLowerCase() as Address
  if (target === addresses.feeAdapter) {
    const decoded = decodeWith(FeeAdapterAbi, data)
    return decoded && decodeFeeAdapterCall(decoded)
  }
  if (target === addresses.spoke) {
    const decoded = decodeWith(ClearingSpokeAbi, data)
    return decoded && decodeSpokeFunction(decoded)
  }
  if (target === addresses.gateway) {
    const decoded = decodeWith(SpokeGatewayAbi, data)
    return decoded && decodeGatewayCall(decoded)
  }
  if (target === addresses.permit2) {
    const decoded = decodeWith(Permit2Abi, data)
    return decoded && decodePermit2Call(decoded)
  }
  if (target === addresses.xerc20Module) {
    const decoded = decodeWith(XERC20ModuleAbi, data)
    if (decoded?.functionName !== "mintDebt") return undefined
    const [asset, recipient, amount] = decoded.args as [string, string, bigint]
    return { kind: "xerc20Module.mintDebt", asset: low(asset), recipient: low(recipient), amount }
  }
  if (tokenAt(addresses, target) !== undefined) {
    const abi = tokenAbi(addresses, target)
    const decoded = decodeWith(abi, data)
    return decoded && decodeTokenCall(target, abi, decoded)
  }
  return undefined
}

