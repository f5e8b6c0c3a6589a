/**
 * From a scenario to the run's configuration: accounts (dev accounts of the chain pool's mnemonic, so both
 * backends use the same addresses), the spoke deployments, the hub configuration with the deployed token
 * addresses, and the agent populations with their accounts. Pure: no chain, no clock.
 */
import { deriveDevAccounts, type DevAccount, TEST_MNEMONIC } from "../chains/accounts.ts"
import { type Address, addressToBytes32 } from "../../service/domain/hex.ts"
import { type HubConfigInput, HUB_DEFAULTS } from "../../service/hub/config.ts"
import { planSpokeLayout, type SpokeChainConfig, type SpokeLayout, type SpokesConfig } from "../../service/spoke/layout.ts"
import type { TokenSpec } from "../../service/spoke/deploy.ts"
import { tokensToUnits } from "../../service/domain/protocol.ts"
import { ACCOUNT_FUNDING_TOKENS, type ScenarioSpec } from "../scenario/schema.ts"

export const GENESIS_TIMESTAMP = 1_700_000_000n
/** The hub's block number at time 0 is about this (rounded to an epoch start): epochs are large, as on the real hub. */
export const HUB_GENESIS_BLOCK = 20_000_000

/** The first hub block: `HUB_GENESIS_BLOCK` rounded up to a multiple of the epoch length, so epoch 0 of the run is whole. */
export const hubGenesisBlock = (epochLength: number): number => Math.ceil(HUB_GENESIS_BLOCK / epochLength) * epochLength

export type AgentKind = "rebalancer" | "solver" | "arbitrageur" | "liquidity"

export interface AgentPlan {
  /** `kind/population/index`, e.g. `rebalancer/users/3`. */
  readonly id: string
  readonly kind: AgentKind
  readonly population: string
  readonly index: number
  readonly account: DevAccount
  /**
   * Solvers only: the address their rebalancing intents pay (not funded with tokens, ETH for gas only). The hub
   * pays a recipient that registered repayment chains on the most liquid of them, whatever the intent's
   * destination (reference §3.5): paid to the solver itself, a rebalance would mostly land back where it left.
   * This address registers nothing, so the rebalance settles on the chain it was sent to; the solver then moves
   * the tokens into its inventory there.
   */
  readonly rebalanceReceiver?: DevAccount
}

export interface AssetOnChainPlan {
  readonly symbol: string
  readonly domain: number
  readonly address: Address
  readonly decimals: number
  readonly strategy: "default" | "xerc20"
}

export interface WorldPlan {
  readonly scenario: ScenarioSpec
  readonly hubDomain: number
  readonly hubBlockTimeSeconds: number
  /** Hub block number at time 0. */
  readonly hubGenesisBlock: number
  readonly genesisTimestamp: bigint
  readonly horizonSeconds: number
  readonly deployer: DevAccount
  readonly relayer: DevAccount
  readonly feeSigner: DevAccount
  readonly keeper: DevAccount
  /** Fee-vault owner of every ticker (protocol fees). */
  readonly treasury: DevAccount
  readonly agents: readonly AgentPlan[]
  /** Funded dev accounts nothing in the world signs with (`PlanOptions.userAccounts`), after the agents'. */
  readonly users: readonly DevAccount[]
  /** Dev accounts the chains must give ETH: the service's, the agents', the users', then the solvers' rebalance receivers. */
  readonly accountCount: number
  readonly spokes: SpokesConfig
  readonly layouts: ReadonlyMap<number, SpokeLayout>
  readonly hub: HubConfigInput
  /** `${symbol}:${domain}` → asset. */
  readonly assets: ReadonlyMap<string, AssetOnChainPlan>
  /** Token units (whole tokens × 10^decimals) minted to every account on every chain at deployment. */
  readonly fundingTokens: bigint
}

/** Whole tokens minted to every account at deployment (agents are limited by their scenario budgets, not this). */
const FUNDING_WHOLE_TOKENS = ACCOUNT_FUNDING_TOKENS

/** The hub's block time and epoch length of a scenario, defaults filled in. */
export const hubTiming = (scenario: ScenarioSpec): { readonly blockTimeSeconds: number; readonly epochLength: number } => ({
  blockTimeSeconds: scenario.hub?.blockTimeSeconds ?? 12,
  epochLength: scenario.hub?.epochLength ?? 40,
})

/** A chain's block time as the world mines it: whole seconds, at least 1 (default 2); its first block one block time after the start. */
export const chainBlockSeconds = (chain: { readonly blockTimeSeconds?: number | undefined }): number => Math.max(1, Math.round(chain.blockTimeSeconds ?? 2))

/** The virtual seconds a scenario's horizon covers. */
export const horizonSeconds = (scenario: ScenarioSpec): number => {
  const h = scenario.horizon
  if ("seconds" in h) return h.seconds
  if ("hours" in h) return h.hours * 3600
  const { blockTimeSeconds, epochLength } = hubTiming(scenario)
  return h.epochs * epochLength * blockTimeSeconds
}

export interface PlanOptions {
  /** Chain and hub time at virtual time 0, unix seconds. @default GENESIS_TIMESTAMP */
  readonly genesisTimestamp?: bigint
  /**
   * Dev accounts after the agents' that nothing in the world uses, funded like the agents (tokens on every chain):
   * for users of a live devnet. @default 0
   */
  readonly userAccounts?: number
}

export const planWorld = (scenario: ScenarioSpec, options: PlanOptions = {}): WorldPlan => {
  const genesisTimestamp = options.genesisTimestamp ?? GENESIS_TIMESTAMP
  const hubDomain = scenario.hub?.domain ?? 25327
  const { blockTimeSeconds: hubBlockTimeSeconds, epochLength } = hubTiming(scenario)
  const populations: { kind: AgentKind; name: string; count: number }[] = [
    ...(scenario.agents.rebalancers ?? []).map((p) => ({ kind: "rebalancer" as const, name: p.name, count: p.count })),
    ...(scenario.agents.solvers ?? []).map((p) => ({ kind: "solver" as const, name: p.name, count: p.count })),
    ...(scenario.agents.arbitrageurs ?? []).map((p) => ({ kind: "arbitrageur" as const, name: p.name, count: p.count })),
  ]
  if ((scenario.initialLiquidity ?? []).length > 0) populations.push({ kind: "liquidity", name: "initial", count: 1 })
  const SERVICE_ACCOUNTS = 5
  const userAccounts = options.userAccounts ?? 0
  const total = SERVICE_ACCOUNTS + populations.reduce((n, p) => n + p.count, 0)
  // The solvers' rebalance receivers come last, so that no other account moves when a scenario gains solvers.
  const solverCount = populations.filter((p) => p.kind === "solver").reduce((n, p) => n + p.count, 0)
  const accountCount = total + userAccounts + solverCount
  const accounts = deriveDevAccounts(TEST_MNEMONIC, accountCount)
  const users = accounts.slice(total, total + userAccounts)
  let nextReceiver = total + userAccounts
  const [deployer, relayer, feeSigner, keeper, treasury] = accounts as [DevAccount, DevAccount, DevAccount, DevAccount, DevAccount]
  let next = SERVICE_ACCOUNTS
  const agents: AgentPlan[] = []
  for (const p of populations) {
    for (let i = 0; i < p.count; i++) {
      const agent: AgentPlan = { id: `${p.kind}/${p.name}/${i}`, kind: p.kind, population: p.name, index: i, account: accounts[next++]! }
      agents.push(p.kind === "solver" ? { ...agent, rebalanceReceiver: accounts[nextReceiver++]! } : agent)
    }
  }

  const chains: SpokeChainConfig[] = scenario.chains.map((chain) => {
    const tokens: TokenSpec[] = []
    for (const asset of scenario.assets) {
      const on = asset.chains.find((c) => c.chain === chain.id)
      if (on === undefined) continue
      const xerc20 = on.strategy === "xerc20"
      tokens.push({
        symbol: asset.symbol,
        decimals: on.decimals,
        kind: xerc20 ? "xerc20" : "erc20",
        ...(xerc20 && on.mintLimit !== undefined ? { mintingLimit: tokensToUnits(on.mintLimit, on.decimals) } : {}),
        ...(xerc20 && on.burnLimit !== undefined ? { burningLimit: tokensToUnits(on.burnLimit, on.decimals) } : {}),
      })
    }
    return {
      domain: chain.id,
      deployer: deployer.address,
      relayer: relayer.address,
      feeSigner: feeSigner.address,
      feeRecipient: treasury.address,
      lighthouse: keeper.address,
      watchtower: keeper.address,
      tokens,
      funding: { accounts: [keeper.address, ...agents.map((a) => a.account.address), ...users.map((u) => u.address)], amount: FUNDING_WHOLE_TOKENS },
    }
  })
  const spokes: SpokesConfig = { hubDomain, genesisTimestamp, chains }
  const layouts = new Map(chains.map((c) => [c.domain, planSpokeLayout(hubDomain, c)] as const))
  const assets = new Map<string, AssetOnChainPlan>()
  for (const asset of scenario.assets) {
    for (const on of asset.chains) {
      const token = layouts.get(on.chain)!.addresses.tokens[asset.symbol]!
      assets.set(`${asset.symbol}:${on.chain}`, { symbol: asset.symbol, domain: on.chain, address: token.address, decimals: on.decimals, strategy: on.strategy ?? "default" })
    }
  }
  const hub: HubConfigInput = {
    hubDomain,
    epochLength,
    expiryTimeBuffer: scenario.hub?.expiryTimeBufferSeconds ?? 43_200,
    discountExemptEpochs: scenario.hub?.discountExemptEpochs ?? 0,
    userMaxDiscount: scenario.hub?.userMaxDiscount ?? true,
    minSolverSupportedDomains: scenario.hub?.minSolverSupportedDomains ?? HUB_DEFAULTS.minSolverSupportedDomains,
    ...(scenario.hub?.domainGasLimit === undefined ? {} : { domainGasLimit: scenario.hub.domainGasLimit }),
    supportedDomains: scenario.chains.map((c) => c.id),
    tickers: scenario.assets.map((asset) => ({
      symbol: asset.symbol,
      discountPerEpoch: asset.discountPerEpochDbps ?? 3,
      maxDiscountDbps: asset.maxDiscountDbps ?? 12,
      prioritizedStrategy: asset.prioritizedStrategy ?? "default",
      fees: [{ recipient: addressToBytes32(treasury.address), fee: asset.protocolFeeDbps ?? 2 }],
      domains: asset.chains.map((on) => ({
        domain: on.chain,
        asset: assets.get(`${asset.symbol}:${on.chain}`)!.address,
        decimals: on.decimals,
        strategy: on.strategy ?? "default",
      })),
    })),
  }
  return {
    scenario,
    hubDomain,
    hubBlockTimeSeconds,
    hubGenesisBlock: hubGenesisBlock(epochLength),
    genesisTimestamp,
    horizonSeconds: horizonSeconds(scenario),
    deployer,
    relayer,
    feeSigner,
    keeper,
    treasury,
    agents,
    users,
    accountCount,
    spokes,
    layouts,
    hub,
    assets,
    fundingTokens: FUNDING_WHOLE_TOKENS,
  }
}
