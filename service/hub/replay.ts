/**
 * Hub trace replay: a config line, then one input per line; prints every hub event as a JSON line and ends
 * with `{"kind":"summary","traceHash":"0x..","events":N}`. The engine's regression interface.
 *
 * A trace may end with an end line, `{"kind":"end","inputs":N}` (`encodeEndLine`), which `clearsim run` writes when
 * a run completes and `clearsim up` when its session stops: it is no input (the hub's events and the trace hash are
 * the same without it), and a trace that lacks it may have been cut short at a line boundary, which no line's check
 * can see. Traces without one (written by hand, by a session still running, by earlier versions) replay as before;
 * the summary says whether there was one.
 */
import { createReadStream, statSync } from "node:fs"
import { createInterface } from "node:readline"
import { pipeline, Transform } from "node:stream"
import type { Bytes32 } from "../domain/hex.ts"
import { ConservationViolation } from "./errors.ts"
import { blockRefusal } from "./handler.ts"
import { Hub, type HubInput } from "./hub.ts"
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
  /** The trace's end line, when it has one (its line number). */
  readonly end?: { readonly line: number }
}

/** The line that ends a complete trace: the number of inputs before it. */
export const encodeEndLine = (inputs: number): string => `{"kind":"end","inputs":${inputs}}`

/** Whether a line is an end line (checked by `checkEndLine`); input lines never start so. */
const isEndLine = (text: string): boolean => /^\{\s*"kind"\s*:\s*"end"\s*[,}]/.test(text)

/** An end line counts the inputs above it; nothing but blank lines may follow it. */
const checkEndLine = (text: string, lineNumber: number, inputs: number): void => {
  let value: Record<string, unknown>
  try {
    value = JSON.parse(text) as Record<string, unknown>
  } catch (error) {
    throw new InputLineError(lineNumber, `not valid JSON (${(error as Error).message})`)
  }
  const { kind: _kind, inputs: counted, ...others } = value
  const unknown = Object.keys(others)[0]
  if (unknown !== undefined) throw new InputLineError(lineNumber, `${unknown}: unknown key (an end line has kind and inputs)`)
  if (counted === undefined) throw new InputLineError(lineNumber, `inputs: Missing key: expected ${inputs}, the number of inputs above this end line`)
  if (counted !== inputs) throw new InputLineError(lineNumber, `inputs: expected ${inputs}, the number of inputs above this end line, got ${JSON.stringify(counted)}`)
}

const afterEnd = (lineNumber: number, endLine: number): InputLineError =>
  new InputLineError(lineNumber, `expected nothing after the end line (line ${endLine}), found another line`)

/** Replays a trace given as lines (any iterable, sync or async). Throws `InputLineError` on a bad line. */
export const replayLines = async (lines: AsyncIterable<string> | Iterable<string>, options: ReplayOptions): Promise<ReplaySummary> => {
  let hub: Hub | undefined
  let hasher: TraceHasher | undefined
  let lineNumber = 0
  let inputs = 0
  let endLine: number | undefined
  try {
    for await (const raw of lines) {
      lineNumber++
      const text = raw.trim()
      if (text === "") continue
      if (endLine !== undefined) throw afterEnd(lineNumber, endLine)
      if (hub === undefined) {
        hasher = new TraceHasher((line) => options.onLine(line))
        hub = hubOfConfigLine(text, lineNumber, hasher)
        continue
      }
      if (isEndLine(text)) {
        checkEndLine(text, lineNumber, inputs)
        endLine = lineNumber
        continue
      }
      const input = decodeInputLine(text, lineNumber)
      checkBlock(hub.state, input, lineNumber)
      hub.apply(input)
      inputs++
      if (options.checkEveryInput === true) checkAt(hub, lineNumber)
    }
    if (hub === undefined || hasher === undefined) throw emptyTrace(lineNumber)
    checkAt(hub, lineNumber)
    const summary = { traceHash: hasher.digest(), events: hasher.events, inputs, ...(endLine === undefined ? {} : { end: { line: endLine } }) }
    options.onLine(JSON.stringify({ kind: "summary", traceHash: summary.traceHash, events: summary.events }))
    return summary
  } finally {
    // The hashing worker of a long trace stops with the replay, a failed one included.
    hasher?.close()
  }
}

/** The hub of a trace's config line (a config the hub refuses is that line's error). */
const hubOfConfigLine = (text: string, lineNumber: number, observer: ConstructorParameters<typeof Hub>[1]): Hub => {
  try {
    return new Hub(decodeConfigLine(text, lineNumber), observer)
  } catch (error) {
    if (error instanceof InputLineError) throw error
    throw new InputLineError(lineNumber, (error as Error).message)
  }
}

/**
 * The clock only moves forward: a block going back is a broken trace, not a reverted call (checked before it is
 * applied, so that no `Reverted` event is printed for it).
 */
const checkBlock = (clock: { readonly blockNumber: number; readonly timestamp: number }, input: HubInput, lineNumber: number): void => {
  if (input.kind !== "block") return
  const refusal = blockRefusal(clock, input.number, input.timestamp)
  if (refusal !== undefined) throw new InputLineError(lineNumber, `number/timestamp: ${refusal.message}`)
}

const emptyTrace = (lineNumber: number): InputLineError => new InputLineError(lineNumber + 1, 'expected a first line {"kind":"config",...}, found an empty file')

/**
 * Checks every line of a trace as `replayLines` reads it (the config the hub accepts, each input's fields, blocks
 * never going back, an end line's count and nothing after it), applying nothing and printing nothing: a malformed
 * trace is refused before its first event is printed. What only running the hub finds (a conservation violation)
 * is left to the replay. Returns the number of lines read.
 */
export const checkTraceLines = async (lines: AsyncIterable<string> | Iterable<string>): Promise<number> => {
  let lineNumber = 0
  let configured = false
  let inputs = 0
  let endLine: number | undefined
  const clock = { blockNumber: 0, timestamp: 0 }
  for await (const raw of lines) {
    lineNumber++
    const text = raw.trim()
    if (text === "") continue
    if (endLine !== undefined) throw afterEnd(lineNumber, endLine)
    if (!configured) {
      const hub = hubOfConfigLine(text, lineNumber, { emit: () => {} })
      clock.blockNumber = hub.state.blockNumber
      clock.timestamp = hub.state.timestamp
      configured = true
      continue
    }
    if (isEndLine(text)) {
      checkEndLine(text, lineNumber, inputs)
      endLine = lineNumber
      continue
    }
    const input = decodeInputLine(text, lineNumber)
    inputs++
    checkBlock(clock, input, lineNumber)
    if (input.kind === "block") {
      clock.blockNumber = input.number
      clock.timestamp = input.timestamp
    }
  }
  if (!configured) throw emptyTrace(lineNumber)
  return lineNumber
}

const checkAt = (hub: Hub, lineNumber: number): void => {
  try {
    hub.checkConservation()
  } catch (error) {
    if (error instanceof ConservationViolation) throw new ConservationViolation(error.ticker, `${error.quantity} after line ${lineNumber}`, error.expected, error.actual)
    throw error
  }
}

/** The longest trace line read: a config line or one input (the largest a run writes are a few megabytes). */
export const MAX_TRACE_LINE_BYTES = 128 * 2 ** 20

/**
 * The bytes of a trace as they come, refusing a line longer than `maxLineBytes` (an `InputLineError` naming it):
 * the line reader keeps a line in one string until its end, so a file without one (/dev/zero, a binary file) would
 * grow it past the engine's string limit after taking its memory.
 */
const lineLengthGuard = (maxLineBytes: number): Transform => {
  let lineBytes = 0 // bytes of the line being read, before this chunk
  let lineNumber = 1
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let start = 0
      for (;;) {
        const end = chunk.indexOf(0x0a, start)
        if (end === -1) break
        if (lineBytes + end - start > maxLineBytes) return done(tooLong(lineNumber, maxLineBytes))
        lineBytes = 0
        lineNumber++
        start = end + 1
      }
      lineBytes += chunk.length - start
      if (lineBytes > maxLineBytes) return done(tooLong(lineNumber, maxLineBytes))
      done(null, chunk)
    },
  })
}

const tooLong = (lineNumber: number, maxLineBytes: number): InputLineError =>
  new InputLineError(lineNumber, `longer than ${maxLineBytes / 2 ** 20} MiB without a line end; expected a JSON line of a trace (a few megabytes at most)`)

const fileLines = (path: string, maxLineBytes = MAX_TRACE_LINE_BYTES) => {
  const guard = lineLengthGuard(maxLineBytes)
  // pipeline hands the file's own errors (ENOENT, EISDIR) to the guard, whose reader throws them.
  pipeline(createReadStream(path), guard, () => undefined)
  guard.setEncoding("utf8")
  return createInterface({ input: guard, crlfDelay: Number.POSITIVE_INFINITY })
}

/** The first `count` lines of `lines`. */
async function* firstLines(lines: AsyncIterable<string>, count: number): AsyncGenerator<string> {
  if (count === 0) return
  let n = 0
  for await (const line of lines) {
    yield line
    if (++n === count) return
  }
}

/**
 * Replays a JSON-lines file, after checking all of it (`checkTraceLines`): a bad line prints no event. A regular
 * file is read twice, and the replay stops at the last line checked (a trace `clearsim up` is still writing grows
 * in between); a pipe or other stream, which can be read once, is read into memory first.
 */
export const replayFile = async (path: string, options: ReplayOptions, maxLineBytes = MAX_TRACE_LINE_BYTES): Promise<ReplaySummary> => {
  if (!statSync(path).isFile()) {
    const lines: string[] = []
    for await (const line of fileLines(path, maxLineBytes)) lines.push(line)
    await checkTraceLines(lines)
    return replayLines(lines, options)
  }
  const checked = await checkTraceLines(fileLines(path, maxLineBytes))
  return replayLines(firstLines(fileLines(path, maxLineBytes), checked), options)
}
