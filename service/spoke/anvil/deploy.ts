/**
 * Deploys the spoke contracts on every chain of a `ChainPool` with `deploySpoke` (plus the optional
 * `TestCallTarget`), one transaction per block at the genesis timestamp (funding mints many to a block if asked,
 * `DeployAnvilSpokesOptions`), and checks that the result is exactly the
 * planned layout, so that the memory backend's addresses, intent ids and block numbers match.
 */
import { type Chain as ViemChain, createWalletClient, encodeFunctionData, http, type WalletClient, type Transport, type Account } from "viem"
import { type Chain, type ChainPool, createSender, requireSuccess } from "../../../sim/chains/index.ts"
import { type Artifacts, loadArtifacts } from "../build.ts"
import { deploySpoke, fundingMints } from "../deploy.ts"
import { planSpokeLayout, type SpokeChainConfig, type SpokeLayout, type SpokesConfig } from "../layout.ts"
import { AnvilSpokeChain, type AnvilSpokeChainOptions, UnknownSenderError } from "./chain.ts"

/** The deployed contracts are not where the layout put them (the chain was not fresh, or the deployer differs). */
export class SpokeLayoutMismatchError extends Error {
  override readonly name = "SpokeLayoutMismatchError"
  readonly domain: number
  readonly what: string
  readonly expected: string
  readonly actual: string
  constructor(domain: number, what: string, expected: string, actual: string) {
    super(`Domain ${domain}: ${what} is ${actual}, the layout expects ${expected}. Deploy on a fresh chain with the configured deployer nonce.`)
    this.domain = domain
    this.what = what
    this.expected = expected
    this.actual = actual
  }
}

const check = (domain: number, what: string, expected: string, actual: string): void => {
  if (expected.toLowerCase() !== actual.toLowerCase()) throw new SpokeLayoutMismatchError(domain, what, expected, actual)
}

const TEST_CALL_TARGET_GAS = 1_000_000n

/** How a domain's deployment is laid out in blocks. */
export interface DeployAnvilSpokesOptions {
  /**
   * Funding mints per block. 1 (the default) is the layout's: one transaction per block, the head at the layout's
   * `deploymentBlocks`, which the memory twin mirrors (cross-backend trace hashes depend on it). More sends the
   * mints after the contracts, that many to a block (at the genesis timestamp, with the same deployer nonces: every
   * address is the layout's), and the head ends lower: for a chain no memory twin mirrors (`clearsim up`), where
   * funding hundreds of accounts one block each took minutes.
   */
  readonly fundingPerBlock?: number
}

/** Deploys one domain on `chain` and returns its `AnvilSpokeChain`. */
export const deployAnvilSpokeChain = async (
  chain: Chain,
  hubDomain: number,
  genesisTimestamp: bigint,
  config: SpokeChainConfig,
  artifacts: Artifacts,
  options: AnvilSpokeChainOptions = {},
  deployOptions: DeployAnvilSpokesOptions = {},
): Promise<AnvilSpokeChain> => {
  const layout: SpokeLayout = planSpokeLayout(hubDomain, config)
  const fundingPerBlock = deployOptions.fundingPerBlock ?? 1
  if (!Number.isSafeInteger(fundingPerBlock) || fundingPerBlock < 1) throw new RangeError(`fundingPerBlock: expected a positive integer, got ${fundingPerBlock}`)
  const batchedFunding = layout.funding !== undefined && fundingPerBlock > 1 ? layout.funding : undefined
  if (chain.chainId !== config.domain) throw new SpokeLayoutMismatchError(config.domain, "the chain id", String(config.domain), String(chain.chainId))
  const deployerAccount = chain.accounts.find((account) => account.address.toLowerCase() === layout.deployer)
  if (deployerAccount === undefined) throw new UnknownSenderError(config.domain, layout.deployer)
  // Check before sending anything: the layout assumes the deployer's nonce, and deployment blocks at genesis time.
  const [nonce, head] = await Promise.all([
    chain.publicClient.getTransactionCount({ address: deployerAccount.address, blockTag: "pending" }),
    chain.latestBlock(),
  ])
  check(config.domain, "the deployer's nonce", String(config.deployerNonce ?? 0), String(nonce))
  if (head.timestamp > genesisTimestamp) {
    throw new SpokeLayoutMismatchError(config.domain, "the head block's timestamp", `at most ${genesisTimestamp}`, String(head.timestamp))
  }
  const walletClient = createWalletClient({ chain: chain.viemChain, transport: http(chain.rpcUrl), account: deployerAccount })
  const deployment = await deploySpoke({
    publicClient: chain.publicClient as never,
    walletClient: walletClient as unknown as WalletClient<Transport, ViemChain, Account>,
    hubDomain,
    relayer: layout.relayer,
    feeSigner: layout.feeSigner,
    feeRecipient: layout.feeRecipient,
    lighthouse: layout.lighthouse,
    watchtower: layout.watchtower,
    tokens: config.tokens ?? [],
    gatewayFees: layout.gatewayFees,
    ...(layout.funding === undefined || batchedFunding !== undefined ? {} : { funding: layout.funding }),
    artifacts,
    mine: () => chain.mine(genesisTimestamp),
    pollingInterval: 5,
  })
  const { addresses } = layout
  check(config.domain, "the spoke", addresses.spoke, deployment.spoke)
  check(config.domain, "the gateway", addresses.gateway, deployment.gateway)
  check(config.domain, "the fee adapter", addresses.feeAdapter, deployment.feeAdapter)
  check(config.domain, "the xERC20 module", addresses.xerc20Module, deployment.xerc20Module)
  check(config.domain, "Permit2", addresses.permit2, deployment.permit2)
  for (const token of Object.values(addresses.tokens)) {
    check(config.domain, `token ${token.symbol}`, token.address, deployment.tokens[token.symbol]?.address ?? "none")
  }
  let deploymentBlocks = layout.deploymentBlocks
  if (batchedFunding !== undefined) {
    // The mints `deploySpoke` would send (`fundingMints`: its order, amounts and gas), many to a block.
    const sender = createSender(chain)
    const mints = fundingMints(batchedFunding, deployment.tokens, artifacts)
    for (let from = 0; from < mints.length; from += fundingPerBlock) {
      for (const mint of mints.slice(from, from + fundingPerBlock)) {
        sender.queue({ from: deployerAccount, to: mint.token.address, data: encodeFunctionData({ abi: mint.abi, functionName: mint.functionName, args: [mint.account, mint.amount] }), gas: mint.gas, abi: mint.abi })
      }
      requireSuccess(await sender.flush(genesisTimestamp))
    }
    deploymentBlocks += Math.ceil(mints.length / fundingPerBlock) - mints.length
  }
  if (addresses.callTarget !== undefined) {
    const sender = createSender(chain)
    sender.queue({ from: deployerAccount, data: artifacts.TestCallTarget.bytecode, gas: TEST_CALL_TARGET_GAS })
    const [created] = requireSuccess(await sender.flush(genesisTimestamp))
    check(config.domain, "the call target", addresses.callTarget, created?.contractAddress ?? "none")
  }
  const deployed = await chain.latestBlock()
  check(config.domain, "the head block after deployment", String(deploymentBlocks), String(deployed.number))
  return new AnvilSpokeChain(chain, layout, { number: deployed.number, timestamp: deployed.timestamp }, options)
}

/** Deploys every configured domain on its chain of `pool` (chain id = domain), in parallel. */
export const deployAnvilSpokes = async (
  pool: ChainPool,
  config: SpokesConfig,
  options: AnvilSpokeChainOptions = {},
  deployOptions: DeployAnvilSpokesOptions = {},
): Promise<readonly AnvilSpokeChain[]> => {
  const artifacts = await loadArtifacts()
  return Promise.all(
    config.chains.map((chainConfig) =>
      deployAnvilSpokeChain(pool.chain(chainConfig.domain), config.hubDomain, config.genesisTimestamp, chainConfig, artifacts, options, deployOptions),
    ),
  )
}
