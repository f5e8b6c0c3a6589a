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

/** Polls until none of `pids` runs or `timeoutMs` passes (wall clock: test-only); returns those still running. */
export const waitUntilGone = async (pids: readonly number[], timeoutMs = 5_000): Promise<readonly number[]> => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    const running = pids.filter(isRunning)
    if (running.length === 0 || performance.now() > deadline) return running
    await new Promise((resolve) => setTimeout(resolve, 25))
  }
}
