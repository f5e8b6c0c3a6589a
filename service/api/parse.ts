/**
 * Parsing of request values into protocol types. Each parser names the field it reads in its failure, so a
 * rejected request says exactly what was wrong. The HTTP schemas check the same formats (for OpenAPI and early
 * 400s); these parsers are what the in-process service relies on, whoever calls it.
 */
import { type Address, type Bytes32, type Hex, ZERO_ADDRESS } from "../domain/hex.ts"
import { keccak256Bytes } from "../domain/keccak.ts"
import { MAX_CALLDATA_SIZE, MAX_UINT256 } from "../domain/protocol.ts"
import { BadRequest, badRequest } from "./errors.ts"

const shown = (value: unknown): string => {
  const text = typeof value === "string" ? JSON.stringify(value) : String(value)
  return text.length > 80 ? `${text.slice(0, 77)}...` : text
}

const invalid = (code: string, field: string, expected: string, value: unknown): BadRequest =>
  badRequest(code, `${field}: expected ${expected}, got ${shown(value)}.`)

const DOMAIN_RE = /^[1-9][0-9]{0,9}$/
const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/
const BYTES32_RE = /^0x[0-9a-fA-F]{64}$/
const UINT_RE = /^(0|[1-9][0-9]*)$/
const HEX_RE = /^0x([0-9a-fA-F]{2})*$/

/** A chain id as a decimal string (or number): a uint32 above 0. */
export const parseDomain = (field: string, value: unknown): number => {
  const text = typeof value === "number" ? String(value) : value
  if (typeof text !== "string" || !DOMAIN_RE.test(text) || Number(text) > 0xffff_ffff) {
    throw invalid("InvalidDomain", field, "a chain id (a positive uint32 as a decimal string)", value)
  }
  return Number(text)
}

/** Valid addresses seen before → their lowercase form (requests repeat the same few); bounded, cleared when full. */
const knownAddresses = new Map<string, Address>()

/**
 * Whether `value` (an address, `lower` in lowercase) is all one case, or mixed case that is its EIP-55 checksum:
 * a hex letter is uppercase exactly when the matching nibble of keccak256(lowercase hex) is 8 or more. A mixed
 * case that is not the checksum is a mistyped address.
 */
const hasValidCase = (value: string, lower: string): boolean => {
  const digits = value.slice(2)
  if (digits === digits.toLowerCase() || digits === digits.toUpperCase()) return true
  const hash = keccak256Bytes(new TextEncoder().encode(lower.slice(2)))
  for (let i = 0; i < 40; i++) {
    const c = digits[i]!
    if (c >= "0" && c <= "9") continue
    const upper = Number.parseInt(hash[2 + i]!, 16) >= 8
    if ((c === c.toUpperCase()) !== upper) return false
  }
  return true
}

export const parseAddress = (field: string, value: unknown): Address => {
  if (typeof value === "string") {
    const known = knownAddresses.get(value)
    if (known !== undefined) return known
  }
  if (typeof value !== "string" || !ADDRESS_RE.test(value)) throw invalid("InvalidAddress", field, "a 0x-prefixed 20-byte address", value)
  const address = value.toLowerCase() as Address
  if (!hasValidCase(value, address)) throw invalid("InvalidAddress", field, "an address whose mixed case is its EIP-55 checksum (or all one case)", value)
  if (knownAddresses.size >= 1 << 14) knownAddresses.clear()
  knownAddresses.set(value, address)
  return address
}

/** An optional address where the zero address means "none". */
export const parseOptionalAddress = (field: string, value: unknown): Address | undefined => {
  if (value === undefined || value === null || value === "") return undefined
  const address = parseAddress(field, value)
  return address === ZERO_ADDRESS ? undefined : address
}

export const parseBytes32 = (field: string, value: unknown, code = "InvalidRequest"): Bytes32 => {
  if (typeof value !== "string" || !BYTES32_RE.test(value)) throw invalid(code, field, "a 0x-prefixed 32-byte hex value", value)
  return value.toLowerCase() as Bytes32
}

/** A 32-byte word that holds an address (twelve zero bytes, then the address), lowercase. */
export const parseAddressWord = (field: string, value: unknown): Bytes32 => {
  const word = parseBytes32(field, value)
  if (!word.startsWith("0x000000000000000000000000")) throw invalid("InvalidAddress", field, "a 32-byte word holding an address (its first 12 bytes zero)", value)
  return word
}

export const parseIntentId = (value: unknown): Bytes32 => parseBytes32("intentId", value, "InvalidIntentId")

/** A token amount as a decimal string of integer units that fits in a uint256. */
export const parseAmount = (field: string, value: unknown, options: { readonly positive?: boolean } = {}): bigint => {
  const text = typeof value === "number" && Number.isSafeInteger(value) ? String(value) : value
  const digits = typeof text === "string" && UINT_RE.test(text)
  const amount = digits && text.length <= 78 ? BigInt(text) : undefined
  if (amount === undefined || amount > MAX_UINT256) {
    // A decimal integer too large is told apart from what is not one at all.
    throw invalid("InvalidAmount", field, digits ? `an amount that fits in a uint256 (at most ${MAX_UINT256})` : "an integer amount in token units as a decimal string", value)
  }
  if (options.positive === true && amount === 0n) throw invalid("InvalidAmount", field, "an amount above 0", value)
  return amount
}

/** An unsigned integer (decimal string or JSON number) from `min` (default 0) up to `max`. */
export const parseUint = (field: string, value: unknown, max: number, code = "InvalidRequest", min = 0): number => {
  const text = typeof value === "number" ? String(value) : value
  if (typeof text !== "string" || !UINT_RE.test(text) || text.length > 16 || Number(text) > max || Number(text) < min) {
    throw invalid(code, field, `an integer between ${min} and ${max}`, value)
  }
  return Number(text)
}

/** Calldata: `""` and `"0x"` are empty; else even-length hex of at most 50,000 bytes. */
export const parseCalldata = (field: string, value: unknown): Hex => {
  if (value === undefined || value === null || value === "" || value === "0x") return "0x"
  if (typeof value !== "string" || !HEX_RE.test(value)) throw invalid("InvalidCalldata", field, "0x-prefixed hex bytes of even length", value)
  if ((value.length - 2) / 2 > MAX_CALLDATA_SIZE) throw badRequest("InvalidCalldata", `${field}: expected at most ${MAX_CALLDATA_SIZE} bytes, got ${(value.length - 2) / 2} bytes.`)
  return value.toLowerCase() as Hex
}

export const parseBoolean = (field: string, value: unknown): boolean => {
  if (value === true || value === "true") return true
  if (value === false || value === "false") return false
  throw invalid("InvalidRequest", field, "true or false", value)
}

/** A cursor returned by a previous page: a non-negative integer. */
export const parseCursor = (field: string, value: unknown): number => parseUint(field, value, Number.MAX_SAFE_INTEGER, "InvalidCursor")

export const parseLimit = (value: unknown, defaultSize: number, maxSize: number): number => {
  if (value === undefined) return defaultSize
  return parseUint("limit", value, maxSize, "InvalidLimit", 1)
}

/** Distinct domains, 1 to `max` of them. */
export const parseDomains = (field: string, value: unknown, max = 10): number[] => {
  if (!Array.isArray(value) || value.length === 0 || value.length > max) {
    throw invalid("InvalidDomain", field, `an array of 1 to ${max} chain ids`, value)
  }
  const domains: number[] = new Array(value.length)
  for (let i = 0; i < value.length; i++) {
    const v: unknown = value[i]
    // The element's field name is only built for an error.
    domains[i] = typeof v === "string" && DOMAIN_RE.test(v) && Number(v) <= 0xffff_ffff ? Number(v) : parseDomain(`${field}[${i}]`, v)
  }
  if (domains.length > 1) {
    const seen = new Set<number>()
    domains.forEach((d, i) => {
      if (seen.has(d)) throw badRequest("InvalidDomain", `${field}[${i}]: domain ${d} is listed twice.`)
      seen.add(d)
    })
  }
  return domains
}

/**
 * Query arrays: `origins=1&origins=10`, `origins[]=1`, or a comma-separated `origins=1,10`. A list given with no
 * value (`origins=`) is refused with `code`, as an empty single-value filter is: it would otherwise filter nothing.
 */
export const splitList = (field: string, code: string, ...values: (readonly string[] | string | undefined)[]): string[] | undefined => {
  const out: string[] = []
  let any = false
  for (const v of values) {
    if (v === undefined) continue
    any = true
    for (const item of typeof v === "string" ? [v] : v) for (const part of item.split(",")) if (part !== "") out.push(part)
  }
  if (any && out.length === 0) throw badRequest(code, `${field}: expected at least one value (a list, or comma-separated), got none.`)
  return any ? out : undefined
}

const isJsonWhitespace = (byte: number): boolean => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09

/**
 * The number of items of the JSON array a request body holds (UTF-8 bytes, a byte-order mark and JSON whitespace
 * before it allowed, as the body's decoder and `JSON.parse` take them), counted without parsing it: the commas
 * between its items, outside strings and nested values. Undefined when the body does not start as an array.
 * Exact for well-formed JSON; for malformed bytes a count of no meaning, so a caller that acts on it parses first
 * (a UTF-8 multi-byte sequence holds no ASCII byte, so only quotes, backslashes and brackets are looked at).
 */
export const jsonArrayLength = (bytes: Uint8Array): number | undefined => {
  let i = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
  while (i < bytes.length && isJsonWhitespace(bytes[i]!)) i++
  if (bytes[i] !== 0x5b) return undefined
  let depth = 0
  let commas = 0
  let empty = true
  for (; i < bytes.length; i++) {
    const byte = bytes[i]!
    if (depth === 1 && empty && byte !== 0x5d && !isJsonWhitespace(byte)) empty = false
    if (byte === 0x22) {
      // A string: skip to its closing quote; a backslash escapes the byte after it.
      for (i++; i < bytes.length && bytes[i] !== 0x22; i++) if (bytes[i] === 0x5c) i++
    } else if (byte === 0x5b || byte === 0x7b) {
      depth++
    } else if (byte === 0x5d || byte === 0x7d) {
      if (--depth === 0) break
    } else if (byte === 0x2c && depth === 1) {
      commas++
    }
  }
  return empty ? 0 : commas + 1
}

/**
 * The item count of the longest JSON array anywhere in a request body (UTF-8 bytes), nested ones included, counted
 * as `jsonArrayLength` counts the outer one (no text decoded, no value built; a depth-indexed stack, so deep nesting
 * costs no recursion). 0 when the body holds no array. Exact for well-formed JSON; for malformed bytes a count of no
 * meaning, so a caller that acts on it parses first.
 */
export const jsonLongestArray = (bytes: Uint8Array): number => {
  // Per open bracket: the array's commas so far, or -1 for an object; and whether the array has an item yet.
  const commas: number[] = []
  const filled: boolean[] = []
  let longest = 0
  for (let i = 0; i < bytes.length; i++) {
    const byte = bytes[i]!
    const top = commas.length - 1
    if (top >= 0 && commas[top]! >= 0 && !filled[top] && byte !== 0x5d && !isJsonWhitespace(byte)) filled[top] = true
    if (byte === 0x22) {
      for (i++; i < bytes.length && bytes[i] !== 0x22; i++) if (bytes[i] === 0x5c) i++
    } else if (byte === 0x5b || byte === 0x7b) {
      commas.push(byte === 0x5b ? 0 : -1)
      filled.push(false)
    } else if (byte === 0x5d || byte === 0x7d) {
      const count = commas.pop()
      const any = filled.pop()
      if (count !== undefined && count >= 0 && any === true && count + 1 > longest) longest = count + 1
    } else if (byte === 0x2c && top >= 0 && commas[top]! >= 0) {
      commas[top]!++
    }
  }
  return longest
}

/**
 * The path (`destinations`, `[0].destinations`, or "" for the body itself) and length of the first array, in
 * document order, holding more than `max` items; undefined when none does. Iterative: a deeply nested body costs no recursion.
 */
export const pathOfLongArray = (value: unknown, max: number): { readonly path: string; readonly length: number } | undefined => {
  const stack: [unknown, string][] = [[value, ""]]
  while (stack.length > 0) {
    const [node, path] = stack.pop()!
    if (Array.isArray(node)) {
      if (node.length > max) return { path, length: node.length }
      for (let i = node.length - 1; i >= 0; i--) stack.push([node[i], `${path}[${i}]`])
    } else if (typeof node === "object" && node !== null) {
      const entries = Object.entries(node)
      for (let i = entries.length - 1; i >= 0; i--) stack.push([entries[i]![1], path === "" ? entries[i]![0] : `${path}.${entries[i]![0]}`])
    }
  }
  return undefined
}
