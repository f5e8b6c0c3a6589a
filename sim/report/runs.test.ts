/** Monte Carlo runs taken together (runs.json, runs.md), on real runs of the quickstart scenario. */
import { beforeAll, describe, expect, it } from "vitest"
import { runScenario } from "../run.ts"
import { loadScenario } from "../scenario/load.ts"
import type { RunReport } from "./report.ts"
import { renderRunsMarkdown, summarizeRuns } from "./runs.ts"

describe("runs.json", () => {
  let report: RunReport
  beforeAll(async () => {
    report = (await runScenario(loadScenario(new URL("../../scenarios/quickstart.yaml", import.meta.url).pathname), { seed: 1, backend: "memory" })).report
  })

  it("gives each run's settled share to 6 decimals, truncated like the netting ratio, as baselines record it", () => {
    // 497 of 508 intents settled: 0.978346456..., with 16 digits before.
    expect([report.intents.settled, report.intents.created]).toEqual([497, 508])
    const file = summarizeRuns([report, { ...report, run: 1, seed: 2 }])
    expect(file.runs.map((r) => r.kpis.settledShare)).toEqual([0.978346, 0.978346])
    expect(file.runs[0]!.kpis.nettingRatio).toBe(report.netting.ratio)
    expect(file.summary.kpis.settledShare).toMatchObject({ runs: 2, mean: 0.978346, min: 0.978346, max: 0.978346 })
    expect(renderRunsMarkdown(file)).toContain(` | ${report.netting.ratio} | 0.978346 | `)
  })

  it("says what the netting ratio and the discount's bps are by: USD value (quickstart prices its assets) or tokens", () => {
    // Was: runs.md gave the netting ratio with no word of its unit, where report.md says "(by USD value)".
    const usd = summarizeRuns([report])
    expect(usd.summary.unit).toBe("USD")
    expect(renderRunsMarkdown(usd)).toContain("The netting ratio and the discount's bps are by USD value (each asset's tokens at its priceUsd).")
    const tokens = summarizeRuns([{ ...report, netting: { ...report.netting, unit: "tokens" } }])
    expect(tokens.summary.unit).toBe("tokens")
    expect(renderRunsMarkdown(tokens)).toContain("The netting ratio and the discount's bps add the assets' tokens as they are (no priceUsd).")
    // Reports of versions before units: tokens.
    const { unit: _, ...older } = report.netting
    expect(summarizeRuns([{ ...report, netting: older }]).summary.unit).toBe("tokens")
  })
})
