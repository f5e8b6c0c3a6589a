/**
 * `trace.jsonl` as a run writes it: lines encoded into a 1 MB buffer, written with synchronous writes when it
 * fills and at `close()`. A simulation produces lines far faster than an asynchronous stream drains them between
 * its yields to the event loop, and the stream would hold each line's buffer until then (hundreds of megabytes
 * that the garbage collector promotes and copies); here nothing is held, and a failed write (a full disk) throws
 * from the run instead of surfacing later as an unhandled stream error.
 */
import { closeSync, openSync, writeSync } from "node:fs"

const CHUNK_BYTES = 1 << 20

export class TraceFile {
  private readonly fd: number
  private readonly chunk = Buffer.allocUnsafeSlow(CHUNK_BYTES)
  private length = 0
  private closed = false

  /** Creates (or truncates) the file at `path`. */
  constructor(readonly path: string) {
    this.fd = openSync(path, "w")
  }

  /** Appends `text` as UTF-8, then `\n`. */
  line(text: string): void {
    if (this.closed) throw new Error(`TraceFile: ${this.path} is closed`)
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

  /** Writes out what the buffer holds. */
  flush(): void {
    if (this.length === 0) return
    const bytes = this.chunk.subarray(0, this.length)
    this.length = 0
    this.writeAll(bytes)
  }

  /** Flushes and closes the file (once; later calls do nothing). */
  close(): void {
    if (this.closed) return
    this.closed = true
    try {
      this.flush()
    } finally {
      closeSync(this.fd)
    }
  }

  private writeAll(bytes: Uint8Array): void {
    for (let written = 0; written < bytes.length; ) written += writeSync(this.fd, bytes, written, bytes.length - written)
  }
}
