/**
 * One deployed spoke domain on this worker's anvil, reset to a snapshot before every test, plus the helpers the
 * contract tests share: revert assertions by custom error name, receipts, event parsing.
 */
import { afterAll, beforeAll, beforeEach, expect } from "vitest"
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  encodeAbiParameters,
  getAddress,
  maxUint256,
  type Hash,
  type Hex,
  parseEventLogs,
  type TransactionReceipt,
  zeroAddress,
} from "viem"
import { mnemonicToAccount } from "viem/accounts"
import { addressToBytes32 } from "../../domain/hex.ts"
import type { Intent } from "../../domain/protocol.ts"
import {
  BlacklistERC20Abi,
  ClearingSpokeAbi,
  ClearsimErrorsAbi,
  FeeAdapterAbi,
  Permit2Abi,
  SpokeGatewayAbi,
  TestCallTargetAbi,
  TestERC20Abi,
  XERC20ModuleAbi,
  XERC20TokenAbi,
} from "../abi.ts"
import { type Artifacts, loadArtifacts } from "../build.ts"
import { deploySpoke, type SpokeDeployment } from "../deploy.ts"
import { startTestChain, TEST_MNEMONIC, type TestChain } from "./anvil.ts"

/** Each contract's ABI plus every custom error, so errors bubbling up from a callee decode by name. */
export const abis = {
  spoke: [...ClearingSpokeAbi, ...ClearsimErrorsAbi],
  gateway: [...SpokeGatewayAbi, ...ClearsimErrorsAbi],
  feeAdapter: [...FeeAdapterAbi, ...ClearsimErrorsAbi],
  module: [...XERC20ModuleAbi, ...ClearsimErrorsAbi],
  xerc20: [...XERC20TokenAbi, ...ClearsimErrorsAbi],
  erc20: [...TestERC20Abi, ...ClearsimErrorsAbi],
  blacklist: [...BlacklistERC20Abi, ...ClearsimErrorsAbi],
  target: [...TestCallTargetAbi, ...ClearsimErrorsAbi],
  permit2: [...Permit2Abi, ...ClearsimErrorsAbi],
} as const

export const HUB_DOMAIN = 25_327
export const DESTINATION_DOMAIN = 10
export const SPOKE_CHAIN_ID = 31_337

/** Account indexes of the mnemonic. */
export const Role = {
  owner: 0,
  relayer: 1,
  feeSigner: 2,
  user: 3,
  solver: 4,
  other: 5,
  lighthouse: 6,
  watchtower: 7,
  feeRecipient: 8,
} as const

export const feeSignerAccount = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: Role.feeSigner })

/** Tokens of the fixture: decimals 6, 12, 18 and 24, a blacklisting token and an xERC20 with small limits. */
export const XT_MINT_LIMIT = 100n * 10n ** 18n
export const XT_BURN_LIMIT = 500n * 10n ** 18n
export const FIXTURE_TOKENS = [
  { symbol: "USDC", decimals: 6 },
  { symbol: "T12", decimals: 12 },
  { symbol: "WETH", decimals: 18 },
  { symbol: "T24", decimals: 24 },
  { symbol: "BLK", decimals: 6, kind: "blacklist" },
  { symbol: "XT", decimals: 18, kind: "xerc20", mintingLimit: XT_MINT_LIMIT, burningLimit: XT_BURN_LIMIT },
] as const
export type FixtureToken = (typeof FIXTURE_TOKENS)[number]["symbol"]

export interface SpokeFixture {
  readonly chain: TestChain
  readonly artifacts: Artifacts
  readonly deployment: SpokeDeployment
  readonly accounts: readonly Address[]
  readonly token: (symbol: FixtureToken) => Address
  readonly target: Address
}

/**
 * Starts the chain and deploys in beforeAll, runs `setup`, snapshots, and reverts to the snapshot before each test.
 * Returns a getter (the fixture exists only once beforeAll has run).
 */
export const useSpokeFixture = (setup?: (fixture: SpokeFixture) => Promise<void>): (() => SpokeFixture) => {
  let fixture: SpokeFixture | undefined
  let chain: TestChain | undefined
  let snapshot: Hex | undefined

  beforeAll(async () => {
    chain = await startTestChain({ chainId: SPOKE_CHAIN_ID })
    const artifacts = await loadArtifacts()
    const deployment = await deploySpoke({
      publicClient: chain.publicClient,
      walletClient: chain.wallet(Role.owner),
      hubDomain: HUB_DOMAIN,
      relayer: chain.accounts[Role.relayer]!,
      feeSigner: feeSignerAccount.address,
      feeRecipient: chain.accounts[Role.feeRecipient]!,
      lighthouse: chain.accounts[Role.lighthouse]!,
      watchtower: chain.accounts[Role.watchtower]!,
      tokens: FIXTURE_TOKENS,
      funding: { accounts: [chain.accounts[Role.user]!, chain.accounts[Role.solver]!, chain.accounts[Role.other]!], amount: 1_000_000n },
      artifacts,
    })
    const targetHash = await chain.wallet(Role.owner).deployContract({
      abi: TestCallTargetAbi,
      bytecode: artifacts.TestCallTarget.bytecode,
    })
    const targetReceipt = await chain.publicClient.waitForTransactionReceipt({ hash: targetHash })
    const target = getAddress(targetReceipt.contractAddress!)
    const token = (symbol: FixtureToken): Address => deployment.tokens[symbol]!.address
    fixture = { chain, artifacts, deployment, accounts: chain.accounts, token, target }
    await setup?.(fixture)
    snapshot = await chain.testClient.snapshot()
  })

  beforeEach(async () => {
    // A revert consumes the snapshot, so take a fresh one each time.
    await chain!.testClient.revert({ id: snapshot! })
    snapshot = await chain!.testClient.snapshot()
  })

  afterAll(async () => {
    await chain?.stop()
  })

  return () => {
    if (fixture === undefined) throw new Error("the spoke fixture is used before beforeAll ran")
    return fixture
  }
}

/** Waits for a transaction and fails the test when it reverted. */
export const mined = async (fixture: SpokeFixture, hash: Promise<Hash> | Hash): Promise<TransactionReceipt> => {
  const client = fixture.chain.publicClient
  const receipt = await client.waitForTransactionReceipt({ hash: await hash, pollingInterval: 10 })
  if (receipt.status === "success") return receipt
  // Say why: replay the call on the parent block, and show whether the gas limit ran out.
  const tx = await client.getTransaction({ hash: receipt.transactionHash })
  const replay = await client
    .call({ account: tx.from, to: tx.to, data: tx.input, value: tx.value, gas: tx.gas, blockNumber: receipt.blockNumber - 1n })
    .then(
      () => "the replay on the parent block succeeds",
      (error: unknown) => (error instanceof BaseError ? error.shortMessage : String(error)),
    )
  expect.fail(`transaction ${receipt.transactionHash} reverted (gas used ${receipt.gasUsed} of ${tx.gas}): ${replay}`)
}

/** Asserts that `call` reverts with the custom error `errorName` (and `args`, when given). */
export const expectRevert = async (call: Promise<unknown>, errorName: string, args?: readonly unknown[]): Promise<void> => {
  let error: unknown
  try {
    await call
  } catch (e) {
    error = e
  }
  if (error === undefined) throw new Error(`expected a revert with ${errorName}, but the call succeeded`)
  if (!(error instanceof BaseError)) throw error
  const revert = error.walk((e) => e instanceof ContractFunctionRevertedError)
  if (!(revert instanceof ContractFunctionRevertedError)) throw error
  expect(revert.data?.errorName, revert.shortMessage).toBe(errorName)
  if (args !== undefined) expect(revert.data?.args ?? []).toEqual(args)
}

/** viem's view of an intent, for calls that take an `Intent` tuple. */
export const intentArgs = (intent: Intent) => ({ ...intent, destinations: [...intent.destinations] })

/** Intent calldata: `abi.encode(address target, bytes callData)`. */
export const intentData = (target: Address, callData: Hex): Hex =>
  encodeAbiParameters([{ type: "address" }, { type: "bytes" }], [target, callData])

export const units = (amount: bigint, decimals: number): bigint => amount * 10n ** BigInt(decimals)

export interface NewIntentParameters {
  readonly destinations: readonly number[]
  readonly receiver: Address
  readonly inputAsset: Address
  readonly outputAsset: Address
  readonly amount: bigint
  readonly maxFee: number
  readonly ttl: number
  readonly data: Hex
}

/** A netting intent of 100 USDC from the user to `DESTINATION_DOMAIN`, with `overrides`. */
export const newIntentParameters = (fixture: SpokeFixture, overrides: Partial<NewIntentParameters> = {}): NewIntentParameters => ({
  destinations: [DESTINATION_DOMAIN],
  receiver: fixture.accounts[Role.other]!,
  inputAsset: fixture.token("USDC"),
  outputAsset: zeroAddress,
  amount: units(100n, 6),
  maxFee: 0,
  ttl: 0,
  data: "0x",
  ...overrides,
})

export const newIntentArgs = (p: NewIntentParameters) =>
  [p.destinations, p.receiver, p.inputAsset, p.outputAsset, p.amount, p.maxFee, p.ttl, p.data] as const

export interface CreatedIntent {
  readonly intentId: Hex
  readonly intent: Intent
  readonly queueIdx: bigint
  readonly receipt: TransactionReceipt
}

/** Calls `spoke.newIntent` directly from account `from` (default the user) and returns the `IntentAdded` data. */
export const createIntent = async (
  fixture: SpokeFixture,
  overrides: Partial<NewIntentParameters> = {},
  from: number = Role.user,
): Promise<CreatedIntent> => {
  const receipt = await mined(
    fixture,
    fixture.chain.wallet(from).writeContract({
      address: fixture.deployment.spoke,
      abi: abis.spoke,
      functionName: "newIntent",
      args: newIntentArgs(newIntentParameters(fixture, overrides)),
    }),
  )
  const [added] = parseEventLogs({ abi: abis.spoke, eventName: "IntentAdded", logs: receipt.logs })
  if (added === undefined) throw new Error("no IntentAdded event")
  return { intentId: added.args.intentId, intent: added.args.intent, queueIdx: added.args.queueIdx, receipt }
}

/** The latest block's timestamp (what `eth_call` sees as `block.timestamp`). */
export const latestTimestamp = async (fixture: SpokeFixture): Promise<number> =>
  Number((await fixture.chain.publicClient.getBlock()).timestamp)

/**
 * An intent created on another domain (origin 10) for this spoke: a 100-token fast-path intent to `receiver`
 * paying out `outputAsset`, created at the latest block's time with a one-hour ttl and `maxFee` 1_000 dbps.
 */
export const foreignIntent = async (fixture: SpokeFixture, overrides: Partial<Intent> = {}): Promise<Intent> => ({
  initiator: addressToBytes32(fixture.accounts[Role.user]!),
  receiver: addressToBytes32(fixture.accounts[Role.other]!),
  inputAsset: addressToBytes32(`0x${"ab".repeat(20)}`),
  outputAsset: addressToBytes32(fixture.token("USDC")),
  maxFee: 1_000,
  origin: DESTINATION_DOMAIN,
  nonce: 1n,
  timestamp: await latestTimestamp(fixture),
  ttl: 3_600,
  amount: 100n * 10n ** 18n,
  destinations: [SPOKE_CHAIN_ID],
  data: "0x",
  ...overrides,
})

/** Delivers `message` from the hub through the gateway, as the transport relayer. */
export const deliver = async (fixture: SpokeFixture, message: Hex, messageId: Hex): Promise<TransactionReceipt> =>
  mined(
    fixture,
    fixture.chain.wallet(Role.relayer).writeContract({
      address: fixture.deployment.gateway,
      abi: abis.gateway,
      functionName: "receiveMessage",
      args: [HUB_DOMAIN, messageId, message],
    }),
  )

/** Approves `spender` for every fixture token from each of `from`. */
export const approveAll = async (fixture: SpokeFixture, spender: Address, from: readonly number[]): Promise<void> => {
  for (const index of from) {
    for (const { symbol } of FIXTURE_TOKENS) {
      await mined(
        fixture,
        fixture.chain.wallet(index).writeContract({
          address: fixture.token(symbol),
          abi: abis.erc20,
          functionName: "approve",
          args: [spender, maxUint256],
        }),
      )
    }
  }
}
