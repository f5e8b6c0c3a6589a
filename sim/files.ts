/**
 * Paths of clearsim's outputs: what a path is, in words (`pathKind`, `isSymbolicLink`), a failed system call in the
 * system's words (`systemErrorText`), `mkdir -p` (`makeDirectories`) and files replaced together, all or none, links
 * written through (`replaceFiles`); text files written, a failed write naming its file (`writeTextFile`); and input
 * files read up to a size (`readFileBounded`).
 *
 * `mkdir -p` for clearsim's output directories, without Node's recursive `mkdirSync`: that one loops forever
 * (100 % CPU, deaf to signals) when a directory cannot be created although its parent exists, as anywhere
 * under /proc, where mkdir answers ENOENT. Here each missing directory is created in turn from the nearest
 * existing ancestor, and the first failure is thrown as the file-system error it is (with its code and path).
 */
import { randomBytes } from "node:crypto"
import { closeSync, fchmodSync, fstatSync, linkSync, lstatSync, mkdirSync, openSync, readlinkSync, readSync, realpathSync, renameSync, rmSync, type Stats, statSync, writeFileSync, writeSync } from "node:fs"
import { basename, dirname, join, resolve } from "node:path"
import { getSystemErrorMap } from "node:util"

const codeOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code

/**
 * What `stats` (of `stat` or `lstat`) say a path is, for a message ("but it is a character device"): not every
 * non-directory is a file (`/dev/null`, a named pipe).
 */
export const kindOf = (stats: Stats): string => {
  if (stats.isFile()) return "a file"
  if (stats.isDirectory()) return "a directory"
  if (stats.isCharacterDevice()) return "a character device"
  if (stats.isBlockDevice()) return "a block device"
  if (stats.isFIFO()) return "a named pipe (FIFO)"
  if (stats.isSocket()) return "a socket"
  if (stats.isSymbolicLink()) return "a symbolic link"
  return "neither a file nor a directory"
}

/** What is at `path` (links followed), in words as `kindOf` gives them; undefined when nothing is there or it cannot be read. */
export const pathKind = (path: string): string | undefined => {
  try {
    return kindOf(statSync(path))
  } catch {
    return undefined
  }
}

/** Whether `path` itself is a symbolic link (whatever it points at, a missing target included). */
export const isSymbolicLink = (path: string): boolean => {
  try {
    return lstatSync(path).isSymbolicLink()
  } catch {
    return false
  }
}

/**
 * Why a system call failed, in the system's words, without the code: "no space left on device" for ENOSPC (from
 * the error's errno, else its code; the error's message when it has neither). What `ls` or `cp` would say.
 */
export const systemErrorReason = (error: NodeJS.ErrnoException): string => {
  const errors = getSystemErrorMap()
  const byErrno = typeof error.errno === "number" ? errors.get(error.errno) : undefined
  const entry = byErrno ?? (error.code === undefined ? undefined : [...errors.values()].find(([name]) => name === error.code))
  return entry?.[1] ?? error.message
}

/** `systemErrorReason` and the code: "no space left on device (ENOSPC)". */
export const systemErrorText = (error: NodeJS.ErrnoException): string => `${systemErrorReason(error)}${error.code === undefined ? "" : ` (${error.code})`}`

export const makeDirectories = (path: string): void => {
  const missing: string[] = []
  let current = resolve(path)
  for (;;) {
    try {
      statSync(current)
      break
    } catch (error) {
      if (codeOf(error) !== "ENOENT") throw error
    }
    missing.push(current)
    const parent = dirname(current)
    if (parent === current) break
    current = parent
  }
  if (missing.length === 0 && !statSync(current).isDirectory()) {
    throw Object.assign(new Error(`EEXIST: file already exists, mkdir '${path}'`), { code: "EEXIST", errno: -17, syscall: "mkdir", path })
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      mkdirSync(missing[i]!)
    } catch (error) {
      // Made meanwhile by another process (parallel test workers): fine if it is a directory now.
      if (codeOf(error) !== "EEXIST" || !statSync(missing[i]!).isDirectory()) throw error
    }
  }
}

/** Where the symbolic link `link` leads, its directories resolved; the file there may not exist yet (it is written through). */
const linkTarget = (link: string): string => {
  let path = link
  for (let hops = 0; isSymbolicLink(path); hops++) {
    if (hops === 40) throw Object.assign(new Error(`ELOOP: too many symbolic links encountered, open '${link}'`), { code: "ELOOP", errno: -40, syscall: "open", path: link })
    path = resolve(dirname(path), readlinkSync(path))
  }
  return join(realpathSync(dirname(path)), basename(path))
}

/** Copies the file `from` to a new file `to` (created, never an existing one), with the mode `mode` when given. */
const copyToNewFile = (from: string, to: string, mode: number | undefined): void => {
  const source = openSync(from, "r")
  try {
    const target = openSync(to, "wx")
    try {
      if (mode !== undefined) fchmodSync(target, mode)
      const chunk = Buffer.allocUnsafe(1 << 20)
      for (let read: number; (read = readSync(source, chunk, 0, chunk.length, null)) > 0; ) {
        for (let written = 0; written < read; ) written += writeSync(target, chunk, written, read - written)
      }
    } finally {
      closeSync(target)
    }
  } finally {
    closeSync(source)
  }
}

/** A file `replaceFiles` moves: `from` takes the name `to`. */
export interface FileMove {
  readonly from: string
  readonly to: string
}

/**
 * The error `replaceFiles` throws: the file-system error of the move that failed, with `path` set to its `to`, and
 * `unrestored`, the names of `moves` already replaced whose earlier file could not be put back (empty: every `to`
 * has what it had before the call).
 */
export type ReplaceFilesError = NodeJS.ErrnoException & { readonly unrestored: readonly string[] }

/** Whether `error` is one `replaceFiles` threw (a move failed). */
export const isReplaceFilesError = (error: unknown): error is ReplaceFilesError =>
  error instanceof Error && Array.isArray((error as { unrestored?: unknown }).unrestored)

/** A name beside `path` for a file of this process: hidden, unique, on the same file system (so renamed atomically). */
const besideName = (path: string): string => join(dirname(path), `.${basename(path)}.clearsim-${process.pid}-${randomBytes(4).toString("hex")}`)

/**
 * Moves each file `from` to its name `to`, replacing what is there, all or none (as nearly as a file system allows):
 * a `to` that is a symbolic link is written through (its target replaced, the link kept), by first copying `from` to
 * a temporary file beside the link's target (same directory, so same file system) with the target's mode. Only
 * once every such copy succeeded is anything renamed: the temporaries onto the links' targets, the other files
 * onto their names, in one synchronous step. A failed copy removes the temporaries and leaves every `to` as it was.
 * A rename that fails (a directory made meanwhile where a file goes, a name that is a mount point) undoes the
 * renames before it: each file replaced is put back from a hard link made beside it just before (a file system
 * without hard links keeps the new file there: the error's `unrestored` names it), and each `from` has its file
 * again. The error thrown is the file-system error with `path` set to the `to` it was for (not a temporary's name),
 * and `unrestored` (`ReplaceFilesError`).
 */
export const replaceFiles = (moves: readonly FileMove[]): void => {
  const temporaries: string[] = []
  const renames: { readonly from: string; readonly to: string; readonly name: string; readonly temporary: boolean }[] = []
  const named = (error: unknown, name: string, unrestored: readonly string[]): unknown =>
    error instanceof Error && typeof (error as NodeJS.ErrnoException).code === "string" ? Object.assign(error, { path: name, unrestored }) : error
  let current = ""
  try {
    for (const { from, to } of moves) {
      current = to
      if (!isSymbolicLink(to)) {
        renames.push({ from, to, name: to, temporary: false })
        continue
      }
      const target = linkTarget(to)
      let mode: number | undefined
      try {
        mode = statSync(target).mode & 0o7777
      } catch {
        mode = undefined // not there yet: created as a new file would be
      }
      const temporary = besideName(target)
      temporaries.push(temporary)
      copyToNewFile(from, temporary, mode)
      renames.push({ from: temporary, to: target, name: to, temporary: true })
    }
  } catch (error) {
    for (const temporary of temporaries) rmSync(temporary, { force: true })
    throw named(error, current, [])
  }
  /** The renames done, with how to undo each: the earlier file's hard link, or nothing there before. */
  const done: { readonly rename: (typeof renames)[number]; readonly backup: string | undefined; readonly wasThere: boolean }[] = []
  try {
    for (const rename of renames) {
      current = rename.name
      let backup: string | undefined = besideName(rename.to)
      let wasThere = true
      try {
        linkSync(rename.to, backup)
      } catch (error) {
        wasThere = codeOf(error) !== "ENOENT"
        backup = undefined // nothing there, or no hard link can be made (that file cannot be put back)
      }
      try {
        renameSync(rename.from, rename.to)
      } catch (error) {
        if (backup !== undefined) rmSync(backup, { force: true })
        throw error
      }
      done.push({ rename, backup, wasThere })
    }
  } catch (error) {
    const unrestored: string[] = []
    for (const { rename, backup, wasThere } of done.reverse()) {
      try {
        if (backup !== undefined) {
          // The new file back at `from` (a temporary goes anyway), then the earlier one at its name, atomically.
          if (!rename.temporary) {
            try {
              linkSync(rename.to, rename.from)
            } catch {
              // `from` keeps nothing: putting the earlier file back comes first
            }
          }
          renameSync(backup, rename.to)
        } else if (!wasThere) {
          if (rename.temporary) rmSync(rename.to)
          else renameSync(rename.to, rename.from)
        } else unrestored.push(rename.name)
      } catch {
        unrestored.push(rename.name)
      }
    }
    for (const { backup } of done) if (backup !== undefined) rmSync(backup, { force: true })
    for (const temporary of temporaries) rmSync(temporary, { force: true })
    throw named(error, current, unrestored.reverse())
  }
  // Every file is in place: a backup that cannot be removed is left (a hidden name), not taken for a failed move.
  for (const { backup } of done) {
    try {
      if (backup !== undefined) rmSync(backup, { force: true })
    } catch {
      // stays
    }
  }
}

/** A file past the size its reader takes (`readFileBounded`). */
export class FileTooLargeError extends Error {
  override readonly name = "FileTooLargeError"
  readonly maxBytes: number
  constructor(path: string, maxBytes: number) {
    super(`${path}: more than ${maxBytes / 2 ** 20} MiB`)
    this.maxBytes = maxBytes
  }
}

/**
 * The bytes of `path`, at most `maxBytes`: a file past that (or a device that never ends, as /dev/zero) is refused
 * (`FileTooLargeError`) rather than read until memory runs out. Pipes and devices are read as they come.
 */
export const readFileBounded = (path: string, maxBytes: number): Buffer => {
  const fd = openSync(path, "r")
  try {
    const stats = fstatSync(fd)
    if (stats.isFile() && stats.size > maxBytes) throw new FileTooLargeError(path, maxBytes)
    const chunks: Buffer[] = []
    let total = 0
    for (;;) {
      const chunk = Buffer.allocUnsafe(Math.min(2 ** 20, maxBytes + 1 - total))
      const n = readSync(fd, chunk, 0, chunk.length, null)
      if (n === 0) break
      chunks.push(chunk.subarray(0, n))
      total += n
      if (total > maxBytes) throw new FileTooLargeError(path, maxBytes)
    }
    return Buffer.concat(chunks, total)
  } finally {
    closeSync(fd)
  }
}

/**
 * Writes `text` to `path` (replacing it), given whole or in pieces (a text too long for one string). A failed write
 * (a full disk, a file size limit) is thrown with `path` set, as a failed open is: Node's own has no path then.
 */
export const writeTextFile = (path: string, text: string | Iterable<string>): void => {
  try {
    if (typeof text === "string") {
      writeFileSync(path, text)
      return
    }
    const fd = openSync(path, "w")
    try {
      for (const piece of text) {
        const bytes = Buffer.from(piece, "utf8")
        for (let written = 0; written < bytes.length; ) written += writeSync(fd, bytes, written)
      }
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    if (error instanceof Error && typeof codeOf(error) === "string" && (error as NodeJS.ErrnoException).path === undefined) Object.assign(error, { path })
    throw error
  }
}
