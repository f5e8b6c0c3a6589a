/**
 * Initial liquidity: at the start, one liquidity provider leaves each listed amount in hub custody on its chain.
 *
 * Each entry is one intent from the listed chain to that same chain, on the fast path (ttl `LIQUIDITY_TTL_SECONDS`,
 * maxFee 0, the chain's own asset as output), sent through the service like any user's. At the hub it is custodied
 * on its origin and, with no solver fill, waits in DEPOSIT_PROCESSED: no settlement, no invoice, nothing taken
 * from another chain's custody. No solver can fill it: the spoke that would execute the fill is its origin, where
 * the intent is ADDED, not NONE (`ClearingSpoke_FillIntent_InvalidStatus`). It ends only when it expires
 * (`handleExpiredIntents`, after the ttl and the hub's expiry buffer): it is then settled to the provider out of
 * that chain's custody, i.e. the liquidity is withdrawn where it was provided, long after any run's horizon.
 *
 * Why not ttl=0 (netting) intents between the listed chains, as before: the hub settles such an intent out of
 * custody on its destination or invoices it, and an invoice is bought by the next deposit on its destination, so
 * the seeds of a ring A→B, B→C, C→A net against each other and leave only the protocol fees in custody. Every
 * ttl=0 seed either settles (taking what it adds from another chain) or stays an open invoice (which makes every
 * later intent of the ticker a deposit until bought); no order of sending avoids it.
 *
 * The custody is the intent amount (the tokens less the fee adapter's fixed fee); the hub's protocol fees are
 * part of it (the fee vault's claim). Its custody lots are tagged "initial" in the netting attribution.
 */
import type { ClearingService } from "../../service/api/service.ts"
import { tokensToUnits } from "../../service/domain/protocol.ts"
import type { ScenarioSpec } from "../scenario/schema.ts"
import type { AgentPlan } from "../world/plan.ts"
import type { World } from "../world/world.ts"
import { createIntents, PopulationStats, sendTransaction } from "./common.ts"

/** Ttl of the seeding intents: ten years, so that the liquidity outlasts any run (and live devnet). */
export const LIQUIDITY_TTL_SECONDS = 10 * 365 * 86_400

export const startLiquidity = (world: World, service: ClearingService, entries: NonNullable<ScenarioSpec["initialLiquidity"]>, agent: AgentPlan): PopulationStats => {
  const stats = new PopulationStats("liquidity", "initial", 1)
  const me = agent.account.address
  for (const entry of entries) {
    const asset = world.plan.assets.get(`${entry.asset}:${entry.chain}`)!
    world.submit(asset.domain, me, { kind: "erc20.approve", token: asset.address, spender: world.chain(asset.domain).addresses.feeAdapter, amount: 2n ** 256n - 1n })
  }
  world.scheduler.after(1000, "liquidity/seed", async () => {
    for (const entry of entries) {
      const asset = world.plan.assets.get(`${entry.asset}:${entry.chain}`)!
      const tx = await createIntents(service, {
        origin: String(entry.chain),
        destinations: [String(entry.chain)],
        inputAsset: asset.address,
        outputAsset: asset.address,
        amount: tokensToUnits(entry.tokens, asset.decimals).toString(),
        ttl: LIQUIDITY_TTL_SECONDS,
        maxFee: 0,
        to: me,
        from: me,
      })
      if (!tx.ok) {
        stats.reject(`intents:${tx.error}`)
        continue
      }
      sendTransaction(world, me, tx.value, stats.onMined("seed"))
    }
  })
  return stats
}
