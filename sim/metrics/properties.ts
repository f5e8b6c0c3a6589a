/**
 * Scenario properties: comparisons of a metric with a number (`nettingRatio >= 0.5`,
 * `latency.p99 <= 3600`) and coverage predicates (`{ coverage: maxDiscountReached }`) proving that a
 * green run exercised what matters. Evaluated on the final metrics and on every epoch's snapshot, so a failure
 * names the first epoch where it failed.
 */

export type PropertySpec = string | { readonly coverage: string }

export interface PropertyResult {
  readonly name: string
  readonly pass: boolean
  /** Final value of the metric (comparisons). */
  readonly value?: number
  /** First epoch whose snapshot failed the property (comparisons evaluated per epoch), if any. */
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
 * Evaluates every property. `metrics` maps metric names to final values; `epochs` gives per-epoch snapshots
 * (epoch, metric values) in order; `coverage` the predicates the run satisfied.
 */
export const evaluateProperties = (
  specs: readonly PropertySpec[],
  metrics: ReadonlyMap<string, number>,
  epochs: readonly { readonly epoch: number; readonly metrics: ReadonlyMap<string, number> }[],
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
    const first = epochs.find((e) => {
      const v = e.metrics.get(c.metric)
      return v !== undefined && !OPS[c.op](v, c.threshold)
    })
    return first === undefined ? { name, pass, value } : { name, pass, value, firstFailingEpoch: first.epoch }
  })
