/**
 * A worker thread that takes a long stream of text off the thread producing it: bytes and values posted in
 * order, hashed (SHA-256, for `Sha256Stream`) and/or appended to a file (`TraceFile`), with
 * the values turned into text there by a formatter module. Posting never blocks unless the worker falls far
 * behind; digests and syncs are answered synchronously through shared memory, so a simulation that never yields to
 * the event loop can still wait for them. Failures of the worker (a failed start, a crash, a failed write) surface
 * as an exception on the next post, digest or sync.
 */
import { Worker } from "node:worker_threads"

/** A module export that turns one value into text (lines with their newlines), with no state between calls. */
export interface TextFormatter {
  /** The module; it must load in a plain Node worker: JavaScript, or TypeScript that only needs type stripping. */
  readonly module: URL
  readonly exportName: string
}

/**
 * Whether this Node strips TypeScript types (22.18 and later, as the project's own Node is), so that a worker
 * can load a `.ts` formatter module without a loader.
 */
export const workersLoadTypeScript = typeof (process.features as { readonly typescript?: string | false }).typescript === "string"

export interface TextSinkOptions {
  /** Who the worker works for, in error messages ("Sha256Stream", "TraceFile"). */
  readonly owner: string
  /** Hash everything taken with SHA-256 (from the first byte posted), for `digest()`. */
  readonly hash?: boolean
  /** A file descriptor to append to (opened for writing; the caller closes it after `sync()`). */
  readonly fd?: number
  readonly formatter?: TextFormatter
}

/** Messages posted and not yet taken before posts wait for the worker (bounds the memory they hold). */
const MAX_BACKLOG = 64
/**
 * How long a wait for the worker may go without it making progress before giving up (a liveness guard against a
 * worker that died or never started; it decides no result, only whether an error is thrown).
 */
const STALL_SECONDS = 60

/** Control words shared with the worker (`textSinkWorker.js` uses the same indices). */
const CONTROL_STATE = 0
const CONTROL_DONE = 1
const STATE_STARTING = 0
const STATE_FAILED = 2
/** Bytes after the control words where the worker writes its error message. */
const CONTROL_MESSAGE_OFFSET = 16
const CONTROL_BYTES = CONTROL_MESSAGE_OFFSET + 512

export class TextSinkWorker {
  private readonly worker: Worker
  private readonly controlBuffer = new SharedArrayBuffer(CONTROL_BYTES)
  private readonly control = new Int32Array(this.controlBuffer, 0, 4)
  private readonly owner: string
  private posted = 0
  private failure: string | undefined = undefined
  /** The code and errno of the worker's failure, when it was a system error. */
  private failureSystem: { readonly code: string; readonly errno: number } | undefined = undefined
  private closed = false

  constructor(options: TextSinkOptions) {
    this.owner = options.owner
    const formatter = options.formatter
    this.worker = new Worker(new URL("./textSinkWorker.js", import.meta.url), {
      workerData: {
        control: this.controlBuffer,
        hash: options.hash === true,
        fd: options.fd,
        formatter: formatter === undefined ? undefined : { url: formatter.module.href, exportName: formatter.exportName },
      },
    })
    // Seen when the event loop runs (a simulation yields to it every few thousand events); waits read the
    // shared control words instead.
    this.worker.on("error", (error) => {
      this.failure ??= error instanceof Error ? error.message : String(error)
    })
    this.worker.on("exit", (code) => {
      if (!this.closed) this.failure ??= `the worker exited (code ${code})`
    })
    // The worker never keeps the process alive: everything it owes is fetched synchronously.
    this.worker.unref()
  }

  private check(): void {
    if (Atomics.load(this.control, CONTROL_STATE) === STATE_FAILED && this.failure === undefined) {
      // The worker's message, and for a system error its code and errno after NULs (`textSinkWorker.js`'s `fail`).
      const bytes = new Uint8Array(this.controlBuffer, CONTROL_MESSAGE_OFFSET)
      const [message, code, errno] = new TextDecoder().decode(bytes).replace(/\0+$/, "").split("\0")
      this.failure = message || "the worker failed"
      if (code !== undefined && errno !== undefined) this.failureSystem = { code, errno: Number(errno) }
    }
    // A system error (a full disk) keeps its code and errno, so that callers report it as one (`code`: "ENOSPC").
    if (this.failure !== undefined) throw Object.assign(new Error(`${this.owner}: ${this.failure}`), this.failureSystem)
    if (this.closed) throw new Error(`${this.owner}: closed`)
  }

  /** Posts `bytes` (its buffer is transferred), after waiting while the worker is too far behind. */
  post(bytes: Uint8Array): void {
    this.check()
    this.worker.postMessage({ kind: "bytes", bytes }, [bytes.buffer as ArrayBuffer])
    this.posted++
    this.waitForBacklog()
  }

  /** Posts values (structured-cloned now) for the worker to format and take. */
  postValues(values: readonly unknown[]): void {
    this.check()
    this.worker.postMessage({ kind: "values", values })
    this.posted++
    this.waitForBacklog()
  }

  private waitForBacklog(): void {
    if (this.posted - Atomics.load(this.control, CONTROL_DONE) > MAX_BACKLOG) this.waitUntil(() => this.posted - Atomics.load(this.control, CONTROL_DONE) <= MAX_BACKLOG / 2, this.control, CONTROL_DONE)
  }

  /** With `hash`: the digest of everything posted so far, then `tail` (not kept: the hash goes on without it). */
  digest(tail: Uint8Array): Uint8Array {
    const reply = this.request("digest", 32, { tail })
    return new Uint8Array(reply, 4, 32)
  }

  /** Returns once everything posted before has been taken (hashed, written). */
  sync(): void {
    this.request("sync", 0, {})
  }

  private request(kind: string, replyBytes: number, fields: object): SharedArrayBuffer {
    this.check()
    const reply = new SharedArrayBuffer(4 + replyBytes)
    const flag = new Int32Array(reply, 0, 1)
    this.worker.postMessage({ kind, reply, ...fields })
    this.waitUntil(() => Atomics.load(flag, 0) !== 0, flag, 0)
    this.check()
    return reply
  }

  /**
   * Blocks until `done()`, in one-second waits on `words[index]` (which the worker notifies), for as long as the
   * worker keeps taking messages; throws when it failed or made no progress for `STALL_SECONDS`.
   */
  private waitUntil(done: () => boolean, words: Int32Array, index: number): void {
    let taken = Atomics.load(this.control, CONTROL_DONE)
    let idleSeconds = 0
    for (;;) {
      // The word is read before `done()` is asked: a change after that read ends the wait at once.
      const seen = Atomics.load(words, index)
      if (done()) return
      this.check()
      Atomics.wait(words, index, seen, 1000)
      const now = Atomics.load(this.control, CONTROL_DONE)
      if (now !== taken) {
        taken = now
        idleSeconds = 0
      } else if (++idleSeconds >= STALL_SECONDS && !done()) {
        const starting = Atomics.load(this.control, CONTROL_STATE) === STATE_STARTING
        // For good: what was posted may be lost, so no later result may be trusted.
        this.failure = `the worker ${starting ? "did not start" : "made no progress"} in ${STALL_SECONDS} s`
        this.check()
      }
    }
  }

  /**
   * Stops the worker (what it has not taken yet is dropped; `sync()` first to keep it). The promise settles once
   * the thread has stopped: a worker blocked in a write finishes that write first.
   */
  close(): Promise<void> {
    if (!this.closed) {
      this.closed = true
      this.stopped = this.worker.terminate().then(
        () => undefined,
        () => undefined,
      )
    }
    return this.stopped
  }

  private stopped: Promise<void> = Promise.resolve()
}
