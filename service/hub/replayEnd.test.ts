/**
 * The end line of a trace (`{"kind":"end","inputs":N}`, written by `clearsim run` when a run completes): not an
 * input, so the events and the trace hash are those of the trace without it; its count is checked, nothing may
 * follow it, and the summary says whether the trace had one (a trace cut at a line boundary has none).
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, describe, expect, it } from "vitest"
import { InputLineError } from "./inputs.ts"
import { checkTraceLines, encodeEndLine, replayFile, replayLines } from "./replay.ts"

const example = new URL("../../scenarios/hub-trace-example.jsonl", import.meta.url)
const dir = mkdtempSync(join(tmpdir(), "clearsim-replay-end-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The shipped example trace's lines, blank lines dropped. */
const exampleFileLines = (): string[] => readFileSync(example, "utf8").split("\n").filter((line) => line.trim() !== "")
/** The example trace without its end line: a config line and its inputs, as a trace before end lines was. */
const exampleLines = (): string[] => exampleFileLines().slice(0, -1)

const replay = async (lines: readonly string[]) => {
  const out: string[] = []
  const summary = await replayLines(lines, { onLine: (line) => out.push(line) })
  return { out, summary }
}

describe("replay: a trace's end line", () => {
  it("ends the shipped example trace (README's), which replays to the hash of its inputs alone", async () => {
    const file = exampleFileLines()
    expect(file.at(-1)).toBe(encodeEndLine(file.length - 2))
    const complete = await replay(file)
    expect(complete.summary.end).toEqual({ line: file.length })
    expect(complete.out).toEqual((await replay(exampleLines())).out)
    // As README has users replay it: exit 0, no note that it may be cut short.
    const cli = spawnSync(process.execPath, [fileURLToPath(new URL("../../bin/clearsim.js", import.meta.url)), "hub", "replay", fileURLToPath(example)], { encoding: "utf8", timeout: 60_000 })
    expect(cli.status, cli.stderr).toBe(0)
    expect(cli.stderr).toBe("")
    expect(cli.stdout).toBe(`${complete.out.join("\n")}\n`)
  })

  it("is no input: the same events and trace hash as without it, and the summary names its line", async () => {
    const lines = exampleLines()
    const inputs = lines.length - 1
    const without = await replay(lines)
    const withEnd = await replay([...lines, "", encodeEndLine(inputs), ""])
    expect(without.summary.end).toBeUndefined()
    expect(withEnd.out).toEqual(without.out)
    expect(withEnd.summary).toEqual({ ...without.summary, end: { line: lines.length + 2 } })
    expect(await checkTraceLines([...lines, encodeEndLine(inputs)])).toBe(lines.length + 1)
  })

  it("refuses an end line whose count is not the number of inputs above it (a line lost or added), before any event", async () => {
    const lines = exampleLines()
    const inputs = lines.length - 1
    // The third input lost: the end line counts one input more than the trace holds.
    const lost = [...lines.slice(0, 3), ...lines.slice(4), encodeEndLine(inputs)]
    const expected = new InputLineError(lines.length, `inputs: expected ${inputs - 1}, the number of inputs above this end line, got ${inputs}`)
    await expect(checkTraceLines(lost)).rejects.toThrow(expected.message)
    const file = join(dir, "lost.jsonl")
    writeFileSync(file, `${lost.join("\n")}\n`)
    const out: string[] = []
    await expect(replayFile(file, { onLine: (line) => out.push(line) })).rejects.toMatchObject({ line: lines.length, detail: expected.detail })
    expect(out).toEqual([])
    // The second input (setUserSupportedDomains, valid anywhere) given twice: the end line counts one input fewer.
    const added = [...lines.slice(0, 3), lines[2]!, ...lines.slice(3), encodeEndLine(inputs)]
    const addedExpected = new InputLineError(lines.length + 2, `inputs: expected ${inputs + 1}, the number of inputs above this end line, got ${inputs}`)
    await expect(checkTraceLines(added)).rejects.toThrow(addedExpected.message)
    const addedFile = join(dir, "added.jsonl")
    writeFileSync(addedFile, `${added.join("\n")}\n`)
    await expect(replayFile(addedFile, { onLine: (line) => out.push(line) })).rejects.toMatchObject({ line: lines.length + 2, detail: addedExpected.detail })
    expect(out).toEqual([])
    // Without its end line the same trace replays: the count alone refused it.
    expect((await replay(added.slice(0, -1))).summary.inputs).toBe(inputs + 1)
  })

  it("refuses anything but blank lines after the end line, and keys other than kind and inputs", async () => {
    const lines = exampleLines()
    const inputs = lines.length - 1
    const end = lines.length + 1
    await expect(replay([...lines, encodeEndLine(inputs), "", lines[1]!])).rejects.toMatchObject({
      line: end + 2,
      detail: `expected nothing after the end line (line ${end}), found another line`,
    })
    await expect(replay([...lines, encodeEndLine(inputs), encodeEndLine(inputs)])).rejects.toMatchObject({ line: end + 1 })
    await expect(checkTraceLines([...lines, `{"kind":"end","inputs":${inputs},"hash":"0x"}`])).rejects.toMatchObject({
      line: end,
      detail: "hash: unknown key (an end line has kind and inputs)",
    })
    await expect(checkTraceLines([...lines, '{"kind":"end"}'])).rejects.toMatchObject({ line: end, detail: `inputs: Missing key: expected ${inputs}, the number of inputs above this end line` })
    // Written with spaces, it is still an end line.
    expect((await replay([...lines, `{ "kind": "end", "inputs": ${inputs} }`])).summary.end).toEqual({ line: end })
  })

  it("gives a trace cut at a line boundary away: it replays, but without an end line", async () => {
    const lines = exampleLines()
    const complete = join(dir, "complete.jsonl")
    const cut = join(dir, "cut.jsonl")
    writeFileSync(complete, `${[...lines, encodeEndLine(lines.length - 1)].join("\n")}\n`)
    writeFileSync(cut, `${lines.slice(0, -2).join("\n")}\n`)
    expect((await replayFile(complete, { onLine: () => {} })).end).toEqual({ line: lines.length + 1 })
    expect((await replayFile(cut, { onLine: () => {} })).end).toBeUndefined()
  })
})
