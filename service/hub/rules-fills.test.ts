/**
 * Fill arrival and solver repayment (reference §3.4, §3.5; PROTOCOL.md "Hub behaviour: Fills", "Order and
 * rounding": fills while DEPOSIT_PROCESSED).
 */
import { describe, expect, it } from "vitest"
import {
  DOMAIN_A,
  DOMAIN_B,
  DOMAIN_C,
  EXPIRY_BUFFER,
  ev,
  idOf,
  INITIATOR,
  RECEIVER,
  SOLVER,
  SOLVER2,
  TestHub,
  u,
  UNKNOWN_ASSET,
} from "./testing.ts"

/** B holds `amount` of DAI custody from a ttl>0 intent waiting in DEPOSIT_PROCESSED (no invoice). */
const liquidityOnB = (t: TestHub, amount = u(200)) => {
  const l = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount, ttl: 100_000 })
  expect(t.status(l.id)).toBe("DEPOSIT_PROCESSED")
  return l
}

describe("fills: fill before the intent", () => {
  it("FILLED first; the intent's arrival (ttl>0, no invoice) settles amountAfterFees to the solver", () => {
    const t = new TestHub()
    liquidityOnB(t)
    const intent = t.intent({ origin: DOMAIN_A, destinations: [DOMAIN_B], amount: u(100), ttl: 3600 })
    const id = idOf(intent)
    expect(t.fill(id, SOLVER, 500)).toEqual([ev.fillProcessed(id, "FILLED")])
    expect(t.status(id)).toBe("FILLED")
    expect(t.state.contexts.get(id)!.solver).toBe(SOLVER)
    expect(t.custody(DOMAIN_A)).toBe(0n)

    expect(t.send(intent)).toEqual([
      ev.depositProcessed(10, DOMAIN_A, id, u(100)),
      ev.settlementEnqueued({ intentId: id, domain: DOMAIN_B, epoch: 10, amount: u(97), owner: SOLVER }),
      ev.intentProcessed(id, "SETTLED"),
    ])
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u(100), [DOMAIN_B]: u(103), [DOMAIN_C]: 0n })
    expect(t.queued(DOMAIN_B).map((s) => [s.intentId, s.recipient, s.amount])).toEqual([[id, SOLVER, u(97)]])
  })

  it("the context keeps the fill's solver, fee and execution timestamp (the contracts' IntentContext)", () => {
    const t = new TestHub()
    const intent = t.intent({ destinations: [DOMAIN_B], amount: u(100), ttl: 3600 })
    const id = idOf(intent)
    // Executed on the destination before the hub's time (1_700_001_200): the fill's own timestamp is kept.
    t.step(() => t.hub.receiveFills([{ intentId: id, solver: SOLVER, initiator: INITIATOR, fee: 700, executionTimestamp: 1_700_000_900 }]))
    const ctx = t.state.contexts.get(id)!
    expect([ctx.solver, ctx.fillFeeDbps, ctx.fillTimestamp]).toEqual([SOLVER, 700, 1_700_000_900])
  })

  it("with no liquidity the intent's arrival invoices the solver", () => {
    const t = new TestHub()
    const intent = t.intent({ destinations: [DOMAIN_B], amount: u(100), ttl: 3600 })
    const id = idOf(intent)
    t.fill(id, SOLVER)
    expect(t.send(intent)).toEqual([ev.depositProcessed(10, DOMAIN_A, id, u(100)), ev.invoiceEnqueued(id, 10, u(97), SOLVER), ev.intentProcessed(id, "INVOICED")])
    expect(t.invoices()).toEqual([{ intentId: id, owner: SOLVER, entryEpoch: 10, amount: u(97) }])
  })

  it("with an open invoice the filled intent becomes an ADDED_AND_FILLED deposit", () => {
    const t = new TestHub()
    t.submit({ destinations: [DOMAIN_B] }) // invoice
    const intent = t.intent({ origin: DOMAIN_C, destinations: [DOMAIN_A], amount: u(50), ttl: 3600 })
    const id = idOf(intent)
    t.fill(id, SOLVER)
    expect(t.send(intent)).toEqual([ev.depositEnqueued(10, DOMAIN_C, id, u(50)), ev.intentProcessed(id, "ADDED_AND_FILLED")])
  })

  it("a ttl=0 intent goes to its receiver even if a fill arrived first (the ttl=0 branch comes first)", () => {
    const t = new TestHub()
    liquidityOnB(t)
    const intent = t.intent({ destinations: [DOMAIN_B], amount: u(100), ttl: 0 })
    const id = idOf(intent)
    t.fill(id, SOLVER)
    expect(t.send(intent)[1]).toEqual(ev.settlementEnqueued({ intentId: id, domain: DOMAIN_B, epoch: 10, amount: u(97), owner: RECEIVER }))
  })
})

describe("fills: fill while ADDED", () => {
  it("ADDED_AND_FILLED, then the cleanup of its epoch settles to the solver", () => {
    const t = new TestHub()
    const invoice = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_B], amount: u(100) })
    const dep = t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A], amount: u(50), ttl: 3600 })
    expect(t.status(dep.id)).toBe("ADDED")
    expect(t.fill(dep.id, SOLVER, 500)).toEqual([ev.fillProcessed(dep.id, "ADDED_AND_FILLED")])
    expect(t.status(dep.id)).toBe("ADDED_AND_FILLED")
    expect(t.queued(DOMAIN_A)).toEqual([])

    t.block(110)
    // Phase 1: the invoice wants B, which holds nothing. Phase 2: the epoch-10 deposit on C goes to the solver.
    expect(t.process()).toEqual([
      ev.depositProcessed(10, DOMAIN_C, dep.id, u("48.5")),
      ev.settlementEnqueued({ intentId: dep.id, domain: DOMAIN_A, epoch: 11, amount: u("48.5"), owner: SOLVER }),
      ev.closedEpochsProcessed(10),
    ])
    expect(t.status(dep.id)).toBe("SETTLED")
    expect(t.status(invoice.id)).toBe("INVOICED")
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u("51.5"), [DOMAIN_B]: 0n, [DOMAIN_C]: u(50) })
  })
})

describe("fills: fill while DEPOSIT_PROCESSED", () => {
  it("settles to the solver at once", () => {
    const t = new TestHub()
    liquidityOnB(t)
    const { id } = t.submit({ destinations: [DOMAIN_B], amount: u(100), ttl: 3600 })
    expect(t.fill(id, SOLVER)).toEqual([
      ev.settlementEnqueued({ intentId: id, domain: DOMAIN_B, epoch: 10, amount: u(97), owner: SOLVER }),
      ev.fillProcessed(id, "SETTLED"),
    ])
    expect(t.ticker().waiting.has(id)).toBe(false)
  })

  it("still repays the solver long after ttl + expiryTimeBuffer (nothing moved the intent on)", () => {
    const t = new TestHub()
    liquidityOnB(t)
    const { id, intent } = t.submit({ destinations: [DOMAIN_B], amount: u(100), ttl: 100 })
    t.block(300, intent.timestamp + 100 + EXPIRY_BUFFER + 5000)
    expect(t.status(id)).toBe("DEPOSIT_PROCESSED")
    expect(t.fill(id, SOLVER)).toEqual([
      ev.settlementEnqueued({ intentId: id, domain: DOMAIN_B, epoch: 30, amount: u(97), owner: SOLVER }),
      ev.fillProcessed(id, "SETTLED"),
    ])
    expect(t.custody(DOMAIN_B)).toBe(u(103))
    // A second solver's fill is late now.
    expect(t.fill(id, SOLVER2)).toEqual([])
    expect(t.state.contexts.get(id)!.solver).toBe(SOLVER)
  })

  it("invoices the solver when no destination covers the repayment", () => {
    const t = new TestHub()
    const { id } = t.submit({ destinations: [DOMAIN_B], amount: u(100), ttl: 3600 })
    expect(t.fill(id, SOLVER)).toEqual([ev.invoiceEnqueued(id, 10, u(97), SOLVER), ev.fillProcessed(id, "INVOICED")])
    expect(t.invoices()).toEqual([{ intentId: id, owner: SOLVER, entryEpoch: 10, amount: u(97) }])
    expect(t.ticker().waiting.size).toBe(0)
  })
})

describe("fills: late fills are ignored (no event, no repayment)", () => {
  it("INVOICED intent", () => {
    const t = new TestHub()
    const { id } = t.submit({ destinations: [DOMAIN_B], ttl: 0 })
    const before = t.snapshot()
    expect(t.fill(id, SOLVER)).toEqual([])
    expect(t.snapshot()).toEqual(before)
    expect(t.state.contexts.get(id)!.solver).toBeUndefined()
    expect(t.invoices()[0]!.owner).toBe(RECEIVER)
  })

  it("SETTLED intent (settled to its receiver at intake)", () => {
    const t = new TestHub()
    liquidityOnB(t)
    const { id } = t.submit({ destinations: [DOMAIN_B], ttl: 0 })
    expect(t.status(id)).toBe("SETTLED")
    const before = t.snapshot()
    expect(t.fill(id, SOLVER)).toEqual([])
    expect(t.snapshot()).toEqual(before)
  })

  it("intent already handed to the slow path by handleExpiredIntents", () => {
    const t = new TestHub()
    liquidityOnB(t)
    const { id, intent } = t.submit({ destinations: [DOMAIN_B], ttl: 100 })
    t.block(200, intent.timestamp + 100 + EXPIRY_BUFFER)
    t.step(() => t.hub.handleExpiredIntents([id]))
    expect(t.queued(DOMAIN_B).map((s) => s.recipient)).toEqual([RECEIVER])
    const before = t.snapshot()
    expect(t.fill(id, SOLVER)).toEqual([])
    expect(t.snapshot()).toEqual(before)
  })

  it("a second fill before the intent (FILLED): the first solver keeps the repayment", () => {
    const t = new TestHub()
    liquidityOnB(t)
    const intent = t.intent({ destinations: [DOMAIN_B], amount: u(100), ttl: 3600 })
    const id = idOf(intent)
    t.fill(id, SOLVER)
    expect(t.fill(id, SOLVER2)).toEqual([])
    expect(t.state.contexts.get(id)!.solver).toBe(SOLVER)
    expect(t.send(intent)[1]).toEqual(ev.settlementEnqueued({ intentId: id, domain: DOMAIN_B, epoch: 10, amount: u(97), owner: SOLVER }))
  })

  it("a second fill of an ADDED_AND_FILLED deposit", () => {
    const t = new TestHub()
    t.submit({ destinations: [DOMAIN_B] }) // invoice
    const { id } = t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A], ttl: 3600 })
    t.fill(id, SOLVER)
    const before = t.snapshot()
    expect(t.fill(id, SOLVER2)).toEqual([])
    expect(t.snapshot()).toEqual(before)
    expect(t.status(id)).toBe("ADDED_AND_FILLED")
  })

  it("UNSUPPORTED intent", () => {
    const t = new TestHub()
    const { id } = t.submit({ inputAsset: UNKNOWN_ASSET, ttl: 3600 })
    expect(t.fill(id, SOLVER)).toEqual([])
    expect(t.status(id)).toBe("UNSUPPORTED")
  })
})

describe("fills: the solver's own supported domains are used for its repayment", () => {
  it("repaid on the most liquid of its domains, not on the intent's destination", () => {
    const t = new TestHub()
    t.step(() => t.hub.setUserSupportedDomains(SOLVER, [DOMAIN_C, DOMAIN_B]))
    t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(200), ttl: 100_000 })
    t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A], amount: u(300), ttl: 100_000 })
    const mine = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_A], amount: u(100), ttl: 3600 })
    const other = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_A], amount: u(100), ttl: 3600 })
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u(200), [DOMAIN_B]: u(200), [DOMAIN_C]: u(300) })
    expect(t.fill(mine.id, SOLVER)).toEqual([
      ev.settlementEnqueued({ intentId: mine.id, domain: DOMAIN_C, epoch: 10, amount: u(97), owner: SOLVER }),
      ev.fillProcessed(mine.id, "SETTLED"),
    ])
    // A solver without its own domains is repaid on the intent's destinations.
    expect(t.fill(other.id, SOLVER2)).toEqual([
      ev.settlementEnqueued({ intentId: other.id, domain: DOMAIN_A, epoch: 10, amount: u(97), owner: SOLVER2 }),
      ev.fillProcessed(other.id, "SETTLED"),
    ])
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u(103), [DOMAIN_B]: u(200), [DOMAIN_C]: u(203) })
  })

  it("the solver is invoiced when none of its own domains can pay, even if the intent's destination could", () => {
    const t = new TestHub()
    t.step(() => t.hub.setUserSupportedDomains(SOLVER, [DOMAIN_B, DOMAIN_C]))
    const { id } = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_A], amount: u(100), ttl: 3600 })
    expect(t.fill(id, SOLVER)).toEqual([ev.invoiceEnqueued(id, 10, u(97), SOLVER), ev.fillProcessed(id, "INVOICED")])
    expect(t.custody(DOMAIN_A)).toBe(u(100))
  })
})

describe("fills: the solver is repaid amountAfterFees + rewards, never minus the fill fee", () => {
  it("a filled deposit that earned 0.97 of rewards is repaid 97.97 (fill fee 5000 dbps ignored)", () => {
    const t = new TestHub()
    const invoice = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_B], amount: u(100) })
    t.block(110)
    const dep = t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(100), ttl: 3600 })
    expect(dep.events).toEqual([ev.depositEnqueued(11, DOMAIN_B, dep.id, u(100)), ev.intentProcessed(dep.id, "ADDED")])
    expect(t.fill(dep.id, SOLVER, 5000)).toEqual([ev.fillProcessed(dep.id, "ADDED_AND_FILLED")])
    // Discount 1 epoch × 1000 dbps on min(100 deposited this epoch on B, 97) = 0.97; after = 96.03.
    expect(t.process()).toEqual([
      ev.settlementEnqueued({ intentId: invoice.id, domain: DOMAIN_B, epoch: 11, amount: u("96.03"), owner: RECEIVER }),
      ev.closedEpochsProcessed(10),
    ])
    // The only deposit consumed 96.03 of purchase power: 96.03 × 0.97 / 96.03 = 0.97.
    expect(t.pendingRewards(dep.id)).toBe(u("0.97"))
    expect(t.ticker().ledger.surplus18).toBe(0n)

    t.block(120)
    expect(t.process()).toEqual([
      ev.depositProcessed(11, DOMAIN_B, dep.id, u("97.97")),
      ev.settlementEnqueued({ intentId: dep.id, domain: DOMAIN_A, epoch: 12, amount: u("97.97"), owner: SOLVER }),
      ev.closedEpochsProcessed(11),
    ])
    expect(t.pendingRewards(dep.id)).toBe(0n)
    expect(t.custodies()).toEqual({ [DOMAIN_A]: u("2.03"), [DOMAIN_B]: u("3.97"), [DOMAIN_C]: 0n })
  })
})
