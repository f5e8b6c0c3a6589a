/**
 * Two chain backends, one behaviour: a scenario gives the same trace hash on local anvil chains (contracts
 * deployed through prool) as in memory, the same report (but for the backend's name, wall time and runtime) and
 * the same time series. Three scenarios here: the balanced one; five chains with every path (fast, swaps, xERC20,
 * solvers, arbitrageurs); transport faults with hub outages. (Every shipped scenario but the stress run was
 * checked the same way by hand on 2026-11-22, eleventh session: README, the shipped scenarios.)
 */
import { describe, expect, it } from "vitest"
import { reportDifferences } from "./report/report.ts"
import { runScenario } from "./run.ts"
import { loadScenario } from "./scenario/load.ts"

describe("memory and anvil backends", () => {
  it.each(["balanced-two-chain", "five-chain-mixed", "transport-faults"])(
    "give the same trace hash, report and time series on %s",
    async (name) => {
      const loaded = loadScenario(new URL(`../scenarios/${name}.yaml`, import.meta.url).pathname)
      const seed = loaded.spec.seed ?? 1
      const memory = await runScenario(loaded, { seed, backend: "memory" })
      const anvil = await runScenario(loaded, { seed, backend: "anvil" })
      expect(anvil.report.backend).toBe("anvil")
      expect(anvil.report.traceHash).toBe(memory.report.traceHash)
      expect(anvil.report.world.spokeCalls).toBeGreaterThan(0)
      expect(reportDifferences(memory.report, memory.timeseries, { ...anvil.report, backend: memory.report.backend }, anvil.timeseries)).toEqual([])
    },
    300_000,
  )
})
