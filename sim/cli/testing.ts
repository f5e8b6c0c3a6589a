/**
 * Process trees for the command-line tests (Linux /proc): which processes a command left below it, and whether one
 * still runs; and a command started with its output collected. Test support only.
 */
import { type ChildProcessByStdio, spawn } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import type { Readable } from "node:stream"

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

/** A process started by `spawnCollecting`: its standard output and error as they came, together, and its exit code. */
export interface Collecting {
  readonly child: ChildProcessByStdio<null, Readable, Readable>
  /** What it wrote so far, standard output and error interleaved as they came. */
  readonly output: () => string
  /** Its exit code once its streams are closed (null when a signal ended it). */
  readonly exited: Promise<number | null>
}

/** Starts `node <args>` in `cwd`, collecting its standard output and error together. */
export const spawnCollecting = (args: readonly string[], cwd: string): Collecting => {
  const child = spawn(process.execPath, args, { cwd, stdio: ["ignore", "pipe", "pipe"] })
  let output = ""
  child.stdout.setEncoding("utf8").on("data", (text: string) => (output += text))
  child.stderr.setEncoding("utf8").on("data", (text: string) => (output += text))
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)))
  return { child, output: () => output, exited }
}
