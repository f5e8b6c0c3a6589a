/**
 * `clearsim check [scenario.yaml ...] [--baseline-dir DIR] [--update] [--kpis-only] [--jobs N]`: runs scenarios
 * (memory backend, the baseline's seed; several at once in child processes with --jobs: `parallelRuns.ts`) and
 * compares their KPIs with the committed baselines in `reports/baseline/`;
 * exits 1 on a regression (or, without `--kpis-only`, on a changed trace hash) with a readable diff. Without
 * scenario arguments it checks every baseline in the directory. `--update` writes the baselines instead. A baseline
 * names its scenario file relative to itself, so `check` runs from any directory.
 *
 * `clearsim compare <baseline report.json> <current report.json>`: the same comparison between two reports, with
 * a warning on stderr when they are not runs of the same scenario and seed.
 *
 * Both exit 2 on a usage error (a bad scenario, baseline or report file, or path).
 */
import { existsSync, readdirSync, realpathSync, statSync, writeFileSync } from "node:fs"
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { Argument, Command, Flag } from "effect/cli"
import { kindOf, pathKind } from "../files.ts"
import { type Baseline, BaselineFileError, baselineOf, checkReportKpiFields, compareBaselines, readBaseline, readJsonFile, renderComparison } from "../report/baseline.ts"
import { runScenario } from "../run.ts"
import { type LoadedScenario, loadScenario, ScenarioError, scenarioWarningLines } from "../scenario/load.ts"
import { CheckRuns, SetRunsStopped } from "./parallelRuns.ts"
import { missingDirectories, removeEmptyDirectories } from "./staging.ts"
import { checkRunOutputs, describeCommandError, parseIntegerFlag, prepareOutputDir, UsageError } from "./userErrors.ts"

export const DEFAULT_BASELINE_DIR = join("reports", "baseline")

class CheckInputError extends Error {
  override readonly name = "CheckInputError"
  /** For a baseline's scenario file: whether it was read but is not a valid scenario (else it cannot be read). */
  readonly invalidScenario: boolean
  constructor(message: string, invalidScenario = false) {
    super(message)
    this.invalidScenario = invalidScenario
  }
}

const baselinePath = (dir: string, scenario: string): string => join(dir, `${scenario}.json`)

/** A path as messages show it: relative to the working directory when under it, else absolute. */
const shownPath = (path: string): string => {
  const fromHere = relative(process.cwd(), path)
  return fromHere === "" || fromHere === ".." || fromHere.startsWith(`..${sep}`) || isAbsolute(fromHere) ? path : fromHere
}

/**
 * The scenario file a baseline names (`file`), resolved against the baseline's directory as it is on disk (its real
 * path, as `--update` writes it from: a directory reached through a symbolic link gives the same file by either
 * path). A baseline written before names it relative to the directory `check` ran in (the project root): when
 * nothing is beside the baseline there and the file is found from the working directory, that one is it.
 */
const scenarioFileOf = (baselinePath: string, file: string): string => {
  const besideBaseline = resolve(realpathSync(dirname(baselinePath)), file)
  if (isAbsolute(file) || existsSync(besideBaseline) || !existsSync(file)) return shownPath(besideBaseline)
  return file
}

/**
 * `scenarioFile` as a baseline in `dir` names it: relative to `dir`'s real path (a `--baseline-dir` given through
 * a symbolic link names the scenario from where the baselines are, which is where reading them resolves it from),
 * with `/` (a committed baseline reads the same everywhere). The scenario's directory is taken by its real path too,
 * so a project reached through a link still writes `../../scenarios/x.yaml`.
 */
const fileFromBaselineDir = (dir: string, scenarioFile: string): string =>
  relative(realpathSync(dir), join(realpathSync(dirname(resolve(scenarioFile))), basename(scenarioFile))).split(sep).join("/")

/** The scenario a baseline names (its `file`); one that cannot be read is named with the baseline that points at it. */
const scenarioOfBaseline = (baselinePath: string, file: string): LoadedScenario => {
  try {
    return loadScenario(file)
  } catch (error) {
    if (error instanceof ScenarioError && error.unreadable) {
      throw new CheckInputError(`${baselinePath}: its scenario file ${file} cannot be read: ${error.problems[0]?.message ?? ""}`)
    }
    if (error instanceof ScenarioError) throw new CheckInputError(`${baselinePath}: its scenario file is not valid: ${error.message}`, true)
    throw error
  }
}

/** Every baseline file of `dir` with its path, sorted by name. */
const baselinesIn = (dir: string): { readonly path: string; readonly baseline: Baseline }[] => {
  if (!existsSync(dir)) throw new CheckInputError(`${dir}: no baseline directory (write one with: npx clearsim check <scenario.yaml ...> --update)`)
  const stats = statSync(dir)
  if (!stats.isDirectory()) throw new CheckInputError(`${dir}: expected a directory of baselines, but it is ${kindOf(stats)}`)
  const files = readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .sort()
  if (files.length === 0) throw new CheckInputError(`${dir}: no baselines (write them with: npx clearsim check <scenario.yaml ...> --update)`)
  return files.map((f) => {
    const path = join(dir, f)
    const kind = pathKind(path)
    if (kind !== undefined && kind !== "a file") throw new CheckInputError(`${path}: expected a baseline file, but it is ${kind}`)
    return { path, baseline: readBaseline(path) }
  })
}

/**
 * One baseline per scenario: two files of one scenario name (a copy being edited), one file given twice, or two
 * baselines naming one scenario (a stale one left after a rename) would compare with, or write, the same baseline.
 */
const checkOneBaselinePerScenario = (targets: readonly { readonly file: string; readonly loaded: LoadedScenario; readonly baselineFile?: string }[], dir: string): void => {
  const byName = new Map<string, { readonly file: string; readonly baselineFile?: string }>()
  for (const target of targets) {
    const name = target.loaded.spec.name
    const other = byName.get(name)
    byName.set(name, target)
    if (other === undefined) continue
    if (other.baselineFile !== undefined && target.baselineFile !== undefined) {
      throw new CheckInputError(`the baselines ${other.baselineFile} and ${target.baselineFile} are both of scenario "${name}" (${target.file}): remove the stale one`)
    }
    throw new CheckInputError(
      resolve(other.file) === resolve(target.file)
        ? `${target.file} is given twice`
        : `${other.file} and ${target.file} are both scenario "${name}", and would share the baseline ${baselinePath(dir, name)}: give one a name of its own`,
    )
  }
}

export interface CheckOutcome {
  readonly output: string
  /** 0: no regression; 1: a regression, or a changed trace hash when trace changes count. */
  /** 0: no regression; 1: a regression, or a changed trace hash when trace changes count; 2: a baseline could not be checked (its scenario unreadable). */
  readonly exitCode: 0 | 1 | 2
}

/** Runs the scenarios and compares (or, with `update`, writes) their baselines. The CLI's logic, testable. */
export const checkScenarios = async (options: {
  readonly scenarios: readonly string[]
  readonly baselineDir: string
  readonly update: boolean
  readonly kpisOnly: boolean
  readonly log?: (line: string) => void
  /** Where scenario warnings go (the CLI: stderr). */
  readonly warn?: (line: string) => void
  /** Runs the scenarios in child processes, several at once (`--jobs`); default: one after another in this process. */
  readonly children?: CheckRuns
}): Promise<CheckOutcome> => {
  const log = options.log ?? (() => {})
  const warn = options.warn ?? (() => {})
  // An empty path would name no directory ("clearsim check: : no baseline directory"), or the working directory
  // (`join("", "x.json")`) for the baselines of scenarios given by name.
  if (options.baselineDir === "") throw new UsageError("--baseline-dir: expected a directory path, got an empty one")
  const out: string[] = []
  const say = (text: string) => {
    out.push(text)
    log(text)
  }
  /** Baselines left out, with why (their scenario file cannot be read). */
  const unchecked: CheckInputError[] = []
  // Scenarios to run (each loaded once), with their baselines: a check runs the baseline's seed, `--update` the scenario's own (`seedOf`).
  const targets: { file: string; loaded: LoadedScenario; baseline: Baseline | undefined; baselineFile?: string }[] =
    options.scenarios.length > 0
      ? options.scenarios.map((file) => {
          const loaded = loadScenario(file)
          const path = baselinePath(options.baselineDir, loaded.spec.name)
          // --update writes the file: a directory (or anything but a file) there is what stops it, not a failed read.
          const kind = pathKind(path)
          if (options.update && kind !== undefined && kind !== "a file") {
            throw new UsageError(`--baseline-dir ${options.baselineDir}: cannot write the baseline ${path}: it is ${kind}, not a file`)
          }
          const baseline = existsSync(path) ? readBaseline(path) : undefined
          if (baseline === undefined && !options.update) throw new CheckInputError(`${file}: no baseline at ${path} (write it with --update)`)
          // A baseline file of another scenario (copied or renamed by hand) would be run at its seed and compared
          // as if it were this scenario's: every figure "changed", the trace hash with them.
          if (baseline !== undefined && !options.update && baseline.scenario !== loaded.spec.name) {
            throw new CheckInputError(`${file}: the baseline ${path} is of scenario "${baseline.scenario}", not "${loaded.spec.name}" (rewrite it with --update, or compare the two reports with clearsim compare)`)
          }
          return { file, loaded, baseline }
        })
      : baselinesIn(options.baselineDir).flatMap(({ path, baseline }) => {
          // A baseline whose scenario cannot be read is told and left out: the others are still checked.
          try {
            const file = scenarioFileOf(path, baseline.file)
            return [{ file, loaded: scenarioOfBaseline(path, file), baseline, baselineFile: path }]
          } catch (error) {
            if (!(error instanceof CheckInputError)) throw error
            unchecked.push(error)
            warn(`clearsim check: ${error.message}`)
            return []
          }
        })
  checkOneBaselinePerScenario(targets, options.baselineDir)
  // Where --update writes: checked before any scenario runs (a run is not thrown away for a file it cannot write).
  // The directories made for it (the baseline directory, its missing parents) go again if nothing was written in
  // them: a check that fails leaves none behind (an interrupted one neither: `checkCommand`).
  const created = options.update ? missingDirectories(options.baselineDir) : []
  try {
    if (options.update) {
      const flag = "--baseline-dir"
      prepareOutputDir(flag, options.baselineDir)
      checkRunOutputs(flag, options.baselineDir, options.baselineDir, targets.map((t) => `${t.loaded.spec.name}.json`))
    }
    return await checkTargets(options, targets, unchecked, out, say)
  } finally {
    removeEmptyDirectories(created)
  }
}

/** The runs of `checkScenarios` and their comparisons (or, with `update`, their baselines written). */
const checkTargets = async (
  options: Parameters<typeof checkScenarios>[0],
  targets: readonly { readonly file: string; readonly loaded: LoadedScenario; readonly baseline: Baseline | undefined; readonly baselineFile?: string }[],
  unchecked: readonly CheckInputError[],
  out: readonly string[],
  say: (text: string) => void,
): Promise<CheckOutcome> => {
  const warn = options.warn ?? (() => {})
  let regressions = 0
  let traceChanges = 0
  /** Trace hashes made by another function than the baseline's (an older clearsim): not comparable. */
  let otherFunction = 0
  // A check runs the baseline's seed; --update writes the scenario's (an edited `seed:` is an intended change, and a
  // baseline naming the file's hash but an older seed would describe no run of that file).
  const seedOf = (target: (typeof targets)[number]) => (options.update ? undefined : target.baseline?.seed) ?? target.loaded.spec.seed ?? 1
  // With --jobs, the runs start now, in children; their reports come in order.
  // Each child is given the scenario's text read here: a file edited while the runs go changes none of them.
  const reportOf = options.children?.start(targets.map((target) => ({ file: target.file, text: target.loaded.text, seed: seedOf(target), name: target.loaded.spec.name })))
  for (const [i, target] of targets.entries()) {
    const loaded = target.loaded
    for (const line of scenarioWarningLines(loaded)) warn(line)
    const seed = seedOf(target)
    const report = reportOf === undefined ? (await runScenario(loaded, { seed, backend: "memory" })).report : await reportOf(i)
    const current = baselineOf(report, fileFromBaselineDir(options.baselineDir, target.file))
    if (options.update) {
      const path = baselinePath(options.baselineDir, current.scenario)
      writeFileSync(path, `${JSON.stringify(current, null, 2)}\n`)
      say(`${current.scenario}: baseline written to ${path} (trace hash ${current.traceHash})`)
      // A property failing now is recorded as failing: later checks only flag properties that passed here.
      const failing = Object.entries(current.properties).filter(([, pass]) => !pass).map(([name]) => `\`${name}\``)
      if (failing.length > 0) say(`  warning: ${failing.length === 1 ? "a property fails" : `${failing.length} properties fail`} in this run and ${failing.length === 1 ? "is" : "are"} recorded as failing (later checks will not flag ${failing.length === 1 ? "it" : "them"}): ${failing.join(", ")}`)
      continue
    }
    const comparison = compareBaselines(target.baseline!, current)
    if (comparison.regressed) regressions++
    if (comparison.traceChanged && comparison.baselineTraceAlgorithm !== comparison.currentTraceAlgorithm) otherFunction++
    else if (comparison.traceChanged) traceChanges++
    say(renderComparison(comparison))
    // An edited scenario explains a change that clearsim's code did not make.
    const written = target.baseline!.scenarioHash
    if (written !== undefined && written !== current.scenarioHash) {
      say(`  note: ${target.file} is not the file this baseline was written from (hash ${written.slice(0, 10)}… then, ${String(current.scenarioHash).slice(0, 10)}… now): a change may come from the edit`)
    }
  }
  // Why, as the lines above say: a scenario file that cannot be read, or one read that is not a valid scenario.
  const invalid = unchecked.filter((e) => e.invalidScenario).length
  const why = (one: boolean) =>
    invalid === 0 ? `${one ? "its scenario cannot" : "their scenarios cannot"} be read` : invalid === unchecked.length ? `${one ? "its scenario is" : "their scenarios are"} not valid` : "their scenarios cannot be read or are not valid"
  const uncheckedText = unchecked.length === 0 ? "" : `; ${unchecked.length} baseline${unchecked.length === 1 ? "" : "s"} not checked (${why(unchecked.length === 1)}, above)`
  if (options.update) {
    if (unchecked.length > 0) say(`baselines written${uncheckedText}`)
    return { output: out.join("\n"), exitCode: unchecked.length > 0 ? 2 : 0 }
  }
  const failing = regressions > 0 || (!options.kpisOnly && traceChanges + otherFunction > 0)
  const hints: string[] = []
  if (traceChanges > 0 && regressions === 0 && !options.kpisOnly) hints.push("behaviour changed; if intended, rewrite the baselines with --update, or gate on KPIs alone with --kpis-only")
  if (otherFunction > 0 && !options.kpisOnly) hints.push("baselines hashed by another function cannot be compared on the trace hash: once the KPIs are as expected, rewrite them with --update")
  say(
    `${targets.length} scenario${targets.length === 1 ? "" : "s"} checked: ${regressions} with regressions, ${traceChanges} with a changed trace hash${
      otherFunction > 0 ? `, ${otherFunction} with a trace hash of another function` : ""
    }${hints.length > 0 ? ` (${hints.join("; ")})` : ""}${uncheckedText}`,
  )
  return { output: out.join("\n"), exitCode: unchecked.length > 0 ? 2 : failing ? 1 : 0 }
}

/** The message and exit code of `error`: 2 for usage errors (bad scenario, baseline or report files, paths), else 1. */
const describe = (error: unknown) =>
  describeCommandError(error, (e) => e instanceof ScenarioError || e instanceof CheckInputError || e instanceof BaselineFileError)

export const checkCommand = Command.make(
  "check",
  {
    scenarios: Argument.String("scenario.yaml").pipe(Argument.withDescription("Scenarios to check (default: every baseline in the directory)"), Argument.variadic()),
    baselineDir: Flag.String("baseline-dir").pipe(Flag.withDescription(`Baseline directory (default ${DEFAULT_BASELINE_DIR})`), Flag.optional),
    update: Flag.Boolean("update").pipe(Flag.withDescription("Write the baselines from these runs instead of comparing"), Flag.withDefault(false)),
    kpisOnly: Flag.Boolean("kpis-only").pipe(Flag.withDescription("Fail on KPI regressions only, not on a changed trace hash"), Flag.withDefault(false)),
    jobs: Flag.String("jobs").pipe(
      Flag.withMetavar("integer"),
      Flag.withDescription("Scenarios run at once, each in a child process that writes its run's files in a temporary directory (default 1: one after another in this process, writing nothing; a child pays its own start and a cold JIT, so more jobs pay off for long scenarios on free cores). The output is the same, in the same order; the children share the heap limit as `run --jobs` does"),
      Flag.optional,
    ),
  },
  Effect.fn(function* ({ scenarios, baselineDir, update, kpisOnly, jobs }) {
    const jobsText = Option.getOrUndefined(jobs)
    const jobsFlag = jobsText === undefined ? undefined : yield* Effect.try({ try: () => parseIntegerFlag("--jobs", jobsText, "a positive integer", 1, Number.MAX_SAFE_INTEGER), catch: (error) => error })
    const dir = Option.getOrUndefined(baselineDir) ?? DEFAULT_BASELINE_DIR
    // The directories --update makes go again if nothing was written in them, an interrupt included (Ctrl-C while
    // the scenarios run): `checkScenarios` removes them when it fails, but an interrupted one does not get there.
    const created = update ? missingDirectories(dir) : []
    // The children (if any) are stopped and waited for whatever happens, an interrupt included.
    const outcome = yield* Effect.acquireUseRelease(
      Effect.sync(() => new CheckRuns(jobsFlag)),
      (children) =>
        Effect.tryPromise({
          try: () => checkScenarios({ scenarios, baselineDir: dir, update, kpisOnly, log: (line) => console.log(line), warn: (line) => console.error(line), children }),
          catch: (error) => error,
        }),
      (children) => Effect.promise(() => children.close()),
    ).pipe(Effect.ensuring(Effect.sync(() => removeEmptyDirectories(created))))
    if (outcome.exitCode !== 0) process.exitCode = outcome.exitCode
  }, Effect.catch((error: unknown) =>
    Effect.gen(function* () {
      // A scenario's run in a child stopped with an error: printed already, as the run printed it.
      if (error instanceof SetRunsStopped) return void (process.exitCode = error.exitCode)
      const { message, exitCode } = describe(error)
      yield* Console.error(`clearsim check: ${message}`)
      process.exitCode = exitCode
    }),
  )),
).pipe(Command.withDescription("Run scenarios and compare their KPIs with the committed baselines (reports/baseline/); exit 1 on a regression or a changed trace hash"))

/**
 * One side of a comparison: a run's report.json, or a baseline file (reports/baseline/<scenario>.json, recognized by
 * its `kpis` and `file`), so that a run can be compared with the committed baseline directly.
 */
const readComparable = (path: string): Baseline => {
  const data = readJsonFile(path, "a report or a baseline")
  if (typeof data === "object" && data !== null && "kpis" in data && "file" in data) return readBaseline(path)
  return baselineOf(checkReportKpiFields(path, data), path)
}

/**
 * A warning when two reports are not runs of the same scenario and seed: their KPIs are still compared (a renamed
 * or edited scenario, a sweep), but their trace hashes differ by construction and a "regression" may only be the
 * difference between the scenarios. Undefined when scenario name and seed agree.
 */
export const differentRunsWarning = (baseline: Baseline, current: Baseline, fileHashes?: readonly [string | undefined, string | undefined]): string | undefined => {
  const differences: string[] = []
  if (baseline.scenario !== current.scenario) differences.push(`scenario "${baseline.scenario}" vs "${current.scenario}"`)
  if (baseline.seed !== current.seed) differences.push(`seed ${baseline.seed} vs ${current.seed}`)
  if (differences.length === 0) {
    // Same name and seed, but the scenario file's bytes differ: an edit that may or may not change the run.
    const [a, b] = fileHashes ?? []
    if (a === undefined || b === undefined || a === b) return undefined
    return `clearsim compare: warning: the reports are of scenario "${baseline.scenario}" from files with other bytes (hash ${a.slice(0, 10)}… vs ${b.slice(0, 10)}…): if the edit changed the scenario, KPI and trace differences may come from it, not from clearsim`
  }
  return `clearsim compare: warning: the reports are not runs of the same scenario and seed (${differences.join(", ")}): their trace hashes differ by construction, and KPI differences may come from the scenarios, not from clearsim`
}

export const compareCommand = Command.make(
  "compare",
  {
    baseline: Argument.String("before.json").pipe(Argument.withDescription("The reference: a run's report.json, or a baseline file (reports/baseline/<scenario>.json)")),
    current: Argument.String("after.json").pipe(Argument.withDescription("The report (or baseline) to judge against it")),
    kpisOnly: Flag.Boolean("kpis-only").pipe(Flag.withDescription("Exit 0 when only the trace hash changed"), Flag.withDefault(false)),
  },
  Effect.fn(function* ({ baseline, current, kpisOnly }) {
    for (const [name, path] of [["before.json", baseline], ["after.json", current]] as const) {
      if (path === "") return yield* Effect.fail(new UsageError(`${name}: expected the path of a report or a baseline, got an empty one`))
    }
    const [before, after] = yield* Effect.try({ try: () => [readComparable(baseline), readComparable(current)] as const, catch: (error) => error })
    const warning = differentRunsWarning(before, after, [before.scenarioHash, after.scenarioHash])
    if (warning !== undefined) yield* Console.error(warning)
    const comparison = compareBaselines(before, after)
    yield* Console.log(renderComparison(comparison))
    if (comparison.regressed || (!kpisOnly && comparison.traceChanged)) process.exitCode = 1
  }, Effect.catch((error: unknown) =>
    Effect.gen(function* () {
      const { message, exitCode } = describe(error)
      yield* Console.error(`clearsim compare: ${message}`)
      process.exitCode = exitCode
    }),
  )),
).pipe(
  Command.withDescription(
    "Compare two report.json files' KPIs; exit 1 on a regression or a changed trace hash (reports of different scenarios or seeds are compared with a warning)",
  ),
)
