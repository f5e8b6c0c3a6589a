/**
 * Epochs with carry (reference §3.1; PROTOCOL.md "Time") and user supported domains (reference §3.8).
 */
import { describe, expect, it } from "vitest"
import type { HubInput } from "./hub.ts"
import {
  DOMAIN_A,
  DOMAIN_B,
  DOMAIN_C,
  DOMAIN_D,
  ev,
  makeConfig,
  RECEIVER,
  SOLVER,
  TestHub,
  timeOf,
  u,
  UNSUPPORTED_DOMAIN,
} from "./testing.ts"

const expectRevert = (t: TestHub, input: HubInput, errorName: string) => {
  const before = t.snapshot()
  const block = [t.state.blockNumber, t.state.timestamp, t.state.epochLengthBlocks]
  const revert = t.hub.apply(input)
  expect(revert?.errorName).toBe(errorName)
  expect(t.events()).toEqual([{ kind: "Reverted", call: input.kind, error: errorName, message: revert!.message }])
  expect(t.snapshot()).toEqual(before)
  expect([t.state.blockNumber, t.state.timestamp, t.state.epochLengthBlocks]).toEqual(block)
}

describe("epochs: epoch = floor(block / epochLength)", () => {
  it("changes exactly at multiples of the epoch length", () => {
    const t = new TestHub(makeConfig({ epochLength: 10 }), 100)
    expect(t.hub.currentEpoch()).toBe(10)
    for (const [block, epoch] of [
      [109, 10],
      [110, 11],
      [119, 11],
      [120, 12],
      [1234, 123],
    ] as const) {
      expect(t.block(block)).toEqual([])
      expect(t.hub.currentEpoch()).toBe(epoch)
    }
  })

  it("deposits are keyed by the arrival epoch", () => {
    const t = new TestHub()
    t.submit({ destinations: [DOMAIN_B] }) // invoice
    t.block(119)
    expect(t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A] }).events[0]).toMatchObject({ kind: "DepositEnqueued", epoch: 11 })
    t.block(120)
    expect(t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A] }).events[0]).toMatchObject({ kind: "DepositEnqueued", epoch: 12 })
  })

  it.each([
    [100, 10, 9],
    [125, 10, 11],
    [400, 40, 9],
    [5, 10, 0],
    [0, 10, 0],
  ])("the first block %i (epoch length %i) initializes lastClosedEpochsProcessed to %i", (block, epochLength, expected) => {
    const t = new TestHub(makeConfig({ epochLength }), block)
    expect(t.lastClosed()).toBe(expected)
    expect(t.lastClosed("USDC")).toBe(expected)
    // Later blocks do not re-initialize it.
    t.block(block + 10 * epochLength)
    expect(t.lastClosed()).toBe(expected)
  })

  it("rejects a block or a timestamp going backwards (Reverted, nothing changed)", () => {
    const t = new TestHub()
    t.block(120)
    expectRevert(t, { kind: "block", number: 119, timestamp: timeOf(130) }, "Hub_InvalidBlock")
    expectRevert(t, { kind: "block", number: 130, timestamp: timeOf(120) - 1 }, "Hub_InvalidTimestamp")
    // The same block and time again is fine.
    expect(t.hub.apply({ kind: "block", number: 120, timestamp: timeOf(120) })).toBeUndefined()
  })
})

describe("epochs: updateEpochLength keeps the current epoch (carry) and never goes backwards", () => {
  it("a longer epoch: epoch 12 stays 12 (floor(125 / 40) would be 3) and advances every 40 blocks from there", () => {
    const t = new TestHub(makeConfig({ epochLength: 10 }), 100)
    t.block(125)
    expect(t.step(() => t.hub.updateEpochLength(40))).toEqual([{ kind: "EpochLengthUpdated", oldLength: 10, newLength: 40 }])
    expect(t.hub.currentEpoch()).toBe(12)
    for (const [block, epoch] of [
      [125, 12],
      [164, 12],
      [165, 13],
      [204, 13],
      [205, 14],
    ] as const) {
      t.block(block)
      expect(t.hub.currentEpoch()).toBe(epoch)
    }
  })

  it("a shorter epoch advances every 5 blocks from the update", () => {
    const t = new TestHub(makeConfig({ epochLength: 10 }), 100)
    t.block(125)
    t.step(() => t.hub.updateEpochLength(5))
    for (const [block, epoch] of [
      [129, 12],
      [130, 13],
      [134, 13],
      [135, 14],
    ] as const) {
      t.block(block)
      expect(t.hub.currentEpoch()).toBe(epoch)
    }
  })

  it("successive updates accumulate the carry", () => {
    const t = new TestHub(makeConfig({ epochLength: 10 }), 100)
    t.block(125) // 12
    t.step(() => t.hub.updateEpochLength(40))
    t.block(205) // 12 + 2 = 14
    t.step(() => t.hub.updateEpochLength(1000))
    t.block(1204)
    expect(t.hub.currentEpoch()).toBe(14)
    t.block(1205)
    expect(t.hub.currentEpoch()).toBe(15)
  })

  it("the epoch arithmetic of processDepositsAndInvoices follows the carried epoch", () => {
    const t = new TestHub(makeConfig({ epochLength: 10 }), 100)
    t.submit({ destinations: [DOMAIN_B] }) // invoice, epoch 10
    const d = t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A], amount: u(10) }) // deposit of epoch 10
    t.block(105)
    t.step(() => t.hub.updateEpochLength(40))
    t.block(144)
    expect(t.process()).toEqual([]) // still epoch 10
    t.block(145)
    expect(t.process()).toEqual([
      ev.depositProcessed(10, DOMAIN_C, d.id, u("9.7")),
      ev.settlementEnqueued({ intentId: d.id, domain: DOMAIN_A, epoch: 11, amount: u("9.7"), owner: RECEIVER }),
      ev.closedEpochsProcessed(10),
    ])
  })

  it.each([0, -1, 1.5])("rejects epoch length %d", (length) => {
    const t = new TestHub()
    expectRevert(t, { kind: "updateEpochLength", epochLength: length }, "ProtocolManager_UpdateEpochLength_InvalidLength")
    expect(t.hub.currentEpoch()).toBe(10)
  })
})

describe("user domains: setUserSupportedDomains", () => {
  it("stores the domains and emits SolverConfigUpdated; a later call replaces the set", () => {
    const t = new TestHub()
    expect(t.step(() => t.hub.setUserSupportedDomains(SOLVER, [DOMAIN_C, DOMAIN_D]))).toEqual([
      { kind: "SolverConfigUpdated", solver: SOLVER, supportedDomains: [DOMAIN_C, DOMAIN_D] },
    ])
    expect(t.state.userSupportedDomains.get(SOLVER)).toEqual([DOMAIN_C, DOMAIN_D])
    t.step(() => t.hub.setUserSupportedDomains(SOLVER, [DOMAIN_B, DOMAIN_A]))
    expect(t.state.userSupportedDomains.get(SOLVER)).toEqual([DOMAIN_B, DOMAIN_A])
  })

  it.each([
    ["fewer than minSolverSupportedDomains", [DOMAIN_A], "UsersManager_SetUserSupportedDomains_InvalidLength"],
    ["none", [], "UsersManager_SetUserSupportedDomains_InvalidLength"],
    ["an unsupported domain", [DOMAIN_A, UNSUPPORTED_DOMAIN], "UsersManager_SetUserSupportedDomains_UnsupportedDomain"],
    ["a duplicate", [DOMAIN_A, DOMAIN_B, DOMAIN_A], "UsersManager_SetUserSupportedDomains_DuplicatedDomain"],
  ])("reverts for %s and keeps the previous set", (_name, domains, error) => {
    const t = new TestHub()
    t.step(() => t.hub.setUserSupportedDomains(SOLVER, [DOMAIN_B, DOMAIN_C]))
    expectRevert(t, { kind: "setUserSupportedDomains", user: SOLVER, domains }, error)
    expect(t.state.userSupportedDomains.get(SOLVER)).toEqual([DOMAIN_B, DOMAIN_C])
  })

  it("the minimum comes from the config", () => {
    const t = new TestHub(makeConfig({ minSolverSupportedDomains: 3 }))
    expectRevert(t, { kind: "setUserSupportedDomains", user: SOLVER, domains: [DOMAIN_A, DOMAIN_B] }, "UsersManager_SetUserSupportedDomains_InvalidLength")
    expect(t.hub.apply({ kind: "setUserSupportedDomains", user: SOLVER, domains: [DOMAIN_A, DOMAIN_B, DOMAIN_C] })).toBeUndefined()
    t.events()
  })

  it("applies to any recipient: a receiver's own domains replace the intent's destinations", () => {
    const t = new TestHub()
    t.submit({ origin: DOMAIN_B, destinations: [DOMAIN_A], amount: u(100), ttl: 100_000 })
    t.submit({ origin: DOMAIN_C, destinations: [DOMAIN_A], amount: u(200), ttl: 100_000 })
    t.step(() => t.hub.setUserSupportedDomains(RECEIVER, [DOMAIN_B, DOMAIN_C]))
    const { id, events } = t.submit({ destinations: [DOMAIN_B], amount: u(50) })
    expect(events[1]).toEqual(ev.settlementEnqueued({ intentId: id, domain: DOMAIN_C, epoch: 10, amount: u("48.5"), owner: RECEIVER }))
  })
})
