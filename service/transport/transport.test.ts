import { describe, expect, it } from "vitest"
import { RngStreams } from "../../sim/rng.ts"
import { sampleLatencySeconds } from "./latency.ts"
import { MIN_REFUSAL_RETRY_SECONDS, Transport, type TransportSpec } from "./transport.ts"

const msg = (i: number, origin = 1, destination = 25327) => ({ messageId: `m${i}`, origin, destination })

/** The simulator's per-route streams for a seed (World names them the same way). */
const routeStreams = (seed: number) => {
  const streams = new RngStreams(seed)
  return (from: number, to: number) => streams.get(`transport/${from}>${to}`)
}

describe("latency distributions", () => {
  it("samples fixed, uniform, lognormal and empirical latencies", () => {
    const rng = new RngStreams(3).get("lat")
    expect(sampleLatencySeconds({ kind: "fixed", seconds: 12 }, rng)).toBe(12)
    for (let i = 0; i < 1000; i++) {
      const u = sampleLatencySeconds({ kind: "uniform", minSeconds: 5, maxSeconds: 7 }, rng)
      expect(u >= 5 && u <= 7).toBe(true)
      const l = sampleLatencySeconds({ kind: "lognormal", medianSeconds: 60, sigma: 1, maxSeconds: 600 }, rng)
      expect(l > 0 && l <= 600).toBe(true)
      const e = sampleLatencySeconds({ kind: "empirical", quantiles: [{ q: 0, seconds: 10 }, { q: 0.5, seconds: 20 }, { q: 1, seconds: 100 }] }, rng)
      expect(e >= 10 && e <= 100).toBe(true)
    }
    expect(sampleLatencySeconds({ kind: "empirical", quantiles: [{ q: 0, seconds: 10 }, { q: 0.5, seconds: 20 }, { q: 1, seconds: 100 }] }, { float: () => 0.75 })).toBe(60)
  })
})

describe("Transport", () => {
  it("delivers once after the route's latency without faults", () => {
    const t = new Transport({ latency: { kind: "fixed", seconds: 30 }, routes: [{ from: 25327, to: 10, latency: { kind: "fixed", seconds: 5 } }] }, routeStreams(1))
    expect(t.send(msg(1), 1000)).toEqual([{ message: msg(1), atMs: 31_000, attempt: 1, duplicate: false }])
    expect(t.send(msg(2, 25327, 10), 0)[0]!.atMs).toBe(5000)
  })

  it("redelivers dropped messages after the delay and duplicates some", () => {
    const spec: TransportSpec = {
      latency: { kind: "fixed", seconds: 10 },
      faults: { dropProbability: 0.3, redeliveryDelaySeconds: 100, duplicateProbability: 0.2 },
    }
    const t = new Transport(spec, routeStreams(5))
    let delayed = 0
    let dups = 0
    for (let i = 0; i < 2000; i++) {
      const d = t.send(msg(i), 0)
      expect(d[0]!.atMs).toBe(10_000 + (d[0]!.attempt - 1) * 100_000)
      if (d[0]!.attempt > 1) delayed++
      if (d.length === 2) dups++
    }
    expect(delayed / 2000).toBeGreaterThan(0.25)
    expect(delayed / 2000).toBeLessThan(0.35)
    expect(dups / 2000).toBeGreaterThan(0.16)
    expect(dups / 2000).toBeLessThan(0.24)
    expect(t.stats.sent).toBe(2000)
  })

  it("numbers a dropped message's attempts, draws a duplicate's own latency and reorder delay (seconds), and returns the deliveries in time order", () => {
    // Draws in order: drop? 0.1 (dropped), drop? 0.9 (not); the original: latency 0.5 (15 s), reorder? 0.1 (yes),
    // 0.5 of the 30 s window (15 s); duplicate? 0.1 (yes); the copy: latency 0 (10 s), reorder? 0.9 (no).
    const draws = [0.1, 0.9, 0.5, 0.1, 0.5, 0.1, 0, 0.9]
    const t = new Transport(
      {
        latency: { kind: "uniform", minSeconds: 10, maxSeconds: 20 },
        faults: { dropProbability: 0.5, redeliveryDelaySeconds: 100, duplicateProbability: 0.5, reorderProbability: 0.5, reorderWindowSeconds: 30 },
      },
      () => ({ float: () => draws.shift()! }),
    )
    // The retry leaves at 100 s: the original arrives at 100 + 15 + 15 s, the copy at 100 + 10 s, first.
    expect(t.send(msg(1), 0)).toEqual([
      { message: msg(1), atMs: 110_000, attempt: 3, duplicate: true },
      { message: msg(1), atMs: 130_000, attempt: 2, duplicate: false },
    ])
    expect(draws).toEqual([])
    expect(t.stats).toEqual({ sent: 1, deliveries: 2, dropped: 1, duplicated: 1, reordered: 1, heldByOutage: 0, redeliveredAfterRefusal: 0 })
  })

  it("lets a message through at its MAX_ATTEMPTS-th attempt, each retry 300 s (the default delay) after the last", () => {
    const t = new Transport({ latency: { kind: "fixed", seconds: 10 }, faults: { dropProbability: 1 } }, () => ({ float: () => 0.5 }))
    // 19 drops, then the 20th attempt leaves at 19 × 300 s and arrives 10 s later.
    expect(t.send(msg(1), 0)).toEqual([{ message: msg(1), atMs: 5_710_000, attempt: 20, duplicate: false }])
    expect(t.stats.dropped).toBe(19)
  })

  it("holds messages to and from a domain in outage until it ends", () => {
    const t = new Transport(
      { latency: { kind: "fixed", seconds: 10 }, faults: { outages: [{ domain: 10, kind: "partition", fromSeconds: 100, toSeconds: 200 }] } },
      routeStreams(1),
    )
    expect(t.send(msg(1, 25327, 10), 95_000)[0]!.atMs).toBe(200_000) // would arrive at 105 s: held
    expect(t.send(msg(2, 10, 25327), 150_000)[0]!.atMs).toBe(210_000) // leaves at 200 s
    expect(t.send(msg(3, 1, 25327), 150_000)[0]!.atMs).toBe(160_000) // other domains unaffected
    expect(t.stats.heldByOutage).toBe(2)
  })

  it("retries a dropped attempt the redelivery delay after it left: an attempt sent in its origin's partition leaves when it ends", () => {
    // Draws in order: drop? (0.1 < 0.5: dropped), drop? (0.9: not), then fixed latency draws nothing.
    const scripted = () => {
      const draws = [0.1, 0.9]
      return { float: () => draws.shift() ?? 0.9 }
    }
    const spec = (toSeconds: number): TransportSpec => ({
      latency: { kind: "fixed", seconds: 10 },
      faults: { dropProbability: 0.5, redeliveryDelaySeconds: 300, outages: [{ domain: 1, kind: "partition", fromSeconds: 100, toSeconds }] },
    })
    // Sent at 150 s in a partition to 1,000 s: the first attempt leaves at 1,000 s and is lost, the second leaves
    // at 1,300 s and arrives at 1,310 s (the drop cost nothing before: 1,010 s, as if never dropped).
    const long = new Transport(spec(1000), scripted)
    expect(long.send(msg(1), 150_000)).toEqual([{ message: msg(1), atMs: 1_310_000, attempt: 2, duplicate: false }])
    // A partition to 200 s: the retry at 500 s was not held, but the first attempt was, and is counted.
    const short = new Transport(spec(200), scripted)
    expect(short.send(msg(1), 150_000)[0]!.atMs).toBe(510_000)
    expect(short.stats).toMatchObject({ dropped: 1, heldByOutage: 1 })
  })

  it("holds nothing for a hub pause; a refused delivery is retried after the redelivery delay, past partitions", () => {
    const source = { draws: 0, float: () => (source.draws++, 0.5) }
    const t = new Transport(
      {
        latency: { kind: "fixed", seconds: 10 },
        faults: {
          redeliveryDelaySeconds: 120,
          outages: [
            { domain: 25327, kind: "pause", fromSeconds: 100, toSeconds: 400 },
            { domain: 25327, kind: "partition", fromSeconds: 500, toSeconds: 600 },
          ],
        },
      },
      () => source,
    )
    // Sent in the pause, to and from the hub: delivered after the latency (the paused hub refuses it, not the transport).
    const [first] = t.send(msg(1), 150_000)
    expect(first).toEqual({ message: msg(1), atMs: 160_000, attempt: 1, duplicate: false })
    expect(t.send(msg(2, 25327, 10), 150_000)[0]!.atMs).toBe(160_000)
    expect(t.stats.heldByOutage).toBe(0)
    const draws = source.draws
    const retry = t.redeliver(first!, 160_000)
    expect(retry).toEqual({ message: msg(1), atMs: 280_000, attempt: 2, duplicate: false })
    // A retry that would land in a partition of the hub waits for its end; no draw from the seeded stream.
    expect(t.redeliver(retry, 400_000).atMs).toBe(600_000)
    expect(source.draws).toBe(draws)
    expect(t.stats.redeliveredAfterRefusal).toBe(2)
    expect(t.stats.heldByOutage).toBe(1)
    expect(t.isHalted(25327, 200_000)).toBe(false)
  })

  it("retries a refused delivery 300 s later by default, a duplicate staying a duplicate", () => {
    const t = new Transport({ latency: { kind: "fixed", seconds: 10 }, faults: { outages: [{ domain: 25327, kind: "pause", fromSeconds: 100, toSeconds: 400 }] } }, () => ({ float: () => 0.5 }))
    expect(t.redeliver({ message: msg(1), atMs: 160_000, attempt: 2, duplicate: true }, 160_000)).toEqual({ message: msg(1), atMs: 460_000, attempt: 3, duplicate: true })
  })

  it("halts a chain's blocks for a halt only (not a partition), and holds a message through outages that chain, in any order", () => {
    const t = new Transport(
      {
        latency: { kind: "fixed", seconds: 10 },
        faults: {
          outages: [
            { domain: 10, kind: "partition", fromSeconds: 100, toSeconds: 200 },
            { domain: 11, kind: "halt", fromSeconds: 100, toSeconds: 200 },
            { domain: 25327, kind: "partition", fromSeconds: 200, toSeconds: 300 },
            { domain: 25327, kind: "halt", fromSeconds: 100, toSeconds: 200 },
          ],
        },
      },
      () => ({ float: () => 0.5 }),
    )
    expect([t.isHalted(10, 150_000), t.isHalted(11, 150_000), t.isHalted(11, 200_000)]).toEqual([false, true, false])
    // Arrives at 150 s in the hub's halt to 200 s, then its partition to 300 s (listed first).
    expect(t.send(msg(1), 140_000)[0]!.atMs).toBe(300_000)
  })

  it("retries a refused delivery at least a second later, whatever the redelivery delay (a retry at the same instant would be refused forever)", () => {
    const t = new Transport({ latency: { kind: "fixed", seconds: 10 }, faults: { redeliveryDelaySeconds: 0, outages: [{ domain: 25327, kind: "pause", fromSeconds: 100, toSeconds: 400 }] } }, () => ({ float: () => 0.5 }))
    const [first] = t.send(msg(1), 150_000)
    expect(t.redeliver(first!, 160_000).atMs).toBe(160_000 + MIN_REFUSAL_RETRY_SECONDS * 1000)
  })

  it("rounds an arrival to the millisecond before it looks at outages: one rounding into a window is held", () => {
    // 29.9996 s of latency from 540 s arrives at 569,999.6 ms, delivered at 570,000 ms: inside the halt from 570 s.
    const t = new Transport(
      { latency: { kind: "fixed", seconds: 29.9996 }, faults: { outages: [{ domain: 25327, kind: "halt", fromSeconds: 570, toSeconds: 900 }] } },
      () => ({ float: () => 0.5 }),
    )
    expect(t.send(msg(1), 540_000)[0]!.atMs).toBe(900_000)
    expect(t.stats.heldByOutage).toBe(1)
    // A window ending at a fractional millisecond: held to the first whole millisecond after it, not rounded back in.
    const fractional = new Transport({ latency: { kind: "fixed", seconds: 60 }, faults: { outages: [{ domain: 25327, kind: "halt", fromSeconds: 570, toSeconds: 900.0004 }] } }, () => ({ float: () => 0.5 }))
    const at = fractional.send(msg(2), 540_000)[0]!.atMs
    expect(at).toBe(900_001)
    expect(fractional.isHalted(25327, at)).toBe(false)
  })

  it("draws nothing for a fault whose probability is 0: the same draws as without it", () => {
    const draws = (faults: TransportSpec["faults"]) => {
      const source = { n: 0, float: () => (source.n++, 0.5) }
      const t = new Transport({ latency: { kind: "uniform", minSeconds: 1, maxSeconds: 2 }, ...(faults === undefined ? {} : { faults }) }, () => source)
      t.send(msg(1), 0)
      return source.n
    }
    expect(draws({ dropProbability: 0, duplicateProbability: 0, reorderProbability: 0 })).toBe(draws(undefined))
    expect(draws({ dropProbability: 0.1 })).toBe(draws(undefined) + 1)
  })

  it("is deterministic for a seed", () => {
    const spec: TransportSpec = { latency: { kind: "lognormal", medianSeconds: 60, sigma: 0.8 }, faults: { reorderProbability: 0.5, dropProbability: 0.1, duplicateProbability: 0.1 } }
    const run = () => {
      const t = new Transport(spec, routeStreams(99))
      return Array.from({ length: 200 }, (_, i) => t.send(msg(i), i * 1000).map((d) => d.atMs))
    }
    expect(run()).toEqual(run())
  })

  it("draws each route's messages from that route's stream: another route's traffic or latency moves none of its draws", () => {
    const spec = (hubToTenLatency: TransportSpec["latency"]): TransportSpec => ({
      latency: { kind: "lognormal", medianSeconds: 60, sigma: 0.8 },
      routes: [{ from: 25327, to: 10, latency: hubToTenLatency }],
      faults: { dropProbability: 0.2, duplicateProbability: 0.1, reorderProbability: 0.3 },
    })
    const made: string[] = []
    const run = (hubToTenLatency: TransportSpec["latency"], otherMessages: number) => {
      const streams = new RngStreams(7)
      const t = new Transport(spec(hubToTenLatency), (from, to) => (made.push(`${from}>${to}`), streams.get(`transport/${from}>${to}`)))
      const oneToHub: number[][] = []
      for (let i = 0; i < 300; i++) {
        for (let k = 0; k < otherMessages; k++) t.send(msg(i * 10 + k, 25327, 10), i * 1000)
        oneToHub.push(t.send(msg(i), i * 1000).map((d) => d.atMs))
      }
      return oneToHub
    }
    const alone = run({ kind: "fixed", seconds: 5 }, 0)
    expect(run({ kind: "uniform", minSeconds: 1, maxSeconds: 500 }, 3)).toEqual(alone)
    // One stream per route, made on the route's first message.
    expect(made).toEqual(["1>25327", "25327>10", "1>25327"])
  })
})
