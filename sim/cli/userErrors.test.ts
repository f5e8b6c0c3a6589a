import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { outputFileError, UsageError } from "./userErrors.ts"

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
