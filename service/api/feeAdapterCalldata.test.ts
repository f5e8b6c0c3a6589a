import fc from "fast-check"
import { getAddress } from "viem"
import { describe, expect, it } from "vitest"
import { type Address, type Hex, ZERO_ADDRESS } from "../domain/hex.ts"
import { encodeNewIntentFast } from "./feeAdapterCalldata.ts"
import { encodeNewIntent } from "./transactions.ts"

const hexBytes = (max: number) => fc.uint8Array({ maxLength: max }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex)
const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Address)

describe("the fast newIntent encoder", () => {
  it("is byte-equal to viem's encodeFunctionData", () => {
    fc.assert(
      fc.property(
        fc.record({
          destinations: fc.array(fc.integer({ min: 0, max: 0xffff_ffff }), { maxLength: 10 }),
          receiver: address,
          inputAsset: address,
          outputAsset: fc.oneof(address, fc.constant(ZERO_ADDRESS)),
          amount: fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
          maxFee: fc.integer({ min: 0, max: 0xff_ffff }),
          ttl: fc.integer({ min: 0, max: 2 ** 48 - 1 }),
          data: hexBytes(200),
        }),
        fc.record({ fee: fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), deadline: fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), sig: hexBytes(130) }),
        (order, fee) => {
          expect(encodeNewIntentFast(order, fee)).toBe(encodeNewIntent(order, fee))
        },
      ),
      { numRuns: 2000 },
    )
  })
})

describe("the fast newIntent encoder on mixed-case input", () => {
  it("writes checksummed addresses and uppercase bytes in lowercase, the same bytes as viem's encodeFunctionData", () => {
    const receiver = getAddress("0xabcdef0123456789abcdef0123456789abcdef01")
    const inputAsset = getAddress("0xfedcba9876543210fedcba9876543210fedcba98")
    // Checksummed: mixed case.
    expect(receiver).not.toBe(receiver.toLowerCase())
    expect(inputAsset).not.toBe(inputAsset.toLowerCase())
    const order = {
      destinations: [1, 2],
      receiver,
      inputAsset,
      outputAsset: inputAsset,
      amount: 1000n,
      maxFee: 3,
      ttl: 0,
      data: "0xABCDEF" as Hex,
    }
    const fee = { fee: 5n, deadline: 6n, sig: `0x${"AB".repeat(65)}` as Hex }
    const fast = encodeNewIntentFast(order, fee)
    expect(fast).toMatch(/^0x[0-9a-f]+$/)
    expect(fast).toBe(encodeNewIntent(order, fee).toLowerCase())
    const words = fast.slice(10).match(/.{64}/g)!
    // Head: receiver and inputAsset as left-padded lowercase words.
    expect(words[1]).toBe(`${"0".repeat(24)}abcdef0123456789abcdef0123456789abcdef01`)
    expect(words[2]).toBe(`${"0".repeat(24)}fedcba9876543210fedcba9876543210fedcba98`)
    // data at 9 + 3 (destinations) words: length 3, then abcdef right-padded.
    expect(words[12]).toBe(`${"0".repeat(63)}3`)
    expect(words[13]).toBe(`abcdef${"0".repeat(58)}`)
    // feeParams: fee, deadline, offset 96, then sig's length 65 and its bytes.
    expect(words.slice(14, 18)).toEqual([`${"0".repeat(63)}5`, `${"0".repeat(63)}6`, `${"0".repeat(62)}60`, `${"0".repeat(62)}41`])
    expect(words.slice(18).join("")).toBe(`${"ab".repeat(65)}${"0".repeat(62)}`)
  })
})
