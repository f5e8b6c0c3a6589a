/**
 * A scenario's arrivals against its horizon, as the loader tells them: how many epochs the horizon has (each costs
 * rows of the time series) and how many intents a run is expected to make (a huge one looks like a hang before its
 * first progress line), scripted times put in time order, and the scripted times and outages the horizon leaves out
 * (they never happen).
 */
import type { InputProblem } from "../../service/domain/schemas.ts"
import { outageMs } from "../../service/transport/transport.ts"
import { HUB_DEFAULTS } from "../../service/hub/config.ts"
import { chainBlockSeconds, horizonSeconds as horizonSecondsOf, hubTiming } from "../world/plan.ts"
import type { ArrivalSpec, ScenarioSpec } from "./schema.ts"

/** Above this many expected intents the loader warns: five times stress-1m, minutes of run and gigabytes of memory. */
export const LARGE_RUN_INTENTS = 5_000_000

/**
 * Above this many epochs the loader warns. Each epoch is a row per metric of the time series (at least 16 with one
 * asset on two chains, `timeseriesRowsPerEpoch`): a million epochs are 16 million rows and more, a timeseries.csv
 * of 0.6 GB and more, 0.2 GB of memory and 8 s and more of writing it and the charts. Runs meant to be long are far
 * below it (the shipped scenarios have at most a few hundred epochs of 8 minutes; a day of one-second epochs is
 * 86,400); a block time of a millisecond given for a second is far above it (a 1,300-s horizon was 1.3 million
 * epochs, which took more than a 4 GB heap before the series was stored compactly).
 */
export const LARGE_RUN_EPOCHS = 1_000_000

/** Whether a scripted time (seconds) is after the horizon: the scheduler runs events up to the horizon's millisecond, inclusive. */
const afterHorizon = (seconds: number, horizonSeconds: number): boolean => Math.round(seconds * 1000) > horizonSeconds * 1000

/**
 * Whether a scripted time (seconds) is at the horizon's millisecond: the last the scheduler runs, after which the run
 * stops (an intent sent then is counted as created but never reaches the hub).
 */
const atHorizon = (seconds: number, horizonSeconds: number): boolean => !afterHorizon(seconds, horizonSeconds) && Math.round(seconds * 1000) === Math.floor(horizonSeconds * 1000)

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
 * Memory per row of the time series (a metric id and a double, the epochs' index): a run's heap grew by 10.8 to 14
 * bytes a row (1.3 million one-millisecond epochs of 19 rows, 43,200 one-second epochs of 28).
 */
const SERIES_BYTES_PER_ROW = 12
/** timeseries.csv per row (`0,1,20000000,intentQueue.31001,3`), measured: 32 to 39 bytes. */
const CSV_BYTES_PER_ROW = 40
/**
 * Rows a second the report files are written at (timeseries.csv and the charts): 25 million rows took about 10 s
 * on a loaded 2-core machine.
 */
const ROWS_WRITTEN_PER_SECOND = 2_000_000

/**
 * The rows of the time series every epoch has (the collector's `onEpoch`): the 5 counters (intents created and
 * settled, invoices created and settled, discount paid), per asset its open invoices, deposits queued and waiting
 * and its custody on each chain of the default strategy, per chain its settlement, intent and fill queues. Ratios
 * and latency percentiles come on top once there is volume or an intent paid in the epoch.
 */
export const timeseriesRowsPerEpoch = (spec: ScenarioSpec): number =>
  5 + spec.assets.reduce((n, a) => n + 3 + a.chains.filter((c) => (c.strategy ?? "default") === "default").length, 0) + 3 * spec.chains.length

/** Seconds as given, without a product's float noise (0.0015 × 56 is 0.084, not 0.08399999999999999). */
const secondsText = (seconds: number): string => String(Number(seconds.toPrecision(12)))

const bytesText = (bytes: number): string => (bytes >= 1e9 ? `${amount(Math.round(bytes / 1e8) / 10)} GB` : `${Math.max(1, Math.round(bytes / 1e6))} MB`)

/** The warning of a horizon of more than `LARGE_RUN_EPOCHS` epochs, with what they cost and how to have fewer. */
const manyEpochs = (spec: ScenarioSpec, horizonSeconds: number, horizon: string): InputProblem | undefined => {
  const { blockTimeSeconds, epochLength } = hubTiming(spec)
  const epochSeconds = blockTimeSeconds * epochLength
  // The epoch the horizon ends in counts too (a horizon of n epochs reports n + 1: the last one of no length).
  const h = spec.horizon
  const epochs = "epochs" in h ? h.epochs + 1 : Math.floor(horizonSeconds / epochSeconds) + 1
  if (!(epochs > LARGE_RUN_EPOCHS)) return undefined
  const perEpoch = timeseriesRowsPerEpoch(spec)
  const rows = epochs * perEpoch
  return {
    path: "horizon",
    message:
      `about ${count(epochs)} epochs over the horizon of ${horizon}, an epoch being ${secondsText(epochSeconds)} s ` +
      `(hub.epochLength ${epochLength} × hub.blockTimeSeconds ${secondsText(blockTimeSeconds)} s). ` +
      `The time series has a row per epoch and metric, at least ${perEpoch} an epoch here: about ${count(rows)} rows, ` +
      `a timeseries.csv of about ${bytesText(rows * CSV_BYTES_PER_ROW)}, ${bytesText(rows * SERIES_BYTES_PER_ROW)} of memory ` +
      `and about ${count(Math.max(1, rows / ROWS_WRITTEN_PER_SECOND))} s to write the report files besides the run itself. ` +
      `For fewer epochs, make them longer (a larger hub.epochLength or hub.blockTimeSeconds) or the horizon shorter`,
  }
}

/**
 * The warnings of a scenario's timeline: more than `LARGE_RUN_EPOCHS` epochs (at `horizon`, with their cost and how
 * to have fewer), more than `LARGE_RUN_INTENTS` intents expected (at `horizon`, with each population's share, rate
 * and the horizon), scripted times after the horizon or at it (at the first such time of each population), chains
 * whose first block comes after it (at their `blockTimeSeconds`) and outages that start after it or at it (at their
 * `fromSeconds`). Paths are those of the file as written.
 */
export const timelineWarnings = (spec: ScenarioSpec): InputProblem[] => {
  const warnings: InputProblem[] = []
  const horizonSeconds = horizonSecondsOf(spec)
  const horizon = horizonText(spec, horizonSeconds)
  const populations = (spec.agents.rebalancers ?? []).map((r) => ({ name: r.name, arrival: r.arrival, intents: expectedArrivals(r.arrival, horizonSeconds) }))
  const total = populations.reduce((sum, p) => sum + p.intents, 0)
  const epochs = manyEpochs(spec, horizonSeconds, horizon)
  if (epochs !== undefined) warnings.push(epochs)
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
  // Scripted times the run never sends (after the horizon), or sends in its last millisecond (at it): one warning per
  // population and kind, at the first such time, counting the others.
  const scriptedWarnings = (which: (t: number) => boolean, message: (first: number, more: string, one: boolean) => string): void =>
    spec.agents.rebalancers?.forEach((r, i) => {
      if (r.arrival.kind !== "scripted") return
      const found = r.arrival.atSeconds.flatMap((t, j) => (which(t) ? [j] : []))
      const first = found[0]
      if (first === undefined) return
      const more = found.length === 1 ? "is" : `and ${found.length - 1} more of these times are`
      warnings.push({ path: `agents.rebalancers[${i}].arrival.atSeconds[${first}]`, message: message(r.arrival.atSeconds[first]!, more, found.length === 1) })
    })
  scriptedWarnings(
    (t) => afterHorizon(t, horizonSeconds),
    (first, more, one) => `${first} s ${more} after the horizon (${horizon}): the run ends first, so ${one ? "this intent is" : "these intents are"} never sent`,
  )
  scriptedWarnings(
    (t) => atHorizon(t, horizonSeconds),
    (first, more, one) =>
      `${first} s ${more} the horizon itself (${horizon}), the run's last millisecond: ${one ? "its intent is" : "their intents are"} sent, ` +
      `then the run stops, so ${one ? "it is" : "they are"} counted as created but never ${one ? "reaches" : "reach"} the hub nor settle${one ? "s" : ""} (in flight in the report)`,
  )
  // A chain mines its first block one block time after the start (`chainBlockSeconds`, as the world does): past the
  // horizon, it mines none in the run.
  spec.chains.forEach((c, i) => {
    const blockSeconds = chainBlockSeconds(c)
    if (!(blockSeconds * 1000 > Math.floor(horizonSeconds * 1000))) return
    warnings.push({
      path: `chains[${i}].blockTimeSeconds`,
      message:
        `${c.blockTimeSeconds} s is longer than the horizon (${horizon}): chain ${c.id} mines its first block after the run ends, ` +
        `so nothing sent there (its users' intents, fills, deposits, settlements from the hub) is ever included; expected a block time under the horizon`,
    })
  })
  warnings.push(...keeperCronsPastHorizon(spec, horizonSeconds, horizon))
  const hubDomain = spec.hub?.domain ?? HUB_DEFAULTS.hubDomain
  spec.transport?.faults?.outages?.forEach((o, i) => {
    const what = o.domain === hubDomain ? "the hub" : `chain ${o.domain}`
    // On the millisecond the world acts on (`outageMs`): a window starting at the horizon itself still begins, and
    // the run stops right then.
    const startMs = outageMs(o.fromSeconds)
    if (startMs === Math.floor(horizonSeconds * 1000)) {
      warnings.push({
        path: `transport.faults.outages[${i}].fromSeconds`,
        message: `the ${o.kind} of ${what} starts at ${o.fromSeconds} s, the horizon itself (${horizon}), the run's last millisecond: the run stops as it begins, so it holds back no message, block or delivery of the run`,
      })
    }
    if (!(startMs > horizonSeconds * 1000)) return
    warnings.push({
      path: `transport.faults.outages[${i}].fromSeconds`,
      message: `the ${o.kind} of ${what} starts at ${o.fromSeconds} s, after the horizon (${horizon}): the run ends first, so it never happens`,
    })
  })
  return warnings
}

/** What a keeper's cron does, by field: what never happens in a run when the cron is longer than the horizon. */
const KEEPER_CRONS = {
  intentQueue: "no intent queue is dispatched to the hub: no intent reaches it",
  fillQueue: "no fill queue is dispatched to the hub: no fill is reported to it (solvers are never repaid)",
  settlementQueue: "no settlement queue is dispatched from the hub: nothing is settled on the spokes",
} as const

/**
 * Keeper crons given in the file that are longer than the horizon: a keeper looks at the start (`every(cron, 0)` in
 * sim/agents/keepers.ts), when nothing is queued yet, and next at one cron, after the run ends. Told where the value
 * is given (the defaults, 60 s to 600 s, are not: a short test run may leave them).
 */
const keeperCronsPastHorizon = (spec: ScenarioSpec, horizonSeconds: number, horizon: string): InputProblem[] => {
  const warnings: InputProblem[] = []
  const past = (cron: number | undefined): cron is number => cron !== undefined && cron * 1000 > Math.floor(horizonSeconds * 1000)
  const told = (path: string, cron: number, effect: string) =>
    warnings.push({ path, message: `${cron} s is longer than the horizon (${horizon}): the keeper looks at the start only, before anything is queued, and next after the run ends, so ${effect}` })
  const keepers = spec.keepers
  for (const queue of ["intentQueue", "fillQueue", "settlementQueue"] as const) {
    const cron = keepers?.[queue]?.cronSeconds
    // The keepers' value, used by a chain without one of its own.
    const used = (keepers?.chains ?? []).filter((c) => c[queue]?.cronSeconds !== undefined).length < spec.chains.length
    if (past(cron) && used) told(`keepers.${queue}.cronSeconds`, cron, KEEPER_CRONS[queue])
    keepers?.chains?.forEach((c, i) => {
      const own = c[queue]?.cronSeconds
      if (past(own)) told(`keepers.chains[${i}].${queue}.cronSeconds`, own, `on chain ${c.chain}, ${KEEPER_CRONS[queue]}`)
    })
  }
  if (past(keepers?.processDepositsAndInvoicesCronSeconds)) {
    told("keepers.processDepositsAndInvoicesCronSeconds", keepers.processDepositsAndInvoicesCronSeconds, "the keepers' processDepositsAndInvoices never runs in the run")
  }
  if (past(keepers?.expiredIntentsCronSeconds)) {
    told("keepers.expiredIntentsCronSeconds", keepers.expiredIntentsCronSeconds, "no expired fast-path intent is handed to the slow path")
  }
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
