/**
 * The trace hash: SHA-256 over the hub's events as the JSON lines `clearsim hub replay` prints, each
 * followed by `\n`. Anyone can recompute it from the printed lines (`sha256sum`).
 */
import type { Bytes32 } from "../domain/hex.ts"
import { Sha256Stream } from "../domain/sha256Stream.ts"
import { workersLoadTypeScript } from "../domain/textSink.ts"
import { formatEvent, type HubEvent, type HubEventSink } from "./events.ts"
import { EventPacker } from "./tracePacking.ts"

/**
 * The trace hash's function, as report.json and baselines name it (`traceHashAlgorithm`). Reports written before
 * it was named used keccak256 over the same lines.
 */
export const TRACE_HASH_ALGORITHM = "sha256"
/** What a report or baseline without `traceHashAlgorithm` used. */
export const LEGACY_TRACE_HASH_ALGORITHM = "keccak256"

/** Events gathered (packed) before they are posted to the hashing worker together. */
const EVENT_BATCH = 4096

export interface TraceHasherOptions {
  /** Hash in a worker thread once the trace passes this many bytes. Default 16 MB. */
  readonly offloadAfterBytes?: number
}

export class TraceHasher implements HubEventSink {
  /**
   * A large run's trace (hundreds of megabytes) is hashed in a worker thread once it passes 16 MB. From then on,
   * unless each line is wanted here (`onLine`), the events themselves go to the worker (packed, see
   * `tracePacking.ts`), which formats them with the same `formatEvent`: this thread only gathers them. (The worker
   * loads that TypeScript module itself: on a Node without type stripping the events are formatted here.)
   */
  private readonly stream: Sha256Stream
  private readonly packer = new EventPacker()
  events = 0

  private readonly onLine: ((line: string, event: HubEvent) => void) | undefined
  constructor(onLine?: (line: string, event: HubEvent) => void, options: TraceHasherOptions = {}) {
    this.onLine = onLine
    this.stream = new Sha256Stream({
      offloadAfterBytes: options.offloadAfterBytes ?? 16 << 20,
      ...(onLine === undefined && workersLoadTypeScript ? { textFormatter: { module: new URL("./tracePacking.ts", import.meta.url), exportName: "formatPackedEvents" } } : {}),
    })
  }

  emit(event: HubEvent): void {
    this.events++
    if (this.stream.acceptsValues) {
      // Events are never changed after they are emitted: posting them a little later posts the same fields.
      this.packer.add(event)
      if (this.packer.events === EVENT_BATCH || this.packer.full) this.postBatch()
      return
    }
    const line = formatEvent(event)
    this.stream.writeLine(line)
    this.onLine?.(line, event)
  }

  /** Whether events now go to the hashing worker to be formatted there. */
  get formatsInWorker(): boolean {
    return this.stream.acceptsValues
  }

  private postBatch(): void {
    this.stream.writeValues([this.packer.take()])
  }

  digest(): Bytes32 {
    if (this.packer.events > 0) this.postBatch()
    return this.stream.digest()
  }

  /** Stops the hashing worker of a large trace (see `Sha256Stream.close`). */
  close(): void {
    this.stream.close()
  }
}

/** Fans events out to several sinks in order. */
export class TeeSink implements HubEventSink {
  private readonly sinks: readonly HubEventSink[]
  constructor(sinks: readonly HubEventSink[]) {
    this.sinks = sinks
  }
  emit(event: HubEvent): void {
    for (const sink of this.sinks) sink.emit(event)
  }
}

/** Keeps every event in memory (tests, small runs). */
export class CollectingSink implements HubEventSink {
  readonly events: HubEvent[] = []
  emit(event: HubEvent): void {
    this.events.push(event)
  }
}

/** Drops events (benchmarks of the engine alone). */
export const discardSink: HubEventSink = { emit: () => {} }
