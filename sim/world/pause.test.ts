/**
 * A `pause` outage of the hub domain pauses the hub (memory backend): the world applies `pause` at the window's
 * start and `unpause` at its end as hub inputs by the hub's owner (the deployer), so both are in the trace;
 * meanwhile deliveries to the hub are refused (`Hub_Paused`) and redelivered after the redelivery delay, hub
 * blocks go on, and gated hub calls revert. The trace replays to the run's hash.
 *
 * The scripted world (as in world.test.ts): two chains, 10,000 USDC of initial liquidity on 31002, the hub paused
 * from 600 s to 1200 s, latency 30 s, redelivery delay 300 s. A user sends 100 USDC 31001→31002 at 300 s
 * (settles before the pause), 650 s and 900 s (dispatched around 660 s and 960 s, at the hub around 690 s and
 * 990 s: refused, retried 300 s later, the first one refused again at 990 s and taken at 1290 s).
 */
import { describe, expect, it } from "vitest"
import { addressToBytes32 } from "../../service/domain/hex.ts"
import { lineTrace } from "../../service/hub/inputLines.ts"
import { replayLines } from "../../service/hub/replay.ts"
import { scriptedWorld } from "./scripted.testing.ts"

const PAUSE_FROM = 600
const PAUSE_TO = 1200
const inPause = (t: number) => t >= PAUSE_FROM && t < PAUSE_TO

const run = async (outages: string) => {
  const lines: string[] = []
  const { plan, assembly, world: w, inputs, sent } = scriptedWorld("hub-pause", `redeliveryDelaySeconds: 300, outages: [${outages}]`, [300, 650, 900], lineTrace((line) => lines.push(line)))
  const events: { t: number; kind: string; intentId?: string; error?: string; call?: string }[] = []
  w.observe({
    onHubEvent: (e) =>
      events.push({ t: w.nowMs / 1000, kind: e.kind, ...("intentId" in e ? { intentId: e.intentId } : {}), ...(e.kind === "Reverted" ? { error: e.error, call: e.call } : {}) }),
  })
  const gated: (string | undefined)[] = []
  const paused: boolean[] = []
  w.scheduler.at(900_000, "hub calls in the pause", () => {
    paused.push(w.hubPaused)
    gated.push(w.applyHub({ kind: "processSettlementQueue", domain: 31002, amount: 1 })?.errorName)
    gated.push(w.applyHub({ kind: "handleExpiredIntents", intentIds: [] })?.errorName)
    gated.push(w.applyHub({ kind: "processDepositsAndInvoices", ticker: "USDC", maxEpochs: 0, maxDeposits: 0, maxInvoices: 0 })?.errorName)
  })
  w.scheduler.at(1_800_000, "after the pause", () => {
    paused.push(w.hubPaused)
  })
  await w.run(plan.horizonSeconds)
  const result = {
    inputs,
    lines,
    events,
    sent,
    gated,
    paused,
    owner: addressToBytes32(plan.deployer.address),
    traceHash: w.traceHash(),
    hubEvents: w.hasher.events,
    stats: structuredClone(w.stats),
    transport: { ...w.transport.stats },
    keepers: structuredClone(assembly.keepers),
  }
  w.close()
  return result
}

const PAUSE = `{ domain: 25327, kind: pause, fromSeconds: ${PAUSE_FROM}, toSeconds: ${PAUSE_TO} }`

describe("a pause of the hub domain", () => {
  it("is in the trace as pause and unpause by the owner, at the window's ends", async () => {
    const r = await run(PAUSE)
    const pauses = r.inputs.filter((i) => i.input.kind === "pause" || i.input.kind === "unpause")
    expect(pauses).toEqual([
      { t: PAUSE_FROM, input: { kind: "pause", caller: r.owner } },
      { t: PAUSE_TO, input: { kind: "unpause", caller: r.owner } },
    ])
    expect(r.events.filter((e) => e.kind === "Paused" || e.kind === "Unpaused")).toEqual([
      { t: PAUSE_FROM, kind: "Paused" },
      { t: PAUSE_TO, kind: "Unpaused" },
    ])
    expect(r.paused).toEqual([true, false])
    // The trace's config names the owner (the deployer), so a replay accepts the pause.
    expect(JSON.parse(r.lines[0]!)).toMatchObject({ kind: "config", owner: r.owner })
    // Hub blocks go on during a pause (unlike a halt).
    expect(r.inputs.some((i) => i.input.kind === "block" && inPause(i.t))).toBe(true)
  })

  it("refuses deliveries during the window and delivers every message after it", async () => {
    const r = await run(PAUSE)
    expect(r.sent.map((s) => s.t)).toEqual([300, 650, 900])
    const processed = r.sent.map((s) => r.events.find((e) => e.kind === "IntentProcessed" && e.intentId === s.intentId)?.t)
    expect(processed[0]).toBeLessThan(PAUSE_FROM)
    // At the hub at 690 s (refused, and again at 990 s) and 990 s (refused): both taken at 1290 s.
    expect(processed.slice(1)).toEqual([1290, 1290])
    const settled = r.sent.map((s) => r.events.find((e) => e.kind === "SettlementEnqueued" && e.intentId === s.intentId)?.t)
    expect(settled.every((t) => t !== undefined)).toBe(true)

    // Every refusal is a Hub_Paused revert of a delivery inside the window, retried by the transport.
    const refusals = r.events.filter((e) => e.kind === "Reverted" && (e.call === "intents" || e.call === "fills"))
    expect(refusals.map((e) => e.t)).toEqual([690, 990, 990])
    for (const e of refusals) {
      expect(e.error).toBe("Hub_Paused")
      expect(inPause(e.t)).toBe(true)
    }
    expect(r.stats.refusedHubDeliveries).toBe(refusals.length)
    expect(r.transport.redeliveredAfterRefusal).toBe(refusals.length)
    // No message is left undelivered: after the window nothing is refused.
    expect(r.events.filter((e) => e.kind === "Reverted" && !inPause(e.t))).toEqual([])
  })

  it("reverts the gated calls in the window (counted by reason), while processDepositsAndInvoices works", async () => {
    const r = await run(PAUSE)
    expect(r.gated).toEqual(["Hub_Paused", "Hub_Paused", undefined])
    expect(r.stats.hubRevertsByError.Hub_Paused).toBe(r.stats.hubReverts)
    expect(r.stats.hubReverts).toBe(r.events.filter((e) => e.kind === "Reverted").length)
  })

  it("makes the settlement keeper's calls revert Hub_Paused, counted by reason, until the unpause", async () => {
    // The 300 s intent reaches the hub at about 390 s and is enqueued for settlement; the pause begins at 400 s,
    // so the keeper's settlement crons from 420 s on revert until it ends.
    const r = await run(`{ domain: 25327, kind: pause, fromSeconds: 400, toSeconds: ${PAUSE_TO} }`)
    expect(r.keepers.revertsByError).toEqual({ Hub_Paused: r.keepers.reverts })
    expect(r.keepers.reverts).toBe((PAUSE_TO - 420) / 60)
    const dispatched = r.events.filter((e) => e.kind === "SettlementQueueProcessed").map((e) => e.t)
    expect(dispatched.filter((t) => t >= 400 && t < PAUSE_TO)).toEqual([])
    expect(dispatched.some((t) => t >= PAUSE_TO)).toBe(true)
  })

  it("is deterministic and its trace replays to the run's hash", async () => {
    const a = await run(PAUSE)
    const b = await run(PAUSE)
    expect(b.traceHash).toBe(a.traceHash)
    const replayed = await replayLines(a.lines, { onLine: () => {} })
    expect(replayed.traceHash).toBe(a.traceHash)
    expect(replayed.events).toBe(a.hubEvents)
  })

  it("starts where a hub halt ends, on the same millisecond, with edges that are not whole in binary (64.4 s)", async () => {
    // 64.4 × 1000 is 64,400.00000000001: the world scheduled the pause at 64,400 ms and found the hub still halted
    // there (a crash), while the loader had let the scenario through.
    const r = await run(`{ domain: 25327, kind: halt, fromSeconds: 30, toSeconds: 64.4 }, { domain: 25327, kind: pause, fromSeconds: 64.4, toSeconds: ${PAUSE_TO} }`)
    expect(r.inputs.filter((i) => i.input.kind === "pause" || i.input.kind === "unpause").map((i) => [i.t, i.input.kind])).toEqual([
      [64.4, "pause"],
      [PAUSE_TO, "unpause"],
    ])
  })

  it("a run without a pause writes no owner and no pause inputs", async () => {
    const r = await run(`{ domain: 31001, kind: partition, fromSeconds: ${PAUSE_FROM}, toSeconds: ${PAUSE_TO} }`)
    expect(JSON.parse(r.lines[0]!)).not.toHaveProperty("owner")
    expect(r.inputs.filter((i) => i.input.kind === "pause" || i.input.kind === "unpause")).toEqual([])
    expect(r.gated).toEqual(["Settler_ProcessSettlementQueue_InvalidAmount", undefined, undefined])
  })

  it("starts where a hub halt ends at a fractional millisecond, on the first whole millisecond after it", async () => {
    // 64.4004 s is 64,400.4 ms: the halt covers 64,400 ms, so the pause starts at 64,401 ms (64,400 ms would be in the halt).
    const r = await run(`{ domain: 25327, kind: halt, fromSeconds: 30, toSeconds: 64.4004 }, { domain: 25327, kind: pause, fromSeconds: 64.4004, toSeconds: ${PAUSE_TO} }`)
    expect(r.inputs.filter((i) => i.input.kind === "pause" || i.input.kind === "unpause").map((i) => [i.t, i.input.kind])).toEqual([
      [64.401, "pause"],
      [PAUSE_TO, "unpause"],
    ])
  })

  it("pauses once for windows that touch: one pause at the first's start, one unpause at the last's end", async () => {
    const r = await run(`{ domain: 25327, kind: pause, fromSeconds: 900, toSeconds: ${PAUSE_TO} }, { domain: 25327, kind: pause, fromSeconds: ${PAUSE_FROM}, toSeconds: 900 }`)
    expect(r.inputs.filter((i) => i.input.kind === "pause" || i.input.kind === "unpause").map((i) => [i.t, i.input.kind])).toEqual([
      [PAUSE_FROM, "pause"],
      [PAUSE_TO, "unpause"],
    ])
  })
})
