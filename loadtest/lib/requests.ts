/**
 * Request builders: each returns a `RequestSpec` (method, path, JSON body, the tags k6 reports it under, the
 * statuses that count as expected, and the check set to run on the answer). No k6 import: k6's driver sends the
 * spec with `k6/http`, the tests send it with fetch, and both run the same checks.
 */
import { type CheckSet, errorChecks, jsonOf, okChecks, okOrErrorChecks, problems, type ResponseLike } from "./checks.ts"

/** Endpoint groups, each with its own latency thresholds (`http_req_duration{api:<group>}`). */
export type ApiGroup = "read" | "quote" | "intent"
export const API_GROUPS: readonly ApiGroup[] = ["read", "quote", "intent"]

export interface RequestSpec {
  readonly method: "GET" | "POST"
  /** Path and query, relative to the base URL. */
  readonly path: string
  /** JSON text of the body (POST). */
  readonly body?: string
  /** The `name` tag: the endpoint's path template, so that ids do not make one metric series each. */
  readonly name: string
  readonly api: ApiGroup
  /** Statuses that are not failures (`http_req_failed`): 200, or the 4xx a deliberately invalid request expects. */
  readonly expect: readonly number[]
  readonly checks: CheckSet
}

export type Query = Readonly<Record<string, string | readonly string[] | undefined | null>>

/** `?a=1&b=x&b=y` (lists as repeated keys, one of the encodings the API takes); "" for no parameters. */
export const queryString = (query: Query): string => {
  const parts: string[] = []
  for (const key of Object.keys(query)) {
    const value = query[key]
    if (value === undefined || value === null) continue
    const values = typeof value === "string" ? [value] : value
    for (const v of values) parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(v)}`)
  }
  return parts.length === 0 ? "" : `?${parts.join("&")}`
}

const get = (name: string, path: string, api: ApiGroup, checks: CheckSet, expect: readonly number[] = [200]): RequestSpec => ({ method: "GET", path, name, api, expect, checks })
const post = (name: string, path: string, body: unknown, api: ApiGroup, checks: CheckSet, expect: readonly number[] = [200]): RequestSpec => ({
  method: "POST",
  path,
  body: JSON.stringify(body),
  name,
  api,
  expect,
  checks,
})

// ---------------------------------------------------------------------------------------------------------
// Request bodies (SPEC.md field names)

export interface IntentRequestBody {
  readonly origin: string
  readonly destinations: readonly string[]
  readonly to: string
  readonly from: string
  readonly inputAsset: string
  readonly outputAsset?: string
  readonly amount: string
  readonly callData?: string
  readonly ttl?: number
  readonly max_fee?: string
  readonly isFastPath?: boolean
}

export interface QuoteRequestBody {
  readonly origin: string
  readonly destinations: readonly string[]
  readonly inputAsset: string
  readonly outputAsset?: string
  readonly amount: string
  readonly to?: string
  readonly from?: string
}

export interface LimitsRequestBody {
  readonly origin: string
  readonly destinations: readonly string[]
  readonly inputAsset: string
}

// ---------------------------------------------------------------------------------------------------------
// Reads

export const health = (): RequestSpec => get("GET /health", "/health", "read", okChecks("GET /health", "health", problems.health))

/** `GET /intents` with filters; `extra` adds checks that need the request's context (filters, cursors). */
export const listIntents = (query: Query, extra: CheckSet = {}): RequestSpec =>
  get("GET /intents", `/intents${queryString(query)}`, "read", okChecks("GET /intents", "intents page", problems.intentsPage, extra))

export const getIntent = (intentId: string): RequestSpec =>
  get(
    "GET /intents/{intentId}",
    `/intents/${intentId}`,
    "read",
    okChecks("GET /intents/{intentId}", "{intent}", problems.intent, {
      "the requested intent": (r) => {
        const id = (jsonOf(r) as { intent?: { intent_id?: unknown } } | undefined)?.intent?.intent_id
        return typeof id === "string" && id.toLowerCase() === intentId.toLowerCase()
      },
    }),
  )

export const listInvoices = (query: Query, extra: CheckSet = {}): RequestSpec =>
  get("GET /invoices", `/invoices${queryString(query)}`, "read", okChecks("GET /invoices", "invoices page", problems.invoicesPage, extra))

/** Min amounts of an invoice; 404 InvoiceNotFound is expected too: a deposit may have bought it meanwhile. */
export const minAmounts = (intentId: string): RequestSpec =>
  get(
    "GET /invoices/{intentId}/min-amounts",
    `/invoices/${intentId}/min-amounts`,
    "read",
    okOrErrorChecks("GET /invoices/{intentId}/min-amounts", "min amounts", problems.minAmounts, 404, "InvoiceNotFound"),
    [200, 404],
  )

export const listAssets = (query: Query = {}): RequestSpec =>
  get("GET /configs/assets", `/configs/assets${queryString(query)}`, "read", okChecks("GET /configs/assets", "{assets}", problems.assets))

// ---------------------------------------------------------------------------------------------------------
// Quotes and limits

export const quote = (body: QuoteRequestBody, extra: CheckSet = {}): RequestSpec =>
  post("POST /routes/quotes", "/routes/quotes", body, "quote", okChecks("POST /routes/quotes", "quote", problems.quote, extra))

export const limits = (body: LimitsRequestBody): RequestSpec => post("POST /routes/limits", "/routes/limits", body, "quote", okChecks("POST /routes/limits", "{currentLimit}", problems.limits))

// ---------------------------------------------------------------------------------------------------------
// Intent creation (transaction requests; signing and broadcasting them is not the load test's business)

const transactionChecks = (origin: string): CheckSet => ({
  "a transaction on the origin chain": (r: ResponseLike) => String((jsonOf(r) as { chainId?: unknown } | undefined)?.chainId) === origin,
})

export const createIntent = (body: IntentRequestBody): RequestSpec =>
  post("POST /intents", "/intents", body, "intent", okChecks("POST /intents", "transaction request", problems.transactionRequest, transactionChecks(body.origin)))

/** An array body: one `newOrder` transaction for all of them (same origin, input asset and sender). */
export const createOrder = (bodies: readonly IntentRequestBody[]): RequestSpec =>
  post(
    "POST /intents (order)",
    "/intents",
    bodies,
    "intent",
    okChecks("POST /intents (order)", "transaction request", problems.transactionRequest, transactionChecks(bodies[0]?.origin ?? "")),
  )

// ---------------------------------------------------------------------------------------------------------
// Deliberately invalid requests: the API must answer the documented 4xx with `{ error, message }`

export const getIntentMalformedId = (): RequestSpec =>
  get("GET /intents/{intentId} (malformed id)", "/intents/0x1234", "read", errorChecks("GET /intents/{intentId} (malformed id)", 400, "InvalidIntentId"), [400])

export const getIntentUnknownId = (intentId: string): RequestSpec =>
  get("GET /intents/{intentId} (unknown id)", `/intents/${intentId}`, "read", errorChecks("GET /intents/{intentId} (unknown id)", 404, "IntentNotFound"), [404])

export const listIntentsBadLimit = (): RequestSpec =>
  get("GET /intents (limit 0)", "/intents?limit=0", "read", errorChecks("GET /intents (limit 0)", 400, "InvalidLimit"), [400])

export const quoteNegativeAmount = (body: QuoteRequestBody): RequestSpec =>
  post("POST /routes/quotes (negative amount)", "/routes/quotes", { ...body, amount: "-1" }, "quote", errorChecks("POST /routes/quotes (negative amount)", 400, "InvalidRequest"), [400])

export const createIntentBadSender = (body: IntentRequestBody): RequestSpec =>
  post("POST /intents (bad sender)", "/intents", { ...body, from: "0xnot-an-address" }, "intent", errorChecks("POST /intents (bad sender)", 400, "InvalidRequest"), [400])
