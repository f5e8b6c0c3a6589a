/** Process helpers for the cleanup tests (Linux /proc; elsewhere signal 0). */
import { readFileSync } from "node:fs"

/** True while `pid` runs; a zombie (exited, waiting to be reaped by init) counts as not running. */
export const isRunning = (pid: number): boolean => {
  if (process.platform === "linux") {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3)
      return state !== "Z" && state !== "X"
    } catch {
      return false
    }
  }
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const POLL_MS = 25

/** Polls every 25 ms, about `timeoutMs` in all, until none of `pids` runs; returns those still running. */
export const waitUntilGone = async (pids: readonly number[], timeoutMs = 5_000): Promise<readonly number[]> => {
  for (let polls = Math.ceil(timeoutMs / POLL_MS); ; polls--) {
    const running = pids.filter(isRunning)
    if (running.length === 0 || polls <= 0) return running
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}
