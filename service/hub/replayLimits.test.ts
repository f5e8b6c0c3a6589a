/**
 * The trace reader refuses a line longer than its limit (a file without line ends, as /dev/zero or a binary file)
 * instead of growing one string until memory or the engine's string limit runs out, and reads lines up to the limit
 * as before, whatever the chunks the file arrives in.
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { InputLineError } from "./inputs.ts"
import { MAX_TRACE_LINE_BYTES, replayFile, replayLines } from "./replay.ts"

const example = fileURLToPath(new URL("../../scenarios/hub-trace-example.jsonl", import.meta.url))
const bin = fileURLToPath(new URL("../../bin/clearsim.js", import.meta.url))
const dir = mkdtempSync(join(tmpdir(), "clearsim-replay-limits-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const lines = readFileSync(example, "utf8").split("\n").filter((line) => line !== "")
const longest = Math.max(...lines.map((line) => Buffer.byteLength(line)))

describe("replay: the longest line read", () => {
  it("replays a trace whose longest line is exactly the limit, as with no limit", async () => {
    const expected: string[] = []
    await replayLines(lines, { onLine: (line) => expected.push(line) })
    const out: string[] = []
    await replayFile(example, { onLine: (line) => out.push(line) }, longest)
    expect(out).toEqual(expected)
  })

  it("refuses a line one byte over the limit, naming its line, and a file without any line end", async () => {
    const over = join(dir, "over.jsonl")
    writeFileSync(over, `${lines.join("\n")}\n`)
    const longestLine = lines.findIndex((line) => Buffer.byteLength(line) === longest) + 1
    await expect(replayFile(over, { onLine: () => {} }, longest - 1)).rejects.toMatchObject({ line: longestLine, detail: expect.stringMatching(/^longer than .* MiB without a line end; expected a JSON line of a trace/) })
    const noEnd = join(dir, "no-end.bin")
    writeFileSync(noEnd, Buffer.alloc(4096, 0))
    await expect(replayFile(noEnd, { onLine: () => {} }, 1000)).rejects.toBeInstanceOf(InputLineError)
  })

  it("hub replay /dev/zero: one line and exit 2 once the limit is read, not a crash after taking its memory", () => {
    const result = spawnSync(process.execPath, [bin, "hub", "replay", "/dev/zero"], { encoding: "utf8", timeout: 60_000 })
    expect(result.status, result.stderr).toBe(2)
    expect(result.stderr).toBe(`clearsim: /dev/zero:1: longer than ${MAX_TRACE_LINE_BYTES / 2 ** 20} MiB without a line end; expected a JSON line of a trace (a few megabytes at most)\n`)
    expect(result.stdout).toBe("")
  }, 60_000)

  it("still names a missing trace as one", () => {
    const result = spawnSync(process.execPath, [bin, "hub", "replay", join(dir, "missing.jsonl")], { encoding: "utf8", timeout: 60_000 })
    expect(result.status).toBe(2)
    expect(result.stderr).toContain("no such file")
  }, 60_000)
})
