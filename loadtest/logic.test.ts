/**
 * The k6 scripts' logic against a real clearsim API: the flows' requests are sent with Node's fetch to an API
 * server over a whole memory deployment, and the check sets k6 would run are run on the real responses. Every
 * check passes on valid traffic; the same checks fail on deliberately broken responses.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { IntentRecord as IntentRecordSchema, Invoice as InvoiceSchema, MinAmounts as MinAmountsSchema, AssetConfig as AssetConfigSchema, Quote as QuoteSchema } from "../service/api/schemas.ts"
import { API_INTENT_STATUSES } from "../service/indexer/records.ts"
import { DOMAIN_A, DOMAIN_B } from "../service/api/deployment.ts"
import { ASSET_CONFIG, failedChecks, INTENT_RECORD, INTENT_STATUSES, INVOICE, MIN_AMOUNTS, QUOTE, type ResponseLike } from "./lib/checks.ts"
import { collectSetupData, compareAmounts, coverFee, DEV_ACCOUNTS, type SetupData, SetupError, tokenUnits } from "./lib/data.ts"
import { type Flow, flowOf, INTENT_WEIGHTS, intentFlow, intentsFilter, mixedFlow, QUOTE_WEIGHTS, quoteFlow, READ_WEIGHTS, readFlow, SCRIPTS } from "./lib/flows.ts"
import { iterationRandom, mulberry32 } from "./lib/random.ts"
import { getIntent, getIntentUnknownId, listIntents, listInvoices, minAmounts, queryString, type RequestSpec } from "./lib/requests.ts"
import { driveWithFetch, type Exchange, sendWithFetch, startWorld, type TestWorld } from "./testing/world.ts"

let world: TestWorld
let data: SetupData

beforeAll(async () => {
  world = await startWorld()
  data = await driveWithFetch(world.server.url, collectSetupData())
})
afterAll(async () => {
  await world?.close()
})

/** Runs `flow` and returns what went over the wire, with the checks each response failed. */
const run = async (flow: Flow): Promise<Exchange[]> => {
  const log: Exchange[] = []
  await driveWithFetch(world.server.url, flow, log)
  return log
}

const failures = (log: readonly Exchange[]) =>
  log.filter((e) => e.failed.length > 0 || !e.spec.expect.includes(e.response.status)).map((e) => `${e.spec.method} ${e.spec.path} -> ${e.response.status}: ${e.failed.join("; ")} ${String(e.response.body).slice(0, 300)}`)

/** A canned JSON answer, as a response the flows and checks read. */
const answer = (status: number, body: unknown): ResponseLike => ({ status, body: JSON.stringify(body), headers: { "Content-Type": "application/json" } })

/** Runs `flow` on canned answers (`reply` for each request it yields) and returns the requests it sent. */
const replay = <T>(flow: Generator<RequestSpec, T, ResponseLike>, reply: (spec: RequestSpec) => ResponseLike): RequestSpec[] => {
  const sent: RequestSpec[] = []
  let step = flow.next()
  while (step.done !== true) {
    sent.push(step.value)
    step = flow.next(reply(step.value))
  }
  return sent
}

/** A quote that offers the fast path; the flows read only its fixed fee and the fast path's expected amount. */
const QUOTE_OFFERING_FAST_PATH = {
  fixedFeeUnits: "1000",
  variableFeeBps: 1,
  totalFeeBps: 2,
  expectedAmount: "1",
  currentLimit: "1",
  splitCount: 1,
  reqType: "bridge",
  fastPathQuote: { fixedFeeUnits: "1000", variableFeeBps: 5, totalFeeBps: 6, expectedAmount: "1", expectedFillTime: "60" },
  settlementEstimate: { p25Minutes: 1, p50Minutes: 2, p75Minutes: 3 },
}

describe("setup() reads what the traffic is built from", () => {
  it("routes, ids, senders and amounts come from the API's own data", () => {
    const d = world.deployment
    expect(data.hubDomain).toBe(25_327)
    expect(data.domains).toEqual([String(DOMAIN_A), String(DOMAIN_B)])
    // Two tickers on two domains: four routes, with each asset's address and decimals.
    expect(data.routes.map((r) => `${r.symbol} ${r.origin}->${r.destination}`).sort()).toEqual([
      `USDC ${DOMAIN_A}->${DOMAIN_B}`,
      `USDC ${DOMAIN_B}->${DOMAIN_A}`,
      `WETH ${DOMAIN_A}->${DOMAIN_B}`,
      `WETH ${DOMAIN_B}->${DOMAIN_A}`,
    ])
    const usdc = data.routes.find((r) => r.symbol === "USDC" && r.origin === String(DOMAIN_A))!
    expect(usdc).toMatchObject({ inputAsset: d.token(DOMAIN_A, "USDC").toLowerCase(), outputAsset: d.token(DOMAIN_B, "USDC").toLowerCase(), decimals: 6, xerc20: false })
    expect([...data.intentIds].sort()).toEqual([...world.intentIds].sort())
    expect(data.invoiceIds.length).toBe(d.model.invoices.size)
    expect(data.invoiceIds.length).toBeGreaterThan(0)
    expect([...data.users].sort()).toEqual([d.accounts.alice.address, d.accounts.bob.address].map((a) => a.toLowerCase()).sort())
    expect(data.statuses.length).toBeGreaterThan(2)
    expect(data.amounts[`${DOMAIN_A}:${usdc.inputAsset}`]!.length).toBeGreaterThan(0)
    expect(data.created).not.toBeNull()
  })

  it("it pages through intents with the cursor", async () => {
    const paged = await driveWithFetch(world.server.url, collectSetupData({ intentPages: 1 }))
    expect(paged.intentIds.length).toBe(data.intentIds.length) // fewer than 100: one page holds them all
  })

  it("an API that does not answer, or has no route, stops setup with a SetupError naming the request", async () => {
    await expect(driveWithFetch("http://127.0.0.1:9", collectSetupData())).rejects.toThrow()
    const flow = collectSetupData()
    flow.next()
    expect(() => flow.next({ status: 503, body: "down", headers: {} })).toThrow(new SetupError("GET /health answered 503: down"))
    const noRoutes = collectSetupData()
    noRoutes.next()
    noRoutes.next({ status: 200, body: JSON.stringify({ status: "ok", hubDomain: 1, hubBlockNumber: 1, epoch: 1, intents: 0, openInvoices: 0 }), headers: {} })
    const oneAsset = { local: "0x" + "11".repeat(20), adopted: "0x", canonical_id: "0x", canonical_domain: "1", domain: "10", key: "USDC", id: "0x", decimal: 6, adopted_decimal: 18 }
    noRoutes.next({ status: 200, body: JSON.stringify({ assets: [oneAsset] }), headers: {} })
    expect(() => noRoutes.next({ status: 200, body: JSON.stringify({ assets: [] }), headers: {} })).toThrow(/no ticker on two domains/)
  })

  it("it follows nextCursor, stops at a short page of assets, keeps the creation-time range, leaves zero amounts out, falls back to the dev accounts", () => {
    // USDC on domains 1 and 2 (its local on 1 written in mixed case, as a checksummed address, and xERC20), and
    // ten tickers on domain 3 alone: 12 assets, fewer than a page of 100.
    const usdc1 = "0xAbCdEf0000000000000000000000000000000001"
    const asset = (domain: string, local: string, key: string) => ({ local, adopted: local, canonical_id: `0x${"ab".repeat(32)}`, canonical_domain: "1", domain, key, id: "0x", decimal: 6, adopted_decimal: 6 })
    const assets = [asset("1", usdc1, "USDC"), asset("2", `0x${"22".repeat(20)}`, "USDC"), ...Array.from({ length: 10 }, (_, k) => asset("3", `0x${String(k).repeat(40)}`, `T${k}`))]
    const intent = (id: number, at: number, amount: string) => ({
      intent_id: `0x${String(id).padStart(64, "0")}`,
      status: "ADDED",
      origin: "1",
      input_asset: `0x${"0".repeat(24)}${usdc1.slice(2)}`,
      origin_amount: amount,
      intent_created_timestamp: at,
      receiver: `0x${"0".repeat(24)}${"77".repeat(20)}`,
      fee_adapter_initiator: null,
      tx_origin: null,
      transaction_hash: null,
    })
    const pages: Record<string, unknown> = {
      "/health": { status: "ok", hubDomain: 9, hubBlockNumber: 1, epoch: 1, intents: 3, openInvoices: 0 },
      "/configs/assets?page=1&limit=100": { assets },
      "/configs/assets?page=1&limit=100&type=xerc20": { assets: [assets[0]] },
      "/intents?limit=100": { intents: [intent(1, 30, "0"), intent(2, 10, "5000000")], nextCursor: "c1", prevCursor: null, maxCount: 3 },
      "/intents?limit=100&cursor=c1": { intents: [intent(3, 20, "7000000")], nextCursor: "c2", prevCursor: "c1", maxCount: 3 },
      "/invoices?limit=100": { invoices: [], nextCursor: null, prevCursor: null, maxCount: 0 },
    }
    const flow = collectSetupData({ intentPages: 2 })
    const paths: string[] = []
    let step = flow.next()
    while (step.done !== true) {
      paths.push(step.value.path)
      step = flow.next(answer(200, pages[step.value.path] ?? { error: "NotFound", message: step.value.path }))
    }
    expect(paths).toEqual(Object.keys(pages))
    const d = step.value
    expect(d.routes.map((r) => `${r.origin}->${r.destination} xerc20 ${r.xerc20}`)).toEqual(["1->2 xerc20 true", "2->1 xerc20 false"])
    expect(d.intentIds).toHaveLength(3)
    expect(d.created).toEqual({ from: 10, to: 30 })
    expect(d.amounts).toEqual({ [`1:${usdc1.toLowerCase()}`]: ["5000000", "7000000"] })
    expect(d.users).toEqual(DEV_ACCOUNTS) // no intent names its sender
    expect(d.receivers).toEqual([`0x${"77".repeat(20)}`])
  })
})

describe("every check passes on valid traffic against the real API", () => {
  it.each(Object.keys(READ_WEIGHTS))("reads: %s", async (kind) => {
    const log: Exchange[] = []
    for (let seed = 1; seed <= 12; seed++) log.push(...(await run(readFlow(data, mulberry32(seed), kind as keyof typeof READ_WEIGHTS))))
    expect(log.length).toBeGreaterThanOrEqual(12)
    expect(failures(log)).toEqual([])
  })

  it.each(Object.keys(QUOTE_WEIGHTS))("quotes: %s", async (kind) => {
    const log: Exchange[] = []
    for (let seed = 1; seed <= 8; seed++) log.push(...(await run(quoteFlow(data, mulberry32(seed), kind as keyof typeof QUOTE_WEIGHTS))))
    expect(failures(log)).toEqual([])
  })

  it.each(Object.keys(INTENT_WEIGHTS))("intents: %s", async (kind) => {
    const log: Exchange[] = []
    for (let seed = 1; seed <= 8; seed++) log.push(...(await run(intentFlow(data, mulberry32(seed), kind as keyof typeof INTENT_WEIGHTS))))
    expect(failures(log)).toEqual([])
    if (kind !== "invalid") expect(log.filter((e) => e.spec.api === "intent").length).toBe(8) // a quote, then the intent
  })

  it("each script's mix, 60 iterations (mixed: 200): all checks pass, the endpoints of its groups are all exercised", async () => {
    for (const script of SCRIPTS) {
      const log: Exchange[] = []
      for (let i = 0; i < (script === "mixed" ? 200 : 60); i++) log.push(...(await run(flowOf(script, data, iterationRandom(7, 1, i)))))
      expect(failures(log), script).toEqual([])
      const names = new Set(log.map((e) => e.spec.name))
      if (script === "reads" || script === "mixed") {
        for (const name of ["GET /health", "GET /intents", "GET /intents/{intentId}", "GET /invoices", "GET /invoices/{intentId}/min-amounts", "GET /configs/assets"]) expect(names, `${script}: ${name}`).toContain(name)
      }
      if (script === "quotes" || script === "mixed") expect([...names]).toEqual(expect.arrayContaining(["POST /routes/quotes", "POST /routes/limits"]))
      if (script === "intents") {
        expect([...names]).toEqual(expect.arrayContaining(["POST /routes/quotes", "POST /intents", "POST /intents (order)"]))
        // Basic and fast-path intents both: the fast path where the quote offered it (USDC, the solver's inventory).
        const singles = log.filter((e) => e.spec.name === "POST /intents").map((e) => JSON.parse(e.spec.body!) as { isFastPath?: boolean })
        expect(singles.some((b) => b.isFastPath === true)).toBe(true)
        expect(singles.some((b) => b.isFastPath === undefined)).toBe(true)
      }
    }
  })

  it("the filters of GET /intents each select records, and the check that every record matches holds", async () => {
    const labels = new Map<string, number>()
    for (let seed = 1; seed <= 120; seed++) {
      const random = mulberry32(seed)
      const filter = intentsFilter(data, random)
      const body = (await sendWithFetch(world.server.url, listIntents({ ...filter.query, limit: "100" }))).body as string
      const intents = (JSON.parse(body) as { intents: Record<string, unknown>[] }).intents
      expect(intents.every(filter.holds), filter.label).toBe(true)
      labels.set(filter.label, (labels.get(filter.label) ?? 0) + intents.length)
    }
    // Every kind of filter came up and (except possibly an empty status class) found records.
    expect([...labels.keys()].sort()).toEqual(["asset", "dates", "destinations", "isFastPath", "none", "origins", "statuses", "tickerHash", "txHash", "userAddress"])
    for (const label of ["asset", "dates", "destinations", "none", "origins", "statuses", "txHash", "userAddress"]) expect(labels.get(label), label).toBeGreaterThan(0)
  })

  it("cursor pagination walks several pages, each continuing after the previous one", async () => {
    const lengths: number[] = []
    for (let seed = 1; seed <= 10; seed++) {
      const log = await run(readFlow(data, mulberry32(seed), "intentsPages"))
      expect(failures(log)).toEqual([])
      if (log.length > 1) expect(Object.keys(log[1]!.spec.checks)).toContain("GET /intents: page continues after the previous one")
      lengths.push(log.length)
    }
    expect(Math.max(...lengths)).toBe(3)
  })

  it("the POST /intents bodies are valid: the spokes execute the transactions built for them", async () => {
    const d = world.deployment
    let executed = 0
    for (let seed = 1; seed <= 6; seed++) {
      for (const kind of ["single", "order"] as const) {
        const log = await run(intentFlow(data, mulberry32(seed), kind))
        const created = log.find((e) => e.spec.api === "intent")!
        expect(created.failed).toEqual([])
        const block = await d.send(JSON.parse(created.response.body as string))
        const receipt = block.receipts[0]!
        expect(receipt.status, JSON.stringify(receipt.status === "success" ? "" : receipt.error)).toBe("success")
        const added = receipt.events.filter((e) => e.name === "IntentAdded").length
        expect(added).toBe(kind === "single" ? 1 : (JSON.parse(created.spec.body!) as unknown[]).length)
        executed += added
      }
    }
    expect(executed).toBeGreaterThan(12)
  })
})

describe("what the flows send, on canned answers", () => {
  const quoted = (spec: RequestSpec) => (spec.name === "POST /routes/quotes" ? answer(200, QUOTE_OFFERING_FAST_PATH) : answer(200, { to: "0x", data: "0x00", value: "0", chainId: 1 }))
  const bodyOf = (spec: RequestSpec) => JSON.parse(spec.body!) as Record<string, unknown>

  it("an xERC20 route's intent never asks for the fast path, even when the quote offers it, and carries max_fee 0", () => {
    const xerc20: SetupData = { ...data, routes: data.routes.map((r) => ({ ...r, xerc20: true })) }
    for (let seed = 1; seed <= 40; seed++) {
      const sent = replay(intentFlow(xerc20, mulberry32(seed), "single"), quoted)
      expect(sent.map((r) => r.name)).toEqual(["POST /routes/quotes", "POST /intents"])
      expect(bodyOf(sent[1]!)).toMatchObject({ max_fee: "0" })
      expect(bodyOf(sent[1]!)["isFastPath"]).toBeUndefined()
    }
  })

  it("a single intent takes the offered fast path 30 % of the time; an order has 2 to 5 intents", () => {
    let fast = 0
    const sizes = new Set<number>()
    for (let seed = 1; seed <= 2_000; seed++) {
      const single = replay(intentFlow(data, mulberry32(seed), "single"), quoted)
      if (bodyOf(single[1]!)["isFastPath"] === true) fast++
    }
    for (let seed = 1; seed <= 400; seed++) sizes.add((JSON.parse(replay(intentFlow(data, mulberry32(seed), "order"), quoted)[1]!.body!) as unknown[]).length)
    expect(fast / 2_000).toBeCloseTo(0.3, 1)
    expect([...sizes].sort()).toEqual([2, 3, 4, 5])
  })

  it("a quote that fails ends the iteration: no POST /intents follows", () => {
    for (const kind of ["single", "order"] as const) {
      const sent = replay(intentFlow(data, mulberry32(1), kind), () => answer(503, { error: "Unavailable", message: "down" }))
      expect(sent.map((r) => r.name)).toEqual(["POST /routes/quotes"])
    }
  })

  it("the mixed script: reads 70 %, quotes 20 %, intents 10 % of the iterations", () => {
    const counts = { read: 0, quote: 0, intent: 0 }
    for (let i = 0; i < 4_000; i++) {
      const groups = replay(mixedFlow(data, iterationRandom(1, 1, i)), (spec) => (spec.api === "read" ? answer(200, { intents: [], invoices: [] }) : quoted(spec))).map((r) => r.api)
      // An intents iteration is the one that sends to the intent group (a quote first, or the invalid sender alone).
      counts[groups.includes("intent") ? "intent" : groups[0]!]++
    }
    expect(counts.read / 4_000).toBeCloseTo(0.7, 1)
    expect(counts.quote / 4_000).toBeCloseTo(0.2, 1)
    expect(counts.intent / 4_000).toBeCloseTo(0.1, 1)
  })

  it("min amounts of an invoice bought meanwhile: 404 InvoiceNotFound is an expected status, and passes the checks", async () => {
    const spec = minAmounts(`0xdead${"0".repeat(60)}`)
    const response = await sendWithFetch(world.server.url, spec)
    expect(response.status).toBe(404)
    expect(spec.expect).toContain(404)
    expect(failedChecks(spec.checks, response)).toEqual([])
  })

  it("query strings: lists as repeated keys, undefined and null left out", () => {
    expect(queryString({ limit: "10", cursor: null, page: undefined, origins: ["1", "2"], userAddress: "a b" })).toBe("?limit=10&origins=1&origins=2&userAddress=a%20b")
    expect(queryString({ cursor: null })).toBe("")
  })
})

describe("the checks fail on broken responses", () => {
  const real = async (spec: RequestSpec) => sendWithFetch(world.server.url, spec)
  const withBody = (r: ResponseLike, edit: (body: Record<string, unknown>) => unknown): ResponseLike => ({ ...r, body: JSON.stringify(edit(JSON.parse(r.body as string) as Record<string, unknown>)) })

  it("GET /intents/{intentId}: wrong status, missing or mistyped field, unknown status, another intent, not JSON", async () => {
    const id = data.intentIds[0]!
    const spec = getIntent(id)
    const ok = await real(spec)
    expect(failedChecks(spec.checks, ok)).toEqual([])
    const intent = (b: Record<string, unknown>) => b["intent"] as Record<string, unknown>
    expect(failedChecks(spec.checks, { ...ok, status: 500 })).toEqual(["GET /intents/{intentId}: status 200", "GET /intents/{intentId}: JSON {intent}", "GET /intents/{intentId}: the requested intent"])
    const broken: [string, (b: Record<string, unknown>) => unknown][] = [
      ["missing field", (b) => (delete intent(b)["fill_status"], b)],
      ["mistyped field", (b) => ((intent(b)["auto_id"] = "7"), b)],
      ["amount not an integer string", (b) => ((intent(b)["origin_amount"] = "1.5"), b)],
      ["unknown status", (b) => ((intent(b)["status"] = "LOST"), b)],
      ["no intent wrapper", (b) => b["intent"]],
    ]
    for (const [what, edit] of broken) expect(failedChecks(spec.checks, withBody(ok, edit)), what).toContain("GET /intents/{intentId}: JSON {intent}")
    expect(failedChecks(spec.checks, withBody(ok, (b) => ((intent(b)["intent_id"] = data.intentIds[1]), b)))).toEqual(["GET /intents/{intentId}: the requested intent"])
    expect(failedChecks(spec.checks, { ...ok, body: "<html>" })).toContain("GET /intents/{intentId}: JSON {intent}")
    expect(failedChecks(spec.checks, { ...ok, headers: { "Content-Type": "text/plain" } })).toContain("GET /intents/{intentId}: JSON {intent}")
  })

  it("pages: out of order, not continuing the previous page, not matching the filter, over the limit", async () => {
    let log: Exchange[] = []
    for (let seed = 1; log.length < 2; seed++) log = await run(readFlow(data, mulberry32(seed), "intentsPages"))
    const [first, second] = log
    const reversed = withBody(first!.response, (b) => ({ ...b, intents: [...(b["intents"] as unknown[])].reverse() }))
    expect(failedChecks(first!.spec.checks, reversed)).toEqual(["GET /intents: newest first"])
    // The second page answered with the first page's records: it does not continue after the first.
    expect(failedChecks(second!.spec.checks, first!.response)).toContain("GET /intents: page continues after the previous one")
    // The flow's filter check, fed an unfiltered page: it fails.
    let spec: RequestSpec | undefined
    for (let seed = 1; spec === undefined; seed++) {
      const flow = readFlow(data, mulberry32(seed), "intentsFiltered")
      const s = flow.next().value as RequestSpec
      if (s.path.includes("origins=")) spec = s
    }
    expect(failedChecks(spec.checks, await real(spec))).toEqual([])
    const all = await real(listIntents({ limit: "100" }))
    expect(failedChecks(spec.checks, all)).toContain("GET /intents: every record matches the filter")
    const invoices = listInvoices({ limit: "10" })
    const page = await real(invoices)
    expect(failedChecks(invoices.checks, withBody(page, (b) => ({ ...b, maxCount: "2" })))).toEqual(["GET /invoices: JSON invoices page"])
    expect(failedChecks(invoices.checks, withBody(page, (b) => ({ ...b, invoices: [{ ...(b["invoices"] as object[])[0], discountBps: "0.3" }] })))).toEqual(["GET /invoices: JSON invoices page"])
  })

  it("4xx: the status, the {error, message} body and the error code are each checked", async () => {
    const [spec] = (function* () {
      const flow = readFlow(data, mulberry32(1), "invalid")
      yield flow.next().value as RequestSpec
    })()
    const ok = await real(spec!)
    expect(failedChecks(spec!.checks, ok)).toEqual([])
    const name = spec!.name
    expect(failedChecks(spec!.checks, { ...ok, status: 500 })).toEqual([`${name}: status ${ok.status}`])
    expect(failedChecks(spec!.checks, withBody(ok, (b) => ({ ...b, details: [] })))).toEqual([`${name}: JSON {error, message}`])
    expect(failedChecks(spec!.checks, withBody(ok, (b) => ({ error: b["error"] })))).toEqual([`${name}: JSON {error, message}`])
    expect(failedChecks(spec!.checks, withBody(ok, (b) => ({ ...b, error: "Other" })))).toEqual([`${name}: error ${JSON.parse(ok.body as string).error}`])
  })

  it("quotes, transactions and min amounts: broken bodies fail their checks", async () => {
    const quotes = await run(quoteFlow(data, mulberry32(2), "quote"))
    const q = quotes[0]!
    expect(failedChecks(q.spec.checks, withBody(q.response, (b) => ({ ...b, reqType: "teleport" })))).toEqual(["POST /routes/quotes: JSON quote"])
    expect(failedChecks(q.spec.checks, withBody(q.response, (b) => ({ ...b, settlementEstimate: { p50Minutes: 1 } })))).toEqual(["POST /routes/quotes: JSON quote"])
    expect(failedChecks(q.spec.checks, withBody(q.response, (b) => ({ ...b, fastPathQuote: { expectedAmount: "1" } })))).toEqual(["POST /routes/quotes: JSON quote"])
    expect(failedChecks(q.spec.checks, withBody(q.response, (b) => ({ ...b, expectedAmount: `9${JSON.parse(q.spec.body!).amount}` })))).toEqual(["POST /routes/quotes: expectedAmount at most the amount"])
    const created = (await run(intentFlow(data, mulberry32(2), "single"))).find((e) => e.spec.api === "intent")!
    expect(failedChecks(created.spec.checks, withBody(created.response, (b) => ({ ...b, data: "not hex" })))).toEqual(["POST /intents: JSON transaction request"])
    expect(failedChecks(created.spec.checks, withBody(created.response, (b) => ({ ...b, chainId: 1 })))).toEqual(["POST /intents: a transaction on the origin chain"])
    const min = (await run(readFlow(data, mulberry32(1), "minAmounts")))[0]!
    expect(min.response.status).toBe(200)
    expect(failedChecks(min.spec.checks, withBody(min.response, (b) => ({ ...b, minAmounts: { [DOMAIN_B]: 5 } })))).toEqual(["GET /invoices/{intentId}/min-amounts: JSON min amounts or {error: InvoiceNotFound}"])
    expect(failedChecks(min.spec.checks, { ...min.response, status: 404 })).toEqual(["GET /invoices/{intentId}/min-amounts: JSON min amounts or {error: InvoiceNotFound}"])
    expect(failedChecks(min.spec.checks, { ...min.response, status: 400 })).toEqual(Object.keys(min.spec.checks))
  })

  it("records: null in a field that is never null, an amount with a leading zero, a short id, an unknown status in a page", async () => {
    const spec = getIntent(data.intentIds[0]!)
    const ok = await real(spec)
    const intent = (b: Record<string, unknown>) => b["intent"] as Record<string, unknown>
    const broken: [string, (b: Record<string, unknown>) => unknown][] = [
      ["auto_id null", (b) => ((intent(b)["auto_id"] = null), b)],
      ["filled null", (b) => ((intent(b)["filled"] = null), b)],
      ["amount 0100", (b) => ((intent(b)["origin_amount"] = "0100"), b)],
      ["intent_id of 2 bytes", (b) => ((intent(b)["intent_id"] = "0x1234"), b)],
    ]
    for (const [what, edit] of broken) expect(failedChecks(spec.checks, withBody(ok, edit)), what).toContain("GET /intents/{intentId}: JSON {intent}")
    const list = listIntents({ limit: "10" })
    const page = await real(list)
    expect(failedChecks(list.checks, page)).toEqual([])
    const lost = withBody(page, (b) => ({ ...b, intents: (b["intents"] as Record<string, unknown>[]).map((r, i) => (i === 0 ? { ...r, status: "LOST" } : r)) }))
    expect(failedChecks(list.checks, lost)).toEqual(["GET /intents: JSON intents page"])
  })

  it("an empty error message, odd-length calldata, a fast-path error without its message, a 400 carrying InvoiceNotFound", async () => {
    const bad = getIntentUnknownId(`0xdead${"0".repeat(60)}`)
    const notFound = await real(bad)
    expect(failedChecks(bad.checks, notFound)).toEqual([])
    expect(failedChecks(bad.checks, withBody(notFound, (b) => ({ ...b, message: "" })))).toEqual([`${bad.name}: JSON {error, message}`])
    const created = (await run(intentFlow(data, mulberry32(2), "single"))).find((e) => e.spec.api === "intent")!
    expect(failedChecks(created.spec.checks, withBody(created.response, (b) => ({ ...b, data: "0x123" })))).toEqual(["POST /intents: JSON transaction request"])
    const q = (await run(quoteFlow(data, mulberry32(2), "quote")))[0]!
    expect(failedChecks(q.spec.checks, withBody(q.response, (b) => ({ ...b, fastPathQuote: { error: "FastPathUnavailable", message: "no solver liquidity" } })))).toEqual([])
    expect(failedChecks(q.spec.checks, withBody(q.response, (b) => ({ ...b, fastPathQuote: { error: "FastPathUnavailable" } })))).toEqual(["POST /routes/quotes: JSON quote"])
    const min = minAmounts(data.invoiceIds[0]!)
    expect(failedChecks(min.checks, answer(400, { error: "InvoiceNotFound", message: "no such invoice" }))).toEqual(Object.keys(min.checks))
  })

  it("a page is newest first strictly: a record twice fails, and so does a next page that starts with the previous page's last record", async () => {
    let log: Exchange[] = []
    for (let seed = 1; log.length < 2; seed++) log = await run(readFlow(data, mulberry32(seed), "intentsPages"))
    const [first, second] = log
    const twice = withBody(first!.response, (b) => ({ ...b, intents: [(b["intents"] as unknown[])[0], ...(b["intents"] as unknown[])] }))
    expect(failedChecks(first!.spec.checks, twice)).toEqual(["GET /intents: newest first"])
    const firstRecords = JSON.parse(first!.response.body as string).intents as unknown[]
    const overlapping = withBody(second!.response, (b) => ({ ...b, intents: [firstRecords[firstRecords.length - 1], ...(b["intents"] as unknown[])] }))
    expect(failedChecks(second!.spec.checks, overlapping)).toEqual(["GET /intents: page continues after the previous one"])
  })

  it("a quote that delivers exactly the amount sent (no fee) passes the quote's sanity check", async () => {
    const q = (await run(quoteFlow(data, mulberry32(2), "quote")))[0]!
    const amount = (JSON.parse(q.spec.body!) as { amount: string }).amount
    expect(failedChecks(q.spec.checks, withBody(q.response, (b) => ({ ...b, expectedAmount: amount })))).toEqual([])
  })
})

describe("the shapes follow SPEC.md, as the service implements it", () => {
  it("field names equal the service's response schemas'", () => {
    expect(Object.keys(INTENT_RECORD)).toEqual(Object.keys(IntentRecordSchema.fields))
    expect(Object.keys(INVOICE)).toEqual(Object.keys(InvoiceSchema.fields))
    expect(Object.keys(MIN_AMOUNTS)).toEqual(Object.keys(MinAmountsSchema.fields))
    expect(Object.keys(ASSET_CONFIG)).toEqual(Object.keys(AssetConfigSchema.fields))
    expect(Object.keys(QUOTE)).toEqual(Object.keys(QuoteSchema.fields))
    expect(INTENT_STATUSES).toEqual(API_INTENT_STATUSES)
  })

  it("amount helpers compare and raise decimal strings without BigInt", () => {
    expect(compareAmounts("100", "99")).toBe(1)
    expect(compareAmounts("0099", "99")).toBe(0)
    expect(compareAmounts("123456789012345678901234567890", "123456789012345678901234567891")).toBe(-1)
    expect(coverFee("500", "10000")).toBe("1000000")
    expect(coverFee("5000000", "10000")).toBe("5000000")
    // No fixed fee: only an amount of 0 is raised, to 1 unit.
    expect(coverFee("0", "0")).toBe("1")
    expect(coverFee("7", "0")).toBe("7")
    expect(tokenUnits(3, 6)).toBe("3000000")
    expect(tokenUnits(2.9, 0)).toBe("2")
  })
})
