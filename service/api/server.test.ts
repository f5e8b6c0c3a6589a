/** `toBadRequest`: a request-decoding failure as the one `{ error, message }` the API answers. */
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import { HttpApiError } from "effect/http-api"
import { describe, expect, it } from "vitest"
import { toBadRequest } from "./server.ts"

/** The message `toBadRequest` gives for `value` decoded as a body of `schema`. */
const messageOf = (schema: Schema.Top, value: unknown): string => {
  const exit = Schema.decodeUnknownExit(schema as Schema.Codec<unknown, unknown>)(value, { errors: "all" })
  if (Exit.isSuccess(exit)) throw new Error("decoded")
  const cause = Cause.squash(exit.cause) as Schema.SchemaError
  return toBadRequest(new HttpApiError.HttpApiSchemaError({ kind: "Payload", cause })).message
}

describe("toBadRequest", () => {
  it("tells 'Expected an integer' once when union members all said it alone at a field, rather than dropping every issue ('Invalid request. .')", () => {
    expect(messageOf(Schema.Struct({ a: Schema.Union([Schema.Int, Schema.Int.pipe(Schema.brand("other"))]) }), { a: 1.5 })).toBe("Invalid request. body a: Expected an integer.")
    expect(messageOf(Schema.Struct({ a: Schema.Union([Schema.Struct({ k: Schema.Int }), Schema.Struct({ k: Schema.Int, j: Schema.optionalKey(Schema.String) })]) }), { a: { k: 1.5 } })).toBe(
      "Invalid request. body a.k: Expected an integer.",
    )
  })

  it("still drops 'Expected an integer' beside another message of the same field, and tells one field's alike messages once", () => {
    const Bounded = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 10 }, { expected: "a number from 0 to 10" }))
    expect(messageOf(Schema.Struct({ a: Bounded }), { a: 1e17 })).toBe("Invalid request. body a: Expected a number from 0 to 10.")
    expect(messageOf(Schema.Struct({ a: Schema.Int }), { a: 1.5 })).toBe("Invalid request. body a: Expected an integer.")
    expect(messageOf(Schema.Struct({ a: Schema.Union([Bounded, Bounded.pipe(Schema.brand("other"))]) }), { a: 1e17 })).toBe("Invalid request. body a: Expected a number from 0 to 10.")
  })
})
