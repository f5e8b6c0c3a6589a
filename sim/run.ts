/**
 * One scenario run, end to end: plan the world, start the chains (memory, or anvil through the chain pool),
 * wire the hub, read model, clearing service, transport, keepers, agents and metrics, run to the horizon, and
 * build the report. `runScenario` is what `clearsim run` calls for each seed.
 */
import { join, normalize } from "node:path"
import { type ClearingDeps, ClearingService } from "../service/api/service.ts"
import type { Address } from "../service/domain/hex.ts"
import { numberToDecimal } from "../service/domain/protocol.ts"
import type { HubInputTrace } from "../service/hub/inputLines.ts"
import { TRACE_HASH_ALGORITHM } from "../service/hub/trace.ts"
import { createAnvilSpokes, createMemorySpokes, type SpokesShape } from "../service/spoke/spoke.ts"
import { startArbitrageurs } from "./agents/arbitrageur.ts"
import { holdings18, type PopulationStats } from "./agents/common.ts"
import { type KeeperStats, startKeepers } from "./agents/keepers.ts"
import { startLiquidity } from "./agents/liquidity.ts"
import { startRebalancers } from "./agents/rebalancer.ts"
import { startSolvers } from "./agents/solver.ts"
import type { ChainPool } from "./chains/pool.ts"
import { MetricsCollector } from "./metrics/collector.ts"
import { evaluateProperties } from "./metrics/properties.ts"
import { Timeseries } from "./metrics/timeseries.ts"
import { buildMetricsSection, knownMetricNames, metricsOf, type RunReport } from "./report/report.ts"
import { TraceFile } from "./report/traceFile.ts"
import type { LoadedScenario } from "./scenario/load.ts"
import type { ScenarioSpec } from "./scenario/schema.ts"
import { CLEARSIM_VERSION } from "./version.ts"
import { planWorld, type WorldPlan } from "./world/plan.ts"
import { type ForeignTransactionSource, World } from "./world/world.ts"
import { makeDirectories } from "./files.ts"

/** The hub contract's address on the hub domain (the target of hub transactions built by the service). */
export const HUB_ADDRESS: Address = "0xa05a3380889115bf313f1db9d5f335157be4d816"

export type Backend = "memory" | "anvil"

export interface RunOptions {
  readonly seed: number
  readonly run?: number
  readonly backend: Backend
  /**
   * Where trace.jsonl goes (the directory is created; ended by its end line when the run completes); no trace file
   * when undefined.
   */
  readonly outDir?: string
  /** Called about once per virtual minute with the virtual time. */
  readonly onProgress?: (nowMs: number, horizonMs: number) => void
  /** Called with the world after the run, before the chains stop (tests, debugging, heap inspection). */
  readonly inspect?: (world: World) => void | Promise<void>
  /** Aborting stops the run after the current event, stops the chains and throws `RunInterrupted`. */
  readonly signal?: AbortSignal
}

export interface RunResult {
  readonly report: RunReport
  /** The per-epoch series (timeseries.csv's rows), stored compactly: `rows()` or `toArray()` gives them as objects. */
  readonly timeseries: Timeseries
}

/** A wired world: hub, read model, clearing service, metrics, keepers and agents, chains scheduled. */
export interface RunAssembly {
  readonly world: World
  readonly service: ClearingService
  readonly metrics: MetricsCollector
  readonly keepers: KeeperStats
  readonly populations: readonly PopulationStats[]
}

export interface AssembleOptions {
  readonly seed: number
  readonly spokes: SpokesShape
  /** Receives the hub's input trace (see `WorldOptions.trace`). */
  readonly trace?: HubInputTrace
  /** Start the scenario's rebalancers, solvers and arbitrageurs (default true). Keepers and initial liquidity always start. */
  readonly agents?: boolean
  /** Live devnets: transactions other clients send to the chains. */
  readonly foreignTransactions?: ForeignTransactionSource
  /** Observes hub transactions sent through the service's JSON-RPC endpoint. */
  readonly onHubTransaction?: ClearingDeps["onHubTransaction"]
}

/**
 * Wires a run on `spokes` (deployed from `plan.spokes`): the world, the clearing service (its clock is the
 * world's), metrics, keepers and agents, and the chains' block production. Nothing runs until the scheduler does.
 */
export const assembleRun = (spec: ScenarioSpec, plan: WorldPlan, options: AssembleOptions): RunAssembly => {
  const spokes = options.spokes
  const world = new World(plan, {
    seed: options.seed,
    spokes,
    ...(options.trace === undefined ? {} : { trace: options.trace }),
    ...(options.foreignTransactions === undefined ? {} : { foreignTransactions: options.foreignTransactions }),
  })
  const service = new ClearingService({
    hub: world.hub,
    model: world.model,
    clock: { nowSeconds: () => world.timestamp },
    // Hub transactions of the JSON-RPC endpoint go through the world: traced, and their messages transported.
    applyHubInput: (input) => world.applyHub(input),
    ...(options.onHubTransaction === undefined ? {} : { onHubTransaction: options.onHubTransaction }),
    config: {
      hubAddress: HUB_ADDRESS,
      spokes: spokes.domains.map((domain) => ({ domain, spoke: spokes.chain(domain).addresses.spoke, feeAdapter: spokes.chain(domain).addresses.feeAdapter })),
      feeSignerKey: plan.feeSigner.privateKey,
      // Deadlines on a 10-minute grid: equal fees share one signature for ten minutes.
      feeDeadlineGranularitySeconds: 600,
      quotes: {
        bySymbol: Object.fromEntries(
          spec.assets.map((a) => [
            a.symbol,
            {
              ...(a.fixedFeeTokens === undefined ? {} : { fixedFeeTokens: typeof a.fixedFeeTokens === "number" ? numberToDecimal(a.fixedFeeTokens) : a.fixedFeeTokens }),
              ...(a.maxVariableFeeBps === undefined ? {} : { maxVariableFeeBps: a.maxVariableFeeBps }),
            },
          ]),
        ),
      },
      fastPath: { solvers: plan.agents.filter((a) => a.kind === "solver").map((a) => a.account.address) },
    },
  })
  const metrics = new MetricsCollector(world)
  world.observe(metrics)
  const keepers = startKeepers(world, spec.keepers)
  const populations: PopulationStats[] = []
  const agentsOf = (kind: string, name: string) => plan.agents.filter((a) => a.kind === kind && a.population === name)
  if (options.agents ?? true) {
    for (const s of spec.agents.solvers ?? []) populations.push(startSolvers(world, service, s, agentsOf("solver", s.name)))
    for (const r of spec.agents.rebalancers ?? []) populations.push(startRebalancers(world, service, r, agentsOf("rebalancer", r.name)))
    for (const a of spec.agents.arbitrageurs ?? []) populations.push(startArbitrageurs(world, service, a, agentsOf("arbitrageur", a.name)))
  }
  const liquidityAgent = plan.agents.find((a) => a.kind === "liquidity")
  if (liquidityAgent !== undefined && spec.initialLiquidity !== undefined) populations.push(startLiquidity(world, service, spec.initialLiquidity, liquidityAgent))
  world.startChains()
  return { world, service, metrics, keepers, populations }
}

/** Tokens each population sent in intents not yet received (from the metrics; no chain reads). */
export const measureInFlight = (plan: WorldPlan, assembly: RunAssembly): void => {
  const inFlight18 = assembly.metrics.inFlight18()
  for (const population of assembly.populations) {
    const members = plan.agents.filter((a) => a.population === population.population && a.kind === population.kind)
    // Summed exactly, made whole tokens once.
    const sum18: Record<string, bigint> = {}
    for (const agent of members) {
      for (const [symbol, amount18] of Object.entries(inFlight18.get(agent.id) ?? {})) sum18[symbol] = (sum18[symbol] ?? 0n) + amount18
    }
    for (const [symbol, amount18] of Object.entries(sum18)) population.inFlight[symbol] = assembly.metrics.tokens18(amount18)
  }
}

/**
 * Holdings change: what each population holds now (wallets + spoke virtual balances) against its funding, summed
 * exactly in 18-decimal units (reads every agent's balances on the chains).
 */
export const measureHoldingsChange = async (plan: WorldPlan, assembly: RunAssembly): Promise<void> => {
  const { world, metrics } = assembly
  for (const population of assembly.populations) {
    const members = plan.agents.filter((a) => a.population === population.population && a.kind === population.kind)
    const change18: Record<string, bigint> = {}
    for (const agent of members) {
      const now = await holdings18(world, agent.account.address)
      for (const [symbol, held18] of Object.entries(now)) {
        const chains = BigInt([...plan.assets.values()].filter((a) => a.symbol === symbol).length)
        change18[symbol] = (change18[symbol] ?? 0n) + held18 - plan.fundingTokens * 10n ** 18n * chains
      }
      // A solver's rebalance receiver (not funded): what it holds is the solver's, on its way into inventory.
      if (agent.rebalanceReceiver !== undefined) {
        for (const [symbol, held18] of Object.entries(await holdings18(world, agent.rebalanceReceiver.address))) change18[symbol] = (change18[symbol] ?? 0n) + held18
      }
    }
    for (const [symbol, amount18] of Object.entries(change18)) population.pnl[symbol] = metrics.tokens18(amount18)
  }
}

export interface ReportOptions {
  readonly seed: number
  readonly run: number
  readonly backend: Backend
  /** The virtual seconds the run covered. */
  readonly horizonSeconds: number
  readonly wallSeconds: number
}

/** The run's report and timeseries, from the assembly's state (no chain reads; the wall clock is never read here: `wallSeconds` is the caller's). */
export const buildRunResult = (loaded: LoadedScenario, assembly: RunAssembly, options: ReportOptions): RunResult => {
  const spec = loaded.spec
  const { world, metrics, keepers, populations } = assembly
  // The epochs the run covered: the hub's epoch at the run's last second (a hub halt produces no blocks, so no
  // epochs either), or the one the hub entered at the horizon tick itself when the horizon is a whole number of
  // epochs: what the keepers did at that tick counts in the report's totals, so it has its epoch (of no length) in
  // the time series too, and the last row of the series is the report's figures.
  const firstEpoch = world.firstEpoch
  const lastSecond = Math.max(0, Math.ceil(options.horizonSeconds) - 1)
  const lastEpoch = Math.max(firstEpoch, world.hub.state.epochAt(world.hubBlockNumberAt(lastSecond)), world.hub.currentEpoch())
  // The epoch the horizon cut short gets its time-series rows and property checks too.
  metrics.closeEpochsThrough(lastEpoch, firstEpoch)
  const section = buildMetricsSection(metrics)
  const base = {
    // `./scenarios/x.yaml` and `scenarios/x.yaml` are one file: the same report.
    scenario: { name: spec.name, file: normalize(loaded.file), hash: loaded.scenarioHash, ...(spec.description === undefined ? {} : { description: spec.description }) },
    seed: options.seed,
    run: options.run,
    version: CLEARSIM_VERSION,
    backend: options.backend,
    traceHash: world.traceHash(),
    traceHashAlgorithm: TRACE_HASH_ALGORITHM,
    hubEvents: world.hasher.events,
    hubInputs: world.stats.hubInputs,
    horizonSeconds: options.horizonSeconds,
    epochs: { first: firstEpoch, last: lastEpoch, count: lastEpoch - firstEpoch + 1 },
    ...section,
    agents: populations.map((p) => ({
      kind: p.kind,
      population: p.population,
      agents: p.agents,
      actions: p.actions,
      rejections: p.rejections,
      fallbacks: p.fallbacks,
      pnl: p.pnl,
      inFlight: p.inFlight,
    })),
    keepers,
    transport: { ...world.transport.stats },
    world: { ...world.stats },
    coverage: [...metrics.coverage].sort(),
    wallSeconds: options.wallSeconds,
    // Where the run ran: V8's Math.log, Math.exp and Math.cos (latency and size draws) are not bit-exact across
    // versions, so a trace hash is reproducible on the same major Node version.
    runtime: { node: process.versions.node, v8: process.versions.v8 },
  }
  const t = world.transport.stats
  // Any fault the transport injected or carried out: a drop, duplicate, reordering, outage hold, or a delivery the
  // paused hub refused and the relayer retried.
  if (t.dropped + t.duplicated + t.reordered + t.heldByOutage + t.redeliveredAfterRefusal > 0) {
    metrics.coverage.add("transportFaultInjected")
  }
  const properties = evaluateProperties(spec.properties ?? [], metricsOf(base), metrics.epochValues, metrics.coverage, knownMetricNames(populations.filter((p) => p.kind !== "liquidity").map((p) => p.population), spec.assets.map((a) => a.symbol)))
  const report: RunReport = { ...base, coverage: [...metrics.coverage].sort(), properties, passed: properties.every((p) => p.pass) }
  const timeseries = new Timeseries(options.run, options.seed, metrics.timeseries)
  return { report, timeseries }
}

/** The run was stopped before its horizon (an abort signal); nothing was reported. */
export class RunInterrupted extends Error {
  override readonly name = "RunInterrupted"
  readonly atMs: number
  constructor(atMs: number) {
    super(`run interrupted at virtual time ${Math.floor(atMs / 1000)} s`)
    this.atMs = atMs
  }
}

/** A chain whose anvil exited on its own during a run, as `ChainExited` tells it. */
export interface ExitedChain {
  readonly chainId: number
  /** The scenario's name for it, when it gives one. */
  readonly name?: string
  readonly rpcUrl: string
  readonly pid: number
  /** "was killed by SIGKILL", "exited with code 1", "exited" (`chainExitText`). */
  readonly how: string
}

/**
 * A run stopped because the anvil of one of its chains (or more) exited on its own (killed, crashed): not a defect
 * of clearsim, nor of the scenario. Says which chain (id, name, pid, RPC URL), how it ended, and when: the virtual
 * time and the hub's epoch then, or that the run was still starting (deploying its contracts) or past its horizon.
 * `cause` is the error the run met (a request to that chain that failed).
 */
export class ChainExited extends Error {
  override readonly name = "ChainExited"
  readonly chains: readonly ExitedChain[]
  /** The virtual time (ms) the run was at, and the hub's epoch then; undefined while it was starting. */
  readonly atMs: number | undefined
  readonly epoch: number | undefined
  readonly horizonMs: number
  readonly seed: number
  constructor(seed: number, chains: readonly ExitedChain[], at: { readonly atMs: number; readonly epoch: number; readonly firstEpoch: number } | undefined, horizonMs: number, cause: unknown) {
    const and = (items: readonly string[]) => (items.length === 1 ? items[0]! : `${items.slice(0, -1).join(", ")} and ${items.at(-1)!}`)
    const chain = (c: ExitedChain) => `${c.chainId} (${c.name === undefined ? "" : `${c.name}; `}pid ${c.pid}, RPC ${c.rpcUrl})`
    // Anvils that ended alike (`pkill -9 anvil`) are told together.
    const what =
      chains.length > 1 && chains.every((c) => c.how === chains[0]!.how)
        ? `the anvils of chains ${and(chains.map(chain))} ${chains[0]!.how.replace(/^was /, "were ")}`
        : and(chains.map((c) => `the anvil of chain ${chain(c)} ${c.how}`))
    const seconds = (ms: number) => `${Math.floor(ms / 1000)} s`
    const ordinal = (n: number) => `${n}${n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th")}`
    const when =
      at === undefined
        ? "while the run was starting (deploying its contracts)"
        : at.atMs >= horizonMs
          ? `after the run reached its horizon (${seconds(horizonMs)} of virtual time), while it read the agents' balances`
          : `at virtual time ${seconds(at.atMs)} of ${seconds(horizonMs)}, in epoch ${at.epoch} (the run's ${ordinal(at.epoch - at.firstEpoch + 1)})`
    super(`the run of seed ${seed} was stopped: ${what} ${when}`, { cause })
    this.seed = seed
    this.chains = chains
    this.atMs = at?.atMs
    this.epoch = at?.epoch
    this.horizonMs = horizonMs
  }
}

export const runScenario = async (loaded: LoadedScenario, options: RunOptions, wallClock: () => number = () => 0): Promise<RunResult> => {
  const started = wallClock()
  const spec = loaded.spec
  const plan = planWorld(spec)
  let pool: ChainPool | undefined
  let trace: TraceFile | undefined
  let finished: World | undefined
  let failed = true
  try {
    let spokes: SpokesShape
    if (options.backend === "anvil") {
      // Loaded for anvil only: a memory run does not load prool and its process tools.
      const { ChainPool } = await import("./chains/pool.ts")
      pool = await ChainPool.start({
        chainIds: spec.chains.map((c) => c.id),
        genesisTimestamp: plan.genesisTimestamp,
        accounts: plan.accountCount,
      })
      spokes = await createAnvilSpokes(pool, plan.spokes)
    } else {
      // The service builds every call it hands out, so re-validating arguments at submit is redundant here.
      spokes = createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false })
    }
    if (options.outDir !== undefined) {
      makeDirectories(options.outDir)
      trace = new TraceFile(join(options.outDir, "trace.jsonl"))
    }
    const traceFile = trace
    const assembly = assembleRun(spec, plan, {
      seed: options.seed,
      spokes,
      ...(traceFile === undefined ? {} : { trace: traceFile }),
    })
    const { world } = assembly
    finished = world
    // An abort (Ctrl-C on the CLI) stops the run after the current event; the chains are still stopped below.
    const stop = () => world.scheduler.stop()
    options.signal?.addEventListener("abort", stop)
    try {
      await world.run(plan.horizonSeconds, options.onProgress === undefined ? undefined : (now) => options.onProgress!(now, plan.horizonSeconds * 1000))
    } finally {
      options.signal?.removeEventListener("abort", stop)
    }
    if (options.signal?.aborted === true) throw new RunInterrupted(world.scheduler.nowMs)
    measureInFlight(plan, assembly)
    await measureHoldingsChange(plan, assembly)
    await options.inspect?.(world)
    const result = buildRunResult(loaded, assembly, {
      seed: options.seed,
      run: options.run ?? 0,
      backend: options.backend,
      horizonSeconds: plan.horizonSeconds,
      wallSeconds: (wallClock() - started) / 1000,
    })
    // The trace's end line says the run completed (a failed write fails the run).
    trace?.end()
    failed = false
    return result
  } catch (error) {
    // A chain whose anvil exited on its own (killed, crashed) is what stopped the run: said so, with when. (Not an
    // interrupted run's: a Ctrl-C on a terminal reaches the anvils too, and the interruption is what happened.)
    if (pool === undefined || options.signal?.aborted === true) throw error
    const exited = await pool.exitedOnTheirOwn(error)
    if (exited.length === 0) throw error
    const { chainExitText } = await import("./chains/chain.ts")
    const names = new Map(spec.chains.map((c) => [c.id, c.name]))
    throw new ChainExited(
      options.seed,
      exited.map((chain) => ({ chainId: chain.chainId, ...(names.get(chain.chainId) === undefined ? {} : { name: names.get(chain.chainId)! }), rpcUrl: chain.rpcUrl, pid: chain.pid, how: chainExitText(chain.exit) })),
      // The first epoch is known once the world began; a failure before (none yet) is at its start.
      finished === undefined ? undefined : { atMs: finished.nowMs, epoch: finished.hub.currentEpoch(), firstEpoch: finished.firstEpoch < 0 ? finished.hub.currentEpoch() : finished.firstEpoch },
      plan.horizonSeconds * 1000,
      error,
    )
  } finally {
    finished?.close()
    try {
      // What was traced so far is kept, an interrupted run's included, without an end line.
      trace?.close()
    } catch (error) {
      // A failure of the run itself is the one to report; a trace that could not be written fails a run that did not.
      if (!failed) throw error
    } finally {
      await pool?.stop()
    }
  }
}
