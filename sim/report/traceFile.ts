/**
 * `trace.jsonl` as a run writes it: the hub's input trace (`HubInputTrace`), one JSON line per input after the
 * config line. Lines are encoded into a 1 MB buffer and written with synchronous writes when it fills and at
 * `close()`: a simulation produces lines far faster than an asynchronous stream drains them between its yields to
 * the event loop, and the stream would hold each line's buffer until then (hundreds of megabytes that the garbage
 * collector promotes and copies); here nothing is held, and a failed write (a full disk) throws from the run
 * instead of surfacing later as an unhandled stream error.
 *
 * A large trace (past `offloadAfterBytes`, 16 MB by default) is handed to a worker thread: the inputs are posted
 * to it in packed batches (`packInput`) and it makes the lines (`encodeInputLine`, the same text) and appends
 * them, on the other core. `close()` waits until it has written everything; its failures fail the next post or
 * the close.
 *
 * Every failure to write the file is thrown with the file's `path` (`writeSync`'s own errors have none, so a full
 * disk would read "(unknown path): no space left on device"): the file-system error itself, or the worker's
 * failure as an `Error` carrying `path`. A caller tells by it that the trace, not the run, failed.
 *
 * `end()` closes a complete trace with its end line (`{"kind":"end","inputs":N}`, see `service/hub/replay.ts`), by
 * which `clearsim hub replay` tells it from one cut short; `close()` alone leaves the trace without it.
 */
import { closeSync, openSync, writeSync } from "node:fs"
import { workersLoadTypeScript, TextSinkWorker } from "../../service/domain/textSink.ts"
import type { HubConfigInput } from "../../service/hub/config.ts"
import type { HubInput } from "../../service/hub/hub.ts"
import { encodeConfigLine, encodeInputLine, type HubInputTrace, packInput } from "../../service/hub/inputLines.ts"
import { encodeEndLine } from "../../service/hub/replay.ts"

const CHUNK_BYTES = 1 << 20
/** Packed values gathered before a batch is posted to the worker (a few thousand intents). */
const BATCH_VALUES = 1 << 16

export interface TraceFileOptions {
  /**
   * Hand the writing to a worker thread once this many bytes have been written here (default 16 MB; never on a
   * Node that cannot load the worker's TypeScript formatter, see `workersLoadTypeScript`).
   */
  readonly offloadAfterBytes?: number
}

export class TraceFile implements HubInputTrace {
  private readonly fd: number
  private readonly chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES)
  private length = 0
  private writtenBytes = 0
  private readonly offloadAfterBytes: number
  private worker: TextSinkWorker | undefined = undefined
  private batch: unknown[] = []
  private closed = false
  private inputs = 0

  readonly path: string
  /** Creates (or truncates) the file at `path`. */
  constructor(path: string, options: TraceFileOptions = {}) {
    this.path = path
    this.fd = openSync(path, "w")
    this.offloadAfterBytes = workersLoadTypeScript ? (options.offloadAfterBytes ?? 16 << 20) : Number.POSITIVE_INFINITY
  }

  /** Whether the lines are made and written by the worker thread now. */
  get offloaded(): boolean {
    return this.worker !== undefined
  }

  config(config: HubConfigInput): void {
    this.line(encodeConfigLine(config))
  }

  input(input: HubInput): void {
    this.inputs++
    if (this.worker !== undefined) {
      this.assertOpen()
      // Inputs are never changed after they are applied: posting them a little later posts the same fields.
      packInput(this.batch, input)
      if (this.batch.length >= BATCH_VALUES) this.postBatch()
      return
    }
    this.line(encodeInputLine(input))
    if (this.writtenBytes + this.length >= this.offloadAfterBytes) this.offload()
  }

  /** Appends `text` as UTF-8, then `\n`. */
  line(text: string): void {
    this.assertOpen()
    if (this.worker !== undefined) {
      this.postBatch()
      const bytes = new Uint8Array(Buffer.from(`${text}\n`, "utf8"))
      this.writing(() => this.worker!.post(bytes))
      return
    }
    // A UTF-16 unit takes at most 3 UTF-8 bytes; the newline one more.
    const most = text.length * 3 + 1
    if (this.length + most > CHUNK_BYTES) {
      this.flush()
      if (most > CHUNK_BYTES) {
        this.writeAll(Buffer.from(`${text}\n`, "utf8"))
        return
      }
    }
    this.length += this.chunk.write(text, this.length, "utf8")
    this.chunk[this.length++] = 0x0a
  }

  /** Writes out what the buffer holds, or (offloaded) waits until the worker has written everything posted. */
  flush(): void {
    if (this.worker !== undefined) {
      this.postBatch()
      this.writing(() => this.worker!.sync())
      return
    }
    if (this.length === 0) return
    const bytes = this.chunk.subarray(0, this.length)
    this.length = 0
    this.writeAll(bytes)
  }

  /** Appends the end line (the number of inputs written), then closes the file: the trace is complete. */
  end(): void {
    this.line(encodeEndLine(this.inputs))
    this.close()
  }

  /**
   * Flushes and closes the file (once; later calls do nothing). When the worker did not finish (a failed write, a
   * stall), the file is closed only once its thread has stopped, so that no write of it lands on a descriptor
   * number reused meanwhile.
   */
  close(): void {
    if (this.closed) return
    let flushed = false
    try {
      this.flush()
      flushed = true
    } finally {
      this.closed = true
      const worker = this.worker
      if (worker === undefined) this.writing(() => closeSync(this.fd))
      else if (flushed) {
        void worker.close()
        this.writing(() => closeSync(this.fd))
      } else void worker.close().then(() => closeSync(this.fd))
    }
  }

  private offload(): void {
    this.flush()
    this.worker = new TextSinkWorker({
      owner: `TraceFile ${this.path}`,
      fd: this.fd,
      formatter: { module: new URL("../../service/hub/inputLines.ts", import.meta.url), exportName: "formatPackedInputs" },
    })
  }

  private postBatch(): void {
    if (this.batch.length === 0) return
    const batch = this.batch
    this.batch = []
    this.writing(() => this.worker!.postValues([batch]))
  }

  private assertOpen(): void {
    if (this.closed) throw new Error(`TraceFile: ${this.path} is closed`)
  }

  private writeAll(bytes: Uint8Array): void {
    this.writing(() => {
      for (let written = 0; written < bytes.length; ) written += writeSync(this.fd, bytes, written, bytes.length - written)
    })
    this.writtenBytes += bytes.length
  }

  /** Runs `write`, its failure thrown with this file's path (see the module's comment). */
  private writing<A>(write: () => A): A {
    try {
      return write()
    } catch (error) {
      if (error instanceof Error && (error as NodeJS.ErrnoException).path === undefined) Object.assign(error, { path: this.path })
      throw error
    }
  }
}
