/**
 * One iteration of each traffic mix, as a generator of requests: it yields a `RequestSpec`, the driver sends it
 * (k6/http in k6, fetch in the tests), runs its checks and hands the response back, so a flow can follow a cursor,
 * read the min amounts of an invoice it just listed, or create the intent it just quoted. Weights are per iteration.
 */
import { type CheckSet, isObject, jsonOf, type ResponseLike } from "./checks.ts"
import { chooseAmount, chooseRoute, compareAmounts, coverFee, type Route, sameOriginRoute, type SetupData, unknownIntentId } from "./data.ts"
import { between, pick, type Random, weighted } from "./random.ts"
import {
  createIntent,
  createIntentBadSender,
  createOrder,
  getIntent,
  getIntentMalformedId,
  getIntentUnknownId,
  health,
  type IntentRequestBody,
  limits,
  listAssets,
  listIntents,
  listIntentsBadLimit,
  listInvoices,
  minAmounts,
  type Query,
  quote,
  type QuoteRequestBody,
  quoteNegativeAmount,
  type RequestSpec,
} from "./requests.ts"

export type Flow = Generator<RequestSpec, void, ResponseLike>
export type Script = "reads" | "quotes" | "intents" | "mixed"
export const SCRIPTS: readonly Script[] = ["reads", "quotes", "intents", "mixed"]

type Records = readonly Record<string, unknown>[]
const recordsOf = (r: ResponseLike, key: "intents" | "invoices"): Records => {
  const body = jsonOf(r)
  return isObject(body) && Array.isArray(body[key]) ? (body[key] as Records) : []
}
const nextCursorOf = (r: ResponseLike): string | undefined => {
  const body = jsonOf(r)
  return isObject(body) && typeof body["nextCursor"] === "string" ? body["nextCursor"] : undefined
}
const autoIds = (records: Records) => records.map((i) => i["auto_id"] as number)
const decreasing = (values: readonly number[]) => values.every((v, i) => i === 0 || v < values[i - 1]!)

// ---------------------------------------------------------------------------------------------------------
// Reads

export const READ_WEIGHTS = {
  health: 5,
  intentsFiltered: 20,
  intentsPages: 10,
  intent: 25,
  invoices: 10,
  invoiceMinAmounts: 12,
  minAmounts: 5,
  assets: 5,
  invalid: 3,
} as const
export type ReadKind = keyof typeof READ_WEIGHTS

/** A `GET /intents` filter drawn from the data, with the check that every record returned satisfies it. */
export const intentsFilter = (data: SetupData, random: Random): { readonly query: Query; readonly holds: (intent: Record<string, unknown>) => boolean; readonly label: string } => {
  const kinds = ["none", "statuses", "origins", "destinations", "isFastPath", "userAddress", "txHash", "asset", "tickerHash", "dates"] as const
  const kind = pick(random, kinds)!
  switch (kind) {
    case "statuses": {
      const statuses = data.statuses.length > 0 ? [pick(random, data.statuses)!] : ["INVOICED", "SETTLED"]
      return { label: "statuses", query: { statuses }, holds: (i) => statuses.includes(i["status"] as string) }
    }
    case "origins": {
      const origin = pick(random, data.domains)!
      return { label: "origins", query: { origins: [origin] }, holds: (i) => i["origin"] === origin }
    }
    case "destinations": {
      const destination = pick(random, data.domains)!
      return { label: "destinations", query: { destinations: [destination] }, holds: (i) => Array.isArray(i["destinations"]) && (i["destinations"] as string[]).includes(destination) }
    }
    case "isFastPath": {
      const fast = random() < 0.5
      return { label: "isFastPath", query: { isFastPath: String(fast) }, holds: (i) => ((i["ttl"] as number | null) ?? 0) > 0 === fast }
    }
    case "userAddress": {
      const user = pick(random, data.users)!
      // Sender, fee-adapter initiator, initiator or receiver (the two last are 32-byte words).
      const fields = ["tx_origin", "fee_adapter_initiator", "initiator", "receiver", "fill_sender", "fill_initiator", "fill_receiver"]
      return { label: "userAddress", query: { userAddress: user }, holds: (i) => fields.some((f) => typeof i[f] === "string" && (i[f] as string).toLowerCase().endsWith(user.slice(2))) }
    }
    case "txHash": {
      const hash = pick(random, data.txHashes)
      if (hash === undefined) return { label: "none", query: {}, holds: () => true }
      return { label: "txHash", query: { txHash: hash }, holds: (i) => i["transaction_hash"] === hash || i["fill_transaction_hash"] === hash }
    }
    case "asset": {
      const route = chooseRoute(data, random)
      return { label: "asset", query: { asset: route.inputAsset }, holds: (i) => typeof i["input_asset"] === "string" && (i["input_asset"] as string).toLowerCase().endsWith(route.inputAsset.slice(2)) }
    }
    case "tickerHash":
      // A record does not carry its ticker: only the page's shape is checked.
      return { label: "tickerHash", query: { tickerHash: pick(random, data.tickerHashes)! }, holds: () => true }
    case "dates": {
      if (data.created === null) return { label: "none", query: {}, holds: () => true }
      const { from, to } = data.created
      const start = between(random, from, to)
      return {
        label: "dates",
        query: { startDate: String(start), endDate: String(to) },
        holds: (i) => typeof i["intent_created_timestamp"] === "number" && (i["intent_created_timestamp"] as number) >= start && (i["intent_created_timestamp"] as number) <= to,
      }
    }
    case "none":
      return { label: "none", query: {}, holds: () => true }
  }
}

const newestFirst: CheckSet = { "newest first": (r) => decreasing(autoIds(recordsOf(r, "intents"))) }

export function* readFlow(data: SetupData, random: Random, kind: ReadKind = weighted(random, READ_WEIGHTS)): Flow {
  switch (kind) {
    case "health":
      yield health()
      return
    case "intentsFiltered": {
      const filter = intentsFilter(data, random)
      const limit = pick(random, ["10", "25", "100"])!
      yield listIntents(
        { ...filter.query, limit },
        { ...newestFirst, "every record matches the filter": (r) => recordsOf(r, "intents").every(filter.holds), "at most limit records": (r) => recordsOf(r, "intents").length <= Number(limit) },
      )
      return
    }
    case "intentsPages": {
      // Cursor pagination, newest first: each page continues strictly after the previous one.
      const limit = pick(random, ["5", "10", "25"])!
      let previous: readonly number[] = []
      let cursor: string | undefined
      for (let page = 0; page < 3; page++) {
        const last = previous[previous.length - 1]
        const continues: CheckSet = last === undefined ? {} : { "page continues after the previous one": (r) => autoIds(recordsOf(r, "intents")).every((id) => id < last) }
        const response = yield listIntents({ limit, cursor }, { ...newestFirst, ...continues })
        previous = autoIds(recordsOf(response, "intents"))
        cursor = nextCursorOf(response)
        if (cursor === undefined) return
      }
      return
    }
    case "intent": {
      const id = pick(random, data.intentIds)
      yield id === undefined ? listIntents({ limit: "10" }, newestFirst) : getIntent(id)
      return
    }
    case "invoices": {
      const filter = pick(random, ["none", "ticker", "origin", "destination", "discount"] as const)!
      const tickerHash = pick(random, data.tickerHashes)!
      const domain = pick(random, data.domains)!
      const query: Query =
        filter === "ticker" ? { tickerHash } : filter === "origin" ? { origins: [domain] } : filter === "destination" ? { destinations: [domain] } : filter === "discount" ? { sortOrderByDiscount: "desc" } : {}
      const holds = (i: Record<string, unknown>) =>
        filter === "ticker" ? i["ticker_hash"] === tickerHash : filter === "origin" ? i["origin"] === domain : filter === "destination" ? Array.isArray(i["destinations"]) && (i["destinations"] as string[]).includes(domain) : true
      yield listInvoices(
        { ...query, limit: pick(random, ["10", "50", "100"])! },
        {
          "every invoice matches the filter": (r) => recordsOf(r, "invoices").every(holds),
          ...(filter === "discount" ? { "largest discount first": (r) => recordsOf(r, "invoices").every((inv, k, all) => k === 0 || (inv["discountBps"] as number) <= (all[k - 1]!["discountBps"] as number)) } : {}),
        },
      )
      return
    }
    case "invoiceMinAmounts": {
      // The arbitrageur's poll: the oldest invoices, then the min amounts of one of them.
      const response = yield listInvoices({ limit: "10" })
      const invoice = pick(random, recordsOf(response, "invoices"))
      if (invoice !== undefined) yield minAmounts(String(invoice["intent_id"]))
      return
    }
    case "minAmounts": {
      const id = pick(random, data.invoiceIds)
      yield id === undefined ? listInvoices({ limit: "10" }) : minAmounts(id)
      return
    }
    case "assets": {
      const domain = pick(random, data.domains)!
      const byDomain = random() < 0.5
      yield byDomain ? listAssets({ domain }) : listAssets({ page: "1", limit: "100" })
      return
    }
    case "invalid": {
      const which = between(random, 0, 2)
      yield which === 0 ? getIntentMalformedId() : which === 1 ? getIntentUnknownId(unknownIntentId(random)) : listIntentsBadLimit()
      return
    }
  }
}

// ---------------------------------------------------------------------------------------------------------
// Quotes and limits

export const QUOTE_WEIGHTS = { quote: 70, limits: 25, invalid: 5 } as const
export type QuoteKind = keyof typeof QUOTE_WEIGHTS

const quoteBody = (data: SetupData, route: Route, random: Random, amount = chooseAmount(data, route, random)): QuoteRequestBody => ({
  origin: route.origin,
  destinations: [route.destination],
  inputAsset: route.inputAsset,
  amount,
  from: pick(random, data.users)!,
  to: pick(random, data.receivers)!,
})

/** A bridge quote delivers at most what was sent. */
const quoteSane = (amount: string): CheckSet => ({
  "expectedAmount at most the amount": (r) => {
    const body = jsonOf(r) as { expectedAmount?: unknown } | undefined
    return typeof body?.expectedAmount === "string" && compareAmounts(body.expectedAmount, amount) <= 0
  },
})

export function* quoteFlow(data: SetupData, random: Random, kind: QuoteKind = weighted(random, QUOTE_WEIGHTS)): Flow {
  const route = chooseRoute(data, random)
  switch (kind) {
    case "quote": {
      const body = quoteBody(data, route, random)
      yield quote(body, quoteSane(body.amount))
      return
    }
    case "limits":
      yield limits({ origin: route.origin, destinations: [route.destination], inputAsset: route.inputAsset })
      return
    case "invalid":
      yield quoteNegativeAmount(quoteBody(data, route, random))
      return
  }
}

// ---------------------------------------------------------------------------------------------------------
// Intent creation: quote, then POST /intents (SPEC.md's creation sequence); orders as arrays

export const INTENT_WEIGHTS = { single: 65, order: 30, invalid: 5 } as const
export type IntentKind = keyof typeof INTENT_WEIGHTS
/** Share of single intents sent on the fast path when the quote offers it. */
export const FAST_PATH_SHARE = 0.3

const fastPathOffered = (r: ResponseLike): boolean => {
  const body = jsonOf(r) as { fastPathQuote?: unknown } | undefined
  return isObject(body?.fastPathQuote) && typeof body.fastPathQuote["expectedAmount"] === "string"
}

export function* intentFlow(data: SetupData, random: Random, kind: IntentKind = weighted(random, INTENT_WEIGHTS)): Flow {
  const route = chooseRoute(data, random)
  const from = pick(random, data.users)!
  switch (kind) {
    case "single": {
      const body = quoteBody(data, route, random)
      const quoted = yield quote(body, quoteSane(body.amount))
      if (quoted.status !== 200) return
      const q = jsonOf(quoted) as { fixedFeeUnits: string }
      const fast = !route.xerc20 && fastPathOffered(quoted) && random() < FAST_PATH_SHARE
      const request: IntentRequestBody = {
        origin: route.origin,
        destinations: [route.destination],
        to: body.to!,
        from,
        inputAsset: route.inputAsset,
        amount: coverFee(body.amount, q.fixedFeeUnits),
        callData: "0x",
        ...(fast ? { isFastPath: true } : {}),
        ...(route.xerc20 ? { max_fee: "0" } : {}),
      }
      yield createIntent(request)
      return
    }
    case "order": {
      // One quote for the route, then an order of 2 to 5 intents from the same origin, asset and sender, each
      // leg large enough to cover the fixed fee.
      const body = quoteBody(data, route, random)
      const quoted = yield quote(body, quoteSane(body.amount))
      if (quoted.status !== 200) return
      const fixedFee = (jsonOf(quoted) as { fixedFeeUnits: string }).fixedFeeUnits
      const size = between(random, 2, 5)
      const bodies: IntentRequestBody[] = []
      for (let k = 0; k < size; k++) {
        const leg = k === 0 ? route : sameOriginRoute(data, route, random)
        bodies.push({
          origin: route.origin,
          destinations: [leg.destination],
          to: pick(random, data.receivers)!,
          from,
          inputAsset: route.inputAsset,
          amount: coverFee(k === 0 ? body.amount : chooseAmount(data, route, random), fixedFee),
          callData: "0x",
          max_fee: "0",
        })
      }
      yield createOrder(bodies)
      return
    }
    case "invalid":
      yield createIntentBadSender({ origin: route.origin, destinations: [route.destination], to: from, from, inputAsset: route.inputAsset, amount: chooseAmount(data, route, random) })
      return
  }
}

// ---------------------------------------------------------------------------------------------------------
// The mix

/** The default traffic: mostly reads, as an API front-end and arbitrageur bots produce it. */
export const MIXED_WEIGHTS = { reads: 70, quotes: 20, intents: 10 } as const

export const mixedFlow = (data: SetupData, random: Random): Flow => {
  const kind = weighted(random, MIXED_WEIGHTS)
  return kind === "reads" ? readFlow(data, random) : kind === "quotes" ? quoteFlow(data, random) : intentFlow(data, random)
}

/** The iteration of `script`. */
export const flowOf = (script: Script, data: SetupData, random: Random): Flow => {
  switch (script) {
    case "reads":
      return readFlow(data, random)
    case "quotes":
      return quoteFlow(data, random)
    case "intents":
      return intentFlow(data, random)
    case "mixed":
      return mixedFlow(data, random)
  }
}
