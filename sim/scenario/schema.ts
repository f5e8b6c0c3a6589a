/**
 * The scenario file: chains, assets, protocol parameters, transport, agent populations, initial liquidity,
 * horizon and the properties a run must satisfy. YAML on disk, decoded by this Effect Schema; a JSON Schema
 * for editors is generated from it (`scenarios/scenario.schema.json`).
 *
 * Units are in the names: `...Seconds`, `...Dbps` (1/100,000), `...Bps` (1/10,000), token amounts in whole
 * tokens (numbers or decimal strings, converted with the token's decimals).
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { LatencySpec } from "../../service/transport/latency.ts"
import { TransportSpec } from "../../service/transport/transport.ts"
import { COVERAGE_PREDICATES } from "../metrics/properties.ts"

const described = <S extends Schema.Top>(schema: S, description: string): S => schema.annotate({ description }) as S

/**
 * A rule the loader checks after decoding (`checkReferences` in load.ts, whose message names the scenario's values
 * and places), given to editors as the JSON Schema `fragment` that says it: the check itself takes every value here,
 * so each problem is still told once, by the loader, as before.
 */
const forEditors = <T>(fragment: Record<string, unknown>) => Schema.makeFilter((_: T) => true, { toJsonSchema: () => fragment })

/**
 * Names every JavaScript object has (`toString`, `constructor`, `__proto__`, ...): an asset symbol is a key of the
 * spokes' token tables and of report.json's objects by asset, where such a name is taken already (the run stopped
 * with "token symbol toString is given twice" and a stack trace). The loader refuses them as symbols.
 */
export const OBJECT_MEMBERS: readonly string[] = Object.getOwnPropertyNames(Object.prototype)

const PositiveInt = Schema.Int.check(Schema.isGreaterThan(0, { expected: "a positive integer" }))
const NonNegativeInt = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative integer" }))
/** Agents in one population: each has its own funded account on every chain, derived and funded at start-up. */
export const MAX_AGENTS_PER_POPULATION = 100_000
const AgentCount = Schema.Int.check(
  Schema.isBetween({ minimum: 1, maximum: MAX_AGENTS_PER_POPULATION }, { expected: `a number of agents from 1 to ${MAX_AGENTS_PER_POPULATION} (each has its own funded account)` }),
)
const Seconds = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative number of seconds" }))
const PositiveSeconds = Schema.Finite.check(Schema.isGreaterThan(0, { expected: "a positive number of seconds" }))
/**
 * The shortest period of what repeats (a keeper's cron, an arbitrageur's poll, a hub block, which `clearsim up`
 * ticks): the virtual clock counts whole milliseconds, and a period under half of one never moves it, so the run
 * repeated that event at the same millisecond forever. A range of the field, so the JSON Schema has it too.
 */
export const MIN_PERIOD_SECONDS = 0.001
const PeriodSeconds = Schema.Finite.check(
  Schema.isGreaterThanOrEqualTo(MIN_PERIOD_SECONDS, {
    expected: `a period of at least ${MIN_PERIOD_SECONDS} s, the virtual clock's millisecond (a shorter one would repeat at one millisecond forever: the run would hang)`,
  }),
)
const Probability = Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 1 }, { expected: "a probability between 0 and 1" }))
const Weight = Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative weight" }))
const Dbps = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100_000 }, { expected: "an integer of dbps between 0 and 100000" }))
const ChainId = Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 0xffff_ffff }, { expected: "a chain id (positive uint32)" }))
/** A token symbol: also a key of report.json objects (by asset), where digits only would be listed first. */
const Symbol = Schema.String.check(Schema.isPattern(/^(?![0-9]+$)[A-Za-z0-9._-]{1,16}$/u, { expected: "a token symbol (1-16 letters, digits, . _ -, not only digits)" }))
// Not only dots: a scenario's name is a directory under reports/out/, where "." and ".." would leave it.
const Name = Schema.String.check(Schema.isPattern(/^(?!\.+$)[A-Za-z0-9._-]{1,40}$/u, { expected: "a name (1-40 letters, digits, . _ -, not only dots)" }))
/** A population's name: also a key of report.json objects, where a name of digits only would be listed first. */
const PopulationName = Schema.String.check(
  Schema.isPattern(/^(?!\.+$)(?![0-9]+$)[A-Za-z0-9._-]{1,40}$/u, { expected: "a name (1-40 letters, digits, . _ -, not only dots, not only digits)" }),
)
/** Whole tokens, as a number or a decimal string (`"0.000001"`). */
export const TokenAmount = Schema.Union([
  Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative amount of tokens" })),
  Schema.String.check(Schema.isPattern(/^(0|[1-9][0-9]*)(\.[0-9]+)?$/u, { expected: "a non-negative decimal amount of tokens" })),
]).annotate({ expected: "a non-negative amount of tokens, as a number or a decimal string" })
export type TokenAmount = typeof TokenAmount.Type

/** An amount of an asset on a chain, in whole tokens (a solver's inventory, an arbitrageur's capital, a seed). */
const ChainAssetTokens = (what: string) =>
  Schema.Struct({
    chain: described(ChainId, "the chain (one of chains[].id)"),
    asset: described(Symbol, "the asset (one of assets[].symbol), configured on that chain"),
    tokens: described(TokenAmount, what),
  })

/**
 * A price in USD of one whole token, as a number or a decimal string (`"0.9998"`), above 0: kept exact (an integer
 * over a power of ten, `sim/metrics/valuation.ts`), never a float in the arithmetic.
 */
export const PriceUsd = Schema.Union([
  Schema.Finite.check(Schema.isGreaterThan(0, { expected: "a positive price in USD" })),
  Schema.String.check(Schema.isPattern(/^(?!0+(\.0+)?$)(0|[1-9][0-9]*)(\.[0-9]+)?$/u, { expected: "a positive decimal price in USD" })),
]).annotate({ expected: "a positive price in USD, as a number or a decimal string" })
export type PriceUsd = typeof PriceUsd.Type

/** The longest horizon: virtual milliseconds stay exact integers in a double (and timestamps fit uint48 seconds). */
export const MAX_HORIZON_SECONDS = Math.floor(Number.MAX_SAFE_INTEGER / 1000)

/** At most `maximum` (JSON Schema's `maximum`), told of a finite number only: an infinity is told once, as not finite. */
const finiteAtMost = (maximum: number, expected: string) =>
  Schema.makeFilter((n: number) => !Number.isFinite(n) || n <= maximum, { expected, toJsonSchema: () => ({ maximum }) })

/**
 * A horizon in seconds or hours has its bound as a range of the field, so the JSON Schema has it too; one in epochs
 * is bounded by the loader (its seconds depend on the hub's epochLength and blockTimeSeconds), which its description says.
 */
export const Horizon = Schema.Union([
  Schema.Struct({
    epochs: described(PositiveInt, `hub epochs the run covers (epochLength hub blocks each); in all at most ${MAX_HORIZON_SECONDS} s of virtual time (epochs × epochLength × blockTimeSeconds)`),
  }),
  Schema.Struct({
    hours: described(
      Schema.Finite.check(
        Schema.isGreaterThan(0, { expected: "a positive number of hours" }),
        finiteAtMost(MAX_HORIZON_SECONDS / 3600, `a horizon of at most ${MAX_HORIZON_SECONDS / 3600} h (${MAX_HORIZON_SECONDS} s, what virtual time can count: about 285,000 years)`),
      ),
      "virtual hours the run covers",
    ),
  }),
  Schema.Struct({
    seconds: described(PositiveSeconds.check(finiteAtMost(MAX_HORIZON_SECONDS, `a horizon of at most ${MAX_HORIZON_SECONDS} s (what virtual time can count: about 285,000 years)`)), "virtual seconds the run covers"),
  }),
])

export const HubParameters = Schema.Struct({
  domain: Schema.optionalKey(described(ChainId, "hub domain id (default 25327)")),
  blockTimeSeconds: Schema.optionalKey(described(PeriodSeconds, "hub block time; epochs count hub blocks (default 12)")),
  epochLength: Schema.optionalKey(described(PositiveInt, "epoch length in hub blocks (default 40)")),
  expiryTimeBufferSeconds: Schema.optionalKey(described(Seconds, "grace after ttl before an unfilled fast intent goes to the slow path (default 43200)")),
  discountExemptEpochs: Schema.optionalKey(described(NonNegativeInt, "extra epochs without discount after entry (default 0)")),
  userMaxDiscount: Schema.optionalKey(described(Schema.Boolean, "a ttl=0 intent's maxFee caps its discount (default true)")),
  minSolverSupportedDomains: Schema.optionalKey(described(NonNegativeInt, "fewest repayment domains a solver may declare (default 2)")),
  domainGasLimit: Schema.optionalKey(described(PositiveInt, "gas a settlement batch may use on a spoke; keepers size settlement batches to it (default 30000000)")),
})

export const ChainSpec = Schema.Struct({
  id: described(ChainId, "chain id, also its domain id at the hub"),
  name: Schema.optionalKey(described(Name, "a label shown by clearsim up (its chain listing and session.json); run reports name chains by id")),
  blockTimeSeconds: Schema.optionalKey(described(Schema.Int.check(Schema.isGreaterThan(0, { expected: "a whole number of seconds, at least 1" })), "spoke block time in whole seconds (default 2)")),
})

/** The most decimals a token of a scenario may have. */
export const MAX_TOKEN_DECIMALS = 36

/**
 * Whole tokens of every asset minted to every account on every chain at deployment: what one account can put in
 * (a solver's inventory, an arbitrageur's capital, the initial liquidity, all sent from one account each).
 */
export const ACCOUNT_FUNDING_TOKENS = 10n ** 12n

export const AssetOnChain = Schema.Struct({
  chain: described(ChainId, "one of the scenario's chains"),
  decimals: described(Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: MAX_TOKEN_DECIMALS }, { expected: `token decimals between 0 and ${MAX_TOKEN_DECIMALS}` })), "the token's decimals on this chain"),
  strategy: Schema.optionalKey(described(Schema.Literals(["default", "xerc20"]), "default: custody in the spoke; xerc20: burnt on the origin, minted on the destination, within the bridge's limits (default \"default\")")),
  /** xERC20 only: the bridge's mint and burn limits (whole tokens per day, replenished linearly). */
  mintLimit: Schema.optionalKey(described(TokenAmount, "xERC20 only: whole tokens the bridge may mint per day, replenished linearly (default 10^30 token units)")),
  burnLimit: Schema.optionalKey(described(TokenAmount, "xERC20 only: whole tokens the bridge may burn per day, replenished linearly (default 10^30 token units)")),
}).check(
  forEditors({
    if: { properties: { strategy: { const: "xerc20" } }, required: ["strategy"] },
    else: { properties: { mintLimit: false, burnLimit: false } },
  }),
)

export const AssetSpec = Schema.Struct({
  symbol: described(Symbol.check(forEditors({ not: { enum: OBJECT_MEMBERS } })), "the asset's symbol, its ticker at the hub (agents and properties name it; not a member every JavaScript object has, such as toString)"),
  discountPerEpochDbps: Schema.optionalKey(described(Dbps, "an invoice's discount grows by this each epoch (default 3)")),
  maxDiscountDbps: Schema.optionalKey(described(Dbps, "cap of an invoice's discount (default 12)")),
  prioritizedStrategy: Schema.optionalKey(described(Schema.Literals(["default", "xerc20"]), "settlement strategy the hub tries first (default \"default\")")),
  protocolFeeDbps: Schema.optionalKey(described(Dbps, "hub protocol fee (default 2)")),
  /** Off-chain fee charged through the FeeAdapter (quotes): a fixed part and a liquidity-dependent variable part. */
  fixedFeeTokens: Schema.optionalKey(described(TokenAmount, "fixed fee of the API's quotes, whole tokens (default 0)")),
  maxVariableFeeBps: Schema.optionalKey(
    described(Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 10_000 }, { expected: "bps between 0 and 10000" })), "most of the API's variable fee, bps, as liquidity runs short (default 10)"),
  ),
  chains: described(Schema.Array(AssetOnChain).check(Schema.isMinLength(1, { expected: "at least one chain" })), "the asset's deployment on each chain it is on"),
  priceUsd: Schema.optionalKey(
    described(
      PriceUsd,
      "USD value of one whole token (a number or a decimal string): the report's overall netting and discount totals weigh each asset's tokens by it (every asset has one, or none; without, they add tokens of different assets as they are). Reports only: the hub and the agents never see it",
    ),
  ),
})

const QueueThreshold = Schema.Struct({
  maxSize: Schema.optionalKey(described(PositiveInt, "dispatch once the queue holds this many items (default 1)")),
  maxAgeSeconds: Schema.optionalKey(described(Seconds, "or once its oldest item is this old (default 60)")),
  cronSeconds: Schema.optionalKey(described(PeriodSeconds, "how often the keeper looks (default 60; the fill queue 180)")),
})

/** A chain's own threshold fields: one left out is the keepers' value for that queue. */
const ChainQueueThreshold = Schema.Struct({
  maxSize: Schema.optionalKey(described(PositiveInt, "dispatch once the queue holds this many items (default: the keepers' maxSize for this queue)")),
  maxAgeSeconds: Schema.optionalKey(described(Seconds, "or once its oldest item is this old (default: the keepers' maxAgeSeconds for this queue)")),
  cronSeconds: Schema.optionalKey(described(PeriodSeconds, "how often the keeper looks (default: the keepers' cronSeconds for this queue)")),
})

/** One chain's own thresholds: each field given replaces the keepers' default for that chain's queues. */
const KeeperChainSpec = Schema.Struct({
  chain: described(ChainId, "the chain (one of chains[].id)"),
  intentQueue: Schema.optionalKey(described(ChainQueueThreshold, "this chain's intent queue, field by field over keepers.intentQueue")),
  fillQueue: Schema.optionalKey(described(ChainQueueThreshold, "this chain's fill queue, field by field over keepers.fillQueue")),
  settlementQueue: Schema.optionalKey(described(ChainQueueThreshold, "the hub's settlement queue of this chain, field by field over keepers.settlementQueue")),
})

export const KeeperSpec = Schema.Struct({
  intentQueue: Schema.optionalKey(described(QueueThreshold, "each spoke's intent queue, dispatched to the hub (processIntentQueue)")),
  fillQueue: Schema.optionalKey(described(QueueThreshold, "each spoke's fill queue, dispatched to the hub (processFillQueue)")),
  settlementQueue: Schema.optionalKey(described(QueueThreshold, "the hub's settlement queue of each chain (processSettlementQueue)")),
  processDepositsAndInvoicesCronSeconds: Schema.optionalKey(described(PeriodSeconds, "how often processDepositsAndInvoices runs for every ticker (default 60)")),
  expiredIntentsCronSeconds: Schema.optionalKey(described(PeriodSeconds, "how often expired fast-path intents are handed to the slow path (default 600)")),
  chains: Schema.optionalKey(described(Schema.Array(KeeperChainSpec), "thresholds of particular chains, over the ones above (a chain once)")),
})

export const Arrival = Schema.Union([
  /** Exactly at these times (seconds from the start), taken in time order (the loader sorts them), cycling over the population's agents. */
  Schema.Struct({
    kind: described(Schema.Literal("scripted"), "intents at the times listed"),
    atSeconds: described(Schema.Array(Seconds).check(Schema.isMinLength(1, { expected: "at least one time" })), "seconds from the start, one intent each (taken in time order, the agents sending them in turn)"),
  }),
  Schema.Struct({
    kind: described(Schema.Literal("poisson"), "intents at random times, a Poisson process"),
    perHour: described(Schema.Finite.check(Schema.isGreaterThan(0, { expected: "a positive rate" })), "intents per hour on average, for the whole population"),
  }),
  /** Bursts of `size` intents every `everySeconds` on average (Poisson bursts), spread over `spreadSeconds`. */
  Schema.Struct({
    kind: described(Schema.Literal("bursty"), "bursts of intents at random times"),
    everySeconds: described(PositiveSeconds, "seconds between two bursts on average (Poisson)"),
    size: described(PositiveInt, "intents in a burst"),
    spreadSeconds: Schema.optionalKey(described(Seconds, "seconds a burst's intents are spread over (default 60)")),
  }),
])

export const SizeSpec = Schema.Union([
  Schema.Struct({ kind: described(Schema.Literal("fixed"), "every intent of one size"), tokens: described(TokenAmount, "the size, whole tokens") }),
  Schema.Struct({
    kind: described(Schema.Literal("uniform"), "sizes drawn uniformly between two bounds"),
    minTokens: described(TokenAmount, "the smallest size, whole tokens"),
    maxTokens: described(TokenAmount, "the largest size, whole tokens (at least minTokens)"),
  }),
  Schema.Struct({
    kind: described(Schema.Literal("lognormal"), "sizes drawn from a lognormal distribution"),
    medianTokens: described(TokenAmount, "the median size, whole tokens"),
    sigma: described(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)), "the shape σ (0: every size is the median)"),
    maxTokens: Schema.optionalKey(described(TokenAmount, "a cap: a larger draw is sent at it, whole tokens (default: none)")),
  }),
])

export const RebalancerSpec = Schema.Struct({
  name: described(PopulationName, "the population's name (reports, population.<name>.* properties)"),
  count: described(AgentCount, "agents in the population, each with its funded account"),
  asset: described(Symbol, "the asset it moves"),
  arrival: described(Arrival, "when its intents come: poisson (perHour, the population's total), bursty, or scripted times (taken in time order, the agents sending them in turn)"),
  flows: described(
    Schema.Array(Schema.Struct({ from: described(ChainId, "the origin chain"), to: described(ChainId, "the destination chain (another chain)"), weight: Schema.optionalKey(described(Weight, "relative weight of this flow (default 1)")) })).check(
      Schema.isMinLength(1, { expected: "at least one flow" }),
      // One flow at least with a positive weight (left out, it is 1).
      forEditors({ contains: { anyOf: [{ not: { required: ["weight"] } }, { properties: { weight: { exclusiveMinimum: 0 } }, required: ["weight"] }] } }),
    ),
    "origin → destination chains, each intent drawn by weight (one at least with a positive weight)",
  ),
  size: described(SizeSpec, "intent size in whole tokens: fixed, uniform or lognormal"),
  /** Path mix of the population's intents; an xERC20 asset always takes the xERC20 route. */
  paths: Schema.optionalKey(
    described(
      Schema.Struct({
        basic: Schema.optionalKey(described(Weight, "relative weight of basic (netting) intents")),
        fast: Schema.optionalKey(described(Weight, "relative weight of fast-path intents, filled by solvers")),
        swap: Schema.optionalKey(described(Weight, "relative weight of fast-path swaps into swapTo")),
      }).check(
        // One path at least with a positive weight.
        forEditors({ anyOf: (["basic", "fast", "swap"] as const).map((path) => ({ properties: { [path]: { exclusiveMinimum: 0 } }, required: [path] })) }),
      ),
      "weights of the paths its intents take, one at least above 0 (default: all basic; a path left out here weighs 0); an xERC20 asset always takes the basic route (burn and mint)",
    ),
  ),
  swapTo: Schema.optionalKey(
    described(
      Symbol,
      "the asset swaps go to: a fill pays the same normalized amount of it (the spoke applies no price), so a real swap is between assets of one value, USDC to USDT say (default: the first other default-strategy asset of the destination chain, in the assets' order)",
    ),
  ),
  /** Most tokens each rebalancer sends from each chain over the run (default: no limit). */
  balanceTokens: Schema.optionalKey(described(TokenAmount, "most whole tokens each rebalancer sends from each chain over the run; past it, budgetExhausted (default: no limit)")),
  fastTtlSeconds: Schema.optionalKey(described(PositiveSeconds, "ttl of fast-path intents (default: the API's, 3600)")),
  fastMaxFeeDbps: Schema.optionalKey(described(Dbps, "solver fee a fast-path intent accepts, its maxFee (default: the API's, from the quote)")),
  /** maxFee of netting intents: with userMaxDiscount it caps the discount the user accepts. */
  maxDiscountDbps: Schema.optionalKey(described(Dbps, "maxFee of basic intents: above 0, with the hub's userMaxDiscount, it caps the discount the user accepts (default 0: the ticker's cap applies)")),
})

export const SolverSpec = Schema.Struct({
  name: described(PopulationName, "the population's name"),
  count: described(AgentCount, "solvers in the population"),
  /** Virtual-balance inventory per chain and asset, whole tokens. */
  inventory: described(Schema.Array(ChainAssetTokens("whole tokens each solver of the population deposits there at the start")), "each solver's inventory, whole tokens per chain and asset, deposited on the spokes at the start"),
  feeDbps: described(Dbps, "its fee: it fills intents whose maxFee is at least this; it must exceed the ticker's total protocol fee, or the solver fills nothing (unprofitable)"),
  reactionSeconds: Schema.optionalKey(described(LatencySpec, "delay from seeing an intent to sending its fill (default: a fixed 5 s)")),
  /** Most intents one solver fills per hour. */
  capacityPerHour: Schema.optionalKey(described(PositiveInt, "most intents one solver fills per hour, a whole number; past it, capacity (default: no limit)")),
  /** Repayment domains (setUserSupportedDomains); default every chain. */
  repaymentChains: Schema.optionalKey(
    described(
      // The hub refuses a list that names a domain twice (UsersManager_SetUserSupportedDomains_DuplicatedDomain): the solver ran unregistered.
      Schema.Array(ChainId).check(Schema.isUnique({ expected: "each chain once (the hub refuses a list that names a domain twice: UsersManager_SetUserSupportedDomains_DuplicatedDomain)" })),
      "domains the hub repays this solver on, each once (setUserSupportedDomains; default every chain)",
    ),
  ),
  /** Rebalance when inventory on a chain falls below this share of its start. */
  rebalanceBelowShare: Schema.optionalKey(described(Probability, "rebalance, through a netting intent from the richest chain, when a chain's inventory falls below this share of its start, or when a fill fails for lack of inventory there (default: never)")),
})

export const ArbitrageurSpec = Schema.Struct({
  name: described(PopulationName, "the population's name"),
  count: described(AgentCount, "arbitrageurs in the population"),
  /** Capital per arbitrageur per chain and asset, whole tokens. */
  capital: described(Schema.Array(ChainAssetTokens("whole tokens each arbitrageur of the population may spend there")), "each arbitrageur's capital, whole tokens per chain and asset: what it can deposit to buy invoices (a repaid purchase is capital again on the chain it is repaid on)"),
  pollSeconds: Schema.optionalKey(described(PeriodSeconds, "seconds between two reads of the invoices (default 60)")),
  /** Buy when the discount earned minus the fees paid (quote + protocol fee) beats this margin, bps of the purchase. */
  minDiscountBps: Schema.optionalKey(described(Schema.Finite.check(Schema.isGreaterThanOrEqualTo(0)), "margin over the fees the reward must beat, bps of the purchase: the cost of capital (default 0)")),
  /** Skip invoices younger than this. */
  minInvoiceAgeSeconds: Schema.optionalKey(described(Seconds, "skip invoices younger than this (default 1)")),
})

export const InitialLiquidity = ChainAssetTokens("whole tokens left in hub custody on that chain (one fast-path intent to itself that nothing fills)")

export const Property = Schema.Union([
  described(
    Schema.String.check(
      Schema.isPattern(/^\s*[A-Za-z][A-Za-z0-9._-]*\s*(>=|<=|==|!=|>|<)\s*-?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?\s*$/u, { expected: 'a comparison like "nettingRatio >= 0.5"' }),
    ),
    "a metric compared with a number, e.g. nettingRatio >= 0.5, latency.p99 <= 3600 or population.usdc-users.latency.p99 <= 600",
  ),
  Schema.Struct({ coverage: described(Schema.String.check(forEditors({ enum: Object.keys(COVERAGE_PREDICATES) })), "a coverage predicate, e.g. maxDiscountReached") }),
])

/** The latency of every route when the scenario gives none (no `transport` section, or one without `latency`). */
export const DEFAULT_TRANSPORT_LATENCY: LatencySpec = { kind: "lognormal", medianSeconds: 60, sigma: 0.4, maxSeconds: 600 }

/** The transport section: its `latency` may be left out (a section that gives only faults), and is then the default. */
export const ScenarioTransport = Schema.Struct({
  ...TransportSpec.fields,
  latency: TransportSpec.fields.latency
    .annotate({ description: "latency of every route without its own entry: fixed, uniform, lognormal or empirical quantiles (default: lognormal, median 60 s, sigma 0.4, at most 600 s)" })
    .pipe(Schema.withDecodingDefaultKey(Effect.succeed(DEFAULT_TRANSPORT_LATENCY))),
})

export const ScenarioSpec = Schema.Struct({
  name: described(Name, "the scenario's name: its report's title and its output directory, reports/out/<name>/"),
  description: Schema.optionalKey(described(Schema.String, "one line shown under the report's title")),
  // An integer past 2^53 - 1 is not exact as a JavaScript number: the bound says so next to "Expected an integer".
  seed: Schema.optionalKey(
    described(
      NonNegativeInt.check(Schema.isLessThanOrEqualTo(Number.MAX_SAFE_INTEGER, { expected: `a seed of at most ${Number.MAX_SAFE_INTEGER} (2^53 - 1)` })),
      "run seed: every random draw of the run derives from it (default 1; --seed overrides)",
    ),
  ),
  runs: Schema.optionalKey(described(PositiveInt, "Monte Carlo runs, with seeds seed, seed+1, ... (default 1; --runs overrides)")),
  horizon: described(Horizon, "virtual time the run covers: { epochs: n } (hub epochs), { hours: h } or { seconds: s }"),
  backend: Schema.optionalKey(described(Schema.Literals(["memory", "anvil"]), "chain backend: memory (the contracts' in-memory twin) or anvil (default memory; --chains overrides)")),
  hub: Schema.optionalKey(described(HubParameters, "hub parameters (defaults of PROTOCOL.md)")),
  chains: described(Schema.Array(ChainSpec).check(Schema.isMinLength(2, { expected: "at least two chains" })), "the spoke chains (at least two)"),
  assets: described(Schema.Array(AssetSpec).check(Schema.isMinLength(1, { expected: "at least one asset" })), "assets (tickers) and their deployment on each chain"),
  keepers: Schema.optionalKey(described(KeeperSpec, "keepers' crons and queue thresholds (defaults of the reference, §2.4)")),
  transport: Schema.optionalKey(described(ScenarioTransport, "latency and faults of messages between the spokes and the hub (default: lognormal, median 60 s, sigma 0.4, at most 600 s; no faults)")),
  agents: described(
    Schema.Struct({
      rebalancers: Schema.optionalKey(described(Schema.Array(RebalancerSpec), "users: populations moving an asset between chains along a flow matrix")),
      solvers: Schema.optionalKey(described(Schema.Array(SolverSpec), "solvers filling fast-path intents from their inventory")),
      arbitrageurs: Schema.optionalKey(described(Schema.Array(ArbitrageurSpec), "arbitrageurs buying discounted invoices")),
    }),
    "agent populations ({} for none)",
  ),
  initialLiquidity: Schema.optionalKey(
    described(
      Schema.Array(InitialLiquidity),
      "tokens a liquidity provider leaves in hub custody on each listed chain at the start (one unfillable fast-path intent per entry; its custody counts as initial liquidity in the netting attribution)",
    ),
  ),
  properties: Schema.optionalKey(described(Schema.Array(Property), "what the run must show: \"<metric> <op> <number>\" comparisons, or { coverage: <predicate> }")),
})
export type ScenarioSpec = typeof ScenarioSpec.Type

export type HubParameters = typeof HubParameters.Type
export type ChainSpec = typeof ChainSpec.Type
export type AssetSpec = typeof AssetSpec.Type
export type KeeperSpec = typeof KeeperSpec.Type
export type ArrivalSpec = typeof Arrival.Type
export type SizeSpec = typeof SizeSpec.Type
export type RebalancerSpec = typeof RebalancerSpec.Type
export type SolverSpec = typeof SolverSpec.Type
export type ArbitrageurSpec = typeof ArbitrageurSpec.Type
export type PropertySpecSchema = typeof Property.Type
