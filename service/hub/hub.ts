/**
 * The clearing hub: a pure, synchronous state machine. Inputs are messages (INTENT, FILL batches), hub calls
 * and clock ticks (`block`); outputs are events (to the sink) and SETTLEMENT messages (in `outbox`). It never
 * awaits and reads no clock or randomness: the same inputs give the same events, always.
 */
import { tickerHash as hashTicker } from "../domain/encoding.ts"
import { type Bytes32, isBytes32 } from "../domain/hex.ts"
import type { FillMessage, Intent } from "../domain/protocol.ts"
import { type HubConfig, type HubConfigInput, makeHubConfig } from "./config.ts"
import { checkConservation } from "./conservation.ts"
import { HubRevert } from "./errors.ts"
import type { HubEventSink } from "./events.ts"
import * as Handler from "./handler.ts"
import { receiveFills, receiveIntents } from "./intake.ts"
import { authorizeReceiveMessage, pause, unpause } from "./pause.ts"
import { processDepositsAndInvoices } from "./settler.ts"
import { HubState, type OutboundMessage } from "./state.ts"

/** One hub input, as recorded in traces (`trace.jsonl`) and replayed by `clearsim hub replay`. */
export type HubInput =
  | { readonly kind: "block"; readonly number: number; readonly timestamp: number }
  | {
      readonly kind: "intents"
      readonly intents: readonly Intent[]
      /**
       * The intents' ids when whoever hands the batch over already computed them with the same encoding (the
       * simulator's memory spokes): the hub uses them instead of hashing each intent again. Not part of the
       * trace (replays recompute them), so a wrong id here is the caller's bug, not an input.
       */
      readonly knownIds?: readonly Bytes32[]
      /** Absent: delivered by the hub gateway (refused while paused). Given: `receiveMessage` called directly by it (owner or ADMIN). */
      readonly caller?: Bytes32
    }
  | {
      readonly kind: "fills"
      readonly fills: readonly FillMessage[]
      /** As for `intents`. */
      readonly caller?: Bytes32
    }
  | {
      readonly kind: "processDepositsAndInvoices"
      /** Symbol (`DAI`) or ticker hash. */
      readonly ticker: string
      readonly maxEpochs: number
      readonly maxDeposits: number
      readonly maxInvoices: number
    }
  | { readonly kind: "processSettlementQueue"; readonly domain: number; readonly amount: number }
  | { readonly kind: "handleExpiredIntents"; readonly intentIds: readonly Bytes32[] }
  | { readonly kind: "returnUnsupportedIntent"; readonly intentId: Bytes32 }
  | { readonly kind: "setUpdateVirtualBalance"; readonly user: Bytes32; readonly status: boolean }
  | { readonly kind: "setUserSupportedDomains"; readonly user: Bytes32; readonly domains: readonly number[] }
  | {
      readonly kind: "withdrawFees"
      readonly withdrawer: Bytes32
      readonly feeRecipient: Bytes32
      readonly ticker: string
      readonly amount: bigint
      readonly destinations: readonly number[]
    }
  | { readonly kind: "updateEpochLength"; readonly epochLength: number }
  /** `pause()` / `unpause()` by `caller` (the owner or the watchtower, reference §3.14). */
  | { readonly kind: "pause"; readonly caller: Bytes32 }
  | { readonly kind: "unpause"; readonly caller: Bytes32 }

/** Resolves a ticker given as a symbol or as its hash. */
export const resolveTickerHash = (ticker: string): Bytes32 => {
  const lower = ticker.toLowerCase()
  return isBytes32(lower) ? lower : hashTicker(ticker)
}

export class Hub {
  readonly state: HubState

  constructor(config: HubConfig | HubConfigInput, sink: HubEventSink) {
    const full = "tickers" in config && "epochLengthBlocks" in config ? (config as HubConfig) : makeHubConfig(config as HubConfigInput)
    this.state = new HubState(full, sink)
  }

  get config(): HubConfig {
    return this.state.config
  }

  currentEpoch(): number {
    return this.state.currentEpoch()
  }

  setBlock(blockNumber: number, timestamp: number): void {
    Handler.setBlock(this.state, blockNumber, timestamp)
  }

  /** An INTENT message, from the gateway (`caller` undefined) or a direct `receiveMessage` by the owner or an ADMIN. */
  receiveIntents(intents: readonly Intent[], knownIds?: readonly Bytes32[], caller?: Bytes32): void {
    authorizeReceiveMessage(this.state, caller, "INTENT")
    receiveIntents(this.state, intents, knownIds)
  }

  /** A FILL message, from the gateway (`caller` undefined) or a direct `receiveMessage` by the owner or an ADMIN. */
  receiveFills(fills: readonly FillMessage[], caller?: Bytes32): void {
    authorizeReceiveMessage(this.state, caller, "FILL")
    receiveFills(this.state, fills)
  }

  processDepositsAndInvoices(ticker: string, maxEpochs = 0, maxDeposits = 0, maxInvoices = 0): void {
    processDepositsAndInvoices(this.state, resolveTickerHash(ticker), maxEpochs, maxDeposits, maxInvoices)
  }

  processSettlementQueue(domain: number, amount: number): OutboundMessage {
    return Handler.processSettlementQueue(this.state, domain, amount)
  }

  handleExpiredIntents(intentIds: readonly Bytes32[]): void {
    Handler.handleExpiredIntents(this.state, intentIds)
  }

  returnUnsupportedIntent(intentId: Bytes32): OutboundMessage {
    return Handler.returnUnsupportedIntent(this.state, intentId)
  }

  setUpdateVirtualBalance(user: Bytes32, status: boolean): void {
    Handler.setUpdateVirtualBalance(this.state, user, status)
  }

  setUserSupportedDomains(user: Bytes32, domains: readonly number[]): void {
    Handler.setUserSupportedDomains(this.state, user, domains)
  }

  withdrawFees(withdrawer: Bytes32, feeRecipient: Bytes32, ticker: string, amount18: bigint, destinations: readonly number[]): Bytes32 {
    return Handler.withdrawFees(this.state, withdrawer, feeRecipient, resolveTickerHash(ticker), amount18, destinations)
  }

  updateEpochLength(epochLengthBlocks: number): void {
    Handler.updateEpochLength(this.state, epochLengthBlocks)
  }

  pause(caller: Bytes32): void {
    pause(this.state, caller)
  }

  unpause(caller: Bytes32): void {
    unpause(this.state, caller)
  }

  get paused(): boolean {
    return this.state.paused
  }

  /** Takes the messages produced since the last call (for the transport). */
  drainOutbox(): OutboundMessage[] {
    const out = this.state.outbox
    this.state.outbox = []
    return out
  }

  /** Throws `ConservationViolation` with the first violating quantity. */
  checkConservation(): void {
    checkConservation(this.state)
  }

  /**
   * Applies one input. A reverted call changes nothing and is recorded as a `Reverted` event (so traces of
   * runs whose agents diverge differ); the revert is also returned.
   */
  apply(input: HubInput): HubRevert | undefined {
    try {
      switch (input.kind) {
        case "block":
          this.setBlock(input.number, input.timestamp)
          break
        case "intents":
          this.receiveIntents(input.intents, input.knownIds, input.caller)
          break
        case "fills":
          this.receiveFills(input.fills, input.caller)
          break
        case "processDepositsAndInvoices":
          this.processDepositsAndInvoices(input.ticker, input.maxEpochs, input.maxDeposits, input.maxInvoices)
          break
        case "processSettlementQueue":
          this.processSettlementQueue(input.domain, input.amount)
          break
        case "handleExpiredIntents":
          this.handleExpiredIntents(input.intentIds)
          break
        case "returnUnsupportedIntent":
          this.returnUnsupportedIntent(input.intentId)
          break
        case "setUpdateVirtualBalance":
          this.setUpdateVirtualBalance(input.user, input.status)
          break
        case "setUserSupportedDomains":
          this.setUserSupportedDomains(input.user, input.domains)
          break
        case "withdrawFees":
          this.withdrawFees(input.withdrawer, input.feeRecipient, input.ticker, input.amount, input.destinations)
          break
        case "updateEpochLength":
          this.updateEpochLength(input.epochLength)
          break
        case "pause":
          this.pause(input.caller)
          break
        case "unpause":
          this.unpause(input.caller)
          break
      }
      return undefined
    } catch (error) {
      if (!(error instanceof HubRevert)) throw error
      this.state.emit({ kind: "Reverted", call: input.kind, error: error.errorName, message: error.message })
      return error
    }
  }
}
