/**
 * Quotes and limits (PROTOCOL.md "API behaviour not in the reference"), in integer arithmetic:
 * - `fixedFeeUnits` = the route's configured gas cost in input-token units;
 * - `variableFeeBps` = maxVariableFeeBps · (amount / currentLimit)², floored to 1e-4 bps (fast path: plus the
 *   fast-path fee);
 * - `totalFeeBps = variableFeeBps + fixedFeeUnits / amount · 10_000` (floored to 1e-6 bps);
 * - `expectedAmount = amount − fixedFeeUnits − amount · variableFeeBps / 10_000`;
 * - `currentLimit` = custodied liquidity on the best destination (basic) or the largest single solver's
 *   inventory on the destination (fast path: one solver fills an intent), in input-token units; an xERC20 destination has no custody limit.
 * With fixed fee 0.5376 USDC and a limit of about 5M USDC this reproduces the reference's §7 H sample exactly.
 */
import { bytes32ToAddress } from "../domain/hex.ts"
import { MAX_UINT256, NORMALIZED_DECIMALS, normalizeDecimals, Strategy, tokensToUnits } from "../domain/protocol.ts"
import type { ReadModel } from "../indexer/readModel.ts"
import type { SettlementPercentiles } from "../indexer/settlementTimes.ts"
import type { ClearingApiConfig, ResolvedQuoteParameters } from "./config.ts"
import type { ResolvedRoute } from "./routes.ts"

const E8 = 100_000_000n


/** `max · (amount / limit)²`, with the utilization capped at 1; no limit (MAX) means 0. */
export const utilizationFeeE4 = (maxE4: bigint, amount: bigint, limit: bigint): bigint => {
  if (limit === MAX_UINT256 || maxE4 === 0n) return 0n
  if (limit === 0n || amount >= limit) return maxE4
  return (maxE4 * amount * amount) / (limit * limit)
}

export interface FeeBreakdown {
  readonly fixedFeeUnits: bigint
  /** Variable fee in bps × 10^4. */
  readonly variableFeeE4: bigint
  /** Total fee in bps × 10^6. */
  readonly totalFeeE6: bigint
  readonly expectedAmount: bigint
  /** What the fee adapter charges: fixed + variable in token units. */
  readonly feeUnits: bigint
}

export const feeBreakdown = (amount: bigint, fixedFeeUnits: bigint, variableFeeE4: bigint): FeeBreakdown => {
  const variableUnits = (amount * variableFeeE4) / E8
  const fee = fixedFeeUnits + variableUnits
  const totalFeeE6 = variableFeeE4 * 100n + (amount === 0n ? 0n : (fixedFeeUnits * 10_000_000_000n) / amount)
  return { fixedFeeUnits, variableFeeE4, totalFeeE6, expectedAmount: amount > fee ? amount - fee : 0n, feeUnits: fee }
}

export interface FastPathQuote {
  readonly fees: FeeBreakdown
  readonly currentLimit: bigint
  readonly expectedFillSeconds: number
}

export type FastPathResult = { readonly ok: true; readonly quote: FastPathQuote } | { readonly ok: false; readonly error: string; readonly message: string }

export interface RouteQuote {
  readonly route: ResolvedRoute
  readonly fees: FeeBreakdown
  readonly currentLimit: bigint
  /** The destination the basic limit was taken from. */
  readonly bestDestination: number
  readonly fast: FastPathResult
  readonly settlementEstimate: SettlementPercentiles
}

/** Custody on the best destination (18 decimals); xERC20 destinations have no custody limit (MAX). */
export const basicLimit18 = (route: ResolvedRoute): { readonly limit18: bigint; readonly destination: number } => {
  let best = -1n
  let destination = route.destinations[0]?.domain ?? 0
  for (const d of route.destinations) {
    const liquidity = d.strategy === Strategy.XERC20 ? MAX_UINT256 : route.ticker.custodied(d.domain)
    if (liquidity > best) {
      best = liquidity
      destination = d.domain
    }
  }
  return { limit18: best < 0n ? 0n : best, destination }
}

const toInputUnits = (amount18: bigint, decimals: number): bigint => (amount18 === MAX_UINT256 ? MAX_UINT256 : normalizeDecimals(amount18, NORMALIZED_DECIMALS, decimals))

/** `tokensToUnits(fixedFeeTokens, decimals)` of the fee strings quotes use (a handful per run). */
const fixedFeeCache = new Map<string, Map<number, bigint>>()
const fixedFeeUnits = (tokens: string, decimals: number): bigint => {
  let byDecimals = fixedFeeCache.get(tokens)
  if (byDecimals === undefined) {
    if (fixedFeeCache.size >= 1024) fixedFeeCache.clear()
    fixedFeeCache.set(tokens, (byDecimals = new Map()))
  }
  let units = byDecimals.get(decimals)
  if (units === undefined) byDecimals.set(decimals, (units = tokensToUnits(tokens, decimals)))
  return units
}

/** The basic path's fees and limit (custody on the best destination), the part of a quote intent creation needs. */
export interface BasicQuote {
  readonly fees: FeeBreakdown
  readonly currentLimit: bigint
  /** The destination the limit was taken from. */
  readonly bestDestination: number
}

/** A route's fee parameters, and its fixed fee in input-token units: looked up once per quote, used by both paths. */
export interface RoutePricing {
  readonly params: ResolvedQuoteParameters
  readonly fixedFeeUnits: bigint
}

export const routePricing = (config: ClearingApiConfig, route: ResolvedRoute): RoutePricing => {
  const params = config.quoteFor(route.ticker.config.symbol)
  return { params, fixedFeeUnits: fixedFeeUnits(params.fixedFeeTokens, route.input.decimals) }
}

export const quoteBasic = (pricing: RoutePricing, route: ResolvedRoute, amount: bigint): BasicQuote => {
  const { limit18, destination } = basicLimit18(route)
  const currentLimit = toInputUnits(limit18, route.input.decimals)
  const variableE4 = utilizationFeeE4(pricing.params.maxVariableFeeE4, amount, currentLimit)
  return { fees: feeBreakdown(amount, pricing.fixedFeeUnits, variableE4), currentLimit, bestDestination: destination }
}

/**
 * The fast path's quote: fees and the operator solvers' limit on the one destination. The message of a refusal
 * is made when read (a simulation quotes a million intents and reads none of them).
 */
export const quoteFastPath = (model: ReadModel, config: ClearingApiConfig, pricing: RoutePricing, route: ResolvedRoute, amount: bigint): FastPathResult => {
  if (route.destinations.length !== 1) return { ok: false, error: "FastPathUnavailable", message: "The fast path needs exactly one destination." }
  if (route.input.strategy === Strategy.XERC20) return XERC20_NO_FAST_PATH
  const params = pricing.params
  const dest = route.output ?? route.destinations[0]!
  const inventory = model.largestSolverInventory(dest.domain, bytes32ToAddress(dest.asset))
  const fastLimit = normalizeDecimals(normalizeDecimals(inventory, dest.decimals, NORMALIZED_DECIMALS), NORMALIZED_DECIMALS, route.input.decimals)
  if (amount > fastLimit) return new OverSolverLimit(amount, fastLimit, dest.domain)
  const estimate = model.settlementTimes.estimate(route.origin, dest.domain, "fast", config.settlementPrior.fast)
  return {
    ok: true,
    quote: {
      fees: feeBreakdown(amount, pricing.fixedFeeUnits, params.fastPathFeeE4 + utilizationFeeE4(params.maxVariableFeeE4, amount, fastLimit)),
      currentLimit: fastLimit,
      expectedFillSeconds: Math.round(estimate.p50Minutes * 60),
    },
  }
}

/** The fast path of an xERC20 input: none (`POST /intents` refuses a ttl for it). */
const XERC20_NO_FAST_PATH = { ok: false, error: "FastPathUnavailable", message: "xERC20 assets take the native route with ttl 0 (no fast path)." } as const

/**
 * A fast-path refusal for an amount over the solvers' inventory, its message made when read. A class (the getter on
 * its prototype): an object literal with a getter is built through a slow path each time, and a simulation without
 * solvers makes one per quote. Its figures are private; as JSON it is `{ ok, error, message }` like the other
 * refusals (a spread copies only `ok` and `error`: read `message` by name).
 */
class OverSolverLimit {
  readonly ok = false
  readonly error = "OverSolverLimit"
  readonly #amount: bigint
  readonly #fastLimit: bigint
  readonly #domain: number

  constructor(amount: bigint, fastLimit: bigint, domain: number) {
    this.#amount = amount
    this.#fastLimit = fastLimit
    this.#domain = domain
  }

  get message(): string {
    return `The amount ${this.#amount} exceeds the fast-path limit ${this.#fastLimit} (solver inventory on domain ${this.#domain}).`
  }

  toJSON(): { readonly ok: false; readonly error: string; readonly message: string } {
    return { ok: false, error: this.error, message: this.message }
  }
}

/** A refusal as the API shows it (`fastPathQuote`): the error and its message, still made only when read. */
export const fastPathRefusal = (refusal: Extract<FastPathResult, { readonly ok: false }>): { readonly error: string; readonly message: string } => ({
  error: refusal.error,
  get message() {
    return refusal.message
  },
})

export const quoteRoute = (model: ReadModel, config: ClearingApiConfig, route: ResolvedRoute, amount: bigint): RouteQuote => {
  const pricing = routePricing(config, route)
  const basic = quoteBasic(pricing, route, amount)
  const fast = quoteFastPath(model, config, pricing, route, amount)
  const settlementEstimate = model.settlementTimes.estimate(route.origin, basic.bestDestination, "basic", config.settlementPrior.basic)
  return { route, fees: basic.fees, currentLimit: basic.currentLimit, bestDestination: basic.bestDestination, fast, settlementEstimate }
}

/** `variableFeeBps`/`totalFeeBps` as JSON numbers. */
export const e4ToBps = (e4: bigint): number => Number(e4) / 10_000
export const e6ToBps = (e6: bigint): number => Number(e6) / 1_000_000
