/**
 * Mistakes in a command line or in the paths it names, reported as one line without a stack trace, and exit 2.
 * Exit codes of `clearsim`: 0 success; 1 what the command checks failed (a property, a regression, a changed
 * trace hash, a conservation violation, a failed shutdown), a run stopped by a chain whose anvil exited on its own
 * (one line, no stack) or an unexpected error (printed with its stack);
 * 2 a usage error: a flag or argument `effect/cli` refuses (unknown flag, `--seed abc`, a missing argument; see
 * `withUsageExitCode`) or one the command refuses (a negative seed, an unreadable or invalid input file, an
 * output path that cannot be written).
 */
import { existsSync, readlinkSync, type Stats, statSync } from "node:fs"
import { basename, dirname, join, resolve } from "node:path"
import * as Effect from "effect/Effect"
import { CliError } from "effect/cli"
import { isSymbolicLink, kindOf, makeDirectories, systemErrorText } from "../files.ts"

/** A usage error found by a command: its message names the flag or path and what was expected. */
export class UsageError extends Error {
  override readonly name: string = "UsageError"
}

/** The exit code of usage errors. */
export const USAGE_EXIT_CODE = 2

/**
 * Makes the parse errors of `effect/cli` (shown with the command's help; by default exit 1) exit 2 like the usage
 * errors the commands find. Help shown on request (`--help`, a command without a subcommand) keeps exit 0.
 */
export const withUsageExitCode = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A | void, E, R> =>
  effect.pipe(
    Effect.catchIf(
      (error: E): boolean => CliError.isCliError(error) && error._tag === "ShowHelp" && error.errors.length > 0,
      () => Effect.sync(() => void (process.exitCode = USAGE_EXIT_CODE)),
    ),
  )

/**
 * The `--seed` flag, by the seed rule of scenario files: a non-negative integer up to 2^53 - 1, in plain decimal
 * digits (not `1e3`, `+5` or `0x10`, which a number parser would take or refuse each its own way).
 */
export const parseSeedFlag = (text: string | undefined): number | undefined =>
  text === undefined ? undefined : parseIntegerFlag("--seed", text, `a non-negative integer of at most ${Number.MAX_SAFE_INTEGER}`, 0, Number.MAX_SAFE_INTEGER, " (as a scenario's seed)")

/**
 * An integer flag (`--runs`, `--port`, ...) in plain decimal digits between `min` and `max`: `2e0`, `+5`, `0x10` or
 * `1.0` are refused rather than read as a number parser would (`--runs 1e2` would start a hundred runs).
 */
export const parseIntegerFlag = (flag: string, text: string, expected: string, min: number, max: number, note = ""): number => {
  const value = /^[0-9]+$/.test(text) ? Number(text) : Number.NaN
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new UsageError(`${flag}: expected ${expected} in decimal digits${note}, got ${JSON.stringify(text)}`)
  return value
}

/**
 * The codes of file-system errors a user can act on (a path refused, a full disk, a limit on file sizes, a name that
 * is a mount point or on another file system, a failing disk), told as one line.
 */
const FS_CODES: ReadonlySet<string> = new Set(["ENOENT", "ENOTDIR", "EISDIR", "EEXIST", "EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT", "EFBIG", "ENAMETOOLONG", "ELOOP", "EBUSY", "EXDEV", "ENOTEMPTY", "EMLINK", "ETXTBSY", "EIO"])

/** A Node file-system error (not a failed `spawn`, whose ENOENT is a missing program). */
export const isFsError = (error: unknown): error is NodeJS.ErrnoException =>
  error instanceof Error &&
  typeof (error as NodeJS.ErrnoException).code === "string" &&
  FS_CODES.has((error as NodeJS.ErrnoException).code!) &&
  !String((error as NodeJS.ErrnoException).syscall ?? "").startsWith("spawn")

/** `<path>: <reason> (<code>)` (`systemErrorText`), the path from the error (or `path` when the error has none, as a failed read). */
export const fsErrorLine = (error: NodeJS.ErrnoException, path?: string): string => `${error.path ?? path ?? "(unknown path)"}: ${systemErrorText(error)}`

const codeOf = (error: unknown): string | undefined => (isFsError(error) ? error.code : undefined)

/**
 * Creates the output directory `dir` given with `flag` (or checks that it is one); a path that cannot be a
 * directory is a `UsageError` naming the flag, the path and why.
 */
export const prepareOutputDir = (flag: string, dir: string): void => {
  if (dir === "") throw new UsageError(`${flag}: expected a directory path, got an empty one`)
  const expected = `${flag} ${dir}: expected a directory to write into (created when missing)`
  let stats: Stats | undefined
  try {
    stats = statSync(dir)
  } catch (error) {
    if (codeOf(error) === "ENOTDIR") throw new UsageError(`${expected}, but a part of the path is a file`)
    if (codeOf(error) !== "ENOENT") throw isFsError(error) ? new UsageError(`${expected}, but ${fsErrorLine(error, dir)}`) : error
  }
  if (stats?.isDirectory() === true) return
  // Named as what it is: not every non-directory is a file (`/dev/null` is a character device).
  if (stats !== undefined) throw new UsageError(`${expected}, but it is ${kindOf(stats)}`)
  if (isSymbolicLink(dir)) throw new UsageError(`${expected}, but it is a symbolic link to a missing target`)
  try {
    makeDirectories(dir)
  } catch (error) {
    if (!isFsError(error)) throw error
    // mkdir's ENOENT where the parent exists (as under /proc): the file system allows no directory there.
    const reason = error.code === "ENOENT" ? `${error.path ?? dir}: this file system allows no directory there (ENOENT)` : fsErrorLine(error, dir)
    throw new UsageError(`${expected}, but it cannot be created: ${reason}`)
  }
}

/**
 * Checks, before the runs start, the directory `dir` a run will write into (`base`, given with `flag`, or a
 * directory under it) and the files `names` it will write there, creating nothing: a missing directory or file is
 * fine (the run creates it); a file where the directory goes, or a directory (or anything but a file) where a file
 * goes, would otherwise fail the write after the whole run, and is a usage error now. A name of `notThroughLinks`
 * (a file the run removes as well as writes, as `trace.failed.jsonl`) may not be a symbolic link: the others are
 * written through theirs.
 */
export const checkRunOutputs = (flag: string, base: string, dir: string, names: readonly string[], notThroughLinks: readonly string[] = []): void => {
  const prefix = `${flag} ${base}`
  let stats: Stats
  try {
    stats = statSync(dir)
  } catch (error) {
    if (codeOf(error) === "ENOENT") return
    throw isFsError(error) ? new UsageError(`${prefix}: expected to write into ${dir}, but ${fsErrorLine(error, dir)}`) : error
  }
  if (!stats.isDirectory()) throw new UsageError(`${prefix}: expected to write into the directory ${dir}, but it is ${kindOf(stats)}`)
  for (const name of names) {
    const path = join(dir, name)
    if (notThroughLinks.includes(name) && isSymbolicLink(path)) {
      throw new UsageError(`${prefix}: expected to write the file ${path}, but it is a symbolic link, and ${name} is not written through one (a run that completes removes it): remove the link`)
    }
    let target: Stats
    try {
      target = statSync(path)
    } catch (error) {
      if (codeOf(error) === "ENOENT" && !isSymbolicLink(path)) continue
      // A link to a file not there yet is written through (the write creates its target), if the target's directory exists.
      if (codeOf(error) === "ENOENT" && existsSync(dirname(resolve(dirname(path), readlinkSync(path))))) continue
      if (codeOf(error) === "ENOENT") throw new UsageError(`${prefix}: expected to write the file ${path}, but it is a symbolic link into a missing directory`)
      throw isFsError(error) ? new UsageError(`${prefix}: expected to write ${path}, but ${fsErrorLine(error, path)}`) : error
    }
    // Named as what it is: a directory, a character device, a named pipe, or a link to one of those.
    if (!target.isFile()) throw new UsageError(`${prefix}: expected to write the file ${path}, but it is ${isSymbolicLink(path) ? `a symbolic link to ${kindOf(target)}` : kindOf(target)}`)
  }
}

/** A failed write of the file `path` given with `flag`, as a `UsageError` (other errors as they are). */
export const outputFileError = (flag: string, path: string, error: unknown): unknown => {
  const expected = `${flag} ${path}: expected a file to write`
  switch (codeOf(error)) {
    case "EISDIR":
      return new UsageError(`${expected}, but it is a directory`)
    case "ENOENT":
      if (path === "") return new UsageError(`${flag}: expected a file path, got an empty one`)
      // A symbolic link whose target's directory is missing: written through, the write finds no directory there.
      if (isSymbolicLink(path)) return new UsageError(`${expected}, but it is a symbolic link into a missing directory (${dirname(resolve(dirname(path), readlinkSync(path)))})`)
      // The directory exists but refuses the file (as /proc does), or the directory is missing.
      return existsSync(dirname(path))
        ? new UsageError(`${expected}, but ${dirname(path)} allows no file ${basename(path)} there (ENOENT)`)
        : new UsageError(`${expected} in an existing directory, but ${dirname(path)} does not exist`)
    case "ENOTDIR":
      return new UsageError(`${expected}, but a part of the path is a file, not a directory`)
    case undefined:
      return error
    default:
      // The reason alone: `path` is the file's name; the error's own path may be a staging or temporary name.
      return new UsageError(`${expected}, but ${systemErrorText(error as NodeJS.ErrnoException)}`)
  }
}

/** A failed read of the input file `path` (`what`: "the trace", ...), as a `UsageError` (other errors as they are). */
export const inputFileError = (what: string, path: string, error: unknown, expected: string): unknown => {
  const head = `cannot read ${what} ${path}`
  switch (codeOf(error)) {
    case "EISDIR":
      return new UsageError(`${head}: it is a directory (expected ${expected})`)
    case "ENOENT":
      return new UsageError(`${head}: no such file (expected ${expected})`)
    case "ENOTDIR":
      return new UsageError(`${head}: a part of the path is a file, not a directory (expected ${expected})`)
    case undefined:
      return error
    default:
      return new UsageError(`${head}: ${fsErrorLine(error as NodeJS.ErrnoException, path)}`)
  }
}

/**
 * The one line a command prints for `error` after `clearsim: ` (or `clearsim <command>: `) and its exit code:
 * usage errors (`userError` says which classes count besides `UsageError` and file-system errors) exit 2
 * without a stack; failures outside clearsim that its message says all of (`toldFailure`: a chain's anvil killed
 * during a run) exit 1 without a stack; anything else is unexpected: its stack, exit 1.
 */
export const describeCommandError = (
  error: unknown,
  userError: (error: unknown) => boolean = () => false,
  toldFailure: (error: unknown) => boolean = () => false,
): { readonly message: string; readonly exitCode: 1 | 2 } => {
  if (error instanceof UsageError || userError(error)) return { message: (error as Error).message, exitCode: USAGE_EXIT_CODE }
  if (isFsError(error)) return { message: fsErrorLine(error), exitCode: USAGE_EXIT_CODE }
  if (toldFailure(error)) return { message: error instanceof Error ? error.message : String(error), exitCode: 1 }
  return { message: error instanceof Error ? (error.stack ?? error.message) : String(error), exitCode: 1 }
}
