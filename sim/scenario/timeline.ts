/**
 * A scenario's arrivals against its horizon, as the loader tells them: how many intents a run is expected to
 * make (a huge one looks like a hang before its first progress line), scripted times put in time order, and the
 * scripted times and outages the horizon leaves out (they never happen).
 */
import type { InputProblem } from "../../service/domain/schemas.ts"
import { outageMs } from "../../service/transport/transport.ts"
import { HUB_DEFAULTS } from "../../service/hub/config.ts"
import { horizonSeconds as horizonSecondsOf } from "../world/plan.ts"
import type { ArrivalSpec, ScenarioSpec } from "./schema.ts"

/** Above this many expected intents the loader warns: five times stress-1m, minutes of run and gigabytes of memory. */
export const LARGE_RUN_INTENTS = 5_000_000

/** Whether a scripted time (seconds) is after the horizon: the scheduler runs events up to the horizon's millisecond, inclusive. */
const afterHorizon = (seconds: number, horizonSeconds: number): boolean => Math.round(seconds * 1000) > horizonSeconds * 1000

/** Intents one population's arrivals make over `horizonSeconds`, on average (scripted: exactly, those in the horizon). */
export const expectedArrivals = (arrival: ArrivalSpec, horizonSeconds: number): number => {
  switch (arrival.kind) {
    case "poisson":
      return (arrival.perHour * horizonSeconds) / 3600
    case "bursty":
      return (arrival.size * horizonSeconds) / arrival.everySeconds
    case "scripted":
      return arrival.atSeconds.filter((t) => !afterHorizon(t, horizonSeconds)).length
  }
}

const count = (n: number): string => (!Number.isFinite(n) ? "∞" : n < 1e15 ? Math.round(n).toLocaleString("en-US") : n.toExponential(2))
const amount = (n: number): string => (n < 1e15 ? n.toLocaleString("en-US", { maximumFractionDigits: 2 }) : n.toExponential(2))

const arrivalText = (arrival: ArrivalSpec): string => {
  switch (arrival.kind) {
    case "poisson":
      return `poisson, ${amount(arrival.perHour)} per hour`
    case "bursty":
      return `bursts of ${amount(arrival.size)} every ${amount(arrival.everySeconds)} s, ${amount((arrival.size * 3600) / arrival.everySeconds)} per hour`
    case "scripted":
      return `${arrival.atSeconds.length} scripted times`
  }
}

const horizonText = (spec: ScenarioSpec, seconds: number): string => {
  const h = spec.horizon
  if ("seconds" in h) return `${h.seconds} s`
  if ("hours" in h) return `${h.hours} h (${amount(seconds)} s)`
  return `${h.epochs} epochs (${amount(seconds)} s)`
}

/**
 * The warnings of a scenario's timeline: more than `LARGE_RUN_INTENTS` intents expected (at `horizon`, with each
 * population's share, rate and the horizon), scripted times after the horizon (at the first such time of each
 * population) and outages that start after it (at their `fromSeconds`). Paths are those of the file as written.
 */
export const timelineWarnings = (spec: ScenarioSpec): InputProblem[] => {
  const warnings: InputProblem[] = []
  const horizonSeconds = horizonSecondsOf(spec)
  const horizon = horizonText(spec, horizonSeconds)
  const populations = (spec.agents.rebalancers ?? []).map((r) => ({ name: r.name, arrival: r.arrival, intents: expectedArrivals(r.arrival, horizonSeconds) }))
  const total = populations.reduce((sum, p) => sum + p.intents, 0)
  if (total > LARGE_RUN_INTENTS) {
    const shares = populations
      .filter((p) => p.intents > 0)
      .sort((a, b) => b.intents - a.intents)
      .map((p) => `${p.name} ${count(p.intents)} (${arrivalText(p.arrival)})`)
    warnings.push({
      path: "horizon",
      message:
        `about ${count(total)} intents expected over the horizon of ${horizon}: ${shares.join(", ")}. ` +
        `A run's time and memory grow with its intents (stress-1m's one million take about a minute here, and 1.7 GB), ` +
        `and \`clearsim run\` tells its progress in percent of virtual time (a line every 10 % when stderr is not a terminal): the first may be long in coming`,
    })
  }
  spec.agents.rebalancers?.forEach((r, i) => {
    if (r.arrival.kind !== "scripted") return
    const late = r.arrival.atSeconds.flatMap((t, j) => (afterHorizon(t, horizonSeconds) ? [j] : []))
    const first = late[0]
    if (first === undefined) return
    const more = late.length === 1 ? "is" : `and ${late.length - 1} more of these times are`
    warnings.push({
      path: `agents.rebalancers[${i}].arrival.atSeconds[${first}]`,
      message: `${r.arrival.atSeconds[first]} s ${more} after the horizon (${horizon}): the run ends first, so ${late.length === 1 ? "this intent is" : "these intents are"} never sent`,
    })
  })
  const hubDomain = spec.hub?.domain ?? HUB_DEFAULTS.hubDomain
  spec.transport?.faults?.outages?.forEach((o, i) => {
    // On the millisecond the world acts on (`outageMs`): a window starting at the horizon itself still begins.
    if (!(outageMs(o.fromSeconds) > horizonSeconds * 1000)) return
    const what = o.domain === hubDomain ? "the hub" : `chain ${o.domain}`
    warnings.push({
      path: `transport.faults.outages[${i}].fromSeconds`,
      message: `the ${o.kind} of ${what} starts at ${o.fromSeconds} s, after the horizon (${horizon}): the run ends first, so it never happens`,
    })
  })
  return warnings
}

/**
 * The scenario with each population's scripted times in time order (a stable sort: equal times keep their
 * order). The scheduler runs them in time order anyway; what the list order decides is which agent sends which
 * (the i-th time goes to agent i mod count), so with one agent sorting changes nothing, and with several the
 * agents now take the times in turn in time order, which a warning tells at the first time out of order.
 */
export const scriptedInTimeOrder = (spec: ScenarioSpec): { readonly spec: ScenarioSpec; readonly warnings: InputProblem[] } => {
  const warnings: InputProblem[] = []
  const rebalancers = spec.agents.rebalancers
  if (rebalancers === undefined || !rebalancers.some((r) => r.arrival.kind === "scripted" && !isSorted(r.arrival.atSeconds))) return { spec, warnings }
  const sorted = rebalancers.map((r, i) => {
    if (r.arrival.kind !== "scripted" || isSorted(r.arrival.atSeconds)) return r
    const times = r.arrival.atSeconds
    if (r.count > 1) {
      const j = times.findIndex((t, k) => k > 0 && t < times[k - 1]!)
      warnings.push({
        path: `agents.rebalancers[${i}].arrival.atSeconds[${j}]`,
        message: `${times[j]} s comes before the time above it (${times[j - 1]} s): the times are taken in time order, and the population's ${r.count} agents send them in turn in that order, not in the list's`,
      })
    }
    return { ...r, arrival: { ...r.arrival, atSeconds: [...times].sort((a, b) => a - b) } }
  })
  return { spec: { ...spec, agents: { ...spec.agents, rebalancers: sorted } }, warnings }
}

const isSorted = (times: readonly number[]): boolean => times.every((t, k) => k === 0 || t >= times[k - 1]!)
