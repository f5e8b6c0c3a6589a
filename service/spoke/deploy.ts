/**
 * Deploys one spoke domain (tokens, XERC20 module, spoke, gateway, fee adapter) on an EVM chain and wires its roles,
 * after installing Permit2's code at its canonical address with `anvil_setCode` (so the chain must be an anvil).
 *
 * Transactions are sent back to back with explicit nonces, gas limits and fees (no estimation round trips), and the
 * receipts are awaited at the end. Addresses that the constructors need from each other are predicted from the
 * deployer's nonces, so the whole deployment is one pass. With automine off, pass `mine`: it is called after each
 * transaction (anvil drops a pending transaction that does not fit in the block being mined, so a batch of
 * transactions cannot be left to one `mine`).
 */
import type { Abi, Account, Address, BaseError, Chain, Hash, PublicClient, Transport, WalletClient } from "viem"
import { getContractAddress } from "viem/utils"
import { MAX_XERC20_LIMIT, Strategy } from "../domain/protocol.ts"
import { type Artifacts, type ContractName, loadArtifacts, type SolidityCompileError } from "./build.ts"
import { installPermit2, PERMIT2_ADDRESS } from "./permit2.ts"

export type TokenKind = "erc20" | "blacklist" | "xerc20"

export interface TokenSpec {
  readonly symbol: string
  /** Default: the symbol. */
  readonly name?: string
  readonly decimals: number
  /** `erc20` (TestERC20, default), `blacklist` (BlacklistERC20) or `xerc20` (XERC20Token, XERC20 strategy). */
  readonly kind?: TokenKind
  /** xerc20 only: the module's minting limit in token units, at most `MAX_XERC20_LIMIT`. Default `10n ** 30n`. */
  readonly mintingLimit?: bigint
  /** xerc20 only: the module's burning limit in token units, at most `MAX_XERC20_LIMIT`. Default `10n ** 30n`. */
  readonly burningLimit?: bigint
}

export { MAX_XERC20_LIMIT }

/** A token spec whose xERC20 limit `XERC20Token.setLimits` would refuse (`XERC20Token_LimitsTooHigh`). */
export class XERC20LimitTooHighError extends Error {
  override readonly name = "XERC20LimitTooHighError"
  readonly symbol: string
  readonly limit: "mintingLimit" | "burningLimit"
  readonly value: bigint
  constructor(symbol: string, limit: "mintingLimit" | "burningLimit", value: bigint) {
    super(`Token ${symbol}: ${limit} ${value} is above the xERC20 maximum type(uint256).max / 2 (${MAX_XERC20_LIMIT}); XERC20Token.setLimits would revert with XERC20Token_LimitsTooHigh.`)
    this.symbol = symbol
    this.limit = limit
    this.value = value
  }
}

/** Throws `XERC20LimitTooHighError` for an xERC20 spec whose limits `setLimits` refuses. */
export const checkXERC20Limits = (spec: TokenSpec): void => {
  if ((spec.kind ?? "erc20") !== "xerc20") return
  for (const limit of ["mintingLimit", "burningLimit"] as const) {
    const value = spec[limit]
    if (value !== undefined && value > MAX_XERC20_LIMIT) throw new XERC20LimitTooHighError(spec.symbol, limit, value)
  }
}

export interface GatewayFees {
  readonly baseFee: bigint
  readonly feePerByte: bigint
}

/** Small non-zero transport fees: 1e9 wei per message plus 1e6 wei per byte. */
export const DEFAULT_GATEWAY_FEES: GatewayFees = { baseFee: 1_000_000_000n, feePerByte: 1_000_000n }
export const DEFAULT_XERC20_LIMIT = 10n ** 30n

/** The roles, tokens, fees and funding of one spoke domain (shared by deployments and planned layouts). */
export interface SpokeSettings {
  /** The transport relayer, the only address allowed to deliver hub messages to the gateway. */
  readonly relayer: Address
  readonly feeSigner: Address
  /** Default: the deployer. */
  readonly feeRecipient?: Address
  /** Default: the deployer. */
  readonly lighthouse?: Address
  /** Default: the deployer. */
  readonly watchtower?: Address
  readonly tokens?: readonly TokenSpec[]
  /** Default `DEFAULT_GATEWAY_FEES`. */
  readonly gatewayFees?: GatewayFees
  /** Mints `amount` whole tokens (scaled by each token's decimals) of every token to every account at deployment. */
  readonly funding?: { readonly accounts: readonly Address[]; readonly amount: bigint }
}

export interface DeploySpokeParameters extends SpokeSettings {
  readonly publicClient: PublicClient
  /** The deployer; it becomes the owner of every contract. */
  readonly walletClient: WalletClient<Transport, Chain, Account>
  readonly hubDomain: number
  /** Default: `loadArtifacts()`. */
  readonly artifacts?: Artifacts
  /** For automine off: mines one block; called after each transaction is sent. */
  readonly mine?: () => Promise<unknown>
  /** Receipt polling interval in ms. Default 20. */
  readonly pollingInterval?: number
}

export interface TokenDeployment {
  readonly symbol: string
  readonly name: string
  readonly decimals: number
  readonly kind: TokenKind
  readonly strategy: Strategy
  readonly address: Address
}

export interface SpokeDeployment {
  readonly chainId: number
  /** The spoke's domain (= chain id). */
  readonly domain: number
  readonly hubDomain: number
  readonly deployer: Address
  readonly spoke: Address
  readonly gateway: Address
  readonly feeAdapter: Address
  readonly xerc20Module: Address
  /** Permit2 at its canonical address (installed with `anvil_setCode`). */
  readonly permit2: Address
  readonly relayer: Address
  readonly feeSigner: Address
  readonly feeRecipient: Address
  readonly lighthouse: Address
  readonly watchtower: Address
  /** By symbol, in the order given. */
  readonly tokens: Readonly<Record<string, TokenDeployment>>
  /** Number of the block holding the last deployment transaction. */
  readonly blockNumber: bigint
}

export type DeploySpokeReturnType = SpokeDeployment
/** A reverted step, a compile error of the contracts, or viem's error for a failed RPC call. */
export type DeploySpokeErrorType = SpokeDeploymentError | XERC20LimitTooHighError | SolidityCompileError | BaseError

/** Raised when a deployment transaction reverts; `step` says which one. */
export class SpokeDeploymentError extends Error {
  override readonly name = "SpokeDeploymentError"
  readonly step: string
  readonly transactionHash: Hash
  constructor(step: string, transactionHash: Hash) {
    super(`Spoke deployment step "${step}" reverted (transaction ${transactionHash}).`)
    this.step = step
    this.transactionHash = transactionHash
  }
}

/** Gas limits of the wiring calls, measured with a margin (no estimation round trips). */
const CALL_GAS = { setStrategyForAsset: 100_000n, setLimits: 300_000n, mint: 150_000n } as const
/** One funding mint: `amount` units of `token` to `account`, by the token's own mint function. */
export interface FundingMint {
  readonly account: Address
  readonly token: TokenDeployment
  readonly amount: bigint
  readonly abi: Abi
  readonly functionName: "mint" | "ownerMint"
  readonly gas: bigint
}

/**
 * The funding mints of a deployment, in the order `deploySpoke` sends them (account by account, every token):
 * `funding.amount` whole tokens each (an xERC20 by `ownerMint`, another token by `mint`). Also for a deployment that
 * sends them many to a block (service/spoke/anvil/deploy.ts, `fundingPerBlock`).
 */
export const fundingMints = (
  funding: { readonly accounts: readonly Address[]; readonly amount: bigint } | undefined,
  tokens: Readonly<Record<string, TokenDeployment>>,
  artifacts: Artifacts,
): FundingMint[] =>
  (funding?.accounts ?? []).flatMap((account) =>
    Object.values(tokens).map((token) => ({
      account,
      token,
      amount: funding!.amount * 10n ** BigInt(token.decimals),
      ...(token.kind === "xerc20" ? { abi: artifacts.XERC20Token.abi as Abi, functionName: "ownerMint" as const } : { abi: artifacts.TestERC20.abi as Abi, functionName: "mint" as const }),
      gas: CALL_GAS.mint,
    })),
  )

/** Intrinsic + calldata + code deposit + a margin for constructor storage writes. */
const deployGas = (bytecode: string, deployedBytecode: string): bigint => {
  const creationBytes = BigInt((bytecode.length - 2) / 2)
  const deployedBytes = BigInt((deployedBytecode.length - 2) / 2)
  return 53_000n + 16n * creationBytes + 200n * deployedBytes + 600_000n
}

const TOKEN_CONTRACT: Record<TokenKind, ContractName> = {
  erc20: "TestERC20",
  blacklist: "BlacklistERC20",
  xerc20: "XERC20Token",
}

/** Sends transactions with consecutive nonces without waiting, then waits for all receipts. */
class TransactionPipeline {
  private readonly sent: { readonly step: string; readonly hash: Hash }[] = []

  private readonly walletClient: WalletClient<Transport, Chain, Account>
  private readonly artifacts: Artifacts
  private nonce: number
  private readonly fees: { readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint }
  private readonly mine: (() => Promise<unknown>) | undefined
  constructor(
    walletClient: WalletClient<Transport, Chain, Account>,
    artifacts: Artifacts,
    nonce: number,
    fees: { readonly maxFeePerGas: bigint; readonly maxPriorityFeePerGas: bigint },
    mine: (() => Promise<unknown>) | undefined,
  ) {
    this.walletClient = walletClient
    this.artifacts = artifacts
    this.nonce = nonce
    this.fees = fees
    this.mine = mine
  }

  /** The address of the contract deployed `offset` transactions from now. */
  predict(offset: number): Address {
    return getContractAddress({ from: this.walletClient.account.address, nonce: BigInt(this.nonce + offset) })
  }

  async deploy(step: string, name: ContractName, args: readonly unknown[]): Promise<Address> {
    const artifact = this.artifacts[name]
    const address = this.predict(0)
    const hash = await this.walletClient.deployContract({
      abi: artifact.abi,
      bytecode: artifact.bytecode,
      args,
      nonce: this.nonce++,
      gas: deployGas(artifact.bytecode, artifact.deployedBytecode),
      ...this.fees,
    } as unknown as Parameters<WalletClient<Transport, Chain, Account>["deployContract"]>[0])
    await this.record(step, hash)
    return address
  }

  async call(step: string, address: Address, abi: Abi, functionName: string, args: readonly unknown[], gas: bigint): Promise<void> {
    const hash = await this.walletClient.writeContract({
      address,
      abi,
      functionName,
      args,
      nonce: this.nonce++,
      gas,
      ...this.fees,
    } as unknown as Parameters<WalletClient<Transport, Chain, Account>["writeContract"]>[0])
    await this.record(step, hash)
  }

  private async record(step: string, hash: Hash): Promise<void> {
    this.sent.push({ step, hash })
    await this.mine?.()
  }

  async finish(publicClient: PublicClient, pollingInterval: number): Promise<bigint> {
    let blockNumber = 0n
    for (const { step, hash } of this.sent) {
      const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval })
      if (receipt.status !== "success") throw new SpokeDeploymentError(step, hash)
      if (receipt.blockNumber > blockNumber) blockNumber = receipt.blockNumber
    }
    return blockNumber
  }
}

/** Deploys and wires one spoke domain; see `DeploySpokeParameters` for the defaults. */
export const deploySpoke = async (parameters: DeploySpokeParameters): Promise<DeploySpokeReturnType> => {
  const { publicClient, walletClient, hubDomain, relayer, feeSigner } = parameters
  const artifacts = parameters.artifacts ?? (await loadArtifacts())
  const deployer = walletClient.account.address
  const feeRecipient = parameters.feeRecipient ?? deployer
  const lighthouse = parameters.lighthouse ?? deployer
  const watchtower = parameters.watchtower ?? deployer
  const gatewayFees = parameters.gatewayFees ?? DEFAULT_GATEWAY_FEES
  const specs = parameters.tokens ?? []
  for (const spec of specs) checkXERC20Limits(spec)

  const [chainId, nonce, fees] = await Promise.all([
    publicClient.getChainId(),
    publicClient.getTransactionCount({ address: deployer, blockTag: "pending" }),
    publicClient.estimateFeesPerGas(),
  ])
  // Permit2's code at its canonical address (no transaction, no nonce): the spoke and the fee adapter call it there.
  await installPermit2(publicClient, artifacts)
  // Fees are read once; twice the current max fee leaves room for the base fee to rise during the deployment.
  const pipeline = new TransactionPipeline(walletClient, artifacts, nonce, {
    maxFeePerGas: fees.maxFeePerGas * 2n,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
  }, parameters.mine)

  const tokens: Record<string, TokenDeployment> = {}
  for (const spec of specs) {
    if (tokens[spec.symbol] !== undefined) throw new Error(`token symbol ${spec.symbol} is given twice`)
    const kind = spec.kind ?? "erc20"
    const name = spec.name ?? spec.symbol
    const address = await pipeline.deploy(`deploy token ${spec.symbol}`, TOKEN_CONTRACT[kind], [name, spec.symbol, spec.decimals])
    const strategy = kind === "xerc20" ? Strategy.XERC20 : Strategy.DEFAULT
    tokens[spec.symbol] = { symbol: spec.symbol, name, decimals: spec.decimals, kind, strategy, address }
  }

  // Gateway, module, spoke, fee adapter: consecutive nonces, so each can be given the others' addresses.
  const gatewayAddress = pipeline.predict(0)
  const moduleAddress = pipeline.predict(1)
  const spokeAddress = pipeline.predict(2)
  await pipeline.deploy("deploy SpokeGateway", "SpokeGateway", [
    deployer,
    spokeAddress,
    relayer,
    hubDomain,
    gatewayFees.baseFee,
    gatewayFees.feePerByte,
  ])
  await pipeline.deploy("deploy XERC20Module", "XERC20Module", [spokeAddress])
  await pipeline.deploy("deploy ClearingSpoke", "ClearingSpoke", [
    deployer,
    hubDomain,
    gatewayAddress,
    lighthouse,
    watchtower,
    moduleAddress,
  ])
  const feeAdapter = await pipeline.deploy("deploy FeeAdapter", "FeeAdapter", [
    spokeAddress,
    feeRecipient,
    feeSigner,
    moduleAddress,
    deployer,
  ])

  for (const token of Object.values(tokens)) {
    if (token.kind !== "xerc20") continue
    const spec = specs.find((s) => s.symbol === token.symbol)
    await pipeline.call(
      `set XERC20 strategy for ${token.symbol}`,
      spokeAddress,
      artifacts.ClearingSpoke.abi,
      "setStrategyForAsset",
      [token.address, Strategy.XERC20],
      CALL_GAS.setStrategyForAsset,
    )
    await pipeline.call(
      `set module limits on ${token.symbol}`,
      token.address,
      artifacts.XERC20Token.abi,
      "setLimits",
      [moduleAddress, spec?.mintingLimit ?? DEFAULT_XERC20_LIMIT, spec?.burningLimit ?? DEFAULT_XERC20_LIMIT],
      CALL_GAS.setLimits,
    )
  }

  for (const mint of fundingMints(parameters.funding, tokens, artifacts)) {
    await pipeline.call(`fund ${mint.account} with ${mint.token.symbol}`, mint.token.address, mint.abi, mint.functionName, [mint.account, mint.amount], mint.gas)
  }

  const blockNumber = await pipeline.finish(publicClient, parameters.pollingInterval ?? 20)
  return {
    chainId,
    domain: chainId,
    hubDomain,
    deployer,
    spoke: spokeAddress,
    gateway: gatewayAddress,
    feeAdapter,
    xerc20Module: moduleAddress,
    permit2: PERMIT2_ADDRESS,
    relayer,
    feeSigner,
    feeRecipient,
    lighthouse,
    watchtower,
    tokens,
    blockNumber,
  }
}
