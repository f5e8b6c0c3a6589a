/**
 * The claim of a `clearsim up` output directory (`sessionLock.ts`): one session at a time; a claim left by a
 * session killed outright is taken over; released, it is gone. (Two real sessions: sim/cli/up.test.ts.)
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { claimOutputDir, isRunningClearsim, SESSION_LOCK_FILE } from "./sessionLock.ts"

const dir = mkdtempSync(join(tmpdir(), "clearsim-lock-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const lockFile = join(dir, SESSION_LOCK_FILE)

describe("claimOutputDir", () => {
  it("writes this process's pid, and removes it when released", () => {
    const claim = claimOutputDir(dir)
    expect("release" in claim).toBe(true)
    expect(readFileSync(lockFile, "utf8")).toBe(`${process.pid}\n`)
    if ("release" in claim) claim.release()
    expect(existsSync(lockFile)).toBe(false)
  })

  it("takes over a claim whose process no longer runs (a session killed outright)", () => {
    const gone = spawnSync("true").pid
    writeFileSync(lockFile, `${gone}\n`)
    const claim = claimOutputDir(dir)
    expect(readFileSync(lockFile, "utf8")).toBe(`${process.pid}\n`)
    if ("release" in claim) claim.release()
  })

  it("takes over a claim of a running process that is no clearsim (its pid reused)", () => {
    const other = spawn("sleep", ["30"])
    try {
      writeFileSync(lockFile, `${other.pid}\n`)
      const claim = claimOutputDir(dir)
      expect("release" in claim).toBe(true)
      if ("release" in claim) claim.release()
    } finally {
      other.kill()
    }
  })

  it.runIf(process.platform === "linux")("knows a clearsim by its command line: clearsim in it, or the CLI's module run directly", () => {
    // `node sim/cli.ts up` from a folder not named clearsim (the argument is all /proc shows of it here).
    // (A shell, not this Node: the project's Node lies under the project's folder, which may be named clearsim.)
    const direct = spawn("sh", ["-c", "sleep 30; true", "sim/cli.ts", "up"])
    const other = spawn("sh", ["-c", "sleep 30; true", "other.ts"])
    try {
      expect(isRunningClearsim(direct.pid!)).toBe(true)
      expect(isRunningClearsim(other.pid!)).toBe(false)
    } finally {
      direct.kill()
      other.kill()
    }
  })

  it("leaves a claim of a running clearsim to it", () => {
    // A process whose command line names clearsim.
    const other = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)", "clearsim"])
    try {
      writeFileSync(lockFile, `${other.pid}\n`)
      expect(claimOutputDir(dir)).toEqual({ heldBy: other.pid })
      expect(readFileSync(lockFile, "utf8")).toBe(`${other.pid}\n`)
    } finally {
      other.kill()
      rmSync(lockFile, { force: true })
    }
  })

  it("gives a directory to one session only when several claim it at once, a claim left behind there or not", async () => {
    // Each worker (a process whose command line names clearsim) claims the same directories, each holding a claim of
    // a process that no longer runs, and keeps what it got until all are done. Created with `wx` and then written,
    // a claim was empty for a moment, taken for one left behind by another worker, and two workers took over the
    // same stale claim (one removing the other's): directories claimed twice, and raw EEXIST errors.
    const base = mkdtempSync(join(tmpdir(), "clearsim-lock-race-"))
    const gone = spawnSync("true").pid
    const n = 150
    for (let k = 0; k < n; k++) {
      mkdirSync(join(base, String(k)))
      writeFileSync(join(base, String(k), SESSION_LOCK_FILE), `${gone}\n`)
    }
    const startAt = Date.now() + 1500
    const worker = `
      const { claimOutputDir } = await import(${JSON.stringify(new URL("./sessionLock.ts", import.meta.url).href)})
      while (Date.now() < ${startAt}) {}
      const got = []
      for (let k = 0; k < ${n}; k++) {
        try {
          if ("release" in claimOutputDir(${JSON.stringify(base)} + "/" + k)) got.push(k)
        } catch (error) {
          got.push("error " + error.message)
        }
      }
      process.stdout.write(JSON.stringify(got))
      setTimeout(() => {}, 1500)
    `
    try {
      const outs = await Promise.all(
        Array.from({ length: 6 }, () => {
          const child = spawn(process.execPath, ["--input-type=module", "-e", worker, "clearsim"], { stdio: ["ignore", "pipe", "inherit"] })
          let text = ""
          child.stdout.on("data", (data) => (text += data))
          return new Promise<unknown[]>((resolve) => child.on("exit", () => resolve(JSON.parse(text) as unknown[])))
        }),
      )
      const claims = outs.flat()
      expect(claims.filter((c) => typeof c !== "number")).toEqual([])
      expect(claims.length).toBe(n)
      expect(new Set(claims).size).toBe(n)
    } finally {
      rmSync(base, { recursive: true, force: true })
    }
  }, 30_000)
})
