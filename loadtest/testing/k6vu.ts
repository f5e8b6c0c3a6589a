/**
 * Test-only: a k6 VU in a worker thread. It imports a bundled k6 script (whose `k6` and `k6/http` imports
 * resolve to the shim package next to it), then runs its lifecycle as k6 does: `setup()` once (VU 0), its
 * result passed through JSON, `default(data)` for each iteration with `__VU` and `__ITER` set, `teardown(data)`.
 * HTTP is synchronous: each request is posted to the main thread, and the VU blocks until the answer arrives.
 */
import { parentPort, receiveMessageOnPort, type MessagePort, workerData } from "node:worker_threads"
import { pathToFileURL } from "node:url"
import type { ShimState, WireRequest, WireResponse } from "./k6shim/state.ts"

export interface VuInput {
  readonly script: string
  readonly env: Record<string, string>
  readonly vu: number
  readonly iterations: number
  readonly port: MessagePort
  /** Int32 flag: the main thread sets it to 1 once the answer is on the port. */
  readonly signal: SharedArrayBuffer
  readonly throwAtRequest?: number
}

export interface VuOutput {
  readonly options: unknown
  readonly setupData: unknown
  readonly requests: ShimState["requests"]
  readonly checks: ShimState["checks"]
  readonly rates: ShimState["rates"]
  readonly sleeps: number[]
  /** Exceptions thrown by iterations (k6 logs them and goes on). */
  readonly errors: string[]
  /** What the script wrote with console.warn/error/log. */
  readonly logs: string[]
}

const input = workerData as VuInput
const signal = new Int32Array(input.signal)

const transport = (request: WireRequest): WireResponse => {
  input.port.postMessage(request)
  Atomics.wait(signal, 0, 0)
  Atomics.store(signal, 0, 0)
  const message = receiveMessageOnPort(input.port)
  if (message === undefined) throw new Error("the k6 shim's transport woke without an answer")
  return message.message as WireResponse
}

const state: ShimState = { transport, requests: [], checks: [], rates: [], sleeps: [], group: "", initDone: false, ...(input.throwAtRequest === undefined ? {} : { throwAtRequest: input.throwAtRequest }) }
const g = globalThis as Record<string, unknown>
g["__k6shim"] = state
g["__ENV"] = input.env
g["__VU"] = 0
g["__ITER"] = 0

const errors: string[] = []
const logs: string[] = []
for (const level of ["log", "warn", "error"] as const) console[level] = (...args: unknown[]) => void logs.push(args.map(String).join(" "))
const script = (await import(pathToFileURL(input.script).href)) as {
  options?: unknown
  setup?: () => unknown
  default: (data: unknown) => void
  teardown?: (data: unknown) => void
}
state.initDone = true
const setupResult = script.setup?.()
const setupData: unknown = setupResult === undefined ? undefined : JSON.parse(JSON.stringify(setupResult))
g["__VU"] = input.vu
for (let i = 0; i < input.iterations; i++) {
  g["__ITER"] = i
  try {
    script.default(setupData)
  } catch (error) {
    errors.push(String(error))
  }
}
script.teardown?.(setupData)
const output: VuOutput = { options: script.options, setupData, requests: state.requests, checks: state.checks, rates: state.rates, sleeps: state.sleeps, errors, logs }
parentPort!.postMessage(output)
