/**
 * Test-only: a small world around a real `Hub` and a `ReadModel`, with just enough spoke behaviour to emit the
 * events the read model consumes (intent queue with indexes and dispatch message ids, fills, settlement
 * receipts). The `Spokes` service (memory and anvil backends) is the real thing; this keeps the read-model and
 * API tests independent of it. Nothing outside tests imports this file.
 */
import { encodeAbiParameters, keccak256, toHex } from "viem/utils"
import { intentId as computeIntentId } from "../domain/encoding.ts"
import { type Address, addressToBytes32, type Bytes32, bytes32ToAddress, type Hex } from "../domain/hex.ts"
import { type Intent, normalizeDecimals, NORMALIZED_DECIMALS } from "../domain/protocol.ts"
import type { HubConfigInput } from "../hub/config.ts"
import { Hub } from "../hub/hub.ts"
import { type IntentParams, makeConfig, SOLVER, timeOf } from "../hub/testing.ts"
import type { OutboundMessage } from "../hub/state.ts"
import { CollectingSink, TeeSink } from "../hub/trace.ts"
import type { SpokeEventMeta } from "./inputs.ts"
import { ReadModel, type ReadModelOptions } from "./readModel.ts"

export const USER: Address = "0x00000000000000000000000000000000000000aa"
export const FEE_ADAPTER: Address = "0x00000000000000000000000000000000000000fa"

export interface WorldIntentParams extends IntentParams {
  /** Transaction sender (default `USER`). */
  readonly from?: Address
  /** Token fee charged by the fee adapter (default 0; no `IntentWithFeesAdded` when undefined). */
  readonly tokenFee?: bigint
  readonly data?: Hex
}

export class TestWorld {
  readonly sink = new CollectingSink()
  readonly model: ReadModel
  readonly hub: Hub
  private tx = 0
  private readonly spokeNonce = new Map<number, bigint>()
  private readonly queues = new Map<number, { readonly idx: bigint; readonly intent: Intent }[]>()
  private readonly queueLast = new Map<number, bigint>()
  private messageNonce = 0n

  constructor(config: HubConfigInput = makeConfig(), options: ReadModelOptions = {}, firstBlock = 100) {
    this.model = new ReadModel(options)
    this.hub = new Hub(config, new TeeSink([this.model.hubSink(), this.sink]))
    this.model.attachHub(this.hub)
    this.hub.setBlock(firstBlock, timeOf(firstBlock))
  }

  get now(): number {
    return this.hub.state.timestamp
  }

  block(number: number): void {
    this.hub.setBlock(number, timeOf(number))
  }

  /** Moves to the first block of `epoch`. */
  epoch(epoch: number): void {
    this.block(epoch * this.hub.state.epochLengthBlocks)
  }

  meta(domain: number, from: Address = USER, gasFee = 0n): SpokeEventMeta {
    const n = ++this.tx
    return {
      domain,
      blockNumber: this.hub.state.blockNumber,
      timestamp: this.now,
      txHash: keccak256(toHex(`tx-${n}`)),
      txFrom: from,
      txNonce: n,
      gasFee,
    }
  }

  /** `FeeAdapter.newIntent` on the origin: IntentAdded (+ IntentWithFeesAdded) and a queued intent. */
  newIntent(p: WorldIntentParams = {}): { intent: Intent; id: Bytes32; txHash: Hex } {
    const origin = p.origin ?? 1
    const nonce = (this.spokeNonce.get(origin) ?? 0n) + 1n
    this.spokeNonce.set(origin, nonce)
    const intent: Intent = {
      initiator: p.initiator ?? addressToBytes32(FEE_ADAPTER),
      receiver: p.receiver ?? addressToBytes32(USER),
      inputAsset: p.inputAsset ?? this.assetOf(p.symbol ?? "DAI", origin),
      outputAsset: p.outputAsset ?? (`0x${"0".repeat(64)}` as Bytes32),
      maxFee: p.maxFee ?? 0,
      origin,
      nonce,
      timestamp: p.timestamp ?? this.now,
      ttl: p.ttl ?? 0,
      amount: p.amount ?? 100n * 10n ** 18n,
      destinations: p.destinations ?? [10],
      data: p.data ?? "0x",
    }
    const id = computeIntentId(intent)
    const idx = (this.queueLast.get(origin) ?? 0n) + 1n
    this.queueLast.set(origin, idx)
    let queue = this.queues.get(origin)
    if (queue === undefined) this.queues.set(origin, (queue = []))
    queue.push({ idx, intent })
    const meta = this.meta(origin, p.from ?? USER, 21_000n)
    this.model.onSpokeEvent({ name: "IntentAdded", intentId: id, queueIdx: idx, intent }, meta)
    if (p.tokenFee !== undefined) {
      this.model.onSpokeEvent({ name: "IntentWithFeesAdded", intentId: id, initiator: addressToBytes32(p.from ?? USER), tokenFee: p.tokenFee, nativeFee: 0n }, meta)
    }
    return { intent, id, txHash: meta.txHash }
  }

  assetOf(symbol: string, domain: number): Bytes32 {
    for (const t of this.hub.config.tickers) {
      if (t.symbol !== symbol) continue
      const d = t.domains.find((x) => x.domain === domain)
      if (d !== undefined) return d.asset
    }
    throw new Error(`${symbol} has no asset on ${domain}`)
  }

  /** `processIntentQueue` on `origin` for every queued intent; the batch reaches the hub at once. */
  dispatch(origin: number, quote = 1_000n): Bytes32 {
    const queue = this.queues.get(origin) ?? []
    this.queues.set(origin, [])
    const first = queue[0]?.idx ?? (this.queueLast.get(origin) ?? 0n) + 1n
    const messageId = keccak256(encodeAbiParameters([{ type: "uint32" }, { type: "uint256" }], [origin, ++this.messageNonce]))
    this.model.onSpokeEvent({ name: "IntentQueueProcessed", messageId, firstIdx: first, lastIdx: first + BigInt(queue.length), quote }, this.meta(origin))
    this.hub.receiveIntents(queue.map((q) => q.intent))
    this.model.onDelivery({ messageId, origin, destination: this.hub.config.hubDomain, timestamp: this.now })
    return messageId
  }

  /** `fillIntent` on the first destination, and the fill message delivered to the hub at once. */
  fill(intent: Intent, p: { readonly solver?: Bytes32; readonly fee?: number; readonly deliver?: boolean } = {}): void {
    const solver = p.solver ?? SOLVER
    const id = computeIntentId(intent)
    const domain = intent.destinations[0]!
    this.model.onSpokeEvent(
      { name: "IntentFilled", intentId: id, solver: bytes32ToAddress(solver), totalFeeDBPS: BigInt(p.fee ?? 0), queueIdx: 1n, intent },
      this.meta(domain, bytes32ToAddress(solver)),
    )
    if (p.deliver !== false) {
      this.hub.receiveFills([{ intentId: id, solver, initiator: intent.initiator, fee: p.fee ?? 0, executionTimestamp: this.now }])
    }
  }

  process(symbol = "DAI"): void {
    this.hub.processDepositsAndInvoices(symbol)
  }

  /** `processSettlementQueue` for the whole queue of `domain` (the batch is not delivered yet). */
  dispatchSettlements(domain: number): OutboundMessage | undefined {
    const size = this.hub.state.settlementQueues.get(domain)?.size ?? 0
    if (size === 0) return undefined
    const message = this.hub.processSettlementQueue(domain, size)
    this.hub.drainOutbox()
    return message
  }

  /** The batch arrives on its spoke: one `Settled` per settlement. */
  deliverSettlements(message: OutboundMessage | undefined): void {
    if (message === undefined) return
    const domain = message.destination
    this.model.onDelivery({ messageId: message.messageId, origin: message.origin, destination: domain, timestamp: this.now })
    for (const s of message.settlements) {
      const decimals = this.hub.state.assetOn(domain, s.asset)?.asset.decimals ?? NORMALIZED_DECIMALS
      this.model.onSpokeEvent(
        {
          name: "Settled",
          intentId: s.intentId,
          account: bytes32ToAddress(s.recipient),
          asset: bytes32ToAddress(s.asset),
          amount: normalizeDecimals(s.amount, NORMALIZED_DECIMALS, decimals),
        },
        this.meta(domain, "0x00000000000000000000000000000000000000e1", 50_000n),
      )
    }
  }

  /** Dispatches and delivers the whole settlement queue of `domain`. */
  settle(domain: number): void {
    this.deliverSettlements(this.dispatchSettlements(domain))
  }
}
