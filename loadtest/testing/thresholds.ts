/**
 * Test-only: evaluates k6 threshold expressions, in the forms the profiles write (`p(95)<100`, `rate<0.01`,
 * `rate==1`), on what the k6 shim recorded, as k6 computes them: `http_req_failed` is the share of requests
 * whose status the request's callback did not expect, `checks` the share of passed checks, a sub-metric
 * `{tag:value}` keeps the samples with that tag, and `p(N)` interpolates linearly between sorted samples.
 */
import type { ThresholdExpression } from "../lib/profiles.ts"
import type { RecordedCheck, RecordedRate, RecordedRequest } from "./k6shim/state.ts"

export interface ThresholdResult {
  readonly metric: string
  readonly expression: string
  readonly value: number
  readonly pass: boolean
}

const percentile = (sorted: readonly number[], p: number): number => {
  if (sorted.length === 0) return 0
  const rank = (p / 100) * (sorted.length - 1)
  const low = Math.floor(rank)
  const high = Math.ceil(rank)
  return sorted[low]! + (sorted[high]! - sorted[low]!) * (rank - low)
}

const compare = (value: number, op: string, bound: number): boolean => {
  switch (op) {
    case "<":
      return value < bound
    case "<=":
      return value <= bound
    case ">":
      return value > bound
    case ">=":
      return value >= bound
    case "==":
    case "===":
      return value === bound
    case "!=":
      return value !== bound
    default:
      throw new Error(`unknown operator ${op}`)
  }
}

export const evaluateThresholds = (
  thresholds: Readonly<Record<string, readonly ThresholdExpression[]>>,
  requests: readonly RecordedRequest[],
  checks: readonly RecordedCheck[],
  rates: readonly RecordedRate[] = [],
): ThresholdResult[] => {
  const results: ThresholdResult[] = []
  for (const key of Object.keys(thresholds)) {
    const m = /^([a-z_]+)(?:\{([a-z_]+):([^}]+)\})?$/.exec(key)
    if (m === null) throw new Error(`not a metric: ${key}`)
    const [, metric, tag, tagValue] = m
    const selected = tag === undefined ? requests : requests.filter((r) => r.tags[tag] === tagValue)
    for (const t of thresholds[key]!) {
      const expression = typeof t === "string" ? t : t.threshold
      const e = /^(p\(([0-9.]+)\)|rate)\s*(<=|>=|===|==|!=|<|>)\s*([0-9.]+)$/.exec(expression)
      if (e === null) throw new Error(`not a threshold expression: ${expression}`)
      const [, stat, p, op, bound] = e
      let value: number
      if (metric === "http_req_duration" && p !== undefined) value = percentile(selected.map((r) => r.durationMs).sort((a, b) => a - b), Number(p))
      else if (metric === "http_req_failed" && stat === "rate") value = selected.filter((r) => !r.expected).length / Math.max(1, selected.length)
      else if (metric === "checks" && stat === "rate" && tag === undefined) value = checks.filter((c) => c.pass).length / Math.max(1, checks.length)
      else if (stat === "rate" && tag === undefined && rates.some((r) => r.metric === metric)) {
        // A custom `Rate` metric (k6/metrics): the share of true samples.
        const these = rates.filter((r) => r.metric === metric)
        value = these.filter((r) => r.value).length / these.length
      }
      else if (stat === "rate" && tag === undefined && !["http_req_duration", "http_req_failed", "checks"].includes(metric!)) throw new Error(`no samples of the metric ${key}`)
      else throw new Error(`unsupported threshold ${key}: ${expression}`)
      results.push({ metric: key, expression, value, pass: compare(value, op!, Number(bound)) })
    }
  }
  return results
}
