/**
 * Test and benchmark helper: drives a flow asynchronously (k6's driver does it synchronously), sending each
 * request it yields with `send`, running the request's checks on the answer and handing the answer back.
 */
import { failedChecks, type ResponseLike } from "../lib/checks.ts"
import type { RequestSpec } from "../lib/requests.ts"

export interface Exchange {
  readonly spec: RequestSpec
  readonly response: ResponseLike
  /** Names of the spec's checks the response failed. */
  readonly failed: readonly string[]
}

export const driveAsync = async <T>(flow: Generator<RequestSpec, T, ResponseLike>, send: (spec: RequestSpec) => Promise<ResponseLike>, onExchange?: (exchange: Exchange) => void): Promise<T> => {
  let step = flow.next()
  while (step.done !== true) {
    const spec = step.value
    const response = await send(spec)
    onExchange?.({ spec, response, failed: failedChecks(spec.checks, response) })
    step = flow.next(response)
  }
  return step.value
}

/** k6 canonicalizes header names (Go's `Content-Type`); Node lower-cases them. The checks must take both. */
export const canonicalHeader = (name: string): string => name.replace(/(^|-)([a-z])/g, (_, dash: string, c: string) => dash + c.toUpperCase())
