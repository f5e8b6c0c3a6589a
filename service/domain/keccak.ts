/**
 * keccak256 on hash-wasm's WebAssembly Keccak (its SHA-3 module with the Keccak padding byte 0x01).
 *
 * The module is instantiated here and its exports are called directly (`Hash_Calculate` for one-shot hashes,
 * `Hash_Init`/`Hash_Update`/`Hash_Final` for long inputs and streams): hash-wasm's JS wrapper around the same
 * binary costs about 0.4 µs per call on a 512-byte intent (argument checks, a copy, a char-code hex digest),
 * a quarter of the hash itself. The binary is the one hash-wasm 4.13.0 embeds (base64) in its distribution;
 * a self-check against the empty-input vector runs at load, and `encoding.test.ts` compares with viem's
 * keccak on random inputs. The module is synchronous and single-threaded: callers never interleave on it.
 * Streams (trace hashing) save and restore their own sponge state around each update.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { Bytes32 } from "./hex.ts"
import { type TextFormatter, TextSinkWorker } from "./textSink.ts"

/** The parts of the WebAssembly API used here (the project's TypeScript libs do not declare it). */
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object
  readonly Instance: new (module: object, imports: object) => { readonly exports: unknown }
}
const { Module, Instance } = (globalThis as unknown as { readonly WebAssembly: WasmApi }).WebAssembly

interface KeccakExports {
  readonly memory: { readonly buffer: ArrayBuffer }
  readonly STATE_SIZE: { readonly value: number }
  Hash_GetBuffer(): number
  Hash_GetState(): number
  Hash_Init(bits: number): void
  Hash_Update(length: number): void
  Hash_Final(padding: number): void
  Hash_Calculate(length: number, bits: number, padding: number): void
}

const KECCAK_PADDING = 0x01
const BITS = 256
/** Size of the module's input buffer (hash-wasm's MAIN_BUFFER_SIZE): longer inputs are fed in chunks. */
export const KECCAK_SCRATCH_BYTES = 16 * 1024

const loadModule = (): object => {
  const require = createRequire(import.meta.url)
  const file = require.resolve("hash-wasm/dist/index.umd.js")
  const match = /var name\$\w+ = "sha3";\s*var data\$\w+ = "([A-Za-z0-9+/=]+)"/.exec(readFileSync(file, "utf8"))
  if (match === null) throw new Error(`keccak: hash-wasm's SHA-3 module was not found in ${file} (expected hash-wasm 4.13.0)`)
  return new Module(Buffer.from(match[1]!, "base64"))
}

/** The compiled module (offloaded streams instantiate it again in their worker thread). */
const wasmModule = loadModule()
const wasm = new Instance(wasmModule, {}).exports as KeccakExports
const scratchOffset = wasm.Hash_GetBuffer()
/** The module's memory does not grow (no allocation inside), so these views stay valid. */
const memory = Buffer.from(wasm.memory.buffer)
const scratch = new Uint8Array(wasm.memory.buffer, scratchOffset, KECCAK_SCRATCH_BYTES)
const stateOffset = wasm.Hash_GetState()
const stateSize = new DataView(wasm.memory.buffer).getUint32(wasm.STATE_SIZE.value, true)

/** Two ASCII hex digits per byte value, as one little-endian 16-bit word. */
const HEX_PAIRS = new Uint16Array(256)
for (let i = 0; i < 256; i++) HEX_PAIRS[i] = "0123456789abcdef".charCodeAt(i >> 4) | ("0123456789abcdef".charCodeAt(i & 15) << 8)
const digestText = Buffer.from("0x" + "0".repeat(64), "latin1")
const digestPairs = new Uint16Array(digestText.buffer, digestText.byteOffset, 33)

/**
 * The digest as `0x` + 64 lowercase hex digits, built in one flat string (a template around
 * `toString("hex")` makes a cons string that V8 flattens again when it is first used as a map key).
 */
const hex32 = (bytes: Uint8Array, offset: number): Bytes32 => {
  for (let i = 0; i < 32; i++) digestPairs[i + 1] = HEX_PAIRS[bytes[offset + i]!]!
  return digestText.toString("latin1") as Bytes32
}

/** The digest the module just wrote at the start of its input buffer. */
const digestHex = (): Bytes32 => hex32(memory, scratchOffset)

const absorb = (data: Uint8Array): void => {
  for (let read = 0; read < data.length; read += KECCAK_SCRATCH_BYTES) {
    const chunk = data.subarray(read, read + KECCAK_SCRATCH_BYTES)
    scratch.set(chunk)
    wasm.Hash_Update(chunk.length)
  }
}

export const keccak256Bytes = (data: Uint8Array): Bytes32 => {
  if (data.length <= KECCAK_SCRATCH_BYTES) {
    scratch.set(data)
    wasm.Hash_Calculate(data.length, BITS, KECCAK_PADDING)
  } else {
    wasm.Hash_Init(BITS)
    absorb(data)
    wasm.Hash_Final(KECCAK_PADDING)
  }
  return digestHex()
}

/**
 * Zero-copy hashing for encoders: `keccakScratch(n)` is a view of the module's input buffer (n ≤
 * `KECCAK_SCRATCH_BYTES`, contents undefined) to write the message into, then `keccak256Scratch(n)` hashes
 * its first n bytes. The view is overwritten by any other hash call in between.
 */
export const keccakScratch = (length: number): Uint8Array => scratch.subarray(0, length)

export const keccak256Scratch = (length: number): Bytes32 => {
  wasm.Hash_Calculate(length, BITS, KECCAK_PADDING)
  return digestHex()
}

const encoder = new TextEncoder()

export const keccak256Utf8 = (text: string): Bytes32 => keccak256Bytes(encoder.encode(text))

if (keccak256Bytes(new Uint8Array(0)) !== "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470") {
  throw new Error("keccak: self-check failed (hash-wasm's SHA-3 module does not give keccak256(\"\") as expected)")
}

export interface Keccak256StreamOptions {
  /**
   * Once this many bytes have been hashed here, hand the sponge over to a worker thread: later writes are
   * encoded here and absorbed there, concurrently, and `digest()` waits for the worker (same result). For
   * streams of hundreds of megabytes (a million-intent run's trace); undefined (the default) never offloads.
   */
  readonly offloadAfterBytes?: number
  /**
   * With offloading: a function the worker imports (`exportName` of the module at `module`, which must load in
   * a plain Node worker: JavaScript, or TypeScript that only needs type stripping) to turn values into text.
   * `writeValues` then posts the values themselves and the worker absorbs the UTF-8 of `format(value)` for each,
   * so that the formatting is done on the worker's core too.
   */
  readonly textFormatter?: TextFormatter
}

/** Bytes per chunk posted to an offloaded stream's worker. */
const WORKER_CHUNK_BYTES = 1 << 20

const EMPTY_BYTES = new Uint8Array(0)

/** Whether `text` ends with the first half of a surrogate pair (whose second half may come with the next write). */
const endsInHighSurrogate = (text: string): boolean => {
  const last = text.charCodeAt(text.length - 1)
  return last >= 0xd800 && last <= 0xdbff
}

/**
 * An incremental keccak256 over a long byte stream. Small writes are buffered and hashed in large chunks, so
 * streaming millions of short lines costs about the same as hashing one big buffer. The digest is always the hash
 * of the UTF-8 encoding of everything written, as one string (a surrogate pair split across writes included).
 */
export class Keccak256Stream {
  private readonly state = new Uint8Array(stateSize)
  private pending: string[] = []
  private pendingLength = 0
  private static readonly FLUSH_CHARS = 1 << 16
  /** A high surrogate held back from the last encoded text, waiting for its pair ("" when none). */
  private carry = ""
  /** Bytes hashed in this thread so far (until offloaded). */
  private hashedBytes = 0
  private sponge: TextSinkWorker | undefined = undefined
  private readonly offloadAfterBytes: number
  private readonly textFormatter: TextFormatter | undefined
  /** Offloaded: the chunk being filled for the worker. */
  private chunk = Buffer.alloc(0)
  private chunkLength = 0
  private closed = false

  constructor(options: Keccak256StreamOptions = {}) {
    this.offloadAfterBytes = options.offloadAfterBytes ?? Number.POSITIVE_INFINITY
    this.textFormatter = options.textFormatter
    wasm.Hash_Init(BITS)
    this.save()
  }

  private save(): void {
    this.state.set(memory.subarray(stateOffset, stateOffset + stateSize))
  }

  private load(): void {
    memory.set(this.state, stateOffset)
  }

  /** Whether the sponge lives in a worker thread now. */
  get offloaded(): boolean {
    return this.sponge !== undefined
  }

  /** Appends the UTF-8 bytes of `text`. */
  writeUtf8(text: string): void {
    this.assertOpen()
    if (this.sponge !== undefined) return this.encodeForWorker(text, true)
    this.pending.push(text)
    this.pendingLength += text.length
    if (this.pendingLength >= Keccak256Stream.FLUSH_CHARS) this.flush()
  }

  /**
   * Whether `writeValues` may be used: the stream is offloaded and has a text formatter. Until then the
   * caller formats its values and writes the text itself.
   */
  get acceptsValues(): boolean {
    return this.sponge !== undefined && this.textFormatter !== undefined
  }

  /**
   * Appends `format(value)` for each value, formatted and absorbed by the worker (see
   * `Keccak256StreamOptions.textFormatter`); only when `acceptsValues`. The values are structured-cloned when
   * posted: plain data (objects, arrays, strings, numbers, bigints, booleans).
   */
  writeValues(values: readonly unknown[]): void {
    this.assertOpen()
    if (!this.acceptsValues) throw new Error("Keccak256Stream: writeValues needs an offloaded stream with a text formatter")
    if (values.length === 0) return
    // Text written before goes first.
    if (this.carry !== "") throw new Error("Keccak256Stream: writeValues after a write that ended in half a surrogate pair")
    this.postChunk()
    this.sponge!.postValues(values)
  }

  /** Appends the UTF-8 bytes of `text`, then `\n` (the same as `writeUtf8(text + "\n")`). */
  writeLine(text: string): void {
    this.assertOpen()
    if (this.sponge !== undefined) {
      this.encodeForWorker(text, false)
      // encodeForWorker left room for 3 bytes per unit of `text` (and the carry) plus one: the newline's.
      this.chunk[this.chunkLength++] = 0x0a
      return
    }
    this.pending.push(text, "\n")
    this.pendingLength += text.length + 1
    if (this.pendingLength >= Keccak256Stream.FLUSH_CHARS) this.flush()
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
        this.sponge!.post(new Uint8Array(Buffer.from(whole, "utf8")))
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
    this.sponge!.post(bytes)
  }

  /**
   * Hashes what is pending: here, encoded to UTF-8 straight into the module's input buffer, or in the worker.
   * A trailing high surrogate stays behind for the next write.
   */
  private flush(): void {
    if (this.sponge !== undefined) return this.postChunk()
    let text = this.carry + this.pending.join("")
    this.carry = ""
    this.pending = []
    this.pendingLength = 0
    if (endsInHighSurrogate(text)) {
      this.carry = text.slice(-1)
      text = text.slice(0, -1)
    }
    if (text.length === 0) return
    this.load()
    for (;;) {
      const { read, written } = encoder.encodeInto(text, scratch)
      wasm.Hash_Update(written)
      this.hashedBytes += written
      if (read >= text.length) break
      text = text.slice(read)
    }
    this.save()
    if (this.hashedBytes >= this.offloadAfterBytes) {
      this.sponge = new TextSinkWorker({
        owner: "Keccak256Stream",
        sponge: { module: wasmModule, state: this.state, bits: BITS, padding: KECCAK_PADDING, scratchBytes: KECCAK_SCRATCH_BYTES },
        ...(this.textFormatter === undefined ? {} : { formatter: this.textFormatter }),
      })
      this.chunk = Buffer.allocUnsafeSlow(WORKER_CHUNK_BYTES)
    }
  }

  /**
   * The hash of everything written so far (the stream can continue afterwards). A high surrogate still waiting
   * for its pair counts as a lone one (U+FFFD) in this digest only: a later write may still complete the pair.
   */
  digest(): Bytes32 {
    this.assertOpen()
    this.flush()
    const tail = this.carry === "" ? EMPTY_BYTES : encoder.encode(this.carry)
    if (this.sponge !== undefined) return hex32(this.sponge.digest(tail), 0)
    this.load()
    if (tail.length > 0) {
      scratch.set(tail)
      wasm.Hash_Update(tail.length)
    }
    wasm.Hash_Final(KECCAK_PADDING)
    return digestHex()
  }

  private assertOpen(): void {
    if (this.closed) throw new Error("Keccak256Stream: the stream was closed")
  }

  /** Stops the worker thread of an offloaded stream; writes and digests throw afterwards. */
  close(): void {
    this.closed = true
    this.sponge?.close()
  }
}
