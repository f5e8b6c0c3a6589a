/**
 * The spoke interface of the simulator, the API and the agents: `SpokeChain` (one spoke domain: submit typed
 * calls, mine a block at a timestamp, read state and events) with two backends that behave identically, and the
 * `Spokes` service that holds the chains by domain.
 *
 * - memory: `createMemorySpokes(config)` (synchronous, no Effect needed; `chain.mineSync` and `chain.read` for
 *   hot loops) or the `Spokes.memory(config)` layer.
 * - anvil: `createAnvilSpokes(pool, config)` deploys the contracts on a `ChainPool` or the `Spokes.anvil(pool,
 *   config)` layer.
 *
 * Both take the same `SpokesConfig`, so the memory twin's contracts sit at the anvil addresses and both backends
 * compute the same intent ids, events and messages (`spoke.differential.test.ts` proves it).
 */
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { ChainPool } from "../../sim/chains/pool.ts"
import type { AnvilSpokeChain, AnvilSpokeChainOptions } from "./anvil/chain.ts"
import type { DeployAnvilSpokesOptions } from "./anvil/deploy.ts"
import { planSpokeLayout, type SpokesConfig } from "./layout.ts"
import { MemorySpokeChain, type MemorySpokeChainOptions } from "./memory/chain.ts"
import type { SpokeBackend, SpokeChain } from "./types.ts"

export * from "./calls.ts"
export * from "./events.ts"
export * from "./layout.ts"
export * from "./types.ts"
// Types only: the anvil backend's modules are loaded when `createAnvilSpokes` runs (its errors: `./anvil/chain.ts`, `./anvil/deploy.ts`).
export type { AnvilSpokeChain } from "./anvil/chain.ts"
export type { AnvilSpokeChainOptions, BlockTransaction } from "./anvil/chain.ts"
export type { DeployAnvilSpokesOptions } from "./anvil/deploy.ts"
export { MAX_XERC20_LIMIT, XERC20LimitTooHighError } from "./deploy.ts"
export { MemorySpokeChain } from "./memory/chain.ts"
export type { MemorySpokeChainOptions } from "./memory/chain.ts"
export { UnverifiedFeeSignatureError } from "./memory/feeAdapter.ts"
export { UnsupportedMemoryCallError } from "./memory/world.ts"

/** The spoke domains of a run, by domain. */
export interface SpokesShape<C extends SpokeChain = SpokeChain> {
  readonly backend: SpokeBackend
  /** Domains in configuration order. */
  readonly domains: readonly number[]
  readonly chains: ReadonlyMap<number, C>
  /** The chain of `domain`; throws `UnknownSpokeDomainError` when the run has none. */
  chain(domain: number): C
}

export class UnknownSpokeDomainError extends Error {
  override readonly name = "UnknownSpokeDomainError"
  readonly domain: number
  readonly known: readonly number[]
  constructor(domain: number, known: readonly number[]) {
    super(`No spoke on domain ${domain}; the run has ${known.join(", ")}.`)
    this.domain = domain
    this.known = known
  }
}

const makeSpokes = <C extends SpokeChain>(backend: SpokeBackend, chains: readonly C[]): SpokesShape<C> => {
  const byDomain = new Map(chains.map((chain) => [chain.domain, chain] as const))
  const domains = chains.map((chain) => chain.domain)
  return {
    backend,
    domains,
    chains: byDomain,
    chain: (domain) => {
      const chain = byDomain.get(domain)
      if (chain === undefined) throw new UnknownSpokeDomainError(domain, domains)
      return chain
    },
  }
}

/** The memory backend: every domain of `config`, deployed at the addresses anvil would give them. */
export const createMemorySpokes = (config: SpokesConfig, options: MemorySpokeChainOptions = {}): SpokesShape<MemorySpokeChain> =>
  makeSpokes(
    "memory",
    config.chains.map((chain) => new MemorySpokeChain(planSpokeLayout(config.hubDomain, chain), config.genesisTimestamp, options)),
  )

/** The anvil backend: deploys every domain of `config` on its chain of `pool` (fresh chains, chain id = domain). */
export const createAnvilSpokes = async (
  pool: ChainPool,
  config: SpokesConfig,
  options: AnvilSpokeChainOptions = {},
  deployOptions: DeployAnvilSpokesOptions = {},
): Promise<SpokesShape<AnvilSpokeChain>> => {
  // Loaded for anvil only: a memory run loads neither the deployment code nor viem's clients, prool and its process tools.
  const { deployAnvilSpokes } = await import("./anvil/deploy.ts")
  return makeSpokes("anvil", await deployAnvilSpokes(pool, config, options, deployOptions))
}

/** Deploying the spoke contracts failed (a reverted step, a layout mismatch, an RPC error); `cause` says which. */
export class SpokesDeployError extends Data.TaggedError("SpokesDeployError")<{ readonly cause: unknown; readonly message: string }> {}

/** The run's spoke domains, on one backend. */
export class Spokes extends Context.Service<Spokes, SpokesShape>()("clearsim/service/spoke/Spokes") {
  static memory(config: SpokesConfig, options: MemorySpokeChainOptions = {}): Layer.Layer<Spokes> {
    return Layer.sync(Spokes, () => createMemorySpokes(config, options))
  }

  static anvil(pool: ChainPool, config: SpokesConfig, options: AnvilSpokeChainOptions = {}): Layer.Layer<Spokes, SpokesDeployError> {
    return Layer.effect(
      Spokes,
      Effect.tryPromise({
        try: () => createAnvilSpokes(pool, config, options),
        catch: (cause) =>
          new SpokesDeployError({ cause, message: `deploying the spokes failed: ${cause instanceof Error ? cause.message : String(cause)}` }),
      }),
    )
  }
}
