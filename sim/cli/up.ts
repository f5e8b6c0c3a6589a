/**
 * `clearsim up [scenario.yaml] [--port 8080] [--host 127.0.0.1] [--no-agents] [--accounts 5] [--seed N] [--out DIR]`:
 * (the files a previous session left in DIR removed first) a live local devnet in real time (`sim/live/devnet.ts`) until SIGINT/SIGTERM/SIGHUP, then a clean shutdown
 * (API server, scheduler, chains), the trace and a report of the session in DIR, and exit 0 (1 on a hub conservation violation; 141 or 2 when its
 * standard output failed during the session, see `runUp`; 2 when a file of the stop could not be written). The wall-clock time of log lines comes from the
 * real-time adapter.
 */
import { existsSync, lstatSync, mkdirSync, renameSync, rmSync } from "node:fs"
import { join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Argument, Command, Flag } from "effect/cli"
import type { DevnetInfo, DevnetOptions, DevnetSession } from "../live/devnet.ts"
import { claimOutputDir, SESSION_LOCK_FILE, type SessionLock } from "../live/sessionLock.ts"
import { traceFailureText, unwrittenFilesText } from "../live/traceError.ts"
import { wallClockTimeOfDay } from "../live/realtime.ts"
import { agentIntentsSuffix } from "../report/report.ts"
import { loadScenario, ScenarioError, scenarioWarningLines } from "../scenario/load.ts"
import { pathWord } from "./shell.ts"
import { missingDirectories, removeEmptyDirectories } from "./staging.ts"
import { checkRunOutputs, describeCommandError, parseIntegerFlag, parseSeedFlag, prepareOutputDir, UsageError } from "./userErrors.ts"

/** A flag value `up` cannot use (the message names the flag and what was expected). */
export class UpInputError extends UsageError {
  override readonly name = "UpInputError"
}

export interface UpFlags {
  readonly port: number
  readonly host: string
  readonly accounts: number
}

const PORT_EXPECTED = "a TCP port between 0 and 65535"
const ACCOUNTS_EXPECTED = "a number of funded user accounts between 1 and 1000"

/** Checks the flags `effect/cli` cannot (ranges, forms); throws `UpInputError`. */
export const validateUpFlags = (flags: UpFlags): void => {
  if (!Number.isSafeInteger(flags.port) || flags.port < 0 || flags.port > 65_535) throw new UpInputError(`--port: expected ${PORT_EXPECTED} (0 picks a free one), got ${flags.port}`)
  if (!/^[A-Za-z0-9.:[\]-]+$/.test(flags.host)) throw new UpInputError(`--host: expected a host name or IP address to listen on, got "${flags.host}"`)
  if (!Number.isSafeInteger(flags.accounts) || flags.accounts < 1 || flags.accounts > 1000) throw new UpInputError(`--accounts: expected ${ACCOUNTS_EXPECTED}, got ${flags.accounts}`)
}

const time = wallClockTimeOfDay

/** The start-up text: where everything is, and the accounts to use. */
export const renderDevnetInfo = (info: DevnetInfo): string => {
  const lines: string[] = []
  lines.push(`clearsim up: ${info.scenario} (seed ${info.seed}), a live devnet in real time${info.agents ? "" : ", without agents"}. Ctrl-C stops it.`, "")
  lines.push(`API          ${info.apiUrl}          docs ${info.docsUrl}`)
  lines.push(`Hub          JSON-RPC ${info.hub.rpcUrl}   chain id (hub domain) ${info.hub.domain}   hub ${info.hub.address}`)
  lines.push(`             block time ${info.hub.blockTimeSeconds} s, epoch ${info.hub.epochLength} blocks`)
  lines.push(`             owner (may pause/unpause): account ${info.hub.owner.index} ${info.hub.owner.address} key ${info.hub.owner.privateKey}`, "")
  for (const chain of info.chains) {
    lines.push(`Chain ${chain.chainId}${chain.name === undefined ? "" : ` (${chain.name})`}   RPC ${chain.rpcUrl}   chain id ${chain.chainId}   block time ${chain.blockTimeSeconds} s`)
    const c = chain.contracts
    lines.push(`  fee adapter ${c.feeAdapter}   spoke ${c.spoke}`)
    lines.push(`  gateway     ${c.gateway}   xERC20 module ${c.xerc20Module}`)
    for (const [symbol, token] of Object.entries(c.tokens)) lines.push(`  ${symbol.padEnd(11)} ${token.address}   ${token.decimals} decimals${token.kind === "xerc20" ? ", xERC20" : ""}`)
  }
  lines.push("")
  lines.push(`Dev accounts: PUBLIC TEST KEYS from anvil's test mnemonic ("${info.mnemonic}"); never use them on a real network.`)
  lines.push(`Each holds 10,000 ETH and ${BigInt(info.fundingTokens).toLocaleString("en-US")} of every token on every chain. Free for you:`)
  for (const account of info.accounts) lines.push(`  #${String(account.index).padEnd(4)} ${account.address}   key ${account.privateKey}`)
  const after = info.reservedAfterUsers === undefined ? "" : ` So are #${info.reservedAfterUsers.from}–#${info.reservedAfterUsers.to} (the solvers' rebalance receivers).`
  lines.push(`Accounts #${info.reservedAccounts.from}–#${info.reservedAccounts.to} are the devnet's own (deployer, relayer, fee signer, keepers, agents): do not send from them.${after}`, "")
  lines.push(`Create an intent: POST ${info.apiUrl}/intents, sign the returned transaction with a free account (approve the fee adapter`)
  lines.push(`for the token first) and send it to the origin chain's RPC URL; follow it at GET ${info.apiUrl}/intents/{id}.`)
  lines.push(`Written to ${info.outDir}: devnet.json now, trace.jsonl as the hub takes its inputs; report.json, report.md, report.html, timeseries.csv, session.json when it stops.`, "")
  return lines.join("\n")
}

/** The stop summary: what the session did, its trace hash, and where its report and trace are. */
export const renderSession = (session: DevnetSession, outDir: string): string => {
  const r = session.report
  const holding = r.properties.filter((p) => p.pass).length
  const unwritten = session.unwrittenFiles ?? []
  return [
    `clearsim up stopped after ${session.wallSeconds.toFixed(1)} s: ${r.intents.created} user intents created, ${r.intents.settled} settled${agentIntentsSuffix(r)}; ${session.foreignTransactions} chain and ${session.hubRpcTransactions} hub transactions from other clients${session.handlerErrors > 0 ? `; ${session.handlerErrors} handler errors (see the log)` : ""}`,
    `  hub conservation: ${session.conservation}; trace hash ${session.traceHash} (${session.hubInputs} hub inputs)`,
    `  scenario properties on this session (informational): ${holding} of ${r.properties.length} hold`,
    `  ${unwritten.some((f) => f.file === "report.html") ? "" : `report: ${join(outDir, "report.html")}; `}${
      session.traceError === undefined ? `replay the hub: npx clearsim hub replay ${pathWord(join(outDir, "trace.jsonl"))}` : traceFailureText(session.traceError)
    }`,
    ...(unwritten.length === 0 ? [] : [`  ${unwrittenFilesText(unwritten)} in ${outDir}`]),
  ].join("\n")
}

/**
 * The exit code of a stopped session: the one `sim/cli.ts` set when standard output failed during it (141, 2), else
 * 1 for a hub conservation violation (what every command exits with when what it checks fails; it exited 0), else 2
 * when a file of the stop could not be written (a full disk), as a run's, else 0.
 */
export const stopExitCode = (session: Pick<DevnetSession, "conservation" | "unwrittenFiles">, outputFailureCode: number | undefined): number =>
  outputFailureCode ?? (session.conservation !== "ok" ? 1 : session.unwrittenFiles === undefined ? 0 : 2)

const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const

/**
 * The process event on which `bin/clearsim.js`, when it runs the command in a child process, emits the signals
 * sent to the parent (forwarded over IPC, not as signals).
 */
export const FORWARDED_SIGNAL_EVENT = "clearsim:forwarded-signal"

/**
 * Counts stop requests from signals received directly and signals forwarded by a parent `bin/clearsim.js`:
 * a Ctrl-C on a terminal (SIGINT to the whole process group) reaches this process both ways, a signal to the
 * parent alone only forwarded, one to this process alone only directly. So the n-th request is when either
 * count reaches n: `onRequest(signal, n)` is called for n = 1, 2, ... as that happens.
 */
export const stopRequests = (onRequest: (signal: NodeJS.Signals, n: number) => void) => {
  let direct = 0
  let forwarded = 0
  let requests = 0
  const update = (signal: NodeJS.Signals) => {
    const n = Math.max(direct, forwarded)
    if (n > requests) onRequest(signal, (requests = n))
  }
  return {
    direct: (signal: NodeJS.Signals) => {
      direct++
      update(signal)
    },
    forwarded: (signal: NodeJS.Signals) => {
      forwarded++
      update(signal)
    },
  }
}

/**
 * Runs the devnet until a signal, stops it, prints the session and exits the process with `stopExitCode` (0; 1 on a
 * hub conservation violation; 2 when a file of the stop could not be written, which the summary names), or 1 when
 * the shutdown failed. A second stop request forces the exit (the chain pool's exit handler still kills anvil). A failure to
 * start rejects, for the command to report (which then removes what the start wrote), unless it failed because a
 * signal received during the start stopped the chains under it (`isChainGoneFailure`): that start is abandoned
 * (`abandon`) and the process exits 130; so does a second stop request while the devnet is starting. A failure of
 * the start's own (not a chain gone) is reported even when a stop request came meanwhile.
 *
 * A standard output that fails (its reader went away: `clearsim up | head -2`; a full disk) does not stop the
 * devnet, unlike other commands, which `sim/cli.ts` interrupts then (this one runs uninterruptible): users' clients
 * are using it, and the log is all that is lost. The stop then exits with the code `sim/cli.ts` set for the failure
 * (141 for a reader gone, 2 otherwise), so that a script sees that the session's log, stop summary included, was lost.
 */
/**
 * The devnet's module (chains, contracts, the API server, the real-time pacer), loaded when `up` runs: the other
 * commands start without it and what only it needs (prool and its process tools, the HTTP server, WebSockets).
 */
type DevnetModule = typeof import("../live/devnet.ts")
let devnetModule: DevnetModule | undefined
const loadDevnet = async (): Promise<DevnetModule> => (devnetModule ??= await import("../live/devnet.ts"))

const runUp = async ({ startDevnet, isChainGoneFailure }: DevnetModule, options: DevnetOptions, abandon: () => void, cameUp: () => void): Promise<never> => {
  let received: NodeJS.Signals | undefined
  // Whether a signal reached this process itself (the chain pool's handler then killed the chains), not only forwarded.
  let direct = false
  let wake: (() => void) | undefined
  let up = false
  const requests = stopRequests((signal, n) => {
    if (n > 1) {
      process.stderr.write(`${signal} again: exiting now\n`)
      if (!up) abandon()
      process.exit(130)
    }
    received = signal
    if (!up) process.stderr.write(`${time()} ${signal}: stopping; the devnet is still starting (a second signal forces the exit)\n`)
    wake?.()
  })
  // Listening from the start: a signal during start-up stops the devnet as soon as it is up, or stops its start: a
  // signal this process receives itself also reaches the chain pool's handler, which kills the chains at once, and
  // the start then fails (a deployment's transaction finds no chain). That failure is the stop's doing, not an error
  // to report (it was a viem stack with the calldata of a contract, exit 1, after a SIGHUP; SIGINT and SIGTERM hid
  // it by interrupting the command): the start is abandoned and the process exits 130, as a second signal makes it.
  for (const name of SIGNALS) {
    process.on(name, (signal: NodeJS.Signals) => {
      direct = true
      requests.direct(signal)
    })
  }
  process.on(FORWARDED_SIGNAL_EVENT, requests.forwarded)
  // The start takes seconds, minutes with many --accounts (each is funded with every token on every chain): said
  // on standard error, so that a terminal is not left blank meanwhile and standard output keeps the start-up text.
  const chains = options.loaded.spec.chains.length
  process.stderr.write(`clearsim up: starting ${options.loaded.spec.name}: ${chains} anvil chain${chains === 1 ? "" : "s"}, their contracts and funded accounts...\n`)
  let devnet: Awaited<ReturnType<DevnetModule["startDevnet"]>>
  try {
    devnet = await startDevnet(options)
  } catch (error) {
    if (received === undefined) throw error
    // Only a chain gone under the start (killed by the pool's handler of a signal received here) is the stop's
    // doing; any other failure (the API's port taken meanwhile, a file that cannot be written) would have failed the
    // start all the same, and is reported as it is, with its exit code. It was reported as a stop, exit 130.
    if (!(direct && isChainGoneFailure(error))) {
      process.stderr.write(`${time()} ${received}: the start failed before it could be stopped; why follows\n`)
      throw error
    }
    process.stderr.write(`${time()} ${received}: stopped while starting; the devnet did not come up\n`)
    abandon()
    process.exit(130)
  }
  up = true
  cameUp()
  process.stdout.write(`${renderDevnetInfo(devnet.info)}\n`)
  if (received === undefined) await new Promise<void>((resolve) => (wake = resolve))
  process.stdout.write(`\n${time()} ${received}: stopping (a second signal forces the exit)\n`)
  try {
    const session = await devnet.stop()
    process.stdout.write(`${renderSession(session, options.outDir)}\n`)
    // Set by sim/cli.ts's handler of standard output's 'error' event (nothing else sets it while the devnet runs).
    process.exit(stopExitCode(session, typeof process.exitCode === "number" ? process.exitCode : undefined))
  } catch (error) {
    process.stderr.write(`clearsim: the shutdown failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exit(1)
  }
}

/** Where `setAsidePreviousSession` keeps a previous session's files while this one starts (in the output directory). */
export const PREVIOUS_SESSION_DIR = ".clearsim-up-previous"

/** A previous session's files set aside: `names`, then either `discard` (this session is up) or `restore` (it is not). */
export interface SetAside {
  readonly names: readonly string[]
  /** Removes them: this session came up, and writes its own. */
  readonly discard: () => void
  /** Puts them back where they were, over what this session's start wrote there: it never came up. */
  readonly restore: () => void
}

/**
 * Moves the files of `files` that a previous session left in `dir` (its devnet.json, trace, report, session.json) into
 * `PREVIOUS_SESSION_DIR` there. Left in place until this session's stop overwrote them, they were read mid-session as
 * this session's: a report that did not match the trace next to it, a devnet.json with another session's URLs; removed
 * at once, a start that then failed (a port taken, anvil missing) lost them for nothing. Called by the directory's
 * claimant only, so a `PREVIOUS_SESSION_DIR` already there is a killed start's: what it holds is older still, and goes.
 */
export const setAsidePreviousSession = (dir: string, files: readonly string[]): SetAside => {
  const aside = join(dir, PREVIOUS_SESSION_DIR)
  rmSync(aside, { recursive: true, force: true })
  const names = files.filter((name) => {
    try {
      lstatSync(join(dir, name))
      return true
    } catch {
      return false // none
    }
  })
  if (names.length > 0) {
    mkdirSync(aside)
    for (const name of names) renameSync(join(dir, name), join(aside, name))
  }
  let settled = names.length === 0
  return {
    names,
    discard: () => {
      if (settled) return
      settled = true
      rmSync(aside, { recursive: true, force: true })
    },
    restore: () => {
      if (settled) return
      settled = true
      for (const name of names) renameSync(join(aside, name), join(dir, name))
      rmSync(aside, { recursive: true, force: true })
    },
  }
}

/** `up`'s scenario argument when none is given. */
const DEFAULT_UP_SCENARIO = "scenarios/quickstart.yaml"

/**
 * The file `up` loads for its scenario argument: the default, `scenarios/quickstart.yaml`, is the project's own
 * when the current directory has none (`npx clearsim up` run elsewhere); any other path is the user's, as given.
 */
export const upScenarioPath = (scenario: string, cwd: string = process.cwd()): string =>
  scenario === DEFAULT_UP_SCENARIO && !existsSync(resolve(cwd, scenario)) ? fileURLToPath(new URL(`../../${DEFAULT_UP_SCENARIO}`, import.meta.url)) : scenario

export const upCommand = Command.make(
  "up",
  {
    scenario: Argument.String("scenario.yaml").pipe(Argument.withDescription("Scenario file (YAML): chains, assets, keepers, agents (default scenarios/quickstart.yaml)"), Argument.withDefault(DEFAULT_UP_SCENARIO)),
    port: Flag.String("port").pipe(Flag.withMetavar("integer"), Flag.withDescription("API port (default 8080; 0 picks a free one)"), Flag.withDefault("8080")),
    host: Flag.String("host").pipe(Flag.withDescription("API host to listen on (default 127.0.0.1; the chains always listen on 127.0.0.1)"), Flag.withDefault("127.0.0.1")),
    agents: Flag.Boolean("agents").pipe(Flag.withDescription("Run the scenario's rebalancers, solvers and arbitrageurs; --no-agents leaves keepers and initial liquidity only"), Flag.withDefault(true)),
    accounts: Flag.String("accounts").pipe(Flag.withMetavar("integer"), Flag.withDescription("Funded dev accounts left free for you, 1 to 1000 (default 5)"), Flag.withDefault("5")),
    seed: Flag.String("seed").pipe(Flag.withMetavar("integer"), Flag.withDescription("Seed of the agents' and transport's randomness, a non-negative integer (default: the scenario's, else 1)"), Flag.optional),
    out: Flag.String("out").pipe(Flag.withDescription("Output directory (default reports/out/live-<scenario name>); the files a previous session left there are set aside as this one starts, removed once it is up, put back if it is not"), Flag.optional),
  },
  Effect.fn(
    function* ({ scenario, port: portText, host: hostText, agents, accounts: accountsText, seed, out }) {
      // An IPv6 address may be given as URLs write it (`--host [::1]`): it is listened on without the brackets.
      const host = /^\[[0-9A-Fa-f:.]+\]$/.test(hostText) ? hostText.slice(1, -1) : hostText
      const { port, accounts, seedValue } = yield* Effect.try({
        try: () => {
          const flags = { port: parseIntegerFlag("--port", portText, PORT_EXPECTED, 0, 65_535, " (0 picks a free one)"), host, accounts: parseIntegerFlag("--accounts", accountsText, ACCOUNTS_EXPECTED, 1, 1000) }
          validateUpFlags(flags)
          return { ...flags, seedValue: parseSeedFlag(Option.getOrUndefined(seed)) }
        },
        catch: (error) => error,
      })
      const loaded = yield* Effect.try({ try: () => loadScenario(upScenarioPath(scenario)), catch: (error) => error })
      for (const line of scenarioWarningLines(loaded)) yield* Console.error(line)
      const devnet = yield* Effect.promise(loadDevnet)
      const options = {
        loaded,
        port,
        host,
        agents,
        userAccounts: accounts,
        outDir: Option.getOrUndefined(out) ?? join("reports", "out", `live-${loaded.spec.name}`),
        ...(seedValue === undefined ? {} : { seed: seedValue }),
        log: (line: string) => void process.stdout.write(`${time()} ${line}\n`),
      }
      // Nothing is written, not even the output directory, when the API cannot listen.
      yield* Effect.tryPromise({ try: () => devnet.probeListen(host, port), catch: (error) => error })
      // Every file the session will write is checked before the chains start, as `clearsim run` checks its own: a
      // directory where trace.jsonl goes would otherwise leave the whole session without its trace, and one where
      // session.json goes would fail its stop.
      const outFlag = Option.isSome(out) ? "--out" : "the output directory"
      // The directories made for the session (the output directory, its missing parents): a session that never
      // came up (its start failed, a Ctrl-C during it, a second one forcing the exit) removes the files its start
      // wrote in a directory it made (a trace with no input, say), then the directories left empty. A directory that
      // was there is left as it is. (Once up, `runUp` exits the process itself, the session's files written.)
      const created = missingDirectories(options.outDir)
      // The output directory's claim (`sim/live/sessionLock.ts`): released when the process exits, and before the
      // directories made for a session that never came up are removed.
      let lock: SessionLock | undefined
      // A previous session's files, set aside while this one starts: put back if it never comes up.
      let previous: SetAside | undefined
      const abandon = () => {
        try {
          previous?.restore()
        } catch {
          // not movable back (changed meanwhile): they stay in PREVIOUS_SESSION_DIR
        }
        lock?.release()
        try {
          if (created.length > 0) for (const name of devnet.DEVNET_FILES) rmSync(join(options.outDir, name), { force: true })
        } catch {
          // not removable (changed meanwhile): it stays, and so does its directory
        }
        removeEmptyDirectories(created)
      }
      yield* Effect.gen(function* () {
        yield* Effect.try({
          try: () => {
            prepareOutputDir(outFlag, options.outDir)
            checkRunOutputs(outFlag, options.outDir, options.outDir, [...devnet.DEVNET_FILES, SESSION_LOCK_FILE])
            // Another session writing there would interleave its trace with this one's (neither would replay) and
            // overwrite its files: refused, as a port in use is.
            const claim = claimOutputDir(options.outDir)
            if ("heldBy" in claim) {
              throw new UpInputError(`${outFlag} ${options.outDir}: another clearsim up (pid ${claim.heldBy}) is writing its session there; stop it first, or pass another --out`)
            }
            lock = claim
            process.once("exit", claim.release)
            // Only now that the directory is this session's: what a previous session left there is set aside, so
            // that the directory never holds one session's report next to another's trace; removed once this session
            // is up (`runUp`), put back if it never comes up (`abandon`).
            previous = setAsidePreviousSession(options.outDir, devnet.DEVNET_FILES)
          },
          catch: (error) => error,
        })
        // Uninterruptible: the runtime's own SIGINT handling must not cut the shutdown short. `runUp` handles the
        // signals and exits the process once the session is written.
        const cameUp = () => {
          if (previous === undefined || previous.names.length === 0) return
          previous.discard()
          process.stderr.write(`clearsim up: removed the previous session's ${previous.names.join(", ")} from ${options.outDir}; this session writes its own there\n`)
        }
        yield* Effect.uninterruptible(Effect.tryPromise({ try: () => runUp(devnet, options, abandon, cameUp), catch: (error) => error }))
      }).pipe(Effect.ensuring(Effect.sync(abandon)))
    },
    Effect.catch((error: unknown) =>
      Effect.gen(function* () {
        const { message, exitCode } = describeCommandError(error, (e) => e instanceof ScenarioError || (devnetModule !== undefined && e instanceof devnetModule.DevnetListenError))
        yield* Console.error(`clearsim: ${message}`)
        process.exitCode = exitCode
      }),
    ),
  ),
).pipe(Command.withDescription("Start a live local devnet (anvil chains, contracts, the clearing service and API, keepers, agents) in real time until Ctrl-C"))
