/**
 * The simulated world of one run: the virtual clock and event queue, the hub engine (with its input trace and
 * trace hash), the spoke chains (memory or anvil), the transport between them, the read model, and the hooks
 * agents and metrics subscribe to. Everything happens inside scheduler events, one at a time, in (time,
 * sequence) order; a chain call is awaited before the next event starts.
 *
 * Time: virtual milliseconds since the start; chain and hub timestamps are `genesis + floor(ms / 1000)`. The hub
 * block is `hubGenesisBlock + floor(seconds / hubBlockTime)` (the genesis block starts an epoch) less the block
 * ticks that fell in a `halt` outage of the hub domain; spoke chains mine a block at their block-time
 * ticks when calls are pending (empty blocks are skipped, on both backends alike).
 *
 * A halted hub (a `halt` outage of the hub domain) produces no blocks and takes no inputs: its block, epoch and
 * timestamp stay where the halt found them, `applyHub` refuses inputs (`World_HubHalted`, nothing applied or
 * traced), messages to and from it wait in the transport until the halt ends, and then the hub resumes with the
 * next block (block numbers continue; the timestamp is the clock's).
 *
 * A paused hub (a `pause` outage of the hub domain) keeps its blocks: the world applies `pause` at the window's
 * start and `unpause` at its end as hub inputs by the hub's owner (the deployer), so both are in the trace. In
 * between, a delivery to the hub is refused (`Hub_Paused`, a `Reverted` event in the trace) and the transport
 * redelivers it after its redelivery delay, until the hub takes it; keeper calls gated by the pause revert.
 */
import { type Address, addressToBytes32, type Bytes32, type Hex, toBytes32 } from "../../service/domain/hex.ts"
import { decodeMessage } from "../../service/domain/encoding.ts"
import type { FillMessage, Intent } from "../../service/domain/protocol.ts"
import { HubRevert } from "../../service/hub/errors.ts"
import type { HubEvent, HubEventSink } from "../../service/hub/events.ts"
import { Hub, type HubInput } from "../../service/hub/hub.ts"
import type { HubInputTrace } from "../../service/hub/inputLines.ts"
import { HUB_PAUSED } from "../../service/hub/pause.ts"
import type { HubObserver, OutboundMessage } from "../../service/hub/state.ts"
import { TraceHasher } from "../../service/hub/trace.ts"
import { memoryTxHash, type SpokeEventBody as ModelSpokeEvent, type SpokeEventMeta } from "../../service/indexer/inputs.ts"
import { ReadModel } from "../../service/indexer/readModel.ts"
import type { SpokeCall } from "../../service/spoke/calls.ts"
import type { SpokeEvent } from "../../service/spoke/events.ts"
import type { MemorySpokeChain } from "../../service/spoke/memory/chain.ts"
import { memorySentIntents, type SentIntents } from "../../service/spoke/memory/gateway.ts"
import { attachSettlements } from "../../service/spoke/memory/messages.ts"
import type { SpokesShape } from "../../service/spoke/spoke.ts"
import type { MinedSpokeBlock, SpokeChain, SpokeReceipt } from "../../service/spoke/types.ts"
import { type Delivery, outageMs, Transport, type TransportSpec } from "../../service/transport/transport.ts"
import { RngStreams } from "../rng.ts"
import { DEFAULT_TRANSPORT_LATENCY } from "../scenario/schema.ts"
import { Scheduler } from "../scheduler.ts"
import { chainBlockSeconds, type WorldPlan } from "./plan.ts"

/**
 * The transaction of a receipt as the read model sees it. A memory-backend transaction's hash (`memoryTxHash`) is
 * made when something first reads it: a simulation creates a million transactions and reads a few hashes.
 */
class ReceiptMeta implements SpokeEventMeta {
  readonly memoryTxIndex: number | undefined

  readonly domain: number
  readonly blockNumber: number
  readonly timestamp: number
  private hash: Hex | undefined
  readonly txFrom: Address
  readonly txNonce: number
  constructor(
    domain: number,
    blockNumber: number,
    timestamp: number,
    hash: Hex | undefined,
    index: number,
    txFrom: Address,
    txNonce: number,
  ) {
    this.domain = domain
    this.blockNumber = blockNumber
    this.timestamp = timestamp
    this.hash = hash
    this.txFrom = txFrom
    this.txNonce = txNonce
    this.memoryTxIndex = hash === undefined ? index : undefined
  }

  get txHash(): Hex {
    return (this.hash ??= memoryTxHash(this.domain, this.blockNumber, this.memoryTxIndex!))
  }
}

/** Events the read model consumes (the others are ignored by it). */
const MODEL_EVENTS = new Set<string>([
  "IntentAdded",
  "IntentFilled",
  "IntentQueueProcessed",
  "FillQueueProcessed",
  "Settled",
  "ExternalCalldataExecuted",
  "Deposited",
  "Withdrawn",
  "IntentWithFeesAdded",
  "OrderCreated",
  "MessageSent",
  "MessageReceived",
])

export type ReceiptHandler = (receipt: SpokeReceipt, block: MinedSpokeBlock) => void

export interface SpokeEventContext {
  readonly domain: number
  readonly block: MinedSpokeBlock
  /** The receipt of the world's own call, or a transaction another client sent to the chain (live devnets). */
  readonly receipt: SpokeReceipt | ForeignTransaction
}

/**
 * A transaction of a mined block that the world did not submit: on a live devnet (`clearsim up`), users sign
 * transactions (e.g. the ones `POST /intents` returns) and send them to a chain's RPC URL themselves.
 */
export interface ForeignTransaction {
  readonly foreign: true
  readonly hash: Hex
  /** Position in the block. */
  readonly index: number
  readonly from: Address
  readonly nonce: number
  readonly status: "success" | "reverted"
  /** Decoded events of the spoke contracts (none when reverted). */
  readonly events: readonly SpokeEvent[]
}

/** The transactions of a mined block in block order: hashes of all, details of those the world did not send. */
export interface BlockTransactions {
  readonly hashes: readonly Hex[]
  readonly foreign: readonly ForeignTransaction[]
}

/**
 * Where a live world learns about transactions other clients sent to its chains (simulations have none): a chain
 * is mined at its block-time tick when such transactions wait, and every transaction of a mined block is processed
 * (read model, transport of `MessageSent`, observers), not only the receipts of the world's own calls.
 */
export interface ForeignTransactionSource {
  /** Whether transactions the world did not submit wait in `domain`'s pool. */
  waiting(domain: number): Promise<boolean>
  /** Every transaction of `block`, in block order; `own` are the hashes of the world's receipts. */
  blockTransactions(domain: number, block: MinedSpokeBlock, own: ReadonlySet<string>): Promise<BlockTransactions>
}

export interface WorldObserver {
  onSpokeEvent?(event: SpokeEvent, context: SpokeEventContext): void
  onHubEvent?(event: HubEvent): void
  /** Custody changes of the hub (netting attribution). */
  onCustody?: HubObserver["onCustody"]
  /** Once per hub epoch, in order, when the clock first reaches it (before the input that reached it). */
  onEpoch?(epoch: number): void
}

export interface WorldOptions {
  readonly seed: number
  readonly spokes: SpokesShape
  /** Receives the hub's input trace: its config, then every input as it is applied (`lineTrace` for lines). */
  readonly trace?: HubInputTrace
  /** Live devnets: transactions sent to the chains by other clients (default: none). */
  readonly foreignTransactions?: ForeignTransactionSource
}

export interface WorldStats {
  spokeBlocks: number
  spokeCalls: number
  /** Reverted spoke transactions, but for the relayer's duplicate deliveries (counted apart below). */
  spokeReverts: number
  /** Those reverts by error name. */
  spokeRevertsByError: Record<string, number>
  /** Hub→spoke messages the transport duplicated: the relayer's second delivery, which the spoke's gateway refuses. */
  duplicateSpokeDeliveries: number
  hubInputs: number
  hubReverts: number
  /** Reverted hub calls by error name (keeper calls, agents' hub calls and refused deliveries alike). */
  hubRevertsByError: Record<string, number>
  duplicateHubDeliveries: number
  /** Deliveries to the hub it refused because it was paused (each is redelivered later). */
  refusedHubDeliveries: number
  conservationChecks: number
}

/** The spoke gateway's refusal of a message it already delivered. */
const DUPLICATE_DELIVERY = "SpokeGateway_ReceiveMessage_AlreadyDelivered"

export class World {
  readonly scheduler = new Scheduler()
  readonly rng: RngStreams
  readonly hub: Hub
  readonly hasher: TraceHasher
  readonly model: ReadModel
  readonly transport: Transport
  readonly spokes: SpokesShape
  readonly stats: WorldStats = {
    spokeBlocks: 0,
    spokeCalls: 0,
    spokeReverts: 0,
    spokeRevertsByError: {},
    duplicateSpokeDeliveries: 0,
    hubInputs: 0,
    hubReverts: 0,
    hubRevertsByError: {},
    duplicateHubDeliveries: 0,
    refusedHubDeliveries: 0,
    conservationChecks: 0,
  }
  private readonly observers: WorldObserver[] = []
  private readonly receiptHandlers = new Map<number, Map<number, ReceiptHandler>>()
  /** Transactions sent so far per domain and sender. */
  private readonly txNonces = new Map<number, Map<string, number>>()
  private readonly hubDelivered = new Set<string>()
  private hubBlockNumber = -1
  private hubTimestamp = -1
  private lastEpoch = -1
  /** The hub epoch at the start of the run. */
  firstEpoch = -1
  private readonly blockTimes = new Map<number, number>()
  /** The hub's `halt` outages as merged [from, to) windows in seconds, in time order. */
  /** The hub's halts, merged, on the milliseconds they cover (`outageMs`). */
  private readonly hubHalts: readonly { readonly fromMs: number; readonly toMs: number }[]
  /** The hub's `pause` outages as merged [from, to) windows in seconds, in time order. */
  readonly hubPauses: readonly { readonly from: number; readonly to: number }[]
  /** Who pauses and unpauses the hub: its owner (the deployer unless the plan's hub config names one). */
  private readonly hubOwner: Bytes32

  readonly plan: WorldPlan
  constructor(plan: WorldPlan, options: WorldOptions) {
    this.plan = plan
    this.rng = new RngStreams(options.seed)
    this.spokes = options.spokes
    this.foreign = options.foreignTransactions
    this.model = new ReadModel({ solvers: plan.agents.filter((a) => a.kind === "solver").map((a) => a.account.address) })
    this.hasher = new TraceHasher()
    const transportSpec: TransportSpec = plan.scenario.transport ?? { latency: DEFAULT_TRANSPORT_LATENCY }
    const hubOutages = (kind: "halt" | "pause") =>
      mergeWindows((transportSpec.faults?.outages ?? []).filter((o) => o.kind === kind && o.domain === plan.hubDomain).map((o) => ({ from: o.fromSeconds, to: o.toSeconds })))
    this.hubHalts = hubOutages("halt").map((h) => ({ fromMs: outageMs(h.from), toMs: outageMs(h.to) }))
    this.hubPauses = hubOutages("pause")
    // The hub's owner: the one its config names, else the deployer.
    this.hubOwner = (plan.hub.owner === undefined ? undefined : toBytes32(plan.hub.owner)) ?? World.word(plan.deployer.address)
    // The owner is written into the hub's config only when the run pauses the hub: the config line of every
    // other run's trace stays as it was.
    const hubConfig = this.hubPauses.length > 0 && plan.hub.owner === undefined ? { ...plan.hub, owner: this.hubOwner } : plan.hub
    const world = this
    const modelSink = this.model.hubSink()
    const sink: HubEventSink = {
      emit(event) {
        world.hasher.emit(event)
        modelSink.emit(event)
        for (const o of world.observers) o.onHubEvent?.(event)
      },
    }
    this.hub = new Hub(hubConfig, sink)
    this.model.attachHub(this.hub)
    const modelObserver = this.hub.state.observer
    this.hub.state.observer = {
      onInvoiceEvaluated: (...args) => modelObserver?.onInvoiceEvaluated?.(...args),
      onCustody: (ticker, domain, delta18, intentId) => {
        for (const o of this.observers) o.onCustody?.(ticker, domain, delta18, intentId)
      },
    }
    this.trace = options.trace
    this.trace?.config(hubConfig)
    this.transport = new Transport(transportSpec, (from, to) => this.rng.get(`transport/${from}>${to}`))
    for (const chain of plan.scenario.chains) this.blockTimes.set(chain.id, chainBlockSeconds(chain))
    for (const p of this.hubPauses) {
      // Scheduled before anything else is: at its instant, the pause (or unpause) comes first.
      this.scheduler.at(outageMs(p.from), "hub/pause", () => this.pauseHub("pause"))
      this.scheduler.at(outageMs(p.to), "hub/unpause", () => this.pauseHub("unpause"))
    }
  }

  private readonly trace: HubInputTrace | undefined
  private readonly foreign: ForeignTransactionSource | undefined

  observe(observer: WorldObserver): void {
    this.observers.push(observer)
  }

  // -------------------------------------------------------------------------------------------------------
  // Time

  get nowMs(): number {
    return this.scheduler.nowMs
  }

  /** Unix seconds now (chain and hub timestamps). */
  get timestamp(): number {
    return Number(this.plan.genesisTimestamp) + this.scheduler.nowSeconds
  }

  /** The hub's epoch now (moves the hub's block to the current time first; a halted hub's stays). */
  get hubEpoch(): number {
    this.syncHubBlock()
    return this.hub.currentEpoch()
  }

  /** Whether the hub is paused now (a `pause` outage of the hub domain): deliveries refused, gated calls revert. */
  get hubPaused(): boolean {
    return this.hub.paused
  }

  /** `pause`/`unpause` by the hub's owner, traced; a window the scenario loader allows never starts or ends in a halt. */
  private pauseHub(kind: "pause" | "unpause"): void {
    const revert = this.applyHub({ kind, caller: this.hubOwner })
    if (revert !== undefined) throw new Error(`World: ${kind} of the hub at t=${this.nowMs / 1000}s failed: ${revert.errorName}: ${revert.message}`)
  }

  /** Whether the hub is in a `halt` outage now: no blocks, no inputs. */
  get hubHalted(): boolean {
    return this.hubHaltedAt(this.nowMs)
  }

  private hubHaltedAt(ms: number): boolean {
    for (const h of this.hubHalts) if (ms >= h.fromMs && ms < h.toMs) return true
    return false
  }

  /** The millisecond the hub halt covering now ends (the hub takes inputs again), or undefined when the hub is not halted. */
  get hubHaltEndMs(): number | undefined {
    const ms = this.nowMs
    for (const h of this.hubHalts) if (ms >= h.fromMs && ms < h.toMs) return h.toMs
    return undefined
  }

  /** The hub's block number at virtual second `seconds`: one per block tick (`k × hubBlockTime`, k ≥ 1) not inside a hub halt. */
  hubBlockNumberAt(seconds: number): number {
    return this.hubHalts.length === 0 ? this.plan.hubGenesisBlock + Math.floor(seconds / this.plan.hubBlockTimeSeconds) : this.hubBlockAt(seconds)
  }

  private hubBlockAt(seconds: number): number {
    const blockTime = this.plan.hubBlockTimeSeconds
    const ticks = Math.floor(seconds / blockTime)
    let skipped = 0
    const blockMs = blockTime * 1000
    for (const h of this.hubHalts) {
      // Ticks k (at k·blockTime) in the halt's milliseconds, as hubHaltedAt sees them, and k <= ticks.
      const first = Math.max(1, Math.ceil(h.fromMs / blockMs))
      const last = Math.min(ticks, Math.ceil(h.toMs / blockMs) - 1)
      if (last >= first) skipped += last - first + 1
    }
    return this.plan.hubGenesisBlock + ticks - skipped
  }

  // -------------------------------------------------------------------------------------------------------
  // Hub

  /**
   * Applies one hub input now (after moving the hub's block to the current time), recording it in the trace.
   * While the hub is halted nothing is applied or recorded: the input is refused (`World_HubHalted`).
   */
  applyHub(input: HubInput): HubRevert | undefined {
    if (this.hubHalts.length > 0 && this.hubHaltedAt(this.nowMs)) {
      return new HubRevert("World_HubHalted", `the hub is halted at t=${this.nowMs / 1000}s (a halt outage of domain ${this.plan.hubDomain}): ${input.kind} not applied`)
    }
    this.syncHubBlock()
    return this.applyRecorded(input)
  }

  private applyRecorded(input: HubInput): HubRevert | undefined {
    this.trace?.input(input)
    this.stats.hubInputs++
    const revert = this.hub.apply(input)
    if (revert !== undefined) {
      this.stats.hubReverts++
      this.stats.hubRevertsByError[revert.errorName] = (this.stats.hubRevertsByError[revert.errorName] ?? 0) + 1
    }
    for (const message of this.hub.drainOutbox()) this.sendToSpoke(message)
    return revert
  }

  /** Moves the hub's block to the current time, unless the hub is halted (`force`: the genesis block at the start). */
  private syncHubBlock(force = false): void {
    if (!force && this.hubHalts.length > 0 && this.hubHaltedAt(this.nowMs)) return
    const seconds = this.scheduler.nowSeconds
    const number = this.hubBlockNumberAt(seconds)
    const timestamp = this.timestamp
    if (number === this.hubBlockNumber && timestamp === this.hubTimestamp) return
    const epochBefore = this.lastEpoch
    this.hubBlockNumber = number
    this.hubTimestamp = timestamp
    this.applyRecorded({ kind: "block", number, timestamp })
    const epoch = this.hub.currentEpoch()
    if (epoch !== epochBefore) {
      this.lastEpoch = epoch
      if (epochBefore !== -1) {
        this.hub.checkConservation()
        this.stats.conservationChecks++
        // Every epoch that began since the last input, in order (epochs without inputs included).
        for (let e = epochBefore + 1; e <= epoch; e++) for (const o of this.observers) o.onEpoch?.(e)
      }
    }
  }

  // -------------------------------------------------------------------------------------------------------
  // Spokes

  chain(domain: number): SpokeChain {
    return this.spokes.chain(domain)
  }

  /** Queues a call on `domain` for its next block; `onReceipt` gets its receipt when the block is mined. */
  submit(domain: number, from: Address, call: SpokeCall, value?: bigint, onReceipt?: ReceiptHandler): void {
    const chain = this.spokes.chain(domain)
    const handle = chain.submit(value === undefined ? { from, call } : { from, call, value })
    this.stats.spokeCalls++
    if (onReceipt !== undefined) {
      let handlers = this.receiptHandlers.get(domain)
      if (handlers === undefined) this.receiptHandlers.set(domain, (handlers = new Map()))
      handlers.set(handle.index, onReceipt)
    }
  }

  /** Registers the receipt handler of the call just queued at `index` on `domain` (raw submissions). */
  onNextReceipt(domain: number, index: number, onReceipt: ReceiptHandler): void {
    let handlers = this.receiptHandlers.get(domain)
    if (handlers === undefined) this.receiptHandlers.set(domain, (handlers = new Map()))
    handlers.set(index, onReceipt)
  }

  /** Schedules the block production of every chain (mining only when calls are pending, never while halted). */
  startChains(): void {
    for (const domain of this.spokes.domains) {
      const periodMs = this.blockTimes.get(domain)! * 1000
      this.scheduler.every(periodMs, periodMs, `mine/${domain}`, () => this.mine(domain))
    }
  }

  private mine(domain: number): void | Promise<void> {
    const chain = this.spokes.chain(domain)
    if (this.foreign !== undefined) return this.mineLive(domain)
    if (chain.pending === 0 || this.transport.isHalted(domain, this.nowMs)) return
    const timestamp = BigInt(this.timestamp)
    if (chain.backend === "memory") {
      const memory = chain as MemorySpokeChain
      try {
        this.onBlock(domain, memory.mineSync(timestamp))
        return
      } catch (error) {
        if ((error as Error).name !== "UnverifiedFeeSignatureError") throw error
      }
    }
    return chain.mine(timestamp).then((block) => this.onBlock(domain, block))
  }

  /**
   * Live: a block when the world has calls pending or other clients' transactions wait in the chain's pool, then
   * every transaction of the block in block order (the world's receipts and the others').
   */
  private async mineLive(domain: number): Promise<void> {
    const chain = this.spokes.chain(domain)
    const foreign = this.foreign!
    if (this.transport.isHalted(domain, this.nowMs)) return
    if (chain.pending === 0 && !(await foreign.waiting(domain))) return
    const block = await chain.mine(BigInt(this.timestamp))
    const own = new Set<string>()
    for (const receipt of block.receipts) if (receipt.transactionHash !== undefined) own.add(receipt.transactionHash.toLowerCase())
    const transactions = await foreign.blockTransactions(domain, block, own)
    this.onBlock(domain, block, transactions)
  }

  private onBlock(domain: number, block: MinedSpokeBlock, transactions?: BlockTransactions): void {
    this.stats.spokeBlocks++
    const handlers = this.receiptHandlers.get(domain)
    this.receiptHandlers.delete(domain)
    const blockNumber = Number(block.blockNumber)
    const timestamp = Number(block.timestamp)
    let nonces = this.txNonces.get(domain)
    if (nonces === undefined) this.txNonces.set(domain, (nonces = new Map()))
    if (transactions === undefined) {
      for (const receipt of block.receipts) this.onReceipt(domain, block, blockNumber, timestamp, nonces, handlers, receipt)
      return
    }
    // Block order: the world's receipts by hash, other clients' transactions in between.
    const own = new Map<string, SpokeReceipt>()
    for (const receipt of block.receipts) if (receipt.transactionHash !== undefined) own.set(receipt.transactionHash.toLowerCase(), receipt)
    const foreign = new Map(transactions.foreign.map((tx) => [tx.hash.toLowerCase(), tx] as const))
    for (const hash of transactions.hashes) {
      const key = hash.toLowerCase()
      const receipt = own.get(key)
      if (receipt !== undefined) {
        own.delete(key)
        this.onReceipt(domain, block, blockNumber, timestamp, nonces, handlers, receipt)
        continue
      }
      const tx = foreign.get(key)
      if (tx !== undefined) this.onTransactionEvents(domain, block, blockNumber, timestamp, tx, tx.hash, tx.index, tx.nonce)
    }
    // Receipts without a hash in the block (none on anvil, where a missing transaction is an error): last.
    for (const receipt of block.receipts) {
      if (receipt.transactionHash === undefined || own.has(receipt.transactionHash.toLowerCase())) this.onReceipt(domain, block, blockNumber, timestamp, nonces, handlers, receipt)
    }
  }

  /**
   * One of the world's receipts in its block: the sender's transaction nonce, the events, then the submitter's
   * handler. A method rather than a closure per block (tsx's `keepNames` would wrap each closure in `__name`).
   */
  private onReceipt(
    domain: number,
    block: MinedSpokeBlock,
    blockNumber: number,
    timestamp: number,
    txNonces: Map<string, number>,
    handlers: Map<number, ReceiptHandler> | undefined,
    receipt: SpokeReceipt,
  ): void {
    const txNonce = txNonces.get(receipt.from) ?? 0
    txNonces.set(receipt.from, txNonce + 1)
    if (receipt.status === "reverted") {
      // The transport's duplicate of a hub message: the relayer sends it again and the gateway refuses it, as on a
      // real chain, but it is the transport's fault, counted apart from the calls that failed.
      const name = receipt.error.name
      if (name === DUPLICATE_DELIVERY) this.stats.duplicateSpokeDeliveries++
      else {
        this.stats.spokeReverts++
        this.stats.spokeRevertsByError[name] = (this.stats.spokeRevertsByError[name] ?? 0) + 1
      }
    }
    this.onTransactionEvents(domain, block, blockNumber, timestamp, receipt, receipt.transactionHash, receipt.index, txNonce)
    handlers?.get(receipt.index)?.(receipt, block)
  }

  /**
   * The events of one transaction: the read model, the transport of `MessageSent`, the observers. `txHash` is
   * undefined for a memory-backend receipt (the hash is derived from the block and `index` when read).
   */
  private onTransactionEvents(domain: number, block: MinedSpokeBlock, blockNumber: number, timestamp: number, receipt: SpokeReceipt | ForeignTransaction, txHash: Hex | undefined, index: number, txNonce: number): void {
    const events = receipt.events
    if (events.length === 0) return
    const context: SpokeEventContext = { domain, block, receipt }
    const meta = new ReceiptMeta(domain, blockNumber, timestamp, txHash, index, receipt.from, txNonce)
    for (const event of events) {
      if (MODEL_EVENTS.has(event.name)) this.model.onSpokeEvent(event as unknown as ModelSpokeEvent, meta)
      if (event.name === "MessageSent") this.sendToHub(domain, event)
      for (const o of this.observers) o.onSpokeEvent?.(event, context)
    }
  }

  // -------------------------------------------------------------------------------------------------------
  // Transport

  private sendToHub(origin: number, event: Extract<SpokeEvent, { readonly name: "MessageSent" }>): void {
    // The event, not its `message`: a memory spoke's hex is only made when read, and with the intents handed
    // over it never is.
    const message = { messageId: event.messageId, origin, destination: this.plan.hubDomain, event }
    // A memory spoke hands over the intents it encoded: decoding the bytes would give the same values.
    const sent = memorySentIntents(event)
    for (const delivery of this.transport.send(message, this.nowMs)) this.scheduleHubDelivery(delivery, sent)
  }

  private scheduleHubDelivery(delivery: Delivery<HubBoundMessage>, sent: SentIntents | undefined): void {
    this.scheduler.at(delivery.atMs, `deliver/hub/${delivery.message.messageId}`, () => this.deliverToHub(delivery, sent))
  }

  private deliverToHub(delivery: Delivery<HubBoundMessage>, sent?: SentIntents): void {
    const message = delivery.message
    // Never inside a hub halt: the transport moves every arrival past its destination's outages, halts included.
    // The hub gateway (like Hyperlane's mailbox) accepts a message id once.
    if (this.hubDelivered.has(message.messageId)) {
      this.stats.duplicateHubDeliveries++
      return
    }
    // Decoded before anything is applied (the message of a spoke is well-formed; if not, nothing is traced).
    const decoded = sent === undefined ? decodeMessage(message.event.message) : undefined
    this.syncHubBlock()
    // The ids the memory spoke computed ride along: the hub does not hash each intent again (replays do).
    let revert: HubRevert | undefined
    if (sent !== undefined) revert = this.applyRecorded({ kind: "intents", intents: sent.intents, knownIds: sent.ids })
    else if (decoded?.type === "INTENT") revert = this.applyRecorded({ kind: "intents", intents: decoded.intents as Intent[] })
    else if (decoded?.type === "FILL") revert = this.applyRecorded({ kind: "fills", fills: decoded.fills as FillMessage[] })
    if (revert?.errorName === HUB_PAUSED) {
      // Refused by the paused hub: not delivered (the id may still be delivered), retried after the delay.
      this.stats.refusedHubDeliveries++
      this.scheduleHubDelivery(this.transport.redeliver(delivery, this.nowMs), sent)
      return
    }
    this.hubDelivered.add(message.messageId)
    this.model.onDelivery({ messageId: message.messageId, origin: message.origin, destination: this.plan.hubDomain, timestamp: this.timestamp })
  }

  private sendToSpoke(message: OutboundMessage): void {
    const bytes = message.message
    for (const delivery of this.transport.send({ messageId: message.messageId, origin: message.origin, destination: message.destination }, this.nowMs)) {
      this.scheduler.at(delivery.atMs, `deliver/${message.destination}/${message.messageId}`, () => {
        const call: SpokeCall = { kind: "gateway.receiveMessage", origin: message.origin, messageId: message.messageId, message: bytes }
        // A memory spoke takes the hub's settlements along and does not decode the bytes again.
        attachSettlements(call, message.settlements)
        this.submit(message.destination, this.plan.relayer.address, call)
      })
    }
  }

  // -------------------------------------------------------------------------------------------------------
  // Running

  /** Runs every scheduled event up to the horizon (seconds), then stops. */
  async run(horizonSeconds: number, onProgress?: (nowMs: number) => void): Promise<void> {
    this.begin()
    let lastReport = -1
    await this.scheduler.run(horizonSeconds * 1000, (_label, timeMs) => {
      if (onProgress !== undefined) {
        const minute = Math.floor(timeMs / 60_000)
        if (minute !== lastReport) {
          lastReport = minute
          onProgress(timeMs)
        }
      }
    })
    this.finish()
  }

  /** Before the first event: the hub's block at the start, and the first epoch. (`run` does it; live devnets too.) */
  begin(): void {
    if (this.hubBlockNumber < 0) this.syncHubBlock(true)
    if (this.firstEpoch < 0) this.firstEpoch = this.hub.currentEpoch()
  }

  /** Moves the hub's block to the current time (a `block` input in the trace when it changed). */
  advanceHub(): void {
    this.syncHubBlock()
  }

  /** After the last event: the hub's block at the end (unless halted), and the conservation check. */
  finish(): void {
    this.syncHubBlock()
    this.hub.checkConservation()
    this.stats.conservationChecks++
  }

  /** The trace hash so far. */
  traceHash(): Bytes32 {
    return this.hasher.digest()
  }

  /** Releases what outlives a run (the trace hasher's worker thread of a large run); the trace hash is gone after. */
  close(): void {
    this.hasher.close()
  }

  /** An address as the hub's bytes32. */
  static word(address: Address): Bytes32 {
    return addressToBytes32(address)
  }
}

/** A message on its way to the hub: a spoke's `MessageSent` event. */
interface HubBoundMessage {
  readonly messageId: Bytes32
  readonly origin: number
  readonly destination: number
  readonly event: { readonly message: Hex }
}

/** Overlapping or touching [from, to) windows merged, in time order. */
const mergeWindows = (windows: readonly { readonly from: number; readonly to: number }[]): { from: number; to: number }[] => {
  const sorted = [...windows].sort((a, b) => a.from - b.from)
  const out: { from: number; to: number }[] = []
  for (const w of sorted) {
    const last = out[out.length - 1]
    if (last !== undefined && w.from <= last.to) last.to = Math.max(last.to, w.to)
    else out.push({ from: w.from, to: w.to })
  }
  return out
}
