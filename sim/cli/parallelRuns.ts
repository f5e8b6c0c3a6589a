/**
 * `clearsim run --jobs N`: the runs of a Monte Carlo set in child processes, up to N at once. Each child is the CLI
 * itself running one run, the command a failing run's rerun line gives (`--seed S --runs 1 --run-index I --chains B
 * --out <run directory>`, plus `--check-determinism`), so it writes the same files as the run would in process;
 * the parent reads each run's report.json back (decoded, not trusted) for runs.json and runs.md.
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
 */
import { type ChildProcess, spawn } from "node:child_process"
import { availableParallelism, totalmem } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import v8Flags from "../../bin/v8-flags.json" with { type: "json" }
import { decodeWithProblems, formatProblems } from "../../service/domain/schemas.ts"
import { checkReportKpiFields, readJsonFile } from "../report/baseline.ts"
import type { RunReport } from "../report/report.ts"
import type { Backend } from "../run.ts"

/**
 * Set (to the name the parent gives its output directory in messages: `--out` or "the output directory") in the
 * environment of a child running one run of a set: the child then prints no scenario warnings (the parent did),
 * names its files as the parent would, and tells the parent over IPC when its run has completed.
 */
export const RUN_OF_SET_ENV = "CLEARSIM_RUN_OF_SET"

/** The message a child sends its parent once its run has completed (report files published, summary printed). */
const COMPLETED = "clearsimRunCompleted"

/** The flag's description (`clearsim run --help`). */
export const JOBS_DESCRIPTION =
  "Runs of a Monte Carlo set at once, each in a child process (default: the number of runs, at most the machine's cores, os.availableParallelism()); 1 runs them one after another in this process. The children share the heap limit one run gets alone (3/4 of the machine's memory, at most 16 GiB, or --max-old-space-size): each gets 1/N of it, so a large scenario needs fewer jobs (stress-1m takes about 1.7 GB)"

/** In a child running one run of a set: how the parent names the output directory in its messages. */
export const runOfSetOutFlag = (): string | undefined => {
  const flag = process.env[RUN_OF_SET_ENV]
  return flag === undefined || flag === "" ? undefined : flag
}

/** Tells the parent of a set's run that it completed (nothing outside a set); waits until the message is sent. */
export const tellParentRunCompleted: Effect.Effect<void> = Effect.callback<void>((resume) => {
  if (runOfSetOutFlag() === undefined || process.send === undefined || !process.connected) return resume(Effect.void)
  process.send({ [COMPLETED]: true }, () => resume(Effect.void))
})

/** `--jobs`'s default: every run at once, at most one per core (`os.availableParallelism()`). */
export const defaultJobs = (runs: number): number => Math.min(runs, availableParallelism())

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

export interface SetOptions {
  readonly scenario: string
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

interface ChildRun {
  readonly index: number
  readonly seed: number
  readonly dir: string
  child?: ChildProcess
  signalled: boolean
  readonly stdout: Buffer[]
  /** Standard error's lines but the progress lines, and the line still being written. */
  readonly stderr: string[]
  partial: string
  completed: boolean
  /** This process's own message on the run (a report that cannot be read back, a run stopped by a signal). */
  message?: string
  /** The run's exit code when it ended with an error. */
  errorCode?: number
  report?: RunReport
  done: boolean
  printed: boolean
}

/** The runs of a set in children; `finished` resolves once no run is left to start and the started ones ended. */
class ChildRuns {
  private readonly runs: ChildRun[] = []
  private nextPrinted = 0
  private stopping = false
  private signal: NodeJS.Signals | undefined
  private readonly heapMb: number
  private readonly ended: Promise<void>
  private end!: () => void
  private readonly forward = (signal: NodeJS.Signals) => {
    this.signal = signal
    this.stop(signal)
  }
  private readonly onSigint = () => this.forward("SIGINT")
  private readonly onSigterm = () => this.forward("SIGTERM")
  private readonly options: SetOptions

  constructor(options: SetOptions) {
    this.options = options
    this.heapMb = childHeapMb(runHeapLimitMb(), options.jobs)
    this.ended = new Promise((resolve) => (this.end = resolve))
    process.on("SIGINT", this.onSigint)
    process.on("SIGTERM", this.onSigterm)
    for (let i = 0; i < Math.min(options.jobs, options.count); i++) this.launch()
  }

  /** Resolves once every started run has ended and none is left to start (or the set stops). */
  get finished(): Promise<void> {
    return this.ended
  }

  private launch(): void {
    const o = this.options
    const index = this.runs.length
    const run: ChildRun = { index, seed: o.firstSeed + index, dir: o.runDir(index), signalled: false, stdout: [], stderr: [], partial: "", completed: false, done: false, printed: false }
    this.runs.push(run)
    const args = ["run", "--seed", String(run.seed), "--runs", "1", "--run-index", String(o.firstRun + index), "--chains", o.backend, `--out=${run.dir}`, ...(o.checkDeterminism ? ["--check-determinism"] : []), "--", o.scenario]
    // Not the vitest worker's port slot: each child takes one from its pid (see the module's comment).
    const { VITEST_POOL_ID: _pool, VITEST_WORKER_ID: _worker, ...env } = process.env
    let child: ChildProcess
    try {
      child = spawn(process.execPath, [...childNodeFlags(this.heapMb), BIN, ...args], {
        stdio: ["ignore", "pipe", "pipe", "ipc"],
        // CLEARSIM_CHILD: bin/clearsim.js runs the command in this process (no re-execution: the heap limit is set),
        // stops on a signal forwarded over IPC, and on the channel closing (this process gone).
        env: { ...env, CLEARSIM_CHILD: "1", [RUN_OF_SET_ENV]: o.outFlag },
      })
    } catch (error) {
      return this.ended_(run, undefined, undefined, `cannot start run ${o.firstRun + index} (seed ${run.seed}): ${error instanceof Error ? error.message : String(error)}`)
    }
    run.child = child
    child.on("message", (message: unknown) => {
      if (typeof message === "object" && message !== null && (message as Record<string, unknown>)[COMPLETED] === true) run.completed = true
    })
    child.stdout!.on("data", (chunk: Buffer) => void run.stdout.push(chunk))
    child.stderr!.setEncoding("utf8").on("data", (text: string) => {
      const lines = (run.partial + text).split("\n")
      run.partial = lines.pop()!
      for (const line of lines) {
        if (PROGRESS.test(line)) process.stderr.write(`${line}\n`)
        else run.stderr.push(line)
      }
    })
    child.on("error", (error) => this.ended_(run, null, null, `cannot start run ${o.firstRun + index} (seed ${run.seed}): ${error.message}`))
    // Its messages are read before the channel closes: the run's end is taken once both have happened.
    child.on("close", (code, signal) => {
      if (child.connected) child.once("disconnect", () => this.ended_(run, code, signal))
      else this.ended_(run, code, signal)
    })
  }

  /** A run's end: its report read back, or its error; then the runs now in turn are printed, and the next started. */
  private ended_(run: ChildRun, code: number | null | undefined, signal: NodeJS.Signals | null | undefined, startError?: string): void {
    if (run.done) return
    run.done = true
    if (run.partial !== "") run.stderr.push(run.partial)
    run.partial = ""
    const name = `run ${this.options.firstRun + run.index} (seed ${run.seed})`
    if (startError !== undefined) {
      run.message = startError
      run.errorCode = 2
    } else if (run.completed && (code === 0 || code === 1)) {
      try {
        run.report = readRunReport(join(run.dir, "report.json"), this.options.firstRun + run.index, run.seed)
      } catch (error) {
        run.message = `cannot read back ${name}'s report: ${error instanceof Error ? error.message : String(error)}`
        run.errorCode = 2
      }
    } else if (code === 1 || code === 2) run.errorCode = code // its error is on its standard error
    else {
      run.errorCode = 1
      // Not told when this process was interrupted too: the child stopped as it was asked to.
      if (this.signal === undefined) run.message = `${name} ended ${signal === null || signal === undefined ? `with exit code ${code}` : `by ${signal}`} before it completed`
    }
    if (run.errorCode !== undefined) this.stopping = true
    this.printInTurn()
    if (!this.stopping && this.runs.length < this.options.count) this.launch()
    else if (this.runs.every((r) => r.done)) this.end()
  }

  /** Prints the runs whose every earlier run has been printed. */
  private printInTurn(): void {
    while (this.nextPrinted < this.runs.length && this.runs[this.nextPrinted]!.done) this.print(this.runs[this.nextPrinted++]!)
  }

  private print(run: ChildRun): void {
    if (run.printed) return
    run.printed = true
    const stdout = Buffer.concat(run.stdout).toString("utf8")
    if (stdout !== "") console.log(stdout.endsWith("\n") ? stdout.slice(0, -1) : stdout)
    if (run.stderr.length > 0) console.error(run.stderr.join("\n"))
    if (run.message !== undefined) console.error(`clearsim: ${run.message}`)
  }

  /** Starts no further run and passes `signal` to the running ones (once each). */
  private stop(signal: NodeJS.Signals): void {
    this.stopping = true
    for (const run of this.runs) {
      if (run.done || run.signalled || run.child === undefined) continue
      run.signalled = true
      run.child.kill(signal)
    }
    if (this.runs.every((r) => r.done)) this.end()
  }

  /** After the set (completed, stopped, or this process interrupted): the running children stopped and waited for, every started run printed in order. */
  async close(): Promise<void> {
    this.stop(this.signal ?? "SIGTERM")
    await this.ended
    process.off("SIGINT", this.onSigint)
    process.off("SIGTERM", this.onSigterm)
    for (const run of this.runs) this.print(run)
  }

  /** The reports in run order and whether a run failed (a property, or determinism), or the exit code of the first run in order that stopped with an error. */
  outcome(): { readonly reports: RunReport[]; readonly failed: boolean } | SetRunsStopped {
    const stopped = this.runs.find((r) => r.errorCode !== undefined)
    if (stopped !== undefined) return new SetRunsStopped(stopped.errorCode!)
    // Exit 1 from a completed run: a property failed, or its second run differed (--check-determinism).
    return { reports: this.runs.map((r) => r.report!), failed: this.runs.some((r) => !r.report!.passed || r.child?.exitCode === 1) }
  }
}

/**
 * Runs the set's runs in children, `options.jobs` at once (see the module's comment); fails with `SetRunsStopped`
 * when a run stopped with an error, once every started run has ended and been printed.
 */
export const runSetInChildren = (options: SetOptions): Effect.Effect<{ readonly reports: RunReport[]; readonly failed: boolean }, SetRunsStopped> =>
  Effect.acquireUseRelease(
    Effect.sync(() => new ChildRuns(options)),
    (runs) =>
      Effect.promise(() => runs.finished).pipe(
        Effect.flatMap(() => Effect.promise(() => runs.close())),
        Effect.flatMap(() => {
          const outcome = runs.outcome()
          return outcome instanceof SetRunsStopped ? Effect.fail(outcome) : Effect.succeed(outcome)
        }),
      ),
    (runs) => Effect.promise(() => runs.close()),
  )
