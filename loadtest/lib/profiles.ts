/**
 * Profiles (`__ENV.PROFILE`): which executor drives a script and which thresholds gate its exit code. k6 exits
 * 99 when a threshold fails, so CI fails on latency (p95 and p99 per endpoint group), on the share of failed
 * requests and on the share of failed checks. Plain TypeScript: the k6 glue passes `options` through as k6's
 * `Options` (which typechecks the structure), the tests read the same object.
 */
import type { Script } from "./flows.ts"
import { API_GROUPS, type ApiGroup } from "./requests.ts"

export type Profile = "smoke" | "load" | "stress" | "soak"
export const PROFILES: readonly Profile[] = ["smoke", "load", "stress", "soak"]

export type Env = Readonly<Record<string, string | undefined>>

export const DEFAULT_BASE_URL = "http://127.0.0.1:8080"

// ---------------------------------------------------------------------------------------------------------
// Executors (the subset of k6's scenario options used here)

export interface SharedIterations {
  readonly executor: "shared-iterations"
  readonly vus: number
  readonly iterations: number
  readonly maxDuration: string
}
export interface ConstantArrivalRate {
  readonly executor: "constant-arrival-rate"
  readonly rate: number
  readonly timeUnit: string
  readonly duration: string
  readonly preAllocatedVUs: number
  readonly maxVUs: number
}
export interface RampingVus {
  readonly executor: "ramping-vus"
  readonly startVUs: number
  readonly stages: { readonly duration: string; readonly target: number }[]
  readonly gracefulRampDown: string
}
export type Executor = SharedIterations | ConstantArrivalRate | RampingVus

// ---------------------------------------------------------------------------------------------------------
// Thresholds

export interface Latency {
  /** Milliseconds. */
  readonly p95: number
  readonly p99: number
}

export interface ProfileThresholds {
  readonly latency: Readonly<Record<ApiGroup, Latency>>
  /** Largest share of failed requests (`http_req_failed`: an unexpected status or a transport error). */
  readonly maxFailedRate: number
  /** Smallest share of passed checks. */
  readonly minCheckRate: number
  /** Stop the run as soon as the failure thresholds fail (after `delayAbortEval`). */
  readonly abortOnFail?: { readonly delayAbortEval: string }
}

export const THRESHOLDS: Readonly<Record<Profile, ProfileThresholds>> = {
  // "Does everything answer correctly": no failure at all, latency bounds loose enough for a cold server.
  smoke: {
    latency: { read: { p95: 500, p99: 1000 }, quote: { p95: 500, p99: 1000 }, intent: { p95: 1000, p99: 2000 } },
    maxFailedRate: 0,
    minCheckRate: 1,
  },
  load: {
    latency: { read: { p95: 100, p99: 250 }, quote: { p95: 150, p99: 300 }, intent: { p95: 250, p99: 500 } },
    maxFailedRate: 0.01,
    minCheckRate: 0.99,
  },
  // Past the knee latency grows by design; the gate is that the API keeps answering correctly.
  stress: {
    latency: { read: { p95: 1000, p99: 2000 }, quote: { p95: 1500, p99: 3000 }, intent: { p95: 2000, p99: 4000 } },
    maxFailedRate: 0.05,
    minCheckRate: 0.95,
  },
  // Same bounds as load, held for hours; a soak that starts failing stops early instead of running on.
  soak: {
    latency: { read: { p95: 100, p99: 250 }, quote: { p95: 150, p99: 300 }, intent: { p95: 250, p99: 500 } },
    maxFailedRate: 0.01,
    minCheckRate: 0.99,
    abortOnFail: { delayAbortEval: "5m" },
  },
}

/** Endpoint groups each script sends (its latency thresholds). */
export const GROUPS_OF: Readonly<Record<Script, readonly ApiGroup[]>> = {
  reads: ["read"],
  quotes: ["quote"],
  intents: ["quote", "intent"],
  mixed: API_GROUPS,
}

/** Iterations per second of the load profile (the soak runs at half). An iteration is 1 to 3 requests. */
export const LOAD_RATE: Readonly<Record<Script, number>> = { reads: 200, quotes: 100, intents: 40, mixed: 150 }

/**
 * The `Rate` metric each iteration adds to: true when its flow ran to its end, false when it threw. A metric of its
 * own, not a check, so that it does not weigh in the `checks` rate.
 */
export const ITERATIONS_COMPLETED = "iterations_completed"

export type ThresholdExpression = string | { readonly threshold: string; readonly abortOnFail: boolean; readonly delayAbortEval: string }

/** k6 threshold expressions, by metric: `http_req_duration{api:read}: ["p(95)<100", "p(99)<250"]`, and so on. */
export const thresholdsFor = (profile: Profile, script: Script): Record<string, ThresholdExpression[]> => {
  const t = THRESHOLDS[profile]
  const gate = (threshold: string): ThresholdExpression => (t.abortOnFail === undefined ? threshold : { threshold, abortOnFail: true, delayAbortEval: t.abortOnFail.delayAbortEval })
  const out: Record<string, ThresholdExpression[]> = {
    http_req_failed: [gate(t.maxFailedRate === 0 ? "rate==0" : `rate<${t.maxFailedRate}`)],
    checks: [gate(t.minCheckRate === 1 ? "rate==1" : `rate>${t.minCheckRate}`)],
    // An iteration that threw (k6 logs it and goes on) fails the run whatever the checks say.
    [ITERATIONS_COMPLETED]: [gate("rate==1")],
  }
  for (const group of GROUPS_OF[script]) {
    const { p95, p99 } = t.latency[group]
    out[`http_req_duration{api:${group}}`] = [`p(95)<${p95}`, `p(99)<${p99}`]
  }
  return out
}

// ---------------------------------------------------------------------------------------------------------
// Configuration from the environment

export class ConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "ConfigError"
  }
}

const positive = (env: Env, name: string, fallback: number): number => {
  const raw = env[name]
  if (raw === undefined || raw === "") return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n <= 0) throw new ConfigError(`${name}: expected a positive integer, got ${JSON.stringify(raw)}`)
  return n
}

const duration = (env: Env, name: string, fallback: string): string => {
  const raw = env[name]
  if (raw === undefined || raw === "") return fallback
  if (!/^([0-9]+(ms|s|m|h))+$/.test(raw)) throw new ConfigError(`${name}: expected a k6 duration such as 30s, 5m or 1h30m, got ${JSON.stringify(raw)}`)
  return raw
}

export const profileOf = (env: Env): Profile => {
  const raw = env["PROFILE"] ?? "smoke"
  if (!(PROFILES as readonly string[]).includes(raw)) throw new ConfigError(`PROFILE: expected one of ${PROFILES.join(", ")}, got ${JSON.stringify(raw)}`)
  return raw as Profile
}

/**
 * The executor of `profile` for `script`. Environment overrides: ITERATIONS and VUS (smoke), RATE, DURATION
 * and VUS (load, soak: VUS is the most VUs the arrival rate may use), VUS (stress: the peak).
 */
export const executorFor = (profile: Profile, script: Script, env: Env): Executor => {
  switch (profile) {
    case "smoke":
      return { executor: "shared-iterations", vus: positive(env, "VUS", 2), iterations: positive(env, "ITERATIONS", 50), maxDuration: duration(env, "DURATION", "2m") }
    case "load":
    case "soak": {
      const rate = positive(env, "RATE", profile === "load" ? LOAD_RATE[script] : Math.ceil(LOAD_RATE[script] / 2))
      const maxVUs = positive(env, "VUS", Math.max(50, rate))
      return {
        executor: "constant-arrival-rate",
        rate,
        timeUnit: "1s",
        duration: duration(env, "DURATION", profile === "load" ? "5m" : "2h"),
        preAllocatedVUs: Math.min(maxVUs, Math.max(10, Math.ceil(rate / 10))),
        maxVUs,
      }
    }
    case "stress": {
      const peak = positive(env, "VUS", 200)
      return {
        executor: "ramping-vus",
        startVUs: 0,
        stages: [
          { duration: "1m", target: Math.max(1, Math.round(peak / 10)) },
          { duration: "2m", target: Math.max(1, Math.round(peak / 4)) },
          { duration: "2m", target: Math.max(1, Math.round(peak / 2)) },
          { duration: "2m", target: peak },
          { duration: "1m", target: 0 },
        ],
        gracefulRampDown: "30s",
      }
    }
  }
}

export interface LoadOptions {
  readonly scenarios: Readonly<Record<string, Executor & { readonly tags: Readonly<Record<string, string>> }>>
  readonly thresholds: Record<string, ThresholdExpression[]>
  readonly summaryTrendStats: string[]
  readonly setupTimeout: string
  readonly systemTags: string[]
}

/**
 * k6's default system tags but `url`: the `name` tag already groups a request by endpoint, and the URL of each
 * random id, cursor or date would make a time series of its own (thousands over a soak).
 */
export const SYSTEM_TAGS = ["proto", "subproto", "status", "method", "name", "group", "check", "error", "error_code", "tls_version", "scenario", "service", "expected_response"]

/** k6 `options` of `script` under the profile of `env`. */
export const optionsFor = (script: Script, env: Env): LoadOptions => {
  const profile = profileOf(env)
  return {
    scenarios: { [script]: { ...executorFor(profile, script, env), tags: { profile } } },
    thresholds: thresholdsFor(profile, script),
    summaryTrendStats: ["avg", "min", "med", "max", "p(90)", "p(95)", "p(99)"],
    setupTimeout: "60s",
    systemTags: SYSTEM_TAGS,
  }
}

/**
 * Seconds a VU waits after each iteration. Only the closed model (stress's ramping VUs) thinks: each VU is a
 * client polling the API; under an arrival rate the executor sets the pace.
 */
export const THINK_SECONDS: Readonly<Record<Profile, number>> = { smoke: 0, load: 0, stress: 0.1, soak: 0 }

export interface RunConfig {
  readonly profile: Profile
  readonly baseUrl: string
  /** Seed of the traffic: the same seed, VU and iteration give the same requests. */
  readonly seed: number
  readonly thinkSeconds: number
}

/** BASE_URL (default http://127.0.0.1:8080), PROFILE (default smoke), SEED (default 1), THINK_TIME (seconds). */
export const runConfigOf = (env: Env): RunConfig => {
  const baseUrl = (env["BASE_URL"] ?? DEFAULT_BASE_URL).replace(/\/+$/, "")
  if (!/^https?:\/\/[^/]+/.test(baseUrl)) throw new ConfigError(`BASE_URL: expected an http(s) URL such as ${DEFAULT_BASE_URL}, got ${JSON.stringify(env["BASE_URL"])}`)
  const profile = profileOf(env)
  const think = env["THINK_TIME"]
  const thinkSeconds = think === undefined || think === "" ? THINK_SECONDS[profile] : Number(think)
  if (!Number.isFinite(thinkSeconds) || thinkSeconds < 0) throw new ConfigError(`THINK_TIME: expected a number of seconds, got ${JSON.stringify(think)}`)
  return { profile, baseUrl, seed: positive(env, "SEED", 1), thinkSeconds }
}
