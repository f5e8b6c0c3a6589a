/**
 * ABI encodings of the protocol's structures and messages (reference §1.3, §1.6).
 *
 * The intent encoder is the hub's hot path: it writes `abi.encode(intent)` into a reusable buffer without
 * building intermediate hex strings, then keccak256 gives the intent id. It is proven byte-equal to viem's
 * `encodeAbiParameters` on random intents (`encoding.test.ts`). Fill, settlement and envelope encodings are
 * not hot and use viem directly.
 */
import type { AbiParameter } from "viem"
import { decodeAbiParameters, encodeAbiParameters } from "viem/utils"
import { bytesToHex, type Bytes32, type Hex, writeDigitsRightAligned, writeHexLeftAligned, writeHexRightAligned } from "./hex.ts"
import { KECCAK_SCRATCH_BYTES, keccak256Bytes, keccak256Scratch, keccakScratch } from "./keccak.ts"
import { type FillMessage, type Intent, MessageType, type Settlement } from "./protocol.ts"

// ---------------------------------------------------------------------------------------------------------
// ABI parameter descriptions (viem), the reference for every encoding.

export const IntentAbi = {
  type: "tuple",
  components: [
    { name: "initiator", type: "bytes32" },
    { name: "receiver", type: "bytes32" },
    { name: "inputAsset", type: "bytes32" },
    { name: "outputAsset", type: "bytes32" },
    { name: "maxFee", type: "uint24" },
    { name: "origin", type: "uint32" },
    { name: "nonce", type: "uint64" },
    { name: "timestamp", type: "uint48" },
    { name: "ttl", type: "uint48" },
    { name: "amount", type: "uint256" },
    { name: "destinations", type: "uint32[]" },
    { name: "data", type: "bytes" },
  ],
} as const satisfies AbiParameter

export const FillMessageAbi = {
  type: "tuple",
  components: [
    { name: "intentId", type: "bytes32" },
    { name: "solver", type: "bytes32" },
    { name: "initiator", type: "bytes32" },
    { name: "fee", type: "uint24" },
    { name: "executionTimestamp", type: "uint48" },
  ],
} as const satisfies AbiParameter

export const SettlementAbi = {
  type: "tuple",
  components: [
    { name: "intentId", type: "bytes32" },
    { name: "amount", type: "uint256" },
    { name: "asset", type: "bytes32" },
    { name: "recipient", type: "bytes32" },
    { name: "updateVirtualBalance", type: "bool" },
  ],
} as const satisfies AbiParameter

const EnvelopeAbi = [{ type: "uint8" }, { type: "bytes" }] as const

/** viem's view of an intent (numbers where the ABI type fits in one). */
const toViemIntent = (intent: Intent) => ({
  initiator: intent.initiator,
  receiver: intent.receiver,
  inputAsset: intent.inputAsset,
  outputAsset: intent.outputAsset,
  maxFee: intent.maxFee,
  origin: intent.origin,
  nonce: intent.nonce,
  timestamp: intent.timestamp,
  ttl: intent.ttl,
  amount: intent.amount,
  destinations: [...intent.destinations],
  data: intent.data,
})

/** `abi.encode(intent)` through viem: the slow reference the fast encoder is tested against. */
export const encodeIntentViem = (intent: Intent): Hex => encodeAbiParameters([IntentAbi], [toViemIntent(intent)])

// ---------------------------------------------------------------------------------------------------------
// Fast intent encoder.

const WORD = 32
/** Head of the intent tuple: 10 static words + 2 offsets. */
const INTENT_HEAD = 12 * WORD

const paddedLength = (byteLength: number): number => Math.ceil(byteLength / WORD) * WORD

/** Bytes of the intent tuple (head + destinations + data), without the leading offset word. */
export const intentTupleSize = (intent: Intent): number =>
  INTENT_HEAD + WORD * (1 + intent.destinations.length) + WORD + paddedLength((intent.data.length - 2) >> 1)

/** Writes a non-negative safe integer right-aligned in the 32-byte word starting at `wordStart`. */
const writeUintNumber = (buf: Uint8Array, wordStart: number, value: number): void => {
  let v = value
  for (let j = wordStart + WORD - 1; v > 0; j--) {
    buf[j] = v % 256
    v = Math.floor(v / 256)
  }
}

const writeUintBigInt = (buf: Uint8Array, wordStart: number, value: bigint): void => {
  if (value === 0n) return
  if (value <= 0x1f_ffff_ffff_ffffn) writeUintNumber(buf, wordStart, Number(value))
  else writeDigitsRightAligned(buf, wordStart + WORD, value.toString(16), 0)
}

/**
 * Decoded bytes32 words by their hex string. Initiators (the fee adapter), assets and most receivers repeat,
 * and copying 32 cached bytes is several times faster than parsing 64 hex digits. Bounded: cleared when full.
 */
const WORD_CACHE_LIMIT = 1 << 14
const wordCache = new Map<string, Uint8Array>()

const writeWord = (buf: Uint8Array, wordStart: number, hex: string): void => {
  let bytes = wordCache.get(hex)
  if (bytes === undefined) {
    bytes = new Uint8Array(WORD)
    writeHexRightAligned(bytes, WORD, hex)
    if (wordCache.size >= WORD_CACHE_LIMIT) wordCache.clear()
    wordCache.set(hex, bytes)
  }
  buf.set(bytes, wordStart)
}

/** A word seen once (an intent id): parsed in place, kept out of the cache it would only churn. */
const writeUniqueWord = (buf: Uint8Array, wordStart: number, hex: string): void => writeHexRightAligned(buf, wordStart + WORD, hex)

/** Writes the intent tuple at `offset` (the region must be zeroed). Returns the number of bytes written. */
const writeIntentTuple = (buf: Uint8Array, offset: number, intent: Intent): number => {
  writeWord(buf, offset, intent.initiator)
  writeWord(buf, offset + 1 * WORD, intent.receiver)
  writeWord(buf, offset + 2 * WORD, intent.inputAsset)
  writeWord(buf, offset + 3 * WORD, intent.outputAsset)
  writeUintNumber(buf, offset + 4 * WORD, intent.maxFee)
  writeUintNumber(buf, offset + 5 * WORD, intent.origin)
  writeUintBigInt(buf, offset + 6 * WORD, intent.nonce)
  writeUintNumber(buf, offset + 7 * WORD, intent.timestamp)
  writeUintNumber(buf, offset + 8 * WORD, intent.ttl)
  writeUintBigInt(buf, offset + 9 * WORD, intent.amount)
  const destinations = intent.destinations
  const dataOffset = INTENT_HEAD + WORD * (1 + destinations.length)
  writeUintNumber(buf, offset + 10 * WORD, INTENT_HEAD)
  writeUintNumber(buf, offset + 11 * WORD, dataOffset)
  let p = offset + INTENT_HEAD
  writeUintNumber(buf, p, destinations.length)
  for (let i = 0; i < destinations.length; i++) writeUintNumber(buf, (p += WORD), destinations[i]!)
  p = offset + dataOffset
  const dataLength = (intent.data.length - 2) >> 1
  writeUintNumber(buf, p, dataLength)
  if (dataLength > 0) writeHexLeftAligned(buf, p + WORD, intent.data)
  return dataOffset + WORD + paddedLength(dataLength)
}

/**
 * Encodes intents into one reusable buffer. Not re-entrant: the returned views are valid until the next call.
 */
export class IntentEncoder {
  private buf = new Uint8Array(4096)

  private ensure(size: number): Uint8Array {
    if (this.buf.length < size) this.buf = new Uint8Array(Math.max(size, this.buf.length * 2))
    return this.buf
  }

  /** `abi.encode(intent)`: the offset word 0x20, then the tuple. */
  encode(intent: Intent): Uint8Array {
    const size = WORD + intentTupleSize(intent)
    return encodeIntentInto(this.ensure(size), size, intent)
  }

  /** `abi.encode(intents)` for `Intent[]`: offset, length, per-element offsets, then the tuples. */
  encodeArray(intents: readonly Intent[]): Uint8Array {
    let size = 2 * WORD + WORD * intents.length
    for (const intent of intents) size += intentTupleSize(intent)
    const buf = this.ensure(size)
    buf.fill(0, 0, size)
    buf[WORD - 1] = 0x20
    writeUintNumber(buf, WORD, intents.length)
    const base = 2 * WORD
    let tail = WORD * intents.length
    for (let i = 0; i < intents.length; i++) {
      writeUintNumber(buf, base + i * WORD, tail)
      tail += writeIntentTuple(buf, base + tail, intents[i]!)
    }
    return buf.subarray(0, size)
  }

  /** `keccak256(abi.encode(intent))`, encoded straight into the hasher's input buffer when it fits. */
  intentId(intent: Intent): Bytes32 {
    const size = WORD + intentTupleSize(intent)
    if (size > KECCAK_SCRATCH_BYTES) return keccak256Bytes(this.encode(intent))
    encodeIntentInto(keccakScratch(size), size, intent)
    return keccak256Scratch(size)
  }
}

const encodeIntentInto = (buf: Uint8Array, size: number, intent: Intent): Uint8Array => {
  buf.fill(0, 0, size)
  buf[WORD - 1] = 0x20
  writeIntentTuple(buf, WORD, intent)
  return buf.subarray(0, size)
}

const sharedEncoder = new IntentEncoder()

/** The intent id: `keccak256(abi.encode(intent))`, identical on origin spoke, hub and destination spoke. */
export const intentId = (intent: Intent): Bytes32 => sharedEncoder.intentId(intent)

/** `abi.encode(intent)` as hex. */
export const encodeIntent = (intent: Intent): Hex => bytesToHex(sharedEncoder.encode(intent))

// ---------------------------------------------------------------------------------------------------------
// Messages: `abi.encode(uint8 type, bytes data)`, payloads always arrays.

const ENVELOPE_HEAD = 3 * WORD

/** Wraps an encoded payload in the message envelope without re-encoding it. */
const envelope = (type: MessageType, payload: Uint8Array): Uint8Array => {
  const out = new Uint8Array(ENVELOPE_HEAD + paddedLength(payload.length))
  out[WORD - 1] = type
  out[2 * WORD - 1] = 0x40
  writeUintNumber(out, 2 * WORD, payload.length)
  out.set(payload, ENVELOPE_HEAD)
  return out
}

export const encodeIntentMessage = (intents: readonly Intent[]): Hex =>
  bytesToHex(envelope(MessageType.INTENT, sharedEncoder.encodeArray(intents)))

export const encodeFillMessage = (fills: readonly FillMessage[]): Hex =>
  encodeAbiParameters(EnvelopeAbi, [MessageType.FILL, encodeAbiParameters([{ type: "tuple[]", components: FillMessageAbi.components }], [fills.map((f) => ({ ...f }))])])

/** `abi.encode(Settlement[])` as bytes: settlements are static tuples of five words. */
const encodeSettlementArray = (settlements: readonly Settlement[]): Uint8Array => {
  const out = new Uint8Array(2 * WORD + 5 * WORD * settlements.length)
  out[WORD - 1] = 0x20
  writeUintNumber(out, WORD, settlements.length)
  let p = 2 * WORD
  for (const s of settlements) {
    writeUniqueWord(out, p, s.intentId)
    writeUintBigInt(out, p + WORD, s.amount)
    writeWord(out, p + 2 * WORD, s.asset)
    writeWord(out, p + 3 * WORD, s.recipient)
    if (s.updateVirtualBalance) out[p + 5 * WORD - 1] = 1
    p += 5 * WORD
  }
  return out
}

/** The SETTLEMENT message as bytes (hashing the message id needs them). */
export const encodeSettlementMessageBytes = (settlements: readonly Settlement[]): Uint8Array => envelope(MessageType.SETTLEMENT, encodeSettlementArray(settlements))

export const encodeSettlementMessage = (settlements: readonly Settlement[]): Hex => bytesToHex(encodeSettlementMessageBytes(settlements))

/** viem's encoding of the same (the reference for tests). */
export const encodeSettlementMessageViem = (settlements: readonly Settlement[]): Hex =>
  encodeAbiParameters(EnvelopeAbi, [
    MessageType.SETTLEMENT,
    encodeAbiParameters([{ type: "tuple[]", components: SettlementAbi.components }], [settlements.map((s) => ({ ...s }))]),
  ])

/** `keccak256(abi.encode(uint32 origin, uint32 destination, uint256 nonce, bytes message))`: gateway message ids. */
export const messageIdOf = (origin: number, destination: number, nonce: bigint, message: Uint8Array): Bytes32 => {
  const buf = new Uint8Array(5 * WORD + paddedLength(message.length))
  writeUintNumber(buf, 0, origin)
  writeUintNumber(buf, WORD, destination)
  writeUintBigInt(buf, 2 * WORD, nonce)
  writeUintNumber(buf, 3 * WORD, 4 * WORD)
  writeUintNumber(buf, 4 * WORD, message.length)
  buf.set(message, 5 * WORD)
  return keccak256Bytes(buf)
}

/** VAR_UPDATE payload: `abi.encode(bytes32 variableHash, bytes encodedValue)`. */
export const encodeVarUpdateMessage = (variableHash: Bytes32, encodedValue: Hex): Hex =>
  encodeAbiParameters(EnvelopeAbi, [MessageType.VAR_UPDATE, encodeAbiParameters([{ type: "bytes32" }, { type: "bytes" }], [variableHash, encodedValue])])

export type DecodedMessage =
  | { readonly type: "INTENT"; readonly intents: readonly Intent[] }
  | { readonly type: "FILL"; readonly fills: readonly FillMessage[] }
  | { readonly type: "SETTLEMENT"; readonly settlements: readonly Settlement[] }
  | { readonly type: "VAR_UPDATE"; readonly variableHash: Bytes32; readonly encodedValue: Hex }

const lower = (h: Hex): Bytes32 => h.toLowerCase() as Bytes32

/** A message whose bytes do not follow the ABI layout (with the byte offset where decoding failed). */
export class MessageDecodeError extends Error {
  override readonly name = "MessageDecodeError"
  readonly offset: number
  constructor(offset: number, reason: string) {
    super(`malformed message at byte ${offset}: ${reason}`)
    this.offset = offset
  }
}

/**
 * Reads 32-byte words straight from the hex string (no byte array): the INTENT batch decoder is on the hub's
 * hot path, and viem's generic decoder costs ~15 µs per intent.
 */
class HexWords {
  readonly byteLength: number
  private readonly hex: string
  constructor(hex: string) {
    this.hex = hex
    if (!hex.startsWith("0x") || hex.length % 2 !== 0) throw new MessageDecodeError(0, "not 0x-prefixed hex of even length")
    this.byteLength = (hex.length - 2) >> 1
  }

  private at(offset: number): number {
    if (!Number.isSafeInteger(offset) || offset < 0 || offset + 32 > this.byteLength) throw new MessageDecodeError(offset, "word out of bounds")
    return 2 + offset * 2
  }

  /** A word as lowercase bytes32. */
  bytes32(offset: number): Bytes32 {
    const i = this.at(offset)
    return `0x${this.hex.slice(i, i + 64).toLowerCase()}`
  }

  /** A uint word that must fit in `bits` (≤ 53). */
  uint(offset: number, bits: number): number {
    const i = this.at(offset)
    const digits = this.hex.slice(i, i + 64)
    const significant = Math.ceil(bits / 4)
    if (!/^0*$/.test(digits.slice(0, 64 - significant))) throw new MessageDecodeError(offset, `value does not fit in uint${bits}`)
    const value = Number.parseInt(digits.slice(64 - significant), 16)
    if (!(value < 2 ** bits)) throw new MessageDecodeError(offset, `value does not fit in uint${bits}`)
    return value
  }

  uint256(offset: number): bigint {
    const i = this.at(offset)
    return BigInt(`0x${this.hex.slice(i, i + 64)}`)
  }

  /** `length` raw bytes starting at `offset`, as lowercase hex. */
  bytes(offset: number, length: number): Hex {
    if (length === 0) return "0x"
    if (offset < 0 || offset + length > this.byteLength) throw new MessageDecodeError(offset, "bytes out of bounds")
    const i = 2 + offset * 2
    return `0x${this.hex.slice(i, i + length * 2).toLowerCase()}`
  }
}

/** Decodes `abi.encode(Intent[])` starting at byte `base` of `words`. */
const decodeIntentArray = (words: HexWords, base: number): Intent[] => {
  const arrayStart = base + words.uint(base, 32)
  const n = words.uint(arrayStart, 32)
  const elements = arrayStart + WORD
  const intents: Intent[] = new Array(n)
  for (let k = 0; k < n; k++) {
    const t = elements + words.uint(elements + k * WORD, 32)
    const destinationsAt = t + words.uint(t + 10 * WORD, 32)
    const count = words.uint(destinationsAt, 32)
    if (count > 1024) throw new MessageDecodeError(destinationsAt, `implausible destination count ${count}`)
    const destinations: number[] = new Array(count)
    for (let j = 0; j < count; j++) destinations[j] = words.uint(destinationsAt + WORD * (1 + j), 32)
    const dataAt = t + words.uint(t + 11 * WORD, 32)
    const nonceWord = words.uint256(t + 6 * WORD)
    if (nonceWord >= 2n ** 64n) throw new MessageDecodeError(t + 6 * WORD, "nonce does not fit in uint64")
    intents[k] = {
      initiator: words.bytes32(t),
      receiver: words.bytes32(t + WORD),
      inputAsset: words.bytes32(t + 2 * WORD),
      outputAsset: words.bytes32(t + 3 * WORD),
      maxFee: words.uint(t + 4 * WORD, 24),
      origin: words.uint(t + 5 * WORD, 32),
      nonce: nonceWord,
      timestamp: words.uint(t + 7 * WORD, 48),
      ttl: words.uint(t + 8 * WORD, 48),
      amount: words.uint256(t + 9 * WORD),
      destinations,
      data: words.bytes(dataAt + WORD, words.uint(dataAt, 32)),
    }
  }
  return intents
}

/** Decodes a message envelope and its batch (INTENT batches with the fast decoder, the rest with viem's). */
export const decodeMessage = (message: Hex): DecodedMessage => {
  const words = new HexWords(message)
  if (words.byteLength >= 3 * WORD && words.uint(0, 8) === MessageType.INTENT) {
    const payloadAt = words.uint(WORD, 32)
    const payloadLength = words.uint(payloadAt, 32)
    if (payloadAt + WORD + payloadLength > words.byteLength) throw new MessageDecodeError(payloadAt, "payload longer than the message")
    return { type: "INTENT", intents: decodeIntentArray(words, payloadAt + WORD) }
  }
  return decodeMessageViem(message)
}

/** The same with viem's decoder for every type (the reference the fast path is tested against). */
export const decodeMessageViem = (message: Hex): DecodedMessage => {
  const [type, payload] = decodeAbiParameters(EnvelopeAbi, message)
  switch (type) {
    case MessageType.INTENT: {
      const [intents] = decodeAbiParameters([{ type: "tuple[]", components: IntentAbi.components }], payload)
      return {
        type: "INTENT",
        intents: intents.map((i) => ({
          initiator: lower(i.initiator),
          receiver: lower(i.receiver),
          inputAsset: lower(i.inputAsset),
          outputAsset: lower(i.outputAsset),
          maxFee: i.maxFee,
          origin: i.origin,
          nonce: i.nonce,
          timestamp: i.timestamp,
          ttl: i.ttl,
          amount: i.amount,
          destinations: [...i.destinations],
          data: i.data.toLowerCase() as Hex,
        })),
      }
    }
    case MessageType.FILL: {
      const [fills] = decodeAbiParameters([{ type: "tuple[]", components: FillMessageAbi.components }], payload)
      return {
        type: "FILL",
        fills: fills.map((f) => ({ ...f, intentId: lower(f.intentId), solver: lower(f.solver), initiator: lower(f.initiator) })),
      }
    }
    case MessageType.SETTLEMENT: {
      const [settlements] = decodeAbiParameters([{ type: "tuple[]", components: SettlementAbi.components }], payload)
      return {
        type: "SETTLEMENT",
        settlements: settlements.map((s) => ({ ...s, intentId: lower(s.intentId), asset: lower(s.asset), recipient: lower(s.recipient) })),
      }
    }
    case MessageType.VAR_UPDATE: {
      const [variableHash, encodedValue] = decodeAbiParameters([{ type: "bytes32" }, { type: "bytes" }], payload)
      return { type: "VAR_UPDATE", variableHash: lower(variableHash), encodedValue }
    }
    default:
      throw new Error(`unknown message type ${type}`)
  }
}

// ---------------------------------------------------------------------------------------------------------
// Other ids (reference §1.7).

/** `keccak256(bytes(symbol))`. */
export const tickerHash = (symbol: string): Bytes32 => keccak256Bytes(new TextEncoder().encode(symbol))

/** `keccak256(abi.encode(bytes32 asset, uint32 domain))`. */
export const assetHash = (asset: Bytes32, domain: number): Bytes32 => {
  const buf = new Uint8Array(2 * WORD)
  writeHexRightAligned(buf, WORD, asset)
  writeUintNumber(buf, WORD, domain)
  return keccak256Bytes(buf)
}
