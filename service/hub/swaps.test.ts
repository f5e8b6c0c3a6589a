/**
 * Fast-path swaps (SPEC "priority settlement swap"): with `allowFastPathSwaps` (default) a ttl>0 intent may
 * name another ticker's approved asset as its output; the solver is repaid in the input ticker. With the
 * parameter off, the V1 contracts' check makes it UNSUPPORTED.
 */
import { describe, expect, it } from "vitest"
import { assetOf, DOMAIN_A, DOMAIN_B, makeConfig, SOLVER, TestHub, u, UNKNOWN_ASSET } from "./testing.ts"

describe("fast-path swaps", () => {
  it("accept a ttl>0 intent whose output asset is another ticker's, and repay the solver in the input ticker", () => {
    const t = new TestHub()
    t.step(() => t.hub.setUserSupportedDomains(SOLVER, [DOMAIN_A, DOMAIN_B]))
    const { id } = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_B], outputAsset: assetOf("USDC", DOMAIN_B), ttl: 3600, maxFee: 500, amount: u(100) })
    expect(t.status(id)).toBe("DEPOSIT_PROCESSED")
    expect(t.custody(DOMAIN_A, "DAI")).toBe(u(100))
    const events = t.fill(id, SOLVER)
    expect(events.find((e) => e.kind === "SettlementEnqueued")).toMatchObject({ domain: DOMAIN_A, asset: assetOf("DAI", DOMAIN_A), owner: SOLVER })
    expect(t.status(id)).toBe("SETTLED")
  })

  it("still reject an output asset approved nowhere", () => {
    const t = new TestHub()
    const { id } = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_B], outputAsset: UNKNOWN_ASSET, ttl: 3600, amount: u(100) })
    expect(t.status(id)).toBe("UNSUPPORTED")
  })

  it("are UNSUPPORTED with allowFastPathSwaps false (the V1 contracts)", () => {
    const t = new TestHub(makeConfig({ allowFastPathSwaps: false }))
    const { id } = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_B], outputAsset: assetOf("USDC", DOMAIN_B), ttl: 3600, amount: u(100) })
    expect(t.status(id)).toBe("UNSUPPORTED")
  })

  it("do not apply to netting intents: a ttl=0 intent with another ticker's output asset is UNSUPPORTED", () => {
    const t = new TestHub()
    const { id } = t.submit({ origin: DOMAIN_A, destinations: [DOMAIN_B], outputAsset: assetOf("USDC", DOMAIN_B), ttl: 0, amount: u(100) })
    expect(t.status(id)).toBe("UNSUPPORTED")
  })
})
