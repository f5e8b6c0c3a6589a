/**
 * Test-only: a clearing service over a `TestWorld` (real hub, read model, minimal spoke events), with registries
 * on every hub domain, a tracked operator solver, and a virtual clock; plus plain HTTP helpers. Nothing outside
 * tests imports this file.
 */
import type { Address, Hex } from "../domain/hex.ts"
import type { HubConfigInput } from "../hub/config.ts"
import { makeConfig } from "../hub/testing.ts"
import { TestWorld } from "../indexer/testing.ts"
import { type ClearingApiConfigInput, fixedClock } from "./config.ts"
import { ClearingService } from "./service.ts"

/** anvil's account #9 key: a fee signer for tests (never a real key). */
export const TEST_FEE_SIGNER_KEY: Hex = "0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6"
export const HUB_ADDRESS: Address = "0xa05a3380889115bf313f1db9d5f335157be4d816"
export const OPERATOR_SOLVER: Address = "0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a"
export const registry = (domain: number) => ({
  domain,
  spoke: `0x${domain.toString(16).padStart(4, "0")}${"5".repeat(36)}` as Address,
  feeAdapter: `0x${domain.toString(16).padStart(4, "0")}${"f".repeat(36)}` as Address,
})

export interface TestServiceOptions {
  readonly altchains?: boolean
  readonly config?: Partial<ClearingApiConfigInput>
  /** Overrides of the hub config (e.g. another ticker list). */
  readonly hub?: Partial<HubConfigInput>
}

/** Domains 1, 10, 8453 are EVM spokes; 56 is the first alternative chain when `altchains` is set. */
export const makeTestService = (options: TestServiceOptions = {}) => {
  const world = new TestWorld(makeConfig(options.hub), { solvers: [OPERATOR_SOLVER] })
  const clock = fixedClock(world.now)
  const evm = options.altchains === true ? [1, 10, 8453] : [1, 10, 8453, 56]
  const service = new ClearingService({
    hub: world.hub,
    model: world.model,
    clock,
    config: {
      hubAddress: HUB_ADDRESS,
      spokes: evm.map(registry),
      ...(options.altchains === true ? { altchain1: registry(56), altchain2: registry(8453) } : {}),
      feeSignerKey: TEST_FEE_SIGNER_KEY,
      quotes: { default: { fixedFeeTokens: "0.5", maxVariableFeeBps: 10, fastPathFeeBps: 3 } },
      fastPath: { solvers: [OPERATOR_SOLVER] },
      ...options.config,
    },
  })
  return { world, clock, service }
}

export interface HttpResult {
  readonly status: number
  readonly body: unknown
  readonly text: string
  readonly contentType: string | null
}

/** One HTTP request with a JSON (or raw string) body. */
export const request = async (base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<HttpResult> => {
  const init: RequestInit = { method, headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers } }
  if (body !== undefined) init.body = typeof body === "string" ? body : JSON.stringify(body)
  const response = await fetch(`${base}${path}`, init)
  const text = await response.text()
  let parsed: unknown
  try {
    parsed = text === "" ? undefined : JSON.parse(text)
  } catch {
    parsed = undefined
  }
  return { status: response.status, body: parsed, text, contentType: response.headers.get("content-type") }
}
