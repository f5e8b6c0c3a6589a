/**
 * keccak256 on hash-wasm's WebAssembly Keccak (its SHA-3 module with the Keccak padding byte 0x01).
 *
 * The module is instantiated here and its exports are called directly (`Hash_Calculate` for one-shot hashes,
 * `Hash_Init`/`Hash_Update`/`Hash_Final` for long inputs): hash-wasm's JS wrapper around the same
 * binary costs about 0.4 µs per call on a 512-byte intent (argument checks, a copy, a char-code hex digest),
 * a quarter of the hash itself. The binary is the one hash-wasm 4.13.0 embeds (base64) in its distribution;
 * a self-check against the empty-input vector runs at load, and `encoding.test.ts` compares with viem's
 * keccak on random inputs. The module is synchronous and single-threaded: callers never interleave on it.
 */
import { readFileSync } from "node:fs"
import { createRequire } from "node:module"
import type { Bytes32 } from "./hex.ts"

/** The parts of the WebAssembly API used here (the project's TypeScript libs do not declare it). */
interface WasmApi {
  readonly Module: new (bytes: Uint8Array) => object
  readonly Instance: new (module: object, imports: object) => { readonly exports: unknown }
}
const { Module, Instance } = (globalThis as unknown as { readonly WebAssembly: WasmApi }).WebAssembly

interface KeccakExports {
  readonly memory: { readonly buffer: ArrayBuffer }
  Hash_GetBuffer(): number
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

const wasm = new Instance(loadModule(), {}).exports as KeccakExports
const scratchOffset = wasm.Hash_GetBuffer()
/** The module's memory does not grow (no allocation inside), so these views stay valid. */
const memory = Buffer.from(wasm.memory.buffer)
const scratch = new Uint8Array(wasm.memory.buffer, scratchOffset, KECCAK_SCRATCH_BYTES)

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
