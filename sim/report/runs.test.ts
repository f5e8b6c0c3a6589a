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
})
