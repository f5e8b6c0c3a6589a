/**
 * `npm run bench [-- filter...]`: runs every `*.bench.ts` of the project (or those whose path contains a
 * filter) one after another, each in its own process so that one suite's heap and JIT state do not skew the
 * next, with the V8 flags clearsim's own runs use (`bin/v8-flags.json`). Output is each suite's own table.
 * Suites run as `clearsim` runs: with Node's own type stripping, or tsx's loader where Node has none.
 * `--list` lists the suites, `--help` says this; an unknown option or a filter that matches nothing exits 2 with
 * the list of suites.
 */
import { spawnSync } from "node:child_process"
import { readdirSync, statSync } from "node:fs"
import { basename, join, relative } from "node:path"
import v8Flags from "../bin/v8-flags.json" with { type: "json" }
import { typeScriptLoader } from "./typeScriptLoader.ts"

const root = join(import.meta.dirname, "..")
const skip = new Set(["node_modules", ".git", ".cache", ".scratch", "reports"])
const find = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    if (skip.has(name)) return []
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return find(path)
    return name.endsWith(".bench.ts") ? [path] : []
  })

/** Every benchmark suite of the project: paths relative to its root, sorted. */
export const findSuites = (): string[] =>
  find(root)
    .map((p) => relative(root, p))
    .sort()

/** The suites, one a line: the short name (the file name without `.bench.ts`) and the path. */
export const renderSuites = (suites: readonly string[]): string => {
  const width = Math.max(0, ...suites.map((s) => basename(s, ".bench.ts").length))
  return suites.map((s) => `  ${basename(s, ".bench.ts").padEnd(width)}  ${s}`).join("\n")
}

export const usage = (suites: readonly string[]): string => `Usage: npm run bench [-- filter...] | [-- --list]

Runs the benchmark suites whose path contains one of the filters (every suite without a filter), each in its own
process. --list prints the suites. The suites:
${renderSuites(suites)}
`

export type BenchPlan =
  | { readonly kind: "run"; readonly suites: readonly string[] }
  | { readonly kind: "list"; readonly text: string }
  | { readonly kind: "help"; readonly text: string }
  | { readonly kind: "error"; readonly text: string }

/** What `npm run bench -- <args>` does with the `suites` of the project. */
export const planBench = (args: readonly string[], suites: readonly string[]): BenchPlan => {
  if (args.includes("--help") || args.includes("-h")) return { kind: "help", text: usage(suites) }
  if (args.includes("--list")) return { kind: "list", text: `${renderSuites(suites)}\n` }
  const unknown = args.filter((a) => a.startsWith("-"))
  if (unknown.length > 0) return { kind: "error", text: `unknown option ${unknown.join(", ")}\n\n${usage(suites)}` }
  const chosen = suites.filter((p) => args.length === 0 || args.some((f) => p.includes(f)))
  if (chosen.length === 0) return { kind: "error", text: `no benchmark matches ${args.join(", ")}; the suites (a filter is part of a path):\n${renderSuites(suites)}\n` }
  return { kind: "run", suites: chosen }
}

const main = (): number => {
  const plan = planBench(process.argv.slice(2), findSuites())
  if (plan.kind !== "run") {
    const stream = plan.kind === "error" ? process.stderr : process.stdout
    stream.write(plan.text)
    return plan.kind === "error" ? 2 : 0
  }
  let failed = 0
  for (const suite of plan.suites) {
    console.log(`\n=== ${suite}`)
    const result = spawnSync(process.execPath, [...typeScriptLoader, "--expose-gc", ...v8Flags.largeRun, suite], { cwd: root, stdio: "inherit" })
    if (result.status !== 0) failed++
  }
  return failed === 0 ? 0 : 1
}

if (import.meta.main ?? process.argv[1] === import.meta.filename) process.exit(main())
