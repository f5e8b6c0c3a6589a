/** fast-check arbitraries of protocol values, for property tests (any value the types allow, not only realistic ones). */
import fc from "fast-check"
import { type Bytes32, type Hex, ZERO_BYTES32 } from "./hex.ts"
import type { Intent } from "./protocol.ts"

export const arbBytes32: fc.Arbitrary<Bytes32> = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Bytes32)

/** Any intent the struct's ABI types allow (uint24 fee, uint32 domains, uint64 nonce, uint48 times, uint256 amount). */
export const arbIntent: fc.Arbitrary<Intent> = fc.record({
  initiator: arbBytes32,
  receiver: arbBytes32,
  inputAsset: arbBytes32,
  outputAsset: fc.oneof(arbBytes32, fc.constant(ZERO_BYTES32)),
  maxFee: fc.integer({ min: 0, max: 0xffffff }),
  origin: fc.integer({ min: 0, max: 0xffffffff }),
  nonce: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
  timestamp: fc.integer({ min: 0, max: 2 ** 48 - 1 }),
  ttl: fc.integer({ min: 0, max: 2 ** 48 - 1 }),
  amount: fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), fc.bigInt({ min: 0n, max: 10n ** 30n })),
  destinations: fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 12 }),
  data: fc.uint8Array({ maxLength: 200 }).map((b) => `0x${Buffer.from(b).toString("hex")}` as Hex),
})
