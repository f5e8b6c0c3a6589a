/**
 * `report.html`: one self-contained page (no script, no network) with the verdict, the properties, the headline
 * metrics, latency by path, the agents, and SVG line charts of the per-epoch series of `timeseries.csv`
 * (netting, latency percentiles, invoices and deposits, custody, settlement queues, discounts, intents).
 * Scales, ticks and line paths come from d3-scale and d3-shape (strings, no DOM); number formats from d3-format.
 */
import { format } from "d3-format"
import { scaleLinear } from "d3-scale"
import { line } from "d3-shape"
import { PATHS } from "../metrics/collector.ts"
import { type EpochSeries, type MetricColumn, type SeriesInput, timeseriesOf } from "../metrics/timeseries.ts"
import { agentIntentCounts, discountBpsText, firstFailingEpochText, HEADLINE_INTENTS_TEXT, type LatencySummary, nettingRatioText, populationLatencyRows, ratio4Text, type RunReport, runSummary, totalText, verdictText } from "./report.ts"

export type { SeriesRow } from "../metrics/timeseries.ts"

const escapeHtml = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!)

/** Tableau 10: distinguishable colours for up to ten lines per chart (more wrap around). */
const PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"]

/** A line of a chart: its point `i` is (`epochs[i]`, `values[i]`), in the order of the series' rows. */
export interface Line {
  readonly name: string
  readonly epochs: ArrayLike<number>
  readonly values: ArrayLike<number>
}

interface ChartSpec {
  readonly title: string
  readonly unit: string
  /** Metric names of the chart, or a prefix ending in "." that takes every metric under it. */
  readonly metrics: readonly string[]
  /** Legend name of a metric (default: the metric without the chart's prefix). */
  readonly label?: (metric: string) => string
  /**
   * One chart per ticker (the name's first part after the prefix: `custody.<ticker>.<chain>`): amounts of different
   * tokens do not share an axis.
   */
  readonly perTicker?: boolean
  /**
   * The legend's number (default `legendNumber`): the netting ratio's is `ratio4Text`, truncated as the page's
   * headline gives it, since rounding to four significant digits shows 0.699988 as 0.7 (beside a failing
   * `nettingRatio >= 0.7`); the figures the page also gives in its KPIs and tables are written as there: latencies
   * to the millisecond, the discount's bps to six decimals, the counts whole (the last epoch's are report.json's:
   * 2.611011 bps and 10350 intents, not 2.611 and 10.35k). Called inside a function: report.ts imports this
   * module, so its exports are not yet defined when this table is made.
   */
  readonly legendValue?: (value: number) => string
}

const CHARTS: readonly ChartSpec[] = [
  { title: "Netting ratio", unit: "share of user volume settled from custody that other users' intents covered", metrics: ["nettingRatio", "nettingRatioEpoch"], label: (m) => (m === "nettingRatio" ? "cumulative" : "this epoch"), legendValue: (v) => ratio4Text(v) },
  { title: "User latency", unit: "seconds, percentiles of the intents paid in the epoch", metrics: ["p50LatencySeconds", "p90LatencySeconds", "p99LatencySeconds"], label: (m) => m.slice(0, 3), legendValue: (v) => milliseconds(v) },
  {
    title: "Settlement latency",
    unit: "seconds, percentiles of the intents settled in the epoch",
    metrics: ["p50SettlementLatencySeconds", "p90SettlementLatencySeconds", "p99SettlementLatencySeconds"],
    label: (m) => m.slice(0, 3),
    legendValue: (v) => milliseconds(v),
  },
  { title: "Open invoices by ticker", unit: "invoices", metrics: ["invoicesOpen."] },
  { title: "Deposits in the hub's deposit queues, by ticker", unit: "deposits", metrics: ["depositsQueued."] },
  // The hub's DEPOSIT_PROCESSED intents: the initial liquidity's seeds are among them (intents with a ttl that no
  // solver can fill, `sim/agents/liquidity.ts`), so a run without fast intents still charts them.
  { title: "Fast-path deposits waiting for a fill, by ticker", unit: "deposits, the initial liquidity's included: it waits until it expires", metrics: ["depositsWaiting."] },
  { title: "Hub custody by chain", unit: "tokens", metrics: ["custody."], perTicker: true },
  { title: "Settlement queue depth by chain", unit: "settlements", metrics: ["settlementQueue."] },
  { title: "Spoke intent queue depth by chain", unit: "intents not yet dispatched to the hub", metrics: ["intentQueue."] },
  { title: "Spoke fill queue depth by chain", unit: "fills not yet dispatched to the hub", metrics: ["fillQueue."] },
  { title: "Discount paid", unit: "bps of settled volume, cumulative", metrics: ["discountPaidBps"], label: () => "discount", legendValue: (v) => String(v) },
  {
    title: "Intents",
    unit: "cumulative",
    metrics: ["intentsCreated", "intentsSettled", "invoicesCreated", "invoicesSettled"],
    label: (m) => ({ intentsCreated: "users' intents created", intentsSettled: "users' intents settled", invoicesCreated: "invoices created", invoicesSettled: "invoices settled" })[m] ?? m,
    legendValue: (v) => String(v),
  },
]

/**
 * The metrics of a chart in a run's series, in the order they first appear (a prefix's metrics) or in the chart's
 * order: matched by name once each, not per row.
 */
const metricsOf = (spec: ChartSpec, series: EpochSeries): string[] => {
  const matching = series.metricNames.filter((metric) => spec.metrics.some((m) => (m.endsWith(".") ? metric.startsWith(m) : metric === m)))
  return spec.metrics.some((m) => m.endsWith(".")) ? matching : spec.metrics.filter((m) => matching.includes(m))
}

/**
 * The lines of a chart, from the columns of every chart's metrics (`EpochSeries.columns`, gathered in one pass over
 * the rows for all the charts: no object per point, and one pass instead of one per chart).
 */
const linesOf = (spec: ChartSpec, metrics: readonly string[], columns: ReadonlyMap<string, MetricColumn>): Line[] => {
  const prefix = spec.metrics.length === 1 && spec.metrics[0]!.endsWith(".") ? spec.metrics[0]! : ""
  return metrics.map((metric) => {
    const { epochs, values } = columns.get(metric)!
    return { name: spec.label?.(metric) ?? metric.slice(prefix.length), epochs, values }
  })
}

const WIDTH = 560
const HEIGHT = 220
const MARGIN = { top: 12, right: 16, bottom: 34, left: 64 }

/** Tick labels: SI prefixes from a thousand up (2k, 1.5M), plain numbers below (0.25, 40). */
const siNumber = format("~s")
const plainNumber = format("~g")
const axisNumber = (v: number): string => (Math.abs(v) >= 1000 ? siNumber(v) : plainNumber(v))
const epochNumber = format("d")

/**
 * One line chart as inline SVG: x = epoch (over `epochs`, the run's, so that every chart of a page has the same x
 * axis; by default the data's), y from 0 (or the data's minimum when negative). A line breaks where its series
 * skips epochs (a latency percentile of an epoch without samples) instead of joining across them; a series of
 * whole numbers (counts) gets whole-number ticks only.
 */
export const lineChartSvg = (lines: readonly Line[], unit: string, epochs?: { readonly first: number; readonly last: number }): string => {
  // Bounds by a loop, not Math.max(...values): a chart of more than about 125,000 points (4 chains' queues over
  // 43,200 one-second epochs) would overflow the call stack with its arguments, and the run would write no report.
  let xMin = Number.POSITIVE_INFINITY
  let xMax = Number.NEGATIVE_INFINITY
  let yMax = Number.NEGATIVE_INFINITY
  let yMin = 0
  let counts = true
  for (const l of lines) {
    for (let i = 0; i < l.epochs.length; i++) {
      const px = l.epochs[i]!
      const py = l.values[i]!
      if (px < xMin) xMin = px
      if (px > xMax) xMax = px
      if (py > yMax) yMax = py
      if (py < yMin) yMin = py
      if (counts && !Number.isInteger(py)) counts = false
    }
  }
  const first = epochs?.first ?? xMin
  const last = Math.max(epochs?.last ?? xMax, first + 1)
  const x = scaleLinear().domain([first, last]).range([MARGIN.left, WIDTH - MARGIN.right])
  const y = scaleLinear()
    .domain([yMin, yMax > yMin ? yMax : yMin + 1])
    .nice()
    .range([HEIGHT - MARGIN.bottom, MARGIN.top])
  /** The path of a line's points by index (`withGaps`: -1 is a gap); a point without a finite value is one too. */
  const pathOf = (l: Line, indexes: readonly number[]): string | null =>
    line<number>()
      .defined((i) => i >= 0 && Number.isFinite(l.values[i]!))
      .x((i) => x(l.epochs[i]!))
      .y((i) => y(l.values[i]!))(indexes)
  /**
   * The indexes of the points to draw: a gap (-1, an undefined point) wherever epochs are skipped, and each run of
   * consecutive epochs longer than the plot has room for thinned to its first, lowest, highest and last point per
   * pixel column, which draws the same line (a run of 43,200 one-second epochs would otherwise make a path of
   * 43,200 points per series).
   */
  const withGaps = (l: Line): number[] => {
    const out: number[] = []
    const epochs = l.epochs
    let start = 0
    for (let i = 1; i <= epochs.length; i++) {
      if (i < epochs.length && epochs[i] === epochs[i - 1]! + 1) continue
      if (start > 0) out.push(-1)
      thinned(l, start, i, (epoch) => x(epoch), out)
      start = i
    }
    return out
  }
  const parts: string[] = []
  parts.push(`<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${escapeHtml(unit)}">`)
  for (const t of y.ticks(5).filter((t) => !counts || Number.isInteger(t))) {
    const ty = y(t).toFixed(1)
    parts.push(`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${ty}" y2="${ty}" class="grid"/>`)
    parts.push(`<text x="${MARGIN.left - 6}" y="${ty}" class="tick" text-anchor="end" dominant-baseline="middle">${escapeHtml(axisNumber(t))}</text>`)
  }
  for (const t of x.ticks(6).filter(Number.isInteger)) {
    const tx = x(t).toFixed(1)
    parts.push(`<line x1="${tx}" x2="${tx}" y1="${HEIGHT - MARGIN.bottom}" y2="${HEIGHT - MARGIN.bottom + 4}" class="axis"/>`)
    // A label near the right edge ends at its tick rather than centring on it (it would be cut off).
    const anchor = x(t) > WIDTH - MARGIN.right - 24 ? "end" : "middle"
    parts.push(`<text x="${tx}" y="${HEIGHT - MARGIN.bottom + 16}" class="tick" text-anchor="${anchor}">${epochNumber(t)}</text>`)
  }
  parts.push(`<line x1="${MARGIN.left}" x2="${WIDTH - MARGIN.right}" y1="${HEIGHT - MARGIN.bottom}" y2="${HEIGHT - MARGIN.bottom}" class="axis"/>`)
  parts.push(`<text x="${(MARGIN.left + WIDTH - MARGIN.right) / 2}" y="${HEIGHT - 4}" class="tick" text-anchor="middle">epoch</text>`)
  lines.forEach((l, i) => {
    const colour = PALETTE[i % PALETTE.length]!
    parts.push(`<path d="${pathOf(l, withGaps(l)) ?? ""}" fill="none" stroke="${colour}" stroke-width="1.6" stroke-linecap="round" stroke-linejoin="round"><title>${escapeHtml(l.name)}</title></path>`)
    // A point with no neighbouring epoch (a line of one point) is drawn as a marker: as a path it would be a dot
    // the width of the stroke.
    const { epochs, values } = l
    for (let j = 0; j < epochs.length; j++) {
      const epoch = epochs[j]!
      const alone = (j === 0 || epochs[j - 1] !== epoch - 1) && (j === epochs.length - 1 || epochs[j + 1] !== epoch + 1)
      if (alone && Number.isFinite(values[j])) parts.push(`<circle cx="${x(epoch).toFixed(1)}" cy="${y(values[j]!).toFixed(1)}" r="2.5" fill="${colour}"><title>${escapeHtml(l.name)}: epoch ${epoch}</title></circle>`)
    }
  })
  parts.push("</svg>")
  return parts.join("")
}

/** Points per pixel column past which a run of a line's points is thinned (`thinned`). */
const POINTS_PER_COLUMN = 4

/**
 * Appends the indexes of the line's points `[from, to)` (consecutive epochs) to `out`, thinned when they are more
 * than the plot's columns can show (`POINTS_PER_COLUMN` per column of `WIDTH`): per pixel column (`px` of the
 * epoch, floored), its first, lowest, highest and last point, in epoch order (M4 aggregation: the line drawn is
 * the same to the pixel).
 */
const thinned = (l: Line, from: number, to: number, px: (epoch: number) => number, out: number[]): void => {
  if (to - from <= POINTS_PER_COLUMN * WIDTH) {
    for (let i = from; i < to; i++) out.push(i)
    return
  }
  const { epochs, values } = l
  let column = Math.floor(px(epochs[from]!))
  let first = from
  let low = from
  let high = from
  // The column's points once each, in index order: `first` comes before `low` and `high`, `last` after them.
  const flush = (last: number) => {
    out.push(first)
    const a = Math.min(low, high)
    const b = Math.max(low, high)
    if (a !== first && a !== last) out.push(a)
    if (b !== a && b !== first && b !== last) out.push(b)
    if (last !== first) out.push(last)
  }
  for (let i = from + 1; i < to; i++) {
    const c = Math.floor(px(epochs[i]!))
    if (c !== column) {
      flush(i - 1)
      column = c
      first = low = high = i
      continue
    }
    if (values[i]! < values[low]!) low = i
    if (values[i]! > values[high]!) high = i
  }
  flush(to - 1)
}

/** Whether every value is 0. */
const allZero = (values: ArrayLike<number>): boolean => {
  for (let i = 0; i < values.length; i++) if (values[i] !== 0) return false
  return true
}

/** Legend values as the axes write them: SI prefixes from ten thousand up (16.11k), else up to four significant digits. */
const legendNumber = (v: number): string => (Math.abs(v) >= 10_000 ? format(".4~s")(v) : format(",.4~g")(v))
const agentNumber = format(",.6~f")

/**
 * The lines' colours and names, each with its value in the last epoch it has, named when it is older than the chart's
 * latest (a series that stopped earlier than the others; per-epoch figures all end before the run's last epoch).
 */
const legend = (lines: readonly Line[], valueText: (value: number) => string = legendNumber): string => {
  const lastOf = (l: Line): readonly [epoch: number, value: number] | undefined => {
    const n = l.epochs.length
    return n === 0 ? undefined : [l.epochs[n - 1]!, l.values[n - 1]!]
  }
  const lastEpoch = Math.max(...lines.map((l) => lastOf(l)?.[0] ?? Number.NEGATIVE_INFINITY))
  return `<ul class="legend"><li class="muted">last epoch:</li>${lines
    .map((l, i) => {
      const last = lastOf(l)
      const when = last === undefined || last[0] === lastEpoch ? "" : ` (epoch ${last[0]})`
      const value = last === undefined ? "" : ` <span class="muted">${escapeHtml(valueText(last[1]))}${when}</span>`
      return `<li><span class="swatch" style="background:${PALETTE[i % PALETTE.length]}"></span>${escapeHtml(l.name)}${value}</li>`
    })
    .join("")}</ul>`
}

/**
 * A latency in seconds as report.json and report.md give it, to the millisecond (six significant digits made
 * 1234.567 s read 1,234.57 and 1,234,567.5 s 1.23457e+6), thousands grouped as the page's token amounts are, whole
 * seconds too (1,502 beside 1,234.5 in one column).
 */
const milliseconds = format(",.3~f")
const cell = (v: number | null | undefined): string => (v === null || v === undefined ? "–" : escapeHtml(milliseconds(v)))

const latencyRow = (name: string, created: number, settled: number, u: LatencySummary, s: LatencySummary): string =>
  `<tr><td>${escapeHtml(name)}</td><td>${created}</td><td>${settled}</td><td>${u.count}</td><td>${cell(u.p50)}</td><td>${cell(u.p90)}</td><td>${cell(u.p99)}</td><td>${cell(u.max)}</td><td>${cell(s.p50)}</td><td>${cell(s.p99)}</td></tr>`

const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px auto;max-width:1180px;padding:0 16px;color:#1d2330}
h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px}code{font-size:12px}
.pass{color:#2e7d32}.fail{color:#c62828}.muted{color:#69707d}
table{border-collapse:collapse;margin:4px 0 8px}td,th{border-bottom:1px solid #e3e6eb;padding:4px 10px;text-align:right}td:first-child,th:first-child{text-align:left}
.kpis{display:flex;flex-wrap:wrap;gap:12px;margin:12px 0}.kpi{border:1px solid #e3e6eb;border-radius:6px;padding:8px 14px;min-width:150px}
.kpi b{display:block;font-size:20px}.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:18px}
figure{margin:0}figcaption{font-weight:600}figcaption span{font-weight:400}
svg .grid{stroke:#eef0f3}svg .axis{stroke:#9aa1ac}svg .tick{font-size:10px;fill:#69707d}
.legend{list-style:none;padding:0;margin:2px 0 0;display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:5px}
`

/** The whole page for one run; `rows` are that run's time series (timeseries.csv's rows). */
export const renderHtml = (r: RunReport, rows: SeriesInput): string => {
  const series = timeseriesOf(rows).series
  const out: string[] = []
  const verdict = r.live !== undefined ? `<span class="muted">${escapeHtml(verdictText(r))}</span>` : r.passed ? `<span class="pass">PASS</span>` : `<span class="fail">FAIL</span>`
  out.push(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">`)
  out.push(`<title>${escapeHtml(r.scenario.name)}: ${escapeHtml(r.live !== undefined ? "live session" : verdictText(r))} · clearsim</title><style>${STYLE}</style></head><body>`)
  out.push(`<h1>${escapeHtml(r.scenario.name)}: ${verdict}</h1>`)
  if (r.scenario.description !== undefined) out.push(`<p>${escapeHtml(r.scenario.description)}</p>`)
  out.push(
    `<p class="muted">seed ${r.seed}, run ${r.run}, backend ${escapeHtml(r.backend)}, clearsim ${escapeHtml(r.version)}, ${r.epochs.count} ${r.epochs.count === 1 ? "epoch" : "epochs"} (${r.epochs.first}–${r.epochs.last}), ${r.horizonSeconds} s of virtual time in ${r.wallSeconds.toFixed(1)} s; trace hash <code>${escapeHtml(r.traceHash)}</code></p>`,
  )
  /**
   * `part of whole (share)`, the share a dash when there is no whole. The percentage is truncated, as the page's
   * ratios are: 9,999 of 10,000 is 99.9 %, not the 100.0 % rounding gave beside a failing `settledShare >= 1`.
   */
  const ofTotal = (part: number, whole: number): string => `${part} of ${whole} (${whole === 0 ? "–" : `${(Math.floor((part * 1000) / whole) / 10).toFixed(1)}%`})`
  const sendingAssets = Object.entries(r.intents.byTicker ?? {}).filter(([, c]) => c.created > 0)
  const agentIntents = agentIntentCounts(r)
  const kpis: [string, string][] = [
    // Over the assets by value when the scenario prices them (each asset's tokens at its priceUsd).
    [r.netting.unit === "USD" ? "netting ratio (by USD value)" : "netting ratio", nettingRatioText(r)],
    // Four decimals, or six significant digits below one token (a tiny discount is not "0 tokens"); USD with prices.
    ["discount paid", totalText(r.discounts.paid, r.discounts.unit)],
    ["discount, bps of settled volume", discountBpsText(r)],
    ...(r.discounts.invoicedVolume === undefined || r.discounts.invoicedVolume === "0" ? [] : [["discount, bps of invoices", String(r.discounts.paidBpsOfInvoices)] as [string, string]]),
    // A dash alone when no intent was paid or settled: "– s" reads as a unit of nothing.
    ["user latency p50 / p99 (paid)", r.latency.p50 === null || r.latency.p99 === null ? "–" : `${cell(r.latency.p50)} / ${cell(r.latency.p99)} s`],
    ["settlement latency p99", r.latency.settlement.p99 === null ? "–" : `${cell(r.latency.settlement.p99)} s`],
    ["users' intents settled", ofTotal(r.intents.settled, r.intents.created)],
    // With several assets, each one's share: a lane stuck on one asset hides in the total.
    ...(sendingAssets.length > 1 ? sendingAssets.map(([symbol, c]): [string, string] => [`${symbol} intents settled`, ofTotal(c.settled, c.created)]) : []),
    ["receivers paid", ofTotal(r.latency.count, r.intents.created)],
    ...(agentIntents === undefined ? [] : [["agents' own intents settled", ofTotal(agentIntents.settled, agentIntents.created)] as [string, string]]),
  ]
  out.push(`<div class="kpis">${kpis.map(([k, v]) => `<div class="kpi"><span class="muted">${escapeHtml(k)}</span><b>${escapeHtml(v)}</b></div>`).join("")}</div>`)
  out.push(`<h2>Properties</h2><table><tr><th>property</th><th>result</th><th>value</th><th>failing since epoch</th></tr>`)
  for (const p of r.properties) {
    const result = p.pass ? `<span class="pass">pass</span>` : `<span class="fail">fail</span>${p.reason === undefined ? "" : `: ${escapeHtml(p.reason)}`}`
    // The value to six decimals, as the metrics show it (a property on discountPaidBps reads 2.706772, not 2.70677).
    const value = p.value === undefined ? "–" : escapeHtml(String(Number.isInteger(p.value) ? p.value : Number(p.value.toFixed(6))))
    out.push(`<tr><td><code>${escapeHtml(p.name)}</code></td><td>${result}</td><td>${value}</td><td>${escapeHtml(firstFailingEpochText(p))}</td></tr>`)
  }
  if (r.properties.length === 0) out.push(`<tr><td colspan="4" class="muted">none</td></tr>`)
  out.push(`</table>`)
  out.push(
    `<h2>Latency by path</h2><p class="muted">${escapeHtml(HEADLINE_INTENTS_TEXT)} User latency: creation to the receiver paid (a fill, a settlement, or the mint of an xERC20 debt), over the intents whose receiver was paid ("paid"); settlement latency: creation to the settlement on the destination.</p>`,
  )
  out.push(`<table><tr><th>path</th><th>created</th><th>settled</th><th>paid</th><th>user p50 s</th><th>p90</th><th>p99</th><th>max</th><th>settlement p50 s</th><th>p99</th></tr>`)
  for (const p of PATHS) out.push(latencyRow(p, r.intents.byPath[p].created, r.intents.byPath[p].settled, r.latency.byPath[p], r.latency.settlement.byPath[p]))
  out.push(latencyRow("all", r.intents.created, r.intents.settled, r.latency, r.latency.settlement), `</table>`)
  const byPopulation = populationLatencyRows(r)
  if (byPopulation.length > 0) {
    out.push(`<p class="muted">The same by agent population (properties: <code>population.&lt;name&gt;.latency.p99</code>, ...):</p>`)
    out.push(`<table><tr><th>population</th><th>created</th><th>settled</th><th>paid</th><th>user p50 s</th><th>p90</th><th>p99</th><th>max</th><th>settlement p50 s</th><th>p99</th></tr>`)
    for (const p of byPopulation) out.push(latencyRow(p.label, p.created, p.settled, p.user, p.settlement))
    out.push(`</table>`)
  }
  out.push(`<h2>Per epoch</h2><div class="charts">`)
  const figure = (title: string, unit: string, lines: readonly Line[], legendValue?: (value: number) => string): string => {
    const caption = `<figcaption>${escapeHtml(title)} <span class="muted">(${escapeHtml(unit)})</span></figcaption>`
    // A chart whose every value is 0 (no fast intents, no discount) says so in a line instead.
    const body = lines.every((l) => allZero(l.values))
      ? `<p class="muted">0 in every epoch of this run (${lines.map((l) => escapeHtml(l.name)).join(", ")}).</p>`
      : `${lineChartSvg(lines, unit, r.epochs)}${legend(lines, legendValue)}`
    return `<figure>${caption}${body}</figure>`
  }
  const chartMetrics = CHARTS.map((spec) => metricsOf(spec, series))
  const columns = series.columns(chartMetrics.flat())
  for (const [c, spec] of CHARTS.entries()) {
    const lines = linesOf(spec, chartMetrics[c]!, columns)
    if (lines.length === 0) continue
    if (spec.perTicker !== true) {
      out.push(figure(spec.title, spec.unit, lines, spec.legendValue))
      continue
    }
    // Line names are `<ticker>.<chain>` here (a ticker may contain dots, a chain id does not): one chart per
    // ticker, lines named by chain.
    const tickerOf = (name: string): string => name.slice(0, name.lastIndexOf("."))
    const tickers = [...new Set(lines.map((l) => tickerOf(l.name)))]
    for (const ticker of tickers) {
      const own = lines.filter((l) => tickerOf(l.name) === ticker).map((l) => ({ ...l, name: `chain ${l.name.slice(ticker.length + 1)}` }))
      out.push(figure(`${spec.title}, ${ticker}`, `${ticker} tokens`, own))
    }
  }
  out.push(`</div>`)
  // A series without rows says so under the heading rather than leave it empty.
  if (series.length === 0) out.push(`<p class="muted">No per-epoch rows in this run: timeseries.csv has its header only.</p>`)
  if (r.agents.length > 0) {
    const fmt = (o: Record<string, number>) =>
      escapeHtml(
        Object.entries(o)
          .map(([k, v]) => `${k} ${agentNumber(v)}`)
          .join(", ") || "–",
      )
    out.push(`<h2>Agents</h2><table><tr><th>population</th><th>kind</th><th>agents</th><th>actions</th><th>rejections (not done)</th><th>sent another way</th><th>holdings change (tokens)</th><th>in flight (tokens)</th></tr>`)
    for (const a of r.agents) {
      out.push(`<tr><td>${escapeHtml(a.population)}</td><td>${escapeHtml(a.kind)}</td><td>${a.agents}</td><td>${fmt(a.actions)}</td><td>${fmt(a.rejections)}</td><td>${fmt(a.fallbacks)}</td><td>${fmt(a.pnl)}</td><td>${fmt(a.inFlight)}</td></tr>`)
    }
    out.push(`</table>`)
  }
  out.push(`<h2>Run</h2><ul>`)
  for (const line of runSummary(r)) out.push(`<li>${escapeHtml(line)}</li>`)
  out.push(`</ul>`)
  out.push(`<p class="muted">Files beside this page: report.json, report.md, timeseries.csv, trace.jsonl (replay: <code>npx clearsim hub replay trace.jsonl</code>).</p>`)
  out.push(`</body></html>\n`)
  return out.join("\n")
}
