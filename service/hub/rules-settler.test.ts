/**
 * `processDepositsAndInvoices` (reference §3.6, §7 A, D and F; PROTOCOL.md "Hub behaviour": invoices, discount,
 * discount cap, rewards; "Order and rounding").
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import type { HubEvent } from "./events.ts"
import { HubRevert } from "./errors.ts"
import { discountDbps } from "./settler.ts"
import {
  daiTicker,
  DOMAIN_A,
  DOMAIN_B,
  DOMAIN_C,
  EXPIRY_BUFFER,
  ev,
  makeConfig,
  ofKind,
  RECEIVER,
  SOLVER,
  SOLVER2,
  TestHub,
  timeOf,
  u,
  usdcTicker,
} from "./testing.ts"

describe("processDepositsAndInvoices: unknown ticker", () => {
  it.each([
    ["an unknown symbol", "NOPE"],
    ["an unknown ticker hash", `0x${"ab".repeat(32)}`],
  ])("reverts for %s through hub.apply with a Reverted event; nothing changes", (_name, ticker) => {
    const t = new TestHub()
    t.submit({ destinations: [DOMAIN_B] }) // invoice
    t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A] }) // deposit of epoch 10
    t.block(120) // a real call would now settle and clean up
    const before = t.snapshot()
    const revert = t.hub.apply({ kind: "processDepositsAndInvoices", ticker, maxEpochs: 0, maxDeposits: 0, maxInvoices: 0 })
    expect(revert).toBeInstanceOf(HubRevert)
    expect(revert!.errorName).toBe("Settler_ProcessDepositsAndInvoices_InvalidTickerHash")
    expect(t.events()).toEqual([{ kind: "Reverted", call: "processDepositsAndInvoices", error: "Settler_ProcessDepositsAndInvoices_InvalidTickerHash", message: revert!.message }])
    expect(t.snapshot()).toEqual(before)
  })

  it("reverts for a configured ticker without domains", () => {
    const t = new TestHub(makeConfig({ tickers: [daiTicker(), usdcTicker({ domains: [] })] }))
    const revert = t.hub.apply({ kind: "processDepositsAndInvoices", ticker: "USDC", maxEpochs: 0, maxDeposits: 0, maxInvoices: 0 })
    expect(revert?.errorName).toBe("Settler_ProcessDepositsAndInvoices_InvalidTickerHash")
    expect(t.events().map((e) => e.kind)).toEqual(["Reverted"])
  })
})

/**
 * Two invoices in epoch 10 (fills of ttl>0 intents waiting in DEPOSIT_PROCESSED with nothing on B): P1 97 to
 * SOLVER then P2 48.5 to SOLVER2, both wanting B. A holds 150.
 */
const twoInvoices = () => {
  const t = new TestHub()
  const p1 = t.submit({ destinations: [DOMAIN_B], amount: u(100), ttl: 3600 })
  const p2 = t.submit({ destinations: [DOMAIN_B], amount: u(50), ttl: 3600 })
  expect(t.fill(p1.id, SOLVER)).toEqual([ev.invoiceEnqueued(p1.id, 10, u(97), SOLVER), ev.fillProcessed(p1.id, "INVOICED")])
  expect(t.fill(p2.id, SOLVER2)).toEqual([ev.invoiceEnqueued(p2.id, 10, u("48.5"), SOLVER2), ev.fillProcessed(p2.id, "INVOICED")])
  return { t, p1: p1.id, p2: p2.id }
}

describe("processDepositsAndInvoices: phase 1 walks the invoices oldest first", () => {
  it("the oldest invoice takes the liquidity when only one fits", () => {
    const { t, p1, p2 } = twoInvoices()
    const q = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(100) })
    expect(q.events).toEqual([ev.depositEnqueued(10, DOMAIN_B, q.id, u(100)), ev.intentProcessed(q.id, "ADDED")])
    // Same epoch as entry: no discount. P1 takes 97 of B's 100; P2 (48.5) no longer fits.
    expect(t.process()).toEqual([ev.settlementEnqueued({ intentId: p1, domain: DOMAIN_B, epoch: 10, amount: u(97), owner: SOLVER })])
    expect(t.invoices()).toEqual([{ intentId: p2, owner: SOLVER2, entryEpoch: 10, amount: u("48.5") }])
    expect(t.status(p1)).toBe("SETTLED")
    expect(t.status(p2)).toBe("INVOICED")
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u(150), [DOMAIN_B]: u(3), [DOMAIN_C]: 0n })
    expect(t.deposits(10, DOMAIN_B)).toEqual({ items: [{ intentId: q.id, purchasePower: u(3) }], available: u(3) })
    expect(t.pendingRewards(q.id)).toBe(0n)
  })

  it("an open invoice keeps its enqueue time and is linked from its context until it settles", () => {
    const t = new TestHub()
    const invoice = t.submit({ destinations: [DOMAIN_B], amount: u(100) })
    const node = t.ticker().invoices.head!
    // Block 100 at 12 s a block from T0: 1_700_000_000 + 1_200.
    expect(node.enqueuedTimestamp).toBe(1_700_001_200)
    expect(t.state.contexts.get(invoice.id)!.invoice).toBe(node)
    t.block(110)
    t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(100) })
    t.process()
    expect(t.status(invoice.id)).toBe("SETTLED")
    expect(t.state.contexts.get(invoice.id)!.invoice).toBeUndefined()
  })

  it("an unsettleable invoice does not block a later one", () => {
    const { t, p1, p2 } = twoInvoices()
    t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(60) })
    expect(t.process()).toEqual([ev.settlementEnqueued({ intentId: p2, domain: DOMAIN_B, epoch: 10, amount: u("48.5"), owner: SOLVER2 })])
    expect(t.invoices()).toEqual([{ intentId: p1, owner: SOLVER, entryEpoch: 10, amount: u(97) }])
    expect(t.custody(DOMAIN_B)).toBe(u("11.5"))
  })

  it("depositsAvailableInEpoch is reduced by `after` (not by toDiscount) between invoices of one call", () => {
    const { t, p1, p2 } = twoInvoices()
    t.block(110)
    const q = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(200) })
    // P1: toDiscount min(200, 97) = 97, rewards 0.97, after 96.03; available 200 − 96.03 = 103.97.
    // P2: toDiscount min(103.97, 48.5) = 48.5, rewards 0.485, after 48.015; available 55.955.
    expect(t.process()).toEqual([
      ev.settlementEnqueued({ intentId: p1, domain: DOMAIN_B, epoch: 11, amount: u("96.03"), owner: SOLVER }),
      ev.settlementEnqueued({ intentId: p2, domain: DOMAIN_B, epoch: 11, amount: u("48.015"), owner: SOLVER2 }),
      ev.closedEpochsProcessed(10),
    ])
    expect(t.deposits(11, DOMAIN_B)).toEqual({ items: [{ intentId: q.id, purchasePower: u("55.955") }], available: u("55.955") })
    expect(t.pendingRewards(q.id)).toBe(u("1.455"))
    expect(t.custody(DOMAIN_B)).toBe(u("55.955"))
    expect(t.invoices()).toEqual([])
  })
})

/**
 * Epoch 10: invoice I (A→[B, C] 100 → 97), then ttl>0 deposits L_C on C and L_B on B (custody). Epoch 11:
 * optionally a ttl=0 deposit N_B of 50 on B (the only current-epoch deposit).
 */
const choice = (p: { b: bigint; c: bigint; nB: boolean; destinations?: number[] }) => {
  const t = new TestHub()
  const invoice = t.submit({ destinations: p.destinations ?? [DOMAIN_B, DOMAIN_C], amount: u(100) })
  const lC = t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A], amount: p.c, ttl: 100_000 })
  const lB = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: p.b, ttl: 100_000 })
  t.block(110)
  const nB = p.nB ? t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(50) }) : undefined
  return { t, invoice: invoice.id, lB: lB.id, lC: lC.id, nB: nB?.id }
}

/** Phase 2 of the `choice` setup at epoch 11: both epoch-10 ttl>0 deposits wait, B before C (configured order). */
const choiceCleanup = (c: ReturnType<typeof choice>, b: bigint, cAmount: bigint): HubEvent[] => [
  ev.depositProcessed(10, DOMAIN_B, c.lB, (b * 97n) / 100n),
  ev.depositProcessed(10, DOMAIN_C, c.lC, (cAmount * 97n) / 100n),
  ev.closedEpochsProcessed(10),
]

describe("processDepositsAndInvoices: destination choice", () => {
  it("largest amount after discount wins over larger liquidity (C undiscounted 97 beats B 96.5)", () => {
    const c = choice({ b: u(300), c: u(200), nB: true })
    // Discount 1000 dbps. B: toDiscount min(50, 97) = 50 → rewards 0.5 → after 96.5 (custody 350).
    // C: no deposit this epoch → after 97 (custody 200).
    expect(c.t.process()).toEqual([
      ev.settlementEnqueued({ intentId: c.invoice, domain: DOMAIN_C, epoch: 11, amount: u(97), owner: RECEIVER }),
      ...choiceCleanup(c, u(300), u(200)),
    ])
    expect(c.t.pendingRewards(c.nB!)).toBe(0n)
    expect(c.t.deposits(11, DOMAIN_B)!.available).toBe(u(50))
    expect(c.t.custodies()).toEqual({ [DOMAIN_A]: u(100), [DOMAIN_B]: u(350), [DOMAIN_C]: u(103) })
    expect(c.t.status(c.lB)).toBe("DEPOSIT_PROCESSED")
    expect(c.t.status(c.lC)).toBe("DEPOSIT_PROCESSED")
    expect(c.t.ticker().ledger.surplus18).toBe(0n)
  })

  it("equal amounts after discount: the larger liquidity wins, whatever the list order", () => {
    const c = choice({ b: u(200), c: u(300), nB: false })
    expect(c.t.process()[0]).toEqual(ev.settlementEnqueued({ intentId: c.invoice, domain: DOMAIN_C, epoch: 11, amount: u(97), owner: RECEIVER }))
  })

  it.each([
    [[DOMAIN_B, DOMAIN_C], DOMAIN_B],
    [[DOMAIN_C, DOMAIN_B], DOMAIN_C],
  ])("equal amounts and equal liquidity: destinations %j settle on the earlier listed %i", (destinations, chosen) => {
    const c = choice({ b: u(200), c: u(200), nB: false, destinations })
    expect(c.t.process()).toEqual([
      ev.settlementEnqueued({ intentId: c.invoice, domain: chosen, epoch: 11, amount: u(97), owner: RECEIVER }),
      ...choiceCleanup(c, u(200), u(200)),
    ])
    expect(c.t.custody(chosen)).toBe(u(103))
  })

  it("the discount applies only to the part covered by this epoch's deposits on the domain; uncovered reward leaks to surplus", () => {
    // C (50) cannot hold 97: B is chosen, after = 96.5; its only current deposit (50) covers 50 of 96.5.
    const c = choice({ b: u(300), c: u(50), nB: true })
    expect(c.t.process()).toEqual([
      ev.settlementEnqueued({ intentId: c.invoice, domain: DOMAIN_B, epoch: 11, amount: u("96.5"), owner: RECEIVER }),
      ...choiceCleanup(c, u(300), u(50)),
    ])
    // 50 × 0.5 / 96.5 = 0.259067357512953367 (floored); 0.240932642487046633 stays in custody as surplus.
    expect(c.t.pendingRewards(c.nB!)).toBe(259_067_357_512_953_367n)
    expect(c.t.ticker().ledger.surplus18).toBe(240_932_642_487_046_633n)
    // depositsAvailableInEpoch: 50 − 96.5 floored at 0.
    expect(c.t.deposits(11, DOMAIN_B)).toEqual({ items: [{ intentId: c.nB!, purchasePower: 0n }], available: 0n })
    expect(c.t.custody(DOMAIN_B)).toBe(u("253.5"))

    c.t.block(120)
    expect(c.t.process()).toEqual([
      ev.depositProcessed(11, DOMAIN_B, c.nB!, u("48.5") + 259_067_357_512_953_367n),
      ev.settlementEnqueued({ intentId: c.nB!, domain: DOMAIN_A, epoch: 12, amount: u("48.5") + 259_067_357_512_953_367n, owner: RECEIVER }),
      ev.closedEpochsProcessed(11),
    ])
  })

  it("a domain whose custody equals the amount after discount exactly qualifies (custody >= after)", () => {
    const t = new TestHub()
    const invoice = t.submit({ destinations: [DOMAIN_B], amount: u(100) })
    const dep = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(97) })
    // Same epoch as entry: no discount, after = 97 = B's custody.
    expect(t.process()).toEqual([ev.settlementEnqueued({ intentId: invoice.id, domain: DOMAIN_B, epoch: 10, amount: u(97), owner: RECEIVER })])
    expect(t.custody(DOMAIN_B)).toBe(0n)
    expect(t.deposits(10, DOMAIN_B)).toEqual({ items: [{ intentId: dep.id, purchasePower: 0n }], available: 0n })
  })

  it("liquidity without current-epoch deposits settles at zero discount (vector D)", () => {
    const t = new TestHub()
    const invoice = t.submit({ destinations: [DOMAIN_B], amount: u(1000) })
    const dep = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(1000) })
    t.block(110)
    // Phase 1 uses B's custody (the still-queued epoch-10 deposit) undiscounted; phase 2 then settles that deposit.
    expect(t.process()).toEqual([
      ev.settlementEnqueued({ intentId: invoice.id, domain: DOMAIN_B, epoch: 11, amount: u(970), owner: RECEIVER }),
      ev.depositProcessed(10, DOMAIN_B, dep.id, u(970)),
      ev.settlementEnqueued({ intentId: dep.id, domain: DOMAIN_A, epoch: 11, amount: u(970), owner: RECEIVER }),
      ev.closedEpochsProcessed(10),
    ])
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u(30), [DOMAIN_B]: u(30), [DOMAIN_C]: 0n })
  })
})

describe("processDepositsAndInvoices: rewards (reference §7 vector A)", () => {
  it("FIFO rewards with floor division, leakage into surplus, exact final custody", () => {
    const t = new TestHub()
    // Epoch 10: 100,000 A→B, no liquidity on B: invoice 97,000.
    const invoice = t.submit({ destinations: [DOMAIN_B], amount: u(100_000) })
    expect(invoice.events[1]).toEqual(ev.invoiceEnqueued(invoice.id, 10, u(97_000), RECEIVER))
    // Epoch 12: 3 × 10,000 B→A.
    t.block(120)
    const early = [0, 1, 2].map(() => t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(10_000) }))
    // Epoch 13: 7 × 10,000 B→A, then processing.
    t.block(130)
    const late = [0, 1, 2, 3, 4, 5, 6].map(() => t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(10_000) }))
    expect(late.map((d) => d.events[0])).toEqual(late.map((d) => ev.depositEnqueued(13, DOMAIN_B, d.id, u(10_000))))
    expect(t.custody(DOMAIN_B)).toBe(u(100_000))

    // Discount 3 × 1000 = 3000 dbps on min(70,000, 97,000): rewards 2,100, after 94,900.
    expect(t.process()).toEqual([
      ev.settlementEnqueued({ intentId: invoice.id, domain: DOMAIN_B, epoch: 13, amount: u(94_900), owner: RECEIVER }),
      ...early.flatMap((d) => [
        ev.depositProcessed(12, DOMAIN_B, d.id, u(9_700)),
        ev.settlementEnqueued({ intentId: d.id, domain: DOMAIN_A, epoch: 13, amount: u(9_700), owner: RECEIVER }),
      ]),
      ev.closedEpochsProcessed(12),
    ])
    const reward = 221_285_563_751_317_175_974n // 10,000 × 2,100 / 94,900, floored
    for (const d of late) expect(t.pendingRewards(d.id)).toBe(reward)
    expect(t.ticker().ledger.surplus18).toBe(u(2_100) - 7n * reward)
    expect(t.ticker().ledger.surplus18).toBe(551_001_053_740_779_768_182n)
    // depositsAvailableInEpoch: 70,000 − 94,900 floored at 0; every deposit's purchase power consumed.
    expect(t.deposits(13, DOMAIN_B)).toEqual({ items: late.map((d) => ({ intentId: d.id, purchasePower: 0n })), available: 0n })

    t.block(140)
    const repaid = u(9_700) + reward
    expect(repaid).toBe(9_921_285_563_751_317_175_974n)
    expect(t.process()).toEqual([
      ...late.flatMap((d) => [
        ev.depositProcessed(13, DOMAIN_B, d.id, repaid),
        ev.settlementEnqueued({ intentId: d.id, domain: DOMAIN_A, epoch: 14, amount: repaid, owner: RECEIVER }),
      ]),
      ev.closedEpochsProcessed(13),
    ])
    expect(t.custodies()).toEqual({ [DOMAIN_A]: 1_451_001_053_740_779_768_182n, [DOMAIN_B]: u(5_100), [DOMAIN_C]: 0n })
  })

  it("rewards are floored: 1000 dbps of an invoice of 97 + 7 wei is 0.97 (0.07 wei dropped), after 96.03 + 7 wei", () => {
    const t = new TestHub()
    // 100 + 7 wei: FEE1 floor(1e20 + 7) × 1000 / 1e5 = 1e18, FEE2 2e18; the invoice is 97e18 + 7.
    const invoice = t.submit({ destinations: [DOMAIN_B], amount: u(100) + 7n })
    expect(t.invoices()[0]!.amount).toBe(u(97) + 7n)
    t.block(110)
    const dep = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(200) })
    // toDiscount = 97e18 + 7, rewards = floor((97e18 + 7) × 1000 / 1e5) = 97e16 (a ceiling would give 97e16 + 1).
    expect(t.process()).toEqual([
      ev.settlementEnqueued({ intentId: invoice.id, domain: DOMAIN_B, epoch: 11, amount: u("96.03") + 7n, owner: RECEIVER }),
      ev.closedEpochsProcessed(10),
    ])
    // The deposit covers all of `after`, so it is credited the whole reward.
    expect(t.pendingRewards(dep.id)).toBe(u("0.97"))
    expect(t.ticker().ledger.surplus18).toBe(0n)
    expect(t.custody(DOMAIN_B)).toBe(u("103.97") - 7n)
  })

  it("deposits earn rewards FIFO: a partly consumed deposit keeps its remaining purchase power for the next invoice", () => {
    // Two invoices (97 and 48.5); epoch 11 deposits on B: 60 then 100. Discount 1000 dbps.
    const { t, p1, p2 } = twoInvoices()
    t.block(110)
    const d1 = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(60) })
    const d2 = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(100) })
    // P1: toDiscount 97 → rewards 0.97 → after 96.03: d1 consumes 60 (60 × 0.97 / 96.03), d2 36.03 (36.03 × 0.97 / 96.03).
    // P2: available 160 − 96.03 = 63.97 → toDiscount 48.5 → rewards 0.485 → after 48.015, all from d2.
    const events = t.process()
    expect(ofKind(events, "SettlementEnqueued").map((s) => [s.intentId, s.amount])).toEqual([
      [p1, u("96.03")],
      [p2, u("48.015")],
    ])
    const r1 = (u(60) * u("0.97")) / u("96.03")
    const r2 = (u("36.03") * u("0.97")) / u("96.03")
    expect(r1).toBe(606_060_606_060_606_060n)
    expect(r2).toBe(363_939_393_939_393_939n)
    expect(t.pendingRewards(d1.id)).toBe(r1)
    expect(t.pendingRewards(d2.id)).toBe(r2 + u("0.485"))
    expect(t.ticker().ledger.surplus18).toBe(u("0.97") - r1 - r2)
    expect(t.deposits(11, DOMAIN_B)).toEqual({
      items: [
        { intentId: d1.id, purchasePower: 0n },
        { intentId: d2.id, purchasePower: u("15.955") },
      ],
      available: u("15.955"),
    })
  })
})

describe("processDepositsAndInvoices: phase 2 cleans up closed-epoch deposits", () => {
  /** An open invoice (so later intents are deposits), liquidity 100 on A, and a ttl=100 deposit D on C at time T. */
  const withDeposit = (ttl = 100) => {
    const t = new TestHub()
    const invoice = t.submit({ destinations: [DOMAIN_B], amount: u(100) })
    const d = t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A], amount: u(50), ttl })
    return { t, invoice: invoice.id, d: d.id, expiry: d.intent.timestamp + ttl + EXPIRY_BUFFER }
  }

  it("unfilled, not expired: DEPOSIT_PROCESSED", () => {
    const { t, d } = withDeposit()
    t.block(110)
    expect(t.process()).toEqual([ev.depositProcessed(10, DOMAIN_C, d, u("48.5")), ev.closedEpochsProcessed(10)])
    expect(t.status(d)).toBe("DEPOSIT_PROCESSED")
    expect([...t.ticker().waiting]).toEqual([d])
    expect(t.deposits(10, DOMAIN_C)).toBeUndefined()
  })

  it("unfilled at exactly timestamp + ttl + expiryTimeBuffer: not expired yet (strict >)", () => {
    const { t, d, expiry } = withDeposit()
    t.block(110, expiry)
    expect(t.process()).toEqual([ev.depositProcessed(10, DOMAIN_C, d, u("48.5")), ev.closedEpochsProcessed(10)])
    expect(t.status(d)).toBe("DEPOSIT_PROCESSED")
    // handleExpiredIntents uses >= and takes it at the same second.
    expect(t.step(() => t.hub.handleExpiredIntents([d]))).toEqual([
      ev.settlementEnqueued({ intentId: d, domain: DOMAIN_A, epoch: 11, amount: u("48.5"), owner: RECEIVER }),
      { kind: "ExpiredIntentsHandled", intentIds: [d] },
    ])
  })

  it("unfilled, one second later: slow path to the receiver", () => {
    const { t, d, expiry } = withDeposit()
    t.block(110, expiry + 1)
    expect(t.process()).toEqual([
      ev.depositProcessed(10, DOMAIN_C, d, u("48.5")),
      ev.settlementEnqueued({ intentId: d, domain: DOMAIN_A, epoch: 11, amount: u("48.5"), owner: RECEIVER }),
      ev.closedEpochsProcessed(10),
    ])
    expect(t.ticker().waiting.size).toBe(0)
  })

  it("filled: to the solver, even when expired", () => {
    const { t, d, expiry } = withDeposit()
    t.fill(d, SOLVER)
    t.block(110, expiry + 1)
    expect(t.process()).toEqual([
      ev.depositProcessed(10, DOMAIN_C, d, u("48.5")),
      ev.settlementEnqueued({ intentId: d, domain: DOMAIN_A, epoch: 11, amount: u("48.5"), owner: SOLVER }),
      ev.closedEpochsProcessed(10),
    ])
  })

  it("ttl=0 deposit with no liquidity becomes an invoice entered at the cleanup epoch", () => {
    const t = new TestHub()
    const first = t.submit({ destinations: [DOMAIN_B], amount: u(100) })
    const d = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_C], amount: u(50) })
    t.block(125)
    expect(t.process()).toEqual([
      ev.depositProcessed(10, DOMAIN_A, d.id, u("48.5")),
      ev.invoiceEnqueued(d.id, 12, u("48.5"), RECEIVER),
      ev.closedEpochsProcessed(11),
    ])
    expect(t.invoices().map((i) => [i.intentId, i.entryEpoch])).toEqual([
      [first.id, 10],
      [d.id, 12],
    ])
  })

  it("visits domains in the ticker's configured order (A, B, C), not arrival order", () => {
    const t = new TestHub()
    t.submit({ destinations: [DOMAIN_B], amount: u(1) })
    const onC = t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_C], amount: u(10), ttl: 100_000 })
    const onB = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_C], amount: u(10), ttl: 100_000 })
    const onA = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_C], amount: u(10), ttl: 100_000 })
    t.block(110)
    expect(ofKind(t.process(), "DepositProcessed").map((e) => e.intentId)).toEqual([onA.id, onB.id, onC.id])
  })
})

describe("processDepositsAndInvoices: work bounds", () => {
  it("maxInvoices bounds the invoices visited", () => {
    const { t, p1, p2 } = twoInvoices()
    t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(200) })
    expect(t.process("DAI", 0, 0, 1)).toEqual([ev.settlementEnqueued({ intentId: p1, domain: DOMAIN_B, epoch: 10, amount: u(97), owner: SOLVER })])
    expect(t.invoices().map((i) => i.intentId)).toEqual([p2])
    expect(t.process("DAI", 0, 0, 1)).toEqual([ev.settlementEnqueued({ intentId: p2, domain: DOMAIN_B, epoch: 10, amount: u("48.5"), owner: SOLVER2 })])
  })

  it("maxInvoices counts an unsettleable head as visited", () => {
    const { t, p1, p2 } = twoInvoices()
    t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(60) })
    expect(t.process("DAI", 0, 0, 1)).toEqual([])
    expect(t.invoices().map((i) => i.intentId)).toEqual([p1, p2])
    expect(t.process("DAI", 0, 0, 2)).toEqual([ev.settlementEnqueued({ intentId: p2, domain: DOMAIN_B, epoch: 10, amount: u("48.5"), owner: SOLVER2 })])
  })

  /** An open invoice nobody can pay, and long-lived ttl>0 deposits on C: two in epoch 10, one in 11, one in 12. */
  const depositsOverEpochs = () => {
    const t = new TestHub()
    t.submit({ destinations: [DOMAIN_B], amount: u(100) })
    const dep = () => t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_B], amount: u(10), ttl: 100_000 }).id
    const d1 = dep()
    const d2 = dep()
    t.block(110)
    const d3 = dep()
    t.block(120)
    const d4 = dep()
    expect(t.lastClosed()).toBe(9)
    return { t, d1, d2, d3, d4 }
  }
  const dp = (epoch: number, id: `0x${string}`) => ev.depositProcessed(epoch, DOMAIN_C, id, u("9.7"))

  it("maxDeposits stops after that many deposits and stores lastClosedEpochsProcessed = e − 1", () => {
    const { t, d1, d2, d3, d4 } = depositsOverEpochs()
    t.block(130) // epoch 13, last closed 12
    expect(t.process("DAI", 0, 1)).toEqual([dp(10, d1)])
    expect(t.lastClosed()).toBe(9) // stopped in epoch 10: 10 − 1, no advance, no event
    expect(t.process("DAI", 0, 2)).toEqual([dp(10, d2), dp(11, d3), ev.closedEpochsProcessed(10)])
    expect(t.lastClosed()).toBe(10)
    expect(t.process("DAI", 0, 0)).toEqual([dp(12, d4), ev.closedEpochsProcessed(12)])
    expect(t.lastClosed()).toBe(12)
    expect(t.process()).toEqual([])
  })

  it("maxDeposits stopping on the last deposit of an epoch still resumes one epoch earlier", () => {
    const { t, d1, d2, d3 } = depositsOverEpochs()
    t.block(130)
    expect(t.process("DAI", 0, 2)).toEqual([dp(10, d1), dp(10, d2)])
    expect(t.lastClosed()).toBe(9)
    expect(t.process("DAI", 0, 1)).toEqual([dp(11, d3), ev.closedEpochsProcessed(10)])
  })

  it("maxEpochs stops after that many epochs counted from lastClosedEpochsProcessed (inclusive)", () => {
    const { t, d1, d2, d3, d4 } = depositsOverEpochs()
    t.block(130)
    // Epochs 9 and 10.
    expect(t.process("DAI", 2)).toEqual([dp(10, d1), dp(10, d2), ev.closedEpochsProcessed(10)])
    expect(t.lastClosed()).toBe(10)
    // One epoch from 10 inclusive is epoch 10 again: no progress, no event.
    expect(t.process("DAI", 1)).toEqual([])
    expect(t.lastClosed()).toBe(10)
    expect(t.process("DAI", 2)).toEqual([dp(11, d3), ev.closedEpochsProcessed(11)])
    expect(t.process("DAI", 5)).toEqual([dp(12, d4), ev.closedEpochsProcessed(12)])
    expect(t.process("DAI", 5)).toEqual([])
  })

  it("without bounds everything closed is cleaned up in one call; the current epoch's deposits stay", () => {
    const { t, d1, d2, d3, d4 } = depositsOverEpochs()
    expect(t.process()).toEqual([dp(10, d1), dp(10, d2), dp(11, d3), ev.closedEpochsProcessed(11)])
    expect(t.deposits(12, DOMAIN_C)!.items.map((d) => d.intentId)).toEqual([d4])
  })
})

// ---------------------------------------------------------------------------------------------------------
// Discount

/**
 * Invoice X (A→[B], 100 → 97, entry 10, given maxFee/ttl); at `epoch` a deposit Y of 100 on B, then
 * processing. Returns the settled amount and Y's reward (Y covers the invoice, so reward = rewards).
 */
const discountRun = (p: { epoch: number; exempt?: number; userMaxDiscount?: boolean; maxFee?: number; ttl?: number; perEpoch?: number; cap?: number }) => {
  const t = new TestHub(
    makeConfig({
      discountExemptEpochs: p.exempt ?? 0,
      userMaxDiscount: p.userMaxDiscount ?? true,
      tickers: [daiTicker({ discountPerEpoch: p.perEpoch ?? 1000, maxDiscountDbps: p.cap ?? 10_000 }), usdcTicker()],
    }),
  )
  const x = t.submit({ destinations: [DOMAIN_B], amount: u(100), maxFee: p.maxFee ?? 0, ttl: p.ttl ?? 0 })
  if ((p.ttl ?? 0) > 0) t.fill(x.id, SOLVER)
  expect(t.invoices().map((i) => [i.intentId, i.entryEpoch, i.amount])).toEqual([[x.id, 10, u(97)]])
  if (p.epoch !== 10) t.block(p.epoch * 10)
  const y = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(100) })
  const events = t.process()
  const settled = ofKind(events, "SettlementEnqueued")
  expect(settled).toHaveLength(1)
  expect(settled[0]).toMatchObject({ intentId: x.id, domain: DOMAIN_B, entryEpoch: p.epoch })
  expect(events.slice(1)).toEqual(p.epoch > 10 ? [ev.closedEpochsProcessed(p.epoch - 1)] : [])
  return { after: settled[0]!.amount, reward: t.pendingRewards(y.id) }
}

describe("discount: (epoch − entryEpoch − discountExemptEpochs) × discountPerEpoch, floored at 0, capped", () => {
  it.each([
    // exempt, epoch, discount dbps, after
    [0, 10, 0, u(97)],
    [0, 11, 1000, u("96.03")],
    [0, 12, 2000, u("95.06")],
    [1, 10, 0, u(97)],
    [1, 11, 0, u(97)],
    [1, 12, 1000, u("96.03")],
    [1, 13, 2000, u("95.06")],
  ])("discountExemptEpochs %i, processed in epoch %i: %i dbps", (exempt, epoch, dbps, after) => {
    const r = discountRun({ epoch, exempt })
    expect(r.after).toBe(after)
    expect(r.reward).toBe((u(97) * BigInt(dbps)) / 100_000n)
    expect(r.after + r.reward).toBe(u(97))
  })

  it.each([
    [19, 9000, u("88.27")],
    [20, 10_000, u("87.3")],
    [25, 10_000, u("87.3")],
  ])("the ticker cap is reached after N epochs: epoch %i → %i dbps", (epoch, _dbps, after) => {
    expect(discountRun({ epoch }).after).toBe(after)
  })

  it("matches the formula for any epochs (property)", () => {
    const t = new TestHub(makeConfig({ userMaxDiscount: false }))
    const ticker = t.ticker()
    fc.assert(
      fc.property(fc.nat(1000), fc.nat(1000), fc.nat(5), (entry, delta, exempt) => {
        const state = Object.create(t.state, { config: { value: { ...t.state.config, discountExemptEpochs: exempt } } })
        const epoch = entry + delta - 500
        const got = discountDbps(state, ticker, epoch, entry, undefined)
        const expected = epoch <= entry ? 0 : Math.min(Math.max(0, epoch - entry - exempt) * 1000, 10_000)
        expect(got).toBe(expected)
      }),
    )
  })
})

describe("discount cap: userMaxDiscount", () => {
  it.each([
    ["true, ttl=0 with maxFee 2500 → min(2500, 10000)", { userMaxDiscount: true, maxFee: 2500 }, u("94.575")],
    ["false, ttl=0 with maxFee 2500 → ticker cap (3000 uncapped)", { userMaxDiscount: false, maxFee: 2500 }, u("94.09")],
    ["true, maxFee 0 → ticker cap", { userMaxDiscount: true, maxFee: 0 }, u("94.09")],
    ["true, ttl>0 (solver's invoice) with maxFee 2500 → ticker cap", { userMaxDiscount: true, maxFee: 2500, ttl: 3600 }, u("94.09")],
  ] as const)("%s", (_name, p, after) => {
    // Three epochs after entry: 3000 dbps before the cap.
    expect(discountRun({ epoch: 13, ...p }).after).toBe(after)
  })

  it("a maxFee above the ticker cap leaves the ticker cap", () => {
    expect(discountRun({ epoch: 22, maxFee: 20_000 }).after).toBe(u("87.3"))
    expect(discountRun({ epoch: 22, maxFee: 5_000 }).after).toBe(u("92.15"))
  })
})

describe("processDepositsAndInvoices: nothing to do", () => {
  it("no invoices and nothing closed: no events", () => {
    const t = new TestHub()
    expect(t.process()).toEqual([])
    expect(t.lastClosed()).toBe(9)
  })

  it("epochs closed without deposits advance lastClosedEpochsProcessed once", () => {
    const t = new TestHub()
    t.block(150, timeOf(150))
    expect(t.process()).toEqual([ev.closedEpochsProcessed(14)])
    expect(t.process()).toEqual([])
  })
})

describe("processDepositsAndInvoices: a hub started in epoch 0 (the `lastClosed == 0` clause of §3.6)", () => {
  /**
   * Block 0 (epoch 0, lastClosedEpochsProcessed 0): an invoice nobody can pay (A→[B], B holds no DAI), so
   * later intents become deposits; deposits are ttl=0, 10 DAI from C to A (9.7 after fees).
   */
  const fromEpochZero = () => {
    const t = new TestHub(makeConfig(), 0)
    expect([t.hub.currentEpoch(), t.lastClosed()]).toEqual([0, 0])
    t.submit({ destinations: [DOMAIN_B], amount: u(100) })
    const dep = () => {
      const d = t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A], amount: u(10) })
      expect(d.events[0]).toMatchObject({ kind: "DepositEnqueued", epoch: t.hub.currentEpoch(), intentId: d.id })
      return d.id
    }
    const settled = (id: `0x${string}`, epoch: number) => ev.settlementEnqueued({ intentId: id, domain: DOMAIN_A, epoch, amount: u("9.7"), owner: RECEIVER })
    return { t, dep, settled }
  }

  it("epoch 1: lastClosed = 0 is not above lastClosedEpochsProcessed = 0, yet the cleanup runs and pops epoch 0's deposits, without ClosedEpochsProcessed", () => {
    const { t, dep, settled } = fromEpochZero()
    const d0 = dep()
    // Epoch 0: no epoch has closed, the cleanup does nothing (the contracts would revert here, see README).
    expect(t.process()).toEqual([])
    expect(t.status(d0)).toBe("ADDED")
    t.block(10) // epoch 1
    const d1 = dep()
    expect(t.process()).toEqual([ev.depositProcessed(0, DOMAIN_C, d0, u("9.7")), settled(d0, 1)])
    // lastClosedEpochsProcessed stays 0 (stored lastClosed = 0: no advance, no event); epoch 1's deposit stays.
    expect(t.lastClosed()).toBe(0)
    expect(t.status(d0)).toBe("SETTLED")
    expect(t.status(d1)).toBe("ADDED")
    expect(t.deposits(0, DOMAIN_C)).toBeUndefined()
    // The clause holds for the rest of epoch 1: the cleanup runs again and finds epoch 0 empty.
    expect(t.process()).toEqual([])
    t.block(20) // epoch 2: lastClosed = 1 > 0, the ordinary clause
    expect(t.process()).toEqual([ev.depositProcessed(1, DOMAIN_C, d1, u("9.7")), settled(d1, 2), ev.closedEpochsProcessed(1)])
    expect(t.lastClosed()).toBe(1)
  })

  it("maxDeposits stopping inside epoch 0 keeps lastClosedEpochsProcessed at 0 (e − 1 clamped) and resumes in epoch 0", () => {
    const { t, dep, settled } = fromEpochZero()
    const a = dep()
    const b = dep()
    t.block(10)
    expect(t.process("DAI", 0, 1)).toEqual([ev.depositProcessed(0, DOMAIN_C, a, u("9.7")), settled(a, 1)])
    expect(t.lastClosed()).toBe(0)
    expect(t.process("DAI", 0, 1)).toEqual([ev.depositProcessed(0, DOMAIN_C, b, u("9.7")), settled(b, 1)])
    expect(t.process("DAI", 0, 1)).toEqual([])
  })
})

describe("reference §7 vector F (Settler.t.sol): one epoch of discount from entry epoch 0", () => {
  it("dpe 5000, max 100000, entry 0, epoch 1: 5 % off each covered invoice; liquidity used = n × after; the purchase-power cursor advances", () => {
    const t = new TestHub(makeConfig({ tickers: [daiTicker({ discountPerEpoch: 5000, maxDiscountDbps: 100_000 }), usdcTicker()] }), 0)
    // Two invoices entered in epoch 0: X1 (ttl 0, nothing on B) and X2, a fast intent waiting since before X1
    // whose solver's repayment B cannot cover either.
    const x2 = t.submit({ destinations: [DOMAIN_B], amount: u(100), ttl: 3600 })
    const x1 = t.submit({ destinations: [DOMAIN_B], amount: u(100) })
    t.fill(x2.id, SOLVER)
    expect(t.invoices().map((i) => [i.intentId, i.entryEpoch, i.amount, i.owner])).toEqual([
      [x1.id, 0, u(97), RECEIVER],
      [x2.id, 0, u(97), SOLVER],
    ])
    t.block(10) // epoch 1
    const y1 = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(100) })
    const y2 = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(100) })
    const settled = ofKind(t.process(), "SettlementEnqueued")
    // 97 × 5 % = 4.85 off each: 92.15 paid on B, twice.
    expect(settled.map((s) => [s.intentId, s.domain, s.amount])).toEqual([
      [x1.id, DOMAIN_B, u("92.15")],
      [x2.id, DOMAIN_B, u("92.15")],
    ])
    expect(t.custody(DOMAIN_B)).toBe(u(200) - 2n * u("92.15"))
    // Y1 covered all of X1 (reward 4.85) and the first 7.85 of X2; Y2 the remaining 84.3 of X2.
    const share = (consumed: bigint) => (consumed * u("4.85")) / u("92.15")
    expect(t.pendingRewards(y1.id)).toBe(u("4.85") + share(u("7.85")))
    expect(t.pendingRewards(y2.id)).toBe(share(u("84.3")))
    expect(t.deposits(1, DOMAIN_B)).toEqual({
      items: [
        { intentId: y1.id, purchasePower: 0n },
        { intentId: y2.id, purchasePower: u("15.7") },
      ],
      available: u("15.7"),
    })
    expect(t.ticker().depositQueue(1, DOMAIN_B)!.firstWithPurchasePower).toBe(1)
  })
})
