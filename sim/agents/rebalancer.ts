/**
 * Rebalancers (users): a population moving one asset between chains along a flow matrix, with Poisson or
 * bursty arrivals and a size distribution, each intent on a path drawn from the mix (basic netting, fast
 * path, swap); an xERC20 asset's intents always take the basic path, burnt and minted. Each goes through the service as a user would: quote → POST
 * /intents → send the transaction on the origin chain. Rejections (quote limits, API errors, reverts) are
 * counted with their reasons.
 */
import type { Address } from "../../service/domain/hex.ts"
import type { Rng } from "../rng.ts"
import { tokensToUnits, tokensToUnitsRounded } from "../../service/domain/protocol.ts"
import type { RebalancerSpec, SizeSpec } from "../scenario/schema.ts"
import type { AgentPlan } from "../world/plan.ts"
import type { World } from "../world/world.ts"
import type { ClearingService } from "../../service/api/service.ts"
import { agentRng, callNow, createIntents, createIntentsNow, type IntentSubmission, PopulationStats, type ServiceResult, sendTransaction } from "./common.ts"

type Path = "basic" | "fast" | "swap"

/**
 * One intent's size in token units. A size the scenario writes (a fixed size, a lognormal's cap) is that amount in
 * the token's units, rounded to the nearest unit; a drawn one (a double) is rounded to at most 6 decimals (`unitsOf`).
 */
const sampleUnits = (spec: SizeSpec, rng: Rng, decimals: number, written: WrittenUnits): bigint => {
  switch (spec.kind) {
    case "fixed":
      return written.fixed!
    case "uniform": {
      const min = finiteTokens(Number(spec.minTokens))
      return unitsOf(min + (finiteTokens(Number(spec.maxTokens)) - min) * rng.float(), decimals)
    }
    case "lognormal": {
      // A median of 0 is 0 whatever the factor: 0 · e^(σz) is NaN in doubles when e^(σz) overflows (a large σ).
      const x = finiteTokens(rng.lognormal(finiteTokens(Number(spec.medianTokens)), spec.sigma))
      return spec.maxTokens !== undefined && x >= Number(spec.maxTokens) ? written.cap! : unitsOf(Number.isNaN(x) ? 0 : x, decimals)
    }
  }
}

/** The sizes a scenario writes (a fixed size, a lognormal's cap) in one chain's token units, made once per flow. */
interface WrittenUnits {
  readonly fixed: bigint | undefined
  readonly cap: bigint | undefined
}

const writtenUnitsOf = (spec: SizeSpec, decimals: number): WrittenUnits => ({
  fixed: spec.kind === "fixed" ? tokensToUnitsRounded(spec.tokens, decimals) : undefined,
  cap: spec.kind === "lognormal" && spec.maxTokens !== undefined ? tokensToUnitsRounded(spec.maxTokens, decimals) : undefined,
})

const POW10: bigint[] = []
const pow10 = (e: number): bigint => (POW10[e] ??= 10n ** BigInt(e))

/**
 * Tokens past the largest double (a lognormal draw whose e^(σz) overflows, a decimal string of 309 digits) as the
 * largest double: a size no account can pay, refused as such, where Infinity stopped the run ("Cannot convert
 * Infinity to a BigInt"). Finite values are as they are.
 */
const finiteTokens = (tokens: number): number => (tokens > Number.MAX_VALUE ? Number.MAX_VALUE : tokens)

/** Whole tokens (a float from a distribution) to units, rounded to at most 6 decimals. */
const unitsOf = (tokens: number, decimals: number): bigint => {
  const digits = Math.min(6, decimals)
  const scale = 10 ** digits
  const scaled = Math.round(tokens * scale)
  // Past 10^302 tokens the product overflows; a double that large has no fraction to round.
  if (scaled === Infinity) return tokensToUnits(tokens, decimals)
  // Below 10^15 the shortest decimal form of scaled / scale is exactly `scaled` shifted by `digits` places
  // (decimals of at most 15 significant digits survive a round trip through a double): the same units as
  // `tokensToUnits`, without formatting and parsing the number.
  if (scaled >= 0 && scaled < 1e15) return BigInt(scaled) * pow10(decimals - digits)
  return tokensToUnits(scaled / scale, decimals)
}

export const startRebalancers = (world: World, service: ClearingService, spec: RebalancerSpec, agents: readonly AgentPlan[]): PopulationStats => {
  const stats = new PopulationStats("rebalancer", spec.name, agents.length)
  const flowWeights = spec.flows.map((f) => f.weight ?? 1)
  const mix = spec.paths ?? { basic: 1 }
  const paths: Path[] = ["basic", "fast", "swap"]
  const pathWeights = [mix.basic ?? 0, mix.fast ?? 0, mix.swap ?? 0]
  const allowance = spec.balanceTokens

  const anyPathWeight = pathWeights.some((w) => w > 0)
  const flows = spec.flows.map((flow) => ({
    flow,
    input: world.plan.assets.get(`${spec.asset}:${flow.from}`)!,
    output: world.plan.assets.get(`${spec.asset}:${flow.to}`)!,
    written: writtenUnitsOf(spec.size, world.plan.assets.get(`${spec.asset}:${flow.from}`)!.decimals),
    origin: String(flow.from),
    destinations: [String(flow.to)] as readonly string[],
  }))

  const act = (agent: AgentPlan, rng: Rng): void | Promise<void> => {
    const { flow, input, origin, destinations, written } = flows[rng.weightedIndex(flowWeights)]!
    let path: Path = input.strategy === "xerc20" ? "basic" : paths[rng.weightedIndex(anyPathWeight ? pathWeights : [1, 0, 0])]!
    const amount = sampleUnits(spec.size, rng, input.decimals, written)
    if (amount === 0n) return stats.reject("zeroAmount")
    // The budget is per chain, in that chain's token units.
    const budgetKey = allowance === undefined ? "" : `${agent.id}:${flow.from}`
    const spent = allowance === undefined ? 0n : (spentByAgent.get(budgetKey) ?? 0n)
    if (allowance !== undefined && spent + amount > tokensToUnits(allowance, input.decimals)) return stats.reject("budgetExhausted")
    let outputAsset: Address | undefined
    if (path === "swap") {
      const other =
        spec.swapTo !== undefined
          ? [world.plan.assets.get(`${spec.swapTo}:${flow.to}`)].find((a) => a?.strategy === "default")
          : [...world.plan.assets.values()].find((a) => a.domain === flow.to && a.symbol !== spec.asset && a.strategy === "default")
      if (other === undefined) path = "fast"
      else outputAsset = other.address
    }
    const from = agent.account.address
    const base = {
      origin,
      destinations,
      inputAsset: input.address,
      amount: amount.toString(),
      to: from,
      from,
      ...(outputAsset === undefined ? {} : { outputAsset }),
    }
    // The quote's figures as values (`POST /routes/quotes` before its JSON strings): the same checks and refusals.
    const quoted = callNow(() => service.quoteValuesNow(base))
    if (!quoted.ok) return stats.reject(`quote:${quoted.error}`)
    if (quoted.value.reqType === "invalid") return stats.reject("quote:invalid")
    const quote = quoted.value.quote
    // Fallbacks are counted once the intent is sent (`send`).
    let fastRefused: string | undefined
    if (path !== "basic" && !quote.fast.ok) {
      // A swap has no other path: refused. Otherwise the user falls back to netting, as the quick-start guide suggests.
      if (path === "swap") return stats.reject(`fastPath:${quote.fast.error}`)
      fastRefused = quote.fast.error
      path = "basic"
    }
    const overLimit = path === "basic" && quote.currentLimit < amount // sent all the same: it will be invoiced
    const request =
      path === "basic"
        ? input.strategy === "xerc20"
          ? { ...base, max_fee: "0" }
          : spec.maxDiscountDbps === undefined
            ? base
            : { ...base, max_fee: String(spec.maxDiscountDbps) }
        : {
            ...base,
            isFastPath: true,
            ...(spec.fastTtlSeconds === undefined ? {} : { ttl: spec.fastTtlSeconds }),
            ...(spec.fastMaxFeeDbps === undefined ? {} : { max_fee: String(spec.fastMaxFeeDbps) }),
          }
    const action = path === "basic" && input.strategy === "xerc20" ? "xerc20" : path
    // Synchronous while the fee signature is cached (almost always); signing a new one is asynchronous.
    const now = createIntentsNow(service, request)
    if (now !== undefined) return send(now, from, action, budgetKey, amount, fastRefused, overLimit)
    return createIntents(service, request).then((tx) => send(tx, from, action, budgetKey, amount, fastRefused, overLimit))
  }

  /**
   * Sends the transaction `POST /intents` gave (one function for the population: no closure per intent), and
   * counts how it went another way than asked: the fast path refused (`basicForFast:<why>`), over the route's limit
   * (`sentOverLimit`); an intent can be both. The budget is charged when the transaction is sent and given back if
   * it reverts (it sent nothing).
   */
  const send = (tx: ServiceResult<IntentSubmission>, from: Address, action: string, budgetKey: string, amount: bigint, fastRefused: string | undefined, overLimit: boolean): void => {
    if (!tx.ok) return stats.reject(`intents:${tx.error}`)
    if (fastRefused !== undefined) stats.fallback(`basicForFast:${fastRefused}`)
    if (overLimit) stats.fallback("sentOverLimit")
    if (allowance === undefined) return sendTransaction(world, from, tx.value, stats.onMined(action))
    spentByAgent.set(budgetKey, (spentByAgent.get(budgetKey) ?? 0n) + amount)
    const mined = stats.onMined(action)
    sendTransaction(world, from, tx.value, (receipt) => {
      if (receipt.status !== "success") spentByAgent.set(budgetKey, spentByAgent.get(budgetKey)! - amount)
      mined(receipt)
    })
  }

  const spentByAgent = new Map<string, bigint>()
  // Every rebalancer approves the fee adapter on every chain once, at the start.
  for (const agent of agents) {
    for (const asset of world.plan.assets.values()) {
      if (asset.symbol !== spec.asset) continue
      world.submit(asset.domain, agent.account.address, {
        kind: "erc20.approve",
        token: asset.address,
        spender: world.chain(asset.domain).addresses.feeAdapter,
        amount: 2n ** 256n - 1n,
      })
    }
  }
  const arrival = spec.arrival
  if (arrival.kind === "scripted") {
    arrival.atSeconds.forEach((seconds, i) => {
      const agent = agents[i % agents.length]!
      world.scheduler.at(seconds * 1000, `rebalancer/${agent.id}`, () => act(agent, agentRng(world, agent)))
    })
  } else if (arrival.kind === "poisson") {
    const meanSeconds = (3600 * agents.length) / arrival.perHour
    for (const agent of agents) {
      const rng = agentRng(world, agent)
      const label = `rebalancer/${agent.id}`
      const arrive = (): void | Promise<void> => {
        next()
        return act(agent, rng)
      }
      const next = () => world.scheduler.after(rng.exponential(meanSeconds) * 1000, label, arrive)
      next()
    }
  } else {
    const rng = world.rng.get(`population/${spec.name}`)
    const burst = () => {
      world.scheduler.after(rng.exponential(arrival.everySeconds) * 1000, `burst/${spec.name}`, () => {
        burst()
        for (let i = 0; i < arrival.size; i++) {
          const agent = agents[rng.int(0, agents.length - 1)]!
          world.scheduler.after(rng.float() * (arrival.spreadSeconds ?? 60) * 1000, `rebalancer/${agent.id}`, () => act(agent, agentRng(world, agent)))
        }
      })
    }
    burst()
  }
  return stats
}
