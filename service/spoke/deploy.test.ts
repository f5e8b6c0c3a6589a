/**
 * deploySpoke on an anvil with automine off and a small block gas limit (as a chain pool may run it): every
 * transaction is mined through the `mine` callback, every role is wired; a reverting step is named in the error.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Address, maxUint256 } from "viem"
import { Strategy } from "../domain/protocol.ts"
import { ClearingSpokeAbi, FeeAdapterAbi, SpokeGatewayAbi, TestERC20Abi, XERC20ModuleAbi, XERC20TokenAbi } from "./abi.ts"
import { DEFAULT_GATEWAY_FEES, DEFAULT_XERC20_LIMIT, deploySpoke, type DeploySpokeParameters, SpokeDeploymentError } from "./deploy.ts"
import { startTestChain, type TestChain } from "./test/anvil.ts"

let chain: TestChain
let mineCalls = 0

beforeAll(async () => {
  chain = await startTestChain({ k: 1, chainId: 4_242, automine: false, blockGasLimit: 5_000_000n })
})

afterAll(async () => {
  await chain?.stop()
})

const parameters = (): DeploySpokeParameters => ({
  publicClient: chain.publicClient,
  walletClient: chain.wallet(0),
  hubDomain: 25_327,
  relayer: chain.accounts[1]!,
  feeSigner: chain.accounts[2]!,
  tokens: [
    { symbol: "USDC", decimals: 6 },
    { symbol: "XT", decimals: 18, kind: "xerc20" },
  ],
  funding: { accounts: [chain.accounts[3]!, chain.accounts[4]!], amount: 1_000n },
  mine: () => {
    mineCalls++
    return chain.testClient.mine({ blocks: 1 })
  },
})

describe("deploySpoke", () => {
  it("deploys and wires one spoke domain with automine off", async () => {
    const deployment = await deploySpoke(parameters())
    expect(mineCalls).toBe(12) // one block per transaction: 2 tokens, 4 contracts, 2 xERC20 wiring calls, 4 mints
    const read = chain.publicClient.readContract
    const spoke = { address: deployment.spoke, abi: ClearingSpokeAbi } as const
    const gateway = { address: deployment.gateway, abi: SpokeGatewayAbi } as const
    const adapter = { address: deployment.feeAdapter, abi: FeeAdapterAbi } as const
    const deployer = chain.accounts[0]!
    expect(deployment).toMatchObject({ chainId: 4_242, domain: 4_242, hubDomain: 25_327, deployer, feeRecipient: deployer, lighthouse: deployer, watchtower: deployer })
    expect(await read({ ...spoke, functionName: "DOMAIN" })).toBe(4_242)
    expect(await read({ ...spoke, functionName: "gateway" })).toBe(deployment.gateway)
    expect(await read({ ...spoke, functionName: "hubDomain" })).toBe(25_327)
    expect(await read({ ...spoke, functionName: "modules", args: [Strategy.XERC20] })).toBe(deployment.xerc20Module)
    expect(await read({ ...spoke, functionName: "strategies", args: [deployment.tokens.XT!.address] })).toBe(Strategy.XERC20)
    expect(await read({ ...spoke, functionName: "strategies", args: [deployment.tokens.USDC!.address] })).toBe(Strategy.DEFAULT)
    expect(await read({ ...gateway, functionName: "spoke" })).toBe(deployment.spoke)
    expect(await read({ ...gateway, functionName: "relayer" })).toBe(chain.accounts[1])
    expect(await read({ ...gateway, functionName: "hubDomain" })).toBe(25_327)
    expect(await read({ ...gateway, functionName: "baseFee" })).toBe(DEFAULT_GATEWAY_FEES.baseFee)
    expect(await read({ address: deployment.xerc20Module, abi: XERC20ModuleAbi, functionName: "spoke" })).toBe(deployment.spoke)
    expect(await read({ ...adapter, functionName: "spoke" })).toBe(deployment.spoke)
    expect(await read({ ...adapter, functionName: "xerc20Module" })).toBe(deployment.xerc20Module)
    expect(await read({ ...adapter, functionName: "feeSigner" })).toBe(chain.accounts[2])
    expect(await read({ ...adapter, functionName: "owner" })).toBe(deployer)
    const xt = { address: deployment.tokens.XT!.address, abi: XERC20TokenAbi } as const
    expect(await read({ ...xt, functionName: "mintingMaxLimitOf", args: [deployment.xerc20Module] })).toBe(DEFAULT_XERC20_LIMIT)
    expect(await read({ ...xt, functionName: "burningCurrentLimitOf", args: [deployment.xerc20Module] })).toBe(DEFAULT_XERC20_LIMIT)
    const usdc = { address: deployment.tokens.USDC!.address, abi: TestERC20Abi } as const
    expect(await read({ ...usdc, functionName: "decimals" })).toBe(6)
    expect(await read({ ...usdc, functionName: "symbol" })).toBe("USDC")
    for (const account of [chain.accounts[3]!, chain.accounts[4]!] as Address[]) {
      expect(await read({ ...usdc, functionName: "balanceOf", args: [account] })).toBe(1_000_000_000n)
      expect(await read({ ...xt, functionName: "balanceOf", args: [account] })).toBe(1_000n * 10n ** 18n)
    }
    expect(deployment.blockNumber).toBe(await chain.publicClient.getBlockNumber())
  })

  it("deploys again on the same chain at new addresses, and names a reverting step", async () => {
    const first = await deploySpoke(parameters())
    const second = await deploySpoke(parameters())
    expect(second.spoke).not.toBe(first.spoke)
    // The second mint of 2^255 tokens overflows the total supply.
    const overflow = deploySpoke({ ...parameters(), tokens: [{ symbol: "BIG", decimals: 0 }], funding: { accounts: [chain.accounts[3]!, chain.accounts[4]!], amount: maxUint256 / 2n + 1n } })
    const error = await overflow.catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SpokeDeploymentError)
    expect((error as SpokeDeploymentError).step).toBe(`fund ${chain.accounts[4]} with BIG`)
  })
})
