/**
 * How the run's overall figures add amounts of several assets: report.json's `netting` totals (nettedVolume,
 * totalVolume, ratio, bySource, byLane), its `discounts` totals (paid, settledVolume, invoicedVolume and their bps),
 * and the time series' nettingRatio, nettingRatioEpoch and discount figures. With a `priceUsd` on every asset of
 * the scenario, each asset's tokens are weighed by its price and the totals are in USD; without prices, tokens of
 * different assets are added as they are (1 WETH counts as 1 USDC), as before prices existed. Per-asset figures
 * (`byTicker`, agents' holdings) stay in each asset's own tokens.
 *
 * Exact: a price is an integer number of 10^-priceDecimals USD (priceDecimals: the most decimals any of the
 * scenario's prices is written with), so an 18-decimal amount weighed by it is an integer number of
 * 10^-(18 + priceDecimals) USD. Sums and ratios are of integers; they become numbers or decimal strings where
 * token amounts do.
 */
import { numberToDecimal } from "../../service/domain/protocol.ts"

/** The unit of the overall totals (report.json's `netting.unit` and `discounts.unit`). */
export type TotalUnit = "USD" | "tokens"

/** `amount` integer units of 10^-decimals as a decimal string, trailing zeros dropped ("1.5", "-0.000001", "2"). */
export const formatUnits = (amount: bigint, decimals: number): string => {
  const negative = amount < 0n
  const abs = negative ? -amount : amount
  const scale = 10n ** BigInt(decimals)
  const fraction = decimals === 0 ? "" : (abs % scale).toString().padStart(decimals, "0").replace(/0+$/, "")
  return `${negative ? "-" : ""}${abs / scale}${fraction === "" ? "" : `.${fraction}`}`
}

export class Valuation {
  readonly unit: TotalUnit
  /** Decimals of a weighed amount: 18 for tokens (every weight 1), 18 + the prices' decimals for USD. */
  readonly decimals: number
  /** USD only: each asset's price in 10^-(decimals - 18) USD, by symbol. */
  private readonly prices: ReadonlyMap<string, bigint>

  constructor(unit: TotalUnit, priceDecimals: number, prices: ReadonlyMap<string, bigint>) {
    this.unit = unit
    this.decimals = 18 + priceDecimals
    this.prices = prices
  }

  /** Whether the totals are weighed by price (USD); without prices every weight is 1 and nothing is multiplied. */
  get priced(): boolean {
    return this.unit === "USD"
  }

  /** What one 18-decimal unit of `symbol` counts for in a total: its price in 10^-(decimals - 18) USD, or 1. */
  weightOf(symbol: string): bigint {
    if (this.unit === "tokens") return 1n
    const price = this.prices.get(symbol)
    // The loader gives every asset a price or none: an asset without one here is a defect, not a scenario error.
    if (price === undefined) throw new Error(`asset ${symbol} has no priceUsd, while the run's totals are in USD`)
    return price
  }

  /** An 18-decimal amount of `symbol` in the totals' unit (integer units of 10^-decimals). */
  weigh(symbol: string, amount18: bigint): bigint {
    return this.unit === "tokens" ? amount18 : amount18 * this.weightOf(symbol)
  }

  /** A total as a decimal string of whole USD or tokens (report.json's totals): exact. */
  format(total: bigint): string {
    return formatUnits(total, this.decimals)
  }

  /** A total as the double nearest its exact decimal (the time series' amounts). */
  toNumber(total: bigint): number {
    return Number(this.format(total))
  }
}

/** Tokens added as they are: the totals of a scenario without prices. */
export const TOKENS: Valuation = new Valuation("tokens", 0, new Map())

/** The number of decimals a price is written with, and its digits as an integer (`"0.9998"`: 4 and 9998n). */
const priceDigits = (price: string | number): { readonly decimals: number; readonly digits: string } => {
  const text = typeof price === "number" ? numberToDecimal(price) : price
  const [whole, fraction = ""] = text.split(".")
  return { decimals: fraction.length, digits: `${whole}${fraction}` }
}

/**
 * The valuation of a scenario's assets: USD when every asset has a `priceUsd` (the loader refuses some but not
 * all), tokens when none has.
 */
export const valuationOf = (assets: readonly { readonly symbol: string; readonly priceUsd?: string | number }[]): Valuation => {
  if (assets.length === 0 || assets.some((a) => a.priceUsd === undefined)) return TOKENS
  const written = assets.map((a) => ({ symbol: a.symbol, ...priceDigits(a.priceUsd!) }))
  const priceDecimals = Math.max(...written.map((p) => p.decimals))
  const prices = new Map<string, bigint>()
  for (const p of written) prices.set(p.symbol, BigInt(p.digits) * 10n ** BigInt(priceDecimals - p.decimals))
  return new Valuation("USD", priceDecimals, prices)
}
