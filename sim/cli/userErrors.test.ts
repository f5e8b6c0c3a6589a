import { existsSync, mkdtempSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { describeCommandError, outputFileError, UsageError } from "./userErrors.ts"

const dir = mkdtempSync(join(tmpdir(), "clearsim-user-errors-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The error of writing `path` as `writeFileSync` throws it. */
const writeError = (path: string): unknown => {
  try {
    writeFileSync(path, "x")
  } catch (error) {
    return error
  }
  throw new Error(`expected the write of ${path} to fail`)
}

describe("outputFileError", () => {
  it("names a symbolic link into a missing directory as such, not as a directory that allows no such file", () => {
    const link = join(dir, "link.json")
    symlinkSync(join(dir, "missing", "target.json"), link)
    // Was: "… but <dir> allows no file link.json there (ENOENT)", about a directory that exists and takes files.
    expect(outputFileError("--out", link, writeError(link))).toEqual(
      new UsageError(`--out ${link}: expected a file to write, but it is a symbolic link into a missing directory (${join(dir, "missing")})`),
    )
    // A relative target is resolved from the link's directory.
    const relativeLink = join(dir, "relative.json")
    symlinkSync(join("gone", "t.json"), relativeLink)
    expect(outputFileError("--out", relativeLink, writeError(relativeLink))).toEqual(
      new UsageError(`--out ${relativeLink}: expected a file to write, but it is a symbolic link into a missing directory (${join(dir, "gone")})`),
    )
    // A missing directory itself is still told as one.
    const missing = join(dir, "nowhere", "s.json")
    expect(outputFileError("--out", missing, writeError(missing))).toEqual(
      new UsageError(`--out ${missing}: expected a file to write in an existing directory, but ${join(dir, "nowhere")} does not exist`),
    )
  })
})

describe("describeCommandError", () => {
  it("tells in one line (exit 2, no stack) a file that cannot take its name: a mount point there (EBUSY), another file system (EXDEV), a failing disk (EIO)", () => {
    // Was: these codes were unexpected errors, printed with their stack (exit 1).
    for (const [code, errno, reason] of [["EBUSY", -16, "resource busy or locked"], ["EXDEV", -18, "cross-device link not permitted"], ["EIO", -5, "i/o error"]] as const) {
      const error = Object.assign(new Error(`${code}: ..., rename`), { code, errno, syscall: "rename", path: join(dir, "report.json") })
      expect(describeCommandError(error), code).toEqual({ message: `${join(dir, "report.json")}: ${reason} (${code})`, exitCode: 2 })
      expect(outputFileError("--out", join(dir, "report.json"), error), code).toEqual(new UsageError(`--out ${join(dir, "report.json")}: expected a file to write, but ${reason} (${code})`))
    }
  })

  it.runIf(existsSync("/dev/shm") && statSync("/dev/shm").dev !== statSync(dir).dev)("tells a rename onto another file system (EXDEV) as such", () => {
    const from = mkdtempSync(join("/dev/shm", "clearsim-user-errors-"))
    try {
      writeFileSync(join(from, "x"), "x")
      let thrown: unknown
      try {
        renameSync(join(from, "x"), join(dir, "x"))
      } catch (error) {
        thrown = error
      }
      expect(describeCommandError(thrown)).toMatchObject({ exitCode: 2, message: expect.stringMatching(/\(EXDEV\)$/) })
    } finally {
      rmSync(from, { recursive: true, force: true })
    }
  })
})
