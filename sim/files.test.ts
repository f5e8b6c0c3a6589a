import { spawnSync } from "node:child_process"
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { checkRunOutputs, outputFileError, prepareOutputDir, UsageError } from "./cli/userErrors.ts"
import { FileTooLargeError, isReplaceFilesError, isSymbolicLink, kindOf, makeDirectories, pathKind, readFileBounded, replaceFiles, systemErrorReason, systemErrorText } from "./files.ts"

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

  it("names what is where a run's file goes, a link by what it leads to (was: 'something else is there (a directory?)')", () => {
    const dir = join(root, "in-the-way")
    mkdirSync(join(dir, "report.json"), { recursive: true })
    expect(() => checkRunOutputs("--out", dir, dir, ["report.json"])).toThrow(new UsageError(`--out ${dir}: expected to write the file ${join(dir, "report.json")}, but it is a directory`))
    rmSync(join(dir, "report.json"), { recursive: true })
    symlinkSync(root, join(dir, "report.json"))
    expect(() => checkRunOutputs("--out", dir, dir, ["report.json"])).toThrow(new UsageError(`--out ${dir}: expected to write the file ${join(dir, "report.json")}, but it is a symbolic link to a directory`))
    if (process.platform === "linux") {
      symlinkSync("/dev/null", join(dir, "report.md"))
      expect(() => checkRunOutputs("--out", dir, dir, ["report.md"])).toThrow(new UsageError(`--out ${dir}: expected to write the file ${join(dir, "report.md")}, but it is a symbolic link to a character device`))
    }
    expect([isSymbolicLink(join(dir, "report.json")), isSymbolicLink(dir), isSymbolicLink(join(dir, "nothing"))]).toEqual([true, false, false])
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

describe("systemErrorText", () => {
  it("words a failed system call as the system does, from its errno or else its code, with the code", () => {
    expect(systemErrorText(Object.assign(new Error("ENOSPC: no space left on device, write"), { errno: -28, code: "ENOSPC" }))).toBe("no space left on device (ENOSPC)")
    expect(systemErrorText(Object.assign(new Error("made up"), { code: "ENOENT" }))).toBe("no such file or directory (ENOENT)")
    expect(systemErrorReason(Object.assign(new Error("EACCES: permission denied, open '/x'"), { errno: -13, code: "EACCES" }))).toBe("permission denied")
    // Neither errno nor a known code: its message.
    expect(systemErrorText(Object.assign(new Error("it broke"), { code: "ERR_SOMETHING" }))).toBe("it broke (ERR_SOMETHING)")
    expect(systemErrorReason(new Error("it broke"))).toBe("it broke")
  })
})

describe("replaceFiles", () => {
  /** A directory with the files `files` (name to text), and links `links` (name to target). */
  const directory = (name: string, files: Record<string, string>, links: Record<string, string> = {}): string => {
    const dir = join(root, name)
    mkdirSync(dir, { recursive: true })
    for (const [file, text] of Object.entries(files)) writeFileSync(join(dir, file), text)
    for (const [link, target] of Object.entries(links)) symlinkSync(target, join(dir, link))
    return dir
  }

  it("renames plain names and writes through symbolic links, the links kept, a missing target created", () => {
    const elsewhere = directory("replace-elsewhere", { "b.txt": "old b" })
    const staged = directory("replace-staged", { "a.txt": "new a", "b.txt": "new b", "c.txt": "new c" })
    const out = directory("replace-out", { "a.txt": "old a" }, { "b.txt": join(elsewhere, "b.txt"), "c.txt": "../replace-elsewhere/c.txt" })
    replaceFiles(["a.txt", "b.txt", "c.txt"].map((name) => ({ from: join(staged, name), to: join(out, name) })))
    expect(["a.txt", "b.txt", "c.txt"].map((name) => readFileSync(join(out, name), "utf8"))).toEqual(["new a", "new b", "new c"])
    expect([isSymbolicLink(join(out, "a.txt")), isSymbolicLink(join(out, "b.txt")), isSymbolicLink(join(out, "c.txt"))]).toEqual([false, true, true])
    expect(readdirSync(elsewhere).sort()).toEqual(["b.txt", "c.txt"])
    expect(readdirSync(staged).sort()).toEqual(["b.txt", "c.txt"]) // copied through the links, not moved
  })

  it("replaces nothing when a copy through a link fails: every name keeps what it had, no temporary stays, the error names the link", () => {
    const elsewhere = directory("replace-fail-elsewhere", { "b.txt": "old b", "c.txt": "old c" })
    const staged = directory("replace-fail-staged", { "a.txt": "new a", "b.txt": "new b" }) // no c.txt: its copy fails
    const out = directory("replace-fail-out", { "a.txt": "old a" }, { "b.txt": join(elsewhere, "b.txt"), "c.txt": join(elsewhere, "c.txt") })
    expect(() => replaceFiles(["a.txt", "b.txt", "c.txt"].map((name) => ({ from: join(staged, name), to: join(out, name) })))).toThrow(expect.objectContaining({ code: "ENOENT", path: join(out, "c.txt") }))
    expect(["a.txt", "b.txt", "c.txt"].map((name) => readFileSync(join(out, name), "utf8"))).toEqual(["old a", "old b", "old c"])
    expect(readdirSync(elsewhere).sort()).toEqual(["b.txt", "c.txt"])
    expect(readdirSync(staged).sort()).toEqual(["a.txt", "b.txt"])
  })

  it("puts back what it replaced when a rename fails (a directory made where a file goes): every name keeps what it had, each `from` its file, no backup stays", () => {
    const elsewhere = directory("replace-undo-elsewhere", { "l.txt": "old l" })
    const staged = directory("replace-undo-staged", { "a.txt": "new a", "n.txt": "new n", "l.txt": "new l", "d.txt": "new d", "z.txt": "new z" })
    const out = directory("replace-undo-out", { "a.txt": "old a", "z.txt": "old z" }, { "l.txt": join(elsewhere, "l.txt") })
    // d.txt is a directory with a file in it: renaming a file onto it fails (EISDIR), after a, n and l were replaced.
    mkdirSync(join(out, "d.txt"))
    writeFileSync(join(out, "d.txt", "inside"), "")
    const moves = ["a.txt", "n.txt", "l.txt", "d.txt", "z.txt"].map((name) => ({ from: join(staged, name), to: join(out, name) }))
    let thrown: unknown
    try {
      replaceFiles(moves)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toMatchObject({ code: "EISDIR", path: join(out, "d.txt"), unrestored: [] })
    expect(isReplaceFilesError(thrown)).toBe(true)
    // Each name as it was: a's and z's old text, no n.txt, the link kept and its target's old text.
    expect(readdirSync(out).sort()).toEqual(["a.txt", "d.txt", "l.txt", "z.txt"])
    expect(["a.txt", "l.txt", "z.txt"].map((name) => readFileSync(join(out, name), "utf8"))).toEqual(["old a", "old l", "old z"])
    expect(isSymbolicLink(join(out, "l.txt"))).toBe(true)
    expect(readdirSync(elsewhere)).toEqual(["l.txt"]) // no temporary copy, no backup beside the target
    // The staged files are all there again, as they were: the move can be tried again, or one of them kept.
    expect(Object.fromEntries(readdirSync(staged).sort().map((name) => [name, readFileSync(join(staged, name), "utf8")]))).toEqual({ "a.txt": "new a", "d.txt": "new d", "l.txt": "new l", "n.txt": "new n", "z.txt": "new z" })
    // With the directory gone, the same moves go through, and leave no backup either.
    rmSync(join(out, "d.txt"), { recursive: true })
    replaceFiles(moves)
    expect(readdirSync(out).sort()).toEqual(["a.txt", "d.txt", "l.txt", "n.txt", "z.txt"])
    expect(readFileSync(join(out, "a.txt"), "utf8")).toBe("new a")
    expect(readFileSync(join(elsewhere, "l.txt"), "utf8")).toBe("new l")
    expect(readdirSync(elsewhere)).toEqual(["l.txt"])
  })

  it("keeps a link's target's mode", () => {
    const elsewhere = directory("replace-mode-elsewhere", { "x.sh": "old" })
    chmodSync(join(elsewhere, "x.sh"), 0o751)
    const staged = directory("replace-mode-staged", { "x.sh": "new" })
    const out = directory("replace-mode-out", {}, { "x.sh": join(elsewhere, "x.sh") })
    replaceFiles([{ from: join(staged, "x.sh"), to: join(out, "x.sh") }])
    expect(statSync(join(elsewhere, "x.sh")).mode & 0o777).toBe(0o751)
    expect(readFileSync(join(out, "x.sh"), "utf8")).toBe("new")
  })
})

/** Whether util-linux's `prlimit` is here: it runs a command under a limit on file sizes (RLIMIT_FSIZE), as root too. */
const prlimit = spawnSync("prlimit", ["--version"]).error === undefined

describe("writeTextFile", () => {
  it.skipIf(!prlimit)("names the file in a failed write's error, as a failed open names it (Node's write errors have no path)", () => {
    // A real limit on file sizes (RLIMIT_FSIZE, `ulimit -f`), in a child: its writes past it fail with EFBIG.
    const path = join(root, "limited.txt")
    const script = `import { writeTextFile } from ${JSON.stringify(join(import.meta.dirname, "files.ts"))}
for (const text of ["x".repeat(4096), ["x".repeat(2048), "x".repeat(2048)]]) {
  try { writeTextFile(${JSON.stringify(path)}, text); console.log("written") } catch (error) { console.log(error.code, error.path) }
}`
    const r = spawnSync("prlimit", ["--fsize=1024", "--", process.execPath, "--input-type=module", "-e", script], { encoding: "utf8" })
    expect(r.stdout, r.stderr).toBe(`EFBIG ${path}\nEFBIG ${path}\n`)
  })
})

describe("readFileBounded", () => {
  const dir = mkdtempSync(join(tmpdir(), "clearsim-bounded-"))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it("reads a file of up to its limit whole, and refuses one byte more without reading it", () => {
    const file = join(dir, "f")
    writeFileSync(file, "x".repeat(1000))
    expect(readFileBounded(file, 1000).toString()).toBe("x".repeat(1000))
    expect(() => readFileBounded(file, 999)).toThrow(FileTooLargeError)
    expect(() => readFileBounded(file, 999)).toThrow(`${file}: more than`)
  })

  it("stops reading a device that never ends once past its limit (/dev/zero), and names a missing file by its code", () => {
    expect(() => readFileBounded("/dev/zero", 3 * 2 ** 20 + 5)).toThrow(FileTooLargeError)
    expect(() => readFileBounded(join(dir, "missing"), 10)).toThrow(expect.objectContaining({ code: "ENOENT" }))
  })
})
