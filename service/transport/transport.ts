/**
 * The simulated cross-chain transport between spokes and hub. It decides WHEN (and how many times) a message
 * is delivered: per-route latency, plus faults drawn from the route's seeded stream: drop with
 * redelivery after a delay, duplicate, reorder (extra delay), and outages of a domain (a network partition or
 * a halted chain) during which nothing leaves it and nothing arrives at it (a message that left before the outage
 * arrives). A `pause` of the hub is not a transport
 * fault: messages keep arriving, the paused hub refuses them, and the relayer retries each refused delivery
 * after the redelivery delay (`redeliver`). Scheduling the deliveries is the simulator's job; the transport
 * keeps no clock.
 */
import * as Schema from "effect/Schema"
import { LatencySpec, sampleLatencySeconds, TransportSeconds, type UniformSource } from "./latency.ts"

const Probability = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }, { expected: "a probability between 0 and 1" }))
const Seconds = TransportSeconds
/** A chain id or the hub's domain: a positive uint32 (no chain and no hub has domain 0: a route or an outage of 0 would do nothing). */
const Domain = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 0xffff_ffff }, { expected: "a domain id (a positive uint32: a chain id or the hub's domain)" }))

export const OutageSpec = Schema.Struct({
  domain: Domain.annotate({ description: "the chain id, or the hub's domain (hub.domain, default 25327), the outage is of" }),
  /**
   * `partition`: messages to and from the domain wait; `halt`: the chain also stops producing blocks; `pause`
   * (hub domain only): the hub's owner pauses the hub at `fromSeconds` and unpauses it at `toSeconds` (both are
   * hub inputs in the trace); meanwhile deliveries to the hub are refused and retried after the redelivery
   * delay, and settlement dispatch, expired-intent handling and unsupported returns revert.
   */
  kind: Schema.Literals(["partition", "halt", "pause"]).annotate({
    description:
      "partition: messages sent from the domain during the window leave when it ends (one it sent before the window began is on its way and arrives), and messages arriving at it during the window, whenever sent, wait until it ends; halt: the chain also produces no blocks; pause (hub domain only): the hub is paused by its owner from fromSeconds to toSeconds (pause/unpause inputs in the trace), refusing deliveries (retried after redeliveryDelaySeconds) and reverting processSettlementQueue, handleExpiredIntents and returnUnsupportedIntent",
  }),
  fromSeconds: Seconds.annotate({ description: "when the window starts, seconds from the run's start (its first whole millisecond at or after it)" }),
  toSeconds: Seconds.annotate({ description: "when the window ends, after fromSeconds (its last whole millisecond before it)" }),
})
export type OutageSpec = typeof OutageSpec.Type

export const TransportSpec = Schema.Struct({
  /** Latency of every route without its own entry. */
  latency: LatencySpec.annotate({ description: "latency of every route without its own entry: fixed, uniform, lognormal or empirical quantiles" }),
  /** Per-route latency, `from`/`to` domain ids (the hub domain included). */
  routes: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        from: Domain.annotate({ description: "a chain id or the hub's domain (hub.domain, default 25327): one end of the route" }),
        to: Domain.annotate({ description: "the other end: the hub's domain for spoke→hub messages, a chain id for hub→spoke ones" }),
        latency: LatencySpec.annotate({ description: "this route's latency: fixed, uniform, lognormal or empirical quantiles" }),
      }),
    ).annotate({ description: "latencies of particular routes, one direction between a chain and the hub each, over the latency above" }),
  ),
  faults: Schema.optionalKey(
    Schema.Struct({
      dropProbability: Schema.optionalKey(Probability.annotate({ description: "chance an attempt is dropped on its way, then sent again redeliveryDelaySeconds after it left (never lost; default 0)" })),
      redeliveryDelaySeconds: Schema.optionalKey(Seconds.annotate({ description: "delay before a dropped or refused message is sent again (default 300)" })),
      duplicateProbability: Schema.optionalKey(Probability.annotate({ description: "chance a message is delivered twice, the copy with its own latency (the receiver refuses whichever arrives second; default 0)" })),
      reorderProbability: Schema.optionalKey(Probability.annotate({ description: "chance a message is held up to reorderWindowSeconds more (default 0)" })),
      reorderWindowSeconds: Schema.optionalKey(Seconds.annotate({ description: "the most a reordered message is held (default 60)" })),
      outages: Schema.optionalKey(Schema.Array(OutageSpec).annotate({ description: "windows of partition, chain halt or hub pause" })),
    }).annotate({ description: "faults drawn from the seed: drops, duplicates, reordering, and outages (default: none)" }),
  ),
})
export type TransportSpec = typeof TransportSpec.Type

export interface TransportMessage {
  readonly messageId: string
  readonly origin: number
  readonly destination: number
}

export interface Delivery<M extends TransportMessage> {
  readonly message: M
  /** Virtual time of the delivery, ms. */
  readonly atMs: number
  /** 1 for the first delivery; 2+ for redeliveries after a drop and for duplicates. */
  readonly attempt: number
  readonly duplicate: boolean
}

export interface TransportStats {
  /** Messages handed to the transport. */
  sent: number
  /**
   * Deliveries scheduled: first deliveries, duplicates and retries after a refusal, counted when scheduled (a run's
   * report counts those due after its horizon too).
   */
  deliveries: number
  dropped: number
  duplicated: number
  reordered: number
  heldByOutage: number
  /** Deliveries the destination refused (a paused hub) and the relayer retried after the redelivery delay. */
  redeliveredAfterRefusal: number
}

/**
 * An outage's edge as the whole millisecond the simulation acts on: the first at or after `seconds`. Deliveries,
 * blocks and the hub's pause and unpause happen at whole milliseconds, so a window `[from, to)` covers the
 * milliseconds `outageMs(from)` to `outageMs(to) - 1`. The product's binary rounding is ignored (64.4 s is
 * 64,400 ms, though 64.4 × 1000 is 64,400.00000000001; an edge less than a nanosecond past a whole millisecond is
 * that millisecond): the loader, the transport and the world (deliveries, pauses, hub blocks) agree on every edge.
 */
export const outageMs = (seconds: number): number => Math.ceil(seconds * 1000 - 1e-6) || 0

/** Whether the whole millisecond `ms` is in the window `[fromSeconds, toSeconds)` (see `outageMs`). */
export const inOutageWindow = (ms: number, fromSeconds: number, toSeconds: number): boolean => ms >= outageMs(fromSeconds) && ms < outageMs(toSeconds)

/** Attempts of one message: after `MAX_ATTEMPTS - 1` drops the next attempt goes through (messages are never lost). */
export const MAX_ATTEMPTS = 20

/** The least delay before a refused delivery's retry (`Transport.redeliver`), whatever `redeliveryDelaySeconds` says. */
export const MIN_REFUSAL_RETRY_SECONDS = 1

/** One direction between two domains: its latency and the seeded stream its messages' draws come from. */
interface Route {
  readonly latency: LatencySpec
  readonly source: UniformSource
}

export class Transport {
  readonly stats: TransportStats = { sent: 0, deliveries: 0, dropped: 0, duplicated: 0, reordered: 0, heldByOutage: 0, redeliveredAfterRefusal: 0 }
  private readonly latencies = new Map<string, LatencySpec>()
  /** Routes by origin, then destination, made on a route's first message. */
  private readonly routes = new Map<number, Map<number, Route>>()
  /** The partitions and halts (a `pause` holds nothing here), on the milliseconds they cover (`outageMs`). */
  private readonly outages: readonly { readonly domain: number; readonly halt: boolean; readonly fromMs: number; readonly toMs: number }[]

  readonly spec: TransportSpec
  private readonly sourceOf: (from: number, to: number) => UniformSource
  /**
   * `sourceOf(from, to)` gives the seeded stream of one route: every draw for a message (drop, latency, reorder,
   * duplicate) comes from its route's stream, so changing one route's latency or traffic moves no other route's
   * draws (the simulator names them `transport/<from>><to>`). It is called once per route, on its first message.
   */
  constructor(spec: TransportSpec, sourceOf: (from: number, to: number) => UniformSource) {
    this.spec = spec
    this.sourceOf = sourceOf
    for (const r of spec.routes ?? []) this.latencies.set(`${r.from}>${r.to}`, r.latency)
    this.outages = (spec.faults?.outages ?? [])
      .filter((o) => o.kind !== "pause")
      .map((o) => ({ domain: o.domain, halt: o.kind === "halt", fromMs: outageMs(o.fromSeconds), toMs: outageMs(o.toSeconds) }))
  }

  latencyOf(from: number, to: number): LatencySpec {
    return this.latencies.get(`${from}>${to}`) ?? this.spec.latency
  }

  private route(from: number, to: number): Route {
    let byDestination = this.routes.get(from)
    if (byDestination === undefined) this.routes.set(from, (byDestination = new Map()))
    let route = byDestination.get(to)
    if (route === undefined) byDestination.set(to, (route = { latency: this.latencyOf(from, to), source: this.sourceOf(from, to) }))
    return route
  }

  /**
   * When the domain's outage covering `atMs` ends, or `atMs` when there is none (outages may chain). A hub
   * `pause` holds nothing here: the paused hub refuses what arrives (see `redeliver`).
   */
  private afterOutages(domain: number, atMs: number): number {
    let t = atMs
    for (let changed = true; changed; ) {
      changed = false
      for (const o of this.outages) {
        if (o.domain === domain && t >= o.fromMs && t < o.toMs) {
          t = o.toMs
          changed = true
        }
      }
    }
    return t
  }

  /**
   * The arrival time of one attempt sent at `sentMs`: latency, reorder delay, then outages at both ends. A message
   * cannot leave a domain in outage (it leaves when the outage ends) nor arrive at one (it waits for the end); one
   * that left before its origin's outage began is on its way and arrives. The arrival is rounded to the
   * millisecond before the destination's outages are looked at: delivery happens at the rounded time, which must
   * not fall inside a window the unrounded one missed.
   */
  private arrival(message: TransportMessage, route: Route, sentMs: number): number {
    const faults = this.spec.faults
    const departMs = this.afterOutages(message.origin, sentMs)
    let atMs = departMs + sampleLatencySeconds(route.latency, route.source) * 1000
    if (chance(route.source, faults?.reorderProbability)) {
      atMs += (faults?.reorderWindowSeconds ?? 60) * 1000 * route.source.float()
      this.stats.reordered++
    }
    atMs = Math.round(atMs)
    const heldMs = this.afterOutages(message.destination, atMs)
    if (heldMs !== atMs || departMs !== sentMs) this.stats.heldByOutage++
    return Math.round(heldMs)
  }

  /** Every delivery of a message sent at `sentMs`, in time order. The draws happen in a fixed order, from the message's route's stream. */
  send<M extends TransportMessage>(message: M, sentMs: number): Delivery<M>[] {
    const faults = this.spec.faults
    const route = this.route(message.origin, message.destination)
    this.stats.sent++
    const deliveries: Delivery<M>[] = []
    let attempt = 1
    let sendMs = sentMs
    // Each attempt may be dropped on its way; the relayer retries the redelivery delay after it left (an attempt
    // leaves its origin when the origin's outage ends), at most MAX_ATTEMPTS tries.
    while (attempt < MAX_ATTEMPTS && chance(route.source, faults?.dropProbability)) {
      this.stats.dropped++
      const departMs = this.afterOutages(message.origin, sendMs)
      if (departMs !== sendMs) this.stats.heldByOutage++
      sendMs = departMs + (faults?.redeliveryDelaySeconds ?? 300) * 1000
      attempt++
    }
    deliveries.push({ message, atMs: this.arrival(message, route, sendMs), attempt, duplicate: false })
    if (chance(route.source, faults?.duplicateProbability)) {
      this.stats.duplicated++
      deliveries.push({ message, atMs: this.arrival(message, route, sendMs), attempt: attempt + 1, duplicate: true })
    }
    deliveries.sort((a, b) => a.atMs - b.atMs)
    this.stats.deliveries += deliveries.length
    return deliveries
  }

  /**
   * The next attempt of a delivery its destination refused at `refusedAtMs` (a paused hub): the relayer retries
   * after the redelivery delay (`redeliveryDelaySeconds`, default 300 s, the delay of a dropped attempt), held
   * further by the destination's partition or halt if one covers that time. Draws nothing from the seeded streams.
   */
  redeliver<M extends TransportMessage>(delivery: Delivery<M>, refusedAtMs: number): Delivery<M> {
    this.stats.redeliveredAfterRefusal++
    this.stats.deliveries++
    // At least a second later: a retry at the instant of the refusal would be refused again at that instant, and
    // virtual time would never reach the end of the pause (the scenario loader refuses shorter delays with a pause).
    const delaySeconds = Math.max(this.spec.faults?.redeliveryDelaySeconds ?? 300, MIN_REFUSAL_RETRY_SECONDS)
    const retryMs = Math.round(refusedAtMs + delaySeconds * 1000)
    const heldMs = this.afterOutages(delivery.message.destination, retryMs)
    if (heldMs !== retryMs) this.stats.heldByOutage++
    return { message: delivery.message, atMs: Math.round(heldMs), attempt: delivery.attempt + 1, duplicate: delivery.duplicate }
  }

  /** True while `domain` is in a `halt` outage at `atMs` (its chain produces no blocks). */
  isHalted(domain: number, atMs: number): boolean {
    return this.outages.some((o) => o.halt && o.domain === domain && atMs >= o.fromMs && atMs < o.toMs)
  }
}

/** A draw against `probability`; none is drawn when the fault is off (absent or 0), so setting 0 changes no draw. */
const chance = (source: UniformSource, probability: number | undefined): boolean => probability !== undefined && probability > 0 && source.float() < probability
