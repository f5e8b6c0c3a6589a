/**
 * The HTTP API of SPEC.md as one effect HttpApi definition: the server routes, the OpenAPI document
 * (`/openapi.json`, `/docs`) and the typed client (`client.ts`) all come from it. The 17 paths of the spec,
 * plus `GET /health` and the hub domain's JSON-RPC at `POST /hub/rpc`.
 */
import * as Schema from "effect/Schema"
import { HttpApi, HttpApiEndpoint, HttpApiGroup, HttpApiMiddleware, HttpApiSchema, OpenApi } from "effect/http-api"
import { BadRequest, DEFAULT_MAX_BODY_BYTES, InternalError, NotFound, REFUSAL_CODES } from "./errors.ts"
import {
  Altchain1IntentRequest,
  AssetsQuery,
  AssetsResponse,
  BatchesPage,
  BatchesQuery,
  BatchResponse,
  Bytes32String,
  ExecuteRequest,
  Health,
  HistoryPage,
  HistoryQuery,
  IntentId,
  IntentRequest,
  IntentResponse,
  IntentsPage,
  IntentsPayload,
  IntentsQuery,
  InvoiceResponse,
  InvoicesPage,
  InvoicesQuery,
  LimitsRequest,
  LimitsResponse,
  LookupTableRequest,
  MinAmounts,
  Quote,
  QuoteRequest,
  TransactionRequest,
} from "./schemas.ts"

/**
 * Maps request-decoding failures (params, query, body) to `BadRequest` `{ error, message }`; see
 * `server.ts`. Declared on the whole API so that every endpoint documents its 400.
 */
export class ApiErrors extends HttpApiMiddleware.Service<ApiErrors>()("clearsim/api/ApiErrors", { error: BadRequest }) {}

/** An `{ error, message }` body whose `error` is `code`: the refusals the server makes before any endpoint runs. */
const refusal = (code: string, description: string) => ({
  description,
  content: {
    "application/json": {
      schema: { type: "object", required: ["error", "message"], properties: { error: { type: "string", enum: [code] }, message: { type: "string" } }, additionalProperties: false },
    },
  },
})

/**
 * Marks `max_fee` deprecated on `POST /altchain2/intents` only (SPEC: "deprecated after swaps"): that endpoint
 * reads the shared IntentRequest schema, so its body gets a copy of it, `Altchain2IntentRequest`, where the field
 * says so.
 */
const deprecateAltchain2MaxFee = (spec: Record<string, any>): void => {
  const body = spec.paths?.["/altchain2/intents"]?.post?.requestBody?.content?.["application/json"]
  const name = typeof body?.schema?.$ref === "string" ? body.schema.$ref.split("/").pop() : undefined
  const shared = name === undefined ? undefined : spec.components?.schemas?.[name]
  if (shared?.properties?.max_fee === undefined) return
  const copy = structuredClone(shared)
  copy.properties.max_fee = { ...copy.properties.max_fee, deprecated: true, description: "Deprecated after swaps (SPEC): taken and checked as on POST /intents" }
  spec.components.schemas.Altchain2IntentRequest = copy
  body.schema = { $ref: "#/components/schemas/Altchain2IntentRequest" }
}

/**
 * What the generator cannot say from the endpoints: the refusals the server answers before an endpoint runs (413
 * on every POST, a body over the limit being refused where the endpoint reads none too; 415 on every operation
 * that reads a JSON body), and `max_fee` deprecated on the second alternative chain's endpoint.
 */
const completeDocument = (spec: Record<string, any>): Record<string, any> => {
  for (const item of Object.values(spec.paths ?? {}) as Record<string, { requestBody?: unknown; responses?: Record<string, unknown> }>[]) {
    for (const [method, operation] of Object.entries(item)) {
      if (operation?.responses === undefined) continue
      if (method === "post") operation.responses["413"] ??= refusal(REFUSAL_CODES[413], `The request body is over the server's limit (${DEFAULT_MAX_BODY_BYTES.toLocaleString("en-US")} bytes by default)`)
      if (operation.requestBody !== undefined) operation.responses["415"] ??= refusal(REFUSAL_CODES[415], "The request body is not application/json")
    }
  }
  deprecateAltchain2MaxFee(spec)
  return spec
}

/**
 * Drops the 400 the API-wide `ApiErrors` middleware lists on every operation, for one that never answers it: it
 * decodes nothing of the request (`GET /health`: no path, query or body), or its refusals are not the API's
 * (`POST /hub/rpc`: a body that is not JSON or a batch over the limit is a JSON-RPC error, answered 200).
 */
const answersNo400 = OpenApi.annotations({
  transform: (operation) => {
    const { "400": _, ...responses } = (operation.responses ?? {}) as Record<string, unknown>
    return { ...operation, responses }
  },
})

const doc = (summary: string, description?: string) => OpenApi.annotations({ summary, ...(description === undefined ? {} : { description }) })
const IntentIdParams = { intentId: IntentId }
const readErrors = [BadRequest, NotFound, InternalError] as const
const buildErrors = [BadRequest, NotFound, InternalError] as const

const createIntents = <const Name extends string, const Path extends "/intents" | "/intents/">(name: Name, path: Path) =>
  HttpApiEndpoint.post(name, path, { payload: IntentsPayload, success: TransactionRequest, error: buildErrors }).annotateMerge(
    doc(
      "Build the transaction creating one intent or an order",
      "One IntentRequest gives `FeeAdapter.newIntent`; an array gives `FeeAdapter.newOrder` (same origin, input asset and sender). " +
        "The fee signer's FeeParams are embedded; `amount` includes the fee. 404: no registries for the origin.",
    ),
  )

export class IntentsGroup extends HttpApiGroup.make("intents").add(
  createIntents("createIntents", "/intents"),
  createIntents("createIntentsSlash", "/intents/"),
  HttpApiEndpoint.get("listIntents", "/intents", { query: IntentsQuery, success: IntentsPage, error: readErrors }).annotateMerge(
    doc("List intents, newest first", "Cursor pages (`nextCursor`, `prevCursor`), `limit` 1 to 100 (default 10); filters of the production API."),
  ),
  HttpApiEndpoint.get("getIntent", "/intents/:intentId", { params: IntentIdParams, success: IntentResponse, error: readErrors }).annotateMerge(doc("Get an intent")),
  HttpApiEndpoint.post("executeIntent", "/intents/:intentId/execute", {
    params: IntentIdParams,
    payload: ExecuteRequest,
    success: TransactionRequest,
    error: buildErrors,
  }).annotateMerge(doc(
      "Build the transaction executing a settled intent's calldata",
      "`ClearingSpoke.executeIntentCalldata` on `domain`, the intent's first destination, once the hub settled it there; 400 if it was settled on another destination (the calldata can never run) or filled (the fill ran it).",
    )),
  HttpApiEndpoint.post("returnUnsupported", "/intents/:intentId/return-unsupported", { params: IntentIdParams, success: TransactionRequest, error: buildErrors }).annotateMerge(
    doc("Build the hub transaction returning an unsupported intent", "`returnUnsupportedIntent(intentId)` on the hub domain (send it to `POST /hub/rpc`)."),
  ),
) {}

export class BatchesGroup extends HttpApiGroup.make("batches").add(
  HttpApiEndpoint.get("listBatches", "/batched-intents", { query: BatchesQuery, success: BatchesPage, error: readErrors }).annotateMerge(
    doc("List intent-queue batches, newest first", "`isFastPath` keeps batches holding at least one (non-)fast-path intent."),
  ),
  HttpApiEndpoint.get("getBatch", "/batched-intents/:batchId", {
    params: { batchId: Bytes32String.annotate({ description: "The dispatch message id" }) },
    success: BatchResponse,
    error: readErrors,
  }).annotateMerge(doc("Get a batch")),
) {}

export class AltchainsGroup extends HttpApiGroup.make("altchains").add(
  HttpApiEndpoint.post("altchain1Intent", "/altchain1/intents", { payload: Altchain1IntentRequest, success: TransactionRequest, error: buildErrors }).annotateMerge(
    doc("Build an intent transaction on the first alternative chain", "404 registries not found when no such chain is configured."),
  ),
  HttpApiEndpoint.post("altchain1LookupTable", "/altchain1/create-lookup-table", { payload: LookupTableRequest, success: TransactionRequest, error: buildErrors }).annotateMerge(
    doc("Build a new user's one-time account set-up on the first alternative chain", "On the EVM-modelled chain: the fee adapter's ERC-20 approval."),
  ),
  HttpApiEndpoint.post("altchain2Intent", "/altchain2/intents", { payload: IntentRequest, success: TransactionRequest, error: buildErrors }).annotateMerge(
    doc("Build an intent transaction on the second alternative chain", "Same body and rules as `POST /intents` with one intent."),
  ),
) {}

export class InvoicesGroup extends HttpApiGroup.make("invoices").add(
  HttpApiEndpoint.get("listInvoices", "/invoices", { query: InvoicesQuery, success: InvoicesPage, error: readErrors }).annotateMerge(
    doc("List open invoices in FIFO queue order", "Cursor pages, `limit` 1 to 100; `sortOrderByDiscount` orders by current discount instead."),
  ),
  HttpApiEndpoint.get("getInvoice", "/invoices/:intentId", { params: IntentIdParams, success: InvoiceResponse, error: readErrors }).annotateMerge(doc("Get an open invoice")),
  HttpApiEndpoint.get("getMinAmounts", "/invoices/:intentId/min-amounts", { params: IntentIdParams, success: MinAmounts, error: readErrors }).annotateMerge(
    doc("Minimum current-epoch deposit per domain that settles the invoice", "18-decimal units; covers earlier invoices settled first on the same domain."),
  ),
  HttpApiEndpoint.get("getInvoiceHistory", "/history/:intentId/invoice-processing", {
    params: IntentIdParams,
    query: HistoryQuery,
    success: HistoryPage,
    error: readErrors,
  }).annotateMerge(doc("An invoice's processing history, one entry per epoch")),
) {}

export class ConfigsGroup extends HttpApiGroup.make("configs").add(
  HttpApiEndpoint.get("listAssets", "/configs/assets", { query: AssetsQuery, success: AssetsResponse, error: readErrors }).annotateMerge(doc("List supported assets")),
) {}

/**
 * Request bodies are decoded strictly (a field the body does not take is a 400: a typo of `max_fee` would
 * otherwise build an intent with the default fee), except the routes' questions: a client may quote with the
 * body it will send to `POST /intents`, whose extra fields change nothing about the route.
 */
export class RoutesGroup extends HttpApiGroup.make("routes").add(
  HttpApiEndpoint.post("quote", "/routes/quotes", { payload: QuoteRequest, success: Quote, error: readErrors }).annotateMerge(
    doc("Quote a route", "Fees, expected amount, current limit, fast-path quote and settlement-time estimate."),
  ),
  HttpApiEndpoint.post("limits", "/routes/limits", { payload: LimitsRequest, success: LimitsResponse, error: readErrors }).annotateMerge(
    doc("Current capacity of a route", "In the input token's decimal units."),
  ),
) {}

export class SystemGroup extends HttpApiGroup.make("system", { topLevel: true }).add(
  HttpApiEndpoint.get("health", "/health", { success: Health, error: InternalError }).annotateMerge(doc("Liveness and the hub's position")).annotateMerge(answersNo400),
  HttpApiEndpoint.post("hubRpc", "/hub/rpc", { payload: Schema.Unknown, success: [Schema.Unknown, HttpApiSchema.NoContent], error: InternalError }).annotateMerge(
    doc(
      "The hub domain's Ethereum JSON-RPC",
      "eth_chainId, eth_sendRawTransaction (signed calls of the hub ABI), eth_getTransactionReceipt, eth_getTransactionByHash, eth_getTransactionCount, " +
        "eth_call (views), eth_blockNumber, eth_getBlockByNumber, eth_estimateGas, eth_gasPrice, eth_maxPriorityFeePerGas, eth_getBalance, eth_getCode, " +
        "net_version, eth_syncing, eth_accounts, web3_clientVersion. Answers follow JSON-RPC 2.0: batches of up to 1000 requests; notifications are not answered (204 when nothing is left). " +
        "Every error is a JSON-RPC error answered 200, a body that is not JSON (-32700) and a batch over 1000 (-32600) included: no 400.",
    ),
  ).annotateMerge(answersNo400),
) {}

export class ClearingApi extends HttpApi.make("clearsim")
  .add(IntentsGroup)
  .add(BatchesGroup)
  .add(AltchainsGroup)
  .add(InvoicesGroup)
  .add(ConfigsGroup)
  .add(RoutesGroup)
  .add(SystemGroup)
  .middleware(ApiErrors)
  .annotate(HttpApi.PayloadParseOptions, { errors: "all", reportInput: true, onExcessProperty: "error" })
  .annotate(HttpApi.QueryParseOptions, { errors: "all", reportInput: true })
  .annotate(HttpApi.ParamsParseOptions, { errors: "all", reportInput: true })
  .annotateMerge(
    OpenApi.annotations({
      title: "clearsim clearing service",
      version: "1.0.0",
      description:
        "The cross-chain intent clearing service of SPEC.md, served by the clearsim simulator. Every 4xx body is `{ error, message }`. " +
        "Amounts are decimal strings of integer units; fields not known yet are null. " +
        "In request bodies an optional field may be null, taken as absent (the same answer as without it); a required field may not. " +
        `A path no endpoint serves is 404 \`${REFUSAL_CODES[404]}\`; a path called with a method it does not take is 405 \`${REFUSAL_CODES[405]}\` with an \`Allow\` header; ` +
        `a request body over the server's limit (${DEFAULT_MAX_BODY_BYTES.toLocaleString("en-US")} bytes by default) is 413 \`${REFUSAL_CODES[413]}\`, one that is not \`application/json\` 415 \`${REFUSAL_CODES[415]}\`.`,
      transform: completeDocument,
    }),
  ) {}
