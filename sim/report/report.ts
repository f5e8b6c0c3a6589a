/**
 * The run report: `report.json` (field names are API: add, never rename), `report.md` (properties first, then
 * metrics), `report.html` (the same with per-epoch charts, `html.ts`) and `timeseries.csv` (tidy rows: run,
 * seed, epoch, metric, value). Amounts are whole tokens of the
 * ticker (decimal strings for totals, numbers in distributions), but the netting and discount totals over assets,
 * which are in their section's `unit` (USD when the scenario prices its assets); latencies are seconds.
 */
import { format } from "d3-format"
import { join } from "node:path"
import type { Bytes32 } from "../../service/domain/hex.ts"
import type { TransportStats } from "../../service/transport/transport.ts"
import type { KeeperStats } from "../agents/keepers.ts"
import { bpsOf, type IntentPath, type MetricsCollector, PATHS } from "../metrics/collector.ts"
import { ratioOf, type WeightedTotalsView } from "../metrics/netting.ts"
import { formatUnits, type TotalUnit } from "../metrics/valuation.ts"
import { type Percentiles, toMilliseconds } from "../metrics/percentiles.ts"
import { type PropertyResult, shareOf } from "../metrics/properties.ts"
import type { WorldStats } from "../world/world.ts"
import { type SeriesInput, type Timeseries, timeseriesOf } from "../metrics/timeseries.ts"
import { renderHtml } from "./html.ts"
import { makeDirectories, writeTextFile } from "../files.ts"

export interface LatencySummary {
  readonly count: number
  readonly p50: number | null
  readonly p90: number | null
  readonly p99: number | null
  readonly max: number | null
  readonly mean: number | null
}

export interface AgentPopulationReport {
  readonly kind: string
  readonly population: string
  readonly agents: number
  readonly actions: Record<string, number>
  readonly rejections: Record<string, number>
  /** Actions that went ahead another way than asked: a fast intent sent as basic when the fast path was refused (`basicForFast:<reason>`), an intent sent over the route's limit, to be invoiced (`sentOverLimit`). */
  readonly fallbacks: Record<string, number>
  /** Change of holdings (wallets + spoke virtual balances) per asset over the run, whole tokens. */
  readonly pnl: Record<string, number>
  /** Sent in intents and not yet received at the end, per asset, whole tokens: pnl + inFlight is the settled PnL. */
  readonly inFlight: Record<string, number>
}

export interface RunReport {
  readonly scenario: { readonly name: string; readonly file: string; readonly hash: Bytes32; readonly description?: string }
  readonly seed: number
  readonly run: number
  readonly version: string
  readonly backend: string
  readonly traceHash: Bytes32
  /** The trace hash's function over the event lines: `sha256` (absent in reports of older versions: keccak256). */
  readonly traceHashAlgorithm?: string
  readonly hubEvents: number
  readonly hubInputs: number
  readonly horizonSeconds: number
  readonly epochs: { readonly first: number; readonly last: number; readonly count: number }
  readonly intents: {
    readonly created: number
    readonly settled: number
    readonly byPath: Record<IntentPath, { readonly created: number; readonly settled: number }>
    /** By agent population (the initial liquidity left out), then `(other senders)` if any (absent in reports of older versions). */
    readonly byPopulation?: Record<string, { readonly created: number; readonly settled: number }>
    /** By input asset symbol (absent in reports of older versions): a lane of one asset stuck behind another's traffic shows here. */
    readonly byTicker?: Record<string, { readonly created: number; readonly settled: number }>
  }
  readonly netting: {
    readonly ratio: number
    /** In `unit`, as `totalVolume`, `bySource` and `byLane`. */
    readonly nettedVolume: string
    readonly totalVolume: string
    /**
     * What the totals over assets (`nettedVolume`, `totalVolume`, `bySource`, `byLane`, and so `ratio`) are in:
     * `USD` when the scenario prices its assets (each asset's tokens weighed by its `priceUsd`), `tokens` when it
     * does not (every asset's tokens added as they are). Absent in reports of older versions: tokens.
     */
    readonly unit?: TotalUnit
    readonly bySource: Record<string, string>
    /** By lane, `origin>destination`: every asset's amounts added in `unit` (one asset's lanes, in its tokens, are in `byTicker`). */
    readonly byLane: Record<string, { readonly ratio: number; readonly totalVolume: string }>
    /** By ticker, in its own tokens, with its lanes (absent in reports of older versions; `byLane` since 0.3.0). */
    readonly byTicker?: Record<
      string,
      { readonly ratio: number; readonly nettedVolume: string; readonly totalVolume: string; readonly byLane?: Record<string, { readonly ratio: number; readonly totalVolume: string }> }
    >
  }
  readonly discounts: {
    /** In `unit`, as `settledVolume` and `invoicedVolume`. */
    readonly paid: string
    readonly paidBps: number
    /** What `paidBps` is in basis points of: all the volume the hub settled (every agent's, every ticker's). */
    readonly settledVolume: string
    /**
     * What `paid`, `settledVolume` and `invoicedVolume` (and so the bps figures) are in: `USD` when the scenario
     * prices its assets, `tokens` when every asset's tokens are added as they are. Absent in older reports: tokens.
     */
    readonly unit?: TotalUnit
    readonly invoicesCreated: number
    readonly invoicesSettled: number
    /**
     * The discount in basis points of the invoices it was taken from (their amounts settled, before the discount):
     * the invoices' volume-weighted rate, which purchases and netted volume do not dilute (absent in older reports).
     */
    readonly paidBpsOfInvoices?: number
    /** The amounts of the invoices settled, before their discount. */
    readonly invoicedVolume?: string
    /** By asset, in its own tokens: discount paid, on invoices of what amount, in bps of it (absent in older reports). */
    readonly byTicker?: Record<string, { readonly paid: string; readonly invoicedVolume: string; readonly paidBpsOfInvoices: number; readonly invoicesSettled: number }>
    readonly perInvoiceBps: LatencySummary
  }
  readonly latency: LatencySummary & {
    readonly byPath: Record<IntentPath, LatencySummary>
    /** The populations of `intents.byPopulation` (absent in reports of older versions). */
    readonly byPopulation?: Record<string, LatencySummary>
    readonly settlement: LatencySummary & { readonly byPath: Record<IntentPath, LatencySummary>; readonly byPopulation?: Record<string, LatencySummary> }
  }
  readonly agents: readonly AgentPopulationReport[]
  readonly keepers: KeeperStats
  readonly transport: TransportStats
  readonly world: WorldStats
  readonly coverage: readonly string[]
  readonly properties: readonly PropertyResult[]
  readonly passed: boolean
  readonly wallSeconds: number
  /** The Node and V8 versions the run ran on (like `wallSeconds`, not part of what the run computes). */
  readonly runtime: { readonly node: string; readonly v8: string }
  /**
   * Set on a live devnet's report (`clearsim up`): the scenario's properties are written for its own horizon
   * (`scenarioHorizonSeconds`), not for a session of `horizonSeconds`, so they are shown but give no verdict.
   */
  readonly live?: { readonly scenarioHorizonSeconds: number }
}

/** The report's headline: PASS or FAIL, or for a live session how many of the scenario's properties held. */
export const verdictText = (r: Pick<RunReport, "passed" | "properties" | "live" | "horizonSeconds">): string => {
  if (r.live === undefined) return r.passed ? "PASS" : "FAIL"
  const held = r.properties.filter((p) => p.pass).length
  const properties = r.properties.length === 0 ? "no properties" : `${held} of ${r.properties.length} ${r.properties.length === 1 ? "property" : "properties"} held`
  return `live session of ${formatDuration(r.horizonSeconds)}, ${properties} (written for the scenario's ${formatDuration(r.live.scenarioHorizonSeconds)}: no verdict)`
}

/** Seconds as the largest unit that keeps it at least 1, to a tenth (3599 s is 1 h, not 60 min). */
const formatDuration = (seconds: number): string => {
  const tenths = (x: number) => Math.round(x * 10) / 10
  if (tenths(seconds / 60) >= 60) return `${tenths(seconds / 3600)} h`
  if (Math.round(seconds) >= 60) return `${tenths(seconds / 60)} min`
  return `${Math.round(seconds)} s`
}

const summary = (p: Percentiles | undefined, round: (x: number) => number = toMilliseconds): LatencySummary =>
  p === undefined
    ? { count: 0, p50: null, p90: null, p99: null, max: null, mean: null }
    : { count: p.count, p50: round(p.p50), p90: round(p.p90), p99: round(p.p99), max: round(p.max), mean: round(p.mean) }

/**
 * The per-invoice distribution's percentiles (interpolated between invoices' rates, themselves truncated to six
 * decimals by `bpsOf`) to six decimals, rounded: what floating-point interpolation adds past them is noise, not a
 * ratio's digits (three decimals would make 0.000412 bps a 0).
 */
const toMicroBps = (bps: number): number => Math.round(bps * 1e6) / 1e6

/** 18-decimal units as a decimal string of whole tokens. */
export const formatTokens18 = (amount18: bigint): string => formatUnits(amount18, 18)

const tokensLarge = format(",.4~f")
const tokensSmall = format(".6~r")

/**
 * A decimal token amount as shown to people (summaries, report.md, report.html): thousands grouped, four decimals
 * at most from 1 up, six significant digits below, never in exponent form (report.json keeps the exact decimal).
 */
export const tokensText = (decimal: string): string => {
  const value = Number(decimal)
  return Math.abs(value) < 1 ? tokensSmall(value) : tokensLarge(value)
}

/**
 * A total of report.json's `netting` or `discounts` as shown to people, with its unit: "12.3 USD" when the scenario
 * prices its assets, "12.3 tokens" when not (and in reports older than `unit`).
 */
export const totalText = (decimal: string, unit: TotalUnit | undefined): string => `${tokensText(decimal)} ${unit ?? "tokens"}`

/** Every metric a scenario property can name (`nettingRatio`, `p99LatencySeconds`, `latency.fast.p90`, ...). */
export const METRIC_NAMES: readonly string[] = (() => {
  const names = [
    "nettingRatio",
    "netting.ratio",
    "discountPaidBps",
    "discounts.paidBps",
    "discountPaidBpsOfInvoices",
    "discounts.paidBpsOfInvoices",
    "invoicesCreated",
    "invoicesSettled",
    "intentsCreated",
    "intentsSettled",
    "settledShare",
    "hubReverts",
    "spokeReverts",
    "transport.dropped",
    "transport.duplicated",
    "transport.refusedByHub",
  ]
  for (const q of ["p50", "p90", "p99", "max"]) {
    names.push(`${q}LatencySeconds`, `latency.${q}`, `${q}SettlementLatencySeconds`, `latency.settlement.${q}`)
    for (const path of PATHS) names.push(`latency.${path}.${q}`, `latency.settlement.${path}.${q}`)
  }
  for (const path of PATHS) names.push(`intents.${path}.created`, `intents.${path}.settled`)
  return names
})()

const QUANTILES = ["p50", "p90", "p99", "max"] as const

/**
 * The metrics a property can name for an agent population `name` (a scenario's own): `population.<name>.intents.created`,
 * `.intents.settled`, `.settledShare`, `.latency.<p50|p90|p99|max>` and `.latency.settlement.<...>`.
 */
export const populationMetricNames = (name: string): string[] => populationMetrics(name, undefined).map(([metric]) => metric)

/** A population's metrics and their values in a report (null: no value, or none given). */
const populationMetrics = (
  name: string,
  r: { readonly created: number; readonly settled: number; readonly user: LatencySummary | undefined; readonly settlement: LatencySummary | undefined } | undefined,
): [string, number | null][] => [
  [`population.${name}.intents.created`, r?.created ?? null],
  [`population.${name}.intents.settled`, r?.settled ?? null],
  [`population.${name}.settledShare`, r === undefined || r.created === 0 ? null : shareOf(r.settled, r.created)],
  ...QUANTILES.flatMap((q): [string, number | null][] => [
    [`population.${name}.latency.${q}`, r?.user?.[q] ?? null],
    [`population.${name}.latency.settlement.${q}`, r?.settlement?.[q] ?? null],
  ]),
]

/** An asset's metrics (intents whose input is that asset) and their values in a report. */
const assetMetrics = (
  symbol: string,
  c: { readonly created: number; readonly settled: number } | undefined,
  netting?: { readonly ratio: number; readonly totalVolume: string },
): [string, number | null][] => [
  [`asset.${symbol}.intents.created`, c?.created ?? null],
  [`asset.${symbol}.intents.settled`, c?.settled ?? null],
  [`asset.${symbol}.settledShare`, c === undefined || c.created === 0 ? null : shareOf(c.settled, c.created)],
  [`asset.${symbol}.nettingRatio`, netting === undefined || netting.totalVolume === "0" ? null : netting.ratio],
]
export const assetMetricNames = (symbol: string): string[] => assetMetrics(symbol, undefined).map(([metric]) => metric)

/** Every metric a property of a scenario with these agent populations and assets can name. */
export const knownMetricNames = (populationNames: readonly string[], assetSymbols: readonly string[] = []): string[] => [
  ...METRIC_NAMES,
  ...populationNames.flatMap(populationMetricNames),
  ...assetSymbols.flatMap(assetMetricNames),
]

/**
 * The values of `METRIC_NAMES` for a report; a metric without samples (no fast intents, say) is absent. Settled
 * shares are to 6 decimals, truncated (`shareOf`): the value the time series gives, which properties, baselines and
 * runs.json take as it is.
 */
export const metricsOf = (report: Omit<RunReport, "properties" | "passed">): Map<string, number> => {
  const m = new Map<string, number>()
  const put = (name: string, value: number | null) => {
    if (value !== null) m.set(name, value)
  }
  // No user volume settled out of custody: no ratio (as per epoch), rather than a 0 that `nettingRatio <= x` would pass.
  const nettingRatio = report.netting.totalVolume === "0" ? null : report.netting.ratio
  put("nettingRatio", nettingRatio)
  put("netting.ratio", nettingRatio)
  // Nothing settled: no discount rate (as per epoch), rather than a 0 that would read as an improvement.
  const paidBps = report.discounts.settledVolume === "0" ? null : report.discounts.paidBps
  put("discountPaidBps", paidBps)
  put("discounts.paidBps", paidBps)
  // No invoice settled (or an older report): no rate.
  const ofInvoices = report.discounts.invoicedVolume === undefined || report.discounts.invoicedVolume === "0" ? null : (report.discounts.paidBpsOfInvoices ?? null)
  put("discountPaidBpsOfInvoices", ofInvoices)
  put("discounts.paidBpsOfInvoices", ofInvoices)
  put("invoicesCreated", report.discounts.invoicesCreated)
  put("invoicesSettled", report.discounts.invoicesSettled)
  put("intentsCreated", report.intents.created)
  put("intentsSettled", report.intents.settled)
  put("settledShare", report.intents.created === 0 ? null : shareOf(report.intents.settled, report.intents.created))
  for (const q of ["p50", "p90", "p99", "max"] as const) {
    put(`${q}LatencySeconds`, report.latency[q])
    put(`latency.${q}`, report.latency[q])
    put(`${q}SettlementLatencySeconds`, report.latency.settlement[q])
    put(`latency.settlement.${q}`, report.latency.settlement[q])
    for (const path of PATHS) {
      put(`latency.${path}.${q}`, report.latency.byPath[path][q])
      put(`latency.settlement.${path}.${q}`, report.latency.settlement.byPath[path][q])
    }
  }
  for (const path of PATHS) {
    put(`intents.${path}.created`, report.intents.byPath[path].created)
    put(`intents.${path}.settled`, report.intents.byPath[path].settled)
  }
  for (const [name, counts] of Object.entries(report.intents.byPopulation ?? {})) {
    const values = { ...counts, user: report.latency.byPopulation?.[name], settlement: report.latency.settlement.byPopulation?.[name] }
    for (const [metric, value] of populationMetrics(name, values)) put(metric, value)
  }
  for (const [symbol, counts] of Object.entries(report.intents.byTicker ?? {})) {
    for (const [metric, value] of assetMetrics(symbol, counts, report.netting.byTicker?.[symbol])) put(metric, value)
  }
  put("hubReverts", report.world.hubReverts)
  put("spokeReverts", report.world.spokeReverts)
  // (Absent from reports older than these counters, which `clearsim compare` still reads: no value.)
  const transport = report.transport as Partial<TransportStats> | undefined
  put("transport.dropped", transport?.dropped ?? null)
  put("transport.duplicated", transport?.duplicated ?? null)
  put("transport.refusedByHub", (report.world as Partial<WorldStats>).refusedHubDeliveries ?? null)
  return m
}

export const buildMetricsSection = (metrics: MetricsCollector) => {
  const byPath = Object.fromEntries(PATHS.map((p) => [p, { created: metrics.created[p], settled: metrics.settled[p] }])) as Record<
    IntentPath,
    { created: number; settled: number }
  >
  const created = PATHS.reduce((n, p) => n + metrics.created[p], 0)
  const settled = PATHS.reduce((n, p) => n + metrics.settled[p], 0)
  const populations = [...metrics.byPopulation]
  // The totals over assets are in the valuation's unit (USD with the scenario's prices, otherwise tokens as they are).
  const valuation = metrics.valuation
  const overall = metrics.netting.overall
  const byLane = Object.fromEntries(
    [...metrics.netting.byLane].map(([lane, totals]: [string, WeightedTotalsView]) => [lane, { ratio: ratioOf(totals.nettedVolume, totals.totalVolume), totalVolume: valuation.format(totals.totalVolume) }]),
  )
  // In the scenario's order of assets (as intents.byTicker), not the order they first netted.
  const nettingTotals = metrics.netting.byTicker
  const nettingByTicker = Object.fromEntries(
    [...new Set([...metrics.byTicker.keys(), ...nettingTotals.keys()])]
      .filter((ticker) => nettingTotals.has(ticker))
      .map((ticker) => {
        const t = nettingTotals.get(ticker)!
        const lanes = Object.fromEntries([...metrics.netting.lanesOf(ticker)].map(([lane, l]) => [lane, { ratio: ratioOf(l.nettedVolume18, l.totalVolume18), totalVolume: formatTokens18(l.totalVolume18) }]))
        return [ticker, { ratio: ratioOf(t.nettedVolume18, t.totalVolume18), nettedVolume: formatTokens18(t.nettedVolume18), totalVolume: formatTokens18(t.totalVolume18), byLane: lanes }]
      }),
  )
  const bySource = Object.fromEntries(Object.entries(overall.bySource).map(([k, v]) => [k, valuation.format(v)]))
  const discount = metrics.discountTotals()
  // Basis points to six decimals, truncated, as every ratio (`bpsOf`, `ratioOf`) and every epoch's.
  const paidBps = discount.settled === 0n ? 0 : bpsOf(discount.paid, discount.settled)
  return {
    intents: {
      created,
      settled,
      byPath,
      byPopulation: Object.fromEntries(populations.map(([name, p]) => [name, { created: p.created, settled: p.settled }])),
      byTicker: Object.fromEntries([...metrics.byTicker].map(([symbol, c]) => [symbol, { created: c.created, settled: c.settled }])),
    },
    netting: {
      ratio: ratioOf(overall.nettedVolume, overall.totalVolume),
      nettedVolume: valuation.format(overall.nettedVolume),
      totalVolume: valuation.format(overall.totalVolume),
      unit: valuation.unit,
      bySource,
      byLane,
      byTicker: nettingByTicker,
    },
    discounts: {
      paid: valuation.format(discount.paid),
      paidBps,
      settledVolume: valuation.format(discount.settled),
      unit: valuation.unit,
      invoicesCreated: metrics.invoicesCreated,
      invoicesSettled: metrics.invoicesSettled,
      paidBpsOfInvoices: discount.invoiced === 0n ? 0 : bpsOf(discount.paid, discount.invoiced),
      invoicedVolume: valuation.format(discount.invoiced),
      byTicker: Object.fromEntries(
        [...metrics.discountByTicker].map(([symbol, d]) => [
          symbol,
          { paid: formatTokens18(d.paid18), invoicedVolume: formatTokens18(d.invoiced18), paidBpsOfInvoices: d.invoiced18 === 0n ? 0 : bpsOf(d.paid18, d.invoiced18), invoicesSettled: d.invoices },
        ]),
      ),
      perInvoiceBps: summary(metrics.discountBps.percentiles(), toMicroBps),
    },
    latency: {
      ...summary(metrics.allUserLatency.percentiles()),
      byPath: Object.fromEntries(PATHS.map((p) => [p, summary(metrics.userLatency.get(p)!.percentiles())])) as Record<IntentPath, LatencySummary>,
      byPopulation: Object.fromEntries(populations.map(([name, p]) => [name, summary(p.user.percentiles())])),
      settlement: {
        ...summary(metrics.allSettlementLatency.percentiles()),
        byPath: Object.fromEntries(PATHS.map((p) => [p, summary(metrics.settlementLatency.get(p)!.percentiles())])) as Record<IntentPath, LatencySummary>,
        byPopulation: Object.fromEntries(populations.map(([name, p]) => [name, summary(p.settlement.percentiles())])),
      },
    },
  }
}

const cell = (v: number | null): string => (v === null ? "–" : String(v))

/**
 * A latency as `clearsim run`'s summary shows it: seconds to the millisecond, trailing zeros dropped ("497.44s",
 * "128s", "0.001s"; "–" for no value): the value report.json, report.md, the property lines and `check`'s diffs give,
 * so that `p99 497.44s` is never shown beside `p99LatencySeconds <= 497` failing with 497.44, as a rounded "497s" was.
 */
export const latencyText = (seconds: number | null | undefined): string => (seconds === null || seconds === undefined ? "–" : `${toMilliseconds(seconds)}s`)

/**
 * Text from a scenario file as Markdown shows it literally (a description is text, not markup): HTML's `<`, `>` and
 * `&` as entities; the characters of emphasis, strikethrough, code, links and tables escaped; each line's indentation
 * dropped (it would make code) and what would start a heading, a list, a quote or a rule at a line's start escaped.
 */
export const markdownText = (text: string): string =>
  text
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replace(/[\\`*_~[\]|]/g, (c) => `\\${c}`)
    .replace(/^[ \t]+/gm, "")
    .replace(/^([#+=-])/gm, "\\$1")
    .replace(/^(\d+)([.)])/gm, "$1\\$2")

/**
 * The epoch a failing property has failed since (`firstFailingEpoch`: the first of the failing stretch that lasted
 * to the end of the run), as shown to people under "failing since epoch": for a latency, the epochs' own samples
 * failed it from there on (the per-epoch figures are each epoch's, not the run's so far), which the text says.
 */
export const firstFailingEpochText = (p: Pick<PropertyResult, "name" | "firstFailingEpoch">): string => {
  if (p.firstFailingEpoch === undefined) return "–"
  // The per-epoch latency metrics: `p99LatencySeconds`, `latency.p99`, `p99SettlementLatencySeconds`, `latency.settlement.p99`.
  const metric = /^\s*([A-Za-z][A-Za-z0-9._-]*)/.exec(p.name)?.[1] ?? ""
  const ownLatencies = /^(p50|p90|p99|max)(Settlement)?LatencySeconds$/.test(metric) || /^latency\.(settlement\.)?(p50|p90|p99|max)$/.test(metric)
  return ownLatencies ? `${p.firstFailingEpoch} (each epoch's own latencies)` : String(p.firstFailingEpoch)
}

/**
 * A ratio of report.json (6 decimals, truncated) shown to 4 decimals, truncated as well: what is shown never
 * overstates the value properties are judged on (0.699988 is 0.6999, where rounding showed 0.7000 beside a failing
 * `nettingRatio >= 0.7`). From the ratio's 6-decimal integer, so no binary product moves a digit.
 */
export const ratio4Text = (ratio: number): string => (Math.floor(Math.round(ratio * 1e6) / 100) / 1e4).toFixed(4)

/** The netting ratio as shown to people: "–" when no user volume was settled out of custody (0 of 0). */
export const nettingRatioText = (r: Pick<RunReport, "netting">): string => (r.netting.totalVolume === "0" ? "–" : ratio4Text(r.netting.ratio))

/**
 * The discount in bps of the volume the hub settled as shown to people: "–" when it settled none (0 of 0, which
 * report.json gives as `paidBps` 0 and properties, baselines and runs.json as no value), as the netting ratio's.
 */
export const discountBpsText = (r: Pick<RunReport, "discounts">): string => (r.discounts.settledVolume === "0" ? "–" : String(r.discounts.paidBps))

export const renderMarkdown = (r: RunReport): string => {
  const lines: string[] = []
  lines.push(`# ${r.scenario.name}: ${verdictText(r)}`, "")
  if (r.scenario.description !== undefined) lines.push(markdownText(r.scenario.description), "")
  lines.push(`seed ${r.seed}, run ${r.run}, backend ${r.backend}, clearsim ${r.version}, trace hash \`${r.traceHash}\``, "")
  lines.push("## Properties", "", "| property | result | value | failing since epoch |", "|---|---|---|---|")
  for (const p of r.properties) lines.push(`| \`${p.name}\` | ${p.pass ? "pass" : `**fail**${p.reason === undefined ? "" : `: ${p.reason}`}`} | ${p.value === undefined ? "–" : Number.isInteger(p.value) ? p.value : Number(p.value.toFixed(6))} | ${firstFailingEpochText(p)} |`)
  if (r.properties.length === 0) lines.push("| (none) | | | |")
  lines.push("", "## Metrics", "")
  lines.push(`- horizon ${r.horizonSeconds} s, epochs ${r.epochs.first}–${r.epochs.last} (${r.epochs.count})`)
  const agentIntents = agentIntentCounts(r)
  lines.push(
    `- users' intents created ${r.intents.created}, settled ${r.intents.settled}${agentIntents === undefined ? "" : `; the agents' own (not in these figures) created ${agentIntents.created}, settled ${agentIntents.settled}`}`,
  )
  const tickers = Object.entries(r.intents.byTicker ?? {}).filter(([, c]) => c.created > 0)
  if (tickers.length > 1) {
    const ratioText = (symbol: string) => {
      const n = r.netting.byTicker?.[symbol]
      return n === undefined || n.totalVolume === "0" ? "" : `, netting ratio ${ratio4Text(n.ratio)}`
    }
    const amounts = r.netting.unit === "USD" ? "the amounts below are in USD, each asset's tokens at its priceUsd" : "the token amounts below add the assets' tokens as they are"
    lines.push(`- by asset: ${tickers.map(([symbol, c]) => `${markdownText(symbol)} ${c.created} created, ${c.settled} settled${ratioText(symbol)}`).join("; ")} (${amounts})`)
  }
  const nettingUnit = r.netting.unit
  lines.push(`- netting ratio **${nettingRatioText(r)}** (${totalText(r.netting.nettedVolume, nettingUnit)} netted of the ${totalText(r.netting.totalVolume, nettingUnit)} of user volume settled from custody)`)
  const discountUnit = r.discounts.unit
  lines.push(
    `- discount paid ${totalText(r.discounts.paid, discountUnit)} (${discountBpsText(r)} bps of the ${totalText(r.discounts.settledVolume, discountUnit)} the hub settled${r.discounts.invoicedVolume === undefined || r.discounts.invoicedVolume === "0" ? "" : `; ${r.discounts.paidBpsOfInvoices} bps of the ${totalText(r.discounts.invoicedVolume, discountUnit)} of the invoices it was taken from`}); invoices: ${r.discounts.invoicesCreated} created, ${r.discounts.invoicesSettled} settled`,
  )
  const discounted = Object.entries(r.discounts.byTicker ?? {}).filter(([, d]) => d.invoicesSettled > 0)
  if (discounted.length > 1) {
    lines.push(`- discount by asset: ${discounted.map(([symbol, d]) => `${markdownText(symbol)} ${tokensText(d.paid)} tokens, ${d.paidBpsOfInvoices} bps of ${d.invoicesSettled} invoices`).join("; ")}`)
  }
  lines.push(
    "",
    `${HEADLINE_INTENTS_TEXT} User latency: creation to the receiver paid (a fill, a settlement, or the mint of an xERC20 debt), over the intents whose receiver was paid (\`paid\`); settlement latency: creation to the settlement on the destination.`,
    "",
    "| path | created | settled | paid | user p50 s | p90 | p99 | max | settlement p50 s | p99 |",
    "|---|---|---|---|---|---|---|---|---|---|",
  )
  for (const p of PATHS) {
    const u = r.latency.byPath[p]
    const s = r.latency.settlement.byPath[p]
    lines.push(`| ${p} | ${r.intents.byPath[p].created} | ${r.intents.byPath[p].settled} | ${u.count} | ${cell(u.p50)} | ${cell(u.p90)} | ${cell(u.p99)} | ${cell(u.max)} | ${cell(s.p50)} | ${cell(s.p99)} |`)
  }
  lines.push(`| all | ${r.intents.created} | ${r.intents.settled} | ${r.latency.count} | ${cell(r.latency.p50)} | ${cell(r.latency.p90)} | ${cell(r.latency.p99)} | ${cell(r.latency.max)} | ${cell(r.latency.settlement.p50)} | ${cell(r.latency.settlement.p99)} |`)
  const byPopulation = populationLatencyRows(r)
  if (byPopulation.length > 0) {
    lines.push("", "The same by agent population (properties: `population.<name>.latency.p99`, ...):", "", "| population | created | settled | paid | user p50 s | p90 | p99 | max | settlement p50 s | p99 |", "|---|---|---|---|---|---|---|---|---|---|")
    for (const p of byPopulation) lines.push(`| ${markdownText(p.label)} | ${p.created} | ${p.settled} | ${p.user.count} | ${cell(p.user.p50)} | ${cell(p.user.p90)} | ${cell(p.user.p99)} | ${cell(p.user.max)} | ${cell(p.settlement.p50)} | ${cell(p.settlement.p99)} |`)
  }
  if (r.agents.length > 0) {
    lines.push("", "## Agents", "", "Rejections: actions not done, with why. Sent another way: a fast intent sent as basic when the fast path was refused, an intent sent over the route's limit (it is invoiced). Holdings change: wallets and spoke balances, end minus start; in flight: sent, not yet received.", "")
    lines.push("| population | kind | agents | actions | rejections (not done) | sent another way | holdings change (tokens) | in flight (tokens) |", "|---|---|---|---|---|---|---|---|")
    const fmt = (o: Record<string, number>) => Object.entries(o).map(([k, v]) => `${k} ${Math.round(v * 1e6) / 1e6}`).join(", ") || "–"
    for (const a of r.agents) lines.push(`| ${markdownText(a.population)} | ${a.kind} | ${a.agents} | ${fmt(a.actions)} | ${fmt(a.rejections)} | ${fmt(a.fallbacks)} | ${fmt(a.pnl)} | ${fmt(a.inFlight)} |`)
  }
  lines.push("", "## Run", "")
  for (const line of runSummary(r)) lines.push(`- ${line}`)
  lines.push(`- wall time ${r.wallSeconds.toFixed(1)} s on Node ${r.runtime.node} (V8 ${r.runtime.v8})`)
  return `${lines.join("\n")}\n`
}

/**
 * The latency table's rows by agent population that sent intents (a solver that never rebalanced has none; it is
 * still in report.json). None in reports of older versions. `users` is false for the agents' own intents
 * (arbitrageurs' purchases, solvers' rebalancing), which the headline figures leave out.
 */
export const populationLatencyRows = (
  r: Pick<RunReport, "intents" | "latency"> & { readonly agents?: RunReport["agents"] },
): {
  readonly name: string
  readonly label: string
  readonly users: boolean
  readonly created: number
  readonly settled: number
  readonly user: LatencySummary
  readonly settlement: LatencySummary
}[] =>
  Object.entries(r.intents.byPopulation ?? {}).filter(([, counts]) => counts.created > 0).map(([name, counts]) => {
    // Agents other than users are named with their kind: an arbitrageur's purchases are not users' intents (and a
    // solver population called "fast" is not the fast path).
    const kind = r.agents?.find((a) => a.population === name)?.kind
    const users = kind === undefined || kind === "rebalancer"
    return {
      name,
      label: users ? name : `${name} (${kind})`,
      users,
      ...counts,
      user: r.latency.byPopulation?.[name] ?? summary(undefined),
      settlement: r.latency.settlement.byPopulation?.[name] ?? summary(undefined),
    }
  })

/** The agents' own intents, counted in their populations only: undefined when they sent none. */
export const agentIntentCounts = (r: Pick<RunReport, "intents" | "latency"> & { readonly agents?: RunReport["agents"] }): { readonly created: number; readonly settled: number } | undefined => {
  const agents = populationLatencyRows(r).filter((p) => !p.users)
  return agents.length === 0 ? undefined : { created: agents.reduce((n, p) => n + p.created, 0), settled: agents.reduce((n, p) => n + p.settled, 0) }
}

/** ` (agents' own: N created, M settled)` after the users' counts on one line, or nothing when agents sent no intent. */
export const agentIntentsSuffix = (r: Parameters<typeof agentIntentCounts>[0]): string => {
  const agents = agentIntentCounts(r)
  return agents === undefined ? "" : ` (agents' own: ${agents.created} created, ${agents.settled} settled)`
}

/** How report.md and report.html say which intents the headline figures count. */
export const HEADLINE_INTENTS_TEXT =
  "Users' intents: the rebalancer populations' and those of senders no population owns; the agents' own (arbitrageurs' purchases, solvers' rebalancing) are in the table by population only."

/** The run's counters as text lines (report.md's and report.html's "Run" lists): hub, keepers, spokes, transport, coverage. */
export const runSummary = (r: RunReport): string[] => {
  const byError = (o: Readonly<Record<string, number>> | undefined) => {
    const entries = Object.entries(o ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return entries.length === 0 ? "" : ` (${entries.map(([k, v]) => `${k} ${v}`).join(", ")})`
  }
  const k = r.keepers
  const t = r.transport
  return [
    `hub: ${r.hubInputs} inputs, ${r.hubEvents} events, ${r.world.hubReverts} reverted calls${byError(r.world.hubRevertsByError)}, ${r.world.conservationChecks} conservation checks`,
    `keepers: ${k.intentDispatches} intent, ${k.fillDispatches} fill and ${k.settlementDispatches} settlement dispatches, ${k.processCalls} processDepositsAndInvoices, ${k.expiredHandled} expired intents handled, ${k.debtMints} debt mints, ${k.reverts} reverted${byError(k.revertsByError)}`,
    `spokes: ${r.world.spokeBlocks} blocks, ${r.world.spokeCalls} calls, ${r.world.spokeReverts} reverted${byError(r.world.spokeRevertsByError)}`,
    `transport: ${t.sent} messages, ${t.dropped} dropped, ${t.duplicated} duplicated (of which ${r.world.duplicateHubDeliveries} refused by the hub and ${r.world.duplicateSpokeDeliveries} by spoke gateways; any other still in flight or dropped at the end), ${t.reordered} reordered, ${t.heldByOutage} held by outages, ${r.world.refusedHubDeliveries ?? 0} refused by the paused hub and redelivered`,
    `coverage: ${r.coverage.join(", ") || "–"}`,
  ]
}

/** A value as the CSV writes it: to 15 significant digits (all a double holds exactly), so that float noise (677.6999999999999) reads 677.7. */
export const csvNumber = (value: number): string => (Number.isInteger(value) || !Number.isFinite(value) ? String(value) : String(Number(value.toPrecision(15))))

/** Rows per piece of `timeseriesCsvChunks`. */
const CSV_ROWS_PER_CHUNK = 50_000

/**
 * timeseries.csv in pieces (its header, then at most 50,000 rows each): a run of millions of epochs has more
 * rows than one string holds (the engine's limit is about 512 million characters), so the file is written piece
 * by piece.
 */
export function* timeseriesCsvChunks(rows: SeriesInput): Generator<string> {
  const { run, seed, series } = timeseriesOf(rows)
  yield "run,seed,epoch,metric,value\n"
  // Made once rather than per row: `<metric>,` by metric id, `<run>,<seed>,<epoch>,` of the current epoch, and each
  // metric's last value as text (most values repeat from one epoch to the next: counts, queue depths, custody).
  const metricText = series.metricNames.map((name) => `${name},`)
  const lastValue = new Float64Array(metricText.length).fill(Number.NaN)
  const valueText = new Array<string>(metricText.length).fill("")
  let epochOfPrefix: number | undefined
  let prefix = ""
  for (let start = 0; start < series.length; start += CSV_ROWS_PER_CHUNK) {
    let text = ""
    series.scan(start, start + CSV_ROWS_PER_CHUNK, (epoch, id, value) => {
      if (epoch !== epochOfPrefix) {
        epochOfPrefix = epoch
        prefix = `${run},${seed},${epoch},`
      }
      // (NaN is never equal to itself: made each time. 0 and -0 are equal, and both written 0.)
      if (value !== lastValue[id]) {
        lastValue[id] = value
        valueText[id] = csvNumber(value)
      }
      text += prefix + metricText[id]! + valueText[id]! + "\n"
    })
    yield text
  }
}

/** timeseries.csv as one string (for small runs and tests; files are written from `timeseriesCsvChunks`). */
export const renderTimeseriesCsv = (rows: SeriesInput): string => [...timeseriesCsvChunks(rows)].join("")

/**
 * Where two runs of the same scenario and seed differ: the report's top-level fields (all but `wallSeconds`, the
 * one measured on the wall clock) whose JSON differs, then `timeseries` when the rows differ. Empty when the runs
 * agree on everything they report. `--check-determinism` prints it beside the two trace hashes.
 */
export const reportDifferences = (a: RunReport, ra: SeriesInput, b: RunReport, rb: SeriesInput): string[] => {
  const fields = new Set([...Object.keys(a), ...Object.keys(b)])
  fields.delete("wallSeconds")
  const differing = [...fields].filter((f) => JSON.stringify(a[f as keyof RunReport]) !== JSON.stringify(b[f as keyof RunReport]))
  if (!sameRows(timeseriesOf(ra), timeseriesOf(rb))) differing.push("timeseries")
  return differing
}

/** Two values alike in JSON (`-0` is `0`, NaN and the infinities are `null`), as rows were compared by their JSON. */
const sameJson = (x: number | string, y: number | string): boolean => x === y || JSON.stringify(x) === JSON.stringify(y)

/** Whether two series have the same rows: the exact values, not the CSV's; row by row, no text of the whole series. */
const sameRows = (ta: Timeseries, tb: Timeseries): boolean => {
  if (ta.length !== tb.length) return false
  if (ta.length === 0) return true
  if (!sameJson(ta.run, tb.run) || !sameJson(ta.seed, tb.seed)) return false
  const rb = tb.series.rows()
  for (const x of ta.series.rows()) {
    const y = rb.next().value!
    if (!sameJson(x.epoch, y.epoch) || x.metric !== y.metric || !sameJson(x.value, y.value)) return false
  }
  return true
}

/** The files `writeReportFiles` writes into a run's directory (a run also writes trace.jsonl there). */
export const REPORT_FILES = ["report.json", "report.md", "report.html", "timeseries.csv"] as const

/** The text of each file `writeReportFiles` writes, by name, each made when it is written (timeseries.csv in pieces). */
export const reportFileTexts = (report: RunReport, timeseries: SeriesInput): Record<(typeof REPORT_FILES)[number], () => string | Iterable<string>> => ({
  "report.json": () => `${JSON.stringify(report, null, 2)}\n`,
  "report.md": () => renderMarkdown(report),
  "report.html": () => renderHtml(report, timeseries),
  "timeseries.csv": () => timeseriesCsvChunks(timeseries),
})

/** Writes report.json, report.md, report.html and timeseries.csv into `dir` (created if needed). */
export const writeReportFiles = (dir: string, report: RunReport, timeseries: SeriesInput): void => {
  makeDirectories(dir)
  const text = reportFileTexts(report, timeseries)
  for (const name of REPORT_FILES) writeTextFile(join(dir, name), text[name]())
}
