/**
 * Hub trace replay: a config line, then one input per line; prints every hub event as a JSON line and ends
 * with `{"kind":"summary","traceHash":"0x..","events":N}`. The engine's regression interface.
 */
import { createReadStream } from "node:fs"
import { createInterface } from "node:readline"
import type { Bytes32 } from "../domain/hex.ts"
import { ConservationViolation } from "./errors.ts"
import { blockRefusal } from "./handler.ts"
import { Hub } from "./hub.ts"
import { decodeConfigLine, decodeInputLine, InputLineError } from "./inputs.ts"
import { TraceHasher } from "./trace.ts"

export interface ReplayOptions {
  /** Receives each output line (events, then the summary), without newline. */
  readonly onLine: (line: string) => void
  /** Run the conservation check after every input (default: only after the last one). */
  readonly checkEveryInput?: boolean
}

export interface ReplaySummary {
  readonly traceHash: Bytes32
  readonly events: number
  readonly inputs: number
}

/** Replays a trace given as lines (any iterable, sync or async). Throws `InputLineError` on a bad line. */
export const replayLines = async (lines: AsyncIterable<string> | Iterable<string>, options: ReplayOptions): Promise<ReplaySummary> => {
  let hub: Hub | undefined
  let hasher: TraceHasher | undefined
  let lineNumber = 0
  let inputs = 0
  try {
    for await (const raw of lines) {
      lineNumber++
      const text = raw.trim()
      if (text === "") continue
      if (hub === undefined) {
        hasher = new TraceHasher((line) => options.onLine(line))
        try {
          hub = new Hub(decodeConfigLine(text, lineNumber), hasher)
        } catch (error) {
          if (error instanceof InputLineError) throw error
          throw new InputLineError(lineNumber, (error as Error).message)
        }
        continue
      }
      const input = decodeInputLine(text, lineNumber)
      // The clock only moves forward: a block going back is a broken trace, not a reverted call (checked before it
      // is applied, so that no `Reverted` event is printed for it).
      if (input.kind === "block") {
        const refusal = blockRefusal(hub.state, input.number, input.timestamp)
        if (refusal !== undefined) throw new InputLineError(lineNumber, `number/timestamp: ${refusal.message}`)
      }
      hub.apply(input)
      inputs++
      if (options.checkEveryInput === true) checkAt(hub, lineNumber)
    }
    if (hub === undefined || hasher === undefined) throw new InputLineError(lineNumber + 1, 'expected a first line {"kind":"config",...}, found an empty file')
    checkAt(hub, lineNumber)
    const summary = { traceHash: hasher.digest(), events: hasher.events, inputs }
    options.onLine(JSON.stringify({ kind: "summary", traceHash: summary.traceHash, events: summary.events }))
    return summary
  } finally {
    // The hashing worker of a long trace stops with the replay, a failed one included.
    hasher?.close()
  }
}

const checkAt = (hub: Hub, lineNumber: number): void => {
  try {
    hub.checkConservation()
  } catch (error) {
    if (error instanceof ConservationViolation) throw new ConservationViolation(error.ticker, `${error.quantity} after line ${lineNumber}`, error.expected, error.actual)
    throw error
  }
}

/** Replays a JSON-lines file. */
export const replayFile = (path: string, options: ReplayOptions): Promise<ReplaySummary> =>
  replayLines(createInterface({ input: createReadStream(path, { encoding: "utf8" }), crlfDelay: Number.POSITIVE_INFINITY }), options)
