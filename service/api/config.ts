/**
 * Configuration of the clearing service's API: where the contracts are (registries), the fee signer, the
 * quote parameters, fast-path defaults, settlement-time priors and page sizes. Assets, domains and the hub's
 * own parameters come from the hub config; this adds what only the API needs. Every field has a documented
 * default except the registries and the fee signer key.
 */
import { type Address, type Hex, isAddress } from "../domain/hex.ts"
import type { SettlementPercentiles } from "../indexer/settlementTimes.ts"
import type { SpokesShape } from "../spoke/spoke.ts"
import { MAX_BODY_ARRAY_ITEMS } from "./errors.ts"

/** The contracts of one spoke domain that the API builds transactions for. */
export interface SpokeRegistry {
  readonly domain: number
  readonly name?: string
  readonly spoke: Address
  readonly feeAdapter: Address
}

/** Registries of every spoke domain of a `Spokes` run (the addresses of their layouts), for `spokes`. */
export const spokeRegistries = (spokes: SpokesShape): SpokeRegistry[] =>
  spokes.domains.map((domain) => {
    const chain = spokes.chain(domain)
    return { domain, spoke: chain.addresses.spoke, feeAdapter: chain.addresses.feeAdapter }
  })

export interface QuoteParameters {
  /** Flat fee per intent in whole tokens of the input asset (the route's gas cost), decimal string. Default "0". */
  readonly fixedFeeTokens?: string
  /** Variable fee at full utilization of the route's limit, bps; it grows with (amount / limit)². Default 10. */
  readonly maxVariableFeeBps?: number
  /** Fast-path fee floor (the operator solver's fee), bps. Default 3. */
  readonly fastPathFeeBps?: number
}

export interface ClearingApiConfigInput {
  /** The hub contract on the hub domain (target of hub transactions and of the JSON-RPC endpoint). */
  readonly hubAddress: Address
  /** EVM spoke registries (`POST /intents`). */
  readonly spokes: readonly SpokeRegistry[]
  /** The first alternative chain family (`/altchain1/...`); absent: those paths answer 404 registries not found. */
  readonly altchain1?: SpokeRegistry
  /** The second alternative chain family (`/altchain2/...`). */
  readonly altchain2?: SpokeRegistry
  /** Private key of the fee signer (EIP-191 signatures of FeeParams). */
  readonly feeSignerKey: Hex
  /** Signature validity after the service clock's now, seconds. Default 3600. */
  readonly feeDeadlineSeconds?: number
  /** Deadlines are rounded up to this many seconds, so equal fees share a signature. Default 60. */
  readonly feeDeadlineGranularitySeconds?: number
  /** Quote parameters for every asset, overridden per ticker symbol. */
  readonly quotes?: { readonly default?: QuoteParameters; readonly bySymbol?: Readonly<Record<string, QuoteParameters>> }
  /** Fast path: ttl given to intents created with `isFastPath` and no `ttl` (default 3600 s), the operator's solvers. */
  readonly fastPath?: { readonly ttlSeconds?: number; readonly solvers?: readonly Address[] }
  /** Settlement-time estimates until observations exist, minutes. */
  readonly settlementPrior?: { readonly basic?: SettlementPercentiles; readonly fast?: SettlementPercentiles }
  /** Default 10, maximum 100. */
  readonly pageSize?: { readonly default?: number; readonly max?: number }
  /** Most intents in one `POST /intents` array. Default 100, at most `MAX_BODY_ARRAY_ITEMS` (1000). */
  readonly maxOrderSize?: number
  /** Signatures kept in the cache. Default 10_000. */
  readonly signatureCacheSize?: number
}

export interface ResolvedQuoteParameters {
  readonly fixedFeeTokens: string
  /** bps × 10^4, an integer. */
  readonly maxVariableFeeE4: bigint
  readonly fastPathFeeE4: bigint
}

export interface ClearingApiConfig {
  readonly hubAddress: Address
  readonly spokes: ReadonlyMap<number, SpokeRegistry>
  readonly altchain1: SpokeRegistry | undefined
  readonly altchain2: SpokeRegistry | undefined
  readonly feeSignerKey: Hex
  readonly feeDeadlineSeconds: number
  readonly feeDeadlineGranularitySeconds: number
  readonly quoteFor: (symbol: string) => ResolvedQuoteParameters
  readonly fastPathTtlSeconds: number
  readonly solvers: readonly Address[]
  readonly settlementPrior: { readonly basic: SettlementPercentiles; readonly fast: SettlementPercentiles }
  readonly defaultPageSize: number
  readonly maxPageSize: number
  readonly maxOrderSize: number
  readonly signatureCacheSize: number
}

export const API_DEFAULTS = {
  feeDeadlineSeconds: 3600,
  feeDeadlineGranularitySeconds: 60,
  fixedFeeTokens: "0",
  maxVariableFeeBps: 10,
  fastPathFeeBps: 3,
  fastPathTtlSeconds: 3600,
  settlementPrior: {
    basic: { p25Minutes: 15, p50Minutes: 17.5, p75Minutes: 20, observations: 0 },
    fast: { p25Minutes: 1, p50Minutes: 1.5, p75Minutes: 2, observations: 0 },
  },
  defaultPageSize: 10,
  maxPageSize: 100,
  maxOrderSize: 100,
  signatureCacheSize: 10_000,
} as const

export class ApiConfigError extends Error {
  override readonly name = "ApiConfigError"
  readonly path: string
  readonly reason: string
  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`)
    this.path = path
    this.reason = reason
  }
}

const toE4 = (bps: number, path: string): bigint => {
  if (!Number.isFinite(bps) || bps < 0 || bps > 10_000) throw new ApiConfigError(path, "expected bps between 0 and 10000")
  return BigInt(Math.round(bps * 10_000))
}

const checkRegistry = (registry: SpokeRegistry, path: string): SpokeRegistry => {
  if (!Number.isInteger(registry.domain) || registry.domain <= 0 || registry.domain > 0xffff_ffff) throw new ApiConfigError(`${path}.domain`, "expected a uint32 chain id")
  if (!isAddress(registry.spoke)) throw new ApiConfigError(`${path}.spoke`, "expected a 20-byte address")
  if (!isAddress(registry.feeAdapter)) throw new ApiConfigError(`${path}.feeAdapter`, "expected a 20-byte address")
  return { ...registry, spoke: registry.spoke.toLowerCase() as Address, feeAdapter: registry.feeAdapter.toLowerCase() as Address }
}

export const makeApiConfig = (input: ClearingApiConfigInput): ClearingApiConfig => {
  if (!isAddress(input.hubAddress)) throw new ApiConfigError("hubAddress", "expected a 20-byte address")
  if (!/^0x[0-9a-fA-F]{64}$/.test(input.feeSignerKey)) throw new ApiConfigError("feeSignerKey", "expected a 32-byte private key")
  const spokes = new Map<number, SpokeRegistry>()
  input.spokes.forEach((s, i) => {
    const registry = checkRegistry(s, `spokes[${i}]`)
    if (spokes.has(registry.domain)) throw new ApiConfigError(`spokes[${i}].domain`, `duplicate domain ${registry.domain}`)
    spokes.set(registry.domain, registry)
  })
  const resolve = (p: QuoteParameters | undefined, base: ResolvedQuoteParameters, path: string): ResolvedQuoteParameters => ({
    fixedFeeTokens: p?.fixedFeeTokens ?? base.fixedFeeTokens,
    maxVariableFeeE4: p?.maxVariableFeeBps === undefined ? base.maxVariableFeeE4 : toE4(p.maxVariableFeeBps, `${path}.maxVariableFeeBps`),
    fastPathFeeE4: p?.fastPathFeeBps === undefined ? base.fastPathFeeE4 : toE4(p.fastPathFeeBps, `${path}.fastPathFeeBps`),
  })
  const base = resolve(
    input.quotes?.default,
    {
      fixedFeeTokens: API_DEFAULTS.fixedFeeTokens,
      maxVariableFeeE4: toE4(API_DEFAULTS.maxVariableFeeBps, ""),
      fastPathFeeE4: toE4(API_DEFAULTS.fastPathFeeBps, ""),
    },
    "quotes.default",
  )
  const bySymbol = new Map<string, ResolvedQuoteParameters>()
  for (const [symbol, p] of Object.entries(input.quotes?.bySymbol ?? {})) bySymbol.set(symbol, resolve(p, base, `quotes.bySymbol.${symbol}`))
  for (const [symbol, p] of [["default", base] as const, ...bySymbol]) {
    if (!/^(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(p.fixedFeeTokens)) throw new ApiConfigError(`quotes.${symbol}.fixedFeeTokens`, "expected a non-negative decimal")
  }
  const pageDefault = input.pageSize?.default ?? API_DEFAULTS.defaultPageSize
  const pageMax = input.pageSize?.max ?? API_DEFAULTS.maxPageSize
  if (!Number.isInteger(pageMax) || pageMax < 1) throw new ApiConfigError("pageSize.max", "expected a positive integer")
  if (!Number.isInteger(pageDefault) || pageDefault < 1 || pageDefault > pageMax) throw new ApiConfigError("pageSize.default", "expected an integer between 1 and pageSize.max")
  const maxOrderSize = input.maxOrderSize ?? API_DEFAULTS.maxOrderSize
  // The server refuses an array body of more items before reading them (server.ts).
  if (!Number.isInteger(maxOrderSize) || maxOrderSize < 1 || maxOrderSize > MAX_BODY_ARRAY_ITEMS) {
    throw new ApiConfigError("maxOrderSize", `expected an integer between 1 and ${MAX_BODY_ARRAY_ITEMS}`)
  }
  return {
    hubAddress: input.hubAddress.toLowerCase() as Address,
    spokes,
    altchain1: input.altchain1 === undefined ? undefined : checkRegistry(input.altchain1, "altchain1"),
    altchain2: input.altchain2 === undefined ? undefined : checkRegistry(input.altchain2, "altchain2"),
    feeSignerKey: input.feeSignerKey,
    feeDeadlineSeconds: input.feeDeadlineSeconds ?? API_DEFAULTS.feeDeadlineSeconds,
    feeDeadlineGranularitySeconds: input.feeDeadlineGranularitySeconds ?? API_DEFAULTS.feeDeadlineGranularitySeconds,
    quoteFor: (symbol) => bySymbol.get(symbol) ?? base,
    fastPathTtlSeconds: input.fastPath?.ttlSeconds ?? API_DEFAULTS.fastPathTtlSeconds,
    solvers: (input.fastPath?.solvers ?? []).map((s) => s.toLowerCase() as Address),
    settlementPrior: {
      basic: input.settlementPrior?.basic ?? API_DEFAULTS.settlementPrior.basic,
      fast: input.settlementPrior?.fast ?? API_DEFAULTS.settlementPrior.fast,
    },
    defaultPageSize: pageDefault,
    maxPageSize: pageMax,
    maxOrderSize,
    signatureCacheSize: input.signatureCacheSize ?? API_DEFAULTS.signatureCacheSize,
  }
}

/**
 * The service's notion of now: the simulation's virtual clock (which `clearsim up` paces to the wall clock in
 * `sim/live/realtime.ts`); the service never reads the wall clock itself.
 */
export interface ServiceClock {
  /** Unix seconds. */
  nowSeconds(): number
}

/** A clock that reads a value the simulation sets (or a constant). */
export const fixedClock = (seconds: number): ServiceClock & { set(seconds: number): void } => {
  let now = seconds
  return {
    nowSeconds: () => now,
    set: (s) => {
      now = s
    },
  }
}
