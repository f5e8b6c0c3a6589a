/**
 * The API's failures. Every 4xx body is exactly `{ error, message }`: `error` a stable code, `message` a sentence
 * naming the field and what was expected. The HTTP status is carried by the class (an annotation read by
 * HttpApi), so handlers fail with a value and never pick a status by hand. The same classes are the typed
 * failures of the in-process service.
 */
import * as Schema from "effect/Schema"

/** The largest request body the server reads by default (`maxBodyBytes`); a larger one is 413 `PayloadTooLarge`. */
export const DEFAULT_MAX_BODY_BYTES = 1_000_000

/** The most items a JSON array body may hold (an order of `POST /intents`, a hub JSON-RPC batch); more is refused unread. */
export const MAX_BODY_ARRAY_ITEMS = 1000

/** The `error` code of each refusal the server makes before an endpoint runs, by HTTP status. */
export const REFUSAL_CODES = {
  400: "InvalidRequest",
  404: "RouteNotFound",
  405: "MethodNotAllowed",
  408: "RequestTimeout",
  411: "LengthRequired",
  413: "PayloadTooLarge",
  415: "UnsupportedMediaType",
} as const satisfies Record<number, string>

const fields = {
  error: Schema.String.annotate({ description: "A stable error code, e.g. InvalidRequest, UnsupportedAsset, IntentNotFound." }),
  message: Schema.String.annotate({ description: "What was wrong, naming the field and what was expected." }),
}

/** 400: the request is malformed or names something the service does not support. */
export class BadRequest extends Schema.Error<BadRequest>("BadRequest")(fields, {
  httpApiStatus: 400,
  description: "Invalid input",
}) {}

/** 404: the resource does not exist, or no registries are deployed for the given domain. */
export class NotFound extends Schema.Error<NotFound>("NotFound")(fields, {
  httpApiStatus: 404,
  description: "Not found, or registries not found and deployed for the given domain",
}) {}

/** 500: a fault of the service; the message carries the request id under which it was logged. */
export class InternalError extends Schema.Error<InternalError>("InternalError")(fields, {
  httpApiStatus: 500,
  description: "Server error",
}) {}

export type ApiFailure = BadRequest | NotFound

export const badRequest = (error: string, message: string): BadRequest => new BadRequest({ error, message })
export const notFound = (error: string, message: string): NotFound => new NotFound({ error, message })

/** The spec's 404 for a domain without deployed registries. */
export const registriesNotFound = (domain: string, family = "EVM"): NotFound =>
  notFound("RegistriesNotFound", `No ${family} registries are deployed for domain ${domain}.`)
