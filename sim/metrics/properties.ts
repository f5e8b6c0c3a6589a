/**
 * Scenario properties: comparisons of a metric with a number (`nettingRatio >= 0.5`,
 * `latency.p99 <= 3600`) and coverage predicates (`{ coverage: maxDiscountReached }`) proving that a
 * green run exercised what matters. Judged on the final metrics; a failure also names, from every epoch's snapshot,
 * the epoch it has failed since (the start of the failing stretch that lasted to the end of the run: a cumulative
 * ratio is 0 in the first epoch, so the first epoch that failed says nothing).
 */

export type PropertySpec = string | { readonly coverage: string }

export interface PropertyResult {
  readonly name: string
  readonly pass: boolean
  /** Final value of the metric (comparisons). */
  readonly value?: number
  /**
   * The epoch the property has failed since (comparisons evaluated per epoch): the first epoch after the last one
   * whose snapshot passed it, from which every snapshot with a value fails it to the end of the run (the first
   * snapshot with a value when none passed). Absent when the property passes, its metric is not recorded per
   * epoch, or the last epoch with a value passes it (an epoch's own latencies can pass while the run's fail).
   */
  readonly firstFailingEpoch?: number
  readonly reason?: string
}

const OPS = {
  ">=": (a: number, b: number) => a >= b,
  "<=": (a: number, b: number) => a <= b,
  ">": (a: number, b: number) => a > b,
  "<": (a: number, b: number) => a < b,
  "==": (a: number, b: number) => a === b,
  "!=": (a: number, b: number) => a !== b,
} as const
type Op = keyof typeof OPS

export interface Comparison {
  readonly metric: string
  readonly op: Op
  readonly threshold: number
}

export const parseComparison = (text: string): Comparison => {
  const m = /^\s*([A-Za-z][A-Za-z0-9._-]*)\s*(>=|<=|==|!=|>|<)\s*(\S+)\s*$/.exec(text)
  const threshold = m === null ? Number.NaN : Number(m[3])
  if (m === null || !Number.isFinite(threshold)) throw new Error(`property "${text}": expected "<metric> <op> <number>"`)
  return { metric: m[1]!, op: m[2] as Op, threshold }
}

/** The coverage predicates a run can prove, with what each means. */
export const COVERAGE_PREDICATES = {
  invoiceCreated: "some intent became an invoice",
  invoiceSettled: "some invoice was bought and settled",
  discountPaid: "some invoice settled with a discount",
  maxDiscountReached: "some invoice reached its maximum discount",
  fastPathFilled: "some fast-path intent was filled by a solver",
  swapFilled: "some swap intent was filled",
  xerc20Settled: "some xERC20 intent was settled by mint",
  xerc20MintDebt: "some xERC20 mint exceeded the limit and was recorded as debt",
  xerc20DebtMinted: "some xERC20 debt was minted later",
  expiredIntentHandled: "some unfilled fast-path intent expired to the slow path",
  arbitragePurchase: "some arbitrageur bought an invoice",
  transportFaultInjected: "the transport dropped, duplicated, reordered or held a message, or retried one the paused hub refused",
  unsupportedReturned: "some unsupported intent was returned",
} as const
export type CoverageName = keyof typeof COVERAGE_PREDICATES

/**
 * The settled share `part / whole` of two counts (`settledShare`, `population.<N>.settledShare`,
 * `asset.<S>.settledShare`) to 6 decimals, truncated, in integers as the netting ratio is (`ratioOf`): 41 of 80 is
 * 0.5125, 2 of 3 0.666666, with no floating-point product to lose or gain a last digit; 0 when `whole` is 0. Applied
 * once, where a share is made (the collector's epochs, `metricsOf`): properties, baselines and runs.json take it as is.
 */
export const shareOf = (part: number, whole: number): number =>
  whole === 0 ? 0 : Number((BigInt(part) * 1_000_000n) / BigInt(whole)) / 1_000_000

/** What the per-epoch property checks read: a metric's value in each epoch that has one (the collector's `epochValues`). */
export interface EpochValues {
  /** Calls `visit` with each epoch that has a value of `metric` and that value, in epoch order. */
  forEachValue(metric: string, visit: (epoch: number, value: number) => void): void
}

/** The epoch values of per-epoch snapshots (epoch, metric values), in their order. */
export const snapshotValues = (snapshots: readonly { readonly epoch: number; readonly metrics: ReadonlyMap<string, number> }[]): EpochValues => ({
  forEachValue: (metric, visit) => {
    for (const s of snapshots) {
      const v = s.metrics.get(metric)
      if (v !== undefined) visit(s.epoch, v)
    }
  },
})

/**
 * Evaluates every property. `metrics` maps metric names to final values; `epochs` gives each metric's value per
 * epoch, in epoch order (a list of snapshots: epoch and metric values); `coverage` the predicates the run
 * satisfied. Values are judged as given (settled shares come to 6 decimals from where they are made, `shareOf`).
 */
export const evaluateProperties = (
  specs: readonly PropertySpec[],
  metrics: ReadonlyMap<string, number>,
  epochs: EpochValues | readonly { readonly epoch: number; readonly metrics: ReadonlyMap<string, number> }[],
  coverage: ReadonlySet<string>,
  knownMetrics: readonly string[] = [...metrics.keys()],
): PropertyResult[] =>
  specs.map((spec) => {
    if (typeof spec !== "string") {
      const known = Object.hasOwn(COVERAGE_PREDICATES, spec.coverage)
      if (!known) return { name: `coverage: ${spec.coverage}`, pass: false, reason: `unknown coverage predicate (known: ${Object.keys(COVERAGE_PREDICATES).join(", ")})` }
      const pass = coverage.has(spec.coverage)
      return pass
        ? { name: `coverage: ${spec.coverage}`, pass }
        : { name: `coverage: ${spec.coverage}`, pass, reason: `never happened: ${COVERAGE_PREDICATES[spec.coverage as CoverageName]}` }
    }
    const c = parseComparison(spec)
    const name = `${c.metric} ${c.op} ${c.threshold}`
    const value = metrics.get(c.metric)
    if (value === undefined) {
      return knownMetrics.includes(c.metric)
        ? { name, pass: false, reason: `no samples: the run produced no value for ${c.metric}` }
        : { name, pass: false, reason: `unknown metric ${c.metric} (known: ${knownMetrics.join(", ")})` }
    }
    const pass = OPS[c.op](value, c.threshold)
    if (pass) return { name, pass, value }
    // The failing stretch that reaches the end: a passing epoch ends any stretch before it; epochs without a value neither.
    let since: number | undefined
    const op = OPS[c.op]
    const values = "forEachValue" in epochs ? epochs : snapshotValues(epochs)
    values.forEachValue(c.metric, (epoch, v) => {
      if (op(v, c.threshold)) since = undefined
      else since ??= epoch
    })
    return since === undefined ? { name, pass, value } : { name, pass, value, firstFailingEpoch: since }
  })
