/**
 * Baselines: the KPIs of a scenario run, committed under `reports/baseline/<scenario>.json`, and the comparison
 * of a new run (or any report.json) with them. `clearsim check` gates CI on it, `clearsim compare` compares two
 * report.json files.
 *
 * A run is a function of scenario, seed and clearsim's code, so an unchanged engine gives the same trace hash and
 * identical KPIs. The comparison therefore reports three things: KPI regressions (worse than the baseline by
 * more than the KPI's tolerance), KPI changes within tolerance or for the better, and a changed trace hash
 * (the hub's events differ: behaviour changed, even if no KPI moved past its tolerance). A trace hash made by
 * another function (`traceHashAlgorithm`: keccak256 before SHA-256) also counts as changed, but is rendered as
 * not comparable rather than as a change of behaviour: the baseline is to be rewritten.
 */
import * as Schema from "effect/Schema"
import { decodeWithProblems, formatProblems, type InputProblem } from "../../service/domain/schemas.ts"
import { LEGACY_TRACE_HASH_ALGORITHM } from "../../service/hub/trace.ts"
import type { TotalUnit } from "../metrics/valuation.ts"
import type { RunReport } from "./report.ts"
import { metricsOf } from "./report.ts"
import { FileTooLargeError, readFileBounded, systemErrorText } from "../files.ts"

export interface KpiSpec {
  readonly name: string
  readonly better: "higher" | "lower"
  /** A regression is a move in the worse direction by more than max(abs, rel × |baseline|). */
  readonly abs: number
  readonly rel: number
}

/** The KPIs a baseline records. Tolerances: the noise a deliberate, harmless change could cause. */
export const KPIS: readonly KpiSpec[] = [
  { name: "nettingRatio", better: "higher", abs: 0.005, rel: 0 },
  { name: "settledShare", better: "higher", abs: 0.005, rel: 0 },
  { name: "discountPaidBps", better: "lower", abs: 0.01, rel: 0.05 },
  { name: "p50LatencySeconds", better: "lower", abs: 1, rel: 0.05 },
  { name: "p90LatencySeconds", better: "lower", abs: 1, rel: 0.05 },
  { name: "p99LatencySeconds", better: "lower", abs: 1, rel: 0.05 },
  { name: "p99SettlementLatencySeconds", better: "lower", abs: 1, rel: 0.05 },
  { name: "hubReverts", better: "lower", abs: 0, rel: 0 },
  { name: "spokeReverts", better: "lower", abs: 0, rel: 0 },
]

/** Counted, not judged: a change is shown but is neither better nor worse. */
export const COUNTS: readonly string[] = ["intentsCreated", "intentsSettled", "invoicesCreated", "invoicesSettled"]

/** A run seed: what `--seed` and a scenario's `seed` accept. */
const Seed = Schema.Int.check(
  Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative integer" }),
  Schema.isLessThanOrEqualTo(Number.MAX_SAFE_INTEGER, { expected: `a seed of at most ${Number.MAX_SAFE_INTEGER} (2^53 - 1)` }),
)

/** A trace hash: 0x and 64 lowercase hex digits. */
const TraceHash = Schema.String.check(Schema.isPattern(/^0x[0-9a-f]{64}$/u, { expected: "a trace hash: 0x and 64 lowercase hex digits" }))
/** A share (netting ratio): a number from 0 to 1. */
const Share = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }, { expected: "a ratio from 0 to 1" }))
/** A count of things (intents, invoices, reverts). */
const Count = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative integer" }))
/** A discount rate in basis points. */
const Bps = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative number of bps" }))
/** A latency. */
const Latency = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative number of seconds" }))

/**
 * A baseline's KPIs (`KPIS`), as `baselineOf` records them: every one is there (null: the run had no value for it,
 * as no user volume netted or no intent paid), and each within what a run can give: ratios from 0 to 1, a discount
 * and latencies not below 0 (finite: JSON's 1e999 reads as Infinity), reverts whole and not below 0. A baseline that
 * says otherwise (edited by hand, or not written by clearsim) is refused naming the field rather than compared: a
 * hubReverts of -3 would make a run's 0 reverts a regression no change could fix.
 */
const BaselineKpis = Schema.Struct({
  nettingRatio: Schema.NullOr(Share),
  settledShare: Schema.NullOr(Share),
  discountPaidBps: Schema.NullOr(Bps),
  p50LatencySeconds: Schema.NullOr(Latency),
  p90LatencySeconds: Schema.NullOr(Latency),
  p99LatencySeconds: Schema.NullOr(Latency),
  p99SettlementLatencySeconds: Schema.NullOr(Latency),
  hubReverts: Count,
  spokeReverts: Count,
})
/** A baseline's counts (`COUNTS`): every one there, whole and not below 0. */
const BaselineCounts = Schema.Struct({ intentsCreated: Count, intentsSettled: Count, invoicesCreated: Count, invoicesSettled: Count })

/** The keccak256 hash of a scenario file's bytes, as report.json's `scenario.hash`. */
const ScenarioHash = Schema.String.check(Schema.isPattern(/^0x[0-9a-f]{64}$/u, { expected: "a scenario file's hash: 0x and 64 lowercase hex digits" }))

export const BaselineSchema = Schema.Struct({
  scenario: Schema.String,
  /**
   * The scenario file, relative to the baseline file's directory (`../../scenarios/quickstart.yaml`), so that
   * `clearsim check` finds it from any directory. Baselines written before named it relative to the directory
   * `clearsim check` ran in (the project root): `check` still reads them from there when nothing is at the first place.
   */
  file: Schema.String,
  /** keccak256 of the scenario file's bytes when the baseline was written (absent in older baselines). */
  scenarioHash: Schema.optionalKey(ScenarioHash),
  seed: Seed,
  backend: Schema.Literals(["memory", "anvil"]),
  /** clearsim's version when the baseline was written (informational). */
  version: Schema.String,
  traceHash: TraceHash,
  /** The trace hash's function; absent in baselines written before it was named (keccak256). */
  traceHashAlgorithm: Schema.optionalKey(Schema.String),
  /**
   * The unit of the totals over assets that `nettingRatio` and `discountPaidBps` are ratios of (report.json's
   * `netting.unit`): USD when the scenario prices its assets, tokens otherwise. Absent in older baselines: tokens.
   */
  unit: Schema.optionalKey(Schema.Literals(["USD", "tokens"])),
  kpis: BaselineKpis,
  counts: BaselineCounts,
  /** Property name → passed. */
  properties: Schema.Record(Schema.String, Schema.Boolean),
})
/**
 * A baseline as `compareBaselines` takes it: its KPIs and counts by name (`KPIS`, `COUNTS`; a name missing is no
 * value), read from a file (`readBaseline`, which requires every one) or made from a report (`baselineOf`).
 */
export type Baseline = Omit<typeof BaselineSchema.Type, "kpis" | "counts"> & {
  readonly kpis: Readonly<Record<string, number | null>>
  readonly counts: Readonly<Record<string, number | null>>
}

const Seconds = Schema.NullOr(Latency)
const Summary = Schema.Struct({ p50: Seconds, p90: Seconds, p99: Seconds, max: Seconds })
const byPath = <S extends Schema.Top>(item: S) => Schema.Struct({ basic: item, fast: item, swap: item, xerc20: item })

/**
 * The parts of a report.json that its KPIs, counts and properties are read from (`baselineOf`, `metricsOf`),
 * checked when `clearsim compare` reads a report a user gives it: a report whose parts are missing or of the
 * wrong type is refused naming the field, rather than compared as NaN or crashing. Other fields are not read.
 */
export const ReportKpiFields = Schema.Struct({
  scenario: Schema.Struct({ name: Schema.String, hash: Schema.optionalKey(Schema.String) }),
  seed: Seed,
  backend: Schema.String,
  version: Schema.String,
  traceHash: TraceHash,
  traceHashAlgorithm: Schema.optionalKey(Schema.String),
  netting: Schema.Struct({ ratio: Share, totalVolume: Schema.String, unit: Schema.optionalKey(Schema.Literals(["USD", "tokens"])) }),
  discounts: Schema.Struct({ paidBps: Bps, settledVolume: Schema.optionalKey(Schema.String), invoicesCreated: Count, invoicesSettled: Count }),
  intents: Schema.Struct({ created: Count, settled: Count, byPath: byPath(Schema.Struct({ created: Count, settled: Count })) }),
  latency: Schema.Struct({ ...Summary.fields, byPath: byPath(Summary), settlement: Schema.Struct({ ...Summary.fields, byPath: byPath(Summary) }) }),
  world: Schema.Struct({ hubReverts: Count, spokeReverts: Count }),
  properties: Schema.Array(Schema.Struct({ name: Schema.String, pass: Schema.Boolean })),
})

/**
 * What no run gives, though each value alone is possible: more intents or invoices settled than were created (a
 * run counts only those it created), user latency percentiles out of order (p50 above p90, p90 above p99).
 */
const impossibleTogether = (pairs: readonly (readonly [low: string, lowValue: number | null, high: string, highValue: number | null, what: string])[]): InputProblem[] =>
  pairs.flatMap(([low, lowValue, high, highValue, what]) =>
    lowValue !== null && highValue !== null && lowValue > highValue ? [{ path: low, message: `Expected ${what} of at most ${high} (${highValue}), got ${lowValue}` }] : [],
  )

/** Checks a report.json's value (`path` names it in the error) has the parts a baseline is made of. */
export const checkReportKpiFields = (path: string, data: unknown): RunReport => {
  const decoded = decodeWithProblems(ReportKpiFields, data)
  const problems = decoded.ok
    ? impossibleTogether([
        ["intents.settled", decoded.value.intents.settled, "intents.created", decoded.value.intents.created, "a number of intents settled"],
        ["discounts.invoicesSettled", decoded.value.discounts.invoicesSettled, "discounts.invoicesCreated", decoded.value.discounts.invoicesCreated, "a number of invoices settled"],
        ["latency.p50", decoded.value.latency.p50, "latency.p90", decoded.value.latency.p90, "a latency"],
        ["latency.p90", decoded.value.latency.p90, "latency.p99", decoded.value.latency.p99, "a latency"],
        ["latency.p99", decoded.value.latency.p99, "latency.max", decoded.value.latency.max, "a latency"],
      ])
    : decoded.problems
  if (problems.length > 0) throw new BaselineFileError(`${path}: not a clearsim report.json: ${formatProblems(problems)}`)
  return data as RunReport
}

/** A report's values of the metrics `names` as a baseline records them: `metricsOf`'s (null: no value). */
export const recordedMetrics = (report: RunReport, names: readonly string[]): Record<string, number | null> => {
  const metrics = metricsOf(report)
  return Object.fromEntries(names.map((n) => [n, metrics.get(n) ?? null]))
}

/** The baseline of a run's report; `file` names its scenario file (relative to where the baseline is written). */
export const baselineOf = (report: RunReport, file: string): Baseline => {
  const pick = (names: readonly string[]) => recordedMetrics(report, names)
  return {
    scenario: report.scenario.name,
    file,
    ...(report.scenario.hash === undefined ? {} : { scenarioHash: report.scenario.hash }),
    seed: report.seed,
    backend: report.backend === "anvil" ? "anvil" : "memory",
    version: report.version,
    traceHash: report.traceHash,
    traceHashAlgorithm: report.traceHashAlgorithm ?? LEGACY_TRACE_HASH_ALGORITHM,
    unit: report.netting.unit ?? "tokens",
    kpis: pick(KPIS.map((k) => k.name)),
    counts: pick(COUNTS),
    properties: Object.fromEntries(report.properties.map((p) => [p.name, p.pass])),
  }
}

export class BaselineFileError extends Error {
  override readonly name = "BaselineFileError"
}

/** The largest report or baseline read: a report.json is kilobytes, a million-intent run's too. */
export const MAX_JSON_FILE_BYTES = 256 * 2 ** 20

/**
 * A JSON file's value; an unreadable file or bad JSON is a `BaselineFileError` naming the file and `what`, as is a
 * file past `MAX_JSON_FILE_BYTES` (or a device that never ends, as /dev/zero), not read until memory runs out.
 */
export const readJsonFile = (path: string, what: string): unknown => {
  try {
    // A byte-order mark (some editors write one) is not JSON, and not content either.
    return JSON.parse(readFileBounded(path, MAX_JSON_FILE_BYTES).toString("utf8").replace(/^\uFEFF/, ""))
  } catch (error) {
    // As `run` says of a scenario file: "it is a directory (EISDIR)", not Node's "illegal operation on a directory, read".
    const reason =
      error instanceof FileTooLargeError
        ? `more than ${MAX_JSON_FILE_BYTES / 2 ** 20} MiB`
        : typeof (error as NodeJS.ErrnoException | undefined)?.code === "string"
          ? systemErrorText(error as NodeJS.ErrnoException)
          : error instanceof SyntaxError
            ? `not JSON: ${error.message}`
            : error instanceof Error
              ? error.message
              : String(error)
    throw new BaselineFileError(`${path}: cannot read ${what}: ${reason}`)
  }
}

/**
 * Reads and validates a baseline file: each field as `BaselineSchema` says, and values no run gives together
 * (`impossibleTogether`) refused too. Errors name the file, every field path at fault and what was expected.
 */
export const readBaseline = (path: string): Baseline => {
  const decoded = decodeWithProblems(BaselineSchema, readJsonFile(path, "a baseline"))
  const problems = decoded.ok
    ? impossibleTogether([
        ["counts.intentsSettled", decoded.value.counts.intentsSettled, "counts.intentsCreated", decoded.value.counts.intentsCreated, "a number of intents settled"],
        ["counts.invoicesSettled", decoded.value.counts.invoicesSettled, "counts.invoicesCreated", decoded.value.counts.invoicesCreated, "a number of invoices settled"],
        ["kpis.p50LatencySeconds", decoded.value.kpis.p50LatencySeconds, "kpis.p90LatencySeconds", decoded.value.kpis.p90LatencySeconds, "a latency"],
        ["kpis.p90LatencySeconds", decoded.value.kpis.p90LatencySeconds, "kpis.p99LatencySeconds", decoded.value.kpis.p99LatencySeconds, "a latency"],
      ])
    : decoded.problems
  if (!decoded.ok || problems.length > 0) throw new BaselineFileError(`${path}: not a clearsim baseline: ${formatProblems(problems)}`)
  return decoded.value
}

export type Verdict = "regression" | "better" | "within tolerance" | "changed"

export interface KpiDiff {
  readonly name: string
  readonly baseline: number | null
  readonly current: number | null
  readonly verdict: Verdict
}

export interface Comparison {
  /** The scenario of the current side. */
  readonly scenario: string
  /** The scenario of the baseline side (another one when two reports of different scenarios are compared). */
  readonly baselineScenario: string
  readonly traceChanged: boolean
  readonly baselineTrace: string
  readonly currentTrace: string
  /** The functions that made the two trace hashes (different functions: the hashes cannot be compared). */
  readonly baselineTraceAlgorithm: string
  readonly currentTraceAlgorithm: string
  /** Whether the two are runs of the same scenario (by name) and seed: otherwise their trace hashes differ by construction. */
  readonly sameRun: boolean
  /** The clearsim versions that wrote them (a KPI's definition may differ between versions: CHANGELOG.md). */
  readonly baselineVersion: string
  readonly currentVersion: string
  /**
   * The units of the totals the two sides' netting ratio and discount are ratios of. When they differ (prices given
   * or taken away), those two KPIs measure different things: shown as changed, never judged.
   */
  readonly baselineUnit: TotalUnit
  readonly currentUnit: TotalUnit
  /** Every KPI and count that differs, in KPI order. */
  readonly diffs: readonly KpiDiff[]
  /** Properties that passed in the baseline and fail now (or are new and fail). */
  readonly newlyFailing: readonly string[]
  /** Properties the baseline recorded that the current run no longer checks (shown, not a regression). */
  readonly dropped: readonly string[]
  /** The baseline's properties, name → passed. */
  readonly baselinePassed: Readonly<Record<string, boolean>>
  readonly regressed: boolean
}

/**
 * A KPI's verdict. A KPI that had a value and has none now (no user volume netted, no intent paid) is a
 * regression: what the baseline measured is gone. One that gains a value is a change, neither better nor worse.
 * A move of exactly the tolerance is within it: the comparison allows for the floating-point error of the
 * subtraction (0.863811 - 0.858811 is 0.0050000000000000044).
 */
const judge = (spec: KpiSpec, baseline: number | null, current: number | null): Verdict => {
  if (baseline === null) return "changed"
  if (current === null) return "regression"
  const worse = spec.better === "higher" ? baseline - current : current - baseline
  if (worse <= 0) return "better"
  const tolerance = Math.max(spec.abs, spec.rel * Math.abs(baseline))
  return worse - tolerance > 1e-9 * Math.max(1, Math.abs(baseline), Math.abs(current)) ? "regression" : "within tolerance"
}

/** The KPIs that are ratios of totals over assets, and so depend on their unit (`Baseline.unit`). */
const UNIT_KPIS: ReadonlySet<string> = new Set(["nettingRatio", "discountPaidBps"])

/** Compares `current` (a new baseline, from a run or a report.json) with `baseline`. */
export const compareBaselines = (baseline: Baseline, current: Baseline): Comparison => {
  const baselineUnit = baseline.unit ?? "tokens"
  const currentUnit = current.unit ?? "tokens"
  const diffs: KpiDiff[] = []
  for (const spec of KPIS) {
    const b = baseline.kpis[spec.name] ?? null
    const c = current.kpis[spec.name] ?? null
    const comparable = baselineUnit === currentUnit || !UNIT_KPIS.has(spec.name)
    if (b !== c) diffs.push({ name: spec.name, baseline: b, current: c, verdict: comparable ? judge(spec, b, c) : "changed" })
  }
  for (const name of COUNTS) {
    const b = baseline.counts[name] ?? null
    const c = current.counts[name] ?? null
    if (b !== c) diffs.push({ name, baseline: b, current: c, verdict: "changed" })
  }
  const newlyFailing = Object.entries(current.properties)
    .filter(([name, pass]) => !pass && baseline.properties[name] !== false)
    .map(([name]) => name)
  const dropped = Object.keys(baseline.properties).filter((name) => !Object.hasOwn(current.properties, name))
  return {
    scenario: current.scenario,
    baselineScenario: baseline.scenario,
    traceChanged: baseline.traceHash !== current.traceHash,
    baselineTrace: baseline.traceHash,
    currentTrace: current.traceHash,
    baselineTraceAlgorithm: baseline.traceHashAlgorithm ?? LEGACY_TRACE_HASH_ALGORITHM,
    currentTraceAlgorithm: current.traceHashAlgorithm ?? LEGACY_TRACE_HASH_ALGORITHM,
    sameRun: baseline.scenario === current.scenario && baseline.seed === current.seed,
    baselineVersion: baseline.version,
    currentVersion: current.version,
    baselineUnit,
    currentUnit,
    diffs,
    newlyFailing,
    dropped,
    baselinePassed: baseline.properties,
    regressed: newlyFailing.length > 0 || diffs.some((d) => d.verdict === "regression"),
  }
}

const show = (v: number | null): string => (v === null ? "–" : String(Math.round(v * 1e6) / 1e6))

const change = (d: KpiDiff): string => {
  if (d.baseline !== null && d.current === null) return "no value now"
  if (d.baseline === null || d.current === null) return ""
  const delta = d.current - d.baseline
  const pct = d.baseline === 0 ? "" : ` (${delta > 0 ? "+" : ""}${((delta / Math.abs(d.baseline)) * 100).toFixed(1)} %)`
  return `${delta > 0 ? "+" : ""}${show(delta)}${pct}`
}

/**
 * A readable diff: a heading naming the scenario (both, baseline first, when they differ), then one line per
 * changed KPI, aligned, with the verdict.
 */
export const renderComparison = (c: Comparison): string => {
  const lines: string[] = []
  const status = c.regressed ? "REGRESSION" : c.traceChanged || c.diffs.length > 0 || c.baselineUnit !== c.currentUnit ? "CHANGED" : "same"
  lines.push(`${c.baselineScenario === c.scenario ? c.scenario : `${c.baselineScenario} -> ${c.scenario}`}: ${status}`)
  if (c.traceChanged && c.baselineTraceAlgorithm !== c.currentTraceAlgorithm) {
    lines.push(
      `  trace hash ${c.baselineTrace} (${c.baselineTraceAlgorithm}) -> ${c.currentTrace} (${c.currentTraceAlgorithm}): the hashes were made by different functions and cannot be compared; the KPIs below still can (rewrite the baseline with --update once they are as expected)`,
    )
  } else if (c.traceChanged && !c.sameRun) {
    lines.push(`  trace hash ${c.baselineTrace} -> ${c.currentTrace} (not runs of the same scenario and seed: their hub events differ by construction)`)
  } else if (c.traceChanged) lines.push(`  trace hash ${c.baselineTrace} -> ${c.currentTrace} (the hub's events differ: behaviour changed)`)
  else lines.push(`  trace hash ${c.currentTrace} unchanged`)
  if (c.baselineVersion !== c.currentVersion) {
    lines.push(`  written by clearsim ${c.baselineVersion} and ${c.currentVersion}: CHANGELOG.md says which KPI definitions and behaviours changed between them`)
  }
  if (c.baselineUnit !== c.currentUnit) {
    lines.push(
      `  totals over assets in ${c.baselineUnit} and now in ${c.currentUnit} (the scenario's priceUsd given or taken away): nettingRatio and discountPaidBps measure different things and are not judged`,
    )
  }
  if (c.diffs.length > 0) {
    const width = Math.max(...c.diffs.map((d) => d.name.length))
    for (const d of c.diffs) {
      const mark = d.verdict === "regression" ? "✗" : d.verdict === "better" ? "✓" : "·"
      lines.push(`  ${mark} ${d.name.padEnd(width)}  ${show(d.baseline).padStart(12)} -> ${show(d.current).padEnd(12)} ${change(d).padEnd(20)} ${d.verdict}`)
    }
  } else if (c.traceChanged) lines.push("  every KPI is equal")
  for (const p of c.newlyFailing) lines.push(`  ✗ property \`${p}\` now fails`)
  for (const p of c.dropped) lines.push(`  · property \`${p}\` (${c.baselinePassed[p] === true ? "passed" : "failed"} in the baseline) is no longer checked`)
  return lines.join("\n")
}
