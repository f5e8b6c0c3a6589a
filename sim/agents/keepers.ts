/**
 * Keepers (the production "lighthouse", reference §2.4): they dispatch each spoke's intent and fill queues and
 * the hub's settlement queues when a queue holds `maxSize` items or its oldest item is `maxAgeSeconds` old, call
 * `processDepositsAndInvoices` per ticker and `handleExpiredIntents` on their crons. Defaults are mainnet's (a
 * chain may have thresholds and crons of its own, `keepers.chains`):
 * size 1 / age 60 s, crons 60 s (fill queue 180 s, expired intents 600 s). A spoke dispatch takes at most
 * `MAX_QUEUE_BATCH` items and at most `MAX_DISPATCH_MESSAGE_BYTES` of message (`intentBatchSize`, `fillBatchSize`).
 * While the hub is halted (a `halt` outage of the hub domain) the hub crons skip their turn: the hub takes no
 * transactions; the first turn after the halt finds the queues and invoices where they were.
 */
import { intentTupleSize } from "../../service/domain/encoding.ts"
import type { Intent } from "../../service/domain/protocol.ts"
import type { Address, Bytes32, Hex } from "../../service/domain/hex.ts"
import { settlementBatchGasLimit } from "../../service/hub/handler.ts"
import type { KeeperSpec } from "../scenario/schema.ts"
import { XERC20_DURATION } from "../../service/spoke/types.ts"
import type { World } from "../world/world.ts"

/** Most intents or fills per dispatch (a transaction may use at most 16.7M gas since EIP-7825). */
export const MAX_QUEUE_BATCH = 200
/**
 * Longest INTENT or FILL message one dispatch sends (bytes of the encoded message, 256 KiB). The gas of a
 * `processIntentQueue` grows with its message, whose intents carry their calldata (`POST /intents` takes up to
 * 50,000 bytes each): about 40 gas per byte while the EIP-7623 calldata floor dominates (non-zero calldata), then
 * memory expansion, quadratic in the message, takes over. Measured on anvil with 50,000 non-zero calldata bytes per
 * intent: 5 intents (252,800 bytes) 10.06M gas, 8 intents (404,384 bytes) 16.64M, 9 over the 16,777,216 cap
 * (the transaction is refused). At 256 KiB the worst case is about 10.5M gas. Ordinary intents (no calldata,
 * 512 message bytes each) give 102,560 bytes at `MAX_QUEUE_BATCH` and fills 160 bytes each: the bound never splits
 * them. It is computed from the intents' data lengths, the same on every backend.
 */
export const MAX_DISPATCH_MESSAGE_BYTES = 262_144
/** Most settlements per hub batch (their delivery is one spoke transaction). */
export const MAX_SETTLEMENT_BATCH = 200

export interface KeeperStats {
  intentDispatches: number
  fillDispatches: number
  settlementDispatches: number
  processCalls: number
  expiredHandled: number
  debtMints: number
  reverts: number
  /** The reverts by error name (a spoke contract's error, or the hub's, e.g. `Hub_Paused`). */
  revertsByError: Record<string, number>
}

/** Byte length of a FILL message of `n` fills: envelope (3 words) + array (2 words) + 5 words per fill. */
export const fillMessageLength = (n: number): number => 5 * 32 + 160 * n
/**
 * Byte length of an INTENT message of `intents`: envelope (3 words) + array (2 words) + an offset word and the
 * tuple per intent (the length of `encodeIntentMessage(intents)`, without encoding it).
 */
export const intentMessageLength = (intents: readonly Intent[]): number => {
  let length = 5 * 32 + 32 * intents.length
  for (const intent of intents) length += intentTupleSize(intent)
  return length
}
/**
 * How many of `queue` (oldest first) one intent dispatch takes: the longest prefix of at most `MAX_QUEUE_BATCH`
 * intents whose INTENT message is at most `maxBytes` long, and at least one (an intent too large to fit alone goes
 * alone: the queue is processed in order).
 */
export const intentBatchSize = (queue: readonly Intent[], maxBytes: number = MAX_DISPATCH_MESSAGE_BYTES): number => {
  const limit = Math.min(queue.length, MAX_QUEUE_BATCH)
  let length = 5 * 32
  let n = 0
  while (n < limit) {
    const next = length + 32 + intentTupleSize(queue[n]!)
    if (n > 0 && next > maxBytes) break
    length = next
    n++
  }
  return n
}
/** How many of `queued` fills one fill dispatch takes: at most `MAX_QUEUE_BATCH`, and a FILL message of at most `maxBytes` (fills are 160 bytes each). */
export const fillBatchSize = (queued: number, maxBytes: number = MAX_DISPATCH_MESSAGE_BYTES): number =>
  Math.min(queued, MAX_QUEUE_BATCH, Math.max(1, Math.floor((maxBytes - fillMessageLength(0)) / 160)))
const zeros = (length: number): Hex => `0x${"00".repeat(length)}`

type QueueThreshold = NonNullable<KeeperSpec["intentQueue"]>

export const startKeepers = (world: World, spec: KeeperSpec = {}): KeeperStats => {
  const stats: KeeperStats = { intentDispatches: 0, fillDispatches: 0, settlementDispatches: 0, processCalls: 0, expiredHandled: 0, debtMints: 0, reverts: 0, revertsByError: {} }
  const reverted = (error: string): void => {
    stats.reverts++
    stats.revertsByError[error] = (stats.revertsByError[error] ?? 0) + 1
  }
  const keeper = world.plan.keeper.address
  const hubDomain = world.plan.hubDomain
  /** A queue's thresholds on `domain`: the chain's own fields (`keepers.chains`) over the keepers' defaults. */
  const thresholdOn = (domain: number, queue: "intentQueue" | "fillQueue" | "settlementQueue"): QueueThreshold | undefined => {
    const own = spec.chains?.find((c) => c.chain === domain)?.[queue]
    return own === undefined ? spec[queue] : { ...spec[queue], ...own }
  }
  const due = (size: number, oldestAgeSeconds: number, threshold: { maxSize?: number; maxAgeSeconds?: number } | undefined) =>
    size > 0 && (size >= (threshold?.maxSize ?? 1) || oldestAgeSeconds >= (threshold?.maxAgeSeconds ?? 60))

  const fillTimesByDomain = new Map<number, number[]>()
  // One observer for every chain's fill queue (most events are neither fills nor fill dispatches).
  world.observe({
    onSpokeEvent: (event, context) => {
      if (event.name === "IntentFilled") fillTimesByDomain.get(context.domain)?.push(world.timestamp)
      else if (event.name === "FillQueueProcessed") fillTimesByDomain.get(context.domain)?.splice(0, Number(event.lastIdx - event.firstIdx))
    },
  })
  for (const domain of world.spokes.domains) {
    const chain = world.chain(domain)
    const intentQueue = thresholdOn(domain, "intentQueue")
    const fillQueue = thresholdOn(domain, "fillQueue")
    let intentInFlight = false
    world.scheduler.every((intentQueue?.cronSeconds ?? 60) * 1000, 0, `keeper/intents/${domain}`, async () => {
      if (intentInFlight) return
      const queue = await chain.intentQueue(MAX_QUEUE_BATCH)
      const oldest = queue[0]
      if (oldest === undefined) return
      // A batch holds at most MAX_QUEUE_BATCH intents, but a size threshold above it is judged on the whole queue.
      const size = queue.length === MAX_QUEUE_BATCH && (intentQueue?.maxSize ?? 1) > MAX_QUEUE_BATCH ? await chain.intentQueueLength() : queue.length
      if (!due(size, world.timestamp - oldest.intent.timestamp, intentQueue)) return
      const queued = queue.map((q) => q.intent)
      const batch = intentBatchSize(queued)
      const intents = batch === queued.length ? queued : queued.slice(0, batch)
      // The gateway's quote depends on the message's length only (`baseFee + feePerByte * message.length`).
      const fee = await chain.quoteMessage(hubDomain, zeros(intentMessageLength(intents)))
      intentInFlight = true
      world.submit(domain, keeper, { kind: "spoke.processIntentQueue", intents }, fee, (receipt) => {
        intentInFlight = false
        if (receipt.status === "success") stats.intentDispatches++
        else reverted(receipt.error.name)
      })
    })
    let fillInFlight = false
    // Times of the fills in this chain's fill queue, oldest first (the age threshold is the oldest fill's).
    const fillTimes: number[] = []
    fillTimesByDomain.set(domain, fillTimes)
    world.scheduler.every((fillQueue?.cronSeconds ?? 180) * 1000, 0, `keeper/fills/${domain}`, async () => {
      if (fillInFlight) return
      const length = await chain.fillQueueLength()
      if (length === 0 || !due(length, world.timestamp - (fillTimes[0] ?? world.timestamp), fillQueue)) return
      const amount = fillBatchSize(length)
      const fee = await chain.quoteMessage(hubDomain, zeros(fillMessageLength(amount)))
      fillInFlight = true
      world.submit(domain, keeper, { kind: "spoke.processFillQueue", amount }, fee, (receipt) => {
        fillInFlight = false
        if (receipt.status === "success") stats.fillDispatches++
        else reverted(receipt.error.name)
      })
    })
  }

  const hubState = world.hub.state
  const domainGasLimit = (domain: number) => hubState.config.domainGasLimit.get(domain) ?? hubState.config.defaultDomainGasLimit
  const settlementQueue = new Map(world.spokes.domains.map((d) => [d, thresholdOn(d, "settlementQueue")] as const))
  const dispatchSettlements = (domain: number): void => {
    const queue = hubState.settlementQueues.get(domain)
    if (queue === undefined || queue.size === 0) return
    const oldest = queue.items[queue.first]!
    if (!due(queue.size, world.timestamp - oldest.enqueuedTimestamp, settlementQueue.get(domain))) return
    let amount = Math.min(queue.size, MAX_SETTLEMENT_BATCH)
    while (amount > 1 && settlementBatchGasLimit(hubState, amount) > domainGasLimit(domain)) amount--
    const revert = world.applyHub({ kind: "processSettlementQueue", domain, amount })
    if (revert === undefined) stats.settlementDispatches++
    else reverted(revert.errorName)
  }
  // One cron for the chains on the default period, in the chains' order; a chain with a period of its own has its own.
  const settlementCronSeconds = spec.settlementQueue?.cronSeconds ?? 60
  const sharedCron = world.spokes.domains.filter((d) => (settlementQueue.get(d)?.cronSeconds ?? 60) === settlementCronSeconds)
  world.scheduler.every(settlementCronSeconds * 1000, 0, "keeper/settlements", () => {
    if (world.hubHalted) return
    for (const domain of sharedCron) dispatchSettlements(domain)
  })
  for (const domain of world.spokes.domains) {
    if (sharedCron.includes(domain)) continue
    world.scheduler.every((settlementQueue.get(domain)?.cronSeconds ?? 60) * 1000, 0, `keeper/settlements/${domain}`, () => {
      if (!world.hubHalted) dispatchSettlements(domain)
    })
  }

  world.scheduler.every((spec.processDepositsAndInvoicesCronSeconds ?? 60) * 1000, 0, "keeper/process", () => {
    if (world.hubHalted) return
    for (const ticker of hubState.tickers.values()) {
      // Skipped like the production agent: nothing to buy and no closed epoch left to clean up.
      const lastClosed = world.hubEpoch - 1
      if (ticker.invoices.length === 0 && lastClosed <= ticker.lastClosedEpochsProcessed) continue
      const revert = world.applyHub({ kind: "processDepositsAndInvoices", ticker: ticker.config.symbol, maxEpochs: 0, maxDeposits: 0, maxInvoices: 0 })
      if (revert === undefined) stats.processCalls++
      else reverted(revert.errorName)
    }
  })

  // xERC20 debt: mints over the bridge limit were recorded as debt; mint it when the limit has replenished.
  const debts = new Map<string, { domain: number; asset: Address; recipient: Address }>()
  /** Debt mints sent and not mined yet: by debt (`domain:asset:recipient`) and by bridge limit (`domain:asset`). */
  const mintingDebt = new Map<string, bigint>()
  const mintingLimit = new Map<string, bigint>()
  const adjust = (map: Map<string, bigint>, key: string, delta: bigint) => {
    const next = (map.get(key) ?? 0n) + delta
    if (next === 0n) map.delete(key)
    else map.set(key, next)
  }
  world.observe({
    onSpokeEvent: (event, context) => {
      if (event.name === "AssetMintFailed") debts.set(`${context.domain}:${event.asset}:${event.recipient}`, { domain: context.domain, asset: event.asset, recipient: event.recipient })
    },
  })
  world.scheduler.every(600_000, 300_000, "keeper/xerc20-debt", async () => {
    // Debts of one (domain, asset) share the bridge's minting limit: spend it once, in order.
    const limits = new Map<string, bigint>()
    for (const [key, debt] of debts) {
      const chain = world.chain(debt.domain)
      const owed = (await chain.mintable(debt.recipient, debt.asset)) - (mintingDebt.get(key) ?? 0n)
      if (owed <= 0n) {
        if (!mintingDebt.has(key)) debts.delete(key)
        continue
      }
      const limitKey = `${debt.domain}:${debt.asset}`
      const limit = limits.get(limitKey) ?? (await mintingLimitNow(chain, debt.asset, world.timestamp)) - (mintingLimit.get(limitKey) ?? 0n)
      const amount = owed < limit ? owed : limit
      limits.set(limitKey, limit - amount)
      if (amount <= 0n) continue
      adjust(mintingDebt, key, amount)
      adjust(mintingLimit, limitKey, amount)
      world.submit(debt.domain, keeper, { kind: "xerc20Module.mintDebt", asset: debt.asset, recipient: debt.recipient, amount }, undefined, (receipt) => {
        adjust(mintingDebt, key, -amount)
        adjust(mintingLimit, limitKey, -amount)
        if (receipt.status === "success") stats.debtMints++
        else reverted(receipt.error.name)
      })
    }
  })

  world.scheduler.every((spec.expiredIntentsCronSeconds ?? 600) * 1000, 0, "keeper/expired", () => {
    if (world.hubHalted) return
    const buffer = hubState.config.expiryTimeBufferSeconds
    const now = world.timestamp
    const expired: Bytes32[] = []
    for (const ticker of hubState.tickers.values()) {
      for (const id of ticker.waiting) {
        const intent = hubState.contexts.get(id)!.intent!
        if (now >= intent.timestamp + intent.ttl + buffer) expired.push(id)
      }
    }
    if (expired.length === 0) return
    const revert = world.applyHub({ kind: "handleExpiredIntents", intentIds: expired.slice(0, MAX_SETTLEMENT_BATCH) })
    if (revert === undefined) stats.expiredHandled += Math.min(expired.length, MAX_SETTLEMENT_BATCH)
    else reverted(revert.errorName)
  })
  return stats
}

/**
 * The module's minting limit on an xERC20 token now, at virtual second `now`. The chain's reads are as of its last
 * block, and a chain mines only when it has calls: an idle chain's limit would read as it was at its last block for
 * good, and a debt waiting for it would never be minted (nothing is sent, so nothing is mined). The limit refills
 * linearly, `maxLimit / DURATION` a second up to `maxLimit` (XERC20Token `_currentLimit`), so it is worked out for
 * `now` from the last block's; the block that mines the call comes at `now` or later, when it is at least that.
 */
const mintingLimitNow = async (chain: ReturnType<World["chain"]>, asset: Address, now: number): Promise<bigint> => {
  const [limits, blockTimestamp] = await Promise.all([chain.xerc20Limits(asset), chain.timestamp()])
  const elapsed = BigInt(Math.max(0, Math.floor(now) - Number(blockTimestamp)))
  const max = limits.mintingMaxLimit
  if (limits.mintingCurrentLimit >= max || elapsed >= BigInt(XERC20_DURATION)) return max
  const refilled = limits.mintingCurrentLimit + elapsed * (max / BigInt(XERC20_DURATION))
  return refilled > max ? max : refilled
}
