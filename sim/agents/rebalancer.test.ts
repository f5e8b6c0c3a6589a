/**
 * Rebalancers (users): the budget of whole tokens each may send from each chain (`balanceTokens`) is charged when
 * an intent is sent and given back when it reverts (it sent nothing).
 */
import { describe, expect, it } from "vitest"
import { runScenario } from "../run.ts"
import { twoChainUsdc } from "../scenario/testing.ts"

const run = async (arrivals: readonly number[], outage = "", balanceTokens = 250) => {
  // 31001 mines every 12 s; a user sending at 30 s is mined at 36 s.
  const scenario = twoChainUsdc(
    "budget",
    "{ hours: 2 }",
    `transport: { latency: { kind: fixed, seconds: 30 }${outage} }
agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, balanceTokens: ${balanceTokens}, arrival: { kind: scripted, atSeconds: [${arrivals.join(", ")}] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { basic: 1 } }`,
    { blockTimeSeconds: [12, 2] },
  )
  const { report } = await runScenario(scenario, { seed: 1, backend: "memory" })
  return report.agents.find((a) => a.population === "user")!
}

describe("a rebalancer's budget", () => {
  it("refuses an intent past it", async () => {
    const user = await run([30, 90, 150, 210])
    expect(user.actions.basic).toBe(2)
    expect(user.rejections.budgetExhausted).toBe(2)
  })

  it("may be spent to the last token", async () => {
    const user = await run([30, 90, 150], "", 200)
    expect([user.actions.basic, user.rejections]).toEqual([2, { budgetExhausted: 1 }])
  })

  it("is given back by an intent that reverts", async () => {
    // 31001 halts from 31 s to 5,031 s: the intent sent at 30 s is mined after its fee signature expired (3,600 s
    // rounded up to ten minutes) and reverts. The budget it held pays for the two sent after the halt.
    const user = await run([30, 5100, 5160, 5220], `, faults: { outages: [{ domain: 31001, kind: halt, fromSeconds: 31, toSeconds: 5031 }] }`)
    expect(Object.entries(user.rejections).filter(([reason]) => reason !== "budgetExhausted")).toEqual([[expect.stringMatching(/deadline|expired/i), 1]])
    expect(user.actions.basic).toBe(2)
    expect(user.rejections.budgetExhausted).toBe(1)
  })
})
