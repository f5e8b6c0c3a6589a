/**
 * `npm run bench [-- filter...]`: runs every `*.bench.ts` of the project (or those whose path contains a
 * filter) one after another, each in its own process so that one suite's heap and JIT state do not skew the
 * next, with the V8 flags clearsim's own runs use (`bin/v8-flags.json`). Output is each suite's own table.
 */
import { spawnSync } from "node:child_process"
import { readdirSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import v8Flags from "../bin/v8-flags.json" with { type: "json" }

const root = join(import.meta.dirname, "..")
const skip = new Set(["node_modules", ".git", ".cache", ".scratch", "reports"])
const find = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    if (skip.has(name)) return []
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return find(path)
    return name.endsWith(".bench.ts") ? [path] : []
  })

const filters = process.argv.slice(2)
const suites = find(root)
  .map((p) => relative(root, p))
  .filter((p) => filters.length === 0 || filters.some((f) => p.includes(f)))
  .sort()
if (suites.length === 0) {
  console.error(`no benchmark matches ${filters.join(", ")}`)
  process.exit(1)
}
let failed = 0
for (const suite of suites) {
  console.log(`\n=== ${suite}`)
  const result = spawnSync(process.execPath, ["--import", "tsx", "--expose-gc", ...v8Flags.largeRun, suite], { cwd: root, stdio: "inherit" })
  if (result.status !== 0) failed++
}
process.exit(failed === 0 ? 0 : 1)
