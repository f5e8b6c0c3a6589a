/**
 * The hub input trace as text (`trace.jsonl`: a config line, then one JSON line per input), and where a trace
 * goes while a simulation runs (`HubInputTrace`). Also the inputs packed for the worker thread that writes a large
 * run's trace file (`TraceFile`): intent batches as flat runs of field values, which cost a fraction of the
 * objects to post; the worker turns a batch back into the inputs and writes each with `encodeInputLine`, so the
 * file holds the lines this thread would have written.
 *
 * Loaded by that worker with Node's type stripping: type-only imports, no enums, no parameter properties.
 */
import type { Bytes32, Hex } from "../domain/hex.ts"
import type { Intent } from "../domain/protocol.ts"
import type { HubConfigInput } from "./config.ts"
import type { HubInput } from "./hub.ts"

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)
const str = JSON.stringify

/** `JSON.stringify(intentToJson(intent))`, without the intermediate object. */
export const intentJsonText = (intent: Intent): string => {
  const nonce = intent.nonce <= MAX_SAFE ? String(intent.nonce) : `"${intent.nonce}"`
  const destinations = intent.destinations.length === 1 ? `[${intent.destinations[0]}]` : str(intent.destinations)
  return `{"initiator":${str(intent.initiator)},"receiver":${str(intent.receiver)},"inputAsset":${str(intent.inputAsset)},"outputAsset":${str(intent.outputAsset)},"maxFee":${str(intent.maxFee)},"origin":${str(intent.origin)},"nonce":${nonce},"timestamp":${str(intent.timestamp)},"ttl":${str(intent.ttl)},"amount":"${intent.amount}","destinations":${destinations},"data":${str(intent.data)}}`
}

/** The JSON line of an input (what the simulator writes to `trace.jsonl`). */
export const encodeInputLine = (input: HubInput): string => {
  switch (input.kind) {
    case "intents": {
      // Written out by hand (a million-intent trace is 300 MB of these): the same text as
      // `JSON.stringify({ kind: "intents", intents: input.intents.map(intentToJson) })`.
      const intents = input.intents
      let text = '{"kind":"intents","intents":['
      for (let i = 0; i < intents.length; i++) text += (i === 0 ? "" : ",") + intentJsonText(intents[i]!)
      return input.caller === undefined ? `${text}]}` : `${text}],"caller":${str(input.caller)}}`
    }
    case "fills":
      return JSON.stringify(input.caller === undefined ? { kind: "fills", fills: input.fills } : { kind: "fills", fills: input.fills, caller: input.caller })
    case "withdrawFees":
      return JSON.stringify({ ...input, amount: input.amount.toString() })
    default:
      return JSON.stringify(input)
  }
}

/** The JSON line of a config. */
export const encodeConfigLine = (config: HubConfigInput): string => JSON.stringify({ kind: "config", ...config })

/** Where a hub input trace goes while a world runs: its config, then each input as it is applied. */
export interface HubInputTrace {
  config(config: HubConfigInput): void
  input(input: HubInput): void
}

/** A trace whose lines are made here and handed to `onLine` (without their newlines). */
export const lineTrace = (onLine: (line: string) => void): HubInputTrace => ({
  config: (config) => onLine(encodeConfigLine(config)),
  input: (input) => onLine(encodeInputLine(input)),
})

// Tags of packed inputs: an intent batch (then its length and each intent's fields in `Intent`'s order), or an
// input posted whole.
const INTENTS = 0
const WHOLE = 1
const INTENT_FIELDS = 12

/** Appends `input` to the batch `out` (an intent batch's `knownIds` are not part of the trace and are left out). */
export const packInput = (out: unknown[], input: HubInput): void => {
  if (input.kind !== "intents") {
    out.push(WHOLE, input)
    return
  }
  if (input.caller !== undefined) {
    // A direct `receiveMessage` by the owner or an ADMIN (rare): posted whole, with its caller.
    out.push(WHOLE, { kind: "intents", intents: input.intents, caller: input.caller })
    return
  }
  out.push(INTENTS, input.intents.length)
  for (const i of input.intents) out.push(i.initiator, i.receiver, i.inputAsset, i.outputAsset, i.maxFee, i.origin, i.nonce, i.timestamp, i.ttl, i.amount, i.destinations, i.data)
}

/** The inputs of a packed batch, in order. */
export const unpackInputs = (batch: readonly unknown[]): HubInput[] => {
  const inputs: HubInput[] = []
  const v = batch as readonly never[]
  for (let at = 0; at < v.length; ) {
    const tag = v[at] as unknown as number
    if (tag === WHOLE) {
      inputs.push(v[at + 1]!)
      at += 2
      continue
    }
    if (tag !== INTENTS) throw new Error(`unpackInputs: unknown tag ${String(tag)} at ${at}`)
    const count = v[at + 1]! as number
    const intents: Intent[] = new Array(count)
    let f = at + 2
    for (let n = 0; n < count; n++, f += INTENT_FIELDS) {
      intents[n] = {
        initiator: v[f]! as Bytes32,
        receiver: v[f + 1]!,
        inputAsset: v[f + 2]!,
        outputAsset: v[f + 3]!,
        maxFee: v[f + 4]!,
        origin: v[f + 5]!,
        nonce: v[f + 6]!,
        timestamp: v[f + 7]!,
        ttl: v[f + 8]!,
        amount: v[f + 9]!,
        destinations: v[f + 10]!,
        data: v[f + 11]! as Hex,
      }
    }
    inputs.push({ kind: "intents", intents })
    at = f
  }
  return inputs
}

/** The trace lines of a packed batch: each input's `encodeInputLine` line and its newline. */
export const formatPackedInputs = (batch: readonly unknown[]): string => {
  let text = ""
  for (const input of unpackInputs(batch)) text += `${encodeInputLine(input)}\n`
  return text
}
