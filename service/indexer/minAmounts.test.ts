/**
 * `computeMinAmounts` against the algorithm it replaced (kept below as the reference: every replay from the head
 * of the ticker's invoices), on random hub states: synthetic ones (several tickers and domains, xERC20 domains
 * and both priorities, invoices of many entry epochs, custody and current-epoch deposits comparable to the
 * invoices so that they compete, user-supported domains, caps, ties) and ones the hub reached through its own
 * operations. Every open invoice is compared, field by field and in map order. The fast path's replays
 * (`FifoReplay.replay`) are also compared one by one with the reference's on a grid of deposits that lands on its
 * thresholds exactly. Fixed seeds.
 */
import { uniformBigInt } from "pure-rand/distribution/uniformBigInt"
import { uniformInt } from "pure-rand/distribution/uniformInt"
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus"
import type { RandomGenerator } from "pure-rand/types/RandomGenerator"
import { describe, expect, it, vi } from "vitest"
import { addressToBytes32, type Bytes32 } from "../domain/hex.ts"
import { DBPS_DENOMINATOR, type Intent, Strategy } from "../domain/protocol.ts"
import type { DomainAsset, HubConfigInput } from "../hub/config.ts"
import { Hub } from "../hub/hub.ts"
import { discountDbps, evaluateInvoice, settlementDomains } from "../hub/settler.ts"
import { IntentContext, InvoiceNode, type TickerState } from "../hub/state.ts"
import { timeOf, u } from "../hub/testing.ts"
import { CollectingSink } from "../hub/trace.ts"
import { computeMinAmounts, FifoBase, FifoReplay, firstSettling, type InvoiceMinAmounts, minDepositFormula } from "./minAmounts.ts"
import { TestWorld } from "./testing.ts"

// ---------------------------------------------------------------------------------------------------------
// The reference: the previous implementation, unchanged

const referenceFormula = (invoice18: bigint, custodied18: bigint, depositedThisEpoch18: bigint, discount: number): bigint => {
  const dbps = BigInt(discount)
  const covered = depositedThisEpoch18 < invoice18 ? depositedThisEpoch18 : invoice18
  if (custodied18 >= invoice18 - (covered * dbps) / DBPS_DENOMINATOR) return 0n
  return (DBPS_DENOMINATOR * (invoice18 - custodied18) - dbps * depositedThisEpoch18) / (DBPS_DENOMINATOR + dbps) + 1n
}

interface Overlay {
  readonly custodied: Map<number, bigint>
  readonly available: Map<number, bigint>
}

const viewOf = (ticker: TickerState, overlay: Overlay): TickerState =>
  ({
    custodied: (domain: number) => overlay.custodied.get(domain) ?? ticker.custodied(domain),
    depositQueue: (_epoch: number, domain: number) => ({ available18: overlay.available.get(domain) ?? 0n }),
  }) as unknown as TickerState

/** The ticker's custody and current-epoch deposits per domain, with `extra18` more of both on `domain`. */
const overlayWith = (ticker: TickerState, epoch: number, domain: number, extra18: bigint): Overlay => {
  const overlay: Overlay = { custodied: new Map(), available: new Map() }
  for (const d of ticker.config.domains) {
    overlay.custodied.set(d.domain, ticker.custodied(d.domain))
    overlay.available.set(d.domain, ticker.depositQueue(epoch, d.domain)?.available18 ?? 0n)
  }
  overlay.custodied.set(domain, (overlay.custodied.get(domain) ?? 0n) + extra18)
  overlay.available.set(domain, (overlay.available.get(domain) ?? 0n) + extra18)
  return overlay
}

/** Calls of `referenceReplay` so far. */
let referenceReplays = 0

const referenceReplay = (hub: Hub, ticker: TickerState, target: InvoiceNode, domain: number, extra18: bigint): { settled: boolean; before: Overlay } => {
  referenceReplays++
  const state = hub.state
  const epoch = state.currentEpoch()
  const overlay = overlayWith(ticker, epoch, domain, extra18)
  const view = viewOf(ticker, overlay)
  const xerc20First = ticker.config.prioritizedStrategy === Strategy.XERC20
  for (let invoice = ticker.invoices.head; invoice !== undefined; invoice = invoice.next) {
    const isTarget = invoice === target
    const before: Overlay = isTarget ? { custodied: new Map(overlay.custodied), available: new Map(overlay.available) } : overlay
    const domains = settlementDomains(state, ticker, invoice.ctx, invoice.owner)
    const hasXerc20 = domains.some((d) => d.strategy === Strategy.XERC20)
    let settled = xerc20First && hasXerc20
    if (!settled) {
      const discount = discountDbps(state, ticker, epoch, invoice.entryEpoch, invoice.ctx)
      const found = evaluateInvoice(view, epoch, invoice.amount18, discount, domains)
      if (found !== undefined) {
        settled = true
        const after = found.amountAfterDiscount18
        overlay.custodied.set(found.domain, (overlay.custodied.get(found.domain) ?? 0n) - after)
        const available = overlay.available.get(found.domain) ?? 0n
        overlay.available.set(found.domain, available > after ? available - after : 0n)
      } else settled = !xerc20First && hasXerc20
    }
    if (isTarget) return { settled, before }
  }
  return { settled: false, before: overlay }
}

const referenceMinAmounts = (hub: Hub, ticker: TickerState, node: InvoiceNode): InvoiceMinAmounts => {
  const state = hub.state
  const epoch = state.currentEpoch()
  const discount = discountDbps(state, ticker, epoch, node.entryEpoch, node.ctx)
  const candidates: DomainAsset[] = settlementDomains(state, ticker, node.ctx, node.owner).filter((d) => d.strategy === Strategy.DEFAULT)
  const amountAfterDiscounts = new Map<number, bigint>()
  const custodiedAmounts = new Map<number, bigint>()
  const minAmounts = new Map<number, bigint>()
  const invoiceCount = ticker.invoices.length
  for (const candidate of candidates) {
    const d = candidate.domain
    custodiedAmounts.set(d, ticker.custodied(d))
    let extra = 0n
    let below = -1n
    let rounds = 0
    let result = referenceReplay(hub, ticker, node, d, extra)
    for (; !result.settled && rounds <= invoiceCount + 2; rounds++) {
      const shortfall = referenceFormula(node.amount18, result.before.custodied.get(d) ?? 0n, result.before.available.get(d) ?? 0n, discount)
      if (shortfall === 0n) break
      below = extra
      extra += shortfall
      result = referenceReplay(hub, ticker, node, d, extra)
    }
    if (!result.settled) continue
    if (rounds > 1) {
      let lo = below
      let hi = extra
      while (hi - lo > 1n) {
        const mid = (lo + hi) / 2n
        if (referenceReplay(hub, ticker, node, d, mid).settled) hi = mid
        else lo = mid
      }
      extra = hi
      result = referenceReplay(hub, ticker, node, d, extra)
    }
    minAmounts.set(d, extra)
    const deposits = result.before.available.get(d) ?? 0n
    const covered = deposits < node.amount18 ? deposits : node.amount18
    amountAfterDiscounts.set(d, node.amount18 - (covered * BigInt(discount)) / DBPS_DENOMINATOR)
  }
  return { invoiceAmount: node.amount18, discountDbps: discount, amountAfterDiscounts, custodiedAmounts, minAmounts }
}

// ---------------------------------------------------------------------------------------------------------
// Comparison

/** Every field, maps as entry lists in their order. */
const plain = (m: InvoiceMinAmounts): unknown => ({
  invoiceAmount: m.invoiceAmount,
  discountDbps: m.discountDbps,
  amountAfterDiscounts: [...m.amountAfterDiscounts],
  custodiedAmounts: [...m.custodiedAmounts],
  minAmounts: [...m.minAmounts],
})

interface Tally {
  invoices: number
  /** Invoices with a non-zero minimum on some domain reached through earlier invoices (bisection). */
  nonZero: number
}

const compareTicker = (hub: Hub, ticker: TickerState, tally: Tally): void => {
  for (let node = ticker.invoices.head; node !== undefined; node = node.next) {
    const expected = referenceMinAmounts(hub, ticker, node)
    const actual = computeMinAmounts(hub, ticker, node)
    expect(plain(actual)).toEqual(plain(expected))
    tally.invoices++
    for (const v of expected.minAmounts.values()) if (v > 0n) tally.nonZero++
  }
}

// ---------------------------------------------------------------------------------------------------------
// Synthetic hub states

const pick = <T>(rng: RandomGenerator, items: readonly T[]): T => items[uniformInt(rng, 0, items.length - 1)]!
const chance = (rng: RandomGenerator, percent: number): boolean => uniformInt(rng, 0, 99) < percent
const word = (prefix: string, n: number): Bytes32 => `0x${prefix}${n.toString(16).padStart(64 - prefix.length, "0")}` as Bytes32

const DOMAINS = [1, 10, 56, 137, 8453]
const EPOCH_LENGTH = 10
const EPOCH = 20

/** An amount of the state's scale: a few whole units, sometimes the same as others, sometimes with dust. */
const amountOf = (rng: RandomGenerator, maxUnits: number): bigint => {
  const units = BigInt(uniformInt(rng, 0, maxUnits))
  const base = units * u(1)
  if (chance(rng, 30)) return base
  return base + uniformBigInt(rng, 0n, u(1))
}

const syntheticHub = (rng: RandomGenerator): Hub => {
  const tickers: HubConfigInput["tickers"][number][] = []
  const tickerCount = uniformInt(rng, 1, 3)
  for (let t = 0; t < tickerCount; t++) {
    const domains = DOMAINS.filter(() => chance(rng, 70))
    if (domains.length === 0) domains.push(pick(rng, DOMAINS))
    const withXerc20 = chance(rng, 30)
    const [discountPerEpoch, maxDiscountDbps] = pick(rng, [[0, 0], [3, 12], [1, 12], [500, 5000], [1000, 10_000], [4000, 30_000], [1000, 1000]] as const)
    tickers.push({
      symbol: `T${t}`,
      discountPerEpoch,
      maxDiscountDbps,
      prioritizedStrategy: chance(rng, 50) ? "xerc20" : "default",
      domains: domains.map((domain, k) => ({
        domain,
        asset: word(`${t + 1}a`, domain),
        decimals: 18,
        strategy: withXerc20 && k > 0 && chance(rng, 40) ? "xerc20" : "default",
      })),
    })
  }
  const hub = new Hub(
    {
      epochLength: EPOCH_LENGTH,
      discountExemptEpochs: pick(rng, [0, 0, 1, 3]),
      userMaxDiscount: chance(rng, 50),
      tickers,
    },
    new CollectingSink(),
  )
  hub.setBlock(EPOCH * EPOCH_LENGTH + uniformInt(rng, 0, EPOCH_LENGTH - 1), timeOf(EPOCH * EPOCH_LENGTH))
  const state = hub.state
  const owners = [1, 2, 3, 4].map((n) => word("0e", n))
  for (const owner of owners) {
    if (chance(rng, 25)) state.userSupportedDomains.set(owner, DOMAINS.filter(() => chance(rng, 40)))
  }
  const scale = pick(rng, [3, 20, 100])
  let id = 0
  for (const ticker of state.tickers.values()) {
    const own = ticker.config.domains.map((d) => d.domain)
    for (const d of ticker.config.domains) {
      if (d.strategy !== Strategy.DEFAULT) continue
      if (chance(rng, 70)) ticker.custodied18.set(d.domain, amountOf(rng, 3 * scale))
      if (chance(rng, 50)) ticker.openDepositQueue(EPOCH, d.domain).available18 = amountOf(rng, 2 * scale)
      if (chance(rng, 10)) ticker.openDepositQueue(EPOCH - 1, d.domain).available18 = amountOf(rng, 2 * scale)
    }
    // Ties: two domains with the same custody.
    if (own.length > 1 && chance(rng, 30)) ticker.custodied18.set(own[1]!, ticker.custodied(own[0]!))
    const count = uniformInt(rng, 0, 45)
    for (let k = 0; k < count; k++) {
      const ctx = new IntentContext(word("1d", ++id))
      ctx.ticker = ticker
      const destinations = chance(rng, 20) ? [] : DOMAINS.filter(() => chance(rng, 45))
      if (chance(rng, 10) && destinations.length > 0) destinations.push(destinations[0]!)
      if (chance(rng, 90)) {
        const intent: Intent = {
          initiator: word("1a", 1),
          receiver: word("1b", 1),
          inputAsset: ticker.config.domains[0]!.asset,
          outputAsset: word("00", 0),
          maxFee: pick(rng, [0, 0, 5, 300, 2000]),
          origin: pick(rng, own),
          nonce: BigInt(id),
          timestamp: state.timestamp,
          ttl: chance(rng, 80) ? 0 : 3600,
          amount: 0n,
          destinations,
        data: "0x",
        }
        ctx.intent = intent
      } else ctx.paymentDestinations = destinations
      state.contexts.set(ctx.intentId, ctx)
      const entryEpoch = uniformInt(rng, EPOCH - 15, EPOCH)
      ticker.invoices.append(new InvoiceNode(ctx, pick(rng, owners), entryEpoch, amountOf(rng, scale) + 1n, state.timestamp))
    }
  }
  return hub
}

describe("computeMinAmounts equals the previous algorithm", () => {
  it("on random synthetic hub states (tickers, domains, xERC20, epochs, custody, deposits)", () => {
    const rng = xoroshiro128plus(20_251_122)
    const tally: Tally = { invoices: 0, nonZero: 0 }
    for (let round = 0; round < 60; round++) {
      const hub = syntheticHub(rng)
      for (const ticker of hub.state.tickers.values()) compareTicker(hub, ticker, tally)
      // A node outside the list (replays every invoice, never settles).
      const ticker = [...hub.state.tickers.values()][0]!
      const loose = new InvoiceNode(new IntentContext(word("1f", round)), word("0e", 1), EPOCH - 3, u(5), hub.state.timestamp)
      expect(plain(computeMinAmounts(hub, ticker, loose))).toEqual(plain(referenceMinAmounts(hub, ticker, loose)))
    }
    expect(tally.invoices).toBeGreaterThan(1000)
    expect(tally.nonZero).toBeGreaterThan(500)
  })

  it("replay by replay, on every deposit of a fine grid (exact thresholds and one wei below them), in rising, falling and random order", () => {
    // Whole-unit amounts and custody, discounts of 0 or 10 %, deposits of tenths: every threshold of the fast path
    // (an invoice's least cost reached, a gap of a recorded replay reached, deposits covering an invoice) is a
    // multiple of 0.1 unit, so the grid lands on each of them exactly, where an off-by-one would show. The same
    // FifoReplay serves all the deposits of a target, as in a call, so recorded replays are reused across them.
    const rng = xoroshiro128plus(31)
    const tenth = u(1) / 10n
    let replays = 0
    for (let round = 0; round < 15; round++) {
      const hub = new Hub(
        { epochLength: EPOCH_LENGTH, tickers: [{ symbol: "T", discountPerEpoch: 10_000, maxDiscountDbps: 10_000, domains: [1, 10, 56].map((domain) => ({ domain, asset: word("2a", domain), decimals: 18 })) }] },
        new CollectingSink(),
      )
      hub.setBlock(EPOCH * EPOCH_LENGTH, timeOf(EPOCH * EPOCH_LENGTH))
      const state = hub.state
      const ticker = [...state.tickers.values()][0]!
      for (const d of [1, 10, 56]) {
        ticker.custodied18.set(d, BigInt(uniformInt(rng, 0, 6)) * u(1))
        if (chance(rng, 60)) ticker.openDepositQueue(EPOCH, d).available18 = BigInt(uniformInt(rng, 0, 40)) * tenth
      }
      const count = uniformInt(rng, 5, 20)
      for (let k = 0; k < count; k++) {
        const ctx = new IntentContext(word("3d", round * 100 + k))
        ctx.ticker = ticker
        ctx.paymentDestinations = chance(rng, 20) ? [] : [1, 10, 56].filter(() => chance(rng, 50))
        state.contexts.set(ctx.intentId, ctx)
        ticker.invoices.append(new InvoiceNode(ctx, word("0e", 1), EPOCH - uniformInt(rng, 0, 1), BigInt(uniformInt(rng, 1, 5)) * u(1), state.timestamp))
      }
      const targets = [ticker.invoices.tail!, new InvoiceNode(new IntentContext(word("3f", round)), word("0e", 1), EPOCH, u(1), state.timestamp)]
      for (let node = ticker.invoices.head; node !== undefined; node = node.next) if (chance(rng, 30)) targets.push(node)
      for (const target of targets) {
        for (const d of [1, 10, 56]) {
          const fifo = new FifoReplay(hub, ticker, target)
          // Each tenth, and one wei below it (deposits that fall short of covering an invoice by one wei).
          const grid = Array.from({ length: 200 }, (_, k) => BigInt(k) * tenth).flatMap((x) => (x === 0n ? [x] : [x - 1n, x]))
          const shuffled = [...grid]
          for (let k = shuffled.length - 1; k > 0; k--) {
            const m = uniformInt(rng, 0, k)
            ;[shuffled[k], shuffled[m]] = [shuffled[m]!, shuffled[k]!]
          }
          for (const x of [...grid, ...[...grid].reverse(), ...shuffled]) {
            const expected = referenceReplay(hub, ticker, target, d, x)
            const actual = fifo.replay(d, x)
            expect([actual.settled, actual.custodied18, actual.available18], `deposit ${x} on ${d}`).toEqual([expected.settled, expected.before.custodied.get(d), expected.before.available.get(d)])
            replays++
          }
        }
      }
    }
    expect(replays).toBeGreaterThan(60_000)
  })

  it("on hub states reached through the hub's own operations", () => {
    const rng = xoroshiro128plus(7)
    const tally: Tally = { invoices: 0, nonZero: 0 }
    for (let round = 0; round < 6; round++) {
      const world = new TestWorld()
      const user = addressToBytes32("0x00000000000000000000000000000000000000aa")
      let epoch = 10
      world.epoch(epoch)
      for (let e = 0; e < 8; e++) {
        const intents = uniformInt(rng, 3, 15)
        const origins = new Set<number>()
        for (let k = 0; k < intents; k++) {
          const symbol = chance(rng, 70) ? "DAI" : "USDC"
          const domains = symbol === "DAI" ? [1, 10, 8453] : [1, 10, 56]
          const origin = chance(rng, 60) ? 1 : pick(rng, domains)
          const destinations = domains.filter((d) => d !== origin && chance(rng, 60))
          if (destinations.length === 0) destinations.push(domains.find((d) => d !== origin)!)
          world.newIntent({ symbol, origin, destinations, amount: amountOf(rng, 50) + u(1) })
          origins.add(origin)
        }
        for (const origin of origins) world.dispatch(origin)
        if (chance(rng, 60)) world.process("DAI")
        if (chance(rng, 60)) world.process("USDC")
        if (e === 5 && chance(rng, 50)) world.hub.setUserSupportedDomains(user, [8453, 10])
        world.epoch(++epoch)
      }
      // Current-epoch deposits not processed yet.
      world.newIntent({ symbol: "DAI", origin: 10, destinations: [1], amount: amountOf(rng, 60) })
      world.newIntent({ symbol: "DAI", origin: 8453, destinations: [1], amount: amountOf(rng, 60) })
      world.dispatch(10)
      world.dispatch(8453)
      for (const ticker of world.hub.state.tickers.values()) {
        compareTicker(world.hub, ticker, tally)
        for (let node = ticker.invoices.head; node !== undefined; node = node.next) {
          expect(plain(world.model.minAmounts(node.intentId)!)).toEqual(plain(referenceMinAmounts(world.hub, ticker, node)))
        }
      }
    }
    expect(tally.invoices).toBeGreaterThan(100)
  })
})

/**
 * Per invoice before `target`, the domain the reference's FIFO replay with `extra18` on `domain` settles it on (-1:
 * none, or settled unevaluated or by xERC20, which takes no custody).
 */
const referenceChoices = (hub: Hub, ticker: TickerState, target: InvoiceNode, domain: number, extra18: bigint): number[] => {
  const state = hub.state
  const epoch = state.currentEpoch()
  const overlay = overlayWith(ticker, epoch, domain, extra18)
  const view = viewOf(ticker, overlay)
  const xerc20First = ticker.config.prioritizedStrategy === Strategy.XERC20
  const chosen: number[] = []
  for (let invoice = ticker.invoices.head; invoice !== undefined && invoice !== target; invoice = invoice.next) {
    const domains = settlementDomains(state, ticker, invoice.ctx, invoice.owner)
    const found = xerc20First && domains.some((d) => d.strategy === Strategy.XERC20) ? undefined : evaluateInvoice(view, epoch, invoice.amount18, discountDbps(state, ticker, epoch, invoice.entryEpoch, invoice.ctx), domains)
    chosen.push(found?.domain ?? -1)
    if (found === undefined) continue
    const after = found.amountAfterDiscount18
    overlay.custodied.set(found.domain, (overlay.custodied.get(found.domain) ?? 0n) - after)
    const available = overlay.available.get(found.domain) ?? 0n
    overlay.available.set(found.domain, available > after ? available - after : 0n)
  }
  return chosen
}

describe("pure replays (Replay.takes), on which the search's hand-over to firstSettling rests", () => {
  it("a pure replay's takes are the invoices the reference settles on the deposit's domain and the base settles nowhere or there (listing no other DEFAULT domain), every other decision the base's; between two pure replays with the same takes, every deposit settles those and settling the target is monotone", () => {
    const rng = xoroshiro128plus(41)
    let pure = 0
    let between = 0
    let baseTakes = 0
    for (let round = 0; round < 25; round++) {
      const hub = syntheticHub(rng)
      for (const ticker of hub.state.tickers.values()) {
        for (let node = ticker.invoices.head; node !== undefined; node = node.next) {
          if (!chance(rng, 20)) continue
          for (const d of ticker.config.domains) {
            if (d.strategy !== Strategy.DEFAULT) continue
            const fifo = new FifoReplay(hub, ticker, node)
            const base = referenceChoices(hub, ticker, node, d.domain, 0n)
            const xs = Array.from({ length: 8 }, () => uniformBigInt(rng, 0n, 3n * node!.amount18 + 10n)).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
            const replays = xs.map((x) => fifo.replay(d.domain, x))
            replays.forEach((r, k) => {
              expect(r.settled, `deposit ${xs[k]} on ${d.domain}`).toBe(referenceReplay(hub, ticker, node!, d.domain, xs[k]!).settled)
              if (r.takes === undefined) return
              pure++
              const takes = new Set(r.takes)
              expect([...takes].sort((a, b) => a - b), "in order, once each").toEqual(r.takes)
              const chosen = referenceChoices(hub, ticker, node!, d.domain, xs[k]!)
              chosen.forEach((c, i) => expect([i, c], `deposit ${xs[k]} on ${d.domain}`).toEqual([i, takes.has(i) ? d.domain : base[i]]))
              for (const i of takes) {
                expect([-1, d.domain], `take ${i}`).toContain(base[i])
                if (base[i] === d.domain) baseTakes++
              }
            })
            for (let a = 0; a < xs.length; a++) {
              for (let b = a + 2; b < xs.length; b++) {
                const [ra, rb] = [replays[a]!, replays[b]!]
                if (ra.takes === undefined || rb.takes === undefined || ra.takes.join() !== rb.takes.join()) continue
                for (let c = a + 1; c < b; c++) {
                  expect(replays[c]!.takes?.join()).toBe(ra.takes.join())
                  if (ra.settled) expect(replays[c]!.settled).toBe(true)
                  if (!rb.settled) expect(replays[c]!.settled).toBe(false)
                  between++
                }
              }
            }
          }
        }
      }
    }
    expect(pure).toBeGreaterThan(1000)
    expect(between).toBeGreaterThan(1000)
    expect(baseTakes).toBeGreaterThan(200)
  })
})

describe("pure replays reuse recorded ones", () => {
  it("shortfall rounds walk a small part of the takes their replays return (the rest copied from the replay before), and a deposit replayed again walks none", () => {
    // Over random hub states, each target and DEFAULT domain: the shortfall rounds of `computeMinAmounts` (each a
    // larger deposit than the one before), then the last deposit again. Without reuse every take would be walked.
    const rng = xoroshiro128plus(73)
    let returned = 0
    let walked = 0
    let reused = 0
    let again = 0
    for (let round = 0; round < 40; round++) {
      const hub = syntheticHub(rng)
      const state = hub.state
      for (const ticker of state.tickers.values()) {
        for (let node = ticker.invoices.head; node !== undefined; node = node.next) {
          const discount = discountDbps(state, ticker, state.currentEpoch(), node.entryEpoch, node.ctx)
          for (const d of ticker.config.domains) {
            if (d.strategy !== Strategy.DEFAULT) continue
            const fifo = new FifoReplay(hub, ticker, node)
            let x = 0n
            let r = fifo.replay(d.domain, x)
            for (let rounds = 0; !r.settled && rounds < 60; rounds++) {
              const shortfall = minDepositFormula(node.amount18, r.custodied18, r.available18, discount)
              if (shortfall === 0n) break
              x += shortfall
              r = fifo.replay(d.domain, x)
              returned += r.takes?.length ?? 0
            }
            if (r.takes === undefined) continue
            const before = { ...fifo.pureStats }
            const same = fifo.replay(d.domain, x)
            expect([same.settled, same.custodied18, same.available18, same.takes]).toEqual([r.settled, r.custodied18, r.available18, r.takes])
            expect(fifo.pureStats.takesWalked, "the same deposit again").toBe(before.takesWalked)
            expect(fifo.pureStats.takesReused - before.takesReused).toBe(r.takes.length)
            again++
            walked += before.takesWalked
            reused += before.takesReused
          }
        }
      }
    }
    console.log({ returned, walked, reused, again })
    expect(again).toBeGreaterThan(1000)
    expect(returned).toBeGreaterThan(5000)
    expect(walked + reused).toBeGreaterThanOrEqual(returned)
    expect(walked).toBeLessThan(returned / 3)
  })
})

/**
 * A ticker whose invoices mostly list only domain 1, the one the deposits go to, with custody there that pays for
 * many of them, no or few current-epoch deposits, discounts from none to 10 %: a replay's deposits there run out at
 * an early invoice and the later ones are paid from custody alone.
 * Some invoices list another domain too (the base may settle them there: a replay stops at them), or only domain 1
 * with the base settling them there (takes of the base), or none.
 */
const custodyPaidHub = (rng: RandomGenerator): Hub => {
  const [discountPerEpoch, maxDiscountDbps] = pick(rng, [[0, 0], [3, 12], [100, 100], [1000, 10_000]] as const)
  const hub = new Hub(
    { epochLength: EPOCH_LENGTH, tickers: [{ symbol: "T", discountPerEpoch, maxDiscountDbps, domains: [1, 10, 56].map((domain) => ({ domain, asset: word("5a", domain), decimals: 18 })) }] },
    new CollectingSink(),
  )
  hub.setBlock(EPOCH * EPOCH_LENGTH, timeOf(EPOCH * EPOCH_LENGTH))
  const state = hub.state
  const ticker = [...state.tickers.values()][0]!
  const count = uniformInt(rng, 10, 60)
  const scale = pick(rng, [5, 20])
  ticker.custodied18.set(1, amountOf(rng, pick(rng, [0, 5, count, scale * count])))
  ticker.custodied18.set(10, amountOf(rng, 20))
  if (chance(rng, 30)) ticker.openDepositQueue(EPOCH, 1).available18 = amountOf(rng, 4)
  if (chance(rng, 30)) ticker.openDepositQueue(EPOCH, 10).available18 = amountOf(rng, 4)
  for (let k = 0; k < count; k++) {
    const ctx = new IntentContext(word("5d", k))
    ctx.ticker = ticker
    ctx.paymentDestinations = pick(rng, [[1], [1], [1], [1], [1], [1, 10], [10], [56], []])
    state.contexts.set(ctx.intentId, ctx)
    ticker.invoices.append(new InvoiceNode(ctx, word("0e", 1), EPOCH - uniformInt(rng, 0, 15), amountOf(rng, scale) + 1n, state.timestamp))
  }
  return hub
}

/**
 * `computeMinAmounts`' deposits for `target` on `domain`: its shortfall rounds (`minDepositFormula` at each replay's
 * overlay), whether it settles or not, with `replay`.
 */
const shortfallRounds = (target: InvoiceNode, discount: number, replay: (x: bigint) => { settled: boolean; custodied18: bigint; available18: bigint }, limit: number): bigint[] => {
  const deposits = [0n]
  let r = replay(0n)
  for (let rounds = 0; !r.settled && rounds < limit; rounds++) {
    const shortfall = minDepositFormula(target.amount18, r.custodied18, r.available18, discount)
    if (shortfall === 0n) break
    deposits.push(deposits[deposits.length - 1]! + shortfall)
    r = replay(deposits[deposits.length - 1]!)
  }
  return deposits
}

describe("a FifoReplay that reuses recorded replays against a fresh one for each deposit", () => {
  it("gives every replay the straightforward walk's result (a FifoReplay for it alone, which reuses nothing) and the reference's, over shortfall rounds and then deposits in any order", () => {
    // The deposits of the shortfall rounds, as in a call, then deposits between and around them in random order
    // (as a search's probes, and smaller ones than recorded, whose nearest recorded replay is another one), and
    // some again. The same FifoReplay answers all of a target's deposits on a domain, reusing recorded replays.
    const rng = xoroshiro128plus(97)
    let replays = 0
    for (let round = 0; round < 40; round++) {
      const hub = round % 3 === 2 ? syntheticHub(rng) : custodyPaidHub(rng)
      const state = hub.state
      for (const ticker of state.tickers.values()) {
        for (let node = ticker.invoices.head; node !== undefined; node = node.next) {
          if (node !== ticker.invoices.tail && !chance(rng, 25)) continue
          const discount = discountDbps(state, ticker, state.currentEpoch(), node.entryEpoch, node.ctx)
          for (const d of ticker.config.domains) {
            if (d.strategy !== Strategy.DEFAULT) continue
            const fifo = new FifoReplay(hub, ticker, node)
            const check = (x: bigint): void => {
              const actual = fifo.replay(d.domain, x)
              const straight = new FifoReplay(hub, ticker, node!).replay(d.domain, x)
              expect([actual.settled, actual.custodied18, actual.available18, actual.takes], `deposit ${x} on ${d.domain}`).toEqual([straight.settled, straight.custodied18, straight.available18, straight.takes])
              const expected = referenceReplay(hub, ticker, node!, d.domain, x)
              expect([actual.settled, actual.custodied18, actual.available18]).toEqual([expected.settled, expected.before.custodied.get(d.domain), expected.before.available.get(d.domain)])
              replays++
            }
            const rounds = shortfallRounds(node, discount, (x) => {
              check(x)
              return fifo.replay(d.domain, x)
            }, 40)
            const top = rounds[rounds.length - 1]! + node.amount18
            const probes = Array.from({ length: 12 }, () => uniformBigInt(rng, 0n, top))
            for (const x of [...probes, ...rounds.filter(() => chance(rng, 30)), ...probes.slice(0, 3)]) check(x)
          }
        }
      }
    }
    expect(replays).toBeGreaterThan(20_000)
  })

  it("on a fine grid of deposits (exact thresholds and one wei below them), in rising, falling and random order", () => {
    // Whole-unit amounts and custody, discounts of 0 or 10 %, deposits of tenths, as in the grid test above, on a
    // queue paid from custody once the deposits run out: custody lands on the queue's thresholds exactly.
    const rng = xoroshiro128plus(61)
    const tenth = u(1) / 10n
    let replays = 0
    for (let round = 0; round < 12; round++) {
      const discount = pick(rng, [0, 10_000])
      const hub = new Hub(
        { epochLength: EPOCH_LENGTH, tickers: [{ symbol: "T", discountPerEpoch: discount, maxDiscountDbps: discount, domains: [1, 10].map((domain) => ({ domain, asset: word("7a", domain), decimals: 18 })) }] },
        new CollectingSink(),
      )
      hub.setBlock(EPOCH * EPOCH_LENGTH, timeOf(EPOCH * EPOCH_LENGTH))
      const state = hub.state
      const ticker = [...state.tickers.values()][0]!
      ticker.custodied18.set(1, BigInt(uniformInt(rng, 5, 30)) * u(1))
      ticker.custodied18.set(10, BigInt(uniformInt(rng, 0, 6)) * u(1))
      const count = uniformInt(rng, 8, 25)
      for (let k = 0; k < count; k++) {
        const ctx = new IntentContext(word("7d", round * 100 + k))
        ctx.ticker = ticker
        ctx.paymentDestinations = pick(rng, [[1], [1], [1], [1, 10], [10]])
        state.contexts.set(ctx.intentId, ctx)
        ticker.invoices.append(new InvoiceNode(ctx, word("0e", 1), EPOCH - uniformInt(rng, 0, 1), BigInt(uniformInt(rng, 1, 5)) * u(1), state.timestamp))
      }
      const targets = [ticker.invoices.tail!]
      for (let node = ticker.invoices.head; node !== undefined; node = node.next) if (chance(rng, 15)) targets.push(node)
      for (const target of targets) {
        const fifo = new FifoReplay(hub, ticker, target)
        const grid = Array.from({ length: 120 }, (_, k) => BigInt(k) * tenth).flatMap((x) => (x === 0n ? [x] : [x - 1n, x]))
        const shuffled = [...grid]
        for (let k = shuffled.length - 1; k > 0; k--) {
          const m = uniformInt(rng, 0, k)
          ;[shuffled[k], shuffled[m]] = [shuffled[m]!, shuffled[k]!]
        }
        for (const x of [...grid, ...[...grid].reverse(), ...shuffled]) {
          const actual = fifo.replay(1, x)
          const straight = new FifoReplay(hub, ticker, target).replay(1, x)
          expect([actual.settled, actual.custodied18, actual.available18, actual.takes], `deposit ${x}`).toEqual([straight.settled, straight.custodied18, straight.available18, straight.takes])
          const expected = referenceReplay(hub, ticker, target, 1, x)
          expect([actual.settled, actual.custodied18, actual.available18], `deposit ${x}`).toEqual([expected.settled, expected.before.custodied.get(1), expected.before.available.get(1)])
          replays++
        }
      }
    }
    expect(replays).toBeGreaterThan(15_000)
  })
})

describe("a FifoBase shared by the targets of a ticker", () => {
  it("gives every target the reference's answers, asked in any order, and goes on over invoices appended after it was made", () => {
    const rng = xoroshiro128plus(57)
    let compared = 0
    let appended = 0
    let id = 0
    for (let round = 0; round < 40; round++) {
      const hub = syntheticHub(rng)
      const state = hub.state
      for (const ticker of state.tickers.values()) {
        const base = new FifoBase(hub, ticker)
        const nodes: InvoiceNode[] = []
        for (let node = ticker.invoices.head; node !== undefined; node = node.next) nodes.push(node)
        // A node outside the list: the whole list before it.
        nodes.push(new InvoiceNode(new IntentContext(word("5f", round)), word("0e", 1), EPOCH - 3, u(5), state.timestamp))
        for (let k = nodes.length - 1; k > 0; k--) {
          const m = uniformInt(rng, 0, k)
          ;[nodes[k], nodes[m]] = [nodes[m]!, nodes[k]!]
        }
        const ask = (node: InvoiceNode): void => {
          expect(plain(computeMinAmounts(hub, ticker, node, base))).toEqual(plain(referenceMinAmounts(hub, ticker, node)))
          compared++
        }
        const half = uniformInt(rng, 0, nodes.length)
        for (const node of nodes.slice(0, half)) ask(node)
        // Invoices appended without a balance changing: the base goes on over them (its trees made again).
        const count = uniformInt(rng, 0, 12)
        const own = ticker.config.domains.map((d) => d.domain)
        for (let k = 0; k < count; k++) {
          const ctx = new IntentContext(word("5d", ++id))
          ctx.ticker = ticker
          ctx.paymentDestinations = chance(rng, 20) ? [] : own.filter(() => chance(rng, 50))
          state.contexts.set(ctx.intentId, ctx)
          const node = new InvoiceNode(ctx, word("0e", uniformInt(rng, 1, 4)), uniformInt(rng, EPOCH - 15, EPOCH), amountOf(rng, 20) + 1n, state.timestamp)
          ticker.invoices.append(node)
          nodes.push(node)
          appended++
        }
        for (const node of nodes.slice(half)) ask(node)
        for (const node of nodes) if (chance(rng, 20)) ask(node)
      }
    }
    expect(compared).toBeGreaterThan(2000)
    expect(appended).toBeGreaterThan(200)
  })
})

describe("the search between a failing and a settling deposit", () => {
  /** What a bisection between `lo` (failing) and `hi` (settling) ends at. */
  const bisection = (lo: bigint, hi: bigint, settles: (x: bigint) => boolean): bigint => {
    while (hi - lo > 1n) {
      const mid = (lo + hi) / 2n
      if (settles(mid)) hi = mid
      else lo = mid
    }
    return hi
  }

  it("firstSettling ends where a bisection does on monotone margins, in a few probes when the margin is linear", () => {
    const rng = xoroshiro128plus(5)
    let linearProbes = 0
    let linearCases = 0
    for (let round = 0; round < 3000; round++) {
      // A margin rising with slope 1 to 1.3 (floored), as between two deposits settling the same earlier invoices.
      const root = uniformBigInt(rng, 1n, 10n ** 24n)
      const slopeDbps = BigInt(uniformInt(rng, 100_000, 130_000))
      const margin = (x: bigint): bigint => ((x - root) * slopeDbps) / 100_000n
      const below = root - uniformBigInt(rng, 1n, 10n ** 23n)
      const above = root + uniformBigInt(rng, 0n, 10n ** 23n)
      const lo = below < 0n ? 0n : below
      const settles = (x: bigint): boolean => margin(x) >= 0n
      if (settles(lo)) continue
      let probes = 0
      const found = firstSettling(lo, above, margin(lo), margin(above), (x) => {
        expect(x > lo && x < above).toBe(true)
        probes++
        return { settled: settles(x), margin: margin(x) }
      })
      expect(found).toBe(bisection(lo, above, settles))
      linearProbes += probes
      linearCases++
      // Never much more than a bisection.
      expect(probes).toBeLessThanOrEqual(2 * (above - lo).toString(2).length + 2)
    }
    expect(linearCases).toBeGreaterThan(2500)
    // A bisection of these brackets (up to 2^77) takes about 70 probes.
    expect(linearProbes / linearCases).toBeLessThan(8)
  })

  it("firstSettling ends where a bisection does when the margin says nothing useful", () => {
    const rng = xoroshiro128plus(6)
    for (let round = 0; round < 2000; round++) {
      const lo = uniformBigInt(rng, 0n, 10n ** 6n)
      const hi = lo + uniformBigInt(rng, 1n, 10n ** 6n)
      const threshold = lo + uniformBigInt(rng, 1n, hi - lo)
      const noise = (): bigint => uniformBigInt(rng, -(10n ** 7n), 10n ** 7n)
      const settles = (x: bigint): boolean => x >= threshold
      const found = firstSettling(lo, hi, noise(), noise(), (x) => ({ settled: settles(x), margin: noise() }))
      expect(found).toBe(threshold)
    }
  })

  it("a deep queue of nearly equal invoices and no custody: the same minimums as the reference, in far fewer replays than a bisection", () => {
    const rng = xoroshiro128plus(11)
    const hub = new Hub(
      {
        epochLength: EPOCH_LENGTH,
        tickers: [{ symbol: "T", discountPerEpoch: 6, maxDiscountDbps: 1000, domains: [1, 10].map((domain) => ({ domain, asset: word("2b", domain), decimals: 18 })) }],
      },
      new CollectingSink(),
    )
    hub.setBlock(EPOCH * EPOCH_LENGTH, timeOf(EPOCH * EPOCH_LENGTH))
    const state = hub.state
    const ticker = [...state.tickers.values()][0]!
    ticker.custodied18.set(10, u(3))
    for (let k = 0; k < 60; k++) {
      const ctx = new IntentContext(word("4d", k))
      ctx.ticker = ticker
      ctx.paymentDestinations = [10]
      state.contexts.set(ctx.intentId, ctx)
      const amount18 = u(49_991) + uniformBigInt(rng, 0n, u(3))
      ticker.invoices.append(new InvoiceNode(ctx, word("0e", 1), EPOCH - uniformInt(rng, 1, 6), amount18, state.timestamp))
    }
    const replays = vi.spyOn(FifoReplay.prototype, "replay")
    const tally: Tally = { invoices: 0, nonZero: 0 }
    let made = 0
    let bisecting = 0
    try {
      for (let node = ticker.invoices.head; node !== undefined; node = node.next) {
        const before = replays.mock.calls.length
        const actual = computeMinAmounts(hub, ticker, node)
        const mine = replays.mock.calls.length - before
        const referenceBefore = referenceReplays
        expect(plain(actual)).toEqual(plain(referenceMinAmounts(hub, ticker, node)))
        const reference = referenceReplays - referenceBefore
        // The same rounds (one replay per earlier invoice taking part), then a few probes where a bisection of
        // the last round's bracket (one invoice of about 50k units, some 2^75 wei) makes about 75.
        expect(mine, `invoice ${tally.invoices}`).toBeLessThanOrEqual(reference)
        made += mine
        bisecting += reference
        tally.invoices++
        if ((actual.minAmounts.get(10) ?? 0n) > 0n) tally.nonZero++
      }
    } finally {
      replays.mockRestore()
    }
    expect(tally.nonZero).toBeGreaterThan(40)
    expect(made).toBeLessThan(bisecting / 2)
  })
})

describe("MinAmountsCache (the read model's min-amounts)", () => {
  it("gives what computeMinAmounts gives at every step of random hub histories, and keeps answers across changes it does not read", () => {
    const rng = xoroshiro128plus(11)
    let asked = 0
    let kept = 0
    let keptAcrossEpochs = 0
    for (let round = 0; round < 8; round++) {
      const world = new TestWorld()
      const user = addressToBytes32("0x00000000000000000000000000000000000000aa")
      const previous = new Map<Bytes32, { answer: InvoiceMinAmounts; epoch: number }>()
      let epoch = 10
      world.epoch(epoch)
      for (let step = 0; step < 80; step++) {
        // Mostly one-sided flows into 10 (DAI) and 56 (USDC), where invoices pile up, with some deposits there.
        const action = uniformInt(rng, 0, 99)
        if (action < 45) {
          const symbol = chance(rng, 70) ? "DAI" : "USDC"
          const domains = symbol === "DAI" ? [1, 10, 8453] : [1, 10, 56]
          const sink = symbol === "DAI" ? 10 : 56
          const origin = chance(rng, 85) ? pick(rng, domains.filter((d) => d !== sink)) : sink
          const destinations = origin === sink ? [pick(rng, domains.filter((d) => d !== sink))] : chance(rng, 80) ? [sink] : domains.filter((d) => d !== origin)
          world.newIntent({ symbol, origin, destinations, amount: amountOf(rng, 40) + u(1) })
          world.dispatch(origin)
        } else if (action < 60) {
          world.process(chance(rng, 60) ? "DAI" : "USDC")
        } else if (action < 80) {
          world.block(world.hub.state.blockNumber + 1)
        } else if (action < 97) {
          world.epoch(++epoch)
        } else {
          world.hub.setUserSupportedDomains(user, chance(rng, 50) ? [8453, 10] : [1, 56])
        }
        for (const ticker of world.hub.state.tickers.values()) {
          for (let node = ticker.invoices.head; node !== undefined; node = node.next) {
            const answer = world.model.minAmounts(node.intentId)!
            expect(plain(answer)).toEqual(plain(computeMinAmounts(world.hub, ticker, node)))
            asked++
            const before = previous.get(node.intentId)
            if (before?.answer === answer) {
              kept++
              if (before.epoch !== epoch) keptAcrossEpochs++
            }
            previous.set(node.intentId, { answer, epoch })
          }
        }
      }
    }
    console.log({ asked, kept, keptAcrossEpochs })
    expect(asked).toBeGreaterThan(2000)
    expect(kept).toBeGreaterThan(asked / 4)
    expect(keptAcrossEpochs).toBeGreaterThan(50)
  })
})
