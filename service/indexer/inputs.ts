/**
 * What the read model consumes besides hub events: decoded spoke events with the transaction that emitted
 * them (`spokeBlocks.ts` derives both from a mined `Spokes` block), and transport deliveries.
 */
import type { Address, Bytes32, Hex } from "../domain/hex.ts"
import { keccak256Scratch, keccakScratch } from "../domain/keccak.ts"

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
  /**
   * Memory backend: the transaction's index in its block. Its hash is `memoryTxHash(domain, blockNumber, index)`,
   * which a reader that keeps the facts without the meta (the read model) makes when it needs it.
   */
  readonly memoryTxIndex?: number | undefined
}

/** `keccak256(utf8("memory-tx/<domain>/<block>/<index>"))`: the hash of a memory-backend transaction (ASCII, hashed in place). */
export const memoryTxHash = (domain: number, blockNumber: number, index: number): Hex => {
  const text = `memory-tx/${domain}/${blockNumber}/${index}`
  const buf = keccakScratch(text.length)
  for (let i = 0; i < text.length; i++) buf[i] = text.charCodeAt(i)
  return keccak256Scratch(text.length)
}

/**
 * Spoke events are the `Spokes` service's decoded `SpokeEvent`s (`service/spoke/events.ts`): `name` plus the
 * Solidity parameter names. The read model uses IntentAdded, IntentQueueProcessed, IntentFilled, Settled,
 * ExternalCalldataExecuted, IntentWithFeesAdded, OrderCreated, Deposited and Withdrawn, and ignores the rest.
 */
export type { SpokeEventBody } from "../spoke/events.ts"

/** A message handed over by the transport at its destination. */
export interface Delivery {
  readonly messageId: Bytes32
  readonly origin: number
  readonly destination: number
  /** Delivery time at the destination, unix seconds. */
  readonly timestamp: number
}
