/**
 * The HTTP server: the HttpApi routes with their handlers, `/openapi.json` (generated from the same definition),
 * `/docs` (Scalar, its script bundled in effect: no network), and the error policy:
 * - request decoding failures → 400 `{ error: "InvalidRequest" | "InvalidIntentId" | ..., message }` naming
 *   the field and what was expected (the `ApiErrors` middleware; effect's ProblemDetails shape is not used);
 * - unknown routes → 404, bodies too large → 413, unsupported content types → 415, all `{ error, message }`;
 * - anything else is a fault: logged with a request id, answered 500 `{ error: "InternalError", message }`
 *   carrying that id.
 * `startApiServer` listens on a port (0 = ephemeral) and returns the URL and `close()`; its node request listener
 * hands every request to the HttpApi routes, after a fast lane for the two hottest reads (`fastReads`, on by
 * default).
 */
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as ByteSize from "effect/ByteSize"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as SchemaIssue from "effect/SchemaIssue"
import * as Scope from "effect/Scope"
import { HttpIncomingMessage, HttpRouter, HttpServerError, HttpServerRequest, HttpServerResponse } from "effect/http"
import { HttpApi, HttpApiBuilder, HttpApiError, HttpApiMiddleware, HttpApiScalar } from "effect/http-api"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import type { Duplex } from "node:stream"
import { ApiErrors, ClearingApi } from "./api.ts"
import { AssetsQuery, BatchesQuery, HistoryQuery, IntentsQuery, InvoicesQuery } from "./schemas.ts"
import { BadRequest, DEFAULT_MAX_BODY_BYTES, MAX_BODY_ARRAY_ITEMS, REFUSAL_CODES } from "./errors.ts"
import { HandlersLive } from "./handlers.ts"
import { jsonArrayLength, jsonLongestArray, pathOfLongArray } from "./parse.ts"
import { formatLeafHook, missingKeysExpected, unionsAsLeaves } from "../domain/schemas.ts"
import { Clearing, type ClearingDeps, ClearingService } from "./service.ts"

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({ leafHook: formatLeafHook })

const SLOT: Record<string, string> = { Params: "path", Query: "query", Payload: "body", Headers: "header" }

const pathText = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((out, key) => (typeof key === "number" ? `${out}[${key}]` : out === "" ? String(key) : `${out}.${String(key)}`), "")

/** Query fields whose failures have their own code (the code the service gives the same field's other failures). */
const QUERY_CODES: Readonly<Record<string, string>> = { cursor: "InvalidCursor", prevCursor: "InvalidCursor", limit: "InvalidLimit", page: "InvalidPage", domain: "InvalidDomain" }

/** A request-decoding failure as `{ error, message }`: every issue with its field, capped in length. */
export const toBadRequest = (error: HttpApiError.HttpApiSchemaError): BadRequest => {
  const slot = SLOT[error.kind] ?? error.kind.toLowerCase()
  const all = formatter(unionsAsLeaves(missingKeysExpected(error.cause.issue))).issues.map((i) => {
    const path = pathText((i.path ?? []).map((p) => (typeof p === "object" && p !== null && "key" in p ? p.key : p) as PropertyKey))
    // Bodies are decoded strictly (`onExcessProperty: "error"`, api.ts): a field no endpoint field matches is named.
    const message = i.message.startsWith("Missing key") ? `required, but missing${i.message.slice("Missing key".length)}` : i.message.startsWith("Unexpected key") ? `not a field of this body (a typo?)${i.message.slice("Unexpected key".length).replace(/^ with value/, ", got")}` : i.message
    // A null field that is not optional (optional body fields take null for absent): said so, beside what it takes.
    const last = i.path?.[i.path.length - 1]
    const key = typeof last === "object" && last !== null && "key" in last ? last.key : last
    const required = error.kind === "Payload" && typeof key === "string" && message.endsWith(", got null") ? `${message}: the field is required (null is taken as absent only for optional fields)` : message
    // A query parameter given twice reaches a field of one value as a list: said so, without the "as a string" every query value is.
    const repeated = error.kind === "Query" ? /^(Expected .*?)(?:,? as a string)?(, got \[.*\])$/su.exec(required) : null
    const text = repeated === null || repeated[1]!.includes("an array") ? required : `${repeated[1]}${repeated[2]}: the parameter is given more than once`
    return { path, message: text.length > 200 ? `${text.slice(0, 197)}...` : text }
  })
  // An integer past 2^53 - 1 fails as "not an integer" beside its range check, which says more: one line per field.
  // Checks that tell their failures alike (a fraction or a value out of range, "a ttl in seconds (uint48)") say it once.
  // Linear in the issues (a body may hold 100,000 bad array items): seen by path and message, then the distinct
  // messages counted by path, so that "not an integer" goes only beside another message (two union members that both
  // said it, alone at their path, are told once, not dropped together, leaving "Invalid request. .").
  const seen = new Set<string>()
  const distinct = all.filter((issue) => {
    const key = `${issue.path}\u0000${issue.message}`
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
  const perPath = new Map<string, number>()
  for (const issue of distinct) perPath.set(issue.path, (perPath.get(issue.path) ?? 0) + 1)
  const issues = distinct.filter((issue) => !(/^Expected an integer(, got |$)/.test(issue.message) && perPath.get(issue.path)! > 1))
  const first = issues[0]?.path ?? ""
  // The same code for a field whatever refused it, the schema or the service (a cursor is InvalidCursor either way).
  const code =
    error.kind === "Params" && first === "intentId"
      ? "InvalidIntentId"
      : error.kind === "Params" && first === "batchId"
        ? "InvalidBatchId"
        : error.kind === "Query"
          ? (QUERY_CODES[first] ?? "InvalidRequest")
          : "InvalidRequest"
  const described = issues.slice(0, 5).map((i) => (i.path === "" ? `${slot}: ${i.message}` : `${slot} ${i.path}: ${i.message}`))
  const more = issues.length > 5 ? `; and ${issues.length - 5} more` : ""
  return new BadRequest({ error: code, message: `Invalid request. ${described.join("; ")}${more}.` })
}

/** Request-decoding failures become `BadRequest`; response-encoding failures stay faults (500). */
export const ApiErrorsLive = HttpApiMiddleware.layerSchemaErrorTransform(ApiErrors, (error) =>
  error.kind === "Body" || error.kind === "ResponseHeaders" ? Effect.die(error) : Effect.fail(toBadRequest(error)),
)

const problem = (status: number, error: string, message: string, requestId?: string) =>
  HttpServerResponse.jsonUnsafe({ error, message }, { status, ...(requestId === undefined ? {} : { headers: { "x-request-id": requestId } }) })

const STATUS_CODES: Record<number, string> = REFUSAL_CODES

/** Every endpoint's path (as a pattern, `:param` a segment) and method, from the API's definition, plus the docs. */
const ROUTES: readonly { readonly path: RegExp; readonly method: string }[] = (() => {
  const routes: { path: RegExp; method: string }[] = [
    { path: /^\/docs$/i, method: "GET" },
    { path: /^\/openapi\.json$/i, method: "GET" },
  ]
  HttpApi.reflect(ClearingApi, {
    onGroup: () => {},
    onEndpoint: ({ endpoint }) => {
      const pattern = endpoint.path.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/:[A-Za-z]+/g, "[^/]+")
      routes.push({ path: new RegExp(`^${pattern}$`, "i"), method: endpoint.method })
    },
  })
  return routes
})()

/** The paths of the POST endpoints (their bodies are read). */
const POST_ROUTES: readonly RegExp[] = ROUTES.filter((r) => r.method === "POST").map((r) => r.path)

/** A request's path as the router matches it (with the ROUTES and QUERY_KEYS patterns, any case): repeated slashes as one, no `;` parameters. */
const routerPath = (url: string): string => url.split("?")[0]!.replace(/\/{2,}/g, "/").replace(/;[^/]*/g, "")

/**
 * A request no endpoint answers, on a path some endpoint answers with another method: 405 with `Allow` (GET
 * implies HEAD) instead of 404. Undefined when no endpoint has the path.
 */
const methodNotAllowed = (method: string, url: string): HttpServerResponse.HttpServerResponse | undefined => {
  const path = routerPath(url)
  const methods = [...new Set(ROUTES.filter((r) => r.path.test(path)).map((r) => r.method))]
  if (methods.length === 0 || methods.includes(method)) return undefined
  const allow = [...methods, ...(methods.includes("GET") ? ["HEAD"] : [])].join(", ")
  return HttpServerResponse.jsonUnsafe(
    { error: "MethodNotAllowed", message: `${method} ${path} is not answered: this path takes ${allow}.` },
    { status: 405, headers: { allow } },
  )
}

/** The query parameters each list endpoint takes (their schemas' keys): any other is refused, not ignored. */
const QUERY_KEYS: readonly (readonly [RegExp, string, ReadonlySet<string>])[] = [
  [/^\/intents$/i, "GET /intents", new Set(Object.keys(IntentsQuery))],
  [/^\/invoices$/i, "GET /invoices", new Set(Object.keys(InvoicesQuery))],
  [/^\/batched-intents$/i, "GET /batched-intents", new Set(Object.keys(BatchesQuery))],
  [/^\/configs\/assets$/i, "GET /configs/assets", new Set(Object.keys(AssetsQuery))],
  [/^\/history\/[^/]+\/invoice-processing$/i, "GET /history/{intentId}/invoice-processing", new Set(Object.keys(HistoryQuery))],
]

/**
 * A query parameter the endpoint does not take (`status` for `statuses`, say): a 400 naming it and the ones it
 * takes, instead of an answer that silently ignored it. Undefined when every parameter is known.
 */
const unknownParameter = (method: string, url: string): HttpServerResponse.HttpServerResponse | undefined => {
  const q = url.indexOf("?")
  if ((method !== "GET" && method !== "HEAD") || q < 0) return undefined
  const path = routerPath(url)
  const endpoint = QUERY_KEYS.find(([re]) => re.test(path))
  if (endpoint === undefined) return undefined
  for (const key of new URLSearchParams(url.slice(q + 1)).keys()) {
    if (!endpoint[2].has(key)) return problem(400, "UnknownParameter", `query: ${endpoint[1]} takes no parameter ${JSON.stringify(key)} (it takes ${[...endpoint[2]].join(", ")}).`)
  }
  return undefined
}

/**
 * A POST whose JSON body is, or holds, an array of more than `MAX_BODY_ARRAY_ITEMS` items, refused before HttpApi
 * decodes it: the decoder checks an array's length only after every item, with every issue reported, so that 1 MB of
 * empty objects took 17 s of the event loop (every other request waiting) to be refused as an order of over 100
 * intents, and 500,000 zeros as `destinations` 5 s (no field takes more than 100 items). A JSON-RPC batch gets a
 * JSON-RPC error, as geth refuses a batch over its limit. Undefined for any other request.
 * The body is read once (HttpApi reuses the bytes) and parsed once: its items are counted on the bytes
 * (`jsonArrayLength`, `jsonLongestArray`: no text decoded, no value built), and only a body counted over the limit is parsed here, to
 * refuse well-formed JSON alone and with its exact length; every other body is parsed by HttpApi alone. (A
 * malformed body counted over the limit fails to parse here and gets HttpApi's answer, as any malformed body.)
 */
const oversizedArray = (request: HttpServerRequest.HttpServerRequest): Effect.Effect<HttpServerResponse.HttpServerResponse | undefined, unknown> => {
  if (request.method !== "POST") return Effect.succeed(undefined)
  // As HttpApi reads the content type (absent: JSON); another type is its 415.
  const type = (request.headers["content-type"] ?? "application/json").split(";")[0]!.trim().toLowerCase()
  if (type !== "application/json") return Effect.succeed(undefined)
  // Only where an endpoint reads the body: an unknown path stays a 404, another method a 405, whatever the body.
  const path = routerPath(request.url)
  if (!POST_ROUTES.some((route) => route.test(path))) return Effect.succeed(undefined)
  // The hub's JSON-RPC decodes nothing item by item: only its batch (the body itself) is bounded.
  const rpc = /^\/hub\/rpc$/i.test(path)
  return Effect.flatMap(request.arrayBuffer, (buffer) => {
    const bytes = new Uint8Array(buffer)
    const counted = rpc ? jsonArrayLength(bytes) : jsonLongestArray(bytes)
    if (counted === undefined || counted <= MAX_BODY_ARRAY_ITEMS) return Effect.succeed(undefined)
    return Effect.map(request.text, (text) => {
      let body: unknown
      try {
        body = JSON.parse(text)
      } catch {
        return undefined // HttpApi answers the malformed JSON
      }
      if (rpc) {
        if (!Array.isArray(body) || body.length <= MAX_BODY_ARRAY_ITEMS) return undefined
        return HttpServerResponse.jsonUnsafe({ jsonrpc: "2.0", id: null, error: { code: -32600, message: `Invalid request: a batch of at most ${MAX_BODY_ARRAY_ITEMS} requests, got ${body.length}` } })
      }
      const long = pathOfLongArray(body, MAX_BODY_ARRAY_ITEMS)
      if (long === undefined) return undefined
      return problem(400, "InvalidRequest", `Invalid request. body${long.path === "" ? "" : ` ${long.path}`}: expected an array of at most ${MAX_BODY_ARRAY_ITEMS} items, got ${long.length}.`)
    })
  })
}

/** The message of a 413: the limit, when known. */
const tooLargeMessage = (maxBody: ByteSize.ByteSize | number | undefined): string =>
  `The request body is too large${maxBody === undefined ? "" : ` (at most ${String(maxBody)} bytes)`}.`

/** Whether `path`'s percent-escapes decode (each % and two hex digits, of well-formed UTF-8). */
const decodesAsUri = (path: string): boolean => {
  try {
    decodeURIComponent(path)
    return true
  } catch {
    return false
  }
}

/**
 * The error policy for every route (global router middleware). Request ids are a counter: deterministic, and
 * only spent on failures.
 */
export const ErrorPolicyLive = (() => {
  let failures = 0
  return HttpRouter.middleware(
    (httpEffect) =>
      Effect.catchCause(
        Effect.flatMap(HttpServerRequest.HttpServerRequest, (request) => {
          const refused = unknownParameter(request.method, request.url)
          const checked = refused === undefined ? Effect.flatMap(oversizedArray(request), (tooMany) => (tooMany === undefined ? httpEffect : Effect.succeed(tooMany))) : Effect.succeed(refused)
          return checked.pipe(
            Effect.map((response) => {
              // The hub's JSON-RPC takes any JSON (its errors are JSON-RPC errors): a 400 there is a body that is not JSON.
              if (response.status === 400 && request.method === "POST" && /^\/hub\/rpc$/i.test(routerPath(request.url))) {
                return HttpServerResponse.jsonUnsafe({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error: the request body is not valid JSON" } })
              }
              // A few 4xx responses come from the HTTP layer with a text or empty body: give them the API's shape.
              if (response.status < 400 || response.status >= 500 || response.headers["content-type"]?.startsWith("application/json")) return response
              const code = STATUS_CODES[response.status] ?? "InvalidRequest"
              return problem(response.status, code, code === "UnsupportedMediaType" ? "The request body must be application/json." : `The request was refused (${response.status}).`)
            }),
          )
        }),
        (cause) =>
          Effect.gen(function* () {
            if (Cause.hasInterruptsOnly(cause)) return yield* Effect.failCause(cause)
            const request = yield* HttpServerRequest.HttpServerRequest
            const maxBody = yield* HttpIncomingMessage.MaxBodySize
            const tooLarge = tooLargeMessage(maxBody)
            const failure = Cause.squash(cause)
            if (HttpServerError.isHttpServerError(failure)) {
              const reason = failure.reason
              if (reason._tag === "RouteNotFound") {
                const path = request.url.split("?")[0]!
                // A path the router cannot decode (`/intents/%zz`) matches no route, but it is the request that is wrong.
                if (!decodesAsUri(path)) return problem(400, "InvalidRequest", `The request path ${path} has a malformed percent-escape (expected % and two hex digits, of UTF-8 bytes).`)
                return methodNotAllowed(request.method, request.url) ?? problem(404, "RouteNotFound", `No endpoint answers ${request.method} ${path}.`)
              }
              if (reason._tag === "RequestParseError") {
                return reason.reason === "BodyTooLarge"
                  ? problem(413, "PayloadTooLarge", tooLarge)
                  : problem(400, "InvalidRequest", `The request could not be read: ${reason.description ?? "malformed request"}.`)
              }
            }
            if (HttpApiError.HttpApiPayloadTooLarge.is(failure)) return problem(413, "PayloadTooLarge", tooLarge)
            const requestId = `req-${++failures}`
            yield* Effect.logError(`${requestId} ${request.method} ${request.url} failed`, Cause.pretty(cause))
            return problem(500, "InternalError", `Internal error; it was logged with request id ${requestId}.`, requestId)
          }),
      ),
    { global: true },
  )
})()

/** The routes of the API (no server): handlers, OpenAPI, docs and the error policy. Requires `Clearing`. */
export const ApiRoutesLive = Layer.mergeAll(
  HttpApiBuilder.layer(ClearingApi, { openapiPath: "/openapi.json" }).pipe(Layer.provide(HandlersLive), Layer.provide(ApiErrorsLive)),
  HttpApiScalar.layer(ClearingApi, { path: "/docs" }),
  ErrorPolicyLive,
)

export interface ApiServerOptions {
  /** Default 0 (an ephemeral port). */
  readonly port?: number
  /** Default 127.0.0.1. */
  readonly host?: string
  /** Largest request body read; larger ones get 413. Default 1 MB. */
  readonly maxBodyBytes?: number
  /**
   * Answer the two hottest reads, `GET /intents/{intentId}` and `GET /invoices` (no query), straight from the
   * node request listener with the same `ClearingService` operations and their cached JSON, before effect's
   * request pipeline; any other request, and any of these that fails (400, 404), goes through HttpApi as usual.
   * Same status, headers that matter and bytes (tested), about 60 % of the CPU per request (see the API
   * README, Performance). Default true; false sends every request through HttpApi.
   */
  readonly fastReads?: boolean
}

export interface ApiServer {
  /** `http://host:port` (an IPv6 host in brackets) */
  readonly url: string
  readonly port: number
  readonly service: ClearingService
  readonly close: () => Promise<void>
}

const INTENT_PATH_LENGTH = "/intents/".length + 66

/**
 * UTF-8 bodies of the fast lane by their JSON text. The read model caches each response's JSON string until
 * the record changes, so the same string object comes back and its bytes are encoded once (V8 keeps a
 * string's hash in the string). Bounded: cleared when full.
 */
class BodyCache {
  private readonly bodies = new Map<string, Buffer>()
  private readonly limit: number
  constructor(limit: number) {
    this.limit = limit
  }

  bytes(json: string): Buffer {
    let body = this.bodies.get(json)
    if (body === undefined) {
      body = Buffer.from(json)
      if (this.bodies.size >= this.limit) this.bodies.clear()
      this.bodies.set(json, body)
    }
    return body
  }
}

/** The fast lane of `fastReads`: true when it answered (only successes; failures take the HttpApi route). */
const answerFastRead = (clearing: ClearingService, cache: BodyCache, request: IncomingMessage, response: ServerResponse): boolean => {
  if (request.method !== "GET") return false
  const url = request.url ?? ""
  let json: string | undefined
  try {
    if (url.length === INTENT_PATH_LENGTH && url.startsWith("/intents/0x")) json = clearing.intentJsonIfKnown(url.slice(9))
    else if (url === "/invoices") json = clearing.defaultInvoicesJson()
  } catch {
    // A fault: HttpApi asks again and answers it as every fault (500 with a request id, logged). Thrown from the
    // request listener it would be an uncaught exception, ending the process.
    return false
  }
  if (json === undefined) return false
  const body = cache.bytes(json)
  response.writeHead(200, ["content-type", "application/json", "content-length", String(body.length)])
  response.end(body)
  return true
}

/**
 * A POST to an endpoint whose declared `Content-Length` is over `maxBodyBytes`: answered 413 at once, from the
 * header, and the connection closed, without reading the body. Effect's body reader refuses it only once the
 * bytes arrive, so a client that declared 5 MB and sent less waited for Node's request timeout (5 min) for its 413,
 * and one that sent `Expect: 100-continue` was told to go on and send what would be refused. Another path or method
 * keeps its own answer (404, 405), as for a body sent in full. True when it answered.
 */
const refuseDeclaredTooLarge = (request: IncomingMessage, response: ServerResponse, maxBodyBytes: number): boolean => {
  const declared = request.headers["content-length"]
  if (request.method !== "POST" || declared === undefined || !/^[0-9]+$/.test(declared) || Number(declared) <= maxBodyBytes) return false
  if (!POST_ROUTES.some((route) => route.test(routerPath(request.url ?? "")))) return false
  const body = Buffer.from(JSON.stringify({ error: REFUSAL_CODES[413], message: tooLargeMessage(maxBodyBytes) }))
  response.writeHead(413, ["content-type", "application/json", "content-length", String(body.length), "connection", "close"])
  response.end(body)
  return true
}

/**
 * Requests Node's HTTP parser refuses before any handler sees them (headers or URL over its 16 KB limit, bytes
 * that are not HTTP, a request too slow to arrive): answered in the API's `{ error, message }` shape, as every
 * other 4xx, instead of Node's bodyless status line.
 */
const answerClientError = (error: NodeJS.ErrnoException, socket: Duplex): void => {
  // As Node's own handler: nothing is written into a response already under way, or to a socket that is gone.
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage
  if (!socket.writable || error.code === "ECONNRESET" || inFlight?.headersSent === true) {
    socket.destroy()
    return
  }
  const [status, reason, code, message] =
    error.code === "HPE_HEADER_OVERFLOW"
      ? [431, "Request Header Fields Too Large", "RequestHeaderFieldsTooLarge", "The request's headers, URL included, are larger than the server reads (16 KB)."]
      : error.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "Request Timeout", "RequestTimeout", "The request did not arrive in time."]
        : [400, "Bad Request", "InvalidRequest", `The request is not valid HTTP (${error.code ?? "parse error"}).`]
  const body = JSON.stringify({ error: code, message })
  // Closed once written, as Node's handler does: the server's sockets are half-open, a client may never close its side.
  socket.end(`HTTP/1.1 ${status} ${reason}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`, () => socket.destroy())
}

/** Serves `service` (or a service built from `deps`) over HTTP. */
export const startApiServer = async (service: ClearingService | ClearingDeps, options: ApiServerOptions = {}): Promise<ApiServer> => {
  const clearing = service instanceof ClearingService ? service : new ClearingService(service)
  const host = options.host ?? "127.0.0.1"
  const runtime = ManagedRuntime.make(
    Layer.mergeAll(
      NodeHttpServer.layerHttpServices,
      Layer.succeed(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES)),
      Layer.succeed(HttpRouter.RouterConfig, { ignoreTrailingSlash: false }),
    ),
  )
  const scope = Scope.makeUnsafe()
  const handler = await runtime.runPromise(
    Effect.flatMap(HttpRouter.toHttpEffect(ApiRoutesLive.pipe(Layer.provide(Clearing.layer(clearing)))), (app) => NodeHttpServer.makeHandler(app, { scope })).pipe(
      Scope.provide(scope),
    ),
  )
  const fastReads = options.fastReads !== false
  const bodies = new BodyCache(4096)
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES
  const onRequest = (request: IncomingMessage, response: ServerResponse): void => {
    if (fastReads && answerFastRead(clearing, bodies, request, response)) return
    if (refuseDeclaredTooLarge(request, response, maxBodyBytes)) return
    handler(request, response)
  }
  const server: Server = createServer({ keepAliveTimeout: 65_000 }, onRequest)
  // `Expect: 100-continue`: a body declared over the limit is refused instead of being asked for; any other request
  // is told to continue and answered as without the header (fast reads included), as Node does with no listener.
  server.on("checkContinue", (request: IncomingMessage, response: ServerResponse) => {
    if (refuseDeclaredTooLarge(request, response, maxBodyBytes)) return
    response.writeContinue()
    onRequest(request, response)
  })
  server.on("clientError", answerClientError)
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, host, () => {
      server.off("error", reject)
      resolve()
    })
  })
  const port = (server.address() as AddressInfo).port
  const close = async (): Promise<void> => {
    await new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeIdleConnections()
    })
    await runtime.runPromise(Scope.close(scope, Exit.void))
    await runtime.dispose()
  }
  return { url: httpUrlOf(host, port), port, service: clearing, close }
}

/** `host:port`, an IPv6 address in brackets (`[::1]:8080`), as URLs and messages write it. */
export const hostPortText = (host: string, port: number): string => `${host.includes(":") ? `[${host}]` : host}:${port}`

/** `http://host:port`, an IPv6 address in brackets (`http://[::1]:8080`: `http://::1:8080` is no URL). */
export const httpUrlOf = (host: string, port: number): string => `http://${hostPortText(host, port)}`
