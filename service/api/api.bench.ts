/**
 * HTTP benchmark of the API, each endpoint beside a raw `node:http` hello-world measured in the same run:
 * GET /intents/{id}, GET /invoices, POST /routes/quotes, POST /intents with one intent and with an order of 10 (a
 * JSON array body) (the server's defaults: the two GETs answered by the `fastReads` lane), and the two GETs again
 * with `fastReads: false` (through effect's HttpApi pipeline alone). Run: `npm run bench -- api` (or
 * `node --import tsx service/api/api.bench.ts`); environment: API_BENCH_SECONDS (default 5), API_BENCH_ROUNDS
 * (default 3), API_BENCH_CONNECTIONS (default 10), API_BENCH_LOADGEN (`wrk` when it is on PATH, else
 * `autocannon`), API_BENCH_FLOORS (1).
 *
 * Load generator: wrk (Debian's `wrk` package; C, a fraction of the CPU per request) pinned to core 0 with the
 * servers pinned to core 1 (`taskset`), so that each server gets one whole core and the ratio to the raw
 * server measures the servers, not the generator; autocannon (Node) is the fallback, and then generator and
 * server share the two cores. Each server runs in its own child process; rounds alternate raw and API so that
 * drifting load on the machine hits both; the figures are medians of the rounds. The world behind the API:
 * 10,000 intents, 2,000 of them open invoices (so pages and lookups are not trivially small). Two more rows
 * give effect's own floor on the same machine: a hello-world on the bare HttpRouter and on a one-endpoint
 * HttpApi. Server CPU per request comes from /proc (Linux).
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import autocannon from "autocannon"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Schema from "effect/Schema"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiEndpoint, HttpApiGroup } from "effect/http-api"
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { typeScriptLoader } from "../../bench/typeScriptLoader.ts"

const mode = process.argv[2]

const serveRaw = () => {
  const server = createServer((_request, response) => {
    response.end("hello")
  })
  server.listen(0, "127.0.0.1", () => console.log(`URL http://127.0.0.1:${(server.address() as AddressInfo).port}`))
}

/** Framework floors: a hello-world on effect's bare HttpRouter, and on a one-endpoint HttpApi. */
const serveFloor = async (kind: "router" | "httpapi") => {
  const hello = HttpServerResponse.text("hello")
  const Api = HttpApi.make("floor").add(HttpApiGroup.make("g").add(HttpApiEndpoint.get("hello", "/", { success: Schema.String })))
  const app =
    kind === "router"
      ? HttpRouter.add("GET", "/", Effect.succeed(hello))
      : HttpApiBuilder.layer(Api).pipe(Layer.provide(HttpApiBuilder.group(Api, "g", (h) => h.handle("hello", () => Effect.succeed(hello)))))
  const server = createServer()
  const runtime = ManagedRuntime.make(
    HttpRouter.serve(app, { disableLogger: true, disableListenLog: true }).pipe(Layer.provide(NodeHttpServer.layer(() => server, { port: 0, host: "127.0.0.1" }))),
  )
  await runtime.runPromise(Effect.void)
  console.log(`URL http://127.0.0.1:${(server.address() as AddressInfo).port}`)
}

const serveApi = async () => {
  const { u } = await import("../hub/testing.ts")
  const { makeTestService } = await import("./testing.ts")
  const { startApiServer } = await import("./server.ts")
  const { world, service } = makeTestService()
  const ids: string[] = []
  // 2,000 DAI intents 1→10 in one epoch: the first becomes an invoice, the rest deposits that become invoices
  // when the epoch closes (no liquidity on 10).
  for (let i = 0; i < 2000; i++) ids.push(world.newIntent({ origin: 1, destinations: [10], amount: u(1 + (i % 50)) }).id)
  world.dispatch(1)
  // 8,000 more across routes and tickers, dispatched in batches of 100.
  for (let i = 0; i < 8000; i++) {
    const origin = [10, 8453, 1][i % 3]!
    ids.push(world.newIntent({ origin, destinations: [origin === 1 ? 10 : 1], amount: u(1 + (i % 97)) }).id)
    if (i % 100 === 99) world.dispatch(origin)
  }
  for (const d of [1, 10, 8453]) world.dispatch(d)
  world.epoch(11)
  world.process("DAI")
  const server = await startApiServer(service)
  const plain = await startApiServer(service, { fastReads: false })
  console.log(`URL ${server.url}`)
  console.log(`PLAINURL ${plain.url}`)
  console.log(`IDS ${JSON.stringify(ids.filter((_, i) => i % 97 === 0))}`)
  console.log(`INVOICES ${world.model.invoices.size}`)
}

interface Child {
  readonly process: ChildProcess
  readonly url: string
  readonly lines: Map<string, string>
}

const onPath = (command: string): boolean => spawnSync("sh", ["-c", `command -v ${command}`]).status === 0
const loadgen = (process.env.API_BENCH_LOADGEN ?? (onPath("wrk") ? "wrk" : "autocannon")) as "wrk" | "autocannon"
if (loadgen !== "wrk" && loadgen !== "autocannon") throw new Error(`API_BENCH_LOADGEN must be wrk or autocannon, not ${String(loadgen)}`)
/** Pinning needs taskset and two cores; then servers run on core 1 and wrk on core 0. */
const pin = loadgen === "wrk" && onPath("taskset")

const startChild = (childMode: string): Promise<Child> =>
  new Promise((resolve, reject) => {
    const node = [process.execPath, ...typeScriptLoader, import.meta.filename, childMode]
    const command = pin ? ["taskset", "-c", "1", ...node] : node
    const child = spawn(command[0]!, command.slice(1), { stdio: ["ignore", "pipe", "inherit"] })
    const lines = new Map<string, string>()
    let buffer = ""
    child.stdout!.on("data", (chunk: Buffer) => {
      buffer += chunk.toString()
      let nl: number
      while ((nl = buffer.indexOf("\n")) >= 0) {
        const line = buffer.slice(0, nl)
        buffer = buffer.slice(nl + 1)
        const space = line.indexOf(" ")
        lines.set(line.slice(0, space), line.slice(space + 1))
        if (line.startsWith("URL ") && childMode !== "api") resolve({ process: child, url: line.slice(4), lines })
        if (line.startsWith("INVOICES ")) resolve({ process: child, url: lines.get("URL")!, lines })
      }
    })
    child.on("exit", (code) => reject(new Error(`${childMode} server exited with ${code}`)))
  })

interface Target {
  readonly name: string
  /** Measured on this server instead of the API (the framework floors). */
  readonly server?: Child
  readonly method: "GET" | "POST"
  readonly path: (i: number) => string
  readonly body?: string
}

/** CPU seconds (user + system) a process has used, from /proc (Linux); undefined elsewhere. */
const cpuSeconds = (pid: number | undefined): number | undefined => {
  if (pid === undefined || !existsSync(`/proc/${pid}/stat`)) return undefined
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  return (Number(fields[11]) + Number(fields[12])) / 100
}

interface Measurement {
  readonly rps: number
  readonly p99: number
  readonly errors: number
  /** Server CPU time per request, µs. */
  readonly cpuMicros: number | undefined
}

/** wrk's Lua scripts, in a directory made when the first is written (the servers' processes write none), removed at the end. */
let scripts: string | undefined
const luaString = (text: string): string => JSON.stringify(text)

/** A wrk Lua script for `target`: its method, body and paths (the first 1,000, cycled). */
const wrkScript = (target: Target | undefined): string => {
  scripts ??= mkdtempSync(join(tmpdir(), "clearsim-wrk-"))
  const file = join(scripts, `${(target?.name ?? "raw").replace(/[^a-z0-9]+/gi, "_")}.lua`)
  const paths = Array.from({ length: 1000 }, (_, i) => target?.path(i) ?? "/")
  const lines = [
    `wrk.method = ${luaString(target?.method ?? "GET")}`,
    ...(target?.body === undefined ? [] : [`wrk.body = ${luaString(target.body)}`, `wrk.headers["Content-Type"] = "application/json"`]),
    `local paths = { ${paths.map(luaString).join(", ")} }`,
    "local i = 0",
    "request = function()",
    "  i = i % #paths + 1",
    "  return wrk.format(nil, paths[i])",
    "end",
  ]
  writeFileSync(file, `${lines.join("\n")}\n`)
  return file
}

const wrkMillis = (text: string): number => {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text)
  if (m === null) return Number.NaN
  return Number(m[1]) * (m[2] === "us" ? 0.001 : m[2] === "ms" ? 1 : 1000)
}

/** Runs wrk and reads requests/s, p99 latency (ms) and errors from its report. */
const runWrk = (url: string, target: Target | undefined, seconds: number, connections: number): Promise<{ rps: number; p99: number; errors: number; total: number }> =>
  new Promise((resolve, reject) => {
    const args = ["-t1", `-c${connections}`, `-d${seconds}s`, "--latency", "-s", wrkScript(target), url]
    const command = pin ? ["taskset", "-c", "0", "wrk", ...args] : ["wrk", ...args]
    execFile(command[0]!, command.slice(1), (error, stdout) => {
      if (error) return reject(error)
      const rps = /Requests\/sec:\s+([\d.]+)/.exec(stdout)
      const total = /(\d+) requests in/.exec(stdout)
      const p99 = /\s99%\s+(\S+)/.exec(stdout)
      if (rps === null || total === null || p99 === null) return reject(new Error(`unexpected wrk output:\n${stdout}`))
      const non2xx = Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0)
      const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout)
      const socketErrors = socket === null ? 0 : socket.slice(1).reduce((sum, n) => sum + Number(n), 0)
      resolve({ rps: Number(rps[1]), p99: wrkMillis(p99[1]!), errors: non2xx + socketErrors, total: Number(total[1]) })
    })
  })

const measure = async (server: Child, target: Target | undefined, seconds: number, connections: number): Promise<Measurement> => {
  const url = server.url
  const cpuBefore = cpuSeconds(server.process.pid)
  if (loadgen === "wrk") {
    const result = await runWrk(url, target, seconds, connections)
    const cpuAfter = cpuSeconds(server.process.pid)
    const cpuMicros = cpuBefore === undefined || cpuAfter === undefined ? undefined : ((cpuAfter - cpuBefore) * 1e6) / result.total
    return { rps: result.rps, p99: result.p99, errors: result.errors, cpuMicros }
  }
  let n = 0
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    ...(target === undefined
      ? {}
      : {
          requests: [
            {
              method: target.method,
              ...(target.body === undefined ? {} : { body: target.body, headers: { "content-type": "application/json" } }),
              setupRequest: (request: { path: string }) => ({ ...request, path: target.path(n++) }),
            },
          ],
        }),
  })
  const cpuAfter = cpuSeconds(server.process.pid)
  const cpuMicros = cpuBefore === undefined || cpuAfter === undefined ? undefined : ((cpuAfter - cpuBefore) * 1e6) / result.requests.total
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx, cpuMicros }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const main = async () => {
  const seconds = Number(process.env.API_BENCH_SECONDS ?? 5)
  const rounds = Number(process.env.API_BENCH_ROUNDS ?? 3)
  const connections = Number(process.env.API_BENCH_CONNECTIONS ?? 10)
  const raw = await startChild("raw")
  const api = await startChild("api")
  const floors = process.env.API_BENCH_FLOORS === "0" ? [] : [await startChild("router"), await startChild("httpapi")]
  const ids = JSON.parse(api.lines.get("IDS")!) as string[]
  const dai1 = "0x00000000000000000000000000000000000000d1"
  const usdc10 = "0x00000000000000000000000000000000000000c2"
  const targets: Target[] = [
    { name: "GET /intents/{id}", method: "GET", path: (i) => `/intents/${ids[i % ids.length]}` },
    { name: "GET /invoices", method: "GET", path: () => "/invoices" },
    {
      name: "POST /routes/quotes",
      method: "POST",
      path: () => "/routes/quotes",
      body: JSON.stringify({ origin: "10", destinations: ["1"], inputAsset: usdc10, amount: "250000000" }),
    },
    {
      name: "POST /intents",
      method: "POST",
      path: () => "/intents",
      body: JSON.stringify({ origin: "1", destinations: ["10"], to: `0x${"11".repeat(20)}`, from: `0x${"22".repeat(20)}`, inputAsset: dai1, amount: "1000000000000000000000", callData: "0x" }),
    },
    {
      // A JSON array body: the path that checks an array's length before HttpApi decodes it.
      name: "POST /intents, an order of 10",
      method: "POST",
      path: () => "/intents",
      body: JSON.stringify(
        Array.from({ length: 10 }, (_, i) => ({ origin: "1", destinations: ["10"], to: `0x${"11".repeat(20)}`, from: `0x${"22".repeat(20)}`, inputAsset: dai1, amount: `${i + 1}000000000000000000000`, callData: "0x" })),
      ),
    },
  ]
  const apiPlain: Child = { process: api.process, url: api.lines.get("PLAINURL")!, lines: api.lines }
  targets.push(
    { name: "GET /intents/{id}, HttpApi only", method: "GET", path: (i) => `/intents/${ids[i % ids.length]}`, server: apiPlain },
    { name: "GET /invoices, HttpApi only", method: "GET", path: () => "/invoices", server: apiPlain },
  )
  if (floors.length === 2) {
    targets.push(
      { name: "floor: effect HttpRouter, GET hello", method: "GET", path: () => "/", server: floors[0]! },
      { name: "floor: effect HttpApi, GET hello", method: "GET", path: () => "/", server: floors[1]! },
    )
  }
  // Warm-up: JIT of both servers and of the client.
  await measure(raw, undefined, 2, connections)
  for (const target of targets) await measure(target.server ?? api, target, 2, connections)
  const rows: Record<string, string | number>[] = []
  for (const target of targets) {
    const rawRps: number[] = []
    const rawCpu: number[] = []
    const apiRps: number[] = []
    const apiP99: number[] = []
    const apiCpu: number[] = []
    let errors = 0
    for (let round = 0; round < rounds; round++) {
      const rawRound = await measure(raw, undefined, seconds, connections)
      rawRps.push(rawRound.rps)
      if (rawRound.cpuMicros !== undefined) rawCpu.push(rawRound.cpuMicros)
      const r = await measure(target.server ?? api, target, seconds, connections)
      apiRps.push(r.rps)
      apiP99.push(r.p99)
      if (r.cpuMicros !== undefined) apiCpu.push(r.cpuMicros)
      errors += r.errors
    }
    const cpu = (values: number[]) => (values.length === 0 ? "-" : Math.round(median(values) * 10) / 10)
    const row = {
      endpoint: target.name,
      "raw req/s": Math.round(median(rawRps)),
      "api req/s": Math.round(median(apiRps)),
      ratio: Math.round((median(apiRps) / median(rawRps)) * 100) / 100,
      "api p99 ms": median(apiP99),
      "raw cpu µs/req": cpu(rawCpu),
      "api cpu µs/req": cpu(apiCpu),
      errors,
      rounds: apiRps.map(Math.round).join(" / "),
    }
    rows.push(row)
    console.log(JSON.stringify(row))
  }
  console.log(`load generator: ${loadgen}${pin ? " on core 0, servers on core 1 (taskset)" : " sharing the cores with the servers"}, Node ${process.version}`)
  console.table(rows)
  for (const child of [raw, api, ...floors]) child.process.kill()
}

if (mode === "raw") serveRaw()
else if (mode === "api") await serveApi()
else if (mode === "router" || mode === "httpapi") await serveFloor(mode)
else {
  try {
    await main()
  } finally {
    if (scripts !== undefined) rmSync(scripts, { recursive: true, force: true })
  }
}
