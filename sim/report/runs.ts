/**
 * Monte Carlo runs taken together (`clearsim run --runs N`, or a scenario's `runs: N`): the distribution of each
 * KPI over the runs' seeds (mean, sample standard deviation, 5th/50th/95th percentiles by simple-statistics'
 * linear quantiles, min, max) and how many runs each property held in. Written as `runs.json` (one row per run,
 * then the summary) and `runs.md`; the CLI prints the main lines.
 */
import { mean, quantileSorted, sampleStandardDeviation } from "simple-statistics"
import { COUNTS, KPIS, recordedMetrics } from "./baseline.ts"
import type { TotalUnit } from "../metrics/valuation.ts"
import { markdownText, type RunReport } from "./report.ts"

/** One KPI over the runs that have a value for it (a run without intents paid has no latency). */
export interface KpiDistribution {
  /** Runs with a value (the others are left out of the figures). */
  readonly runs: number
  readonly mean: number
  /** Sample standard deviation; null with a single value. */
  readonly sd: number | null
  readonly min: number
  readonly p5: number
  readonly p50: number
  readonly p95: number
  readonly max: number
}

export interface RunRow {
  readonly run: number
  readonly seed: number
  readonly passed: boolean
  readonly traceHash: string
  /** Kept from the first versions of runs.json: `netting.ratio` (0 without volume, where `kpis.nettingRatio` is null) and `latency.p99`. */
  readonly nettingRatio: number
  readonly p99LatencySeconds: number | null
  /** Every KPI and count of the run, as its baseline would record them (null: no value). */
  readonly kpis: Readonly<Record<string, number | null>>
}

export interface RunsSummary {
  readonly scenario: string
  readonly runs: number
  readonly passed: number
  readonly seeds: { readonly first: number; readonly last: number }
  /** Each KPI and count (`KPIS`, `COUNTS`), in that order; null when no run has a value. */
  readonly kpis: Readonly<Record<string, KpiDistribution | null>>
  /** Each property of the scenario: in how many runs it held. */
  readonly properties: Readonly<Record<string, { readonly held: number; readonly runs: number }>>
  /**
   * What the totals over assets, and so the netting ratio and the discount's bps, are by (report.json's
   * `netting.unit`): `USD` when the scenario prices its assets, `tokens` when their tokens are added as they are.
   */
  readonly unit: TotalUnit
}

export interface RunsFile {
  readonly summary: RunsSummary
  readonly runs: readonly RunRow[]
}

const NAMES: readonly string[] = [...KPIS.map((k) => k.name), ...COUNTS]

/** Six decimals at most, as the reports give their ratios (the sum of a mean is not exact). */
const round6 = (x: number): number => Math.round(x * 1e6) / 1e6

const distributionOf = (values: readonly number[]): KpiDistribution | null => {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  return {
    runs: values.length,
    mean: round6(mean(sorted)),
    sd: values.length < 2 ? null : round6(sampleStandardDeviation(sorted)),
    min: round6(sorted[0]!),
    p5: round6(quantileSorted(sorted, 0.05)),
    p50: round6(quantileSorted(sorted, 0.5)),
    p95: round6(quantileSorted(sorted, 0.95)),
    max: round6(sorted[sorted.length - 1]!),
  }
}

/** The rows and summary of a scenario's runs (at least one, in run order). */
export const summarizeRuns = (reports: readonly RunReport[]): RunsFile => {
  if (reports.length === 0) throw new Error("summarizeRuns: no runs")
  const rows: RunRow[] = reports.map((r) => ({
    run: r.run,
    seed: r.seed,
    passed: r.passed,
    traceHash: r.traceHash,
    nettingRatio: r.netting.ratio,
    p99LatencySeconds: r.latency.p99,
    kpis: recordedMetrics(r, NAMES),
  }))
  const kpis = Object.fromEntries(
    NAMES.map((name) => [name, distributionOf(rows.map((row) => row.kpis[name]).filter((v): v is number => v !== null && v !== undefined))]),
  )
  const properties: Record<string, { held: number; runs: number }> = {}
  for (const r of reports) {
    for (const p of r.properties) {
      const tally = (properties[p.name] ??= { held: 0, runs: 0 })
      tally.runs++
      if (p.pass) tally.held++
    }
  }
  const seeds = reports.map((r) => r.seed)
  return {
    summary: {
      scenario: reports[0]!.scenario.name,
      runs: reports.length,
      passed: reports.filter((r) => r.passed).length,
      seeds: { first: Math.min(...seeds), last: Math.max(...seeds) },
      kpis,
      properties,
      unit: reports[0]!.netting.unit ?? "tokens",
    },
    runs: rows,
  }
}

const cell = (v: number | null | undefined): string => (v === null || v === undefined ? "–" : String(round6(v)))

/** The KPIs the CLI prints after the runs (the others are in runs.json and runs.md). */
export const HEADLINE_RUN_KPIS: readonly string[] = ["nettingRatio", "settledShare", "discountPaidBps", "p50LatencySeconds", "p99LatencySeconds"]

/** One line per headline KPI: mean, sd, 5th/50th/95th percentiles, min and max over the runs. */
export const runsSummaryLines = (s: RunsSummary): string[] => {
  const width = Math.max(...HEADLINE_RUN_KPIS.map((n) => n.length))
  return HEADLINE_RUN_KPIS.map((name) => {
    const d = s.kpis[name]
    if (d === null || d === undefined) return `  ${name.padEnd(width)}  no value in any run`
    const partial = d.runs < s.runs ? ` (${d.runs} of ${s.runs} runs have a value)` : ""
    return `  ${name.padEnd(width)}  mean ${d.mean}, sd ${cell(d.sd)}, p5/p50/p95 ${d.p5} / ${d.p50} / ${d.p95}, min ${d.min}, max ${d.max}${partial}`
  })
}

/** runs.md: the distribution of every KPI, the properties' pass counts, then one row per run. */
export const renderRunsMarkdown = (file: RunsFile): string => {
  const s = file.summary
  const lines = [
    `# ${markdownText(s.scenario)}: ${s.passed} of ${s.runs} runs passed`,
    "",
    `Seeds ${s.seeds.first}–${s.seeds.last}. Each KPI over the runs that have a value for it (sd: sample standard deviation; percentiles linear, type 7). ${
      s.unit === "USD" ? "The netting ratio and the discount's bps are by USD value (each asset's tokens at its priceUsd)." : "The netting ratio and the discount's bps add the assets' tokens as they are (no priceUsd)."
    }`,
    "",
    "| KPI | runs | mean | sd | p5 | p50 | p95 | min | max |",
    "|---|---|---|---|---|---|---|---|---|",
  ]
  for (const name of NAMES) {
    const d = s.kpis[name]
    lines.push(d === null || d === undefined ? `| ${name} | 0 | – | – | – | – | – | – | – |` : `| ${name} | ${d.runs} | ${d.mean} | ${cell(d.sd)} | ${d.p5} | ${d.p50} | ${d.p95} | ${d.min} | ${d.max} |`)
  }
  const properties = Object.entries(s.properties)
  if (properties.length > 0) {
    lines.push("", "| property | held in |", "|---|---|")
    for (const [name, p] of properties) lines.push(`| \`${name}\` | ${p.held} of ${p.runs} runs |`)
  }
  lines.push("", "| run | seed | result | trace hash | netting ratio | settled share | p99 latency s |", "|---|---|---|---|---|---|---|")
  for (const r of file.runs) {
    lines.push(`| ${r.run} | ${r.seed} | ${r.passed ? "pass" : "**fail**"} | \`${r.traceHash.slice(0, 18)}…\` | ${cell(r.kpis.nettingRatio)} | ${cell(r.kpis.settledShare)} | ${cell(r.kpis.p99LatencySeconds)} |`)
  }
  return `${lines.join("\n")}\n`
}
