import fc from "fast-check"
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
