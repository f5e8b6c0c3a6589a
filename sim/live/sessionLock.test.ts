/**
 * The claim of a `clearsim up` output directory (`sessionLock.ts`): one session at a time; a claim left by a
 * session killed outright is taken over; released, it is gone. (Two real sessions: sim/cli/up.test.ts.)
 */
import { spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { claimOutputDir, SESSION_LOCK_FILE } from "./sessionLock.ts"

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
})
