import { mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { outputFileError, prepareOutputDir, UsageError } from "./cli/userErrors.ts"
import { makeDirectories } from "./files.ts"

const root = mkdtempSync(join(tmpdir(), "clearsim-files-"))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe("makeDirectories", () => {
  it("creates every missing directory of a path, and accepts one that exists", () => {
    const dir = join(root, "a", "b", "c")
    makeDirectories(dir)
    expect(statSync(dir).isDirectory()).toBe(true)
    makeDirectories(dir)
    makeDirectories(`${root}/a/./b/../b`)
  })

  it("throws the file-system error of the first directory it cannot make", () => {
    const file = join(root, "file")
    writeFileSync(file, "x")
    expect(() => makeDirectories(file)).toThrow(expect.objectContaining({ code: "EEXIST" }))
    expect(() => makeDirectories(join(file, "below"))).toThrow(expect.objectContaining({ code: "ENOTDIR" }))
  })

  // Node's recursive mkdirSync never returns on this path (mkdir answers ENOENT although /proc exists).
  it.runIf(process.platform === "linux")("fails at once under /proc, where Node's recursive mkdir loops forever", () => {
    expect(() => makeDirectories("/proc/clearsim-out/run")).toThrow(expect.objectContaining({ code: "ENOENT", path: "/proc/clearsim-out" }))
    expect(() => prepareOutputDir("--out", "/proc/clearsim-out")).toThrow(UsageError)
    expect(() => prepareOutputDir("--out", "/proc/clearsim-out")).toThrow("--out /proc/clearsim-out: expected a directory to write into (created when missing), but it cannot be created")
  })
})

describe("output path errors", () => {
  it("name a dangling symbolic link as such", () => {
    const link = join(root, "dangling")
    symlinkSync(join(root, "nowhere"), link)
    expect(() => prepareOutputDir("--out", link)).toThrow(`--out ${link}: expected a directory to write into (created when missing), but it is a symbolic link to a missing target`)
  })

  const writeError = (path: string): unknown => {
    try {
      writeFileSync(path, "x")
    } catch (error) {
      return outputFileError("--out", path, error)
    }
    throw new Error(`expected writing ${path} to fail`)
  }

  it("say an empty path is empty, not that a directory is missing", () => {
    expect(() => prepareOutputDir("--out", "")).toThrow("--out: expected a directory path, got an empty one")
    expect(writeError("")).toEqual(new UsageError("--out: expected a file path, got an empty one"))
  })

  it("tell a missing directory from one that refuses the file", () => {
    expect(writeError(join(root, "missing", "x.json"))).toEqual(new UsageError(`--out ${join(root, "missing", "x.json")}: expected a file to write in an existing directory, but ${join(root, "missing")} does not exist`))
    if (process.platform === "linux") expect(writeError("/proc/x.json")).toEqual(new UsageError("--out /proc/x.json: expected a file to write, but /proc allows no file x.json there (ENOENT)"))
  })
})
