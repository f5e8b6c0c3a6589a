/**
 * Arbitrageurs, after the production market-maker bot (reference §6.6): poll the invoices oldest first, skip
 * their own, xERC20 destinations, young invoices and tickers with a pending purchase; read the invoice's
 * min-amounts; buy when its discount beats their threshold (cost of capital and fees) with capital they hold
 * on the settlement domain: a netting intent from that domain, arriving in the current epoch, whose deposit
 * earns the discount as reward.
 */
import type { ClearingService } from "../../service/api/service.ts"
import { NORMALIZED_DECIMALS, normalizeDecimals } from "../../service/domain/protocol.ts"
import { tokensToUnits } from "../../service/domain/protocol.ts"
import type { ArbitrageurSpec } from "../scenario/schema.ts"
import type { AgentPlan, AssetOnChainPlan } from "../world/plan.ts"
import type { World } from "../world/world.ts"
import { callNow, callService, createIntents, PopulationStats, sendTransaction } from "./common.ts"

export const startArbitrageurs = (world: World, service: ClearingService, spec: ArbitrageurSpec, agents: readonly AgentPlan[]): PopulationStats => {
  const stats = new PopulationStats("arbitrageur", spec.name, agents.length)
  const tickerSymbol = new Map<string, string>()
  for (const t of world.hub.state.tickers.values()) tickerSymbol.set(t.config.tickerHash, t.config.symbol)

  agents.forEach((agent, k) => {
    const me = agent.account.address
    const capital = new Map<string, { asset: AssetOnChainPlan; remaining: bigint }>()
    for (const c of spec.capital) {
      const asset = world.plan.assets.get(`${c.asset}:${c.chain}`)!
      capital.set(`${c.asset}:${c.chain}`, { asset, remaining: tokensToUnits(c.tokens, asset.decimals) })
      world.submit(asset.domain, me, { kind: "erc20.approve", token: asset.address, spender: world.chain(asset.domain).addresses.feeAdapter, amount: 2n ** 256n - 1n })
    }
    /** Ticker → epoch until which a purchase is pending. */
    const pending = new Map<string, number>()
    const poll = (spec.pollSeconds ?? 60) * 1000
    // Agents of a population poll at staggered offsets.
    world.scheduler.every(poll, Math.floor((poll * (k + 1)) / (agents.length + 1)), `arbitrageur/${agent.id}`, async () => {
      const page = await callService(service.listInvoices({ limit: "100" }))
      if (!page.ok) return stats.reject(`invoices:${page.error}`)
      const epoch = world.hubEpoch
      for (const invoice of page.value.invoices) {
        const symbol = tickerSymbol.get(invoice.ticker_hash)
        if (symbol === undefined) continue
        if ((pending.get(symbol) ?? -1) >= epoch) continue
        if (invoice.owner.toLowerCase().endsWith(me.slice(2).toLowerCase())) continue
        const age = world.timestamp - Number(invoice.hub_invoice_enqueued_timestamp)
        if (age < (spec.minInvoiceAgeSeconds ?? 1)) continue
        if (invoice.destinations.some((d) => world.plan.assets.get(`${symbol}:${d}`)?.strategy === "xerc20")) continue
        if (invoice.discountBps <= 0) continue
        const min = await callService(service.getMinAmounts(invoice.intent_id))
        if (!min.ok) {
          stats.reject(`minAmounts:${min.error}`)
          continue
        }
        // Cheapest domain where this arbitrageur holds capital.
        let best: { domain: number; units: bigint; funds: { asset: AssetOnChainPlan; remaining: bigint } } | undefined
        for (const [domain, amount18] of Object.entries(min.value.minAmounts)) {
          const funds = capital.get(`${symbol}:${domain}`)
          if (funds === undefined || amount18 === "0") continue
          // 18-decimal minimum, rounded up to the token's units.
          const raw = normalizeDecimals(BigInt(amount18), NORMALIZED_DECIMALS, funds.asset.decimals)
          const units = normalizeDecimals(raw, funds.asset.decimals, NORMALIZED_DECIMALS) < BigInt(amount18) ? raw + 1n : raw
          if (units > funds.remaining) continue
          if (best === undefined || units < best.units) best = { domain: Number(domain), units, funds }
        }
        if (best === undefined) {
          stats.reject("noCapital")
          continue
        }
        // Repaid where the invoice came from (its custody grew there).
        const destination =
          Number(invoice.origin) !== best.domain
            ? Number(invoice.origin)
            : world.spokes.domains.find((d) => d !== best.domain && world.plan.assets.has(`${symbol}:${d}`))
        if (destination === undefined) {
          stats.reject("noDestination")
          continue
        }
        const request = {
          origin: String(best.domain),
          destinations: [String(destination)],
          inputAsset: best.funds.asset.address,
          amount: best.units.toString(),
          to: me,
          from: me,
        }
        // Worth it only if the discount earned beats the fees paid (plus the margin asked for).
        const quote = callNow(() => service.quoteNow(request))
        if (!quote.ok) {
          stats.reject(`quote:${quote.error}`)
          continue
        }
        const protocolFeeBps = (world.hub.state.tickers.get(invoice.ticker_hash as `0x${string}`)?.config.fees.reduce((n, f) => n + f.feeDbps, 0) ?? 0) / 10
        const invoiceAmount = Number(BigInt(invoice.amount) / 10n ** 12n) / 1e6
        const purchase = Number(normalizeDecimals(best.units, best.funds.asset.decimals, NORMALIZED_DECIMALS) / 10n ** 12n) / 1e6
        const earnedBps = purchase === 0 ? 0 : (invoice.discountBps * Math.min(purchase, invoiceAmount)) / purchase
        if (earnedBps - quote.value.totalFeeBps - protocolFeeBps < (spec.minDiscountBps ?? 0)) {
          stats.reject("unprofitable")
          continue
        }
        const tx = await createIntents(service, request)
        if (!tx.ok) {
          stats.reject(`intents:${tx.error}`)
          continue
        }
        best.funds.remaining -= best.units
        pending.set(symbol, epoch)
        stats.act("purchase")
        sendTransaction(world, me, tx.value, (receipt) => stats.rejectReceipt(receipt))
      }
    })
  })
  return stats
}
