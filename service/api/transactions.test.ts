/**
 * Transaction builders end to end on the memory backend of `Spokes` (the shared suite), and hub transactions sent
 * to the hub's JSON-RPC endpoint by a viem wallet.
 */
import { createPublicClient, createWalletClient, defineChain, encodeFunctionData, http, zeroAddress } from "viem"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { addressToBytes32, type Address, type Bytes32, type Hex } from "../domain/hex.ts"
import { Call, eventsNamed, type MinedSpokeBlock } from "../spoke/spoke.ts"
import { Deployment, DOMAIN_A, DOMAIN_B, HUB_ADDRESS, HUB_DOMAIN } from "./deployment.ts"
import { HubAbi } from "./hubAbi.ts"
import { type ApiServer, startApiServer } from "./server.ts"
import { request } from "./testing.ts"
import { transactionRequest } from "./transactions.ts"
import { describeTransactionBuilders } from "./transactions.suite.ts"

describeTransactionBuilders("memory", async () => Deployment.memory())

describe("transactionRequest", () => {
  const to: Address = "0x00000000000000000000000000000000000000f1"
  const from: Address = "0x00000000000000000000000000000000000000a1"
  it("writes the native value in wei as a decimal string, 0 when none is given, and from only when given", () => {
    // A native fee above 2^53 (1 ether and 1 wei): written exactly, not through a float.
    expect(transactionRequest({ to, from, data: "0x1234", chainId: DOMAIN_A, value: 10n ** 18n + 1n })).toEqual({ to, from, data: "0x1234", value: "1000000000000000001", chainId: DOMAIN_A })
    expect(transactionRequest({ to, data: "0x", chainId: DOMAIN_B, value: 7n })).toEqual({ to, data: "0x", value: "7", chainId: DOMAIN_B })
    expect(transactionRequest({ to, from, data: "0x", chainId: DOMAIN_B })).toEqual({ to, from, data: "0x", value: "0", chainId: DOMAIN_B })
    expect(Object.keys(transactionRequest({ to, from: undefined, data: "0x", chainId: DOMAIN_B }))).toEqual(["to", "data", "value", "chainId"])
  })
})

let d: Deployment
let server: ApiServer

beforeAll(async () => {
  d = Deployment.memory()
  await d.approveAll()
  server = await startApiServer(d.service)
})
afterAll(async () => {
  await server?.close()
})

const post = async (path: string, body: unknown) => {
  const r = await request(server.url, "POST", path, body)
  if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`)
  return r.body as { to: Address; from: Address; data: Hex; value: string; chainId: number }
}
const success = (block: MinedSpokeBlock) => {
  const receipt = block.receipts[0]!
  if (receipt.status !== "success") throw new Error(`reverted: ${receipt.error.name} ${JSON.stringify(receipt.error.args, (_, v) => (typeof v === "bigint" ? String(v) : v))}`)
  return receipt
}

describe("hub transactions through the JSON-RPC endpoint, signed by a viem wallet", () => {
  const hubChain = () =>
    defineChain({ id: HUB_DOMAIN, name: "clearsim hub", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [`${server.url}/hub/rpc`] } } })

  it("returns an unsupported intent: the API builds it, the wallet sends it, the receipt and the hub agree", async () => {
    const a = d.accounts
    // XYZ is not on the hub: the intent is created directly on the spoke (the API would refuse the asset).
    const xyz = d.token(DOMAIN_A, "XYZ")
    const block = await d.call(DOMAIN_A, a.alice.address, Call.spoke.newIntent({ destinations: [DOMAIN_B], receiver: a.alice.address, inputAsset: xyz, outputAsset: zeroAddress, amount: 10n ** 18n }))
    const id: Bytes32 = eventsNamed(success(block).events, "IntentAdded")[0]!.intentId
    await d.relayIntents(DOMAIN_A)
    expect(((await request(server.url, "GET", `/intents/${id}`)).body as { intent: { status: string } }).intent.status).toBe("UNSUPPORTED")
    const tx = await post(`/intents/${id}/return-unsupported`, {})
    expect(tx).toMatchObject({ to: HUB_ADDRESS, chainId: HUB_DOMAIN })
    const chain = hubChain()
    const wallet = createWalletClient({ chain, transport: http(), account: a.bob })
    const client = createPublicClient({ chain, transport: http() })
    const hash = await wallet.sendTransaction({ to: tx.to, data: tx.data })
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 10 })
    expect(receipt.status).toBe("success")
    expect(receipt.from).toBe(a.bob.address.toLowerCase())
    expect(((await request(server.url, "GET", `/intents/${id}`)).body as { intent: { status: string } }).intent.status).toBe("UNSUPPORTED_RETURNED")
    // The return settles on the origin to the fee adapter... the status stays UNSUPPORTED_RETURNED.
    await d.deliverOutbox()
    expect(((await request(server.url, "GET", `/intents/${id}`)).body as { intent: { status: string } }).intent.status).toBe("UNSUPPORTED_RETURNED")
    // The same transaction again is refused by the API: the intent is no longer UNSUPPORTED.
    expect((await request(server.url, "POST", `/intents/${id}/return-unsupported`, {})).status).toBe(400)
  })

  it("applies calls as the sender, reports reverts in receipts, and answers views", async () => {
    const a = d.accounts
    const chain = hubChain()
    const wallet = createWalletClient({ chain, transport: http(), account: a.solver })
    const client = createPublicClient({ chain, transport: http() })
    const ok = await wallet.writeContract({ address: HUB_ADDRESS, abi: HubAbi, functionName: "setUserSupportedDomains", args: [[DOMAIN_A, DOMAIN_B]] })
    expect((await client.waitForTransactionReceipt({ hash: ok, pollingInterval: 10 })).status).toBe("success")
    expect(d.hub.state.userSupportedDomains.get(addressToBytes32(a.solver.address))).toEqual([DOMAIN_A, DOMAIN_B])
    const bad = await wallet.writeContract({ address: HUB_ADDRESS, abi: HubAbi, functionName: "processSettlementQueue", args: [DOMAIN_A, 50] })
    expect((await client.waitForTransactionReceipt({ hash: bad, pollingInterval: 10 })).status).toBe("reverted")
    expect(await client.getTransactionCount({ address: a.solver.address })).toBe(2)
    expect(await client.readContract({ address: HUB_ADDRESS, abi: HubAbi, functionName: "getCurrentEpoch" })).toBe(d.hub.currentEpoch())
    expect(await client.getBlockNumber()).toBe(BigInt(d.hub.state.blockNumber))
  })

  it("pauses and unpauses the hub for its owner only (§3.14), paused() tells, and a paused hub refuses gated calls", async () => {
    const a = d.accounts
    const chain = hubChain()
    const client = createPublicClient({ chain, transport: http() })
    const send = async (account: typeof a.owner, functionName: "pause" | "unpause") => {
      const wallet = createWalletClient({ chain, transport: http(), account })
      const hash = await wallet.writeContract({ address: HUB_ADDRESS, abi: HubAbi, functionName })
      return (await client.waitForTransactionReceipt({ hash, pollingInterval: 10 })).status
    }
    const paused = () => client.readContract({ address: HUB_ADDRESS, abi: HubAbi, functionName: "paused" })
    expect(await paused()).toBe(false)
    expect(await send(a.bob, "pause")).toBe("reverted")
    expect(await paused()).toBe(false)
    expect(await send(a.owner, "pause")).toBe("success")
    expect(await paused()).toBe(true)
    expect(d.hub.state.paused).toBe(true)
    // A gated call sent while paused reverts; the same call succeeds once the hub is unpaused.
    const expire = async () => {
      const wallet = createWalletClient({ chain, transport: http(), account: a.bob })
      const hash = await wallet.writeContract({ address: HUB_ADDRESS, abi: HubAbi, functionName: "handleExpiredIntents", args: [[]] })
      return (await client.waitForTransactionReceipt({ hash, pollingInterval: 10 })).status
    }
    expect(await expire()).toBe("reverted")
    expect(await send(a.bob, "unpause")).toBe("reverted")
    expect(await send(a.owner, "unpause")).toBe("success")
    expect(await paused()).toBe(false)
    expect(await expire()).toBe("success")
  })

  it("refuses transactions for another chain, with a wrong nonce or not signed, and changes nothing", async () => {
    const a = d.accounts
    const before = d.model.fingerprint()
    const data = encodeFunctionData({ abi: HubAbi, functionName: "setUpdateVirtualBalance", args: [true] })
    const wrongChain = await a.bob.signTransaction({ chainId: 1, to: HUB_ADDRESS, data, nonce: 0, gas: 100_000n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, type: "eip1559" })
    const wrongNonce = await a.bob.signTransaction({ chainId: HUB_DOMAIN, to: HUB_ADDRESS, data, nonce: 99, gas: 100_000n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, type: "eip1559" })
    // No hub function is payable and no account has a native balance: a transaction with value is refused.
    const withValue = await a.bob.signTransaction({ chainId: HUB_DOMAIN, to: HUB_ADDRESS, data, value: 10n ** 18n, nonce: 0, gas: 100_000n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, type: "eip1559" })
    for (const raw of [wrongChain, wrongNonce, withValue, "0x02c0"]) {
      const r = await request(server.url, "POST", "/hub/rpc", { jsonrpc: "2.0", id: 7, method: "eth_sendRawTransaction", params: [raw] })
      expect(r.status).toBe(200)
      expect(r.body).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: expect.any(Number), message: expect.any(String) } })
    }
    const refusedValue = await request(server.url, "POST", "/hub/rpc", { jsonrpc: "2.0", id: 8, method: "eth_sendRawTransaction", params: [withValue] })
    expect((refusedValue.body as { error: { message: string } }).error.message).toBe(
      "insufficient funds for transfer: value 1000000000000000000 wei, but the hub domain keeps no native balances (send value 0)",
    )
    // Malformed addresses and hashes are invalid params, not answered as if they were accounts or transactions.
    for (const [method, params] of [["eth_getBalance", ["0x12", "latest"]], ["eth_getTransactionReceipt", ["0x12"]], ["eth_getTransactionByHash", ["0xabcd"]]] as const) {
      const r = await request(server.url, "POST", "/hub/rpc", { jsonrpc: "2.0", id: 9, method, params })
      expect(r.body, method).toMatchObject({ error: { code: -32602 } })
    }
    expect(d.model.fingerprint()).toBe(before)
    expect(d.hub.state.updateVirtualBalance.has(addressToBytes32(a.bob.address))).toBe(false)
  })
  it("refuses a used nonce and, at the right nonce, another chain or target; a block's first transaction is index 0 (a fresh hub)", async () => {
    const f = Deployment.memory()
    const rpc = async (method: string, params: unknown[] = []) => (await f.service.hubRpc.handle({ jsonrpc: "2.0", id: 1, method, params })) as { result?: unknown; error?: { code: number; message: string } }
    const bob = f.accounts.bob
    const data = (status: boolean) => encodeFunctionData({ abi: HubAbi, functionName: "setUpdateVirtualBalance", args: [status] })
    const sign = (over: { chainId?: number; to?: Address; data?: Hex; nonce?: number }) =>
      bob.signTransaction({ chainId: HUB_DOMAIN, to: HUB_ADDRESS, data: data(true), nonce: 0, gas: 100_000n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, type: "eip1559", ...over })
    expect((await rpc("eth_sendRawTransaction", [await sign({ chainId: 1 })])).error?.message).toBe(`Invalid chain id 1: the hub domain is ${HUB_DOMAIN}`)
    const wrongTarget = await rpc("eth_sendRawTransaction", [await sign({ to: f.accounts.alice.address })])
    expect(wrongTarget.error?.message.toLowerCase()).toBe(`invalid target ${f.accounts.alice.address.toLowerCase()}: the hub is ${HUB_ADDRESS.toLowerCase()}`)
    const first = await rpc("eth_sendRawTransaction", [await sign({})])
    expect((await rpc("eth_getTransactionReceipt", [first.result])).result).toMatchObject({ status: "0x1", transactionIndex: "0x0", type: "0x2" })
    // The same nonce again with other calldata (so another hash): too low, and the first call stands.
    expect((await rpc("eth_sendRawTransaction", [await sign({ data: data(false) })])).error?.message).toBe("nonce too low: expected 1, got 0")
    expect(f.hub.state.updateVirtualBalance.get(addressToBytes32(bob.address))).toBe(true)
    expect((await rpc("eth_getTransactionCount", [bob.address, "latest"])).result).toBe("0x1")
  })

  it("carries out a notification (no id) and answers it with nothing: left out of a batch, 204 over HTTP when nothing is left", async () => {
    const f = Deployment.memory()
    const bob = f.accounts.bob
    const data = encodeFunctionData({ abi: HubAbi, functionName: "setUpdateVirtualBalance", args: [true] })
    const raw = await bob.signTransaction({ chainId: HUB_DOMAIN, to: HUB_ADDRESS, data, nonce: 0, gas: 100_000n, maxFeePerGas: 0n, maxPriorityFeePerGas: 0n, type: "eip1559" })
    // Carried out, answered with nothing (an error of a notification is not answered either).
    expect(await f.service.hubRpc.handle({ jsonrpc: "2.0", method: "eth_sendRawTransaction", params: [raw] })).toBeUndefined()
    expect(f.hub.state.updateVirtualBalance.get(addressToBytes32(bob.address))).toBe(true)
    expect(await f.service.hubRpc.handle({ jsonrpc: "2.0", method: "eth_nope" })).toBeUndefined()
    // In a batch, only the requests are answered; a batch of notifications alone gets nothing.
    const batch = await f.service.hubRpc.handle([
      { jsonrpc: "2.0", method: "eth_chainId" },
      { jsonrpc: "2.0", id: 2, method: "eth_getTransactionCount", params: [bob.address, "latest"] },
      { jsonrpc: "2.0", id: null, method: "eth_chainId" },
    ])
    expect(batch).toEqual([
      { jsonrpc: "2.0", id: 2, result: "0x1" },
      { jsonrpc: "2.0", id: null, result: `0x${HUB_DOMAIN.toString(16)}` },
    ])
    expect(await f.service.hubRpc.handle([{ jsonrpc: "2.0", method: "eth_chainId" }, { jsonrpc: "2.0", method: "eth_blockNumber" }])).toBeUndefined()
    // An object without a method cannot be told from a request: its error is answered, with id null.
    expect(await f.service.hubRpc.handle({ jsonrpc: "2.0" })).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request: expected an object with a string method" } })
    const server = await startApiServer(f.service, { port: 0 })
    try {
      const notified = await request(server.url, "POST", "/hub/rpc", { jsonrpc: "2.0", method: "eth_chainId" })
      expect([notified.status, notified.text]).toEqual([204, ""])
      const answered = await request(server.url, "POST", "/hub/rpc", [{ jsonrpc: "2.0", method: "eth_chainId" }, { jsonrpc: "2.0", id: 3, method: "eth_chainId" }])
      expect([answered.status, answered.body]).toEqual([200, [{ jsonrpc: "2.0", id: 3, result: `0x${HUB_DOMAIN.toString(16)}` }]])
    } finally {
      await server.close()
    }
  })

  it("reads by the hash of the latest block or of the 256 before it, and dates the latest block (a fresh hub at block 300)", async () => {
    const f = Deployment.memory()
    f.hub.setBlock(300, 1_700_003_600)
    const rpc = async (method: string, params: unknown[] = []) => (await f.service.hubRpc.handle({ jsonrpc: "2.0", id: 1, method, params })) as { result?: unknown; error?: { code: number; message: string } }
    const block = async (n: number) => (await rpc("eth_getBlockByNumber", [`0x${n.toString(16)}`, false])).result as { hash: string; timestamp: string }
    expect((await block(300)).timestamp).toBe(`0x${(1_700_003_600).toString(16)}`)
    const someone = "0x00000000000000000000000000000000000000aa"
    const byHash = async (n: number) => (await rpc("eth_getTransactionCount", [someone, { blockHash: (await block(n)).hash }])).error?.message
    expect(await byHash(44)).toBe("the hub keeps its latest state only: block 44 cannot be read (the latest is 300)")
    expect(await byHash(43)).toMatch(/^header not found: block hash 0x[0-9a-f]{64} is not the hash of the latest block \(300\) or of the 256 before it$/)
    expect((await rpc("eth_getCode", [HUB_ADDRESS, "latest"])).result).toBe("0xfe")
    expect(await f.service.hubRpc.handle([])).toEqual({ jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid request: empty batch" } })
  })
})
