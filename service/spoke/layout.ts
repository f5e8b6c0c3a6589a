/**
 * The deployment layout of a spoke domain, computed without a chain: the address of every contract and the number
 * of deployment transactions, exactly as `deploySpoke` produces them on a fresh chain (tokens first, then gateway,
 * module, spoke and fee adapter on consecutive deployer nonces, then the xERC20 wiring and the funding mints, one
 * transaction per block). The memory backend uses it to give its contracts the anvil addresses, so both backends
 * compute the same intent ids; the anvil backend checks that the real deployment matches it.
 */
import { getContractAddress } from "viem/utils"
import type { Address } from "../domain/hex.ts"
import { Strategy } from "../domain/protocol.ts"
import { PERMIT2_ADDRESS } from "./permit2.ts"
import { checkXERC20Limits, DEFAULT_GATEWAY_FEES, DEFAULT_XERC20_LIMIT, type GatewayFees, type SpokeSettings, type TokenKind } from "./deploy.ts"

/** One spoke domain of a run; both backends build it from the same description. */
export interface SpokeChainConfig extends SpokeSettings {
  /** The domain, equal to the chain id. */
  readonly domain: number
  /** Owner of every contract; on anvil a dev account of the pool. */
  readonly deployer: Address
  /** Deployer nonce before the deployment. Default 0 (a fresh chain). */
  readonly deployerNonce?: number
  /** Also deploy a `TestCallTarget` (a target for intent calldata in tests). Default false. */
  readonly callTarget?: boolean
}

export interface SpokesConfig {
  readonly hubDomain: number
  /** Timestamp of the deployment blocks, in seconds; the first mined block must not be earlier. */
  readonly genesisTimestamp: bigint
  readonly chains: readonly SpokeChainConfig[]
}

export interface TokenLayout {
  readonly symbol: string
  readonly name: string
  readonly decimals: number
  readonly kind: TokenKind
  readonly strategy: Strategy
  /** Lowercase. */
  readonly address: Address
  /** The module's limits set at deployment (xerc20 only; 0 otherwise). */
  readonly mintingLimit: bigint
  readonly burningLimit: bigint
}

/** Every address of a spoke domain, lowercase. */
export interface SpokeAddresses {
  readonly spoke: Address
  readonly gateway: Address
  readonly feeAdapter: Address
  readonly xerc20Module: Address
  /** Permit2, at its canonical address on every domain. */
  readonly permit2: Address
  /** Present when the config asks for a `TestCallTarget`. */
  readonly callTarget: Address | undefined
  /** By symbol, in configuration order. */
  readonly tokens: Readonly<Record<string, TokenLayout>>
}

export interface SpokeLayout {
  readonly domain: number
  readonly hubDomain: number
  readonly deployer: Address
  readonly relayer: Address
  readonly feeSigner: Address
  readonly feeRecipient: Address
  readonly lighthouse: Address
  readonly watchtower: Address
  readonly gatewayFees: GatewayFees
  readonly addresses: SpokeAddresses
  /** Deployment transactions, one block each: the head block number once the domain is deployed on a fresh chain. */
  readonly deploymentBlocks: number
  readonly funding: { readonly accounts: readonly Address[]; readonly amount: bigint } | undefined
}

const lower = (address: string): Address => address.toLowerCase() as Address

/** Computes the layout `deploySpoke` (plus the optional call target) gives a fresh chain. */
export const planSpokeLayout = (hubDomain: number, config: SpokeChainConfig): SpokeLayout => {
  const deployer = lower(config.deployer)
  const firstNonce = config.deployerNonce ?? 0
  const at = (offset: number): Address => lower(getContractAddress({ from: deployer, nonce: BigInt(firstNonce + offset) }))
  const specs = config.tokens ?? []
  const tokens: Record<string, TokenLayout> = {}
  specs.forEach((spec, i) => {
    if (tokens[spec.symbol] !== undefined) throw new Error(`token symbol ${spec.symbol} is given twice on domain ${config.domain}`)
    checkXERC20Limits(spec)
    const kind = spec.kind ?? "erc20"
    tokens[spec.symbol] = {
      symbol: spec.symbol,
      name: spec.name ?? spec.symbol,
      decimals: spec.decimals,
      kind,
      strategy: kind === "xerc20" ? Strategy.XERC20 : Strategy.DEFAULT,
      address: at(i),
      mintingLimit: kind === "xerc20" ? (spec.mintingLimit ?? DEFAULT_XERC20_LIMIT) : 0n,
      burningLimit: kind === "xerc20" ? (spec.burningLimit ?? DEFAULT_XERC20_LIMIT) : 0n,
    }
  })
  const k = specs.length
  const xerc20Count = specs.filter((spec) => spec.kind === "xerc20").length
  const fundingTransactions = (config.funding?.accounts.length ?? 0) * k
  const deploySpokeTransactions = k + 4 + 2 * xerc20Count + fundingTransactions
  const callTarget = config.callTarget === true ? at(deploySpokeTransactions) : undefined
  return {
    domain: config.domain,
    hubDomain,
    deployer,
    relayer: lower(config.relayer),
    feeSigner: lower(config.feeSigner),
    feeRecipient: lower(config.feeRecipient ?? deployer),
    lighthouse: lower(config.lighthouse ?? deployer),
    watchtower: lower(config.watchtower ?? deployer),
    gatewayFees: config.gatewayFees ?? DEFAULT_GATEWAY_FEES,
    addresses: {
      gateway: at(k),
      xerc20Module: at(k + 1),
      permit2: PERMIT2_ADDRESS,
      spoke: at(k + 2),
      feeAdapter: at(k + 3),
      callTarget,
      tokens,
    },
    deploymentBlocks: deploySpokeTransactions + (callTarget === undefined ? 0 : 1),
    funding:
      config.funding === undefined ? undefined : { accounts: config.funding.accounts.map(lower), amount: config.funding.amount },
  }
}

/** The token with this address, if the domain has one. */
export const tokenAt = (addresses: SpokeAddresses, address: string): TokenLayout | undefined => {
  const key = address.toLowerCase()
  for (const token of Object.values(addresses.tokens)) if (token.address === key) return token
  return undefined
}
