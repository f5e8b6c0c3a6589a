/**
 * Hex strings and 32-byte words. Inside clearsim every bytes32 is a lowercase `0x` + 64 hex digits string,
 * so that equal values are equal strings (map keys, comparisons, trace lines).
 */
export type Hex = `0x${string}`
/** A 32-byte word: `0x` + 64 lowercase hex digits. */
export type Bytes32 = Hex
/** A 20-byte EVM address, `0x` + 40 hex digits (any case on input; lowercase when produced here). */
export type Address = Hex

export const ZERO_BYTES32: Bytes32 = `0x${"0".repeat(64)}`
export const ZERO_ADDRESS: Address = `0x${"0".repeat(40)}`

const BYTES32_RE = /^0x[0-9a-f]{64}$/
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/
const ANY_BYTES32_RE = /^0x[0-9a-fA-F]{64}$/

export const isBytes32 = (value: string): value is Bytes32 => BYTES32_RE.test(value)
export const isAddress = (value: string): value is Address => ADDRESS_RE.test(value)

/** A 20-byte address left-padded to a bytes32 word (how the protocol stores addresses in intents). */
export const addressToBytes32 = (address: string): Bytes32 => `0x${"0".repeat(24)}${address.slice(2).toLowerCase()}`

/** Accepts a 20-byte address or a 32-byte word in any case and returns the canonical bytes32. */
export const toBytes32 = (value: string): Bytes32 | undefined => {
  if (ADDRESS_RE.test(value)) return addressToBytes32(value)
  if (ANY_BYTES32_RE.test(value)) return value.toLowerCase() as Bytes32
  return undefined
}

/** The low 20 bytes of a bytes32 word as a lowercase address. */
export const bytes32ToAddress = (word: Bytes32): Address => `0x${word.slice(26)}`

/** True when the word is a left-padded address (its high 12 bytes are zero). */
export const isAddressWord = (word: Bytes32): boolean => word.startsWith("0x000000000000000000000000")

// Lookup table from a char code to its nibble value (0xff = not a hex digit).
const NIBBLE = new Uint8Array(256).fill(0xff)
for (let i = 0; i < 10; i++) NIBBLE[48 + i] = i
for (let i = 0; i < 6; i++) {
  NIBBLE[65 + i] = 10 + i
  NIBBLE[97 + i] = 10 + i
}

/**
 * Writes the hex digits of `hex` (after its `0x`) into `buf` so that the value ends at `end` (right-aligned,
 * big-endian). An odd number of digits gets an implicit leading zero. The caller guarantees valid digits.
 */
export const writeHexRightAligned = (buf: Uint8Array, end: number, hex: string): void =>
  writeDigitsRightAligned(buf, end, hex, 2)

/** Like `writeHexRightAligned` for digits starting at index `from` of `digits` (0 for `bigint.toString(16)`). */
export const writeDigitsRightAligned = (buf: Uint8Array, end: number, digits: string, from: number): void => {
  let j = end - 1
  let i = digits.length - 1
  for (; i > from; i -= 2, j--) buf[j] = (NIBBLE[digits.charCodeAt(i - 1)]! << 4) | NIBBLE[digits.charCodeAt(i)]!
  if (i === from) buf[j] = NIBBLE[digits.charCodeAt(from)]!
}

/** Writes the hex digits of `hex` (after its `0x`, even length) starting at `offset` (left-aligned). */
export const writeHexLeftAligned = (buf: Uint8Array, offset: number, hex: string): void => {
  for (let i = 2, j = offset; i < hex.length; i += 2, j++) {
    buf[j] = (NIBBLE[hex.charCodeAt(i)]! << 4) | NIBBLE[hex.charCodeAt(i + 1)]!
  }
}

const HEX_BYTE: string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, "0"))

/** Short inputs are converted in JS; long ones (messages) by Node's native hex codec, several times faster. */
const NATIVE_HEX_BYTES = 64

export const bytesToHex = (bytes: Uint8Array): Hex => {
  if (bytes.length > NATIVE_HEX_BYTES) return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("hex")}`
  let out = "0x"
  for (let i = 0; i < bytes.length; i++) out += HEX_BYTE[bytes[i]!]
  return out as Hex
}

export const hexToBytes = (hex: Hex): Uint8Array => {
  if (hex.length > 2 + 2 * NATIVE_HEX_BYTES) {
    const buf = Buffer.from(hex.slice(2), "hex")
    // Node's decoder stops at the first invalid digit: a short result means the input was not hex.
    if (buf.length * 2 !== hex.length - 2) throw new Error(`not 0x-prefixed hex of even length: ${hex.slice(0, 20)}…`)
    return new Uint8Array(buf.buffer, buf.byteOffset, buf.length)
  }
  const out = new Uint8Array((hex.length - 2) >> 1)
  writeHexLeftAligned(out, 0, hex)
  return out
}
