/**
 * Replay input decoding (`inputs.ts`: `decodeInputLine`, `decodeConfigLine`) and `replayLines` (`replay.ts`):
 * a malformed line raises `InputLineError` naming the line number, the dotted field path and the expectation.
 */
import { createHash } from "node:crypto"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { arbIntent } from "../domain/arbitrary.ts"
import type { Bytes32 } from "../domain/hex.ts"
import { intentToJson } from "../domain/schemas.ts"
import type { HubInput } from "./hub.ts"
import { decodeConfigLine, decodeInputLine, encodeConfigLine, encodeInputLine, InputLineError } from "./inputs.ts"
import { replayFile, replayLines } from "./replay.ts"
import { DOMAIN_A, DOMAIN_B, FEE1, FEE_DEST, IntentFactory, makeConfig, SOLVER, u } from "./testing.ts"

const intentJson = () => intentToJson(new IntentFactory().make({ destinations: [DOMAIN_B], amount: u(100) }))
const line = (value: unknown): string => JSON.stringify(value)
const ID: Bytes32 = `0x${"ab".repeat(32)}`

/** Decodes `text` at line `n`, expecting an `InputLineError` whose message is `line n: <detail>` matching `detail`. */
const expectLineError = (fn: () => unknown, n: number, detail: RegExp) => {
  let error: unknown
  try {
    fn()
  } catch (e) {
    error = e
  }
  expect(error).toBeInstanceOf(InputLineError)
  const e = error as InputLineError
  expect(e.line).toBe(n)
  expect(e.message.startsWith(`line ${n}: `)).toBe(true)
  expect(e.message).toMatch(detail)
}

describe("replay inputs: decodeInputLine rejects malformed lines", () => {
  const cases: [string, string, RegExp][] = [
    ["bad JSON", "{bad", /^line \d+: not valid JSON/],
    ["not an object", "[1]", /^line \d+: expected a JSON object$/],
    ["unknown kind", line({ kind: "nope" }), /^line \d+: kind: expected one of "block", .*got "nope"$/],
    ["missing kind", line({ number: 1 }), /^line \d+: kind: required, but missing \(one of "block", .*"unpause"\)$/],
    ["wrong type", line({ kind: "block", number: "3", timestamp: 5 }), /^line \d+: number: Expected a non-negative integer as a number, got "3"$/],
    ["negative integer", line({ kind: "block", number: -1, timestamp: 5 }), /^line \d+: number: Expected a non-negative integer, got .+$/],
    ["decimal integer", line({ kind: "block", number: 1.5, timestamp: 5 }), /^line \d+: number: Expected an integer, got .+$/],
    // A missing key says what it takes.
    ["missing field", line({ kind: "block", timestamp: 5 }), /^line \d+: number: Missing key: expected a non-negative integer as a number$/],
    ["missing field (queue)", line({ kind: "processSettlementQueue", domain: 1 }), /^line \d+: amount: Missing key: expected an integer between 0 and 4294967295 \(uint32\) as a number$/],
    ["negative amount", line({ kind: "intent", intent: { ...intentJson(), amount: "-5" } }), /^line \d+: intent\.amount: Expected a non-negative integer as a decimal string/],
    // The pattern and the uint256 bound as one expectation, the pattern's details last.
    ["amount as a JSON number", line({ kind: "intent", intent: { ...intentJson(), amount: 100 } }), /^line \d+: intent\.amount: Expected a non-negative integer as a decimal string that fits in a uint256 \(no sign, exponent or leading zeros\), got 100$/],
    ["amount with leading zeros", line({ kind: "intent", intent: { ...intentJson(), amount: "0100" } }), /^line \d+: intent\.amount: Expected a non-negative integer/],
    ["decimal-point amount", line({ kind: "intent", intent: { ...intentJson(), amount: "1.5" } }), /^line \d+: intent\.amount: Expected a non-negative integer as a decimal string.*, got "1\.5"$/],
    ["exponent amount", line({ kind: "intent", intent: { ...intentJson(), amount: "1e3" } }), /^line \d+: intent\.amount: Expected a non-negative integer as a decimal string.*, got "1e3"$/],
    ["amount too large for uint256", line({ kind: "intent", intent: { ...intentJson(), amount: (2n ** 256n).toString() } }), /^line \d+: intent\.amount: Expected a value that fits in a uint256, got .+$/],
    ["uint24 overflow", line({ kind: "intent", intent: { ...intentJson(), maxFee: 2 ** 24 } }), /^line \d+: intent\.maxFee: Expected an integer between 0 and 16777215 \(uint24\), got .+$/],
    ["bad hex word", line({ kind: "intent", intent: { ...intentJson(), receiver: "0xzz" } }), /^line \d+: intent\.receiver: Expected a 0x-prefixed 20-byte address or 32-byte hex word, got .+$/],
    ["odd-length hex data", line({ kind: "intent", intent: { ...intentJson(), data: "0xabc" } }), /^line \d+: intent\.data: Expected 0x-prefixed hex bytes of even length, got .+$/],
    ["missing intent field", line({ kind: "intent", intent: { ...intentJson(), nonce: undefined } }), /^line \d+: intent\.nonce: Missing key: expected a uint64 as a decimal string, or as a number up to 9007199254740991 \(2\^53 - 1\)$/],
    ["nested array path", line({ kind: "intents", intents: [intentJson(), { ...intentJson(), destinations: [1, -2] }] }), /^line \d+: intents\[1\]\.destinations\[1\]: Expected an integer between 0 and 4294967295 \(uint32\), got .+$/],
    ["short intent id", line({ kind: "returnUnsupportedIntent", intentId: "0x1234" }), /^line \d+: intentId: Expected a 0x-prefixed 32-byte hex word, got .+$/],
    ["address where a bytes32 id is required", line({ kind: "handleExpiredIntents", intentIds: [ID, `0x${"11".repeat(20)}`] }), /^line \d+: intentIds\[1\]: Expected a 0x-prefixed 32-byte hex word, got .+$/],
    ["fill fee overflow", line({ kind: "fill", fill: { intentId: ID, solver: SOLVER, initiator: SOLVER, fee: 2 ** 24, executionTimestamp: 1 } }), /^line \d+: fill\.fee: .*uint24/],
    ["negative withdrawal", line({ kind: "withdrawFees", withdrawer: FEE1, feeRecipient: FEE_DEST, ticker: "DAI", amount: "-1", destinations: [] }), /^line \d+: amount: Expected a non-negative integer/],
    ["empty ticker", line({ kind: "processDepositsAndInvoices", ticker: "", maxEpochs: 0, maxDeposits: 0, maxInvoices: 0 }), /^line \d+: ticker: Expected a ticker symbol or ticker hash, got .+$/],
    ["zero epoch length", line({ kind: "updateEpochLength", epochLength: 0 }), /^line \d+: epochLength: Expected a positive integer, got .+$/],
    ["boolean expected", line({ kind: "setUpdateVirtualBalance", user: SOLVER, status: "yes" }), /^line \d+: status: Expected a boolean, got "yes"$/],
    // A uint64 (the nonce) says once what it takes, not each member of its union.
    ["nonce of no type a uint64 takes", line({ kind: "intent", intent: { ...intentJson(), nonce: true } }), /^line \d+: intent\.nonce: Expected a uint64 as a decimal string, or as a number up to 9007199254740991 \(2\^53 - 1\), got true$/],
    ["nonce past 2^53 - 1 as a number", line({ kind: "intent", intent: { ...intentJson(), nonce: 1e17 } }), /^line \d+: intent\.nonce: Expected a number of at most 9007199254740991 \(2\^53 - 1; a larger uint64 as a decimal string\), got 100000000000000000$/],
    ["nonce as a malformed string", line({ kind: "intent", intent: { ...intentJson(), nonce: "01" } }), /^line \d+: intent\.nonce: Expected a uint64 as a decimal string \(no sign, exponent or leading zeros\), got "01"$/],
    ["nonce past a uint64", line({ kind: "intent", intent: { ...intentJson(), nonce: (2n ** 64n).toString() } }), /^line \d+: intent\.nonce: Expected a value that fits in a uint64, got "18446744073709551616"$/],
    ["negative nonce", line({ kind: "intent", intent: { ...intentJson(), nonce: -1 } }), /^line \d+: intent\.nonce: Expected a non-negative integer, got -1$/],
    // A struct by its keys; an array with its article.
    ["intent of the wrong type", line({ kind: "intent", intent: 5 }), /^line \d+: intent: Expected an object \{ initiator, receiver, inputAsset, outputAsset, maxFee, origin, nonce, timestamp, ttl, amount, destinations, data \}, got 5$/],
    ["intents of the wrong type", line({ kind: "intents", intents: {} }), /^line \d+: intents: Expected an array, got \{\}$/],
  ]
  it.each(cases)("%s", (_name, text, detail) => {
    expectLineError(() => decodeInputLine(text, 7), 7, detail)
  })

  it("reports every problem of a line", () => {
    expectLineError(() => decodeInputLine(line({ kind: "block", number: -1, timestamp: "x" }), 3), 3, /^line 3: number: Expected a non-negative integer, got -1; timestamp: Expected an integer between 0 and 281474976710655 \(uint48\) as a number, got "x"$/)
  })

  it("accepts the largest uint256 amount", () => {
    const decoded = decodeInputLine(line({ kind: "intent", intent: { ...intentJson(), amount: (2n ** 256n - 1n).toString() } }), 1)
    expect(decoded.kind === "intents" && decoded.intents[0]!.amount).toBe(2n ** 256n - 1n)
  })

  it("normalizes words: addresses are left-padded, hex is lowercased", () => {
    const decoded = decodeInputLine(line({ kind: "returnUnsupportedIntent", intentId: ID.toUpperCase().replace("0X", "0x") }), 1)
    expect(decoded).toEqual({ kind: "returnUnsupportedIntent", intentId: ID })
    expect(decodeInputLine(line({ kind: "setUpdateVirtualBalance", user: "0x00000000000000000000000000000000000000AB", status: true }), 1)).toEqual({
      kind: "setUpdateVirtualBalance",
      user: `0x${"0".repeat(62)}ab`,
      status: true,
    })
  })

  it("round-trips every input kind through encodeInputLine", () => {
    const intent = new IntentFactory().make({ destinations: [DOMAIN_B, DOMAIN_A], amount: u("1.5"), ttl: 60, maxFee: 7 })
    const inputs: HubInput[] = [
      { kind: "block", number: 5, timestamp: 1_700_000_000 },
      { kind: "intents", intents: [intent, intent] },
      { kind: "fills", fills: [{ intentId: ID, solver: SOLVER, initiator: SOLVER, fee: 5, executionTimestamp: 9 }] },
      { kind: "processDepositsAndInvoices", ticker: "DAI", maxEpochs: 1, maxDeposits: 2, maxInvoices: 3 },
      { kind: "processSettlementQueue", domain: DOMAIN_B, amount: 2 },
      { kind: "handleExpiredIntents", intentIds: [ID] },
      { kind: "returnUnsupportedIntent", intentId: ID },
      { kind: "setUpdateVirtualBalance", user: SOLVER, status: true },
      { kind: "setUserSupportedDomains", user: SOLVER, domains: [DOMAIN_A, DOMAIN_B] },
      { kind: "withdrawFees", withdrawer: FEE1, feeRecipient: FEE_DEST, ticker: "DAI", amount: 2n ** 200n, destinations: [DOMAIN_A] },
      { kind: "updateEpochLength", epochLength: 12 },
    ]
    for (const input of inputs) expect(decodeInputLine(encodeInputLine(input), 1)).toEqual(input)
  })

  it("writes intent batches exactly as JSON.stringify of their JSON form", () => {
    fc.assert(
      fc.property(fc.array(arbIntent, { maxLength: 4 }), (intents) => {
        expect(encodeInputLine({ kind: "intents", intents })).toBe(JSON.stringify({ kind: "intents", intents: intents.map(intentToJson) }))
      }),
      { numRuns: 300 },
    )
  })
})

describe("replay inputs: decodeConfigLine", () => {
  it("round-trips the tests' config", () => {
    const config = makeConfig({ domainGasLimit: 1_000_000 })
    const decoded = decodeConfigLine(encodeConfigLine(config))
    expect(decoded).toMatchObject({ epochLength: 10, expiryTimeBuffer: 1000, domainGasLimit: 1_000_000 })
    expect(decoded.tickers.map((t) => t.symbol)).toEqual(["DAI", "USDC"])
  })

  it.each([
    ["not a config line", line({ kind: "block", number: 1, timestamp: 1 }), /^line 1: kind: expected "config" on the first line, got "block"$/],
    ["a first line without a kind", line({ tickers: [] }), /^line 1: kind: required, but missing \(the first line is "config"\)$/],
    ["zero epoch length", line({ kind: "config", epochLength: 0, expiryTimeBuffer: 1, tickers: [] }), /^line 1: epochLength: Expected a positive integer, got .+$/],
    [
      "a nested field",
      line({ kind: "config", epochLength: 40, expiryTimeBuffer: 1, tickers: [{ symbol: "X", discountPerEpoch: 1, maxDiscountDbps: 2, prioritizedStrategy: "foo", fees: [], domains: [] }] }),
      /^line 1: tickers\[0\]\.prioritizedStrategy: Expected one of "default" \| "xerc20", got "foo"$/,
    ],
  ])("rejects %s", (_name, text, detail) => {
    expectLineError(() => decodeConfigLine(text), 1, detail)
  })
})

describe("replay: replayLines", () => {
  const config = encodeConfigLine(makeConfig())
  const block = (n: number) => line({ kind: "block", number: n, timestamp: 1_700_000_000 + n * 12 })
  const intent = line({ kind: "intent", intent: intentJson() })

  const replay = async (lines: string[]) => {
    const out: string[] = []
    const summary = await replayLines(lines, { onLine: (l) => out.push(l), checkEveryInput: true })
    return { out, summary }
  }

  it("prints every event, then a summary whose trace hash is the SHA-256 of the event lines (as `sha256sum` gives it)", async () => {
    const { out, summary } = await replay([config, block(100), intent, line({ kind: "processSettlementQueue", domain: DOMAIN_B, amount: 1 })])
    const events = out.slice(0, -1)
    expect(events.map((l) => JSON.parse(l).kind)).toEqual(["DepositProcessed", "InvoiceEnqueued", "IntentProcessed", "Reverted"])
    // A reverted call is recorded, not fatal.
    expect(JSON.parse(events[3]!)).toMatchObject({ kind: "Reverted", call: "processSettlementQueue", error: "Settler_ProcessSettlementQueue_InvalidAmount" })
    expect(summary).toEqual({ traceHash: `0x${createHash("sha256").update(events.map((l) => `${l}\n`).join("")).digest("hex")}`, events: 4, inputs: 3 })
    expect(JSON.parse(out.at(-1)!)).toEqual({ kind: "summary", traceHash: summary.traceHash, events: 4 })
  })

  it("a block going backwards stops the replay with its line number (blank lines count)", async () => {
    const out: string[] = []
    const run = replayLines([config, "", block(100), intent, block(99), intent], { onLine: (l) => out.push(l) })
    await expect(run).rejects.toThrow(InputLineError)
    await expect(replayLines([config, "", block(100), intent, block(99), intent], { onLine: () => {} })).rejects.toMatchObject({
      line: 5,
      message: expect.stringMatching(/^line 5: number\/timestamp: block 99 is before the current hub block 100$/),
    })
    // Nothing after the bad line was applied, and the bad line printed nothing (no `Reverted` event before the error).
    expect(out.filter((l) => JSON.parse(l).kind === "IntentProcessed")).toHaveLength(1)
    expect(out.filter((l) => JSON.parse(l).kind === "Reverted")).toEqual([])
  })

  it("a timestamp going backwards stops the replay too", async () => {
    await expect(replayLines([config, block(100), line({ kind: "block", number: 101, timestamp: 1 })], { onLine: () => {} })).rejects.toMatchObject({
      line: 3,
      message: expect.stringMatching(/^line 3: number\/timestamp: timestamp 1 is before/),
    })
  })

  it("a malformed line stops the replay with its line number and field", async () => {
    await expect(replayLines([config, block(100), "", line({ kind: "processSettlementQueue", domain: "x", amount: 1 })], { onLine: () => {} })).rejects.toMatchObject({
      line: 4,
      message: `line 4: domain: Expected an integer between 0 and 4294967295 (uint32) as a number, got "x"`,
    })
  })

  it("a bad or missing config line", async () => {
    await expect(replayLines([], { onLine: () => {} })).rejects.toMatchObject({ line: 1, message: expect.stringMatching(/^line 1: expected a first line/) })
    await expect(replayLines(["", block(1)], { onLine: () => {} })).rejects.toMatchObject({ line: 2, message: expect.stringMatching(/^line 2: kind: expected "config"/) })
    const duplicate = encodeConfigLine(makeConfig({ tickers: [makeConfig().tickers[0]!, makeConfig().tickers[0]!] }))
    await expect(replayLines([duplicate], { onLine: () => {} })).rejects.toMatchObject({ line: 1, message: "line 1: tickers[1].symbol: duplicate ticker DAI" })
  })

  it("replays reference vector A to the published numbers", async () => {
    const lines: string[] = []
    const summary = await replayFile(new URL("./vectors/vector-a.jsonl", import.meta.url).pathname, { onLine: (l) => lines.push(l), checkEveryInput: true })
    expect(summary.events).toBe(46)
    const settled = lines.map((l) => JSON.parse(l)).filter((e) => e.kind === "SettlementEnqueued")
    expect(settled.map((e) => e.amount)).toEqual(["94900000000000000000000", ...Array(3).fill("9700000000000000000000"), ...Array(7).fill("9921285563751317175974")])
  })
})
