/**
 * Test-only: what the k6 shim records, kept on `globalThis` because each shim module (`k6`, `k6/http`) is
 * bundled on its own, as k6's modules are separate. The VU worker (`../k6vu.ts`) creates it.
 */

/** A request as the main thread receives it (the worker blocks until the answer). */
export interface WireRequest {
  readonly method: string
  readonly url: string
  readonly body: string | null
  readonly headers: Readonly<Record<string, string>>
}

export interface WireResponse {
  readonly status: number
  readonly body: string
  /** Lower-case names, as fetch gives them. */
  readonly headers: Readonly<Record<string, string>>
  readonly durationMs: number
  /** A transport error (connection refused, ...): k6 answers status 0 with the error. */
  readonly error?: string
}

export interface RecordedRequest {
  readonly method: string
  readonly url: string
  readonly status: number
  readonly tags: Readonly<Record<string, string>>
  /** Not counted in `http_req_failed`: the status is one the request's `responseCallback` expects. */
  readonly expected: boolean
  readonly durationMs: number
  readonly group: string
}

/** A sample of a custom `Rate` metric (`k6/metrics`). */
export interface RecordedRate {
  readonly metric: string
  readonly value: boolean
}

export interface RecordedCheck {
  readonly name: string
  readonly pass: boolean
  readonly group: string
}

export interface ShimState {
  /** Synchronous HTTP: blocks the VU until the main thread has the answer. */
  readonly transport: (request: WireRequest) => WireResponse
  readonly requests: RecordedRequest[]
  readonly checks: RecordedCheck[]
  readonly rates: RecordedRate[]
  readonly sleeps: number[]
  /** k6's group path: `::reads::inner`. */
  group: string
  /** Set once the script's module has loaded: k6 creates metrics only in the init context, before it. */
  initDone: boolean
  /** Tests: the request (0-based, over the run) at which `http.request` throws once, as a script bug would. */
  throwAtRequest?: number
}

export const shimState = (): ShimState => {
  const state = (globalThis as { __k6shim?: ShimState }).__k6shim
  if (state === undefined) throw new Error("the k6 shim runs only inside the test VU worker")
  return state
}
