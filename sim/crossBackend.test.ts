/**
 * Two chain backends, one behaviour: the balanced scenario gives the same trace hash on local anvil chains
 * (contracts deployed through prool) as in memory, and the same report metrics.
 */
import { describe, expect, it } from "vitest"
import { runScenario } from "./run.ts"
import { loadScenario } from "./scenario/load.ts"

describe("memory and anvil backends", () => {
  it("give the same trace hash and metrics on the balanced two-chain scenario", async () => {
    const loaded = loadScenario(new URL("../scenarios/balanced-two-chain.yaml", import.meta.url).pathname)
    const seed = loaded.spec.seed ?? 1
    const memory = await runScenario(loaded, { seed, backend: "memory" })
    const anvil = await runScenario(loaded, { seed, backend: "anvil" })
    expect(anvil.report.traceHash).toBe(memory.report.traceHash)
    expect(anvil.report.intents).toEqual(memory.report.intents)
    expect(anvil.report.netting).toEqual(memory.report.netting)
    expect(anvil.report.latency).toEqual(memory.report.latency)
    expect(anvil.report.world.spokeReverts).toBe(memory.report.world.spokeReverts)
  }, 300_000)
})
