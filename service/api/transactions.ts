/**
 * Transaction requests built with viem: `FeeAdapter.newIntent` / `newOrder` with the fee signer's FeeParams,
 * `ClearingSpoke.executeIntentCalldata`, ERC-20 approvals, and every public hub function (`HubAbi`).
 */
import type { ContractFunctionArgs, ContractFunctionName } from "viem"
import { encodeFunctionData } from "viem/utils"
import type { Address, Hex } from "../domain/hex.ts"
import { type Intent, MAX_UINT256 } from "../domain/protocol.ts"
import { ClearingSpokeAbi, FeeAdapterAbi } from "../spoke/abi.ts"
import type { FeeParams, NewIntentParams, Permit2Params } from "../spoke/calls.ts"
import { HubAbi } from "./hubAbi.ts"
import type { TransactionRequest } from "./schemas.ts"

/**
 * One intent as the fee adapter takes it (`OrderParameters`): the spoke's `NewIntentParams` (amount in input-token
 * units, fee excluded; `outputAsset` zero for netting intents).
 */
export type OrderParameters = NewIntentParams
export type { FeeParams }

const orderArgs = (o: OrderParameters) => ({
  destinations: [...o.destinations],
  receiver: o.receiver,
  inputAsset: o.inputAsset,
  outputAsset: o.outputAsset,
  amount: o.amount,
  maxFee: o.maxFee,
  ttl: o.ttl,
  data: o.data,
})

/** `FeeAdapter.newIntent(destinations, receiver, inputAsset, outputAsset, amount, maxFee, ttl, data, feeParams)`. */
export const encodeNewIntent = (o: OrderParameters, fee: FeeParams): Hex =>
  encodeFunctionData({
    abi: FeeAdapterAbi,
    functionName: "newIntent",
    args: [[...o.destinations], o.receiver, o.inputAsset, o.outputAsset, o.amount, o.maxFee, o.ttl, o.data, { ...fee }],
  })

/**
 * `FeeAdapter.newIntent(destinations, receiver, inputAsset, outputAsset, amount, maxFee, ttl, data, permit2Params,
 * feeParams)`: the adapter pulls `amount + fee` through Permit2 (see `permit2.ts` for what the sender signs).
 */
export const encodeNewIntentPermit2 = (o: OrderParameters, permit2: Permit2Params, fee: FeeParams): Hex =>
  encodeFunctionData({
    abi: FeeAdapterAbi,
    functionName: "newIntent",
    args: [[...o.destinations], o.receiver, o.inputAsset, o.outputAsset, o.amount, o.maxFee, o.ttl, o.data, { ...permit2 }, { ...fee }],
  })

/** `FeeAdapter.newOrder(fee, deadline, sig, params)`: one fee for every intent of the order. */
export const encodeNewOrder = (orders: readonly OrderParameters[], fee: FeeParams): Hex =>
  encodeFunctionData({ abi: FeeAdapterAbi, functionName: "newOrder", args: [fee.fee, fee.deadline, fee.sig, orders.map(orderArgs)] })

/** `ClearingSpoke.executeIntentCalldata(intent)`. */
export const encodeExecuteIntentCalldata = (intent: Intent): Hex =>
  encodeFunctionData({ abi: ClearingSpokeAbi, functionName: "executeIntentCalldata", args: [{ ...intent, destinations: [...intent.destinations] }] })

/** ERC-20's `approve`, the one function of the standard the service encodes. */
const ERC20_APPROVE_ABI = [
  {
    type: "function",
    name: "approve",
    stateMutability: "nonpayable",
    inputs: [
      { name: "spender", type: "address" },
      { name: "amount", type: "uint256" },
    ],
    outputs: [{ type: "bool" }],
  },
] as const

/** `ERC20.approve(spender, max)`. */
export const encodeApproveMax = (spender: Address): Hex => encodeFunctionData({ abi: ERC20_APPROVE_ABI, functionName: "approve", args: [spender, MAX_UINT256] })

export type HubFunctionName = ContractFunctionName<typeof HubAbi, "nonpayable" | "payable">

/** Calldata of a public hub function. */
export const encodeHubCall = <F extends HubFunctionName>(functionName: F, args: ContractFunctionArgs<typeof HubAbi, "nonpayable" | "payable", F>): Hex =>
  encodeFunctionData({ abi: HubAbi, functionName, args } as Parameters<typeof encodeFunctionData>[0])

export const transactionRequest = (p: { readonly to: Address; readonly from?: Address | undefined; readonly data: Hex; readonly chainId: number; readonly value?: bigint }): TransactionRequest => ({
  to: p.to,
  ...(p.from === undefined ? {} : { from: p.from }),
  data: p.data,
  value: (p.value ?? 0n).toString(),
  chainId: p.chainId,
})
