/**
 * The API on an xERC20 asset agrees with itself: the quote offers no fast path for it, and a swap out of it (a
 * fast-path fill) is unroutable in the quote as in `POST /intents` (found by a review: the quote offered a swap
 * with a fastPathQuote that `POST /intents` then refused).
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { describe, expect, it } from "vitest"
import { tokensToUnits } from "../../service/domain/protocol.ts"
import { createMemorySpokes } from "../../service/spoke/spoke.ts"
import { assembleRun } from "../run.ts"
import { parseScenario } from "../scenario/load.ts"
import { planWorld } from "./plan.ts"

const spec = parseScenario(
  `
name: xerc20-api
horizon: { seconds: 600 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: XT
    chains: [{ chain: 31001, decimals: 18, strategy: xerc20 }, { chain: 31002, decimals: 18, strategy: xerc20 }]
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
agents: {}
`,
  "xerc20-api.yaml",
).spec

describe("the API on an xERC20 asset", () => {
  it("quotes no fast path for it, and refuses a swap out of it in the quote and in POST /intents alike", async () => {
    const plan = planWorld(spec)
    const { world, service } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes), agents: false })
    await world.run(60)
    const xt = (chain: number) => plan.assets.get(`XT:${chain}`)!.address
    const usdc = (chain: number) => plan.assets.get(`USDC:${chain}`)!.address
    const user = plan.agents.length > 0 ? plan.agents[0]!.account.address : "0x00000000000000000000000000000000000000aa"
    const base = { origin: "31001", destinations: ["31002"], inputAsset: xt(31001), amount: tokensToUnits(5, 18).toString(), to: user, from: user }

    const bridge = service.quoteNow(base)
    expect(bridge.reqType).toBe("bridge")
    expect(bridge.fastPathQuote).toEqual({ error: "FastPathUnavailable", message: "xERC20 assets take the native route with ttl 0 (no fast path)." })

    const swap = service.quoteNow({ ...base, outputAsset: usdc(31002) })
    expect(swap.reqType).toBe("invalid")
    expect(swap.fastPathQuote).toMatchObject({ error: "UnsupportedSwap", message: expect.stringContaining("which the xERC20 asset") })
    const created = await Effect.runPromiseExit(service.createIntents({ ...base, outputAsset: usdc(31002), isFastPath: true }))
    expect(Exit.isFailure(created)).toBe(true)
    expect(JSON.stringify(created)).toContain("UnsupportedSwap")
    world.close()
  })
})
