/**
 * The trace hash: keccak256 over the hub's events as the JSON lines `clearsim hub replay` prints, each
 * followed by `\n`. Anyone can recompute it from the printed lines.
 */
import type { Bytes32 } from "../domain/hex.ts"
import { Keccak256Stream } from "../domain/keccak.ts"
import { formatEvent, type HubEvent, type HubEventSink } from "./events.ts"

export class TraceHasher implements HubEventSink {
  // A large run's trace (hundreds of megabytes) is hashed in a worker thread once it passes 16 MB.
  private readonly stream = new Keccak256Stream({ offloadAfterBytes: 16 << 20 })
  events = 0

  constructor(private readonly onLine?: (line: string, event: HubEvent) => void) {}

  emit(event: HubEvent): void {
    const line = formatEvent(event)
    this.stream.writeLine(line)
    this.events++
    this.onLine?.(line, event)
  }

  digest(): Bytes32 {
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
