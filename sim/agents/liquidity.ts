/**
 * Initial liquidity: at the start, one liquidity provider sends a netting intent from each listed chain (to the
 * next chain of the scenario), so that custody exists there before users arrive. Its custody lots are tagged
 * "initial" in the netting attribution.
 */
import type { ClearingService } from "../../service/api/service.ts"
import { tokensToUnits } from "../../service/domain/protocol.ts"
import type { ScenarioSpec } from "../scenario/schema.ts"
import type { AgentPlan } from "../world/plan.ts"
import type { World } from "../world/world.ts"
import { createIntents, PopulationStats, sendTransaction } from "./common.ts"

export const startLiquidity = (world: World, service: ClearingService, entries: NonNullable<ScenarioSpec["initialLiquidity"]>, agent: AgentPlan): PopulationStats => {
  const stats = new PopulationStats("liquidity", "initial", 1)
  const me = agent.account.address
  const domains = world.spokes.domains
  for (const entry of entries) {
    const asset = world.plan.assets.get(`${entry.asset}:${entry.chain}`)!
    world.submit(asset.domain, me, { kind: "erc20.approve", token: asset.address, spender: world.chain(asset.domain).addresses.feeAdapter, amount: 2n ** 256n - 1n })
  }
  world.scheduler.after(1000, "liquidity/seed", async () => {
    for (const entry of entries) {
      const asset = world.plan.assets.get(`${entry.asset}:${entry.chain}`)!
      const i = domains.indexOf(entry.chain)
      const destination = domains.find((d, j) => j > i && world.plan.assets.has(`${entry.asset}:${d}`)) ?? domains.find((d) => d !== entry.chain && world.plan.assets.has(`${entry.asset}:${d}`))!
      const tx = await createIntents(service, {
          origin: String(entry.chain),
          destinations: [String(destination)],
          inputAsset: asset.address,
          amount: tokensToUnits(entry.tokens, asset.decimals).toString(),
          to: me,
          from: me,
        })
      if (!tx.ok) {
        stats.reject(`intents:${tx.error}`)
        continue
      }
      stats.act("seed")
      sendTransaction(world, me, tx.value, (receipt) => stats.rejectReceipt(receipt))
    }
  })
  return stats
}
