import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { TraceFile } from "./traceFile.ts"

const dirs: string[] = []
const tempFile = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "clearsim-tracefile-"))
  dirs.push(dir)
  return join(dir, "trace.jsonl")
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

describe("TraceFile", () => {
  it("writes each line and its newline as UTF-8, across buffer fills and for lines longer than its buffer", () => {
    const path = tempFile()
    const file = new TraceFile(path)
    const lines: string[] = []
    for (let i = 0; i < 30_000; i++) lines.push(`{"i":${i},"s":"${"é€😀".repeat(i % 7)}","pad":"${"x".repeat(i % 97)}"}`)
    lines.push("a€😀".repeat(400_000)) // 3.6 MB: more than a buffer
    lines.push("", "\ud83d lone halves \ude00") // an empty line; lone surrogates become U+FFFD, as Buffer.from does
    for (const line of lines) file.line(line)
    file.close()
    file.close() // a second close does nothing
    expect(readFileSync(path).equals(Buffer.from(`${lines.join("\n")}\n`, "utf8"))).toBe(true)
    expect(() => file.line("late")).toThrow(/closed/)
  })

  it("truncates an existing file and keeps nothing when nothing is written", () => {
    const path = tempFile()
    const first = new TraceFile(path)
    first.line("old line")
    first.close()
    new TraceFile(path).close()
    expect(readFileSync(path).length).toBe(0)
  })
})
