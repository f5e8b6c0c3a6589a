/**
 * An incremental SHA-256 over a long stream of text: the trace hash (service/hub/trace.ts), which anyone can
 * recompute from the printed lines with `sha256sum`.
 *
 * SHA-256 is node:crypto's (OpenSSL, with the CPU's SHA extensions where it has them): about 0.7 ns per byte
 * here, a ninth of what a WebAssembly keccak costs on the same lines. A million-intent run writes about 750 MB
 * of trace, so the hash function alone decided seconds of the run.
 *
 * Small writes are gathered and hashed in large pieces. A long stream moves to a worker thread once it passes
 * `offloadAfterBytes`: later writes are encoded here (or, with a text formatter, posted as values and formatted
 * there) and hashed there, and `digest()` waits for the worker. A native hash's state cannot move to another
 * thread, so until it does the stream keeps the bytes it hashed (at most `offloadAfterBytes` and one piece) and
 * the worker hashes them again first. The digest is always the hash of the UTF-8 encoding of everything written,
 * as one string (a surrogate pair split across writes included).
 */
import { createHash, type Hash } from "node:crypto"
import { type Bytes32, bytesToHex } from "./hex.ts"
import { type TextFormatter, TextSinkWorker } from "./textSink.ts"

export interface Sha256StreamOptions {
  /**
   * Once this many bytes have been hashed here, continue in a worker thread: later writes are encoded here and
   * hashed there, concurrently, and `digest()` waits for the worker (same result). For streams of hundreds of
   * megabytes (a million-intent run's trace); undefined (the default) never offloads.
   */
  readonly offloadAfterBytes?: number
  /**
   * With offloading: a function the worker imports (`exportName` of the module at `module`, which must load in
   * a plain Node worker: JavaScript, or TypeScript that only needs type stripping) to turn values into text.
   * `writeValues` then posts the values themselves and the worker hashes the UTF-8 of `format(value)` for each,
   * so that the formatting is done on the worker's core too.
   */
  readonly textFormatter?: TextFormatter
}

/** Bytes per chunk posted to an offloaded stream's worker. */
const WORKER_CHUNK_BYTES = 1 << 20
/** UTF-16 units gathered before they are hashed here. */
const FLUSH_UNITS = 1 << 16

/** Whether `text` ends with the first half of a surrogate pair (whose second half may come with the next write). */
const endsInHighSurrogate = (text: string): boolean => {
  const last = text.charCodeAt(text.length - 1)
  return last >= 0xd800 && last <= 0xdbff
}

export class Sha256Stream {
  private hash: Hash | undefined = createHash("sha256")
  private pending: string[] = []
  private pendingLength = 0
  /** A high surrogate held back from the last encoded text, waiting for its pair ("" when none). */
  private carry = ""
  /** Bytes hashed in this thread so far (until offloaded). */
  private hashedBytes = 0
  /** Until offloaded (only when the stream may offload): the bytes hashed here, for the worker to hash again. */
  private hashed: Buffer[] = []
  private worker: TextSinkWorker | undefined = undefined
  private readonly offloadAfterBytes: number
  private readonly textFormatter: TextFormatter | undefined
  /** Offloaded: the chunk being filled for the worker. */
  private chunk = Buffer.alloc(0)
  private chunkLength = 0
  private closed = false

  constructor(options: Sha256StreamOptions = {}) {
    this.offloadAfterBytes = options.offloadAfterBytes ?? Number.POSITIVE_INFINITY
    this.textFormatter = options.textFormatter
  }

  /** Whether the hash goes on in a worker thread now. */
  get offloaded(): boolean {
    return this.worker !== undefined
  }

  /** Appends the UTF-8 bytes of `text`. */
  writeUtf8(text: string): void {
    this.assertOpen()
    if (this.worker !== undefined) return this.encodeForWorker(text, true)
    this.pending.push(text)
    this.pendingLength += text.length
    if (this.pendingLength >= FLUSH_UNITS) this.flush()
  }

  /** Appends the UTF-8 bytes of `text`, then `\n` (the same as `writeUtf8(text + "\n")`). */
  writeLine(text: string): void {
    this.assertOpen()
    if (this.worker !== undefined) {
      this.encodeForWorker(text, false)
      // encodeForWorker left room for 3 bytes per unit of `text` (and the carry) plus one: the newline's.
      this.chunk[this.chunkLength++] = 0x0a
      return
    }
    this.pending.push(text, "\n")
    this.pendingLength += text.length + 1
    if (this.pendingLength >= FLUSH_UNITS) this.flush()
  }

  /**
   * Whether `writeValues` may be used: the stream is offloaded and has a text formatter. Until then the caller
   * formats its values and writes the text itself.
   */
  get acceptsValues(): boolean {
    return this.worker !== undefined && this.textFormatter !== undefined
  }

  /**
   * Appends `format(value)` for each value, formatted and hashed by the worker (see
   * `Sha256StreamOptions.textFormatter`); only when `acceptsValues`. The values are structured-cloned when
   * posted: plain data (objects, arrays, strings, numbers, bigints, booleans).
   */
  writeValues(values: readonly unknown[]): void {
    this.assertOpen()
    if (!this.acceptsValues) throw new Error("Sha256Stream: writeValues needs an offloaded stream with a text formatter")
    if (values.length === 0) return
    // Text written before goes first.
    if (this.carry !== "") throw new Error("Sha256Stream: writeValues after a write that ended in half a surrogate pair")
    this.postChunk()
    this.worker!.postValues(values)
  }

  /**
   * Offloaded: `text` (after any carried high surrogate) encoded straight into the chunk for the worker
   * (`Buffer#write`: no allocation per line), which is posted first when the text and one more byte (a line's
   * newline) might not fit (a UTF-16 unit takes at most 3 UTF-8 bytes). With `mayCarry`, a trailing high
   * surrogate waits for the next write.
   */
  private encodeForWorker(text: string, mayCarry: boolean): void {
    let whole = this.carry === "" ? text : this.carry + text
    this.carry = ""
    if (mayCarry && endsInHighSurrogate(whole)) {
      this.carry = whole.slice(-1)
      whole = whole.slice(0, -1)
    }
    if (this.chunkLength + whole.length * 3 + 1 > WORKER_CHUNK_BYTES) {
      this.postChunk()
      if (whole.length * 3 + 1 > WORKER_CHUNK_BYTES) {
        this.worker!.post(new Uint8Array(Buffer.from(whole, "utf8")))
        return
      }
    }
    this.chunkLength += this.chunk.write(whole, this.chunkLength, "utf8")
  }

  private postChunk(): void {
    if (this.chunkLength === 0) return
    const bytes = this.chunk.subarray(0, this.chunkLength)
    this.chunk = Buffer.allocUnsafeSlow(WORKER_CHUNK_BYTES)
    this.chunkLength = 0
    this.worker!.post(bytes)
  }

  /** Hashes what is pending, here or in the worker. A trailing high surrogate stays behind for the next write. */
  private flush(): void {
    if (this.worker !== undefined) return this.postChunk()
    let text = this.carry + this.pending.join("")
    this.carry = ""
    this.pending = []
    this.pendingLength = 0
    if (endsInHighSurrogate(text)) {
      this.carry = text.slice(-1)
      text = text.slice(0, -1)
    }
    if (text.length === 0) return
    const bytes = Buffer.from(text, "utf8")
    this.hash!.update(bytes)
    this.hashedBytes += bytes.length
    if (this.offloadAfterBytes === Number.POSITIVE_INFINITY) return
    this.hashed.push(bytes)
    if (this.hashedBytes < this.offloadAfterBytes) return
    const worker = new TextSinkWorker({ owner: "Sha256Stream", hash: true, ...(this.textFormatter === undefined ? {} : { formatter: this.textFormatter }) })
    const pieces = this.hashed
    // The stream is in its offloaded state before anything is posted: a post that throws (the worker failed)
    // leaves it consistent, and every later write or digest reports the failure.
    this.worker = worker
    this.hashed = []
    this.hash = undefined
    this.chunk = Buffer.allocUnsafeSlow(WORKER_CHUNK_BYTES)
    // One copy of them all in a buffer of its own, posted once (a piece may be a view of Node's shared pool, and
    // posting transfers the whole buffer).
    const all = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0))
    let at = 0
    for (const piece of pieces) {
      all.set(piece, at)
      at += piece.length
    }
    worker.post(all)
  }

  /**
   * The hash of everything written so far (the stream can continue afterwards). A high surrogate still waiting
   * for its pair counts as a lone one (U+FFFD) in this digest only: a later write may still complete the pair.
   */
  digest(): Bytes32 {
    this.assertOpen()
    this.flush()
    const tail = this.carry === "" ? new Uint8Array(0) : new Uint8Array(Buffer.from(this.carry, "utf8"))
    if (this.worker !== undefined) return bytesToHex(this.worker.digest(tail)) as Bytes32
    return bytesToHex(this.hash!.copy().update(tail).digest()) as Bytes32
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("Sha256Stream: the stream was closed")
  }

  /** Stops the worker thread of an offloaded stream; writes and digests throw afterwards. */
  close(): void {
    this.closed = true
    this.worker?.close()
  }
}
