/**
 * `callService`: the agents' way into the clearing service. An operation runs once, whether it completes when
 * started or suspends (signing a fee); API failures come back as values and defects throw.
 */
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { Deployment, DOMAIN_A, DOMAIN_B } from "../../service/api/deployment.ts"
import { BadRequest, notFound } from "../../service/api/errors.ts"
import { callNow, callService } from "./common.ts"

describe("callService", () => {
  it("runs an operation that signs a fee once, and one whose signature is cached without signing", async () => {
    const d = Deployment.memory()
    const a = d.accounts
    const body = { origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], to: a.bob.address, from: a.alice.address, inputAsset: d.token(DOMAIN_A, "USDC"), amount: "1000000000" }
    const first = await callService(d.service.createIntentsWithCall(body))
    expect(first.ok).toBe(true)
    expect(d.service.feeSigner.signed).toBe(1)
    const again = await callService(d.service.createIntentsWithCall({ ...body, to: a.alice.address }))
    expect(again.ok).toBe(true)
    expect(d.service.feeSigner.signed).toBe(1)
    if (first.ok && again.ok) expect(again.value.tx.to).toBe(first.value.tx.to)
  })

  it("gives an API failure as a value and throws on a defect", async () => {
    expect(await callService(Effect.succeed(7))).toEqual({ ok: true, value: 7 })
    expect(await callService(Effect.fail(new BadRequest({ error: "InvalidAmount", message: "amount: expected digits" })))).toEqual({
      ok: false,
      error: "InvalidAmount",
      message: "amount: expected digits",
    })
    await expect(callService(Effect.die(new Error("boom")))).rejects.toThrow(/clearing service defect/)
  })
})

describe("callNow", () => {
  it("gives a 404 (an unknown invoice, route or asset) as a value, like a 400, and throws anything else", () => {
    expect(callNow(() => 7)).toEqual({ ok: true, value: 7 })
    expect(callNow(() => { throw notFound("InvoiceNotFound", "no invoice 0x01") })).toEqual({ ok: false, error: "InvoiceNotFound", message: "no invoice 0x01" })
    expect(() => callNow(() => { throw new Error("boom") })).toThrow("boom")
  })
})

describe("an agent's actions", () => {
  it("count what was mined: a reverted intent is a rejection under its error, not also an action", async () => {
    const { runScenario } = await import("../run.ts")
    const { parseScenario } = await import("../scenario/load.ts")
    // Two intents of 100 XT against a burning limit of 150 a day on the origin: the second reverts.
    const text = `
name: burn-limit
horizon: { seconds: 600 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: XT
    chains:
      - { chain: 31001, decimals: 18, strategy: xerc20, mintLimit: 1000000, burnLimit: 150 }
      - { chain: 31002, decimals: 18, strategy: xerc20, mintLimit: 1000000, burnLimit: 1000000 }
agents:
  rebalancers:
    - { name: u, count: 1, asset: XT, arrival: { kind: scripted, atSeconds: [10, 20] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 } }
`
    const { report } = await runScenario(parseScenario(text, "burn-limit.yaml"), { seed: 1, backend: "memory" })
    const users = report.agents.find((a) => a.population === "u")!
    expect(users.actions).toEqual({ xerc20: 1 })
    expect(users.rejections).toEqual({ XERC20Module_HandleBurnStrategy_InsufficientBurningLimit: 1 })
    expect(report.intents.created).toBe(1)
  })
})

describe("callService with a cause of several reasons", () => {
  it("gives the API failure among them as the value, whatever reason comes first", async () => {
    const { Cause } = await import("effect")
    const cause = Cause.fromReasons([Cause.makeDieReason(new Error("finalizer")), Cause.makeFailReason(new BadRequest({ error: "InvalidAmount", message: "too small" }))])
    expect(await callService(Effect.failCause(cause))).toEqual({ ok: false, error: "InvalidAmount", message: "too small" })
  })
})

describe("holdings18", () => {
  it("counts a 6-decimal token in 18-decimal units: the funding of each chain is fundingTokens · 10^18", async () => {
    const { assembleRun } = await import("../run.ts")
    const { planWorld } = await import("../world/plan.ts")
    const { createMemorySpokes } = await import("../../service/spoke/spoke.ts")
    const { twoChainUsdc } = await import("../scenario/testing.ts")
    const { holdings18 } = await import("./common.ts")
    const scenario = twoChainUsdc("holdings", "{ seconds: 60 }", `agents:
  rebalancers:
    - { name: u, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [120] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 1 } }`)
    const plan = planWorld(scenario.spec)
    const { world } = assembleRun(scenario.spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false }) })
    const user = plan.agents.find((a) => a.kind === "rebalancer")!
    // USDC on 31001 and 31002, 6 decimals each: twice the funding, in 18-decimal units.
    expect(await holdings18(world, user.account.address)).toEqual({ USDC: 2n * plan.fundingTokens * 10n ** 18n })
    world.close()
  })
})

describe("assetsByAddress", () => {
  it("finds an asset by its address in any case, on its own chain only", async () => {
    const { assetsByAddress } = await import("./common.ts")
    const usdc = { symbol: "USDC", domain: 31001, address: "0xAbCdEf0123456789aBcDeF0123456789AbCdEf01", decimals: 6, strategy: "default" }
    const world = { plan: { assets: new Map([["USDC:31001", usdc]]) } } as unknown as Parameters<typeof assetsByAddress>[0]
    const assetAt = assetsByAddress(world)
    expect(assetAt(31001, "0xabcdef0123456789abcdef0123456789abcdef01")).toBe(usdc)
    expect(assetAt(31001, "0xABCDEF0123456789ABCDEF0123456789ABCDEF01")).toBe(usdc)
    expect(assetAt(31002, usdc.address)).toBeUndefined()
  })
})
