/**
 * Arbitrageurs (reference §3.6, §3.15, §6.6).
 *
 * 1. With the fee adapter's token fee on (3 USDC fixed, up to 10 bps variable), a purchase's deposit is at
 *    least the invoice's min-amount, so the invoice settles in the epoch the deposit arrives and is bought once.
 *    Sending the min-amount itself left the deposit short by the fee: no settlement, and a second purchase later.
 * 2. A purchase earns `consumed · rewards / after` (rewards on the current-epoch deposits only): when old custody
 *    already covers most of the invoice, the reward is a small share of the discount and the arbitrageur does
 *    not buy below its margin. Counting the full discount on the purchase, it bought at a loss.
 */
import * as Effect from "effect/Effect"
import { describe, expect, it, vi } from "vitest"
import { createMemorySpokes } from "../../service/spoke/spoke.ts"
import { assembleRun } from "../run.ts"
import { parseScenario } from "../scenario/load.ts"
import { twoChainUsdc } from "../scenario/testing.ts"
import { planWorld } from "../world/plan.ts"
import { OPERATOR_SOLVER, makeTestService } from "../../service/api/testing.ts"
import { bytes32ToAddress } from "../../service/domain/hex.ts"
import { DOMAIN_A, DOMAIN_B, assetOf } from "../../service/hub/testing.ts"
import { expectedReward18, grossUp } from "./arbitrageur.ts"
import { createIntents, sendTransaction } from "./common.ts"

const E18 = 10n ** 18n

const scenario = (opts: { fees: string; discount: string; topUpAtSeconds?: number | undefined; minDiscountBps: number; minAgeSeconds: number }) => `
name: arbitrageur
horizon: { seconds: 2400 }
hub: { epochLength: 20 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    ${opts.discount}
    ${opts.fees}
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
transport: { latency: { kind: fixed, seconds: 30 } }
agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 10000 }, paths: { basic: 1 } }
${
  opts.topUpAtSeconds === undefined
    ? ""
    : `    - { name: back, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [${opts.topUpAtSeconds}] }, flows: [{ from: 31002, to: 31001 }], size: { kind: fixed, tokens: 9000 }, paths: { basic: 1 } }`
}
  arbitrageurs:
    - { name: mm, count: 1, pollSeconds: 60, minDiscountBps: ${opts.minDiscountBps}, minInvoiceAgeSeconds: ${opts.minAgeSeconds}, capital: [{ chain: 31002, asset: USDC, tokens: 100000 }] }
`

const run = async (text: string) => {
  const spec = parseScenario(text, "arbitrageur.yaml").spec
  const plan = planWorld(spec)
  const spokes = createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false })
  const { world } = assembleRun(spec, plan, { seed: 1, spokes })
  const arbitrageur = plan.agents.find((a) => a.kind === "arbitrageur")!.account.address.toLowerCase()
  const user = plan.agents.find((a) => a.kind === "rebalancer")!.account.address.toLowerCase()
  const receiverOf = (intentId: string) => `0x${String(world.hub.state.contexts.get(intentId as `0x${string}`)?.intent?.receiver).slice(-40)}`.toLowerCase()
  const purchases: { epoch: number; amount18: bigint }[] = []
  let invoice: string | undefined
  let settledEpoch: number | undefined
  world.observe({
    onHubEvent: (e) => {
      if (e.kind === "DepositEnqueued" && receiverOf(e.intentId) === arbitrageur) purchases.push({ epoch: e.epoch, amount18: e.amount })
      if (e.kind === "InvoiceEnqueued" && receiverOf(e.intentId) === user) invoice = e.intentId
      if (e.kind === "SettlementEnqueued" && e.intentId === invoice) settledEpoch = world.hub.state.currentEpoch()
    },
  })
  await world.run(plan.horizonSeconds)
  world.close()
  return { purchases, invoice, settledEpoch }
}

describe("arbitrageur purchases", () => {
  it("send the min-amount plus the fee adapter's fee: the invoice settles in the epoch the deposit arrives, bought once", async () => {
    const { purchases, invoice, settledEpoch } = await run(
      scenario({ fees: 'fixedFeeTokens: "3"\n    maxVariableFeeBps: 10', discount: "discountPerEpochDbps: 200\n    maxDiscountDbps: 600", minDiscountBps: 0, minAgeSeconds: 1 }),
    )
    expect(invoice).toBeDefined()
    expect(purchases).toHaveLength(1)
    expect(settledEpoch).toBe(purchases[0]!.epoch)
  })

  it("do not buy when old custody covers most of the invoice and the realised reward is below the margin", async () => {
    // The invoice (~10,000) waits; 9,000 arrive on 31002 and settle on 31001, staying in 31002's custody. The
    // min-amount is then ~1,000, whose reward is ~1,000/10,000 of the discount (≤ 1 bps), below the 5 bps margin.
    const text = (topUp: number | undefined) =>
      scenario({ fees: 'fixedFeeTokens: "0"\n    maxVariableFeeBps: 0\n    protocolFeeDbps: 0', discount: "discountPerEpochDbps: 100\n    maxDiscountDbps: 100", topUpAtSeconds: topUp, minDiscountBps: 5, minAgeSeconds: 900 })
    const covered = await run(text(300))
    expect(covered.invoice).toBeDefined()
    expect(covered.purchases).toHaveLength(0)
    // Without that custody the purchase earns the whole discount (10 bps) and is made.
    const uncovered = await run(text(undefined))
    expect(uncovered.purchases).toHaveLength(1)
    expect(uncovered.settledEpoch).toBe(uncovered.purchases[0]!.epoch)
  })

  it("estimate the reward as the hub pays it (§3.6, §7 vector A) and never above it", () => {
    // Vector A: invoice 97,000, 70,000 deposits this epoch, no other custody: rewards 2,100, after 94,900; a 10,000
    // deposit earns 10,000 · 2,100 / 94,900.
    const invoice = 97_000n * E18
    const after = 94_900n * E18
    expect(expectedReward18(invoice, after, 0n, 10_000n * E18)).toBe((10_000n * E18 * 2_100n * E18) / after)
    // Custody covering all of `after`: nothing of the purchase is sure to be consumed.
    expect(expectedReward18(invoice, after, after, 10_000n * E18)).toBe(0n)
    // Custody of 90,000: at least 4,900 of the deposit is consumed.
    expect(expectedReward18(invoice, after, 90_000n * E18, 10_000n * E18)).toBe((4_900n * E18 * 2_100n * E18) / after)
    expect(expectedReward18(invoice, invoice, 0n, 10_000n * E18)).toBe(0n)
  })
})

describe("arbitrageur purchases in flight", () => {
  it("are not bought again the next epoch, while the deposit is still on its way to the hub", async () => {
    const { runScenario } = await import("../run.ts")
    // 60 s epochs (5 hub blocks), one poll in each; a purchase takes 100 s to reach the hub (70 s of transport): the
    // poll of the next epoch still reads the invoice's min-amount without it, and skips the invoice bought the epoch
    // before. The poll after it arrived reads a min-amount of 0 (alreadyCovered). It arrived after that epoch's
    // processing call, so it earned no reward (facts §3.6): the invoice then lacks ~10 USDC, not worth buying.
    const text = scenario({ fees: 'fixedFeeTokens: "0"\n    maxVariableFeeBps: 0', discount: "discountPerEpochDbps: 100\n    maxDiscountDbps: 100", minDiscountBps: 0, minAgeSeconds: 1 })
      .replace("epochLength: 20", "epochLength: 5")
      .replace("seconds: 30 }", "seconds: 70 }")
    const { report } = await runScenario(parseScenario(text, "arbitrageur.yaml"), { seed: 1, backend: "memory" })
    const mm = report.agents.find((a) => a.kind === "arbitrageur")!
    expect([mm.actions, mm.rejections]).toEqual([{ purchase: 1, repaid: 1 }, { alreadyCovered: 1, unprofitable: 1 }])
  })
})

describe("arbitrageur rejections", () => {
  it("count an invoice passed over once per reason, not at every poll that sees it again", async () => {
    const { readFileSync } = await import("node:fs")
    const { runScenario } = await import("../run.ts")
    // one-sided-drain with 10,000 USDC of capital per arbitrageur: most invoices are beyond it, poll after poll.
    const text = readFileSync(new URL("../../scenarios/one-sided-drain.yaml", import.meta.url), "utf8")
      .replace(/tokens: \d+ \}/, "tokens: 10000 }")
      .replace("hours: 4", "hours: 2")
      .replace(/^properties:[\s\S]*$/m, "")
    const { report } = await runScenario(parseScenario(text, "one-sided-drain.yaml"), { seed: 21, backend: "memory" })
    const mm = report.agents.find((a) => a.kind === "arbitrageur")!
    expect(mm.agents).toBeGreaterThan(1)
    expect(mm.rejections.noCapital).toBeGreaterThan(0)
    // Each agent counts an invoice at most once per reason: never more than agents × invoices (it was 33,860 on
    // four hours, one per invoice and poll).
    expect(mm.rejections.noCapital).toBeLessThanOrEqual(mm.agents * report.discounts.invoicesCreated)
  })
})

describe("arbitrageur capital", () => {
  it("comes back where a purchase is repaid and buys there: invoices one way, then the other", async () => {
    const { runScenario } = await import("../run.ts")
    // East's intents invoice on 31002, which the arbitrageur buys with its capital there; it is repaid on 31001.
    // An hour and a half later west's intents invoice on 31001, where only the repaid capital can buy them.
    const scenario = twoChainUsdc(
      "recycle",
      "{ hours: 3 }",
      `agents:
  rebalancers:
    - { name: east, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60, 120, 180, 240, 300, 360, 420, 480] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 1000 } }
    - { name: west, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [5400, 5460, 5520, 5580, 5640, 5700, 5760, 5820] }, flows: [{ from: 31002, to: 31001 }], size: { kind: fixed, tokens: 1000 } }
  arbitrageurs:
    - { name: mm, count: 1, pollSeconds: 60, minDiscountBps: 0, capital: [{ chain: 31002, asset: USDC, tokens: 20000 }] }`,
      { hub: "epochLength: 20", usdc: { discountPerEpochDbps: 10, maxDiscountDbps: 60 } },
    )
    const { report } = await runScenario(scenario, { seed: 1, backend: "memory" })
    const mm = report.agents.find((a) => a.kind === "arbitrageur")!
    // Every purchase repaid; west's invoices bought with what came back (it had no capital on 31001: 1 of 8 settled).
    expect(mm.actions.repaid).toBe(report.intents.byPopulation!.mm!.settled)
    expect(mm.rejections.noCapitalWhereBuyable).toBeUndefined()
    expect(report.intents.byPopulation!.west!.settled).toBeGreaterThanOrEqual(6)
    expect(mm.actions.purchase).toBeGreaterThan(8)
  })
})

describe("arbitrageur capital after a reverted purchase", () => {
  it("is there again: a purchase mined after its fee signature's deadline reverts, and the capital buys the invoice later", async () => {
    const { runScenario } = await import("../run.ts")
    // One invoice of 1,000 USDC on 31002 (no custody there), one arbitrageur with capital for one purchase on 31002
    // (12 s blocks; it polls at 30 s + 60 s·k, 6 s before a block).
    const text = (outage: string) =>
      twoChainUsdc(
        "reverted-purchase",
        "{ hours: 3 }",
        `transport: { latency: { kind: fixed, seconds: 30 }${outage} }
agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 1000 } }
  arbitrageurs:
    - { name: mm, count: 1, pollSeconds: 60, minDiscountBps: 0, minInvoiceAgeSeconds: 1, capital: [{ chain: 31002, asset: USDC, tokens: 1000 }] }`,
        { hub: "epochLength: 20", blockTimeSeconds: [2, 12], usdc: { discountPerEpochDbps: 10, maxDiscountDbps: 60, fixedFeeTokens: '"0"', maxVariableFeeBps: 0 } },
      )
    // Without faults: one purchase, mined at `minedAt`, and the invoice settled.
    const calm = text("")
    const plan = planWorld(calm.spec)
    const { world } = assembleRun(calm.spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false }) })
    const mm = plan.agents.find((a) => a.kind === "arbitrageur")!.account.address.toLowerCase()
    const minedAt: number[] = []
    world.observe({
      onSpokeEvent: (event, context) => {
        if (event.name === "IntentAdded" && context.domain === 31002 && context.receipt.from.toLowerCase() === mm) minedAt.push(world.nowMs / 1000)
      },
    })
    await world.run(plan.horizonSeconds)
    world.close()
    expect(minedAt).toHaveLength(1)
    const calmReport = (await runScenario(calm, { seed: 1, backend: "memory" })).report
    expect(calmReport.intents.byPopulation!.user!.settled).toBe(1)
    // Sent 6 s before the block that mined it: 31002 halts from the next second for 5,000 s, longer than the fee
    // signature's validity (3,600 s rounded up to 10 minutes). Mined after the halt, the purchase reverts.
    const sentAt = minedAt[0]! - 6
    const { report } = await runScenario(text(`, faults: { outages: [{ domain: 31002, kind: halt, fromSeconds: ${sentAt + 1}, toSeconds: ${sentAt + 5001} }] }`), { seed: 1, backend: "memory" })
    const agent = report.agents.find((a) => a.kind === "arbitrageur")!
    const reverts = Object.entries(agent.rejections).filter(([reason]) => !["noCapital", "alreadyCovered", "unprofitable"].includes(reason))
    expect(reverts).toEqual([[expect.stringMatching(/deadline|expired/i), 1]])
    // The second purchase is made with the capital the first gave back (there is no other), and settles the invoice.
    expect(agent.actions.purchase).toBe(1)
    expect(report.intents.byPopulation!.user!.settled).toBe(1)
  })
})

describe("arbitrageur purchase decision", () => {
  const report = async (protocolFeeDbps: number, discountDbps: number, capitalTokens = "100000") => {
    const { runScenario } = await import("../run.ts")
    const text = scenario({
      fees: `fixedFeeTokens: "0"\n    maxVariableFeeBps: 0\n    protocolFeeDbps: ${protocolFeeDbps}`,
      discount: `discountPerEpochDbps: ${discountDbps}\n    maxDiscountDbps: ${discountDbps}`,
      minDiscountBps: 0,
      minAgeSeconds: 900,
    }).replace("tokens: 100000 }", `tokens: ${capitalTokens} }`)
    const { report } = await runScenario(parseScenario(text, "arbitrageur.yaml"), { seed: 1, backend: "memory" })
    const mm = report.agents.find((a) => a.kind === "arbitrageur")!
    return [mm.actions.purchase, mm.rejections]
  }

  it("counts the hub's protocol fee on its deposit: a 10 bps reward does not pay 15 bps of fee, and pays 5", async () => {
    // The invoice's discount is 100 dbps (10 bps), all of it the purchase's reward (no other custody on 31002).
    expect(await report(150, 100)).toEqual([undefined, { unprofitable: 1 }])
    expect(await report(50, 100)).toEqual([1, {}])
  })

  it("passes over an invoice without a discount silently (nothing to earn, no min-amounts read)", async () => {
    expect(await report(0, 0)).toEqual([undefined, {}])
  })

  it("buys with capital of exactly the min-amount, and not one unit less", async () => {
    // Invoice 10,000, discount 100 dbps, nothing in custody on 31002: a deposit D settles it when
    // D >= 10,000 - D · 100 / 100,000, so D = 10,000 · 100,000 / 100,100 = 9,990.00999000999... rounded up to
    // 9,990.009991 USDC (no fees: the amount sent is the deposit).
    expect(await report(0, 100, '"9990.009991"')).toEqual([1, {}])
    expect(await report(0, 100, '"9990.00999"')).toEqual([undefined, { noCapital: 1 }])
  })

  it("adds up capital listed in two entries for the same chain and asset (as the loader sums them): exactly the min-amount buys", async () => {
    // 9,990 + 0.009991 = 9,990.009991 USDC, the min-amount above. Only the last entry counted, it was noCapital.
    expect(await report(0, 100, '"9990" }, { chain: 31002, asset: USDC, tokens: "0.009991"')).toEqual([1, {}])
    expect(await report(0, 100, '"0.009991" }, { chain: 31002, asset: USDC, tokens: "9990"')).toEqual([1, {}])
  })

  it("buys when the reward exactly pays the fee adapter's fee, and not when the fee is one unit more", async () => {
    const { runScenario } = await import("../run.ts")
    // An 18-decimal USDC, a fixed fee F, no other fee: the user's 10,000 deposit I = 10^22 - F; its min-amount (100
    // dbps) is A = 10^5 · I / 100,100 + 1, all consumed, earning I - A; the purchase sends A + F to deposit A.
    // F = 9.980039920159680638: I = 9,990.019960079840319362, A = 9,980.039920159680638724, reward I - A = F.
    const decide = async (fixedFee: string) => {
      const text = scenario({ fees: `fixedFeeTokens: "${fixedFee}"\n    maxVariableFeeBps: 0\n    protocolFeeDbps: 0`, discount: "discountPerEpochDbps: 100\n    maxDiscountDbps: 100", minDiscountBps: 0, minAgeSeconds: 900 }).replace(/decimals: 6/g, "decimals: 18")
      const { report } = await runScenario(parseScenario(text, "arbitrageur.yaml"), { seed: 1, backend: "memory" })
      const mm = report.agents.find((a) => a.kind === "arbitrageur")!
      return [mm.actions.purchase, mm.rejections]
    }
    expect(await decide("9.980039920159680638")).toEqual([1, {}])
    // One unit more: the reward (I - A, with I one unit less) is one unit short of the fee.
    expect(await decide("9.980039920159680639")).toEqual([undefined, { unprofitable: 1 }])
  })

  it("asks its margin as written: 0.0004 bps of the purchase is not 0 (it was rounded to 0.001 bps)", async () => {
    const { runScenario } = await import("../run.ts")
    // The purchase above whose reward exactly pays the fixed fee F: any margin makes it unprofitable.
    const decide = async (minDiscountBps: number) => {
      const text = scenario({ fees: 'fixedFeeTokens: "9.980039920159680638"\n    maxVariableFeeBps: 0\n    protocolFeeDbps: 0', discount: "discountPerEpochDbps: 100\n    maxDiscountDbps: 100", minDiscountBps, minAgeSeconds: 900 }).replace(/decimals: 6/g, "decimals: 18")
      const { report } = await runScenario(parseScenario(text, "arbitrageur.yaml"), { seed: 1, backend: "memory" })
      const mm = report.agents.find((a) => a.kind === "arbitrageur")!
      return [mm.actions.purchase, mm.rejections]
    }
    expect(await decide(0.0004)).toEqual([undefined, { unprofitable: 1 }])
  })
})

/** Chains 31001, 31002 and 31003, an invoice's discount 100 dbps from its first epoch, no API fee. */
const THREE_CHAINS = { hub: "epochLength: 20", chainIds: [31001, 31002, 31003], usdc: { discountPerEpochDbps: 100, maxDiscountDbps: 100, fixedFeeTokens: '"0"', maxVariableFeeBps: 0 } }

describe("arbitrageur purchase destination", () => {
  it("is the invoice's origin, where its custody grew and the purchase is repaid, not the first other chain", async () => {
    const { runScenario } = await import("../run.ts")
    // An invoice of 10,000 from 31002 to 31003 (no custody there), bought with capital on 31003: the purchase goes to
    // 31002, settled there from the invoice's own deposit. Sent to 31001 (no custody), it would wait as an invoice.
    const rest = `
transport: { latency: { kind: fixed, seconds: 30 } }
agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31002, to: 31003 }], size: { kind: fixed, tokens: 10000 }, paths: { basic: 1 } }
  arbitrageurs:
    - { name: mm, count: 1, pollSeconds: 60, capital: [{ chain: 31003, asset: USDC, tokens: 100000 }] }
`
    const { report } = await runScenario(twoChainUsdc("arbitrageur-destination", "{ seconds: 2400 }", rest, THREE_CHAINS), { seed: 1, backend: "memory" })
    const mm = report.agents.find((a) => a.kind === "arbitrageur")!
    expect([mm.actions, mm.rejections]).toEqual([{ purchase: 1, repaid: 1 }, {}])
    expect(report.intents.byPopulation!.user!.settled).toBe(1)
  })
})

describe("grossUp", () => {
  it("learns the fixed fee from a quote of the whole capital when the min-amount is below it, then covers the variable fee", () => {
    // The clearing service's own quotes: 3 USDC fixed plus 10 bps (no custody on the destination, so the
    // utilization fee is at its maximum), an amount that does not cover the fee refused (InvalidAmount).
    const { service } = makeTestService({ config: { quotes: { default: { fixedFeeTokens: "3", maxVariableFeeBps: 10, fastPathFeeBps: 3 } } } })
    const route = { origin: String(DOMAIN_B), destinations: [String(DOMAIN_A)], inputAsset: bytes32ToAddress(assetOf("USDC", DOMAIN_B)), to: OPERATOR_SOLVER, from: OPERATOR_SOLVER }
    // Needed 1 USDC: 1 is refused; 1 + 3 = 4 USDC leaves 996,000 (4,000 of variable fee); 4,004,000 leaves 999,996;
    // 4,004,004 leaves exactly 1,000,000.
    expect(grossUp(service, route, 1_000_000n, 100_000_000n)).toEqual({ ok: true, gross: 4_004_004n, deposit: 1_000_000n })
    // The capital short of the grossed-up amount: none.
    expect(grossUp(service, route, 1_000_000n, 4_004_003n)).toEqual({ ok: false, error: "noCapital" })
  })
})

describe("arbitrageur purchase domain", () => {
  // 5,000 from `custodied` to 31001 (no custody there): invoiced, the deposit stays in `custodied`'s custody (the
  // arbitrageur, with no capital on 31001, cannot buy it). Then 10,000 from 31001 to 31002 or 31003: its min-amount is
  // ~9,990 on the one without custody, ~4,995 on `custodied`. With capital on both, it buys on `custodied`.
  const purchaseDomains = async (custodied: number) => {
    const rest = `
agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: ${custodied}, to: 31001 }], size: { kind: fixed, tokens: 5000 }, paths: { basic: 1 } }
  arbitrageurs:
    - { name: mm, count: 1, pollSeconds: 60, minInvoiceAgeSeconds: 1, capital: [{ chain: 31002, asset: USDC, tokens: 100000 }, { chain: 31003, asset: USDC, tokens: 100000 }] }
`
    const spec = twoChainUsdc("arbitrageur-cheapest", "{ seconds: 1200 }", rest, THREE_CHAINS).spec
    const plan = planWorld(spec)
    const { world, service } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false }) })
    const user = plan.agents.find((a) => a.kind === "rebalancer")!.account.address
    const mm = plan.agents.find((a) => a.kind === "arbitrageur")!.account.address.toLowerCase()
    const usdc = plan.assets.get("USDC:31001")!.address
    world.scheduler.at(300_000, "two destinations", async () => {
      const tx = await createIntents(service, { origin: "31001", destinations: ["31002", "31003"], inputAsset: usdc, amount: "10000000000", to: user, from: user })
      if (tx.ok) sendTransaction(world, user, tx.value)
    })
    const purchasedOn: number[] = []
    world.observe({
      onSpokeEvent: (event, context) => {
        if (event.name === "IntentAdded" && context.receipt.from.toLowerCase() === mm) purchasedOn.push(context.domain)
      },
    })
    await world.run(plan.horizonSeconds)
    world.close()
    return purchasedOn
  }

  it("is the invoice's destination with the lowest min-amount where it holds capital, first or last", async () => {
    expect(await purchaseDomains(31003)).toEqual([31003])
    expect(await purchaseDomains(31002)).toEqual([31002])
  })

  it("is the lowest domain id of two with equal min-amounts (SPEC orders none), not the intent's or the capital's order", async () => {
    // No custody on 31002 or 31003: 10,000 from 31001 to [31003, 31002] is invoiced with the same min-amount on both
    // (~9,990). The arbitrageur takes a later domain only when strictly cheaper, over the min-amounts by domain,
    // whose integer keys a JavaScript object lists in ascending order: the intent's destinations and the capital
    // are listed the other way round here.
    const rest = `
agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [5000] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 1 }, paths: { basic: 1 } }
  arbitrageurs:
    - { name: mm, count: 1, pollSeconds: 60, minInvoiceAgeSeconds: 1, capital: [{ chain: 31003, asset: USDC, tokens: 100000 }, { chain: 31002, asset: USDC, tokens: 100000 }] }
`
    const spec = twoChainUsdc("arbitrageur-tie", "{ seconds: 1200 }", rest, THREE_CHAINS).spec
    const plan = planWorld(spec)
    const { world, service } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false }) })
    const user = plan.agents.find((a) => a.kind === "rebalancer")!.account.address
    const mm = plan.agents.find((a) => a.kind === "arbitrageur")!.account.address.toLowerCase()
    world.scheduler.at(60_000, "two destinations", async () => {
      const tx = await createIntents(service, { origin: "31001", destinations: ["31003", "31002"], inputAsset: plan.assets.get("USDC:31001")!.address, amount: "10000000000", to: user, from: user })
      if (tx.ok) sendTransaction(world, user, tx.value)
    })
    // The min-amounts the arbitrageur read.
    const read: Record<string, string>[] = []
    const getMinAmounts = service.getMinAmounts.bind(service)
    const spy = vi.spyOn(service, "getMinAmounts").mockImplementation((id) => Effect.tap(getMinAmounts(id), (m) => Effect.sync(() => void read.push(m.minAmounts))))
    const purchasedOn: number[] = []
    world.observe({
      onSpokeEvent: (event, context) => {
        if (event.name === "IntentAdded" && context.receipt.from.toLowerCase() === mm) purchasedOn.push(context.domain)
      },
    })
    try {
      await world.run(plan.horizonSeconds)
    } finally {
      spy.mockRestore()
      world.close()
    }
    // The invoice is 10,000 less the hub's 2 dbps, 9,999.8; on either chain a deposit D settles it when
    // D >= 9,999.8 - D · 100 / 100,000: D = 9,999.8 · 100,000 / 100,100 = 9,989.810189810189810189.8..., rounded up.
    const equal = "9989810189810189810190"
    expect(read).toEqual([{ 31002: equal, 31003: equal }])
    expect(purchasedOn).toEqual([31002])
  })
})

describe("arbitrageur's own invoice", () => {
  it("is not bought: an intent of its own from 31002 to 31001 (no custody there) waits, though it holds capital on 31001", async () => {
    const text = `
name: arbitrageur-own
horizon: { seconds: 1200 }
hub: { epochLength: 20 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    discountPerEpochDbps: 100
    maxDiscountDbps: 100
    fixedFeeTokens: "0"
    maxVariableFeeBps: 0
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
agents:
  arbitrageurs:
    - { name: mm, count: 1, pollSeconds: 60, minInvoiceAgeSeconds: 1, capital: [{ chain: 31001, asset: USDC, tokens: 100000 }, { chain: 31002, asset: USDC, tokens: 100000 }] }
`
    const spec = parseScenario(text, "arbitrageur-own.yaml").spec
    const plan = planWorld(spec)
    const { world, service, populations } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false }) })
    const mm = plan.agents.find((a) => a.kind === "arbitrageur")!.account.address
    let invoiced = false
    world.observe({ onHubEvent: (e) => void (e.kind === "InvoiceEnqueued" && (invoiced = true)) })
    world.scheduler.at(60_000, "own intent", async () => {
      const tx = await createIntents(service, { origin: "31002", destinations: ["31001"], inputAsset: plan.assets.get("USDC:31002")!.address, amount: "1000000000", to: mm, from: mm })
      if (tx.ok) sendTransaction(world, mm, tx.value)
    })
    await world.run(plan.horizonSeconds)
    world.close()
    expect(invoiced).toBe(true)
    const stats = populations.find((p) => p.kind === "arbitrageur")!
    expect([stats.actions, stats.rejections]).toEqual([{}, {}])
  })
})

describe("arbitrageur settled nothing", () => {
  it("takes a Settled of 0 (reference §4.5: normalized to 0 units, nothing paid) as no capital: not repaid, no capital opened on that chain", async () => {
    // mm holds capital on 31001 only. At 60 s it sends itself 1 unit (0.000001 USDC, no API fee) from 31001 to
    // 31002: 10^12 in 18 decimals, less the hub's 2 dbps (2·10^7) = 999,980,000,000, settled from the initial
    // liquidity on 31002 as 999,980,000,000 / 10^12 = 0 units: Settled(mm, 0). A user's 10,000 to 31002 (custody
    // 1,000 there), sent at 300 s, is invoiced after that; mm, with no capital on 31002, passes it over as
    // noCapitalWhereBuyable. Had the 0 opened capital of 0 on 31002 (and counted a repayment), it would be noCapital.
    const text = `
name: arbitrageur-settled-zero
horizon: { seconds: 1200 }
hub: { epochLength: 20 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    discountPerEpochDbps: 100
    maxDiscountDbps: 100
    fixedFeeTokens: "0"
    maxVariableFeeBps: 0
    protocolFeeDbps: 2
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
initialLiquidity: [{ chain: 31002, asset: USDC, tokens: 1000 }]
agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [300] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 10000 }, paths: { basic: 1 } }
  arbitrageurs:
    - { name: mm, count: 1, pollSeconds: 60, minInvoiceAgeSeconds: 1, capital: [{ chain: 31001, asset: USDC, tokens: 100000 }] }
`
    const spec = parseScenario(text, "arbitrageur-settled-zero.yaml").spec
    const plan = planWorld(spec)
    const { world, service, populations } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes, { retainEvents: false, validateCalls: false }) })
    const mm = plan.agents.find((a) => a.kind === "arbitrageur")!.account.address
    const settledToMm: { domain: number; amount: bigint; atSeconds: number }[] = []
    let invoicedAtSeconds: number | undefined
    world.observe({
      onSpokeEvent: (event, context) => {
        if (event.name === "Settled" && event.account.toLowerCase() === mm.toLowerCase()) settledToMm.push({ domain: context.domain, amount: event.amount, atSeconds: world.nowMs / 1000 })
      },
      onHubEvent: (e) => void (e.kind === "InvoiceEnqueued" && invoicedAtSeconds === undefined && (invoicedAtSeconds = world.nowMs / 1000)),
    })
    world.scheduler.at(60_000, "one unit", async () => {
      const tx = await createIntents(service, { origin: "31001", destinations: ["31002"], inputAsset: plan.assets.get("USDC:31001")!.address, amount: "1", to: mm, from: mm })
      if (tx.ok) sendTransaction(world, mm, tx.value)
    })
    await world.run(plan.horizonSeconds)
    world.close()
    expect(settledToMm.map(({ domain, amount }) => [domain, amount])).toEqual([[31002, 0n]])
    expect(settledToMm[0]!.atSeconds).toBeLessThan(invoicedAtSeconds!)
    const stats = populations.find((p) => p.kind === "arbitrageur")!
    expect([stats.actions, stats.rejections]).toEqual([{}, { noCapitalWhereBuyable: 1 }])
  })
})
