import fc from "fast-check"
import { keccak256 as viemKeccak } from "viem"
import { describe, expect, it } from "vitest"
import {
  assetHash,
  decodeMessage,
  encodeFillMessage,
  encodeIntent,
  encodeIntentMessage,
  encodeIntentViem,
  encodeSettlementMessage,
  IntentEncoder,
  intentId,
  tickerHash,
} from "./encoding.ts"
import { arbBytes32, arbIntent } from "./arbitrary.ts"
import { addressToBytes32, type Hex, ZERO_BYTES32 } from "./hex.ts"
import { KECCAK_SCRATCH_BYTES, keccak256Bytes } from "./keccak.ts"
import type { Intent } from "./protocol.ts"

// "initiator 0x11…11" in the reference is the 20-byte address 0x1111…1111, left-padded like every address
// in an intent (a 32-byte 0x11…11 word gives 0xc95a6a18…, which is not the published id).
const vectorIntent: Intent = {
  initiator: addressToBytes32(`0x${"11".repeat(20)}`),
  receiver: addressToBytes32(`0x${"22".repeat(20)}`),
  inputAsset: addressToBytes32("0xaf88d065e77c8cC2239327C5EDb3A432268e5831"),
  outputAsset: addressToBytes32("0x0b2C639c533813f4Aa9D7837CAf62653d097Ff85"),
  maxFee: 0,
  origin: 42161,
  nonce: 1n,
  timestamp: 1_700_000_000,
  ttl: 0,
  amount: 100n * 10n ** 18n,
  destinations: [10],
  data: "0x",
}

describe("reference §7 I encoding vectors", () => {
  it("encodes the first intent in 512 bytes with the published id", () => {
    const encoded = encodeIntent(vectorIntent)
    expect((encoded.length - 2) / 2).toBe(512)
    expect(encoded).toBe(encodeIntentViem(vectorIntent).toLowerCase())
    expect(intentId(vectorIntent)).toBe("0xb8ce9d24b61d2f78112756382086b6d516dad64322ef144d75ad54e8020be6d6")
  })

  it("gives the published id with two destinations and a zero output asset", () => {
    const intent = { ...vectorIntent, destinations: [10, 8453], outputAsset: ZERO_BYTES32 }
    expect(intentId(intent)).toBe("0x8eb375b9d40b575d13cd02486f34305828b08f3530bd158e410c86cd47ddfcea")
  })

  it("gives the published asset hash of USDC on Arbitrum", () => {
    expect(assetHash(addressToBytes32("0xaf88d065e77c8cC2239327C5EDb3A432268e5831"), 42161)).toBe(
      "0x5640973b2174ebd45ba601678e817789812d039bb288f02540427349cc1a18f3",
    )
  })

  it("gives the published ticker hashes", () => {
    expect(tickerHash("USDC")).toBe("0xd6aca1be9729c13d677335161321649cccae6a591554772516700f986f942eaa")
    expect(tickerHash("USDT")).toBe("0x8b1a1d9c2b109e527c9134b25b1a1833b16b6594f92daa9f6d9b7a6024bce9d0")
    expect(tickerHash("WETH")).toBe("0x0f8a193ff464434486c0daf7db2a895884365d2bc84ba47a68fcf89c1b14b5b8")
    expect(tickerHash("DAI")).toBe("0xa5e92f3efb6826155f1f728e162af9d7cda33a574a1153b58f03ea01cc37e568")
  })
})

describe("fast intent encoder", () => {
  it("is byte-equal to viem's encodeAbiParameters and hashes like viem's keccak256", () => {
    fc.assert(
      fc.property(arbIntent, (intent) => {
        const viemEncoded = encodeIntentViem(intent).toLowerCase() as Hex
        expect(encodeIntent(intent)).toBe(viemEncoded)
        expect(intentId(intent)).toBe(viemKeccak(viemEncoded))
      }),
      { numRuns: 500 },
    )
  })

  it("reuses its buffer across intents of different sizes without leaking bytes", () => {
    const encoder = new IntentEncoder()
    fc.assert(
      fc.property(fc.array(arbIntent, { minLength: 2, maxLength: 5 }), (intents) => {
        for (const intent of intents) {
          expect(keccak256Bytes(encoder.encode(intent))).toBe(viemKeccak(encodeIntentViem(intent)))
        }
      }),
      { numRuns: 100 },
    )
  })

  it("round-trips intent batches through the message envelope", () => {
    fc.assert(
      fc.property(fc.array(arbIntent, { maxLength: 4 }), (intents) => {
        const decoded = decodeMessage(encodeIntentMessage(intents))
        expect(decoded).toEqual({ type: "INTENT", intents: intents.map((i) => ({ ...i, destinations: [...i.destinations] })) })
      }),
      { numRuns: 100 },
    )
  })
})

describe("fill and settlement messages", () => {
  it("round-trip through the envelope", () => {
    const fill = { intentId: `0x${"ab".repeat(32)}`, solver: `0x${"cd".repeat(32)}`, initiator: `0x${"ef".repeat(32)}`, fee: 500, executionTimestamp: 1_700_000_123 } as const
    expect(decodeMessage(encodeFillMessage([fill]))).toEqual({ type: "FILL", fills: [fill] })
    const settlement = { intentId: `0x${"01".repeat(32)}`, amount: 970n * 10n ** 18n, asset: `0x${"02".repeat(32)}`, recipient: `0x${"03".repeat(32)}`, updateVirtualBalance: true } as const
    expect(decodeMessage(encodeSettlementMessage([settlement, settlement]))).toEqual({ type: "SETTLEMENT", settlements: [settlement, settlement] })
  })
})

describe("keccak256Bytes", () => {
  it("hashes like viem's keccak256 at every length around the rate and the 16 KB input buffer", () => {
    const lengths = [0, 1, 135, 136, 137, 272, 512, KECCAK_SCRATCH_BYTES - 1, KECCAK_SCRATCH_BYTES, KECCAK_SCRATCH_BYTES + 1, 3 * KECCAK_SCRATCH_BYTES + 77]
    for (const length of lengths) {
      const data = Uint8Array.from({ length }, (_, i) => (i * 31 + length) & 0xff)
      expect(keccak256Bytes(data), `length ${length}`).toBe(viemKeccak(data))
    }
  })

  it("gives intent ids of huge calldata (encoded outside the input buffer) like viem", () => {
    const intent: Intent = { ...vectorIntent, data: `0x${"ab".repeat(KECCAK_SCRATCH_BYTES)}` }
    expect(intentId(intent)).toBe(viemKeccak(encodeIntentViem(intent)))
  })
})

describe("fast INTENT batch decoder", () => {
  it("decodes exactly what viem decodes, on random batches", async () => {
    const { decodeMessageViem, decodeMessage: fast } = await import("./encoding.ts")
    fc.assert(
      fc.property(fc.array(arbIntent, { maxLength: 5 }), (intents) => {
        const bytes = encodeIntentMessage(intents)
        expect(fast(bytes)).toEqual(decodeMessageViem(bytes))
      }),
      { numRuns: 200 },
    )
  })

  it("rejects truncated or out-of-range messages with the byte offset", async () => {
    const { MessageDecodeError } = await import("./encoding.ts")
    const bytes = encodeIntentMessage([vectorIntent])
    expect(() => decodeMessage(bytes.slice(0, bytes.length - 64) as Hex)).toThrow(MessageDecodeError)
    expect(() => decodeMessage("0x123" as Hex)).toThrow(/even length/)
    // maxFee word set to 2^24: out of range for uint24.
    const tupleStart = 2 + (3 * 32 + 2 * 32 + 32) * 2
    const maxFeeAt = tupleStart + 4 * 64
    const bad = `${bytes.slice(0, maxFeeAt)}${"0".repeat(57)}1000000${bytes.slice(maxFeeAt + 64)}` as Hex
    expect(() => decodeMessage(bad)).toThrow(/uint24/)
  })
})

describe("fast settlement encoder and message ids", () => {
  const arbSettlement = fc.record({
    intentId: arbBytes32,
    amount: fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }),
    asset: arbBytes32,
    recipient: arbBytes32,
    updateVirtualBalance: fc.boolean(),
  })

  it("encodes SETTLEMENT batches byte-equal to viem", async () => {
    const { encodeSettlementMessageViem } = await import("./encoding.ts")
    fc.assert(
      fc.property(fc.array(arbSettlement, { maxLength: 6 }), (settlements) => {
        expect(encodeSettlementMessage(settlements)).toBe(encodeSettlementMessageViem(settlements).toLowerCase())
      }),
      { numRuns: 200 },
    )
  })

  it("computes message ids as keccak256(abi.encode(uint32, uint32, uint256, bytes))", async () => {
    const { messageIdOf } = await import("./encoding.ts")
    const { encodeAbiParameters, hexToBytes } = await import("viem")
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.integer({ min: 0, max: 2 ** 32 - 1 }), fc.bigInt({ min: 0n, max: 2n ** 256n - 1n }), fc.uint8Array({ maxLength: 300 }), (o, d, n, m) => {
        const message = `0x${Buffer.from(m).toString("hex")}` as Hex
        const expected = viemKeccak(encodeAbiParameters([{ type: "uint32" }, { type: "uint32" }, { type: "uint256" }, { type: "bytes" }], [o, d, n, message]))
        expect(messageIdOf(o, d, n, hexToBytes(message))).toBe(expected)
      }),
      { numRuns: 200 },
    )
    // Long messages (batches): around the hasher's 16 KB input buffer (head and padding included) and past it.
    for (const length of [16_384 - 160 - 1, 16_384 - 160, 16_384 - 160 + 1, 16_384, 40_000, 70_001]) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 131 + length) & 0xff)
      const message = `0x${Buffer.from(bytes).toString("hex")}` as Hex
      const expected = viemKeccak(encodeAbiParameters([{ type: "uint32" }, { type: "uint32" }, { type: "uint256" }, { type: "bytes" }], [10, 25_327, 2n ** 70n + 3n, message]))
      expect(messageIdOf(10, 25_327, 2n ** 70n + 3n, bytes)).toBe(expected)
    }
  })
})

describe("fast INTENT batch decoder at its bounds", () => {
  // The vector intent's message: type, offset 0x40, payload length, then abi.encode(Intent[]) (ends with the data length word).
  const bytes = encodeIntentMessage([vectorIntent])
  const word = (i: number) => bytes.slice(2 + 64 * i, 2 + 64 * (i + 1))
  const withWord = (hex: string, i: number, value: bigint) => `${hex.slice(0, 2 + 64 * i)}${value.toString(16).padStart(64, "0")}${hex.slice(2 + 64 * (i + 1))}` as Hex

  it("refuses a nonce of 2^64 (uint64)", () => {
    expect(() => decodeMessage(encodeIntentMessage([{ ...vectorIntent, nonce: 2n ** 64n }]))).toThrow(/nonce does not fit in uint64/)
    expect(decodeMessage(encodeIntentMessage([{ ...vectorIntent, nonce: 2n ** 64n - 1n }]))).toMatchObject({ intents: [{ nonce: 2n ** 64n - 1n }] })
  })

  it("refuses a payload length past the message's end, and a word cut off at the end", () => {
    const length = BigInt(`0x${word(2)}`)
    expect(length).toBe(BigInt((bytes.length - 2) / 2 - 96))
    expect(() => decodeMessage(withWord(bytes, 2, length + 32n))).toThrow(/payload longer than the message/)
    // The last word (the data length) cut off, the payload length shortened to match: the word is out of bounds.
    const cut = withWord(bytes.slice(0, bytes.length - 64), 2, length - 32n)
    expect(() => decodeMessage(cut)).toThrow(/word out of bounds/)
  })

  it("decodes data ending exactly at the message's end, and 11 destinations (the hub, not the decoder, rules on them)", () => {
    const intent: Intent = { ...vectorIntent, destinations: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], data: `0x${"cd".repeat(32)}` }
    expect(decodeMessage(encodeIntentMessage([intent]))).toEqual({ type: "INTENT", intents: [intent] })
  })
})
