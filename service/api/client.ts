/**
 * The typed client of the API, generated from the same HttpApi definition as the server (`HttpApiClient`): every
 * endpoint is a method with typed parameters, responses decoded against the response schemas, and failures as
 * the API's tagged errors (`BadRequest`, `NotFound`, `InternalError`).
 *
 * ```ts
 * const client = yield* makeClearingClient("http://127.0.0.1:8080")
 * const quote = yield* client.routes.quote({ payload: { origin: "10", destinations: ["1"], inputAsset, amount: "10000000000" } })
 * ```
 */
import * as Effect from "effect/Effect"
import { FetchHttpClient } from "effect/http"
import { HttpApiClient } from "effect/http-api"
import { ClearingApi } from "./api.ts"

export type ClearingClient = HttpApiClient.ForApi<typeof ClearingApi>

/** A client for the API served at `baseUrl` (fetch-based: Node 18+ and browsers). */
export const makeClearingClient = (baseUrl: string): Effect.Effect<ClearingClient> =>
  HttpApiClient.make(ClearingApi, { baseUrl }).pipe(Effect.provide(FetchHttpClient.layer))
