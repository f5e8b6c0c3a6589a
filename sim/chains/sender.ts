/**
 * Batched transaction sender for one chain. `queue` records transactions; `flush(timestamp)` turns them into
 * exactly one block:
 *
 * 1. nonces: kept per account here (one `eth_getTransactionCount` per account when first seen or after a revert,
 *    a refusal or a drop), assigned in queue order;
 * 2. sign locally (viem, EIP-1559, explicit gas and fees) and submit as JSON-RPC batches of `batchSize`, one
 *    batch on the wire at a time; the next batch is signed while anvil processes the previous one;
 * 3. mine one block at `timestamp`; check that it holds the sender's transactions in submission order;
 * 4. read outcomes: logs from `eth_getLogs` (one call per block). A transaction with logs succeeded (a revert
 *    discards its logs), so only the others, and contract creations (for the created address), need a trace:
 *    `trace_transaction` for each of them in one batch, or `trace_block` when they are more than half of the
 *    block; none at all when every transaction logged. Full receipts only on request, because anvil builds them
 *    in O(n^2) per block.
 *
 * Deterministic: same queue + same chain state + same timestamp => same transactions, same block hash.
 */
import { setImmediate as yieldToEventLoop } from "node:timers/promises"
import {
  type Abi,
  type Address,
  type ContractFunctionName,
  encodeFunctionData,
  type EncodeFunctionDataParameters,
  formatLog,
  formatTransactionReceipt,
  type Hash,
  type Hex,
  keccak256,
  type LocalAccount,
  type Log,
  type TransactionReceipt,
} from "viem"
import { privateKeyToAccount } from "viem/accounts"
import type { Chain, MinedBlock } from "./chain.ts"
import {
  ConcurrentFlushError,
  InvalidChainOptionError,
  NondeterministicSignatureError,
  RpcResponseError,
  TransactionOrderError,
  UnexpectedChainStateError,
} from "./errors.ts"
import { decodeRevert, type FlushResult, type TransactionOutcome } from "./outcomes.ts"
import type { RpcCall } from "./rpc.ts"
import { decodeResult, LogsJson, QuantityJson, TraceBlockJson, type TraceJson } from "./rpcResults.ts"

export interface SenderOptions {
  /**
   * Transactions per JSON-RPC batch. anvil handles up to about 50 calls of a batch in order (100 were seen
   * reordered); 30 keeps a margin and costs little (see README). The mined order is checked on every flush.
   * Batches of transactions with large calldata are smaller: at most about 1 MB of raw transactions each.
   * @default 30
   */
  readonly batchSize?: number
  /** @default 100 gwei (the base fee starts at 1 gwei and only moves with block contents) */
  readonly maxFeePerGas?: bigint
  /** @default 0n */
  readonly maxPriorityFeePerGas?: bigint
  /** ABI used to decode reverts of transactions queued without one (errors of every contract, typically). */
  readonly errorAbi?: Abi
  /** Fetch full receipts on every flush (slow on big blocks: about 0.3 s for 2,000 transactions). @default false */
  readonly receipts?: boolean
}

/** A transaction to queue. `from` is any viem local account (dev accounts are). */
export interface TransactionRequest {
  readonly from: LocalAccount
  /** Omit for a contract creation. */
  readonly to?: Address
  readonly value?: bigint
  readonly data?: Hex
  /** Explicit gas limit: there is no estimation (at most 16,777,216 per transaction since Osaka). */
  readonly gas: bigint
  /** ABI to decode this transaction's revert (falls back to the sender's `errorAbi`). */
  readonly abi?: Abi
}

/** A contract call to queue: calldata is encoded from `abi`, `functionName` and `args`, which also decode reverts. */
export type ContractTransactionRequest<
  abi extends Abi | readonly unknown[] = Abi,
  functionName extends ContractFunctionName<abi, "nonpayable" | "payable"> = ContractFunctionName<
    abi,
    "nonpayable" | "payable"
  >,
> = EncodeFunctionDataParameters<abi, functionName> & {
  readonly from: LocalAccount
  readonly address: Address
  readonly gas: bigint
  readonly value?: bigint
}

/** Handle of a queued transaction: its outcome is `flushResult.outcomes[index]`. */
export interface QueuedTransaction {
  readonly index: number
  readonly from: Address
}

export interface FlushOptions {
  /** Overrides the sender's `receipts` option for this flush. */
  readonly receipts?: boolean
}

interface QueuedItem {
  readonly index: number
  readonly from: LocalAccount
  readonly address: Address
  readonly to: Address | undefined
  readonly value: bigint
  readonly data: Hex | undefined
  readonly gas: bigint
  readonly abi: Abi | undefined
  signed: { readonly nonce: number; readonly raw: Hex; readonly hash: Hash } | undefined
}

type Submission = { readonly accepted: true } | { readonly accepted: false; readonly error: RpcResponseError }

const DEFAULT_BATCH_SIZE = 30
const RECEIPT_BATCH_SIZE = 200

/**
 * viem signs with RFC 6979 nonces unless `setSignEntropy` was called somewhere in the process; then every
 * signature (and transaction hash) differs between runs. Checked once per process against a known vector.
 */
const KNOWN_SIGNATURE =
  "0x02f862018080018252089400000000000000000000000000000000000000010180c001a0d7d07a1ff4d1c946e556f81b58bce6f22fcaf61784de55207a85b0cf5cf3e669a0791c5af2125bcd162a661c426cc00e20cbf444e3f6aaed2b41a59346da483fd2"
let signingCheck: Promise<void> | undefined
const checkDeterministicSigning = (): Promise<void> => {
  signingCheck ??= (async () => {
    const account = privateKeyToAccount("0x0000000000000000000000000000000000000000000000000000000000000001")
    const transaction = {
      type: "eip1559",
      chainId: 1,
      nonce: 0,
      to: "0x0000000000000000000000000000000000000001",
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: 1n,
      maxPriorityFeePerGas: 0n,
    } as const
    const [first, second] = [await account.signTransaction(transaction), await account.signTransaction(transaction)]
    if (first !== KNOWN_SIGNATURE || second !== KNOWN_SIGNATURE) throw new NondeterministicSignatureError()
  })()
  return signingCheck
}

const chunksOf = <T>(items: readonly T[], size: number): T[][] => {
  const chunks: T[][] = []
  for (let start = 0; start < items.length; start += size) chunks.push(items.slice(start, start + size))
  return chunks
}

/**
 * Characters of raw transactions per `eth_sendRawTransaction` batch: anvil refuses a request body of a few
 * megabytes (-32600), which 30 transactions of 50 kB calldata (100 kB of hex each) already make.
 */
const MAX_BATCH_CHARS = 1 << 20
/** What a signed transaction adds to its calldata's hex (type, nonce, fees, gas, to, value, signature, quoting). */
const RAW_OVERHEAD_CHARS = 512

/**
 * Queue-order chunks of at most `size` items whose raw transactions (estimated from their calldata) fit in
 * `MAX_BATCH_CHARS`; an item larger than that goes alone.
 */
const sendChunksOf = (items: readonly QueuedItem[], size: number): QueuedItem[][] => {
  const chunks: QueuedItem[][] = []
  let chunk: QueuedItem[] = []
  let chars = 0
  for (const item of items) {
    const itemChars = (item.data?.length ?? 0) + RAW_OVERHEAD_CHARS
    if (chunk.length > 0 && (chunk.length === size || chars + itemChars > MAX_BATCH_CHARS)) {
      chunks.push(chunk)
      chunk = []
      chars = 0
    }
    chunk.push(item)
    chars += itemChars
  }
  if (chunk.length > 0) chunks.push(chunk)
  return chunks
}

const toQuantity = (value: bigint | number): Hex => `0x${value.toString(16)}`

export class TransactionSender {
  readonly chainId: number
  /** `eth_call` on the chain (viem's `publicClient.call`). */
  readonly call: Chain["publicClient"]["call"]
  /** Typed contract read (viem's `publicClient.readContract`). */
  readonly readContract: Chain["publicClient"]["readContract"]
  private readonly batchSize: number
  private readonly maxFeePerGas: bigint
  private readonly maxPriorityFeePerGas: bigint
  private readonly errorAbi: Abi | undefined
  private readonly receipts: boolean
  private queued: QueuedItem[] = []
  /** Next nonce per lowercase address; absent means "ask the chain". */
  private readonly nonces = new Map<string, number>()
  private nonceStateVersion: number
  /** A flush or sign is running: both assign nonces, so they must not interleave. */
  private busy = false

  readonly chain: Chain
  constructor(chain: Chain, options: SenderOptions = {}) {
    this.chain = chain
    const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE
    if (!Number.isSafeInteger(batchSize) || batchSize < 1) {
      throw new InvalidChainOptionError("batchSize", "a positive integer", batchSize)
    }
    this.chainId = chain.chainId
    this.batchSize = batchSize
    this.maxFeePerGas = options.maxFeePerGas ?? 100_000_000_000n
    this.maxPriorityFeePerGas = options.maxPriorityFeePerGas ?? 0n
    if (this.maxPriorityFeePerGas > this.maxFeePerGas) {
      throw new InvalidChainOptionError(
        "maxPriorityFeePerGas",
        `at most maxFeePerGas (${this.maxFeePerGas})`,
        this.maxPriorityFeePerGas,
      )
    }
    this.errorAbi = options.errorAbi
    this.receipts = options.receipts ?? false
    this.nonceStateVersion = chain.stateVersion
    this.call = chain.publicClient.call
    this.readContract = chain.publicClient.readContract
  }

  /** Number of transactions waiting for the next flush. */
  get pending(): number {
    return this.queued.length
  }

  /** Queues a transaction for the next flush. */
  queue(request: TransactionRequest): QueuedTransaction {
    if (request.gas < 21_000n) throw new InvalidChainOptionError("gas", "at least 21000", request.gas)
    const item: QueuedItem = {
      index: this.queued.length,
      from: request.from,
      address: request.from.address,
      to: request.to,
      value: request.value ?? 0n,
      data: request.data,
      gas: request.gas,
      abi: request.abi,
      signed: undefined,
    }
    this.queued.push(item)
    return { index: item.index, from: item.address }
  }

  /** Queues a contract call; its ABI also decodes the call's revert. */
  queueContract<
    const abi extends Abi | readonly unknown[],
    functionName extends ContractFunctionName<abi, "nonpayable" | "payable">,
  >(request: ContractTransactionRequest<abi, functionName>): QueuedTransaction {
    const data = encodeFunctionData(request as EncodeFunctionDataParameters)
    const base = { from: request.from, to: request.address, data, gas: request.gas, abi: request.abi as Abi }
    return this.queue(request.value === undefined ? base : { ...base, value: request.value })
  }

  /**
   * Assigns nonces to and signs every queued transaction now, so that a later `flush` only submits and mines.
   * Optional: `flush` signs whatever is unsigned. Useful to keep signing out of a timed section.
   */
  async sign(): Promise<void> {
    this.chain.assertRunning("sign transactions")
    if (this.busy) throw new ConcurrentFlushError(this.chainId, "sign()")
    this.busy = true
    try {
      await checkDeterministicSigning()
      this.syncStateVersion()
      await this.assignAndSign(this.queued)
    } finally {
      this.busy = false
    }
  }

  /** Forgets every cached nonce (call after sending from these accounts by other means). */
  resetNonces(): void {
    this.nonces.clear()
    for (const item of this.queued) item.signed = undefined
  }

  /**
   * Submits everything queued, mines ONE block at `timestamp`, and reports one outcome per transaction. If it
   * throws (RPC failure, ordering violation), that flush's transactions are discarded and nonces reloaded.
   */
  async flush(timestamp: bigint, options: FlushOptions = {}): Promise<FlushResult> {
    this.chain.assertRunning("flush transactions")
    if (this.busy) throw new ConcurrentFlushError(this.chainId, "flush()")
    this.busy = true
    try {
      await checkDeterministicSigning()
      this.syncStateVersion()
      const items = this.queued
      this.queued = []
      const submissions = await this.signAndSubmit(items)
      const block = await this.chain.mineBlock(timestamp)
      const included = this.checkInclusion(items, submissions, block)
      await this.dropLeftovers(items, submissions, included)
      // A refused or dropped transaction leaves a nonce gap: ask the chain for these accounts next time.
      for (const item of items) {
        if (submissions[item.index]?.accepted !== true || !included.has(item.index)) {
          this.nonces.delete(item.address.toLowerCase())
        }
      }
      const outcomes = await this.readOutcomes(items, submissions, included, block, options.receipts ?? this.receipts)
      return { chainId: this.chainId, block, outcomes }
    } catch (error) {
      // The chain's view of these accounts is unknown now: reload nonces on the next flush.
      this.nonces.clear()
      throw error
    } finally {
      this.busy = false
    }
  }

  private syncStateVersion(): void {
    if (this.nonceStateVersion === this.chain.stateVersion) return
    this.nonceStateVersion = this.chain.stateVersion
    this.resetNonces()
  }

  /** One `eth_getTransactionCount(pending)` batch for the accounts whose next nonce is not known. */
  private async loadNonces(items: readonly QueuedItem[]): Promise<void> {
    const unknown = [...new Set(items.map((item) => item.address.toLowerCase()))].filter((key) => !this.nonces.has(key))
    if (unknown.length === 0) return
    const outcomes = await this.chain.rpc.batch(
      unknown.map((address) => ({ method: "eth_getTransactionCount", params: [address, "pending"] })),
    )
    for (const [position, outcome] of outcomes.entries()) {
      if (!outcome.ok) throw outcome.error
      const count = decodeResult(QuantityJson, outcome.result, {
        chainId: this.chainId,
        url: this.chain.rpcUrl,
        method: "eth_getTransactionCount",
      })
      const key = unknown[position]
      if (key !== undefined && !this.nonces.has(key)) this.nonces.set(key, Number(BigInt(count)))
    }
  }

  private async signItem(item: QueuedItem): Promise<void> {
    const key = item.address.toLowerCase()
    const nonce = this.nonces.get(key)
    if (nonce === undefined) throw new Error(`internal: no nonce loaded for ${item.address}`)
    this.nonces.set(key, nonce + 1)
    const raw = await item.from.signTransaction({
      type: "eip1559",
      chainId: this.chainId,
      nonce,
      ...(item.to === undefined ? {} : { to: item.to }),
      value: item.value,
      ...(item.data === undefined ? {} : { data: item.data }),
      gas: item.gas,
      maxFeePerGas: this.maxFeePerGas,
      maxPriorityFeePerGas: this.maxPriorityFeePerGas,
    })
    item.signed = { nonce, raw, hash: keccak256(raw) }
  }

  private async assignAndSign(items: readonly QueuedItem[]): Promise<void> {
    await this.loadNonces(items.filter((item) => item.signed === undefined))
    for (const item of items) if (item.signed === undefined) await this.signItem(item)
  }

  /**
   * Signs chunk k+1 while anvil processes chunk k (node and anvil run on different cores); batches leave one
   * at a time, in queue order, so anvil's FIFO pool sees submission order.
   */
  private async signAndSubmit(items: readonly QueuedItem[]): Promise<readonly Submission[]> {
    await this.loadNonces(items.filter((item) => item.signed === undefined))
    const submissions: Submission[] = new Array(items.length)
    let inflight: Promise<void> | undefined
    for (const chunk of sendChunksOf(items, this.batchSize)) {
      for (const item of chunk) if (item.signed === undefined) await this.signItem(item)
      if (inflight !== undefined) await inflight
      const sending = this.submitChunk(chunk, submissions)
      sending.catch(() => undefined) // awaited below; this only keeps Node from flagging it unhandled meanwhile
      inflight = sending
      // Let Node write the request before the next chunk's signing occupies the thread (I/O scheduling only).
      await yieldToEventLoop()
    }
    if (inflight !== undefined) await inflight
    return submissions
  }

  private async submitChunk(chunk: readonly QueuedItem[], submissions: Submission[]): Promise<void> {
    const calls: RpcCall[] = chunk.map((item) => ({ method: "eth_sendRawTransaction", params: [item.signed?.raw] }))
    const outcomes = await this.chain.rpc.batch(calls)
    for (const [position, outcome] of outcomes.entries()) {
      const item = chunk[position]
      if (item === undefined) continue
      if (!outcome.ok) {
        submissions[item.index] = { accepted: false, error: outcome.error }
        continue
      }
      if (typeof outcome.result !== "string" || outcome.result.toLowerCase() !== item.signed?.hash) {
        throw new UnexpectedChainStateError(
          this.chainId,
          `hash returned by eth_sendRawTransaction for transaction #${item.index}`,
          item.signed?.hash ?? "?",
          String(outcome.result),
        )
      }
      submissions[item.index] = { accepted: true }
    }
  }

  /** Maps each accepted transaction to its block position, checking submission order. */
  private checkInclusion(
    items: readonly QueuedItem[],
    submissions: readonly Submission[],
    block: MinedBlock,
  ): ReadonlyMap<number, number> {
    const positions = new Map<string, number>()
    for (const [position, hash] of block.transactions.entries()) positions.set(hash.toLowerCase(), position)
    const included = new Map<number, number>()
    const order: { item: QueuedItem; position: number }[] = []
    for (const item of items) {
      if (submissions[item.index]?.accepted !== true || item.signed === undefined) continue
      const position = positions.get(item.signed.hash)
      if (position === undefined) continue
      included.set(item.index, position)
      order.push({ item, position })
    }
    const sorted = order.map((entry) => entry.position).sort((a, b) => a - b)
    for (const [k, entry] of order.entries()) {
      const expectedPosition = sorted[k] ?? -1
      if (entry.position !== expectedPosition) {
        throw new TransactionOrderError(
          this.chainId,
          block.number,
          entry.item.index,
          entry.item.signed?.hash ?? "?",
          block.transactions[expectedPosition] ?? "?",
        )
      }
    }
    return included
  }

  /**
   * Accepted but not mined: remove from anvil's pool so it cannot appear in a later block. By account, because
   * `anvil_dropTransaction` leaves future-nonce ("queued") transactions in place; the sender owns these nonces.
   */
  private async dropLeftovers(
    items: readonly QueuedItem[],
    submissions: readonly Submission[],
    included: ReadonlyMap<number, number>,
  ): Promise<void> {
    const accounts = new Set<Address>()
    for (const item of items) {
      if (submissions[item.index]?.accepted === true && !included.has(item.index)) accounts.add(item.address)
    }
    if (accounts.size === 0) return
    const outcomes = await this.chain.rpc.batch(
      [...accounts].map((address) => ({ method: "anvil_removePoolTransactions", params: [address] })),
    )
    const failed = outcomes.find((outcome) => !outcome.ok)
    if (failed !== undefined && !failed.ok) throw failed.error
  }

  private async readOutcomes(
    items: readonly QueuedItem[],
    submissions: readonly Submission[],
    included: ReadonlyMap<number, number>,
    block: MinedBlock,
    withReceipts: boolean,
  ): Promise<readonly TransactionOutcome[]> {
    const logs = included.size > 0 ? await this.readLogs(block) : new Map<string, Log[]>()
    // Transactions whose status the logs do not tell (no logs: success or revert), and creations (address).
    const untold: Hash[] = []
    for (const item of items) {
      if (item.signed === undefined || !included.has(item.index)) continue
      if (item.to === undefined || !logs.has(item.signed.hash)) untold.push(item.signed.hash)
    }
    const traces = await this.readTraces(block, untold, included.size)
    const receipts = withReceipts ? await this.readReceipts(items, included) : new Map<string, TransactionReceipt>()
    return items.map((item): TransactionOutcome => {
      const signed = item.signed
      if (signed === undefined) throw new Error(`internal: transaction #${item.index} was never signed`)
      const base = { index: item.index, from: item.address, nonce: signed.nonce, hash: signed.hash }
      const submission = submissions[item.index]
      if (submission === undefined || !submission.accepted) {
        const error = submission?.accepted === false ? submission.error : undefined
        if (error === undefined) throw new Error(`internal: transaction #${item.index} has no submission result`)
        return { ...base, status: "rejected", error }
      }
      const transactionIndex = included.get(item.index)
      if (transactionIndex === undefined) {
        return { ...base, status: "dropped", reason: `not included in block ${block.number}; removed from the pool` }
      }
      const receipt = receipts.get(signed.hash)
      const withReceipt = receipt === undefined ? {} : { receipt }
      const transactionLogs = logs.get(signed.hash)
      const logIndex = transactionLogs?.[0]?.transactionIndex
      if (logIndex !== undefined && logIndex !== transactionIndex) {
        const what = `transactionIndex of the logs of ${signed.hash} in block ${block.number}`
        throw new UnexpectedChainStateError(this.chainId, what, String(transactionIndex), String(logIndex))
      }
      const trace = traces.get(signed.hash)
      if (trace === undefined && (transactionLogs === undefined || item.to === undefined)) {
        const what = `trace of ${signed.hash} in block ${block.number}`
        throw new UnexpectedChainStateError(this.chainId, what, "a top-level trace", "none")
      }
      if (trace !== undefined && trace.error !== undefined && trace.error !== null) {
        if (transactionLogs !== undefined) {
          const what = `status of ${signed.hash} in block ${block.number}, which has logs`
          throw new UnexpectedChainStateError(this.chainId, what, "success", `reverted (${trace.error})`)
        }
        const data = (trace.result?.output ?? "0x") as Hex
        const revert = decodeRevert(data, item.abi ?? this.errorAbi, trace.error)
        return { ...base, status: "reverted", transactionIndex, revert, ...withReceipt }
      }
      const created = trace?.type === "create" ? (trace.result?.address ?? undefined) : undefined
      return {
        ...base,
        status: "success",
        transactionIndex,
        logs: transactionLogs ?? [],
        contractAddress: created as Address | undefined,
        ...withReceipt,
      }
    })
  }

  /** `eth_getLogs` of the block, by lowercase transaction hash (only transactions that logged have an entry). */
  private async readLogs(block: MinedBlock): Promise<Map<string, Log[]>> {
    const result = await this.chain.rpc.request("eth_getLogs", [{ blockHash: block.hash }])
    const logs = new Map<string, Log[]>()
    const context = { chainId: this.chainId, url: this.chain.rpcUrl, method: "eth_getLogs" }
    for (const log of decodeResult(LogsJson, result, context)) {
      const key = log.transactionHash.toLowerCase()
      const list = logs.get(key)
      const formatted = formatLog(log as Parameters<typeof formatLog>[0]) as Log
      if (list === undefined) logs.set(key, [formatted])
      else list.push(formatted)
    }
    return logs
  }

  /**
   * Top-level traces of `hashes`, by lowercase hash: one batch of `trace_transaction` (linear in the traces of
   * those transactions only), or `trace_block` when they are more than half of the block's `included`
   * transactions (one call is cheaper then; see README). Nothing when `hashes` is empty.
   */
  private async readTraces(block: MinedBlock, hashes: readonly Hash[], included: number): Promise<Map<string, TraceJson>> {
    const traces = new Map<string, TraceJson>()
    if (hashes.length === 0) return traces
    const context = { chainId: this.chainId, url: this.chain.rpcUrl }
    const keep = (list: readonly TraceJson[] | null) => {
      for (const trace of list ?? []) {
        if (trace.traceAddress.length === 0 && typeof trace.transactionHash === "string") {
          traces.set(trace.transactionHash.toLowerCase(), trace)
        }
      }
    }
    if (2 * hashes.length > included) {
      const result = await this.chain.rpc.request("trace_block", [toQuantity(block.number)])
      keep(decodeResult(TraceBlockJson, result, { ...context, method: "trace_block" }))
      return traces
    }
    const outcomes = await this.chain.rpc.batch(hashes.map((hash) => ({ method: "trace_transaction", params: [hash] })))
    for (const outcome of outcomes) {
      if (!outcome.ok) throw outcome.error
      keep(decodeResult(TraceBlockJson, outcome.result, { ...context, method: "trace_transaction" }))
    }
    return traces
  }

  private async readReceipts(
    items: readonly QueuedItem[],
    included: ReadonlyMap<number, number>,
  ): Promise<Map<string, TransactionReceipt>> {
    const hashes = items.flatMap((item) => (included.has(item.index) && item.signed !== undefined ? [item.signed.hash] : []))
    const receipts = new Map<string, TransactionReceipt>()
    for (const chunk of chunksOf(hashes, RECEIPT_BATCH_SIZE)) {
      const outcomes = await this.chain.rpc.batch(chunk.map((hash) => ({ method: "eth_getTransactionReceipt", params: [hash] })))
      for (const [position, outcome] of outcomes.entries()) {
        const hash = chunk[position]
        if (hash === undefined) continue
        if (!outcome.ok) throw outcome.error
        if (outcome.result === null || typeof outcome.result !== "object") {
          throw new UnexpectedChainStateError(this.chainId, `receipt of ${hash}`, "a receipt", String(outcome.result))
        }
        receipts.set(hash, formatTransactionReceipt(outcome.result as Parameters<typeof formatTransactionReceipt>[0]))
      }
    }
    return receipts
  }
}

/** A sender for `chain` (one per chain and per group of accounts it owns the nonces of). */
export const createSender = (chain: Chain, options: SenderOptions = {}): TransactionSender =>
  new TransactionSender(chain, options)
