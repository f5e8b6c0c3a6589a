/**
 * `clearsim` when its standard output fails, through `bin/clearsim.js` as a user runs it: a reader that went away
 * (`clearsim hub replay trace.jsonl | head -1`: EPIPE) stops the command silently with 141, as SIGPIPE stops a Unix
 * tool; a write that fails otherwise (stdout on /dev/full: ENOSPC) is one line on stderr and exit 2. Before, both
 * died with an unhandled 'error' event and its stack (exit 1), and `run`, `compare` or `schema` on /dev/full
 * exited 0 having printed nothing. Standard error the same, silently (a run's progress lines go there): before, a
 * run died with exit 1 and left its staging directory.
 */
import { spawn, spawnSync } from "node:child_process"
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..", "..")
const bin = join(root, "bin", "clearsim.js")
const dir = mkdtempSync(join(tmpdir(), "clearsim-stdout-"))
const out = join(dir, "quickstart")
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const NO_SPACE = "clearsim: cannot write standard output: no space left on device (ENOSPC)\n"

/** Every entry of `path`, hidden ones (a staging directory) included. */
const entries = (path: string): string[] => readdirSync(path).sort()

/** `clearsim <args>` with its standard output on /dev/full. */
const onDevFull = (...args: string[]) => {
  const full = openSync("/dev/full", "w")
  try {
    const r = spawnSync(process.execPath, [bin, ...args], { cwd: root, encoding: "utf8", stdio: ["ignore", full, "pipe"], timeout: 60_000 })
    return { code: r.status, stderr: r.stderr }
  } finally {
    closeSync(full)
  }
}

beforeAll(() => {
  // Quickstart in memory: a trace whose replay prints about 450 kB, far more than a pipe holds.
  const r = spawnSync(process.execPath, [bin, "run", "scenarios/quickstart.yaml", "--chains", "memory", "--out", out], { cwd: root, encoding: "utf8", timeout: 90_000 })
  expect(r.status, r.stderr).toBe(0)
})

describe.skipIf(!existsSync("/dev/full"))("clearsim with a standard output that fails", () => {
  it("hub replay | head -1: stops silently with exit 141 when the reader goes away after the first line", async () => {
    const child = spawn(process.execPath, [bin, "hub", "replay", join(out, "trace.jsonl")], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    let first = ""
    // What `head -1` does: read up to the first newline, then close the pipe.
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      first += text
      if (first.includes("\n")) child.stdout.destroy()
    })
    const code = await new Promise<number | null>((resolve) => child.on("close", (status) => resolve(status)))
    expect(JSON.parse(first.split("\n")[0]!)).toHaveProperty("kind")
    expect(stderr).toBe("")
    expect(code).toBe(141)
  })

  it("hub replay > /dev/full: one line on stderr, no stack, exit 2", () => {
    const r = onDevFull("hub", "replay", join(out, "trace.jsonl"))
    expect(r.stderr).toBe(NO_SPACE)
    expect(r.code).toBe(2)
  })

  it("compare, schema and run > /dev/full: the same line and exit 2, not a silent exit 0", () => {
    const report = join(out, "report.json")
    for (const args of [
      ["compare", report, report],
      ["schema", "--out", join(dir, "schema.json")],
    ]) {
      const r = onDevFull(...args)
      expect(r.stderr, args.join(" ")).toBe(NO_SPACE)
      expect(r.code, args.join(" ")).toBe(2)
    }
    // The run completes and writes its files (its summary comes after them); only the summary is lost.
    const again = join(dir, "again")
    const run = onDevFull("run", "scenarios/quickstart.yaml", "--chains", "memory", "--out", again)
    expect(run.stderr.endsWith(NO_SPACE), run.stderr).toBe(true)
    expect(run.stderr).not.toContain("    at ")
    expect(run.code).toBe(2)
    expect(readdirSync(again).sort()).toEqual(["report.html", "report.json", "report.md", "timeseries.csv", "trace.jsonl"])
  })
})

describe.skipIf(!existsSync("/dev/full"))("clearsim run with a standard error that fails", () => {
  it("2>&1 | head -1: the progress line's reader gone stops the run silently with exit 141, and leaves no staging directory", async () => {
    const stopped = join(dir, "stderr-pipe")
    const child = spawn(process.execPath, [bin, "run", "scenarios/balanced-two-chain.yaml", "--out", stopped], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text))
    let first = ""
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      first += text
      if (first.includes("\n")) child.stderr.destroy()
    })
    const code = await new Promise<number | null>((resolve) => child.on("close", (status) => resolve(status)))
    expect(first.split("\n")[0]).toBe("balanced-two-chain seed 11: 10% of virtual time")
    expect(stdout).toBe("")
    expect(code).toBe(141)
    // No staging directory, nor the --out directory the run made (nothing is in it).
    expect(existsSync(stopped)).toBe(false)
  })

  it("2> /dev/full: the run stops at its first progress line with exit 2, printing nothing, and leaves the earlier run's files as they were", () => {
    const earlier = join(out, "report.json")
    const before = readFileSync(earlier, "utf8")
    const full = openSync("/dev/full", "w")
    try {
      const r = spawnSync(process.execPath, [bin, "run", "scenarios/quickstart.yaml", "--chains", "memory", "--seed", "2", "--out", out], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", full], timeout: 60_000 })
      expect(r.stdout).toBe("")
      expect(r.status).toBe(2)
    } finally {
      closeSync(full)
    }
    expect(entries(out)).toEqual(["report.html", "report.json", "report.md", "timeseries.csv", "trace.jsonl"])
    expect(readFileSync(earlier, "utf8")).toBe(before)
  })
})
