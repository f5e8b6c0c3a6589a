/**
 * Guarantees that no anvil outlives the process that started it.
 *
 * Layers, from normal to last resort:
 * 1. `ChainPool.stop()` stops every instance (SIGTERM, awaits exit); pools also stop in `finally`/`afterAll`.
 * 2. Every live anvil child is tracked here. On SIGINT/SIGTERM/SIGHUP the tracked children are SIGKILLed
 *    synchronously, then the signal's default action (exit) is restored unless the application handles it.
 * 3. A `process.on("exit")` handler SIGKILLs whatever is still tracked (normal end, `process.exit()`, uncaught
 *    exception, unhandled rejection).
 * 4. On Linux, anvil is started through `setpriv --pdeathsig KILL`, so the kernel kills it even when this process
 *    is SIGKILLed and no handler can run.
 */
import { createHash } from "node:crypto"
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"

/** The parts of a `ChildProcess` the reaper needs (exitCode/signalCode are set once Node has reaped it). */
export interface TrackedChild {
  readonly pid?: number | undefined
  readonly exitCode: number | null
  readonly signalCode: NodeJS.Signals | null
}

const tracked = new Set<TrackedChild>()
const SIGNALS = ["SIGINT", "SIGTERM", "SIGHUP"] as const
type ExitSignal = (typeof SIGNALS)[number]
let handlersInstalled = false

const isRunning = (child: TrackedChild): boolean =>
  child.pid !== undefined && child.exitCode === null && child.signalCode === null

/** SIGKILLs every tracked child that Node has not seen exit (so its pid cannot have been reused). Sync. */
export const killTrackedSync = (): number => {
  let killed = 0
  for (const child of tracked) {
    if (isRunning(child) && child.pid !== undefined) {
      try {
        process.kill(child.pid, "SIGKILL")
        killed++
      } catch {
        // already gone
      }
    }
  }
  tracked.clear()
  return killed
}

const onExit = (): void => {
  killTrackedSync()
}

const emitterCount = (emitter: unknown): number => {
  const count: unknown = typeof emitter === "object" && emitter !== null ? Reflect.get(emitter, "count") : undefined
  return typeof count === "number" ? count : 0
}

/** Signal listeners installed by `signal-exit` v4 (global symbol) and v3 (process field); execa uses v4. */
const signalExitListenerCount = (): number =>
  emitterCount(Reflect.get(globalThis, Symbol.for("signal-exit emitter"))) +
  emitterCount(Reflect.get(process, "__signal_exit_emitter__"))

/**
 * Node's default for these signals is to exit; adding a listener removes that default. After killing the
 * children we re-raise the signal unless another listener (the application's own) is there to decide. Listeners
 * of `signal-exit` (used by execa inside prool) only re-raise when they are alone, so they do not count: once
 * ours is removed, the re-raised signal finds them alone, they run their exit hooks and re-raise in turn.
 */
const onSignal = (signal: ExitSignal): void => {
  killTrackedSync()
  const others = process.listeners(signal).filter((listener) => listener !== signalListeners[signal]).length
  if (others <= signalExitListenerCount()) {
    uninstallHandlers()
    process.kill(process.pid, signal)
  }
}

const signalListeners: Record<ExitSignal, () => void> = {
  SIGINT: () => onSignal("SIGINT"),
  SIGTERM: () => onSignal("SIGTERM"),
  SIGHUP: () => onSignal("SIGHUP"),
}

const installHandlers = (): void => {
  if (handlersInstalled) return
  handlersInstalled = true
  process.on("exit", onExit)
  for (const signal of SIGNALS) process.on(signal, signalListeners[signal])
}

const uninstallHandlers = (): void => {
  if (!handlersInstalled) return
  handlersInstalled = false
  process.off("exit", onExit)
  for (const signal of SIGNALS) process.off(signal, signalListeners[signal])
}

/** Tracks a freshly spawned anvil; handlers are installed only while something is tracked. */
export const trackChild = (child: TrackedChild): void => {
  tracked.add(child)
  installHandlers()
}

export const untrackChild = (child: TrackedChild): void => {
  tracked.delete(child)
  if (tracked.size === 0) uninstallHandlers()
}

/** Pids of tracked anvils that are still running (for diagnostics and tests). */
export const trackedPids = (): readonly number[] =>
  [...tracked].flatMap((child) => (isRunning(child) && child.pid !== undefined ? [child.pid] : []))

const SETPRIV_PATHS = ["/usr/bin/setpriv", "/bin/setpriv"]

/**
 * On Linux with util-linux `setpriv`: the path of a tiny shell script that execs the anvil binary with
 * `PR_SET_PDEATHSIG=SIGKILL` (same pid, process name stays `anvil`). Elsewhere, or when the binary path cannot be
 * quoted safely: undefined, and the caller uses the binary directly.
 */
export const parentDeathWrapper = (binary: string): string | undefined => {
  if (process.platform !== "linux" || binary.includes("'")) return undefined
  const setpriv = SETPRIV_PATHS.find((path) => existsSync(path))
  if (setpriv === undefined) return undefined
  const script = `#!/bin/sh\nexec ${setpriv} --pdeathsig KILL -- '${binary}' "$@"\n`
  const digest = createHash("sha256").update(script).digest("hex").slice(0, 16)
  const directory = join(tmpdir(), `clearsim-anvil-${process.getuid?.() ?? "user"}`)
  const path = join(directory, `anvil-pdeathsig-${digest}.sh`)
  try {
    if (existsSync(path) && readFileSync(path, "utf8") === script) return path
    mkdirSync(directory, { recursive: true })
    // Write then rename: parallel workers may race here and must never see a half-written script.
    const temporary = `${path}.${process.pid}.tmp`
    writeFileSync(temporary, script)
    chmodSync(temporary, 0o755)
    renameSync(temporary, path)
    return path
  } catch {
    return undefined
  }
}
