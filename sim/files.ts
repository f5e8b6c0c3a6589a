/**
 * Paths of clearsim's outputs: what a path is, in words (`pathKind`), and `mkdir -p` (`makeDirectories`).
 *
 * `mkdir -p` for clearsim's output directories, without Node's recursive `mkdirSync`: that one loops forever
 * (100 % CPU, deaf to signals) when a directory cannot be created although its parent exists, as anywhere
 * under /proc, where mkdir answers ENOENT. Here each missing directory is created in turn from the nearest
 * existing ancestor, and the first failure is thrown as the file-system error it is (with its code and path).
 */
import { mkdirSync, type Stats, statSync } from "node:fs"
import { dirname, resolve } from "node:path"

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
