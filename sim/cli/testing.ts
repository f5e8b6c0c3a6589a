/**
 * Process trees for the command-line tests (Linux /proc): which processes a command left below it, and whether one
 * still runs. Test support only.
 */
import { readdirSync, readFileSync } from "node:fs"

export interface ProcessEntry {
  readonly ppid: number
  /** The command name (`comm`), as `ps` shows it: "anvil", "node". */
  readonly comm: string
  /** The state letter: R, S, D, Z (a zombie: exited, not yet reaped), ... */
  readonly state: string
}

/** pid → parent, command name and state of every process. */
export const processTable = (): Map<number, ProcessEntry> => {
  const table = new Map<number, ProcessEntry>()
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8")
      const close = stat.lastIndexOf(")")
      const [state, ppid] = stat.slice(close + 2).split(" ")
      table.set(Number(name), { ppid: Number(ppid), comm: stat.slice(stat.indexOf("(") + 1, close), state: state! })
    } catch {
      // gone meanwhile
    }
  }
  return table
}

/** The processes below `pid` (children, theirs, ...), not `pid` itself; only those named `comm` when given. */
export const descendants = (pid: number, comm?: string): number[] => {
  const table = processTable()
  const below = new Set([pid])
  for (let grew = true; grew; ) {
    grew = false
    for (const [p, { ppid }] of table) {
      if (below.has(ppid) && !below.has(p)) {
        below.add(p)
        grew = true
      }
    }
  }
  below.delete(pid)
  return [...below].filter((p) => comm === undefined || table.get(p)?.comm === comm)
}

/** Whether `pid` runs: it exists and is not a zombie. */
export const running = (pid: number): boolean => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
  } catch {
    return false
  }
}
