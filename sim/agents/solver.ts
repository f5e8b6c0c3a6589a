/**
 * Solvers: inventory deposited on the spokes as virtual balances, a fee, a reaction time and a capacity. They
 * watch new fast-path intents (IntentAdded with ttl > 0), fill those they can afford on the destination at
 * their fee (≤ the intent's maxFee), and are repaid by the hub on their configured domains (virtual balance
 * preference on, so repayments refill the inventory): `repaymentChains`, at least the hub's
 * `minSolverSupportedDomains` (checked when the scenario loads), or by default every spoke chain when there are
 * that many. When a fill takes a chain's inventory below
 * `rebalanceBelowShare` of its start, or a fill cannot be afforded, and every ten minutes while it is below,
 * they move funds from the richest chain of the same asset with a netting intent through the service (at most one
 * rebalance per chain per hour; the rich chain keeps that share of its own start). A rebalance that fails (the service
 * refuses its intent, or the intent's transaction reverts) starts no cooldown: it is counted (`rebalance:<reason>`),
 * what it withdrew is deposited back, and it is tried again after a backoff of a minute, doubling with each failure in
 * a row up to the hour. The intent pays the solver's
 * rebalance receiver (`AgentPlan.rebalanceReceiver`), which registered no repayment chains, so the hub settles it on
 * the poor chain (or invoices it there); the receiver hands the tokens to the solver, which deposits them.
 * Inventory promised to fills sent and not yet mined is not counted as available. An intent it cannot fill when it
 * looks (inventory short, capacity reached) waits and is looked at again when inventory comes back to its chain or
 * capacity frees, until it expires or is filled by another.
 */
import type { ClearingService } from "../../service/api/service.ts"
import { addressToBytes32, type Address, type Bytes32, bytes32ToAddress } from "../../service/domain/hex.ts"
import { type Intent, IntentStatus, NORMALIZED_DECIMALS, normalizeDecimals } from "../../service/domain/protocol.ts"
import { sampleLatencySeconds } from "../../service/transport/latency.ts"
import { tokensToUnits } from "../../service/domain/protocol.ts"
import { totalProtocolFeeDbps } from "../../service/hub/config.ts"
import type { SolverSpec } from "../scenario/schema.ts"
import type { AgentPlan, AssetOnChainPlan } from "../world/plan.ts"
import type { World } from "../world/world.ts"
import { agentRng, assetsByAddress, createIntents, PopulationStats, sendTransaction } from "./common.ts"

/** A fast-path intent a solver looks at (again, while it waits for inventory or capacity). */
interface FillAttempt {
  readonly intentId: Bytes32
  readonly intent: Intent
  readonly destination: number
  readonly output: AssetOnChainPlan
  /** The order in which the solver saw the intents: waiting ones are looked at again oldest first. */
  readonly seen: number
}

/** A share (0 to 1) as its exact decimal in 18-decimal fixed point (0.40013 is 400,130,000,000,000,000). */
const SHARE_SCALE = 10n ** 18n
const shareOf = (share: number): bigint => tokensToUnits(share, 18)

/** A rebalance that went through holds its chain's rebalancing this long from its start: one per chain per hour. */
export const REBALANCE_COOLDOWN_MS = 3_600_000
/**
 * The wait before a failed rebalance (intent refused, transaction reverted) is tried again: one minute after the first
 * failure, doubling with each failure in a row, at most the cooldown. Not at once: a refusal is known in the same
 * event, so an immediate retry would be refused again at the same virtual millisecond, over and over (the run would
 * never move on), and a cause that lasts (a surplus below the API's fixed fee until a repayment lands, an origin chain
 * still halted) would be met by a retry at every look at a waiting intent. Not the hour either: the cause is often gone
 * in minutes (the repayment arrives, the halt ends), and the intents waiting for the poor chain wait meanwhile.
 */
export const REBALANCE_RETRY_MS = 60_000

/** The backoff after `failuresInRow` (1 or more) failed rebalances of a chain in a row: 1, 2, 4, ... minutes, at most the hour. */
export const rebalanceRetryMs = (failuresInRow: number): number => Math.min(REBALANCE_RETRY_MS * 2 ** (failuresInRow - 1), REBALANCE_COOLDOWN_MS)

export const startSolvers = (world: World, service: ClearingService, spec: SolverSpec, agents: readonly AgentPlan[]): PopulationStats => {
  const stats = new PopulationStats("solver", spec.name, agents.length)
  const repayment = spec.repaymentChains ?? world.spokes.domains
  // One entry per chain and asset: entries listed twice add up (as the scenario loader sums them against the funding).
  const inventory: { readonly asset: AssetOnChainPlan; units: bigint }[] = []
  for (const i of spec.inventory) {
    const asset = world.plan.assets.get(`${i.asset}:${i.chain}`)!
    const units = tokensToUnits(i.tokens, asset.decimals)
    const listed = inventory.find((e) => e.asset === asset)
    if (listed === undefined) inventory.push({ asset, units })
    else listed.units += units
  }
  const assetAt = assetsByAddress(world)

  /** The hub's protocol fees on an input asset now, dbps (read each time: the hub's configuration may change). */
  const protocolFeeDbps = (origin: number, inputAsset: Bytes32): number => {
    const on = world.hub.state.assetOn(origin, inputAsset)
    return on === undefined ? 0 : totalProtocolFeeDbps(on.ticker.config)
  }

  for (const agent of agents) {
    const me = agent.account.address
    const rng = agentRng(world, agent)
    const start = new Map<string, bigint>()
    // Set-up: deposit the inventory, then tell the hub where to repay and to credit virtual balances.
    for (const { asset, units } of inventory) {
      start.set(`${asset.domain}:${asset.address}`, units)
      const spoke = world.chain(asset.domain).addresses.spoke
      world.submit(asset.domain, me, { kind: "erc20.approve", token: asset.address, spender: spoke, amount: 2n ** 256n - 1n })
      world.submit(asset.domain, me, { kind: "spoke.deposit", asset: asset.address, amount: units }, undefined, (r) => stats.rejectReceipt(r))
      world.submit(asset.domain, me, { kind: "erc20.approve", token: asset.address, spender: world.chain(asset.domain).addresses.feeAdapter, amount: 2n ** 256n - 1n })
    }
    // Repayments may land on chains of those assets without inventory: rebalancing sends them on from there, through
    // the fee adapter.
    for (const symbol of new Set(inventory.map(({ asset }) => asset.symbol))) {
      for (const domain of world.spokes.domains) {
        const asset = world.plan.assets.get(`${symbol}:${domain}`)
        if (asset === undefined || start.has(`${domain}:${asset.address}`)) continue
        world.submit(domain, me, { kind: "erc20.approve", token: asset.address, spender: world.chain(domain).addresses.feeAdapter, amount: 2n ** 256n - 1n })
      }
    }
    const setup = (): void => {
      // A hub halted at the start takes no inputs: the set-up waits for the halt's end (refused, the solver would
      // have no repayment chains and no virtual balance for the whole run).
      const haltEndMs = world.hubHaltEndMs
      if (haltEndMs !== undefined) return world.scheduler.at(haltEndMs, `solver/${agent.id}/setup`, setup)
      // Explicit repayment chains are always sent (the scenario loader checks there are at least the hub's
      // `minSolverSupportedDomains`; a refusal counts as a rejection). By default every spoke chain (the loader refuses
      // fewer chains than that minimum too).
      const sendDomains = spec.repaymentChains !== undefined || repayment.length >= world.hub.state.config.minSolverSupportedDomains
      if (sendDomains && world.applyHub({ kind: "setUserSupportedDomains", user: addressToBytes32(me), domains: repayment }) !== undefined) stats.reject("setUserSupportedDomains")
      world.applyHub({ kind: "setUpdateVirtualBalance", user: addressToBytes32(me), status: true })
    }
    world.scheduler.after(0, `solver/${agent.id}/setup`, setup)

    const receiver = agent.rebalanceReceiver
    if (receiver === undefined) throw new Error(`solver ${agent.id} has no rebalance receiver in the plan`)
    const receiverLower = receiver.address.toLowerCase()
    // Capacity: fills sent in the last hour (a reverted one is taken out).
    const recentFills: number[] = []
    /** Output promised by fills sent and not yet mined, per chain (`domain:address`). */
    const promised = new Map<string, bigint>()
    /**
     * Chains (`domain:address`) whose rebalancing is held: a rebalance is being prepared or its intent is in flight,
     * then the hour's cooldown from its start once it went through (or found nothing to move), or the retry backoff
     * after it failed.
     */
    const rebalancing = new Set<string>()
    /** Rebalances of a chain that failed in a row (reset by one that does not fail): the next retry waits longer. */
    const failuresInRow = new Map<string, number>()
    /** Chains without inventory of their own where the solver has approved the spoke (to deposit a failed rebalance's withdrawal back). */
    const spokeApproved = new Set<string>()
    /** Tokens being withdrawn for rebalances and not mined yet, per rich chain: not counted as its surplus. */
    const withdrawing = new Map<string, bigint>()
    /** Inventory on a chain already spoken for: fills sent and rebalance withdrawals not yet mined. */
    const committed = (key: string) => (promised.get(key) ?? 0n) + (withdrawing.get(key) ?? 0n)
    /** The inventory below which a chain is rebalanced (and which a rich chain keeps): the share of its start. */
    const floorShare = spec.rebalanceBelowShare === undefined ? 0n : shareOf(spec.rebalanceBelowShare)
    const floorOf = (key: string) => (start.get(key)! * floorShare) / SHARE_SCALE
    const meLower = me.toLowerCase()
    /**
     * Intents this solver could not fill when it looked (inventory short on the destination, capacity reached), by
     * destination chain: looked at again, oldest seen first, when that chain's inventory grows (a repayment, a
     * rebalance deposited, a fill that reverted) or capacity frees (every chain's), until they expire or another
     * solver fills them. Each counts one rejection, at the first look.
     */
    const waiting = new Map<number, Map<Bytes32, FillAttempt>>()
    /** The size at which a chain's waiting intents are next swept of expired ones (doubling: amortized O(1) a wait). */
    const sweepAt = new Map<number, number>()
    const wait = (attempt: FillAttempt) => {
      let queue = waiting.get(attempt.destination)
      if (queue === undefined) waiting.set(attempt.destination, (queue = new Map()))
      // Intents past their ttl wait no longer (a chain that never gets inventory back would keep them all).
      if (queue.size >= (sweepAt.get(attempt.destination) ?? 64)) {
        const now = world.timestamp
        for (const [id, a] of queue) if (now >= a.intent.timestamp + a.intent.ttl) queue.delete(id)
        sweepAt.set(attempt.destination, Math.max(64, 2 * queue.size))
      }
      queue.set(attempt.intentId, attempt)
    }
    /**
     * Looks again at the intents waiting for `destination` (every chain when undefined), oldest seen first across
     * chains: a freed capacity slot goes to the intent that has waited longest, wherever it goes.
     */
    const retryWaiting = (destination?: number) => {
      const attempts: FillAttempt[] = []
      for (const [domain, queue] of waiting) {
        if ((destination !== undefined && domain !== destination) || queue.size === 0) continue
        for (const attempt of queue.values()) attempts.push(attempt)
        queue.clear()
      }
      attempts.sort((a, b) => a.seen - b.seen)
      for (const attempt of attempts) world.scheduler.after(0, `solver/${agent.id}/retry`, () => tryFill(attempt, false))
    }
    let seen = 0
    /**
     * One retry at a time when capacity frees: the oldest fill of the last hour, sent at second `r`, leaves the
     * window at the first whole second after `r + 3600` (`tryFill` keeps fills not older than an hour), the start of
     * second `r + 3601` in virtual time.
     */
    let capacityRetry = false
    const genesis = Number(world.plan.genesisTimestamp)
    const retryWhenCapacityFrees = () => {
      if (capacityRetry || recentFills.length === 0) return
      capacityRetry = true
      const freesAtMs = (recentFills[0]! + 3601 - genesis) * 1000
      world.scheduler.after(Math.max(1, freesAtMs - world.nowMs), `solver/${agent.id}/capacity`, () => {
        capacityRetry = false
        retryWaiting()
      })
    }

    /** Looks at a fast-path intent and fills it if it can; `first` is the first look (only it counts rejections). */
    const tryFill = async (attempt: FillAttempt, first: boolean): Promise<void> => {
      const { intentId, intent, destination, output } = attempt
      const now = world.timestamp
      if (now >= intent.timestamp + intent.ttl) return first ? stats.reject("expired") : undefined
      const hourAgo = now - 3600
      while (recentFills.length > 0 && recentFills[0]! < hourAgo) recentFills.shift()
      if (spec.capacityPerHour !== undefined && recentFills.length >= spec.capacityPerHour) {
        if (first) stats.reject("capacity")
        wait(attempt)
        retryWhenCapacityFrees()
        return
      }
      const chain = world.chain(destination)
      if ((await chain.status(intentId)) !== IntentStatus.NONE) return first ? stats.reject("alreadyFilled") : undefined
      const out = normalizeDecimals(intent.amount, 18, output.decimals)
      const needed = out - (out * BigInt(spec.feeDbps)) / 100_000n
      const key = `${destination}:${output.address}`
      if ((await chain.virtualBalance(output.address, me)) - committed(key) < needed) {
        if (first) stats.reject("insufficientInventory")
        wait(attempt)
        rebalance(output)
        return
      }
      recentFills.push(now)
      promised.set(key, (promised.get(key) ?? 0n) + needed)
      world.submit(destination, me, { kind: "spoke.fillIntent", intent, fee: spec.feeDbps }, undefined, (receipt) => {
        promised.set(key, promised.get(key)! - needed)
        if (receipt.status === "success") {
          stats.act("fill")
          // The fill spent inventory on the destination: rebalance it if it fell below the share.
          rebalance(output, true)
        } else {
          // A fill that reverted (another solver was first) filled nothing: it gives back its capacity, which what
          // waits for any chain may use (when capacity is limited), and the inventory it held on this one.
          const sent = recentFills.indexOf(now)
          if (sent >= 0) recentFills.splice(sent, 1)
          stats.rejectReceipt(receipt)
          retryWaiting(spec.capacityPerHour === undefined ? destination : undefined)
        }
      })
    }

    world.observe({
      onSpokeEvent: (event, context) => {
        if (event.name === "Settled") {
          const account = event.account.toLowerCase()
          if (account === receiverLower) return collect(context.domain, event.asset, event.amount)
          // A repayment credited to the solver's inventory there: what waits for that chain may be affordable now.
          if (account === meLower && waiting.get(context.domain)?.size) retryWaiting(context.domain)
          return
        }
        if (event.name !== "IntentAdded" || event.intent.ttl === 0) return
        const intent = event.intent
        const destination = intent.destinations[0]
        // An intent to its own origin (the initial liquidity's seeds) cannot be filled by anyone: the spoke that
        // would execute the fill holds it as ADDED. Not a rejection.
        if (destination === undefined || destination === intent.origin) return
        const output = assetAt(destination, bytes32ToAddress(intent.outputAsset))
        if (output === undefined || !start.has(`${destination}:${output.address}`)) return
        if (intent.maxFee < spec.feeDbps) return stats.reject("maxFeeBelowOurFee")
        // The hub repays the amount less its protocol fees (those of the intent's input ticker): a fee that does
        // not beat them loses money on every fill.
        if (spec.feeDbps <= protocolFeeDbps(intent.origin, intent.inputAsset)) return stats.reject("unprofitable")
        const delaySeconds = spec.reactionSeconds === undefined ? 5 : sampleLatencySeconds(spec.reactionSeconds, rng)
        const attempt: FillAttempt = { intentId: event.intentId, intent, destination, output, seen: seen++ }
        world.scheduler.after(delaySeconds * 1000, `solver/${agent.id}/fill`, () => tryFill(attempt, true))
      },
    })

    /**
     * Moves inventory to `poor` from the chain with the most of the same asset to give (above the share it keeps,
     * compared in 18 decimals: chains may differ), through a netting intent; with `onlyBelowShare`, only when
     * `poor`'s inventory is below `rebalanceBelowShare` of its start. Every chain of the asset is a source, not only
     * the inventory's: the hub repays on the solver's repayment chains, which may hold no inventory of their own
     * (those keep nothing back). The chain's rebalancing is held from the start until the outcome is known: a
     * rebalance that went through (its intent mined) or found nothing to move then holds it until an hour after its
     * start; one that failed (refused, reverted) holds it for the retry backoff only, and is tried again after it.
     */
    const rebalance = (poor: AssetOnChainPlan, onlyBelowShare = false) => {
      const share = spec.rebalanceBelowShare
      const poorKey = `${poor.domain}:${poor.address}`
      if (share === undefined || rebalancing.has(poorKey)) return
      rebalancing.add(poorKey)
      const startMs = world.nowMs
      /** Ends the hold an hour after the start (at once when the outcome comes later than that). */
      const coolDown = () => {
        failuresInRow.delete(poorKey)
        world.scheduler.after(Math.max(0, startMs + REBALANCE_COOLDOWN_MS - world.nowMs), `solver/${agent.id}/rebalance-cooldown`, () => void rebalancing.delete(poorKey))
      }
      /** Counts a failure under its reason and tries again after the backoff (no cooldown: nothing was moved). */
      const failed = (reason: string) => {
        stats.reject(`rebalance:${reason}`)
        const failures = (failuresInRow.get(poorKey) ?? 0) + 1
        failuresInRow.set(poorKey, failures)
        world.scheduler.after(rebalanceRetryMs(failures), `solver/${agent.id}/rebalance-retry`, () => {
          rebalancing.delete(poorKey)
          // The same attempt again, except that a rebalance asked for by an intent short of inventory (not only below
          // the share) is made regardless of the share only while intents still wait for that chain.
          rebalance(poor, onlyBelowShare || !waiting.get(poor.domain)?.size)
        })
      }
      world.scheduler.after(0, `solver/${agent.id}/rebalance`, async () => {
        let below: boolean
        try {
          below = !onlyBelowShare || (await world.chain(poor.domain).virtualBalance(poor.address, me)) < floorOf(poorKey)
        } catch (error) {
          rebalancing.delete(poorKey) // a failed read must not block the chain's rebalancing for good
          throw error
        }
        if (!below) {
          failuresInRow.delete(poorKey)
          rebalancing.delete(poorKey)
          return
        }
        /** Whether the outcome decides when the hold ends (a refusal, the intent's receipt): otherwise the cooldown. */
        let decided = false
        try {
          // The source: the chain with the most to give above what it keeps (its floor; nothing on a chain without
          // inventory of its own), counted in 18 decimals.
          let rich: { asset: AssetOnChainPlan; surplus: bigint; surplus18: bigint } | undefined
          for (const domain of world.spokes.domains) {
            const asset = world.plan.assets.get(`${poor.symbol}:${domain}`)
            if (asset === undefined || domain === poor.domain) continue
            const key = `${domain}:${asset.address}`
            const surplus = (await world.chain(domain).virtualBalance(asset.address, me)) - committed(key) - (start.has(key) ? floorOf(key) : 0n)
            const surplus18 = normalizeDecimals(surplus, asset.decimals, NORMALIZED_DECIMALS)
            if (rich === undefined || surplus18 > rich.surplus18) rich = { asset, surplus, surplus18 }
          }
          const target = start.get(poorKey)!
          if (rich === undefined || rich.surplus <= 0n) return stats.reject("nothingToRebalance")
          const richAsset = rich.asset
          const richKey = `${richAsset.domain}:${richAsset.address}`
          const wanted = normalizeDecimals(target / 2n, poor.decimals, richAsset.decimals)
          const amount = rich.surplus < wanted ? rich.surplus : wanted
          if (amount <= 0n) return stats.reject("nothingToRebalance")
          // The intent first: only when the service accepts it does inventory leave the spoke.
          const tx = await createIntents(service, {
              origin: String(richAsset.domain),
              destinations: [String(poor.domain)],
              inputAsset: richAsset.address,
              amount: amount.toString(),
              to: receiver.address,
              from: me,
            })
          decided = true
          if (!tx.ok) return failed(tx.error)
          withdrawing.set(richKey, (withdrawing.get(richKey) ?? 0n) + amount)
          let withdrawn = false
          world.submit(richAsset.domain, me, { kind: "spoke.withdraw", asset: richAsset.address, amount }, undefined, (receipt) => {
            withdrawing.set(richKey, withdrawing.get(richKey)! - amount)
            withdrawn = receipt.status === "success"
          })
          // Mined after the withdrawal (same chain and sender, sent after it).
          sendTransaction(world, me, tx.value, (receipt) => {
            if (receipt.status === "success") {
              stats.act("rebalance")
              return coolDown()
            }
            // The fee adapter took nothing: what was withdrawn for it goes back into the inventory on the rich chain.
            if (withdrawn) depositBack(richAsset, amount)
            failed(receipt.error.name)
          })
        } finally {
          if (!decided) coolDown()
        }
      })
    }

    /** Deposits back into the inventory tokens withdrawn for a rebalance whose intent reverted. */
    const depositBack = (asset: AssetOnChainPlan, amount: bigint) => {
      const key = `${asset.domain}:${asset.address}`
      // Inventory chains approved the spoke at the start; a chain without inventory only the fee adapter.
      if (!start.has(key) && !spokeApproved.has(key)) {
        spokeApproved.add(key)
        world.submit(asset.domain, me, { kind: "erc20.approve", token: asset.address, spender: world.chain(asset.domain).addresses.spoke, amount: 2n ** 256n - 1n })
      }
      world.submit(asset.domain, me, { kind: "spoke.deposit", asset: asset.address, amount }, undefined, (r) => {
        if (r.status !== "success") return stats.rejectReceipt(r)
        stats.act("rebalanceRedeposit")
        retryWaiting(asset.domain)
      })
    }

    /** A rebalance settled to the receiver on `domain`: hand the tokens to the solver, which deposits them. */
    const collect = (domain: number, asset: Address, amount: bigint) => {
      const on = assetAt(domain, asset)
      if (on === undefined || amount === 0n) return
      world.submit(domain, receiver.address, { kind: "erc20.transfer", token: on.address, to: me, amount }, undefined, (r) => stats.rejectReceipt(r))
      world.submit(domain, me, { kind: "spoke.deposit", asset: on.address, amount }, undefined, (r) => {
        if (r.status !== "success") return stats.rejectReceipt(r)
        stats.act("rebalanceDeposit")
        retryWaiting(domain)
      })
    }

    // Every ten minutes, each inventory chain below its share is rebalanced (a fast path refused for want of
    // inventory brings no fill that would ask for it).
    if (spec.rebalanceBelowShare !== undefined) {
      world.scheduler.every(600_000, 600_000, `solver/${agent.id}/rebalance-check`, () => {
        for (const { asset } of inventory) rebalance(asset, true)
      })
    }
  }
  return stats
}

export type { Address }
