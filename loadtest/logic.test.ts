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
import { collectSetupData, compareAmounts, coverFee, type SetupData, SetupError } from "./lib/data.ts"
import { type Flow, flowOf, INTENT_WEIGHTS, intentFlow, intentsFilter, QUOTE_WEIGHTS, quoteFlow, READ_WEIGHTS, readFlow, SCRIPTS } from "./lib/flows.ts"
import { iterationRandom, mulberry32 } from "./lib/random.ts"
import { getIntent, listIntents, listInvoices, type RequestSpec } from "./lib/requests.ts"
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
  })
})
