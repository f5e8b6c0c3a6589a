import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { NodeServices } from "@effect/platform-node"
import { Effect } from "effect"
import { Command } from "effect/cli"
import { afterEach, describe, expect, it, vi } from "vitest"
import { rerunCommandLine, runCommand } from "./run.ts"

// Two quiet chains, a few minutes, three runs from seed 5, and a property no run can meet.
const failing = `
name: always-fails
seed: 5
runs: 3
horizon: { seconds: 120 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
agents: {}
properties:
  - { coverage: invoiceCreated }
`

/** Runs `clearsim run <args>` and returns what it printed. */
const run = async (args: readonly string[]) => {
  const out: string[] = []
  const err: string[] = []
  const log = vi.spyOn(console, "log").mockImplementation((...xs: unknown[]) => void out.push(xs.join(" ")))
  const error = vi.spyOn(console, "error").mockImplementation((...xs: unknown[]) => void err.push(xs.join(" ")))
  const stderr = vi.spyOn(process.stderr, "write").mockImplementation(() => true)
  try {
    await Command.runWith(runCommand, { version: "test" })(args).pipe(Effect.provide(NodeServices.layer), Effect.runPromise)
  } finally {
    log.mockRestore()
    error.mockRestore()
    stderr.mockRestore()
  }
  return { out: out.join("\n"), err: err.join("\n") }
}

describe("clearsim run", () => {
  let dir: string | undefined
  afterEach(() => {
    process.exitCode = undefined
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  it("prints a rerun command that reruns only the failing seed, even when the scenario sets runs", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-run-"))
    const file = join(dir, "always-fails.yaml")
    writeFileSync(file, failing)
    const first = await run([file, "--out", join(dir, "all")])
    expect(first.out).toContain("0 of 3 runs passed")
    expect(process.exitCode).toBe(1)
    const reruns = [...first.err.matchAll(/rerun: (.*)/g)].map((m) => m[1]!)
    expect(reruns).toEqual([5, 6, 7].map((seed) => `npx clearsim run ${file} --seed ${seed} --runs 1 --chains memory`))
    expect(reruns[1]).toBe(rerunCommandLine(file, 6, "memory"))

    // The printed command, as the shell would split it, runs seed 6 once.
    const args = reruns[1]!.split(" ").slice(3)
    const again = await run([...args, "--out", join(dir, "again")])
    expect(again.out).toMatch(/^always-fails seed 6 on memory: FAIL/)
    expect(again.out).not.toMatch(/seed [57]/)
    expect(again.out).not.toContain("runs passed")
    expect(readdirSync(join(dir, "again"))).toContain("report.json")
  })

  it("refuses a negative --seed, as scenario files do, and an --out that cannot be a directory: one line, exit 2", async () => {
    dir = mkdtempSync(join(tmpdir(), "clearsim-run-"))
    const file = join(dir, "always-fails.yaml")
    writeFileSync(file, failing)
    const negative = await run([file, "--seed", "-1"])
    expect(negative.err).toBe("clearsim: --seed: expected a non-negative integer (as a scenario's seed), got -1")
    expect(process.exitCode).toBe(2)
    const existing = join(dir, "a-file")
    writeFileSync(existing, "")
    for (const [out, why] of [
      [existing, "it is a file"],
      [join(existing, "sub"), "a part of the path is a file"],
    ] as const) {
      process.exitCode = undefined
      const refused = await run([file, "--out", out])
      expect(refused.err).toBe(`clearsim: --out ${out}: expected a directory to write into (created when missing), but ${why}`)
      expect(refused.out).toBe("")
      expect(process.exitCode).toBe(2)
    }
  })
})
