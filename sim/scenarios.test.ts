/**
 * Every shipped scenario: its properties hold, a second run gives the same trace hash, its trace.jsonl
 * replays through `clearsim hub replay`'s engine to that hash, and its KPIs and trace hash equal the committed
 * baseline in reports/baseline/ (what `clearsim check` compares; rewrite them with `clearsim check --update`
 * when a change of behaviour is intended). (The 1M-intent stress scenario runs here with a shortened horizon
 * and has no baseline; its full run is a benchmark.)
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { replayFile } from "../service/hub/replay.ts"
import { baselineOf, compareBaselines, readBaseline, renderComparison } from "./report/baseline.ts"
import { runScenario } from "./run.ts"
import { loadScenario, parseScenario } from "./scenario/load.ts"

const dir = new URL("../scenarios/", import.meta.url)
const files = readdirSync(dir)
  .filter((f) => f.endsWith(".yaml"))
  .sort()
const out = mkdtempSync(join(tmpdir(), "clearsim-scenarios-"))
afterAll(() => rmSync(out, { recursive: true, force: true }))

describe.each(files)("scenario %s", (file) => {
  const path = join(dir.pathname, file)
  const loaded =
    file === "stress-1m.yaml"
      ? parseScenario(readFileSync(path, "utf8").replace(/horizon: \{ hours: 24 \}/, "horizon: { seconds: 600 }"), path)
      : loadScenario(path)

  it("runs deterministically on memory, passes its properties and replays to its trace hash", async () => {
    const seed = loaded.spec.seed ?? 1
    const outDir = join(out, loaded.spec.name)
    const first = await runScenario(loaded, { seed, backend: "memory", outDir })
    const second = await runScenario(loaded, { seed, backend: "memory" })
    expect(second.report.traceHash).toBe(first.report.traceHash)
    if (file !== "stress-1m.yaml") {
      expect(first.report.properties.filter((p) => !p.pass)).toEqual([])
    }
    expect(first.report.intents.created).toBeGreaterThan(0)
    // The relayer's duplicate deliveries (refused by spoke gateways) are the transport's, not failed calls.
    expect(first.report.world.spokeRevertsByError["SpokeGateway_ReceiveMessage_AlreadyDelivered"]).toBeUndefined()
    if (file === "transport-faults.yaml") expect(first.report.world.duplicateSpokeDeliveries).toBeGreaterThan(0)
    const replayed = await replayFile(join(outDir, "trace.jsonl"), { onLine: () => {} })
    expect(replayed.traceHash).toBe(first.report.traceHash)
    expect(replayed.events).toBe(first.report.hubEvents)
    const baselineFile = new URL(`../reports/baseline/${loaded.spec.name}.json`, import.meta.url).pathname
    if (file === "stress-1m.yaml") expect(existsSync(baselineFile)).toBe(false)
    else {
      const comparison = compareBaselines(readBaseline(baselineFile), baselineOf(first.report, `scenarios/${file}`))
      expect(comparison.traceChanged || comparison.diffs.length > 0 ? renderComparison(comparison) : "same as the baseline").toBe("same as the baseline")
    }
  })
})

describe("the README's example scenario", () => {
  it("loads, runs and passes its own properties", async () => {
    const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8")
    const example = /```yaml\n([\s\S]*?)```/.exec(readme)?.[1]
    expect(example).toBeDefined()
    const result = await runScenario(parseScenario(example!, "README.md"), { seed: 7, backend: "memory" })
    expect(result.report.properties.filter((p) => !p.pass)).toEqual([])
    expect(result.report.intents.created).toBeGreaterThan(0)
  })
})
