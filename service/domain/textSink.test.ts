import { execFileSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { workersLoadTypeScript } from "./textSink.ts"

const dir = mkdtempSync(join(tmpdir(), "clearsim-textsink-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/**
 * In a Node started with `flags` (and tsx's loader, as `npx tsx` and `clearsim` run): `workersLoadTypeScript`, and
 * whether a trace file past its threshold went to a worker, with the file it wrote.
 */
const probe = (flags: readonly string[]) => {
  const script = join(dir, `probe-${flags.length}.mjs`)
  writeFileSync(
    script,
    `const { workersLoadTypeScript } = await import(${JSON.stringify(new URL("./textSink.ts", import.meta.url).href)})
const { TraceFile } = await import(${JSON.stringify(new URL("../../sim/report/traceFile.ts", import.meta.url).href)})
const { readFileSync } = await import("node:fs")
const path = ${JSON.stringify(join(dir, `trace-${flags.length}.jsonl`))}
const file = new TraceFile(path, { offloadAfterBytes: 1 })
file.input({ kind: "block", number: 1, timestamp: 1 })
file.input({ kind: "block", number: 2, timestamp: 2 })
file.close()
console.log(JSON.stringify({ workersLoadTypeScript, offloaded: file.offloaded, text: readFileSync(path, "utf8") }))
`,
  )
  return JSON.parse(execFileSync(process.execPath, [...flags, "--import", "tsx", script], { encoding: "utf8" }).trim().split("\n").pop()!)
}

const text = '{"kind":"block","number":1,"timestamp":1}\n{"kind":"block","number":2,"timestamp":2}\n'

describe("trace workers and TypeScript", () => {
  it("this Node strips types, so the trace workers load their formatter modules", () => {
    expect(workersLoadTypeScript).toBe(true)
    expect(probe([])).toEqual({ workersLoadTypeScript: true, offloaded: true, text })
  })

  it("on a Node that does not strip types (features.typescript is false), the lines are made in this thread", () => {
    expect(probe(["--no-experimental-strip-types"])).toEqual({ workersLoadTypeScript: false, offloaded: false, text })
  })
})
