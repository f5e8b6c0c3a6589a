/**
 * Effect Schemas of the anvil JSON-RPC results the pool reads itself (block headers, parity traces, logs,
 * quantities), decoded at the boundary so that a surprising answer fails with the chain, method and path
 * instead of surfacing later as `undefined`.
 */
import * as Schema from "effect/Schema"
import { RpcTransportError } from "./errors.ts"

const HexString = Schema.String.check(Schema.isPattern(/^0x[0-9a-fA-F]*$/, { expected: "a 0x-prefixed hex string" }))
const Hash = Schema.String.check(Schema.isPattern(/^0x[0-9a-fA-F]{64}$/, { expected: "a 32-byte 0x-prefixed hash" }))
const Address = Schema.String.check(Schema.isPattern(/^0x[0-9a-fA-F]{40}$/, { expected: "a 20-byte 0x-prefixed address" }))

export const QuantityJson = HexString

/** `eth_getBlockByNumber(n, false)`: the fields the pool uses. */
export const BlockHeaderJson = Schema.Struct({
  number: HexString,
  hash: Hash,
  timestamp: HexString,
  transactions: Schema.Array(Hash),
})
export type BlockHeaderJson = typeof BlockHeaderJson.Type

/** One entry of `trace_block` (parity format). Top-level entries have an empty `traceAddress`. */
export const TraceJson = Schema.Struct({
  transactionHash: Schema.optional(Schema.NullOr(Hash)),
  traceAddress: Schema.Array(Schema.Number),
  type: Schema.String,
  error: Schema.optional(Schema.NullOr(Schema.String)),
  result: Schema.optional(
    Schema.NullOr(
      Schema.Struct({
        output: Schema.optional(Schema.NullOr(HexString)),
        address: Schema.optional(Schema.NullOr(Address)),
      }),
    ),
  ),
})
export const TraceBlockJson = Schema.NullOr(Schema.Array(TraceJson))
export type TraceJson = typeof TraceJson.Type

/** One `eth_getLogs` entry of a mined block. */
export const LogJson = Schema.Struct({
  address: Address,
  topics: Schema.Array(Hash),
  data: HexString,
  blockHash: Hash,
  blockNumber: HexString,
  transactionHash: Hash,
  transactionIndex: HexString,
  logIndex: HexString,
  removed: Schema.Boolean,
})
export const LogsJson = Schema.Array(LogJson)
export type LogJson = typeof LogJson.Type

export const AddressListJson = Schema.Array(Address)

/** Decodes an RPC result or throws `RpcTransportError` naming the chain, method and the schema issue. */
export const decodeResult = <S extends Schema.ConstraintDecoder<unknown>>(
  schema: S,
  value: unknown,
  context: { readonly chainId: number; readonly url: string; readonly method: string },
): S["Type"] => {
  try {
    return Schema.decodeUnknownSync(schema)(value)
  } catch (cause) {
    const issue = cause instanceof Error ? cause.message : String(cause)
    throw new RpcTransportError(context.chainId, context.url, context.method, `unexpected result: ${issue}`, cause)
  }
}
