/**
 * Test-only: runs bundled k6 scripts in Node. `prepareK6Shim(dir)` writes the shim package (`node_modules/k6`,
 * with `k6`, `k6/http` and `k6/metrics`) and the VU worker into `dir`; `bundleK6Script` bundles an entry script the way the
 * toolchain notes do (esbuild, ESM, k6 modules external); `runK6Vu` runs it in a worker thread whose HTTP calls
 * are answered here, on the main thread, with fetch against the real server.
 */
import { build } from "esbuild"
import { mkdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { MessageChannel, Worker } from "node:worker_threads"
import type { WireRequest, WireResponse } from "./k6shim/state.ts"
import type { VuInput, VuOutput } from "./k6vu.ts"

const here = import.meta.dirname

/** esbuild, as in the toolchain notes: ESM, platform neutral, es2020, the k6 modules left as imports. */
export const bundleK6Script = async (entry: string): Promise<string> => {
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2020",
    external: ["k6", "k6/*"],
    write: false,
    logLevel: "silent",
  })
  return result.outputFiles[0]!.text
}

/** The k6 modules a bundle still imports (everything else must have been bundled). */
export const importsOf = (code: string): string[] => [...code.matchAll(/^import\s[^;]*?from\s*"([^"]+)"/gm)].map((m) => m[1]!)

export const prepareK6Shim = async (dir: string): Promise<void> => {
  const pkg = join(dir, "node_modules", "k6")
  mkdirSync(pkg, { recursive: true })
  writeFileSync(join(pkg, "package.json"), JSON.stringify({ name: "k6", type: "module", exports: { ".": "./index.js", "./http": "./http.js", "./metrics": "./metrics.js" } }))
  const bundle = (entry: string, outfile: string) =>
    build({ entryPoints: [join(here, entry)], bundle: true, format: "esm", platform: "node", target: "node20", outfile, logLevel: "silent" })
  await bundle("k6shim/k6.ts", join(pkg, "index.js"))
  await bundle("k6shim/http.ts", join(pkg, "http.js"))
  await bundle("k6shim/metrics.ts", join(pkg, "metrics.js"))
  await bundle("k6vu.ts", join(dir, "vu.mjs"))
}

export interface VuRun {
  /** Variables of `__ENV`. */
  readonly env: Record<string, string>
  readonly iterations: number
  readonly vu?: number
  /** The request (0-based, setup's included) at which the shim's `http.request` throws. */
  readonly throwAtRequest?: number
}

/** Answers one request of the VU with fetch. */
const answer = async (request: WireRequest): Promise<WireResponse> => {
  const started = performance.now()
  try {
    const response = await fetch(request.url, { method: request.method, headers: request.headers, ...(request.body === null ? {} : { body: request.body }) })
    const body = await response.text()
    const headers: Record<string, string> = {}
    response.headers.forEach((value, name) => {
      headers[name] = value
    })
    return { status: response.status, body, headers, durationMs: performance.now() - started }
  } catch (error) {
    const cause = (error as { cause?: unknown }).cause
    return { status: 0, body: "", headers: {}, durationMs: performance.now() - started, error: String(cause ?? error) }
  }
}

/** Runs the bundled script `scriptFile` (written inside `dir`) as one VU: setup, iterations, teardown. */
export const runK6Vu = async (dir: string, scriptFile: string, run: VuRun): Promise<VuOutput> => {
  const { port1, port2 } = new MessageChannel()
  const signal = new SharedArrayBuffer(4)
  const flag = new Int32Array(signal)
  port1.on("message", (request: WireRequest) => {
    void answer(request).then((response) => {
      port1.postMessage(response)
      Atomics.store(flag, 0, 1)
      Atomics.notify(flag, 0)
    })
  })
  const input: VuInput = { script: scriptFile, env: run.env, vu: run.vu ?? 1, iterations: run.iterations, port: port2, signal, ...(run.throwAtRequest === undefined ? {} : { throwAtRequest: run.throwAtRequest }) }
  const worker = new Worker(join(dir, "vu.mjs"), { workerData: input, transferList: [port2] })
  try {
    return await new Promise<VuOutput>((resolve, reject) => {
      worker.once("message", (output: VuOutput) => resolve(output))
      worker.once("error", reject)
      worker.once("exit", (code) => reject(new Error(`the VU worker exited (${code}) without a result`)))
    })
  } finally {
    port1.close()
    await worker.terminate()
  }
}
