/**
 * Response checks: the shapes of SPEC.md's resources (its field names and types), and the check sets k6's
 * `check(response, set)` runs. Plain TypeScript with no k6 import, so the same functions run on k6 responses and,
 * in the tests, on responses from Node's fetch. Written from SPEC.md, not from the service's code: the load test
 * judges the API by its specification (a test compares these field lists with the service's schemas).
 */

/** What the checks read of a response: k6's `Response` has these members, and so does the tests' adapter. */
export interface ResponseLike {
  readonly status: number
  readonly body: string | ArrayBuffer | null
  readonly headers: { readonly [name: string]: string }
}

/** A k6 check set: name → predicate over the response. */
export type CheckSet = Record<string, (response: ResponseLike) => boolean>

// ---------------------------------------------------------------------------------------------------------
// Shapes

/**
 * A field's type: `string`, `amount` (decimal string of integer units), `hex32`, `integer`, `number`, `boolean`,
 * `string[]`, `map` (object of strings), `object`, `array`; a trailing `?` allows null (the API's "not known yet"), a
 * trailing `~` allows the key to be absent.
 */
export type Shape = Readonly<Record<string, string>>

const AMOUNT = /^(0|[1-9][0-9]*)$/
const HEX32 = /^0x[0-9a-fA-F]{64}$/

const typeProblem = (type: string, value: unknown): string | undefined => {
  switch (type) {
    case "string":
      return typeof value === "string" ? undefined : "a string"
    case "amount":
      return typeof value === "string" && AMOUNT.test(value) ? undefined : "an integer amount as a decimal string"
    case "hex32":
      return typeof value === "string" && HEX32.test(value) ? undefined : "a 0x-prefixed 32-byte hex string"
    case "integer":
      return typeof value === "number" && Number.isInteger(value) ? undefined : "an integer"
    case "number":
      return typeof value === "number" && Number.isFinite(value) ? undefined : "a number"
    case "boolean":
      return typeof value === "boolean" ? undefined : "a boolean"
    case "string[]":
      return Array.isArray(value) && value.every((v) => typeof v === "string") ? undefined : "an array of strings"
    case "map":
      return isObject(value) && Object.keys(value).every((k) => typeof value[k] === "string") ? undefined : "an object of strings"
    case "object":
      return isObject(value) ? undefined : "an object"
    case "array":
      return Array.isArray(value) ? undefined : "an array"
    default:
      return `a value of the unknown type ${type}`
  }
}

export const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** The first way `value` differs from `shape` (a sentence naming the field), or undefined when it matches. */
export const shapeProblem = (shape: Shape, value: unknown, what = "body"): string | undefined => {
  if (!isObject(value)) return `${what}: expected an object`
  for (const key of Object.keys(shape)) {
    let type = shape[key]!
    const optional = type.endsWith("~")
    if (optional) type = type.slice(0, -1)
    const nullable = type.endsWith("?")
    if (nullable) type = type.slice(0, -1)
    if (!(key in value)) {
      if (optional) continue
      return `${what}.${key}: missing`
    }
    const v = value[key]
    if (v === null && nullable) continue
    const expected = typeProblem(type, v)
    if (expected !== undefined) return `${what}.${key}: expected ${expected}${nullable ? " or null" : ""}, got ${JSON.stringify(v)}`
  }
  return undefined
}

/** SPEC.md, "Intent record". Every field is present; fields not known yet are null (the API's decision). */
export const INTENT_RECORD: Shape = {
  intent_id: "hex32",
  batch_id: "string?",
  queue_idx: "integer?",
  message_id: "string?",
  status: "string",
  receiver: "string?",
  input_asset: "string?",
  output_asset: "string?",
  origin_amount: "amount?",
  destination_amount: "amount?",
  origin: "string?",
  destinations: "string[]?",
  nonce: "integer?",
  transaction_hash: "string?",
  receive_tx_hash: "string?",
  intent_created_timestamp: "integer?",
  settlement_timestamp: "integer?",
  intent_created_block_number: "integer?",
  receive_blocknumber: "integer?",
  tx_origin: "string?",
  tx_nonce: "integer?",
  auto_id: "integer",
  amount_out_min: "string?",
  call_data: "string?",
  filled: "boolean",
  initiator: "string?",
  native_fee: "string?",
  token_fee: "string?",
  fee_adapter_initiator: "string?",
  origin_gas_fees: "string?",
  destination_gas_fees: "string?",
  hub_settlement_domain: "string?",
  ttl: "integer?",
  is_fast_path: "boolean?",
  fill_solver: "string?",
  fill_domain: "string?",
  fill_destinations: "string[]?",
  fill_transaction_hash: "string?",
  fill_timestamp: "integer?",
  fill_amount: "string?",
  fill_fee_token: "string?",
  fill_fee_dbps: "string?",
  fill_input_asset: "string?",
  fill_output_asset: "string?",
  fill_sender: "string?",
  fill_status: "string?",
  fill_initiator: "string?",
  fill_receiver: "string?",
  max_fee: "string?",
}

/** SPEC.md, "API intent status": clearsim's values (reference §6.4). */
export const INTENT_STATUSES: readonly string[] = [
  "NONE",
  "ADDED",
  "ADDED_SPOKE",
  "ADDED_HUB",
  "DEPOSIT_PROCESSED",
  "FILLED",
  "ADDED_AND_FILLED",
  "INVOICED",
  "SETTLED",
  "SETTLED_AND_COMPLETED",
  "SETTLED_AND_MANUALLY_EXECUTED",
  "UNSUPPORTED",
  "UNSUPPORTED_RETURNED",
  "DISPATCHED_HUB",
  "DISPATCHED_SPOKE",
  "DISPATCHED_UNSUPPORTED",
]

export const INVOICE: Shape = {
  intent_id: "hex32",
  owner: "string",
  entry_epoch: "integer",
  amount: "amount",
  discountBps: "number",
  origin: "string",
  destinations: "string[]",
  hub_status: "string",
  ticker_hash: "hex32",
  hub_invoice_enqueued_timestamp: "string",
}

export const MIN_AMOUNTS: Shape = {
  invoiceAmount: "amount",
  amountAfterDiscounts: "map",
  discountBps: "string",
  custodiedAmounts: "map",
  minAmounts: "map",
}

export const ASSET_CONFIG: Shape = {
  local: "string",
  adopted: "string",
  canonical_id: "string",
  canonical_domain: "string",
  domain: "string",
  key: "string",
  id: "string",
  decimal: "integer",
  adopted_decimal: "integer",
}

export const QUOTE: Shape = {
  fixedFeeUnits: "amount",
  variableFeeBps: "number",
  totalFeeBps: "number",
  expectedAmount: "amount",
  currentLimit: "amount",
  splitCount: "integer",
  reqType: "string",
  fastPathQuote: "object~",
  settlementEstimate: "object",
}
export const FAST_PATH_QUOTE: Shape = { fixedFeeUnits: "amount", variableFeeBps: "number", totalFeeBps: "number", expectedAmount: "amount", expectedFillTime: "string" }
export const SETTLEMENT_ESTIMATE: Shape = { p25Minutes: "number", p50Minutes: "number", p75Minutes: "number" }
export const REQ_TYPES: readonly string[] = ["bridge", "swap", "x-swap", "invalid"]

export const LIMITS: Shape = { currentLimit: "amount" }

/** SPEC.md, "TransactionRequest": the guide shows `to`, `data`, `chainId`, `value`; the others may be absent. */
export const TRANSACTION_REQUEST: Shape = {
  to: "string",
  from: "string~",
  nonce: "string~",
  gasLimit: "string~",
  gasPrice: "string~",
  data: "string",
  value: "amount",
  chainId: "integer",
  type: "integer~",
  accessList: "object~",
  maxPriorityFeePerGas: "string~",
  maxFeePerGas: "string~",
  customData: "object~",
  ccipReadEnabled: "boolean~",
}

/** clearsim's `GET /health` (not in SPEC.md). */
export const HEALTH: Shape = { status: "string", hubDomain: "integer", hubBlockNumber: "integer", epoch: "integer", intents: "integer", openInvoices: "integer" }

/** SPEC.md, "Errors": 4xx bodies are `{ error, message }`. */
export const API_ERROR: Shape = { error: "string", message: "string" }

export const INTENTS_PAGE: Shape = { intents: "array", nextCursor: "string?", prevCursor: "string?", maxCount: "integer" }
export const INVOICES_PAGE: Shape = { invoices: "array", nextCursor: "string?", prevCursor: "string?", maxCount: "integer" }

const listProblem = (items: unknown, shape: Shape, what: string, extra?: (item: Record<string, unknown>, i: number) => string | undefined): string | undefined => {
  if (!Array.isArray(items)) return `${what}: expected an array`
  for (let i = 0; i < items.length; i++) {
    const problem = shapeProblem(shape, items[i], `${what}[${i}]`) ?? extra?.(items[i] as Record<string, unknown>, i)
    if (problem !== undefined) return problem
  }
  return undefined
}

const statusProblem = (record: Record<string, unknown>, what: string): string | undefined =>
  INTENT_STATUSES.includes(record["status"] as string) ? undefined : `${what}.status: ${JSON.stringify(record["status"])} is not an intent status`

/** Problems of each resource body, as the checks and the tests' messages use them. */
export const problems = {
  health: (b: unknown) => shapeProblem(HEALTH, b) ?? (isObject(b) && b["status"] !== "ok" ? `body.status: expected "ok", got ${JSON.stringify(b["status"])}` : undefined),
  intent: (b: unknown) => {
    if (!isObject(b)) return "body: expected an object"
    return shapeProblem(INTENT_RECORD, b["intent"], "body.intent") ?? statusProblem(b["intent"] as Record<string, unknown>, "body.intent")
  },
  intentsPage: (b: unknown) =>
    shapeProblem(INTENTS_PAGE, b) ?? listProblem((b as Record<string, unknown>)["intents"], INTENT_RECORD, "body.intents", (r, i) => statusProblem(r, `body.intents[${i}]`)),
  invoicesPage: (b: unknown) => shapeProblem(INVOICES_PAGE, b) ?? listProblem((b as Record<string, unknown>)["invoices"], INVOICE, "body.invoices"),
  minAmounts: (b: unknown) => shapeProblem(MIN_AMOUNTS, b),
  assets: (b: unknown) => (isObject(b) ? listProblem(b["assets"], ASSET_CONFIG, "body.assets") : "body: expected an object"),
  quote: (b: unknown) => {
    const problem = shapeProblem(QUOTE, b)
    if (problem !== undefined) return problem
    const q = b as Record<string, unknown>
    if (!REQ_TYPES.includes(q["reqType"] as string)) return `body.reqType: ${JSON.stringify(q["reqType"])} is not one of ${REQ_TYPES.join(", ")}`
    const estimate = shapeProblem(SETTLEMENT_ESTIMATE, q["settlementEstimate"], "body.settlementEstimate")
    if (estimate !== undefined) return estimate
    const fast = q["fastPathQuote"]
    if (fast === undefined) return undefined
    // Either a fast-path quote, or an error message when the fast path is over its limit.
    return isObject(fast) && "error" in fast ? shapeProblem(API_ERROR, fast, "body.fastPathQuote") : shapeProblem(FAST_PATH_QUOTE, fast, "body.fastPathQuote")
  },
  limits: (b: unknown) => shapeProblem(LIMITS, b),
  transactionRequest: (b: unknown) =>
    shapeProblem(TRANSACTION_REQUEST, b) ?? (/^0x([0-9a-fA-F]{2})+$/.test((b as Record<string, string>)["data"]!) ? undefined : "body.data: expected hex calldata"),
  apiError: (b: unknown) =>
    shapeProblem(API_ERROR, b) ??
    (Object.keys(b as object).length === 2 ? undefined : `body: expected exactly {error, message}, got the keys ${Object.keys(b as object).join(", ")}`) ??
    ((b as Record<string, string>)["message"] === "" ? "body.message: empty" : undefined),
} satisfies Record<string, (body: unknown) => string | undefined>

// ---------------------------------------------------------------------------------------------------------
// Reading responses

const parsed = new WeakMap<object, unknown>()
const NOT_JSON = Symbol("not JSON")

/** The response body parsed as JSON (once per response object), or undefined when it is not JSON. */
export const jsonOf = (response: ResponseLike): unknown => {
  if (parsed.has(response)) {
    const v = parsed.get(response)
    return v === NOT_JSON ? undefined : v
  }
  let value: unknown = NOT_JSON
  if (typeof response.body === "string" && response.body !== "") {
    try {
      value = JSON.parse(response.body)
    } catch {
      value = NOT_JSON
    }
  }
  parsed.set(response, value)
  return value === NOT_JSON ? undefined : value
}

/** A header by name, whatever its case (k6 canonicalizes names, fetch lower-cases them). */
export const headerOf = (response: ResponseLike, name: string): string | undefined => {
  const lower = name.toLowerCase()
  for (const key of Object.keys(response.headers)) if (key.toLowerCase() === lower) return response.headers[key]
  return undefined
}

const isJson = (response: ResponseLike) => (headerOf(response, "content-type") ?? "").startsWith("application/json")

// ---------------------------------------------------------------------------------------------------------
// Check sets

/** A 200 JSON answer whose body passes `problem`; `extra` adds request-specific checks (run on 200s only). */
export const okChecks = (endpoint: string, resource: string, problem: (body: unknown) => string | undefined, extra: CheckSet = {}): CheckSet => {
  const set: CheckSet = {
    [`${endpoint}: status 200`]: (r) => r.status === 200,
    [`${endpoint}: JSON ${resource}`]: (r) => r.status === 200 && isJson(r) && problem(jsonOf(r)) === undefined,
  }
  for (const name of Object.keys(extra)) set[`${endpoint}: ${name}`] = (r) => r.status === 200 && extra[name]!(r)
  return set
}

/** A 4xx answer with status `status`, the body `{ error, message }` and the error code `code`. */
export const errorChecks = (endpoint: string, status: number, code: string): CheckSet => ({
  [`${endpoint}: status ${status}`]: (r) => r.status === status,
  [`${endpoint}: JSON {error, message}`]: (r) => isJson(r) && problems.apiError(jsonOf(r)) === undefined,
  [`${endpoint}: error ${code}`]: (r) => (jsonOf(r) as { error?: unknown } | undefined)?.error === code,
})

/** Either a 200 with `resource`, or `status` with the error `code` (a resource that can go away, like an invoice). */
export const okOrErrorChecks = (endpoint: string, resource: string, problem: (body: unknown) => string | undefined, status: number, code: string): CheckSet => ({
  [`${endpoint}: status 200 or ${status}`]: (r) => r.status === 200 || r.status === status,
  [`${endpoint}: JSON ${resource} or {error: ${code}}`]: (r) => {
    const body = jsonOf(r)
    if (!isJson(r)) return false
    if (r.status === 200) return problem(body) === undefined
    return r.status === status && problems.apiError(body) === undefined && (body as { error: string }).error === code
  },
})

/** The names of the checks of `set` that `response` fails. */
export const failedChecks = (set: CheckSet, response: ResponseLike): string[] => Object.keys(set).filter((name) => !set[name]!(response))
