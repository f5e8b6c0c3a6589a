/**
 * `clearsim up` checks every file its session will write before it starts anything, as `clearsim run` does: a
 * directory (or a device) where one of them goes is refused in one line, exit 2, no chain started, nothing written.
 * Before, a directory where trace.jsonl goes left the whole session without its trace, and one where session.json
 * goes failed the stop with a stack after the whole session. The session's summary words a failed trace by what it
 * left (nothing, or a beginning).
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { createServer, type AddressInfo } from "node:net"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { DEVNET_FILES, type DevnetSession } from "../live/devnet.ts"
import { SESSION_LOCK_FILE } from "../live/sessionLock.ts"
import { descendants, running, spawnCollecting } from "./testing.ts"
import { PREVIOUS_SESSION_DIR, renderSession, stopExitCode, upScenarioPath } from "./up.ts"

const root = new URL("../../", import.meta.url).pathname
const bin = join(root, "bin/clearsim.js")
const scenario = join(root, "sim/live/testdata/live-smoke.yaml")
const dirs: string[] = []
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
/**
 * The one line of `checkRunOutputs` (sim/cli/userErrors.ts) for `path` given with `flag`, whatever its words for
 * what is in the way: those are that module's to choose.
 */
const refusal = (flag: string, path: string, what: RegExp) => new RegExp(`^clearsim: ${escape(flag)}: expected to write the file ${escape(path)}, but [^\n]*${what.source}[^\n]*\n$`)
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** `clearsim up --out <out>`; a session that starts anyway (the defect) is stopped by SIGTERM at the timeout. */
const up = (out: string) =>
  spawnSync(process.execPath, [bin, "up", scenario, "--port", "0", "--accounts", "1", "--out", out], { cwd: root, encoding: "utf8", timeout: 30_000, killSignal: "SIGTERM" })

describe("clearsim up's output files", () => {
  it("are the files the session writes", () => {
    expect([...DEVNET_FILES].sort()).toEqual(["devnet.json", "report.html", "report.json", "report.md", "session.json", "timeseries.csv", "trace.jsonl"])
  })

  it.each(["trace.jsonl", "session.json", "report.html", SESSION_LOCK_FILE])("refuses a directory where %s goes: one line, exit 2, nothing started or written", (name) => {
    const out = mkdtempSync(join(tmpdir(), "clearsim-up-files-"))
    dirs.push(out)
    mkdirSync(join(out, name))
    const result = up(out)
    expect(result.status, result.stdout + result.stderr).toBe(2)
    expect(result.stderr).toMatch(refusal(`--out ${out}`, join(out, name), /directory/))
    expect(result.stdout).toBe("") // no start-up text: no chain was started
    expect(existsSync(join(out, "devnet.json"))).toBe(false)
  }, 40_000)

  it("refuses a character device where trace.jsonl goes (a link to /dev/full), as clearsim run does", () => {
    const out = mkdtempSync(join(tmpdir(), "clearsim-up-files-"))
    dirs.push(out)
    symlinkSync("/dev/full", join(out, "trace.jsonl"))
    const result = up(out)
    expect(result.status, result.stdout + result.stderr).toBe(2)
    expect(result.stderr).toMatch(refusal(`--out ${out}`, join(out, "trace.jsonl"), /./))
    expect(existsSync(join(out, "devnet.json"))).toBe(false)
  }, 40_000)

  it("names the default output directory as such when it is in the way", () => {
    const cwd = mkdtempSync(join(tmpdir(), "clearsim-up-cwd-"))
    dirs.push(cwd)
    const out = join("reports", "out", "live-live-smoke")
    mkdirSync(join(cwd, out, "session.json"), { recursive: true })
    const result = spawnSync(process.execPath, [bin, "up", scenario, "--port", "0"], { cwd, encoding: "utf8", timeout: 30_000, killSignal: "SIGTERM" })
    expect(result.status, result.stdout + result.stderr).toBe(2)
    expect(result.stderr).toMatch(refusal(`the output directory ${out}`, join(out, "session.json"), /directory/))
    expect(existsSync(join(cwd, out, "devnet.json"))).toBe(false)
  }, 40_000)
})

describe("clearsim up that never comes up", () => {
  it("a start that fails (anvil exits at once) leaves no directory it made; one that was there keeps what was in it", () => {
    // Was: the output directory (and its missing parents) was made before the chains started, and left behind empty.
    const base = mkdtempSync(join(tmpdir(), "clearsim-up-failed-"))
    dirs.push(base)
    const existing = join(base, "existing")
    mkdirSync(existing)
    writeFileSync(join(existing, "notes.txt"), "mine\n")
    for (const out of [join(base, "new", "deeper", "out"), existing]) {
      const result = spawnSync(process.execPath, [bin, "up", scenario, "--port", "0", "--accounts", "1", "--out", out], {
        cwd: root,
        encoding: "utf8",
        timeout: 60_000,
        killSignal: "SIGTERM",
        env: { ...process.env, ANVIL_BINARY: "/bin/false" }, // a program that exits at once, as an anvil that cannot start
      })
      expect(result.status, result.stdout + result.stderr).toBe(1)
      expect(result.stderr).toContain("anvil did not start")
    }
    expect(readdirSync(base).sort()).toEqual(["existing"])
    expect(readdirSync(existing)).toEqual(["notes.txt"])
  }, 130_000)

  it.each([
    ["a Ctrl-C", 1, "SIGINT"],
    ["two Ctrl-Cs (the second forcing the exit)", 2, "SIGINT"],
    // Was: exit 1 and a viem TransactionExecutionError with the calldata of a contract (the chains were killed under
    // the deployment); SIGINT and SIGTERM hid the same failure by interrupting the command.
    ["a SIGHUP (its terminal closed)", 1, "SIGHUP"],
    ["a SIGTERM", 1, "SIGTERM"],
  ] as const)("%s while the devnet starts: says so, exits 130, leaves no directory it made, and no anvil", async (_, signals, signal) => {
    const base = mkdtempSync(join(tmpdir(), "clearsim-up-interrupted-"))
    dirs.push(base)
    const out = join(base, "new", "deeper", "out")
    const { child, output: outputOf, exited } = spawnCollecting([bin, "up", scenario, "--port", "0", "--accounts", "1", "--out", out], root)
    const anvils = new Set<number>()
    try {
      // Starting: the directory is made, and the chains are being started.
      const deadline = Date.now() + 30_000
      while (!(existsSync(out) && descendants(child.pid!, "anvil").length > 0) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 5))
      for (const pid of descendants(child.pid!, "anvil")) anvils.add(pid)
      expect(outputOf()).not.toContain("Ctrl-C stops it") // not up yet
      // Was: nothing at all until the devnet was up (minutes with many --accounts).
      expect(outputOf()).toContain("clearsim up: starting live-smoke: 2 anvil chains, their contracts and funded accounts...\n")
      for (let i = 0; i < signals; i++) {
        child.kill(signal)
        await new Promise((r) => setTimeout(r, 20))
      }
      expect(await exited, outputOf()).toBe(130)
      expect(outputOf()).toContain(`${signal}: stopping; the devnet is still starting`)
      expect(outputOf()).not.toMatch(/Error|clearsim: /)
    } finally {
      child.kill("SIGKILL") // nothing left by a failing test
    }
    expect(readdirSync(base)).toEqual([])
    const gone = Date.now() + 5_000
    while ([...anvils].some(running) && Date.now() < gone) await new Promise((r) => setTimeout(r, 100))
    expect([...anvils].filter(running)).toEqual([])
  }, 60_000)
})

describe("clearsim up whose start fails while a stop request is handled", () => {
  it("reports the start's own failure (its API port taken meanwhile) with its exit code, not as a stop (130)", async () => {
    // Was: "SIGTERM: stopped while starting; the devnet did not come up", exit 130: the port's error was not said.
    // The stop request is a SIGTERM forwarded by a parent bin/clearsim.js (as to `up` run in a child process): it
    // kills no chain, so the start goes on to listen on the port, which the test took meanwhile.
    const base = mkdtempSync(join(tmpdir(), "clearsim-up-stop-failed-"))
    dirs.push(base)
    const out = join(base, "new", "out")
    const taker = createServer()
    const port = await new Promise<number>((resolve) => taker.listen(0, "127.0.0.1", () => resolve((taker.address() as AddressInfo).port)))
    await new Promise<void>((resolve) => taker.close(() => resolve()))
    const child = spawn(process.execPath, [bin, "up", scenario, "--port", String(port), "--no-agents", "--accounts", "1", "--out", out], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe", "ipc"],
      env: { ...process.env, CLEARSIM_CHILD: "1" },
    })
    let stdout = ""
    let stderr = ""
    child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text))
    child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
    try {
      const deadline = Date.now() + 30_000
      while (descendants(child.pid!, "anvil").length === 0 && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 5))
      expect(descendants(child.pid!, "anvil").length, stderr).toBeGreaterThan(0) // past the port's probe, starting the chains
      await new Promise<void>((resolve) => taker.listen(port, "127.0.0.1", resolve))
      child.send({ clearsimForwardedSignal: "SIGTERM" })
      expect(await exited, stdout + stderr).toBe(2)
      expect(stderr).toContain("SIGTERM: stopping; the devnet is still starting")
      expect(stderr).toContain("SIGTERM: the start failed before it could be stopped; why follows\n")
      expect(stderr).toContain(`clearsim: --port: 127.0.0.1:${port} is already in use (another clearsim up?); pass another --port, or --port 0 for a free one\n`)
      expect(stderr).not.toContain("stopped while starting")
      expect(stdout).not.toContain("Ctrl-C stops it")
    } finally {
      child.kill("SIGKILL") // nothing left by a failing test
      await new Promise<void>((resolve) => taker.close(() => resolve()))
    }
    expect(readdirSync(base)).toEqual([])
  }, 60_000)
})

describe("clearsim up on an output directory another clearsim up is writing into", () => {
  it("is refused in one line, exit 2, before any chain starts: the running session's trace stays its own and replays", async () => {
    // Was: the second session truncated trace.jsonl and both wrote into it, interleaved (replay failed: a line after
    // the end line), and each overwrote the other's devnet.json, report and session.json; both stops exited 0.
    const out = mkdtempSync(join(tmpdir(), "clearsim-up-shared-"))
    dirs.push(out)
    const { child: first, output: outputOf, exited } = spawnCollecting([bin, "up", scenario, "--port", "0", "--no-agents", "--accounts", "1", "--out", out], root)
    try {
      const deadline = Date.now() + 30_000
      while (!outputOf().includes("Ctrl-C stops it") && Date.now() < deadline && first.exitCode === null) await new Promise((r) => setTimeout(r, 50))
      expect(outputOf()).toContain("Ctrl-C stops it")
      const devnetJson = readFileSync(join(out, "devnet.json"), "utf8")

      const second = spawnSync(process.execPath, [bin, "up", scenario, "--port", "0", "--no-agents", "--accounts", "1", "--out", out], { cwd: root, encoding: "utf8", timeout: 30_000, killSignal: "SIGTERM" })
      expect(second.status, second.stdout + second.stderr).toBe(2)
      expect(second.stderr).toBe(`clearsim: --out ${out}: another clearsim up (pid ${first.pid}) is writing its session there; stop it first, or pass another --out\n`)
      expect(second.stdout).toBe("")
      expect(readFileSync(join(out, "devnet.json"), "utf8")).toBe(devnetJson)

      first.kill("SIGINT")
      expect(await exited, outputOf()).toBe(0)
    } finally {
      first.kill("SIGKILL") // nothing left by a failing test
    }
    const trace = readFileSync(join(out, "trace.jsonl"), "utf8").trimEnd().split("\n")
    expect(trace.filter((line) => line.startsWith('{"kind":"config"'))).toHaveLength(1)
    const replay = spawnSync(process.execPath, [bin, "hub", "replay", join(out, "trace.jsonl")], { cwd: root, encoding: "utf8", timeout: 30_000 })
    expect(replay.status, replay.stderr).toBe(0)
    // The claim is gone with its session: the next one may write there.
    expect(existsSync(join(out, SESSION_LOCK_FILE))).toBe(false)
  }, 60_000)
})

describe("clearsim up restarted into the output directory of a previous session", () => {
  it("sets the previous session's files aside as it starts, removes them once up and says so (mid-session the directory holds no report that is not of its trace), and puts them back when its start never completes", async () => {
    // Was: the previous session's report.*, timeseries.csv and session.json stayed next to the new session's trace
    // (and its devnet.json next to the new one's start) until the new session stopped.
    const out = mkdtempSync(join(tmpdir(), "clearsim-up-restarted-"))
    dirs.push(out)
    const session = async (during: (output: string) => void): Promise<string> => {
      const { child, output: outputOf, exited } = spawnCollecting([bin, "up", scenario, "--port", "0", "--no-agents", "--accounts", "1", "--out", out], root)
      try {
        const deadline = Date.now() + 30_000
        while (!outputOf().includes("Ctrl-C stops it") && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 50))
        expect(outputOf()).toContain("Ctrl-C stops it")
        during(outputOf())
        child.kill("SIGINT")
        expect(await exited, outputOf()).toBe(0)
      } finally {
        child.kill("SIGKILL") // nothing left by a failing test
      }
      return outputOf()
    }
    const reportFiles = ["report.json", "report.md", "report.html", "timeseries.csv", "session.json"]
    const first = await session(() => undefined)
    expect(first).not.toContain("removed the previous session's")
    const firstSession = readFileSync(join(out, "session.json"), "utf8")
    // A session whose start never completes (a Ctrl-C during it) puts them back: its start removed them for nothing.
    const before = Object.fromEntries(readdirSync(out).filter((name) => name !== SESSION_LOCK_FILE).map((name) => [name, readFileSync(join(out, name), "utf8")]))
    const { child, output: outputOf, exited } = spawnCollecting([bin, "up", scenario, "--port", "0", "--no-agents", "--accounts", "1", "--out", out], root)
    try {
      const deadline = Date.now() + 30_000
      while (!(existsSync(join(out, PREVIOUS_SESSION_DIR)) && descendants(child.pid!, "anvil").length > 0) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 5))
      expect(reportFiles.filter((name) => existsSync(join(out, name))), outputOf()).toEqual([]) // set aside while it starts
      child.kill("SIGINT")
      expect(await exited, outputOf()).toBe(130)
    } finally {
      child.kill("SIGKILL") // nothing left by a failing test
    }
    expect(outputOf()).not.toContain("removed the previous session's")
    expect(Object.fromEntries(readdirSync(out).map((name) => [name, readFileSync(join(out, name), "utf8")]))).toEqual(before)
    await session((output) => {
      expect(output).toContain(`clearsim up: removed the previous session's devnet.json, trace.jsonl, report.json, report.md, report.html, timeseries.csv, session.json from ${out}; this session writes its own there\n`)
      expect(reportFiles.filter((name) => existsSync(join(out, name)))).toEqual([])
      const apiUrl = /^API {10}(\S+)/m.exec(output)?.[1]
      expect(JSON.parse(readFileSync(join(out, "devnet.json"), "utf8")).apiUrl).toBe(apiUrl)
    })
    expect(reportFiles.filter((name) => existsSync(join(out, name)))).toEqual(reportFiles)
    expect(readFileSync(join(out, "session.json"), "utf8")).not.toBe(firstSession)
    const replay = spawnSync(process.execPath, [bin, "hub", "replay", join(out, "trace.jsonl")], { cwd: root, encoding: "utf8", timeout: 30_000 })
    expect(replay.status, replay.stderr).toBe(0)
  }, 90_000)
})

describe("clearsim up's stop summary", () => {
  const session = (traceError?: DevnetSession["traceError"]): DevnetSession =>
    ({
      wallSeconds: 12.5,
      virtualSeconds: 12,
      foreignTransactions: 0,
      hubRpcTransactions: 0,
      handlerErrors: 0,
      traceHash: "0x01",
      hubInputs: 7,
      report: { intents: { created: 1, settled: 1 }, properties: [] },
      conservation: "ok",
      ...(traceError === undefined ? {} : { traceError }),
    }) as unknown as DevnetSession

  it("offers the replay of a written trace", () => {
    expect(renderSession(session(), "/tmp/s")).toContain("replay the hub: npx clearsim hub replay /tmp/s/trace.jsonl")
  })

  it("says a trace none of which was written could not be written, not that it is incomplete", () => {
    const text = renderSession(session({ code: "EISDIR", reason: "illegal operation on a directory", bytesWritten: 0 }), "/tmp/s")
    expect(text).toContain("trace.jsonl could not be written (illegal operation on a directory, EISDIR): the session has no trace to replay")
    expect(text).not.toContain("incomplete")
    expect(text).not.toContain("replay the hub:")
  })

  it("names the files its stop could not write, and points at report.html only when it was written", () => {
    const unwrittenFiles = [
      { file: "report.html", code: "ENOSPC", reason: "no space left on device" },
      { file: "session.json", code: "ENOSPC", reason: "no space left on device" },
    ]
    const text = renderSession({ ...session(), unwrittenFiles }, "/tmp/s")
    expect(text).toContain("  not written: report.html (no space left on device, ENOSPC), session.json (no space left on device, ENOSPC) in /tmp/s")
    expect(text).not.toContain("report: /tmp/s/report.html")
    expect(text).toContain("replay the hub: npx clearsim hub replay /tmp/s/trace.jsonl")
    const csvOnly = renderSession({ ...session(), unwrittenFiles: [{ file: "timeseries.csv", code: "EISDIR", reason: "illegal operation on a directory" }] }, "/tmp/s")
    expect(csvOnly).toContain("report: /tmp/s/report.html; replay the hub:")
    expect(csvOnly).toContain("not written: timeseries.csv (illegal operation on a directory, EISDIR)")
  })

  it("exits 1 on a hub conservation violation, as every command does; 2 when a file of the stop was not written; else 0", () => {
    // Was 0 on a violation (only the summary's "hub conservation:" line told it).
    const violation = "ConservationViolation: USDC custody 5 != deposits 4"
    expect(stopExitCode({ ...session(), conservation: violation }, undefined)).toBe(1)
    expect(stopExitCode({ ...session(), conservation: violation, unwrittenFiles: [{ file: "report.html", code: "ENOSPC", reason: "no space left on device" }] }, undefined)).toBe(1)
    expect(stopExitCode({ ...session(), unwrittenFiles: [{ file: "report.html", code: "ENOSPC", reason: "no space left on device" }] }, undefined)).toBe(2)
    expect(stopExitCode(session(), undefined)).toBe(0)
    // Standard output that failed during the session decides (sim/cli.ts's code).
    expect(stopExitCode({ ...session(), conservation: violation }, 141)).toBe(141)
    expect(stopExitCode(session(), 2)).toBe(2)
  })

  it("says a trace whose beginning was written is incomplete", () => {
    const text = renderSession(session({ code: "ENOSPC", reason: "no space left on device", bytesWritten: 4096 }), "/tmp/s")
    expect(text).toContain("trace.jsonl is incomplete (no space left on device, ENOSPC): it cannot replay the session")
    expect(text).not.toContain("replay the hub:")
  })
})

describe("clearsim up --help", () => {
  it("gives --accounts' range, and says what happens to --out's previous session files", () => {
    // Was: "Funded dev accounts left free for you (default 5)": 1001 was refused with a range the help did not give.
    const result = spawnSync(process.execPath, [bin, "up", "--help"], { cwd: root, encoding: "utf8", timeout: 30_000 })
    expect(result.status, result.stderr).toBe(0)
    const help = result.stdout.replace(/\s+/g, " ")
    expect(help).toContain("--accounts integer Funded dev accounts left free for you, 1 to 1000 (default 5)")
    expect(help).toContain("--out string Output directory (default reports/out/live-<scenario name>); the files a previous session left there are set aside as this one starts, removed once it is up, put back if it is not")
  })
})

describe("clearsim up's scenario argument", () => {
  it("defaults to the project's quickstart when the current directory has no scenarios/quickstart.yaml; a given path stays the user's", () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "clearsim-up-cwd-"))
    try {
      expect(upScenarioPath("scenarios/quickstart.yaml", elsewhere)).toBe(join(root, "scenarios/quickstart.yaml"))
      expect(existsSync(upScenarioPath("scenarios/quickstart.yaml", elsewhere))).toBe(true)
      // In a directory with its own scenarios/quickstart.yaml, that one.
      mkdirSync(join(elsewhere, "scenarios"))
      writeFileSync(join(elsewhere, "scenarios", "quickstart.yaml"), "name: mine\n")
      expect(upScenarioPath("scenarios/quickstart.yaml", elsewhere)).toBe("scenarios/quickstart.yaml")
      expect(upScenarioPath("scenarios/other.yaml", elsewhere)).toBe("scenarios/other.yaml")
      expect(upScenarioPath("./scenarios/quickstart.yaml", tmpdir())).toBe("./scenarios/quickstart.yaml")
    } finally {
      rmSync(elsewhere, { recursive: true, force: true })
    }
  })
})
