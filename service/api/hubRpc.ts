/**
 * The hub domain as a small Ethereum JSON-RPC endpoint, so that a viem wallet drives the hub like any chain.
 *
 * `eth_sendRawTransaction` parses the signed transaction (viem `parseTransaction`), recovers its sender
 * (`recoverTransactionAddress`), checks chain id, target and nonce, decodes the calldata against `HubAbi` and
 * applies the call to the hub engine at its current block. A call the hub rejects still consumes the nonce and
 * gets a receipt with status 0 (reverted); a transaction that is malformed, mis-signed, for another chain or
 * with a wrong nonce is refused with a JSON-RPC error and changes nothing. Views answer `eth_call`. Blocks are
 * the hub's blocks (the simulation advances them); the hub domain has no gas market: gas price 0, a fixed gas
 * estimate, no balances.
 */
import type { Address, Hex } from "viem"
import { decodeFunctionData, encodeAbiParameters, encodeErrorResult, encodeFunctionResult, keccak256, numberToHex, parseTransaction } from "viem/utils"
import { addressToBytes32, type Bytes32 } from "../domain/hex.ts"
import { HubRevert } from "../hub/errors.ts"
import type { Hub, HubInput } from "../hub/hub.ts"
import { HubAbi } from "./hubAbi.ts"

export interface JsonRpcRequest {
  readonly jsonrpc?: unknown
  readonly id?: unknown
  readonly method?: unknown
  readonly params?: unknown
}

export interface JsonRpcError {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

/**
 * A notification: a valid request object without an `id` member. One that is not valid (no method) is answered
 * with its error and `id` null, since it cannot be told from a request (JSON-RPC 2.0, section 5).
 */
const isNotification = (request: unknown): boolean =>
  typeof request === "object" && request !== null && !Array.isArray(request) && !Object.hasOwn(request, "id") && typeof (request as JsonRpcRequest).method === "string"

export type JsonRpcResponse = { readonly jsonrpc: "2.0"; readonly id: unknown } & ({ readonly result: unknown } | { readonly error: JsonRpcError })

interface StoredTransaction {
  readonly hash: Hex
  readonly from: Address
  readonly to: Address
  readonly nonce: number
  readonly input: Hex
  readonly value: bigint
  readonly blockNumber: number
  readonly transactionIndex: number
  readonly type: string
  readonly gas: bigint
  readonly status: "0x1" | "0x0"
  readonly revert: HubRevert | undefined
}

/** What a hub transaction did, for observers (the simulator's transport drains the hub's outbox itself). */
export interface HubTransactionResult {
  readonly hash: Hex
  readonly from: Address
  readonly input: HubInput | undefined
  readonly revert: HubRevert | undefined
}

class RpcFailure extends Error {
  readonly code: number
  readonly data?: unknown
  constructor(code: number, message: string, data?: unknown) {
    super(message)
    this.code = code
    this.data = data
  }
}

const ZERO_BLOOM = `0x${"0".repeat(512)}` as Hex
const GAS_ESTIMATE = 300_000n
const BLOCK_GAS_LIMIT = 30_000_000n

const hex = (value: number | bigint): Hex => numberToHex(value)

export interface HubRpcOptions {
  /** The hub contract address: transactions must target it. */
  readonly hubAddress: Address
  /** Called after every accepted transaction (reverted or not). */
  readonly onTransaction?: (result: HubTransactionResult) => void
  /**
   * Applies a decoded hub call (default: `hub.apply`). A simulation or live devnet passes its world's recorder,
   * which first moves the hub's block to the current time, records the input in the trace and hands the outbox
   * (SETTLEMENT messages) to the transport.
   */
  readonly apply?: (input: HubInput) => HubRevert | undefined
}

export class HubRpc {
  private readonly hubAddress: Address
  private readonly nonces = new Map<Address, number>()
  private readonly transactions = new Map<Hex, StoredTransaction>()
  private readonly blockTransactionCount = new Map<number, number>()

  private readonly hub: Hub
  private readonly options: HubRpcOptions
  constructor(hub: Hub, options: HubRpcOptions) {
    this.hub = hub
    this.options = options
    this.hubAddress = options.hubAddress.toLowerCase() as Address
  }

  get chainId(): number {
    return this.hub.config.hubDomain
  }

  nonceOf(address: Address): number {
    return this.nonces.get(address.toLowerCase() as Address) ?? 0
  }

  /**
   * Answers one JSON-RPC request or a batch. A notification (a request without an `id` member) is carried out and
   * answered with nothing, as JSON-RPC 2.0 has it: left out of a batch's answers, and `undefined` when nothing is
   * left to answer (HTTP's 204).
   */
  async handle(body: unknown): Promise<JsonRpcResponse | JsonRpcResponse[] | undefined> {
    if (Array.isArray(body)) {
      if (body.length === 0) return this.failure(null, new RpcFailure(-32600, "Invalid request: empty batch"))
      const out: JsonRpcResponse[] = []
      for (const item of body) {
        const response = await this.one(item)
        if (!isNotification(item)) out.push(response)
      }
      return out.length === 0 ? undefined : out
    }
    const response = await this.one(body)
    return isNotification(body) ? undefined : response
  }

  private failure(id: unknown, error: RpcFailure): JsonRpcResponse {
    return { jsonrpc: "2.0", id: id ?? null, error: { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } }
  }

  private async one(request: unknown): Promise<JsonRpcResponse> {
    const r = (typeof request === "object" && request !== null ? request : {}) as JsonRpcRequest
    const id = r.id ?? null
    try {
      if (typeof r.method !== "string") throw new RpcFailure(-32600, "Invalid request: expected an object with a string method")
      const params = r.params === undefined ? [] : r.params
      if (!Array.isArray(params)) throw new RpcFailure(-32602, "Invalid params: expected an array")
      return { jsonrpc: "2.0", id, result: await this.dispatch(r.method, params) }
    } catch (error) {
      if (error instanceof RpcFailure) return this.failure(id, error)
      throw error
    }
  }

  private async dispatch(method: string, params: readonly unknown[]): Promise<unknown> {
    const state = this.hub.state
    switch (method) {
      case "eth_chainId":
        return hex(this.chainId)
      case "net_version":
        return String(this.chainId)
      case "web3_clientVersion":
        return "clearsim-hub/1"
      case "eth_syncing":
        return false
      case "eth_accounts":
        return []
      case "eth_blockNumber":
        return hex(state.blockNumber)
      case "eth_gasPrice":
      case "eth_maxPriorityFeePerGas":
        return "0x0"
      case "eth_estimateGas":
        return hex(GAS_ESTIMATE)
      case "eth_getBalance":
        addressParam(params, 0)
        this.stateBlock(params[1])
        return "0x0" // the hub domain keeps no native balances
      case "eth_getCode":
        this.stateBlock(params[1])
        return addressParam(params, 0) === this.hubAddress ? "0xfe" : "0x"
      case "eth_getTransactionCount":
        this.stateBlock(params[1])
        return hex(this.nonceOf(addressParam(params, 0)))
      case "eth_getBlockByNumber":
        return this.block(params[0])
      case "eth_sendRawTransaction":
        return this.sendRawTransaction(hexParam(params, 0, "signed transaction"))
      case "eth_getTransactionReceipt":
        return this.receipt(hashParam(params, 0))
      case "eth_getTransactionByHash":
        return this.transaction(hashParam(params, 0))
      case "eth_call":
        this.stateBlock(params[1])
        return this.call(params[0])
      default:
        throw new RpcFailure(-32601, `Method not found: ${method}`)
    }
  }

  /**
   * The block a state read names (absent: latest): a tag, a hex number, or an EIP-1898 object (`{ blockNumber }` or
   * `{ blockHash, requireCanonical? }`). The hub keeps its current state only: the latest block is read; a block
   * after it does not exist yet and one before it is not kept, each said as such.
   */
  private stateBlock(tag: unknown): void {
    if (tag === null) return
    const current = this.hub.state.blockNumber
    const number = typeof tag === "object" && !Array.isArray(tag) ? this.blockObjectNumber(tag) : this.blockNumberOf(tag)
    if (number > current) throw new RpcFailure(-32000, `header not found: block ${number} is after the latest block ${current}`)
    if (number < current) throw new RpcFailure(-32000, `the hub keeps its latest state only: block ${number} cannot be read (the latest is ${current})`)
  }

  /**
   * The block an EIP-1898 object names, as geth reads one: `{ blockNumber }` (a number or tag) or `{ blockHash }`,
   * each with an optional boolean `requireCanonical`; any other key is refused. A hash is looked up among the
   * latest block and the RECENT_HASHES before it (an older one is "header not found").
   */
  private blockObjectNumber(tag: object): number {
    // A null field is an absent one, as geth reads it.
    const present = Object.fromEntries(Object.entries(tag).filter(([, v]) => v !== null))
    const fields = present as { readonly blockNumber?: unknown; readonly blockHash?: unknown; readonly requireCanonical?: unknown }
    const known = Object.keys(present).every((k) => k === "blockNumber" || k === "blockHash" || k === "requireCanonical")
    if (!known || (fields.blockNumber === undefined) === (fields.blockHash === undefined)) throw invalidBlockParameter(tag)
    if (fields.requireCanonical !== undefined && typeof fields.requireCanonical !== "boolean") throw invalidBlockParameter(tag)
    if (fields.blockNumber !== undefined) return this.blockNumberOf(fields.blockNumber)
    if (typeof fields.blockHash !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(fields.blockHash)) throw invalidBlockParameter(tag)
    const hash = fields.blockHash.toLowerCase()
    const current = this.hub.state.blockNumber
    for (let n = current; n >= 0 && n >= current - RECENT_HASHES; n--) if (this.blockHash(n) === hash) return n
    throw new RpcFailure(-32000, `header not found: block hash ${fields.blockHash} is not the hash of the latest block (${current}) or of the ${RECENT_HASHES} before it`)
  }

  /** A block parameter as a number: the latest when absent or a moving tag, 0 for `earliest`, else a hex number. */
  private blockNumberOf(tag: unknown): number {
    if (tag === undefined || tag === "latest" || tag === "pending" || tag === "safe" || tag === "finalized") return this.hub.state.blockNumber
    if (tag === "earliest") return 0
    if (typeof tag === "string" && /^0x[0-9a-fA-F]{1,16}$/.test(tag)) return Number(tag)
    throw invalidBlockParameter(tag)
  }

  private block(tag: unknown): unknown {
    const state = this.hub.state
    const number = this.blockNumberOf(tag)
    if (number > state.blockNumber) return null
    return {
      number: hex(number),
      hash: this.blockHash(number),
      parentHash: number === 0 ? `0x${"0".repeat(64)}` : this.blockHash(number - 1),
      timestamp: hex(number === state.blockNumber ? state.timestamp : 0),
      baseFeePerGas: "0x0",
      gasLimit: hex(BLOCK_GAS_LIMIT),
      gasUsed: "0x0",
      difficulty: "0x0",
      totalDifficulty: "0x0",
      extraData: "0x",
      logsBloom: ZERO_BLOOM,
      miner: "0x0000000000000000000000000000000000000000",
      mixHash: `0x${"0".repeat(64)}`,
      nonce: "0x0000000000000000",
      receiptsRoot: `0x${"0".repeat(64)}`,
      sha3Uncles: `0x${"0".repeat(64)}`,
      stateRoot: `0x${"0".repeat(64)}`,
      transactionsRoot: `0x${"0".repeat(64)}`,
      size: "0x0",
      transactions: [],
      uncles: [],
    }
  }

  private blockHash(number: number): Hex {
    return keccak256(encodeAbiParameters([{ type: "uint32" }, { type: "uint256" }], [this.chainId, BigInt(number)]))
  }

  /** Validates, recovers and applies a signed transaction; returns its hash. */
  async sendRawTransaction(raw: Hex): Promise<Hex> {
    let parsed: ReturnType<typeof parseTransaction>
    let from: Address
    try {
      parsed = parseTransaction(raw)
      if (parsed.r === undefined || parsed.s === undefined) throw new Error("the transaction is not signed")
      // viem's root module (about 400 modules) is loaded by the first raw transaction, not by every command's start.
      const { recoverTransactionAddress } = await import("viem")
      from = (await recoverTransactionAddress({ serializedTransaction: raw as Parameters<typeof recoverTransactionAddress>[0]["serializedTransaction"] })).toLowerCase() as Address
    } catch (error) {
      throw new RpcFailure(
        -32602,
        `Invalid transaction: expected a signed transaction, serialized (RLP, or an EIP-2718 typed envelope); ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
      )
    }
    // From here on everything is synchronous: no other request can interleave between the nonce check and its use.
    if (parsed.chainId !== this.chainId) throw new RpcFailure(-32000, `Invalid chain id ${parsed.chainId ?? "(none)"}: the hub domain is ${this.chainId}`)
    // Every account's native balance is 0 here (eth_getBalance), and no hub function is payable.
    if ((parsed.value ?? 0n) !== 0n) throw new RpcFailure(-32000, `insufficient funds for transfer: value ${parsed.value} wei, but the hub domain keeps no native balances (send value 0)`)
    if (parsed.to === undefined || parsed.to === null || parsed.to.toLowerCase() !== this.hubAddress) {
      throw new RpcFailure(-32000, `Invalid target ${parsed.to ?? "(contract creation)"}: the hub is ${this.hubAddress}`)
    }
    const expected = this.nonceOf(from)
    const nonce = parsed.nonce ?? 0
    if (nonce !== expected) throw new RpcFailure(-32000, `nonce ${nonce < expected ? "too low" : "too high"}: expected ${expected}, got ${nonce}`)
    const hash = keccak256(raw)
    if (this.transactions.has(hash)) throw new RpcFailure(-32000, "already known")
    const input = parsed.data ?? "0x"
    let call: HubInput | undefined
    let revert: HubRevert | undefined
    try {
      call = this.decodeCall(input, from)
    } catch (error) {
      revert = error instanceof HubRevert ? error : new HubRevert("Hub_UnknownFunction", "the calldata matches no hub function")
    }
    if (call !== undefined) revert = this.options.apply === undefined ? this.hub.apply(call) : this.options.apply(call)
    const blockNumber = this.hub.state.blockNumber
    const transactionIndex = this.blockTransactionCount.get(blockNumber) ?? 0
    this.blockTransactionCount.set(blockNumber, transactionIndex + 1)
    this.nonces.set(from, expected + 1)
    this.transactions.set(hash, {
      hash,
      from,
      to: this.hubAddress,
      nonce,
      input,
      value: parsed.value ?? 0n,
      blockNumber,
      transactionIndex,
      type: parsed.type ?? "legacy",
      gas: parsed.gas ?? GAS_ESTIMATE,
      status: revert === undefined ? "0x1" : "0x0",
      revert,
    })
    this.options.onTransaction?.({ hash, from, input: call, revert })
    return hash
  }

  /** A hub call from its calldata; `user`/`withdrawer` arguments are the sender. */
  private decodeCall(data: Hex, from: Address): HubInput {
    const sender: Bytes32 = addressToBytes32(from)
    const decoded = decodeFunctionData({ abi: HubAbi, data })
    switch (decoded.functionName) {
      case "processDepositsAndInvoices": {
        const [ticker, maxEpochs, maxDeposits, maxInvoices] = decoded.args
        return { kind: "processDepositsAndInvoices", ticker: ticker.toLowerCase(), maxEpochs, maxDeposits, maxInvoices }
      }
      case "processSettlementQueue":
        return { kind: "processSettlementQueue", domain: decoded.args[0], amount: decoded.args[1] }
      case "returnUnsupportedIntent":
        return { kind: "returnUnsupportedIntent", intentId: decoded.args[0].toLowerCase() as Bytes32 }
      case "setUpdateVirtualBalance":
        return { kind: "setUpdateVirtualBalance", user: sender, status: decoded.args[0] }
      case "setUserSupportedDomains":
        return { kind: "setUserSupportedDomains", user: sender, domains: [...decoded.args[0]] }
      case "handleExpiredIntents":
        return { kind: "handleExpiredIntents", intentIds: decoded.args[0].map((id) => id.toLowerCase() as Bytes32) }
      case "pause":
        return { kind: "pause", caller: sender }
      case "unpause":
        return { kind: "unpause", caller: sender }
      case "withdrawFees": {
        const [feeRecipient, ticker, amount, destinations] = decoded.args
        return { kind: "withdrawFees", withdrawer: sender, feeRecipient: feeRecipient.toLowerCase() as Bytes32, ticker: ticker.toLowerCase(), amount, destinations: [...destinations] }
      }
      default:
        throw new HubRevert("Hub_NotATransaction", `${decoded.functionName} is a view; use eth_call`)
    }
  }

  private receipt(hash: Hex): unknown {
    const tx = this.transactions.get(hash.toLowerCase() as Hex)
    if (tx === undefined) return null
    return {
      transactionHash: tx.hash,
      transactionIndex: hex(tx.transactionIndex),
      blockHash: this.blockHash(tx.blockNumber),
      blockNumber: hex(tx.blockNumber),
      from: tx.from,
      to: tx.to,
      cumulativeGasUsed: hex(GAS_ESTIMATE),
      gasUsed: hex(GAS_ESTIMATE),
      effectiveGasPrice: "0x0",
      contractAddress: null,
      logs: [],
      logsBloom: ZERO_BLOOM,
      status: tx.status,
      type: typeHex(tx.type),
      ...(tx.revert === undefined ? {} : { revertReason: `${tx.revert.errorName}: ${tx.revert.message}` }),
    }
  }

  private transaction(hash: Hex): unknown {
    const tx = this.transactions.get(hash.toLowerCase() as Hex)
    if (tx === undefined) return null
    return {
      hash: tx.hash,
      nonce: hex(tx.nonce),
      blockHash: this.blockHash(tx.blockNumber),
      blockNumber: hex(tx.blockNumber),
      transactionIndex: hex(tx.transactionIndex),
      from: tx.from,
      to: tx.to,
      value: hex(tx.value),
      gas: hex(tx.gas),
      gasPrice: "0x0",
      maxFeePerGas: "0x0",
      maxPriorityFeePerGas: "0x0",
      input: tx.input,
      type: typeHex(tx.type),
      chainId: hex(this.chainId),
      v: "0x0",
      r: "0x0",
      s: "0x0",
    }
  }

  /** `eth_call` of a view; a non-view call is validated by decoding only (the engine cannot dry-run). */
  private call(request: unknown): Hex {
    const r = (typeof request === "object" && request !== null ? request : {}) as { readonly to?: unknown; readonly data?: unknown; readonly input?: unknown }
    if (typeof r.to !== "string" || r.to.toLowerCase() !== this.hubAddress) throw new RpcFailure(-32000, `eth_call: only the hub ${this.hubAddress} has code on this chain`)
    const data = typeof r.data === "string" ? r.data : typeof r.input === "string" ? r.input : "0x"
    if (!/^0x([0-9a-fA-F]{2})*$/.test(data)) throw new RpcFailure(-32602, "Invalid params: data must be hex")
    let decoded: ReturnType<typeof decodeFunctionData<typeof HubAbi>>
    try {
      decoded = decodeFunctionData({ abi: HubAbi, data: data as Hex })
    } catch {
      throw this.reverted(new HubRevert("Hub_UnknownFunction", "the calldata matches no hub function"))
    }
    const state = this.hub.state
    const result = (value: unknown): Hex => encodeFunctionResult({ abi: HubAbi, functionName: decoded.functionName, result: value } as Parameters<typeof encodeFunctionResult>[0])
    switch (decoded.functionName) {
      case "getCurrentEpoch":
        return result(state.currentEpoch())
      case "epochLength":
        return result(state.epochLengthBlocks)
      case "contexts": {
        const ctx = state.contexts.get(decoded.args[0].toLowerCase() as Bytes32)
        return result([
          ctx?.solver ?? `0x${"0".repeat(64)}`,
          ctx?.fillFeeDbps ?? 0,
          ctx?.totalProtocolFeeDbps ?? 0,
          ctx?.fillTimestamp ?? 0,
          ctx?.amountAfterFees18 ?? 0n,
          ctx?.pendingRewards18 ?? 0n,
          ctx?.status ?? 0,
        ])
      }
      case "custodiedAssets": {
        const hash = decoded.args[0].toLowerCase()
        for (const ticker of state.tickers.values()) for (const d of ticker.config.domains) if (d.assetHash === hash) return result(ticker.custodied(d.domain))
        return result(0n)
      }
      case "feeVault":
        return result(state.tickers.get(decoded.args[0].toLowerCase() as Bytes32)?.feeVault18.get(decoded.args[1].toLowerCase() as Bytes32) ?? 0n)
      case "lastClosedEpochsProcessed":
        return result(state.tickers.get(decoded.args[0].toLowerCase() as Bytes32)?.lastClosedEpochsProcessed ?? 0)
      case "invoicesLength":
        return result(BigInt(state.tickers.get(decoded.args[0].toLowerCase() as Bytes32)?.invoices.length ?? 0))
      case "settlementQueueLength":
        return result(BigInt(state.settlementQueues.get(decoded.args[0])?.size ?? 0))
      case "updateVirtualBalance":
        return result(state.updateVirtualBalance.get(decoded.args[0].toLowerCase() as Bytes32) === true)
      case "paused":
        return result(state.paused)
      default:
        return "0x"
    }
  }

  private reverted(revert: HubRevert): RpcFailure {
    return new RpcFailure(3, `execution reverted: ${revert.errorName}: ${revert.message}`, encodeErrorResult({ abi: HubAbi, errorName: "Hub_Reverted", args: [revert.errorName, revert.message] }))
  }
}

const typeHex = (type: string): Hex => (type === "eip1559" ? "0x2" : type === "eip2930" ? "0x1" : type === "eip4844" ? "0x3" : type === "eip7702" ? "0x4" : "0x0")

const stringParam = (params: readonly unknown[], i: number, what: string): string => {
  const value = params[i]
  if (typeof value !== "string") throw new RpcFailure(-32602, `Invalid params: expected ${what} at position ${i}`)
  return value
}
const hexParam = (params: readonly unknown[], i: number, what: string): Hex => {
  const value = stringParam(params, i, what)
  if (!/^0x([0-9a-fA-F]{2})*$/.test(value)) throw new RpcFailure(-32602, `Invalid params: ${what} must be 0x-prefixed hex`)
  return value as Hex
}
const addressParam = (params: readonly unknown[], i: number): Address => {
  const value = stringParam(params, i, "address")
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new RpcFailure(-32602, `Invalid params: expected a 20-byte address at position ${i}`)
  return value.toLowerCase() as Address
}

/** A transaction hash: 32 bytes of hex. */
const hashParam = (params: readonly unknown[], i: number): Hex => {
  const value = stringParam(params, i, "transaction hash")
  if (!/^0x[0-9a-fA-F]{64}$/.test(value)) throw new RpcFailure(-32602, `Invalid params: expected a 32-byte transaction hash at position ${i}`)
  return value.toLowerCase() as Hex
}

/** How many blocks before the latest a state read by block hash recognises (to say "not kept" rather than "not found"). */
const RECENT_HASHES = 256

const invalidBlockParameter = (tag: unknown): RpcFailure =>
  new RpcFailure(
    -32602,
    `Invalid params: expected a block number (hex), a tag (latest, pending, safe, finalized, earliest) or, for state reads, { blockNumber } or { blockHash } with an optional boolean requireCanonical (EIP-1898), got ${JSON.stringify(tag)?.slice(0, 80)}`,
  )
