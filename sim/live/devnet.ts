/**
 * A live devnet (`clearsim up`): the scenario's chains on local anvil with the contracts deployed, the hub
 * engine, read model and clearing service, the HTTP API (with the hub's JSON-RPC at `POST /hub/rpc`), the
 * transport, keepers and agents, all paced to the wall clock by the real-time adapter (`realtime.ts`).
 *
 * It is the world of `clearsim run` with three differences: time is real (virtual time 0 = the genesis second,
 * so block timestamps are wall-clock unix seconds); other clients take part (transactions users sign and send to
 * a chain's RPC URL are mined at the chain's next block tick and every transaction of a block is processed; hub
 * transactions sent to `/hub/rpc` go through the world, so they are traced and their SETTLEMENT messages
 * transported); and it runs until `stop()`, which ends the trace with its end line (as a completed run's, see
 * `service/hub/replay.ts`) and writes a report of the session. A session that does not stop (killed outright, or
 * failing to start) leaves its trace without the end line.
 *
 * A trace that cannot be written (a full disk) does not stop the session, unlike a run's (`report/traceFile.ts`
 * throws and the run fails): a run is reproducible from its seed, so failing it loses nothing that cannot be made
 * again, and its trace is what it is for; a live session cannot be made again (real time and other clients decide
 * what happens), its users are in the middle of using it, and stopping it would save none of the trace. So the
 * failure is told once, the trace is no longer written, and the session goes on: `session.json` and the stop name
 * the failure (`traceError`), since the trace left (if any) is incomplete and does not replay to the session's trace
 * hash. `clearsim up` checks the files below before it starts (`DEVNET_FILES`), so what is left to fail here is
 * what cannot be foreseen: a disk that fills up, a file changed under the session.
 */
import { createWriteStream, fstatSync, statSync, writeFileSync, type WriteStream } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import { finished } from "node:stream/promises"
import { type ApiServer, hostPortText, startApiServer } from "../../service/api/server.ts"
import type { HubTransactionResult } from "../../service/api/hubRpc.ts"
import type { Address, Hex } from "../../service/domain/hex.ts"
import { lineTrace } from "../../service/hub/inputLines.ts"
import { encodeEndLine } from "../../service/hub/replay.ts"
import { type AnvilSpokeChain, createAnvilSpokes, type SpokesShape } from "../../service/spoke/spoke.ts"
import { ChainPool, ChainStartError, ChainStoppedError, TEST_MNEMONIC } from "../chains/index.ts"
import { REPORT_FILES, reportFileTexts, type RunReport } from "../report/report.ts"
import { assembleRun, buildRunResult, HUB_ADDRESS, measureInFlight, type RunAssembly } from "../run.ts"
import type { LoadedScenario } from "../scenario/load.ts"
import { planWorld, type WorldPlan } from "../world/plan.ts"
import type { ForeignTransaction, ForeignTransactionSource } from "../world/world.ts"
import { RealtimePacer, wallClockMs, wallClockSeconds, withTimeout } from "./realtime.ts"
import { makeDirectories, writeTextFile } from "../files.ts"
import { type TraceWriteError, traceWriteError, type UnwrittenFile, unwrittenFile } from "./traceError.ts"

export interface DevnetOptions {
  readonly loaded: LoadedScenario
  /** API port; 0 picks a free one. */
  readonly port: number
  readonly host: string
  /** Start the scenario's rebalancers, solvers and arbitrageurs (keepers and initial liquidity always run). */
  readonly agents: boolean
  /** Funded dev accounts left free for users. */
  readonly userAccounts: number
  /** Seed of the agents' and transport's randomness (default: the scenario's, else 1). */
  readonly seed?: number
  /** Where devnet.json (at start), trace.jsonl (as the hub takes inputs; its end line at stop), report.* and session.json (at stop) go. */
  readonly outDir: string
  /** Activity lines: transactions of other clients, hub JSON-RPC transactions, errors, status. */
  readonly log?: (line: string) => void
  /** Virtual seconds between status lines (0: none). @default 60 */
  readonly statusEverySeconds?: number
}

export interface DevnetAccount {
  readonly index: number
  readonly address: Address
  readonly privateKey: Hex
}

export interface DevnetChainInfo {
  readonly chainId: number
  readonly name: string | undefined
  readonly rpcUrl: string
  readonly blockTimeSeconds: number
  /** The anvil process. */
  readonly pid: number
  readonly contracts: {
    readonly feeAdapter: Address
    readonly spoke: Address
    readonly gateway: Address
    readonly xerc20Module: Address
    readonly tokens: Readonly<Record<string, { readonly address: Address; readonly decimals: number; readonly kind: string }>>
  }
}

/** What a client needs to use the devnet (printed at start, and written to `devnet.json`). */
export interface DevnetInfo {
  readonly scenario: string
  readonly seed: number
  readonly apiUrl: string
  readonly docsUrl: string
  readonly hub: {
    readonly rpcUrl: string
    readonly domain: number
    readonly address: Address
    readonly blockTimeSeconds: number
    readonly epochLength: number
    /** The hub's owner (the deployer, a reserved account): it may `pause()` and `unpause()` the hub through `rpcUrl` (§3.14). */
    readonly owner: DevnetAccount
  }
  readonly chains: readonly DevnetChainInfo[]
  readonly mnemonic: string
  /** Funded accounts nothing in the devnet signs with: for users. */
  readonly accounts: readonly DevnetAccount[]
  /** Accounts the devnet signs with (deployer, relayer, fee signer, keeper, treasury, agents): do not send from them. */
  readonly reservedAccounts: { readonly from: number; readonly to: number }
  /** Accounts after the users' that the devnet uses too (the solvers' rebalance receivers), if any. */
  readonly reservedAfterUsers?: { readonly from: number; readonly to: number }
  /** Whole tokens of every token minted to every account on every chain. */
  readonly fundingTokens: string
  readonly agents: boolean
  readonly genesisTimestamp: number
  readonly outDir: string
}

export interface DevnetSession {
  readonly wallSeconds: number
  readonly virtualSeconds: number
  /** Transactions of mined blocks that other clients sent to the chains. */
  readonly foreignTransactions: number
  /** Transactions sent to the hub's JSON-RPC endpoint (accepted ones, reverted or not). */
  readonly hubRpcTransactions: number
  /** Errors of event handlers (logged; the devnet went on). */
  readonly handlerErrors: number
  /** The hash of every hub input of the session (kept in memory: a trace file that failed does not change it). */
  readonly traceHash: Hex
  readonly hubInputs: number
  readonly report: RunReport
  readonly conservation: "ok" | string
  /** Why trace.jsonl could not be written, when it could not: it holds the session's beginning at most. */
  readonly traceError?: TraceWriteError
  /**
   * The files of the stop that could not be written (a full disk), each with its reason: the others are written all
   * the same, and session.json names those before it (report.*); present only when some could not be written.
   */
  readonly unwrittenFiles?: readonly UnwrittenFile[]
}

/** The files a session writes into its output directory (`clearsim up` checks them all before it starts). */
export const DEVNET_FILES = ["devnet.json", "trace.jsonl", ...REPORT_FILES, "session.json"] as const

export interface Devnet {
  readonly info: DevnetInfo
  /** Stops the pacer, the API server and the chains, ends the trace with its end line and writes the session's report (idempotent). */
  stop(): Promise<DevnetSession>
}


/** The API port is taken (or the host cannot be bound): a user error, reported before anything starts. */
export class DevnetListenError extends Error {
  override readonly name = "DevnetListenError"
  readonly host: string
  readonly port: number
  readonly code: string
  constructor(host: string, port: number, code: string) {
    super(
      code === "EADDRINUSE"
        ? `--port: ${hostPortText(host, port)} is already in use (another clearsim up?); pass another --port, or --port 0 for a free one`
        : `--host/--port: cannot listen on ${hostPortText(host, port)} (${code})`,
    )
    this.host = host
    this.port = port
    this.code = code
  }
}

const SERVICE_ACCOUNTS = 5
/** Funding mints to a block at the start (150,000 gas each: 150 M gas, within the chains' 1 G block gas limit). */
const FUNDING_MINTS_PER_BLOCK = 1000

export const startDevnet = async (options: DevnetOptions): Promise<Devnet> => {
  const { loaded, log = () => {} } = options
  const spec = loaded.spec
  const seed = options.seed ?? spec.seed ?? 1
  // A taken port or a host that cannot be bound fails now, before the chains start (the real listen below still
  // reports a lost race).
  await probeListen(options.host, options.port)
  // Virtual time 0 is the genesis second: block and hub timestamps are wall-clock unix seconds.
  const genesis = wallClockSeconds()
  const planned = planWorld(spec, { genesisTimestamp: genesis, userAccounts: options.userAccounts })
  // The deployer owns the hub, so that a user can pause it through the hub's JSON-RPC (its key is printed).
  const plan: WorldPlan = { ...planned, hub: { ...planned.hub, owner: planned.hub.owner ?? planned.deployer.address } }
  const pool = await ChainPool.start({
    chainIds: spec.chains.map((c) => c.id),
    genesisTimestamp: genesis,
    accounts: plan.accountCount,
    // Users deploy their own contracts on a live devnet (forge scripts use this factory).
    create2Deployer: true,
  })
  let trace: WriteStream | undefined
  let server: ApiServer | undefined
  try {
    // The funding mints many to a block: one per block (the layout `clearsim run` keeps, which the memory twin
    // mirrors) took minutes with many --accounts; a live devnet has no twin.
    const spokes = await createAnvilSpokes(pool, plan.spokes, {}, { fundingPerBlock: FUNDING_MINTS_PER_BLOCK })
    makeDirectories(options.outDir)
    const traceStream = (trace = createWriteStream(join(options.outDir, "trace.jsonl")))
    // The stream fails once (it is destroyed then): the session goes on without its trace (see the header).
    let traceError: TraceWriteError | undefined
    traceStream.on("error", (error: NodeJS.ErrnoException) => {
      if (traceError !== undefined) return
      traceError = traceWriteError(error, traceStream.bytesWritten)
      log(`trace.jsonl cannot be written: ${traceError.reason} (${traceError.code}); the session goes on without its trace`)
    })
    // The file the trace is written to: one removed or replaced during the session (its directory deleted, the file
    // moved away) takes the trace with it, which the stop then says instead of offering the replay of what is there.
    let traceFile: { readonly dev: number; readonly ino: number } | undefined
    traceStream.once("open", (fd: number) => {
      try {
        const stats = fstatSync(fd)
        traceFile = { dev: stats.dev, ino: stats.ino }
      } catch {
        // not known: not checked
      }
    })
    const traceLines = lineTrace((line) => {
      if (traceError === undefined) traceStream.write(`${line}\n`)
    })
    const counters = { foreignTransactions: 0, hubRpcTransactions: 0, handlerErrors: 0 }
    const assembly = assembleRun(spec, plan, {
      seed,
      spokes,
      agents: options.agents,
      trace: traceLines,
      foreignTransactions: foreignSource(spokes, (domain, block, tx) => {
        counters.foreignTransactions++
        const events = tx.events.map((e) => e.name).join(", ") || "no events"
        log(`chain ${domain} block ${block}: transaction ${tx.hash} from ${tx.from} (${tx.status}): ${events}`)
      }),
      onHubTransaction: (result: HubTransactionResult) => {
        counters.hubRpcTransactions++
        const what = result.input === undefined ? "not a hub call" : result.input.kind
        log(`hub: transaction ${result.hash} from ${result.from}: ${what}${result.revert === undefined ? "" : `, reverted: ${result.revert.errorName}: ${result.revert.message}`}`)
      },
    })
    const { world } = assembly
    world.begin()
    // The hub's block follows the clock even when no input arrives (health, epochs, the JSON-RPC's blocks).
    world.scheduler.every(plan.hubBlockTimeSeconds * 1000, plan.hubBlockTimeSeconds * 1000, "live/hub-block", () => world.advanceHub())
    const statusEvery = options.statusEverySeconds ?? 60
    if (statusEvery > 0) world.scheduler.every(statusEvery * 1000, statusEvery * 1000, "live/status", () => log(statusLine(assembly, counters)))
    try {
      server = await startApiServer(assembly.service, { port: options.port, host: options.host })
    } catch (error) {
      const code = (error as { code?: unknown }).code
      if (typeof code === "string") throw new DevnetListenError(options.host, options.port, code)
      throw error
    }
    const api = server
    const info = describe(spec.name, seed, plan, world.hub.state.epochLengthBlocks, spokes, pool, api.url, options)
    writeFileSync(join(options.outDir, "devnet.json"), `${JSON.stringify(info, null, 2)}\n`)

    const startedWall = wallClockMs()
    const exitedChains = new Set<number>()
    const pacer = new RealtimePacer(world.scheduler, {
      originWallMs: Number(genesis) * 1000,
      onError: (error, label) => {
        counters.handlerErrors++
        // A chain whose anvil exited on its own (killed, crashed) fails every event of it from then on: said once,
        // in words that name what happened (the chain's errors say "the client is closed (anvil exited)").
        const gone = exitedChain(pool, error)
        if (gone !== undefined) {
          if (exitedChains.has(gone.chainId)) return
          exitedChains.add(gone.chainId)
          log(
            `chain ${gone.chainId}: its anvil (pid ${gone.pid}) has exited (killed or crashed): its RPC URL no longer answers and what the devnet does on it fails from now on (counted as handler errors, not logged again); stop the devnet (Ctrl-C) and start it again`,
          )
          return
        }
        log(`error in ${label}: ${error instanceof Error ? error.message : String(error)}`)
      },
    })
    const pacing = pacer.run()
    let stopping: Promise<DevnetSession> | undefined
    const stop = (): Promise<DevnetSession> =>
      (stopping ??= (async () => {
        await pacer.stop()
        await pacing.catch(() => undefined)
        // Open keep-alive connections must not hold the shutdown.
        await withTimeout(api.close(), 2000, () => undefined)
        let conservation = "ok"
        try {
          world.finish()
        } catch (error) {
          conservation = error instanceof Error ? error.message : String(error)
        }
        await pool.stop()
        // Every input is traced by now (the hub's last block included): the end line says the session stopped, so
        // that replaying its trace does not take it for one cut short. A conservation violation does not keep it
        // off: the trace is complete, and its replay finds the violation. A failed trace gets none: it is not complete.
        // (The world counts every input it traces: the end line's count is the number of input lines written.)
        // A failed trace is not logged again here: the session returned names it (`traceError`, `traceFailureText`).
        await closeTrace(traceStream, traceError === undefined ? `${encodeEndLine(world.stats.hubInputs)}\n` : undefined)
        if (traceError === undefined && traceFile !== undefined && !isFile(join(options.outDir, "trace.jsonl"), traceFile)) {
          traceError = { code: "ENOENT", reason: "removed or replaced during the session", bytesWritten: traceStream.bytesWritten, removed: true }
        }
        return writeSession(options.outDir, loaded, plan, assembly, seed, { ...counters, ...(traceError === undefined ? {} : { traceError }) }, conservation, (wallClockMs() - startedWall) / 1000)
      })())
    return { info, stop }
  } catch (error) {
    await server?.close().catch(() => undefined)
    await pool.stop()
    if (trace !== undefined) await closeTrace(trace)
    throw error
  }
}

/** Whether `path` is the file `file` (the same device and inode). */
const isFile = (path: string, file: { readonly dev: number; readonly ino: number }): boolean => {
  try {
    const stats = statSync(path)
    return stats.dev === file.dev && stats.ino === file.ino
  } catch {
    return false
  }
}

/**
 * Ends the trace stream, `last` written first, and waits until its file is closed or the stream has failed (its
 * 'error' listener tells why). A stream that failed already has nothing to end: it closed its file as it failed.
 */
const closeTrace = async (stream: WriteStream, last?: string): Promise<void> => {
  if (stream.destroyed) return
  stream.end(last)
  await finished(stream).catch(() => undefined)
}

/**
 * The pool's chain an event's error is about (the `chainId` of a chain error, or of one of its causes) when that
 * chain's anvil is no longer running; `undefined` otherwise.
 */
const exitedChain = (pool: ChainPool, error: unknown): { readonly chainId: number; readonly pid: number } | undefined => {
  for (let e = error, depth = 0; typeof e === "object" && e !== null && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const chainId = (e as { chainId?: unknown }).chainId
    if (typeof chainId !== "number" || !pool.chainIds.includes(chainId)) continue
    const chain = pool.chain(chainId)
    try {
      chain.assertRunning("run")
      return undefined
    } catch {
      return { chainId, pid: chain.pid }
    }
  }
  return undefined
}

/**
 * Whether a failed start failed because a chain went away under it: an anvil that did not start or exited (killed),
 * or a call that found its chain stopped or its connection refused or cut. A signal this process receives during the
 * start kills the chains (the chain pool's handler), and the start then fails so: `clearsim up` takes such a failure
 * for the stop's doing. Any other failure (the API's port taken meanwhile, a file that cannot be written, a
 * transaction that reverted) is the start's own, and is reported as such.
 */
export const isChainGoneFailure = (error: unknown): boolean => {
  for (let e = error, depth = 0; typeof e === "object" && e !== null && depth < 8; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof ChainStoppedError || e instanceof ChainStartError) return true
    const code = (e as { code?: unknown }).code
    if (code === "ECONNREFUSED" || code === "ECONNRESET" || code === "UND_ERR_SOCKET") return true
  }
  return false
}

/** Listens on `host:port` and closes at once: a `DevnetListenError` if that cannot be done. */
export const probeListen = (host: string, port: number): Promise<void> =>
  new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once("error", (error: NodeJS.ErrnoException) => reject(new DevnetListenError(host, port, error.code ?? error.message)))
    probe.listen(port, host, () => probe.close(() => resolve()))
  })

/** Other clients' transactions on the anvil chains: pool contents and the transactions of mined blocks. */
const foreignSource = (
  spokes: SpokesShape<AnvilSpokeChain>,
  onTransaction: (domain: number, block: bigint, tx: ForeignTransaction) => void,
): ForeignTransactionSource => ({
  waiting: async (domain) => (await spokes.chain(domain).poolPending()) > 0,
  blockTransactions: async (domain, block, own) => {
    const { hashes, others } = await spokes.chain(domain).blockTransactions(block.blockNumber, own)
    const foreign = others.map((tx): ForeignTransaction => ({ foreign: true, hash: tx.hash, index: tx.index, from: tx.from, nonce: tx.nonce, status: tx.status, events: tx.events }))
    for (const tx of foreign) onTransaction(domain, block.blockNumber, tx)
    return { hashes, foreign }
  },
})

const statusLine = (assembly: RunAssembly, counters: { foreignTransactions: number; hubRpcTransactions: number }): string => {
  const { world } = assembly
  const state = world.hub.state
  return `t+${Math.round(world.nowMs / 1000)}s: hub block ${state.blockNumber} epoch ${world.hub.currentEpoch()}; intents ${world.model.intentCount}, open invoices ${world.model.invoices.size}; spoke blocks ${world.stats.spokeBlocks}, messages ${world.transport.stats.sent}; your transactions: ${counters.foreignTransactions} on chains, ${counters.hubRpcTransactions} on the hub`
}

const describe = (name: string, seed: number, plan: WorldPlan, epochLength: number, spokes: SpokesShape<AnvilSpokeChain>, pool: ChainPool, apiUrl: string, options: DevnetOptions): DevnetInfo => ({
  scenario: name,
  seed,
  apiUrl,
  docsUrl: `${apiUrl}/docs`,
  hub: {
    rpcUrl: `${apiUrl}/hub/rpc`,
    domain: plan.hubDomain,
    address: HUB_ADDRESS,
    blockTimeSeconds: plan.hubBlockTimeSeconds,
    epochLength,
    owner: { index: plan.deployer.index, address: plan.deployer.address.toLowerCase() as Address, privateKey: plan.deployer.privateKey },
  },
  chains: plan.scenario.chains.map((c) => {
    const chain = spokes.chain(c.id)
    const a = chain.addresses
    return {
      chainId: c.id,
      name: c.name,
      rpcUrl: pool.chain(c.id).rpcUrl,
      blockTimeSeconds: c.blockTimeSeconds ?? 2,
      pid: pool.chain(c.id).pid,
      contracts: {
        feeAdapter: a.feeAdapter,
        spoke: a.spoke,
        gateway: a.gateway,
        xerc20Module: a.xerc20Module,
        tokens: Object.fromEntries(Object.values(a.tokens).map((t) => [t.symbol, { address: t.address, decimals: t.decimals, kind: t.kind }])),
      },
    }
  }),
  mnemonic: TEST_MNEMONIC,
  accounts: plan.users.map((u) => ({ index: u.index, address: u.address.toLowerCase() as Address, privateKey: u.privateKey })),
  reservedAccounts: { from: 0, to: SERVICE_ACCOUNTS + plan.agents.length - 1 },
  ...(plan.accountCount > SERVICE_ACCOUNTS + plan.agents.length + plan.users.length
    ? { reservedAfterUsers: { from: SERVICE_ACCOUNTS + plan.agents.length + plan.users.length, to: plan.accountCount - 1 } }
    : {}),
  fundingTokens: plan.fundingTokens.toString(),
  agents: options.agents,
  genesisTimestamp: Number(plan.genesisTimestamp),
  outDir: options.outDir,
})

const writeSession = (
  outDir: string,
  loaded: LoadedScenario,
  plan: WorldPlan,
  assembly: RunAssembly,
  seed: number,
  counters: { foreignTransactions: number; hubRpcTransactions: number; handlerErrors: number; traceError?: TraceWriteError },
  conservation: string,
  wallSeconds: number,
): DevnetSession => {
  const { world } = assembly
  // Holdings are not measured: the chains may already be gone (a terminal's Ctrl-C reaches anvil too).
  measureInFlight(plan, assembly)
  const virtualSeconds = world.nowMs / 1000
  const result = buildRunResult(loaded, assembly, { seed, run: 0, backend: "anvil", horizonSeconds: virtualSeconds, wallSeconds })
  // Each file on its own: one that cannot be written (a full disk, a path made a directory meanwhile) is named in the
  // session, and the others are still written. The stop's summary, trace hash included, is printed all the same.
  const unwritten: UnwrittenFile[] = []
  const write = (file: string, text: () => string | Iterable<string>): void => {
    try {
      writeTextFile(join(outDir, file), text())
    } catch (error) {
      const failure = unwrittenFile(file, error)
      if (failure === undefined) throw error
      unwritten.push(failure)
    }
  }
  try {
    makeDirectories(outDir) // made at the start; removed since, it is made again
  } catch {
    // Each file's write below fails then, and names why.
  }
  const texts = reportFileTexts({ ...result.report, live: { scenarioHorizonSeconds: plan.horizonSeconds } }, result.timeseries)
  for (const file of REPORT_FILES) write(file, texts[file])
  const session = (): DevnetSession => ({
    wallSeconds,
    virtualSeconds,
    ...counters,
    traceHash: world.traceHash(),
    hubInputs: world.stats.hubInputs,
    report: result.report,
    conservation,
    ...(unwritten.length === 0 ? {} : { unwrittenFiles: [...unwritten] }),
  })
  const { report: _report, ...summary } = session()
  write("session.json", () => `${JSON.stringify({ mode: "live", scenario: loaded.spec.name, seed, ...summary }, null, 2)}\n`)
  return session()
}
