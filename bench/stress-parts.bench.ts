/**
 * Where the stress scenario's time goes: the run as `clearsim run --out` does it (report files and trace.jsonl
 * written, the same heap limit), then with the trace hash, the read model or the metrics replaced by no-ops, then
 * with all three, each case in its own process (the replacements patch the classes). A measurement device, not a
 * mode of clearsim: with the metrics off a run reports nothing, and with the read model off quotes fall back to
 * their priors (no agent of this scenario reads either, so every case does the same work: checked, as the same
 * number of spoke calls).
 *
 * Each case also reports the CPU time of its run over all threads (`process.cpuUsage()`: the main thread, the
 * trace workers and V8's helper threads). On this machine the two CPUs share one core, so work moved off the main
 * thread still slows it; CPU time shows such savings, and it varies less from hour to hour than wall time.
 *
 * Run: `npm run bench -- stress-parts` (6 virtual hours, about 250,000 intents and a minute in all), or
 * `STRESS_HOURS=24 npm run bench -- stress-parts` for the whole 1M-intent scenario (about four minutes).
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir, totalmem } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import v8Flags from "../bin/v8-flags.json" with { type: "json" }
import { TraceHasher } from "../service/hub/trace.ts"
import { ReadModel } from "../service/indexer/readModel.ts"
import { MetricsCollector } from "../sim/metrics/collector.ts"
import { runScenario } from "../sim/run.ts"
import { parseScenario } from "../sim/scenario/load.ts"

const PARTS = ["trace", "model", "metrics"] as const
type Part = (typeof PARTS)[number]
const CASES: readonly (readonly Part[])[] = [[], ["trace"], ["model"], ["metrics"], [...PARTS]]
const LABEL: Record<Part, string> = { trace: "trace hash", model: "read model", metrics: "metrics" }

const noop = (): void => {}

const switchOff = (part: Part): void => {
  switch (part) {
    case "trace":
      TraceHasher.prototype.emit = function (this: TraceHasher) {
        this.events++
      }
      return
    case "model":
      Object.assign(ReadModel.prototype, { onSpokeEvent: noop, onHubEvent: noop, onDelivery: noop, onInvoiceEvaluated: noop })
      return
    case "metrics":
      Object.assign(MetricsCollector.prototype, { onSpokeEvent: noop, onHubEvent: noop, onCustody: noop, onEpoch: noop })
      return
  }
}

/** One case, in this process: prints `{ seconds, cpuSeconds, spokeCalls }` as JSON. */
const runCase = async (hours: number, off: readonly Part[]): Promise<void> => {
  for (const part of off) switchOff(part)
  const file = fileURLToPath(new URL("../scenarios/stress-1m.yaml", import.meta.url))
  // The horizon shortened, and no properties (with the metrics off they could not hold).
  const text = readFileSync(file, "utf8")
    .replace(/^horizon: .*$/m, `horizon: { hours: ${hours} }`)
    .replace(/^properties:[\s\S]*$/m, "")
  const outDir = mkdtempSync(join(tmpdir(), "clearsim-stress-parts-"))
  try {
    const cpuBefore = process.cpuUsage()
    const started = performance.now()
    const result = await runScenario(parseScenario(text, file), { seed: 71, backend: "memory", outDir })
    const seconds = (performance.now() - started) / 1000
    const cpu = process.cpuUsage(cpuBefore)
    console.log(JSON.stringify({ seconds, cpuSeconds: (cpu.user + cpu.system) / 1e6, spokeCalls: result.report.world.spokeCalls }))
  } finally {
    rmSync(outDir, { recursive: true, force: true })
  }
}

const main = (hours: number): void => {
  console.log(`stress-1m, ${hours} virtual hours, memory backend, Node ${process.version}, each case in its own process`)
  const rows: { case: string; "run s": string; "the part costs s": string; "CPU s": string; "its CPU s": string }[] = []
  let whole = 0
  let wholeCpu = 0
  let calls = -1
  // The heap limit `clearsim run` gives such runs (bin/clearsim.js).
  const heap = `--max-old-space-size=${Math.min(v8Flags.heapCapMb, Math.floor((totalmem() / 2 ** 20) * v8Flags.heapShareOfMemory))}`
  for (const off of CASES) {
    const child = spawnSync(process.execPath, [...process.execArgv, heap, fileURLToPath(import.meta.url), "--case", String(hours), off.join(",")], { encoding: "utf8", maxBuffer: 1 << 26 })
    const line = child.stdout.trim().split("\n").at(-1) ?? ""
    if (child.status !== 0 || !line.startsWith("{")) {
      process.stderr.write(child.stderr)
      throw new Error(`case "${off.join(",") || "none"}" failed (exit ${child.status})`)
    }
    const { seconds, cpuSeconds, spokeCalls } = JSON.parse(line) as { seconds: number; cpuSeconds: number; spokeCalls: number }
    if (calls >= 0 && spokeCalls !== calls) throw new Error(`case "${off.join(",")}" made ${spokeCalls} spoke calls, not ${calls}: it did other work, so its time says nothing`)
    calls = spokeCalls
    if (off.length === 0) {
      whole = seconds
      wholeCpu = cpuSeconds
    }
    rows.push({
      case: off.length === 0 ? `nothing off (${spokeCalls.toLocaleString("en-US")} spoke calls)` : `${off.map((p) => LABEL[p]).join(" + ")} off`,
      "run s": seconds.toFixed(1),
      "the part costs s": off.length === 0 ? "" : (whole - seconds).toFixed(1),
      "CPU s": cpuSeconds.toFixed(1),
      "its CPU s": off.length === 0 ? "" : (wholeCpu - cpuSeconds).toFixed(1),
    })
  }
  console.table(rows)
}

const at = process.argv.indexOf("--case")
if (at >= 0) {
  await runCase(Number(process.argv[at + 1]), (process.argv[at + 2] ?? "").split(",").filter((p): p is Part => (PARTS as readonly string[]).includes(p)))
} else {
  const hours = Number(process.env.STRESS_HOURS ?? "6")
  if (!(hours > 0 && hours <= 24)) throw new Error(`STRESS_HOURS: expected a number of virtual hours in (0, 24], got ${process.env.STRESS_HOURS}`)
  main(hours)
}
