import { describe, expect, it } from "vitest"
import { addressToBytes32, bytes32ToAddress, type Hex, hexToBytes, isAddressWord, toBytes32 } from "./hex.ts"

describe("hex words", () => {
  it("takes an address as the low 20 bytes of a word, and a word as an address only when its 12 high bytes are zero", () => {
    const word = addressToBytes32("0xAbCdEf0123456789aBcDeF0123456789AbCdEf01")
    expect(word).toBe("0x000000000000000000000000abcdef0123456789abcdef0123456789abcdef01")
    expect(bytes32ToAddress(word)).toBe("0xabcdef0123456789abcdef0123456789abcdef01")
    expect(isAddressWord(word)).toBe(true)
    // The 12th byte is 01: not a padded address.
    expect(isAddressWord(`0x${"00".repeat(11)}01${"ab".repeat(20)}`)).toBe(false)
  })

  it("canonicalizes a 32-byte word of any case to lowercase", () => {
    expect(toBytes32(`0x${"AB".repeat(32)}`)).toBe(`0x${"ab".repeat(32)}`)
    expect(toBytes32("0x12")).toBeUndefined()
  })

  it("refuses long hex with a non-hex digit (Node's decoder would stop there)", () => {
    expect(hexToBytes(`0x${"ab".repeat(100)}` as Hex).length).toBe(100)
    expect(() => hexToBytes(`0x${"ab".repeat(50)}zz${"ab".repeat(49)}` as Hex)).toThrow(/not 0x-prefixed hex/)
  })
})
