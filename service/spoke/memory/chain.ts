/**
 * `MemorySpokeChain`: the in-memory twin of one spoke domain. Calls are queued by `submit` and executed by `mine`
 * in submission order, one block at a time; a reverted call changes nothing. Everything is synchronous except the
 * recovery of new fee signatures, which `mine` does before running the block (`mineSync` runs a block whose
 * signatures are all known, for hot loops). Reads are synchronous on `read`, and promised on the `SpokeChain`
 * methods like on the anvil backend.
 */
import { BoundedMemo } from "../../domain/boundedMemo.ts"
import type { Address, Bytes32, Hex } from "../../domain/hex.ts"
import { type IntentStatus, IntentStatus as Status } from "../../domain/protocol.ts"
import { decodeSpokeCall, type SpokeCall, validateSpokeCall } from "../calls.ts"
import type { SpokeEvent } from "../events.ts"
import type { SpokeAddresses, SpokeLayout } from "../layout.ts"
import {
  type MinedSpokeBlock,
  type QueuedIntent,
  type RawSubmission,
  type SpokeChain,
  type SpokeReader,
  type SpokeReceipt,
  type SpokeSubmission,
  type SubmittedCall,
  SpokeTimestampError,
  UnknownSpokeCallError,
  type XERC20Limits,
} from "../types.ts"
import { SpokeRevert } from "./journal.ts"
import type { FeePayload } from "./signature.ts"
import { MemoryWorld } from "./world.ts"

export interface MemorySpokeChainOptions {
  /** Keep every event for `events(fromBlock)`. Default true; turn off for long runs that only read receipts. */
  readonly retainEvents?: boolean
  /** Check each call's arguments at `submit` (as viem's encoder would). Default true. */
  readonly validateCalls?: boolean
}

interface Queued {
  readonly from: Address
  readonly call: SpokeCall
  readonly value: bigint
}

const EMPTY: readonly [] = []

export class MemorySpokeChain implements SpokeChain {
  readonly backend = "memory" as const
  readonly domain: number
  readonly hubDomain: number
  readonly addresses: SpokeAddresses
  /** The contracts' state (read-only use outside this module). */
  readonly world: MemoryWorld
  /** Synchronous reads. */
  readonly read: SpokeReader
  private queue: Queued[] = []
  private readonly eventLog: SpokeEvent[] = []
  private readonly retainEvents: boolean
  private readonly validateCalls: boolean

  readonly layout: SpokeLayout
  constructor(layout: SpokeLayout, genesisTimestamp: bigint, options: MemorySpokeChainOptions = {}) {
    this.layout = layout
    this.domain = layout.domain
    this.hubDomain = layout.hubDomain
    this.addresses = layout.addresses
    this.world = new MemoryWorld(layout, Number(genesisTimestamp))
    this.retainEvents = options.retainEvents ?? true
    this.validateCalls = options.validateCalls ?? true
    this.read = makeReader(this.world)
  }

  get pending(): number {
    return this.queue.length
  }

  submit(submission: SpokeSubmission): SubmittedCall {
    if (this.validateCalls) validateSpokeCall(submission.call)
    const index = this.queue.length
    this.queue.push({ from: this.lower(submission.from), call: submission.call, value: submission.value ?? 0n })
    return { domain: this.domain, index }
  }

  /** Senders in lowercase, one string per sender (a few hundred accounts send every call). */
  private readonly senders = new BoundedMemo<string, Address>(4096, (address) => address.toLowerCase() as Address)

  private lower(address: Address): Address {
    return this.senders.get(address)
  }

  submitRaw(submission: RawSubmission): SubmittedCall {
    const call = decodeSpokeCall(this.addresses, submission.to, submission.data)
    if (call === undefined) throw new UnknownSpokeCallError(this.domain, submission.to, submission.data.slice(0, 10))
    return this.submit(submission.value === undefined ? { from: submission.from, call } : { from: submission.from, call, value: submission.value })
  }

  /** Recovers the fee signatures of the queued calls that the cache does not know yet. */
  async verifyPending(): Promise<void> {
    const unknown: FeePayload[] = []
    for (const { call, value } of this.queue) {
      let payload: FeePayload | undefined
      if (call.kind === "feeAdapter.newIntent" || call.kind === "feeAdapter.newIntentPermit2") {
        const { fee, deadline, sig } = call.feeParams
        payload = { fee, nativeFee: value, inputAsset: call.inputAsset.toLowerCase() as Address, deadline, sig }
      } else if (call.kind === "feeAdapter.newOrder" && call.params.length > 0) {
        payload = { fee: call.fee, nativeFee: value, inputAsset: call.params[0]!.inputAsset.toLowerCase() as Address, deadline: call.deadline, sig: call.sig }
      }
      if (payload !== undefined && this.world.signatures.signer(payload) === undefined) unknown.push(payload)
    }
    if (unknown.length > 0) await this.world.signatures.recover(unknown)
  }

  async mine(timestamp: bigint): Promise<MinedSpokeBlock> {
    await this.verifyPending()
    return this.mineSync(timestamp)
  }

  /**
   * Runs the queued calls in one block at `timestamp`. Throws `UnverifiedFeeSignatureError` (and mines nothing)
   * when a call carries a fee signature that was never recovered; `mine` recovers them first.
   */
  mineSync(timestamp: bigint): MinedSpokeBlock {
    const world = this.world
    if (timestamp < BigInt(world.now)) throw new SpokeTimestampError(this.domain, timestamp, BigInt(world.now))
    const items = this.queue
    this.queue = []
    const previous = { now: world.now, blockNumber: world.blockNumber }
    const blockStart = world.journal.mark()
    world.now = Number(timestamp)
    world.blockNumber = previous.blockNumber + 1n
    world.logBase = 0
    const receipts: SpokeReceipt[] = new Array(items.length)
    // The block's events, for `events(fromBlock)`: only collected when kept.
    const blockEvents: SpokeEvent[] | undefined = this.retainEvents ? [] : undefined
    try {
      for (let index = 0; index < items.length; index++) {
        const { from, call, value } = items[index]!
        world.txIndex = index
        world.callEvents = []
        const mark = world.journal.mark()
        try {
          world.execute(from, value, call)
          const events = world.callEvents
          world.logBase += events.length
          if (blockEvents !== undefined) for (const event of events) blockEvents.push(event)
          receipts[index] = { status: "success", index, from, call, events }
        } catch (error) {
          if (!(error instanceof SpokeRevert)) throw error
          world.journal.rollback(mark)
          receipts[index] = { status: "reverted", index, from, call, error: { name: error.name, args: error.args }, events: EMPTY }
        }
      }
    } catch (error) {
      // Not a revert: an unrecovered signature, an unsupported call or a bug. Undo the whole block and put its
      // calls back in the queue, so that the chain is exactly as before `mineSync`.
      world.journal.rollback(blockStart)
      world.callEvents = []
      world.now = previous.now
      world.blockNumber = previous.blockNumber
      this.queue = items.concat(this.queue)
      throw error
    }
    world.journal.commit()
    world.callEvents = []
    if (blockEvents !== undefined) for (const event of blockEvents) this.eventLog.push(event)
    return { domain: this.domain, blockNumber: world.blockNumber, timestamp, receipts }
  }

  async events(fromBlock: bigint, toBlock?: bigint): Promise<readonly SpokeEvent[]> {
    return this.eventsSync(fromBlock, toBlock)
  }

  eventsSync(fromBlock: bigint, toBlock?: bigint): readonly SpokeEvent[] {
    const log = this.eventLog
    let lo = 0
    let hi = log.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (log[mid]!.blockNumber < fromBlock) lo = mid + 1
      else hi = mid
    }
    const out: SpokeEvent[] = []
    for (let i = lo; i < log.length; i++) {
      const event = log[i]!
      if (toBlock !== undefined && event.blockNumber > toBlock) break
      out.push(event)
    }
    return out
  }

  // Promised reads (same values as `read`).
  blockNumber = async (): Promise<bigint> => this.read.blockNumber()
  timestamp = async (): Promise<bigint> => this.read.timestamp()
  erc20Balance = async (token: Address, account: Address): Promise<bigint> => this.read.erc20Balance(token, account)
  allowance = async (token: Address, owner: Address, spender: Address): Promise<bigint> => this.read.allowance(token, owner, spender)
  totalSupply = async (token: Address): Promise<bigint> => this.read.totalSupply(token)
  virtualBalance = async (asset: Address, account: Address): Promise<bigint> => this.read.virtualBalance(asset, account)
  status = async (intentId: Bytes32): Promise<IntentStatus> => this.read.status(intentId)
  intentQueue = async (limit?: number): Promise<readonly QueuedIntent[]> => this.read.intentQueue(limit)
  intentQueueLength = async (): Promise<number> => this.read.intentQueueLength()
  fillQueueLength = async (): Promise<number> => this.read.fillQueueLength()
  quoteMessage = async (destination: number, message: Hex): Promise<bigint> => this.read.quoteMessage(destination, message)
  mintable = async (recipient: Address, asset: Address): Promise<bigint> => this.read.mintable(recipient, asset)
  xerc20Limits = async (token: Address, bridge?: Address): Promise<XERC20Limits> => this.read.xerc20Limits(token, bridge)
  nonce = async (): Promise<bigint> => this.read.nonce()
  paused = async (): Promise<boolean> => this.read.paused()
  delivered = async (messageId: Bytes32): Promise<boolean> => this.read.delivered(messageId)
}

const lc = (value: string): Address => value.toLowerCase() as Address

const makeReader = (world: MemoryWorld): SpokeReader => ({
  blockNumber: () => world.blockNumber,
  timestamp: () => BigInt(world.now),
  erc20Balance: (token, account) => world.tokens.get(lc(token))?.balanceOf(lc(account)) ?? 0n,
  allowance: (token, owner, spender) => world.tokens.get(lc(token))?.allowance(lc(owner), lc(spender)) ?? 0n,
  totalSupply: (token) => world.tokens.get(lc(token))?.totalSupply ?? 0n,
  virtualBalance: (asset, account) => world.spoke.balanceOf(lc(asset), lc(account)),
  status: (intentId) => world.spoke.status.get(intentId.toLowerCase() as Bytes32) ?? Status.NONE,
  intentQueue: (limit) => world.spoke.queuedIntents(limit ?? Number.MAX_SAFE_INTEGER),
  intentQueueLength: () => world.spoke.intentQueueLast - world.spoke.intentQueueFirst + 1,
  fillQueueLength: () => world.spoke.fillQueueLast - world.spoke.fillQueueFirst + 1,
  quoteMessage: (_destination, message) => world.gateway.quoteMessage(message),
  mintable: (recipient, asset) => world.module.mintableOf(lc(recipient), lc(asset)),
  xerc20Limits: (token, bridge) => {
    const xerc20 = world.tokens.get(lc(token))
    if (xerc20 === undefined || xerc20.kind !== "xerc20") throw new Error(`${token} is not an xERC20 token of domain ${world.domain}`)
    return xerc20.limits(lc(bridge ?? world.module.address), world.now)
  },
  nonce: () => world.spoke.nonce,
  paused: () => world.spoke.paused,
  delivered: (messageId) => world.gateway.delivered.has(messageId.toLowerCase() as Bytes32),
})
