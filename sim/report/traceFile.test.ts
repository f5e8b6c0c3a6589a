import fc from "fast-check"
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, symlinkSync } from "node:fs"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { TextSinkWorker } from "../../service/domain/textSink.ts"
import { arbTrace, traceConfig } from "../../service/hub/arbitrary.ts"
import type { HubInput } from "../../service/hub/hub.ts"
import { encodeConfigLine, encodeInputLine } from "../../service/hub/inputLines.ts"
import { encodeEndLine, replayFile } from "../../service/hub/replay.ts"
import { runScenario } from "../run.ts"
import { parseScenario } from "../scenario/load.ts"
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

  it("writes the same file when a worker thread makes and writes the lines", () => {
    // Every kind of input from random traces, and intent batches with the ids the memory spokes hand over (not
    // part of the trace); a plain line in between once offloaded.
    const config = traceConfig()
    const inputs: HubInput[] = fc.sample(arbTrace(), { numRuns: 800, seed: 11 }).flat()
    const withIds = inputs.map((input) => (input.kind === "intents" ? { ...input, knownIds: input.intents.map((_, i) => `0x${String(i).padStart(64, "0")}` as const) } : input))
    expect(new Set(inputs.map((i) => i.kind)).size).toBeGreaterThanOrEqual(8)
    expect(inputs.length).toBeGreaterThan(1500)
    const here = tempFile()
    const offloadedPath = tempFile()
    const local = new TraceFile(here, { offloadAfterBytes: Number.POSITIVE_INFINITY })
    const offloaded = new TraceFile(offloadedPath, { offloadAfterBytes: 64 << 10 })
    for (const file of [local, offloaded]) {
      file.config(config)
      withIds.forEach((input, i) => {
        file.input(input)
        if (i === 1500) file.line('{"a plain line":"é😀"}')
      })
    }
    expect(local.offloaded).toBe(false)
    expect(offloaded.offloaded).toBe(true)
    local.close()
    offloaded.close()
    const lines = [encodeConfigLine(config), ...inputs.map(encodeInputLine)]
    lines.splice(1500 + 2, 0, '{"a plain line":"é😀"}')
    const expected = Buffer.from(`${lines.join("\n")}\n`, "utf8")
    expect(readFileSync(here).equals(expected)).toBe(true)
    expect(readFileSync(offloadedPath).equals(expected)).toBe(true)
    expect(() => offloaded.input(inputs[0]!)).toThrow(/closed/)
  })

  it("ends a complete trace with its end line, the number of inputs written, here and from the worker thread", () => {
    const config = traceConfig()
    const inputs: HubInput[] = fc.sample(arbTrace(), { numRuns: 400, seed: 5 }).flat()
    const here = tempFile()
    const offloadedPath = tempFile()
    const local = new TraceFile(here, { offloadAfterBytes: Number.POSITIVE_INFINITY })
    const offloaded = new TraceFile(offloadedPath, { offloadAfterBytes: 16 << 10 })
    for (const file of [local, offloaded]) {
      file.config(config)
      for (const input of inputs) file.input(input)
      file.end()
      expect(() => file.end()).toThrow(/closed/)
    }
    expect(offloaded.offloaded).toBe(true)
    const expected = `${[encodeConfigLine(config), ...inputs.map(encodeInputLine), encodeEndLine(inputs.length)].join("\n")}\n`
    expect(readFileSync(here, "utf8")).toBe(expected)
    expect(readFileSync(offloadedPath, "utf8")).toBe(expected)
    // close() alone leaves no end line (what an interrupted run leaves).
    const cut = tempFile()
    const file = new TraceFile(cut)
    file.config(config)
    file.input(inputs[0]!)
    file.close()
    expect(readFileSync(cut, "utf8")).toBe(`${encodeConfigLine(config)}\n${encodeInputLine(inputs[0]!)}\n`)
  })

  it("a completed run's trace ends with its end line, and replays to the run's trace hash", async () => {
    const text = readFileSync(new URL("../../scenarios/quickstart.yaml", import.meta.url), "utf8").replace(/^horizon: .*$/m, "horizon: { epochs: 2 }")
    const out = dirname(tempFile())
    const { report } = await runScenario(parseScenario(text, "quickstart.yaml"), { seed: 1, backend: "memory", outDir: out })
    const lines = readFileSync(join(out, "trace.jsonl"), "utf8").trimEnd().split("\n")
    expect(lines.at(-1)).toBe(encodeEndLine(report.hubInputs))
    expect(lines).toHaveLength(report.hubInputs + 2)
    const replayed = await replayFile(join(out, "trace.jsonl"), { onLine: () => {} })
    expect(replayed).toMatchObject({ traceHash: report.traceHash, inputs: report.hubInputs, end: { line: report.hubInputs + 2 } })
  })

  it("fails the writer when the worker thread cannot write", () => {
    const fd = openSync("/dev/full", "w") // every write fails with ENOSPC
    const worker = new TextSinkWorker({ owner: "TraceFile test", fd })
    worker.post(new Uint8Array(Buffer.from("a line\n")))
    // As a system error, its code and errno kept (a caller reports it as a full disk, not as a defect).
    expect(() => worker.sync()).toThrow(expect.objectContaining({ message: expect.stringMatching(/^TraceFile test: ENOSPC/), code: "ENOSPC", errno: -28 }))
    expect(() => worker.post(new Uint8Array(1))).toThrow(/ENOSPC/)
    worker.close()
    closeSync(fd)
  })

  it("fails its close when the buffered lines cannot be written (a full disk), and is closed all the same", () => {
    const file = new TraceFile("/dev/full") // every write fails with ENOSPC
    file.line("a line")
    expect(() => file.close()).toThrow(/ENOSPC/)
    expect(() => file.line("late")).toThrow(/closed/)
    file.close() // once
  })

  it("fails with its own path: writeSync's errors name no file, and a full disk would read '(unknown path)'", () => {
    const link = tempFile()
    symlinkSync("/dev/full", link) // every write fails with ENOSPC
    const file = new TraceFile(link)
    file.line("a line")
    expect(() => file.close()).toThrow(expect.objectContaining({ code: "ENOSPC", syscall: "write", path: link }))
    const long = new TraceFile(link)
    expect(() => long.line("x".repeat(1 << 20))).toThrow(expect.objectContaining({ code: "ENOSPC", path: link }))
    long.close()
  })

  it("fails a run whose trace could not be written, though the run itself went through", async () => {
    // Two epochs of quickstart: a trace of less than the buffer, written only when the run closes it.
    const text = readFileSync(new URL("../../scenarios/quickstart.yaml", import.meta.url), "utf8").replace(/^horizon: .*$/m, "horizon: { epochs: 2 }")
    const out = dirname(tempFile())
    symlinkSync("/dev/full", join(out, "trace.jsonl"))
    await expect(runScenario(parseScenario(text, "quickstart.yaml"), { seed: 1, backend: "memory", outDir: out })).rejects.toThrow(/ENOSPC/)
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
