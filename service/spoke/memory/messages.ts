/**
 * Byte-level decoding the memory spoke needs, with the checks of Solidity's ABI decoder (a malformed input
 * reverts without data, as `abi.decode` does, and a length too large to allocate panics with 0x41): the hub
 * message envelope and its SETTLEMENT / VAR_UPDATE payloads,
 * intent calldata `abi.encode(address target, bytes callData)`, and the gateway's message id.
 */
import { type Address, type Bytes32, bytesToHex, type Hex, hexToBytes } from "../../domain/hex.ts"
import { MAX_UINT256 } from "../../domain/protocol.ts"
import { revertEmpty, SpokeRevert } from "./journal.ts"
import { isLower, isLowerRecurring } from "./lower.ts"

/** `Panic(0x41)`: a memory allocation too large (or past 2^64 - 1). */
const PANIC_ALLOCATION = 0x41n

const WORD = 32
const MAX_UINT64 = 0xffff_ffff_ffff_ffffn

const wordAt = (bytes: Uint8Array, offset: number): Uint8Array => bytes.subarray(offset, offset + WORD)

const uintAt = (bytes: Uint8Array, offset: number): bigint => {
  let value = 0n
  for (let i = 0; i < WORD; i++) value = (value << 8n) | BigInt(bytes[offset + i]!)
  return value
}

/** A small uint word (an offset, a length, a uint8): `undefined` when it is above `limit`. */
const smallUintAt = (bytes: Uint8Array, offset: number, limit: bigint): number | undefined => {
  for (let i = 0; i < WORD - 8; i++) if (bytes[offset + i] !== 0) return undefined
  let value = 0n
  for (let i = WORD - 8; i < WORD; i++) value = (value << 8n) | BigInt(bytes[offset + i]!)
  return value > limit ? undefined : Number(value)
}

/**
 * Solidity's memory allocation for a decoded array or `bytes` (`allocate_memory`): `Panic(0x41)` when the length
 * is above 2^64 - 1, or when the free memory pointer would move past 2^64 - 1. `size` is the allocation in bytes
 * (length word included, rounded up to whole words); `freePointer` is where the decoder allocates it. The check
 * comes before the bounds check, so a huge length panics where a merely too long one reverts without data.
 */
const allocate = (length: bigint, size: (length: bigint) => bigint, freePointer: bigint): void => {
  if (length > MAX_UINT64 || freePointer + size(length) > MAX_UINT64) throw new SpokeRevert("Panic", [PANIC_ALLOCATION])
}

const roundUpToWord = (n: bigint): bigint => (n + 31n) & ~31n
const bytesAllocation = (length: bigint): bigint => roundUpToWord(length) + 32n

/**
 * Where `abi.decode` allocates in `ClearingSpoke.receiveMessage`: the envelope's `bytes data` at the initial free
 * memory pointer 0x80; the payload's array or `bytes` right after `data` (its length word and padded content).
 */
const INITIAL_FREE_POINTER = 0x80n
const afterBytes = (freePointer: bigint, length: number): bigint => freePointer + bytesAllocation(BigInt(length))

/**
 * The `bytes` whose offset (relative to `base`) is in the word at `headOffset`; reverts when out of bounds. With a
 * `freePointer`, a length the decoder cannot allocate panics as in Solidity. Without one (intent calldata, whose
 * decoder's memory state is not modelled), the pointer is taken as 0, below any real one: the lengths that panic
 * then panic on chain too, but a length within a few hundred bytes of 2^64 may revert here and panic there.
 */
const bytesAt = (bytes: Uint8Array, base: number, headOffset: number, freePointer = 0n): Uint8Array => {
  const offset = smallUintAt(bytes, headOffset, MAX_UINT64)
  if (offset === undefined) return revertEmpty()
  const start = base + offset
  if (start + WORD > bytes.length) return revertEmpty()
  allocate(uintAt(bytes, start), bytesAllocation, freePointer)
  const length = Number(uintAt(bytes, start))
  if (start + WORD + length > bytes.length) return revertEmpty()
  return bytes.subarray(start + WORD, start + WORD + length)
}

export interface DecodedSettlement {
  readonly intentId: Bytes32
  readonly amount: bigint
  readonly asset: Bytes32
  readonly recipient: Bytes32
  readonly updateVirtualBalance: boolean
}

export type ParsedHubMessage =
  | { readonly type: "SETTLEMENT"; readonly settlements: readonly DecodedSettlement[] }
  | { readonly type: "VAR_UPDATE"; readonly variable: Bytes32; readonly address: () => Address }
  | { readonly type: "OTHER"; readonly messageType: number }

const SETTLEMENT_WORDS = 5

/** `abi.decode(data, (Settlement[]))`, allocating at `freePointer` (an array of pointers to the structs). */
const decodeSettlements = (data: Uint8Array, freePointer: bigint): DecodedSettlement[] => {
  if (data.length < WORD) return revertEmpty()
  const offset = smallUintAt(data, 0, MAX_UINT64)
  if (offset === undefined || offset + WORD > data.length) return revertEmpty()
  allocate(uintAt(data, offset), (length) => 32n * length + 32n, freePointer)
  const count = Number(uintAt(data, offset))
  const start = offset + WORD
  if (start + count * SETTLEMENT_WORDS * WORD > data.length) return revertEmpty()
  const settlements: DecodedSettlement[] = new Array(count)
  for (let i = 0; i < count; i++) {
    const at = start + i * SETTLEMENT_WORDS * WORD
    const flag = smallUintAt(data, at + 4 * WORD, 1n)
    if (flag === undefined) return revertEmpty()
    settlements[i] = {
      intentId: bytesToHex(wordAt(data, at)),
      amount: uintAt(data, at + WORD),
      asset: bytesToHex(wordAt(data, at + 2 * WORD)),
      recipient: bytesToHex(wordAt(data, at + 3 * WORD)),
      updateVirtualBalance: flag === 1,
    }
  }
  return settlements
}

/** Settlements of SETTLEMENT messages handed over with the relayer's call, by call object (see `attachSettlements`). */
const ATTACHED = new WeakMap<object, readonly DecodedSettlement[]>()

/**
 * Hands over, with a `gateway.receiveMessage` call whose message is `encodeSettlementMessage(settlements)`, the
 * settlements themselves: the memory spoke then skips decoding the bytes (in-process relayers, like the
 * simulator's, hold the hub's decoded batch). Ignored by the anvil backend.
 */
export const attachSettlements = (call: object, settlements: readonly DecodedSettlement[]): void => {
  ATTACHED.set(call, settlements)
}

/**
 * The settlements attached to `call`, when they are exactly what decoding its message gives (lowercase words,
 * amounts in range); else undefined (decode the message).
 */
export const attachedSettlements = (call: object): readonly DecodedSettlement[] | undefined => {
  const settlements = ATTACHED.get(call)
  if (settlements === undefined) return undefined
  for (const s of settlements) {
    if (!isLower(s.intentId) || !isLowerRecurring(s.asset) || !isLowerRecurring(s.recipient) || s.amount < 0n || s.amount > MAX_UINT256 || typeof s.updateVirtualBalance !== "boolean") return undefined
  }
  return settlements
}

/** `abi.decode(message, (uint8, bytes))` and the payload of the types the spoke handles. */
export const decodeSettlementMessage = (message: Hex): ParsedHubMessage => {
  const bytes = hexToBytes(message)
  if (bytes.length < 2 * WORD) return revertEmpty()
  const messageType = smallUintAt(bytes, 0, 255n)
  if (messageType === undefined) return revertEmpty()
  const data = bytesAt(bytes, 0, WORD, INITIAL_FREE_POINTER)
  const payloadFreePointer = afterBytes(INITIAL_FREE_POINTER, data.length)
  if (messageType === 2) return { type: "SETTLEMENT", settlements: decodeSettlements(data, payloadFreePointer) }
  if (messageType === 3) {
    if (data.length < 2 * WORD) return revertEmpty()
    const variable = bytesToHex(wordAt(data, 0))
    const value = bytesAt(data, 0, WORD, payloadFreePointer)
    return {
      type: "VAR_UPDATE",
      variable,
      // `abi.decode(value, (bytes32))`, then the low 20 bytes.
      address: () => (value.length < WORD ? revertEmpty() : (bytesToHex(value.subarray(12, WORD)) as Address)),
    }
  }
  return { type: "OTHER", messageType }
}

/** `abi.decode(data, (address, bytes))` of intent calldata. */
export const decodeIntentCalldata = (data: Hex): { readonly target: Address; readonly callData: Hex } => {
  const bytes = hexToBytes(data)
  if (bytes.length < 2 * WORD) return revertEmpty()
  for (let i = 0; i < 12; i++) if (bytes[i] !== 0) return revertEmpty()
  return { target: bytesToHex(bytes.subarray(12, WORD)) as Address, callData: bytesToHex(bytesAt(bytes, 0, WORD)) }
}

