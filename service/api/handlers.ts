/**
 * The HTTP handlers: thin. Each receives what HttpApi decoded, calls the `Clearing` service and writes the result
 * as JSON. Bodies are serialized with `JSON.stringify` (intent records from the read model's cached JSON)
 * rather than re-encoded through the response schemas: the values already have the schemas' shape, and the
 * typed-client tests check that every response decodes against them.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { HttpServerResponse } from "effect/http"
import { HttpApiBuilder } from "effect/http-api"
import { ClearingApi } from "./api.ts"
import { badRequest } from "./errors.ts"
import { Clearing } from "./service.ts"

const jsonBody = (body: string): HttpServerResponse.HttpServerResponse => HttpServerResponse.text(body, { contentType: "application/json" })
const json = (value: unknown): HttpServerResponse.HttpServerResponse => jsonBody(JSON.stringify(value))

const IntentsLive = HttpApiBuilder.group(
  ClearingApi,
  "intents",
  Effect.fnUntraced(function* (handlers) {
    const clearing = yield* Clearing
    return handlers
      .handle("createIntents", ({ payload }) => Effect.map(clearing.createIntents(payload), json))
      .handle("createIntentsSlash", ({ payload }) => Effect.map(clearing.createIntents(payload), json))
      .handle("listIntents", ({ query }) => Effect.map(clearing.listIntentsJson(query), jsonBody))
      .handle("getIntent", ({ params }) => Effect.map(clearing.getIntentJson(params.intentId), jsonBody))
      .handle("executeIntent", ({ params, payload }) => Effect.map(clearing.executeIntent(params.intentId, payload), json))
      .handle("returnUnsupported", ({ params, request }) =>
        // SPEC: no body. An empty one, or `{}`, is taken; anything else is refused rather than ignored.
        // A body that cannot be read (over the size limit) is not taken for no body: the server's error policy answers
        // its read error (413 PayloadTooLarge, 400 for a broken request).
        Effect.flatMap(Effect.orDie(request.text), (text) =>
          text.trim() === "" || /^\{\s*\}$/.test(text.trim())
            ? Effect.map(clearing.returnUnsupported(params.intentId), json)
            : Effect.fail(badRequest("InvalidRequest", "body: this endpoint takes no body (POST it empty).")),
        ),
      )
  }),
)

const BatchesLive = HttpApiBuilder.group(
  ClearingApi,
  "batches",
  Effect.fnUntraced(function* (handlers) {
    const clearing = yield* Clearing
    return handlers
      .handle("listBatches", ({ query }) => Effect.map(clearing.listBatches(query), json))
      .handle("getBatch", ({ params }) => Effect.map(clearing.getBatch(params.batchId), json))
  }),
)

const AltchainsLive = HttpApiBuilder.group(
  ClearingApi,
  "altchains",
  Effect.fnUntraced(function* (handlers) {
    const clearing = yield* Clearing
    return handlers
      .handle("altchain1Intent", ({ payload }) => Effect.map(clearing.createAltchain1Intent(payload), json))
      .handle("altchain1LookupTable", ({ payload }) => Effect.map(clearing.createLookupTable(payload), json))
      .handle("altchain2Intent", ({ payload }) => Effect.map(clearing.createAltchain2Intent(payload), json))
  }),
)

const InvoicesLive = HttpApiBuilder.group(
  ClearingApi,
  "invoices",
  Effect.fnUntraced(function* (handlers) {
    const clearing = yield* Clearing
    return handlers
      .handle("listInvoices", ({ query }) => Effect.map(clearing.listInvoicesJson(query), jsonBody))
      .handle("getInvoice", ({ params }) => Effect.map(clearing.getInvoice(params.intentId), json))
      .handle("getMinAmounts", ({ params }) => Effect.map(clearing.getMinAmounts(params.intentId), json))
      .handle("getInvoiceHistory", ({ params, query }) => Effect.map(clearing.getInvoiceHistory(params.intentId, query), json))
  }),
)

const ConfigsLive = HttpApiBuilder.group(
  ClearingApi,
  "configs",
  Effect.fnUntraced(function* (handlers) {
    const clearing = yield* Clearing
    return handlers.handle("listAssets", ({ query }) => Effect.map(clearing.listAssets(query), json))
  }),
)

const RoutesLive = HttpApiBuilder.group(
  ClearingApi,
  "routes",
  Effect.fnUntraced(function* (handlers) {
    const clearing = yield* Clearing
    return handlers
      .handle("quote", ({ payload }) => Effect.map(clearing.quote(payload), json))
      .handle("limits", ({ payload }) => Effect.map(clearing.limits(payload), json))
  }),
)

const SystemLive = HttpApiBuilder.group(
  ClearingApi,
  "system",
  Effect.fnUntraced(function* (handlers) {
    const clearing = yield* Clearing
    return handlers
      .handle("health", () => Effect.map(clearing.health(), json))
      // Notifications alone are answered with no content (JSON-RPC 2.0: nothing to answer).
      .handle("hubRpc", ({ payload }) => Effect.map(clearing.rpc(payload), (answer) => (answer === undefined ? HttpServerResponse.empty({ status: 204 }) : json(answer))))
  }),
)

/** Every handler group; requires `Clearing`. */
export const HandlersLive = Layer.mergeAll(IntentsLive, BatchesLive, AltchainsLive, InvoicesLive, ConfigsLive, RoutesLive, SystemLive)
