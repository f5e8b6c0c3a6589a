/**
 * `clearsim` as a process: usage errors exit 2 whether `effect/cli` finds them (unknown flag, a flag value of the
 * wrong type, a missing argument, an unknown subcommand) or the command does (paths it cannot use), file-system
 * errors on the paths a user gives are one line without a stack trace, and help exits 0.
 */
import { spawnSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..", "..")
const dir = mkdtempSync(join(tmpdir(), "clearsim-cli-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const clearsim = (...args: string[]) => {
  const result = spawnSync(process.execPath, [join(root, "bin", "clearsim.js"), ...args], { cwd: root, encoding: "utf8", timeout: 60_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

describe("clearsim exit codes and messages", () => {
  it("exits 2 on the usage errors effect/cli finds, with the help and the error; 0 on --help", () => {
    for (const [args, error] of [
      [["run", "scenarios/quickstart.yaml", "--chains", "foo"], "--chains"],
      [["run", "scenarios/quickstart.yaml", "--bogus"], "--bogus"],
      [["run"], "scenario.yaml"],
      [["nosuch"], "nosuch"],
    ] as const) {
      const r = clearsim(...args)
      expect(r.code, `${args.join(" ")}\n${r.stdout}${r.stderr}`).toBe(2)
      expect(`${r.stdout}${r.stderr}`).toContain(error)
      expect(`${r.stdout}${r.stderr}`).toContain("USAGE")
    }
    const help = clearsim("--help")
    expect(help.code).toBe(0)
    expect(help.stdout).toContain("Exit codes: 0 success; 1 failing properties")
  })

  it("takes integer flags in decimal digits only: 2e0, 0x5 or +5 are refused on one line, exit 2, nothing written", () => {
    const out = join(dir, "integer-flags")
    for (const [args, message] of [
      [["run", "scenarios/balanced-two-chain.yaml", "--runs", "2e0"], 'clearsim: --runs: expected a positive integer in decimal digits, got "2e0"'],
      [["run", "scenarios/balanced-two-chain.yaml", "--runs", "0"], 'clearsim: --runs: expected a positive integer in decimal digits, got "0"'],
      [["up", "scenarios/balanced-two-chain.yaml", "--port", "1e3"], 'clearsim: --port: expected a TCP port between 0 and 65535 in decimal digits (0 picks a free one), got "1e3"'],
      [["up", "scenarios/balanced-two-chain.yaml", "--accounts", "0x5"], 'clearsim: --accounts: expected a number of funded user accounts between 1 and 1000 in decimal digits, got "0x5"'],
      [["up", "scenarios/balanced-two-chain.yaml", "--accounts", "+5"], 'clearsim: --accounts: expected a number of funded user accounts between 1 and 1000 in decimal digits, got "+5"'],
    ] as const) {
      const r = clearsim(...args, "--out", out)
      expect(r.code, `${args.join(" ")}\n${r.stderr}`).toBe(2)
      expect(r.stderr.trim()).toBe(message)
    }
    expect(existsSync(out)).toBe(false)
  })

  it("refuses, before the run, an --out where a report file is a symbolic link into a missing directory", () => {
    const out = join(dir, "dangling")
    mkdirSync(out)
    symlinkSync(join(dir, "no", "such", "target"), join(out, "report.md"))
    const r = clearsim("run", "scenarios/balanced-two-chain.yaml", "--out", out)
    expect(r.code, r.stderr).toBe(2)
    expect(r.stderr.trim()).toBe(`clearsim: --out ${out}: expected to write the file ${join(out, "report.md")}, but it is a symbolic link into a missing directory`)
    expect(readdirSync(out)).toEqual(["report.md"])
    // A link to a file that is not there yet, in a directory that is, is written through.
    rmSync(join(out, "report.md"))
    symlinkSync(join(dir, "report-target.md"), join(out, "report.md"))
    const through = clearsim("run", "scenarios/balanced-two-chain.yaml", "--out", out)
    expect(through.code, through.stderr).toBe(0)
    expect(readFileSync(join(dir, "report-target.md"), "utf8")).toMatch(/^# balanced-two-chain: PASS/)
  })

  it("an empty path argument is named as empty, not printed as nothing (\"clearsim: : cannot read ...\"), exit 2", () => {
    for (const [args, message] of [
      [["run", ""], 'clearsim: "": cannot read the scenario file: expected the path of a scenario file, got an empty one'],
      [["hub", "replay", ""], "clearsim: trace.jsonl: expected the path of a trace file, got an empty one"],
      [["compare", "", "x.json"], "clearsim compare: before.json: expected the path of a report or a baseline, got an empty one"],
      [["compare", "scenarios/hub-trace-example.jsonl", ""], "clearsim compare: after.json: expected the path of a report or a baseline, got an empty one"],
    ] as const) {
      const r = clearsim(...args)
      expect(r.code, `${args.join(" ")}\n${r.stderr}`).toBe(2)
      expect(r.stderr.trim()).toBe(message)
    }
  })

  it("schema --out and hub replay name the path and what was expected, on one line, exit 2", () => {
    const directory = join(dir, "a-directory")
    mkdirSync(directory)
    const cases = [
      [["schema", "--out", directory], `clearsim: --out ${directory}: expected a file to write, but it is a directory`],
      [["schema", "--out", join(dir, "missing", "s.json")], `clearsim: --out ${join(dir, "missing", "s.json")}: expected a file to write in an existing directory, but ${join(dir, "missing")} does not exist`],
      [["hub", "replay", directory], `clearsim: cannot read the trace ${directory}: it is a directory (expected a trace.jsonl file)`],
      [["hub", "replay", join(dir, "none.jsonl")], `clearsim: cannot read the trace ${join(dir, "none.jsonl")}: no such file (expected a trace.jsonl file)`],
      [["run", join(dir, "none.yaml")], `clearsim: ${join(dir, "none.yaml")}: cannot read the scenario file: it does not exist (ENOENT)`],
      [["run", directory], `clearsim: ${directory}: cannot read the scenario file: it is a directory (EISDIR)`],
    ] as const
    for (const [args, message] of cases) {
      const r = clearsim(...args)
      expect(r.code, `${args.join(" ")}\n${r.stderr}`).toBe(2)
      expect(r.stderr.trim()).toBe(message)
    }
    const file = join(dir, "s.json")
    const written = clearsim("schema", "--out", file)
    expect(written.code).toBe(0)
    expect(written.stdout.trim()).toBe(`wrote ${file}`)
    writeFileSync(join(dir, "bad.jsonl"), "not json\n")
    const malformed = clearsim("hub", "replay", join(dir, "bad.jsonl"))
    expect(malformed.code).toBe(2)
    expect(malformed.stderr.startsWith(`clearsim: ${join(dir, "bad.jsonl")}:1: `)).toBe(true)
    // A trace read from a pipe (read once: checked and replayed from memory) gives the file's hash.
    // (A shell pipe: spawnSync's `input` is a socket, which /dev/stdin cannot be opened on.)
    const example = join(root, "scenarios", "hub-trace-example.jsonl")
    const fromFile = clearsim("hub", "replay", example)
    const piped = spawnSync("sh", ["-c", `cat '${example}' | '${process.execPath}' '${join(root, "bin", "clearsim.js")}' hub replay /dev/stdin`], { cwd: root, encoding: "utf8", timeout: 60_000 })
    expect(piped.status, piped.stderr).toBe(0)
    expect(piped.stdout).toBe(fromFile.stdout)
    // A bad line after good ones refuses the trace before any event is printed.
    const good = readFileSync(join(root, "scenarios", "hub-trace-example.jsonl"), "utf8").split("\n").slice(0, 6).join("\n")
    writeFileSync(join(dir, "late.jsonl"), `${good}\n{"kind":"block","number":1,"timestamp":1}\n`)
    const late = clearsim("hub", "replay", join(dir, "late.jsonl"))
    expect(late.code).toBe(2)
    expect(late.stdout).toBe("")
    expect(late.stderr.startsWith(`clearsim: ${join(dir, "late.jsonl")}:7: number/timestamp: block 1 is before the current hub block`)).toBe(true)
    // Twelve commands one after another: 49-60 s on this machine under load, near the 60 s default.
  }, 150_000)
})
