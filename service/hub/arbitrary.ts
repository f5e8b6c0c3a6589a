/**
 * fast-check arbitraries of hub traces for property tests: a config with two tickers over three domains
 * (one xERC20 domain for USDX), and random sequences of inputs that reference earlier intents (fills,
 * expiries, returns) so that the interesting paths are reached, reverts included.
 */
import fc from "fast-check"
import { intentId } from "../domain/encoding.ts"
import { addressToBytes32, type Bytes32, ZERO_BYTES32 } from "../domain/hex.ts"
import type { Intent } from "../domain/protocol.ts"
import type { HubConfigInput } from "./config.ts"
import type { HubInput } from "./hub.ts"

export const DOMAINS = [1, 10, 137] as const
const assetOf = (symbol: string, domain: number): Bytes32 => addressToBytes32(`0x${symbol === "DAI" ? "da" : "cc"}${"00".repeat(17)}${domain.toString(16).padStart(4, "0")}`)
const USERS = [1, 2, 3, 4].map((i) => addressToBytes32(`0x${`${i}`.repeat(40)}`))
const SOLVERS = [8, 9].map((i) => addressToBytes32(`0x${`${i}`.repeat(40)}`))
const FEE_RECIPIENT = addressToBytes32(`0x${"fe".repeat(20)}`)

export const traceConfig = (tickerOrder: readonly ("DAI" | "USDX")[] = ["DAI", "USDX"], overrides: Partial<HubConfigInput> = {}): HubConfigInput => {
  const tickers = {
    DAI: {
      symbol: "DAI",
      discountPerEpoch: 1000,
      maxDiscountDbps: 5000,
      prioritizedStrategy: "default" as const,
      fees: [
        { recipient: FEE_RECIPIENT, fee: 7 },
        { recipient: addressToBytes32(`0x${"fd".repeat(20)}`), fee: 3 },
      ],
      domains: DOMAINS.map((domain) => ({ domain, asset: assetOf("DAI", domain), decimals: 18, strategy: "default" as const })),
    },
    USDX: {
      symbol: "USDX",
      discountPerEpoch: 5,
      maxDiscountDbps: 20,
      prioritizedStrategy: "default" as const,
      fees: [{ recipient: FEE_RECIPIENT, fee: 2 }],
      domains: DOMAINS.map((domain) => ({
        domain,
        asset: assetOf("USDX", domain),
        decimals: 6,
        strategy: domain === 137 ? ("xerc20" as const) : ("default" as const),
      })),
    },
  }
  return { epochLength: 10, expiryTimeBuffer: 600, discountExemptEpochs: 0, userMaxDiscount: true, tickers: tickerOrder.map((t) => tickers[t]), ...overrides }
}

/** Abstract steps; `pick` fields index earlier intents modulo their count. */
type Step =
  | { readonly t: "block"; readonly blocks: number; readonly seconds: number }
  | {
      readonly t: "intent"
      readonly symbol: "DAI" | "USDX"
      readonly origin: number
      readonly destinations: readonly number[]
      readonly amount: bigint
      readonly fast: boolean
      readonly maxFee: number
      readonly user: number
      readonly unsupported: boolean
    }
  | { readonly t: "fill"; readonly pick: number; readonly solver: number }
  | { readonly t: "process"; readonly symbol: "DAI" | "USDX"; readonly maxEpochs: number; readonly maxDeposits: number; readonly maxInvoices: number }
  | { readonly t: "settle"; readonly domain: number; readonly amount: number }
  | { readonly t: "expire"; readonly picks: readonly number[] }
  | { readonly t: "return"; readonly pick: number }
  | { readonly t: "uvb"; readonly user: number; readonly status: boolean }
  | { readonly t: "domains"; readonly solver: number; readonly domains: readonly number[] }
  | { readonly t: "withdraw"; readonly amount: bigint; readonly destinations: readonly number[] }
  | { readonly t: "epochLength"; readonly length: number }
  | { readonly t: "duplicate"; readonly pick: number }

const domain = fc.constantFrom(...DOMAINS)
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({
      t: fc.constant("block" as const),
      blocks: fc.integer({ min: 0, max: 25 }),
      seconds: fc.oneof(fc.integer({ min: 0, max: 400 }), fc.constant(1000)),
    }) },
  {
    weight: 8,
    arbitrary: fc.record({
      t: fc.constant("intent" as const),
      symbol: fc.constantFrom("DAI" as const, "USDX" as const),
      origin: domain,
      destinations: fc.uniqueArray(domain, { minLength: 0, maxLength: 3 }),
      amount: fc.oneof(fc.bigInt({ min: 1n, max: 10n ** 21n }), fc.constantFrom(10n ** 18n, 999_999n, 1n)),
      fast: fc.boolean(),
      maxFee: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 100_000 })),
      user: fc.integer({ min: 0, max: USERS.length - 1 }),
      unsupported: fc.constant(false),
    }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("intent" as const), symbol: fc.constant("DAI" as const), origin: domain, destinations: fc.constant([5]), amount: fc.constant(10n ** 18n), fast: fc.constant(false), maxFee: fc.constant(0), user: fc.constant(0), unsupported: fc.constant(true) }) },
  { weight: 3, arbitrary: fc.record({ t: fc.constant("fill" as const), pick: fc.nat(), solver: fc.integer({ min: 0, max: SOLVERS.length - 1 }) }) },
  {
    weight: 4,
    arbitrary: fc.record({
      t: fc.constant("process" as const),
      symbol: fc.constantFrom("DAI" as const, "USDX" as const),
      maxEpochs: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 })),
      maxDeposits: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 })),
      maxInvoices: fc.oneof(fc.constant(0), fc.integer({ min: 1, max: 3 })),
    }),
  },
  { weight: 2, arbitrary: fc.record({
      t: fc.constant("settle" as const),
      domain,
      amount: fc.oneof({ weight: 3, arbitrary: fc.constant(1) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 6 }) }),
    }) },
  { weight: 2, arbitrary: fc.record({ t: fc.constant("expire" as const), picks: fc.array(fc.nat(), { minLength: 1, maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("return" as const), pick: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("uvb" as const), user: fc.integer({ min: 0, max: USERS.length - 1 }), status: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({ t: fc.constant("domains" as const), solver: fc.integer({ min: 0, max: SOLVERS.length - 1 }), domains: fc.uniqueArray(domain, { minLength: 1, maxLength: 3 }) }),
  },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("withdraw" as const), amount: fc.bigInt({ min: 0n, max: 10n ** 16n }), destinations: fc.uniqueArray(domain, { maxLength: 2 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("epochLength" as const), length: fc.integer({ min: 1, max: 20 }) }) },
  { weight: 1, arbitrary: fc.record({ t: fc.constant("duplicate" as const), pick: fc.nat() }) },
)

/** Turns abstract steps into concrete hub inputs (deterministic: nonces and time advance with the steps). */
export const buildTrace = (steps: readonly Step[]): HubInput[] => {
  const inputs: HubInput[] = [{ kind: "block", number: 1000, timestamp: 1_700_000_000 }]
  let block = 1000
  let time = 1_700_000_000
  const nonces = new Map<number, bigint>()
  const intents: Intent[] = []
  const fast: Intent[] = []
  for (const s of steps) {
    switch (s.t) {
      case "block":
        block += s.blocks
        time += s.seconds
        inputs.push({ kind: "block", number: block, timestamp: time })
        break
      case "intent": {
        const nonce = (nonces.get(s.origin) ?? 0n) + 1n
        nonces.set(s.origin, nonce)
        const destinations = s.unsupported ? s.destinations : s.fast ? [s.destinations[0] ?? DOMAINS[0]] : s.destinations
        const intent: Intent = {
          initiator: addressToBytes32(`0x${"ad".repeat(20)}`),
          receiver: USERS[s.user]!,
          inputAsset: assetOf(s.symbol, s.origin),
          outputAsset: s.fast ? assetOf(s.symbol, destinations[0]!) : ZERO_BYTES32,
          maxFee: s.fast ? Math.min(s.maxFee, 100_000) : s.maxFee,
          origin: s.origin,
          nonce,
          timestamp: time,
          ttl: s.fast ? 300 : 0,
          amount: s.amount,
          destinations,
          data: "0x",
        }
        intents.push(intent)
        if (intent.ttl > 0) fast.push(intent)
        inputs.push({ kind: "intents", intents: [intent] })
        break
      }
      case "fill": {
        if (intents.length === 0) break
        const intent = intents[s.pick % intents.length]!
        inputs.push({ kind: "fills", fills: [{ intentId: intentId(intent), solver: SOLVERS[s.solver]!, initiator: intent.initiator, fee: 0, executionTimestamp: time }] })
        break
      }
      case "process":
        inputs.push({ kind: "processDepositsAndInvoices", ticker: s.symbol, maxEpochs: s.maxEpochs, maxDeposits: s.maxDeposits, maxInvoices: s.maxInvoices })
        break
      case "settle":
        inputs.push({ kind: "processSettlementQueue", domain: s.domain, amount: s.amount })
        break
      case "expire":
        // Mostly fast-path intents (the only ones that can expire), sometimes any intent (a revert).
        if (intents.length === 0) break
        inputs.push({
          kind: "handleExpiredIntents",
          intentIds: s.picks.map((p) => intentId(p % 5 === 0 || fast.length === 0 ? intents[p % intents.length]! : fast[fast.length - 1 - (p % Math.min(3, fast.length))]!)),
        })
        break
      case "return":
        if (intents.length === 0) break
        inputs.push({ kind: "returnUnsupportedIntent", intentId: intentId(intents[s.pick % intents.length]!) })
        break
      case "uvb":
        inputs.push({ kind: "setUpdateVirtualBalance", user: USERS[s.user]!, status: s.status })
        break
      case "domains":
        inputs.push({ kind: "setUserSupportedDomains", user: SOLVERS[s.solver]!, domains: s.domains })
        break
      case "withdraw":
        inputs.push({ kind: "withdrawFees", withdrawer: FEE_RECIPIENT, feeRecipient: FEE_RECIPIENT, ticker: "DAI", amount: s.amount, destinations: s.destinations })
        break
      case "epochLength":
        inputs.push({ kind: "updateEpochLength", epochLength: s.length })
        break
      case "duplicate":
        if (intents.length === 0) break
        inputs.push({ kind: "intents", intents: [intents[s.pick % intents.length]!] })
        break
    }
  }
  return inputs
}

export const arbTrace = (maxSteps = 80): fc.Arbitrary<HubInput[]> => fc.array(step, { minLength: 1, maxLength: maxSteps }).map(buildTrace)
