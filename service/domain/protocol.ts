/**
 * Protocol constants and the V1 data structures shared by hub, spokes, transport and API
 * (reference §1, §2.1, §4.6). Hub amounts are 18-decimal `bigint`s; fees and discounts are dbps (1/100_000).
 */
import { BoundedMemo } from "./boundedMemo.ts"
import type { Bytes32, Hex } from "./hex.ts"

/** Denominator of every on-chain fee and discount (dbps: 1 dbps = 1/10 basis point). */
export const DBPS_DENOMINATOR = 100_000n
export const DBPS_DENOMINATOR_NUMBER = 100_000
/** Hub amounts are normalized to this many decimals. */
export const NORMALIZED_DECIMALS = 18
export const MAX_DESTINATIONS = 10
export const MAX_CALLDATA_SIZE = 50_000
export const MAX_UINT64 = 2n ** 64n - 1n
export const MAX_UINT256 = 2n ** 256n - 1n
/** The largest limit `XERC20Token.setLimits` accepts: `type(uint256).max / 2`, as in the xERC20 standard. */
export const MAX_XERC20_LIMIT = MAX_UINT256 / 2n

/**
 * The V1 intent struct, field order fixed (it defines the ABI encoding and so the intent id).
 * `amount` is in 18-decimal units; `maxFee` in dbps; `timestamp` and `ttl` in seconds.
 */
export interface Intent {
  readonly initiator: Bytes32
  readonly receiver: Bytes32
  readonly inputAsset: Bytes32
  readonly outputAsset: Bytes32
  readonly maxFee: number
  readonly origin: number
  readonly nonce: bigint
  readonly timestamp: number
  readonly ttl: number
  readonly amount: bigint
  readonly destinations: readonly number[]
  readonly data: Hex
}

const ONE_DESTINATION = new BoundedMemo<number, readonly number[]>(4096, (domain) => [domain])

/**
 * `[domain]` as one shared array per domain: intents are immutable, and the million intents of a run name a few
 * destinations.
 */
export const oneDestination = (domain: number): readonly number[] => ONE_DESTINATION.get(domain)

/** V1 fill message (spoke → hub): who filled, at what total fee (dbps), when. */
export interface FillMessage {
  readonly intentId: Bytes32
  readonly solver: Bytes32
  readonly initiator: Bytes32
  readonly fee: number
  readonly executionTimestamp: number
}

/** A settlement (hub → spoke): pay `amount` (18-dec) of `asset` to `recipient`, or credit its virtual balance. */
export interface Settlement {
  readonly intentId: Bytes32
  readonly amount: bigint
  readonly asset: Bytes32
  readonly recipient: Bytes32
  readonly updateVirtualBalance: boolean
}

export const MessageType = { INTENT: 0, FILL: 1, SETTLEMENT: 2, VAR_UPDATE: 3 } as const
export type MessageType = (typeof MessageType)[keyof typeof MessageType]

/** The status enum shared by hub and spokes, in on-chain order (reference §4.6). */
export const IntentStatus = {
  NONE: 0,
  ADDED: 1,
  DEPOSIT_PROCESSED: 2,
  FILLED: 3,
  ADDED_AND_FILLED: 4,
  INVOICED: 5,
  SETTLED: 6,
  SETTLED_AND_MANUALLY_EXECUTED: 7,
  UNSUPPORTED: 8,
  UNSUPPORTED_RETURNED: 9,
} as const
export type IntentStatus = (typeof IntentStatus)[keyof typeof IntentStatus]
export const IntentStatusName: readonly IntentStatusName[] = [
  "NONE",
  "ADDED",
  "DEPOSIT_PROCESSED",
  "FILLED",
  "ADDED_AND_FILLED",
  "INVOICED",
  "SETTLED",
  "SETTLED_AND_MANUALLY_EXECUTED",
  "UNSUPPORTED",
  "UNSUPPORTED_RETURNED",
]
export type IntentStatusName = keyof typeof IntentStatus

/** Asset strategy: netting against custodied liquidity, or burn/mint (xERC20). */
export const Strategy = { DEFAULT: 0, XERC20: 1 } as const
export type Strategy = (typeof Strategy)[keyof typeof Strategy]
export type StrategyName = "default" | "xerc20"
export const strategyFromName = (name: StrategyName): Strategy => (name === "xerc20" ? Strategy.XERC20 : Strategy.DEFAULT)
export const strategyName = (strategy: Strategy): StrategyName => (strategy === Strategy.XERC20 ? "xerc20" : "default")

/**
 * Normalizes a token-native amount to 18 decimals (multiply, or divide with truncation), as the spokes do
 * (`AssetUtils.normalizeDecimals`).
 */
export const normalizeDecimals = (amount: bigint, fromDecimals: number, toDecimals: number): bigint => {
  if (fromDecimals === toDecimals) return amount
  if (fromDecimals < toDecimals) return amount * powerOfTen(toDecimals - fromDecimals)
  return amount / powerOfTen(fromDecimals - toDecimals)
}

/** `10n ** BigInt(exponent)` for a non-negative integer exponent, made once each up to 10^255. */
const POWERS_OF_TEN: bigint[] = []
export const powerOfTen = (exponent: number): bigint =>
  exponent >= 0 && exponent < 256 && Number.isInteger(exponent) ? (POWERS_OF_TEN[exponent] ??= 10n ** BigInt(exponent)) : 10n ** BigInt(exponent)

/**
 * Whole tokens (a decimal string like "0.000001", or a number: its shortest decimal form, so 0.1 is exactly
 * one tenth) to integer units of a token with `decimals`; fraction digits beyond `decimals` are truncated.
 */
export const tokensToUnits = (tokens: string | number, decimals: number): bigint => {
  const text = typeof tokens === "number" ? numberToDecimal(tokens) : tokens
  const [whole, fraction = ""] = text.split(".")
  const padded = (fraction + "0".repeat(decimals)).slice(0, decimals)
  return BigInt(whole!) * 10n ** BigInt(decimals) + (decimals > 0 ? BigInt(padded) : 0n)
}

/**
 * Whole tokens as a scenario writes them (decimal string or number) to integer units of a token with `decimals`,
 * rounded half up past its decimals (`tokensToUnits` truncates): 1.0000005 of a 6-decimal token is 1,000,001 units.
 */
export const tokensToUnitsRounded = (tokens: string | number, decimals: number): bigint => {
  const text = typeof tokens === "number" ? numberToDecimal(tokens) : tokens
  const fraction = text.split(".")[1] ?? ""
  const units = tokensToUnits(text, decimals)
  return fraction.length > decimals && fraction.charCodeAt(decimals) >= 53 /* "5" */ ? units + 1n : units
}

/** The shortest decimal form of a finite non-negative number (`String(0.1)` is "0.1"), exponents expanded. */
export const numberToDecimal = (n: number): string => {
  const text = String(n)
  const m = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text)
  if (m === null) return text
  const digits = m[1]! + (m[2] ?? "")
  const point = m[1]!.length + Number(m[3])
  if (point <= 0) return `0.${"0".repeat(-point)}${digits}`
  if (point >= digits.length) return digits + "0".repeat(point - digits.length)
  return `${digits.slice(0, point)}.${digits.slice(point)}`
}
