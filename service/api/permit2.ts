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
 * Placeholders (no `permit2Params`, or a `signature` that is missing, empty, `0x` or all zeros such as `0x0`) keep
 * the allowance flow: the adapter pulls with `transferFrom`, so `from` approves the fee adapter instead. In an order
 * (an array, `FeeAdapter.newOrder`, which has no Permit2 variant) anything but a real signature is a placeholder
 * (SPEC: "Placeholders are allowed for orders that do not use it"): `hasPermit2Signature` only detects a real one.
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
/** `0x` followed by zeros only, any number of them (`0x`, `0x0`, 65 zero bytes). */
const ZERO_HEX_RE = /^0[xX]0*$/
/** A signature Permit2 could take: `0x` and 64 or 65 bytes of hex. */
const SIGNATURE_RE = /^0x(?:[0-9a-fA-F]{128}|[0-9a-fA-F]{130})$/
/** The longest uint256: 78 decimal digits (2^256 - 1 has 78), or `0x` and 64 hex digits. */
const MAX_DECIMAL_DIGITS = 78
const MAX_HEX_CHARS = 66

const isPlaceholderSignature = (signature: unknown): boolean =>
  signature === undefined || signature === null || signature === "" || (typeof signature === "string" && ZERO_HEX_RE.test(signature))

/**
 * Whether an order entry's `permit2Params` carries a real signature (`0x` and 64 or 65 bytes of hex, not all
 * zeros). Orders cannot use Permit2 (400 `Permit2NotSupportedForOrders`); anything else there, well-formed or not,
 * is a placeholder and ignored.
 */
export const hasPermit2Signature = (value: unknown): boolean => {
  if (typeof value !== "object" || value === null) return false
  const signature = (value as { signature?: unknown }).signature
  return typeof signature === "string" && SIGNATURE_RE.test(signature) && !ZERO_HEX_RE.test(signature)
}

/** `value` as a uint256, or 400 `code` naming `field`; the length is checked before `BigInt` reads it. */
const parseUint256 = (code: string, field: string, value: unknown): bigint => {
  const text = typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value
  const got = typeof value === "string" ? JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value) : typeof value === "number" ? String(value) : typeof value
  const fail = () => badRequest(code, `${field}: expected a uint256 as a decimal or 0x-hex string, got ${got}.`)
  if (typeof text !== "string") throw fail()
  if (text.length > (text.startsWith("0x") ? MAX_HEX_CHARS : MAX_DECIMAL_DIGITS)) {
    throw badRequest(code, `${field}: too long for a uint256 (at most ${MAX_DECIMAL_DIGITS} decimal digits or 0x and 64 hex digits), got ${text.length} characters.`)
  }
  if (!(UINT_RE.test(text) || HEX_UINT_RE.test(text)) || BigInt(text) > MAX_UINT256) throw fail()
  return BigInt(text)
}

const parsePermitUint = (field: string, value: unknown): bigint => {
  if (value === undefined || value === null || value === "") {
    throw badRequest("InvalidPermit2Params", `${field}: required with a Permit2 signature (a uint256 as a decimal or 0x-hex string).`)
  }
  return parseUint256("InvalidPermit2Params", field, value)
}

/** A bigint nonce or deadline of `intentPermit2TypedData`: within [0, 2^256 - 1], else 400 `InvalidPermit2Params`. */
export const checkPermitUint = (field: string, value: unknown): bigint => {
  if (typeof value !== "bigint" || value < 0n || value > MAX_UINT256) {
    throw badRequest("InvalidPermit2Params", `${field}: expected a uint256 (0 to 2^256 - 1), got ${typeof value === "bigint" ? value.toString().slice(0, 100) : typeof value}.`)
  }
  return value
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
