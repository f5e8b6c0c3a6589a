/**
 * The k6 entry scripts as k6 would load them: each is bundled with esbuild (k6 modules external) to prove it
 * compiles to one ES module that needs nothing but k6, then executed in a worker thread under a minimal
 * implementation of `k6` and `k6/http` (synchronous HTTP over an Atomics wait, answered with fetch by the real
 * clearsim API server in this process): setup() reads the API, the default function runs for some iterations,
 * requests go out tagged, checks run and pass, and the smoke thresholds hold on what was recorded. Behind a
 * proxy that corrupts intent records, the checks fail, and so does the checks threshold.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SCRIPTS } from "./lib/flows.ts"
import { GROUPS_OF } from "./lib/profiles.ts"
import { bundleK6Script, importsOf, prepareK6Shim, runK6Vu } from "./testing/k6host.ts"
import { evaluateThresholds } from "./testing/thresholds.ts"
import { startWorld, type TestWorld } from "./testing/world.ts"

let world: TestWorld
let dir: string

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "clearsim-k6-"))
  ;[world] = await Promise.all([startWorld(), prepareK6Shim(dir)])
})
afterAll(async () => {
  await world?.close()
  rmSync(dir, { recursive: true, force: true })
})

const bundled = async (script: string): Promise<string> => {
  const code = await bundleK6Script(join(import.meta.dirname, `${script}.ts`))
  const file = join(dir, `${script}.js`)
  writeFileSync(file, code)
  return file
}

describe("each k6 entry script bundles and runs under a k6 shim against the real API", () => {
  it("lib/ imports only its own modules: neither k6 nor Node, so k6 and the tests run the same code", () => {
    const lib = join(import.meta.dirname, "lib")
    for (const file of readdirSync(lib)) {
      const imports = [...readFileSync(join(lib, file), "utf8").matchAll(/^import\s[^;]*?from\s*"([^"]+)"/gm)].map((m) => m[1]!)
      expect(imports.filter((path) => !path.startsWith("./")), file).toEqual([])
    }
  })

  it.each(SCRIPTS)("%s.ts", async (script) => {
    const code = await bundleK6Script(join(import.meta.dirname, `${script}.ts`))
    // One ES module: everything bundled but k6's own modules.
    expect(importsOf(code).sort()).toEqual(["k6", "k6/http", "k6/metrics"])
    expect(code).toMatch(/export\s*\{[^}]*default/)

    const iterations = 30
    const out = await runK6Vu(dir, await bundled(script), { env: { BASE_URL: world.server.url, PROFILE: "smoke", SEED: "5" }, iterations, vu: 3 })
    expect(out.errors).toEqual([])
    expect(out.logs).toEqual([]) // the driver logs failed checks: none

    // setup() read the API's assets and intents: its data crossed the JSON boundary to the iterations.
    const data = out.setupData as { routes: unknown[]; intentIds: string[] }
    expect(data.routes).toHaveLength(4)
    expect(data.intentIds.length).toBeGreaterThan(10)
    const setupRequests = out.requests.filter((r) => r.group === "")
    expect(setupRequests.map((r) => new URL(r.url).pathname)).toEqual(["/health", "/configs/assets", "/configs/assets", "/intents", "/invoices"])
    // Tagged apart: setup's reads are not traffic, and stay out of the latency thresholds.
    expect(setupRequests.every((r) => r.tags["api"] === "setup")).toBe(true)

    // The iterations: at least one request each, inside the script's group, tagged with name and api group.
    const traffic = out.requests.filter((r) => r.group === `::${script}`)
    expect(traffic.length).toBeGreaterThanOrEqual(iterations)
    for (const r of traffic) {
      expect(r.url.startsWith(world.server.url)).toBe(true)
      expect(GROUPS_OF[script]).toContain(r.tags["api"])
      expect(r.tags["name"]).toMatch(/^(GET|POST) \//)
    }
    expect(new Set(traffic.map((r) => r.tags["api"]))).toEqual(new Set(GROUPS_OF[script]))
    expect(out.requests.every((r) => r.expected)).toBe(true)

    // Checks ran on every response and all passed.
    expect(out.checks.length).toBeGreaterThanOrEqual(2 * out.requests.length)
    expect(out.checks.filter((c) => !c.pass)).toEqual([])

    // The exported options: the smoke profile's executor, and its thresholds hold on this run.
    const options = out.options as { scenarios: Record<string, { executor: string; iterations: number }>; thresholds: Record<string, string[]> }
    expect(options.scenarios[script]).toMatchObject({ executor: "shared-iterations", iterations: 50 })
    const results = evaluateThresholds(options.thresholds, out.requests, out.checks, out.rates)
    expect(results.map((r) => r.metric)).toEqual(expect.arrayContaining(["http_req_failed", "checks", "iterations_completed", ...GROUPS_OF[script].map((g) => `http_req_duration{api:${g}}`)]))
    expect(out.rates.filter((r) => r.metric === "iterations_completed").map((r) => r.value)).toEqual(Array.from({ length: iterations }, () => true))
    expect(results.filter((r) => !r.pass)).toEqual([])
  })

  it("under PROFILE=load the options switch to a constant arrival rate, and stress to ramping VUs with think time", async () => {
    const file = await bundled("mixed")
    const load = await runK6Vu(dir, file, { env: { BASE_URL: world.server.url, PROFILE: "load" }, iterations: 0 })
    expect((load.options as { scenarios: Record<string, unknown> }).scenarios["mixed"]).toMatchObject({ executor: "constant-arrival-rate", rate: 150, duration: "5m" })
    const stress = await runK6Vu(dir, file, { env: { BASE_URL: world.server.url, PROFILE: "stress", VUS: "40" }, iterations: 2 })
    expect((stress.options as { scenarios: Record<string, { executor: string; stages: { target: number }[] }> }).scenarios["mixed"]!.stages.map((s) => s.target)).toEqual([4, 10, 20, 40, 0])
    expect(stress.sleeps).toEqual([0.1, 0.1])
  })

  it("an unknown profile stops the script at load time with the list of profiles", async () => {
    const file = await bundled("reads")
    await expect(runK6Vu(dir, file, { env: { BASE_URL: world.server.url, PROFILE: "spike" }, iterations: 1 })).rejects.toThrow(/PROFILE: expected one of smoke, load, stress, soak, got "spike"/)
  })

  it("setup() against nothing listening fails with the npm run up hint", async () => {
    const file = await bundled("reads")
    await expect(runK6Vu(dir, file, { env: { BASE_URL: "http://127.0.0.1:9" }, iterations: 1 })).rejects.toThrow(/GET \/health answered 0.*npm run up/)
  })

  /**
   * A proxy in front of the real API that rewrites each answer's body with `rewrite`, started before the block's
   * tests and closed after; `url()` is its base URL.
   */
  const rewritingProxy = (rewrite: (body: string) => string): { readonly url: () => string } => {
    let proxy: Server
    let proxyUrl = ""
    beforeAll(async () => {
      proxy = createServer(async (req, res) => {
        const chunks: Buffer[] = []
        for await (const chunk of req) chunks.push(chunk as Buffer)
        const upstream = await fetch(`${world.server.url}${req.url}`, {
          method: req.method!,
          headers: { "content-type": req.headers["content-type"] ?? "application/json" },
          ...(chunks.length === 0 ? {} : { body: Buffer.concat(chunks) }),
        })
        const text = rewrite(await upstream.text())
        res.writeHead(upstream.status, { "content-type": upstream.headers.get("content-type") ?? "application/json" })
        res.end(text)
      })
      await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve))
      proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`
    })
    afterAll(() => new Promise<void>((resolve) => proxy.close(() => resolve())))
    return { url: () => proxyUrl }
  }

  describe("behind a proxy that drops a field of every intent record", () => {
    const proxy = rewritingProxy((body) => body.replaceAll(/"filled":(true|false),/g, ""))

    it("the record checks fail, the driver logs why, and the checks threshold fails", async () => {
      const out = await runK6Vu(dir, await bundled("reads"), { env: { BASE_URL: proxy.url(), PROFILE: "smoke", SEED: "5" }, iterations: 30 })
      const failed = new Set(out.checks.filter((c) => !c.pass).map((c) => c.name))
      expect(failed).toContain("GET /intents/{intentId}: JSON {intent}")
      expect(failed).toContain("GET /intents: JSON intents page")
      expect([...failed].every((name) => name.includes("JSON"))).toBe(true) // statuses, filters, order still fine
      expect(out.logs.length).toBeGreaterThan(0)
      expect(out.logs[0]).toMatch(/-> 200: failed .*JSON/)
      const results = evaluateThresholds((out.options as { thresholds: Record<string, string[]> }).thresholds, out.requests, out.checks, out.rates)
      expect(results.filter((r) => !r.pass).map((r) => r.metric)).toEqual(["checks"])
    })
  })

  describe("behind a proxy that answers every intent's transaction_hash as null (an intent not seen created yet)", () => {
    const proxy = rewritingProxy((body) => body.replaceAll(/"transaction_hash":"0x[0-9a-f]+"/g, '"transaction_hash":null'))

    it("setup keeps no null as a sample, so no iteration throws, and every iteration completes", async () => {
      const out = await runK6Vu(dir, await bundled("reads"), { env: { BASE_URL: proxy.url(), PROFILE: "smoke", SEED: "5" }, iterations: 60 })
      expect((out.setupData as { txHashes: unknown[] }).txHashes).toEqual([])
      expect(out.errors).toEqual([])
      expect(out.rates.filter((r) => r.metric === "iterations_completed").map((r) => r.value)).toEqual(Array.from({ length: 60 }, () => true))
    })
  })

  it("an iteration that throws is recorded as not completed, and its threshold fails the run though every check passed", async () => {
    // Setup sends 5 requests; the shim's http.request throws at the 10th, inside an iteration.
    const out = await runK6Vu(dir, await bundled("reads"), { env: { BASE_URL: world.server.url, PROFILE: "smoke", SEED: "5" }, iterations: 20, throwAtRequest: 9 })
    expect(out.errors).toEqual([expect.stringContaining("the k6 shim throws at request 9")])
    const completed = out.rates.filter((r) => r.metric === "iterations_completed").map((r) => r.value)
    expect(completed).toHaveLength(20)
    expect(completed.filter((v) => !v)).toHaveLength(1)
    expect(out.checks.every((c) => c.pass)).toBe(true)
    const results = evaluateThresholds((out.options as { thresholds: Record<string, string[]> }).thresholds, out.requests, out.checks, out.rates)
    expect(results.filter((r) => !r.pass).map((r) => r.metric)).toEqual(["iterations_completed"])
  })
})
