/**
 * Intent intake (reference §3.3; PROTOCOL.md "Hub behaviour: Intake", "Order and rounding").
 */
import { describe, expect, it } from "vitest"
import { ZERO_BYTES32 } from "../domain/hex.ts"
import {
  assetOf,
  DOMAIN_A,
  DOMAIN_B,
  DOMAIN_C,
  DOMAIN_D,
  ev,
  FEE1,
  FEE2,
  idOf,
  RECEIVER,
  TestHub,
  u,
  UNKNOWN_ASSET,
  UNSUPPORTED_DOMAIN,
} from "./testing.ts"

const expectNothingMoved = (t: TestHub) => {
  expect(t.custodies()).toEqual({ [DOMAIN_A]: 0n, [DOMAIN_B]: 0n, [DOMAIN_C]: 0n })
  expect(t.custodies("USDC")).toEqual({ [DOMAIN_A]: 0n, [DOMAIN_B]: 0n, [DOMAIN_D]: 0n })
  expect(t.vault(FEE1)).toBe(0n)
  expect(t.vault(FEE2)).toBe(0n)
  expect(t.vault(FEE1, "USDC")).toBe(0n)
  expect(t.invoices()).toEqual([])
  expect(t.queued(DOMAIN_A)).toEqual([])
  expect(t.queued(DOMAIN_B)).toEqual([])
  expect(t.queued(DOMAIN_C)).toEqual([])
}

describe("intake: support check (UNSUPPORTED emits only IntentProcessed; no custody, no fees)", () => {
  const unsupported: [string, (t: TestHub) => Parameters<TestHub["submit"]>[0]][] = [
    ["input asset listed by no ticker", () => ({ inputAsset: UNKNOWN_ASSET })],
    ["input asset approved on another domain only", () => ({ origin: DOMAIN_A, inputAsset: assetOf("DAI", DOMAIN_B) })],
    ["origin not supported by the hub", () => ({ origin: UNSUPPORTED_DOMAIN, inputAsset: assetOf("DAI", DOMAIN_A) })],
    ["one destination not supported among several", () => ({ destinations: [DOMAIN_B, UNSUPPORTED_DOMAIN] })],
    ["single unsupported destination", () => ({ destinations: [UNSUPPORTED_DOMAIN] })],
    ["single destination, output asset of another ticker there", () => ({ destinations: [DOMAIN_B], outputAsset: assetOf("USDC", DOMAIN_B) })],
    ["single destination, output asset approved nowhere", () => ({ destinations: [DOMAIN_B], outputAsset: UNKNOWN_ASSET })],
    ["single destination, same ticker's asset of another domain", () => ({ destinations: [DOMAIN_B], outputAsset: assetOf("DAI", DOMAIN_C) })],
    ["single destination where the ticker has no asset, with an output asset", () => ({ destinations: [DOMAIN_D], outputAsset: assetOf("USDC", DOMAIN_D) })],
  ]
  it.each(unsupported)("%s → UNSUPPORTED", (_name, params) => {
    const t = new TestHub()
    const { id, events } = t.submit({ ...params(t), ttl: 0, amount: u(100) })
    expect(events).toEqual([ev.intentProcessed(id, "UNSUPPORTED")])
    expect(t.status(id)).toBe("UNSUPPORTED")
    expect(t.state.contexts.get(id)!.ticker).toBeUndefined()
    expectNothingMoved(t)
  })

  const supported: [string, Parameters<TestHub["submit"]>[0]][] = [
    ["single destination, output asset of the same ticker there", { destinations: [DOMAIN_B], outputAsset: assetOf("DAI", DOMAIN_B) }],
    ["single destination, zero output asset", { destinations: [DOMAIN_B], outputAsset: ZERO_BYTES32 }],
    ["two destinations: the output asset is not checked", { destinations: [DOMAIN_B, DOMAIN_C], outputAsset: assetOf("USDC", DOMAIN_B) }],
    ["hub-supported destination where the ticker has no asset", { destinations: [DOMAIN_D] }],
  ]
  it.each(supported)("%s → supported (custody and fees taken)", (_name, params) => {
    const t = new TestHub()
    const { id, events } = t.submit({ ...params, ttl: 0, amount: u(100) })
    // No liquidity anywhere yet: an invoice of the post-fee amount.
    expect(events).toEqual([
      ev.depositProcessed(10, DOMAIN_A, id, u(100)),
      ev.invoiceEnqueued(id, 10, u(97), RECEIVER),
      ev.intentProcessed(id, "INVOICED"),
    ])
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u(100), [DOMAIN_B]: 0n, [DOMAIN_C]: 0n })
    expect(t.vault(FEE1)).toBe(u(1))
    expect(t.vault(FEE2)).toBe(u(2))
  })
})

describe("intake: custody of the full pre-fee amount, protocol fees floored per recipient", () => {
  it("custodies amount on the origin and floors each fee separately (1% + 2% of 1e18 + 70 wei)", () => {
    const t = new TestHub()
    const amount = u(1) + 70n
    const { id, events } = t.submit({ amount, destinations: [DOMAIN_B] })
    // FEE1: floor((1e18 + 70) * 1000 / 1e5) = 1e16 (0.7 wei dropped); FEE2: floor((1e18 + 70) * 2000 / 1e5) = 2e16 + 1.
    // One 3000-dbps fee would be 3e16 + 2; the per-recipient sum is 3e16 + 1.
    const after = amount - 10_000_000_000_000_000n - 20_000_000_000_000_001n
    expect(after).toBe(970_000_000_000_000_069n)
    expect(events).toEqual([
      ev.depositProcessed(10, DOMAIN_A, id, amount),
      ev.invoiceEnqueued(id, 10, after, RECEIVER),
      ev.intentProcessed(id, "INVOICED"),
    ])
    expect(t.vault(FEE1)).toBe(10_000_000_000_000_000n)
    expect(t.vault(FEE2)).toBe(20_000_000_000_000_001n)
    expect(t.custodies()).toEqual({ [DOMAIN_A]: amount, [DOMAIN_B]: 0n, [DOMAIN_C]: 0n })
    const ctx = t.state.contexts.get(id)!
    expect(ctx.amountAfterFees18).toBe(after)
    expect(ctx.totalProtocolFeeDbps).toBe(3000)
    expect(t.invoices()).toEqual([{ intentId: id, owner: RECEIVER, entryEpoch: 10, amount: after }])
  })

  it("floors per intent too: two 70-wei intents give FEE1 0 and FEE2 2 (not 1 and 4 / 2 on the sum)", () => {
    const t = new TestHub()
    const first = t.submit({ amount: 70n })
    expect(first.events).toEqual([
      ev.depositProcessed(10, DOMAIN_A, first.id, 70n),
      ev.invoiceEnqueued(first.id, 10, 69n, RECEIVER),
      ev.intentProcessed(first.id, "INVOICED"),
    ])
    const second = t.submit({ amount: 70n })
    // An invoice is open: a deposit, but fees are charged at intake all the same.
    expect(second.events).toEqual([ev.depositEnqueued(10, DOMAIN_A, second.id, 70n), ev.intentProcessed(second.id, "ADDED")])
    expect(t.vault(FEE1)).toBe(0n)
    expect(t.vault(FEE2)).toBe(2n)
    expect(t.custody(DOMAIN_A)).toBe(140n)
    expect(t.state.contexts.get(second.id)!.amountAfterFees18).toBe(69n)
  })

  it("each ticker has its own fees, vault and custody", () => {
    const t = new TestHub()
    // USDC: 2 dbps of 100 = 0.002.
    const { id, events } = t.submit({ symbol: "USDC", amount: u(100) })
    expect(events).toEqual([
      ev.depositProcessed(10, DOMAIN_A, id, u(100), "USDC"),
      ev.invoiceEnqueued(id, 10, u("99.998"), RECEIVER, "USDC"),
      ev.intentProcessed(id, "INVOICED"),
    ])
    expect(t.vault(FEE1, "USDC")).toBe(u("0.002"))
    expect(t.custody(DOMAIN_A, "USDC")).toBe(u(100))
    expect(t.custody(DOMAIN_A)).toBe(0n)
  })
})

describe("intake: invoice-or-deposit is decided by ticker only", () => {
  it("an open invoice for the ticker (wanting B) makes an intent from C to a covered A a deposit of (epoch, C)", () => {
    const t = new TestHub()
    const invoice = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_B], amount: u(100) })
    expect(t.invoices().map((i) => i.intentId)).toEqual([invoice.id])
    // A holds 100, enough for 48.5, but the ticker has an open invoice.
    const dep = t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A], amount: u(50) })
    expect(dep.events).toEqual([ev.depositEnqueued(10, DOMAIN_C, dep.id, u(50)), ev.intentProcessed(dep.id, "ADDED")])
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u(100), [DOMAIN_B]: 0n, [DOMAIN_C]: u(50) })
    expect(t.vault(FEE1)).toBe(u("1.5"))
    expect(t.vault(FEE2)).toBe(u(3))
    expect(t.deposits(10, DOMAIN_C)).toEqual({ items: [{ intentId: dep.id, purchasePower: u(50) }], available: u(50) })
    expect(t.queued(DOMAIN_A)).toEqual([])

    // A ttl>0 intent is a deposit too (ADDED, not DEPOSIT_PROCESSED).
    const fast = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(10), ttl: 3600 })
    expect(fast.events).toEqual([ev.depositEnqueued(10, DOMAIN_B, fast.id, u(10)), ev.intentProcessed(fast.id, "ADDED")])
    expect(t.ticker().waiting.size).toBe(0)
  })

  it("an open invoice of another ticker does not matter", () => {
    const t = new TestHub()
    t.submit({ symbol: "USDC", origin: DOMAIN_A, destinations: [DOMAIN_B], amount: u(100) })
    expect(t.invoices("USDC")).toHaveLength(1)
    const dai = t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_B], amount: u(10) })
    expect(dai.events).toEqual([
      ev.depositProcessed(10, DOMAIN_C, dai.id, u(10)),
      ev.invoiceEnqueued(dai.id, 10, u("9.7"), RECEIVER),
      ev.intentProcessed(dai.id, "INVOICED"),
    ])
  })

  it("once the ticker's last invoice is settled, intents are processed directly again", () => {
    const t = new TestHub()
    const invoice = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_B], amount: u(100) })
    const dep = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(100) })
    expect(dep.events).toEqual([ev.depositEnqueued(10, DOMAIN_B, dep.id, u(100)), ev.intentProcessed(dep.id, "ADDED")])
    // Same epoch as the invoice's entry: no discount; B's custody (the deposit) covers 97.
    expect(t.process()).toEqual([ev.settlementEnqueued({ intentId: invoice.id, domain: DOMAIN_B, epoch: 10, amount: u(97), owner: RECEIVER })])
    expect(t.invoices()).toEqual([])
    const next = t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A], amount: u(10) })
    expect(next.events).toEqual([
      ev.depositProcessed(10, DOMAIN_C, next.id, u(10)),
      ev.settlementEnqueued({ intentId: next.id, domain: DOMAIN_A, epoch: 10, amount: u("9.7"), owner: RECEIVER }),
      ev.intentProcessed(next.id, "SETTLED"),
    ])
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u("90.3"), [DOMAIN_B]: u(3), [DOMAIN_C]: u(10) })
  })
})

describe("intake: ttl=0 with no invoice settles at once to the most liquid covering destination, else invoices", () => {
  /** Liquidity on B and C without any invoice: ttl>0 intents waiting in DEPOSIT_PROCESSED keep their custody. */
  const withLiquidity = (b: bigint, c: bigint): TestHub => {
    const t = new TestHub()
    if (b > 0n) expect(t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: b, ttl: 3600 }).events[1]).toMatchObject({ status: "DEPOSIT_PROCESSED" })
    if (c > 0n) expect(t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A], amount: c, ttl: 3600 }).events[1]).toMatchObject({ status: "DEPOSIT_PROCESSED" })
    return t
  }

  it("skips a destination whose custody does not cover the amount", () => {
    const t = withLiquidity(u(50), u(80))
    const { id, events } = t.submit({ destinations: [DOMAIN_B, DOMAIN_C], amount: u(60) })
    // 58.2 after fees: B (50) cannot cover, C (80) can.
    expect(events).toEqual([
      ev.depositProcessed(10, DOMAIN_A, id, u(60)),
      ev.settlementEnqueued({ intentId: id, domain: DOMAIN_C, epoch: 10, amount: u("58.2"), owner: RECEIVER }),
      ev.intentProcessed(id, "SETTLED"),
    ])
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u(60), [DOMAIN_B]: u(50), [DOMAIN_C]: u("21.8") })
    expect(t.queued(DOMAIN_C)).toEqual([{ intentId: id, amount: u("58.2"), asset: assetOf("DAI", DOMAIN_C), recipient: RECEIVER, updateVirtualBalance: false }])
    expect(t.status(id)).toBe("SETTLED")
  })

  it("picks the most liquid destination, whatever the list order", () => {
    const t = withLiquidity(u(50), u(80))
    const { id, events } = t.submit({ destinations: [DOMAIN_B, DOMAIN_C], amount: u(40) })
    expect(events[1]).toEqual(ev.settlementEnqueued({ intentId: id, domain: DOMAIN_C, epoch: 10, amount: u("38.8"), owner: RECEIVER }))
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u(40), [DOMAIN_B]: u(50), [DOMAIN_C]: u("41.2") })
  })

  it.each([
    [[DOMAIN_B, DOMAIN_C], DOMAIN_B],
    [[DOMAIN_C, DOMAIN_B], DOMAIN_C],
  ])("equal liquidity: destinations %j settle on the earlier listed %i", (destinations, chosen) => {
    const t = withLiquidity(u(80), u(80))
    const { id, events } = t.submit({ destinations, amount: u(40) })
    expect(events).toEqual([
      ev.depositProcessed(10, DOMAIN_A, id, u(40)),
      ev.settlementEnqueued({ intentId: id, domain: chosen, epoch: 10, amount: u("38.8"), owner: RECEIVER }),
      ev.intentProcessed(id, "SETTLED"),
    ])
    expect(t.custody(chosen)).toBe(u("41.2"))
  })

  it("no destination covers the amount: an invoice of the post-fee amount", () => {
    const t = withLiquidity(u(50), u(80))
    const { id, events } = t.submit({ destinations: [DOMAIN_B, DOMAIN_C], amount: u(100) })
    expect(events).toEqual([ev.depositProcessed(10, DOMAIN_A, id, u(100)), ev.invoiceEnqueued(id, 10, u(97), RECEIVER), ev.intentProcessed(id, "INVOICED")])
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u(100), [DOMAIN_B]: u(50), [DOMAIN_C]: u(80) })
    expect(t.invoices()).toEqual([{ intentId: id, owner: RECEIVER, entryEpoch: 10, amount: u(97) }])
  })

  it("exact coverage is enough (custody == amount after fees)", () => {
    const t = withLiquidity(u(97), 0n)
    const { id, events } = t.submit({ destinations: [DOMAIN_B], amount: u(100) })
    expect(events[1]).toEqual(ev.settlementEnqueued({ intentId: id, domain: DOMAIN_B, epoch: 10, amount: u(97), owner: RECEIVER }))
    expect(t.custody(DOMAIN_B)).toBe(0n)
  })

  it("the origin's own custody (the amount just added) counts when the origin is a destination", () => {
    const t = new TestHub()
    const { id, events } = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_A], amount: u(100) })
    expect(events[1]).toEqual(ev.settlementEnqueued({ intentId: id, domain: DOMAIN_A, epoch: 10, amount: u(97), owner: RECEIVER }))
    expect(t.custody(DOMAIN_A)).toBe(u(3))
  })
})

describe("intake: an intent without destinations", () => {
  it("is supported and may settle on any domain of the ticker (here its own origin, the only liquid one)", () => {
    const t = new TestHub()
    const { id, events } = t.submit({ destinations: [], amount: u(100) })
    expect(events).toEqual([
      ev.depositProcessed(10, DOMAIN_A, id, u(100)),
      ev.settlementEnqueued({ intentId: id, domain: DOMAIN_A, epoch: 10, amount: u(97), owner: RECEIVER }),
      ev.intentProcessed(id, "SETTLED"),
    ])
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u(3), [DOMAIN_B]: 0n, [DOMAIN_C]: 0n })
  })

  it("falls back to the ticker's domains in configured order: equal liquidity on B and C settles on B", () => {
    const t = new TestHub()
    t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A], amount: u(80), ttl: 3600 })
    t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(80), ttl: 3600 })
    const { id, events } = t.submit({ origin: DOMAIN_A, destinations: [], amount: u(40) })
    expect(events[1]).toEqual(ev.settlementEnqueued({ intentId: id, domain: DOMAIN_B, epoch: 10, amount: u("38.8"), owner: RECEIVER }))
  })
})

describe("intake: ttl>0 unfilled intent with no invoice waits in DEPOSIT_PROCESSED", () => {
  it("custodies, charges fees, settles nothing even when liquidity would cover it", () => {
    const t = new TestHub()
    const liquidity = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(500), ttl: 3600 })
    expect(liquidity.events).toEqual([ev.depositProcessed(10, DOMAIN_B, liquidity.id, u(500)), ev.intentProcessed(liquidity.id, "DEPOSIT_PROCESSED")])
    const { id, events } = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_B], amount: u(100), ttl: 60 })
    expect(events).toEqual([ev.depositProcessed(10, DOMAIN_A, id, u(100)), ev.intentProcessed(id, "DEPOSIT_PROCESSED")])
    expect(t.status(id)).toBe("DEPOSIT_PROCESSED")
    expect([...t.ticker().waiting]).toEqual([liquidity.id, id])
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u(100), [DOMAIN_B]: u(500), [DOMAIN_C]: 0n })
    expect(t.vault(FEE1)).toBe(u(6))
    expect(t.vault(FEE2)).toBe(u(12))
    expect(t.invoices()).toEqual([])
    expect(t.queued(DOMAIN_B)).toEqual([])
  })
})

describe("intake: duplicate intent messages are ignored", () => {
  it("the same intent twice in one batch and again later: processed once", () => {
    const t = new TestHub()
    const intent = t.intent({ destinations: [DOMAIN_B], amount: u(100) })
    const id = idOf(intent)
    expect(t.send(intent, intent)).toEqual([ev.depositProcessed(10, DOMAIN_A, id, u(100)), ev.invoiceEnqueued(id, 10, u(97), RECEIVER), ev.intentProcessed(id, "INVOICED")])
    const before = t.snapshot()
    expect(t.send(intent)).toEqual([])
    expect(t.snapshot()).toEqual(before)
    expect(t.custody(DOMAIN_A)).toBe(u(100))
    expect(t.vault(FEE2)).toBe(u(2))
  })

  it.each([
    ["DEPOSIT_PROCESSED", { ttl: 3600 }],
    ["UNSUPPORTED", { inputAsset: UNKNOWN_ASSET }],
  ] as const)("a %s intent sent again changes nothing", (status, params) => {
    const t = new TestHub()
    const intent = t.intent(params)
    t.send(intent)
    expect(t.status(idOf(intent))).toBe(status)
    const before = t.snapshot()
    expect(t.send(intent)).toEqual([])
    expect(t.snapshot()).toEqual(before)
  })

  it("a different nonce is a different intent", () => {
    const t = new TestHub()
    const a = t.submit({ ttl: 3600 })
    const b = t.submit({ ttl: 3600 })
    expect(a.intent.nonce + 1n).toBe(b.intent.nonce)
    expect(a.id).not.toBe(b.id)
    expect(b.events).toEqual([ev.depositProcessed(10, DOMAIN_A, b.id, u(100)), ev.intentProcessed(b.id, "DEPOSIT_PROCESSED")])
    expect(t.custody(DOMAIN_A)).toBe(u(200))
  })
})

describe("intake: ids known to the sender (HubInput.knownIds)", () => {
  it("processes a batch with the sender's ids exactly as it hashes them itself", () => {
    const hashed = new TestHub()
    const trusted = new TestHub()
    const batch = [hashed.intent({ amount: u(100) }), hashed.intent({ amount: u(7), destinations: [DOMAIN_C] }), hashed.intent({ amount: u(1), ttl: 3600 })]
    const expected = hashed.send(...batch)
    const events = trusted.step(() => trusted.hub.apply({ kind: "intents", intents: batch, knownIds: batch.map(idOf) }))
    expect(events).toEqual(expected)
    expect(events.length).toBeGreaterThan(batch.length)
    for (const intent of batch) expect(trusted.state.contexts.get(idOf(intent))?.intent).toBe(intent)
  })

  it("refuses ids that do not pair with the intents, before any change", () => {
    const t = new TestHub()
    const batch = [t.intent({ amount: u(100) }), t.intent({ amount: u(5) })]
    expect(() => t.hub.apply({ kind: "intents", intents: batch, knownIds: [idOf(batch[0]!)] })).toThrow(/1 known ids for 2 intents/)
    expect(t.events()).toEqual([])
    expect(t.state.contexts.size).toBe(0)
  })
})
