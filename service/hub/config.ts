/**
 * Hub configuration: global parameters (PROTOCOL.md "Time" and "Hub behaviour") and per-ticker token configs
 * (reference §2.2). Defaults are the production mainnet values of reference §2.3.
 */
import { assetHash, tickerHash } from "../domain/encoding.ts"
import { type Bytes32, toBytes32 } from "../domain/hex.ts"
import { DBPS_DENOMINATOR_NUMBER, Strategy, strategyFromName, type StrategyName } from "../domain/protocol.ts"

export interface ProtocolFee {
  /** Fee-vault owner (bytes32). */
  readonly recipient: Bytes32
  /** Fee in dbps of the intent amount. */
  readonly feeDbps: number
}

export interface DomainAsset {
  readonly domain: number
  /** The adopted token on that domain (bytes32). */
  readonly asset: Bytes32
  readonly decimals: number
  readonly strategy: Strategy
  readonly assetHash: Bytes32
}

export interface TickerConfig {
  readonly symbol: string
  readonly tickerHash: Bytes32
  readonly discountPerEpochDbps: number
  readonly maxDiscountDbps: number
  readonly prioritizedStrategy: Strategy
  readonly fees: readonly ProtocolFee[]
  /** The ticker's domains in configured order (the order every loop and tie-break uses). */
  readonly domains: readonly DomainAsset[]
}

/** The ticker's protocol fees together, dbps (each is floored separately at intake; this is their rate). */
export const totalProtocolFeeDbps = (ticker: TickerConfig): number => ticker.fees.reduce((n, f) => n + f.feeDbps, 0)

export interface GasConfig {
  readonly settlementBaseGasUnits: bigint
  readonly averageGasUnitsPerSettlement: bigint
  readonly bufferDbps: bigint
}

export interface HubConfig {
  /** The hub's own domain id (origin of SETTLEMENT messages). */
  readonly hubDomain: number
  readonly epochLengthBlocks: number
  readonly expiryTimeBufferSeconds: number
  /** Epochs after entry that an invoice is not discounted beyond the structural one (PROTOCOL.md; default 0). */
  readonly discountExemptEpochs: number
  /** Cap a ttl=0 intent's discount by its `maxFee` (PROTOCOL.md; default true). */
  readonly userMaxDiscount: boolean
  /**
   * Accept fast-path intents whose output asset belongs to another ticker (swaps, as SPEC.md describes; the
   * solver is repaid in the input ticker). Default true; false gives the V1 contracts' check (UNSUPPORTED).
   */
  readonly allowFastPathSwaps: boolean
  readonly minSolverSupportedDomains: number
  readonly gasConfig: GasConfig
  /** Gas limit of one settlement batch per domain; domains not listed use `defaultDomainGasLimit`. */
  readonly domainGasLimit: ReadonlyMap<number, bigint>
  readonly defaultDomainGasLimit: bigint
  /** Hub-supported spoke domains, in order (the union of ticker domains unless given). */
  readonly supportedDomains: readonly number[]
  readonly tickers: readonly TickerConfig[]
  /**
   * Access (reference §3.2, §3.14): the owner may pause, unpause and call `receiveMessage` directly; the watchtower
   * may pause and unpause; ADMIN accounts may call `receiveMessage` directly. Undefined/empty: nobody holds the role
   * (a pause then reverts `Hub_Unauthorized`).
   */
  readonly owner: Bytes32 | undefined
  readonly watchtower: Bytes32 | undefined
  readonly admins: readonly Bytes32[]
}

/** Plain-data description of a hub config, as written in trace files and scenarios. */
export interface HubConfigInput {
  readonly hubDomain?: number
  readonly epochLength?: number
  readonly expiryTimeBuffer?: number
  readonly discountExemptEpochs?: number
  readonly userMaxDiscount?: boolean
  readonly allowFastPathSwaps?: boolean
  readonly minSolverSupportedDomains?: number
  readonly gasConfig?: { readonly settlementBaseGasUnits: number; readonly averageGasUnitsPerSettlement: number; readonly bufferDBPS: number }
  readonly domainGasLimit?: number
  readonly supportedDomains?: readonly number[]
  /** The hub's owner, watchtower and ADMIN accounts (addresses or bytes32); see `HubConfig.owner`. */
  readonly owner?: string
  readonly watchtower?: string
  readonly admins?: readonly string[]
  readonly tickers: readonly {
    readonly symbol: string
    readonly discountPerEpoch?: number
    readonly maxDiscountDbps?: number
    readonly prioritizedStrategy?: StrategyName
    readonly fees?: readonly { readonly recipient: string; readonly fee: number }[]
    readonly domains: readonly { readonly domain: number; readonly asset: string; readonly decimals: number; readonly strategy?: StrategyName }[]
  }[]
}

export const HUB_DEFAULTS = {
  hubDomain: 25327,
  epochLength: 40,
  expiryTimeBuffer: 12 * 60 * 60,
  discountExemptEpochs: 0,
  userMaxDiscount: true,
  allowFastPathSwaps: true,
  minSolverSupportedDomains: 2,
  discountPerEpoch: 3,
  maxDiscountDbps: 12,
  protocolFeeDbps: 2,
  gasConfig: { settlementBaseGasUnits: 40_000, averageGasUnitsPerSettlement: 50_000, bufferDBPS: 10_000 },
  domainGasLimit: 30_000_000,
} as const

/** A configuration the hub cannot run with; `path` names the offending field. */
export class HubConfigError extends Error {
  override readonly name = "HubConfigError"
  readonly path: string
  readonly reason: string
  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`)
    this.path = path
    this.reason = reason
  }
}

/** `value` when it is a whole number of `unit` (the contracts' unsigned integers), else a `HubConfigError` at `path`. */
const wholeNumber = (path: string, value: number, unit: string): number => {
  if (!Number.isSafeInteger(value) || value < 0) throw new HubConfigError(path, `expected a non-negative integer number of ${unit}, got ${value}`)
  return value
}

/** Validates and normalizes a config (the checks of `AssetManager`: dbps bounds, fee sum, no duplicates). */
export const makeHubConfig = (input: HubConfigInput): HubConfig => {
  const epochLength = input.epochLength ?? HUB_DEFAULTS.epochLength
  if (!Number.isInteger(epochLength) || epochLength <= 0) throw new HubConfigError("epochLength", "must be a positive integer number of hub blocks")
  const expiryTimeBuffer = wholeNumber("expiryTimeBuffer", input.expiryTimeBuffer ?? HUB_DEFAULTS.expiryTimeBuffer, "seconds")
  const discountExemptEpochs = wholeNumber("discountExemptEpochs", input.discountExemptEpochs ?? HUB_DEFAULTS.discountExemptEpochs, "epochs")
  const minSolverSupportedDomains = wholeNumber(
    "minSolverSupportedDomains",
    input.minSolverSupportedDomains ?? HUB_DEFAULTS.minSolverSupportedDomains,
    "domains",
  )
  const symbols = new Set<string>()
  const tickers = input.tickers.map((t, i): TickerConfig => {
    const at = `tickers[${i}]`
    if (t.symbol.length === 0) throw new HubConfigError(`${at}.symbol`, "must not be empty")
    if (symbols.has(t.symbol)) throw new HubConfigError(`${at}.symbol`, `duplicate ticker ${t.symbol}`)
    symbols.add(t.symbol)
    const maxDiscountDbps = wholeNumber(`${at}.maxDiscountDbps`, t.maxDiscountDbps ?? HUB_DEFAULTS.maxDiscountDbps, "dbps")
    const discountPerEpochDbps = wholeNumber(`${at}.discountPerEpoch`, t.discountPerEpoch ?? HUB_DEFAULTS.discountPerEpoch, "dbps")
    // AssetManager: HubStorage_InvalidDbpsValue unless maxDiscountDbps <= 100_000 and discountPerEpoch <= maxDiscountDbps.
    if (maxDiscountDbps > DBPS_DENOMINATOR_NUMBER) {
      throw new HubConfigError(`${at}.maxDiscountDbps`, `ticker ${t.symbol}: expected at most ${DBPS_DENOMINATOR_NUMBER} dbps, got ${maxDiscountDbps}`)
    }
    if (discountPerEpochDbps > maxDiscountDbps) {
      throw new HubConfigError(
        `${at}.discountPerEpoch`,
        `ticker ${t.symbol}: expected at most its maxDiscountDbps (${maxDiscountDbps} dbps), got ${discountPerEpochDbps}`,
      )
    }
    const fees = (t.fees ?? []).map((f, j): ProtocolFee => {
      const recipient = toBytes32(f.recipient)
      if (recipient === undefined) throw new HubConfigError(`${at}.fees[${j}].recipient`, "expected an address or bytes32")
      return { recipient, feeDbps: wholeNumber(`${at}.fees[${j}].fee`, f.fee, "dbps") }
    })
    const feeSum = fees.reduce((sum, f) => sum + f.feeDbps, 0)
    if (feeSum > DBPS_DENOMINATOR_NUMBER) {
      throw new HubConfigError(
        `${at}.fees`,
        `ticker ${t.symbol}: expected the fees to sum to at most ${DBPS_DENOMINATOR_NUMBER} dbps, got ${feeSum} (${fees.map((f) => f.feeDbps).join(" + ")})`,
      )
    }
    const seen = new Set<number>()
    const domains = t.domains.map((d, j): DomainAsset => {
      if (seen.has(d.domain)) throw new HubConfigError(`${at}.domains[${j}].domain`, `duplicate domain ${d.domain}`)
      seen.add(d.domain)
      const asset = toBytes32(d.asset)
      if (asset === undefined) throw new HubConfigError(`${at}.domains[${j}].asset`, "expected an address or bytes32")
      if (!Number.isInteger(d.decimals) || d.decimals < 0 || d.decimals > 255) {
        throw new HubConfigError(`${at}.domains[${j}].decimals`, `expected an ERC-20's decimals (an integer from 0 to 255), got ${d.decimals}`)
      }
      return { domain: d.domain, asset, decimals: d.decimals, strategy: strategyFromName(d.strategy ?? "default"), assetHash: assetHash(asset, d.domain) }
    })
    return {
      symbol: t.symbol,
      tickerHash: tickerHash(t.symbol),
      discountPerEpochDbps,
      maxDiscountDbps,
      prioritizedStrategy: strategyFromName(t.prioritizedStrategy ?? "default"),
      fees,
      domains,
    }
  })
  // An asset on a domain belongs to one ticker (`adoptedForAssets[assetHash].tickerHash`, reference §2.2, §3.3): two
  // tickers listing it would share its custody on chain, and intake here would credit it to the later one only.
  const listedBy = new Map<Bytes32, string>()
  tickers.forEach((t, i) =>
    t.domains.forEach((d, j) => {
      const other = listedBy.get(d.assetHash)
      if (other !== undefined) {
        throw new HubConfigError(`tickers[${i}].domains[${j}].asset`, `asset ${d.asset} on domain ${d.domain} is already an asset of ticker ${other}; an asset belongs to one ticker`)
      }
      listedBy.set(d.assetHash, t.symbol)
    }),
  )
  const supportedDomains: number[] = [...(input.supportedDomains ?? [])]
  for (const t of tickers) for (const d of t.domains) if (!supportedDomains.includes(d.domain)) supportedDomains.push(d.domain)
  const gas = input.gasConfig ?? HUB_DEFAULTS.gasConfig
  const settlementBaseGasUnits = wholeNumber("gasConfig.settlementBaseGasUnits", gas.settlementBaseGasUnits, "gas units")
  const averageGasUnitsPerSettlement = wholeNumber("gasConfig.averageGasUnitsPerSettlement", gas.averageGasUnitsPerSettlement, "gas units")
  const bufferDbps = wholeNumber("gasConfig.bufferDBPS", gas.bufferDBPS, "dbps")
  // ProtocolManager.updateGasConfig: bufferDBPS <= 100_000 (reference §3.14).
  if (bufferDbps > DBPS_DENOMINATOR_NUMBER) throw new HubConfigError("gasConfig.bufferDBPS", `expected at most ${DBPS_DENOMINATOR_NUMBER} dbps, got ${bufferDbps}`)
  const account = (path: string, value: string | undefined): Bytes32 | undefined => {
    if (value === undefined) return undefined
    const word = toBytes32(value)
    if (word === undefined) throw new HubConfigError(path, `expected an address or bytes32, got ${JSON.stringify(value)}`)
    return word
  }
  const owner = account("owner", input.owner)
  const watchtower = account("watchtower", input.watchtower)
  const admins = (input.admins ?? []).map((a, i) => account(`admins[${i}]`, a)!)
  return {
    hubDomain: input.hubDomain ?? HUB_DEFAULTS.hubDomain,
    epochLengthBlocks: epochLength,
    expiryTimeBufferSeconds: expiryTimeBuffer,
    discountExemptEpochs,
    userMaxDiscount: input.userMaxDiscount ?? HUB_DEFAULTS.userMaxDiscount,
    allowFastPathSwaps: input.allowFastPathSwaps ?? HUB_DEFAULTS.allowFastPathSwaps,
    minSolverSupportedDomains,
    gasConfig: {
      settlementBaseGasUnits: BigInt(settlementBaseGasUnits),
      averageGasUnitsPerSettlement: BigInt(averageGasUnitsPerSettlement),
      bufferDbps: BigInt(bufferDbps),
    },
    domainGasLimit: new Map(),
    defaultDomainGasLimit: BigInt(input.domainGasLimit ?? HUB_DEFAULTS.domainGasLimit),
    supportedDomains,
    tickers,
    owner,
    watchtower,
    admins,
  }
}

