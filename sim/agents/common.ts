/**
 * What every agent shares: calling the clearing service in-process (its Effects run here; failures come back
 * as the API's `{error, message}`), sending the returned transaction request to its origin chain, counting
 * actions and rejections per population, and measuring PnL from balances.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import { type ApiFailure, BadRequest, NotFound } from "../../service/api/errors.ts"
import type { IntentsPayload, TransactionRequest } from "../../service/api/schemas.ts"
import type { ClearingService } from "../../service/api/service.ts"
import type { Address, Hex } from "../../service/domain/hex.ts"
import { NORMALIZED_DECIMALS, normalizeDecimals } from "../../service/domain/protocol.ts"
import type { SpokeCall } from "../../service/spoke/calls.ts"
import type { SpokeReceipt } from "../../service/spoke/types.ts"
import type { AgentPlan, AssetOnChainPlan } from "../world/plan.ts"
import type { ReceiptHandler, World } from "../world/world.ts"

export type ServiceResult<A> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: string; readonly message: string }

/**
 * Runs a service operation; API failures are values, defects (bugs) throw. The operation runs once: a
 * synchronous one (most are: reads, quotes, intents with a cached fee signature) has its result when it is
 * started; one that suspends (signing a fee) is awaited.
 */
export const callService = async <A>(effect: Effect.Effect<A, ApiFailure>): Promise<ServiceResult<A>> => {
  const fiber = Effect.runFork(effect)
  const exit = fiber.pollUnsafe() ?? (await Effect.runPromise(Fiber.await(fiber)))
  if (Exit.isSuccess(exit)) return { ok: true, value: exit.value }
  const failure = exit.cause.reasons.find((r) => r._tag === "Fail")
  if (failure !== undefined && failure._tag === "Fail") return { ok: false, error: failure.error.error, message: failure.error.message }
  throw new Error(`clearing service defect: ${String(exit.cause)}`)
}

/** Runs a synchronous service operation (`quoteNow`, ...): the API's failures become values, bugs throw. */
export const callNow = <A>(operation: () => A): ServiceResult<A> => {
  try {
    return { ok: true, value: operation() }
  } catch (error) {
    if (error instanceof BadRequest || error instanceof NotFound) return { ok: false, error: error.error, message: error.message }
    throw error
  }
}

/** What an agent submits for a `POST /intents` answer: the typed call, its chain and its native value. */
export interface IntentSubmission {
  readonly chainId: number
  readonly value: bigint
  readonly call: SpokeCall
}

/**
 * `POST /intents` in-process, synchronously: the call to submit, or `undefined` when the fee signature is not
 * cached yet (then `createIntents`, which signs).
 */
export const createIntentsNow = (service: ClearingService, payload: IntentsPayload): ServiceResult<IntentSubmission> | undefined => {
  const now = callNow(() => service.createIntentCallNow(payload))
  return now.ok && now.value === undefined ? undefined : (now as ServiceResult<IntentSubmission>)
}

/** `POST /intents` in-process: synchronous when the fee signature is cached, else through the Effect (signing). */
export const createIntents = async (service: ClearingService, payload: IntentsPayload): Promise<ServiceResult<IntentSubmission>> => {
  const now = createIntentsNow(service, payload)
  if (now !== undefined) return now
  const signed = await callService(service.createIntentsWithCall(payload))
  if (!signed.ok) return signed
  return { ok: true, value: { chainId: signed.value.tx.chainId, value: BigInt(signed.value.tx.value ?? "0"), call: signed.value.call } }
}

/** Counters of one agent population. */
export class PopulationStats {
  readonly actions: Record<string, number> = {}
  readonly rejections: Record<string, number> = {}
  /** Actions taken another way than asked, with why: sent anyway (over the route's limit: invoiced), fast path refused so sent as basic. */
  readonly fallbacks: Record<string, number> = {}
  /** Change of holdings (wallets + spoke virtual balances) per asset symbol in whole tokens, at the end of the run. */
  readonly pnl: Record<string, number> = {}
  /** Tokens sent in intents not yet received at the end of the run, per symbol. */
  readonly inFlight: Record<string, number> = {}

  readonly kind: string
  readonly population: string
  readonly agents: number
  constructor(kind: string, population: string, agents: number) {
    this.kind = kind
    this.population = population
    this.agents = agents
  }

  act(action: string): void {
    this.actions[action] = (this.actions[action] ?? 0) + 1
  }

  reject(reason: string): void {
    this.rejections[reason] = (this.rejections[reason] ?? 0) + 1
  }

  /** Counts an action that went ahead another way than asked (not a rejection: it was sent). */
  fallback(reason: string): void {
    this.fallbacks[reason] = (this.fallbacks[reason] ?? 0) + 1
  }

  /** Counts a reverted receipt under its error name. */
  rejectReceipt(receipt: SpokeReceipt): void {
    if (receipt.status === "reverted") this.reject(receipt.error.name)
  }

  /**
   * The receipt handler of a transaction that is the action `action`: counted when it is mined, a revert counted
   * as a rejection under its error name instead (an action is what was done, not what was sent). One handler per
   * action, made once.
   */
  onMined(action: string): (receipt: SpokeReceipt) => void {
    let handler = this.handlers.get(action)
    if (handler === undefined) {
      handler = (receipt) => (receipt.status === "success" ? this.act(action) : this.reject(receipt.error.name))
      this.handlers.set(action, handler)
    }
    return handler
  }
  private readonly handlers = new Map<string, (receipt: SpokeReceipt) => void>()
}

/**
 * Sends what the service built to its chain: a typed call (in-process callers, `createIntents`) is submitted as
 * is; a transaction request's calldata is decoded.
 */
export const sendTransaction = (world: World, from: Address, built: TransactionRequest | IntentSubmission, onReceipt?: ReceiptHandler): void => {
  if ("call" in built) {
    world.submit(built.chainId, from, built.call, built.value === 0n ? undefined : built.value, onReceipt)
    return
  }
  const value = BigInt(built.value ?? "0")
  const chain = world.chain(built.chainId)
  chain.submitRaw({ from, to: built.to as Address, data: built.data as Hex, value })
  world.stats.spokeCalls++
  if (onReceipt !== undefined) world.onNextReceipt(built.chainId, chain.pending - 1, onReceipt)
}

/** The tokens `account` holds (wallet + spoke virtual balance) on every chain, per symbol, in 18-decimal units. */
export const holdings18 = async (world: World, account: Address): Promise<Record<string, bigint>> => {
  const out: Record<string, bigint> = {}
  for (const asset of world.plan.assets.values()) {
    const chain = world.chain(asset.domain)
    const units = (await chain.erc20Balance(asset.address, account)) + (await chain.virtualBalance(asset.address, account))
    out[asset.symbol] = (out[asset.symbol] ?? 0n) + normalizeDecimals(units, asset.decimals, NORMALIZED_DECIMALS)
  }
  return out
}

export const agentRng = (world: World, agent: AgentPlan) => world.rng.get(`agent/${agent.id}`)

/** The run's assets by chain and token address in any case (intents and spoke events name tokens by address). */
export const assetsByAddress = (world: World): ((domain: number, address: string) => AssetOnChainPlan | undefined) => {
  const byKey = new Map<string, AssetOnChainPlan>()
  for (const a of world.plan.assets.values()) byKey.set(`${a.domain}:${a.address.toLowerCase()}`, a)
  return (domain, address) => byKey.get(`${domain}:${address.toLowerCase()}`)
}
