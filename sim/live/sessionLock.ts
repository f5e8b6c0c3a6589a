/**
 * One `clearsim up` session per output directory. Two sessions writing into the same directory (a second
 * `clearsim up --port 8081` on the same scenario has the same default one) would truncate and interleave each
 * other's trace.jsonl, which then replays neither session, and overwrite each other's devnet.json, report and
 * session.json. So a session claims its directory before its chains start: it creates `SESSION_LOCK_FILE` there,
 * exclusively, with its pid, and removes it when it ends. A file left by a session killed outright (its pid no
 * longer a running clearsim) is taken over.
 */
import { linkSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/** The claim's file in the output directory: the pid of the session writing there (removed at its end). */
export const SESSION_LOCK_FILE = ".clearsim-up.pid"

export interface SessionLock {
  /** Removes the claim's file if it is still this process's (idempotent, never throws). */
  readonly release: () => void
}

const codeOf = (error: unknown): unknown => (error as { code?: unknown } | null)?.code

/**
 * Whether `pid` is a running clearsim (on Linux, from its command line: `clearsim` in it, as `bin/clearsim.js` and a
 * project folder named so give, or the CLI's own module, `sim/cli.ts`, run directly; elsewhere, any running process).
 */
export const isRunningClearsim = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if (codeOf(error) !== "EPERM") return false
  }
  try {
    const commandLine = readFileSync(`/proc/${pid}/cmdline`, "utf8")
    return commandLine.includes("clearsim") || commandLine.includes("sim/cli.ts")
  } catch {
    return true // no /proc: that it runs is all there is to know
  }
}

/** The claim's file's text, `undefined` when there is none (or it cannot be read). */
const readClaim = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8")
  } catch {
    return undefined
  }
}

const pidOf = (text: string | undefined): number | undefined => {
  const pid = Number(text?.trim() || Number.NaN)
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined
}

const holderOf = (path: string): number | undefined => pidOf(readClaim(path))

/**
 * Creates the claim's file with this process's pid in it, in one step: the pid is written to a file of this
 * process's own, which is then linked at `path` (which fails if `path` exists). Created with `wx` and written
 * after, the file was empty for a moment, and another session reading it then took it for one left behind.
 * Where hard links cannot be made, `wx` it is.
 */
const create = (path: string): boolean => {
  const own = `${path}.${process.pid}.tmp`
  writeFileSync(own, `${process.pid}\n`)
  try {
    linkSync(own, path)
    return true
  } catch (error) {
    if (codeOf(error) === "EEXIST") return false
    if (codeOf(error) !== "EPERM" && codeOf(error) !== "ENOTSUP" && codeOf(error) !== "ENOSYS") throw error
  } finally {
    rmSync(own, { force: true })
  }
  try {
    writeFileSync(path, `${process.pid}\n`, { flag: "wx" })
    return true
  } catch (error) {
    if (codeOf(error) === "EEXIST") return false
    throw error
  }
}

/**
 * Removes the claim's file if it still reads `seen` (one left behind), holding `<file>.takeover` meanwhile: only
 * one session at a time may remove a claim, so two that found the same stale one cannot both take it over (the
 * later one removing the claim the first made). A guard older than a few seconds was left by a session killed in
 * those few instructions: removed.
 */
const removeStale = (path: string, seen: string): void => {
  const guard = `${path}.takeover`
  if (!create(guard)) {
    try {
      if (Date.now() - statSync(guard).mtimeMs > 5000) rmSync(guard, { force: true })
    } catch {
      // gone meanwhile
    }
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1) // the other session's takeover, a moment
    return
  }
  try {
    if (readClaim(path) === seen) rmSync(path, { force: true })
  } finally {
    rmSync(guard, { force: true })
  }
}

/**
 * Claims `dir` (an existing directory) for this process's session: its lock, or the pid of the running clearsim
 * that holds it. Throws the file system's error when the claim's file can be neither created nor read.
 */
export const claimOutputDir = (dir: string): SessionLock | { readonly heldBy: number } => {
  const path = join(dir, SESSION_LOCK_FILE)
  for (let attempt = 0; attempt < 1000; attempt++) {
    if (create(path)) {
      let released = false
      return {
        release: () => {
          if (released) return
          released = true
          if (holderOf(path) === process.pid) rmSync(path, { force: true })
        },
      }
    }
    const seen = readClaim(path)
    if (seen === undefined) continue // released meanwhile
    const holder = pidOf(seen)
    if (holder !== undefined && holder !== process.pid && isRunningClearsim(holder)) return { heldBy: holder }
    // Left by a session that did not end (killed outright), or unreadable: taken over.
    removeStale(path, seen)
  }
  const holder = holderOf(path)
  if (holder !== undefined) return { heldBy: holder }
  throw new Error(`${path}: cannot be created (it keeps changing)`)
}
