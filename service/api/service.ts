/**
 * The operations of the clearing service: one implementation, used in-process by the simulator's agents (no
 * HTTP) and by the HTTP handlers, which only decode, call and encode.
 *
 * `ClearingService` methods return Effects whose failures are the API's tagged errors (`BadRequest`,
 * `NotFound`); their bodies are synchronous except the fee signature. Reads go to the `ReadModel` and the hub
 * state; nothing here writes to either, except `hubRpc` (the hub domain's JSON-RPC), which applies signed hub
 * transactions. Time comes from the injected `ServiceClock`.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type Address, addressToBytes32, type Bytes32, bytes32ToAddress, ZERO_ADDRESS, type Hex } from "../domain/hex.ts"
import { IntentStatus, IntentStatusName, MAX_UINT256, NORMALIZED_DECIMALS, normalizeDecimals, powerOfTen, Strategy, strategyName } from "../domain/protocol.ts"
import type { HubRevert } from "../hub/errors.ts"
import type { Hub, HubInput } from "../hub/hub.ts"
import type { TickerState } from "../hub/state.ts"
import type { InvoiceQuery } from "../indexer/invoices.ts"
import type { InvoiceMinAmounts } from "../indexer/minAmounts.ts"
import type { BatchQuery, IntentEntry, IntentQuery, ReadModel } from "../indexer/readModel.ts"
import {
  API_INTENT_STATUSES,
  type ApiIntentStatus,
  type BatchRecord,
  type IntentRecord,
  type InvoiceProcessingHistoryEntry,
  type InvoiceRecord,
} from "../indexer/records.ts"
import { type ClearingApiConfig, type ClearingApiConfigInput, makeApiConfig, type ServiceClock, type SpokeRegistry } from "./config.ts"
import { type ApiFailure, BadRequest, badRequest, NotFound, notFound, registriesNotFound } from "./errors.ts"
import { FeeSigner } from "./feeSigner.ts"
import { checkPermitUint, hasPermit2Signature, intentPermit2TypedData, type Permit2Params, parsePermit2Params } from "./permit2.ts"
import { HubRpc, type HubTransactionResult, type JsonRpcResponse } from "./hubRpc.ts"
import {
  parseAddress,
  parseAddressWord,
  parseAmount,
  parseBoolean,
  parseBytes32,
  parseCalldata,
  parseCursor,
  parseDomain,
  parseDomains,
  parseIntentId,
  parseLimit,
  parseOptionalAddress,
  parseUint,
  splitList,
} from "./parse.ts"
import { basicLimit18, e4ToBps, e6ToBps, fastPathRefusal, type FeeBreakdown, quoteBasic, quoteFastPath, quoteRoute, type RouteQuote, routePricing } from "./quotes.ts"
import { type ResolvedRoute, resolveRoute } from "./routes.ts"
import type {
  Altchain1IntentRequest,
  ExecuteRequest,
  IntentRequest,
  IntentsPayload,
  LimitsRequest,
  LookupTableRequest,
  QuoteRequest,
  TransactionRequest,
} from "./schemas.ts"
import { encodeNewIntentFast } from "./feeAdapterCalldata.ts"
import {
  encodeApproveMax,
  encodeExecuteIntentCalldata,
  encodeHubCall,
  encodeNewIntentPermit2,
  encodeNewOrder,
  type HubFunctionName,
  type OrderParameters,
  transactionRequest,
} from "./transactions.ts"
import type { ContractFunctionArgs } from "viem"
import type { SpokeCall } from "../spoke/calls.ts"
import type { HubAbi } from "./hubAbi.ts"

// ---------------------------------------------------------------------------------------------------------
// Query inputs (the decoded HTTP query strings; in-process callers pass the same shapes)

export interface IntentsQueryInput {
  readonly cursor?: string
  readonly prevCursor?: string
  readonly limit?: string
  readonly statuses?: readonly string[]
  readonly "statuses[]"?: readonly string[]
  readonly origins?: readonly string[]
  readonly "origins[]"?: readonly string[]
  readonly destinations?: readonly string[]
  readonly "destinations[]"?: readonly string[]
  readonly allDestinations?: readonly string[]
  readonly "allDestinations[]"?: readonly string[]
  readonly txHash?: string
  readonly userAddress?: string
  readonly startDate?: string
  readonly endDate?: string
  readonly isFastPath?: string
  readonly tickerHash?: string
  readonly asset?: string
}

export interface InvoicesQueryInput {
  readonly cursor?: string
  readonly prevCursor?: string
  readonly limit?: string
  readonly tickerHash?: string
  readonly origins?: readonly string[]
  readonly "origins[]"?: readonly string[]
  readonly destinations?: readonly string[]
  readonly "destinations[]"?: readonly string[]
  readonly sortOrderByDiscount?: "asc" | "desc"
}

export interface BatchesQueryInput {
  readonly cursor?: string
  readonly limit?: string
  readonly isFastPath?: string
  readonly origins?: readonly string[]
  readonly "origins[]"?: readonly string[]
}

export interface AssetsQueryInput {
  readonly page?: string
  readonly limit?: string
  readonly type?: "default" | "xerc20"
  readonly domain?: string
}

export interface HistoryQueryInput {
  readonly cursor?: string
  readonly limit?: string
  readonly domain?: string
  readonly asset?: string
}

// ---------------------------------------------------------------------------------------------------------
// Outputs

export interface IntentsPageOutput {
  readonly intents: readonly IntentRecord[]
  readonly nextCursor: string | null
  readonly prevCursor: string | null
  readonly maxCount: number
}

export interface InvoicesPageOutput {
  readonly invoices: readonly InvoiceRecord[]
  readonly nextCursor: string | null
  readonly prevCursor: string | null
  readonly maxCount: number
}

export interface MinAmountsOutput {
  readonly invoiceAmount: string
  readonly amountAfterDiscounts: Readonly<Record<string, string>>
  readonly discountBps: string
  readonly custodiedAmounts: Readonly<Record<string, string>>
  readonly minAmounts: Readonly<Record<string, string>>
}

export interface AssetConfigOutput {
  readonly local: string
  readonly adopted: string
  readonly canonical_id: string
  readonly canonical_domain: string
  readonly domain: string
  readonly key: string
  readonly id: string
  readonly decimal: number
  readonly adopted_decimal: number
}

/** A quote before it is written out (`ClearingService.quoteValuesNow`). */
export type QuoteValues =
  | { readonly reqType: "invalid"; readonly invalidReason: string }
  | { readonly reqType: Exclude<ResolvedRoute["reqType"], "invalid">; readonly quote: RouteQuote }

export interface QuoteOutput {
  readonly fixedFeeUnits: string
  readonly variableFeeBps: number
  readonly totalFeeBps: number
  readonly expectedAmount: string
  readonly currentLimit: string
  readonly splitCount: number
  readonly reqType: "bridge" | "swap" | "x-swap" | "invalid"
  readonly fastPathQuote?:
    | { readonly fixedFeeUnits: string; readonly variableFeeBps: number; readonly totalFeeBps: number; readonly expectedAmount: string; readonly expectedFillTime: string }
    | { readonly error: string; readonly message: string }
  readonly settlementEstimate: { readonly p25Minutes: number; readonly p50Minutes: number; readonly p75Minutes: number }
}

export interface HealthOutput {
  readonly status: "ok"
  readonly hubDomain: number
  readonly hubBlockNumber: number
  readonly epoch: number
  readonly intents: number
  readonly openInvoices: number
}

export interface HistoryOutput {
  readonly invoiceProcessingHistory: readonly InvoiceProcessingHistoryEntry[]
  readonly nextCursor: string | null
}

export interface ClearingDeps {
  readonly hub: Hub
  readonly model: ReadModel
  readonly config: ClearingApiConfig | ClearingApiConfigInput
  readonly clock: ServiceClock
  /** Observes hub transactions applied through the JSON-RPC endpoint. */
  readonly onHubTransaction?: (result: HubTransactionResult) => void
  /**
   * Applies the hub calls of JSON-RPC transactions (default: `hub.apply`). Simulations and live devnets pass
   * their world's `applyHub`, so that such calls are traced and their SETTLEMENT messages transported.
   */
  readonly applyHubInput?: (input: HubInput) => HubRevert | undefined
}

/** Runs a synchronous operation that throws the API's failures; anything else is a defect (a 500). */
const attempt = <A>(f: () => A): Effect.Effect<A, ApiFailure> =>
  Effect.suspend(() => {
    try {
      return Effect.succeed(f())
    } catch (error) {
      if (error instanceof BadRequest || error instanceof NotFound) return Effect.fail(error)
      return Effect.die(error)
    }
  })

/**
 * Whether `amount` (input-token units) covers `fee` with something left at the hub's 18 decimals. A module
 * function rather than a closure per quote (tsx's `keepNames` would wrap each closure in `__name`).
 */
const coversFee = (amount: bigint, fee: bigint, decimals: number): boolean => amount > fee && normalizeDecimals(amount - fee, decimals, NORMALIZED_DECIMALS) > 0n

const STATUS_SET: ReadonlySet<string> = new Set(API_INTENT_STATUSES)
const batchView = (b: BatchRecord) => ({ batchId: b.batchId, token_fee: b.token_fee, native_fee: b.native_fee, intents: b.intents })

interface PreparedIntent {
  readonly origin: number
  readonly registry: SpokeRegistry
  readonly from: Address
  readonly order: OrderParameters
  readonly tokenFee: bigint
  /** A real `permit2Params` (not a placeholder): the adapter pulls through Permit2. */
  readonly permit2: Permit2Params | undefined
}

type Family = "evm" | "altchain1" | "altchain2"

/**
 * Spokes normalize amounts to 18 decimals (reference §3.13), a checked multiplication for tokens of fewer
 * decimals: an amount whose hub amount exceeds a uint256 would panic on-chain. Refused here, naming the limit.
 */
const checkHubAmount = (field: string, amount: bigint, decimals: number): void => {
  if (decimals >= NORMALIZED_DECIMALS) return
  const limit = (HUB_AMOUNT_LIMITS[decimals] ??= MAX_UINT256 / powerOfTen(NORMALIZED_DECIMALS - decimals))
  if (amount > limit) {
    throw badRequest(
      "InvalidAmount",
      `${field}: ${amount} exceeds the largest amount of this ${decimals}-decimal token, ${limit} units, whose 18-decimal hub amount fits in a uint256.`,
    )
  }
}

/** The largest token amount of each decimals (below 18) whose 18-decimal hub amount fits in a uint256. */
const HUB_AMOUNT_LIMITS: bigint[] = []

/**
 * Refuses an amount that leaves nothing once `fee` is taken, or less than one unit of the 18-decimal hub amount
 * (as `POST /intents` and the quotes both do).
 */
const checkCoversFee = (field: string, amount: bigint, fee: bigint, decimals: number): void => {
  if (amount <= fee) throw badRequest("InvalidAmount", `${field}: ${amount} does not cover the fee of ${fee} token units.`)
  if (normalizeDecimals(amount - fee, decimals, NORMALIZED_DECIMALS) === 0n) {
    throw badRequest("InvalidAmount", `${field}: ${amount} is below one unit of the 18-decimal hub amount.`)
  }
}

/** A request field's name in error messages (`[2].amount` in an order). Module-level: no closure per request. */
const fieldName = (prefix: string, name: string): string => (prefix === "" ? name : `${prefix}${name}`)

/** An intent's receiver: an address, not the zero address (settling to it fails on the destination, where tokens refuse it, so the intent could never complete). */
const parseReceiver = (field: string, value: string): Address => {
  const to = parseAddress(field, value)
  if (to === ZERO_ADDRESS) throw badRequest("InvalidAddress", `${field}: expected the receiver's address, got the zero address.`)
  return to
}

/** A transaction's sender: an address, not the zero address (no key signs for it, so the transaction could never be sent). */
const parseSender = (field: string, value: string): Address => {
  const from = parseAddress(field, value)
  if (from === ZERO_ADDRESS) throw badRequest("InvalidAddress", `${field}: expected the sender's address, got the zero address.`)
  return from
}

/** A `POST /intents` answer as the typed call it encodes: what to submit, where, from whom, with what native value. */
export interface IntentCall {
  readonly chainId: number
  readonly to: Address
  readonly from: Address
  readonly value: bigint
  readonly call: SpokeCall
}

export class ClearingService {
  readonly config: ClearingApiConfig
  readonly hub: Hub
  readonly model: ReadModel
  readonly clock: ServiceClock
  readonly feeSigner: FeeSigner
  /** The hub domain's JSON-RPC endpoint (also served over HTTP at `POST /hub/rpc`). */
  readonly hubRpc: HubRpc

  constructor(deps: ClearingDeps) {
    this.config = "quoteFor" in deps.config ? deps.config : makeApiConfig(deps.config)
    this.hub = deps.hub
    this.model = deps.model
    this.clock = deps.clock
    this.feeSigner = new FeeSigner(this.config.feeSignerKey, this.config.signatureCacheSize)
    this.hubRpc = new HubRpc(deps.hub, {
      hubAddress: this.config.hubAddress,
      ...(deps.onHubTransaction === undefined ? {} : { onTransaction: deps.onHubTransaction }),
      ...(deps.applyHubInput === undefined ? {} : { apply: deps.applyHubInput }),
    })
  }

  // -------------------------------------------------------------------------------------------------------
  // Intents

  /** `POST /intents`: one intent → `FeeAdapter.newIntent`, an array → `FeeAdapter.newOrder`. */
  createIntents(payload: IntentsPayload): Effect.Effect<TransactionRequest, ApiFailure> {
    return this.buildIntents(payload, "evm")
  }

  /** `POST /altchain1/intents`: amounts and `maxFee` in the input token's units; netting intents. */
  createAltchain1Intent(request: Altchain1IntentRequest): Effect.Effect<TransactionRequest, ApiFailure> {
    return Effect.suspend(() => {
      try {
        const amount = parseAmount("amount", request.amount, { positive: true })
        const maxFeeUnits = request.maxFee === undefined ? 0n : parseAmount("maxFee", request.maxFee)
        // The on-chain maxFee is dbps of the amount: the largest dbps whose fee stays within maxFee.
        const maxFeeDbps = amount === 0n ? 0n : (maxFeeUnits * 100_000n) / amount
        const single: IntentRequest = {
          origin: request.origin,
          destinations: request.destinations,
          to: request.to,
          from: request.from,
          inputAsset: request.inputAsset,
          amount: request.amount,
          ...(request.callData === undefined ? {} : { callData: request.callData }),
          max_fee: String(maxFeeDbps > 100_000n ? 100_000n : maxFeeDbps),
        }
        return this.buildIntents(single, "altchain1", maxFeeUnits)
      } catch (error) {
        if (error instanceof BadRequest || error instanceof NotFound) return Effect.fail(error)
        return Effect.die(error)
      }
    })
  }

  /** `POST /altchain2/intents`: the `POST /intents` single-object rules on the second alternative chain. */
  createAltchain2Intent(request: IntentRequest): Effect.Effect<TransactionRequest, ApiFailure> {
    return this.buildIntents(request, "altchain2")
  }

  /**
   * `POST /altchain1/create-lookup-table`: the one-time account set-up of a new user. On our EVM-modelled
   * alternative chain that is the ERC-20 approval of the fee adapter for the input asset.
   */
  createLookupTable(request: LookupTableRequest): Effect.Effect<TransactionRequest, ApiFailure> {
    return attempt(() => {
      const registry = this.altchain("altchain1")
      const user = parseSender("user", request.user)
      const asset = parseAddress("inputAsset", request.inputAsset)
      if (this.hub.state.assetOn(registry.domain, addressToBytes32(asset)) === undefined) {
        throw badRequest("UnsupportedAsset", `inputAsset: ${asset} is not a supported asset on domain ${registry.domain}.`)
      }
      return transactionRequest({ to: asset, from: user, data: encodeApproveMax(registry.feeAdapter), chainId: registry.domain })
    })
  }

  private altchain(family: "altchain1" | "altchain2"): SpokeRegistry {
    const registry = this.config[family]
    if (registry === undefined) throw notFound("RegistriesNotFound", `No registries are deployed for ${family}: no ${family} chain is configured.`)
    return registry
  }

  private registryFor(family: Family, origin: number, field: string): SpokeRegistry {
    if (family === "evm") {
      const registry = this.config.spokes.get(origin)
      if (registry === undefined) throw registriesNotFound(String(origin))
      return registry
    }
    const registry = this.altchain(family)
    if (registry.domain !== origin) throw badRequest("InvalidDomain", `${field}: expected the ${family} domain ${registry.domain}, got ${origin}.`)
    return registry
  }

  /**
   * One intent's checks, fees and order parameters. `altchain1MaxFeeUnits`: the first alternative chain's `maxFee`, in
   * token units (its body's field, which `request.max_fee` carries converted to dbps).
   */
  private prepareIntent(request: IntentRequest, prefix: string, family: Family, inOrder: boolean, altchain1MaxFeeUnits?: bigint): PreparedIntent {
    const origin = parseDomain(fieldName(prefix, "origin"), request.origin)
    const registry = this.registryFor(family, origin, fieldName(prefix, "origin"))
    const destinations = parseDomains(fieldName(prefix, "destinations"), request.destinations)
    const to = parseReceiver(fieldName(prefix, "to"), request.to)
    const from = parseSender(fieldName(prefix, "from"), request.from)
    const inputAsset = parseAddress(fieldName(prefix, "inputAsset"), request.inputAsset)
    let outputAsset = parseOptionalAddress(fieldName(prefix, "outputAsset"), request.outputAsset)
    const amount = parseAmount(fieldName(prefix, "amount"), request.amount, { positive: true })
    const data = parseCalldata(fieldName(prefix, "callData"), request.callData)
    const maxFeeA = request.max_fee === undefined ? undefined : parseUint(fieldName(prefix, "max_fee"), request.max_fee, 100_000, "InvalidMaxFee")
    const maxFeeB = request.maxFee === undefined ? undefined : parseUint(fieldName(prefix, "maxFee"), request.maxFee, 100_000, "InvalidMaxFee")
    if (maxFeeA !== undefined && maxFeeB !== undefined && maxFeeA !== maxFeeB) {
      throw badRequest("InvalidMaxFee", `${fieldName(prefix, "max_fee")}: max_fee (${maxFeeA}) and maxFee (${maxFeeB}) disagree; give one of them.`)
    }
    const requestedMaxFee = maxFeeA ?? maxFeeB
    const requestedTtl = request.ttl === undefined ? undefined : parseUint(fieldName(prefix, "ttl"), request.ttl, 2 ** 48 - 1, "InvalidTtl")
    if (request.isFastPath === false && requestedTtl !== undefined && requestedTtl > 0) {
      throw badRequest("InvalidTtl", `${fieldName(prefix, "ttl")}: a ttl above 0 selects the fast path, but isFastPath is false.`)
    }
    if (request.isFastPath === true && requestedTtl === 0) {
      throw badRequest("InvalidTtl", `${fieldName(prefix, "ttl")}: a ttl of 0 selects the basic path, but isFastPath is true (omit ttl for the default of ${this.config.fastPathTtlSeconds} s).`)
    }
    const fast = request.isFastPath === true || (requestedTtl ?? 0) > 0
    const route = resolveRoute(this.hub, origin, destinations, inputAsset, outputAsset, prefix)
    if (route.reqType === "invalid") throw badRequest("UnsupportedSwap", `${prefix}${route.invalidReason}`)
    checkHubAmount(fieldName(prefix, "amount"), amount, route.input.decimals)
    if (route.reqType === "swap" && request.isFastPath !== true && (requestedTtl ?? 0) === 0) {
      throw badRequest("SwapNeedsFastPath", `${fieldName(prefix, "outputAsset")}: a swap into another asset is filled by a solver: set isFastPath true (or a ttl above 0).`)
    }
    const xerc20 = route.input.strategy === Strategy.XERC20
    // On the first alternative chain the field is maxFee, in token units: any fee is refused, even one below 1 dbps of the amount.
    if (xerc20 && (altchain1MaxFeeUnits === undefined ? (requestedMaxFee ?? 0) > 0 : altchain1MaxFeeUnits > 0n)) {
      throw badRequest("InvalidMaxFee", `${fieldName(prefix, altchain1MaxFeeUnits === undefined ? "max_fee" : "maxFee")}: must be 0 for the xERC20 asset ${inputAsset}.`)
    }
    if (xerc20 && fast) throw badRequest("InvalidTtl", `${fieldName(prefix, "ttl")}: xERC20 assets take the native route with ttl 0 (no fast path).`)
    let ttl = 0
    if (fast) {
      if (destinations.length !== 1) throw badRequest("InvalidRoute", `${fieldName(prefix, "destinations")}: the fast path needs exactly one destination.`)
      ttl = requestedTtl !== undefined && requestedTtl > 0 ? requestedTtl : this.config.fastPathTtlSeconds
      outputAsset ??= bytes32ToAddress(route.destinations[0]!.asset)
    }
    const pricing = routePricing(this.config, route)
    const quote = quoteBasic(pricing, route, amount)
    let fees: FeeBreakdown = quote.fees
    let maxFee = requestedMaxFee ?? 0
    if (fast) {
      // The fee adapter takes the fixed part; the solver takes the variable part from the amount it delivers.
      // Over the solvers' limit the solver fee cap is the fast-path fee plus the whole variable fee.
      const params = pricing.params
      const fastQuote = quoteFastPath(this.model, this.config, pricing, route, amount)
      const variableE4 = fastQuote.ok ? fastQuote.quote.fees.variableFeeE4 : params.fastPathFeeE4 + params.maxVariableFeeE4
      fees = { ...quote.fees, variableFeeE4: variableE4, feeUnits: quote.fees.fixedFeeUnits }
      if (requestedMaxFee === undefined) {
        const variableDbps = (variableE4 + 999n) / 1000n
        maxFee = Number(variableDbps > 100_000n ? 100_000n : variableDbps)
      }
    }
    const tokenFee = fees.feeUnits
    checkCoversFee(fieldName(prefix, "amount"), amount, tokenFee, route.input.decimals)
    const intentAmount = amount - tokenFee
    // An order's permit2Params are placeholders (SPEC) unless they carry a real signature, which prepareIntents
    // refuses; a single intent's are parsed strictly.
    const permit2 = family === "evm" && !inOrder ? parsePermit2Params(fieldName(prefix, "permit2Params"), request.permit2Params) : undefined
    return { origin, registry, from, tokenFee, permit2, order: { destinations, receiver: to, inputAsset, outputAsset: outputAsset ?? ZERO_ADDRESS, amount: intentAmount, maxFee, ttl, data } }
  }

  private buildIntents(payload: IntentsPayload, family: Family, altchain1MaxFeeUnits?: bigint): Effect.Effect<TransactionRequest, ApiFailure> {
    return Effect.map(this.buildIntentsWithCall(payload, family, altchain1MaxFeeUnits), (built) => built.tx)
  }

  /**
   * `POST /intents` for in-process callers (the simulator's agents): the transaction request and the typed
   * spoke call it encodes, so that a caller holding a `SpokeChain` can submit the call without decoding the
   * calldata back. Same validation, fees and signature as `createIntents`.
   */
  createIntentsWithCall(payload: IntentsPayload): Effect.Effect<{ readonly tx: TransactionRequest; readonly call: SpokeCall }, ApiFailure> {
    return this.buildIntentsWithCall(payload, "evm")
  }

  /**
   * `createIntentsWithCall` as a plain synchronous call for in-process hot loops that submit the typed call (the
   * simulator's agents): the same validation, fees and fee signature, giving the call with its chain and native
   * value but no calldata (its ABI encoding is only needed by callers that send bytes). Undefined when the fee
   * signature is not cached yet (`createIntentsWithCall` signs). Throws the API's `BadRequest`/`NotFound` like the
   * Effect version fails with them.
   */
  createIntentCallNow(payload: IntentsPayload): IntentCall | undefined {
    const prepared = this.prepareIntents(payload, "evm")
    const first = prepared[0]!
    const fee = prepared.reduce((sum, p) => sum + p.tokenFee, 0n)
    const deadline = BigInt(this.deadline())
    const cached = this.feeSigner.cached(fee, 0n, first.order.inputAsset, deadline)
    if (cached === undefined) return undefined
    return { chainId: first.origin, to: first.registry.feeAdapter, from: first.from, value: 0n, call: this.callWithSignature(payload, prepared, fee, deadline, cached) }
  }

  private prepareIntents(payload: IntentsPayload, family: Family, altchain1MaxFeeUnits?: bigint): PreparedIntent[] {
    const list: readonly IntentRequest[] = Array.isArray(payload) ? payload : [payload as IntentRequest]
    if (list.length === 0) throw badRequest("InvalidRequest", "body: expected an intent or a non-empty array of intents.")
    if (list.length > this.config.maxOrderSize) throw badRequest("InvalidRequest", `body: at most ${this.config.maxOrderSize} intents per order, got ${list.length}.`)
    const isArray = Array.isArray(payload)
    const prepared = list.map((request, i) => this.prepareIntent(request, isArray ? `[${i}].` : "", family, isArray, altchain1MaxFeeUnits))
    if (isArray && family === "evm") {
      const withPermit = list.findIndex((request) => hasPermit2Signature(request.permit2Params))
      if (withPermit >= 0) {
        throw badRequest("Permit2NotSupportedForOrders", `[${withPermit}].permit2Params: Permit2 works for a single intent only (FeeAdapter.newOrder has no Permit2 variant); send one intent, or placeholders and an allowance for the fee adapter.`)
      }
    }
    const first = prepared[0]!
    prepared.forEach((p, i) => {
      if (p.origin !== first.origin) throw badRequest("InvalidRequest", `[${i}].origin: every intent of an order must have the same origin (${first.origin}).`)
      if (p.order.inputAsset !== first.order.inputAsset) throw badRequest("InvalidRequest", `[${i}].inputAsset: every intent of an order must have the same input asset.`)
      if (p.from !== first.from) throw badRequest("InvalidRequest", `[${i}].from: every intent of an order must have the same sender.`)
    })
    return prepared
  }

  private callWithSignature(payload: IntentsPayload, prepared: readonly PreparedIntent[], fee: bigint, deadline: bigint, sig: Hex): SpokeCall {
    const feeParams = { fee, deadline, sig }
    if (Array.isArray(payload)) return { kind: "feeAdapter.newOrder", fee, deadline, sig, params: prepared.map((p) => p.order) }
    const permit2Params = prepared[0]!.permit2
    if (permit2Params !== undefined) return { kind: "feeAdapter.newIntentPermit2", ...prepared[0]!.order, permit2Params, feeParams }
    return { kind: "feeAdapter.newIntent", ...prepared[0]!.order, feeParams }
  }

  private buildWithSignature(payload: IntentsPayload, prepared: readonly PreparedIntent[], fee: bigint, deadline: bigint, sig: Hex) {
    const first = prepared[0]!
    const feeParams = { fee, deadline, sig }
    const data = Array.isArray(payload)
      ? encodeNewOrder(prepared.map((p) => p.order), feeParams)
      : first.permit2 !== undefined
        ? encodeNewIntentPermit2(first.order, first.permit2, feeParams)
        : encodeNewIntentFast(first.order, feeParams)
    const call = this.callWithSignature(payload, prepared, fee, deadline, sig)
    return { tx: transactionRequest({ to: first.registry.feeAdapter, from: first.from, data, chainId: first.origin }), call }
  }

  private buildIntentsWithCall(payload: IntentsPayload, family: Family, altchain1MaxFeeUnits?: bigint): Effect.Effect<{ readonly tx: TransactionRequest; readonly call: SpokeCall }, ApiFailure> {
    return Effect.suspend(() => {
      let prepared: PreparedIntent[]
      try {
        prepared = this.prepareIntents(payload, family, altchain1MaxFeeUnits)
      } catch (error) {
        if (error instanceof BadRequest || error instanceof NotFound) return Effect.fail(error)
        return Effect.die(error)
      }
      const first = prepared[0]!
      const fee = prepared.reduce((sum, p) => sum + p.tokenFee, 0n)
      const deadline = BigInt(this.deadline())
      // Most requests reuse a signature: answer them without an asynchronous step.
      const cached = this.feeSigner.cached(fee, 0n, first.order.inputAsset, deadline)
      if (cached !== undefined) return Effect.succeed(this.buildWithSignature(payload, prepared, fee, deadline, cached))
      return Effect.map(
        Effect.promise(() => this.feeSigner.sign(fee, 0n, first.order.inputAsset, deadline)),
        ({ signature }) => this.buildWithSignature(payload, prepared, fee, deadline, signature),
      )
    })
  }

  /**
   * The EIP-712 typed data `from` signs to send a `POST /intents` request with `permit2Params`: a Permit2
   * `PermitTransferFrom` of the request's `amount` (fee included) of `inputAsset`, with the origin's fee adapter as
   * spender. Throws `NotFound` for an origin without registries, `BadRequest` for malformed values.
   */
  intentPermit2TypedData(p: { readonly origin: string | number; readonly inputAsset: string; readonly amount: string; readonly nonce: bigint; readonly deadline: bigint }) {
    const origin = parseDomain("origin", p.origin)
    const registry = this.registryFor("evm", origin, "origin")
    return intentPermit2TypedData({
      origin,
      feeAdapter: registry.feeAdapter,
      inputAsset: parseAddress("inputAsset", p.inputAsset),
      amount: parseAmount("amount", p.amount, { positive: true }),
      nonce: checkPermitUint("nonce", p.nonce),
      deadline: checkPermitUint("deadline", p.deadline),
    })
  }

  /** Signature deadline: now + validity, rounded up so that equal fees share a signature. */
  deadline(): number {
    const g = this.config.feeDeadlineGranularitySeconds
    const at = this.clock.nowSeconds() + this.config.feeDeadlineSeconds
    return g > 1 ? Math.ceil(at / g) * g : at
  }

  /** The tickers with `asset` (a word) on some domain: none for an unsupported asset. */
  private tickersOfAsset(asset: Bytes32): TickerState[] {
    return [...this.hub.state.assets.values()].flatMap((byAsset) => {
      const found = byAsset.get(asset)
      return found === undefined ? [] : [found.ticker]
    })
  }

  private entryOf(intentId: string): { id: Bytes32; entry: IntentEntry } {
    const id = parseIntentId(intentId)
    const entry = this.model.intentEntry(id)
    if (entry === undefined) throw notFound("IntentNotFound", `No intent ${id} is known to the service.`)
    return { id, entry }
  }

  /** `GET /intents/{intentId}`. */
  getIntent(intentId: string): Effect.Effect<{ readonly intent: IntentRecord }, ApiFailure> {
    return attempt(() => ({ intent: this.entryOf(intentId).entry.record }))
  }

  /** `GET /intents/{intentId}` as the response body (cached until the record changes). */
  getIntentJson(intentId: string): Effect.Effect<string, ApiFailure> {
    return attempt(() => this.model.intentResponseJson(this.entryOf(intentId).entry))
  }

  /** The `GET /intents/{intentId}` body of a known intent; undefined for anything else (no error built). */
  intentJsonIfKnown(intentId: string): string | undefined {
    if (!/^0x[0-9a-fA-F]{64}$/.test(intentId)) return undefined
    const entry = this.model.intentEntry(intentId.toLowerCase() as Bytes32)
    return entry === undefined ? undefined : this.model.intentResponseJson(entry)
  }

  /** The first `GET /invoices` page (no query) as the response body. */
  defaultInvoicesJson(): string {
    return this.model.listInvoicesJson({ limit: this.config.defaultPageSize })
  }

  private knownDomains(field: string, values: readonly string[] | undefined): number[] | undefined {
    return values?.map((v, i) => this.knownDomain(`${field}[${i}]`, v))
  }

  /** A domain the hub supports; `field` is the name refusals give (a single value's, not a list element's). */
  private knownDomain(field: string, value: string): number {
    const domain = parseDomain(field, value)
    if (!this.hub.state.supportedDomains.has(domain)) throw badRequest("UnsupportedDomain", `${field}: domain ${domain} is not supported by the hub.`)
    return domain
  }

  /**
   * The `asset` filter of `GET /intents` and of an invoice's history: the 20-byte address, or the 32-byte word the
   * records show (`input_asset`, a left-padded address); 400 when no domain supports it.
   */
  private assetFilter(value: string): Bytes32 {
    const asset = typeof value === "string" && value.length === 66 ? parseAddressWord("asset", value) : addressToBytes32(parseAddress("asset", value))
    if (this.tickersOfAsset(asset).length === 0) throw badRequest("UnsupportedAsset", `asset: ${value} is not a supported asset on any domain.`)
    return asset
  }

  private knownTicker(field: string, value: string | undefined): Bytes32 | undefined {
    if (value === undefined) return undefined
    const ticker = parseBytes32(field, value)
    if (!this.hub.state.tickers.has(ticker)) throw badRequest("UnsupportedTicker", `${field}: ${ticker} is not a ticker of the hub.`)
    return ticker
  }

  private intentQuery(q: IntentsQueryInput): IntentQuery {
    if (q.cursor !== undefined && q.prevCursor !== undefined) throw badRequest("InvalidCursor", "cursor, prevCursor: give one of them, not both.")
    const statuses = splitList("statuses", "InvalidStatus", q.statuses, q["statuses[]"])?.map((s, i) => {
      if (!STATUS_SET.has(s)) throw badRequest("InvalidStatus", `statuses[${i}]: expected one of ${API_INTENT_STATUSES.join(", ")}, got ${JSON.stringify(s)}.`)
      return s as ApiIntentStatus
    })
    const asset = q.asset === undefined ? undefined : this.assetFilter(q.asset)
    const int = (field: string, v: string | undefined) => (v === undefined ? undefined : parseUint(field, v, Number.MAX_SAFE_INTEGER))
    return {
      cursor: q.cursor === undefined ? undefined : parseCursor("cursor", q.cursor),
      prevCursor: q.prevCursor === undefined ? undefined : parseCursor("prevCursor", q.prevCursor),
      limit: parseLimit(q.limit, this.config.defaultPageSize, this.config.maxPageSize),
      statuses,
      origins: this.knownDomains("origins", splitList("origins", "InvalidDomain", q.origins, q["origins[]"])),
      destinations: this.knownDomains("destinations", splitList("destinations", "InvalidDomain", q.destinations, q["destinations[]"])),
      allDestinations: this.knownDomains("allDestinations", splitList("allDestinations", "InvalidDomain", q.allDestinations, q["allDestinations[]"])),
      txHash: q.txHash === undefined ? undefined : parseBytes32("txHash", q.txHash),
      userAddress: q.userAddress === undefined ? undefined : parseAddress("userAddress", q.userAddress),
      startDate: int("startDate", q.startDate),
      endDate: int("endDate", q.endDate),
      isFastPath: q.isFastPath === undefined ? undefined : parseBoolean("isFastPath", q.isFastPath),
      tickerHash: this.knownTicker("tickerHash", q.tickerHash),
      asset,
    }
  }

  /** `GET /intents`: newest first, cursor pages. */
  listIntents(query: IntentsQueryInput): Effect.Effect<IntentsPageOutput, ApiFailure> {
    return attempt(() => {
      const page = this.model.listIntents(this.intentQuery(query))
      return { intents: page.entries.map((e) => e.record), nextCursor: page.nextCursor, prevCursor: page.prevCursor, maxCount: page.maxCount }
    })
  }

  /** `GET /intents` as the response body. */
  listIntentsJson(query: IntentsQueryInput): Effect.Effect<string, ApiFailure> {
    return attempt(() => {
      const page = this.model.listIntents(this.intentQuery(query))
      const intents = page.entries.map((e) => this.model.recordJson(e)).join(",")
      return `{"intents":[${intents}],"nextCursor":${JSON.stringify(page.nextCursor)},"prevCursor":${JSON.stringify(page.prevCursor)},"maxCount":${page.maxCount}}`
    })
  }

  /** `POST /intents/{intentId}/execute`: `executeIntentCalldata(intent)` on the intent's settlement domain. */
  executeIntent(intentId: string, request: ExecuteRequest): Effect.Effect<TransactionRequest, ApiFailure> {
    return attempt(() => {
      const { id, entry } = this.entryOf(intentId)
      const domain = parseDomain("domain", request.domain)
      const intent = entry.intent
      if (intent === undefined) throw badRequest("IntentNotIndexed", `intentId: the origin data of intent ${id} is not indexed yet.`)
      const registry = this.config.spokes.get(domain) ?? [this.config.altchain1, this.config.altchain2].find((r) => r?.domain === domain)
      if (registry === undefined) throw badRequest("UnsupportedDomain", `domain: no spoke registry is deployed for domain ${domain}.`)
      if (intent.destinations[0] !== domain) {
        throw badRequest("InvalidDomain", `domain: intent ${id} executes its calldata on its first destination ${intent.destinations[0] ?? "(none)"}, not ${domain}.`)
      }
      if (intent.data.length <= 2) {
        // The spoke would run it (status SETTLED is all it checks, §4.5) and mark the intent manually executed,
        // after calling the receiver with nothing: no transaction to build. Whatever its status,
        // there is nothing to run.
        throw badRequest("NoCalldata", `intentId: intent ${id} has no calldata (data 0x): there is nothing to execute.`)
      }
      if (entry.settlementStatus === "SETTLED_AND_MANUALLY_EXECUTED") {
        throw badRequest("CalldataAlreadyExecuted", `intentId: the calldata of intent ${id} was already executed on domain ${domain}; it cannot be executed again.`)
      }
      if (entry.fill !== undefined) {
        // The fill ran the calldata (reference §4.3); the solver's repayment later settling here would let it run twice.
        throw badRequest(
          "CalldataAlreadyExecuted",
          `intentId: intent ${id} was filled on domain ${entry.fill.domain}, which executed its calldata; it cannot be executed again.`,
        )
      }
      if (entry.settlementDomain !== undefined && entry.settlementDomain !== domain) {
        // The spoke of the first destination never receives the settlement, so its status stays NONE (§4.5).
        throw badRequest(
          "CalldataNotExecutable",
          `intentId: intent ${id} was settled on domain ${entry.settlementDomain}; its calldata executes only when it is settled on its first destination ${domain}, so it can never be executed.`,
        )
      }
      if (entry.settlementStatus !== "SETTLED") {
        throw badRequest(
          "IntentNotSettled",
          `intentId: intent ${id} is ${entry.record.status}, but not yet settled on its destination ${domain}; its calldata can be executed once the settlement arrives there.`,
        )
      }
      return transactionRequest({ to: registry.spoke, data: encodeExecuteIntentCalldata(intent), chainId: domain })
    })
  }

  /** `POST /intents/{intentId}/return-unsupported`: the hub transaction returning an UNSUPPORTED intent. */
  returnUnsupported(intentId: string): Effect.Effect<TransactionRequest, ApiFailure> {
    return attempt(() => {
      const { id } = this.entryOf(intentId)
      const status = this.hub.state.contexts.get(id)?.status ?? IntentStatus.NONE
      if (status !== IntentStatus.UNSUPPORTED) {
        throw badRequest("IntentNotUnsupported", `intentId: intent ${id} is ${IntentStatusName[status]} on the hub, not UNSUPPORTED.`)
      }
      return this.hubTransaction("returnUnsupportedIntent", [id])
    })
  }

  /** A transaction request for any public hub function, sent to the hub domain (in-process agents). */
  hubTransaction<F extends HubFunctionName>(functionName: F, args: ContractFunctionArgs<typeof HubAbi, "nonpayable" | "payable", F>, from?: Address): TransactionRequest {
    return transactionRequest({ to: this.config.hubAddress, from, data: encodeHubCall(functionName, args), chainId: this.hub.config.hubDomain })
  }

  // -------------------------------------------------------------------------------------------------------
  // Batches

  /** `GET /batched-intents`: newest first; `isFastPath` keeps batches holding a (non-)fast-path intent. */
  listBatches(query: BatchesQueryInput): Effect.Effect<{ readonly items: readonly BatchRecord[]; readonly nextCursor: string | null }, ApiFailure> {
    return attempt(() => {
      const q: BatchQuery = {
        cursor: query.cursor === undefined ? undefined : parseCursor("cursor", query.cursor),
        limit: parseLimit(query.limit, this.config.defaultPageSize, this.config.maxPageSize),
        isFastPath: query.isFastPath === undefined ? undefined : parseBoolean("isFastPath", query.isFastPath),
        origins: this.knownDomains("origins", splitList("origins", "InvalidDomain", query.origins, query["origins[]"])),
      }
      return this.model.listBatches(q)
    })
  }

  /** `GET /batched-intents/{batchId}`. */
  getBatch(batchId: string): Effect.Effect<ReturnType<typeof batchView>, ApiFailure> {
    return attempt(() => {
      const id = parseBytes32("batchId", batchId, "InvalidBatchId")
      const batch = this.model.batch(id)
      if (batch === undefined) throw notFound("BatchNotFound", `No batch ${id} is known to the service.`)
      return batchView(batch)
    })
  }

  // -------------------------------------------------------------------------------------------------------
  // Invoices

  private invoiceQuery(query: InvoicesQueryInput): InvoiceQuery {
    const sorted = query.sortOrderByDiscount
    if (query.cursor !== undefined && query.prevCursor !== undefined) throw badRequest("InvalidCursor", "cursor, prevCursor: give one of them, not both.")
    // FIFO cursors are invoice numbers; with sortOrderByDiscount they are `<dbps>-<n>`, as the pages return them.
    const sortedKey = (field: string, value: string | undefined): string | undefined => {
      if (value === undefined) return undefined
      if (!/^[0-9]{1,9}-[0-9]{1,16}$/.test(value)) {
        throw badRequest("InvalidCursor", `${field}: with sortOrderByDiscount, expected a cursor of a previous sorted page (<dbps>-<n>), got ${JSON.stringify(value)}.`)
      }
      return value
    }
    const fifo = sorted === undefined
    return {
      cursor: fifo && query.cursor !== undefined ? parseCursor("cursor", query.cursor) : undefined,
      prevCursor: fifo && query.prevCursor !== undefined ? parseCursor("prevCursor", query.prevCursor) : undefined,
      limit: parseLimit(query.limit, this.config.defaultPageSize, this.config.maxPageSize),
      tickerHash: this.knownTicker("tickerHash", query.tickerHash),
      origins: this.knownDomains("origins", splitList("origins", "InvalidDomain", query.origins, query["origins[]"])),
      destinations: this.knownDomains("destinations", splitList("destinations", "InvalidDomain", query.destinations, query["destinations[]"])),
      sortOrderByDiscount: sorted,
      sortedCursor: fifo ? undefined : sortedKey("cursor", query.cursor),
      sortedPrevCursor: fifo ? undefined : sortedKey("prevCursor", query.prevCursor),
    }
  }

  /** `GET /invoices`: FIFO queue order (or by current discount). */
  listInvoices(query: InvoicesQueryInput): Effect.Effect<InvoicesPageOutput, ApiFailure> {
    return attempt(() => this.model.listInvoices(this.invoiceQuery(query)))
  }

  /** `GET /invoices` as the response body. */
  listInvoicesJson(query: InvoicesQueryInput): Effect.Effect<string, ApiFailure> {
    return attempt(() => this.model.listInvoicesJson(this.invoiceQuery(query)))
  }

  /** `GET /invoices/{intentId}`: an open invoice. */
  getInvoice(intentId: string): Effect.Effect<{ readonly invoice: InvoiceRecord }, ApiFailure> {
    return attempt(() => {
      const id = parseIntentId(intentId)
      const invoice = this.model.invoice(id)
      if (invoice === undefined) throw notFound("InvoiceNotFound", `Intent ${id} is not an open invoice.`)
      return { invoice }
    })
  }

  /**
   * The body of each min-amounts answer the read model keeps (it hands out the same answer while its inputs are
   * unchanged, `MinAmountsCache`): arbitrageurs poll the same invoices many times.
   */
  private readonly minAmountsBodies = new WeakMap<InvoiceMinAmounts, MinAmountsOutput>()

  /** `GET /invoices/{intentId}/min-amounts`: 18-decimal units, per candidate settlement domain. */
  getMinAmounts(intentId: string): Effect.Effect<MinAmountsOutput, ApiFailure> {
    return attempt(() => {
      const id = parseIntentId(intentId)
      const min = this.model.minAmounts(id)
      if (min === undefined) throw notFound("InvoiceNotFound", `Intent ${id} is not an open invoice.`)
      const known = this.minAmountsBodies.get(min)
      if (known !== undefined) return known
      const record = (map: ReadonlyMap<number, bigint>) => Object.freeze(Object.fromEntries([...map].map(([d, v]) => [String(d), v.toString()])))
      const body: MinAmountsOutput = Object.freeze({
        invoiceAmount: min.invoiceAmount.toString(),
        amountAfterDiscounts: record(min.amountAfterDiscounts),
        discountBps: String(min.discountDbps / 10),
        custodiedAmounts: record(min.custodiedAmounts),
        minAmounts: record(min.minAmounts),
      })
      this.minAmountsBodies.set(min, body)
      return body
    })
  }

  /** `GET /history/{intentId}/invoice-processing`: one entry per epoch the hub evaluated the invoice. */
  getInvoiceHistory(intentId: string, query: HistoryQueryInput): Effect.Effect<HistoryOutput, ApiFailure> {
    return attempt(() => {
      const id = parseIntentId(intentId)
      const cursor = query.cursor === undefined ? 0 : parseCursor("cursor", query.cursor)
      const limit = parseLimit(query.limit, this.config.defaultPageSize, this.config.maxPageSize)
      const domain = query.domain === undefined ? undefined : this.knownDomain("domain", query.domain)
      // SPEC: "400 for an invalid chain or asset parameter". An intent's history is of its own ticker: an asset
      // of another ticker matches no entry.
      let otherTicker = false
      if (query.asset !== undefined) {
        const tickers = this.tickersOfAsset(this.assetFilter(query.asset))
        const intent = this.model.intentEntry(id)?.intent
        const own = intent === undefined ? undefined : this.hub.state.assetOn(intent.origin, intent.inputAsset)?.ticker
        otherTicker = own !== undefined && !tickers.includes(own)
      }
      const all = otherTicker ? undefined : this.model.history(id, 0, Number.MAX_SAFE_INTEGER)
      if (all === undefined) {
        // A known intent that never became an invoice has an empty history; an unknown id is not found.
        if (this.model.intentEntry(id) === undefined) throw notFound("IntentNotFound", `No intent ${id} is known to the service.`)
        return { invoiceProcessingHistory: [], nextCursor: null }
      }
      const entries = domain === undefined ? all.invoiceProcessingHistory : all.invoiceProcessingHistory.filter((h) => h.selectedDestinationDomain === domain)
      return {
        invoiceProcessingHistory: entries.slice(cursor, cursor + limit),
        nextCursor: cursor + limit < entries.length ? String(cursor + limit) : null,
      }
    })
  }

  // -------------------------------------------------------------------------------------------------------
  // Configs, routes

  /** `GET /configs/assets`: every asset of every ticker, in configured order, page by page. */
  listAssets(query: AssetsQueryInput): Effect.Effect<{ readonly assets: readonly AssetConfigOutput[] }, ApiFailure> {
    return attempt(() => {
      const page = query.page === undefined ? 1 : parseUint("page", query.page, 1_000_000, "InvalidPage", 1)
      const limit = parseLimit(query.limit, this.config.maxPageSize, this.config.maxPageSize)
      const domain = query.domain === undefined ? undefined : parseDomain("domain", query.domain)
      // As every other endpoint: a domain the hub does not support is refused, not an empty page.
      if (domain !== undefined && !this.hub.state.supportedDomains.has(domain)) throw badRequest("UnsupportedDomain", `domain: domain ${domain} is not supported by the hub.`)
      const hubDomain = String(this.hub.config.hubDomain)
      const all: AssetConfigOutput[] = []
      for (const ticker of this.hub.config.tickers) {
        for (const d of ticker.domains) {
          if (query.type !== undefined && strategyName(d.strategy) !== query.type) continue
          if (domain !== undefined && d.domain !== domain) continue
          all.push({
            local: bytes32ToAddress(d.asset),
            adopted: d.asset,
            canonical_id: ticker.tickerHash,
            canonical_domain: hubDomain,
            domain: String(d.domain),
            key: ticker.symbol,
            id: d.assetHash,
            decimal: d.decimals,
            adopted_decimal: NORMALIZED_DECIMALS,
          })
        }
      }
      return { assets: all.slice((page - 1) * limit, page * limit) }
    })
  }

  /** `POST /routes/quotes`. */
  quote(request: QuoteRequest): Effect.Effect<QuoteOutput, ApiFailure> {
    return attempt(() => this.quoteNow(request))
  }

  /**
   * `POST /routes/quotes` as a plain synchronous call for in-process hot loops (the simulator's agents):
   * the same operation as `quote`, throwing `BadRequest`/`NotFound` instead of failing an Effect.
   */
  quoteNow(request: QuoteRequest): QuoteOutput {
    const quoted = this.quoteValuesNow(request)
    if (quoted.reqType === "invalid") {
      const prior = this.config.settlementPrior.basic
      return {
        fixedFeeUnits: "0",
        variableFeeBps: 0,
        totalFeeBps: 0,
        expectedAmount: "0",
        currentLimit: "0",
        splitCount: 0,
        reqType: "invalid",
        fastPathQuote: { error: "UnsupportedSwap", message: quoted.invalidReason },
        settlementEstimate: { p25Minutes: prior.p25Minutes, p50Minutes: prior.p50Minutes, p75Minutes: prior.p75Minutes },
      }
    }
    const q = quoted.quote
    const fast = q.fast.ok
      ? {
          fixedFeeUnits: q.fast.quote.fees.fixedFeeUnits.toString(),
          variableFeeBps: e4ToBps(q.fast.quote.fees.variableFeeE4),
          totalFeeBps: e6ToBps(q.fast.quote.fees.totalFeeE6),
          expectedAmount: q.fast.quote.fees.expectedAmount.toString(),
          expectedFillTime: String(q.fast.quote.expectedFillSeconds),
        }
      : fastPathRefusal(q.fast)
    return {
      fixedFeeUnits: q.fees.fixedFeeUnits.toString(),
      variableFeeBps: e4ToBps(q.fees.variableFeeE4),
      totalFeeBps: e6ToBps(q.fees.totalFeeE6),
      expectedAmount: q.fees.expectedAmount.toString(),
      currentLimit: q.currentLimit.toString(),
      splitCount: 1,
      reqType: quoted.reqType,
      fastPathQuote: fast,
      settlementEstimate: { p25Minutes: q.settlementEstimate.p25Minutes, p50Minutes: q.settlementEstimate.p50Minutes, p75Minutes: q.settlementEstimate.p75Minutes },
    }
  }

  /**
   * `POST /routes/quotes`'s checks and figures before they are written as JSON strings: the fees, limits and
   * estimates as numbers and bigints (`quoteNow` writes them out). For in-process callers that read a few of
   * them (the simulator's agents); the same request, the same refusals.
   */
  quoteValuesNow(request: QuoteRequest): QuoteValues {
    const origin = parseDomain("origin", request.origin)
    if (!this.hub.state.supportedDomains.has(origin)) throw badRequest("UnsupportedDomain", `origin: domain ${origin} is not supported by the hub.`)
    const destinations = parseDomains("destinations", request.destinations)
    const inputAsset = parseAddress("inputAsset", request.inputAsset)
    const outputAsset = parseOptionalAddress("outputAsset", request.outputAsset)
    const amount = parseAmount("amount", request.amount, { positive: true })
    if (request.to !== undefined) parseReceiver("to", request.to)
    if (request.from !== undefined) parseSender("from", request.from)
    const route = resolveRoute(this.hub, origin, destinations, inputAsset, outputAsset)
    if (route.reqType === "invalid") return { reqType: "invalid", invalidReason: route.invalidReason! }
    checkHubAmount("amount", amount, route.input.decimals)
    const q = quoteRoute(this.model, this.config, route, amount)
    // As `POST /intents`: an amount no path can take (it does not cover the fee) is refused, not quoted at 0.
    // The fast path charges only the fixed fee through the adapter, so a quote stands while it can be taken.
    const decimals = route.input.decimals
    const fastBuildable = q.fast.ok && route.input.strategy !== Strategy.XERC20 && coversFee(amount, q.fast.quote.fees.fixedFeeUnits, decimals)
    if (!coversFee(amount, q.fees.feeUnits, decimals) && !fastBuildable) checkCoversFee("amount", amount, q.fees.feeUnits, decimals)
    return { reqType: route.reqType, quote: q }
  }

  /** `POST /routes/limits`: the basic route's capacity in the input token's units. */
  limits(request: LimitsRequest): Effect.Effect<{ readonly currentLimit: string }, ApiFailure> {
    return attempt(() => {
      const origin = parseDomain("origin", request.origin)
      if (!this.hub.state.supportedDomains.has(origin)) throw badRequest("UnsupportedDomain", `origin: domain ${origin} is not supported by the hub.`)
      const destinations = parseDomains("destinations", request.destinations)
      const inputAsset = parseAddress("inputAsset", request.inputAsset)
      const route = resolveRoute(this.hub, origin, destinations, inputAsset, undefined)
      const { limit18 } = basicLimit18(route)
      const limit = limit18 === 2n ** 256n - 1n ? limit18 : normalizeDecimals(limit18, NORMALIZED_DECIMALS, route.input.decimals)
      return { currentLimit: limit.toString() }
    })
  }

  health(): Effect.Effect<HealthOutput> {
    return Effect.sync(() => ({
      status: "ok" as const,
      hubDomain: this.hub.config.hubDomain,
      hubBlockNumber: this.hub.state.blockNumber,
      epoch: this.hub.currentEpoch(),
      intents: this.model.intentCount,
      openInvoices: this.model.invoices.size,
    }))
  }

  /** The hub domain's JSON-RPC (one request or a batch); `undefined` when only notifications came. */
  rpc(body: unknown): Effect.Effect<JsonRpcResponse | JsonRpcResponse[] | undefined> {
    return Effect.promise(() => this.hubRpc.handle(body))
  }
}

/** The clearing service as an Effect service: the HTTP handlers' dependency. */
export class Clearing extends Context.Service<Clearing, ClearingService>()("clearsim/api/Clearing") {
  static readonly layer = (deps: ClearingDeps | ClearingService): Layer.Layer<Clearing> =>
    Layer.sync(Clearing, () => (deps instanceof ClearingService ? deps : new ClearingService(deps)))
}

