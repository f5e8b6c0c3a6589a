/**
 * What the read model consumes besides hub events: decoded spoke events with the transaction that emitted
 * them (`spokeBlocks.ts` derives both from a mined `Spokes` block), and transport deliveries.
 */
import type { Address, Bytes32, Hex } from "../domain/hex.ts"

/** The spoke transaction that emitted an event. */
export interface SpokeEventMeta {
  /** The spoke's domain (= chain id). */
  readonly domain: number
  readonly blockNumber: number
  /** Block timestamp, unix seconds. */
  readonly timestamp: number
  readonly txHash: Hex
  /** Transaction sender (`tx.origin`). */
  readonly txFrom: Address
  readonly txNonce: number
  /** Gas paid by the transaction in wei (`gasUsed * effectiveGasPrice`), when known. */
  readonly gasFee?: bigint
}

/**
 * Spoke events are the `Spokes` service's decoded `SpokeEvent`s (`service/spoke/events.ts`): `name` plus the
 * Solidity parameter names. The read model uses IntentAdded, IntentQueueProcessed, IntentFilled, Settled,
 * ExternalCalldataExecuted, IntentWithFeesAdded, OrderCreated, Deposited and Withdrawn, and ignores the rest.
 */
export type { SpokeEvent, SpokeEventBody } from "../spoke/events.ts"

/** A message handed over by the transport at its destination. */
export interface Delivery {
  readonly messageId: Bytes32
  readonly origin: number
  readonly destination: number
  /** Delivery time at the destination, unix seconds. */
  readonly timestamp: number
}
