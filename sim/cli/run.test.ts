import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import { Command } from "effect/cli"
import { afterEach, describe, expect, it, vi } from "vitest"
import { TWO_USERS_USDC, twoChainUsdcText } from "../scenario/testing.ts"
import { latencyText, type RunReport } from "../report/report.ts"
import { rerunCommandLine, runCommand } from "./run.ts"

// Two quiet chains, a few minutes, three runs from seed 5, and a property no run can meet.
const failing = `
name: always-fails
seed: 5
runs: 3
horizon: { seconds: 120 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
agents: {}
properties:
  - { coverage: invoiceCreated }
`

/** Runs `clearsim run <args>` and returns what it printed. */
const run = async (args: readonly string[]) => {
  const out: string[] = []
  const err: string[] = []
  const log = vi.spyOn(console, "log").mockImplementation((...xs: unknown[]) => void out.push(xs.join(" ")))
  const error = vi.spyOn(console, "error").mockImplementation((...xs: unknown[]) => void err.push(xs.join(" ")))
  const progress: string[] = []
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation((text) => (progress.push(String(text)), true))
  try {
    await Command.runWith(runCommand, { version: "test" })(args).pipe(Effect.provide(NodeServices.layer), Effect.runPromise)
  } finally {
    log.mockRestore()
    error.mockRestore()
    stderr.mockRestore()
  }
  return { out: out.join("\n"), err: err.join("\n"), progress: progress.join("") }
}

describe("clearsim run", () => {
  let dir: string | undefined
  afterEach(() => {
    process.exitCode = undefined
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  it("--check-determinism runs each seed twice, compares trace.jsonl too, and leaves no temporary trace", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-run-"))
    const file = join(dir, "quick.yaml")
    writeFileSync(file, failing.replace("runs: 3\n", "").replace(/properties:[\s\S]*$/, ""))
    const temporaries = () => readdirSync(tmpdir()).filter((name) => name.startsWith("clearsim-determinism-")).length
    const before = temporaries()
    const r = await run([file, "--check-determinism", "--out", join(dir, "out")])
    expect(r.out).toContain("  determinism: second run gave the same trace hash, report, time series and trace.jsonl")
    // The second run shows its progress too (as `--jobs` passes progress lines through: "<name> ... seed S: P%").
    expect(r.progress).toContain("always-fails seed 5: 100% of virtual time\n")
    expect(r.progress).toContain("always-fails second run of seed 5: 100% of virtual time\n")
    expect(r.progress.split("\n").filter((line) => line !== "").every((line) => /^.+ seed \d+: \d+% of virtual time$/.test(line))).toBe(true)
    expect(process.exitCode ?? 0).toBe(0)
    expect(temporaries()).toBe(before)
  })

  it("prints a rerun command that reruns only the failing seed, even when the scenario sets runs", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-run-"))
    const file = join(dir, "always-fails.yaml")
    writeFileSync(file, failing)
    const first = await run([file, "--out", join(dir, "all")])
    expect(first.out).toContain("0 of 3 runs passed")
    expect(process.exitCode).toBe(1)
    const reruns = [...first.err.matchAll(/rerun: (.*)/g)].map((m) => m[1]!)
    expect(reruns).toEqual([5, 6, 7].map((seed, i) => `npx clearsim run ${file} --seed ${seed} --runs 1${i === 0 ? "" : ` --run-index ${i}`} --chains memory --out ${join(dir!, "all", `run-${i}-seed-${seed}`)}`))
    expect(reruns[1]).toBe(rerunCommandLine(file, 6, "memory", join(dir, "all", "run-1-seed-6"), 1))
    expect(rerunCommandLine("my scenarios/it's.yaml", 1, "anvil", "out")).toBe(`npx clearsim run 'my scenarios/it'\\''s.yaml' --seed 1 --runs 1 --chains anvil --out out`)

    // The printed command, as the shell would split it, runs seed 6 once (here into another directory).
    const args = reruns[1]!.split(" ").slice(3, -2)
    const again = await run([...args, "--out", join(dir, "again")])
    expect(again.out).toMatch(/^always-fails seed 6 on memory: FAIL/)
    expect(again.out).not.toMatch(/seed [57]/)
    expect(again.out).not.toContain("runs passed")
    expect(readdirSync(join(dir, "again"))).toContain("report.json")
    // The same run, number included: the time series is the same file, report.json says run 1.
    expect(readFileSync(join(dir, "again", "timeseries.csv"), "utf8")).toBe(readFileSync(join(dir, "all", "run-1-seed-6", "timeseries.csv"), "utf8"))
    expect(JSON.parse(readFileSync(join(dir, "again", "report.json"), "utf8")).run).toBe(1)
  })

  it("quotes every single quote and space of a path in the rerun command", () => {
    // Mutants: only the first quote escaped (replace for replaceAll); a space taken as a plain character.
    expect(rerunCommandLine("it's Bob's.yaml", 2, "memory", "out dir", 3)).toBe(`npx clearsim run 'it'\\''s Bob'\\''s.yaml' --seed 2 --runs 1 --run-index 3 --chains memory --out 'out dir'`)
  })

  it("prints replay and rerun commands that work when the scenario or --out is a relative path beginning with -", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-run-"))
    const cwd = process.cwd()
    process.chdir(dir)
    try {
      writeFileSync("-fails.yaml", failing.replace("runs: 3\n", ""))
      const first = await run(["--out=-out", "--", "-fails.yaml"])
      expect(process.exitCode).toBe(1)
      // Without `./`, `npx clearsim hub replay -out/trace.jsonl` stops at "Unrecognized flag: -o".
      const replay = /replay the hub: npx clearsim hub replay (\S+)$/m.exec(first.err)?.[1]
      expect(replay).toBe("./-out/trace.jsonl")
      expect(existsSync(replay!)).toBe(true)
      const rerun = /rerun: npx clearsim run (.*)$/m.exec(first.err)?.[1]
      expect(rerun).toBe("./-fails.yaml --seed 5 --runs 1 --chains memory --out ./-out")
      // The printed command, as the shell splits it, parses and reruns that seed into that directory.
      process.exitCode = undefined
      const again = await run(rerun!.split(" "))
      expect(again.out).toMatch(/^always-fails seed 5 on memory: FAIL/)
      expect(again.out).toContain(`report: ${join("-out", "report.html")}`)
    } finally {
      process.chdir(cwd)
    }
  })

  it("accepts the bounds themselves (--run-index 0, one run from seed 2^53 - 1, the last run number) and refuses run numbers past 2^53 - 1", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-run-"))
    const file = join(dir, "always-fails.yaml")
    writeFileSync(file, failing)
    const max = Number.MAX_SAFE_INTEGER
    const zero = await run([file, "--runs", "1", "--run-index", "0", "--out", join(dir, "zero")])
    expect(zero.out).toMatch(/^always-fails seed 5 on memory: FAIL/)
    expect(JSON.parse(readFileSync(join(dir, "zero", "report.json"), "utf8")).run).toBe(0)
    process.exitCode = undefined
    const last = await run([file, "--seed", String(max), "--runs", "1", "--run-index", String(max), "--out", join(dir, "last")])
    expect(last.out).toMatch(new RegExp(`^always-fails seed ${max} on memory: FAIL`))
    expect(last.err).toContain(`--seed ${max} --runs 1 --run-index ${max} --chains memory`)
    expect(process.exitCode).toBe(1)
    process.exitCode = undefined
    const past = await run([file, "--runs", "2", "--run-index", String(max), "--out", join(dir, "past")])
    expect(past.err).toBe(`clearsim: --run-index: 2 runs from run ${max} would go past the largest run number, ${max}`)
    expect(process.exitCode).toBe(2)
    expect(existsSync(join(dir, "past"))).toBe(false)
  })

  it("checks run 0's directory before running, and leaves alone run directories of other runs or seeds", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-run-"))
    const file = join(dir, "always-fails.yaml")
    writeFileSync(file, failing)
    const first = join(dir, "first")
    mkdirSync(join(first, "run-0-seed-5", "report.md"), { recursive: true })
    const refused = await run([file, "--out", first])
    expect(refused.err).toBe(`clearsim: --out ${first}: expected to write the file ${join(first, "run-0-seed-5", "report.md")}, but it is a directory`)
    expect(refused.out).toBe("")
    expect(process.exitCode).toBe(2)
    process.exitCode = undefined
    // Runs 0-2 from seed 5: run 3 and run 1 of seed 9 are not this set's, whatever is in them.
    const others = join(dir, "others")
    mkdirSync(join(others, "run-3-seed-8", "trace.jsonl"), { recursive: true })
    mkdirSync(join(others, "run-1-seed-9", "trace.jsonl"), { recursive: true })
    const ran = await run([file, "--out", others])
    expect(ran.out).toContain("0 of 3 runs passed")
    expect(process.exitCode).toBe(1)
  })

  it("numbers runs from --run-index, directories included, and refuses a run index that is not a non-negative integer", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-run-"))
    const file = join(dir, "always-fails.yaml")
    writeFileSync(file, failing)
    const r = await run([file, "--runs", "2", "--run-index", "4", "--out", join(dir, "from4")])
    expect(readdirSync(join(dir, "from4")).filter((n) => n.startsWith("run-")).sort()).toEqual(["run-4-seed-5", "run-5-seed-6"])
    expect(JSON.parse(readFileSync(join(dir, "from4", "run-5-seed-6", "report.json"), "utf8")).run).toBe(5)
    expect(r.err).toContain(`--run-index 5 --chains memory --out ${join(dir, "from4", "run-5-seed-6")}`)
    process.exitCode = undefined
    const bad = await run([file, "--run-index", "-1", "--out", join(dir, "bad")])
    expect(bad.err).toMatch(/--run-index.*non-negative integer/)
    expect(process.exitCode).toBe(2)
    expect(readdirSync(dir)).not.toContain("bad")
  })

  it("refuses a negative --seed, as scenario files do, and an --out that cannot be a directory: one line, exit 2", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-run-"))
    const file = join(dir, "always-fails.yaml")
    writeFileSync(file, failing)
    for (const seed of ["-1", "abc", "1e3", "+5", "0x10", "1.5", "9007199254740992", "99999999999999999999"]) {
      const refused = await run([file, "--seed", seed])
      expect(refused.err).toBe(`clearsim: --seed: expected a non-negative integer of at most 9007199254740991 in decimal digits (as a scenario's seed), got "${seed}"`)
      expect(process.exitCode).toBe(2)
    }
    const existing = join(dir, "a-file")
    writeFileSync(existing, "")
    for (const [out, why] of [
      [existing, "it is a file"],
      [join(existing, "sub"), "a part of the path is a file"],
    ] as const) {
      process.exitCode = undefined
      const refused = await run([file, "--out", out])
      expect(refused.err).toBe(`clearsim: --out ${out}: expected a directory to write into (created when missing), but ${why}`)
      expect(refused.out).toBe("")
      expect(process.exitCode).toBe(2)
    }
  })

  it("checks every file the runs will write before running: a directory in the way is a usage error, and nothing runs", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-run-"))
    const file = join(dir, "always-fails.yaml")
    writeFileSync(file, failing)
    const single = join(dir, "single")
    mkdirSync(join(single, "report.json"), { recursive: true })
    const refused = await run([file, "--runs", "1", "--out", single])
    expect(refused.err).toBe(`clearsim: --out ${single}: expected to write the file ${join(single, "report.json")}, but it is a directory`)
    expect(refused.out).toBe("")
    expect(process.exitCode).toBe(2)
    expect(existsSync(join(single, "trace.jsonl"))).toBe(false)

    process.exitCode = undefined
    const many = join(dir, "many")
    mkdirSync(join(many, "run-2-seed-7", "trace.jsonl"), { recursive: true })
    const second = await run([file, "--out", many])
    expect(second.err).toBe(`clearsim: --out ${many}: expected to write the file ${join(many, "run-2-seed-7", "trace.jsonl")}, but it is a directory`)
    expect(second.out).toBe("")
    expect(process.exitCode).toBe(2)
    // Nothing was run or created for the runs before it.
    expect(readdirSync(many)).toEqual(["run-2-seed-7"])

    // A file where a run's directory goes.
    process.exitCode = undefined
    const blocked = join(dir, "blocked")
    mkdirSync(blocked)
    writeFileSync(join(blocked, "run-1-seed-6"), "")
    const third = await run([file, "--out", blocked])
    expect(third.err).toBe(`clearsim: --out ${blocked}: expected to write into the directory ${join(blocked, "run-1-seed-6")}, but it is a file`)
    expect(process.exitCode).toBe(2)
    expect(readdirSync(blocked)).toEqual(["run-1-seed-6"])
  })

  it("refuses runs whose seeds would pass the largest safe integer (the sum is not rounded)", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-run-"))
    const file = join(dir, "always-fails.yaml")
    writeFileSync(file, failing)
    const refused = await run([file, "--seed", String(Number.MAX_SAFE_INTEGER), "--runs", "2", "--out", join(dir, "x")])
    expect(refused.err).toBe(`clearsim: --runs: 2 runs from seed ${Number.MAX_SAFE_INTEGER} (--seed) would go past the largest seed, ${Number.MAX_SAFE_INTEGER}: expected at most 1 run from that seed`)
    expect(process.exitCode).toBe(2)
    process.exitCode = undefined
    // The scenario's own runs (3) from the largest seed but one: also refused, naming the file and its field.
    const fromScenario = await run([file, "--seed", String(Number.MAX_SAFE_INTEGER - 1), "--out", join(dir, "y")])
    expect(fromScenario.err).toBe(`clearsim: ${file}: runs: 3 runs from seed ${Number.MAX_SAFE_INTEGER - 1} (--seed) would go past the largest seed, ${Number.MAX_SAFE_INTEGER}: expected at most 2 runs from that seed`)
    expect(process.exitCode).toBe(2)
    process.exitCode = undefined
    // Both from the file: was "the scenario's runs: ...", naming neither the file nor where the seed came from.
    const both = join(dir, "both.yaml")
    writeFileSync(both, failing.replace(/^runs: .*$/m, "").replace(/^seed: .*$/m, "") + `seed: ${Number.MAX_SAFE_INTEGER}\nruns: 3\n`)
    const fromFile = await run([both, "--out", join(dir, "z")])
    expect(fromFile.err).toBe(`clearsim: ${both}: runs: 3 runs from seed ${Number.MAX_SAFE_INTEGER} (the file's seed) would go past the largest seed, ${Number.MAX_SAFE_INTEGER}: expected at most 1 run from that seed`)
    expect(process.exitCode).toBe(2)
  })

  it("snapshots the epoch the horizon cuts short: its time-series rows, and a property failing only there has failed since that epoch", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-run-"))
    // 20 minutes: two whole epochs of 480 s and a third cut short after 240 s, with one rebalancer.
    const text = twoChainUsdcText("cut-short", "{ seconds: 1200 }", `${TWO_USERS_USDC}\nproperties:\n  - intentsCreated <= 35`, { seed: 3, blockTimeSeconds: [12, 12] })
    const file = join(dir, "cut-short.yaml")
    writeFileSync(file, text)
    const out = join(dir, "out")
    const result = await run([file, "--out", out])
    expect(process.exitCode).toBe(1)
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as {
      epochs: { first: number; last: number; count: number }
      intents: { created: number }
      properties: { name: string; firstFailingEpoch?: number }[]
    }
    expect(report.epochs.count).toBe(3)
    expect(report.intents.created).toBeGreaterThan(0)
    const rows = readFileSync(join(out, "timeseries.csv"), "utf8").trimEnd().split("\n").slice(1)
    const epochs = [...new Set(rows.map((r) => Number(r.split(",")[2])))]
    expect(epochs).toEqual([report.epochs.first, report.epochs.first + 1, report.epochs.last])
    // The last epoch's cumulative count is the report's.
    const created = rows.filter((r) => r.split(",")[2] === String(report.epochs.last) && r.split(",")[3] === "intentsCreated")
    expect(created.map((r) => Number(r.split(",")[4]))).toEqual([report.intents.created])
    // 10, 29, then 42 intents by the end of each epoch: the property fails only in the epoch cut short.
    expect(report.properties[0]!.firstFailingEpoch).toBe(report.epochs.last)
    expect(result.out).toContain(`  FAILED intentsCreated <= 35 (value ${report.intents.created}), failing since epoch ${report.epochs.last}\n`)
  })

  it("prints each population's user p99 when more than one population was paid", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clearsim-run-populations-"))
    try {
      const result = await run([join(import.meta.dirname, "../../scenarios/one-sided-drain.yaml"), "--out", dir])
      const report = JSON.parse(readFileSync(join(dir, "report.json"), "utf8")) as { latency: { byPopulation: Record<string, { p99: number }> } }
      const p99 = (name: string) => report.latency.byPopulation[name]!.p99
      expect(result.out).toContain(`  p99 by population (creation to paid): drainers ${p99("drainers")}s, mm (arbitrageur) ${p99("mm")}s\n  trace hash `)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("shows latencies to the millisecond, as the property lines and report.md do: a failing p99 bound never reads as met", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-run-latency-"))
    // The quickstart's p99 is 497.44 s: a bound of 497 fails, which a summary rounding to "497s" seemed to contradict.
    const file = join(dir, "quickstart.yaml")
    writeFileSync(file, readFileSync(join(import.meta.dirname, "../../scenarios/quickstart.yaml"), "utf8").replace(/^properties:\n/m, "properties:\n  - p99LatencySeconds <= 497\n"))
    const r = await run([file, "--chains", "memory", "--out", join(dir, "out")])
    expect(process.exitCode).toBe(1)
    const report = JSON.parse(readFileSync(join(dir, "out", "report.json"), "utf8")) as RunReport
    expect([report.latency.p50, report.latency.p90, report.latency.p99, report.latency.max, report.latency.settlement.p99]).toEqual([128, 216, 497.44, 1840, 496.64])
    expect(r.out).toContain("  latency p50/p90/p99/max 128s / 216s / 497.44s / 1840s (user), settlement p99 496.64s\n")
    expect(r.out).toContain("  p99 by population (creation to paid): users 481.64s, xt-bridgers 1023.52s\n")
    expect(r.out).toContain("  FAILED p99LatencySeconds <= 497 (value 497.44)\n")
    // report.md's table gives the same figures.
    expect(readFileSync(join(dir, "out", "report.md"), "utf8")).toContain("| all | 508 | 497 | 492 | 128 | 216 | 497.44 | 1840 | ")
    // To the millisecond, trailing zeros dropped; no value is a dash.
    expect([latencyText(0.0004), latencyText(0.001), latencyText(688.479999999999), latencyText(12.5), latencyText(3600), latencyText(null)]).toEqual(["0s", "0.001s", "688.48s", "12.5s", "3600s", "–"])
  })
})

describe("clearsim run --runs (Monte Carlo)", () => {
  let dir: string | undefined
  afterEach(() => {
    process.exitCode = undefined
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  it("writes runs.json and runs.md with each KPI's distribution over the seeds, and prints the main ones", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-runs-"))
    const file = join(import.meta.dirname, "..", "..", "scenarios", "balanced-two-chain.yaml")
    const r = await run([file, "--runs", "3", "--out", join(dir, "mc")])
    expect(process.exitCode ?? 0).toBe(0)
    const runs = JSON.parse(readFileSync(join(dir, "mc", "runs.json"), "utf8"))
    // The rows are the runs' own reports' figures.
    const reports = [0, 1, 2].map((i) => JSON.parse(readFileSync(join(dir!, "mc", `run-${i}-seed-${11 + i}`, "report.json"), "utf8")))
    expect(runs.runs.map((row: { seed: number; traceHash: string; kpis: { nettingRatio: number; intentsCreated: number } }) => [row.seed, row.traceHash, row.kpis.nettingRatio, row.kpis.intentsCreated])).toEqual(
      reports.map((rep) => [rep.seed, rep.traceHash, rep.netting.ratio, rep.intents.created]),
    )
    // The distribution, computed here by hand: mean, sample sd, linear percentiles (type 7), min, max.
    const ratios: number[] = reports.map((rep) => rep.netting.ratio).sort((a: number, b: number) => a - b)
    const m = (ratios[0]! + ratios[1]! + ratios[2]!) / 3
    const sd = Math.sqrt(ratios.reduce((s, x) => s + (x - m) ** 2, 0) / 2)
    const at = (p: number) => {
      const h = 2 * p // (n - 1) p for n = 3
      const lo = Math.floor(h)
      return ratios[lo]! + (h - lo) * (ratios[Math.min(lo + 1, 2)]! - ratios[lo]!)
    }
    const d = runs.summary.kpis.nettingRatio
    expect(d.runs).toBe(3)
    expect(d.mean).toBeCloseTo(m, 6)
    expect(d.sd).toBeCloseTo(sd, 6)
    expect([d.min, d.p50, d.max]).toEqual([ratios[0], ratios[1], ratios[2]])
    expect(d.p5).toBeCloseTo(at(0.05), 6)
    expect(d.p95).toBeCloseTo(at(0.95), 6)
    expect(runs.summary).toMatchObject({ scenario: "balanced-two-chain", runs: 3, passed: 3, seeds: { first: 11, last: 13 } })
    expect(runs.summary.properties["nettingRatio >= 0.6"]).toEqual({ held: 3, runs: 3 })
    expect(r.out).toContain(`3 of 3 runs passed; over the 3 seeds (${join(dir, "mc", "runs.md")}, runs.json):`)
    expect(r.out).toMatch(new RegExp(`\\n  nettingRatio +mean ${d.mean}, sd ${d.sd}, p5/p50/p95 ${d.p5} / ${d.p50} / ${d.p95}, min ${d.min}, max ${d.max}`))
    const md = readFileSync(join(dir, "mc", "runs.md"), "utf8")
    expect(md).toContain("# balanced-two-chain: 3 of 3 runs passed")
    expect(md).toContain(`| nettingRatio | 3 | ${d.mean} | ${d.sd} | ${d.p5} | ${d.p50} | ${d.p95} | ${d.min} | ${d.max} |`)
    expect(md).toContain("| `nettingRatio >= 0.6` | 3 of 3 runs |")
  })
})

describe("clearsim run warnings", () => {
  let dir: string | undefined
  afterEach(() => {
    process.exitCode = undefined
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  it("prints a setting the run cannot use on stderr, with its line, and runs", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-warn-"))
    const file = join(dir, "warned.yaml")
    writeFileSync(file, failing.replace("runs: 3\n", "").replace("agents: {}", "transport: { latency: { kind: fixed, seconds: 30 }, faults: { reorderWindowSeconds: 30 } }\nagents: {}"))
    const r = await run([file, "--out", join(dir, "out")])
    expect(r.err).toContain(`clearsim: warning: ${file}:9:85: transport.faults.reorderWindowSeconds: has no effect without a reorderProbability above 0`)
    expect(r.out).toContain("always-fails seed 5 on memory: FAIL")
  })

  it("says the unit of the totals over assets: tokens without prices (with a warning), USD with them", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-units-"))
    const twoAssets = failing.replace("runs: 3\n", "").replace("agents: {}", "  - symbol: WETH\n    chains: [{ chain: 31001, decimals: 18 }, { chain: 31002, decimals: 18 }]\nagents: {}")
    const unpriced = join(dir, "unpriced.yaml")
    writeFileSync(unpriced, twoAssets)
    const tokens = await run([unpriced, "--out", join(dir, "unpriced")])
    expect(tokens.err).toMatch(/clearsim: warning: .*unpriced\.yaml:\d+:\d+: assets: USDC, WETH have no priceUsd: the report's totals over assets .* add their tokens as they are, 1 WETH counting as 1 USDC; give every asset a priceUsd/)
    expect(tokens.out).toContain("; netting ratio –; discount paid 0 tokens (– bps of volume settled)") // 0 of 0: no rate, as report.md says
    const priced = join(dir, "priced.yaml")
    writeFileSync(priced, twoAssets.replace("  - symbol: USDC\n", "  - symbol: USDC\n    priceUsd: 1\n").replace("  - symbol: WETH\n", '  - symbol: WETH\n    priceUsd: "2500.5"\n'))
    const usd = await run([priced, "--out", join(dir, "priced")])
    expect(usd.err).not.toContain("priceUsd")
    expect(usd.out).toContain("; netting ratio –; discount paid 0 USD (– bps of volume settled)")
    const report = JSON.parse(readFileSync(join(dir, "priced", "report.json"), "utf8"))
    expect([report.netting.unit, report.discounts.unit]).toEqual(["USD", "USD"])
    expect(readFileSync(join(dir, "priced", "report.md"), "utf8")).toContain("- discount paid 0 USD (– bps of the 0 USD the hub settled)")
    expect(readFileSync(join(dir, "priced", "report.html"), "utf8")).toContain("discount paid</span><b>0 USD</b>")
    expect(JSON.parse(readFileSync(join(dir, "unpriced", "report.json"), "utf8")).discounts.unit).toBe("tokens")
  })
})
