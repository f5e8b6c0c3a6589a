/**
 * The JSON-lines form of hub inputs (`trace.jsonl`, `clearsim hub replay`): Effect Schemas for every line,
 * decoding to `HubInput` with errors that name the field, and the encoder the simulator records with.
 */
import * as Schema from "effect/Schema"
import { type Bytes32, toBytes32 } from "../domain/hex.ts"
import {
  Bytes32Input,
  Bytes32Strict,
  decodeWithProblems,
  FillJson,
  fillFromJson,
  formatProblems,
  IntentJson,
  intentFromJson,
  Uint24,
  Uint256String,
  Uint32,
  Uint48,
} from "../domain/schemas.ts"
import type { HubConfigInput } from "./config.ts"
import type { HubInput } from "./hub.ts"

const StrategyName = Schema.Literals(["default", "xerc20"])
const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative integer" }))
const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0, { expected: "a positive integer" }))

export const ConfigLine = Schema.Struct({
  kind: Schema.Literal("config"),
  hubDomain: Schema.optionalKey(Uint32),
  epochLength: Schema.optionalKey(PositiveInt),
  expiryTimeBuffer: Schema.optionalKey(Uint48),
  discountExemptEpochs: Schema.optionalKey(NonNegativeInt),
  userMaxDiscount: Schema.optionalKey(Schema.Boolean),
  allowFastPathSwaps: Schema.optionalKey(Schema.Boolean),
  minSolverSupportedDomains: Schema.optionalKey(NonNegativeInt),
  gasConfig: Schema.optionalKey(
    Schema.Struct({ settlementBaseGasUnits: NonNegativeInt, averageGasUnitsPerSettlement: NonNegativeInt, bufferDBPS: NonNegativeInt }),
  ),
  domainGasLimit: Schema.optionalKey(PositiveInt),
  supportedDomains: Schema.optionalKey(Schema.Array(Uint32)),
  owner: Schema.optionalKey(Bytes32Input),
  watchtower: Schema.optionalKey(Bytes32Input),
  admins: Schema.optionalKey(Schema.Array(Bytes32Input)),
  tickers: Schema.Array(
    Schema.Struct({
      symbol: Schema.String.check(Schema.isMinLength(1, { expected: "a non-empty symbol" })),
      discountPerEpoch: Schema.optionalKey(Uint24),
      maxDiscountDbps: Schema.optionalKey(Uint24),
      prioritizedStrategy: Schema.optionalKey(StrategyName),
      fees: Schema.optionalKey(Schema.Array(Schema.Struct({ recipient: Bytes32Input, fee: Uint24 }))),
      domains: Schema.Array(
        Schema.Struct({
          domain: Uint32,
          asset: Bytes32Input,
          decimals: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 77 }, { expected: "token decimals between 0 and 77" })),
          strategy: Schema.optionalKey(StrategyName),
        }),
      ),
    }),
  ),
})

/** A line kind: its schema and the conversion of a decoded line to a `HubInput`. */
const line = <S extends Schema.Codec<unknown, unknown>>(schema: S, toInput: (value: S["Type"]) => HubInput) => ({ schema, toInput })

const TickerName = Schema.String.check(Schema.isMinLength(1, { expected: "a ticker symbol or ticker hash" }))
const lowerId = (id: string): Bytes32 => id.toLowerCase() as Bytes32
const word = (value: string): Bytes32 => toBytes32(value) as Bytes32
/** Who called `receiveMessage` directly (owner or ADMIN); absent on a message the hub gateway delivered. */
const Caller = Schema.optionalKey(Bytes32Input)
const callerOf = (v: { readonly caller?: string }): { caller?: Bytes32 } => (v.caller === undefined ? {} : { caller: word(v.caller) })

const lineKinds = {
  block: line(
    Schema.Struct({ kind: Schema.Literal("block"), number: NonNegativeInt, timestamp: Uint48 }),
    (v) => ({ kind: "block", number: v.number, timestamp: v.timestamp }),
  ),
  intent: line(Schema.Struct({ kind: Schema.Literal("intent"), intent: IntentJson, caller: Caller }), (v) => ({
    kind: "intents",
    intents: [intentFromJson(v.intent)],
    ...callerOf(v),
  })),
  intents: line(Schema.Struct({ kind: Schema.Literal("intents"), intents: Schema.Array(IntentJson), caller: Caller }), (v) => ({
    kind: "intents",
    intents: v.intents.map(intentFromJson),
    ...callerOf(v),
  })),
  fill: line(Schema.Struct({ kind: Schema.Literal("fill"), fill: FillJson, caller: Caller }), (v) => ({ kind: "fills", fills: [fillFromJson(v.fill)], ...callerOf(v) })),
  fills: line(Schema.Struct({ kind: Schema.Literal("fills"), fills: Schema.Array(FillJson), caller: Caller }), (v) => ({
    kind: "fills",
    fills: v.fills.map(fillFromJson),
    ...callerOf(v),
  })),
  processDepositsAndInvoices: line(
    Schema.Struct({ kind: Schema.Literal("processDepositsAndInvoices"), ticker: TickerName, maxEpochs: Uint32, maxDeposits: Uint32, maxInvoices: Uint32 }),
    (v) => ({ kind: v.kind, ticker: v.ticker, maxEpochs: v.maxEpochs, maxDeposits: v.maxDeposits, maxInvoices: v.maxInvoices }),
  ),
  processSettlementQueue: line(Schema.Struct({ kind: Schema.Literal("processSettlementQueue"), domain: Uint32, amount: Uint32 }), (v) => ({
    kind: v.kind,
    domain: v.domain,
    amount: v.amount,
  })),
  handleExpiredIntents: line(Schema.Struct({ kind: Schema.Literal("handleExpiredIntents"), intentIds: Schema.Array(Bytes32Strict) }), (v) => ({
    kind: v.kind,
    intentIds: v.intentIds.map(lowerId),
  })),
  returnUnsupportedIntent: line(Schema.Struct({ kind: Schema.Literal("returnUnsupportedIntent"), intentId: Bytes32Strict }), (v) => ({
    kind: v.kind,
    intentId: lowerId(v.intentId),
  })),
  setUpdateVirtualBalance: line(Schema.Struct({ kind: Schema.Literal("setUpdateVirtualBalance"), user: Bytes32Input, status: Schema.Boolean }), (v) => ({
    kind: v.kind,
    user: word(v.user),
    status: v.status,
  })),
  setUserSupportedDomains: line(
    Schema.Struct({ kind: Schema.Literal("setUserSupportedDomains"), user: Bytes32Input, domains: Schema.Array(Uint32) }),
    (v) => ({ kind: v.kind, user: word(v.user), domains: v.domains }),
  ),
  withdrawFees: line(
    Schema.Struct({
      kind: Schema.Literal("withdrawFees"),
      withdrawer: Bytes32Input,
      feeRecipient: Bytes32Input,
      ticker: TickerName,
      amount: Uint256String,
      destinations: Schema.Array(Uint32),
    }),
    (v) => ({ kind: v.kind, withdrawer: word(v.withdrawer), feeRecipient: word(v.feeRecipient), ticker: v.ticker, amount: BigInt(v.amount), destinations: v.destinations }),
  ),
  updateEpochLength: line(Schema.Struct({ kind: Schema.Literal("updateEpochLength"), epochLength: PositiveInt }), (v) => ({
    kind: v.kind,
    epochLength: v.epochLength,
  })),
  pause: line(Schema.Struct({ kind: Schema.Literal("pause"), caller: Bytes32Input }), (v) => ({ kind: v.kind, caller: word(v.caller) })),
  unpause: line(Schema.Struct({ kind: Schema.Literal("unpause"), caller: Bytes32Input }), (v) => ({ kind: v.kind, caller: word(v.caller) })),
}

type LineKind = keyof typeof lineKinds
export const INPUT_KINDS = Object.keys(lineKinds) as readonly LineKind[]

/** A line that is not a valid input; the message names the line, the field (dotted path) and the expectation. */
export class InputLineError extends Error {
  override readonly name = "InputLineError"
  readonly line: number
  readonly detail: string
  constructor(line: number, detail: string) {
    super(`line ${line}: ${detail}`)
    this.line = line
    this.detail = detail
  }
}

const parseJsonObject = (text: string, lineNumber: number): Record<string, unknown> => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new InputLineError(lineNumber, `not valid JSON (${(error as Error).message})`)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new InputLineError(lineNumber, "expected a JSON object")
  return value as Record<string, unknown>
}

/** Decodes the first line of a trace: the hub configuration. */
export const decodeConfigLine = (text: string, lineNumber = 1): HubConfigInput => {
  const raw = parseJsonObject(text, lineNumber)
  if (raw.kind === undefined) throw new InputLineError(lineNumber, `kind: required, but missing (the first line is "config")`)
  if (raw.kind !== "config") throw new InputLineError(lineNumber, `kind: expected "config" on the first line, got ${JSON.stringify(raw.kind)}`)
  const decoded = decodeWithProblems(ConfigLine, raw, { strict: true })
  if (!decoded.ok) throw new InputLineError(lineNumber, formatProblems(decoded.problems))
  const { kind: _kind, ...config } = decoded.value
  return config
}

/** Decodes one input line to a `HubInput` (single `intent`/`fill` lines become one-element batches). */
export const decodeInputLine = (text: string, lineNumber: number): HubInput => {
  const raw = parseJsonObject(text, lineNumber)
  const kind = raw.kind
  if (typeof kind !== "string" || !Object.hasOwn(lineKinds, kind)) {
    const kinds = INPUT_KINDS.map((k) => `"${k}"`).join(", ")
    throw new InputLineError(lineNumber, kind === undefined ? `kind: required, but missing (one of ${kinds})` : `kind: expected one of ${kinds}, got ${JSON.stringify(kind)}`)
  }
  const spec = lineKinds[kind as LineKind] as { schema: Schema.Codec<unknown, unknown>; toInput: (value: unknown) => HubInput }
  const decoded = decodeWithProblems(spec.schema, raw, { strict: true })
  if (!decoded.ok) throw new InputLineError(lineNumber, formatProblems(decoded.problems))
  return spec.toInput(decoded.value)
}

export { encodeConfigLine, encodeInputLine } from "./inputLines.ts"
