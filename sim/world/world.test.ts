/**
 * A `halt` outage of the hub domain halts the hub (memory backend): no hub block, input or event inside the
 * window; messages to the hub wait for its end; keepers skip their hub calls; `applyHub` refuses inputs; the
 * hub resumes at the end with the next block (block numbers continue, the skipped ticks are not produced).
 *
 * The scripted world: two chains, 10,000 USDC of initial liquidity on 31002 (at the hub at about 91 s), the hub
 * halted from 600 s to 1200 s (hub block time 12 s, epochs of 40 blocks). A user sends 100 USDC 31001→31002 at
 * 300 s (settles before the halt), 650 s and 900 s (dispatched by the keeper at 660 s and 960 s while the hub
 * is halted: delivered at 1200 s, settled then).
 */
import { describe, expect, it } from "vitest"
import { createMemorySpokes } from "../../service/spoke/spoke.ts"
import { planWorld } from "./plan.ts"
import { scriptedScenario, scriptedWorld } from "./scripted.testing.ts"
import { World } from "./world.ts"

const HALT_FROM = 600
const HALT_TO = 1200

const run = async (outages: string) => {
  const { plan, assembly, world: w, inputs, sent } = scriptedWorld("hub-halt", `outages: [${outages}]`, [300, 650, 900])
  const events: { t: number; kind: string; intentId?: string }[] = []
  w.observe({ onHubEvent: (e) => events.push({ t: w.nowMs / 1000, kind: e.kind, ...("intentId" in e ? { intentId: e.intentId } : {}) }) })
  const refused: (string | undefined)[] = []
  w.scheduler.at(900_000, "hub call in the halt", () => {
    refused.push(w.applyHub({ kind: "processSettlementQueue", domain: 31002, amount: 1 })?.errorName)
  })
  await w.run(plan.horizonSeconds)
  const result = { inputs, events, sent, refused, keepers: assembly.keepers, traceHash: w.traceHash(), stats: { ...w.stats } }
  w.close()
  return result
}

const HALT = `{ domain: 25327, kind: halt, fromSeconds: ${HALT_FROM}, toSeconds: ${HALT_TO} }`
const inHalt = (t: number) => t >= HALT_FROM && t < HALT_TO

describe("a halt of the hub domain", () => {
  it("counts the hub blocks it skips on the milliseconds it halts: an edge a nanosecond past a tick is that tick", () => {
    for (const from of [600, 600.0000000001]) {
      const { world: w } = scriptedWorld("hub-halt-edge", `outages: [{ domain: 25327, kind: halt, fromSeconds: ${from}, toSeconds: ${HALT_TO} }]`, [])
      // The tick at 600 s (block 50) is in the halt for both: not produced, and not counted.
      expect((w as unknown as { hubHaltedAt(ms: number): boolean }).hubHaltedAt(600_000)).toBe(true)
      expect([w.hubBlockNumberAt(599), w.hubBlockNumberAt(600), w.hubBlockNumberAt(1200)]).toEqual([20_000_049, 20_000_049, 20_000_050])
      w.close()
    }
  })

  it("stops hub blocks, inputs and events for the window; the hub resumes after it", async () => {
    const r = await run(HALT)
    expect(r.inputs.filter((i) => inHalt(i.t))).toEqual([])
    expect(r.events.filter((e) => inHalt(e.t))).toEqual([])
    expect(r.refused).toEqual(["World_HubHalted"])
    expect(r.keepers.reverts).toBe(0)

    // Block numbers continue across the halt: the last block before it, then the next one at its end.
    const blocks = r.inputs.flatMap((i) => (i.input.kind === "block" ? [{ t: i.t, number: i.input.number }] : []))
    const before = blocks.filter((b) => b.t < HALT_FROM).at(-1)!
    const after = blocks.find((b) => b.t >= HALT_TO)!
    expect(after.t).toBe(HALT_TO)
    expect(after.number).toBe(20_000_000 + 50)
    expect(before.number).toBe(20_000_000 + Math.floor(before.t / 12))
    expect(after.number).toBe(20_000_000 + Math.floor(HALT_FROM / 12))
    // ... and stay behind the clock by the 50 skipped ticks (600 s to 1188 s) for the rest of the run.
    const last = blocks.at(-1)!
    expect(last.number).toBe(20_000_000 + Math.floor(last.t / 12) - 50)

    // Every user intent reached the hub and settled; those dispatched during the halt at its end.
    expect(r.sent.map((s) => s.t)).toEqual([300, 650, 900])
    const settled = r.sent.map((s) => r.events.find((e) => e.kind === "SettlementEnqueued" && e.intentId === s.intentId)?.t)
    expect(settled[0]).toBeLessThan(HALT_FROM)
    expect(settled.slice(1)).toEqual([HALT_TO, HALT_TO])
    expect(r.events.some((e) => e.kind === "SettlementQueueProcessed" && e.t >= HALT_TO)).toBe(true)
  })

  it("is deterministic, and a halt of a chain or a hub partition leaves hub block production alone", async () => {
    const a = await run(HALT)
    const b = await run(HALT)
    expect(b.traceHash).toBe(a.traceHash)

    for (const [outage, sentAt] of [
      [`{ domain: 25327, kind: partition, fromSeconds: ${HALT_FROM}, toSeconds: ${HALT_TO} }`, [300, 650, 900]],
      // A halted chain mines nothing: the intents sent on it at 650 s and 900 s are mined at its end.
      [`{ domain: 31001, kind: halt, fromSeconds: ${HALT_FROM}, toSeconds: ${HALT_TO} }`, [300, HALT_TO, HALT_TO]],
    ] as const) {
      const r = await run(outage)
      expect(r.sent.map((s) => s.t)).toEqual(sentAt)
      expect(r.refused).not.toContain("World_HubHalted")
      const blocks = r.inputs.flatMap((i) => (i.input.kind === "block" ? [{ t: i.t, number: i.input.number }] : []))
      expect(blocks.some((b) => inHalt(b.t))).toBe(true)
      for (const block of blocks) expect(block.number).toBe(20_000_000 + Math.floor(block.t / 12))
    }
  })

  it("counts the skipped ticks of halts that overlap, nest or are listed out of order, or start off a tick, once", () => {
    const at1200 = (outages: string) => {
      const { world: w } = scriptedWorld("hub-halt-windows", `outages: [${outages}]`, [])
      const block = w.hubBlockNumberAt(1200)
      w.close()
      return block
    }
    // Ticks 51 (612 s) to 99 (1188 s): 49 skipped of 100.
    expect(at1200("{ domain: 25327, kind: halt, fromSeconds: 605, toSeconds: 1200 }")).toBe(20_000_051)
    // Merged to 300-1200 s: ticks 25 (300 s) to 99, 75 skipped.
    const halt = (from: number, to: number) => `{ domain: 25327, kind: halt, fromSeconds: ${from}, toSeconds: ${to} }`
    expect(at1200([halt(600, 1200), halt(300, 700), halt(800, 900)].join(", "))).toBe(20_000_025)
  })

  it("starts a hub halted from 0 s at its genesis block, and resumes it with the next block", async () => {
    const { plan, world: w, inputs } = scriptedWorld("hub-halt-start", "outages: [{ domain: 25327, kind: halt, fromSeconds: 0, toSeconds: 120 }]", [])
    await w.run(plan.horizonSeconds)
    w.close()
    const blocks = inputs.flatMap((i) => (i.input.kind === "block" ? [{ t: i.t, number: i.input.number }] : []))
    expect(blocks.slice(0, 2)).toEqual([
      { t: 0, number: 20_000_000 },
      { t: 120, number: 20_000_001 },
    ])
  })

  it("skips the settlement keeper's turns in the halt: a settlement enqueued before it is dispatched at its end, nothing reverted", async () => {
    // The 300 s intent reaches the hub at 390 s and is enqueued; the hub halts from 400 s to 1200 s.
    const r = await run("{ domain: 25327, kind: halt, fromSeconds: 400, toSeconds: 1200 }")
    expect(r.keepers.revertsByError).toEqual({})
    const enqueued = r.events.find((e) => e.kind === "SettlementEnqueued" && e.intentId === r.sent[0]!.intentId)!.t
    expect(enqueued).toBeLessThan(400)
    expect(r.events.find((e) => e.kind === "SettlementQueueProcessed")?.t).toBe(1200)
  })

  it("takes a message id once at the hub: each duplicate delivery is counted and not applied", async () => {
    const { plan, world: w, inputs } = scriptedWorld("hub-duplicates", "duplicateProbability: 1", [300])
    let messages = 0
    w.observe({ onSpokeEvent: (e) => void (e.name === "MessageSent" && messages++) })
    await w.run(plan.horizonSeconds)
    w.close()
    expect(messages).toBeGreaterThan(0)
    expect(inputs.filter((i) => i.input.kind === "intents" || i.input.kind === "fills")).toHaveLength(messages)
    expect(w.stats.duplicateHubDeliveries).toBe(messages)
  })
})

describe("the world's clock", () => {
  const bareWorld = () => {
    const plan = planWorld(scriptedScenario("bare", ""), { userAccounts: 1 })
    return { plan, world: new World(plan, { seed: 1, spokes: createMemorySpokes(plan.spokes) }) }
  }

  it("tells observers every hub epoch the clock passed between two hub inputs, in order", async () => {
    // Epochs of 40 blocks of 12 s from block 20,000,000 (epoch 500,000): at 1,000 s the hub is at block 20,000,083.
    const { world: w } = bareWorld()
    const epochs: number[] = []
    w.observe({ onEpoch: (e) => void epochs.push(e) })
    w.scheduler.at(1_000_000, "hub block", () => w.advanceHub())
    await w.run(1000)
    w.close()
    expect(epochs).toEqual([500_001, 500_002])
  })

  it("mines a chain's first block one block time (2 s) after the start", async () => {
    const { plan, world: w } = bareWorld()
    const user = plan.users[0]!.address
    const usdc = plan.assets.get("USDC:31001")!.address
    const mined: bigint[] = []
    w.scheduler.at(0, "approve", () => w.submit(31001, user, { kind: "erc20.approve", token: usdc, spender: user, amount: 1n }, undefined, (_receipt, block) => void mined.push(block.timestamp)))
    w.startChains()
    await w.run(10)
    w.close()
    expect(mined).toEqual([plan.genesisTimestamp + 2n])
  })
})
