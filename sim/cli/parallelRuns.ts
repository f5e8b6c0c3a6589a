/**
 * `clearsim run --jobs N`: the runs of a Monte Carlo set in child processes, up to N at once. Each child is the CLI
 * itself running one run, the command a failing run's rerun line gives (`--seed S --runs 1 --run-index I --chains B
 * --out <run directory>`, plus `--check-determinism`), so it writes the same files as the run would in process;
 * the parent reads each run's report.json back (decoded, not trusted) for runs.json and runs.md. A child does not
 * read the scenario file: it gets the text its parent read on its standard input (`scenarioOfSetRun`), so every
 * run of a set is of the same scenario even when the file is edited (or was a pipe) while they go. It names its
 * errors as its parent's command does (`clearsim check: ...` for `check --jobs`).
 *
 * What a user sees is what the runs one after another show, in the same order: each run's standard output and
 * the lines it writes on standard error (its failing properties' replay and rerun commands, its error) are held
 * until every earlier run's have been printed; only the progress lines (`<scenario> seed S: 10% of virtual time`,
 * lines and not a live percentage: a child's standard error is a pipe) pass through as they come. A run that stops
 * with an error (exit 2 for a file it cannot write, 1 for an unexpected one) starts no further run: the running
 * ones finish, every started run's output is printed in order, and the set exits with that run's code, writing no
 * runs.json. SIGINT and SIGTERM to this process go on to the children (a terminal's Ctrl-C reaches them through
 * the process group as well); they stop as an interrupted run does (staging directory removed, chains stopped),
 * and this process waits for them before its own clean-up. Killed outright, it leaves no child running either:
 * a child whose IPC channel closes stops as on a SIGTERM (`bin/clearsim.js`).
 *
 * Results do not depend on N: a run is a function of scenario, seed and run number, wherever it runs. Anvil runs
 * may go in parallel too: each process takes its chains' ports from a slot of its own (derived from its pid; the
 * VITEST_* slot variables are not passed on, as several processes would then share one slot), probes them and
 * retries the next port when one is taken (by anyone, at any moment: `sim/chains/ports.ts`, `pool.ts`); the
 * parent-death wrapper script is written with a rename (`reaper.ts`), and each process reaps its own chains.
 *
 * `clearsim check --jobs N` runs its scenarios the same way (`CheckRuns`), their reports compared in order.
 *
 * A child costs its start (Node, and the modules a run loads: about 1.5 s of CPU here) and a cold JIT, which the
 * runs one after another in one process pay once: children pay when runs are long, or cores many.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs"
import { tmpdir, totalmem } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import v8Flags from "../../bin/v8-flags.json" with { type: "json" }
import { decodeWithProblems, formatProblems } from "../../service/domain/schemas.ts"
import { checkReportKpiFields, readJsonFile } from "../report/baseline.ts"
import type { RunReport } from "../report/report.ts"
import type { Backend } from "../run.ts"
import { type LoadedScenario, MAX_SCENARIO_BYTES, parseScenario, ScenarioError } from "../scenario/load.ts"

/**
 * Set in the environment of a child running one run of a set, to `RunOfSet` in JSON: the child then reads its
 * scenario's text from standard input (not the file: `scenarioOfSetRun`), prints no scenario warnings (the parent
 * did), names its files as the parent would and its errors after the parent's command, and tells the parent over
 * IPC when its run has completed.
 */
export const RUN_OF_SET_ENV = "CLEARSIM_RUN_OF_SET"

/** What a child of a set is told by its parent (`RUN_OF_SET_ENV`). */
interface RunOfSet {
  /** How the parent names the output directory in messages: `--out`, "the output directory", "the temporary directory". */
  readonly outFlag: string
  /** The parent's command, before its messages' colon: "clearsim", "clearsim check". */
  readonly command: string
}

const runOfSet = (): RunOfSet | undefined => {
  const text = process.env[RUN_OF_SET_ENV]
  if (text === undefined || text === "") return undefined
  try {
    const value = JSON.parse(text) as Partial<RunOfSet>
    return typeof value.outFlag === "string" && value.outFlag !== "" && typeof value.command === "string" && value.command !== "" ? { outFlag: value.outFlag, command: value.command } : undefined
  } catch {
    return undefined
  }
}

/** The message a child sends its parent once its run has completed (report files published, summary printed). */
const COMPLETED = "clearsimRunCompleted"

/** The flag's description (`clearsim run --help`). */
export const JOBS_DESCRIPTION =
  "Runs of a Monte Carlo set at once, each in a child process (default 1: one after another in this process). A child pays its own start and a cold JIT (about 1.5 s and half a run's CPU again on a small scenario), so more jobs pay off for long runs on free cores. The children share the heap limit one run gets alone (3/4 of the machine's memory, at most 16 GiB, or --max-old-space-size): each gets 1/N of it, so a large scenario needs fewer jobs (stress-1m takes about 1.7 GB)"

/** In a child running one run of a set: how the parent names the output directory in its messages. */
export const runOfSetOutFlag = (): string | undefined => runOfSet()?.outFlag

/** The command a run's messages are prefixed with: its parent's in a child of a set ("clearsim check"), else `own`. */
export const runOfSetCommand = (own: string): string => runOfSet()?.command ?? own

/** Reads `stream` to its end, refusing more than `maxBytes` (a `ScenarioError` of `file`, as reading the file would). */
const readAll = (stream: NodeJS.ReadableStream, file: string, maxBytes: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let total = 0
    const onData = (chunk: Buffer) => {
      total += chunk.length
      if (total <= maxBytes) return void chunks.push(chunk)
      stream.off("data", onData)
      stream.pause()
      reject(new ScenarioError(file, [{ path: "", message: `more than ${maxBytes / 2 ** 20} MiB; expected a YAML scenario (a few kilobytes)` }], true))
    }
    stream.on("data", onData)
    stream.once("end", () => resolve(Buffer.concat(chunks, total)))
    stream.once("error", reject)
  })

/**
 * In a child running one run of a set, the scenario its parent read from `file` (decoded from the text the parent
 * writes on the child's standard input: the file itself is not read again); undefined outside a set.
 */
export const scenarioOfSetRun = async (file: string): Promise<LoadedScenario | undefined> => {
  if (runOfSet() === undefined) return undefined
  try {
    return parseScenario((await readAll(process.stdin, file, MAX_SCENARIO_BYTES)).toString("utf8"), file)
  } finally {
    process.stdin.destroy()
  }
}

/** Tells the parent of a set's run that it completed (nothing outside a set); waits until the message is sent. */
export const tellParentRunCompleted: Effect.Effect<void> = Effect.callback<void>((resume) => {
  if (runOfSetOutFlag() === undefined || process.send === undefined || !process.connected) return resume(Effect.void)
  process.send({ [COMPLETED]: true }, () => resume(Effect.void))
})

/**
 * `--jobs`'s default: 1, the runs one after another in one process. Not the machine's cores: a child costs its
 * start and a cold JIT (a small scenario's run took 7.4 s of CPU in a child against 4.3 s warm in process), so on
 * two shared CPUs `--runs 4` of five-chain-mixed took 30-35 s at 2 jobs against 19-23 s at 1, and on two that ran
 * apart (2026-11-29) 10.2-10.5 s against 7.2-7.9 s; and N runs of a large scenario at once hold N times its memory
 * (stress-1m: 1.7 GB each).
 */
export const DEFAULT_JOBS = 1

/**
 * The heap limit in MiB a run gets in one process: the `--max-old-space-size` that NODE_OPTIONS or this process's
 * flags set (the last one, as Node takes it), else what `bin/clearsim.js` gives a run (`v8-flags.json`'s share of
 * the machine's memory, capped).
 */
export const runHeapLimitMb = (nodeOptions: string = process.env["NODE_OPTIONS"] ?? "", execArgv: readonly string[] = process.execArgv, memoryMb: number = totalmem() / 2 ** 20): number => {
  const set = [...`${nodeOptions} ${execArgv.join(" ")}`.matchAll(/--max[-_]old[-_]space[-_]size=(\d+)/g)].at(-1)
  return set !== undefined ? Number(set[1]) : Math.min(v8Flags.heapCapMb, Math.floor(memoryMb * v8Flags.heapShareOfMemory))
}

/** Each of `jobs` children's share of `totalMb`: together they stay within it. */
export const childHeapMb = (totalMb: number, jobs: number): number => Math.max(1, Math.floor(totalMb / jobs))

const BIN = fileURLToPath(new URL("../../bin/clearsim.js", import.meta.url))

/** Node's flags for a child: its heap share, the V8 flags of clearsim's runs, and this process's other flags. */
const childNodeFlags = (heapMb: number): string[] => {
  const own = process.execArgv.filter((flag) => !/^--max[-_]old[-_]space[-_]size=/.test(flag) && !/^--inspect/.test(flag))
  const semiSpaceSet = `${process.env["NODE_OPTIONS"] ?? ""} ${own.join(" ")}`.includes("max-semi-space-size")
  return [`--max-old-space-size=${heapMb}`, ...(semiSpaceSet ? [] : v8Flags.largeRun), ...own]
}

/** A progress line of a run (`progressLine` in run.ts, off a terminal): passed through as it comes. */
const PROGRESS = /^.+ seed \d+: \d+% of virtual time$/

/** The parts of a report.json that runs.json takes besides its KPIs (`checkReportKpiFields`). */
const SetRunFields = Schema.Struct({ run: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative integer" })), passed: Schema.Boolean })

/** A completed run's report.json, read back and checked: the fields runs.json is made of, of this run and seed. */
export const readRunReport = (path: string, run: number, seed: number): RunReport => {
  const data = readJsonFile(path, "a run's report")
  const report = checkReportKpiFields(path, data)
  const decoded = decodeWithProblems(SetRunFields, data)
  if (!decoded.ok) throw new Error(`${path}: not a clearsim report.json: ${formatProblems(decoded.problems)}`)
  if (report.seed !== seed || report.run !== run) throw new Error(`${path}: the report of run ${report.run} (seed ${report.seed}), expected run ${run} (seed ${seed})`)
  return report
}

/** The set stopped on a run's error; every run's output, that error's included, is printed already. */
export class SetRunsStopped {
  readonly exitCode: number
  constructor(exitCode: number) {
    this.exitCode = exitCode
  }
}

/** One run in a child process: the CLI's arguments, and which report it writes (of which run and seed). */
export interface ChildJob {
  readonly args: readonly string[]
  /** The scenario's text, as the parent read it: written on the child's standard input (`scenarioOfSetRun`). */
  readonly scenarioText: string
  readonly reportPath: string
  readonly run: number
  readonly seed: number
  /** The run as this process's own messages name it (`run 1 (seed 4)`). */
  readonly name: string
}

/** How a child's run ended, as its turn comes. */
export interface ChildOutcome {
  /** The run's report.json, read back: the run completed. */
  readonly report?: RunReport
  /** Its exit code (null: ended by a signal). */
  readonly exitCode: number | null
  /** What it printed: standard output, and standard error's lines but the progress lines. */
  readonly stdout: string
  readonly stderr: readonly string[]
  /** This process's own message on the run (a report that cannot be read back, a run stopped by a signal). */
  readonly message?: string
  /** The exit code the run stopped with when it did not complete: no further run starts. */
  readonly errorCode?: number
}

interface ChildState {
  readonly job: ChildJob
  child?: ChildProcess
  signalled: boolean
  readonly stdout: Buffer[]
  readonly stderr: string[]
  /** Standard error's line still being written. */
  partial: string
  completed: boolean
  outcome?: ChildOutcome
  turned: boolean
}

/**
 * Runs `jobs` in child processes, `parallelism` at once, in order; `onTurn` gets each run's outcome once every
 * earlier run has had its turn. A run that did not complete starts no further run. SIGINT and SIGTERM to this
 * process are passed on to the running children while the pool lives.
 */
export class ChildPool {
  private readonly states: ChildState[] = []
  private nextTurn = 0
  private stopping = false
  private signal: NodeJS.Signals | undefined
  /** Set once `close` asked the running children to stop (this process interrupted, or its caller done with them). */
  private closing = false
  private readonly heapMb: number
  private readonly ended: Promise<void>
  private end!: () => void
  private readonly onSigint = () => this.forward("SIGINT")
  private readonly onSigterm = () => this.forward("SIGTERM")
  private readonly jobs: readonly ChildJob[]
  private readonly outFlag: string
  private readonly command: string
  private readonly onProgress: (line: string) => void
  private readonly onTurn: (job: ChildJob, outcome: ChildOutcome) => void

  constructor(options: {
    readonly jobs: readonly ChildJob[]
    readonly parallelism: number
    /** How the children name their output directory in messages (`RUN_OF_SET_ENV`). */
    readonly outFlag: string
    /** The command whose runs they are, before the colon of their messages and this pool's ("clearsim", "clearsim check"). */
    readonly command: string
    /** A progress line of a child, as it comes. */
    readonly onProgress: (line: string) => void
    readonly onTurn: (job: ChildJob, outcome: ChildOutcome) => void
  }) {
    this.jobs = options.jobs
    this.outFlag = options.outFlag
    this.command = options.command
    this.onProgress = options.onProgress
    this.onTurn = options.onTurn
    const parallelism = Math.min(options.parallelism, this.jobs.length)
    this.heapMb = childHeapMb(runHeapLimitMb(), parallelism)
    this.ended = new Promise((resolve) => (this.end = resolve))
    process.on("SIGINT", this.onSigint)
    process.on("SIGTERM", this.onSigterm)
    for (let i = 0; i < parallelism && !this.stopping; i++) this.launch()
    if (this.jobs.length === 0) this.end()
  }

  /** Resolves once every started run has ended and none is left to start. */
  get finished(): Promise<void> {
    return this.ended
  }

  private forward(signal: NodeJS.Signals): void {
    this.signal = signal
    this.stop(signal)
  }

  private launch(): void {
    const state: ChildState = { job: this.jobs[this.states.length]!, signalled: false, stdout: [], stderr: [], partial: "", completed: false, turned: false }
    this.states.push(state)
    // Not the vitest worker's port slot: each child takes one from its pid (see the module's comment).
    const { VITEST_POOL_ID: _pool, VITEST_WORKER_ID: _worker, ...env } = process.env
    let child: ChildProcess
    try {
      const runOfSet: RunOfSet = { outFlag: this.outFlag, command: this.command }
      child = spawn(process.execPath, [...childNodeFlags(this.heapMb), BIN, ...state.job.args], {
        stdio: ["pipe", "pipe", "pipe", "ipc"],
        // CLEARSIM_CHILD: bin/clearsim.js runs the command in this process (no re-execution: the heap limit is set),
        // stops on a signal forwarded over IPC, and on the channel closing (this process gone).
        env: { ...env, CLEARSIM_CHILD: "1", [RUN_OF_SET_ENV]: JSON.stringify(runOfSet) },
      })
    } catch (error) {
      return this.ended_(state, null, null, `cannot start ${state.job.name}: ${error instanceof Error ? error.message : String(error)}`)
    }
    state.child = child
    // The scenario's text; a child that ends before it has read it all (stopped by a signal) closes its end: no error here.
    child.stdin!.on("error", () => {})
    child.stdin!.end(state.job.scenarioText)
    child.on("message", (message: unknown) => {
      if (typeof message === "object" && message !== null && (message as Record<string, unknown>)[COMPLETED] === true) state.completed = true
    })
    child.stdout!.on("data", (chunk: Buffer) => void state.stdout.push(chunk))
    child.stderr!.setEncoding("utf8").on("data", (text: string) => {
      const lines = (state.partial + text).split("\n")
      state.partial = lines.pop()!
      for (const line of lines) {
        if (PROGRESS.test(line)) this.onProgress(line)
        else state.stderr.push(line)
      }
    })
    child.on("error", (error) => this.ended_(state, null, null, `cannot start ${state.job.name}: ${error.message}`))
    // Its messages are read before the channel closes: the run's end is taken once both have happened.
    child.on("close", (code, signal) => {
      if (child.connected) child.once("disconnect", () => this.ended_(state, code, signal))
      else this.ended_(state, code, signal)
    })
  }

  /** A run's end: its report read back, or its error; then the runs now in turn have it, and the next one starts. */
  private ended_(state: ChildState, code: number | null, signal: NodeJS.Signals | null, startError?: string): void {
    if (state.outcome !== undefined) return
    if (state.partial !== "") state.stderr.push(state.partial)
    const printed = { exitCode: code, stdout: Buffer.concat(state.stdout).toString("utf8"), stderr: state.stderr }
    const job = state.job
    let outcome: ChildOutcome
    if (startError !== undefined) outcome = { ...printed, message: startError, errorCode: 2 }
    else if (state.completed && (code === 0 || code === 1)) {
      try {
        outcome = { ...printed, report: readRunReport(job.reportPath, job.run, job.seed) }
      } catch (error) {
        outcome = { ...printed, message: `cannot read back ${job.name}'s report: ${error instanceof Error ? error.message : String(error)}`, errorCode: 2 }
      }
    } else if (code === 1 || code === 2) outcome = { ...printed, errorCode: code } // its error is on its standard error
    else {
      // Not told when this process asked it to stop (a signal passed on, `close`): it stopped as it was asked to.
      const message = this.signal === undefined && !this.closing ? `${job.name} ended ${signal === null ? `with exit code ${code}` : `by ${signal}`} before it completed` : undefined
      outcome = { ...printed, errorCode: 1, ...(message === undefined ? {} : { message }) }
    }
    state.outcome = outcome
    if (outcome.errorCode !== undefined) this.stopping = true
    this.turnInOrder()
    if (!this.stopping && this.states.length < this.jobs.length) this.launch()
    else if (this.states.every((s) => s.outcome !== undefined)) this.end()
  }

  /** Gives their turn to the runs whose every earlier run has had it. */
  private turnInOrder(): void {
    while (this.nextTurn < this.states.length && this.states[this.nextTurn]!.outcome !== undefined) this.turn(this.states[this.nextTurn++]!)
  }

  private turn(state: ChildState): void {
    if (state.turned || state.outcome === undefined) return
    state.turned = true
    this.onTurn(state.job, state.outcome)
  }

  /** Starts no further run and passes `signal` to the running ones (once each). */
  private stop(signal: NodeJS.Signals): void {
    this.stopping = true
    for (const state of this.states) {
      if (state.outcome !== undefined || state.signalled || state.child === undefined) continue
      state.signalled = true
      state.child.kill(signal)
    }
    if (this.states.every((s) => s.outcome !== undefined)) this.end()
  }

  /** After the runs (all done, one stopped, or this process interrupted): the running children stopped and waited for, every started run's turn given in order. */
  async close(): Promise<void> {
    this.closing = true
    this.stop(this.signal ?? "SIGTERM")
    await this.ended
    process.off("SIGINT", this.onSigint)
    process.off("SIGTERM", this.onSigterm)
    for (const state of this.states) this.turn(state)
  }

  /** The outcomes of the runs that were started, in order. */
  get outcomes(): readonly ChildOutcome[] {
    return this.states.flatMap((s) => (s.outcome === undefined ? [] : [s.outcome]))
  }
}

/**
 * A run's output as the run printed it in process: standard output, then its lines on standard error, then this
 * process's message on it, after `command` ("clearsim", "clearsim check").
 */
export const printChildOutput = (outcome: ChildOutcome, command: string): void => {
  if (outcome.stdout !== "") console.log(outcome.stdout.endsWith("\n") ? outcome.stdout.slice(0, -1) : outcome.stdout)
  if (outcome.stderr.length > 0) console.error(outcome.stderr.join("\n"))
  if (outcome.message !== undefined) console.error(`${command}: ${outcome.message}`)
}

/** Runs `pool`'s children to the end, and closes it whatever happens (interrupted: the children stopped and waited for). */
export const usePool = <A, E>(make: () => ChildPool, use: (pool: ChildPool) => Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.acquireUseRelease(
    Effect.sync(make),
    (pool) => Effect.promise(() => pool.finished.then(() => pool.close())).pipe(Effect.flatMap(() => use(pool))),
    (pool) => Effect.promise(() => pool.close()),
  )

export interface SetOptions {
  readonly scenario: string
  /** The scenario's text, as this process read it: what every child runs. */
  readonly scenarioText: string
  readonly firstSeed: number
  readonly firstRun: number
  readonly count: number
  readonly jobs: number
  readonly backend: Backend
  readonly checkDeterminism: boolean
  /** How the output directory is named in messages (`--out`, or "the output directory"). */
  readonly outFlag: string
  /** The directory of run `i` (0-based in the set). */
  readonly runDir: (i: number) => string
}

/**
 * Runs the set's runs in children, `options.jobs` at once (see the module's comment), each run's output printed
 * in run order; fails with `SetRunsStopped` when a run stopped with an error, once every started run has ended.
 */
export const runSetInChildren = (options: SetOptions): Effect.Effect<{ readonly reports: RunReport[]; readonly failed: boolean }, SetRunsStopped> => {
  const jobs: ChildJob[] = Array.from({ length: options.count }, (_, i) => {
    const seed = options.firstSeed + i
    const run = options.firstRun + i
    const dir = options.runDir(i)
    return {
      // The rerun line's command; `--out=` and `--` as a path beginning with `-` needs.
      args: ["run", "--seed", String(seed), "--runs", "1", "--run-index", String(run), "--chains", options.backend, `--out=${dir}`, ...(options.checkDeterminism ? ["--check-determinism"] : []), "--", options.scenario],
      scenarioText: options.scenarioText,
      reportPath: join(dir, "report.json"),
      run,
      seed,
      name: `run ${run} (seed ${seed})`,
    }
  })
  return usePool(
    () =>
      new ChildPool({ jobs, parallelism: options.jobs, outFlag: options.outFlag, command: "clearsim", onProgress: (line) => process.stderr.write(`${line}\n`), onTurn: (_, outcome) => printChildOutput(outcome, "clearsim") }),
    (pool) => {
      const outcomes = pool.outcomes
      const stopped = outcomes.find((o) => o.errorCode !== undefined)
      if (stopped !== undefined) return Effect.fail(new SetRunsStopped(stopped.errorCode!))
      // Exit 1 from a completed run: a property failed, or its second run differed (--check-determinism).
      return Effect.succeed({ reports: outcomes.map((o) => o.report!), failed: outcomes.some((o) => !o.report!.passed || o.exitCode === 1) })
    },
  )
}

/**
 * `clearsim check --jobs N`: the scenarios' runs in children, N at once, each `clearsim run <scenario> --seed S
 * --runs 1 --chains memory` into a temporary directory (removed at the end, but for a run that failed and kept the
 * hub inputs it traced, as trace.failed.jsonl: its error names it), their reports read back in order.
 */
export class CheckRuns {
  private pool: ChildPool | undefined
  private dir: string | undefined
  /** `--jobs` (default `DEFAULT_JOBS`). */
  private readonly jobs: number | undefined
  constructor(jobs: number | undefined) {
    this.jobs = jobs
  }

  /**
   * Starts `runs` in children when more than one goes at once; `report(i)` is then run i's report, in order, or
   * `SetRunsStopped` once its error is printed (as the run printed it). Undefined: run them in process.
   */
  start(runs: readonly { readonly file: string; readonly text: string; readonly seed: number; readonly name: string }[]): ((i: number) => Promise<RunReport>) | undefined {
    const parallelism = Math.min(this.jobs ?? DEFAULT_JOBS, runs.length)
    if (parallelism <= 1) return undefined
    const dir = mkdtempSync(join(tmpdir(), "clearsim-check-"))
    this.dir = dir
    const jobs: ChildJob[] = runs.map((r, i) => ({
      args: ["run", "--seed", String(r.seed), "--runs", "1", "--chains", "memory", `--out=${join(dir, String(i))}`, "--", r.file],
      scenarioText: r.text,
      reportPath: join(dir, String(i), "report.json"),
      run: 0,
      seed: r.seed,
      name: `${r.name} (seed ${r.seed})`,
    }))
    const settle = runs.map(() => ({ resolve: (_: RunReport) => {}, reject: (_: SetRunsStopped) => {} }))
    const reports = runs.map((_, i) => {
      const promise = new Promise<RunReport>((resolve, reject) => (settle[i] = { resolve, reject }))
      promise.catch(() => {}) // a run after the first that stopped is never asked for
      return promise
    })
    this.pool = new ChildPool({
      jobs,
      parallelism,
      outFlag: "the temporary directory",
      command: "clearsim check",
      // `check` shows no progress, and no run's summary: its own comparison.
      onProgress: () => {},
      onTurn: (job, outcome) => {
        const i = jobs.indexOf(job)
        if (outcome.report !== undefined && outcome.errorCode === undefined) return settle[i]!.resolve(outcome.report)
        printChildOutput({ ...outcome, stdout: "" }, "clearsim check")
        settle[i]!.reject(new SetRunsStopped(outcome.errorCode ?? 1))
      },
    })
    return (i) => reports[i]!
  }

  /** Stops and waits for the children still running, then removes the temporary directory (see the class). */
  async close(): Promise<void> {
    await this.pool?.close()
    const dir = this.dir
    if (dir !== undefined && !readdirSync(dir).some((run) => existsSync(join(dir, run, "trace.failed.jsonl")))) rmSync(dir, { recursive: true, force: true })
  }
}
