/**
 * The report files of a run: report.json, report.md, report.html (charts from the per-epoch series) and
 * timeseries.csv, written from the quickstart scenario in memory; and the chart geometry on hand-made series.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { tokensOf18 } from "../metrics/collector.ts"
import { type RunResult, runScenario } from "../run.ts"
import { loadScenario, parseScenario } from "../scenario/load.ts"
import { type Line, lineChartSvg, renderHtml } from "./html.ts"
import {
  csvNumber,
  discountBpsText,
  firstFailingEpochText,
  formatTokens18,
  metricsOf,
  nettingRatioText,
  renderMarkdown,
  renderTimeseriesCsv,
  reportDifferences,
  timeseriesCsvChunks,
  type RunReport,
  ratio4Text,
  tokensText,
  verdictText,
  writeReportFiles,
} from "./report.ts"
import { renderRunsMarkdown, runsSummaryLines, summarizeRuns } from "./runs.ts"

const out = mkdtempSync(join(tmpdir(), "clearsim-report-"))
afterAll(() => rmSync(out, { recursive: true, force: true }))

describe("report files of a run", () => {
  let result: RunResult
  beforeAll(async () => {
    result = await runScenario(loadScenario(new URL("../../scenarios/quickstart.yaml", import.meta.url).pathname), { seed: 1, backend: "memory" })
    writeReportFiles(out, result.report, result.timeseries)
  })

  it("gives the settled share to 6 decimals, truncated, alike in timeseries.csv, the metrics and the properties", () => {
    // 497 of 508 intents settled: 0.978346456..., which the time series wrote with 16 digits.
    const r = result.report
    expect([r.intents.settled, r.intents.created]).toEqual([497, 508])
    expect(metricsOf(r).get("settledShare")).toBe(0.978346)
    const users = r.intents.byPopulation!.users!
    expect(metricsOf(r).get("population.users.settledShare")).toBe(Number((BigInt(users.settled) * 1_000_000n) / BigInt(users.created)) / 1_000_000)
    const shares = result.timeseries.toArray().filter((row) => row.metric === "settledShare")
    expect(shares.at(-1)).toMatchObject({ epoch: r.epochs.last, value: 0.978346 })
    for (const { value } of shares) expect(String(value)).toMatch(/^(0|1)(\.\d{1,6})?$/)
    const csv = readFileSync(join(out, "timeseries.csv"), "utf8")
    expect(csv).toContain(`,${r.epochs.last},settledShare,0.978346\n`)
    expect(csv).not.toMatch(/,settledShare,\d\.\d{7,}/)
    expect(r.properties.find((p) => p.name.startsWith("settledShare "))?.value).toBe(0.978346)
  })

  it("gives properties and baselines no netting ratio when no user volume was settled out of custody", () => {
    expect(metricsOf(result.report).get("nettingRatio")).toBe(result.report.netting.ratio)
    const none = { ...result.report, netting: { ...result.report.netting, ratio: 0, nettedVolume: "0", totalVolume: "0" } }
    expect(metricsOf(none).has("nettingRatio")).toBe(false)
    expect(metricsOf(none).has("netting.ratio")).toBe(false)
  })

  it("finds where two runs' reports differ, wall time aside (what --check-determinism prints)", async () => {
    const again = await runScenario(loadScenario(new URL("../../scenarios/quickstart.yaml", import.meta.url).pathname), { seed: 1, backend: "memory" })
    expect(reportDifferences(result.report, result.timeseries, again.report, again.timeseries)).toEqual([])
    const r = result.report
    const changed = { ...r, wallSeconds: r.wallSeconds + 1, intents: { ...r.intents, settled: r.intents.settled - 1 }, traceHash: "0x00" as RunReport["traceHash"] }
    const rows = result.timeseries.toArray().map((row, i) => (i === 3 ? { ...row, value: row.value + 1 } : row))
    expect(reportDifferences(r, result.timeseries, changed, result.timeseries)).toEqual(["traceHash", "intents"])
    expect(reportDifferences(r, result.timeseries, r, rows)).toEqual(["timeseries"])
  })
  it("sums Monte Carlo runs up: numeric order, runs without a value left out, sample sd, linear percentiles, properties held", () => {
    const r = result.report
    const property = r.properties[0]!
    // p99 latencies 9, 100, none, 10 s (in run order): the figures are over 9, 10 and 100.
    const runs = [9, 100, null, 10].map((p99, i) => ({ ...r, run: i, seed: 5 + i, passed: i !== 1, latency: { ...r.latency, p99 }, properties: [{ ...property, pass: i !== 1 && i !== 2 }] }))
    const { summary } = summarizeRuns(runs)
    // mean 119 / 3; sd sqrt(((9 - m)^2 + (10 - m)^2 + (100 - m)^2) / 2); p5 9 + 0.1 × 1; p95 10 + 0.9 × 90.
    expect(summary.kpis.p99LatencySeconds).toEqual({ runs: 3, mean: 39.666667, sd: 52.252592, min: 9, p5: 9.1, p50: 10, p95: 91, max: 100 })
    expect(summary.properties[property.name]).toEqual({ held: 2, runs: 4 })
    expect([summary.runs, summary.passed, summary.seeds]).toEqual([4, 3, { first: 5, last: 8 }])
    const lines = runsSummaryLines(summary)
    expect(lines.find((l) => l.includes("p99LatencySeconds"))).toMatch(/mean 39\.666667, sd 52\.252592, p5\/p50\/p95 9\.1 \/ 10 \/ 91, min 9, max 100 \(3 of 4 runs have a value\)$/)
    expect(lines.find((l) => l.includes("p50LatencySeconds"))).toMatch(/^  p50LatencySeconds +mean [\d.]+, sd [\d.]+, p5\/p50\/p95 [\d.]+ \/ [\d.]+ \/ [\d.]+, min [\d.]+, max [\d.]+$/)
  })

  it("writes report.json as the report and timeseries.csv as tidy rows of the series", () => {
    expect(JSON.parse(readFileSync(join(out, "report.json"), "utf8"))).toEqual(JSON.parse(JSON.stringify(result.report)))
    const csv = readFileSync(join(out, "timeseries.csv"), "utf8").trimEnd().split("\n")
    expect(csv[0]).toBe("run,seed,epoch,metric,value")
    expect(csv.length - 1).toBe(result.timeseries.length)
    const rows = result.timeseries.toArray()
    const first = rows[0]!
    expect(csv[1]).toBe(`${first.run},${first.seed},${first.epoch},${first.metric},${csvNumber(first.value)}`)
    expect([677.6999999999999, 0.1 + 0.2, 12, 1e-9, 123456.789, 12345678.123456, -0.30000000000000004].map(csvNumber)).toEqual(["677.7", "0.3", "12", "1e-9", "123456.789", "12345678.123456", "-0.3"])
    // Every epoch has a depth row for each chain's intent queue and fill queue.
    const epochs = new Set(rows.map((row) => row.epoch)).size
    for (const chain of [31001, 31002, 31003]) {
      for (const queue of ["intentQueue", "fillQueue"]) expect(rows.filter((row) => row.metric === `${queue}.${chain}`).length).toBe(epochs)
    }
  })

  it("writes report.html: verdict, properties, KPIs, latency table and one chart per series group", () => {
    const html = readFileSync(join(out, "report.html"), "utf8")
    const r = result.report
    expect(html).toContain(`<title>quickstart: ${r.passed ? "PASS" : "FAIL"} · clearsim</title>`)
    expect(html).toContain(r.traceHash)
    for (const p of r.properties) expect(html).toContain(`<code>${p.name.replace(/>/g, "&gt;").replace(/</g, "&lt;")}</code>`)
    expect(html).toContain(ratio4Text(r.netting.ratio))
    // The quickstart prices its assets: the ratio over them is by value, the discount in USD.
    expect(html).toContain(`netting ratio (by USD value)</span><b>${ratio4Text(r.netting.ratio)}</b>`)
    expect(html).toContain(`discount paid</span><b>${tokensText(r.discounts.paid)} USD</b>`)
    for (const title of ["Netting ratio", "User latency", "Settlement latency", "Open invoices by ticker", "Hub custody by chain, USDC", "Hub custody by chain, USDT", "Settlement queue depth by chain", "Spoke intent queue depth by chain", "Spoke fill queue depth by chain", "Intents"]) {
      expect(html, title).toContain(`<figcaption>${title} `)
    }
    // Every chart has a path per line with as many points as epochs in the series.
    const epochs = new Set(result.timeseries.toArray().map((row) => row.epoch)).size
    const paths = [...html.matchAll(/<path d="M([^"]*)"/g)].map((m) => m[1]!.split("L").length)
    expect(paths.length).toBeGreaterThan(10)
    for (const points of paths) expect(points).toBe(epochs)
    // Self-contained: no script and nothing fetched.
    expect(html).not.toMatch(/<script|https?:\/\//)
  })

  it("writes report.md with the properties first", () => {
    const md = readFileSync(join(out, "report.md"), "utf8")
    expect(md.indexOf("## Properties")).toBeLessThan(md.indexOf("## Metrics"))
    // What paidBps is of, invoices created and settled, and the intents whose receiver was paid.
    const r = result.report
    // The quickstart prices its assets: its totals over them are in USD.
    expect(r.discounts.unit).toBe("USD")
    expect(md).toContain(`- discount paid ${tokensText(r.discounts.paid)} USD (`)
    expect(md).toContain(`bps of the ${tokensText(r.discounts.settledVolume)} USD the hub settled`)
    expect(md).toContain(`USD netted of the ${tokensText(r.netting.totalVolume)} USD of user volume settled from custody`)
    expect(md).toContain(`); invoices: ${r.discounts.invoicesCreated} created, ${r.discounts.invoicesSettled} settled`)
    expect(md).toContain("| path | created | settled | paid | user p50 s |")
    expect(md).toContain(`| all | ${r.intents.created} | ${r.intents.settled} | ${r.latency.count} |`)
    const html = readFileSync(join(out, "report.html"), "utf8")
    expect(html).toContain(`<td>all</td><td>${r.intents.created}</td><td>${r.intents.settled}</td><td>${r.latency.count}</td>`)
    expect(html).toContain(`<li class="muted">last epoch:</li>`)
    for (const name of ["users&#39; intents created", "users&#39; intents settled", "invoices created", "invoices settled"]) expect(html).toContain(`</span>${name} <span class="muted">`)
  })

  it("says that the epoch a latency property has failed since is judged on each epoch's own latencies", () => {
    expect(firstFailingEpochText({ name: "p99LatencySeconds <= 500", firstFailingEpoch: 500015 })).toBe("500015 (each epoch's own latencies)")
    expect(firstFailingEpochText({ name: "latency.settlement.p90 <= 500", firstFailingEpoch: 7 })).toBe("7 (each epoch's own latencies)")
    expect(firstFailingEpochText({ name: "intentsSettled >= 600", firstFailingEpoch: 7 })).toBe("7")
    expect(firstFailingEpochText({ name: "nettingRatio >= 0.5", firstFailingEpoch: 3 })).toBe("3")
    expect(firstFailingEpochText({ name: "nettingRatio >= 0.5" })).toBe("–")
  })

  it("writes a scenario description into report.md as text, not markup", () => {
    const base = minimalReport() as unknown as RunReport
    const md = renderMarkdown({ ...base, scenario: { ...base.scenario, description: "# Drain <b>one</b> way & *fast* | [x](y) `z` a_b ~~s~~\n#2\n---\n- item\n    code\n1. first" } })
    expect(md).toContain("\\# Drain &lt;b&gt;one&lt;/b&gt; way &amp; \\*fast\\* \\| \\[x\\](y) \\`z\\` a\\_b \\~\\~s\\~\\~\n\\#2\n\\---\n\\- item\ncode\n1\\. first\n")
  })

  it("shows token amounts to people grouped and rounded (report.json keeps the exact decimal)", () => {
    expect(tokensText("343.08687305391249933")).toBe("343.0869")
    expect(tokensText("1267513.176319918891577085")).toBe("1,267,513.1763")
    expect(tokensText("633453.12963909228750067")).toBe("633,453.1296")
    expect(tokensText("2000")).toBe("2,000")
    expect(tokensText("0")).toBe("0")
    expect(tokensText("0.00012345678")).toBe("0.000123457")
    expect(tokensText("0.0000001")).toBe("0.0000001") // not 1e-7
    expect(tokensText("-186474.74446")).toBe("−186,474.7445")
    const base = minimalReport() as unknown as RunReport
    const report = { ...base, discounts: { ...base.discounts, paid: "343.08687305391249933", settledVolume: "1267513.176319918891577085" } }
    expect(renderMarkdown(report)).toContain("- discount paid 343.0869 tokens (")
    expect(renderMarkdown(report)).toContain(" bps of the 1,267,513.1763 tokens the hub settled)")
  })

  it("says 1 epoch, not 1 epochs, in report.html's header", () => {
    const one = { ...minimalReport(), epochs: { first: 7, last: 7, count: 1 } } as unknown as RunReport
    expect(renderHtml(one, [])).toContain(", 1 epoch (7–7), ")
    expect(renderHtml({ ...one, epochs: { first: 7, last: 8, count: 2 } } as unknown as RunReport, [])).toContain(", 2 epochs (7–8), ")
  })

  it("shows a netting ratio of 0 of 0 as a dash, in report.md, report.html and the KPI", () => {
    const base = minimalReport() as unknown as RunReport
    expect(nettingRatioText(base)).toBe("–")
    expect(renderMarkdown(base)).toContain("- netting ratio **–** (0 tokens netted of the 0 tokens of user volume settled from custody)")
    expect(renderMarkdown(base)).toContain("- wall time 0.0 s on Node 22.23.3 (V8 12.4.254.21-node.33)")
    expect(renderHtml(base, [])).toContain(`<span class="muted">netting ratio</span><b>–</b>`)
    expect(nettingRatioText({ netting: { ...base.netting, ratio: 0.5, totalVolume: "10" } })).toBe("0.5000")
  })

  it("shows a discount rate of 0 of 0 as a dash in report.md and report.html, as properties and runs.json have no value for it", () => {
    const base = minimalReport() as unknown as RunReport
    expect(metricsOf(base).has("discountPaidBps")).toBe(false)
    expect(discountBpsText(base)).toBe("–")
    expect(renderMarkdown(base)).toContain("- discount paid 0 tokens (– bps of the 0 tokens the hub settled); invoices: 0 created, 0 settled\n")
    expect(renderHtml(base, [])).toContain(`<span class="muted">discount, bps of settled volume</span><b>–</b>`)
    // Volume settled with no discount is a rate of 0, not a dash.
    const settled = { ...base, discounts: { ...base.discounts, settledVolume: "10" } }
    expect(discountBpsText(settled)).toBe("0")
    expect(renderMarkdown(settled)).toContain("(0 bps of the 10 tokens the hub settled)")
    expect(renderHtml(settled, [])).toContain(`<span class="muted">discount, bps of settled volume</span><b>0</b>`)
  })

  it("shows report.html's latency KPIs of no intent paid or settled as a dash, with no unit after it", () => {
    const base = minimalReport() as unknown as RunReport
    const html = renderHtml(base, [])
    expect(html).toContain(`<span class="muted">user latency p50 / p99 (paid)</span><b>–</b>`)
    expect(html).toContain(`<span class="muted">settlement latency p99</span><b>–</b>`)
    expect(html).not.toContain("– s<")
  })

  it("says that the deposits waiting for a fill include the initial liquidity, which a run without fast intents still has", () => {
    const rows = [0, 1].map((epoch) => ({ run: 0, seed: 1, epoch, metric: "depositsWaiting.USDC", value: 2 }))
    const html = renderHtml({ ...minimalReport(), epochs: { first: 0, last: 1, count: 2 } } as unknown as RunReport, rows)
    expect(html).toContain(`<figcaption>Fast-path deposits waiting for a fill, by ticker <span class="muted">(deposits, the initial liquidity&#39;s included: it waits until it expires)</span></figcaption>`)
  })

  it("shows a ratio to 4 decimals truncated, never above the 6-decimal value properties are judged on", () => {
    expect([0.699988, 0.7, 0.29, 0.57, 1, 0, 0.000099, 0.123456, 0.999999].map(ratio4Text)).toEqual(["0.6999", "0.7000", "0.2900", "0.5700", "1.0000", "0.0000", "0.0000", "0.1234", "0.9999"])
    // Every 6-decimal ratio: the text is its first 4 decimals.
    for (let k = 0; k <= 1_000_000; k += 7) expect(ratio4Text(k / 1e6)).toBe((Math.floor(k / 100) / 1e4).toFixed(4))
  })

  it("gives a live session's report no verdict: the scenario's properties were written for its own horizon", () => {
    const base = minimalReport() as unknown as RunReport
    const properties = [
      { name: "nettingRatio >= 0.5", pass: true, value: 0.9 },
      { name: "coverage: invoiceCreated", pass: false, reason: "never happened" },
    ]
    const live = { ...base, passed: false, properties, horizonSeconds: 1296, live: { scenarioHorizonSeconds: 10_800 } }
    expect(renderMarkdown(live)).toMatch(/^# [^\n]*: live session of 21\.6 min, 1 of 2 properties held \(written for the scenario's 3 h: no verdict\)\n/)
    expect(renderHtml(live, [])).not.toContain(">FAIL<")
    expect(renderMarkdown({ ...base, passed: false, properties })).toMatch(/^# [^\n]*: FAIL\n/)
    expect(verdictText({ ...live, properties: [], horizonSeconds: 3599 })).toBe("live session of 1 h, no properties (written for the scenario's 3 h: no verdict)")
    expect(verdictText({ ...live, properties: properties.slice(0, 1), horizonSeconds: 59.6 })).toBe("live session of 1 min, 1 of 1 property held (written for the scenario's 3 h: no verdict)")
  })

  it("charts custody per ticker, dotted tickers included, and draws isolated points", () => {
    const rows = [
      { run: 0, seed: 1, epoch: 0, metric: "custody.USDC.31001", value: 50_000 },
      { run: 0, seed: 1, epoch: 1, metric: "custody.USDC.31001", value: 51_000 },
      { run: 0, seed: 1, epoch: 0, metric: "custody.USDC.e.31001", value: 3 },
      { run: 0, seed: 1, epoch: 1, metric: "custody.USDC.e.31002", value: 4 },
    ]
    const html = renderHtml({ ...minimalReport(), epochs: { first: 0, last: 1, count: 2 } } as unknown as RunReport, rows)
    expect(html).toContain("<figcaption>Hub custody by chain, USDC <")
    expect(html).toContain("<figcaption>Hub custody by chain, USDC.e <")
    expect(html).toContain("</span>chain 31002 <")
    expect(html).not.toContain("chain e.")
    // One-point lines (USDC.e on 31001 and on 31002) get a marker each; the lines of two points do not.
    expect(html.match(/<circle /g)).toHaveLength(2)
    // Their last value is of an earlier epoch than the run's last: named.
    expect(html).toContain("</span>chain 31001 <span class=\"muted\">3 (epoch 0)</span>")
  })

  it("says '0 in every epoch' instead of drawing a chart of zeros, and ends the last epoch label at its tick", () => {
    const rows = [0, 1, 2].flatMap((epoch) => [
      { run: 0, seed: 1, epoch, metric: "depositsWaiting.USDC", value: 0 },
      { run: 0, seed: 1, epoch, metric: "invoicesOpen.USDC", value: epoch },
    ])
    const html = renderHtml({ ...minimalReport(), epochs: { first: 0, last: 2, count: 3 } } as unknown as RunReport, rows)
    expect(html).toContain("<p class=\"muted\">0 in every epoch of this run (USDC).</p>")
    expect(html.match(/<svg /g)).toHaveLength(1)
    expect(html).toContain(`text-anchor="end">2</text>`)
  })
})

/** A chart line of (epoch, value) points. */
const pointsLine = (name: string, points: readonly (readonly [number, number])[]): Line => ({ name, epochs: points.map((p) => p[0]), values: points.map((p) => p[1]) })

describe("chart geometry", () => {
  it("maps epochs to x and values to y, from zero up to a nice maximum", () => {
    const svg = lineChartSvg(
      [
        pointsLine("a", [[10, 0], [11, 50], [12, 100]]),
        pointsLine("b", [[10, 100], [12, 0]]),
      ],
      "tokens",
    )
    // x range 64..544 over epochs 10..12; y range 186..12 over values 0..100.
    expect(svg).toContain(`<path d="M64,186L304,99L544,12"`)
    // b skips epoch 11: two points, not a line joined across the gap.
    expect(svg).toContain(`<path d="M64,12ZM544,186Z"`)
    expect(svg).toContain(`>100</text>`)
    expect(svg).toContain(`>0</text>`)
    expect(lineChartSvg([pointsLine("r", [[1, 0.1], [2, 0.9]])], "share")).toContain(`>0.2</text>`)
    expect(lineChartSvg([pointsLine("t", [[1, 0], [2, 2_500_000]])], "tokens")).toContain(`>2.5M</text>`)
    // Counts get whole-number ticks only.
    const counts = lineChartSvg([pointsLine("c", [[1, 0], [2, 1]])], "invoices")
    expect(counts).toContain(`>1</text>`)
    expect(counts).not.toContain(`>0.2</text>`)
    // Over the run's epochs, given: epoch 5 of 0..10 is the middle of the x range.
    expect(lineChartSvg([pointsLine("s", [[5, 1], [6, 2]])], "x", { first: 0, last: 10 })).toContain(`<path d="M304,`)
    // Values from 50 up are drawn from 0: 50 is half the height (y 99).
    const high = lineChartSvg([pointsLine("h", [[1, 50], [2, 100]])], "tokens")
    expect(high).toContain(`<path d="M64,99L544,12"`)
    expect(high).toContain(`>0</text>`)
    // A series with fractions keeps its fractional ticks, even with whole values among them.
    expect(lineChartSvg([pointsLine("f", [[1, 0], [2, 1.5]])], "share")).toContain(`>0.5</text>`)
    // A one-epoch chart: its point at the start of an x axis of two epochs.
    expect(lineChartSvg([pointsLine("one", [[3, 5]])], "x")).toContain(`<circle cx="64.0" cy="12.0"`)
  })

  it("draws a chart of more points than a call's arguments can hold (4 chains' queues over 43,200 one-second epochs)", () => {
    // 4 lines of 50,000 epochs each: Math.max(...values) over 200,000 values overflowed the stack, and the run wrote no report.
    const lines = [0, 1, 2, 3].map((i) => pointsLine(`chain ${i}`, Array.from({ length: 50_000 }, (_, e): [number, number] => [e, e === 49_999 && i === 3 ? 100 : e % 7])))
    const svg = lineChartSvg(lines, "settlements")
    // y from 0 to 100 (the largest value, in the last line), x over epochs 0..49,999.
    expect(svg).toContain(`>100</text>`)
    expect(svg).toContain(`>40000</text>`)
  })

  it("thins a line of more epochs than the plot has pixels to its first, lowest, highest and last per column: the same line, a path of a few thousand points", () => {
    // 100,000 epochs of a sawtooth 0..999, with a gap at epochs 60,000-60,009, and one spike of 5,000 at epoch 77,777.
    const points = Array.from({ length: 100_000 }, (_, e): [number, number] => [e, e === 77_777 ? 5_000 : e % 1000]).filter(([e]) => e < 60_000 || e >= 60_010)
    const svg = lineChartSvg([pointsLine("saw", points)], "tokens")
    const d = /<path d="([^"]*)"/.exec(svg)![1]!
    const drawn = d.match(/[ML][^MLZ]+/g)!.map((c) => Number(c.slice(1).split(",")[1]))
    expect(drawn.length).toBeLessThanOrEqual(4 * 560 + 8)
    // The gap still breaks the line (two sub-paths), and the extremes are drawn: 0 (y 186), the spike (y 12).
    expect(d.match(/M/g)!.length).toBe(2)
    expect(Math.max(...drawn)).toBe(186)
    expect(Math.min(...drawn)).toBe(12)
    expect(svg).toContain(`>5k</text>`)
    // A line the plot has room for is drawn point by point, as before.
    const short = Array.from({ length: 4 * 560 }, (_, e): [number, number] => [e, e % 3])
    const shortPath = /<path d="([^"]*)"/.exec(lineChartSvg([pointsLine("s", short)], "x"))![1]!
    expect(shortPath.match(/[ML]/g)!.length).toBe(4 * 560)
  })

  it("escapes names from scenario files", () => {
    const base = minimalReport()
    const report = { ...base, scenario: { ...base.scenario, name: `<b>"x"</b>` } } as unknown as Parameters<typeof renderHtml>[0]
    const html = renderHtml(report, [{ run: 0, seed: 1, epoch: 1, metric: "invoicesOpen.<T>", value: 1 }])
    expect(html).not.toContain(`<b>"x"`)
    expect(html).toContain(`<h1>&lt;b&gt;&quot;x&quot;&lt;/b&gt;: <span class="pass">PASS</span></h1>`)
    expect(html).toContain("&lt;T&gt;")
  })
})

const latency = { count: 0, p50: null, p90: null, p99: null, max: null, mean: null }
const byPath = { basic: latency, fast: latency, swap: latency, xerc20: latency }
const minimalReport = () => ({
  scenario: { name: "x", file: "x.yaml", hash: `0x${"0".repeat(64)}` },
  seed: 1,
  run: 0,
  version: "0",
  backend: "memory",
  traceHash: `0x${"0".repeat(64)}`,
  hubEvents: 0,
  hubInputs: 0,
  horizonSeconds: 0,
  epochs: { first: 0, last: 0, count: 0 },
  intents: { created: 0, settled: 0, byPath: { basic: { created: 0, settled: 0 }, fast: { created: 0, settled: 0 }, swap: { created: 0, settled: 0 }, xerc20: { created: 0, settled: 0 } } },
  netting: { ratio: 0, nettedVolume: "0", totalVolume: "0", bySource: {}, byLane: {} },
  discounts: { paid: "0", paidBps: 0, settledVolume: "0", invoicesCreated: 0, invoicesSettled: 0, perInvoiceBps: latency },
  latency: { ...latency, byPath, settlement: { ...latency, byPath } },
  agents: [],
  keepers: {},
  transport: { sent: 0, dropped: 0, duplicated: 0, reordered: 0, heldByOutage: 0 },
  world: { hubReverts: 0, spokeReverts: 0, spokeRevertsByError: {}, duplicateSpokeDeliveries: 0, duplicateHubDeliveries: 0, spokeBlocks: 0, spokeCalls: 0, conservationChecks: 0 },
  coverage: [],
  properties: [],
  passed: true,
  wallSeconds: 0,
  runtime: { node: "22.23.3", v8: "12.4.254.21-node.33" },
})

/**
 * A hand-made report with a figure of its own in every cell: two paths, two assets that sent intents (WETH's
 * settled none out of custody) and one that sent none, a population of other senders and an arbitrageur's.
 */
const richReport = (): RunReport => {
  const base = minimalReport() as unknown as RunReport
  const lat = (count: number, p50: number, p90: number, p99: number, max: number) => ({ count, p50, p90, p99, max, mean: p50 })
  return {
    ...base,
    intents: {
      created: 8,
      settled: 6,
      byPath: { basic: { created: 5, settled: 4 }, fast: { created: 3, settled: 2 }, swap: { created: 0, settled: 0 }, xerc20: { created: 0, settled: 0 } },
      byPopulation: { traders: { created: 7, settled: 5 }, mm: { created: 2, settled: 2 }, "(other senders)": { created: 1, settled: 1 } },
      byTicker: { USDC: { created: 5, settled: 4 }, WETH: { created: 3, settled: 2 }, USDT: { created: 0, settled: 0 } },
    },
    netting: { ratio: 0.25, nettedVolume: "2.5", totalVolume: "10", bySource: {}, byLane: {}, byTicker: { USDC: { ratio: 0.25, nettedVolume: "2.5", totalVolume: "10" }, WETH: { ratio: 0, nettedVolume: "0", totalVolume: "0" } } },
    discounts: {
      paid: "1.5",
      paidBps: 0.3,
      settledVolume: "50000",
      invoicesCreated: 3,
      invoicesSettled: 2,
      paidBpsOfInvoices: 15,
      invoicedVolume: "1000",
      byTicker: { USDC: { paid: "1.5", invoicedVolume: "1000", paidBpsOfInvoices: 15, invoicesSettled: 2 }, WETH: { paid: "0", invoicedVolume: "0", paidBpsOfInvoices: 0, invoicesSettled: 0 } },
      perInvoiceBps: latency,
    },
    latency: {
      ...lat(7, 2, 25, 29, 40),
      byPath: { ...byPath, basic: lat(4, 10, 20, 30, 40), fast: lat(3, 1.5, 2.25, 3.125, 1234.5) },
      byPopulation: { traders: lat(6, 2, 25, 29, 40), mm: lat(2, 0.5, 0.75, 0.875, 1), "(other senders)": lat(1, 3, 3, 3, 3) },
      settlement: {
        ...lat(6, 45, 55, 69, 80),
        byPath: { ...byPath, basic: lat(4, 50, 60, 70, 80), fast: lat(2, 5, 6, 7, 8) },
        byPopulation: { traders: lat(5, 45, 55, 69, 80), mm: lat(2, 1, 1, 1, 1), "(other senders)": lat(1, 9, 9, 9, 9) },
      },
    },
    agents: [
      { kind: "rebalancer", population: "traders", agents: 10, actions: { basic: 7 }, rejections: {}, fallbacks: {}, pnl: { USDC: -12.3456789 }, inFlight: { USDC: 0.5 } },
      { kind: "arbitrageur", population: "mm", agents: 1, actions: { buy: 2 }, rejections: {}, fallbacks: {}, pnl: {}, inFlight: {} },
    ],
    world: { ...base.world, duplicateHubDeliveries: 2, refusedHubDeliveries: 3 },
    properties: [{ name: "discountPaidBps >= 0.1", pass: true, value: 2.7067721 }],
  }
}

describe("report figures on hand-made reports", () => {
  it("writes 18-decimal amounts as whole tokens: no trailing zeros, a sign only below 0", () => {
    expect([0n, 2n * 10n ** 18n, 15n * 10n ** 17n, 5n, -(10n ** 18n) - 1n].map(formatTokens18)).toEqual(["0", "2", "1.5", "0.000000000000000005", "-1.000000000000000001"])
  })

  it("gives the time series' and the agents' token amounts as the double nearest report.json's decimal, not truncated to nine decimals", () => {
    // one-sided-drain's discount paid: timeseries.csv's last discountPaidTokens read 342.581043593 (truncated).
    const amounts = [342_581043593943167572n, 3_921759996291468016n, -342_581043593943167572n, 5n, 0n, 10n ** 30n + 1n, -(10n ** 18n) - 1n]
    expect(amounts.map(tokensOf18)).toEqual(amounts.map((a) => Number(formatTokens18(a))))
    expect(tokensOf18(342_581043593943167572n)).toBe(342.58104359394317)
    expect(tokensOf18(-15897_128879000000000000n)).toBe(-15897.128879)
    expect(Object.is(tokensOf18(0n), 0)).toBe(true)
  })

  it("gives properties no rate of nothing, and each metric its own figure", () => {
    const base = minimalReport() as unknown as RunReport
    // Nothing settled, no invoice settled, a population and an asset without intents, an asset without volume.
    const none = metricsOf({
      ...base,
      intents: { ...base.intents, byPopulation: { idle: { created: 0, settled: 0 } }, byTicker: { USDT: { created: 0, settled: 0 } } },
      netting: { ...base.netting, byTicker: { USDT: { ratio: 0, nettedVolume: "0", totalVolume: "0" } } },
      discounts: { ...base.discounts, paidBpsOfInvoices: 0, invoicedVolume: "0" },
    })
    for (const name of ["discountPaidBps", "discounts.paidBps", "discountPaidBpsOfInvoices", "settledShare", "population.idle.settledShare", "asset.USDT.settledShare", "asset.USDT.nettingRatio"]) {
      expect(none.has(name), name).toBe(false)
    }
    expect([none.get("population.idle.intents.created"), none.get("asset.USDT.intents.settled")]).toEqual([0, 0])
    const m = metricsOf(richReport())
    expect(m.get("settledShare")).toBe(0.75) // 6 of 8
    // Shares to 6 decimals, truncated: 2 of 3 is 0.666666.
    expect([m.get("discountPaidBps"), m.get("discountPaidBpsOfInvoices"), m.get("asset.WETH.settledShare"), m.has("asset.WETH.nettingRatio")]).toEqual([0.3, 15, 0.666666, false])
    // User latency and settlement latency, overall and by path, each its own.
    expect(["p99LatencySeconds", "p99SettlementLatencySeconds", "latency.settlement.p50", "latency.fast.p99", "latency.settlement.fast.p99", "latency.settlement.basic.max"].map((n) => m.get(n))).toEqual([29, 69, 45, 3.125, 7, 80])
    expect(["population.traders.settledShare", "population.mm.latency.settlement.p99", "transport.refusedByHub"].map((n) => m.get(n))).toEqual([0.714285, 1, 3])
  })

  it("writes report.md's figures in their own cells: headline lines, latency rows, properties, agents and the run's counters", () => {
    const md = renderMarkdown(richReport())
    expect(md).toContain("- users' intents created 8, settled 6; the agents' own (not in these figures) created 2, settled 2\n")
    // USDT sent nothing: not listed; WETH settled nothing out of custody: no ratio.
    expect(md).toContain("- by asset: USDC 5 created, 4 settled, netting ratio 0.2500; WETH 3 created, 2 settled (the token amounts")
    expect(md).toContain("- netting ratio **0.2500** (2.5 tokens netted of the 10 tokens of user volume settled from custody)\n")
    expect(md).toContain("- discount paid 1.5 tokens (0.3 bps of the 50,000 tokens the hub settled; 15 bps of the 1,000 tokens of the invoices it was taken from); invoices: 3 created, 2 settled\n")
    // Only USDC's invoices were discounted: no line by asset.
    expect(md).not.toContain("discount by asset")
    for (const row of [
      "| basic | 5 | 4 | 4 | 10 | 20 | 30 | 40 | 50 | 70 |",
      "| fast | 3 | 2 | 3 | 1.5 | 2.25 | 3.125 | 1234.5 | 5 | 7 |",
      "| swap | 0 | 0 | 0 | – | – | – | – | – | – |",
      "| all | 8 | 6 | 7 | 2 | 25 | 29 | 40 | 45 | 69 |",
      "| traders | 7 | 5 | 6 | 2 | 25 | 29 | 40 | 45 | 69 |",
      "| mm (arbitrageur) | 2 | 2 | 2 | 0.5 | 0.75 | 0.875 | 1 | 1 | 1 |",
      "| (other senders) | 1 | 1 | 1 | 3 | 3 | 3 | 3 | 9 | 9 |",
      "| property | result | value | failing since epoch |",
      "| `discountPaidBps >= 0.1` | pass | 2.706772 | – |",
      "| traders | rebalancer | 10 | basic 7 | – | – | USDC -12.345679 | USDC 0.5 |",
    ]) {
      expect(md).toContain(`\n${row}\n`)
    }
    // A failing property: the epoch it has failed since under "failing since epoch".
    const failing = renderMarkdown({ ...richReport(), properties: [{ name: "p99LatencySeconds <= 20", pass: false, value: 29, firstFailingEpoch: 500003 }] })
    expect(failing).toContain("\n| `p99LatencySeconds <= 20` | **fail** | 29 | 500003 (each epoch's own latencies) |\n")
    expect(md).toContain("(of which 2 refused by the hub and 0 by spoke gateways; any other still in flight or dropped at the end), 0 reordered, 0 held by outages, 3 refused by the paused hub and redelivered\n")
    // No invoice settled: no rate of the invoices.
    const base = minimalReport() as unknown as RunReport
    expect(renderMarkdown({ ...base, discounts: { ...base.discounts, paidBpsOfInvoices: 0, invoicedVolume: "0" } })).toContain("- discount paid 0 tokens (– bps of the 0 tokens the hub settled); invoices: 0 created, 0 settled\n")
  })

  it("writes report.html's KPIs, latency rows, property values and agents as the report's figures", () => {
    const html = renderHtml(richReport(), [])
    const kpi = (name: string, value: string) => `<div class="kpi"><span class="muted">${name}</span><b>${value}</b></div>`
    for (const k of [
      kpi("netting ratio", "0.2500"),
      kpi("discount paid", "1.5 tokens"),
      kpi("discount, bps of settled volume", "0.3"),
      kpi("discount, bps of invoices", "15"),
      kpi("user latency p50 / p99 (paid)", "2 / 29 s"),
      kpi("settlement latency p99", "69 s"),
      kpi("users&#39; intents settled", "6 of 8 (75.0%)"),
      kpi("USDC intents settled", "4 of 5 (80.0%)"),
      kpi("WETH intents settled", "2 of 3 (66.6%)"),
      kpi("receivers paid", "7 of 8 (87.5%)"),
      kpi("agents&#39; own intents settled", "2 of 2 (100.0%)"),
    ]) {
      expect(html).toContain(k)
    }
    expect(html).not.toContain("USDT intents settled")
    expect(html).toContain("<tr><td>basic</td><td>5</td><td>4</td><td>4</td><td>10</td><td>20</td><td>30</td><td>40</td><td>50</td><td>70</td></tr>")
    expect(html).toContain("<tr><td>fast</td><td>3</td><td>2</td><td>3</td><td>1.5</td><td>2.25</td><td>3.125</td><td>1,234.5</td><td>5</td><td>7</td></tr>")
    expect(html).toContain("<tr><td>all</td><td>8</td><td>6</td><td>7</td><td>2</td><td>25</td><td>29</td><td>40</td><td>45</td><td>69</td></tr>")
    expect(html).toContain("<tr><td>(other senders)</td><td>1</td><td>1</td><td>1</td><td>3</td>")
    expect(html).toContain("<tr><th>property</th><th>result</th><th>value</th><th>failing since epoch</th></tr>")
    const failing = renderHtml({ ...richReport(), properties: [{ name: "nettingRatio >= 0.5", pass: false, value: 0.25, firstFailingEpoch: 500003 }] }, [])
    expect(failing).toMatch(/<td><code>nettingRatio &gt;= 0\.5<\/code><\/td><td>.*fail.*<\/td><td>0\.25<\/td><td>500003<\/td><\/tr>/)
    expect(html).toContain("<td>pass</td>".replace("pass", `<span class="pass">pass</span>`) + "<td>2.706772</td>")
    expect(html).toContain("<td>USDC −12.345679</td><td>USDC 0.5</td>")
  })

  it("writes report.html's latencies to the millisecond, as report.json and report.md: no digit lost, no exponent", () => {
    const r = richReport()
    const lat = { count: 5, p50: 1234.567, p90: 17849.634, p99: 1234567.5, max: 1502, mean: 1 }
    const report = { ...r, latency: { ...r.latency, byPath: { ...r.latency.byPath, basic: lat } } }
    expect(renderMarkdown(report)).toContain("| basic | 5 | 4 | 5 | 1234.567 | 17849.634 | 1234567.5 | 1502 | 50 | 70 |")
    expect(renderHtml(report, [])).toContain("<tr><td>basic</td><td>5</td><td>4</td><td>5</td><td>1,234.567</td><td>17,849.634</td><td>1,234,567.5</td><td>1,502</td><td>50</td><td>70</td></tr>")
  })

  it("charts each line to its last value, a ticker's custody in its tokens, and a chart with one non-zero line", () => {
    const rows = [0, 1, 2].flatMap((epoch) => [
      { run: 0, seed: 1, epoch, metric: "invoicesOpen.USDC", value: epoch + 1 },
      { run: 0, seed: 1, epoch, metric: "custody.USDC.31001", value: [1000.5, 1200.25, 1234.5][epoch]! },
      { run: 0, seed: 1, epoch, metric: "depositsQueued.USDC", value: 0 },
      { run: 0, seed: 1, epoch, metric: "depositsQueued.WETH", value: epoch * 2 },
    ])
    const html = renderHtml({ ...minimalReport(), epochs: { first: 0, last: 2, count: 3 } } as unknown as RunReport, rows)
    expect(html).toContain(`</span>USDC <span class="muted">3</span></li>`)
    expect(html).toContain(`<figcaption>Hub custody by chain, USDC <span class="muted">(USDC tokens)</span></figcaption>`)
    // The legend to four significant digits, grouped (SI prefixes from ten thousand up).
    expect(html).toContain(`</span>chain 31001 <span class="muted">1,235</span></li>`)
    // USDC's queue stayed empty, WETH's did not: the chart is drawn, with both lines.
    expect(html).not.toContain("0 in every epoch of this run (USDC, WETH)")
    expect(html).toContain(`</span>USDC <span class="muted">0</span></li><li><span class="swatch" style="background:#f28e2b"></span>WETH <span class="muted">4</span></li>`)
  })

  it("gives the headline's shares truncated: 9,999 of 10,000 settled is 99.9 %, not 100.0 %", () => {
    const r = minimalReport()
    const html = renderHtml({ ...r, intents: { ...r.intents, created: 10_000, settled: 9_999 }, latency: { ...r.latency, count: 10_000 } } as unknown as RunReport, [])
    expect(html).toContain("9999 of 10000 (99.9%)")
    expect(html).toContain("10000 of 10000 (100.0%)")
  })

  it("says that a run without per-epoch rows has none, instead of an empty section", () => {
    const empty = renderHtml(minimalReport() as unknown as RunReport, [])
    expect(empty).toContain(`<h2>Per epoch</h2><div class="charts">\n</div>\n<p class="muted">No per-epoch rows in this run: timeseries.csv has its header only.</p>`)
    const rows = [{ run: 0, seed: 1, epoch: 0, metric: "invoicesOpen.USDC", value: 1 }]
    expect(renderHtml({ ...minimalReport(), epochs: { first: 0, last: 0, count: 1 } } as unknown as RunReport, rows)).not.toContain("No per-epoch rows")
  })

  it("gives the legends of latency, discount and intents as the page's KPIs and tables give the same figures", () => {
    const row = (epoch: number, metric: string, value: number) => ({ run: 0, seed: 1, epoch, metric, value })
    const rows = [0, 1].flatMap((epoch) => [
      row(epoch, "p99LatencySeconds", 289.52 + epoch * 17_560.114),
      row(epoch, "p99SettlementLatencySeconds", 1234.567),
      row(epoch, "discountPaidBps", 2.611011),
      row(epoch, "intentsCreated", 10_350 + epoch),
    ])
    const html = renderHtml({ ...minimalReport(), epochs: { first: 0, last: 1, count: 2 } } as unknown as RunReport, rows)
    // Latencies to the millisecond, grouped, as the latency table (not 17.85k and 1,235).
    expect(html).toContain(`</span>p99 <span class="muted">17,849.634</span></li>`)
    expect(html).toContain(`</span>p99 <span class="muted">1,234.567</span></li>`)
    // The discount's bps as the KPI gives report.json's paidBps (not 2.611), the count whole (not 10.35k).
    expect(html).toContain(`</span>discount <span class="muted">2.611011</span></li>`)
    expect(html).toContain(`</span>users&#39; intents created <span class="muted">10351</span></li>`)
  })

  it("gives the netting ratio's legend truncated, as the headline: 0.699988 is 0.6999, not 0.7", () => {
    const rows = [0, 1].flatMap((epoch) => [
      { run: 0, seed: 1, epoch, metric: "nettingRatio", value: [0.5, 0.699988][epoch]! },
      { run: 0, seed: 1, epoch, metric: "nettingRatioEpoch", value: [0.5, 0.99996][epoch]! },
    ])
    const html = renderHtml({ ...minimalReport(), epochs: { first: 0, last: 1, count: 2 } } as unknown as RunReport, rows)
    expect(html).toContain(`</span>cumulative <span class="muted">0.6999</span></li>`)
    expect(html).toContain(`</span>this epoch <span class="muted">0.9999</span></li>`)
  })

  it("writes timeseries.csv with its header alone when there are no rows, and a newline after each row", () => {
    expect(renderTimeseriesCsv([])).toBe("run,seed,epoch,metric,value\n")
    expect(renderTimeseriesCsv([{ run: 0, seed: 1, epoch: 2, metric: "m", value: 0.5 }])).toBe("run,seed,epoch,metric,value\n0,1,2,m,0.5\n")
  })

  it("writes timeseries.csv in pieces of 50,000 rows (a run of millions of epochs has more text than one string holds), the same file", () => {
    const rows = Array.from({ length: 120_001 }, (_, i) => ({ run: 0, seed: 3, epoch: 500_000 + Math.floor(i / 7), metric: `m${i % 7}`, value: i / 8 }))
    const pieces = [...timeseriesCsvChunks(rows)]
    expect(pieces.map((p) => p.split("\n").length - 1)).toEqual([1, 50_000, 50_000, 20_001])
    const whole = `run,seed,epoch,metric,value\n${rows.map((r) => `${r.run},${r.seed},${r.epoch},${r.metric},${r.value}`).join("\n")}\n`
    expect(pieces.join("")).toBe(whole)
    const dir = mkdtempSync(join(out, "pieces-"))
    writeReportFiles(dir, minimalReport() as unknown as RunReport, rows)
    expect(readFileSync(join(dir, "timeseries.csv"), "utf8")).toBe(whole)
    // Two runs' rows are compared row by row, not as one string of the whole series.
    expect(reportDifferences(minimalReport() as unknown as RunReport, rows, minimalReport() as unknown as RunReport, rows)).toEqual([])
    expect(reportDifferences(minimalReport() as unknown as RunReport, rows, minimalReport() as unknown as RunReport, rows.slice(0, -1))).toEqual(["timeseries"])
    const changed = rows.map((r, i) => (i === 99_999 ? { ...r, value: r.value + 1 } : r))
    expect(reportDifferences(minimalReport() as unknown as RunReport, rows, minimalReport() as unknown as RunReport, changed)).toEqual(["timeseries"])
  })

  it("writes runs.md: each KPI's distribution, a dash where no run has a value, a row per run; one run has no sd", () => {
    const base = minimalReport() as unknown as RunReport
    // p99 latencies 0.5 and 0.7 s: mean 0.6, sd sqrt(2 × 0.1² / 1), p5 0.5 + 0.05 × 0.2, p95 0.5 + 0.95 × 0.2.
    const runs = [0.5, 0.7].map((p99, i) => ({ ...base, run: i, seed: 7 + i, passed: i === 0, intents: { ...base.intents, created: 4, settled: 3 + i }, latency: { ...base.latency, count: 4, p50: 1, p99 } }))
    const file = summarizeRuns(runs)
    const md = renderRunsMarkdown(file)
    expect(md).toMatch(/^# x: 1 of 2 runs passed\n\nSeeds 7–8\./)
    expect(md).toContain("\n| p99LatencySeconds | 2 | 0.6 | 0.141421 | 0.51 | 0.6 | 0.69 | 0.5 | 0.7 |\n")
    expect(md).toContain("\n| discountPaidBps | 0 | – | – | – | – | – | – | – |\n")
    expect(md).toContain(`\n| 0 | 7 | pass | \`0x0000000000000000…\` | – | 0.75 | 0.5 |\n| 1 | 8 | **fail** | \`0x0000000000000000…\` | – | 1 | 0.7 |\n`)
    expect(runsSummaryLines(file.summary).find((l) => l.includes("discountPaidBps"))).toBe("  discountPaidBps    no value in any run")
    expect(summarizeRuns(runs.slice(0, 1)).summary.kpis.p99LatencySeconds).toEqual({ runs: 1, mean: 0.5, sd: null, min: 0.5, p5: 0.5, p50: 0.5, p95: 0.5, max: 0.5 })
  })
})

describe("agents' rejections and fallbacks", () => {
  it("count an intent sent another way than asked as a fallback, not a rejection (it was sent)", async () => {
    // fast-path-heavy with a tenth of the solvers' inventory: intents over it are refused the fast path.
    const text = readFileSync(new URL("../../scenarios/fast-path-heavy.yaml", import.meta.url), "utf8").replaceAll("tokens: 150000", "tokens: 15000").replaceAll("tokens: 100000", "tokens: 10000")
    const { report } = await runScenario(parseScenario(text, "fast-path-heavy.yaml"), { seed: 31, backend: "memory" })
    const traders = report.agents.find((a) => a.population === "traders")!
    // Refused fast paths were sent as basic intents: counted among the basic actions, and as fallbacks only.
    expect(traders.fallbacks["basicForFast:OverSolverLimit"]).toBeGreaterThan(0)
    expect(Object.keys(traders.rejections).filter((r) => r.startsWith("fastPath:") || r === "overLimit")).toEqual([])
    expect(Object.keys(traders.fallbacks).every((f) => f.startsWith("basicForFast:") || f === "sentOverLimit")).toBe(true)
    expect(renderMarkdown(report)).toMatch(/\| traders \| rebalancer \| 10 \| fast \d+, basic \d+ \| – \| basicForFast:OverSolverLimit \d+(, sentOverLimit \d+)? \|/)
  })
})

describe("the discount per invoice", () => {
  it("is given in bps to six decimals, as the headline rates (three made small discounts read 0)", async () => {
    const { report } = await runScenario(loadScenario(new URL("../../scenarios/fast-path-heavy.yaml", import.meta.url).pathname), { seed: 31, backend: "memory" })
    const d = report.discounts.perInvoiceBps
    expect(d.count).toBe(report.discounts.invoicesSettled)
    // fast-path-heavy's 11 invoices, most bought at no discount: p99 0.057515 bps, max 0.063905 (an invoice's rate,
    // truncated as every ratio is: rounded, it read 0.063906), mean 0.00581 (three decimals read 0.058, 0.064 and 0.006).
    expect([d.p99, d.max, d.mean]).toEqual([0.057515, 0.063905, 0.00581])
    // The rates, each of its own volume: 0.47904326469 tokens paid on invoices of 103,616.8344668631 tokens is
    // 0.0462321849 bps of them (its one asset's alike), of the 1,360,367.3254... tokens the hub settled 0.0035214258.
    const { paid, invoicedVolume, settledVolume, paidBps, paidBpsOfInvoices, byTicker } = report.discounts
    expect([paid, invoicedVolume, settledVolume.slice(0, 12), paidBpsOfInvoices, paidBps]).toEqual(["0.47904326469", "103616.8344668631", "1360367.3254", 0.046232, 0.003521])
    expect(byTicker).toEqual({ USDC: { paid, invoicedVolume, paidBpsOfInvoices: 0.046232, invoicesSettled: 11 } })
  })
})

describe("intents and latency by agent population", () => {
  const drain = readFileSync(new URL("../../scenarios/one-sided-drain.yaml", import.meta.url), "utf8")
  const withProperties = (properties: string): string => drain.replace(/^properties:[\s\S]*$/m, `properties:\n${properties}`)

  it("splits the counts and latencies by population, and lets properties name them", async () => {
    const loaded = parseScenario(withProperties("  - population.drainers.latency.p99 <= 1\n  - population.mm.intents.created >= 1\n  - population.mm.latency.settlement.max > 0\n"), "drain.yaml")
    const { report } = await runScenario(loaded, { seed: loaded.spec.seed ?? 1, backend: "memory" })
    const byPopulation = report.intents.byPopulation!
    expect(Object.keys(byPopulation)).toEqual(["drainers", "mm"])
    // The headline figures are the users' (the drainers'): the arbitrageur's purchases, settled as soon as they buy
    // an invoice, count in their population only.
    expect(byPopulation.mm!.created).toBeGreaterThan(0)
    expect(report.intents.created).toBe(byPopulation.drainers!.created)
    expect(report.intents.settled).toBe(byPopulation.drainers!.settled)
    expect(report.intents.byTicker!.USDC).toEqual({ created: byPopulation.drainers!.created, settled: byPopulation.drainers!.settled })
    const user = report.latency.byPopulation!
    const { count, p50, p90, p99, max, mean } = report.latency
    expect({ count, p50, p90, p99, max, mean }).toEqual(user.drainers)
    expect(report.latency.settlement).toMatchObject(report.latency.settlement.byPopulation!.drainers!)
    expect(report.latency.settlement.byPopulation!.mm!.count).toBe(byPopulation.mm!.settled)
    // Netting measures the users' settlements only: the drainers' one lane, not the arbitrageurs' purchases back
    // (31002→31001, settled from the drainers' custody).
    expect(Object.keys(report.netting.byLane)).toEqual(["31001>31002"])
    // The arbitrageurs' deposits settle within the epoch they buy in; the drainers' invoices wait far longer.
    expect(user.drainers!.p50!).toBeGreaterThan(user.mm!.p50!)
    const [slow, created, settlement] = report.properties
    expect(slow).toEqual({ name: "population.drainers.latency.p99 <= 1", pass: false, value: user.drainers!.p99 })
    expect(created).toEqual({ name: "population.mm.intents.created >= 1", pass: true, value: byPopulation.mm!.created })
    expect(settlement!.pass).toBe(true)
    const md = renderMarkdown(report)
    expect(md).toContain(`| mm (arbitrageur) | ${byPopulation.mm!.created} | ${byPopulation.mm!.settled} | ${user.mm!.count} | ${user.mm!.p50} |`)
    expect(md).toContain(`- users' intents created ${byPopulation.drainers!.created}, settled ${byPopulation.drainers!.settled}; the agents' own (not in these figures) created ${byPopulation.mm!.created}, settled ${byPopulation.mm!.settled}`)
    const html = renderHtml(report, [])
    expect(html).toContain(`<tr><td>drainers</td><td>${byPopulation.drainers!.created}</td>`)
    expect(html).toContain(`agents&#39; own intents settled</span><b>${byPopulation.mm!.settled} of ${byPopulation.mm!.created}`)
  })

  it("takes population names with dashes, underscores and dots in properties", async () => {
    const renamed = drain.replaceAll("drainers", "drain-ers_x.y")
    const loaded = parseScenario(renamed.replace(/^properties:[\s\S]*$/m, "properties:\n  - population.drain-ers_x.y.latency.p99 > 0\n"), "drain.yaml")
    const { report } = await runScenario(loaded, { seed: loaded.spec.seed ?? 1, backend: "memory" })
    expect(report.properties).toEqual([{ name: "population.drain-ers_x.y.latency.p99 > 0", pass: true, value: report.latency.byPopulation!["drain-ers_x.y"]!.p99 }])
  })

  it("refuses a property naming a population the scenario does not have", () => {
    expect(() => parseScenario(withProperties("  - population.traders.latency.p99 <= 600\n"), "drain.yaml")).toThrow(
      /properties\[0\]: unknown metric "population\.traders\.latency\.p99" \(known: .*; a population's metrics: population\.<name>\.intents\.created, .* for the populations drainers, mm; an asset.s: asset\.<symbol>\.intents\.created, .* for the assets USDC\)/,
    )
    // Any unknown name lists them all, the populations' metrics included.
    expect(() => parseScenario(withProperties("  - fooMetric >= 0\n"), "drain.yaml")).toThrow(
      /properties\[0\]: unknown metric "fooMetric" \(known: .*; a population's metrics: population\.<name>\.intents\.created, .* for the populations drainers, mm; an asset.s: asset\.<symbol>\.intents\.created, .* for the assets USDC\)/,
    )
  })
})

describe("intents by asset", () => {
  it("counts each input asset's intents, shows them when there are several, and lets properties name them", async () => {
    const file = join(import.meta.dirname, "..", "..", "scenarios", "five-chain-mixed.yaml")
    const text = readFileSync(file, "utf8").replace(/^properties:/m, "properties:\n  - asset.WETH.settledShare >= 0.9\n  - asset.USDC.intents.created > 0\n  - asset.USDT.intents.created == 0\n  - asset.USDC.nettingRatio > 0")
    const { report } = await runScenario(parseScenario(text, "five-chain-mixed.yaml"), { seed: 51, backend: "memory" })
    const byTicker = report.intents.byTicker!
    // Every asset in scenario order, USDT (which no intent starts from) with 0.
    expect(Object.keys(byTicker)).toEqual(["USDC", "WETH", "USDT", "XT"])
    expect(byTicker.USDT).toEqual({ created: 0, settled: 0 })
    // XT is xERC20 on every chain: all its intents (ttl 0, as the agents send them) are on the xERC20 path.
    expect(byTicker.XT!.created).toBeGreaterThan(0)
    expect(report.intents.byPath.xerc20.created).toBe(byTicker.XT!.created)
    expect(report.properties.find((p) => p.name === "asset.USDT.intents.created == 0")!.pass).toBe(true)
    expect(Object.values(byTicker).reduce((n, c) => n + c.created, 0)).toBe(report.intents.created)
    expect(Object.values(byTicker).reduce((n, c) => n + c.settled, 0)).toBe(report.intents.settled)
    const weth = report.properties.find((p) => p.name === "asset.WETH.settledShare >= 0.9")!
    // The share to 6 decimals, truncated, as every settled share is given (and judged).
    const wethShare = Math.floor((byTicker.WETH!.settled / byTicker.WETH!.created) * 1e6 + 1e-9) / 1e6
    expect(weth.value).toBe(wethShare)
    expect(weth.pass).toBe(wethShare >= 0.9)
    expect(report.properties.find((p) => p.name === "asset.USDC.intents.created > 0")!.pass).toBe(true)
    // Netting per asset, in its own tokens: the assets' volumes, each at its price (whole USD in the scenario), add
    // up to the overall figure, in USD.
    const netting = report.netting.byTicker!
    const units = (decimal: string) => BigInt(decimal.split(".")[0]!) * 10n ** 18n + BigInt((decimal.split(".")[1] ?? "").padEnd(18, "0"))
    const price: Record<string, bigint> = { USDC: 1n, WETH: 3000n, USDT: 1n, XT: 1n }
    expect(report.netting.unit).toBe("USD")
    expect(Object.entries(netting).reduce((n, [s, t]) => n + price[s]! * units(t.totalVolume), 0n)).toBe(units(report.netting.totalVolume))
    expect(Object.entries(netting).reduce((n, [s, t]) => n + price[s]! * units(t.nettedVolume), 0n)).toBe(units(report.netting.nettedVolume))
    expect(report.properties.find((p) => p.name === "asset.USDC.nettingRatio > 0")).toMatchObject({ pass: true, value: netting.USDC!.ratio })
    // Discount per asset: its invoices and discount add up to the totals.
    const discounts = report.discounts.byTicker!
    expect(Object.values(discounts).reduce((n, d) => n + d.invoicesSettled, 0)).toBe(report.discounts.invoicesSettled)
    expect(report.discounts.unit).toBe("USD")
    expect(Object.entries(discounts).reduce((n, [s, d]) => n + price[s]! * units(d.paid), 0n)).toBe(units(report.discounts.paid))
    expect(Object.entries(discounts).reduce((n, [s, d]) => n + price[s]! * units(d.invoicedVolume), 0n)).toBe(units(report.discounts.invoicedVolume!))
    expect(renderMarkdown(report)).toContain(`- by asset: USDC ${byTicker.USDC!.created} created, ${byTicker.USDC!.settled} settled, netting ratio ${ratio4Text(netting.USDC!.ratio)};`)
    expect(renderMarkdown(report)).toContain("(the amounts below are in USD, each asset's tokens at its priceUsd)")
    expect(renderHtml(report, [])).toContain(`WETH intents settled</span><b>${byTicker.WETH!.settled} of ${byTicker.WETH!.created} (`)
    // An asset the scenario does not have is a load error naming the assets.
    expect(() => parseScenario(text.replace("asset.WETH.settledShare", "asset.DAI.settledShare"), "five-chain-mixed.yaml")).toThrow(/unknown metric "asset\.DAI\.settledShare" .*for the assets USDC, WETH, USDT, XT/)
  })
})

describe("netting by asset and lane", () => {
  it("gives each asset its own lanes, in its own tokens: they add up to the asset's total, and over the assets, each at its price, to netting.byLane", async () => {
    const { parseUnits } = await import("viem")
    const { report } = await runScenario(loadScenario(new URL("../../scenarios/five-chain-mixed.yaml", import.meta.url).pathname), { seed: 51, backend: "memory" })
    const units = (tokens: string) => parseUnits(tokens, 18)
    // five-chain-mixed's prices, whole USD: a USD total has 18 decimals as the tokens do.
    const price: Record<string, bigint> = { USDC: 1n, WETH: 3000n, USDT: 1n, XT: 1n }
    const tickers = Object.entries(report.netting.byTicker ?? {})
    expect(tickers.length).toBeGreaterThan(1)
    const byLane = new Map<string, bigint>()
    for (const [symbol, t] of tickers) {
      const lanes = Object.entries(t.byLane ?? {})
      expect(lanes.length, symbol).toBeGreaterThan(0)
      expect(lanes.reduce((sum, [, l]) => sum + units(l.totalVolume), 0n), symbol).toBe(units(t.totalVolume))
      for (const [lane, l] of lanes) byLane.set(lane, (byLane.get(lane) ?? 0n) + price[symbol]! * units(l.totalVolume))
    }
    // Lanes in netting.byLane's order, each the assets' USD values added.
    expect([...byLane.keys()].sort()).toEqual(Object.keys(report.netting.byLane).sort())
    for (const [lane, l] of Object.entries(report.netting.byLane)) expect(byLane.get(lane), lane).toBe(units(l.totalVolume))
  })
})
