/**
 * What `clearsim run` leaves in its output directory, through `bin/clearsim.js` as a user runs it: the trace and the
 * reports are written in a staging directory and take their final names together when the run completes, so an
 * interrupted run (Ctrl-C) leaves an earlier run's files as they were, not a new partial trace.jsonl beside old
 * reports; a completed run's trace ends with its end line, and `clearsim hub replay` notes a trace cut short.
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..", "..")
const bin = join(root, "bin", "clearsim.js")
const dir = mkdtempSync(join(tmpdir(), "clearsim-run-output-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const RUN_FILES = ["report.html", "report.json", "report.md", "timeseries.csv", "trace.jsonl"]

const clearsim = (...args: string[]) => {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: "utf8", timeout: 90_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** Starts `clearsim <args>` and sends it SIGINT (a Ctrl-C) once stderr shows `when`; resolves with its exit code. */
const interruptWhen = (when: RegExp, ...args: string[]): Promise<{ code: number | null; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    let sent = false
    child.stdout.resume()
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text
      if (!sent && when.test(stderr)) {
        sent = true
        child.kill("SIGINT")
      }
    })
    child.on("close", (code) => resolve({ code, stderr }))
  })

/** Every entry of `path`: a file's text, or "(directory)". */
const contents = (path: string): Record<string, string> =>
  Object.fromEntries(readdirSync(path, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1)).map((entry) => [entry.name, entry.isDirectory() ? "(directory)" : readFileSync(join(path, entry.name), "utf8")]))

describe("clearsim run: the files of a run appear together, when it completes", () => {
  it("an interrupted run into an existing --out leaves the earlier run's files as they were, and no partial trace", async () => {
    const out = join(dir, "interrupted")
    const first = clearsim("run", "scenarios/quickstart.yaml", "--chains", "memory", "--seed", "1", "--out", out)
    expect(first.code, first.stderr).toBe(0)
    const before = contents(out)
    expect(Object.keys(before)).toEqual(RUN_FILES)
    // A staging directory a killed run left (no process has this id: Linux's largest is 2^22) goes at the next run.
    mkdirSync(join(out, ".clearsim-partial-999999999-abcdef"))
    writeFileSync(join(out, ".clearsim-partial-999999999-abcdef", "trace.jsonl"), '{"kind":"config"}\n')
    const second = await interruptWhen(/seed 2: 20% of virtual time/, "run", "scenarios/quickstart.yaml", "--chains", "memory", "--seed", "2", "--out", out)
    expect(second.code, second.stderr).toBe(130)
    expect(contents(out)).toEqual(before)
  })

  it("a completed run's trace ends with its end line; replay says nothing of it, and notes a trace cut at a line boundary", () => {
    const out = join(dir, "completed")
    const run = clearsim("run", "scenarios/quickstart.yaml", "--chains", "memory", "--out", out)
    expect(run.code, run.stderr).toBe(0)
    expect(readdirSync(out).sort()).toEqual(RUN_FILES)
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { traceHash: string; hubInputs: number }
    const lines = readFileSync(join(out, "trace.jsonl"), "utf8").trimEnd().split("\n")
    expect(lines.at(-1)).toBe(`{"kind":"end","inputs":${report.hubInputs}}`)
    const replay = clearsim("hub", "replay", join(out, "trace.jsonl"))
    expect(replay.code).toBe(0)
    expect(replay.stderr).toBe("")
    expect(JSON.parse(replay.stdout.trimEnd().split("\n").at(-1)!)).toMatchObject({ kind: "summary", traceHash: report.traceHash })
    // Cut after its 1000th input: every line is whole, so only the missing end line tells.
    const cut = join(dir, "cut.jsonl")
    writeFileSync(cut, `${lines.slice(0, 1001).join("\n")}\n`)
    const cutReplay = clearsim("hub", "replay", cut)
    expect(cutReplay.code).toBe(0)
    expect(cutReplay.stderr).toBe(`clearsim: note: ${cut} has no end line ({"kind":"end",...}), which clearsim run writes when a run completes and clearsim up when its session stops: if either wrote this trace, it may be cut short\n`)
  })

  it("a Monte Carlo set removes an earlier set's runs.json and runs.md at start, and writes its own once every run completed", async () => {
    const out = join(dir, "set")
    const first = clearsim("run", "scenarios/quickstart.yaml", "--chains", "memory", "--runs", "2", "--seed", "1", "--out", out)
    expect(first.code, first.stderr).toBe(0)
    expect(readdirSync(out).sort()).toEqual(["run-0-seed-1", "run-1-seed-2", "runs.json", "runs.md"])
    const earlier = contents(join(out, "run-0-seed-1"))
    const second = await interruptWhen(/seed 1: 20% of virtual time/, "run", "scenarios/quickstart.yaml", "--chains", "memory", "--runs", "2", "--seed", "1", "--out", out)
    expect(second.code, second.stderr).toBe(130)
    // No summary now: the earlier one described the set this one started to replace. The run it was writing is as it was.
    expect(readdirSync(out).sort()).toEqual(["run-0-seed-1", "run-1-seed-2"])
    expect(contents(join(out, "run-0-seed-1"))).toEqual(earlier)
    expect(existsSync(join(out, "runs.json"))).toBe(false)
  })
})

describe("clearsim run: a run that fails keeps the hub inputs it traced", () => {
  it("a conservation violation mid-run leaves trace.failed.jsonl beside the earlier run's files, replayable, and names it; the next completed run removes it", () => {
    const out = join(dir, "failed")
    const first = clearsim("run", "scenarios/balanced-two-chain.yaml", "--out", out)
    expect(first.code, first.stderr).toBe(0)
    const before = contents(out)
    // The hub's fourth conservation check fails, as a hub whose books do not balance would (an engine defect).
    const breaker = join(dir, "break-conservation.ts")
    writeFileSync(
      breaker,
      [
        `import { Hub } from ${JSON.stringify(join(root, "service", "hub", "hub.ts"))}`,
        `import { ConservationViolation } from ${JSON.stringify(join(root, "service", "hub", "errors.ts"))}`,
        "let checks = 0",
        "const check = Hub.prototype.checkConservation",
        "Hub.prototype.checkConservation = function (this: Hub) {",
        '  if (++checks === 4) throw new ConservationViolation("USDC", "custodied", 1n, 2n)',
        "  check.call(this)",
        "}",
      ].join("\n"),
    )
    const r = spawnSync(process.execPath, ["--import", breaker, bin, "run", "scenarios/balanced-two-chain.yaml", "--out", out], { cwd: root, encoding: "utf8", timeout: 90_000 })
    expect(r.status, r.stderr).toBe(1)
    const failedTrace = join(out, "trace.failed.jsonl")
    expect(r.stderr).toContain("conservation violated for USDC: custodied is 2, expected 1")
    expect(r.stderr).toContain(`the hub inputs traced up to the failure: ${failedTrace} (replay the hub: npx clearsim hub replay ${failedTrace})`)
    // The earlier run's files are as they were; the failed run's inputs are beside them, without an end line.
    const after = contents(out)
    expect(Object.keys(after)).toEqual([...RUN_FILES.slice(0, 4), "trace.failed.jsonl", "trace.jsonl"])
    for (const name of RUN_FILES) expect(after[name], name).toBe(before[name])
    const lines = after["trace.failed.jsonl"]!.trimEnd().split("\n")
    expect(lines.length).toBeGreaterThan(1)
    expect(lines.at(-1)).not.toContain('"kind":"end"')
    const replay = clearsim("hub", "replay", failedTrace)
    expect(replay.code, replay.stderr).toBe(0)
    expect(replay.stderr).toContain("may be cut short")
    // A run that completes there replaces the files and removes the failed run's trace.
    const again = clearsim("run", "scenarios/balanced-two-chain.yaml", "--out", out)
    expect(again.code, again.stderr).toBe(0)
    expect(Object.keys(contents(out))).toEqual(RUN_FILES)
  })
})
