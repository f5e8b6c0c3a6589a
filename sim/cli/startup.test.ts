/**
 * What `clearsim` loads when it starts: a command loads the modules it uses, not every command's. The devnet's
 * (prool and its process tools, the HTTP server, WebSockets) are loaded by `up`, the anvil backend's by a run on
 * anvil, viem's root module (about 400 modules: clients, actions, chains) by the first raw transaction the hub's
 * JSON-RPC takes; effect's by subpath. Together they halved the modules a memory run loads (1,254 to 692) and took
 * about 0.5 s off every command's start here (2026-11-29).
 */
import { spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const root = join(import.meta.dirname, "..", "..")
const bin = join(root, "bin", "clearsim.js")
const dir = mkdtempSync(join(tmpdir(), "clearsim-startup-"))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The URLs of every module `clearsim <args>` loads, from a module hook in its process. */
const modulesLoadedBy = (...args: string[]): string[] => {
  const hook = join(dir, "hook.mjs")
  const list = join(dir, `modules-${args[0]}.txt`)
  writeFileSync(
    hook,
    [
      'import { registerHooks } from "node:module"',
      'import { writeFileSync } from "node:fs"',
      "const loaded = new Set()",
      "registerHooks({ load(url, context, next) { loaded.add(url); return next(url, context) } })",
      `process.on("exit", () => writeFileSync(${JSON.stringify(list)}, [...loaded].join("\\n")))`,
    ].join("\n"),
  )
  // In this process (no re-execution for a larger heap): the hook sees every module the command loads.
  const r = spawnSync(process.execPath, ["--import", hook, bin, ...args], { cwd: root, encoding: "utf8", env: { ...process.env, CLEARSIM_CHILD: "1" }, timeout: 60_000 })
  expect(r.status, r.stderr).toBe(0)
  return readFileSync(list, "utf8").split("\n")
}

const fromPackage = (modules: readonly string[], name: string): string[] => modules.filter((url) => url.includes(`/node_modules/${name}/`))

describe("clearsim's start", () => {
  it("a memory run loads neither the devnet, nor the anvil backend's process tools, nor viem's root module, nor effect's index", () => {
    const modules = modulesLoadedBy("run", "scenarios/balanced-two-chain.yaml", "--out", join(dir, "run"))
    expect(modules.some((url) => url.endsWith("/sim/run.ts"))).toBe(true) // the hook saw the run
    for (const name of ["prool", "execa", "ws", "http-proxy"]) expect(fromPackage(modules, name), name).toEqual([])
    expect(modules.filter((url) => url.endsWith("/sim/live/devnet.ts") || url.includes("/service/spoke/anvil/") || url.endsWith("/sim/chains/pool.ts"))).toEqual([])
    expect(modules.filter((url) => /\/node_modules\/viem\/_esm\/index\.js$/.test(url))).toEqual([])
    expect(modules.filter((url) => /\/node_modules\/effect\/dist\/index\.js$/.test(url))).toEqual([])
  })

  it("--version loads no chain code at all", () => {
    const modules = modulesLoadedBy("--version")
    expect(modules.filter((url) => url.endsWith("/sim/live/devnet.ts") || url.includes("/service/spoke/anvil/") || url.includes("/sim/chains/pool.ts"))).toEqual([])
    expect(fromPackage(modules, "prool")).toEqual([])
  })
})
