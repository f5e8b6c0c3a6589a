import { type AbiEvent, encodeAbiParameters, encodeEventTopics, type Hex, type Log } from "viem"
import { describe, expect, test } from "vitest"
import { encodeIntentViem } from "../domain/encoding.ts"
import type { Intent } from "../domain/protocol.ts"
import { ClearingSpokeAbi, FeeAdapterAbi, TestERC20Abi } from "./abi.ts"
import { decodeSpokeLog } from "./anvil/decode.ts"

const eventAbi = (abi: readonly unknown[], name: string): AbiEvent =>
  (abi as readonly AbiEvent[]).find((item) => item.type === "event" && item.name === name)!

/** A log as anvil returns it, built with viem's encoders. */
const makeLog = (event: AbiEvent, args: Record<string, unknown>, data: Hex): Log =>
  ({
    address: "0x5FbDB2315678afecb367f032d93F642f64180aa3",
    topics: encodeEventTopics({ abi: [event], eventName: event.name, args } as never),
    data,
    blockNumber: 12n,
    logIndex: 3,
    transactionIndex: 1,
    transactionHash: `0x${"cd".repeat(32)}`,
    blockHash: `0x${"ef".repeat(32)}`,
    removed: false,
  }) as unknown as Log

const intents: Intent[] = [
  {
    initiator: `0x${"00".repeat(12)}${"5f".repeat(20)}`,
    receiver: `0x${"00".repeat(12)}${"a1".repeat(20)}`,
    inputAsset: `0x${"00".repeat(12)}${"b2".repeat(20)}`,
    outputAsset: `0x${"00".repeat(32)}`,
    maxFee: 100_000,
    origin: 4_294_967_295,
    nonce: 2n ** 64n - 1n,
    timestamp: 2 ** 48 - 1,
    ttl: 0,
    amount: 2n ** 256n - 1n,
    destinations: [],
    data: "0x",
  },
  {
    initiator: `0x${"ab".repeat(32)}`,
    receiver: `0x${"00".repeat(12)}${"a1".repeat(20)}`,
    inputAsset: `0x${"00".repeat(12)}${"b2".repeat(20)}`,
    outputAsset: `0x${"00".repeat(12)}${"c3".repeat(20)}`,
    maxFee: 5_000,
    origin: 31_001,
    nonce: 7n,
    timestamp: 1_700_000_012,
    ttl: 3_600,
    amount: 123n * 10n ** 18n + 1n,
    destinations: [10, 8453, 31_002],
    data: `0x${"0123456789abcdef".repeat(5)}ff`,
  },
]

describe("hand-written log decoders", () => {
  test.each(intents.map((intent, i) => [i, intent] as const))("IntentAdded #%i equals viem's decoding", (_i, intent) => {
    const event = eventAbi(ClearingSpokeAbi, "IntentAdded")
    const intentEncoding = encodeIntentViem(intent)
    // (uint256 queueIdx, Intent intent): the tuple is dynamic, so its offset 0x40 follows queueIdx.
    const data = encodeAbiParameters([{ type: "uint256" }, event.inputs[2]!] as never, [99n, { ...intent, destinations: [...intent.destinations] }] as never)
    expect(data.slice(130)).toBe(intentEncoding.slice(66))
    const log = makeLog(event, { intentId: `0x${"12".repeat(32)}` }, data)
    const fast = decodeSpokeLog(log)
    expect(fast).toEqual(decodeSpokeLog(log, true))
    expect(fast).toMatchObject({ name: "IntentAdded", queueIdx: 99n, intent, address: "0x5fbdb2315678afecb367f032d93f642f64180aa3" })
  })

  test("Transfer, Approval and IntentWithFeesAdded equal viem's decoding", () => {
    const transfer = makeLog(
      eventAbi(TestERC20Abi, "Transfer"),
      { from: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", to: "0x0000000000000000000000000000000000000000" },
      encodeAbiParameters([{ type: "uint256" }], [2n ** 256n - 1n]),
    )
    const approval = makeLog(
      eventAbi(TestERC20Abi, "Approval"),
      { owner: "0x90F79bf6EB2c4f870365E785982E1f101E93b906", spender: "0xDc64a140Aa3E981100a9becA4E685f962f0cF6C9" },
      encodeAbiParameters([{ type: "uint256" }], [0n]),
    )
    const withFees = makeLog(
      eventAbi(FeeAdapterAbi, "IntentWithFeesAdded"),
      { intentId: `0x${"AB".repeat(32)}` },
      encodeAbiParameters([{ type: "bytes32" }, { type: "uint256" }, { type: "uint256" }], [`0x${"00".repeat(12)}${"9F".repeat(20)}`, 1_000n, 10n ** 9n]),
    )
    for (const log of [transfer, approval, withFees]) expect(decodeSpokeLog(log)).toEqual(decodeSpokeLog(log, true))
    expect(decodeSpokeLog(withFees)).toMatchObject({ intentId: `0x${"ab".repeat(32)}`, initiator: `0x${"00".repeat(12)}${"9f".repeat(20)}` })
  })
})
