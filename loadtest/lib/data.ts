/**
 * What the traffic is built from: the API's own data, read once in k6's `setup()` (assets, existing intents and
 * invoices), and the choices each iteration makes from it (a route, an amount, a sender). `collectSetupData` is a
 * generator of requests: the k6 driver answers each with a synchronous `k6/http` call, the tests with fetch.
 */
import { isObject, jsonOf, type ResponseLike } from "./checks.ts"
import { pick, type Random } from "./random.ts"
import { health, listAssets, listIntents, listInvoices, type RequestSpec } from "./requests.ts"

/** One origin → destination route of a ticker, with the input and output assets. */
export interface Route {
  readonly symbol: string
  readonly tickerHash: string
  readonly origin: string
  readonly destination: string
  readonly inputAsset: string
  readonly outputAsset: string
  /** Decimals of the input asset on the origin. */
  readonly decimals: number
  /** xERC20 assets take the native route: no fast path, max fee 0. */
  readonly xerc20: boolean
}

export interface SetupData {
  readonly hubDomain: number
  readonly domains: readonly string[]
  readonly tickerHashes: readonly string[]
  /** Input asset addresses (20 bytes) per origin domain. */
  readonly assetsByDomain: Readonly<Record<string, readonly string[]>>
  readonly routes: readonly Route[]
  readonly intentIds: readonly string[]
  readonly invoiceIds: readonly string[]
  /** Senders seen on existing intents (or the well-known dev accounts when there are none). */
  readonly users: readonly string[]
  readonly receivers: readonly string[]
  readonly txHashes: readonly string[]
  readonly statuses: readonly string[]
  /** Creation times of the intents read, unix seconds. */
  readonly created: { readonly from: number; readonly to: number } | null
  /** Origin amounts of existing intents, per `origin:inputAsset`, to draw realistic amounts from. */
  readonly amounts: Readonly<Record<string, readonly string[]>>
}

export interface SetupOptions {
  /** Pages of 100 intents read to collect ids, senders and amounts. Default 5. */
  readonly intentPages?: number
}

/** The API could not give what the load test needs: thrown by `setup()`, which stops k6 with the message. */
export class SetupError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "SetupError"
  }
}

/** anvil's first dev accounts (public test keys): senders when the API has no intents yet. */
export const DEV_ACCOUNTS: readonly string[] = [
  "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
  "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
  "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc",
]

const MAX_IDS = 500
const MAX_SAMPLES = 50

const bodyOf = (response: ResponseLike, spec: RequestSpec): Record<string, unknown> => {
  const body = jsonOf(response)
  if (response.status !== 200 || !isObject(body)) {
    const text = typeof response.body === "string" ? response.body.slice(0, 200) : ""
    throw new SetupError(`${spec.method} ${spec.path} answered ${response.status}${text === "" ? "" : `: ${text}`}`)
  }
  return body
}

/** The 20-byte address of a 32-byte protocol word (or of an address), lower-case; undefined otherwise. */
export const addressOf = (value: unknown): string | undefined => {
  if (typeof value !== "string") return undefined
  if (/^0x[0-9a-fA-F]{40}$/.test(value)) return value.toLowerCase()
  if (/^0x0{24}[0-9a-fA-F]{40}$/.test(value)) return `0x${value.slice(26).toLowerCase()}`
  return undefined
}

/** Adds a string not seen yet (fields the API has not set yet are `null`: left out). */
const addUnique = (list: string[], value: unknown, max: number) => {
  if (typeof value === "string" && list.length < max && !list.includes(value)) list.push(value)
}

/**
 * Reads what the traffic is built from: `/health`, every asset (`/configs/assets`, and its xERC20 subset), up to
 * `intentPages` pages of intents (newest first) and the first invoices. Throws `SetupError` when the API does not
 * answer or has no route to send intents on.
 */
export function* collectSetupData(options: SetupOptions = {}): Generator<RequestSpec, SetupData, ResponseLike> {
  const healthSpec = health()
  const status = bodyOf(yield healthSpec, healthSpec)

  const readAssets = function* (type: string | undefined): Generator<RequestSpec, Record<string, unknown>[], ResponseLike> {
    const all: Record<string, unknown>[] = []
    for (let page = 1; page <= 100; page++) {
      const spec = listAssets({ page: String(page), limit: "100", type })
      const assets = bodyOf(yield spec, spec)["assets"] as Record<string, unknown>[]
      all.push(...assets)
      if (assets.length < 100) break
    }
    return all
  }
  const assets = yield* readAssets(undefined)
  const xerc20 = new Set((yield* readAssets("xerc20")).map((a) => `${a["domain"]}:${addressOf(a["local"])}`))

  const bySymbol = new Map<string, Record<string, unknown>[]>()
  for (const asset of assets) {
    const symbol = String(asset["key"])
    bySymbol.set(symbol, [...(bySymbol.get(symbol) ?? []), asset])
  }
  const routes: Route[] = []
  for (const [symbol, list] of bySymbol) {
    for (const from of list) {
      for (const to of list) {
        if (from["domain"] === to["domain"]) continue
        const inputAsset = addressOf(from["local"])
        const outputAsset = addressOf(to["local"])
        if (inputAsset === undefined || outputAsset === undefined) continue
        routes.push({
          symbol,
          tickerHash: String(from["canonical_id"]),
          origin: String(from["domain"]),
          destination: String(to["domain"]),
          inputAsset,
          outputAsset,
          decimals: Number(from["decimal"]),
          xerc20: xerc20.has(`${from["domain"]}:${inputAsset}`),
        })
      }
    }
  }
  if (routes.length === 0) throw new SetupError(`GET /configs/assets lists ${assets.length} assets but no ticker on two domains: there is no route to quote or send intents on`)

  const intentIds: string[] = []
  const users: string[] = []
  const receivers: string[] = []
  const txHashes: string[] = []
  const statuses: string[] = []
  const amounts: Record<string, string[]> = {}
  let created: { from: number; to: number } | null = null
  let cursor: string | undefined
  for (let page = 0; page < (options.intentPages ?? 5); page++) {
    const spec = listIntents({ limit: "100", cursor })
    const body = bodyOf(yield spec, spec)
    for (const intent of body["intents"] as Record<string, unknown>[]) {
      addUnique(intentIds, intent["intent_id"], MAX_IDS)
      addUnique(users, addressOf(intent["fee_adapter_initiator"]) ?? addressOf(intent["tx_origin"]), MAX_SAMPLES)
      addUnique(receivers, addressOf(intent["receiver"]), MAX_SAMPLES)
      addUnique(txHashes, intent["transaction_hash"], MAX_SAMPLES)
      addUnique(statuses, intent["status"], 100)
      const at = intent["intent_created_timestamp"]
      if (typeof at === "number") created = created === null ? { from: at, to: at } : { from: Math.min(created.from, at), to: Math.max(created.to, at) }
      const asset = addressOf(intent["input_asset"])
      const amount = intent["origin_amount"]
      if (asset !== undefined && typeof amount === "string" && amount !== "0") {
        const key = `${intent["origin"]}:${asset}`
        if (amounts[key] === undefined) amounts[key] = []
        addUnique(amounts[key]!, amount, MAX_SAMPLES)
      }
    }
    const next = body["nextCursor"]
    if (typeof next !== "string") break
    cursor = next
  }

  const invoicesSpec = listInvoices({ limit: "100" })
  const invoiceIds = (bodyOf(yield invoicesSpec, invoicesSpec)["invoices"] as Record<string, unknown>[]).map((i) => String(i["intent_id"]))

  const assetsByDomain: Record<string, string[]> = {}
  for (const route of routes) {
    if (assetsByDomain[route.origin] === undefined) assetsByDomain[route.origin] = []
    addUnique(assetsByDomain[route.origin]!, route.inputAsset, 100)
  }
  return {
    hubDomain: Number(status["hubDomain"]),
    domains: Object.keys(assetsByDomain).sort(),
    tickerHashes: [...new Set(routes.map((r) => r.tickerHash))],
    assetsByDomain,
    routes,
    intentIds,
    invoiceIds,
    users: users.length > 0 ? users : DEV_ACCOUNTS,
    receivers: receivers.length > 0 ? receivers : DEV_ACCOUNTS,
    txHashes,
    statuses,
    created,
    amounts,
  }
}

// ---------------------------------------------------------------------------------------------------------
// Choices per iteration

/** Compares two decimal strings of non-negative integers. */
export const compareAmounts = (a: string, b: string): number => {
  const x = a.replace(/^0+(?=.)/, "")
  const y = b.replace(/^0+(?=.)/, "")
  if (x.length !== y.length) return x.length < y.length ? -1 : 1
  return x < y ? -1 : x > y ? 1 : 0
}

/** `tokens` whole tokens in units of an asset with `decimals` decimals (no BigInt: k6 scripts stay portable). */
export const tokenUnits = (tokens: number, decimals: number): string => `${Math.floor(tokens)}${"0".repeat(decimals)}`

/**
 * An amount for `route` in origin token units: mostly one an existing intent of the same origin and asset
 * carried, otherwise 1 to 1,000 whole tokens.
 */
export const chooseAmount = (data: SetupData, route: Route, random: Random): string => {
  const seen = data.amounts[`${route.origin}:${route.inputAsset}`] ?? []
  if (seen.length > 0 && random() < 0.7) return pick(random, seen)!
  return tokenUnits(1 + Math.floor(random() * 1000), route.decimals)
}

/** `amount`, raised to 100 times `fee` when the fee would eat too much of it (so that the intent is valid). */
export const coverFee = (amount: string, fee: string): string => {
  const floor = fee === "0" ? "1" : `${fee}00`
  return compareAmounts(amount, floor) < 0 ? floor : amount
}

export const chooseRoute = (data: SetupData, random: Random): Route => pick(random, data.routes)!

/** Another route of the same origin and input asset (for an order's further intents). */
export const sameOriginRoute = (data: SetupData, route: Route, random: Random): Route =>
  pick(
    random,
    data.routes.filter((r) => r.origin === route.origin && r.inputAsset === route.inputAsset),
  ) ?? route

/** A 32-byte id no intent has (the API answers 404 for it). */
export const unknownIntentId = (random: Random): string => {
  let hex = ""
  while (hex.length < 64) hex += Math.floor(random() * 0x100000000).toString(16).padStart(8, "0")
  return `0x${"dead"}${hex.slice(4, 64)}`
}
