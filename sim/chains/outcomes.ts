/**
 * What a flush reports per transaction: a discriminated union on `status`, plus revert decoding.
 */
import type { Abi, Address, Hash, Hex, Log, TransactionReceipt } from "viem"
import { decodeErrorResult } from "viem/utils"
import type { MinedBlock } from "./chain.ts"
import { type RpcResponseError, TransactionsFailedError } from "./errors.ts"

interface OutcomeBase {
  /** Position in the flush, equal to the `index` of the handle `queue` returned. */
  readonly index: number
  readonly from: Address
  readonly nonce: number
  /** keccak256 of the signed transaction (known even when the node refused it). */
  readonly hash: Hash
}

/** Included and executed without error. */
export interface SuccessOutcome extends OutcomeBase {
  readonly status: "success"
  /** Position in the block. */
  readonly transactionIndex: number
  readonly logs: readonly Log[]
  /** Set for contract creations. */
  readonly contractAddress: Address | undefined
  /** Present when the flush fetched receipts (`receipts: true`). */
  readonly receipt?: TransactionReceipt
}

/** Included, but execution reverted (gas was charged, state unchanged). */
export interface RevertedOutcome extends OutcomeBase {
  readonly status: "reverted"
  readonly transactionIndex: number
  readonly revert: RevertReason
  readonly receipt?: TransactionReceipt
}

/** Refused by the node at submission (bad nonce, insufficient funds, gas above the cap, ...). */
export interface RejectedOutcome extends OutcomeBase {
  readonly status: "rejected"
  readonly error: RpcResponseError
}

/**
 * Accepted by the node but not in the mined block (a nonce gap after a rejected transaction of the same
 * account, or a full block). It was removed from anvil's pool, so it can never land in a later block.
 */
export interface DroppedOutcome extends OutcomeBase {
  readonly status: "dropped"
  readonly reason: string
}

export type TransactionOutcome = SuccessOutcome | RevertedOutcome | RejectedOutcome | DroppedOutcome

/** Why an included transaction reverted. */
export type RevertReason =
  | {
      /** The revert data matched an error of the ABI (custom error, `Error(string)` or `Panic(uint256)`). */
      readonly kind: "decoded"
      readonly errorName: string
      readonly args: readonly unknown[]
      readonly data: Hex
      /** E.g. `InsufficientBalance(0xf39f..., 0, 5)` or `Error(burn exceeds balance)`. */
      readonly message: string
    }
  | {
      /** No revert data (out of gas, `revert()`), or a selector the ABI does not know. */
      readonly kind: "undecoded"
      readonly data: Hex
      readonly message: string
    }

/** Result of one flush: the block it mined and one outcome per queued transaction, in queue order. */
export interface FlushResult {
  readonly chainId: number
  readonly block: MinedBlock
  readonly outcomes: readonly TransactionOutcome[]
}

const formatArgument = (value: unknown): string => {
  if (typeof value === "bigint") return value.toString()
  if (typeof value === "string") return value
  if (Array.isArray(value)) return `[${value.map(formatArgument).join(", ")}]`
  return JSON.stringify(value, (_, inner: unknown) => (typeof inner === "bigint" ? inner.toString() : inner)) ?? String(value)
}

/** Decodes revert data with `abi` (Error(string) and Panic(uint256) are always known). */
export const decodeRevert = (data: Hex, abi: Abi | undefined, traceError: string): RevertReason => {
  if (data.length < 10) return { kind: "undecoded", data, message: traceError }
  try {
    const decoded = decodeErrorResult({ abi: abi ?? [], data })
    const args: readonly unknown[] = decoded.args ?? []
    return {
      kind: "decoded",
      errorName: decoded.errorName,
      args,
      data,
      message: `${decoded.errorName}(${args.map(formatArgument).join(", ")})`,
    }
  } catch {
    return { kind: "undecoded", data, message: `${traceError}: error selector ${data.slice(0, 10)} is not in the ABI` }
  }
}

const describeFailure = (outcome: Exclude<TransactionOutcome, SuccessOutcome>): string => {
  switch (outcome.status) {
    case "reverted":
      return outcome.revert.message
    case "rejected":
      return outcome.error.rpcMessage
    case "dropped":
      return outcome.reason
  }
}

/** Returns the success outcomes, or throws `TransactionsFailedError` listing every other outcome. */
export const requireSuccess = (result: FlushResult): readonly SuccessOutcome[] => {
  const failures = result.outcomes.filter((outcome) => outcome.status !== "success")
  if (failures.length > 0) {
    throw new TransactionsFailedError(
      result.chainId,
      result.block.number,
      failures.map((failure) => ({ index: failure.index, status: failure.status, reason: describeFailure(failure) })),
    )
  }
  return result.outcomes as readonly SuccessOutcome[]
}
