/**
 * `mkdir -p` for clearsim's output directories, without Node's recursive `mkdirSync`: that one loops forever
 * (100 % CPU, deaf to signals) when a directory cannot be created although its parent exists, as anywhere
 * under /proc, where mkdir answers ENOENT. Here each missing directory is created in turn from the nearest
 * existing ancestor, and the first failure is thrown as the file-system error it is (with its code and path).
 */
import { mkdirSync, statSync } from "node:fs"
import { dirname, resolve } from "node:path"

const codeOf = (error: unknown): string | undefined => (error as NodeJS.ErrnoException | undefined)?.code

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
