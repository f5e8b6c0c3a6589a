/**
 * Test-only: the module `k6/http` for the scripts run by the tests. Requests are synchronous, as in k6: the VU
 * thread posts the request to the main thread, which sends it with fetch to the real server, and blocks on an
 * Atomics wait until the answer is back. Responses have k6's members (status, body as text, canonical header
 * names, timings, error); `expectedStatuses` and per-request `responseCallback` decide `http_req_failed`.
 */
import { canonicalHeader } from "../drive.ts"
import { shimState } from "./state.ts"

interface ExpectedStatuses {
  readonly expects: (status: number) => boolean
}

export const expectedStatuses = (...statuses: (number | { min: number; max: number })[]): ExpectedStatuses => ({
  expects: (status) => statuses.some((s) => (typeof s === "number" ? s === status : status >= s.min && status <= s.max)),
})

const DEFAULT_EXPECTED = expectedStatuses({ min: 200, max: 399 })

interface Params {
  readonly headers?: Record<string, string>
  readonly tags?: Record<string, string>
  readonly responseCallback?: ExpectedStatuses
}

export const request = (method: string, url: string, body?: string | null, params: Params = {}) => {
  if (body !== undefined && body !== null && typeof body !== "string") throw new Error("the k6 shim sends string bodies only")
  const state = shimState()
  if (state.throwAtRequest === state.requests.length) {
    delete state.throwAtRequest
    throw new Error(`the k6 shim throws at request ${state.requests.length}, as asked`)
  }
  const answer = state.transport({ method, url, body: body ?? null, headers: params.headers ?? {} })
  const headers: Record<string, string> = {}
  for (const name of Object.keys(answer.headers)) headers[canonicalHeader(name)] = answer.headers[name]!
  const expected = (params.responseCallback ?? DEFAULT_EXPECTED).expects(answer.status)
  state.requests.push({ method, url, status: answer.status, tags: { ...params.tags }, expected, durationMs: answer.durationMs, group: state.group })
  return {
    status: answer.status,
    body: answer.error === undefined ? answer.body : null,
    headers,
    url,
    request: { method, url, body: body ?? "", headers: params.headers ?? {} },
    timings: { duration: answer.durationMs },
    error: answer.error ?? "",
    error_code: answer.error === undefined ? 0 : 1000,
    json: () => JSON.parse(answer.body) as unknown,
  }
}

export const get = (url: string, params?: Params) => request("GET", url, null, params)
export const post = (url: string, body?: string | null, params?: Params) => request("POST", url, body, params)

export default { request, get, post, expectedStatuses }
