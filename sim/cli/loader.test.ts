/**
 * `bin/clearsim.js` runs the TypeScript CLI with Node's own type stripping, and through tsx's loader where Node
 * strips no types. Both ways must run the same code to the same result: the same scenario gives the same trace
 * hash (and, without type stripping, the trace workers fall back to formatting on the main thread).
 */
import { execFileSync } from "node:child_process"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, expect, it } from "vitest"

const root = join(import.meta.dirname, "..", "..")
const projectNode = join(root, "node_modules", "node", "bin", "node")
const node = existsSync(projectNode) ? projectNode : process.execPath
const out = mkdtempSync(join(tmpdir(), "clearsim-loader-"))
afterAll(() => rmSync(out, { recursive: true, force: true }))

const run = (flags: readonly string[], dir: string): string =>
  execFileSync(node, [...flags, join(root, "bin", "clearsim.js"), "run", join(root, "scenarios", "balanced-two-chain.yaml"), "--out", join(out, dir)], {
    cwd: root,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"],
  })

it("runs a scenario to the same trace hash with Node's type stripping and with tsx's loader", () => {
  expect(execFileSync(node, ["--no-experimental-strip-types", "-p", "process.features.typescript"], { encoding: "utf8" }).trim()).toBe("false")
  const hashOf = (output: string): string => /trace hash (0x[0-9a-f]{64})/.exec(output)?.[1] ?? `no trace hash in:\n${output}`
  const native = run([], "native")
  const tsx = run(["--no-experimental-strip-types"], "tsx")
  expect(native).toContain("balanced-two-chain seed 11 on memory: PASS")
  expect(hashOf(native)).toMatch(/^0x[0-9a-f]{64}$/)
  expect(hashOf(tsx)).toBe(hashOf(native))
})
