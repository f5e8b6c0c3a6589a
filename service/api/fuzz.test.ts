/**
 * Fuzzing the HTTP API with fast-check: 10,000+ malformed requests across every endpoint (mutated valid bodies,
 * random JSON, non-JSON and binary bodies, wrong content types, random path parameters and query strings,
 * wrong methods, JSON-RPC junk). Properties: no 5xx; every 4xx body is exactly `{ error, message }` (two
 * non-empty strings); every 2xx body is JSON; and the read model and hub are unchanged (same fingerprint).
 */
import fc from "fast-check"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { addressToBytes32, bytes32ToAddress } from "../domain/hex.ts"
import { u } from "../hub/testing.ts"
import { type ApiServer, startApiServer } from "./server.ts"
import { makeTestService } from "./testing.ts"

const t = makeTestService()
const { world } = t
const invoice = world.newIntent({ origin: 1, destinations: [10], amount: u(100) })
world.dispatch(1)
const unsupported = world.newIntent({ origin: 8453, destinations: [1], inputAsset: addressToBytes32("0x000000000000000000000000000000000000dead") })
world.dispatch(8453)
world.epoch(11)
world.process("DAI")
const DAI_1 = bytes32ToAddress(world.assetOf("DAI", 1))
const USDC_10 = bytes32ToAddress(world.assetOf("USDC", 10))

let server: ApiServer
beforeAll(async () => {
  server = await startApiServer(t.service)
})
afterAll(async () => {
  await server?.close()
})

const validIntent = { origin: "1", destinations: ["10"], to: `0x${"11".repeat(20)}`, from: `0x${"22".repeat(20)}`, inputAsset: DAI_1, amount: "1000000000000000000" }
const BODIES: Record<string, Record<string, unknown>> = {
  "/intents": validIntent,
  "/intents/": validIntent,
  "/altchain1/intents": validIntent,
  "/altchain1/create-lookup-table": { inputAsset: DAI_1, user: `0x${"11".repeat(20)}` },
  "/altchain2/intents": validIntent,
  "/routes/quotes": { origin: "10", destinations: ["1"], inputAsset: USDC_10, amount: "1000000" },
  "/routes/limits": { origin: "10", destinations: ["1"], inputAsset: USDC_10 },
  "/hub/rpc": { jsonrpc: "2.0", id: 1, method: "eth_chainId", params: [] },
}
const GET_PATHS = ["/intents", "/batched-intents", "/invoices", "/configs/assets", "/health", "/openapi.json"]
const QUERY_KEYS = [
  "cursor", "prevCursor", "limit", "statuses", "statuses[]", "origins", "origins[]", "destinations", "destinations[]", "allDestinations", "txHash",
  "userAddress", "startDate", "endDate", "isFastPath", "tickerHash", "asset", "sortOrderByDiscount", "page", "type", "domain", "x",
]

const hexString = (maxLength: number) => fc.string({ unit: fc.constantFrom(..."0123456789abcdefABCDEF".split("")), maxLength })

const junkValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string(),
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom("", "0", "-1", "0x", "0x00", `0x${"f".repeat(64)}`, "1e999", "NaN", "999999999999999999999999999999999999999999999999999999999999999999999999999999999"),
  fc.array(fc.string(), { maxLength: 12 }),
  fc.jsonValue({ maxDepth: 3 }),
)

/** A valid body with one to three fields replaced, removed, or added. */
const mutatedBody = (base: Record<string, unknown>) =>
  fc
    .array(fc.tuple(fc.constantFrom(...Object.keys(base), "extra", "amount", "destinations"), fc.oneof(junkValue, fc.constant(undefined))), { minLength: 1, maxLength: 3 })
    .map((edits) => {
      const out: Record<string, unknown> = { ...base }
      for (const [key, value] of edits) {
        if (value === undefined) delete out[key]
        else out[key] = value
      }
      return JSON.stringify(out)
    })

const rawBody = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.string({ maxLength: 200 }),
  fc.constantFrom("{", "[", '{"a":', "null", "[[[[[[[[[[]]]]]]]]]]", "\u0000", '{"origin":"1"', "{}", "[]"),
  fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
)

const pathParam = fc.oneof(
  fc.webSegment(),
  fc.constantFrom("0x", "0x12", `0x${"zz".repeat(32)}`, `0x${"ab".repeat(32)}`, `0X${"AB".repeat(32)}`, invoice.id, unsupported.id, `${invoice.id}00`, "%20", "..", "-1", "null"),
  hexString(70).map((h) => `0x${h}`),
)

const queryString = fc
  .array(fc.tuple(fc.constantFrom(...QUERY_KEYS), fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom("1", "0", "101", "true", "asc", "INVOICED", "999", invoice.id, DAI_1))), {
    maxLength: 6,
  })
  .map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&")}`))

interface FuzzRequest {
  readonly method: string
  readonly path: string
  readonly body?: string
  readonly contentType?: string
}

const postRequest: fc.Arbitrary<FuzzRequest> = fc.constantFrom(...Object.keys(BODIES)).chain((path) =>
  fc.record({
    method: fc.constant("POST"),
    path: fc.constant(path),
    body: fc.oneof(mutatedBody(BODIES[path]!), rawBody),
    contentType: fc.constantFrom("application/json", "application/json", "application/json", "text/plain", "application/x-www-form-urlencoded", "application/json; charset=utf-8"),
  }),
)

const idPostRequest: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.constant("POST"),
  path: fc.tuple(pathParam, fc.constantFrom("execute", "return-unsupported")).map(([id, action]) => `/intents/${id}/${action}`),
  body: fc.oneof(mutatedBody({ domain: "10" }), rawBody),
  contentType: fc.constant("application/json"),
})

const getRequest: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.constant("GET"),
  path: fc
    .tuple(
      fc.oneof(
        fc.constantFrom(...GET_PATHS),
        pathParam.map((id) => `/intents/${id}`),
        pathParam.map((id) => `/batched-intents/${id}`),
        pathParam.map((id) => `/invoices/${id}`),
        pathParam.map((id) => `/invoices/${id}/min-amounts`),
        pathParam.map((id) => `/history/${id}/invoice-processing`),
        fc.webPath(),
      ),
      queryString,
    )
    .map(([path, query]) => `${path}${query}`),
})

const rpcRequest: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.constant("POST"),
  path: fc.constant("/hub/rpc"),
  body: fc
    .record({
      jsonrpc: fc.oneof(fc.constant("2.0"), junkValue),
      id: junkValue,
      method: fc.oneof(
        fc.constantFrom("eth_sendRawTransaction", "eth_call", "eth_getTransactionReceipt", "eth_getTransactionCount", "eth_getBlockByNumber", "eth_chainId", "eth_estimateGas"),
        fc.string(),
      ),
      params: fc.oneof(fc.array(fc.oneof(junkValue, hexString(300).map((h) => `0x${h}`)), { maxLength: 3 }), junkValue),
    })
    .map((r) => JSON.stringify(r)),
  contentType: fc.constant("application/json"),
})

const wrongMethod: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.constantFrom("PUT", "DELETE", "PATCH", "GET", "POST"),
  path: fc.constantFrom("/intents/x/execute", "/routes/quotes", "/routes/limits", "/health", "/hub/rpc", "/altchain1/intents", "/configs/assets", "/docs"),
  body: rawBody,
  contentType: fc.constant("application/json"),
})

const anyRequest = fc.oneof(
  { arbitrary: postRequest, weight: 5 },
  { arbitrary: idPostRequest, weight: 2 },
  { arbitrary: getRequest, weight: 4 },
  { arbitrary: rpcRequest, weight: 2 },
  { arbitrary: wrongMethod, weight: 1 },
)

const send = async (r: FuzzRequest) => {
  const init: RequestInit = { method: r.method }
  if (r.body !== undefined && r.method !== "GET") {
    init.body = r.body
    init.headers = { "content-type": r.contentType ?? "application/json" }
  }
  const response = await fetch(`${server.url}${r.path}`, init)
  return { status: response.status, text: await response.text(), contentType: response.headers.get("content-type") }
}

describe("fuzzing every endpoint", () => {
  it("10,000 malformed requests: no 5xx, every 4xx is exactly { error, message }, nothing changes", async () => {
    const before = world.model.fingerprint()
    const statuses = new Map<number, number>()
    await fc.assert(
      fc.asyncProperty(anyRequest, async (r) => {
        const res = await send(r)
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
        expect(res.status, `${r.method} ${r.path} ${r.body ?? ""}`).toBeLessThan(500)
        if (res.status >= 400) {
          const body = JSON.parse(res.text) as Record<string, unknown>
          expect(Object.keys(body).sort(), res.text).toEqual(["error", "message"])
          expect(typeof body.error === "string" && body.error.length > 0).toBe(true)
          expect(typeof body.message === "string" && body.message.length > 0).toBe(true)
        } else if (res.status === 204) {
          // A JSON-RPC notification (a request without an id; junk ids include none) is answered with nothing.
          expect([r.path, res.text]).toEqual(["/hub/rpc", ""])
        } else if (!r.path.startsWith("/docs")) {
          expect(() => JSON.parse(res.text)).not.toThrow()
        }
      }),
      { numRuns: 10_000, seed: 20261122 },
    )
    expect(world.model.fingerprint()).toBe(before)
    // The mix reached both outcomes and the main error classes.
    expect(statuses.get(200) ?? 0).toBeGreaterThan(100)
    expect(statuses.get(400) ?? 0).toBeGreaterThan(2000)
    expect(statuses.get(404) ?? 0).toBeGreaterThan(100)
    expect(statuses.get(415) ?? 0).toBeGreaterThan(50)
  }, 300_000)
})
