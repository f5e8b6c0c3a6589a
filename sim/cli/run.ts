/**
 * `clearsim run <scenario.yaml> [--seed N] [--runs N] [--jobs N] [--chains memory|anvil] [--out DIR] [--check-determinism]`:
 * runs a scenario (each run with seed, seed+1, ...), writes report.json, report.md, report.html, timeseries.csv and
 * trace.jsonl per run (all at once when the run completes: `staging.ts`), prints a summary, and exits 1 with the
 * failing properties and the replay command (2 on a usage error: a bad flag, scenario file or output directory;
 * see `userErrors.ts`).
 * This is the CLI edge: the wall clock is read here only to report elapsed time and progress.
 */
import { createHash } from "node:crypto"
import { createReadStream, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Argument, Command, Flag } from "effect/cli"
import { agentIntentsSuffix, discountBpsText, firstFailingEpochText, latencyText, nettingRatioText, populationLatencyRows, REPORT_FILES, reportDifferences, totalText, writeReportFiles, type RunReport } from "../report/report.ts"
import { renderRunsMarkdown, runsSummaryLines, summarizeRuns } from "../report/runs.ts"
import { isReplaceFilesError, isSymbolicLink, systemErrorText } from "../files.ts"
import { type Backend, ChainExited, runScenario } from "../run.ts"
import { loadScenario, ScenarioError, scenarioWarningLines } from "../scenario/load.ts"
import { DEFAULT_JOBS, JOBS_DESCRIPTION, runOfSetCommand, runOfSetOutFlag, runSetInChildren, scenarioOfSetRun, SetRunsStopped, tellParentRunCompleted } from "./parallelRuns.ts"
import { pathWord } from "./shell.ts"
import { missingDirectories, publish, removeEmptyDirectories, stagedPathOf, withStaging } from "./staging.ts"
import { checkRunOutputs, parseIntegerFlag, parseSeedFlag, describeCommandError, isFsError, outputFileError, prepareOutputDir, UsageError } from "./userErrors.ts"

const wallClock = () => performance.now()

/** The files of one run, in its directory. */
const RUN_FILES = [...REPORT_FILES, "trace.jsonl"] as const
/**
 * Where a run that failed (not one interrupted) leaves the hub inputs it traced, beside the earlier run's files: up
 * to the failure, or all of them when the run completed but its files could not be written (`keepCompletedTrace`).
 */
const FAILED_TRACE = "trace.failed.jsonl"
/** What a run may write in its directory, checked before any run starts. */
const RUN_OUTPUTS = [...RUN_FILES, FAILED_TRACE] as const
/** The files that take a Monte Carlo set together, in its base directory. */
const SET_FILES = ["runs.json", "runs.md"] as const

/** A run's failure, with what was kept of it (`keepFailedTrace`, `keepCompletedTrace`): a line told after the failure itself. */
class RunFailure {
  readonly error: unknown
  readonly kept: string
  constructor(error: unknown, kept: string) {
    this.error = error
    this.kept = kept
  }
}

/**
 * A run that failed (an engine invariant broken, a chain gone, a defect) keeps the hub inputs it traced up to the
 * failure as `trace.failed.jsonl` in `dir` (no end line: `clearsim hub replay` reproduces what the hub did up to
 * there); its reports are not written. An interrupted run keeps nothing (`withStaging`), and a run that completes
 * removes an earlier run's `trace.failed.jsonl` once its own files are in place. A run that failed because a file of its own could not
 * be written (its trace, on a full disk) keeps nothing either: that trace may be cut mid-line, and keeping it would
 * keep the disk full; its error names the file by its final name in `dir`, as the reports' errors do.
 */
const keepFailedTrace = (flag: string, error: unknown, staging: string, dir: string): unknown => {
  const staged = stagedPathOf(error, staging)
  if (staged !== undefined) return outputFileError(flag, join(dir, relative(staging, staged)), error)
  const to = join(dir, FAILED_TRACE)
  try {
    // Not through a link: `checkRunOutputs` refused one there.
    renameSync(join(staging, "trace.jsonl"), to)
    return new RunFailure(error, `  the hub inputs traced up to the failure: ${to} (replay the hub: npx clearsim hub replay ${pathWord(to)})`)
  } catch {
    return error // no trace (the run failed before it opened one, or without --out), or none can be moved there
  }
}

/**
 * A run that completed but whose files could not all be written or put in place in `dir` (a full disk, a file size
 * limit, a directory made meanwhile where a file goes): its error names the file by its final name in `dir` and the
 * cause, and its trace, complete (end line included), is kept as `trace.failed.jsonl` in `dir` (a rename: no room
 * needed), for the hub to be replayed from it; the line told after the error says where, and what the other files
 * in `dir` are (the earlier run's, as they were: `publish` puts back what it replaced when a file fails).
 */
const keepCompletedTrace = (flag: string, error: unknown, staging: string, dir: string): unknown => {
  // A report written in the staging directory is named by its name in `dir`; a file `publish` failed to move is named so already.
  const staged = stagedPathOf(error, staging)
  const path = (error as { readonly path?: unknown } | undefined)?.path
  const failed = staged !== undefined ? join(dir, relative(staging, staged)) : typeof path === "string" ? path : dir
  const described = outputFileError(flag, failed, error)
  const unrestored = isReplaceFilesError(error) ? error.unrestored.map((name) => relative(dir, name)) : []
  const others =
    unrestored.length === 0
      ? `nothing else in ${dir} changed`
      : `${unrestored.join(", ")} in ${dir} ${unrestored.length === 1 ? "is" : "are"} this run's (the earlier ${unrestored.length === 1 ? "one" : "ones"} could not be put back), nothing else there changed`
  const to = join(dir, FAILED_TRACE)
  try {
    renameSync(join(staging, "trace.jsonl"), to)
  } catch (moveError) {
    const reason = isFsError(moveError) ? systemErrorText(moveError) : String(moveError)
    return new RunFailure(described, `  the run completed, but its files were not written; its trace could not be kept as ${to} either (${reason}); ${others}`)
  }
  return new RunFailure(described, `  the run completed, but its files were not written (${others}); its trace is kept: ${to} (replay the hub: npx clearsim hub replay ${pathWord(to)})`)
}

/**
 * The failures of a run that their message says all of, told without a stack (exit 1): a chain's anvil that exited
 * during the run (`ChainExited`), or chains that could not be started (every port taken, an anvil that exited at
 * once) or found (`ChainStartError`, `AnvilBinaryNotFoundError`: matched by tag, so that a memory run does not
 * load the chains' modules).
 */
const isToldRunFailure = (error: unknown): boolean => {
  const tag = (error as { readonly _tag?: unknown } | undefined)?._tag
  return error instanceof ChainExited || (error instanceof Error && (tag === "ChainStartError" || tag === "AnvilBinaryNotFoundError"))
}

/** Whether two files have the same bytes (streamed: a million-intent trace is most of a gigabyte). */
const sameFileBytes = async (a: string, b: string): Promise<boolean> => {
  const digest = async (path: string) => {
    const hash = createHash("sha256")
    for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
    return hash.digest("hex")
  }
  const [da, db] = await Promise.all([digest(a), digest(b)])
  return da === db
}

/** Progress of long runs on stderr: a live percentage on a terminal, a line every 10 % otherwise. */
const progressLine = (label: string) => {
  let last = -1
  const tty = process.stderr.isTTY === true
  return (nowMs: number, horizonMs: number) => {
    const pct = Math.floor((nowMs / horizonMs) * 100)
    const step = tty ? pct : Math.floor(pct / 10) * 10
    if (step === last) return
    last = step
    if (tty) {
      process.stderr.write(`\r${label} ${pct}% of virtual time`)
      if (pct >= 100) process.stderr.write("\n")
    } else if (step > 0) process.stderr.write(`${label}: ${step}% of virtual time\n`)
  }
}

const summary = (r: RunReport, dir: string): string => {
  const lines = [
    `${r.scenario.name} seed ${r.seed} on ${r.backend}: ${r.passed ? "PASS" : "FAIL"} (${r.wallSeconds.toFixed(1)} s wall, ${r.epochs.count} ${r.epochs.count === 1 ? "epoch" : "epochs"})`,
    `  user intents ${r.intents.created} created, ${r.intents.settled} settled, ${r.latency.count} receivers paid${agentIntentsSuffix(r)}; netting ratio ${nettingRatioText(r)}${r.netting.unit === "USD" && r.netting.totalVolume !== "0" ? " (by USD value)" : ""}; discount paid ${totalText(r.discounts.paid, r.discounts.unit)} (${discountBpsText(r)} bps of volume settled${r.discounts.invoicedVolume === undefined || r.discounts.invoicedVolume === "0" ? "" : `, ${r.discounts.paidBpsOfInvoices} bps of invoices`})`,
    `  latency p50/p90/p99/max ${[r.latency.p50, r.latency.p90, r.latency.p99, r.latency.max].map(latencyText).join(" / ")} (user), settlement p99 ${latencyText(r.latency.settlement.p99)}`,
    `  trace hash ${r.traceHash}`,
  ]
  // With more than one population paid, each one's p99: users' latency apart from the agents' own intents.
  const paid = populationLatencyRows(r).filter((p) => p.user.p99 !== null)
  if (paid.length > 1) lines.splice(3, 0, `  p99 by population (creation to paid): ${paid.map((p) => `${p.label} ${latencyText(p.user.p99)}`).join(", ")}`)
  for (const p of r.properties.filter((p) => !p.pass)) {
    lines.push(`  FAILED ${p.name}${p.value === undefined ? "" : ` (value ${p.value})`}${p.firstFailingEpoch === undefined ? "" : `, failing since epoch ${firstFailingEpochText(p)}`}${p.reason === undefined ? "" : `: ${p.reason}`}`)
  }
  lines.push(`  report: ${join(dir, "report.html")} (also report.md, report.json, timeseries.csv, trace.jsonl)`)
  return lines.join("\n")
}

/**
 * The command that reruns one failing run into the directory it wrote (`--runs 1`: a scenario's `runs: N` would
 * rerun N seeds from this one; `--run-index`: the run's number in its Monte Carlo set, which report.json and
 * timeseries.csv carry): the same run, so the same files.
 */
export const rerunCommandLine = (scenario: string, seed: number, backend: Backend, outDir: string, runIndex = 0): string =>
  `npx clearsim run ${pathWord(scenario)} --seed ${seed} --runs 1${runIndex === 0 ? "" : ` --run-index ${runIndex}`} --chains ${backend} --out ${pathWord(outDir)}`

export const runCommand = Command.make(
  "run",
  {
    scenario: Argument.String("scenario.yaml").pipe(Argument.withDescription("Scenario file (YAML)")),
    seed: Flag.String("seed").pipe(Flag.withMetavar("integer"), Flag.withDescription("Run seed, a non-negative integer (default: the scenario's seed, else 1)"), Flag.optional),
    runs: Flag.String("runs").pipe(Flag.withMetavar("integer"), Flag.withDescription("Monte Carlo runs with seeds seed, seed+1, ... (default: the scenario's runs, else 1); each run in run-<i>-seed-<seed>/, the KPIs over the seeds in runs.json and runs.md"), Flag.optional),
    runIndex: Flag.String("run-index").pipe(
      Flag.withMetavar("integer"),
      Flag.withDescription("Number of the first run, a non-negative integer (default 0): report.json and timeseries.csv carry it as `run`, and with several runs their directories are run-<number>-seed-<seed>/; a failing Monte Carlo run's rerun command sets it"),
      Flag.optional,
    ),
    jobs: Flag.String("jobs").pipe(Flag.withMetavar("integer"), Flag.withDescription(JOBS_DESCRIPTION), Flag.optional),
    chains: Flag.Literals("chains", ["memory", "anvil"]).pipe(Flag.withDescription("Chain backend (default: the scenario's backend, else memory)"), Flag.optional),
    out: Flag.String("out").pipe(Flag.withDescription("Output directory (default reports/out/<scenario name>)"), Flag.optional),
    checkDeterminism: Flag.Boolean("check-determinism").pipe(Flag.withDescription("Run each seed twice and compare trace hashes, reports (but for wall time), time series and trace.jsonl files"), Flag.withDefault(false)),
  },
  Effect.fn(function* ({ scenario, seed, runs, runIndex, jobs, chains, out, checkDeterminism }) {
    const seedFlag = yield* Effect.try({ try: () => parseSeedFlag(Option.getOrUndefined(seed)), catch: (error) => error })
    const runsText = Option.getOrUndefined(runs)
    const runsFlag = runsText === undefined ? undefined : yield* Effect.try({ try: () => parseIntegerFlag("--runs", runsText, "a positive integer", 1, Number.MAX_SAFE_INTEGER), catch: (error) => error })
    const runIndexText = Option.getOrUndefined(runIndex)
    const firstRun = runIndexText === undefined ? 0 : yield* Effect.try({ try: () => parseIntegerFlag("--run-index", runIndexText, "a non-negative integer", 0, Number.MAX_SAFE_INTEGER), catch: (error) => error })
    const jobsText = Option.getOrUndefined(jobs)
    const jobsFlag = jobsText === undefined ? undefined : yield* Effect.try({ try: () => parseIntegerFlag("--jobs", jobsText, "a positive integer", 1, Number.MAX_SAFE_INTEGER), catch: (error) => error })
    // A run of a set in a child process (`--jobs`) is given the text its parent read: the file is not read again.
    const loaded = yield* Effect.tryPromise({ try: async () => (await scenarioOfSetRun(scenario)) ?? loadScenario(scenario), catch: (error) => error })
    // A run of a set in a child process (`--jobs`): its parent printed the warnings.
    if (runOfSetOutFlag() === undefined) for (const line of scenarioWarningLines(loaded)) yield* Console.error(line)
    const spec = loaded.spec
    const backend: Backend = Option.getOrUndefined(chains) ?? spec.backend ?? "memory"
    const firstSeed = seedFlag ?? spec.seed ?? 1
    const count = runsFlag ?? spec.runs ?? 1
    const baseDir = Option.getOrUndefined(out) ?? join("reports", "out", spec.name)
    // Compared without adding: past 2^53 the sum itself would round.
    if (count - 1 > Number.MAX_SAFE_INTEGER - firstSeed) {
      // Each number named where it was given: a flag, or the scenario file's field.
      const runsSource = runsFlag !== undefined ? "--runs" : `${scenario}: runs`
      const seedSource = seedFlag !== undefined ? "--seed" : runsFlag !== undefined ? `${scenario}'s seed` : "the file's seed"
      return yield* Effect.fail(new UsageError(`${runsSource}: ${count} runs from seed ${firstSeed} (${seedSource}) would go past the largest seed, ${Number.MAX_SAFE_INTEGER}: expected at most ${Number.MAX_SAFE_INTEGER - firstSeed + 1} run${firstSeed === Number.MAX_SAFE_INTEGER ? "" : "s"} from that seed`))
    }
    const outFlag = runOfSetOutFlag() ?? (Option.isSome(out) ? "--out" : "the output directory")
    if (count - 1 > Number.MAX_SAFE_INTEGER - firstRun) return yield* Effect.fail(new UsageError(`--run-index: ${count} runs from run ${firstRun} would go past the largest run number, ${Number.MAX_SAFE_INTEGER}`))
    const runDir = (i: number): string => (count === 1 ? baseDir : join(baseDir, `run-${firstRun + i}-seed-${firstSeed + i}`))
    // The directories this command creates (the output directory, its missing parents) go again at the end if
    // nothing is in them then: an interrupted or failed run leaves no empty directory behind.
    const created = missingDirectories(baseDir)
    yield* Effect.gen(function* () {
      // Every path the runs will write is checked first: a run is not thrown away for a file it cannot write.
      // (Only the output directory itself is created now; each run makes its own directory when it starts.)
      yield* Effect.try({
        try: () => {
          prepareOutputDir(outFlag, baseDir)
          if (count === 1) checkRunOutputs(outFlag, baseDir, baseDir, RUN_OUTPUTS, [FAILED_TRACE])
          else {
            checkRunOutputs(outFlag, baseDir, baseDir, SET_FILES)
            // Only run directories that exist can be in the way: the entries there, not `count` paths (--runs 1e8).
            for (const name of readdirSync(baseDir)) {
              const run = /^run-(\d+)-seed-(\d+)$/.exec(name)
              const i = run === null ? -1 : Number(run[1]) - firstRun
              if (i >= 0 && i < count && runDir(i) === join(baseDir, name)) checkRunOutputs(outFlag, baseDir, runDir(i), RUN_OUTPUTS, [FAILED_TRACE])
            }
          }
        },
        catch: (error) => error,
      })
      if (count > 1) {
        // An earlier set's summary would describe run directories this set is about to replace: it goes now, and
        // this set's is written once every run has completed. (A link stays: this set's summary is written through it.)
        for (const name of SET_FILES) {
          const path = join(baseDir, name)
          if (!isSymbolicLink(path)) yield* Effect.try({ try: () => rmSync(path, { force: true }), catch: (error) => outputFileError(outFlag, path, error) })
        }
      }
      // With --jobs above 1, the runs go in child processes (`parallelRuns.ts`); then the loop below runs none.
      const jobCount = Math.min(count, jobsFlag ?? DEFAULT_JOBS)
      const parallel = jobCount > 1 ? yield* runSetInChildren({ scenario, scenarioText: loaded.text, firstSeed, firstRun, count, jobs: jobCount, backend, checkDeterminism, outFlag, runDir }) : undefined
      const reports: RunReport[] = parallel?.reports ?? []
      let failed = parallel?.failed ?? false
      for (let i = 0; parallel === undefined && i < count; i++) {
        const runSeed = firstSeed + i
        const dir = runDir(i)
        // The trace and the reports are written in a staging directory and moved into `dir` once all are written.
        const result = yield* withStaging(outFlag, dir, (staging) =>
          Effect.gen(function* () {
            const result = yield* Effect.tryPromise({
              try: (signal) => runScenario(loaded, { seed: runSeed, run: firstRun + i, backend, outDir: staging, signal, onProgress: progressLine(`${spec.name} seed ${runSeed}`) }, wallClock),
              catch: (error) => error,
            }).pipe(Effect.mapError((error) => keepFailedTrace(outFlag, error, staging, dir)))
            // The directory removed or moved while the run wrote its trace there (open, so written to the end): the
            // trace went with it, and the reports are not written beside nothing (nor the directory made again).
            if (!existsSync(join(staging, "trace.jsonl"))) {
              return yield* Effect.fail(new UsageError(`${outFlag} ${baseDir}: the run completed, but ${dir} was removed or moved while it ran, and the trace it was writing there with it: no file was written`))
            }
            // Named by its final path (the staging directory is an implementation detail); the trace is kept if either fails.
            yield* Effect.try({ try: () => writeReportFiles(staging, result.report, result.timeseries), catch: (error) => keepCompletedTrace(outFlag, error, staging, dir) })
            // Once its files are in place the run has completed: a Ctrl-C from here on lets it say so (its summary)
            // before the command stops, rather than leave complete files beside no word of them.
            yield* Effect.uninterruptible(
              Effect.gen(function* () {
                yield* Effect.try({ try: () => publish(staging, dir, RUN_FILES), catch: (error) => keepCompletedTrace(outFlag, error, staging, dir) })
                // An earlier failed run's trace describes a run these files replace.
                yield* Effect.try({ try: () => rmSync(join(dir, FAILED_TRACE), { force: true }), catch: (error) => outputFileError(outFlag, join(dir, FAILED_TRACE), error) })
                yield* Console.log(summary(result.report, dir))
              }),
            )
            return result
          }),
        )
        reports.push(result.report)
        if (checkDeterminism) {
          // The second run writes its trace beside the system's temporary files: its hub inputs are compared too
          // (the trace hash covers the hub's events, not the inputs that made them).
          const temporary = join(tmpdir(), "clearsim-determinism-")
          const { again, sameInputs } = yield* Effect.acquireUseRelease(
            Effect.try({ try: () => mkdtempSync(temporary), catch: (error) => outputFileError("the temporary directory", temporary, error) }),
            (againDir) =>
              Effect.tryPromise({
                try: async (signal) => {
                  const onProgress = progressLine(`${spec.name} second run of seed ${runSeed}`)
                  const again = await runScenario(loaded, { seed: runSeed, run: firstRun + i, backend, outDir: againDir, signal, onProgress }, wallClock)
                  return { again, sameInputs: await sameFileBytes(join(dir, "trace.jsonl"), join(againDir, "trace.jsonl")) }
                },
                // The first run completed and its files are in place: a chain lost in the second one says so.
                catch: (error) =>
                  error instanceof ChainExited ? new RunFailure(error, `  that was the second run of --check-determinism: the first one completed (its files: ${dir}); determinism was not checked`) : error,
              }),
            (againDir) => Effect.sync(() => rmSync(againDir, { recursive: true, force: true })),
          )
          const differing = [...reportDifferences(result.report, result.timeseries, again.report, again.timeseries), ...(sameInputs ? [] : ["trace.jsonl (the hub inputs)"])]
          if (differing.length > 0) {
            failed = true
            yield* Console.error(`  DETERMINISM: seed ${runSeed} gave trace hash ${result.report.traceHash} then ${again.report.traceHash}; the reports differ in ${differing.join(", ")}`)
          } else yield* Console.log(`  determinism: second run gave the same trace hash, report, time series and trace.jsonl`)
        }
        if (!result.report.passed) {
          failed = true
          yield* Console.error(`  replay the hub: npx clearsim hub replay ${pathWord(join(dir, "trace.jsonl"))}`)
          yield* Console.error(`  rerun: ${rerunCommandLine(scenario, runSeed, backend, dir, firstRun + i)}`)
        }
      }
      if (count > 1) {
        const runs = summarizeRuns(reports)
        yield* withStaging(outFlag, baseDir, (staging) =>
          Effect.gen(function* () {
            for (const [name, text] of [
              ["runs.json", `${JSON.stringify(runs, null, 2)}\n`],
              ["runs.md", renderRunsMarkdown(runs)],
            ] as const) {
              yield* Effect.try({ try: () => writeFileSync(join(staging, name), text), catch: (error) => outputFileError(outFlag, join(baseDir, name), error) })
            }
            yield* Effect.try({ try: () => publish(staging, baseDir, SET_FILES), catch: (error) => outputFileError(outFlag, (error as { readonly path?: string }).path ?? baseDir, error) })
          }),
        )
        yield* Console.log(`${runs.summary.passed} of ${count} runs passed; over the ${count} seeds (${join(baseDir, "runs.md")}, runs.json):`)
        for (const line of runsSummaryLines(runs.summary)) yield* Console.log(line)
      }
      yield* tellParentRunCompleted
      if (failed) process.exitCode = 1
    }).pipe(Effect.ensuring(Effect.sync(() => removeEmptyDirectories(created))))
  }, Effect.catch((error: unknown) =>
    Effect.gen(function* () {
      // A set's run stopped with an error: its output, error included, is printed already.
      if (error instanceof SetRunsStopped) return void (process.exitCode = error.exitCode)
      const { message, exitCode } = describeCommandError(error instanceof RunFailure ? error.error : error, (e) => e instanceof ScenarioError, isToldRunFailure)
      // In a child of `check --jobs`, named as `check`'s own errors are.
      yield* Console.error(`${runOfSetCommand("clearsim")}: ${message}`)
      if (error instanceof RunFailure) yield* Console.error(error.kept)
      process.exitCode = exitCode
    }),
  )),
).pipe(
  Command.withDescription(
    "Run a scenario and write its report (report.json, .md, .html, timeseries.csv, trace.jsonl); exit 1 when a property fails",
  ),
)
