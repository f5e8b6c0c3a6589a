/**
 * Settlement queue (reference §3.7, §3.8), expired intents (§3.10), unsupported returns (§3.9), xERC20 (§3.12)
 * and fee withdrawal (§3.11); PROTOCOL.md "Hub behaviour" and "Order and rounding".
 */
import { encodeAbiParameters, keccak256, toBytes } from "viem"
import { describe, expect, it } from "vitest"
import { decodeMessage, encodeSettlementMessage } from "../domain/encoding.ts"
import type { Bytes32 } from "../domain/hex.ts"
import type { HubInput } from "./hub.ts"
import { messageIdOf } from "./handler.ts"
import { type QueuedSettlement, SettlementQueue } from "./state.ts"
import {
  assetOf,
  DAI,
  daiTicker,
  DOMAIN_A,
  DOMAIN_B,
  DOMAIN_C,
  DOMAIN_D,
  EXPIRY_BUFFER,
  ev,
  FEE1,
  FEE2,
  FEE_DEST,
  INITIATOR,
  makeConfig,
  RECEIVER,
  RECEIVER2,
  settlement,
  type SettlementView,
  SOLVER,
  TestHub,
  u,
  UNKNOWN_ASSET,
  UNSUPPORTED_DOMAIN,
  usdcTicker,
  xtTicker,
} from "./testing.ts"

const HUB_DOMAIN = 25327

/** Applies a call through `hub.apply`, expects the named revert with a single `Reverted` event, and no change. */
const expectRevert = (t: TestHub, input: HubInput, errorName: string) => {
  const before = t.snapshot()
  const outbox = [...t.state.outbox]
  const revert = t.hub.apply(input)
  expect(revert?.errorName).toBe(errorName)
  expect(t.events()).toEqual([{ kind: "Reverted", call: input.kind, error: errorName, message: revert!.message }])
  expect(t.snapshot()).toEqual(before)
  expect(t.state.outbox).toEqual(outbox)
}

/** DAI and USDC liquidity on B (ttl>0 intents waiting), then three ttl=0 settlements onto B: DAI, USDC, DAI. */
const threeOnB = (t: TestHub) => {
  t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(200), ttl: 100_000 })
  t.submit({ symbol: "USDC", origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(200), ttl: 100_000 })
  const s1 = t.submit({ destinations: [DOMAIN_B], amount: u(10) })
  const s2 = t.submit({ symbol: "USDC", destinations: [DOMAIN_B], amount: u(10), receiver: RECEIVER2 })
  const s3 = t.submit({ destinations: [DOMAIN_B], amount: u(20) })
  const expected = [
    settlement({ intentId: s1.id, domain: DOMAIN_B, amount: u("9.7"), recipient: RECEIVER }),
    settlement({ intentId: s2.id, domain: DOMAIN_B, amount: u("9.9998"), recipient: RECEIVER2, symbol: "USDC" }),
    settlement({ intentId: s3.id, domain: DOMAIN_B, amount: u("19.4"), recipient: RECEIVER }),
  ]
  expect(t.queued(DOMAIN_B)).toEqual(expected)
  return expected
}

describe("settlement queue: processSettlementQueue", () => {
  it("dequeues FIFO per domain across tickers into one SETTLEMENT message whose settlements decode", () => {
    const t = new TestHub()
    const [s1, s2, s3] = threeOnB(t) as [SettlementView, SettlementView, SettlementView]
    expect(t.queued(DOMAIN_A)).toEqual([])

    const first = t.hub.processSettlementQueue(DOMAIN_B, 2)
    const encoded = encodeSettlementMessage(first.settlements)
    expect(first).toEqual({
      messageId: messageIdOf(HUB_DOMAIN, DOMAIN_B, 1n, encoded),
      origin: HUB_DOMAIN,
      destination: DOMAIN_B,
      nonce: 1n,
      settlements: [s1, s2],
      gasLimit: 154_000n, // (40,000 + 2 × 50,000) × 1.1
      message: encoded,
    })
    expect(decodeMessage(encoded)).toEqual({ type: "SETTLEMENT", settlements: [s1, s2] })
    expect(t.events()).toEqual([{ kind: "SettlementQueueProcessed", messageId: first.messageId, domain: DOMAIN_B, amount: 2, quote: 0n }])
    expect(t.queued(DOMAIN_B)).toEqual([s3])

    const second = t.hub.processSettlementQueue(DOMAIN_B, 1)
    expect(second.settlements).toEqual([s3])
    expect(second.nonce).toBe(2n)
    expect(second.gasLimit).toBe(99_000n)
    expect(second.messageId).toBe(messageIdOf(HUB_DOMAIN, DOMAIN_B, 2n, encodeSettlementMessage([s3])))
    expect(second.messageId).not.toBe(first.messageId)
    t.events()
    expect(t.queued(DOMAIN_B)).toEqual([])
    expect(t.hub.drainOutbox()).toEqual([first, second])
    expect(t.hub.drainOutbox()).toEqual([])
  })

  it("two batches of one settlement each get distinct message ids (the nonce is part of the id)", () => {
    const t = new TestHub()
    t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(200), ttl: 100_000 })
    t.submit({ destinations: [DOMAIN_B], amount: u(10) })
    const a = t.hub.processSettlementQueue(DOMAIN_B, 1)
    t.submit({ destinations: [DOMAIN_B], amount: u(10) })
    const b = t.hub.processSettlementQueue(DOMAIN_B, 1)
    expect(a.messageId).not.toBe(b.messageId)
    t.events()
  })

  it.each([
    ["amount 0", DOMAIN_B, 0, "Settler_ProcessSettlementQueue_InvalidAmount"],
    ["more than queued", DOMAIN_B, 4, "Settler_ProcessSettlementQueue_InvalidAmount"],
    ["an empty queue", DOMAIN_C, 1, "Settler_ProcessSettlementQueue_InvalidAmount"],
    ["an unsupported domain", UNSUPPORTED_DOMAIN, 1, "Settler_ProcessSettlementQueue_UnsupportedDomain"],
  ])("reverts for %s and changes nothing", (_name, domain, amount, error) => {
    const t = new TestHub()
    threeOnB(t)
    expectRevert(t, { kind: "processSettlementQueue", domain, amount }, error)
    expect(t.queued(DOMAIN_B)).toHaveLength(3)
  })

  it("exactly the queued amount is allowed", () => {
    const t = new TestHub()
    const all = threeOnB(t)
    expect(t.hub.apply({ kind: "processSettlementQueue", domain: DOMAIN_B, amount: 3 })).toBeUndefined()
    expect(t.hub.drainOutbox()[0]!.settlements).toEqual(all)
    t.events()
  })

  it("reverts Settler_DomainBlockGasLimitReached above domainGasLimit; the boundary is allowed", () => {
    const t = new TestHub(makeConfig({ domainGasLimit: 154_000 }))
    threeOnB(t)
    // 3 settlements: (40,000 + 150,000) × 1.1 = 209,000 > 154,000.
    expectRevert(t, { kind: "processSettlementQueue", domain: DOMAIN_B, amount: 3 }, "Settler_DomainBlockGasLimitReached")
    // 2 settlements: exactly 154,000.
    expect(t.hub.processSettlementQueue(DOMAIN_B, 2).gasLimit).toBe(154_000n)
    t.events()
    expect(t.queued(DOMAIN_B)).toHaveLength(1)
  })

  it("uses the configured gas parameters", () => {
    const t = new TestHub(makeConfig({ domainGasLimit: 153_999 }))
    threeOnB(t)
    expectRevert(t, { kind: "processSettlementQueue", domain: DOMAIN_B, amount: 2 }, "Settler_DomainBlockGasLimitReached")
    const u2 = new TestHub(makeConfig({ gasConfig: { settlementBaseGasUnits: 1000, averageGasUnitsPerSettlement: 100, bufferDBPS: 50_000 } }))
    threeOnB(u2)
    // (1000 + 3 × 100) × 1.5
    expect(u2.hub.processSettlementQueue(DOMAIN_B, 3).gasLimit).toBe(1950n)
  })

  it("stays FIFO when the queue drops its dequeued head (past 1024 taken)", () => {
    const queue = new SettlementQueue()
    const item = (i: number): QueuedSettlement => ({
      intentId: `0x${i.toString(16).padStart(64, "0")}`,
      amount: BigInt(i),
      asset: assetOf("DAI", DOMAIN_B),
      recipient: RECEIVER,
      updateVirtualBalance: false,
      enqueuedTimestamp: i,
    })
    for (let i = 0; i < 1100; i++) queue.push(item(i))
    expect(queue.take(1000).map((s) => s.amount)).toEqual(Array.from({ length: 1000 }, (_, i) => BigInt(i)))
    // 1030 taken of 1100: past 1024 and more than half, so the taken head is dropped here.
    expect(queue.take(30).map((s) => s.amount)).toEqual(Array.from({ length: 30 }, (_, i) => BigInt(1000 + i)))
    expect(queue.size).toBe(70)
    expect(queue.take(70).map((s) => s.amount)).toEqual(Array.from({ length: 70 }, (_, i) => BigInt(1030 + i)))
    expect(queue.size).toBe(0)
  })

  it("each queued settlement keeps the hub time at which it was enqueued (the keepers' maxAge)", () => {
    const t = new TestHub()
    t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(200), ttl: 100_000 })
    const first = t.submit({ destinations: [DOMAIN_B], amount: u(10) })
    t.block(105)
    const second = t.submit({ destinations: [DOMAIN_B], amount: u(10) })
    const queue = t.state.settlementQueues.get(DOMAIN_B)!
    // Blocks 100 and 105 at 12 s a block from T0 = 1_700_000_000.
    expect(queue.items.slice(queue.first).map((s) => [s.intentId, s.enqueuedTimestamp])).toEqual([
      [first.id, 1_700_001_200],
      [second.id, 1_700_001_260],
    ])
  })
})

describe("settlement queue: setUpdateVirtualBalance", () => {
  it("applies to settlements enqueued after the call, with the recipient's preference at enqueue time", () => {
    const t = new TestHub()
    t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(500), ttl: 100_000 })
    const before = t.submit({ destinations: [DOMAIN_B], amount: u(10) })
    // An invoice for B's receiver on C (nothing there yet), settled after the preference changes.
    const invoice = t.submit({ destinations: [DOMAIN_C], amount: u(10) })
    expect(t.status(invoice.id)).toBe("INVOICED")

    expect(t.step(() => t.hub.setUpdateVirtualBalance(RECEIVER, true))).toEqual([{ kind: "IncreaseVirtualBalanceSet", user: RECEIVER, status: true }])
    const after = t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_B], amount: u(10) }) // a deposit: the invoice is open
    expect(after.events).toEqual([ev.depositEnqueued(10, DOMAIN_C, after.id, u(10)), ev.intentProcessed(after.id, "ADDED")])
    const other = t.submit({ destinations: [DOMAIN_B], amount: u(10), receiver: RECEIVER2 })
    expect(t.status(other.id)).toBe("ADDED")
    t.block(110)
    expect(t.process()).toEqual([
      ev.settlementEnqueued({ intentId: invoice.id, domain: DOMAIN_C, epoch: 11, amount: u("9.7"), owner: RECEIVER, updateVirtualBalance: true }),
      ev.depositProcessed(10, DOMAIN_A, other.id, u("9.7")),
      ev.settlementEnqueued({ intentId: other.id, domain: DOMAIN_B, epoch: 11, amount: u("9.7"), owner: RECEIVER2 }),
      ev.depositProcessed(10, DOMAIN_C, after.id, u("9.7")),
      ev.settlementEnqueued({ intentId: after.id, domain: DOMAIN_B, epoch: 11, amount: u("9.7"), owner: RECEIVER, updateVirtualBalance: true }),
      ev.closedEpochsProcessed(10),
    ])
    t.step(() => t.hub.setUpdateVirtualBalance(RECEIVER, false))
    const last = t.submit({ destinations: [DOMAIN_B], amount: u(10) })
    expect(last.events[1]).toEqual(ev.settlementEnqueued({ intentId: last.id, domain: DOMAIN_B, epoch: 11, amount: u("9.7"), owner: RECEIVER }))

    const message = t.hub.processSettlementQueue(DOMAIN_B, 4)
    expect(message.settlements.map((s) => [s.intentId, s.updateVirtualBalance])).toEqual([
      [before.id, false],
      [other.id, false],
      [after.id, true],
      [last.id, false],
    ])
    expect(t.hub.processSettlementQueue(DOMAIN_C, 1).settlements).toEqual([
      settlement({ intentId: invoice.id, domain: DOMAIN_C, amount: u("9.7"), recipient: RECEIVER, updateVirtualBalance: true }),
    ])
    t.events()
  })
})

describe("expired intents: handleExpiredIntents", () => {
  /** Liquidity on B; P (A→[B], ttl 100) waits in DEPOSIT_PROCESSED; expiry = P.timestamp + 100 + buffer. */
  const setup = () => {
    const t = new TestHub()
    const l = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(200), ttl: 100_000 })
    const p = t.submit({ destinations: [DOMAIN_B], amount: u(100), ttl: 100 })
    return { t, l: l.id, p: p.id, expiry: p.intent.timestamp + 100 + EXPIRY_BUFFER }
  }

  it("reverts NotExpired one second before timestamp + ttl + expiryTimeBuffer", () => {
    const { t, p, expiry } = setup()
    t.block(150, expiry - 1)
    expectRevert(t, { kind: "handleExpiredIntents", intentIds: [p] }, "Handler_HandleExpiredIntents_NotExpired")
    expect(t.status(p)).toBe("DEPOSIT_PROCESSED")
  })

  it("succeeds at exactly timestamp + ttl + expiryTimeBuffer (>=): settles to the receiver", () => {
    const { t, p, expiry } = setup()
    t.block(150, expiry)
    expect(t.step(() => t.hub.handleExpiredIntents([p]))).toEqual([
      ev.settlementEnqueued({ intentId: p, domain: DOMAIN_B, epoch: 15, amount: u(97), owner: RECEIVER }),
      { kind: "ExpiredIntentsHandled", intentIds: [p] },
    ])
    expect(t.status(p)).toBe("SETTLED")
    expect(t.ticker().waiting.has(p)).toBe(false)
    expect(t.custody(DOMAIN_B)).toBe(u(103))
  })

  it("invoices the receiver when no destination covers it", () => {
    const t = new TestHub()
    const p = t.submit({ destinations: [DOMAIN_C], amount: u(100), ttl: 100 })
    t.block(150, p.intent.timestamp + 100 + EXPIRY_BUFFER + 7)
    expect(t.step(() => t.hub.handleExpiredIntents([p.id]))).toEqual([
      ev.invoiceEnqueued(p.id, 15, u(97), RECEIVER),
      { kind: "ExpiredIntentsHandled", intentIds: [p.id] },
    ])
    expect(t.invoices()).toEqual([{ intentId: p.id, owner: RECEIVER, entryEpoch: 15, amount: u(97) }])
  })

  it("handles a batch in order", () => {
    const { t, p, expiry } = setup()
    const q = t.submit({ destinations: [DOMAIN_B], amount: u(50), ttl: 50 })
    t.block(150, expiry)
    expect(t.step(() => t.hub.handleExpiredIntents([q.id, p]))).toEqual([
      ev.settlementEnqueued({ intentId: q.id, domain: DOMAIN_B, epoch: 15, amount: u("48.5"), owner: RECEIVER }),
      ev.settlementEnqueued({ intentId: p, domain: DOMAIN_B, epoch: 15, amount: u(97), owner: RECEIVER }),
      { kind: "ExpiredIntentsHandled", intentIds: [q.id, p] },
    ])
  })

  it("requires DEPOSIT_PROCESSED: other statuses and unknown ids revert", () => {
    const { t, expiry } = setup()
    const invoiced = t.submit({ destinations: [DOMAIN_C], amount: u(1000) }).id
    const added = t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A], ttl: 1 }).id
    const unsupported = t.submit({ inputAsset: UNKNOWN_ASSET, ttl: 1 }).id
    t.block(150, expiry + 10_000)
    for (const id of [invoiced, added, unsupported, `0x${"99".repeat(32)}` as Bytes32]) {
      expectRevert(t, { kind: "handleExpiredIntents", intentIds: [id] }, "Handler_HandleExpiredIntents_InvalidStatus")
    }
  })

  it("a batch with one bad id changes nothing (the good one stays DEPOSIT_PROCESSED)", () => {
    const { t, l, p, expiry } = setup()
    t.block(150, expiry)
    expectRevert(t, { kind: "handleExpiredIntents", intentIds: [p, `0x${"99".repeat(32)}` as Bytes32] }, "Handler_HandleExpiredIntents_InvalidStatus")
    // L (ttl 100,000) is waiting too but not expired.
    expectRevert(t, { kind: "handleExpiredIntents", intentIds: [p, l] }, "Handler_HandleExpiredIntents_NotExpired")
    expectRevert(t, { kind: "handleExpiredIntents", intentIds: [p, p] }, "Handler_HandleExpiredIntents_InvalidStatus")
    expect(t.status(p)).toBe("DEPOSIT_PROCESSED")
    expect(t.queued(DOMAIN_B)).toEqual([])
  })

  it("checks then handles each id in order: [A, A, B] with B not yet expired reverts InvalidStatus at the second A", () => {
    // Reference §3.10: the first A is handled (SETTLED) before the second A is checked, so the second A is no
    // longer DEPOSIT_PROCESSED; B (L, ttl 100,000) is never reached. The whole call reverts.
    const { t, l, p, expiry } = setup()
    t.block(150, expiry)
    expect(t.status(l)).toBe("DEPOSIT_PROCESSED")
    const revert = t.hub.apply({ kind: "handleExpiredIntents", intentIds: [p, p, l] })
    expect(revert?.errorName).toBe("Handler_HandleExpiredIntents_InvalidStatus")
    expect(revert?.message).toContain(p)
    t.events()
    expectRevert(t, { kind: "handleExpiredIntents", intentIds: [p, p, l] }, "Handler_HandleExpiredIntents_InvalidStatus")
    // B before the repeated A: B's NotExpired comes first.
    expectRevert(t, { kind: "handleExpiredIntents", intentIds: [p, l, p] }, "Handler_HandleExpiredIntents_NotExpired")
    expect(t.status(p)).toBe("DEPOSIT_PROCESSED")
    expect(t.status(l)).toBe("DEPOSIT_PROCESSED")
    expect(t.ticker().waiting.has(p)).toBe(true)
    expect(t.queued(DOMAIN_B)).toEqual([])
  })

  it("a filled intent can no longer be expired", () => {
    const { t, p, expiry } = setup()
    t.fill(p, SOLVER)
    t.block(150, expiry)
    expectRevert(t, { kind: "handleExpiredIntents", intentIds: [p] }, "Handler_HandleExpiredIntents_InvalidStatus")
  })
})

describe("unsupported intents: returnUnsupportedIntent", () => {
  it("returns the full pre-fee amount to the initiator on the origin, directly, with updateVirtualBalance true", () => {
    const t = new TestHub()
    t.step(() => t.hub.setUpdateVirtualBalance(INITIATOR, false))
    const { id, intent } = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_B, UNSUPPORTED_DOMAIN], amount: u(100) })
    expect(t.status(id)).toBe("UNSUPPORTED")
    const message = t.hub.returnUnsupportedIntent(id)
    const settlements = [{ intentId: id, amount: u(100), asset: intent.inputAsset, recipient: INITIATOR, updateVirtualBalance: true }]
    expect(message).toEqual({
      messageId: messageIdOf(HUB_DOMAIN, DOMAIN_A, 1n, encodeSettlementMessage(settlements)),
      origin: HUB_DOMAIN,
      destination: DOMAIN_A,
      nonce: 1n,
      settlements,
      gasLimit: 50_000n,
      message: encodeSettlementMessage(settlements),
    })
    expect(t.events()).toEqual([{ kind: "ReturnUnsupportedIntent", domain: DOMAIN_A, messageId: message.messageId, intentId: id }])
    expect(t.status(id)).toBe("UNSUPPORTED_RETURNED")
    expect(t.state.outbox).toEqual([message])
    // Not through the settlement queue, and no custody or fee moved.
    expect(t.queued(DOMAIN_A)).toEqual([])
    expect(t.custodies()).toEqual({ [DOMAIN_A]: 0n, [DOMAIN_B]: 0n, [DOMAIN_C]: 0n })
    expect(t.vault(FEE1)).toBe(0n)

    expectRevert(t, { kind: "returnUnsupportedIntent", intentId: id }, "Handler_ReturnUnsupportedIntent_InvalidStatus")
  })

  it("returns an unknown input asset as is", () => {
    const t = new TestHub()
    const { id } = t.submit({ origin: DOMAIN_C, inputAsset: UNKNOWN_ASSET, amount: 12_345n })
    const message = t.hub.returnUnsupportedIntent(id)
    expect(message.destination).toBe(DOMAIN_C)
    expect(message.settlements).toEqual([{ intentId: id, amount: 12_345n, asset: UNKNOWN_ASSET, recipient: INITIATOR, updateVirtualBalance: true }])
    t.events()
  })

  it("reverts for any other status or an unknown id", () => {
    const t = new TestHub()
    const invoiced = t.submit({ destinations: [DOMAIN_B] }).id
    const waiting = t.submit({ ttl: 3600 }).id
    for (const id of [invoiced, waiting, `0x${"99".repeat(32)}` as Bytes32]) {
      expectRevert(t, { kind: "returnUnsupportedIntent", intentId: id }, "Handler_ReturnUnsupportedIntent_InvalidStatus")
    }
  })
})

describe("xERC20: no custody, full amount after protocol fees to the first xERC20 destination, no discount", () => {
  const xt = () => new TestHub(makeConfig({ tickers: [daiTicker(), xtTicker()] }))
  const zero = { [DOMAIN_A]: 0n, [DOMAIN_B]: 0n, [DOMAIN_C]: 0n }

  it("xERC20 input: nothing custodied; settled to the first xERC20 destination although B (default) covers it", () => {
    const t = xt()
    t.submit({ symbol: "XT", origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(500), ttl: 100_000 })
    expect(t.custodies("XT")).toEqual({ ...zero, [DOMAIN_B]: u(500) })
    const { id, events } = t.submit({ symbol: "XT", origin: DOMAIN_A, destinations: [DOMAIN_B, DOMAIN_C], amount: u(100) })
    expect(events).toEqual([
      ev.depositProcessed(10, DOMAIN_A, id, u(100), "XT"),
      ev.settlementEnqueued({ intentId: id, domain: DOMAIN_C, epoch: 10, amount: u(97), owner: RECEIVER, symbol: "XT" }),
      ev.intentProcessed(id, "SETTLED"),
    ])
    expect(t.custodies("XT")).toEqual({ ...zero, [DOMAIN_B]: u(500) })
    expect(t.vault(FEE1, "XT")).toBe(u(6))
    expect(t.vault(FEE2, "XT")).toBe(u(12))
  })

  it.each([
    [[DOMAIN_C, DOMAIN_A], DOMAIN_C],
    [[DOMAIN_A, DOMAIN_C], DOMAIN_A],
  ])("destinations %j: the first xERC20 one (%i)", (destinations, chosen) => {
    const t = xt()
    const { id, events } = t.submit({ symbol: "XT", origin: DOMAIN_B, destinations, amount: u(100) })
    expect(events[1]).toEqual(ev.settlementEnqueued({ intentId: id, domain: chosen, epoch: 10, amount: u(97), owner: RECEIVER, symbol: "XT" }))
    // Default input: custodied on B; the xERC20 settlement takes nothing from custody.
    expect(t.custodies("XT")).toEqual({ ...zero, [DOMAIN_B]: u(100) })
  })

  it("an invoice that later reaches an xERC20 domain settles in full, with no discount and no rewards", () => {
    const t = xt()
    const x = t.submit({ symbol: "XT", origin: DOMAIN_A, destinations: [DOMAIN_B], amount: u(100) })
    expect(x.events[1]).toEqual(ev.invoiceEnqueued(x.id, 10, u(97), RECEIVER, "XT"))
    t.block(120)
    t.step(() => t.hub.setUserSupportedDomains(RECEIVER, [DOMAIN_B, DOMAIN_C]))
    const y = t.submit({ symbol: "XT", origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(100), ttl: 100_000 })
    expect(y.events[0]).toEqual(ev.depositEnqueued(12, DOMAIN_B, y.id, u(100), "XT"))
    // Two epochs after entry, with a current-epoch deposit on B: a default settlement would be discounted.
    expect(t.process("XT")).toEqual([
      ev.settlementEnqueued({ intentId: x.id, domain: DOMAIN_C, epoch: 12, amount: u(97), owner: RECEIVER, symbol: "XT" }),
      ev.closedEpochsProcessed(11, "XT"),
    ])
    expect(t.pendingRewards(y.id)).toBe(0n)
    expect(t.deposits(12, DOMAIN_B, "XT")!.available).toBe(u(100))
    expect(t.custodies("XT")).toEqual({ ...zero, [DOMAIN_B]: u(100) })
    expect(t.ticker("XT").ledger.surplus18).toBe(0n)
  })

  it("a default-prioritized ticker falls back to xERC20 only when no default destination covers", () => {
    const t = new TestHub(makeConfig({ tickers: [daiTicker(), xtTicker({ prioritizedStrategy: "default" })] }))
    t.submit({ symbol: "XT", origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(150), ttl: 100_000 })
    const covered = t.submit({ symbol: "XT", origin: DOMAIN_A, destinations: [DOMAIN_C, DOMAIN_B], amount: u(100) })
    expect(covered.events[1]).toEqual(ev.settlementEnqueued({ intentId: covered.id, domain: DOMAIN_B, epoch: 10, amount: u(97), owner: RECEIVER, symbol: "XT" }))
    const fallback = t.submit({ symbol: "XT", origin: DOMAIN_A, destinations: [DOMAIN_B, DOMAIN_C], amount: u(100) })
    expect(fallback.events[1]).toEqual(ev.settlementEnqueued({ intentId: fallback.id, domain: DOMAIN_C, epoch: 10, amount: u(97), owner: RECEIVER, symbol: "XT" }))
    expect(t.custodies("XT")).toEqual({ ...zero, [DOMAIN_B]: u(53) })
  })

  it("a default-prioritized ticker's invoice that later reaches an xERC20 domain falls back to it in full when no default destination covers it (§3.6 step 2 and 4)", () => {
    const t = new TestHub(makeConfig({ tickers: [daiTicker(), xtTicker({ prioritizedStrategy: "default" })] }))
    const x = t.submit({ symbol: "XT", origin: DOMAIN_A, destinations: [DOMAIN_B], amount: u(100) })
    expect(x.events[1]).toEqual(ev.invoiceEnqueued(x.id, 10, u(97), RECEIVER, "XT"))
    t.block(120)
    t.step(() => t.hub.setUserSupportedDomains(RECEIVER, [DOMAIN_B, DOMAIN_C]))
    // B holds 50 of a waiting ttl>0 intent: less than the 97, so the default search finds nothing; C, in full.
    t.submit({ symbol: "XT", origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(50), ttl: 100_000 })
    expect(t.process("XT")).toEqual([
      ev.settlementEnqueued({ intentId: x.id, domain: DOMAIN_C, epoch: 12, amount: u(97), owner: RECEIVER, symbol: "XT" }),
      ev.closedEpochsProcessed(11, "XT"),
    ])
    expect(t.status(x.id)).toBe("SETTLED")
    expect(t.custodies("XT")).toEqual({ ...zero, [DOMAIN_B]: u(50) })
  })
})

describe("fee vault: withdrawFees", () => {
  const paymentId = (withdrawer: Bytes32, recipient: Bytes32, amount: bigint, destinations: number[], nonce: bigint): Bytes32 =>
    keccak256(
      encodeAbiParameters(
        [{ type: "bytes32" }, { type: "bytes32" }, { type: "uint256" }, { type: "bytes32" }, { type: "bytes32" }, { type: "uint32[]" }, { type: "uint256" }],
        [keccak256(toBytes("protocol_payment")), DAI, amount, withdrawer, recipient, destinations, nonce],
      ),
    )

  /** 100 DAI custodied on A (a waiting ttl>0 intent): FEE1 holds 1, FEE2 holds 2. */
  const setup = () => {
    const t = new TestHub()
    t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_B], amount: u(100), ttl: 100_000 })
    expect([t.vault(FEE1), t.vault(FEE2)]).toEqual([u(1), u(2)])
    return t
  }

  it("settles the payment id to the fee recipient and decreases the vault", () => {
    const t = setup()
    let id: Bytes32 | undefined
    const events = t.step(() => {
      id = t.hub.withdrawFees(FEE1, FEE_DEST, "DAI", u(1), [DOMAIN_A])
    })
    expect(id).toBe(paymentId(FEE1, FEE_DEST, u(1), [DOMAIN_A], 1n))
    expect(events).toEqual([
      { kind: "FeesWithdrawn", withdrawer: FEE1, feeRecipient: FEE_DEST, tickerHash: DAI, amount: u(1), paymentId: id },
      ev.settlementEnqueued({ intentId: id!, domain: DOMAIN_A, epoch: 10, amount: u(1), owner: FEE_DEST }),
    ])
    expect(t.vault(FEE1)).toBe(0n)
    expect(t.vault(FEE2)).toBe(u(2))
    expect(t.custody(DOMAIN_A)).toBe(u(99))
    expect(t.status(id!)).toBe("SETTLED")
    expect(t.queued(DOMAIN_A)).toEqual([settlement({ intentId: id!, domain: DOMAIN_A, amount: u(1), recipient: FEE_DEST })])
  })

  it("partial withdrawals; identical withdrawals get distinct payment ids", () => {
    const t = setup()
    const a = t.hub.withdrawFees(FEE2, FEE2, "DAI", u("0.5"), [DOMAIN_A])
    const b = t.hub.withdrawFees(FEE2, FEE2, "DAI", u("0.5"), [DOMAIN_A])
    expect(a).not.toBe(b)
    expect(b).toBe(paymentId(FEE2, FEE2, u("0.5"), [DOMAIN_A], 2n))
    expect(t.vault(FEE2)).toBe(u(1))
    t.events()
  })

  it("invoices the payment when no destination covers it; invoice processing settles it later", () => {
    const t = setup()
    let id: Bytes32 | undefined
    const events = t.step(() => {
      id = t.hub.withdrawFees(FEE2, FEE_DEST, DAI, u(2), [DOMAIN_C])
    })
    expect(events).toEqual([
      { kind: "FeesWithdrawn", withdrawer: FEE2, feeRecipient: FEE_DEST, tickerHash: DAI, amount: u(2), paymentId: id! },
      ev.invoiceEnqueued(id!, 10, u(2), FEE_DEST),
    ])
    expect(t.invoices()).toEqual([{ intentId: id!, owner: FEE_DEST, entryEpoch: 10, amount: u(2) }])
    expect(t.vault(FEE2)).toBe(0n)
    t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A], amount: u(10) }) // deposit on C
    expect(t.process()).toEqual([ev.settlementEnqueued({ intentId: id!, domain: DOMAIN_C, epoch: 10, amount: u(2), owner: FEE_DEST })])
    expect(t.custody(DOMAIN_C)).toBe(u(8))
  })

  it("no destinations: any domain of the ticker", () => {
    const t = setup()
    const id = t.hub.withdrawFees(FEE2, FEE_DEST, "DAI", u(2), [])
    expect(t.events()[1]).toEqual(ev.settlementEnqueued({ intentId: id, domain: DOMAIN_A, epoch: 10, amount: u(2), owner: FEE_DEST }))
  })

  const call = (withdrawer: Bytes32, amount: bigint, destinations: number[], ticker = "DAI"): HubInput => ({
    kind: "withdrawFees",
    withdrawer,
    feeRecipient: FEE_DEST,
    ticker,
    amount,
    destinations,
  })
  it.each([
    ["more than the vault", call(FEE1, u(1) + 1n, [DOMAIN_A]), "Handler_WithdrawFees_InsufficientFunds"],
    ["zero", call(FEE1, 0n, [DOMAIN_A]), "Handler_WithdrawFees_InsufficientFunds"],
    ["a withdrawer without a vault", call(SOLVER, 1n, [DOMAIN_A]), "Handler_WithdrawFees_InsufficientFunds"],
    ["an unknown ticker", call(FEE1, 1n, [DOMAIN_A], "NOPE"), "Handler_WithdrawFees_InsufficientFunds"],
    ["an unsupported destination", call(FEE1, u(1), [DOMAIN_A, UNSUPPORTED_DOMAIN]), "Handler_WithdrawFees_UnsupportedDomain"],
  ])("reverts for %s and changes nothing", (_name, input, error) => {
    const t = setup()
    expectRevert(t, input, error)
    expect(t.vault(FEE1)).toBe(u(1))
  })

  it("a destination supported by the hub but not by the ticker is accepted (the payment is then invoiced)", () => {
    const t = setup()
    const id = t.hub.withdrawFees(FEE1, FEE_DEST, "DAI", u(1), [DOMAIN_D])
    expect(t.events()[1]).toEqual(ev.invoiceEnqueued(id, 10, u(1), FEE_DEST))
  })
})

describe("settlement assets", () => {
  it("every settlement carries the adopted asset of its ticker on the destination", () => {
    const t = new TestHub(makeConfig({ tickers: [daiTicker(), usdcTicker()] }))
    threeOnB(t)
    expect(t.queued(DOMAIN_B).map((s) => s.asset)).toEqual([assetOf("DAI", DOMAIN_B), assetOf("USDC", DOMAIN_B), assetOf("DAI", DOMAIN_B)])
  })
})
