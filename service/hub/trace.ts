/**
 * The trace hash: keccak256 over the hub's events as the JSON lines `clearsim hub replay` prints, each
 * followed by `\n`. Anyone can recompute it from the printed lines.
 */
import type { Bytes32 } from "../domain/hex.ts"
import { Keccak256Stream } from "../domain/keccak.ts"
import { formatEvent, type HubEvent, type HubEventSink } from "./events.ts"

/** Events gathered before they are posted to the hashing worker together (one structured clone each). */
const EVENT_BATCH = 4096

/**
 * The worker loads `events.ts` itself, which needs a Node that strips TypeScript types (22.18 and later, as
 * the project's own Node is); on another Node the events are formatted in this thread as before.
 */
const workerCanFormat = (process.features as { readonly typescript?: string }).typescript !== undefined

export interface TraceHasherOptions {
  /** Hash in a worker thread once the trace passes this many bytes. Default 16 MB. */
  readonly offloadAfterBytes?: number
}

export class TraceHasher implements HubEventSink {
  /**
   * A large run's trace (hundreds of megabytes) is hashed in a worker thread once it passes 16 MB. From then on,
   * unless each line is wanted here (`onLine`), the events themselves go to the worker, which formats them with
   * the same `formatEvent`: this thread only gathers them.
   */
  private readonly stream: Keccak256Stream
  private batch: HubEvent[] = []
  events = 0

  constructor(
    private readonly onLine?: (line: string, event: HubEvent) => void,
    options: TraceHasherOptions = {},
  ) {
    this.stream = new Keccak256Stream({
      offloadAfterBytes: options.offloadAfterBytes ?? 16 << 20,
      ...(onLine === undefined && workerCanFormat ? { lineFormatter: { module: new URL("./events.ts", import.meta.url), exportName: "formatEvent" } } : {}),
    })
  }

  emit(event: HubEvent): void {
    this.events++
    if (this.stream.acceptsValueLines) {
      // Events are never changed after they are emitted: posting them a little later posts the same fields.
      if (this.batch.push(event) === EVENT_BATCH) this.postBatch()
      return
    }
    const line = formatEvent(event)
    this.stream.writeLine(line)
    this.onLine?.(line, event)
  }

  /** Whether events now go to the hashing worker to be formatted there. */
  get formatsInWorker(): boolean {
    return this.stream.acceptsValueLines
  }

  private postBatch(): void {
    const batch = this.batch
    this.batch = []
    this.stream.writeValueLines(batch)
  }

  digest(): Bytes32 {
    if (this.batch.length > 0) this.postBatch()
    return this.stream.digest()
  }

  /** Stops the hashing worker of a large trace (see `Keccak256Stream.close`). */
  close(): void {
    this.stream.close()
  }
}

/** Fans events out to several sinks in order. */
export class TeeSink implements HubEventSink {
  constructor(private readonly sinks: readonly HubEventSink[]) {}
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
