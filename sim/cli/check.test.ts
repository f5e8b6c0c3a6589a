import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join, relative } from "node:path"
import { NodeServices } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import { Command } from "effect/cli"
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest"
import { runScenario } from "../run.ts"
import { loadScenario } from "../scenario/load.ts"
import { checkScenarios, compareCommand } from "./check.ts"
import { UsageError } from "./userErrors.ts"
import { longRunText } from "../scenario/testing.ts"
import { spawnCollecting } from "./testing.ts"

const root = join(import.meta.dirname, "..", "..")

const scenario = `
name: compare-me
seed: 3
horizon: { seconds: 120 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
agents: {}
`

let dir: string
let report: Record<string, unknown> & { scenario: Record<string, unknown> }
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "clearsim-compare-"))
  const file = join(dir, "compare-me.yaml")
  writeFileSync(file, scenario)
  report = JSON.parse(JSON.stringify((await runScenario(loadScenario(file), { seed: 3, backend: "memory" })).report))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))
afterEach(() => {
  process.exitCode = undefined
})

const write = (name: string, value: unknown): string => {
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify(value))
  return path
}

const compare = async (args: readonly string[]) => {
  const out: string[] = []
  const err: string[] = []
  const log = vi.spyOn(console, "log").mockImplementation((...xs: unknown[]) => void out.push(xs.join(" ")))
  const error = vi.spyOn(console, "error").mockImplementation((...xs: unknown[]) => void err.push(xs.join(" ")))
  try {
    await Command.runWith(compareCommand, { version: "test" })(args).pipe(Effect.provide(NodeServices.layer), Effect.runPromise)
  } finally {
    log.mockRestore()
    error.mockRestore()
  }
  return { out: out.join("\n"), err: err.join("\n") }
}

describe("clearsim compare", () => {
  it("says nothing more for two runs of the same scenario and seed", async () => {
    const a = write("a.json", report)
    const same = await compare([a, a])
    expect(same.err).toBe("")
    expect(same.out).toMatch(/^compare-me: same/)
    expect(process.exitCode).toBeUndefined()
  })

  it("warns when the reports are of different scenarios or seeds, and still compares them", async () => {
    const a = write("a.json", report)
    const other = write("other.json", { ...report, scenario: { ...report.scenario, name: "something-else" } })
    const renamed = await compare([a, other])
    expect(renamed.err).toBe(
      'clearsim compare: warning: the reports are not runs of the same scenario and seed (scenario "compare-me" vs "something-else"): their trace hashes differ by construction, and KPI differences may come from the scenarios, not from clearsim',
    )
    // The heading names both scenarios, the reference first.
    expect(renamed.out).toMatch(/^compare-me -> something-else: same\n/)
    // The same name, another scenario file (its bytes' hash differs): warned too.
    const edited = write("edited.json", { ...report, scenario: { ...report.scenario, hash: `0x${"ee".repeat(32)}` } })
    expect((await compare([a, edited])).err).toBe(
      `clearsim compare: warning: the reports are of scenario "compare-me" from files with other bytes (hash ${String(report.scenario.hash).slice(0, 10)}… vs 0xeeeeeeee…): if the edit changed the scenario, KPI and trace differences may come from it, not from clearsim`,
    )
    const reseeded = write("reseeded.json", { ...report, seed: 4, traceHash: `0x${"11".repeat(32)}` })
    const seeds = await compare([a, reseeded])
    expect(seeds.err).toContain("(seed 3 vs 4)")
    expect(seeds.out).toMatch(/^compare-me: CHANGED/)
    // Not "behaviour changed": two seeds' hub events differ by construction.
    expect(seeds.out).toContain("(not runs of the same scenario and seed: their hub events differ by construction)")
    expect(seeds.out).not.toContain("behaviour changed")
    expect(process.exitCode).toBe(1) // a changed trace hash, as for any two reports
  })

  it("reads a report of an older version without the transport counters", async () => {
    const { transport: _, ...older } = report
    const { refusedHubDeliveries: __, ...world } = report.world as Record<string, unknown>
    const compared = await compare([write("a.json", report), write("older.json", { ...older, world })])
    expect(compared.err).toBe("")
    expect(compared.out).toMatch(/^compare-me: same/)
    expect(process.exitCode).toBeUndefined()
  })

  it("gives no discount rate to a run that settled nothing (not a 0 bps improvement), and calls the lost value a regression", async () => {
    const discounts = report.discounts as Record<string, unknown>
    expect([discounts.settledVolume, discounts.paidBps]).toEqual(["0", 0])
    const settled = write("settled.json", { ...report, discounts: { ...discounts, settledVolume: "100", paidBps: 2 } })
    const compared = await compare([settled, write("a.json", report)])
    expect(compared.out).toMatch(/^compare-me: REGRESSION/)
    expect(compared.out).toMatch(/✗ discountPaidBps\s+2 -> –\s+no value now\s+regression/)
    expect(process.exitCode).toBe(1)
  })

  it("check --update warns that a property failing in the run is recorded as failing", async () => {
    const file = join(dir, "failing.yaml")
    writeFileSync(file, `${scenario.replace("name: compare-me", "name: failing-property")}properties: [intentsCreated >= 1, intentsCreated >= 0]\n`)
    const written = await checkScenarios({ scenarios: [file], baselineDir: dir, update: true, kpisOnly: false })
    expect(written.exitCode).toBe(0)
    expect(written.output).toContain(
      "  warning: a property fails in this run and is recorded as failing (later checks will not flag it): `intentsCreated >= 1`",
    )
    // The baseline records the scenario file's hash: an edited file is pointed out (here a comment: nothing else moves).
    const unchanged = await checkScenarios({ scenarios: [file], baselineDir: dir, update: false, kpisOnly: false })
    expect(unchanged.output).not.toContain("note:")
    writeFileSync(file, `# edited\n${readFileSync(file, "utf8")}`)
    const edited = await checkScenarios({ scenarios: [file], baselineDir: dir, update: false, kpisOnly: false })
    expect(edited.exitCode).toBe(0)
    expect(edited.output).toMatch(new RegExp(`  note: ${file} is not the file this baseline was written from \\(hash 0x[0-9a-f]{8}… then, 0x[0-9a-f]{8}… now\\): a change may come from the edit`))
  })

  it("check refuses two scenario files of one name, or a file given twice, before running or writing anything", async () => {
    const baselines = mkdtempSync(join(tmpdir(), "clearsim-check-names-"))
    const a = join(dir, "same-a.yaml")
    const b = join(dir, "same-b.yaml")
    writeFileSync(a, scenario)
    writeFileSync(b, scenario.replace("seed: 3", "seed: 4"))
    await expect(checkScenarios({ scenarios: [a, b], baselineDir: baselines, update: true, kpisOnly: false })).rejects.toThrow(
      `${a} and ${b} are both scenario "compare-me", and would share the baseline ${join(baselines, "compare-me.json")}: give one a name of its own`,
    )
    await expect(checkScenarios({ scenarios: [a, `${dir}/./same-a.yaml`], baselineDir: baselines, update: true, kpisOnly: false })).rejects.toThrow(`${dir}/./same-a.yaml is given twice`)
    expect(readdirSync(baselines)).toEqual([])
    // Two baselines of one scenario (a stale one left after a rename): named, before anything runs.
    await checkScenarios({ scenarios: [a], baselineDir: baselines, update: true, kpisOnly: false })
    writeFileSync(join(baselines, "old-name.json"), readFileSync(join(baselines, "compare-me.json")))
    await expect(checkScenarios({ scenarios: [], baselineDir: baselines, update: false, kpisOnly: false })).rejects.toThrow(
      `the baselines ${join(baselines, "compare-me.json")} and ${join(baselines, "old-name.json")} are both of scenario "compare-me" (${a}): remove the stale one`,
    )
    rmSync(baselines, { recursive: true, force: true })
  })

  it("compares a baseline file with a report (either side may be a baseline)", async () => {
    const file = join(dir, "compare-me.yaml")
    const baselines = mkdtempSync(join(tmpdir(), "clearsim-compare-baseline-"))
    await checkScenarios({ scenarios: [file], baselineDir: baselines, update: true, kpisOnly: false })
    const baselineFile = join(baselines, "compare-me.json")
    const same = await compare([baselineFile, write("b.json", report)])
    expect(same.out.split("\n")[0]).toBe("compare-me: same")
    expect(same.err).toBe("")
    expect(process.exitCode).toBeUndefined()
    const better = await compare([write("worse.json", { ...report, traceHash: `0x${"1".repeat(64)}` }), baselineFile])
    expect(better.out).toContain("trace hash 0x1111")
    expect(process.exitCode).toBe(1)
    rmSync(baselines, { recursive: true, force: true })
  })
  it("check runs the baseline's seed, not the scenario's, and gives no edit note for a baseline without a scenario hash", async () => {
    const baselines = mkdtempSync(join(tmpdir(), "clearsim-check-seed-"))
    // The quickstart scenario: its agents draw from the seed, so another seed is another run.
    const quickstart = readFileSync(join(import.meta.dirname, "..", "..", "scenarios", "quickstart.yaml"), "utf8")
    const file = join(baselines, "seeded.yaml")
    writeFileSync(file, quickstart)
    await checkScenarios({ scenarios: [file], baselineDir: baselines, update: true, kpisOnly: false })
    const path = join(baselines, "quickstart.json")
    const { scenarioHash: _, ...older } = JSON.parse(readFileSync(path, "utf8"))
    writeFileSync(path, JSON.stringify(older))
    // The scenario now says seed 2; the baseline was written at seed 1, and seed 1 is what is checked.
    writeFileSync(file, quickstart.replace("seed: 1\n", "seed: 2\n"))
    const checked = await checkScenarios({ scenarios: [file], baselineDir: baselines, update: false, kpisOnly: false })
    expect(checked.output.split("\n")[0]).toBe("quickstart: same")
    expect(checked.output).not.toContain("note:")
    expect(checked.exitCode).toBe(0)
    rmSync(baselines, { recursive: true, force: true })
  })

  it("check --update writes the scenario's seed, not the older baseline's", async () => {
    const baselines = mkdtempSync(join(tmpdir(), "clearsim-check-update-seed-"))
    const quickstart = readFileSync(join(import.meta.dirname, "..", "..", "scenarios", "quickstart.yaml"), "utf8")
    const file = join(baselines, "seeded.yaml")
    writeFileSync(file, quickstart)
    await checkScenarios({ scenarios: [file], baselineDir: baselines, update: true, kpisOnly: false })
    const path = join(baselines, "quickstart.json")
    expect(JSON.parse(readFileSync(path, "utf8")).seed).toBe(1)
    // The scenario's seed is edited, and the baseline rewritten: it is now a run of seed 2, as `clearsim run` makes.
    writeFileSync(file, quickstart.replace("seed: 1\n", "seed: 2\n"))
    await checkScenarios({ scenarios: [file], baselineDir: baselines, update: true, kpisOnly: false })
    const rewritten = JSON.parse(readFileSync(path, "utf8"))
    expect(rewritten.seed).toBe(2)
    expect(rewritten.traceHash).toBe((await runScenario(loadScenario(file), { seed: 2, backend: "memory" })).report.traceHash)
    rmSync(baselines, { recursive: true, force: true })
  })

  it("check says a baseline's scenario that is not valid is not valid, not that it cannot be read", async () => {
    const baselines = mkdtempSync(join(tmpdir(), "clearsim-check-invalid-"))
    const file = join(baselines, "compare-me.yaml")
    writeFileSync(file, scenario)
    await checkScenarios({ scenarios: [file], baselineDir: baselines, update: true, kpisOnly: false })
    writeFileSync(file, `${scenario}bogusKey: 1\n`)
    const warnings: string[] = []
    const invalid = await checkScenarios({ scenarios: [], baselineDir: baselines, update: false, kpisOnly: false, warn: (line) => warnings.push(line) })
    expect(warnings.join("\n")).toContain("its scenario file is not valid")
    expect(invalid.output).toBe("0 scenarios checked: 0 with regressions, 0 with a changed trace hash; 1 baseline not checked (its scenario is not valid, above)")
    expect(invalid.exitCode).toBe(2)
    // One unreadable, one invalid: both said.
    const good = JSON.parse(readFileSync(join(baselines, "compare-me.json"), "utf8"))
    writeFileSync(join(baselines, "gone.json"), JSON.stringify({ ...good, scenario: "gone", file: "gone.yaml" }))
    const both = await checkScenarios({ scenarios: [], baselineDir: baselines, update: false, kpisOnly: false })
    expect(both.output).toBe("0 scenarios checked: 0 with regressions, 0 with a changed trace hash; 2 baselines not checked (their scenarios cannot be read or are not valid, above)")
    rmSync(baselines, { recursive: true, force: true })
  })

  it("check refuses a scenario's baseline file that is of another scenario, unless --update rewrites it", async () => {
    const baselines = mkdtempSync(join(tmpdir(), "clearsim-check-other-"))
    const file = join(baselines, "compare-me.yaml")
    writeFileSync(file, scenario)
    await checkScenarios({ scenarios: [file], baselineDir: baselines, update: true, kpisOnly: false })
    const path = join(baselines, "compare-me.json")
    const good = JSON.parse(readFileSync(path, "utf8"))
    writeFileSync(path, JSON.stringify({ ...good, scenario: "something-else", seed: 9 }))
    await expect(checkScenarios({ scenarios: [file], baselineDir: baselines, update: false, kpisOnly: false })).rejects.toThrow(
      `${file}: the baseline ${path} is of scenario "something-else", not "compare-me" (rewrite it with --update, or compare the two reports with clearsim compare)`,
    )
    const rewritten = await checkScenarios({ scenarios: [file], baselineDir: baselines, update: true, kpisOnly: false })
    expect(rewritten.exitCode).toBe(0)
    expect(JSON.parse(readFileSync(path, "utf8"))).toMatchObject({ scenario: "compare-me", seed: 3 })
    rmSync(baselines, { recursive: true, force: true })
  })

  it("check exits 2, not 1, when a baseline could not be checked even if another regressed", async () => {
    const baselines = mkdtempSync(join(tmpdir(), "clearsim-check-unchecked-"))
    const file = join(dir, "compare-me.yaml")
    await checkScenarios({ scenarios: [file], baselineDir: baselines, update: true, kpisOnly: false })
    const path = join(baselines, "compare-me.json")
    const good = JSON.parse(readFileSync(path, "utf8"))
    writeFileSync(path, JSON.stringify({ ...good, traceHash: `0x${"00".repeat(32)}` }))
    writeFileSync(join(baselines, "gone.json"), JSON.stringify({ ...good, scenario: "gone", file: join(baselines, "gone.yaml") }))
    const outcome = await checkScenarios({ scenarios: [], baselineDir: baselines, update: false, kpisOnly: false })
    expect(outcome.output).toContain("1 scenario checked: 0 with regressions, 1 with a changed trace hash")
    expect(outcome.exitCode).toBe(2)
    rmSync(baselines, { recursive: true, force: true })
  })

  it("check fails (exit 1) on a trace hash of another function unless --kpis-only", async () => {
    // Mutant killed: the exit code counting only same-function trace changes.
    const baselines = mkdtempSync(join(tmpdir(), "clearsim-check-function-"))
    const file = join(dir, "compare-me.yaml")
    await checkScenarios({ scenarios: [file], baselineDir: baselines, update: true, kpisOnly: false })
    const path = join(baselines, "compare-me.json")
    // A baseline of an older clearsim: no traceHashAlgorithm (keccak256), so another hash.
    const { traceHashAlgorithm: _, ...good } = JSON.parse(readFileSync(path, "utf8"))
    writeFileSync(path, JSON.stringify({ ...good, traceHash: `0x${"11".repeat(32)}` }))
    const outcome = await checkScenarios({ scenarios: [file], baselineDir: baselines, update: false, kpisOnly: false })
    expect(outcome.output).toContain("1 scenario checked: 0 with regressions, 0 with a changed trace hash, 1 with a trace hash of another function")
    expect(outcome.exitCode).toBe(1)
    expect((await checkScenarios({ scenarios: [file], baselineDir: baselines, update: false, kpisOnly: true })).exitCode).toBe(0)
    rmSync(baselines, { recursive: true, force: true })
  })

  it("compare gives no edited-file warning when one report has no scenario hash (an older report)", async () => {
    const { hash: _, ...unhashed } = report.scenario
    const older = write("unhashed.json", { ...report, scenario: unhashed })
    const edited = write("edited.json", { ...report, scenario: { ...report.scenario, hash: `0x${"ee".repeat(32)}` } })
    for (const pair of [[older, edited], [edited, older]]) {
      const compared = await compare(pair)
      expect(compared.err).toBe("")
      expect(compared.out).toMatch(/^compare-me: same/)
    }
  })

  it("refuses a report whose trace hash or netting ratio cannot be one (exit 2, naming the field)", async () => {
    const short = await compare([write("short-hash.json", { ...report, traceHash: "0x12" }), write("ok.json", report)])
    expect(short.err).toBe(`clearsim compare: ${join(dir, "short-hash.json")}: not a clearsim report.json: traceHash: Expected a trace hash: 0x and 64 lowercase hex digits, got "0x12"`)
    expect(process.exitCode).toBe(2)
    const negative = await compare([write("ok.json", report), write("negative.json", { ...report, netting: { ...(report.netting as object), ratio: -5 } })])
    expect(negative.err).toBe(`clearsim compare: ${join(dir, "negative.json")}: not a clearsim report.json: netting.ratio: Expected a ratio from 0 to 1, got -5`)
    expect(process.exitCode).toBe(2)
  })

  it("a report path that is a directory: one line, exit 2", async () => {
    const refused = await compare([dir, write("a.json", report)])
    expect(refused.err).toMatch(new RegExp(`^clearsim compare: ${dir}: cannot read a report or a baseline: illegal operation on a directory \\(EISDIR\\)$`, "m"))
    expect(refused.err).not.toContain("\n    at ")
    expect(process.exitCode).toBe(2)
  })

  it("check --update refuses a baseline path that is a directory, saying so, before running anything", async () => {
    const baselines = mkdtempSync(join(tmpdir(), "clearsim-check-dir-"))
    mkdirSync(join(baselines, "compare-me.json"))
    const file = join(dir, "compare-me.yaml")
    // Given first, a scenario whose baseline could be written: had it run, its baseline and a line about it would be there.
    const first = join(dir, "runs-first.yaml")
    writeFileSync(first, scenario.replace("name: compare-me", "name: runs-first"))
    const lines: string[] = []
    const said = { log: (line: string) => lines.push(line), warn: (line: string) => lines.push(line) }
    await expect(checkScenarios({ scenarios: [first, file], baselineDir: baselines, update: true, kpisOnly: false, ...said })).rejects.toThrow(
      new UsageError(`--baseline-dir ${baselines}: cannot write the baseline ${join(baselines, "compare-me.json")}: it is a directory, not a file`),
    )
    // Checking (no --update) reads the baseline: a directory there is one it cannot read.
    await expect(checkScenarios({ scenarios: [file], baselineDir: baselines, update: false, kpisOnly: false, ...said })).rejects.toThrow(/compare-me\.json: cannot read a baseline: illegal operation on a directory \(EISDIR\)$/)
    // A directory among the baselines of a directory checked whole is named as one.
    await expect(checkScenarios({ scenarios: [], baselineDir: baselines, update: true, kpisOnly: false, ...said })).rejects.toThrow(
      `${join(baselines, "compare-me.json")}: expected a baseline file, but it is a directory`,
    )
    // Nothing ran: no baseline written, nothing said (not even a scenario's warnings, told just before it runs).
    expect(lines).toEqual([])
    expect(readdirSync(baselines)).toEqual(["compare-me.json"])
    expect(readdirSync(join(baselines, "compare-me.json"))).toEqual([])
    rmSync(baselines, { recursive: true, force: true })
  })

  it("check refuses an empty --baseline-dir, rather than reading or writing baselines in the working directory", async () => {
    const cwd = process.cwd()
    const here = mkdtempSync(join(tmpdir(), "clearsim-check-empty-"))
    process.chdir(here)
    try {
      writeFileSync("compare-me.yaml", scenario)
      const lines: string[] = []
      const said = { log: (line: string) => lines.push(line), warn: (line: string) => lines.push(line) }
      const empty = new UsageError("--baseline-dir: expected a directory path, got an empty one")
      for (const [scenarios, update] of [[[], false], [["compare-me.yaml"], false], [["compare-me.yaml"], true]] as const) {
        await expect(checkScenarios({ scenarios, baselineDir: "", update, kpisOnly: false, ...said })).rejects.toThrow(empty)
      }
      expect(lines).toEqual([])
      expect(readdirSync(here)).toEqual(["compare-me.yaml"])
    } finally {
      process.chdir(cwd)
      rmSync(here, { recursive: true, force: true })
    }
  })

  it.runIf(process.platform === "linux")("check names a baseline directory that is not one by what it is (/dev/null: a character device)", async () => {
    await expect(checkScenarios({ scenarios: [], baselineDir: "/dev/null", update: false, kpisOnly: false })).rejects.toThrow(
      "/dev/null: expected a directory of baselines, but it is a character device",
    )
  })

  it("check finds a baseline's scenario relative to the baseline file, from any working directory", async () => {
    const project = mkdtempSync(join(tmpdir(), "clearsim-check-relative-"))
    const baselines = join(project, "gate", "baselines")
    const scenarioFile = join(project, "scenarios", "compare-me.yaml")
    mkdirSync(dirname(scenarioFile), { recursive: true })
    writeFileSync(scenarioFile, scenario)
    await checkScenarios({ scenarios: [scenarioFile], baselineDir: baselines, update: true, kpisOnly: false })
    // Written relative to the baseline's directory, with "/" whatever the platform.
    expect(JSON.parse(readFileSync(join(baselines, "compare-me.json"), "utf8")).file).toBe("../../scenarios/compare-me.yaml")
    // From the baseline directory and from an unrelated one (neither has scenarios/ below it): the same scenario.
    for (const cwd of [baselines, tmpdir()]) {
      const checked = spawnSync(process.execPath, [join(root, "bin/clearsim.js"), "check", "--baseline-dir", relative(cwd, baselines) || "."], { cwd, encoding: "utf8" })
      expect(checked.stderr).toBe("")
      expect(checked.stdout).toMatch(/^compare-me: same\n/)
      expect(checked.status).toBe(0)
    }
    // A scenario file that is gone is named where it was looked for: beside the baseline.
    rmSync(scenarioFile)
    const warnings: string[] = []
    const gone = await checkScenarios({ scenarios: [], baselineDir: baselines, update: false, kpisOnly: false, warn: (line) => warnings.push(line) })
    expect(gone.exitCode).toBe(2)
    expect(warnings).toEqual([`clearsim check: ${join(baselines, "compare-me.json")}: its scenario file ${scenarioFile} cannot be read: it does not exist (ENOENT)`])
    rmSync(project, { recursive: true, force: true })
  })

  it("check finds a baseline's scenario through a symbolic link to the baseline directory as through its real path", async () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), "clearsim-check-link-")))
    const scenarioFile = join(project, "work", "scenarios", "compare-me.yaml")
    const real = join(project, "store", "ci", "baselines")
    const link = join(project, "work", "baselines")
    mkdirSync(dirname(scenarioFile), { recursive: true })
    mkdirSync(real, { recursive: true })
    writeFileSync(scenarioFile, scenario)
    symlinkSync(real, link, "dir")
    // Written through either path, read through either: the file is named from where the baselines are.
    for (const [write, read] of [[link, real], [real, link], [link, link]] as const) {
      await checkScenarios({ scenarios: [scenarioFile], baselineDir: write, update: true, kpisOnly: false })
      expect(JSON.parse(readFileSync(join(real, "compare-me.json"), "utf8")).file).toBe("../../../work/scenarios/compare-me.yaml")
      const warnings: string[] = []
      const checked = await checkScenarios({ scenarios: [], baselineDir: read, update: false, kpisOnly: false, warn: (line) => warnings.push(line) })
      expect(warnings).toEqual([])
      expect(checked.output.split("\n")[0]).toBe("compare-me: same")
      expect(checked.exitCode).toBe(0)
    }
    rmSync(project, { recursive: true, force: true })
  })

  it("check still reads a baseline written before, whose scenario file is relative to the project root it ran in", async () => {
    const baselines = mkdtempSync(join(tmpdir(), "clearsim-check-legacy-"))
    // Tests run in the project root: the shipped scenarios are at scenarios/ from here.
    expect(existsSync("scenarios/balanced-two-chain.yaml")).toBe(true)
    const committed = JSON.parse(readFileSync(join(root, "reports", "baseline", "balanced-two-chain.json"), "utf8"))
    writeFileSync(join(baselines, "balanced-two-chain.json"), JSON.stringify({ ...committed, file: "scenarios/balanced-two-chain.yaml" }))
    const checked = await checkScenarios({ scenarios: [], baselineDir: baselines, update: false, kpisOnly: false })
    expect(checked.output.split("\n")[0]).toBe("balanced-two-chain: same")
    expect(checked.exitCode).toBe(0)
    rmSync(baselines, { recursive: true, force: true })
  })
})

describe("clearsim check --update interrupted", () => {
  /** Scenarios of a few hundred virtual hours: still running when the signal comes. */
  const longScenarios = () =>
    ["a", "b"].map((name) => {
    const file = join(dir, `long-${name}.yaml`)
    writeFileSync(
      file,
      longRunText(`long-${name}`),
    )
    return file
    })

  it("a Ctrl-C while the scenarios run leaves no directory it made for the baselines, run in process or in children", async () => {
    // Was: the baseline directory (and its missing parents) was made before the runs, and left behind empty.
    const bin = join(root, "bin", "clearsim.js")
    const long = longScenarios()
    for (const jobs of ["1", "2"]) {
      const made = join(dir, `interrupted-${jobs}`)
      const baselines = join(made, "deeper", "baselines")
      const { child, output: outputOf, exited } = spawnCollecting([bin, "check", ...long, "--update", "--jobs", jobs, "--baseline-dir", baselines], root)
      try {
        // The runs start once the directory is made (where every baseline goes is checked first).
        const deadline = Date.now() + 30_000
        while (!existsSync(baselines) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10))
        expect(existsSync(baselines), outputOf()).toBe(true)
        child.kill("SIGINT")
        expect(await exited, `--jobs ${jobs}: ${outputOf()}`).toBe(130)
      } finally {
        child.kill("SIGKILL") // nothing left by a failing test
      }
      expect(existsSync(made), `--jobs ${jobs}`).toBe(false)
      expect(existsSync(dir)).toBe(true)
    }
  }, 120_000)
})
