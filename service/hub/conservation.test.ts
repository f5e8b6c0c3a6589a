/**
 * The conservation check itself (`conservation.ts`): the two identities hold after every rules test (TestHub runs
 * the check after each step); these tests corrupt the state so that both identities still hold and only a sign
 * check can see the damage.
 */
import { describe, expect, it } from "vitest"
import { ConservationViolation } from "./errors.ts"
import { DOMAIN_A, DOMAIN_B, FEE1, TestHub, u } from "./testing.ts"

const violation = (t: TestHub): ConservationViolation => {
  try {
    t.hub.checkConservation()
  } catch (error) {
    expect(error).toBeInstanceOf(ConservationViolation)
    return error as ConservationViolation
  }
  throw new Error("expected a ConservationViolation")
}

describe("conservation: signs", () => {
  it("negative custody on one domain, with the total unchanged, is a violation naming that domain", () => {
    const t = new TestHub()
    t.submit({ destinations: [DOMAIN_B], amount: u(100) }) // A holds 100
    const custody = t.ticker().custodied18
    custody.set(DOMAIN_A, u(101))
    custody.set(DOMAIN_B, -u(1))
    const error = violation(t)
    expect([error.ticker, error.quantity, error.expected, error.actual]).toEqual(["DAI", `custodied on domain ${DOMAIN_B}`, 0n, -u(1)])
  })

  it("a negative surplus balanced by a larger fee vault is a violation", () => {
    const t = new TestHub()
    t.submit({ destinations: [DOMAIN_B], amount: u(100) })
    t.ticker().ledger.surplus18 = -5n
    t.ticker().feeVault18.set(FEE1, u(1) + 5n)
    const error = violation(t)
    expect([error.quantity, error.expected, error.actual]).toEqual(["surplus (discounts − rewards credited)", 0n, -5n])
  })
})
