/**
 * Arbitrageurs, after the production market-maker bot (reference §6.6): poll the invoices oldest first, skip
 * their own, xERC20 destinations, young invoices, tickers with a pending purchase and invoices they bought this
 * epoch or the last; read the invoice's min-amounts; buy with capital they hold on the settlement domain: a
 * netting intent from that domain, arriving in the current epoch, whose deposit earns a share of the discount as
 * reward. The amount sent is grossed up by the fee adapter's token fee so that the deposit is at least the
 * minimum; they buy only when the reward the hub will pay (`expectedReward18`, conservative) covers the token fee,
 * the protocol fee and their margin `minDiscountBps` (cost of capital) of the amount sent. A purchase repaid (on
 * the invoice's origin chain) is capital again there.
 *
 * The agents of a population are independent competitors: each knows only its own purchases and what the API
 * serves, and min-amounts cannot see a competitor's deposit before it reaches the hub, so two agents polling
 * within that delay may both buy an invoice; the later deposit earns what is left of the reward (or none).
 */
import type { ClearingService } from "../../service/api/service.ts"
import { DBPS_DENOMINATOR, NORMALIZED_DECIMALS, normalizeDecimals, tokensToUnits } from "../../service/domain/protocol.ts"
import { totalProtocolFeeDbps } from "../../service/hub/config.ts"
import type { ArbitrageurSpec } from "../scenario/schema.ts"
import type { AgentPlan, AssetOnChainPlan } from "../world/plan.ts"
import type { World } from "../world/world.ts"
import { assetsByAddress, callNow, callService, createIntents, PopulationStats, sendTransaction } from "./common.ts"

/** `minDiscountBps` as its exact decimal in 18-decimal fixed point, over 10,000 bps (0.0004 bps is 4 · 10^14 / 10^22). */
const MARGIN_SCALE = 10_000n * 10n ** 18n
const marginOf = (bps: number): bigint => tokensToUnits(bps, 18)

export const startArbitrageurs = (world: World, service: ClearingService, spec: ArbitrageurSpec, agents: readonly AgentPlan[]): PopulationStats => {
  const stats = new PopulationStats("arbitrageur", spec.name, agents.length)
  /** The margin asked for beyond the fees, as a fraction scaled by `MARGIN_SCALE` (the same for every invoice). */
  const margin = marginOf(spec.minDiscountBps ?? 0)
  const tickerSymbol = new Map<string, string>()
  for (const t of world.hub.state.tickers.values()) tickerSymbol.set(t.config.tickerHash, t.config.symbol)
  const assetAt = assetsByAddress(world)

  agents.forEach((agent, k) => {
    const me = agent.account.address
    const capital = new Map<string, { asset: AssetOnChainPlan; remaining: bigint }>()
    for (const c of spec.capital) {
      const asset = world.plan.assets.get(`${c.asset}:${c.chain}`)!
      // Entries for the same chain and asset add up (as the scenario loader sums them against the funding).
      const listed = capital.get(`${c.asset}:${c.chain}`)
      if (listed !== undefined) {
        listed.remaining += tokensToUnits(c.tokens, asset.decimals)
        continue
      }
      capital.set(`${c.asset}:${c.chain}`, { asset, remaining: tokensToUnits(c.tokens, asset.decimals) })
      world.submit(asset.domain, me, { kind: "erc20.approve", token: asset.address, spender: world.chain(asset.domain).addresses.feeAdapter, amount: 2n ** 256n - 1n })
    }
    // A purchase is repaid where its invoice came from: what comes back is capital there (the budget counts what
    // is at risk, not what was ever spent), with the fee adapter approved on a chain it had none on.
    const meLower = me.toLowerCase()
    world.observe({
      onSpokeEvent: (event, context) => {
        if (event.name !== "Settled" || event.amount === 0n || event.account.toLowerCase() !== meLower) return
        const asset = assetAt(context.domain, event.asset)
        if (asset === undefined || asset.strategy === "xerc20") return
        const key = `${asset.symbol}:${asset.domain}`
        let funds = capital.get(key)
        if (funds === undefined) {
          capital.set(key, (funds = { asset, remaining: 0n }))
          world.submit(asset.domain, me, { kind: "erc20.approve", token: asset.address, spender: world.chain(asset.domain).addresses.feeAdapter, amount: 2n ** 256n - 1n })
        }
        funds.remaining += event.amount
        stats.act("repaid")
      },
    })
    /** Ticker → epoch until which a purchase is pending. */
    const pending = new Map<string, number>()
    /** Invoice id → epoch of this agent's purchase. */
    const bought = new Map<string, number>()
    /**
     * The reasons each invoice was passed over for: a reason counts once per invoice, as a solver's once per
     * intent (an invoice it cannot afford is seen again at every poll until someone buys it).
     */
    const passedOver = new Map<string, Set<string>>()
    const passOver = (invoiceId: string, reason: string): void => {
      let reasons = passedOver.get(invoiceId)
      if (reasons === undefined) passedOver.set(invoiceId, (reasons = new Set()))
      if (reasons.has(reason)) return
      reasons.add(reason)
      stats.reject(reason)
    }
    const poll = (spec.pollSeconds ?? 60) * 1000
    // Agents of a population poll at staggered offsets.
    world.scheduler.every(poll, Math.floor((poll * (k + 1)) / (agents.length + 1)), `arbitrageur/${agent.id}`, async () => {
      const page = await callService(service.listInvoices({ limit: "100" }))
      if (!page.ok) return stats.reject(`invoices:${page.error}`)
      const epoch = world.hubEpoch
      for (const [id, e] of bought) if (e < epoch - 1) bought.delete(id)
      // The page is the oldest open invoices: one that left it was settled and does not come back.
      if (passedOver.size > 0) {
        const open = new Set(page.value.invoices.map((i) => i.intent_id))
        for (const id of passedOver.keys()) if (!open.has(id)) passedOver.delete(id)
      }
      for (const invoice of page.value.invoices) {
        const symbol = tickerSymbol.get(invoice.ticker_hash)
        if (symbol === undefined) continue
        if ((pending.get(symbol) ?? -1) >= epoch) continue
        // Bought this epoch or the last: the deposit may still be on its way to the hub, where min-amounts sees it.
        if ((bought.get(invoice.intent_id) ?? -2) >= epoch - 1) continue
        if (invoice.owner.toLowerCase().endsWith(me.slice(2).toLowerCase())) continue
        const age = world.timestamp - Number(invoice.hub_invoice_enqueued_timestamp)
        if (age < (spec.minInvoiceAgeSeconds ?? 1)) continue
        if (invoice.destinations.some((d) => world.plan.assets.get(`${symbol}:${d}`)?.strategy === "xerc20")) continue
        if (invoice.discountBps <= 0) continue
        const min = await callService(service.getMinAmounts(invoice.intent_id))
        if (!min.ok) {
          passOver(invoice.intent_id, `minAmounts:${min.error}`)
          continue
        }
        // Cheapest domain where this arbitrageur holds capital.
        let best: { domain: number; units: bigint; funds: { asset: AssetOnChainPlan; remaining: bigint } } | undefined
        // Why no domain would do: no capital there, the invoice already covered there (minimum 0: this epoch's
        // deposits settle it), or capital short of the minimum.
        let covered = false
        let funded = false
        for (const [domain, amount18] of Object.entries(min.value.minAmounts)) {
          const funds = capital.get(`${symbol}:${domain}`)
          if (funds === undefined) continue
          funded = true
          if (amount18 === "0") {
            covered = true
            continue
          }
          // 18-decimal minimum, rounded up to the token's units.
          const raw = normalizeDecimals(BigInt(amount18), NORMALIZED_DECIMALS, funds.asset.decimals)
          const units = normalizeDecimals(raw, funds.asset.decimals, NORMALIZED_DECIMALS) < BigInt(amount18) ? raw + 1n : raw
          if (units > funds.remaining) continue
          if (best === undefined || units < best.units) best = { domain: Number(domain), units, funds }
        }
        if (best === undefined) {
          passOver(invoice.intent_id, covered ? "alreadyCovered" : funded ? "noCapital" : "noCapitalWhereBuyable")
          continue
        }
        // Repaid where the invoice came from (its custody grew there).
        const destination =
          Number(invoice.origin) !== best.domain
            ? Number(invoice.origin)
            : world.spokes.domains.find((d) => d !== best.domain && world.plan.assets.has(`${symbol}:${d}`))
        if (destination === undefined) {
          passOver(invoice.intent_id, "noDestination")
          continue
        }
        const route = { origin: String(best.domain), destinations: [String(destination)], inputAsset: best.funds.asset.address, to: me, from: me }
        // The fee adapter takes its token fee out of the amount sent (the deposit is the quote's expectedAmount):
        // gross the amount up until the deposit reaches the minimum.
        const grossed = grossUp(service, route, best.units, best.funds.remaining)
        if (!grossed.ok) {
          passOver(invoice.intent_id, grossed.error)
          continue
        }
        const gross = grossed.gross
        const request = { ...route, amount: gross.toString() }
        // Worth it only if the reward the hub will pay beats the fees paid plus the margin asked for.
        const decimals = best.funds.asset.decimals
        const ticker = world.hub.state.tickers.get(invoice.ticker_hash as `0x${string}`)
        const protocolFeeDbps = ticker === undefined ? 0 : totalProtocolFeeDbps(ticker.config)
        const gross18 = normalizeDecimals(gross, decimals, NORMALIZED_DECIMALS)
        const deposit18 = normalizeDecimals(grossed.deposit, decimals, NORMALIZED_DECIMALS)
        const reward18 = expectedReward18(BigInt(min.value.invoiceAmount), BigInt(min.value.amountAfterDiscounts[String(best.domain)] ?? min.value.invoiceAmount), BigInt(min.value.custodiedAmounts[String(best.domain)] ?? "0"), deposit18)
        const cost18 = gross18 - deposit18 + (deposit18 * BigInt(protocolFeeDbps)) / DBPS_DENOMINATOR + (gross18 * margin) / MARGIN_SCALE
        if (reward18 <= 0n || reward18 < cost18) {
          passOver(invoice.intent_id, "unprofitable")
          continue
        }
        const tx = await createIntents(service, request)
        if (!tx.ok) {
          passOver(invoice.intent_id, `intents:${tx.error}`)
          continue
        }
        const funds = best.funds
        funds.remaining -= gross
        pending.set(symbol, epoch)
        bought.set(invoice.intent_id, epoch)
        const mined = stats.onMined("purchase")
        sendTransaction(world, me, tx.value, (receipt) => {
          // A purchase that reverted spent nothing: its capital is there again.
          if (receipt.status !== "success") funds.remaining += gross
          mined(receipt)
        })
      }
    })
  })
  return stats
}

interface PurchaseRoute {
  readonly origin: string
  readonly destinations: readonly string[]
  readonly inputAsset: string
  readonly to: string
  readonly from: string
}

/**
 * The smallest amount (token units, at most `capital`) whose deposit after the fee adapter's token fee, the
 * quote's `expectedAmount` (what `POST /intents` puts in the intent), is at least `needed`. The fee grows with the
 * amount (the variable part), so the amount is raised by the shortfall until it is covered, a few rounds at most.
 */
export const grossUp = (
  service: ClearingService,
  route: PurchaseRoute,
  needed: bigint,
  capital: bigint,
): { readonly ok: true; readonly gross: bigint; readonly deposit: bigint } | { readonly ok: false; readonly error: string } => {
  let gross = needed
  for (let round = 0; round < 16; round++) {
    if (gross > capital) return { ok: false, error: "noCapital" }
    const quote = callNow(() => service.quoteNow({ ...route, destinations: [...route.destinations], amount: gross.toString() }))
    if (!quote.ok) {
      // An amount below the fixed fee is refused: learn the fixed fee from a quote of the whole capital.
      if (quote.error !== "InvalidAmount" || round > 0) return { ok: false, error: `quote:${quote.error}` }
      const whole = callNow(() => service.quoteNow({ ...route, destinations: [...route.destinations], amount: capital.toString() }))
      if (!whole.ok) return { ok: false, error: `quote:${whole.error}` }
      gross = needed + BigInt(whole.value.fixedFeeUnits)
      continue
    }
    const deposit = BigInt(quote.value.expectedAmount)
    if (deposit >= needed) return { ok: true, gross, deposit }
    gross += needed - deposit
  }
  return { ok: false, error: "quote:NoConvergence" }
}

/**
 * A conservative estimate (18 decimals) of the reward the hub pays a purchase (reference §3.6): the invoice
 * settles for `after = invoice - rewards` (min-amounts' `amountAfterDiscounts`, with the purchase counted), and a
 * current-epoch deposit earns `consumed · rewards / after`, deposits being consumed in arrival order. Earlier
 * same-epoch deposits are part of the custody, and the custody alone falls short of `after` by what the purchase
 * must cover, so at least `min(deposit, after - custodied)` of it is consumed for this invoice, whatever earlier
 * invoices of the same domain take first. Rewards from those earlier invoices are not counted.
 */
export const expectedReward18 = (invoice18: bigint, after18: bigint, custodied18: bigint, deposit18: bigint): bigint => {
  const rewards = invoice18 - after18
  if (rewards <= 0n || after18 <= 0n) return 0n
  const gap = after18 - custodied18
  const consumed = gap <= 0n ? 0n : gap < deposit18 ? gap : deposit18
  return (consumed * rewards) / after18
}
