/**
 * Signals through `bin/clearsim.js` when it runs the command in a child process (a `node` older than 22 re-executes
 * it with the project's Node 22): a Ctrl-C on a terminal (SIGINT to the whole process group, parent and child) and
 * a SIGTERM to the parent alone each stop `clearsim up` once, cleanly: exit 0, the session's files written, no
 * anvil left. Before the fix the child got a terminal's SIGINT twice (directly and forwarded) and took the second
 * as "force the exit now" (exit 130, no report). Needs a `node` older than 22 on PATH (skipped otherwise) and
 * process groups (not Windows).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { delimiter, join, resolve } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { descendants, processTable, running } from "./testing.ts"
import { longRunText } from "../scenario/testing.ts"
import { stopRequests } from "./up.ts"

const root = join(import.meta.dirname, "..", "..")
const bin = join(root, "bin", "clearsim.js")
const scenario = join(root, "sim", "live", "testdata", "live-smoke.yaml")

/** The first `node` on PATH (outside this project's node_modules) whose major version is below 22. */
const olderNode = ((): string | undefined => {
  if (process.platform === "win32" || !existsSync(join(root, "node_modules", "node", "bin", "node"))) return undefined
  const dirs = [...(process.env["PATH"] ?? "").split(delimiter), "/usr/local/bin", "/usr/bin"]
  for (const dir of dirs) {
    if (dir === "" || resolve(dir).startsWith(join(root, "node_modules"))) continue
    const candidate = join(dir, "node")
    if (!existsSync(candidate)) continue
    const version = spawnSync(candidate, ["-p", "process.versions.node"], { encoding: "utf8" }).stdout?.trim() ?? ""
    if (/^\d+\./.test(version) && Number(version.split(".")[0]) < 22) return candidate
  }
  return undefined
})()


let child: ChildProcess | undefined
let out: string | undefined
afterEach(() => {
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, "SIGKILL")
    } catch {
      // already gone
    }
  }
  if (out !== undefined) rmSync(out, { recursive: true, force: true })
  child = undefined
  out = undefined
})

/** Starts `clearsim up` with the older node in its own process group, sends `signal` to `target` once it is up. */
const upThenSignal = async (target: "group" | "parent", signal: NodeJS.Signals) => {
  out = mkdtempSync(join(tmpdir(), "clearsim-signals-"))
  const started = spawn(olderNode!, [bin, "up", scenario, "--port", "0", "--no-agents", "--accounts", "1", "--out", out], {
    cwd: root,
    detached: true, // its own process group, as a shell gives a foreground job
    stdio: ["ignore", "pipe", "pipe"],
  })
  child = started
  let output = ""
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((done) => started.on("exit", (code, signal) => done({ code, signal })))
  await new Promise<void>((up, failed) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes("Ctrl-C stops it")) up()
    }
    started.stdout!.on("data", onData)
    started.stderr!.on("data", (chunk: Buffer) => void (output += chunk.toString()))
    void exited.then(() => failed(new Error(`clearsim up exited before it was up:\n${output}`)))
  })
  const anvils = descendants(started.pid!, "anvil")
  expect(anvils.length).toBeGreaterThan(0)
  expect(anvils.every(running)).toBe(true)
  if (target === "group") process.kill(-started.pid!, signal)
  else started.kill(signal)
  const exit = await exited
  const deadline = Date.now() + 5_000
  while (anvils.some(running) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
  return { exit, output, anvils, files: readdirSync(out) }
}

describe.skipIf(olderNode === undefined)(`bin/clearsim.js in a child process (${olderNode ?? "no node older than 22 on PATH"})`, () => {
  it("a Ctrl-C (SIGINT to the process group) stops `clearsim up` once, cleanly", async () => {
    const { exit, output, anvils, files } = await upThenSignal("group", "SIGINT")
    expect(exit, output).toEqual({ code: 0, signal: null })
    expect(output.match(/SIGINT: stopping/g)).toHaveLength(1)
    expect(output).not.toContain("again: exiting now")
    expect(output).toContain("clearsim up stopped after")
    expect(files).toEqual(expect.arrayContaining(["devnet.json", "trace.jsonl", "report.json", "session.json"]))
    expect(anvils.filter(running)).toEqual([])
  })

  it("a SIGTERM to the parent alone is forwarded: the child stops cleanly", async () => {
    const { exit, output, anvils, files } = await upThenSignal("parent", "SIGTERM")
    expect(exit, output).toEqual({ code: 0, signal: null })
    expect(output).toContain("SIGTERM: stopping")
    expect(output).not.toContain("again: exiting now")
    expect(files).toEqual(expect.arrayContaining(["devnet.json", "trace.jsonl", "report.json", "session.json"]))
    expect(anvils.filter(running)).toEqual([])
  })
})

describe("bin/clearsim.js's child when its parent is killed outright", () => {
  it("stops instead of running on as an orphan (the IPC channel closes: taken as a SIGTERM)", async () => {
    out = mkdtempSync(join(tmpdir(), "clearsim-orphan-"))
    // A run of a few hundred virtual hours: long enough to still be going when its parent dies.
    const long = join(out, "long.yaml")
    writeFileSync(
      long,
      longRunText("long-run"),
    )
    // The current Node: the wrapper still runs the command in a child, for a larger heap.
    const started = spawn(process.execPath, [bin, "run", long, "--out", join(out, "run")], { cwd: root, stdio: ["ignore", "ignore", "pipe"], env: { ...process.env, NODE_OPTIONS: "" } })
    child = started
    let progress = ""
    await new Promise<void>((going) => started.stderr!.on("data", (chunk: Buffer) => ((progress += chunk.toString()), progress.includes("% of virtual time") && going())))
    const below = [...processTable()].filter(([, p]) => p.ppid === started.pid).map(([pid]) => pid)
    expect(below).toHaveLength(1)
    started.kill("SIGKILL")
    try {
      const deadline = Date.now() + 15_000
      while (running(below[0]!) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
      expect(running(below[0]!)).toBe(false)
    } finally {
      if (running(below[0]!)) process.kill(below[0]!, "SIGKILL") // no orphan left by a failing run
    }
  }, 60_000)
})

describe("stopRequests", () => {
  const record = () => {
    const requests: [NodeJS.Signals, number][] = []
    return { requests, counter: stopRequests((signal, n) => void requests.push([signal, n])) }
  }

  it("counts a signal received both directly and forwarded (a Ctrl-C on a terminal) once, in either order", () => {
    for (const order of [["direct", "forwarded"], ["forwarded", "direct"]] as const) {
      const { requests, counter } = record()
      for (const way of order) counter[way]("SIGINT")
      expect(requests).toEqual([["SIGINT", 1]])
      for (const way of order) counter[way]("SIGINT") // a second Ctrl-C
      expect(requests).toEqual([["SIGINT", 1], ["SIGINT", 2]])
    }
  })

  it("counts signals received one way only (to the parent alone, to the child alone) each", () => {
    const forwarded = record()
    forwarded.counter.forwarded("SIGTERM")
    forwarded.counter.forwarded("SIGTERM")
    expect(forwarded.requests).toEqual([["SIGTERM", 1], ["SIGTERM", 2]])
    const direct = record()
    direct.counter.direct("SIGHUP")
    direct.counter.direct("SIGINT")
    expect(direct.requests).toEqual([["SIGHUP", 1], ["SIGINT", 2]])
  })
})
