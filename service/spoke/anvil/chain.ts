/**
 * `AnvilSpokeChain`: one spoke domain deployed on an anvil chain of a `ChainPool`. `submit` encodes the call and
 * queues it on the chain's batched sender (explicit nonces and gas, signed locally); `mine(timestamp)` sends the
 * queue in JSON-RPC batches, mines exactly one block at `timestamp`, and decodes every outcome: logs with the
 * contracts' ABIs, reverts with `ClearsimErrorsAbi`. Reads are `eth_call`s pinned to the last mined block, so
 * time-dependent views (xERC20 limits) see the same `block.timestamp` as the memory backend.
 */
import type { Abi, Hex, Log } from "viem"
import { decodeFunctionResult, encodeFunctionData, toEventSelector } from "viem/utils"
import { type Chain, createSender, type DevAccount, type TransactionOutcome, type TransactionSender } from "../../../sim/chains/index.ts"
import type { Address, Bytes32 } from "../../domain/hex.ts"
import type { Intent, IntentStatus } from "../../domain/protocol.ts"
import { ClearingSpokeAbi, SpokeGatewayAbi, TestERC20Abi, XERC20ModuleAbi, XERC20TokenAbi } from "../abi.ts"
import { decodeSpokeCall, encodeSpokeCall, type SpokeCall } from "../calls.ts"
import type { SpokeEvent } from "../events.ts"
import type { SpokeAddresses, SpokeLayout } from "../layout.ts"
import {
  type MinedSpokeBlock,
  type QueuedIntent,
  type RawSubmission,
  type SpokeChain,
  type SpokeReceipt,
  type SpokeSubmission,
  type SubmittedCall,
  SpokeTimestampError,
  UnknownSpokeCallError,
  type XERC20Limits,
} from "../types.ts"
import { decodeSpokeLog, SPOKE_ERRORS_ABI, spokeErrorFromRevert } from "./decode.ts"
import { gasLimitFor } from "./gas.ts"

export interface AnvilSpokeChainOptions {
  /** Fetch full receipts on every block, for `gasUsed` (slow on large blocks). Default false. */
  readonly receipts?: boolean
  /** Transactions per JSON-RPC batch (see the sender). Default: the sender's. */
  readonly batchSize?: number
}

/** Transactions anvil refused or left out of the block: the run has diverged from what the backend models. */
export class AnvilTransactionsFailedError extends Error {
  override readonly name = "AnvilTransactionsFailedError"
  readonly domain: number
  readonly block: MinedSpokeBlock | undefined
  readonly failures: readonly { readonly index: number; readonly status: string; readonly reason: string }[]
  constructor(
    domain: number,
    block: MinedSpokeBlock | undefined,
    failures: readonly { readonly index: number; readonly status: string; readonly reason: string }[],
  ) {
    super(
      `Domain ${domain}: ${failures.length} transaction(s) were not executed: ${failures
        .slice(0, 5)
        .map((f) => `#${f.index} ${f.status} (${f.reason})`)
        .join("; ")}`,
    )
    this.domain = domain
    this.block = block
    this.failures = failures
  }
}

/** A `from` that is not one of the pool's dev accounts (the anvil backend signs locally). */
export class UnknownSenderError extends Error {
  override readonly name = "UnknownSenderError"
  readonly domain: number
  readonly from: string
  constructor(domain: number, from: string) {
    super(`Domain ${domain}: ${from} is not a dev account of the chain pool, so the anvil backend cannot sign for it.`)
    this.domain = domain
    this.from = from
  }
}

/** A transaction of a mined block, whoever sent it (see `blockTransactions`). */
export interface BlockTransaction {
  readonly hash: Hex
  /** Position in the block. */
  readonly index: number
  readonly from: Address
  readonly nonce: number
  readonly to: Address | null
  readonly status: "success" | "reverted"
  /** Decoded events of this domain's contracts (none when reverted). */
  readonly events: readonly SpokeEvent[]
}

interface PendingCall {
  readonly from: Address
  readonly call: SpokeCall
}

const INTENT_ADDED_TOPIC = toEventSelector(ClearingSpokeAbi.find((item) => item.type === "event" && item.name === "IntentAdded")!)

const lc = <T extends string>(value: string): T => value.toLowerCase() as T

interface ReadCall {
  readonly to: Address
  readonly abi: Abi
  readonly functionName: string
  readonly args: readonly unknown[]
}

export class AnvilSpokeChain implements SpokeChain {
  readonly backend = "anvil" as const
  readonly domain: number
  readonly hubDomain: number
  readonly addresses: SpokeAddresses
  private readonly sender: TransactionSender
  private readonly accounts = new Map<string, DevAccount>()
  private pendingCalls: PendingCall[] = []
  /** Intents by id, from the `IntentAdded` logs this backend decoded (for `intentQueue`). */
  private readonly intents = new Map<Bytes32, Intent>()
  private headNumber: bigint
  private headTimestamp: bigint

  readonly chain: Chain
  readonly layout: SpokeLayout
  constructor(
    chain: Chain,
    layout: SpokeLayout,
    head: { readonly number: bigint; readonly timestamp: bigint },
    options: AnvilSpokeChainOptions = {},
  ) {
    this.chain = chain
    this.layout = layout
    this.domain = layout.domain
    this.hubDomain = layout.hubDomain
    this.addresses = layout.addresses
    for (const account of chain.accounts) this.accounts.set(account.address.toLowerCase(), account)
    this.sender = createSender(chain, {
      errorAbi: SPOKE_ERRORS_ABI,
      receipts: options.receipts ?? false,
      ...(options.batchSize === undefined ? {} : { batchSize: options.batchSize }),
    })
    this.headNumber = head.number
    this.headTimestamp = head.timestamp
  }

  get pending(): number {
    return this.pendingCalls.length
  }

  /** Signs the queued transactions now (optional: `mine` signs whatever is unsigned), e.g. while waiting for I/O. */
  sign(): Promise<void> {
    return this.sender.sign()
  }

  /** Forgets the cached nonces: call after sending from the pool's dev accounts by other means. */
  resetNonces(): void {
    this.sender.resetNonces()
  }

  submit(submission: SpokeSubmission): SubmittedCall {
    const from = lc<Address>(submission.from)
    const account = this.accounts.get(from)
    if (account === undefined) throw new UnknownSenderError(this.domain, submission.from)
    const { to, data } = encodeSpokeCall(this.addresses, submission.call)
    const gas = gasLimitFor(submission.call, (data.length - 2) >> 1)
    const value = submission.value ?? 0n
    this.sender.queue(value === 0n ? { from: account, to, data, gas } : { from: account, to, data, gas, value })
    this.pendingCalls.push({ from, call: submission.call })
    return { domain: this.domain, index: this.pendingCalls.length - 1 }
  }

  submitRaw(submission: RawSubmission): SubmittedCall {
    const call = decodeSpokeCall(this.addresses, submission.to, submission.data)
    if (call === undefined) throw new UnknownSpokeCallError(this.domain, submission.to, submission.data.slice(0, 10))
    return this.submit(submission.value === undefined ? { from: submission.from, call } : { from: submission.from, call, value: submission.value })
  }

  async mine(timestamp: bigint): Promise<MinedSpokeBlock> {
    if (timestamp < this.headTimestamp) throw new SpokeTimestampError(this.domain, timestamp, this.headTimestamp)
    const calls = this.pendingCalls
    this.pendingCalls = []
    const result = await this.sender.flush(timestamp)
    this.headNumber = result.block.number
    this.headTimestamp = result.block.timestamp
    const failures: { index: number; status: string; reason: string }[] = []
    const receipts = result.outcomes.map((outcome, index): SpokeReceipt => {
      const { from, call } = calls[index]!
      const base = { index, from, call, transactionHash: outcome.hash, ...gasUsedOf(outcome) }
      switch (outcome.status) {
        case "success": {
          const events: SpokeEvent[] = []
          for (const log of outcome.logs) {
            const event = decodeSpokeLog(log as Log)
            if (event === undefined) continue
            if (event.name === "IntentAdded") this.intents.set(event.intentId, event.intent)
            events.push(event)
          }
          return { ...base, status: "success", events }
        }
        case "reverted":
          return { ...base, status: "reverted", error: spokeErrorFromRevert(outcome.revert), events: [] }
        case "rejected":
          failures.push({ index, status: "rejected", reason: outcome.error.rpcMessage })
          return { ...base, status: "reverted", error: { name: "Rejected", args: [outcome.error.rpcMessage] }, events: [] }
        case "dropped":
          failures.push({ index, status: "dropped", reason: outcome.reason })
          return { ...base, status: "reverted", error: { name: "Dropped", args: [outcome.reason] }, events: [] }
      }
    })
    const block: MinedSpokeBlock = { domain: this.domain, blockNumber: result.block.number, timestamp: result.block.timestamp, receipts }
    if (failures.length > 0) throw new AnvilTransactionsFailedError(this.domain, block, failures)
    return block
  }

  async events(fromBlock: bigint, toBlock?: bigint): Promise<readonly SpokeEvent[]> {
    const address = this.contractAddresses()
    const logs = (await this.chain.rpc.request("eth_getLogs", [
      { address, fromBlock: toQuantity(fromBlock), toBlock: toBlock === undefined ? toQuantity(this.headNumber) : toQuantity(toBlock) },
    ])) as RpcLog[]
    const events: SpokeEvent[] = []
    for (const raw of logs) {
      const event = decodeSpokeLog(fromRpcLog(raw))
      if (event === undefined) continue
      if (event.name === "IntentAdded") this.intents.set(event.intentId, event.intent)
      events.push(event)
    }
    return events
  }

  /** Addresses of this domain's contracts (the logs `events` and `blockTransactions` decode). */
  private contractAddresses(): Address[] {
    const { addresses } = this
    return [
      addresses.spoke,
      addresses.gateway,
      addresses.feeAdapter,
      addresses.xerc20Module,
      addresses.permit2,
      ...Object.values(addresses.tokens).map((token) => token.address),
      ...(addresses.callTarget === undefined ? [] : [addresses.callTarget]),
    ]
  }

  /**
   * Transactions waiting in anvil's pool that this backend has not sent: other clients' (a live devnet's users
   * send signed transactions to the chain's RPC URL). This backend's own are sent only inside `mine`.
   */
  async poolPending(): Promise<number> {
    const status = (await this.chain.rpc.request("txpool_status", [])) as { readonly pending?: unknown }
    return typeof status.pending === "string" || typeof status.pending === "number" ? Number(status.pending) : 0
  }

  /**
   * Every transaction of block `number`, in block order: the hashes of all, and for those not in `skip`
   * (lowercase hashes, typically this backend's own) the sender, nonce, status and decoded events of the spoke
   * contracts. One `eth_getBlockByNumber`, then one batch of transactions and receipts when there are others.
   */
  async blockTransactions(number: bigint, skip: ReadonlySet<string> = new Set()): Promise<{ readonly hashes: readonly Hex[]; readonly others: readonly BlockTransaction[] }> {
    const block = (await this.chain.rpc.request("eth_getBlockByNumber", [toQuantity(number), false])) as { readonly transactions?: readonly Hex[] } | null
    if (block === null) throw new Error(`domain ${this.domain}: block ${number} not found`)
    const hashes = (block.transactions ?? []).map((hash) => lc<Hex>(hash))
    const others = hashes.flatMap((hash, index) => (skip.has(hash) ? [] : [{ hash, index }]))
    if (others.length === 0) return { hashes, others: [] }
    const outcomes = await this.chain.rpc.batch(
      others.flatMap(({ hash }) => [
        { method: "eth_getTransactionByHash", params: [hash] },
        { method: "eth_getTransactionReceipt", params: [hash] },
      ]),
    )
    const known = new Set(this.contractAddresses().map((a) => a.toLowerCase()))
    const transactions = others.map(({ hash, index }, k): BlockTransaction => {
      const txOutcome = outcomes[2 * k]
      const receiptOutcome = outcomes[2 * k + 1]
      if (txOutcome === undefined || !txOutcome.ok) throw txOutcome?.error ?? new Error(`domain ${this.domain}: no answer for transaction ${hash}`)
      if (receiptOutcome === undefined || !receiptOutcome.ok) throw receiptOutcome?.error ?? new Error(`domain ${this.domain}: no receipt for ${hash}`)
      const tx = txOutcome.result as { readonly from: string; readonly nonce: Hex; readonly to: string | null }
      const receipt = receiptOutcome.result as { readonly status: Hex; readonly logs: readonly RpcLog[] }
      const events: SpokeEvent[] = []
      for (const raw of receipt.logs) {
        if (!known.has(raw.address.toLowerCase())) continue
        const event = decodeSpokeLog(fromRpcLog(raw))
        if (event === undefined) continue
        if (event.name === "IntentAdded") this.intents.set(event.intentId, event.intent)
        events.push(event)
      }
      return {
        hash,
        index,
        from: lc<Address>(tx.from),
        nonce: Number(BigInt(tx.nonce)),
        to: tx.to === null ? null : lc<Address>(tx.to),
        status: BigInt(receipt.status) === 1n ? "success" : "reverted",
        events,
      }
    })
    return { hashes, others: transactions }
  }

  // ---------------------------------------------------------------------------------------------------------
  // Reads: one JSON-RPC batch of eth_call at the head block.

  private async readMany(calls: readonly ReadCall[]): Promise<unknown[]> {
    if (calls.length === 0) return []
    const block = toQuantity(this.headNumber)
    const outcomes = await this.chain.rpc.batch(
      calls.map((call) => ({
        method: "eth_call",
        params: [{ to: call.to, data: encodeFunctionData({ abi: call.abi, functionName: call.functionName, args: call.args }) }, block],
      })),
    )
    return outcomes.map((outcome, i) => {
      const call = calls[i]!
      if (!outcome.ok) throw outcome.error
      return decodeFunctionResult({ abi: call.abi, functionName: call.functionName, data: outcome.result as Hex })
    })
  }

  private async readOne<T>(to: Address, abi: Abi, functionName: string, args: readonly unknown[] = []): Promise<T> {
    const [value] = await this.readMany([{ to, abi, functionName, args }])
    return value as T
  }

  blockNumber = async (): Promise<bigint> => this.headNumber
  timestamp = async (): Promise<bigint> => this.headTimestamp
  erc20Balance = (token: Address, account: Address): Promise<bigint> => this.readOne(token, TestERC20Abi, "balanceOf", [account])
  allowance = (token: Address, owner: Address, spender: Address): Promise<bigint> =>
    this.readOne(token, TestERC20Abi, "allowance", [owner, spender])
  totalSupply = (token: Address): Promise<bigint> => this.readOne(token, TestERC20Abi, "totalSupply")
  virtualBalance = (asset: Address, account: Address): Promise<bigint> =>
    this.readOne(this.addresses.spoke, ClearingSpokeAbi, "balances", [asset, account])
  status = async (intentId: Bytes32): Promise<IntentStatus> =>
    (await this.readOne<number>(this.addresses.spoke, ClearingSpokeAbi, "status", [intentId])) as IntentStatus
  fillQueueLength = (): Promise<number> => this.queueLength("fillQueueFirst", "fillQueueLast")
  intentQueueLength = (): Promise<number> => this.queueLength("intentQueueFirst", "intentQueueLast")
  private async queueLength(first: "fillQueueFirst" | "intentQueueFirst", last: "fillQueueLast" | "intentQueueLast"): Promise<number> {
    const [firstIdx, lastIdx] = (await this.readMany([
      { to: this.addresses.spoke, abi: ClearingSpokeAbi, functionName: first, args: [] },
      { to: this.addresses.spoke, abi: ClearingSpokeAbi, functionName: last, args: [] },
    ])) as [bigint, bigint]
    return Number(lastIdx - firstIdx + 1n)
  }
  quoteMessage = (destination: number, message: Hex): Promise<bigint> =>
    this.readOne(this.addresses.gateway, SpokeGatewayAbi, "quoteMessage", [destination, message])
  mintable = (recipient: Address, asset: Address): Promise<bigint> =>
    this.readOne(this.addresses.xerc20Module, XERC20ModuleAbi, "mintable", [recipient, asset])
  xerc20Limits = async (token: Address, bridge?: Address): Promise<XERC20Limits> => {
    const who = bridge ?? this.addresses.xerc20Module
    const read = (functionName: string): ReadCall => ({ to: token, abi: XERC20TokenAbi, functionName, args: [who] })
    const [mintingCurrentLimit, burningCurrentLimit, mintingMaxLimit, burningMaxLimit] = (await this.readMany([
      read("mintingCurrentLimitOf"),
      read("burningCurrentLimitOf"),
      read("mintingMaxLimitOf"),
      read("burningMaxLimitOf"),
    ])) as [bigint, bigint, bigint, bigint]
    return { mintingCurrentLimit, burningCurrentLimit, mintingMaxLimit, burningMaxLimit }
  }
  nonce = (): Promise<bigint> => this.readOne(this.addresses.spoke, ClearingSpokeAbi, "nonce")
  paused = (): Promise<boolean> => this.readOne(this.addresses.spoke, ClearingSpokeAbi, "paused")
  delivered = (messageId: Bytes32): Promise<boolean> => this.readOne(this.addresses.gateway, SpokeGatewayAbi, "delivered", [messageId])

  intentQueue = async (limit?: number): Promise<readonly QueuedIntent[]> => {
    const spoke = this.addresses.spoke
    const [first, last] = (await this.readMany([
      { to: spoke, abi: ClearingSpokeAbi, functionName: "intentQueueFirst", args: [] },
      { to: spoke, abi: ClearingSpokeAbi, functionName: "intentQueueLast", args: [] },
    ])) as [bigint, bigint]
    let end = last
    if (limit !== undefined && first + BigInt(limit) - 1n < end) end = first + BigInt(limit) - 1n
    const indexes: bigint[] = []
    for (let i = first; i <= end; i++) indexes.push(i)
    const ids = (await this.readMany(
      indexes.map((i) => ({ to: spoke, abi: ClearingSpokeAbi, functionName: "intentQueue", args: [i] })),
    )) as Hex[]
    const missing = ids.map((id) => lc<Bytes32>(id)).filter((id) => !this.intents.has(id))
    if (missing.length > 0) await this.loadIntents(missing)
    return ids.map((id, k) => {
      const intentId = lc<Bytes32>(id)
      const intent = this.intents.get(intentId)
      if (intent === undefined) throw new Error(`domain ${this.domain}: no IntentAdded log for queued intent ${intentId}`)
      return { queueIdx: indexes[k]!, intentId, intent }
    })
  }

  /** Reads the `IntentAdded` logs of intents created by transactions this backend did not send. */
  private async loadIntents(ids: readonly Bytes32[]): Promise<void> {
    const logs = (await this.chain.rpc.request("eth_getLogs", [
      { address: this.addresses.spoke, fromBlock: "0x0", toBlock: toQuantity(this.headNumber), topics: [INTENT_ADDED_TOPIC, [...ids]] },
    ])) as RpcLog[]
    for (const raw of logs) {
      const event = decodeSpokeLog(fromRpcLog(raw))
      if (event?.name === "IntentAdded") this.intents.set(event.intentId, event.intent)
    }
  }
}

const toQuantity = (value: bigint): Hex => `0x${value.toString(16)}`

interface RpcLog {
  readonly address: string
  readonly topics: readonly Hex[]
  readonly data: Hex
  readonly blockNumber: Hex
  readonly logIndex: Hex
  readonly transactionIndex: Hex
  readonly transactionHash: Hex
  readonly blockHash: Hex
}

const fromRpcLog = (raw: RpcLog): Log =>
  ({
    address: raw.address,
    topics: [...raw.topics],
    data: raw.data,
    blockNumber: BigInt(raw.blockNumber),
    logIndex: Number(raw.logIndex),
    transactionIndex: Number(raw.transactionIndex),
    transactionHash: raw.transactionHash,
    blockHash: raw.blockHash,
    removed: false,
  }) as unknown as Log

const gasUsedOf = (outcome: TransactionOutcome): { gasUsed?: bigint } =>
  (outcome.status === "success" || outcome.status === "reverted") && outcome.receipt !== undefined ? { gasUsed: outcome.receipt.gasUsed } : {}
