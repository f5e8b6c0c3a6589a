/**
 * `clearsim run --jobs N`: the runs of a Monte Carlo set in child processes. Through `bin/clearsim.js`, as a user
 * runs it: the same run directories, runs.json, runs.md and output, in the same order, as the runs one after
 * another (`--jobs 1`, in process); a run's error stops the set (exit 2, no runs.json); a Ctrl-C stops every child.
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import * as Effect from "effect/Effect"
import { Command } from "effect/cli"
import { afterAll, afterEach, describe, expect, it, vi } from "vitest"
import { childHeapMb, readRunReport, runHeapLimitMb } from "./parallelRuns.ts"
import { runCommand } from "./run.ts"
import { runScenario } from "../run.ts"
import { parseScenario } from "../scenario/load.ts"
import { TWO_USERS_USDC, twoChainUsdcText } from "../scenario/testing.ts"
import { descendants, running } from "./testing.ts"

const root = join(import.meta.dirname, "..", "..")
const bin = join(root, "bin", "clearsim.js")
const dir = mkdtempSync(join(tmpdir(), "clearsim-parallel-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// Twenty minutes of two chains and a few dozen intents; seed 4 creates 34 intents, seeds 3 and 5 create 42.
const scenario = join(dir, "small-set.yaml")
writeFileSync(
  scenario,
  twoChainUsdcText("small-set", "{ seconds: 1200 }", `runs: 3\n${TWO_USERS_USDC}\nproperties:\n  - intentsCreated >= 40`, { seed: 3, blockTimeSeconds: [12, 12] }),
)

const RUN_DIRS = ["run-0-seed-3", "run-1-seed-4", "run-2-seed-5"]

/** `clearsim <args>` as a user runs it (`node` flags first: `--import` a module), with what it printed. */
const clearsim = (args: readonly string[], nodeFlags: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [...nodeFlags, bin, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"], env })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text))
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** `clearsim <args>`, calling `act` once its standard error shows `when`. */
const clearsimWhen = (args: readonly string[], when: RegExp, act: () => void): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let stdout = ""
    let stderr = ""
    let acted = false
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text))
    child.stderr.setEncoding("utf8").on("data", (text: string) => {
      stderr += text
      if (!acted && when.test(stderr)) {
        acted = true
        act()
      }
    })
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** Whether util-linux's `prlimit` is here: it runs a command under a limit on file sizes (RLIMIT_FSIZE), which holds for root too. */
const prlimit = spawnSync("prlimit", ["--version"]).error === undefined

/** `clearsim <args>` (children included) whose files may not grow past `bytes`: a write past it fails with EFBIG. */
const clearsimLimited = (bytes: number, args: readonly string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> =>
  new Promise((resolve) => {
    const child = spawn("prlimit", [`--fsize=${bytes}`, "--", process.execPath, bin, ...args], { cwd: root, stdio: ["ignore", "pipe", "pipe"], env })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text))
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

/** A scenario `name` with no agent, over two minutes: its trace (a few blocks) is much smaller than its report.json. */
const quietText = (name: string, rest = ""): string => `name: ${name}
horizon: { seconds: 120 }
chains: [{ id: 31001 }, { id: 31002 }]
assets: [{ symbol: USDC, chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }] }]
agents: {}
${rest}`

/** The command line of process `pid`, as its arguments. */
const commandLine = (pid: number): string[] => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")
  } catch {
    return [] // gone
  }
}

/**
 * A module for `node --import` (passed on to the children with the other node flags) that makes the disk full for
 * the files whose path `full` matches: every write to them fails with ENOSPC, as Node's own does.
 */
const diskFullHook = (full: RegExp): string =>
  [
    'import fs from "node:fs"',
    'import { syncBuiltinESMExports } from "node:module"',
    `const full = ${full.toString()}`,
    "const fds = new Set()",
    "const { openSync, writeSync } = fs",
    'fs.openSync = function (path, ...rest) { const fd = openSync.call(this, path, ...rest); if (typeof path === "string" && full.test(path)) fds.add(fd); return fd }',
    'fs.writeSync = function (fd, ...rest) { if (fds.has(fd)) throw Object.assign(new Error("ENOSPC: no space left on device, write"), { errno: -28, code: "ENOSPC", syscall: "write" }); return writeSync.call(this, fd, ...rest) }',
    "syncBuiltinESMExports()",
  ].join("\n")

/** The wall time a run reports (summary, report.md, report.html): the one figure two runs do not share. */
const withoutWallTime = (text: string): string => text.replace(/\d+\.\d s wall/g, "– s wall").replace(/wall time \d+\.\d s/g, "wall time – s").replace(/in \d+\.\d s;/g, "in – s;")

/** Standard error without the progress lines, which come as they come. */
const withoutProgress = (text: string): string =>
  text
    .split("\n")
    .filter((line) => !/% of virtual time$/.test(line))
    .join("\n")

/** A run directory's files as they are compared: report.json without its wall time, the others but for their wall-time figure. */
const runFiles = (path: string): Record<string, unknown> =>
  Object.fromEntries(
    readdirSync(path)
      .sort()
      .map((name) => {
        const text = readFileSync(join(path, name), "utf8")
        if (name !== "report.json") return [name, withoutWallTime(text)]
        const { wallSeconds, ...rest } = JSON.parse(text) as { wallSeconds: number }
        expect(wallSeconds).toBeGreaterThanOrEqual(0)
        return [name, rest]
      }),
  )

describe("clearsim run --jobs", () => {
  it("gives the same run directories, runs.json, runs.md and output, in run order, at --jobs 3 as at --jobs 1; a failing property exits 1 with its rerun line", async () => {
    const one = join(dir, "jobs-1")
    const three = join(dir, "jobs-3")
    const sequential = await clearsim(["run", scenario, "--jobs", "1", "--check-determinism", "--out", one])
    const parallel = await clearsim(["run", scenario, "--jobs", "3", "--check-determinism", "--out", three])
    expect(sequential.code, sequential.stderr).toBe(1)
    expect(parallel.code, parallel.stderr).toBe(1)
    expect(readdirSync(three).sort()).toEqual([...RUN_DIRS, "runs.json", "runs.md"])
    for (const run of RUN_DIRS) expect(runFiles(join(three, run)), run).toEqual(runFiles(join(one, run)))
    for (const name of ["runs.json", "runs.md"]) expect(readFileSync(join(three, name), "utf8"), name).toBe(readFileSync(join(one, name), "utf8"))
    expect(withoutWallTime(parallel.stdout).replaceAll(three, "OUT")).toBe(withoutWallTime(sequential.stdout).replaceAll(one, "OUT"))
    expect(withoutProgress(parallel.stderr).replaceAll(three, "OUT")).toBe(withoutProgress(sequential.stderr).replaceAll(one, "OUT"))
    // Each run's summary, then its determinism line, in run order; seed 4's property fails: its rerun command.
    expect([...parallel.stdout.matchAll(/^small-set seed (\d+) on memory: (PASS|FAIL)/gm)].map((m) => `${m[1]} ${m[2]}`)).toEqual(["3 PASS", "4 FAIL", "5 PASS"])
    expect(parallel.stdout.match(/determinism: second run gave the same/g)).toHaveLength(3)
    expect(parallel.stdout).toContain("2 of 3 runs passed")
    expect(withoutProgress(parallel.stderr)).toBe(
      `  replay the hub: npx clearsim hub replay ${join(three, RUN_DIRS[1]!, "trace.jsonl")}\n  rerun: npx clearsim run ${scenario} --seed 4 --runs 1 --run-index 1 --chains memory --out ${join(three, RUN_DIRS[1]!)}\n`,
    )
    // Progress lines, not a live percentage: the children's standard error is a pipe.
    for (const seed of [3, 4, 5]) expect(parallel.stderr).toContain(`small-set seed ${seed}: 100% of virtual time\n`)
    expect(parallel.stderr).not.toContain("\r")

    // The parent reads the reports back checked: another run's report, or one without its verdict, is refused.
    const report = join(three, RUN_DIRS[1]!, "report.json")
    expect(readRunReport(report, 1, 4).passed).toBe(false)
    expect(() => readRunReport(report, 2, 4)).toThrow(`${report}: the report of run 1 (seed 4), expected run 2 (seed 4)`)
    const { passed: _, ...withoutVerdict } = JSON.parse(readFileSync(report, "utf8")) as { passed: boolean }
    const edited = join(dir, "edited.json")
    writeFileSync(edited, JSON.stringify(withoutVerdict))
    expect(() => readRunReport(edited, 1, 4)).toThrow(`${edited}: not a clearsim report.json: passed:`)
  })

  it("a run that stops with an error starts no further run, prints every started run's output in order, exits 2 and writes no runs.json", async () => {
    // Run 1's staged trace cannot be written (a full disk), as a run's own file may not be.
    const hook = join(dir, "run-1-disk-full.mjs")
    writeFileSync(hook, diskFullHook(/run-1-seed-4\/\.clearsim-partial-[^/]+\/trace\.jsonl$/))
    const results = []
    for (const jobs of ["1", "3"]) {
      const out = join(dir, `error-${jobs}`)
      const r = await clearsim(["run", scenario, "--jobs", jobs, "--out", out], ["--import", hook])
      expect(r.code, r.stderr).toBe(2)
      expect(withoutProgress(r.stderr)).toBe(`clearsim: --out ${join(out, RUN_DIRS[1]!, "trace.jsonl")}: expected a file to write, but no space left on device (ENOSPC)\n`)
      expect(r.stdout).not.toContain("runs passed")
      // The failed run left no directory (it made it, nothing is in it); no summary of the set.
      expect(readdirSync(out).sort()).toEqual(jobs === "1" ? [RUN_DIRS[0]] : [RUN_DIRS[0], RUN_DIRS[2]])
      results.push(r)
    }
    // One after another, run 2 never started; at --jobs 3 it ran beside run 1, and its summary comes after run 0's.
    expect([...results[0]!.stdout.matchAll(/^small-set seed (\d+)/gm)].map((m) => m[1])).toEqual(["3"])
    expect([...results[1]!.stdout.matchAll(/^small-set seed (\d+)/gm)].map((m) => m[1])).toEqual(["3", "5"])
  })

  it("a Ctrl-C (SIGINT to the process group) stops every child: exit 130, no process left, the run directories as they were", async () => {
    // A run of a few hundred virtual hours: still going when the signal comes.
    const long = join(dir, "long.yaml")
    writeFileSync(long, readFileSync(scenario, "utf8").replace("horizon: { seconds: 1200 }", "horizon: { hours: 400 }").replace("perHour: 120", "perHour: 2000"))
    const out = join(dir, "interrupted")
    mkdirSync(join(out, RUN_DIRS[0]!), { recursive: true })
    writeFileSync(join(out, RUN_DIRS[0]!, "report.md"), "an earlier run's\n")
    const started = spawn(process.execPath, [bin, "run", long, "--jobs", "2", "--out", out], { cwd: root, detached: true, stdio: ["ignore", "ignore", "pipe"] })
    let stderr = ""
    started.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    const exited = new Promise<number | null>((resolve) => started.on("close", (code) => resolve(code)))
    try {
      // Both children are in their runs once both staging directories are there.
      const staging = (run: string) => existsSync(join(out, run)) && readdirSync(join(out, run)).some((name) => name.startsWith(".clearsim-partial-"))
      const deadline = Date.now() + 45_000
      while (!(staging(RUN_DIRS[0]!) && staging(RUN_DIRS[1]!)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
      const below = descendants(started.pid!)
      expect(below.length, stderr).toBeGreaterThanOrEqual(3) // the command, then its two runs
      process.kill(-started.pid!, "SIGINT")
      expect(await exited, stderr).toBe(130)
      expect(below.filter(running)).toEqual([])
      expect(readdirSync(out)).toEqual([RUN_DIRS[0]])
      expect(readdirSync(join(out, RUN_DIRS[0]!))).toEqual(["report.md"])
    } finally {
      try {
        process.kill(-started.pid!, "SIGKILL") // nothing left by a failing test
      } catch {
        // gone
      }
    }
  }, 90_000)
})

describe("clearsim check --jobs", () => {
  it("writes and checks baselines in children with the same output, in the same order, as one after another", async () => {
    const baselines = join(dir, "baselines")
    const scenarios = ["a", "b"].map((name, i) => {
      const file = join(dir, `check-${name}.yaml`)
      writeFileSync(file, readFileSync(scenario, "utf8").replace("name: small-set", `name: check-${name}`).replace("seed: 3", `seed: ${3 + i}`))
      return file
    })
    const update = await clearsim(["check", ...scenarios, "--update", "--jobs", "2", "--baseline-dir", baselines])
    expect(update.code, update.stderr).toBe(0)
    expect(readdirSync(baselines).sort()).toEqual(["check-a.json", "check-b.json"])
    const one = await clearsim(["check", "--jobs", "1", "--baseline-dir", baselines])
    const two = await clearsim(["check", "--jobs", "2", "--baseline-dir", baselines])
    expect(one.code, one.stderr).toBe(0)
    expect(two.code, two.stderr).toBe(0)
    expect(two.stdout).toBe(one.stdout)
    expect(two.stderr).toBe(one.stderr)
    expect([...two.stdout.matchAll(/^(check-\w): same$/gm)].map((m) => m[1])).toEqual(["check-a", "check-b"])
    // The written baselines are the runs' own: a run in process finds the same.
    expect(update.stdout).toContain(`check-b: baseline written to ${join(baselines, "check-b.json")}`)
    expect(two.stdout).toContain("2 scenarios checked: 0 with regressions, 0 with a changed trace hash")

    // A scenario's run that stops with an error (its trace cannot be written in the temporary directory): the
    // earlier scenario's comparison, then the run's error as it printed it; no summary, exit 2, the directory gone.
    const hook = join(dir, "check-1-disk-full.mjs")
    writeFileSync(hook, diskFullHook(/clearsim-check-[^/]+\/1\/\.clearsim-partial-[^/]+\/trace\.jsonl$/))
    const temporary = join(dir, "tmp") // its own TMPDIR: what it leaves there is its own
    mkdirSync(temporary)
    const stopped = await clearsim(["check", "--jobs", "2", "--baseline-dir", baselines], ["--import", hook], { ...process.env, TMPDIR: temporary })
    expect(stopped.code, stopped.stderr).toBe(2)
    expect(stopped.stdout).toBe(`check-a: same\n${one.stdout.split("\n")[1]}\n`)
    // Named as check's own errors are (was: "clearsim: ", the child's own command).
    expect(stopped.stderr).toMatch(new RegExp(`^clearsim check: the temporary directory ${temporary}/clearsim-check-\\w{6}/1/trace\\.jsonl: expected a file to write, but no space left on device \\(ENOSPC\\)\n$`))
    expect(readdirSync(temporary)).toEqual([])
  })
})


describe("the children of a set", () => {
  it("run the scenario their parent read: a file edited while the set runs changes none of its runs (run --jobs, check --jobs)", async () => {
    // Was: each child read the scenario file again when it started, so a run after the edit ran the edited file.
    const broken = "name: [not a scenario\n"
    const file = join(dir, "edited.yaml")
    const text = quietText("edited", "runs: 3\n")
    writeFileSync(file, text)
    const out = join(dir, "edited-run")
    // Runs 0 and 1 go at once; run 2 starts once one of them has ended, well after their first progress line.
    const run = await clearsimWhen(["run", file, "--jobs", "2", "--out", out], /% of virtual time/, () => writeFileSync(file, broken))
    expect(run.code, run.stderr).toBe(0)
    expect(readFileSync(file, "utf8")).toBe(broken)
    const hash = parseScenario(text, file).scenarioHash
    for (const name of ["run-0-seed-1", "run-1-seed-2", "run-2-seed-3"]) {
      expect((JSON.parse(readFileSync(join(out, name, "report.json"), "utf8")) as { scenario: { hash: string } }).scenario.hash, name).toBe(hash)
    }

    // check --jobs: the third scenario's file is edited once the first runs are going (its run starts after one ends).
    const texts = ["a", "b", "c"].map((name) => quietText(`edited-${name}`))
    const files = texts.map((t, i) => {
      const path = join(dir, `edited-${"abc"[i]}.yaml`)
      writeFileSync(path, t)
      return path
    })
    const baselines = join(dir, "edited-baselines")
    const started = spawn(process.execPath, [bin, "check", ...files, "--update", "--jobs", "2", "--baseline-dir", baselines], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
    let output = ""
    started.stdout.setEncoding("utf8").on("data", (t: string) => (output += t))
    started.stderr.setEncoding("utf8").on("data", (t: string) => (output += t))
    const exited = new Promise<number | null>((resolve) => started.on("close", (code) => resolve(code)))
    try {
      const isRun = (pid: number) => commandLine(pid).includes("--runs")
      const deadline = Date.now() + 30_000
      while (!descendants(started.pid!).some(isRun) && Date.now() < deadline && started.exitCode === null) await new Promise((r) => setTimeout(r, 5))
      writeFileSync(files[2]!, broken)
      expect(await exited, output).toBe(0)
    } finally {
      started.kill("SIGKILL") // nothing left by a failing test
    }
    expect(readdirSync(baselines).sort()).toEqual(["edited-a.json", "edited-b.json", "edited-c.json"])
    const written = JSON.parse(readFileSync(join(baselines, "edited-c.json"), "utf8")) as { scenarioHash: string }
    expect(written.scenarioHash).toBe(parseScenario(texts[2]!, files[2]!).scenarioHash)
  }, 120_000)

  it.skipIf(!prlimit)("of check --jobs name their errors as check does; one whose report cannot be written keeps its trace in the temporary directory, and says where", async () => {
    const files = ["a", "b"].map((name) => {
      const path = join(dir, `quiet-${name}.yaml`)
      writeFileSync(path, quietText(`quiet-${name}`))
      return path
    })
    const baselines = join(dir, "quiet-baselines")
    const update = await clearsim(["check", ...files, "--update", "--jobs", "2", "--baseline-dir", baselines])
    expect(update.code, update.stderr).toBe(0)
    // A limit on file sizes above a run's trace and below its report.json (the first report written): each run completes, then fails.
    const sizes = join(dir, "quiet-sizes")
    const { report } = await runScenario(parseScenario(quietText("quiet-a"), files[0]!), { seed: 1, backend: "memory", outDir: sizes })
    const traceBytes = readFileSync(join(sizes, "trace.jsonl")).length
    const reportBytes = Buffer.byteLength(`${JSON.stringify(report, null, 2)}\n`)
    expect(traceBytes * 3).toBeLessThan(reportBytes)
    const temporary = join(dir, "quiet-tmp") // its own TMPDIR: what it leaves there is its own
    mkdirSync(temporary)
    const r = await clearsimLimited(traceBytes * 2, ["check", "--jobs", "2", "--baseline-dir", baselines], { ...process.env, TMPDIR: temporary })
    expect(r.code, r.stderr).toBe(2)
    expect(r.stdout).toBe("")
    // Both runs had started: each one's error, in order, as check's own; the directory is kept for the traces. The
    // first error stops the check, which stops the other run if it is still going (then it says nothing: under
    // load the second child can be that slow), so the second error is there only when that run ended first.
    const [kept] = readdirSync(temporary)
    expect(kept).toMatch(/^clearsim-check-\w{6}$/)
    const error = (i: number) => {
      const runDir = join(temporary, kept!, String(i))
      const trace = join(runDir, "trace.failed.jsonl")
      return `clearsim check: the temporary directory ${join(runDir, "report.json")}: expected a file to write, but file too large (EFBIG)\n  the run completed, but its files were not written (nothing else in ${runDir} changed); its trace is kept: ${trace} (replay the hub: npx clearsim hub replay ${trace})\n`
    }
    expect([error(0), error(0) + error(1)]).toContain(r.stderr)
    expect(readdirSync(join(temporary, kept!, "0"))).toEqual(["trace.failed.jsonl"])
  }, 120_000)
})

describe("clearsim run --jobs: the flag", () => {
  afterEach(() => {
    process.exitCode = undefined
  })

  it("refuses a value that is not a positive integer in decimal digits: one line, exit 2, nothing created", async () => {
    for (const jobs of ["0", "-1", "1.5", "2e0", "+2", "abc", ""]) {
      const err: string[] = []
      const error = vi.spyOn(console, "error").mockImplementation((...xs: unknown[]) => void err.push(xs.join(" ")))
      try {
        await Command.runWith(runCommand, { version: "test" })([scenario, "--jobs", jobs, "--out", join(dir, "refused")]).pipe(Effect.provide(NodeServices.layer), Effect.runPromise)
      } finally {
        error.mockRestore()
      }
      expect(err.join("\n"), jobs).toBe(`clearsim: --jobs: expected a positive integer in decimal digits, got ${JSON.stringify(jobs)}`)
      expect(process.exitCode).toBe(2)
      expect(existsSync(join(dir, "refused"))).toBe(false)
    }
  })

  it("check refuses a bad --jobs the same way", async () => {
    const { checkCommand } = await import("./check.ts")
    const err: string[] = []
    const error = vi.spyOn(console, "error").mockImplementation((...xs: unknown[]) => void err.push(xs.join(" ")))
    try {
      await Command.runWith(checkCommand, { version: "test" })([scenario, "--jobs", "0"]).pipe(Effect.provide(NodeServices.layer), Effect.runPromise)
    } finally {
      error.mockRestore()
    }
    expect(err.join("\n")).toBe(`clearsim check: --jobs: expected a positive integer in decimal digits, got "0"`)
    expect(process.exitCode).toBe(2)
  })

  it("gives each child its share of the heap limit a run has alone", () => {
    // bin/clearsim.js's limit (in this process's flags), the user's (NODE_OPTIONS, or the command line's, which wins), or 3/4 of the memory up to 16 GiB.
    expect(runHeapLimitMb("", ["--max-old-space-size=16384", "--max-semi-space-size=128"])).toBe(16_384)
    expect(runHeapLimitMb("--max-old-space-size=1000", [])).toBe(1000)
    expect(runHeapLimitMb("--max-old-space-size=1000", ["--max_old_space_size=3000"])).toBe(3000)
    expect(runHeapLimitMb("", [], 8192)).toBe(6144)
    expect(runHeapLimitMb("", [], 64 * 1024)).toBe(16_384)
    expect(childHeapMb(16_384, 3)).toBe(5461)
    expect(childHeapMb(16_384, 3) * 3).toBeLessThanOrEqual(16_384)
  })
})
