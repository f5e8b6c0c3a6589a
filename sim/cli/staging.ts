/**
 * Where `clearsim run` writes a run's files before they take their final names: a staging directory inside the
 * directory they go to, moved into place together once the run has completed (see `STAGING_PREFIX`).
 */
import { existsSync, mkdtempSync, readdirSync, rmdirSync, rmSync } from "node:fs"
import { dirname, join, resolve, sep } from "node:path"
import * as Effect from "effect/Effect"
import { makeDirectories, replaceFiles } from "../files.ts"
import { fsErrorLine, isFsError, UsageError } from "./userErrors.ts"

/**
 * Where a run's files are written before they take their final names: a directory `.clearsim-partial-<pid>-XXXXXX`
 * inside the one they go to (so on the same file system, where a rename is atomic). They are moved into place
 * together once the run has completed; an interrupted or failed run (Ctrl-C, an error, a reader of standard output
 * gone) removes its staging directory and leaves the directory as it was, an earlier run's files included, never
 * a new partial trace beside them. A staging directory whose process is gone (killed outright) is removed by the
 * next run into that directory.
 */
const STAGING_PREFIX = ".clearsim-partial-"

const processRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Creates `dir` when missing and a staging directory in it, after removing those of processes gone. */
const openStaging = (flag: string, dir: string): string => {
  try {
    makeDirectories(dir)
    for (const name of readdirSync(dir)) {
      const staging = /^\.clearsim-partial-(\d+)-/.exec(name)
      if (staging !== null && !processRunning(Number(staging[1]))) rmSync(join(dir, name), { recursive: true, force: true })
    }
    return mkdtempSync(join(dir, `${STAGING_PREFIX}${process.pid}-`))
  } catch (error) {
    throw isFsError(error) ? new UsageError(`${flag} ${dir}: expected a directory to write into, but ${fsErrorLine(error, dir)}`) : error
  }
}

/**
 * Moves the files `names` from `staging` to their final names in `dir`, all or none (`replaceFiles`: a name that is
 * a symbolic link there is written through, its target replaced only once every file is ready; a move that fails
 * puts back what the ones before it replaced, and `staging` keeps its files). Throws `replaceFiles`'s error, whose
 * `path` is the final name of the file that could not be moved.
 */
export const publish = (staging: string, dir: string, names: readonly string[]): void =>
  replaceFiles(names.map((name) => ({ from: join(staging, name), to: join(dir, name) })))

/** The path in `staging` that `error` names (a file the run writes there could not be written), if any. */
export const stagedPathOf = (error: unknown, staging: string): string | undefined => {
  const path = (error as { readonly path?: unknown } | undefined)?.path
  return typeof path === "string" && path.startsWith(`${staging}${sep}`) ? path : undefined
}

/**
 * Runs `use` with a staging directory in `dir` (see `STAGING_PREFIX`), removed afterwards whatever happens; `dir`
 * too when this made it and nothing else is in it then (an interrupted run of a Monte Carlo set leaves no empty
 * `run-<i>-seed-<s>/`).
 */
export const withStaging = <A, E>(flag: string, dir: string, use: (staging: string) => Effect.Effect<A, E>): Effect.Effect<A, unknown> =>
  Effect.acquireUseRelease(
    Effect.try({ try: () => ({ existed: existsSync(dir), staging: openStaging(flag, dir) }), catch: (error) => error }),
    ({ staging }) => use(staging),
    ({ existed, staging }) =>
      Effect.sync(() => {
        rmSync(staging, { recursive: true, force: true })
        if (existed) return
        try {
          rmdirSync(dir) // only when empty
        } catch {
          // something is in it (a completed run's files, a failed run's trace): it stays
        }
      }),
  )

/** The directories of `path` and its ancestors that do not exist yet, deepest first (what creating `path` makes). */
export const missingDirectories = (path: string): string[] => {
  const missing: string[] = []
  for (let current = resolve(path); !existsSync(current); current = dirname(current)) {
    missing.push(current)
    if (dirname(current) === current) break
  }
  return missing
}

/** Removes the directories `dirs` (deepest first) that are empty, up to the first one that is not. */
export const removeEmptyDirectories = (dirs: readonly string[]): void => {
  for (const dir of dirs) {
    try {
      rmdirSync(dir) // only when empty
    } catch {
      return // something is in it (a run's files, a failed run's trace), or it is gone: it and its parents stay
    }
  }
}
