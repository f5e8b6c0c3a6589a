/**
 * `callService`: the agents' way into the clearing service. An operation runs once, whether it completes when
 * started or suspends (signing a fee); API failures come back as values and defects throw.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { Deployment, DOMAIN_A, DOMAIN_B } from "../../service/api/deployment.ts"
import { BadRequest } from "../../service/api/errors.ts"
import { callService } from "./common.ts"

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
