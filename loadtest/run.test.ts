/**
 * `npm run loadtest` (loadtest/run.ts) as a process: without k6 on PATH it exits 1 with the install hint; with a
 * fake `k6` on PATH (a shell script recording its arguments and exiting with a chosen code) it runs the command
 * line we expect against a live API and exits with k6's code; an old k6 and an API that is not up are refused.
 */
import { spawn } from "node:child_process"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type ApiServer, startApiServer } from "../service/api/server.ts"
import { makeTestService } from "../service/api/testing.ts"
import { running } from "../sim/cli/testing.ts"
import { findOnPath, k6CommandLine, parseLoadtestArgs, preflight, UsageError, WATCHDOG_NAME } from "./run.ts"

const root = join(import.meta.dirname, "..")
let dir: string
let server: ApiServer

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "clearsim-loadtest-run-"))
  server = await startApiServer(makeTestService().service)
  // A fake k6: `k6 version` prints a version; `k6 run ...` records its arguments, one per line, and exits.
  const fake = join(dir, "k6")
  writeFileSync(
    fake,
    `#!/bin/sh
if [ "$1" = "version" ]; then echo "k6 v\${FAKE_K6_VERSION:-1.3.0} (commit/fake, go1.24.4, linux/amd64)"; exit 0; fi
for arg in "$@"; do printf '%s\\n' "$arg" >> "$FAKE_K6_LOG"; done
if [ -n "$FAKE_K6_SIGNAL" ]; then kill -"$FAKE_K6_SIGNAL" $$; fi
exit "\${FAKE_K6_EXIT:-0}"
`,
  )
  chmodSync(fake, 0o755)
})
afterAll(async () => {
  await server?.close()
  rmSync(dir, { recursive: true, force: true })
})

interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `tsx loadtest/run.ts ...args` with PATH = `path` only. */
const runner = (args: readonly string[], path: string, env: Record<string, string> = {}): Promise<Ran> =>
  new Promise((resolve) => {
    const child = spawn(process.execPath, ["--import", "tsx", "loadtest/run.ts", ...args], { cwd: root, env: { PATH: path, ...env } })
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()))
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
    child.on("exit", (code) => resolve({ code, stdout, stderr }))
  })

const emptyDir = () => mkdtempSync(join(dir, "empty-"))

/** The pids of the running watchdogs of k6's process group `group` (Linux /proc). */
const watchdogsOf = (group: number): number[] =>
  readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ").includes(`${WATCHDOG_NAME} ${group}`) && running(Number(name))
      } catch {
        return false
      }
    })
    .map(Number)

describe("npm run loadtest", () => {
  it("without k6 on PATH: exit 1, how to install k6, and that clearsim up must be running", async () => {
    const { code, stderr } = await runner(["--profile", "smoke"], emptyDir())
    expect(code).toBe(1)
    expect(stderr).toMatch(/^k6 was not found on PATH\./)
    for (const hint of [
      "brew install k6",
      "https://dl.k6.io/deb stable main",
      "sudo apt-get update && sudo apt-get install k6",
      "grafana/k6 run",
      "https://github.com/grafana/k6/releases",
      "https://grafana.com/docs/k6/latest/set-up/install-k6/",
      "k6 1.0 or later (it runs the TypeScript scripts natively)",
      "`npm run up` in another terminal",
      "npm run bench -- mix",
    ]) expect(stderr).toContain(hint)
  })

  it("with k6 on PATH: runs k6 run with the environment and the script, and forwards its exit code", async () => {
    for (const exit of ["0", "99", "107"]) {
      const log = join(dir, `args-${exit}.txt`)
      const { code, stderr } = await runner(
        ["--profile", "load", "--script", "reads", "--base-url", `${server.url}/`, "--rate", "20", "--duration", "30s", "--seed", "4", "--", "--summary-export", "out.json"],
        dir,
        { FAKE_K6_LOG: log, FAKE_K6_EXIT: exit },
      )
      expect(code, stderr).toBe(Number(exit))
      expect(readFileSync(log, "utf8").trimEnd().split("\n")).toEqual([
        "run",
        "--env",
        `BASE_URL=${server.url}`,
        "--env",
        "PROFILE=load",
        "--env",
        "RATE=20",
        "--env",
        "DURATION=30s",
        "--env",
        "SEED=4",
        "--summary-export",
        "out.json",
        "loadtest/reads.ts",
      ])
      expect(stderr).toContain(`${join(dir, "k6")} run --env BASE_URL=${server.url}`)
    }
  })

  it("defaults: the smoke profile, the mixed script, BASE_URL from the environment", async () => {
    const log = join(dir, "args-default.txt")
    const { code } = await runner([], dir, { FAKE_K6_LOG: log, BASE_URL: server.url })
    expect(code).toBe(0)
    expect(readFileSync(log, "utf8").trimEnd().split("\n")).toEqual(["run", "--env", `BASE_URL=${server.url}`, "--env", "PROFILE=smoke", "loadtest/mixed.ts"])
  })

  it("k6 killed by a signal: exit 128 + the signal's number, as a shell reports it", async () => {
    const { code } = await runner(["--base-url", server.url], dir, { FAKE_K6_LOG: join(dir, "args-signal.txt"), FAKE_K6_SIGNAL: "TERM" })
    expect(code).toBe(143) // SIGTERM is 15
  })

  describe("signals reach k6 once each, and k6 chooses the exit code", () => {
    // A k6 that counts the SIGINTs it gets: after the first it waits a little for more, then exits 40 + the count
    // (k6 stops gracefully on one SIGINT and at once on a second). Without any it exits 0 after about 5 s.
    let slow: string
    beforeAll(() => {
      slow = mkdtempSync(join(dir, "slow-"))
      writeFileSync(
        join(slow, "k6"),
        `#!/bin/sh
if [ "$1" = "version" ]; then echo "k6 v1.3.0 (commit/fake, go1.24.4, linux/amd64)"; exit 0; fi
n=0
trap 'n=$((n+1))' INT
echo $$ > "$FAKE_K6_STARTED"
i=0
while [ $i -lt 400 ]; do
  sleep 0.05
  if [ $n -gt 0 ]; then sleep 0.5; exit $((40 + n)); fi
  i=$((i+1))
done
exit 0
`,
      )
      chmodSync(join(slow, "k6"), 0o755)
    })

    /** Starts the runner (in a process group of its own, as a shell's foreground job) and waits until k6 runs. */
    const started = async (name: string) => {
      const marker = join(dir, `${name}.started`)
      const child = spawn(process.execPath, ["--import", "tsx", "loadtest/run.ts", "--base-url", server.url], {
        cwd: root,
        env: { PATH: `${slow}:${dirname(process.execPath)}:/usr/bin:/bin`, FAKE_K6_STARTED: marker },
        detached: true,
        stdio: "ignore",
      })
      const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)))
      const deadline = Date.now() + 20_000
      while (!existsSync(marker) && Date.now() < deadline && child.exitCode === null) await new Promise((r) => setTimeout(r, 20))
      expect(existsSync(marker)).toBe(true)
      return { child, exited, k6: Number(readFileSync(marker, "utf8").trim()) }
    }

    it.skipIf(process.platform === "win32")("a SIGINT to the runner alone (a supervisor's, kill -INT): k6 gets it and stops", async () => {
      // Was: the runner ignored SIGINT (for a terminal's Ctrl-C, which reached k6 directly): k6 ran on to its end.
      const { child, exited, k6 } = await started("alone")
      try {
        child.kill("SIGINT")
        expect(await exited).toBe(41)
      } finally {
        child.kill("SIGKILL")
      }
      expect(watchdogsOf(k6)).toEqual([]) // k6 done, its watchdog killed by the runner
    }, 30_000)

    it.skipIf(process.platform === "win32")("a runner killed outright (SIGKILL): k6 is stopped (its watchdog sends its group SIGTERM), and the watchdog ends", async () => {
      // Was: k6, in a process group of its own, ran on to its end with nobody to stop it.
      const { child, exited, k6 } = await started("killed")
      expect(watchdogsOf(k6)).toHaveLength(1)
      try {
        child.kill("SIGKILL")
        await exited
        // k6 would run 20 s on its own; 10 s leaves room for a loaded machine (the watchdog takes milliseconds).
        const deadline = Date.now() + 10_000
        while (running(k6) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
        expect(running(k6)).toBe(false)
        while (watchdogsOf(k6).length > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
        expect(watchdogsOf(k6)).toEqual([])
      } finally {
        try {
          process.kill(-k6, "SIGKILL") // nothing left by a failing test
        } catch {
          // gone
        }
      }
    }, 30_000)

    it.skipIf(process.platform === "win32")("a terminal's Ctrl-C (SIGINT to the foreground process group): k6 gets it once", async () => {
      const { child, exited } = await started("group")
      try {
        process.kill(-child.pid!, "SIGINT")
        expect(await exited).toBe(41)
      } finally {
        child.kill("SIGKILL")
      }
    }, 30_000)
  })

  it("a k6 whose version it cannot read is run, not refused", async () => {
    const log = join(dir, "args-unknown-version.txt")
    const { code, stderr } = await runner(["--base-url", server.url], dir, { FAKE_K6_LOG: log, FAKE_K6_VERSION: "dev" })
    expect(code, stderr).toBe(0)
    expect(readFileSync(log, "utf8").trimEnd().split("\n").at(-1)).toBe("loadtest/mixed.ts")
  })

  it("stops quietly when its output is piped into a reader that closed (| head)", async () => {
    const child = spawn(process.execPath, ["--import", "tsx", "loadtest/run.ts", "--help"], { cwd: root, env: { PATH: emptyDir() } })
    child.stdout.destroy()
    let stderr = ""
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()))
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve))
    expect(stderr).toBe("")
    expect(code).toBe(0)
  })

  it("a bad option exits 2 before k6 is looked for", async () => {
    const { code, stderr } = await runner(["--rate", "abc"], emptyDir())
    expect(code).toBe(2)
    expect(stderr).toMatch(/^--rate: expected a positive integer \(iterations per second\), got "abc"/)
    expect(stderr).not.toContain("k6 was not found")
  })

  it("refuses k6 before 1.0 (no TypeScript), and an API that is not up, without running k6", async () => {
    const log = join(dir, "args-refused.txt")
    const old = await runner(["--base-url", server.url], dir, { FAKE_K6_LOG: log, FAKE_K6_VERSION: "0.49.0" })
    expect(old.code).toBe(1)
    expect(old.stderr).toContain("is k6 v0.49: the scripts are TypeScript, which k6 runs natively from 1.0 on")
    const down = await runner(["--base-url", "http://127.0.0.1:9"], dir, { FAKE_K6_LOG: log })
    expect(down.code).toBe(1)
    expect(down.stderr).toContain("The load test needs a running clearsim API, but nothing answers at http://127.0.0.1:9")
    expect(down.stderr).toContain("Start it with `npm run up` in another terminal")
    expect(() => readFileSync(log)).toThrow() // k6 run never started
  })
})

describe("arguments", () => {
  it("parses options, k6 arguments after --, and rejects the unknown", () => {
    const args = parseLoadtestArgs(["--profile", "stress", "--vus", "50", "--think-time", "0.5", "--", "--quiet"], {})
    expect(args).toEqual({ profile: "stress", script: "mixed", baseUrl: "http://127.0.0.1:8080", env: { VUS: "50", THINK_TIME: "0.5" }, k6Args: ["--quiet"] })
    expect(k6CommandLine(args as Exclude<typeof args, "help">)).toEqual([
      "run",
      "--env",
      "BASE_URL=http://127.0.0.1:8080",
      "--env",
      "PROFILE=stress",
      "--env",
      "VUS=50",
      "--env",
      "THINK_TIME=0.5",
      "--quiet",
      "loadtest/mixed.ts",
    ])
    expect(parseLoadtestArgs(["--help"], {})).toBe("help")
    expect(parseLoadtestArgs(["-h"], {})).toBe("help") // as clearsim's commands take it (it was an unknown option, exit 2)
    expect(() => parseLoadtestArgs(["--profile", "spike"], {})).toThrow(new UsageError('--profile: expected one of smoke, load, stress, soak, got "spike"'))
    expect(() => parseLoadtestArgs(["--script", "all"], {})).toThrow(/--script: expected one of reads, quotes, intents, mixed/)
    expect(() => parseLoadtestArgs(["--bogus"], {})).toThrow(UsageError)
    expect(() => parseLoadtestArgs(["--base-url", "8080"], {})).toThrow(/--base-url: expected an http\(s\) URL/)
  })

  it("rejects numeric options the k6 scripts would refuse", () => {
    for (const [option, value, expected] of [
      ["--rate", "abc", "a positive integer (iterations per second)"],
      ["--rate", "0", "a positive integer (iterations per second)"],
      ["--rate", "1.5", "a positive integer (iterations per second)"],
      ["--vus", "-3", "a positive integer (VUs)"],
      ["--iterations", "ten", "a positive integer (iterations)"],
      ["--seed", "0", "a positive integer"],
      ["--think-time", "-1", "a non-negative number of seconds"],
      ["--duration", "10", "a k6 duration such as 30s, 5m or 1h30m"],
    ] as const) {
      expect(() => parseLoadtestArgs([`${option}=${value}`], {}), `${option} ${value}`).toThrow(new UsageError(`${option}: expected ${expected}, got "${value}"`))
    }
    const ok = parseLoadtestArgs(["--rate", "300", "--duration", "1h30m", "--vus", "5", "--iterations", "9", "--seed", "2", "--think-time", "0.25"], {})
    expect((ok as Exclude<typeof ok, "help">).env).toEqual({ RATE: "300", DURATION: "1h30m", VUS: "5", ITERATIONS: "9", SEED: "2", THINK_TIME: "0.25" })
  })

  it("--base-url wins over $BASE_URL", () => {
    expect((parseLoadtestArgs(["--base-url", "http://a:1/"], { BASE_URL: "http://b:2" }) as Exclude<ReturnType<typeof parseLoadtestArgs>, "help">).baseUrl).toBe("http://a:1")
  })

  it("preflight: a /health that answers 200 but not status ok is not an API that is up", async () => {
    const starting = createServer((_, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"status":"starting"}'))
    await new Promise<void>((resolve) => starting.listen(0, "127.0.0.1", resolve))
    const url = `http://127.0.0.1:${(starting.address() as AddressInfo).port}`
    try {
      expect(await preflight(url)).toBe(`GET ${url}/health answered 200 {"status":"starting"}`)
      expect(await preflight(server.url)).toBeUndefined()
    } finally {
      await new Promise<void>((resolve) => starting.close(() => resolve()))
    }
  })

  it("finds only executable files named k6 on PATH", () => {
    expect(findOnPath("k6", `${emptyDir()}:${dir}`)).toBe(join(dir, "k6"))
    const notExecutable = emptyDir()
    writeFileSync(join(notExecutable, "k6"), "")
    expect(findOnPath("k6", notExecutable)).toBeUndefined()
    expect(findOnPath("k6", "")).toBeUndefined()
  })
})
