import { spawnSync } from "node:child_process"
import { lstatSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { checkRunOutputs, outputFileError, prepareOutputDir, UsageError } from "./cli/userErrors.ts"
import { kindOf, makeDirectories, pathKind } from "./files.ts"

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

describe("what a path is", () => {
  it("tells a file, a directory, a symbolic link and nothing apart", () => {
    const file = join(root, "kind-file")
    writeFileSync(file, "x")
    const link = join(root, "kind-link")
    symlinkSync(file, link)
    expect([pathKind(file), pathKind(root), pathKind(link), kindOf(lstatSync(link)), pathKind(join(root, "nothing"))]).toEqual(["a file", "a directory", "a file", "a symbolic link", undefined])
  })

  // /dev/null is no file: "it is a file" sent users looking for a file they never made.
  it.runIf(process.platform === "linux")("names /dev/null a character device and a FIFO a named pipe where a directory is expected", () => {
    expect(pathKind("/dev/null")).toBe("a character device")
    const expected = "expected a directory to write into (created when missing), but it is"
    expect(() => prepareOutputDir("--out", "/dev/null")).toThrow(new UsageError(`--out /dev/null: ${expected} a character device`))
    expect(() => checkRunOutputs("--out", "/dev/null", "/dev/null", ["report.json"])).toThrow(new UsageError("--out /dev/null: expected to write into the directory /dev/null, but it is a character device"))
    const fifo = join(root, "fifo")
    if (spawnSync("mkfifo", [fifo]).status === 0) {
      expect(() => prepareOutputDir("--out", fifo)).toThrow(new UsageError(`--out ${fifo}: ${expected} a named pipe (FIFO)`))
    }
    // A file is still a file.
    const file = join(root, "plain")
    writeFileSync(file, "")
    expect(() => prepareOutputDir("--out", file)).toThrow(new UsageError(`--out ${file}: ${expected} a file`))
  })
})
