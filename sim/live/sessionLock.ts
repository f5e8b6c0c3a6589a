/**
 * One `clearsim up` session per output directory. Two sessions writing into the same directory (a second
 * `clearsim up --port 8081` on the same scenario has the same default one) would truncate and interleave each
 * other's trace.jsonl, which then replays neither session, and overwrite each other's devnet.json, report and
 * session.json. So a session claims its directory before its chains start: it creates `SESSION_LOCK_FILE` there,
 * exclusively, with its pid, and removes it when it ends. A file left by a session killed outright (its pid no
 * longer a running clearsim) is taken over.
 */
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/** The claim's file in the output directory: the pid of the session writing there (removed at its end). */
export const SESSION_LOCK_FILE = ".clearsim-up.pid"

export interface SessionLock {
  /** Removes the claim's file if it is still this process's (idempotent, never throws). */
  readonly release: () => void
}

const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code

/** Whether `pid` is a running clearsim (on Linux, from its command line; elsewhere, any running process). */
const isRunningClearsim = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if (codeOf(error) !== "EPERM") return false
  }
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("clearsim")
  } catch {
    return true // no /proc: that it runs is all there is to know
  }
}

const holderOf = (path: string): number | undefined => {
  try {
    const pid = Number(readFileSync(path, "utf8").trim())
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
  } catch {
    return undefined
  }
}

/**
 * Claims `dir` (an existing directory) for this process's session: its lock, or the pid of the running clearsim
 * that holds it. Throws the file system's error when the claim's file can be neither created nor read.
 */
export const claimOutputDir = (dir: string): SessionLock | { readonly heldBy: number } => {
  const path = join(dir, SESSION_LOCK_FILE)
  for (let attempt = 0; ; attempt++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: "wx" })
      let released = false
      return {
        release: () => {
          if (released) return
          released = true
          if (holderOf(path) === process.pid) rmSync(path, { force: true })
        },
      }
    } catch (error) {
      if (codeOf(error) !== "EEXIST" || attempt > 0) throw error
    }
    const holder = holderOf(path)
    if (holder !== undefined && holder !== process.pid && isRunningClearsim(holder)) return { heldBy: holder }
    // Left by a session that did not end (killed outright), or unreadable: taken over.
    rmSync(path, { force: true })
  }
}
