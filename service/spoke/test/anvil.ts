/**
 * Test chain: ONE anvil per vitest worker (started by prool), on port `8545 + VITEST_POOL_ID * 10 + k`, with
 * the standard test mnemonic, a pinned genesis timestamp, one second between blocks and a raised block gas limit.
 * Callers stop it in afterAll.
 */
import { existsSync } from "node:fs"
import { join } from "node:path"
import { Instance } from "prool"
import {
  type Account,
  type Address,
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  type PublicClient,
  type TestClient,
  type Transport,
  type WalletClient,
} from "viem"
import { mnemonicToAccount } from "viem/accounts"
import { REPO_ROOT } from "../build.ts"

export const TEST_MNEMONIC = "test test test test test test test test test test test junk"
export const GENESIS_TIMESTAMP = 1_700_000_000n

const ANVIL_BINARY = join(REPO_ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil")

export interface TestChain {
  readonly chain: Chain
  readonly rpcUrl: string
  readonly publicClient: PublicClient
  readonly testClient: TestClient<"anvil", Transport, Chain>
  /** The first ten mnemonic accounts (unlocked in anvil, so transactions are signed by the node). */
  readonly accounts: readonly Address[]
  /** A wallet client sending from `accounts[index]`, or from an address (unlocked or impersonated in anvil). */
  readonly wallet: (from: number | Address) => WalletClient<Transport, Chain, Account>
  readonly stop: () => Promise<void>
}

export interface StartTestChainParameters {
  /** Offset of the port within this worker's block of ten. Default 0. */
  readonly k?: number
  /** Default 31337. */
  readonly chainId?: number
  /** Mine a block per transaction. Default true; false starts anvil with --no-mining. */
  readonly automine?: boolean
  /** Default 300_000_000. */
  readonly blockGasLimit?: bigint
}

/**
 * anvil fills in the gas of an `eth_sendTransaction` by estimating on the latest block, whose timestamp is one
 * second before the block that mines the transaction: a contract that stores `block.timestamp` (the XERC20 limits)
 * pays a no-op SSTORE in the estimate, a real one when mined, and runs out of gas. Fill it in on the pending block.
 */
const estimateOnPending = (transport: Transport): Transport => (options) => {
  const inner = transport(options)
  const request: typeof inner.request = async (args, requestOptions) => {
    if (args.method === "eth_sendTransaction" && Array.isArray(args.params) && args.params.length === 1) {
      const [tx] = args.params as [Record<string, unknown>]
      if (tx.gas === undefined) {
        const gas = await inner.request({ method: "eth_estimateGas", params: [tx, "pending"] }, requestOptions)
        return inner.request({ ...args, params: [{ ...tx, gas }] }, requestOptions)
      }
    }
    return inner.request(args, requestOptions)
  }
  return { ...inner, request }
}

export const startTestChain = async (parameters: StartTestChainParameters = {}): Promise<TestChain> => {
  const k = parameters.k ?? 0
  const chainId = parameters.chainId ?? 31_337
  const port = 8545 + Number(process.env.VITEST_POOL_ID ?? 0) * 10 + k
  const instance = Instance.anvil({
    binary: existsSync(ANVIL_BINARY) ? ANVIL_BINARY : join(REPO_ROOT, "node_modules/.bin/anvil"),
    host: "127.0.0.1",
    port,
    chainId,
    mnemonic: TEST_MNEMONIC,
    timestamp: GENESIS_TIMESTAMP,
    gasLimit: parameters.blockGasLimit ?? 300_000_000n,
    // prool turns `false` flags into "--flag false", which anvil refuses: pass only true flags.
    ...(parameters.automine === false ? { noMining: true } : {}),
  })
  await instance.start()
  const rpcUrl = `http://127.0.0.1:${port}`
  const chain = defineChain({
    id: chainId,
    name: `anvil-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  })
  const transport = estimateOnPending(http(rpcUrl))
  const publicClient = createPublicClient({ chain, transport, pollingInterval: 20 }) as PublicClient
  const testClient = createTestClient({ chain, transport, mode: "anvil" })
  // Each block is one second after the previous one, whatever the wall clock does: a call simulated on the
  // pending block sees the timestamp of the block that will include it, and test runs are reproducible.
  await testClient.setBlockTimestampInterval({ interval: 1 })
  const accounts = Array.from({ length: 10 }, (_, i) => mnemonicToAccount(TEST_MNEMONIC, { addressIndex: i }).address)
  const wallets = new Map<number | Address, WalletClient<Transport, Chain, Account>>()
  const wallet = (from: number | Address): WalletClient<Transport, Chain, Account> => {
    let client = wallets.get(from)
    if (client === undefined) {
      const account = typeof from === "number" ? accounts[from] : from
      if (account === undefined) throw new Error(`no test account ${from}`)
      client = createWalletClient({ chain, transport, account, pollingInterval: 20 })
      wallets.set(from, client)
    }
    return client
  }
  return { chain, rpcUrl, publicClient, testClient, accounts, wallet, stop: () => instance.stop() }
}
