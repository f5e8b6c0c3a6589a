/**
 * `permit2Params` of `POST /intents`: what the user signs, and how the service reads what it receives.
 *
 * With a real signature, the service builds `FeeAdapter.newIntent(..., permit2Params, feeParams)`: the adapter pulls
 * the request's `amount` (the fee included: the intent gets `amount - fee`) from `from` through Permit2, so `from`
 * signs, with EIP-712, `PermitTransferFrom{permitted: {token: inputAsset, amount}, spender: the origin's fee adapter,
 * nonce, deadline}` in the domain `{name: "Permit2", chainId: origin, verifyingContract: Permit2}`, and has approved
 * Permit2 on the token once. `intentPermit2TypedData` gives that typed data, for viem's `signTypedData` or a wallet's
 * `eth_signTypedData_v4`.
 *
 * Placeholders (no `permit2Params`, or a `signature` that is missing, empty, `0x` or all zeros) keep the allowance
 * flow: the adapter pulls with `transferFrom`, so `from` approves the fee adapter instead.
 */
import type { Address, Hex } from "../domain/hex.ts"
import { MAX_UINT256 } from "../domain/protocol.ts"
import { type Permit2Params, permit2TypedData } from "../spoke/permit2.ts"
import { badRequest } from "./errors.ts"

export type { Permit2Params }
export { PERMIT2_ADDRESS } from "../spoke/permit2.ts"

export interface IntentPermit2TypedDataParameters {
  /** The intent's origin domain (the chain id of the signature's domain). */
  readonly origin: number
  /** The origin's fee adapter: the `to` of the transaction `POST /intents` returns (the spender). */
  readonly feeAdapter: Address
  readonly inputAsset: Address
  /** The request's `amount` in input-token units, fee included: what the adapter pulls. */
  readonly amount: bigint
  /** Any unused nonce of the signer (Permit2's nonces are unordered: bit `nonce & 0xff` of word `nonce >> 8`). */
  readonly nonce: bigint
  /** Last second (unix time) at which the permit can be used. */
  readonly deadline: bigint
}

/** The EIP-712 typed data `from` signs for a `POST /intents` request with `permit2Params`. */
export const intentPermit2TypedData = (p: IntentPermit2TypedDataParameters) =>
  permit2TypedData({ chainId: p.origin, token: p.inputAsset, amount: p.amount, spender: p.feeAdapter, nonce: p.nonce, deadline: p.deadline })

const UINT_RE = /^(0|[1-9][0-9]*)$/
const HEX_UINT_RE = /^0x[0-9a-fA-F]{1,64}$/
const HEX_RE = /^0x([0-9a-fA-F]{2})*$/
const ZERO_HEX_RE = /^0x(00)*$/

const isPlaceholderSignature = (signature: unknown): boolean =>
  signature === undefined || signature === null || signature === "" || (typeof signature === "string" && ZERO_HEX_RE.test(signature))

const parsePermitUint = (field: string, value: unknown): bigint => {
  if (value === undefined || value === null || value === "") {
    throw badRequest("InvalidPermit2Params", `${field}: required with a Permit2 signature (a uint256 as a decimal or 0x-hex string).`)
  }
  const text = typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value
  if (typeof text !== "string" || !(UINT_RE.test(text) || HEX_UINT_RE.test(text)) || BigInt(text) > MAX_UINT256) {
    throw badRequest("InvalidPermit2Params", `${field}: expected a uint256 as a decimal or 0x-hex string, got ${JSON.stringify(value)}.`)
  }
  return BigInt(text)
}

/**
 * The Permit2 parameters of a request, or `undefined` for a placeholder. Throws 400 `InvalidPermit2Params` for
 * what is malformed: a signature that is not hex, not 64 or 65 bytes, or whose `v` is not 27 or 28; a missing or
 * non-uint256 nonce or deadline. What only the chain can tell (expired, nonce used, wrong signer, amount or
 * spender) reverts on-chain with Permit2's error.
 */
export const parsePermit2Params = (field: string, value: unknown): Permit2Params | undefined => {
  if (value === undefined || value === null) return undefined
  if (typeof value !== "object" || Array.isArray(value)) throw badRequest("InvalidPermit2Params", `${field}: expected an object { nonce, deadline, signature }.`)
  const { nonce, deadline, signature } = value as { nonce?: unknown; deadline?: unknown; signature?: unknown }
  if (isPlaceholderSignature(signature)) return undefined
  if (typeof signature !== "string" || !HEX_RE.test(signature)) {
    throw badRequest("InvalidPermit2Params", `${field}.signature: expected 0x-prefixed hex (a 65-byte r, s, v or 64-byte EIP-2098 signature).`)
  }
  const length = (signature.length - 2) / 2
  if (length !== 65 && length !== 64) {
    throw badRequest("InvalidPermit2Params", `${field}.signature: expected a 65-byte (r, s, v) or 64-byte EIP-2098 signature, got ${length} bytes.`)
  }
  if (length === 65) {
    const v = Number.parseInt(signature.slice(130, 132), 16)
    if (v !== 27 && v !== 28) throw badRequest("InvalidPermit2Params", `${field}.signature: v must be 27 or 28 (Permit2 does not normalize 0/1), got ${v}.`)
  }
  return {
    nonce: parsePermitUint(`${field}.nonce`, nonce),
    deadline: parsePermitUint(`${field}.deadline`, deadline),
    signature: signature.toLowerCase() as Hex,
  }
}
