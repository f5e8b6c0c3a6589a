/**
 * The k6 glue, the only module that imports k6: it sends the lib's `RequestSpec`s with `k6/http` (tagged with
 * the endpoint's `name` and its `api` group, with the statuses it expects), runs their checks with `check`, and
 * drives the flows synchronously, as k6 VUs do. Everything else is in `../lib`, tested with Node.
 */
import { check, group, sleep } from "k6"
import http from "k6/http"
import { Rate } from "k6/metrics"
import type { Options } from "k6/options"
import { failedChecks, type ResponseLike } from "../lib/checks.ts"
import { collectSetupData, type SetupData, SetupError } from "../lib/data.ts"
import { flowOf, type Script } from "../lib/flows.ts"
import { ITERATIONS_COMPLETED, optionsFor, runConfigOf } from "../lib/profiles.ts"
import { iterationRandom } from "../lib/random.ts"
import type { RequestSpec } from "../lib/requests.ts"

declare const console: { warn(...args: unknown[]): void }

const config = runConfigOf(__ENV)

/** The `options` export of a script: its profile's executor and thresholds. */
export const k6Options = (script: Script): Options => optionsFor(script, __ENV)

const callbacks: Record<string, ReturnType<typeof http.expectedStatuses>> = {}
const JSON_HEADERS = { "Content-Type": "application/json" }

/** Failed checks are logged for the first few requests of each VU, with the response's start. */
const MAX_REPORTS = 10
let reports = 0

/** While `setup()` runs: its requests are tagged `api: setup`, out of the traffic's latency thresholds. */
let inSetup = false

const send = (spec: RequestSpec): ResponseLike => {
  const key = spec.expect.join(",")
  const responseCallback = callbacks[key] ?? (callbacks[key] = http.expectedStatuses(...spec.expect))
  const tags = { name: spec.name, api: inSetup ? "setup" : spec.api }
  const response = http.request(spec.method, `${config.baseUrl}${spec.path}`, spec.body ?? null, {
    headers: spec.body === undefined ? {} : JSON_HEADERS,
    tags,
    responseCallback,
  })
  if (!check(response, spec.checks, tags) && reports++ < MAX_REPORTS) {
    const body = typeof response.body === "string" ? response.body.slice(0, 300) : ""
    console.warn(`${spec.method} ${spec.path} -> ${response.status}: failed ${failedChecks(spec.checks, response).join("; ")}. Body: ${body}`)
  }
  return response
}

/** Runs a flow to its end, answering each request it yields. */
const drive = <T>(flow: Generator<RequestSpec, T, ResponseLike>): T => {
  let step = flow.next()
  while (step.done !== true) step = flow.next(send(step.value))
  return step.value
}

/** `setup()`: what the traffic is built from, read from the API. */
export const runSetup = (): SetupData => {
  inSetup = true
  try {
    return drive(collectSetupData())
  } catch (error) {
    if (error instanceof SetupError) {
      throw new Error(`setup: ${error.message}. Is the clearsim API up at ${config.baseUrl}? Start it with "npm run up" in another terminal, or set BASE_URL.`)
    }
    throw error
  } finally {
    inSetup = false
  }
}

const iterationsCompleted = new Rate(ITERATIONS_COMPLETED)

/**
 * The default function: one iteration of `script`'s flow, then the profile's think time. Whether the flow ran to
 * its end goes to a metric of its own (`ITERATIONS_COMPLETED`, gated at rate 1): k6 logs an exception thrown in an
 * iteration and goes on, which no request failure or check would show.
 */
export const runIteration = (script: Script, data: SetupData): void => {
  let completed = false
  try {
    group(script, () => drive(flowOf(script, data, iterationRandom(config.seed, __VU, __ITER))))
    completed = true
  } finally {
    iterationsCompleted.add(completed)
  }
  if (config.thinkSeconds > 0) sleep(config.thinkSeconds)
}
