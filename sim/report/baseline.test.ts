/**
 * Baselines and `clearsim check` / `clearsim compare`: the verdict rules on hand-made baselines, and the
 * commands end to end (real runs of the quickstart scenario, real files, the CLI's exit codes).
 */
import { spawnSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { checkScenarios } from "../cli/check.ts"
import { type Baseline, compareBaselines, MAX_JSON_FILE_BYTES, readBaseline, renderComparison } from "./baseline.ts"

const root = new URL("../../", import.meta.url).pathname
const tmp = mkdtempSync(join(tmpdir(), "clearsim-baseline-"))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const base: Baseline = {
  scenario: "s",
  file: "scenarios/s.yaml",
  seed: 1,
  backend: "memory",
  version: "0.1.0",
  traceHash: `0x${"aa".repeat(32)}`,
  kpis: { nettingRatio: 0.8, settledShare: 0.99, discountPaidBps: 1, p50LatencySeconds: 100, p90LatencySeconds: 200, p99LatencySeconds: 1000, p99SettlementLatencySeconds: 900, hubReverts: 0, spokeReverts: 2 },
  counts: { intentsCreated: 100, intentsSettled: 99, invoicesCreated: 10, invoicesSettled: 10 },
  properties: { "nettingRatio >= 0.5": true, "p99LatencySeconds <= 3600": true },
}
const withKpis = (kpis: Record<string, number | null>, extra: Partial<Baseline> = {}): Baseline => ({ ...base, traceHash: `0x${"bb".repeat(32)}`, kpis: { ...base.kpis, ...kpis }, ...extra })

describe("compareBaselines", () => {
  it("finds nothing between equal baselines", () => {
    const c = compareBaselines(base, base)
    expect([c.regressed, c.traceChanged, c.diffs, c.newlyFailing]).toEqual([false, false, [], []])
    expect(renderComparison(c)).toContain("s: same")
    expect(renderComparison(c)).not.toContain("CHANGELOG")
  })

  it("names both scenarios in the heading when they differ, the reference first, and one when they are the same", () => {
    expect(renderComparison(compareBaselines({ ...base, scenario: "before" }, { ...base, scenario: "after" })).split("\n")[0]).toBe("before -> after: same")
    expect(renderComparison(compareBaselines(base, withKpis({ nettingRatio: 0.7 }, { scenario: "t" }))).split("\n")[0]).toBe("s -> t: REGRESSION")
    expect(renderComparison(compareBaselines(base, base)).split("\n")[0]).toBe("s: same")
  })

  it("says when the two were written by different clearsim versions (KPI definitions may differ)", () => {
    const text = renderComparison(compareBaselines(base, { ...base, version: "0.2.0" }))
    expect(text).toContain("s: same")
    expect(text).toContain("written by clearsim 0.1.0 and 0.2.0: CHANGELOG.md says which KPI definitions and behaviours changed between them")
  })

  it("judges no netting ratio or discount measured in another unit (prices given or taken away), and says why", () => {
    const priced = withKpis({ nettingRatio: 0.6, discountPaidBps: 3, p99LatencySeconds: 1100 }, { traceHash: base.traceHash, unit: "USD" })
    const c = compareBaselines(base, priced)
    expect([c.baselineUnit, c.currentUnit]).toEqual(["tokens", "USD"])
    expect(c.diffs.map((d) => [d.name, d.verdict])).toEqual([
      ["nettingRatio", "changed"],
      ["discountPaidBps", "changed"],
      ["p99LatencySeconds", "regression"],
    ])
    const text = renderComparison(c)
    expect(text).toContain("totals over assets in tokens and now in USD (the scenario's priceUsd given or taken away): nettingRatio and discountPaidBps measure different things and are not judged")
    // Without the latency, nothing regresses: the heading says CHANGED.
    const only = compareBaselines(base, { ...priced, kpis: { ...priced.kpis, p99LatencySeconds: 1000 } })
    expect([only.regressed, renderComparison(only).split("\n")[0]]).toEqual([false, "s: CHANGED"])
    // The same unit on both sides (a baseline without one is in tokens) is judged as always.
    expect(compareBaselines(base, withKpis({ nettingRatio: 0.6 }, { unit: "tokens" })).regressed).toBe(true)
    expect(renderComparison(compareBaselines({ ...base, unit: "USD" }, { ...base, unit: "USD" }))).not.toContain("totals over assets")
    // Equal figures in another unit (every price 1) are still a change to see.
    expect(renderComparison(compareBaselines(base, { ...base, unit: "USD" })).split("\n")[0]).toBe("s: CHANGED")
  })

  it("calls a worse KPI beyond its tolerance a regression, in the KPI's own direction", () => {
    const c = compareBaselines(base, withKpis({ nettingRatio: 0.79, p99LatencySeconds: 1100, discountPaidBps: 0.5 }))
    expect(c.diffs.map((d) => [d.name, d.verdict])).toEqual([
      ["nettingRatio", "regression"],
      ["discountPaidBps", "better"],
      ["p99LatencySeconds", "regression"],
    ])
    expect(c.regressed).toBe(true)
    const text = renderComparison(c)
    expect(text).toContain("s: REGRESSION")
    expect(text).toMatch(/✗ nettingRatio\s+0\.8 -> 0\.79\s+-0\.01 \(-1\.3 %\)\s+regression/)
    expect(text).toMatch(/✓ discountPaidBps .* better/)
  })

  it("accepts moves within tolerance (absolute or relative, whichever is larger) but shows them", () => {
    const c = compareBaselines(base, withKpis({ nettingRatio: 0.796, p99LatencySeconds: 1049, p50LatencySeconds: 100.9 }))
    expect(c.diffs.map((d) => d.verdict)).toEqual(["within tolerance", "within tolerance", "within tolerance"])
    expect(c.regressed).toBe(false)
    expect(c.traceChanged).toBe(true)
    expect(renderComparison(c)).toContain("s: CHANGED")
  })

  it("says when two trace hashes were made by different functions (a baseline from before sha256), not that behaviour changed", () => {
    const c = compareBaselines(base, { ...base, traceHash: `0x${"bb".repeat(32)}`, traceHashAlgorithm: "sha256" })
    expect([c.traceChanged, c.regressed, c.baselineTraceAlgorithm, c.currentTraceAlgorithm]).toEqual([true, false, "keccak256", "sha256"])
    const text = renderComparison(c)
    expect(text).toContain(`trace hash 0x${"aa".repeat(32)} (keccak256) -> 0x${"bb".repeat(32)} (sha256): the hashes were made by different functions`)
    expect(text).not.toContain("behaviour changed")
    // Same function, different hash: behaviour changed.
    expect(renderComparison(compareBaselines({ ...base, traceHashAlgorithm: "sha256" }, { ...base, traceHash: `0x${"bb".repeat(32)}`, traceHashAlgorithm: "sha256" }))).toContain("(the hub's events differ: behaviour changed)")
  })

  it("allows no new revert, and reports changed counts without judging them", () => {
    const c = compareBaselines(base, withKpis({ hubReverts: 1 }, { counts: { ...base.counts, intentsCreated: 101 } }))
    expect(c.diffs.map((d) => [d.name, d.verdict])).toEqual([
      ["hubReverts", "regression"],
      ["intentsCreated", "changed"],
    ])
  })

  it("calls a property that passed and now fails a regression, and lists one no longer checked", () => {
    const c = compareBaselines(base, { ...base, properties: { "p99LatencySeconds <= 3600": false } })
    expect(c.newlyFailing).toEqual(["p99LatencySeconds <= 3600"])
    expect(c.dropped).toEqual(["nettingRatio >= 0.5"])
    expect(c.regressed).toBe(true)
    const text = renderComparison(c)
    expect(text).toContain("✗ property `p99LatencySeconds <= 3600` now fails")
    expect(text).toContain("· property `nettingRatio >= 0.5` (passed in the baseline) is no longer checked")
  })
  it("calls a new property that fails a regression, and says a dropped property failed in the baseline", () => {
    const c = compareBaselines({ ...base, properties: { "nettingRatio >= 0.5": false } }, { ...base, properties: { "settledShare >= 0.9": false } })
    expect([c.newlyFailing, c.dropped, c.regressed]).toEqual([["settledShare >= 0.9"], ["nettingRatio >= 0.5"], true])
    expect(renderComparison(c)).toContain("· property `nettingRatio >= 0.5` (failed in the baseline) is no longer checked")
  })

  it("calls a KPI that lost its value a regression, and one that gained a value a change", () => {
    const lost = compareBaselines(base, { ...base, kpis: { ...base.kpis, p99SettlementLatencySeconds: null } })
    expect(lost.diffs).toEqual([{ name: "p99SettlementLatencySeconds", baseline: 900, current: null, verdict: "regression" }])
    expect(lost.regressed).toBe(true)
    expect(renderComparison(lost)).toMatch(/s: REGRESSION\n.*\n  ✗ p99SettlementLatencySeconds\s+900 -> –\s+no value now\s+regression/)
    const gained = compareBaselines({ ...base, kpis: { ...base.kpis, nettingRatio: null } }, base)
    expect(gained.diffs).toEqual([{ name: "nettingRatio", baseline: null, current: 0.8, verdict: "changed" }])
    expect(gained.regressed).toBe(false)
    // The trace hash is the same (two reports compared), yet a KPI differs: not "same".
    expect(renderComparison(gained)).toContain("s: CHANGED")
  })

  it("counts a move of exactly the tolerance as within it, despite the subtraction's rounding", () => {
    // 0.863811 - 0.858811 is 0.0050000000000000044 in doubles; 521.04 * 1.05 is the 5 % bound.
    const at = compareBaselines({ ...base, kpis: { ...base.kpis, nettingRatio: 0.863811, p99LatencySeconds: 521.04 } }, { ...base, kpis: { ...base.kpis, nettingRatio: 0.858811, p99LatencySeconds: 547.092 } })
    expect(at.diffs.map((d) => [d.name, d.verdict])).toEqual([
      ["nettingRatio", "within tolerance"],
      ["p99LatencySeconds", "within tolerance"],
    ])
    const past = compareBaselines({ ...base, kpis: { ...base.kpis, nettingRatio: 0.863811 } }, { ...base, kpis: { ...base.kpis, nettingRatio: 0.858810 } })
    expect(past.diffs.map((d) => d.verdict)).toEqual(["regression"])
  })
  it("judges each KPI in its own direction against its own tolerance: exactly the tolerance is within, a little more is a regression", () => {
    const verdict = (name: string, from: number, to: number) => compareBaselines({ ...base, kpis: { ...base.kpis, [name]: from } }, { ...base, kpis: { ...base.kpis, [name]: to } }).diffs[0]?.verdict
    const cases: [string, number, number, string][] = [
      // Shares: 0.005 absolute, higher is better.
      ["settledShare", 0.99, 0.985, "within tolerance"],
      ["settledShare", 0.99, 0.984, "regression"],
      ["settledShare", 0.98, 0.99, "better"],
      // Discount: 5 % of the baseline, at least 0.01 bps; lower is better.
      ["discountPaidBps", 1, 1.05, "within tolerance"],
      ["discountPaidBps", 1, 1.051, "regression"],
      ["discountPaidBps", 0.1, 0.11, "within tolerance"],
      ["discountPaidBps", 0.1, 0.111, "regression"],
      // Latencies: 5 % of the baseline (not of the current value, not added to the floor), at least 1 s; lower is better.
      ["p50LatencySeconds", 10, 11, "within tolerance"],
      ["p50LatencySeconds", 10, 11.01, "regression"],
      ["p90LatencySeconds", 200, 210, "within tolerance"],
      ["p90LatencySeconds", 200, 210.1, "regression"],
      ["p90LatencySeconds", 200, 190, "better"],
      ["p99LatencySeconds", 1000, 1050, "within tolerance"],
      ["p99LatencySeconds", 1000, 1051, "regression"],
      ["p99SettlementLatencySeconds", 900, 945, "within tolerance"],
      ["p99SettlementLatencySeconds", 900, 945.5, "regression"],
      // Reverts: none more, whatever the baseline.
      ["hubReverts", 20, 21, "regression"],
      ["spokeReverts", 2, 3, "regression"],
      ["spokeReverts", 2, 1, "better"],
    ]
    expect(cases.map(([name, from, to]) => [name, from, to, verdict(name, from, to)])).toEqual(cases)
  })

  it("rejects a file that is not a baseline, naming it", () => {
    const path = join(tmp, "bad.json")
    writeFileSync(path, JSON.stringify({ ...base, seed: "one" }))
    // The seed's checks as one expectation, not joined by "and".
    expect(() => readBaseline(path)).toThrow(`${path}: not a clearsim baseline: seed: Expected a non-negative integer of at most 9007199254740991 (2^53 - 1) as a number, got "one"`)
    // A seed no run can have (what --seed and scenario files refuse) is refused here too.
    writeFileSync(path, JSON.stringify({ ...base, seed: -5 }))
    expect(() => readBaseline(path)).toThrow(`${path}: not a clearsim baseline: seed: Expected a non-negative integer, got -5`)
    // A format with a clause of its own (a colon) takes its JSON type after a comma.
    writeFileSync(path, JSON.stringify({ ...base, traceHash: 5 }))
    expect(() => readBaseline(path)).toThrow(`${path}: not a clearsim baseline: traceHash: Expected a trace hash: 0x and 64 lowercase hex digits, as a string, got 5`)
  })

  it("refuses figures no run gives, naming the file, each field at fault and what it takes", () => {
    const path = join(tmp, "impossible.json")
    const refused = (edit: (b: Record<string, any>) => void, text?: (json: string) => string): string => {
      const b = structuredClone(base) as Record<string, any>
      edit(b)
      const json = JSON.stringify(b)
      writeFileSync(path, text === undefined ? json : text(json))
      try {
        readBaseline(path)
      } catch (error) {
        return (error as Error).message
      }
      return "accepted"
    }
    const head = `${path}: not a clearsim baseline: `
    expect(refused((b) => (b.kpis.hubReverts = -3))).toBe(`${head}kpis.hubReverts: Expected a non-negative integer, got -3`)
    expect(refused((b) => (b.kpis.spokeReverts = 1.5))).toBe(`${head}kpis.spokeReverts: Expected an integer, got 1.5`)
    expect(refused((b) => (b.counts.intentsCreated = -1))).toBe(`${head}counts.intentsCreated: Expected a non-negative integer, got -1`)
    expect(refused((b) => (b.kpis.nettingRatio = 1.2))).toBe(`${head}kpis.nettingRatio: Expected a ratio from 0 to 1, got 1.2`)
    expect(refused((b) => (b.kpis.settledShare = -0.1))).toBe(`${head}kpis.settledShare: Expected a ratio from 0 to 1, got -0.1`)
    expect(refused((b) => (b.kpis.discountPaidBps = -0.5))).toBe(`${head}kpis.discountPaidBps: Expected a non-negative number of bps, got -0.5`)
    expect(refused((b) => (b.kpis.p99LatencySeconds = -1))).toBe(`${head}kpis.p99LatencySeconds: Expected a non-negative number of seconds, got -1`)
    // A number as a string ("NaN" above all) is not a number; nor is JSON's 1e999, which reads as Infinity.
    expect(refused((b) => (b.kpis.p50LatencySeconds = "NaN"))).toBe(`${head}kpis.p50LatencySeconds: Expected a non-negative number of seconds or null, got "NaN"`)
    expect(refused((b) => (b.counts.invoicesSettled = "10"))).toBe(`${head}counts.invoicesSettled: Expected a non-negative integer as a number, got "10"`)
    expect(refused(() => {}, (json) => json.replace('"p90LatencySeconds":200', '"p90LatencySeconds":1e999'))).toBe(`${head}kpis.p90LatencySeconds: Expected a finite number, got Infinity`)
    // Every KPI and count is recorded (null where the run had no value): one missing is not taken for "no value".
    expect(refused((b) => delete b.kpis.hubReverts)).toBe(`${head}kpis.hubReverts: Missing key: expected a non-negative integer as a number`)
    expect(refused((b) => delete b.counts.intentsSettled)).toBe(`${head}counts.intentsSettled: Missing key: expected a non-negative integer as a number`)
    // Values possible alone but not together: more settled than created, percentiles out of order.
    expect(refused((b) => (b.counts.intentsSettled = 101))).toBe(`${head}counts.intentsSettled: Expected a number of intents settled of at most counts.intentsCreated (100), got 101`)
    expect(refused((b) => (b.counts.invoicesSettled = 11))).toBe(`${head}counts.invoicesSettled: Expected a number of invoices settled of at most counts.invoicesCreated (10), got 11`)
    expect(refused((b) => (b.kpis.p90LatencySeconds = 2000))).toBe(`${head}kpis.p90LatencySeconds: Expected a latency of at most kpis.p99LatencySeconds (1000), got 2000`)
    expect(refused((b) => (b.scenarioHash = "abc"))).toBe(`${head}scenarioHash: Expected a scenario file's hash: 0x and 64 lowercase hex digits, got "abc"`)
    // Every problem at once, in one line.
    expect(refused((b) => ((b.kpis.hubReverts = -1), (b.counts.invoicesCreated = 0.5)))).toBe(`${head}kpis.hubReverts: Expected a non-negative integer, got -1; counts.invoicesCreated: Expected an integer, got 0.5`)
    // The bounds themselves, and null where a run can have no value, are taken.
    const bounds = { ...base.kpis, nettingRatio: 0, settledShare: 1, discountPaidBps: 0, p50LatencySeconds: 0, p90LatencySeconds: 0, p99LatencySeconds: 0, p99SettlementLatencySeconds: 0, hubReverts: 0, spokeReverts: 0 }
    expect(refused((b) => ((b.kpis = bounds), (b.counts = { intentsCreated: 0, intentsSettled: 0, invoicesCreated: 0, invoicesSettled: 0 })))).toBe("accepted")
    const nulls = { ...base.kpis, nettingRatio: null, settledShare: null, discountPaidBps: null, p50LatencySeconds: null, p90LatencySeconds: null, p99LatencySeconds: null, p99SettlementLatencySeconds: null }
    expect(refused((b) => (b.kpis = nulls))).toBe("accepted")
  })

  it("reads every committed baseline", () => {
    const dir = join(root, "reports", "baseline")
    const files = readdirSync(dir).filter((name) => name.endsWith(".json"))
    expect(files.length).toBeGreaterThan(0)
    for (const name of files) expect(readBaseline(join(dir, name)).scenario, name).toBe(name.replace(/\.json$/, ""))
  })
})

describe("clearsim check and compare", () => {
  const dir = join(tmp, "baseline")
  const quickstart = join(root, "scenarios/quickstart.yaml")

  it("writes a baseline with --update, then passes against it", async () => {
    const written = await checkScenarios({ scenarios: [quickstart], baselineDir: dir, update: true, kpisOnly: false })
    expect(written.exitCode).toBe(0)
    const baseline = readBaseline(join(dir, "quickstart.json"))
    expect(baseline.traceHash).toBe(readBaseline(join(root, "reports/baseline/quickstart.json")).traceHash)
    // The settled share to 6 decimals, truncated as the netting ratio is (497 of 508 intents: 0.97834645...).
    expect([baseline.counts.intentsSettled, baseline.counts.intentsCreated, baseline.kpis.settledShare]).toEqual([497, 508, 0.978346])
    expect(readFileSync(join(dir, "quickstart.json"), "utf8")).toContain('"settledShare": 0.978346,\n')
    expect(baseline.kpis).toEqual(readBaseline(join(root, "reports/baseline/quickstart.json")).kpis)
    // The scenario named relative to the baseline's directory.
    expect(baseline.file).toBe(relative(dir, quickstart))
    const checked = await checkScenarios({ scenarios: [], baselineDir: dir, update: false, kpisOnly: false })
    expect(checked.exitCode).toBe(0)
    expect(checked.output).toContain("quickstart: same")
    expect(checked.output).toContain("1 scenario checked: 0 with regressions, 0 with a changed trace hash")
    // A baseline of an older clearsim (keccak256 trace hash, no traceHashAlgorithm): counted apart, with its own hint.
    const { traceHashAlgorithm: _, ...older } = baseline
    writeFileSync(join(dir, "quickstart.json"), JSON.stringify({ ...older, traceHash: `0x${"00".repeat(32)}` }))
    const againstOlder = await checkScenarios({ scenarios: [], baselineDir: dir, update: false, kpisOnly: false })
    expect(againstOlder.exitCode).toBe(1)
    expect(againstOlder.output).toContain(
      "1 scenario checked: 0 with regressions, 0 with a changed trace hash, 1 with a trace hash of another function (baselines hashed by another function cannot be compared on the trace hash: once the KPIs are as expected, rewrite them with --update)",
    )
    expect(againstOlder.output).not.toContain("behaviour changed")
    expect((await checkScenarios({ scenarios: [], baselineDir: dir, update: false, kpisOnly: true })).exitCode).toBe(0)
    writeFileSync(join(dir, "quickstart.json"), JSON.stringify(baseline))
  })

  it("exits 1 from the CLI on a regression, with the diff; --kpis-only ignores a trace change alone", () => {
    const path = join(dir, "quickstart.json")
    const good = readBaseline(path)
    const run = (...args: string[]) => spawnSync(process.execPath, [join(root, "bin/clearsim.js"), "check", "--baseline-dir", dir, ...args], { cwd: root, encoding: "utf8" })
    writeFileSync(path, JSON.stringify({ ...good, kpis: { ...good.kpis, nettingRatio: (good.kpis.nettingRatio ?? 0) + 0.1 } }))
    const regressed = run()
    expect(regressed.status, regressed.stderr).toBe(1)
    expect(regressed.stdout).toContain("quickstart: REGRESSION")
    expect(regressed.stdout).toMatch(/✗ nettingRatio .* regression/)
    writeFileSync(path, JSON.stringify({ ...good, traceHash: `0x${"00".repeat(32)}` }))
    expect(run().status).toBe(1)
    const kpisOnly = run("--kpis-only")
    expect(kpisOnly.status, kpisOnly.stdout).toBe(0)
    expect(kpisOnly.stdout).toContain("quickstart: CHANGED")
    writeFileSync(path, "{")
    const broken = run()
    expect(broken.status).toBe(2)
    expect(broken.stderr).toContain(`clearsim check: ${path}: cannot read a baseline: not JSON: `)
    // A baseline whose scenario file is gone is named with it, and the others are still checked (exit 2).
    const gone = join(dir, "gone.json")
    writeFileSync(path, JSON.stringify(good))
    writeFileSync(gone, JSON.stringify({ ...good, scenario: "gone", file: "scenarios/gone.yaml" }))
    const partial = run()
    expect(partial.status).toBe(2)
    // Looked for beside the baseline (and, for a baseline written before, from the working directory: not there either).
    expect(partial.stderr).toBe(`clearsim check: ${gone}: its scenario file ${join(dir, "scenarios/gone.yaml")} cannot be read: it does not exist (ENOENT)\n`)
    expect(partial.stdout).toContain("quickstart: same")
    expect(partial.stdout).toContain("1 scenario checked: 0 with regressions, 0 with a changed trace hash; 1 baseline not checked (its scenario cannot be read, above)")
    rmSync(gone)
    // --update checks where it writes before running anything.
    writeFileSync(join(tmp, "a-file"), "")
    const blocked = spawnSync(process.execPath, [join(root, "bin/clearsim.js"), "check", quickstart, "--update", "--baseline-dir", join(tmp, "a-file", "x")], { cwd: root, encoding: "utf8" })
    expect(blocked.status).toBe(2)
    expect(blocked.stderr).toBe(`clearsim check: --baseline-dir ${join(tmp, "a-file", "x")}: expected a directory to write into (created when missing), but a part of the path is a file\n`)
  })

  it("compares two report.json files", async () => {
    const { runScenario } = await import("../run.ts")
    const { loadScenario } = await import("../scenario/load.ts")
    const report = (await runScenario(loadScenario(quickstart), { seed: 1, backend: "memory" })).report
    const a = join(tmp, "a.json")
    const b = join(tmp, "b.json")
    writeFileSync(a, JSON.stringify(report))
    writeFileSync(b, JSON.stringify({ ...report, latency: { ...report.latency, p99: (report.latency.p99 ?? 0) * 2 } }))
    const compare = (x: string, y: string) => spawnSync(process.execPath, [join(root, "bin/clearsim.js"), "compare", x, y], { cwd: root, encoding: "utf8" })
    expect(compare(a, a).status).toBe(0)
    const worse = compare(a, b)
    expect(worse.status).toBe(1)
    expect(worse.stdout).toMatch(/✗ p99LatencySeconds .* regression/)
    mkdirSync(join(tmp, "x"), { recursive: true })
    writeFileSync(join(tmp, "x/report.json"), JSON.stringify({ hello: 1 }))
    const bad = compare(a, join(tmp, "x/report.json"))
    expect(bad.status).toBe(2)
    expect(bad.stderr).toContain("not a clearsim report.json")
    // Parts of the wrong type or missing are named, not compared as NaN (exit 0) or crashed on (exit 1).
    const broken = join(tmp, "x/broken.json")
    writeFileSync(broken, JSON.stringify({ ...report, scenario: "x", netting: 5, latency: { ...report.latency, p99: "abc" }, intents: undefined }))
    const refused = compare(a, broken)
    expect(refused.status).toBe(2)
    expect(refused.stderr).toBe(
      `clearsim compare: ${broken}: not a clearsim report.json: scenario: Expected an object { name, hash }, got "x"; netting: Expected an object { ratio, totalVolume, unit }, got 5; intents: Missing key: expected an object { created, settled, byPath }; latency.p99: Expected a non-negative number of seconds or null, got "abc"\n`,
    )
    // Figures no run gives are refused as a baseline's are: a negative latency, more intents settled than created.
    const impossible = join(tmp, "x/impossible.json")
    writeFileSync(impossible, JSON.stringify({ ...report, latency: { ...report.latency, p50: -1 }, intents: { ...report.intents, settled: report.intents.created + 1 } }))
    const impossibleRefused = compare(impossible, a)
    expect(impossibleRefused.status).toBe(2)
    expect(impossibleRefused.stderr).toBe(`clearsim compare: ${impossible}: not a clearsim report.json: latency.p50: Expected a non-negative number of seconds, got -1\n`)
    writeFileSync(impossible, JSON.stringify({ ...report, intents: { ...report.intents, settled: report.intents.created + 1 } }))
    expect(compare(impossible, a).stderr).toBe(`clearsim compare: ${impossible}: not a clearsim report.json: intents.settled: Expected a number of intents settled of at most intents.created (${report.intents.created}), got ${report.intents.created + 1}\n`)
    // A byte-order mark before the JSON is read past.
    writeFileSync(join(tmp, "x/bom.json"), `\uFEFF${JSON.stringify(report)}`)
    expect(compare(a, join(tmp, "x/bom.json")).status).toBe(0)
    expect(readFileSync(a, "utf8")).toBe(JSON.stringify(report))
    // A device that never ends is refused once past the limit, not read until memory runs out.
    const endless = compare("/dev/zero", a)
    expect(endless.status).toBe(2)
    expect(endless.stderr).toBe(`clearsim compare: /dev/zero: cannot read a report or a baseline: more than ${MAX_JSON_FILE_BYTES / 2 ** 20} MiB\n`)
  })
})
