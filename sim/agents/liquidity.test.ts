/**
 * Initial liquidity leaves each listed amount in hub custody on its chain (memory backend, agents off).
 *
 * Each entry is a fast-path intent from the chain to itself that no solver can fill (on its origin spoke it is
 * ADDED, not NONE); the hub custodies it on its origin and it waits in DEPOSIT_PROCESSED until its ten-year ttl
 * ends. Before, the entries were netting intents to the next listed chain and cancelled out (a 2-chain list
 * left 0.999 USDC per chain of 50,000; a ring of three the same).
 *
 * Exact amounts: the fee adapter keeps the fixed fee (`fixedFeeTokens`, the fast-path quote has no variable part
 * for the sender), so custody on each chain is the tokens less that fee, in 18 decimals; the hub's protocol fee
 * (floor(amount × feeDbps / 100,000)) goes to the fee vault, which is a claim on that custody, and the provider's
 * part of it is the rest (the waiting intent's amount after fees).
 */
import { describe, expect, it } from "vitest"
import { IntentStatus, normalizeDecimals, tokensToUnits } from "../../service/domain/protocol.ts"
import { createMemorySpokes } from "../../service/spoke/spoke.ts"
import { assembleRun } from "../run.ts"
import { parseScenario } from "../scenario/load.ts"
import { planWorld } from "../world/plan.ts"

const FEE_DBPS = 7
const FIXED_FEE = "0.25"

const scenarioWith = (chains: readonly number[], liquidity: readonly { chain: number; tokens: string }[], decimals = 6, fixedFee = FIXED_FEE) =>
  parseScenario(
    `
name: seeding
horizon: { seconds: 3600 }
chains: [${chains.map((c) => `{ id: ${c} }`).join(", ")}]
assets:
  - symbol: USDC
    protocolFeeDbps: ${FEE_DBPS}
    fixedFeeTokens: ${fixedFee}
    chains: [${chains.map((c) => `{ chain: ${c}, decimals: ${decimals} }`).join(", ")}]
transport: { latency: { kind: fixed, seconds: 30 } }
initialLiquidity: [${liquidity.map((l) => `{ chain: ${l.chain}, asset: USDC, tokens: ${l.tokens} }`).join(", ")}]
agents: {}
`,
    "seeding.yaml",
  ).spec

/** Runs the seeding (agents off) to `seconds`; custody per chain, fee vault, invoices and the seeds' hub state. */
const seed = async (chains: readonly number[], liquidity: readonly { chain: number; tokens: string }[], seconds: number, decimals = 6, fixedFee = FIXED_FEE) => {
  const spec = scenarioWith(chains, liquidity, decimals, fixedFee)
  const plan = planWorld(spec)
  const spokes = createMemorySpokes(plan.spokes)
  const { world, populations, metrics } = assembleRun(spec, plan, { seed: 1, spokes, agents: false })
  await world.run(seconds)
  // The seeds are the provider's, not users' intents: the run's intent counts leave them out.
  const userIntents = Object.values(metrics.created).reduce((a, b) => a + b, 0)
  const ticker = [...world.hub.state.tickers.values()].find((t) => t.config.symbol === "USDC")!
  const custody = Object.fromEntries(chains.map((c) => [c, ticker.custodied(c)]))
  const vault = [...ticker.feeVault18.values()].reduce((a, b) => a + b, 0n)
  const seeds = [...ticker.waiting].map((id) => world.hub.state.contexts.get(id)!)
  const settlements = [...world.hub.state.settlementQueues.values()].reduce((n, q) => n + q.size, 0)
  const result = { custody, vault, invoices: ticker.invoices.length, seeds, settlements, stats: populations[0]!, world, userIntents }
  world.close()
  return result
}

/** What a seed of `tokens` (6 decimals) leaves: custody (18 decimals), the hub fee, the provider's part. */
const expected = (tokens: string) => {
  const amount18 = normalizeDecimals(tokensToUnits(tokens, 6) - tokensToUnits(FIXED_FEE, 6), 6, 18)
  const fee18 = (amount18 * BigInt(FEE_DBPS)) / 100_000n
  return { custody: amount18, fee: fee18, provider: amount18 - fee18 }
}

describe("initial liquidity seeds custody on every listed chain", () => {
  it("two chains, both listed: each keeps its amount", async () => {
    const run = await seed([31001, 31002], [{ chain: 31001, tokens: "50000" }, { chain: 31002, tokens: "12345.678901" }], 600)
    const a = expected("50000")
    const b = expected("12345.678901")
    expect(a.custody).toBe(49_999_750_000_000_000_000_000n)
    expect(a.fee).toBe(3_499_982_500_000_000_000n)
    expect(run.custody).toEqual({ 31001: a.custody, 31002: b.custody })
    expect(run.vault).toBe(a.fee + b.fee)
    expect(run.invoices).toBe(0)
    expect(run.settlements).toBe(0)
    expect(run.seeds.map((c) => [c.intent!.origin, c.intent!.destinations, c.status, c.amountAfterFees18])).toEqual([
      [31001, [31001], IntentStatus.DEPOSIT_PROCESSED, a.provider],
      [31002, [31002], IntentStatus.DEPOSIT_PROCESSED, b.provider],
    ])
    expect(run.stats.actions).toEqual({ seed: 2 })
    expect(run.userIntents).toBe(0)
    expect(run.stats.rejections).toEqual({})
  })

  it("three chains listed as a ring (the case that cancelled out): each keeps its amount for the whole run", async () => {
    const liquidity = [
      { chain: 31001, tokens: "200000" },
      { chain: 31002, tokens: "200000" },
      { chain: 31003, tokens: "75000.5" },
    ]
    const run = await seed([31001, 31002, 31003], liquidity, 3600)
    expect(run.custody).toEqual({ 31001: expected("200000").custody, 31002: expected("200000").custody, 31003: expected("75000.5").custody })
    expect(run.vault).toBe(expected("200000").fee * 2n + expected("75000.5").fee)
    expect(run.invoices).toBe(0)
    expect(run.settlements).toBe(0)
    expect(run.seeds.map((c) => [c.intent!.origin, c.status])).toEqual([
      [31001, IntentStatus.DEPOSIT_PROCESSED],
      [31002, IntentStatus.DEPOSIT_PROCESSED],
      [31003, IntentStatus.DEPOSIT_PROCESSED],
    ])
  })

  it("a fixed fee written as a YAML number that prints with an exponent (2.5e-7 tokens) is that fee", async () => {
    // String(2.5e-7) is "2.5e-7", which the service's fee configuration refuses: the run turns the number into
    // its exact decimal first, as every other token amount of a scenario is read.
    const run = await seed([31001, 31002], [{ chain: 31001, tokens: "1000" }], 600, 18, "2.5e-7")
    expect(run.custody[31001]).toBe(1000n * 10n ** 18n - 250_000_000_000n)
  })

  it("a chain not listed gets nothing; the seeds cannot be filled on their chain", async () => {
    const spec = scenarioWith([31001, 31002, 31003], [{ chain: 31002, tokens: "1000" }])
    const plan = planWorld(spec, { userAccounts: 1 })
    const { world } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes), agents: false })
    const reverts: string[] = []
    const filler = plan.users[0]!.address
    world.observe({
      onSpokeEvent: (event, context) => {
        // A would-be solver tries to fill the seed as soon as it is added (the spoke checks status first).
        if (event.name !== "IntentAdded" || event.intent.ttl === 0) return
        world.submit(context.domain, filler, { kind: "spoke.fillIntent", intent: event.intent, fee: 0 }, undefined, (receipt) => {
          if (receipt.status === "reverted") reverts.push(receipt.error.name)
        })
      },
    })
    await world.run(600)
    const ticker = [...world.hub.state.tickers.values()][0]!
    expect([ticker.custodied(31001), ticker.custodied(31002), ticker.custodied(31003)]).toEqual([0n, expected("1000").custody, 0n])
    expect(reverts).toEqual(["ClearingSpoke_FillIntent_InvalidStatus"])
    world.close()
  })
})
