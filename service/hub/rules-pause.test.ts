/**
 * Pausing and access on the hub (reference §3.14, §3.2): who may pause, what a paused hub refuses (gateway
 * messages, `processSettlementQueue`, `handleExpiredIntents`, `returnUnsupportedIntent`), what it still does
 * (`processDepositsAndInvoices`, `withdrawFees`, `receiveMessage` by the owner or an ADMIN), and traces with
 * pauses: their lines, packing, and replay to the live run's hash.
 */
import { describe, expect, it } from "vitest"
import type { Bytes32 } from "../domain/hex.ts"
import type { FillMessage } from "../domain/protocol.ts"
import { CollectingSink, TraceHasher } from "./trace.ts"
import { Hub, type HubInput } from "./hub.ts"
import { decodeConfigLine, decodeInputLine, encodeConfigLine, encodeInputLine, InputLineError } from "./inputs.ts"
import { formatPackedInputs, packInput, unpackInputs } from "./inputLines.ts"
import { HUB_PAUSED, HUB_UNAUTHORIZED } from "./pause.ts"
import { replayLines } from "./replay.ts"

import {
  DOMAIN_A,
  DOMAIN_B,
  DOMAIN_C,
  EXPIRY_BUFFER,
  ev,
  FEE1,
  FEE_DEST,
  idOf,
  INITIATOR,
  makeConfig,
  RECEIVER,
  SOLVER,
  TestHub,
  timeOf,
  u,
  UNKNOWN_ASSET,
} from "./testing.ts"

const word = (byte: string): Bytes32 => `0x${"0".repeat(62)}${byte}`
const OWNER = word("01")
const WATCHTOWER = word("02")
const ADMIN = word("03")
const STRANGER = word("04")

const pausableConfig = () => makeConfig({ owner: OWNER, watchtower: WATCHTOWER, admins: [ADMIN] })

/** Applies a call through `hub.apply`, expects the named revert with a single `Reverted` event, and no change. */
const expectRevert = (t: TestHub, input: HubInput, errorName: string) => {
  const before = t.snapshot()
  const paused = t.state.paused
  const outbox = [...t.state.outbox]
  const revert = t.hub.apply(input)
  expect(revert?.errorName).toBe(errorName)
  expect(t.events()).toEqual([{ kind: "Reverted", call: input.kind, error: errorName, message: revert!.message }])
  expect(t.snapshot()).toEqual(before)
  expect(t.state.paused).toBe(paused)
  expect(t.state.outbox).toEqual(outbox)
}

describe("pausing: pause and unpause by the owner or the watchtower", () => {
  it("the owner pauses and unpauses: the flag follows, Paused and Unpaused name the caller", () => {
    const t = new TestHub(pausableConfig())
    expect(t.hub.paused).toBe(false)
    expect(t.step(() => t.hub.pause(OWNER))).toEqual([{ kind: "Paused", caller: OWNER }])
    expect(t.hub.paused).toBe(true)
    expect(t.step(() => t.hub.unpause(OWNER))).toEqual([{ kind: "Unpaused", caller: OWNER }])
    expect(t.hub.paused).toBe(false)
  })

  it("the watchtower may pause and unpause too", () => {
    const t = new TestHub(pausableConfig())
    expect(t.hub.apply({ kind: "pause", caller: WATCHTOWER })).toBeUndefined()
    expect(t.hub.paused).toBe(true)
    expect(t.hub.apply({ kind: "unpause", caller: WATCHTOWER })).toBeUndefined()
    expect(t.hub.paused).toBe(false)
    expect(t.events()).toEqual([
      { kind: "Paused", caller: WATCHTOWER },
      { kind: "Unpaused", caller: WATCHTOWER },
    ])
  })

  it("anyone else (an ADMIN included) is refused with Hub_Unauthorized and nothing changes", () => {
    const t = new TestHub(pausableConfig())
    expectRevert(t, { kind: "pause", caller: STRANGER }, HUB_UNAUTHORIZED)
    expectRevert(t, { kind: "pause", caller: ADMIN }, HUB_UNAUTHORIZED)
    expect(t.hub.paused).toBe(false)
    t.step(() => t.hub.pause(OWNER))
    expectRevert(t, { kind: "unpause", caller: STRANGER }, HUB_UNAUTHORIZED)
    expect(t.hub.paused).toBe(true)
  })

  it("a hub configured without owner or watchtower cannot be paused, and says so", () => {
    const t = new TestHub()
    const revert = t.hub.apply({ kind: "pause", caller: OWNER })
    expect(revert?.errorName).toBe(HUB_UNAUTHORIZED)
    expect(revert?.message).toBe(`pause needs the owner or the watchtower; ${OWNER} is neither (the hub has no owner and no watchtower)`)
    expect(t.hub.paused).toBe(false)
    t.events()
  })

  it("pausing a paused hub keeps it paused and emits Paused again (the engine's choice: the reference does not say)", () => {
    const t = new TestHub(pausableConfig())
    t.step(() => t.hub.pause(OWNER))
    expect(t.step(() => t.hub.pause(WATCHTOWER))).toEqual([{ kind: "Paused", caller: WATCHTOWER }])
    expect(t.hub.paused).toBe(true)
  })
})

describe("pausing: the gated calls revert Hub_Paused while paused and work again after unpause", () => {
  it("processSettlementQueue", () => {
    const t = new TestHub(pausableConfig())
    t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(200), ttl: 100_000 })
    const s = t.submit({ destinations: [DOMAIN_B], amount: u(10) })
    expect(t.queued(DOMAIN_B).map((q) => q.intentId)).toEqual([s.id])
    t.step(() => t.hub.pause(OWNER))
    expectRevert(t, { kind: "processSettlementQueue", domain: DOMAIN_B, amount: 1 }, HUB_PAUSED)
    // The pause is checked first, as the modifier runs before the body: an invalid amount also says Hub_Paused.
    expectRevert(t, { kind: "processSettlementQueue", domain: DOMAIN_B, amount: 5 }, HUB_PAUSED)
    expect(t.queued(DOMAIN_B).map((q) => q.intentId)).toEqual([s.id])

    t.step(() => t.hub.unpause(OWNER))
    const message = t.hub.processSettlementQueue(DOMAIN_B, 1)
    expect(message.settlements.map((x) => x.intentId)).toEqual([s.id])
    expect(t.queued(DOMAIN_B)).toEqual([])
    expect(t.events()).toEqual([{ kind: "SettlementQueueProcessed", messageId: message.messageId, domain: DOMAIN_B, amount: 1, quote: 0n }])
  })

  it("handleExpiredIntents", () => {
    const t = new TestHub(pausableConfig())
    t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(200), ttl: 100_000 })
    const p = t.submit({ destinations: [DOMAIN_B], amount: u(100), ttl: 100 })
    t.block(150, p.intent.timestamp + 100 + EXPIRY_BUFFER)
    t.step(() => t.hub.pause(WATCHTOWER))
    expectRevert(t, { kind: "handleExpiredIntents", intentIds: [p.id] }, HUB_PAUSED)
    expect(t.status(p.id)).toBe("DEPOSIT_PROCESSED")

    t.step(() => t.hub.unpause(WATCHTOWER))
    expect(t.step(() => t.hub.handleExpiredIntents([p.id]))).toEqual([
      ev.settlementEnqueued({ intentId: p.id, domain: DOMAIN_B, epoch: 15, amount: u(97), owner: RECEIVER }),
      { kind: "ExpiredIntentsHandled", intentIds: [p.id] },
    ])
  })

  it("returnUnsupportedIntent", () => {
    const t = new TestHub(pausableConfig())
    const { id } = t.submit({ origin: DOMAIN_C, inputAsset: UNKNOWN_ASSET, amount: 12_345n })
    expect(t.status(id)).toBe("UNSUPPORTED")
    t.step(() => t.hub.pause(OWNER))
    expectRevert(t, { kind: "returnUnsupportedIntent", intentId: id }, HUB_PAUSED)
    expect(t.status(id)).toBe("UNSUPPORTED")

    t.step(() => t.hub.unpause(OWNER))
    const message = t.hub.returnUnsupportedIntent(id)
    expect(message.settlements).toEqual([{ intentId: id, amount: 12_345n, asset: UNKNOWN_ASSET, recipient: INITIATOR, updateVirtualBalance: true }])
    expect(t.status(id)).toBe("UNSUPPORTED_RETURNED")
    t.events()
  })
})

describe("pausing: receiveMessage", () => {
  it("refuses the gateway's INTENT and FILL messages while paused; after unpause the same messages are processed", () => {
    const t = new TestHub(pausableConfig())
    const intent = t.intent({ destinations: [DOMAIN_B], amount: u(100), ttl: 100 })
    const id = idOf(intent)
    const fill: FillMessage = { intentId: id, solver: SOLVER, initiator: INITIATOR, fee: 0, executionTimestamp: t.state.timestamp }
    t.step(() => t.hub.pause(OWNER))
    expectRevert(t, { kind: "intents", intents: [intent] }, HUB_PAUSED)
    expectRevert(t, { kind: "fills", fills: [fill] }, HUB_PAUSED)
    expect(t.status(id)).toBe("NONE")

    t.step(() => t.hub.unpause(OWNER))
    expect(t.send(intent)).toContainEqual(ev.intentProcessed(id, "DEPOSIT_PROCESSED"))
    // No liquidity on B for the solver: its repayment is invoiced.
    expect(t.step(() => t.hub.receiveFills([fill]))).toContainEqual(ev.fillProcessed(id, "INVOICED"))
  })

  it("the owner and an ADMIN may still deliver messages directly while paused", () => {
    const t = new TestHub(pausableConfig())
    t.step(() => t.hub.pause(OWNER))
    const a = t.intent({ destinations: [DOMAIN_B], amount: u(100) })
    const b = t.intent({ destinations: [DOMAIN_B], amount: u(50), ttl: 100 })
    expect(t.hub.apply({ kind: "intents", intents: [a], caller: OWNER })).toBeUndefined()
    expect(t.hub.apply({ kind: "intents", intents: [b], caller: ADMIN })).toBeUndefined()
    expect(t.status(idOf(a))).toBe("INVOICED")
    // An open DAI invoice (a's): b is a deposit of this epoch.
    expect(t.status(idOf(b))).toBe("ADDED")
    const fill: FillMessage = { intentId: idOf(b), solver: SOLVER, initiator: INITIATOR, fee: 0, executionTimestamp: t.state.timestamp }
    expect(t.hub.apply({ kind: "fills", fills: [fill], caller: ADMIN })).toBeUndefined()
    expect(t.status(idOf(b))).toBe("ADDED_AND_FILLED")
    t.events()
  })

  it("anyone else calling receiveMessage directly is refused, paused or not", () => {
    const t = new TestHub(pausableConfig())
    const intent = t.intent({ destinations: [DOMAIN_B] })
    expectRevert(t, { kind: "intents", intents: [intent], caller: STRANGER }, HUB_UNAUTHORIZED)
    expectRevert(t, { kind: "intents", intents: [intent], caller: WATCHTOWER }, HUB_UNAUTHORIZED)
    t.step(() => t.hub.pause(OWNER))
    expectRevert(t, { kind: "intents", intents: [intent], caller: STRANGER }, HUB_UNAUTHORIZED)
  })
})

describe("pausing: processDepositsAndInvoices and withdrawFees keep working", () => {
  it("processDepositsAndInvoices settles an invoice and cleans up closed epochs while paused", () => {
    const t = new TestHub(pausableConfig())
    // An invoice for A→[B] (no liquidity on B), then a deposit on B in the same epoch that can buy it.
    const invoiced = t.submit({ destinations: [DOMAIN_B], amount: u(100) })
    expect(t.status(invoiced.id)).toBe("INVOICED")
    t.block(110)
    const deposit = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(200) })
    expect(t.status(deposit.id)).toBe("ADDED")
    t.step(() => t.hub.pause(OWNER))
    const events = t.process()
    expect(events.filter((e) => e.kind === "SettlementEnqueued").map((e) => (e as { intentId: Bytes32 }).intentId)).toContain(invoiced.id)
    expect(t.status(invoiced.id)).toBe("SETTLED")
    expect(t.invoices()).toEqual([])
    t.block(130)
    const cleanup = t.process()
    expect(cleanup).toContainEqual(ev.closedEpochsProcessed(12))
    expect(t.status(deposit.id)).not.toBe("ADDED")
    expect(t.hub.paused).toBe(true)
  })

  it("withdrawFees withdraws from the fee vault while paused", () => {
    const t = new TestHub(pausableConfig())
    t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(200), ttl: 100_000 })
    const vault = t.vault(FEE1)
    expect(vault).toBe(u(2))
    t.step(() => t.hub.pause(OWNER))
    const paymentId = t.hub.withdrawFees(FEE1, FEE_DEST, "DAI", u(1), [DOMAIN_A])
    expect(t.vault(FEE1)).toBe(vault - u(1))
    expect(t.events()).toContainEqual({ kind: "FeesWithdrawn", withdrawer: FEE1, feeRecipient: FEE_DEST, tickerHash: t.ticker().config.tickerHash, amount: u(1), paymentId })
  })
})

describe("pausing: traces", () => {
  const CALLER_INTENT_BATCH = () => new TestHub().intent({ destinations: [DOMAIN_A, DOMAIN_B], amount: u("1.5") })

  it("round-trips pause, unpause and direct receiveMessage inputs through their lines", () => {
    const intent = CALLER_INTENT_BATCH()
    const fill: FillMessage = { intentId: idOf(intent), solver: SOLVER, initiator: SOLVER, fee: 5, executionTimestamp: 9 }
    const inputs: HubInput[] = [
      { kind: "pause", caller: OWNER },
      { kind: "unpause", caller: WATCHTOWER },
      { kind: "intents", intents: [intent], caller: ADMIN },
      { kind: "fills", fills: [fill], caller: OWNER },
    ]
    for (const input of inputs) expect(decodeInputLine(encodeInputLine(input), 1)).toEqual(input)
    expect(encodeInputLine({ kind: "pause", caller: OWNER })).toBe(`{"kind":"pause","caller":"${OWNER}"}`)
    // Without a caller (the gateway), the lines are exactly as before.
    expect(encodeInputLine({ kind: "intents", intents: [intent] })).not.toContain("caller")
    // Addresses are accepted as callers, like every account field.
    expect(decodeInputLine(JSON.stringify({ kind: "pause", caller: `0x${"0".repeat(38)}01` }), 1)).toEqual({ kind: "pause", caller: OWNER })
  })

  it("packs them for the trace worker without losing the caller", () => {
    const intent = CALLER_INTENT_BATCH()
    const inputs: HubInput[] = [{ kind: "pause", caller: OWNER }, { kind: "intents", intents: [intent], caller: ADMIN }, { kind: "intents", intents: [intent] }, { kind: "unpause", caller: OWNER }]
    const batch: unknown[] = []
    for (const input of inputs) packInput(batch, input)
    expect(unpackInputs(batch)).toEqual(inputs)
    expect(formatPackedInputs(batch)).toBe(inputs.map((i) => `${encodeInputLine(i)}\n`).join(""))
  })

  it("decodes owner, watchtower and admins in the config line and names a bad one", () => {
    const decoded = decodeConfigLine(encodeConfigLine(pausableConfig()))
    expect(decoded).toMatchObject({ owner: OWNER, watchtower: WATCHTOWER, admins: [ADMIN] })
    expect(() => decodeConfigLine(JSON.stringify({ kind: "config", owner: "0x12", tickers: [] }))).toThrow(InputLineError)
    expect(() => decodeConfigLine(JSON.stringify({ kind: "config", owner: "0x12", tickers: [] }))).toThrow(/^line 1: owner: Expected a 0x-prefixed 20-byte address or 32-byte hex word/)
    expect(() => decodeInputLine(JSON.stringify({ kind: "pause" }), 4)).toThrow(/^line 4: caller: Missing key: expected a 0x-prefixed 20-byte address or 32-byte hex word as a string$/)
    // A misspelt option is refused, not dropped (allowFastPathSwap for allowFastPathSwaps would keep the default).
    const line = JSON.parse(encodeConfigLine(pausableConfig())) as Record<string, unknown>
    expect(() => decodeConfigLine(JSON.stringify({ ...line, allowFastPathSwap: false }))).toThrow(/^line 1: allowFastPathSwap: unknown key \(not a field here; a typo\?\)$/)
    expect(() => decodeInputLine(JSON.stringify({ kind: "block", number: 400, timestamp: 1_700_000_000, typo: 5 }), 2)).toThrow(/^line 2: typo: unknown key/)
    expect(() => decodeInputLine('{"kind":"block","number":9007199254740993,"timestamp":1700000000}', 2)).toThrow(
      /^line 2: number: Expected an integer of at most 9007199254740991 \(2\^53 - 1\), got 9007199254740992$/,
    )
  })

  it("a run with a pause replays to the live run's trace hash, the refused message and the gated revert included", async () => {
    const config = pausableConfig()
    const sink = new CollectingSink()
    const hasher = new TraceHasher()
    const hub = new Hub(config, { emit: (e) => (sink.emit(e), hasher.emit(e)) })
    const intents = new TestHub().intents
    const liquidity = intents.make({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(200), ttl: 100_000, timestamp: timeOf(100) })
    const user = intents.make({ destinations: [DOMAIN_B], amount: u(10), timestamp: timeOf(100) })
    const inputs: HubInput[] = [
      { kind: "block", number: 100, timestamp: timeOf(100) },
      { kind: "intents", intents: [liquidity] },
      { kind: "pause", caller: OWNER },
      { kind: "intents", intents: [user] },
      { kind: "processSettlementQueue", domain: DOMAIN_B, amount: 1 },
      { kind: "processDepositsAndInvoices", ticker: "DAI", maxEpochs: 0, maxDeposits: 0, maxInvoices: 0 },
      { kind: "block", number: 105, timestamp: timeOf(105) },
      { kind: "unpause", caller: OWNER },
      { kind: "intents", intents: [user] },
      { kind: "processSettlementQueue", domain: DOMAIN_B, amount: 1 },
    ]
    const reverts = inputs.map((input) => hub.apply(input)?.errorName)
    expect(reverts).toEqual([undefined, undefined, undefined, HUB_PAUSED, HUB_PAUSED, undefined, undefined, undefined, undefined, undefined])
    expect(sink.events.filter((e) => e.kind === "Paused" || e.kind === "Unpaused")).toEqual([
      { kind: "Paused", caller: OWNER },
      { kind: "Unpaused", caller: OWNER },
    ])
    const lines = [encodeConfigLine(config), ...inputs.map(encodeInputLine)]
    const replayed = await replayLines(lines, { onLine: () => {} })
    expect(replayed.events).toBe(sink.events.length)
    expect(replayed.traceHash).toBe(hasher.digest())
    hasher.close()
    // Without the pause and unpause lines the run differs: the pause is part of what the hash covers.
    const withoutPause = await replayLines(
      lines.filter((l) => !l.includes('"kind":"pause"') && !l.includes('"kind":"unpause"')),
      { onLine: () => {} },
    )
    expect(withoutPause.traceHash).not.toBe(replayed.traceHash)
  })
})
