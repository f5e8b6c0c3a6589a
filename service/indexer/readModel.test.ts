import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { type Address, addressToBytes32, type Bytes32, bytes32ToAddress, type Hex } from "../domain/hex.ts"
import { intentId as computeIntentId } from "../domain/encoding.ts"
import type { Intent } from "../domain/protocol.ts"
import { DAI, makeConfig, SOLVER, u, USDC } from "../hub/testing.ts"
import { API_INTENT_STATUSES, type ApiIntentStatus } from "./records.ts"
import { memoryTxHash, type SpokeEventMeta } from "./inputs.ts"
import { computeMinAmounts } from "./minAmounts.ts"
import type { IntentQuery } from "./readModel.ts"
import { deriveStatus } from "./status.ts"
import { FEE_ADAPTER, TestWorld, USER } from "./testing.ts"

/** The Intent record fields of SPEC.md, in the order of its table. */
const SPEC_INTENT_FIELDS = [
  "intent_id", "batch_id", "queue_idx", "message_id", "status", "receiver", "input_asset", "output_asset", "origin_amount",
  "destination_amount", "origin", "destinations", "nonce", "transaction_hash", "receive_tx_hash", "intent_created_timestamp",
  "settlement_timestamp", "intent_created_block_number", "receive_blocknumber", "tx_origin", "tx_nonce", "auto_id", "amount_out_min",
  "call_data", "filled", "initiator", "native_fee", "token_fee", "fee_adapter_initiator", "origin_gas_fees", "destination_gas_fees",
  "hub_settlement_domain", "ttl", "is_fast_path", "fill_solver", "fill_domain", "fill_destinations", "fill_transaction_hash",
  "fill_timestamp", "fill_amount", "fill_fee_token", "fill_fee_dbps", "fill_input_asset", "fill_output_asset", "fill_sender",
  "fill_status", "fill_initiator", "fill_receiver", "max_fee",
]

describe("intent records", () => {
  it("carry every field of the spec's Intent record, in order", () => {
    const world = new TestWorld()
    const { id } = world.newIntent()
    expect(Object.keys(world.model.intent(id)!)).toEqual(SPEC_INTENT_FIELDS)
  })

  it("follow a netting intent from the spoke to its settlement (statuses of reference §6.4)", () => {
    const world = new TestWorld()
    const m = world.model
    const { id, intent, txHash } = world.newIntent({ origin: 1, destinations: [10], amount: u(100), tokenFee: 5n })
    let r = m.intent(id)!
    expect(r.status).toBe("ADDED_SPOKE")
    expect(r).toMatchObject({
      origin: "1",
      destinations: ["10"],
      origin_amount: u(100).toString(),
      receiver: addressToBytes32(USER),
      initiator: addressToBytes32(FEE_ADAPTER),
      input_asset: world.assetOf("DAI", 1),
      transaction_hash: txHash,
      tx_origin: USER,
      nonce: 1,
      queue_idx: 1,
      ttl: 0,
      is_fast_path: false,
      max_fee: "0",
      call_data: "0x",
      token_fee: "5",
      native_fee: "0",
      fee_adapter_initiator: USER,
      origin_gas_fees: "21000",
      filled: false,
      intent_created_timestamp: intent.timestamp,
      intent_created_block_number: 100,
    })

    const batchId = world.dispatch(1, 777n)
    r = m.intent(id)!
    // Dispatched, and the hub found no liquidity on 10: it became an invoice.
    expect(r.batch_id).toBe(batchId)
    expect(r.message_id).toBe(batchId)
    expect(r.status).toBe("INVOICED")
    expect(m.batch(batchId)).toMatchObject({ type: "batch", batchId, native_fee: "777", token_fee: "0" })
    expect(m.batch(batchId)!.intents.map((i) => i.intent_id)).toEqual([id])
    expect(m.invoice(id)).toMatchObject({ intent_id: id, amount: u(97).toString(), discountBps: 0, entry_epoch: 10, hub_status: "INVOICED", ticker_hash: DAI, origin: "1", destinations: ["10"] })

    world.epoch(12)
    expect(m.invoice(id)!.discountBps).toBe(200) // 2 epochs × 1000 dbps = 200 bps
    const buyer = world.newIntent({ origin: 10, destinations: [1], amount: u(200) })
    expect(m.intent(buyer.id)!.origin_amount).toBe("200000000") // 6 decimals on domain 10
    world.dispatch(10)
    expect(m.intent(buyer.id)!.status).toBe("ADDED") // a deposit: origin dispatched, hub ADDED
    world.process()
    expect(m.invoice(id)).toBeUndefined()
    expect(m.intent(id)!.status).toBe("SETTLED")
    expect(m.intent(id)!.hub_settlement_domain).toBe("10")

    const message = world.dispatchSettlements(10)
    expect(m.intent(id)!.status).toBe("DISPATCHED_HUB")
    world.deliverSettlements(message)
    r = m.intent(id)!
    expect(r.status).toBe("SETTLED_AND_COMPLETED")
    // 97 - 97 × 2 % = 95.06, paid in 6 decimals
    expect(r.destination_amount).toBe("95060000")
    expect(r.receive_tx_hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(r.settlement_timestamp).toBe(world.now)
    expect(r.receive_blocknumber).toBe(120)
    expect(r.destination_gas_fees).toBe("50000")

    const history = m.history(id, 0, 10)!.invoiceProcessingHistory
    expect(history).toHaveLength(1)
    expect(history[0]).toMatchObject({
      epoch: 12,
      domain: 1,
      selectedDestinationDomain: 10,
      discountdbps: 2000,
      amountToBeDiscounted: u(97).toString(),
      rewardsForDepositors: u("1.94").toString(),
      amountAfterDiscount: u("95.06").toString(),
      selectedDestinationDomainLiquidity: u(200).toString(),
    })
  })

  it("record fills and the fast path", () => {
    const world = new TestWorld()
    world.hub.setUserSupportedDomains(SOLVER, [1, 10])
    const { id, intent } = world.newIntent({ symbol: "USDC", origin: 1, destinations: [10], ttl: 3600, maxFee: 500, outputAsset: world.assetOf("USDC", 10) })
    expect(world.model.intent(id)).toMatchObject({ is_fast_path: true, ttl: 3600, max_fee: "500", amount_out_min: "99500000" })
    world.fill(intent, { fee: 300 })
    let r = world.model.intent(id)!
    expect(r).toMatchObject({
      filled: true,
      fill_solver: "0x5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a5a",
      fill_domain: "10",
      fill_destinations: ["10"],
      fill_amount: "99700000",
      fill_fee_token: "300000",
      fill_fee_dbps: "300",
      fill_input_asset: world.assetOf("USDC", 1),
      fill_output_asset: world.assetOf("USDC", 10),
      fill_status: "FILLED",
      fill_receiver: intent.receiver,
      fill_initiator: intent.initiator,
      destination_amount: "99700000",
      status: "FILLED", // origin ADDED, hub FILLED (the fill message arrived first)
    })
    world.dispatch(1)
    r = world.model.intent(id)!
    expect(r.status).toBe("SETTLED") // the solver is repaid on 1 right away
    expect(r.hub_settlement_domain).toBe("1")
    world.settle(1)
    expect(world.model.intent(id)!.status).toBe("SETTLED_AND_COMPLETED")
    expect(world.model.intent(id)!.destination_amount).toBe("99700000") // what the receiver got from the fill
  })

  it("take the solver's repayment for no basic settlement, even when the solver is also the receiver", () => {
    const world = new TestWorld()
    world.hub.setUserSupportedDomains(SOLVER, [1, 10])
    const prior = { p25Minutes: 1, p50Minutes: 2, p75Minutes: 3, observations: 0 }
    // Three such intents: as many as a route needs (minObservations) for its own figures.
    for (let i = 0; i < 3; i++) {
      const { id, intent } = world.newIntent({ symbol: "USDC", origin: 1, destinations: [10], ttl: 3600, maxFee: 500, receiver: SOLVER, outputAsset: world.assetOf("USDC", 10) })
      world.fill(intent, { fee: 300 })
      world.dispatch(1)
      world.settle(1)
      expect(world.model.intent(id)).toMatchObject({ status: "SETTLED_AND_COMPLETED", destination_amount: "99700000" })
    }
    expect(world.model.settlementTimes.estimate(1, 1, "basic", prior)).toBe(prior)
    // Each fill came in the block of its intent: 0 minutes from creation to fill.
    expect(world.model.settlementTimes.estimate(1, 10, "fast", prior)).toEqual({ p25Minutes: 0, p50Minutes: 0, p75Minutes: 0, observations: 3 })
  })

  it("take a solver's repayment seen before its fill is indexed for no amount of the receiver", () => {
    const world = new TestWorld()
    world.hub.setUserSupportedDomains(SOLVER, [1, 10])
    const { id, intent } = world.newIntent({ symbol: "USDC", origin: 1, destinations: [10], ttl: 3600, maxFee: 500, outputAsset: world.assetOf("USDC", 10) })
    // The fill message reached the hub; the destination's IntentFilled is not indexed yet.
    world.hub.receiveFills([{ intentId: id, solver: SOLVER, initiator: intent.initiator, fee: 300, executionTimestamp: world.now }])
    world.dispatch(1)
    world.settle(1)
    expect(world.model.intent(id)).toMatchObject({ hub_settlement_domain: "1", destination_amount: null, filled: false })
  })

  it("show an unfilled fast-path deposit of a closed epoch, waiting on the hub, as DEPOSIT_PROCESSED", () => {
    const world = new TestWorld()
    world.newIntent({ origin: 1, destinations: [10], amount: u(100) }) // an open invoice: later intents are deposits
    world.dispatch(1)
    const { id } = world.newIntent({ origin: 1, destinations: [10], amount: u(10), ttl: 3600, maxFee: 500, outputAsset: world.assetOf("DAI", 10) })
    world.dispatch(1)
    expect(world.model.intent(id)!.status).toBe("ADDED")
    world.epoch(11)
    world.process()
    expect(world.model.intent(id)!.status).toBe("DEPOSIT_PROCESSED")
  })

  it("keep SETTLED for intents with calldata until it is executed", () => {
    const world = new TestWorld()
    world.newIntent({ origin: 10, destinations: [1], amount: u(1000) }) // liquidity on 10 (becomes an invoice)
    world.dispatch(10)
    const { id } = world.newIntent({ origin: 1, destinations: [10], amount: u(100), data: "0x1234" })
    world.dispatch(1) // a deposit (an invoice is open)
    world.epoch(11)
    world.process() // cleanup settles the deposit on 10
    world.settle(10)
    expect(world.model.intent(id)!.status).toBe("SETTLED")
    world.model.onSpokeEvent({ name: "ExternalCalldataExecuted", intentId: id, returnData: "0x" }, world.meta(10))
    expect(world.model.intent(id)!.status).toBe("SETTLED_AND_MANUALLY_EXECUTED")
  })

  it("mark unsupported intents and their return", () => {
    const world = new TestWorld()
    const { id } = world.newIntent({ inputAsset: addressToBytes32("0x000000000000000000000000000000000000dead") })
    world.dispatch(1)
    expect(world.model.intent(id)!.status).toBe("UNSUPPORTED")
    world.hub.returnUnsupportedIntent(id)
    expect(world.model.intent(id)!.status).toBe("UNSUPPORTED_RETURNED")
    // The refund paid back on the origin is no settlement: the status and the destination amount stay.
    world.model.onSpokeEvent({ name: "Settled", intentId: id, account: USER, asset: "0x000000000000000000000000000000000000dead", amount: u(100) }, world.meta(1))
    expect(world.model.intent(id)).toMatchObject({ status: "UNSUPPORTED_RETURNED", destination_amount: null })
  })

  it("derive the API status from the origin, hub and settlement statuses (reference §6.4 genstatus)", () => {
    const cases: [Parameters<typeof deriveStatus>, ApiIntentStatus][] = [
      [["ADDED", "NONE", "NONE", false], "ADDED_SPOKE"],
      [["ADDED", "ADDED", "NONE", false], "ADDED_HUB"], // the hub event indexed before the spoke's dispatch
      [["DISPATCHED", "NONE", "NONE", false], "DISPATCHED_SPOKE"],
      [["DISPATCHED", "DISPATCHED", "NONE", false], "DISPATCHED_HUB"],
      [["DISPATCHED", "INVOICED", "NONE", false], "INVOICED"],
      [["NONE", "DISPATCHED", "NONE", false], "DISPATCHED_HUB"], // known from its fill only
      [["NONE", "FILLED", "NONE", false], "FILLED"],
      [["DISPATCHED", "DISPATCHED", "SETTLED", true], "SETTLED"],
      [["DISPATCHED", "DISPATCHED", "SETTLED", false], "SETTLED_AND_COMPLETED"],
    ]
    expect(cases.map(([args]) => deriveStatus(...args))).toEqual(cases.map(([, status]) => status))
  })

  it("give the largest single solver's inventory for the fast path, not the sum over solvers", () => {
    const [s1, s2] = ["0x00000000000000000000000000000000000000b1", "0x00000000000000000000000000000000000000b2"] as const
    const world = new TestWorld(undefined, { solvers: [s1, s2] })
    const asset = bytes32ToAddress(world.assetOf("USDC", 10))
    world.model.onSpokeEvent({ name: "Deposited", depositant: s1, asset, amount: 600n }, world.meta(10))
    world.model.onSpokeEvent({ name: "Deposited", depositant: s2, asset, amount: 500n }, world.meta(10))
    world.model.onSpokeEvent({ name: "Withdrawn", withdrawer: s1, asset, amount: 200n }, world.meta(10))
    expect(world.model.largestSolverInventory(10, asset)).toBe(500n)
  })

  it("dispatch the intents of a queue batch from firstIdx up to lastIdx exclusive", () => {
    const world = new TestWorld()
    const ids = [1, 2, 3].map(() => world.newIntent({ origin: 1, destinations: [10], amount: u(100) }).id)
    const batchId = `0x${"77".repeat(32)}` as Bytes32
    world.model.onSpokeEvent({ name: "IntentQueueProcessed", messageId: batchId, firstIdx: 1n, lastIdx: 3n, quote: 0n }, world.meta(1))
    expect(world.model.batch(batchId)!.intents.map((i) => i.intent_id)).toEqual(ids.slice(0, 2))
    expect(ids.map((id) => world.model.intent(id)!.status)).toEqual(["DISPATCHED_SPOKE", "DISPATCHED_SPOKE", "ADDED_SPOKE"])
  })

  it("count intents per status", () => {
    const world = new TestWorld()
    for (let i = 0; i < 3; i++) world.newIntent()
    expect(world.model.countByStatus("ADDED_SPOKE")).toBe(3)
    world.dispatch(1)
    expect(world.model.countByStatus("ADDED_SPOKE")).toBe(0)
    expect(world.model.countByStatus("INVOICED") + world.model.countByStatus("ADDED")).toBe(3)
  })
})

describe("intent pages", () => {
  const world = new TestWorld()
  const users = ["0x00000000000000000000000000000000000000a1", "0x00000000000000000000000000000000000000a2"] as const
  const domains = [1, 10, 8453]
  for (let i = 0; i < 70; i++) {
    const origin = domains[i % 3]!
    const destinations = domains.filter((d) => d !== origin).slice(0, 1 + (i % 2))
    world.newIntent({ origin, destinations, amount: u(1 + i), from: users[i % 2]!, ...(i % 5 === 0 ? { ttl: 60, destinations: destinations.slice(0, 1), outputAsset: world.assetOf("DAI", destinations[0]!) } : {}) })
    if (i % 7 === 6) world.dispatch(origin)
  }
  const all = world.model.listIntents({ limit: 1000 }).entries.map((e) => e.record)

  const queryArb: fc.Arbitrary<IntentQuery> = fc.record(
    {
      limit: fc.integer({ min: 1, max: 15 }),
      origins: fc.subarray(domains, { minLength: 1 }),
      destinations: fc.subarray(domains, { minLength: 1 }),
      allDestinations: fc.subarray(domains, { minLength: 1, maxLength: 2 }),
      statuses: fc.subarray([...API_INTENT_STATUSES] as ApiIntentStatus[], { minLength: 1, maxLength: 3 }),
      isFastPath: fc.boolean(),
      userAddress: fc.constantFrom(...users),
      startDate: fc.constantFrom(world.now - 1, world.now, world.now + 1),
      endDate: fc.constantFrom(world.now - 1, world.now, world.now + 1),
      tickerHash: fc.constantFrom(DAI, USDC),
    },
    { requiredKeys: ["limit"] },
  )

  const brute = (q: IntentQuery) =>
    all.filter(
      (r) =>
        (q.origins === undefined || q.origins.includes(Number(r.origin))) &&
        (q.destinations === undefined || r.destinations!.some((d) => q.destinations!.includes(Number(d)))) &&
        (q.allDestinations === undefined || q.allDestinations.every((d) => r.destinations!.includes(String(d)))) &&
        (q.statuses === undefined || q.statuses.includes(r.status)) &&
        (q.isFastPath === undefined || r.is_fast_path === q.isFastPath) &&
        (q.userAddress === undefined || r.tx_origin === q.userAddress) &&
        (q.startDate === undefined || r.intent_created_timestamp! >= q.startDate) &&
        (q.endDate === undefined || r.intent_created_timestamp! <= q.endDate) &&
        (q.tickerHash === undefined || q.tickerHash === DAI),
    )

  it("list newest first", () => {
    expect(all.map((r) => r.auto_id)).toEqual([...Array(70).keys()].reverse())
  })

  it("walk forward with nextCursor and back with prevCursor over exactly the matching records", () => {
    fc.assert(
      fc.property(queryArb, (q) => {
        const expected = brute(q).map((r) => r.intent_id)
        const seen: string[] = []
        const pages: { first: string | undefined; prevCursor: string | null }[] = []
        let cursor: number | undefined
        for (let guard = 0; guard < 200; guard++) {
          const page = world.model.listIntents({ ...q, cursor })
          expect(page.maxCount).toBe(expected.length)
          expect(page.entries.length).toBeLessThanOrEqual(q.limit)
          seen.push(...page.entries.map((e) => e.record.intent_id))
          pages.push({ first: page.entries[0]?.record.intent_id, prevCursor: page.prevCursor })
          if (page.nextCursor === null) break
          cursor = Number(page.nextCursor)
        }
        expect(seen).toEqual(expected)
        // From the second page, prevCursor leads back to the page before.
        if (pages.length >= 2) {
          const back = world.model.listIntents({ ...q, prevCursor: Number(pages[1]!.prevCursor) })
          expect(back.entries[0]?.record.intent_id).toBe(pages[0]!.first)
        }
      }),
      { numRuns: 300 },
    )
  })

  it("brings its filter indexes up to date with what happened since the last query", () => {
    const q = { limit: 1000, origins: [10], userAddress: users[1], isFastPath: false, tickerHash: DAI }
    const before = world.model.listIntents(q).entries.length
    expect(world.model.listIntents(q).maxCount).toBe(before)
    for (let i = 0; i < 9; i++) world.newIntent({ origin: domains[i % 3]!, destinations: [domains[(i + 1) % 3]!], amount: u(1), from: users[i % 2]! })
    world.dispatch(10)
    const now = world.model.listIntents({ limit: 1000 }).entries.map((e) => e.record)
    const expected = now.filter((r) => r.origin === "10" && r.tx_origin === users[1] && r.is_fast_path === false).map((r) => r.intent_id)
    expect(expected.length).toBeGreaterThan(before)
    expect(world.model.listIntents(q).entries.map((e) => e.record.intent_id)).toEqual(expected)
    expect(world.model.listIntents(q).maxCount).toBe(expected.length)
  })

  it("find intents by transaction hash", () => {
    const { id, txHash } = world.newIntent()
    const page = world.model.listIntents({ limit: 10, txHash })
    expect(page.entries.map((e) => e.record.intent_id)).toEqual([id])
  })

  it("make a memory-backend creation's hash from its domain, block and index, only when it is read", () => {
    const w = new TestWorld()
    const { intent } = w.newIntent()
    const other: Intent = { ...intent, nonce: intent.nonce + 100n }
    const id = computeIntentId(other)
    let reads = 0
    const meta: SpokeEventMeta = {
      domain: 1,
      blockNumber: 4242,
      timestamp: 1_700_000_123,
      get txHash(): Hex {
        reads++
        return memoryTxHash(1, 4242, 3)
      },
      txFrom: USER,
      txNonce: 9,
      memoryTxIndex: 3,
    }
    w.model.onSpokeEvent({ name: "IntentAdded", intentId: id, queueIdx: 50n, intent: other }, meta)
    expect(reads).toBe(0) // nothing read at the event: the facts are kept, the hash made when asked
    const hash = memoryTxHash(1, 4242, 3)
    expect(w.model.intent(id)).toMatchObject({ transaction_hash: hash, tx_origin: USER.toLowerCase(), tx_nonce: 9, intent_created_block_number: 4242, origin_gas_fees: null })
    expect(w.model.listIntents({ limit: 10, txHash: hash }).entries.map((e) => e.record.intent_id)).toEqual([id])
    // A second IntentAdded of the same id (another transaction): the record and the txHash filter follow the last.
    w.model.onSpokeEvent({ name: "IntentAdded", intentId: id, queueIdx: 51n, intent: other }, { ...w.meta(1), txNonce: 10 })
    const second = w.model.intent(id)!.transaction_hash!
    expect(second).not.toBe(hash)
    expect(w.model.listIntents({ limit: 10, txHash: hash }).entries).toEqual([])
    expect(w.model.listIntents({ limit: 10, txHash: second }).entries.map((e) => e.record.intent_id)).toEqual([id])
    expect(reads).toBe(0)
    // An index that cannot be one (negative, fractional): the meta's own hash is used.
    const third: Intent = { ...intent, nonce: intent.nonce + 200n }
    const thirdId = computeIntentId(third)
    const given = w.meta(1).txHash
    w.model.onSpokeEvent({ name: "IntentAdded", intentId: thirdId, queueIdx: 52n, intent: third }, { ...w.meta(1), txHash: given, memoryTxIndex: -1 })
    expect(w.model.intent(thirdId)!.transaction_hash).toBe(given.toLowerCase())
    expect(w.model.listIntents({ limit: 10, txHash: given.toLowerCase() }).entries.map((e) => e.record.intent_id)).toEqual([thirdId])
  })

  it("keep each entry's creating transaction by its own seq, entries made first by a fill included, past the columns' first size", () => {
    const w = new TestWorld()
    const { intent } = w.newIntent()
    const made: { id: Bytes32; hash: Hex; from: Address; gasFee: bigint; block: number }[] = []
    const fillOnly: Bytes32[] = []
    for (let k = 0; k < 1500; k++) {
      const other: Intent = { ...intent, nonce: intent.nonce + 1000n + BigInt(k) }
      const id = computeIntentId(other)
      // Entries made by their fill before any IntentAdded (which comes later or never): entry seqs and IntentAdded order differ.
      if (k % 3 !== 2) w.fill(other, { deliver: false })
      if (k % 3 === 1) {
        fillOnly.push(id)
        continue
      }
      const from = `0x${"5e".repeat(16)}${k.toString(16).padStart(8, "0")}` as Address
      const gasFee = k % 2 === 0 ? (1n << 64n) - 1n + BigInt(k % 4) : BigInt(k)
      const hash = `0x${"AB".repeat(31)}${(k % 256).toString(16).padStart(2, "0")}` as Hex
      const meta: SpokeEventMeta = { domain: 1, blockNumber: 7000 + k, timestamp: 1_700_000_000 + k, txHash: hash, txFrom: from, txNonce: k, gasFee }
      w.model.onSpokeEvent({ name: "IntentAdded", intentId: id, queueIdx: 100n + BigInt(k), intent: other }, meta)
      made.push({ id, hash, from, gasFee, block: 7000 + k })
    }
    for (const id of fillOnly) expect(w.model.intent(id)).toMatchObject({ transaction_hash: null, tx_origin: null, origin_gas_fees: null })
    for (const m of made) {
      expect(w.model.intent(m.id)).toMatchObject({ transaction_hash: m.hash.toLowerCase(), tx_origin: m.from, intent_created_block_number: m.block, origin_gas_fees: String(m.gasFee) })
      expect(w.model.listIntents({ limit: 10, userAddress: m.from }).entries.map((e) => e.record.intent_id)).toEqual([m.id])
    }
    const last = made.at(-1)!
    const found = w.model.listIntents({ limit: 1000, txHash: last.hash.toLowerCase() }).entries.map((e) => e.record.intent_id)
    expect(found).toContain(last.id)
    for (const id of found) expect(w.model.intent(id as Bytes32)!.transaction_hash).toBe(last.hash.toLowerCase())
  })
})

describe("invoices", () => {
  /** Six invoices: 3 DAI 1→10 then 3 USDC 56→10, all unsettleable (no liquidity on 10). */
  const makeInvoices = () => {
    const world = new TestWorld()
    const dai = [1, 2, 3].map((i) => world.newIntent({ origin: 1, destinations: [10], amount: u(10 * i) }).id)
    const usdc = [1, 2, 3].map((i) => world.newIntent({ symbol: "USDC", origin: 56, destinations: [10], amount: u(10 * i) }).id)
    world.dispatch(1)
    world.dispatch(56)
    world.epoch(11)
    world.process("DAI")
    world.process("USDC")
    return { world, dai, usdc }
  }

  it("list open invoices in FIFO order across tickers, with filters and cursors", () => {
    const { world, dai, usdc } = makeInvoices()
    const m = world.model
    const fifo = m.listInvoices({ limit: 100 })
    expect(fifo.invoices.map((i) => i.intent_id)).toEqual([dai[0], usdc[0], dai[1], dai[2], usdc[1], usdc[2]])
    expect(fifo.maxCount).toBe(6)
    const first = m.listInvoices({ limit: 4 })
    expect(first.invoices).toHaveLength(4)
    const second = m.listInvoices({ limit: 4, cursor: Number(first.nextCursor) })
    expect(second.invoices.map((i) => i.intent_id)).toEqual([usdc[1], usdc[2]])
    expect(second.nextCursor).toBeNull()
    const back = m.listInvoices({ limit: 4, prevCursor: Number(second.prevCursor) })
    expect(back.invoices.map((i) => i.intent_id)).toEqual(first.invoices.map((i) => i.intent_id))
    // The page back leads forward again to the second page, as the first did.
    expect([back.nextCursor, back.prevCursor]).toEqual([first.nextCursor, null])
    expect(m.listInvoices({ limit: 100, tickerHash: USDC }).invoices.map((i) => i.intent_id)).toEqual(usdc)
    expect(m.listInvoices({ limit: 100, origins: [56] }).maxCount).toBe(3)
    expect(m.listInvoices({ limit: 100, destinations: [1] }).maxCount).toBe(0)
    // USDC invoices were enqueued at epoch 11 with 2 dbps fees; DAI at 10 and 11.
    world.epoch(13)
    const byDiscount = m.listInvoices({ limit: 100, sortOrderByDiscount: "desc" }).invoices
    expect(byDiscount.map((i) => i.discountBps)).toEqual([...byDiscount.map((i) => i.discountBps)].sort((a, b) => b - a))
    const asc = m.listInvoices({ limit: 2, sortOrderByDiscount: "asc" })
    const asc2 = m.listInvoices({ limit: 2, sortOrderByDiscount: "asc", sortedCursor: asc.nextCursor! })
    expect([...asc.invoices, ...asc2.invoices].map((i) => i.intent_id)).toEqual(
      m.listInvoices({ limit: 4, sortOrderByDiscount: "asc" }).invoices.map((i) => i.intent_id),
    )
  })

  it("count and filter invoices by destination: each invoice once, and only those listing one", () => {
    const world = new TestWorld()
    const dai = [[10], [10], [10, 8453]].map((destinations) => world.newIntent({ origin: 1, destinations, amount: u(10) }).id)
    const usdc = world.newIntent({ symbol: "USDC", origin: 56, destinations: [8453], amount: u(10) }).id
    for (let i = 0; i < 2; i++) world.newIntent({ symbol: "USDC", origin: 56, destinations: [1], amount: u(10) })
    world.dispatch(1)
    world.dispatch(56)
    world.epoch(11)
    world.process("DAI") // the deposits after each ticker's first invoice become invoices too
    world.process("USDC")
    const m = world.model
    expect(m.listInvoices({ limit: 100 }).maxCount).toBe(6)
    // The invoice listing both is counted once (FIFO: each ticker's first invoice was enqueued at once, the rest at epoch 11).
    const both = m.listInvoices({ limit: 100, destinations: [10, 8453] })
    expect([both.invoices.map((i) => i.intent_id), both.maxCount]).toEqual([[dai[0], usdc, dai[1], dai[2]], 4])
    // The USDC invoice goes to 8453 only: none of USDC to 10.
    const usdcTo10 = m.listInvoices({ limit: 100, tickerHash: USDC, destinations: [10] })
    expect([usdcTo10.invoices, usdcTo10.maxCount]).toEqual([[], 0])
  })

  it("count a domain named twice in a filter once (`origins=1,1`, `origins=1&origins[]=1`)", () => {
    const { world, dai } = makeInvoices()
    const m = world.model
    for (const origins of [[1], [1, 1], [1, 1, 1]]) {
      const page = m.listInvoices({ limit: 100, origins })
      expect([page.invoices.map((i) => i.intent_id), page.maxCount], origins.join(",")).toEqual([dai, 3])
    }
    expect(m.listInvoices({ limit: 100, destinations: [10, 10] }).maxCount).toBe(6)
  })

  it("answer the invoices JSON afresh after a change or a new epoch (cached pages and records)", () => {
    const world = new TestWorld()
    const m = world.model
    const ids = (json: string) => (JSON.parse(json) as { invoices: { intent_id: string }[] }).invoices.map((i) => i.intent_id)
    const discounts = (json: string) => (JSON.parse(json) as { invoices: { discountBps: number }[] }).invoices.map((i) => i.discountBps)
    const dai = world.newIntent({ origin: 1, destinations: [10], amount: u(10) }).id
    world.dispatch(1)
    expect(ids(m.listInvoicesJson({ limit: 10 }))).toEqual([dai])
    const usdc = world.newIntent({ symbol: "USDC", origin: 56, destinations: [10], amount: u(10) }).id
    world.dispatch(56)
    expect(ids(m.listInvoicesJson({ limit: 10 }))).toEqual([dai, usdc])
    expect(ids(m.listInvoicesJson({ limit: 1 }))).toEqual([dai])
    // Entered at epoch 10: 0 bps now, 200 bps two epochs on (1000 dbps an epoch).
    expect(discounts(m.listInvoicesJson({ limit: 10, tickerHash: DAI }))).toEqual([0])
    world.epoch(12)
    expect(discounts(m.listInvoicesJson({ limit: 10, tickerHash: DAI }))).toEqual([200])
  })

  it("page back through invoices sorted by discount with the prevCursor the pages return", () => {
    const { world } = makeInvoices()
    const m = world.model
    world.epoch(13)
    for (const order of ["asc", "desc"] as const) {
      const all = m.listInvoices({ limit: 100, sortOrderByDiscount: order }).invoices.map((i) => i.intent_id)
      expect(all).toHaveLength(6)
      const ids = (page: { invoices: readonly { intent_id: string }[] }) => page.invoices.map((i) => i.intent_id)
      const p1 = m.listInvoices({ limit: 2, sortOrderByDiscount: order })
      const p2 = m.listInvoices({ limit: 2, sortOrderByDiscount: order, sortedCursor: p1.nextCursor! })
      const p3 = m.listInvoices({ limit: 2, sortOrderByDiscount: order, sortedCursor: p2.nextCursor! })
      expect([ids(p1), ids(p2), ids(p3)]).toEqual([all.slice(0, 2), all.slice(2, 4), all.slice(4, 6)])
      expect([p1.prevCursor, p3.nextCursor]).toEqual([null, null])
      const back2 = m.listInvoices({ limit: 2, sortOrderByDiscount: order, sortedPrevCursor: p3.prevCursor! })
      expect(ids(back2)).toEqual(ids(p2))
      expect([back2.prevCursor, back2.nextCursor]).toEqual([p2.prevCursor, p2.nextCursor])
      const back1 = m.listInvoices({ limit: 2, sortOrderByDiscount: order, sortedPrevCursor: back2.prevCursor! })
      expect(ids(back1)).toEqual(ids(p1))
      expect(back1.prevCursor).toBeNull()
      // A prevCursor key that is no row (discounts move with the epoch) ends the page before the row after it.
      if (order === "asc") {
        const discounts = m.listInvoices({ limit: 100, sortOrderByDiscount: order }).invoices.map((i) => i.discountBps)
        const groupStart = discounts.findIndex((d, i) => i > 0 && d !== discounts[i - 1])
        const [dbps, seq] = m.listInvoices({ limit: groupStart, sortOrderByDiscount: order }).nextCursor!.split("-").map(Number) as [number, number]
        expect(ids(m.listInvoices({ limit: 100, sortOrderByDiscount: order, sortedPrevCursor: `${dbps - 1}-${seq}` }))).toEqual(all.slice(0, groupStart))
      }
      // A larger page back stops at the start.
      expect(ids(m.listInvoices({ limit: 5, sortOrderByDiscount: order, sortedPrevCursor: p3.prevCursor! }))).toEqual(all.slice(0, 4))
    }
  })

  it("keep one history entry per epoch, the last evaluation of it", () => {
    const { world, dai } = makeInvoices()
    world.epoch(12)
    world.process("DAI")
    world.process("DAI")
    expect(world.model.history(dai[0]!, 0, 10)!.invoiceProcessingHistory.map((h) => [h.epoch, h.discountdbps])).toEqual([
      [11, 1000],
      [12, 2000],
    ])
    // Pages of it: a next page only while entries remain.
    expect([world.model.history(dai[0]!, 0, 1)!.nextCursor, world.model.history(dai[0]!, 0, 2)!.nextCursor]).toEqual(["1", null])
  })

  it("drop invoices once settled", () => {
    const { world, dai } = makeInvoices()
    world.newIntent({ origin: 10, destinations: [1], amount: u(1000) })
    world.dispatch(10)
    world.process("DAI")
    expect(dai.map((id) => world.model.invoice(id))).toEqual([undefined, undefined, undefined])
    expect(world.model.listInvoices({ limit: 100 }).maxCount).toBe(3)
  })
})

describe("min amounts (reference §3.15)", () => {
  /** One DAI invoice of 97 (100 - 3 % fees) 1→10 at epoch 10, looked at in epoch 12 (2000 dbps). */
  const setup = (invoices = 1) => {
    const world = new TestWorld()
    const ids: Bytes32[] = []
    for (let i = 0; i < invoices; i++) {
      ids.push(world.newIntent({ origin: 1, destinations: [10], amount: u(100) }).id)
      world.dispatch(1)
    }
    world.epoch(11)
    world.process()
    world.epoch(12)
    return { world, ids }
  }
  const buy = (world: TestWorld, amount: bigint) => {
    world.newIntent({ origin: 10, destinations: [1], amount })
    world.dispatch(10)
    world.process()
  }

  it("equal the reference formula for an invoice at the head, and that deposit settles it", () => {
    const { world, ids } = setup()
    const min = world.model.minAmounts(ids[0]!)!
    const expected = (100_000n * u(97)) / 102_000n + 1n
    expect(min.minAmounts.get(10)).toBe(expected)
    expect(min.discountDbps).toBe(2000)
    expect(min.invoiceAmount).toBe(u(97))
    expect(min.custodiedAmounts.get(10)).toBe(0n)
    expect(world.model.history(ids[0]!, 0, 10)!.invoiceProcessingHistory.map((h) => [h.epoch, h.selectedDestinationDomain])).toEqual([[11, 0]])
    buy(world, expected)
    expect(world.hub.state.contexts.get(ids[0]!)!.invoice).toBeUndefined()
    const again = setup()
    buy(again.world, expected - 2n)
    expect(again.world.hub.state.contexts.get(ids[0]!)!.invoice).toBeDefined()
  })

  it("cover earlier invoices that settle first on the same domain (FIFO)", () => {
    const { world, ids } = setup(2)
    const [first, second] = ids as [Bytes32, Bytes32]
    const min = world.model.minAmounts(second)!.minAmounts.get(10)!
    const alone = (100_000n * u(97)) / 102_000n + 1n
    expect(min).toBeGreaterThan(alone)
    buy(world, min)
    expect(world.hub.state.contexts.get(first)!.invoice).toBeUndefined()
    expect(world.hub.state.contexts.get(second)!.invoice).toBeUndefined()
    const again = setup(2)
    buy(again.world, min - 1n)
    expect(again.world.hub.state.contexts.get(second)!.invoice).toBeDefined()
  })

  it("are 0 where custody already covers the invoice", () => {
    const { world, ids } = setup()
    world.newIntent({ origin: 10, destinations: [1], amount: u(500) })
    world.dispatch(10)
    expect(world.model.minAmounts(ids[0]!)!.minAmounts.get(10)).toBe(0n)
  })

  it("are kept until something they are computed from changes, and then are those of the new state", () => {
    const { world, ids } = setup(2)
    const [first, second] = ids as [Bytes32, Bytes32]
    const fresh = (id: Bytes32) => {
      const ctx = world.hub.state.contexts.get(id)!
      return computeMinAmounts(world.hub, ctx.ticker!, ctx.invoice!)
    }
    const before = world.model.minAmounts(second)!
    // Nothing changed: the same answer, not computed again.
    expect(world.model.minAmounts(second)).toBe(before)
    expect(world.model.minAmounts(first)).toBe(world.model.minAmounts(first))
    // A new block in the same epoch changes nothing min-amounts read.
    world.block(world.hub.state.blockNumber + 1)
    expect(world.hub.currentEpoch()).toBe(12)
    expect(world.model.minAmounts(second)).toBe(before)
    // A deposit on domain 10 reaches the hub (custody and this epoch's deposits there change).
    world.newIntent({ origin: 10, destinations: [1], amount: u(20) })
    world.dispatch(10)
    const afterDeposit = world.model.minAmounts(second)!
    expect(afterDeposit).not.toBe(before)
    expect(afterDeposit).toEqual(fresh(second))
    expect(afterDeposit.minAmounts.get(10)!).toBeLessThan(before.minAmounts.get(10)!)
    // The next epoch: the discount grows, the answer is computed again.
    const inEpoch12 = world.model.minAmounts(second)!
    world.epoch(13)
    const inEpoch13 = world.model.minAmounts(second)!
    expect(inEpoch13.discountDbps).toBeGreaterThan(inEpoch12.discountDbps)
    expect(inEpoch13).toEqual(fresh(second))
    // Settled: no longer an open invoice.
    buy(world, inEpoch13.minAmounts.get(10)!)
    expect(world.hub.state.contexts.get(second)!.invoice).toBeUndefined()
    expect(world.model.minAmounts(second)).toBeUndefined()
  })

  it("are kept across epochs once every discount they read is at its cap, and not before", () => {
    // DAI: 1,000 dbps per epoch, capped at 10,000 (hub/testing.ts): invoices entered in epoch 11 reach the cap in epoch 21.
    const { world, ids } = setup(2)
    const second = ids[1]!
    world.epoch(20)
    const inEpoch20 = world.model.minAmounts(second)!
    expect(inEpoch20.discountDbps).toBe(9000)
    world.epoch(21)
    const inEpoch21 = world.model.minAmounts(second)!
    expect(inEpoch21).not.toBe(inEpoch20)
    expect(inEpoch21.discountDbps).toBe(10_000)
    world.epoch(25)
    expect(world.model.minAmounts(second)).toBe(inEpoch21)
    // A new invoice behind it (1→10 again, nothing on 10 to settle it; custody grows on 1, which no invoice lists):
    // its predecessors, their domains and the balances there are the same.
    world.newIntent({ origin: 1, destinations: [10], amount: u(30) })
    world.dispatch(1)
    world.epoch(26)
    world.process()
    const invoices = world.hub.state.tickers.values().next().value!.invoices
    expect(invoices.length).toBe(3)
    expect(world.model.minAmounts(second)).toBe(inEpoch21)
    // The younger invoice's discount still grows: its answer is computed again in the next epoch.
    const young = invoices.tail!.intentId
    world.epoch(27)
    const youngNow = world.model.minAmounts(young)!
    world.epoch(28)
    const youngLater = world.model.minAmounts(young)!
    expect(youngLater).not.toBe(youngNow)
    expect(youngLater.discountDbps).toBeGreaterThan(youngNow.discountDbps)
    expect(world.model.minAmounts(second)).toBe(inEpoch21)
  })
})

describe("min amounts at very late epochs", () => {
  it("are computed again while the discount grows, whatever the epoch's size (an invoice of epoch 2^41)", () => {
    const first = 2 ** 41 // epoch length 1: epoch 2^41
    const world = new TestWorld(makeConfig({ epochLength: 1 }), {}, first)
    world.newIntent({ symbol: "DAI", origin: 1, destinations: [10], amount: u(100) })
    world.dispatch(1)
    const ticker = [...world.hub.state.tickers.values()].find((t) => t.invoices.length > 0)!
    const node = ticker.invoices.head!
    expect(world.model.minAmounts(node.intentId)!.discountDbps).toBe(0)
    world.block(first + 5)
    const later = world.model.minAmounts(node.intentId)!
    expect(later.discountDbps).toBeGreaterThan(0)
    expect(later).toEqual(computeMinAmounts(world.hub, ticker, node))
  })
})

describe("min amounts after attachHub", () => {
  it("are the new hub's, even with the same invoices, ids and epoch as the old one", () => {
    const worldWith = (deposit: bigint) => {
      const world = new TestWorld()
      const { id } = world.newIntent({ origin: 1, destinations: [10], amount: u(100) })
      world.dispatch(1)
      world.epoch(11)
      world.process()
      world.epoch(12)
      world.newIntent({ origin: 10, destinations: [1], amount: deposit })
      world.dispatch(10)
      return { world, id }
    }
    const small = worldWith(u(1))
    const large = worldWith(u(50))
    expect(large.id).toBe(small.id)
    expect(large.world.hub.currentEpoch()).toBe(small.world.hub.currentEpoch())
    const before = small.world.model.minAmounts(small.id)!
    small.world.model.attachHub(large.world.hub)
    const after = small.world.model.minAmounts(small.id)!
    expect(after).toEqual(large.world.model.minAmounts(large.id))
    expect(after.minAmounts.get(10)).toBeLessThan(before.minAmounts.get(10)!)
  })
})

describe("fingerprint", () => {
  it("changes with every observable change and only then", () => {
    const world = new TestWorld()
    const a = world.model.fingerprint()
    expect(world.model.fingerprint()).toBe(a)
    world.newIntent()
    const b = world.model.fingerprint()
    expect(b).not.toBe(a)
    world.model.listIntents({ limit: 5, statuses: ["ADDED_SPOKE"] })
    world.model.minAmounts("0x00" as Bytes32)
    expect(world.model.fingerprint()).toBe(b)
  })
})
