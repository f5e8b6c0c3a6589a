/**
 * The engine against a naive model written from the reference's text alone (§3.1 epochs with the
 * `updateEpochLength` carry, §3.3 intake, §3.4 fills, §3.5 settlement-or-invoice, §3.6 both phases with their
 * work bounds, §3.8 user domains, §3.10 expiry), with PROTOCOL.md's two discount parameters: plain arrays and
 * maps, no cursors kept across calls, no shortcuts. Random traces of one default-strategy ticker over three
 * domains must give the same events, in the same order, with the same amounts.
 *
 * Not modelled (covered by the rules tests): xERC20, settlement dispatch, unsupported intents and their return,
 * fee withdrawal, pausing. Choices the reference leaves open follow the engine's (documented) ones: an intake
 * tie of liquidity keeps the earlier domain, the epoch-0 clamps of the README.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { intentId, tickerHash } from "../domain/encoding.ts"
import { addressToBytes32, type Bytes32, ZERO_BYTES32 } from "../domain/hex.ts"
import type { Intent } from "../domain/protocol.ts"
import type { HubConfigInput } from "./config.ts"
import type { HubEvent } from "./events.ts"
import { Hub, type HubInput } from "./hub.ts"
import { CollectingSink } from "./trace.ts"

const DOMAINS = [1, 10, 137]
const asset = (domain: number): Bytes32 => addressToBytes32(`0xda${"00".repeat(17)}${domain.toString(16).padStart(4, "0")}`)
const USERS = [1, 2, 3].map((i) => addressToBytes32(`0x${`${i}`.repeat(40)}`))
const SOLVERS = [8, 9].map((i) => addressToBytes32(`0x${`${i}`.repeat(40)}`))
const FEES = [
  { recipient: addressToBytes32(`0x${"fe".repeat(20)}`), fee: 7 },
  { recipient: addressToBytes32(`0x${"fd".repeat(20)}`), fee: 3 },
]
const DAI = tickerHash("DAI")
const D = 100_000n
const PER_EPOCH = 1000
const CAP = 5000
const EPOCH_LENGTH = 10
const BUFFER = 600

interface Params {
  readonly userMaxDiscount: boolean
  readonly discountExemptEpochs: number
}

const configOf = (p: Params): HubConfigInput => ({
  epochLength: EPOCH_LENGTH,
  expiryTimeBuffer: BUFFER,
  minSolverSupportedDomains: 2,
  ...p,
  tickers: [
    {
      symbol: "DAI",
      discountPerEpoch: PER_EPOCH,
      maxDiscountDbps: CAP,
      prioritizedStrategy: "default",
      fees: FEES,
      domains: DOMAINS.map((domain) => ({ domain, asset: asset(domain), decimals: 18, strategy: "default" as const })),
    },
  ],
})

// ---------------------------------------------------------------------------------------------------------
// The model

interface Context {
  intent?: Intent
  status: string
  solver?: Bytes32
  amountAfterFees: bigint
  pendingRewards: bigint
}

interface Invoice {
  readonly id: Bytes32
  readonly owner: Bytes32
  readonly entryEpoch: number
  readonly amount: bigint
}

interface DepositQueue {
  readonly items: { readonly id: Bytes32; purchasePower: bigint }[]
  /** `firstDepositWithPurchasePower`. */
  firstWithPower: number
  /** Deposits popped by the cleanup. */
  popped: number
  available: bigint
}

class Model {
  readonly events: HubEvent[] = []
  private readonly contexts = new Map<Bytes32, Context>()
  private invoices: Invoice[] = []
  private readonly deposits = new Map<string, DepositQueue>()
  private readonly custody = new Map<number, bigint>(DOMAINS.map((d) => [d, 0n]))
  private readonly userDomains = new Map<Bytes32, readonly number[]>()
  private lastClosedEpochsProcessed = 0
  private block = 0
  private timestamp = 0
  private started = false
  private epochLength = EPOCH_LENGTH
  private carryEpoch = 0
  private carryBlock = 0

  private readonly params: Params
  constructor(params: Params) {
    this.params = params
  }

  private epoch(): number {
    return this.carryEpoch + Math.floor((this.block - this.carryBlock) / this.epochLength)
  }

  private queue(epoch: number, domain: number): DepositQueue {
    const key = `${epoch}:${domain}`
    let queue = this.deposits.get(key)
    if (queue === undefined) this.deposits.set(key, (queue = { items: [], firstWithPower: 0, popped: 0, available: 0n }))
    return queue
  }

  private revert(call: string, error: string): void {
    this.events.push({ kind: "Reverted", call, error, message: "" })
  }

  setBlock(number: number, timestamp: number): void {
    this.block = number
    this.timestamp = timestamp
    if (!this.started) {
      this.started = true
      this.lastClosedEpochsProcessed = Math.max(0, Math.floor(number / this.epochLength) - 1)
    }
  }

  updateEpochLength(length: number): void {
    this.carryEpoch = this.epoch()
    this.carryBlock = this.block
    this.events.push({ kind: "EpochLengthUpdated", oldLength: this.epochLength, newLength: length })
    this.epochLength = length
  }

  setUserSupportedDomains(user: Bytes32, domains: readonly number[]): void {
    this.userDomains.set(user, domains)
    this.events.push({ kind: "SolverConfigUpdated", solver: user, supportedDomains: [...domains] })
  }

  /** §3.5 `_getDestinations`. */
  private destinations(ctx: Context, recipient: Bytes32): readonly number[] {
    const own = this.userDomains.get(recipient)
    if (own !== undefined && own.length > 0) return own
    return ctx.intent!.destinations.length > 0 ? ctx.intent!.destinations : DOMAINS
  }

  private createSettlement(id: Bytes32, ctx: Context, amount: bigint, domain: number, recipient: Bytes32): void {
    ctx.status = "SETTLED"
    this.custody.set(domain, this.custody.get(domain)! - amount)
    this.events.push({ kind: "SettlementEnqueued", intentId: id, domain, entryEpoch: this.epoch(), asset: asset(domain), amount, updateVirtualBalance: false, owner: recipient })
  }

  /** §3.5. */
  private createSettlementOrInvoice(id: Bytes32, ctx: Context, recipient: Bytes32): void {
    const amount = ctx.amountAfterFees + ctx.pendingRewards
    ctx.pendingRewards = 0n
    let best: number | undefined
    for (const d of this.destinations(ctx, recipient)) {
      const liquidity = this.custody.get(d)!
      if (liquidity >= amount && (best === undefined || liquidity > this.custody.get(best)!)) best = d
    }
    if (best !== undefined) return this.createSettlement(id, ctx, amount, best, recipient)
    ctx.status = "INVOICED"
    this.invoices.push({ id, owner: recipient, entryEpoch: this.epoch(), amount })
    this.events.push({ kind: "InvoiceEnqueued", intentId: id, tickerHash: DAI, entryEpoch: this.epoch(), amount, owner: recipient })
  }

  /** §3.3. */
  receiveIntent(intent: Intent): void {
    const id = intentId(intent)
    let ctx = this.contexts.get(id)
    if (ctx !== undefined && ctx.status !== "NONE" && ctx.status !== "FILLED") return
    if (ctx === undefined) this.contexts.set(id, (ctx = { status: "NONE", amountAfterFees: 0n, pendingRewards: 0n }))
    ctx.intent = intent
    this.custody.set(intent.origin, this.custody.get(intent.origin)! + intent.amount)
    ctx.amountAfterFees = FEES.reduce((left, f) => left - (intent.amount * BigInt(f.fee)) / D, intent.amount)
    const filled = ctx.status === "FILLED"
    const epoch = this.epoch()
    if (this.invoices.length === 0) {
      this.events.push({ kind: "DepositProcessed", epoch, domain: intent.origin, tickerHash: DAI, intentId: id, amountAndRewards: intent.amount })
      if (intent.ttl === 0) this.createSettlementOrInvoice(id, ctx, intent.receiver)
      else if (filled) this.createSettlementOrInvoice(id, ctx, ctx.solver!)
      else ctx.status = "DEPOSIT_PROCESSED"
    } else {
      const queue = this.queue(epoch, intent.origin)
      queue.items.push({ id, purchasePower: intent.amount })
      queue.available += intent.amount
      ctx.status = filled ? "ADDED_AND_FILLED" : "ADDED"
      this.events.push({ kind: "DepositEnqueued", epoch, domain: intent.origin, tickerHash: DAI, intentId: id, amount: intent.amount })
    }
    this.events.push({ kind: "IntentProcessed", intentId: id, status: ctx.status as never })
  }

  /** §3.4. */
  receiveFill(id: Bytes32, solver: Bytes32): void {
    let ctx = this.contexts.get(id)
    const previous = ctx?.status ?? "NONE"
    if (previous !== "NONE" && previous !== "ADDED" && previous !== "DEPOSIT_PROCESSED") return
    if (ctx === undefined) this.contexts.set(id, (ctx = { status: "NONE", amountAfterFees: 0n, pendingRewards: 0n }))
    ctx.solver = solver
    if (previous === "DEPOSIT_PROCESSED") this.createSettlementOrInvoice(id, ctx, solver)
    else ctx.status = previous === "ADDED" ? "ADDED_AND_FILLED" : "FILLED"
    this.events.push({ kind: "FillProcessed", intentId: id, status: ctx.status as never })
  }

  /** §3.6 `_getDiscountDbps`, with PROTOCOL.md's `discountExemptEpochs` and `userMaxDiscount`. */
  private discountDbps(epoch: number, invoice: Invoice): number {
    if (epoch <= invoice.entryEpoch) return 0
    const intent = this.contexts.get(invoice.id)!.intent!
    const cap = this.params.userMaxDiscount && intent.ttl === 0 && intent.maxFee > 0 ? Math.min(intent.maxFee, CAP) : CAP
    return Math.min(Math.max(0, epoch - invoice.entryEpoch - this.params.discountExemptEpochs) * PER_EPOCH, cap)
  }

  /** §3.6. */
  processDepositsAndInvoices(maxEpochs: number, maxDeposits: number, maxInvoices: number): void {
    const epoch = this.epoch()
    const open: Invoice[] = []
    this.invoices.forEach((invoice, i) => {
      if (maxInvoices > 0 && i >= maxInvoices) return open.push(invoice)
      const ctx = this.contexts.get(invoice.id)!
      const dbps = BigInt(this.discountDbps(epoch, invoice))
      let best: { domain: number; after: bigint; liquidity: bigint; rewards: bigint } | undefined
      for (const domain of this.destinations(ctx, invoice.owner)) {
        const deposits = this.deposits.get(`${epoch}:${domain}`)?.available ?? 0n
        const rewards = ((deposits < invoice.amount ? deposits : invoice.amount) * dbps) / D
        const after = invoice.amount - rewards
        const liquidity = this.custody.get(domain)!
        if (liquidity < after) continue
        if (best === undefined || after > best.after || (after === best.after && liquidity > best.liquidity)) best = { domain, after, liquidity, rewards }
      }
      if (best === undefined) return open.push(invoice)
      const queue = this.deposits.get(`${epoch}:${best.domain}`)
      if (queue !== undefined) {
        let remaining = best.after
        while (remaining > 0n && queue.firstWithPower < queue.items.length) {
          const deposit = queue.items[queue.firstWithPower]!
          const consumed = deposit.purchasePower < remaining ? deposit.purchasePower : remaining
          this.contexts.get(deposit.id)!.pendingRewards += (consumed * best.rewards) / best.after
          deposit.purchasePower -= consumed
          if (deposit.purchasePower === 0n) queue.firstWithPower++
          remaining -= consumed
        }
        queue.available = queue.available > best.after ? queue.available - best.after : 0n
      }
      this.createSettlement(invoice.id, ctx, best.after, best.domain, invoice.owner)
    })
    this.invoices = open
    this.cleanUp(epoch, maxEpochs, maxDeposits)
  }

  private cleanUp(epoch: number, maxEpochs: number, maxDeposits: number): void {
    if (epoch === 0) return // README: epoch 0 clamped
    const lastClosed = epoch - 1
    const start = this.lastClosedEpochsProcessed
    if (!(lastClosed > start || lastClosed === 0)) return
    let deposits = 0
    let epochs = 0
    for (let e = start; e <= lastClosed; e++) {
      for (const domain of DOMAINS) {
        const queue = this.deposits.get(`${e}:${domain}`)
        while (queue !== undefined && queue.popped < queue.items.length) {
          this.processClosedDeposit(e, domain, queue.items[queue.popped++]!.id)
          if (maxDeposits > 0 && ++deposits === maxDeposits) return this.storeLastClosed(Math.max(0, e - 1))
        }
      }
      if (maxEpochs > 0 && ++epochs === maxEpochs) return this.storeLastClosed(e)
    }
    this.storeLastClosed(lastClosed)
  }

  private storeLastClosed(value: number): void {
    const changed = value !== this.lastClosedEpochsProcessed
    this.lastClosedEpochsProcessed = value
    if (changed) this.events.push({ kind: "ClosedEpochsProcessed", tickerHash: DAI, lastClosedEpochProcessed: value })
  }

  private processClosedDeposit(epoch: number, domain: number, id: Bytes32): void {
    const ctx = this.contexts.get(id)!
    const intent = ctx.intent!
    this.events.push({ kind: "DepositProcessed", epoch, domain, tickerHash: DAI, intentId: id, amountAndRewards: ctx.amountAfterFees + ctx.pendingRewards })
    if (intent.ttl === 0) this.createSettlementOrInvoice(id, ctx, intent.receiver)
    else if (ctx.status === "ADDED_AND_FILLED") this.createSettlementOrInvoice(id, ctx, ctx.solver!)
    else if (this.timestamp > intent.timestamp + intent.ttl + BUFFER) this.createSettlementOrInvoice(id, ctx, intent.receiver)
    else ctx.status = "DEPOSIT_PROCESSED"
  }

  /** §3.10, ids checked in order. */
  handleExpiredIntents(ids: readonly Bytes32[]): void {
    const handled = new Set<Bytes32>()
    for (const id of ids) {
      const ctx = this.contexts.get(id)
      if (handled.has(id) || ctx === undefined || ctx.status !== "DEPOSIT_PROCESSED") return this.revert("handleExpiredIntents", "Handler_HandleExpiredIntents_InvalidStatus")
      handled.add(id)
      if (this.timestamp < ctx.intent!.timestamp + ctx.intent!.ttl + BUFFER) return this.revert("handleExpiredIntents", "Handler_HandleExpiredIntents_NotExpired")
    }
    for (const id of ids) this.createSettlementOrInvoice(id, this.contexts.get(id)!, this.contexts.get(id)!.intent!.receiver)
    this.events.push({ kind: "ExpiredIntentsHandled", intentIds: [...ids] })
  }
}

// ---------------------------------------------------------------------------------------------------------
// Traces

type Step =
  | { readonly t: "block"; readonly blocks: number; readonly seconds: number }
  | { readonly t: "intent"; readonly origin: number; readonly destinations: number[]; readonly amount: bigint; readonly ttl: number; readonly maxFee: number; readonly user: number }
  | { readonly t: "fillFirst"; readonly origin: number; readonly destination: number; readonly amount: bigint; readonly ttl: number; readonly solver: number }
  | { readonly t: "fill"; readonly pick: number; readonly solver: number }
  | { readonly t: "repeat"; readonly pick: number }
  | { readonly t: "process"; readonly maxEpochs: number; readonly maxDeposits: number; readonly maxInvoices: number }
  | { readonly t: "expire"; readonly picks: number[] }
  | { readonly t: "domains"; readonly solver: number; readonly domains: number[] }
  | { readonly t: "epochLength"; readonly length: number }

const domain = fc.constantFrom(...DOMAINS)
const amount = fc.oneof(fc.bigInt({ min: 1n, max: 10n ** 21n }), fc.constantFrom(1n, 99n, 5n * 10n ** 19n, 10n ** 20n))
const bound = fc.oneof(fc.constant(0), fc.nat(3))
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 15, arbitrary: fc.record({ t: fc.constant("block" as const), blocks: fc.integer({ min: 0, max: 25 }), seconds: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.constantFrom(0, 50, 100, 200, 600, 1000)) }) },
  {
    weight: 30,
    arbitrary: fc.record({
      t: fc.constant("intent" as const),
      origin: domain,
      destinations: fc.uniqueArray(domain, { maxLength: 3 }),
      amount,
      ttl: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 1, max: 500 }), fc.constantFrom(50, 100, 200)),
      maxFee: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 6000 })),
      user: fc.nat(2),
    }),
  },
  { weight: 10, arbitrary: fc.record({ t: fc.constant("fillFirst" as const), origin: domain, destination: domain, amount, ttl: fc.oneof(fc.integer({ min: 0, max: 500 }), fc.constantFrom(50, 100, 200)), solver: fc.nat(1) }) },
  { weight: 15, arbitrary: fc.record({ t: fc.constant("fill" as const), pick: fc.nat(), solver: fc.nat(1) }) },
  { weight: 5, arbitrary: fc.record({ t: fc.constant("repeat" as const), pick: fc.nat() }) },
  { weight: 15, arbitrary: fc.record({ t: fc.constant("process" as const), maxEpochs: bound, maxDeposits: bound, maxInvoices: bound }) },
  { weight: 5, arbitrary: fc.record({ t: fc.constant("expire" as const), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }) }) },
  { weight: 5, arbitrary: fc.record({ t: fc.constant("domains" as const), solver: fc.nat(1), domains: fc.uniqueArray(domain, { minLength: 2, maxLength: 3 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("epochLength" as const), length: fc.integer({ min: 1, max: 30 }) }) },
)

/** The engine's and the model's events for the same trace (reverts compared by call and error name). */
const run = (params: Params, steps: readonly Step[], firstBlock: number) => {
  const sink = new CollectingSink()
  const hub = new Hub(configOf(params), sink)
  const model = new Model(params)
  const intents: Intent[] = []
  let nonce = 0n
  let block = firstBlock
  let timestamp = 1_700_000_000
  const both = (input: HubInput, apply: () => void) => {
    hub.apply(input)
    hub.checkConservation()
    apply()
  }
  const send = (intent: Intent) => both({ kind: "intents", intents: [intent] }, () => model.receiveIntent(intent))
  const fill = (id: Bytes32, solver: Bytes32) =>
    both({ kind: "fills", fills: [{ intentId: id, solver, initiator: USERS[0]!, fee: 0, executionTimestamp: timestamp }] }, () => model.receiveFill(id, solver))
  const make = (p: { origin: number; destinations: number[]; amount: bigint; ttl: number; maxFee: number; user: number; output?: Bytes32 | undefined }): Intent => ({
    initiator: USERS[p.user]!,
    receiver: USERS[(p.user + 1) % USERS.length]!,
    inputAsset: asset(p.origin),
    outputAsset: p.output ?? ZERO_BYTES32,
    maxFee: p.maxFee,
    origin: p.origin,
    nonce: ++nonce,
    timestamp,
    ttl: p.ttl,
    amount: p.amount,
    destinations: p.destinations,
    data: "0x",
  })
  both({ kind: "block", number: block, timestamp }, () => model.setBlock(block, timestamp))
  for (const s of steps) {
    switch (s.t) {
      case "block":
        block += s.blocks
        timestamp += s.seconds
        both({ kind: "block", number: block, timestamp }, () => model.setBlock(block, timestamp))
        break
      case "intent": {
        // A fast-path intent has one destination and names its output asset (the spoke's rule, §4.1).
        const fast = s.ttl > 0 && s.destinations.length === 1
        const intent = make({ ...s, ttl: fast ? s.ttl : 0, output: fast ? asset(s.destinations[0]!) : undefined })
        intents.push(intent)
        send(intent)
        break
      }
      case "fillFirst": {
        const intent = make({ origin: s.origin, destinations: [s.destination], amount: s.amount, ttl: s.ttl, maxFee: 0, user: 0, output: asset(s.destination) })
        intents.push(intent)
        fill(intentId(intent), SOLVERS[s.solver]!)
        send(intent)
        break
      }
      case "fill":
        if (intents.length > 0) fill(intentId(intents[s.pick % intents.length]!), SOLVERS[s.solver]!)
        break
      case "repeat":
        if (intents.length > 0) send(intents[s.pick % intents.length]!)
        break
      case "process":
        both({ kind: "processDepositsAndInvoices", ticker: "DAI", maxEpochs: s.maxEpochs, maxDeposits: s.maxDeposits, maxInvoices: s.maxInvoices }, () =>
          model.processDepositsAndInvoices(s.maxEpochs, s.maxDeposits, s.maxInvoices),
        )
        break
      case "expire": {
        if (intents.length === 0) break
        const ids = s.picks.map((p) => intentId(intents[p % intents.length]!))
        both({ kind: "handleExpiredIntents", intentIds: ids }, () => model.handleExpiredIntents(ids))
        break
      }
      case "domains":
        both({ kind: "setUserSupportedDomains", user: SOLVERS[s.solver]!, domains: s.domains }, () => model.setUserSupportedDomains(SOLVERS[s.solver]!, s.domains))
        break
      case "epochLength":
        both({ kind: "updateEpochLength", epochLength: s.length }, () => model.updateEpochLength(s.length))
        break
    }
  }
  const comparable = (e: HubEvent) => (e.kind === "Reverted" ? { kind: e.kind, call: e.call, error: e.error } : e)
  return { engine: sink.events.map(comparable), model: model.events.map(comparable) }
}

describe("the engine against a naive model of the reference (one ticker, random traces)", () => {
  it.each([
    { userMaxDiscount: false, discountExemptEpochs: 0 },
    { userMaxDiscount: true, discountExemptEpochs: 0 },
    { userMaxDiscount: true, discountExemptEpochs: 1 },
  ])("userMaxDiscount $userMaxDiscount, discountExemptEpochs $discountExemptEpochs: same events, in the same order, with the same amounts", (params) => {
    const seen = new Set<string>()
    fc.assert(
      fc.property(fc.array(step, { minLength: 30, maxLength: 150, size: "max" }), fc.constantFrom(0, 5, 100, 105), (steps, firstBlock) => {
        const { engine, model } = run(params, steps, firstBlock)
        expect(engine).toEqual(model)
        for (const e of engine) seen.add(e.kind === "Reverted" ? e.error : e.kind)
      }),
      { numRuns: 250 },
    )
    // The traces reach every path compared (a green run proves something).
    for (const kind of ["InvoiceEnqueued", "DepositEnqueued", "SettlementEnqueued", "FillProcessed", "ClosedEpochsProcessed", "ExpiredIntentsHandled", "EpochLengthUpdated"]) {
      expect(seen, kind).toContain(kind)
    }
  })
})
