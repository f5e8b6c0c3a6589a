/**
 * Latency distributions of the simulated transport, in seconds. Sampling takes a uniform source so that the
 * transport never owns randomness: the simulator passes its seeded stream.
 */
import * as Schema from "effect/Schema"

/** Anything that gives uniform floats in [0, 1) (the simulator's seeded `Rng`). */
export interface UniformSource {
  float(): number
}

/** The most seconds a latency or transport delay may be: about 31,700 years, far past any horizon, still finite in milliseconds. */
export const MAX_TRANSPORT_SECONDS = 1e12

/** Seconds of a latency or transport delay: finite, from 0 to MAX_TRANSPORT_SECONDS (times in milliseconds stay finite). */
export const TransportSeconds = Schema.Finite.check(
  Schema.isBetween({ minimum: 0, maximum: MAX_TRANSPORT_SECONDS }, { expected: `a number of seconds from 0 to ${MAX_TRANSPORT_SECONDS.toExponential()}` }),
)
const NonNegative = TransportSeconds
/** Lognormal shape: a larger σ would draw latencies that overflow (e^(σ·8.6) past 10^308). */
const Sigma = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 20 }, { expected: "a shape σ between 0 and 20" }))
const Probability = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }, { expected: "a probability between 0 and 1" }))

/** What an empirical latency's points must be; the JSON Schema checks all but their order, which it cannot compare. */
const EMPIRICAL_QUANTILES_DESCRIPTION =
  "observed points of the delay: at least two, the first at q 0 and the last at q 1, q strictly increasing and seconds non-decreasing from one point to the next " +
  "(the loader checks the order; an editor's JSON Schema cannot compare two points, so it only checks the count, the first and the point at q 1)"

export const LatencySpec = Schema.Union([
  Schema.Struct({ kind: Schema.Literal("fixed").annotate({ description: "always the same delay" }), seconds: NonNegative.annotate({ description: "the delay, seconds" }) }),
  Schema.Struct({
    kind: Schema.Literal("uniform").annotate({ description: "a delay drawn uniformly between two bounds" }),
    minSeconds: NonNegative.annotate({ description: "the shortest delay, seconds" }),
    maxSeconds: NonNegative.annotate({ description: "the longest delay, seconds (at least minSeconds)" }),
  }),
  /** Lognormal with a median and shape σ (heavy right tail, like real relayers). */
  Schema.Struct({
    kind: Schema.Literal("lognormal").annotate({ description: "a delay drawn from a lognormal distribution (a heavy right tail)" }),
    medianSeconds: NonNegative.annotate({ description: "the median delay, seconds" }),
    sigma: Sigma.annotate({ description: "the shape σ, 0 to 20 (0: every delay is the median)" }),
    maxSeconds: Schema.optionalKey(NonNegative.annotate({ description: "a cap on the delay, seconds (default: none)" })),
  }),
  /** Piecewise-linear inverse CDF through observed quantiles, e.g. [{q:0,seconds:20},{q:0.5,seconds:60},{q:1,seconds:600}]. */
  Schema.Struct({
    kind: Schema.Literal("empirical").annotate({ description: "a delay interpolated between observed quantiles" }),
    quantiles: Schema.Array(
      Schema.Struct({ q: Probability.annotate({ description: "the quantile, 0 to 1" }), seconds: NonNegative.annotate({ description: "the delay at that quantile, seconds" }) }),
    )
      .annotate({ description: EMPIRICAL_QUANTILES_DESCRIPTION })
      .check(
        Schema.makeFilter(
          (qs: readonly { q: number; seconds: number }[]) =>
            qs.length >= 2 &&
            qs[0]!.q === 0 &&
            qs.at(-1)!.q === 1 &&
            qs.every((p, i) => i === 0 || (p.q > qs[i - 1]!.q && p.seconds >= qs[i - 1]!.seconds)),
          {
            expected: "at least two points, q from 0 to 1 strictly increasing, seconds non-decreasing",
            // What JSON Schema can say of the rule, for editors: two points or more, the first at q 0, one at q 1 (the
            // last, once the points increase); the order between points it cannot compare, so the description says it.
            toJsonSchema: () => ({
              minItems: 2,
              prefixItems: [{ properties: { q: { const: 0 } } }],
              contains: { properties: { q: { const: 1 } }, required: ["q"] },
              maxContains: 1,
            }),
          },
        ),
      ),
  }),
])
export type LatencySpec = typeof LatencySpec.Type

const standardNormal = (source: UniformSource): number => {
  const u = 1 - source.float()
  const v = source.float()
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
}

/** One latency sample in seconds. */
export const sampleLatencySeconds = (spec: LatencySpec, source: UniformSource): number => {
  switch (spec.kind) {
    case "fixed":
      return spec.seconds
    case "uniform":
      return spec.minSeconds + (spec.maxSeconds - spec.minSeconds) * source.float()
    case "lognormal": {
      const x = spec.medianSeconds * Math.exp(spec.sigma * standardNormal(source))
      return spec.maxSeconds === undefined ? x : Math.min(x, spec.maxSeconds)
    }
    case "empirical": {
      const u = source.float()
      const qs = spec.quantiles
      for (let i = 1; i < qs.length; i++) {
        const hi = qs[i]!
        if (u <= hi.q) {
          const lo = qs[i - 1]!
          return lo.seconds + ((u - lo.q) / (hi.q - lo.q)) * (hi.seconds - lo.seconds)
        }
      }
      return qs.at(-1)!.seconds
    }
  }
}
