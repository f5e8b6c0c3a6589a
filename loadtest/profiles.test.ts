/** Profiles: executors per profile, thresholds per endpoint group, and the environment's overrides. */
import { describe, expect, it } from "vitest"
import { SCRIPTS } from "./lib/flows.ts"
import { ConfigError, executorFor, LOAD_RATE, optionsFor, PROFILES, runConfigOf, thresholdsFor } from "./lib/profiles.ts"
import { between, iterationRandom, mulberry32, weighted } from "./lib/random.ts"

describe("profiles", () => {
  it("smoke runs a fixed number of iterations, load and soak an arrival rate, stress ramps VUs up and down", () => {
    expect(executorFor("smoke", "mixed", {})).toEqual({ executor: "shared-iterations", vus: 2, iterations: 50, maxDuration: "2m" })
    expect(executorFor("load", "reads", {})).toEqual({ executor: "constant-arrival-rate", rate: 200, timeUnit: "1s", duration: "5m", preAllocatedVUs: 20, maxVUs: 200 })
    expect(executorFor("soak", "mixed", {})).toMatchObject({ executor: "constant-arrival-rate", rate: LOAD_RATE.mixed / 2, duration: "2h" })
    expect(executorFor("stress", "mixed", {})).toMatchObject({
      executor: "ramping-vus",
      startVUs: 0,
      stages: [
        { duration: "1m", target: 20 },
        { duration: "2m", target: 50 },
        { duration: "2m", target: 100 },
        { duration: "2m", target: 200 },
        { duration: "1m", target: 0 },
      ],
    })
  })

  it("the environment overrides rate, duration, VUs and iterations, and rejects nonsense with the variable's name", () => {
    expect(executorFor("load", "mixed", { RATE: "500", DURATION: "1h30m", VUS: "300" })).toMatchObject({ rate: 500, duration: "1h30m", maxVUs: 300, preAllocatedVUs: 50 })
    expect(executorFor("smoke", "reads", { ITERATIONS: "5", VUS: "1" })).toMatchObject({ iterations: 5, vus: 1 })
    expect(() => executorFor("load", "mixed", { RATE: "fast" })).toThrow(new ConfigError('RATE: expected a positive integer, got "fast"'))
    expect(() => executorFor("load", "mixed", { DURATION: "5 minutes" })).toThrow(/DURATION: expected a k6 duration/)
    expect(() => optionsFor("mixed", { PROFILE: "spike" })).toThrow(/PROFILE: expected one of smoke, load, stress, soak/)
    expect(() => runConfigOf({ BASE_URL: "localhost:8080" })).toThrow(/BASE_URL: expected an http\(s\) URL/)
    expect(runConfigOf({})).toEqual({ profile: "smoke", baseUrl: "http://127.0.0.1:8080", seed: 1, thinkSeconds: 0 })
    expect(runConfigOf({ BASE_URL: "http://h:1/", PROFILE: "stress", SEED: "9" })).toEqual({ profile: "stress", baseUrl: "http://h:1", seed: 9, thinkSeconds: 0.1 })
  })

  it("preallocated VUs: a tenth of the rate rounded up, at least 10, never more than the VUs allowed", () => {
    expect(executorFor("load", "intents", {})).toMatchObject({ rate: 40, maxVUs: 50, preAllocatedVUs: 10 })
    expect(executorFor("load", "mixed", { RATE: "155" })).toMatchObject({ rate: 155, maxVUs: 155, preAllocatedVUs: 16 })
    // k6 refuses a scenario whose preAllocatedVUs exceed its maxVUs.
    expect(executorFor("load", "reads", { VUS: "5" })).toMatchObject({ rate: 200, maxVUs: 5, preAllocatedVUs: 5 })
  })

  it("a rate of 0 and a duration with a trailing number are refused; a stress peak of 1 VU ramps through 1 VU, not 0", () => {
    expect(() => executorFor("load", "mixed", { RATE: "0" })).toThrow(new ConfigError('RATE: expected a positive integer, got "0"'))
    expect(() => executorFor("soak", "mixed", { DURATION: "5m30" })).toThrow(/DURATION: expected a k6 duration/)
    expect((executorFor("stress", "mixed", { VUS: "1" }) as { stages: { target: number }[] }).stages.map((s) => s.target)).toEqual([1, 1, 1, 1, 0])
  })

  it("thresholds: p95 and p99 per endpoint group the script sends, failed requests and checks; soak aborts early", () => {
    expect(thresholdsFor("load", "mixed")).toEqual({
      http_req_failed: ["rate<0.01"],
      checks: ["rate>0.99"],
      iterations_completed: ["rate==1"],
      "http_req_duration{api:read}": ["p(95)<100", "p(99)<250"],
      "http_req_duration{api:quote}": ["p(95)<150", "p(99)<300"],
      "http_req_duration{api:intent}": ["p(95)<250", "p(99)<500"],
    })
    expect(Object.keys(thresholdsFor("smoke", "reads"))).toEqual(["http_req_failed", "checks", "iterations_completed", "http_req_duration{api:read}"])
    expect(thresholdsFor("smoke", "intents")).toMatchObject({ http_req_failed: ["rate==0"], checks: ["rate==1"] })
    // Soak: failed requests, checks and iterations that threw all abort the run (latency does not).
    const abort = (threshold: string) => ({ threshold, abortOnFail: true, delayAbortEval: "5m" })
    expect(thresholdsFor("soak", "quotes")).toEqual({
      http_req_failed: [abort("rate<0.01")],
      checks: [abort("rate>0.99")],
      iterations_completed: [abort("rate==1")],
      "http_req_duration{api:quote}": ["p(95)<150", "p(99)<300"],
    })
    for (const profile of PROFILES) for (const script of SCRIPTS) expect(Object.keys(optionsFor(script, { PROFILE: profile }).scenarios)).toEqual([script])
    // k6's default system tags but url (one time series per random id otherwise).
    expect(optionsFor("reads", {}).systemTags).toContain("name")
    expect(optionsFor("reads", {}).systemTags).not.toContain("url")
  })
})

describe("random", () => {
  it("the same seed, VU and iteration give the same stream; others differ", () => {
    const a = iterationRandom(1, 2, 3)
    const b = iterationRandom(1, 2, 3)
    const c = iterationRandom(1, 2, 4)
    const xs = [a(), a(), a()]
    expect([b(), b(), b()]).toEqual(xs)
    expect(c()).not.toBe(xs[0])
    // Another VU, or another seed, is another stream: VUs do not all send the same requests.
    expect(iterationRandom(1, 3, 3)()).not.toBe(xs[0])
    expect(iterationRandom(2, 2, 3)()).not.toBe(xs[0])
  })

  it("between draws every integer of [min, max], both ends included", () => {
    const random = mulberry32(3)
    const drawn = new Set<number>()
    for (let i = 0; i < 1_000; i++) drawn.add(between(random, 2, 5))
    expect([...drawn].sort()).toEqual([2, 3, 4, 5])
  })

  it("weighted choices follow their weights", () => {
    const random = mulberry32(42)
    const counts = { a: 0, b: 0, c: 0 }
    for (let i = 0; i < 20_000; i++) counts[weighted(random, { a: 70, b: 20, c: 10 })]++
    expect(counts.a / 20_000).toBeCloseTo(0.7, 1)
    expect(counts.b / 20_000).toBeCloseTo(0.2, 1)
    expect(counts.c / 20_000).toBeCloseTo(0.1, 1)
    expect(weighted(random, { a: 0, b: 1 })).toBe("b")
    // A negative weight is never chosen and takes nothing from the others.
    const chosen = new Set<string>()
    for (let i = 0; i < 1_000; i++) chosen.add(weighted(random, { a: 2, b: -1, c: 1 }))
    expect([...chosen].sort()).toEqual(["a", "c"])
  })
})
