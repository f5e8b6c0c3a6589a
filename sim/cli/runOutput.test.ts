/**
 * What `clearsim run` leaves in its output directory, through `bin/clearsim.js` as a user runs it: the trace and the
 * reports are written in a staging directory and take their final names together when the run completes, so an
 * interrupted run (Ctrl-C) leaves an earlier run's files as they were, not a new partial trace.jsonl beside old
 * reports; a completed run's trace ends with its end line, and `clearsim hub replay` notes a trace cut short.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { descendants, running } from "./testing.ts"

const root = join(import.meta.dirname, "..", "..")
const bin = join(root, "bin", "clearsim.js")
const dir = mkdtempSync(join(tmpdir(), "clearsim-run-output-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const RUN_FILES = ["report.html", "report.json", "report.md", "timeseries.csv", "trace.jsonl"]

const clearsim = (...args: string[]) => {
  const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: "utf8", timeout: 90_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** Starts `clearsim <args>` and calls `act` once stderr shows `when`; resolves with its exit code. */
const actWhen = (when: RegExp, act: (child: ChildProcess) => void, ...args: string[]): Promise<{ code: number | null; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    let acted = false
    child.stdout.resume()
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text
      if (!acted && when.test(stderr)) {
        acted = true
        act(child)
      }
    })
    child.on("close", (code) => resolve({ code, stderr }))
  })

/** Starts `clearsim <args>` and sends it SIGINT (a Ctrl-C) once stderr shows `when`; resolves with its exit code. */
const interruptWhen = (when: RegExp, ...args: string[]): Promise<{ code: number | null; stderr: string }> => actWhen(when, (child) => child.kill("SIGINT"), ...args)

/** Whether util-linux's `prlimit` is here: it runs a command under a limit on file sizes (RLIMIT_FSIZE), which holds for root too. */
const prlimit = spawnSync("prlimit", ["--version"]).error === undefined

/** `clearsim <args>` whose files may not grow past `bytes` (`prlimit --fsize`): a write past it fails with EFBIG, as a full disk fails one. */
const clearsimLimited = (bytes: number, ...args: string[]) => {
  const r = spawnSync("prlimit", [`--fsize=${bytes}`, "--", process.execPath, bin, ...args], { cwd: root, encoding: "utf8", timeout: 90_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

/** A scenario with no agent: its trace (a few blocks) is much smaller than its report.json. */
const quiet = join(dir, "quiet.yaml")
writeFileSync(
  quiet,
  `name: quiet
horizon: { seconds: 120 }
chains: [{ id: 31001 }, { id: 31002 }]
assets: [{ symbol: USDC, chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }] }]
agents: {}
`,
)

/** The line after a run's error when its files could not be written: where its complete trace is kept. */
const keptLine = (out: string) => `  the run completed, but its files were not written (nothing else in ${out} changed); its trace is kept: ${join(out, "trace.failed.jsonl")} (replay the hub: npx clearsim hub replay ${join(out, "trace.failed.jsonl")})\n`

/**
 * Writes a module for `node --import` that makes the disk full for the files whose path `full` (a regular
 * expression) matches: every write to them fails with ENOSPC as Node's own does (no path), after `partial` bytes
 * of the first one landed when given (a write cut mid-line, as a disk filling up cuts it). Node's named exports of
 * node:fs follow the patched functions (`syncBuiltinESMExports`), so the CLI's own imports see them.
 */
const fullDisk = (name: string, full: RegExp, partial = false): string => {
  const path = join(dir, name)
  writeFileSync(
    path,
    [
      'import fs from "node:fs"',
      'import { syncBuiltinESMExports } from "node:module"',
      `const full = ${full.toString()}`,
      "const writes = new Map()",
      "const { openSync, closeSync, writeSync } = fs",
      "fs.openSync = function (path, ...rest) {",
      "  const fd = openSync.call(this, path, ...rest)",
      '  if (typeof path === "string" && full.test(path)) writes.set(fd, 0)',
      "  return fd",
      "}",
      "fs.closeSync = function (fd) {",
      "  writes.delete(fd)",
      "  return closeSync.call(this, fd)",
      "}",
      "fs.writeSync = function (fd, buffer, offset = 0, length = buffer.length - offset, ...rest) {",
      "  if (!writes.has(fd)) return writeSync.call(this, fd, buffer, offset, length, ...rest)",
      "  const count = writes.get(fd)",
      "  writes.set(fd, count + 1)",
      `  if (count === 0 && ${partial} && length > 1) return writeSync.call(this, fd, buffer, offset, Math.floor(length / 2), ...rest)`,
      '  throw Object.assign(new Error("ENOSPC: no space left on device, write"), { errno: -28, code: "ENOSPC", syscall: "write" })',
      "}",
      "syncBuiltinESMExports()",
    ].join("\n"),
  )
  return path
}

/** `clearsim <args>` with the module `imported` loaded first (`node --import`). */
const clearsimWith = (imported: string, ...args: string[]) => {
  const r = spawnSync(process.execPath, ["--import", imported, bin, ...args], { cwd: root, encoding: "utf8", timeout: 90_000 })
  return { code: r.status, stdout: r.stdout, stderr: r.stderr }
}

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

  it("an interrupted Monte Carlo set leaves no empty run directory it made, nor the --out directory it made", async () => {
    const out = join(dir, "set-new")
    const r = await interruptWhen(/seed 1: 20% of virtual time/, "run", "scenarios/quickstart.yaml", "--chains", "memory", "--runs", "2", "--seed", "1", "--out", out)
    expect(r.code, r.stderr).toBe(130)
    expect(existsSync(out)).toBe(false)
    expect(existsSync(dir)).toBe(true)
  })

  it("an interrupted run leaves no empty directory it made, the --out directory's missing parents included; one that was there stays", async () => {
    // Was: the --out directory and its parents were created before the run and left behind, empty.
    const parent = join(dir, "new-parent")
    const out = join(parent, "deeper", "out")
    const r = await interruptWhen(/seed 2: 20% of virtual time/, "run", "scenarios/quickstart.yaml", "--chains", "memory", "--seed", "2", "--out", out)
    expect(r.code, r.stderr).toBe(130)
    expect(existsSync(parent)).toBe(false)
    expect(existsSync(dir)).toBe(true)
    // An existing, empty --out directory is not this run's to remove.
    const existing = join(dir, "existing-empty")
    mkdirSync(existing)
    const again = await interruptWhen(/seed 2: 20% of virtual time/, "run", "scenarios/quickstart.yaml", "--chains", "memory", "--seed", "2", "--out", existing)
    expect(again.code, again.stderr).toBe(130)
    expect(readdirSync(existing)).toEqual([])
  })

  it("a Ctrl-C once the run's files are in place: the run has completed, its files are whole and its summary is printed; a second run (--check-determinism) is what stops, exit 130", () => {
    // A module for `node --import` that sends the process SIGINT right after report.json takes its final name.
    const hook = join(dir, "late-interrupt.mjs")
    writeFileSync(
      hook,
      [
        'import fs from "node:fs"',
        'import { syncBuiltinESMExports } from "node:module"',
        "const { renameSync } = fs",
        "let sent = false",
        "fs.renameSync = function (from, to, ...rest) {",
        "  const result = renameSync.call(this, from, to, ...rest)",
        '  if (!sent && String(to).endsWith("/report.json")) (sent = true), process.kill(process.pid, "SIGINT")',
        "  return result",
        "}",
        "syncBuiltinESMExports()",
      ].join("\n"),
    )
    const whole = (out: string): void => {
      expect(readdirSync(out).sort()).toEqual(RUN_FILES)
      const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { traceHash: string }
      const replay = clearsim("hub", "replay", join(out, "trace.jsonl"))
      expect(JSON.parse(replay.stdout.trimEnd().split("\n").at(-1)!)).toMatchObject({ kind: "summary", traceHash: report.traceHash })
    }
    // One run: the signal finds it completed or stops it at its end; either way the files and the summary are there.
    const once = join(dir, "late-once")
    const single = clearsimWith(hook, "run", "scenarios/balanced-two-chain.yaml", "--chains", "memory", "--out", once)
    expect([0, 130], single.stderr).toContain(single.code)
    expect(single.stdout).toContain(`trace hash 0x`)
    whole(once)
    // With --check-determinism the second run is interrupted: the first one's files and summary stay, exit 130.
    const twice = join(dir, "late-twice")
    const checked = clearsimWith(hook, "run", "scenarios/balanced-two-chain.yaml", "--chains", "memory", "--check-determinism", "--out", twice)
    expect(checked.code, checked.stderr).toBe(130)
    expect(checked.stdout).toContain(`trace hash 0x`)
    expect(checked.stdout).not.toContain("determinism:")
    whole(twice)
  })

  it("a trace.jsonl that links elsewhere is replaced together with the reports or not at all: a copy through the link that fails leaves every file as it was, the run's trace kept beside them", () => {
    const out = join(dir, "linked")
    const elsewhere = join(dir, "elsewhere")
    mkdirSync(out)
    mkdirSync(elsewhere)
    symlinkSync(join(elsewhere, "trace.jsonl"), join(out, "trace.jsonl")) // to a file not there yet: written through
    const first = clearsim("run", "scenarios/quickstart.yaml", "--chains", "memory", "--out", out)
    expect(first.code, first.stderr).toBe(0)
    expect(lstatSync(join(out, "trace.jsonl")).isSymbolicLink()).toBe(true)
    const before = contents(out)
    const target = readFileSync(join(elsewhere, "trace.jsonl"), "utf8")
    expect(before["trace.jsonl"]).toBe(target)
    // The disk of the link's target is full: the run completes, but its trace cannot be copied there. It is kept
    // beside the earlier run's files instead (on the --out directory's disk, where it was written).
    const failed = clearsimWith(fullDisk("elsewhere-full.mjs", new RegExp(`^${elsewhere}/`)), "run", "scenarios/quickstart.yaml", "--chains", "memory", "--seed", "2", "--out", out)
    expect(failed.stderr.endsWith(`\nclearsim: --out ${join(out, "trace.jsonl")}: expected a file to write, but no space left on device (ENOSPC)\n${keptLine(out)}`), failed.stderr).toBe(true)
    expect(failed.code).toBe(2)
    const { "trace.failed.jsonl": kept, ...others } = contents(out)
    expect(others).toEqual(before)
    expect(kept!.trimEnd().split("\n").at(-1)).toMatch(/^\{"kind":"end","inputs":\d+\}$/)
    expect(readFileSync(join(elsewhere, "trace.jsonl"), "utf8")).toBe(target)
    expect(readdirSync(elsewhere)).toEqual(["trace.jsonl"]) // no temporary copy left
    // Room again: the link is kept and its target replaced.
    const again = clearsim("run", "scenarios/quickstart.yaml", "--chains", "memory", "--seed", "2", "--out", out)
    expect(again.code, again.stderr).toBe(0)
    expect(lstatSync(join(out, "trace.jsonl")).isSymbolicLink()).toBe(true)
    expect(readFileSync(join(elsewhere, "trace.jsonl"), "utf8")).not.toBe(target)
    expect(readdirSync(elsewhere)).toEqual(["trace.jsonl"])
    expect(existsSync(join(out, "trace.failed.jsonl"))).toBe(false) // its files in place, the kept trace goes
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

  it("a run whose own trace.jsonl cannot be written (a full disk) names it and keeps no trace.failed.jsonl: the trace is cut mid-line", () => {
    const out = join(dir, "trace-full")
    const first = clearsim("run", "scenarios/quickstart.yaml", "--chains", "memory", "--out", out)
    expect(first.code, first.stderr).toBe(0)
    const before = contents(out)
    // Half of the staged trace's only write lands (it is less than the 1 MB buffer), then the disk is full.
    const full = fullDisk("trace-full.mjs", /\.clearsim-partial-[^/]+\/trace\.jsonl$/, true)
    const r = clearsimWith(full, "run", "scenarios/quickstart.yaml", "--chains", "memory", "--seed", "2", "--out", out)
    // One line after the progress lines: the trace named by its final name, no replay offered for a cut trace.
    expect(r.stderr.endsWith(`% of virtual time\nclearsim: --out ${join(out, "trace.jsonl")}: expected a file to write, but no space left on device (ENOSPC)\n`), r.stderr).toBe(true)
    expect(r.code).toBe(2)
    expect(contents(out)).toEqual(before)
  })

  it.skipIf(!prlimit)("a report that cannot be written (a limit on file sizes) is named with its cause, exit 2; the run's whole trace is kept as trace.failed.jsonl beside the earlier run's files, and replays", () => {
    // Was: the run's trace went with its staging directory, and the error named the directory, not the file.
    // The run's files when they can be written: files may grow past its trace, not to its report.json (the first report written).
    const whole = join(dir, "report-too-large-unlimited")
    const unlimited = clearsim("run", quiet, "--seed", "4", "--out", whole)
    expect(unlimited.code, unlimited.stderr).toBe(0)
    const traceBytes = statSync(join(whole, "trace.jsonl")).size
    expect(traceBytes * 3).toBeLessThan(statSync(join(whole, "report.json")).size)
    const out = join(dir, "report-too-large")
    mkdirSync(out)
    for (const name of RUN_FILES) writeFileSync(join(out, name), `an earlier run's ${name}\n`)
    const before = contents(out)
    const r = clearsimLimited(traceBytes * 2, "run", quiet, "--seed", "4", "--out", out)
    expect(r.stderr.endsWith(`% of virtual time\nclearsim: --out ${join(out, "report.json")}: expected a file to write, but file too large (EFBIG)\n${keptLine(out)}`), r.stderr).toBe(true)
    expect(r.code).toBe(2)
    // The earlier run's files as they were; beside them the whole trace, as the run writes it when it can.
    expect(contents(out)).toEqual({ ...before, "trace.failed.jsonl": readFileSync(join(whole, "trace.jsonl"), "utf8") })
    const replay = clearsim("hub", "replay", join(out, "trace.failed.jsonl"))
    expect(replay.code, replay.stderr).toBe(0)
    expect(replay.stderr).toBe("") // its end line is there: not cut short
  }, 90_000)

  it("a file that cannot take its name (a directory made there during the run) puts back the files moved before it; the trace is kept, exit 2", async () => {
    // Was: report.json and report.md were this run's, the others the earlier run's, and the new trace was gone.
    const out = join(dir, "publish-fails")
    mkdirSync(out)
    for (const name of RUN_FILES) writeFileSync(join(out, name), `an earlier run's ${name}\n`)
    const before = contents(out)
    // Once the run is going (its outputs checked before it started), report.html becomes a directory with a file in it.
    const r = await actWhen(
      /seed 2: 10% of virtual time/,
      () => {
        rmSync(join(out, "report.html"))
        mkdirSync(join(out, "report.html"))
        writeFileSync(join(out, "report.html", "notes.txt"), "mine\n")
      },
      "run", "scenarios/quickstart.yaml", "--chains", "memory", "--seed", "2", "--out", out,
    )
    expect(r.stderr.endsWith(`% of virtual time\nclearsim: --out ${join(out, "report.html")}: expected a file to write, but it is a directory\n${keptLine(out)}`), r.stderr).toBe(true)
    expect(r.code).toBe(2)
    // No staging directory, temporary or backup left: only the earlier run's files, the directory, and the trace kept.
    const after = contents(out)
    expect(Object.keys(after)).toEqual(["report.html", "report.json", "report.md", "timeseries.csv", "trace.failed.jsonl", "trace.jsonl"])
    for (const name of ["report.json", "report.md", "timeseries.csv", "trace.jsonl"]) expect(after[name], name).toBe(before[name])
    expect(readdirSync(join(out, "report.html"))).toEqual(["notes.txt"])
    expect(after["trace.failed.jsonl"]!.trimEnd().split("\n").at(-1)).toMatch(/^\{"kind":"end","inputs":\d+\}$/)
    const replay = clearsim("hub", "replay", join(out, "trace.failed.jsonl"))
    expect(replay.code, replay.stderr).toBe(0)
    expect(replay.stderr).toBe("")
  }, 90_000)

  it("refuses a trace.failed.jsonl that is a directory or a symbolic link before running", () => {
    const out = join(dir, "failed-in-the-way")
    mkdirSync(join(out, "trace.failed.jsonl"), { recursive: true })
    const directory = clearsim("run", "scenarios/balanced-two-chain.yaml", "--out", out)
    expect(directory.stderr).toBe(`clearsim: --out ${out}: expected to write the file ${join(out, "trace.failed.jsonl")}, but it is a directory\n`)
    expect(directory.code).toBe(2)
    expect(readdirSync(out)).toEqual(["trace.failed.jsonl"])
    rmSync(join(out, "trace.failed.jsonl"), { recursive: true })
    writeFileSync(join(dir, "kept-elsewhere.jsonl"), "")
    symlinkSync(join(dir, "kept-elsewhere.jsonl"), join(out, "trace.failed.jsonl"))
    const link = clearsim("run", "scenarios/balanced-two-chain.yaml", "--out", out)
    expect(link.stderr).toBe(`clearsim: --out ${out}: expected to write the file ${join(out, "trace.failed.jsonl")}, but it is a symbolic link, and trace.failed.jsonl is not written through one (a run that completes removes it): remove the link\n`)
    expect(link.code).toBe(2)
    expect(readdirSync(out)).toEqual(["trace.failed.jsonl"])
  })
})

describe("clearsim run: its output directory removed during the run", () => {
  it("says so, exit 2, and makes no directory again to write reports beside no trace", async () => {
    const out = join(dir, "removed-during")
    const r = await actWhen(/seed 11: 30% of virtual time/, () => rmSync(out, { recursive: true, force: true }), "run", "scenarios/balanced-two-chain.yaml", "--out", out)
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr.split("\n").filter((line) => line !== "" && !line.includes("% of virtual time"))).toEqual([
      `clearsim: --out ${out}: the run completed, but ${out} was removed or moved while it ran, and the trace it was writing there with it: no file was written`,
    ])
    expect(existsSync(out)).toBe(false)
  })
})

describe("clearsim run: a chain whose anvil exits mid-run", () => {
  it("says which chain's anvil stopped, when, that the run was stopped and where its trace is: two lines, no stack, exit 1, no anvil left", async () => {
    const out = join(dir, "anvil-killed")
    let anvils: number[] = []
    let victim: { readonly pid: number; readonly chainId: string } | undefined
    const r = await actWhen(
      /seed 11: 30% of virtual time/,
      (child) => {
        // The anvils below this command (its re-executed child's), and only those: other runs' are not touched.
        anvils = descendants(child.pid!, "anvil")
        const pid = anvils[0]!
        const chainId = /--chain-id\0(\d+)/.exec(readFileSync(`/proc/${pid}/cmdline`, "latin1"))![1]!
        victim = { pid, chainId }
        process.kill(pid, "SIGKILL")
      },
      "run",
      "scenarios/balanced-two-chain.yaml",
      "--chains",
      "anvil",
      "--out",
      out,
    )
    try {
      expect(anvils, r.stderr).toHaveLength(2)
      expect(r.code, r.stderr).toBe(1)
      const lines = r.stderr.trimEnd().split("\n").filter((line) => !line.includes("% of virtual time"))
      const name = victim!.chainId === "31001" ? "alpha" : "beta"
      const failed = join(out, "trace.failed.jsonl")
      expect(lines, r.stderr).toHaveLength(2)
      expect(lines[0]).toMatch(
        new RegExp(`^clearsim: the run of seed 11 was stopped: the anvil of chain ${victim!.chainId} \\(${name}; pid ${victim!.pid}, RPC http://127\\.0\\.0\\.1:\\d+\\) was killed by SIGKILL at virtual time \\d+ s of 7200 s, in epoch \\d+ \\(the run's \\d+(st|nd|rd|th)\\)$`),
      )
      // Killed at 30 % or a little later: the virtual time is that of the run, not 0 nor the horizon.
      const seconds = Number(/at virtual time (\d+) s/.exec(lines[0]!)![1])
      expect(seconds).toBeGreaterThanOrEqual(2160)
      expect(seconds).toBeLessThan(7200)
      expect(lines[1]).toBe(`  the hub inputs traced up to the failure: ${failed} (replay the hub: npx clearsim hub replay ${failed})`)
      expect(r.stderr).not.toMatch(/^\s+at /m)
      expect(readdirSync(out)).toEqual(["trace.failed.jsonl"])
      const replay = clearsim("hub", "replay", failed)
      expect(replay.code, replay.stderr).toBe(0)
      expect(replay.stderr).toContain("may be cut short")
      // The other chain's anvil was stopped with the run.
      expect(anvils.filter(running)).toEqual([])
    } finally {
      for (const pid of anvils.filter(running)) process.kill(pid, "SIGKILL") // none left by a failing test either
    }
  }, 90_000)

  it("an anvil that exits before it answers, or at once with an error, is told in one line without a stack, exit 1", () => {
    // Stand-ins for anvil (ANVIL_BINARY): one says it listens and exits, the other fails at once as a broken install would.
    const quits = join(dir, "anvil-that-quits")
    writeFileSync(quits, '#!/bin/sh\nwhile [ "$1" != "--port" ]; do shift; done\necho "Listening on 127.0.0.1:$2"\nexit 3\n', { mode: 0o755 })
    const broken = join(dir, "anvil-that-fails")
    writeFileSync(broken, '#!/bin/sh\necho "error: this anvil cannot run here" >&2\nexit 1\n', { mode: 0o755 })
    for (const [binary, reason] of [
      [quits, /its process \(pid \d+\) exited with code 3 before it answered/],
      [broken, /error: this anvil cannot run here/],
    ] as const) {
      const out = join(dir, "anvil-not-started")
      const r = spawnSync(process.execPath, [bin, "run", "scenarios/balanced-two-chain.yaml", "--chains", "anvil", "--out", out], { cwd: root, encoding: "utf8", timeout: 90_000, env: { ...process.env, ANVIL_BINARY: binary } })
      expect(r.status, r.stderr).toBe(1)
      expect(r.stderr).toMatch(/^clearsim: Chain 3100[12]: anvil did not start on 127\.0\.0\.1 \(ports tried: [\d, ]+\): /)
      expect(r.stderr).toMatch(reason)
      expect(r.stderr).not.toMatch(/^\s+at /m)
      expect(existsSync(out)).toBe(false)
    }
  }, 90_000)
})
