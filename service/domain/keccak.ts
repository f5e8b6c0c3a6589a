/**
 * keccak256 on hash-wasm's WebAssembly Keccak: about 13x viem's JS keccak on 512-byte intents (see
 * `bench/domain.bench.ts`). One hasher instance is shared; it is synchronous once created, so callers never
 * interleave on it. Streams (trace hashing) save and restore their own state around each update.
 */
import { createKeccak, type IHasher } from "hash-wasm"
import type { Bytes32 } from "./hex.ts"

const hasher: IHasher = await createKeccak(256)
const encoder = new TextEncoder()

export const keccak256Bytes = (data: Uint8Array): Bytes32 => {
  hasher.init()
  hasher.update(data)
  return `0x${hasher.digest("hex")}`
}

export const keccak256Utf8 = (text: string): Bytes32 => keccak256Bytes(encoder.encode(text))

/**
 * An incremental keccak256 over a long byte stream. Small writes are buffered and hashed in large chunks, so
 * streaming millions of short lines costs about the same as hashing one big buffer.
 */
export class Keccak256Stream {
  private state: Uint8Array
  private pending: string[] = []
  private pendingLength = 0
  private static readonly FLUSH_CHARS = 1 << 16

  constructor() {
    hasher.init()
    this.state = hasher.save()
  }

  /** Appends the UTF-8 bytes of `text`. */
  writeUtf8(text: string): void {
    this.pending.push(text)
    this.pendingLength += text.length
    if (this.pendingLength >= Keccak256Stream.FLUSH_CHARS) this.flush()
  }

  private flush(): void {
    if (this.pendingLength === 0) return
    hasher.load(this.state)
    hasher.update(encoder.encode(this.pending.join("")))
    this.state = hasher.save()
    this.pending = []
    this.pendingLength = 0
  }

  /** The hash of everything written so far (the stream can continue afterwards). */
  digest(): Bytes32 {
    this.flush()
    hasher.load(this.state)
    return `0x${hasher.digest("hex")}`
  }
}
