/**
 * What the read model consumes besides hub events: decoded spoke events with the transaction that emitted
 * them, and transport deliveries. Event names and argument names are those of the contracts' ABIs
 * (`service/spoke/abi.ts`), so that an adapter from the `Spokes` service's `SpokeEvent` union (or from viem's
 * `parseEventLogs`) is a field-by-field copy.
 */
import type { Address, Bytes32, Hex } from "../domain/hex.ts"
import type { Intent } from "../domain/protocol.ts"

/** Where and when a hub event happened. */
export interface HubEventMeta {
  readonly blockNumber: number
  readonly timestamp: number
}

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
  /** Gas paid by the transaction in wei (`gasUsed * effectiveGasPrice`); 0 on the memory backend. */
  readonly gasFee?: bigint
}

/**
 * The events of `ClearingSpoke`, `FeeAdapter` and `SpokeGateway` that the read model uses, in the flat form of
 * the `Spokes` service's `SpokeEvent` (`service/spoke/events.ts`): `name` plus the Solidity parameter names.
 */
export type SpokeEventBody =
  | { readonly name: "IntentAdded"; readonly intentId: Bytes32; readonly queueIdx: bigint; readonly intent: Intent }
  | {
      readonly name: "IntentFilled"
      readonly intentId: Bytes32
      readonly solver: Address
      readonly totalFeeDBPS: bigint
      readonly queueIdx: bigint
      readonly intent: Intent
    }
  | { readonly name: "IntentQueueProcessed" | "FillQueueProcessed"; readonly messageId: Bytes32; readonly firstIdx: bigint; readonly lastIdx: bigint; readonly quote: bigint }
  | { readonly name: "Settled"; readonly intentId: Bytes32; readonly account: Address; readonly asset: Address; readonly amount: bigint }
  | { readonly name: "ExternalCalldataExecuted"; readonly intentId: Bytes32; readonly returnData: Hex }
  | { readonly name: "Deposited"; readonly depositant: Address; readonly asset: Address; readonly amount: bigint }
  | { readonly name: "Withdrawn"; readonly withdrawer: Address; readonly asset: Address; readonly amount: bigint }
  | { readonly name: "IntentWithFeesAdded"; readonly intentId: Bytes32; readonly initiator: Bytes32; readonly tokenFee: bigint; readonly nativeFee: bigint }
  | {
      readonly name: "OrderCreated"
      readonly orderId: Bytes32
      readonly initiator: Bytes32
      readonly intentIds: readonly Bytes32[]
      readonly tokenFee: bigint
      readonly nativeFee: bigint
    }
  | { readonly name: "MessageSent"; readonly messageId: Bytes32; readonly destination: number; readonly nonce: bigint; readonly message: Hex; readonly fee: bigint }
  | { readonly name: "MessageReceived"; readonly messageId: Bytes32; readonly origin: number }

/** A message handed over by the transport at its destination. */
export interface Delivery {
  readonly messageId: Bytes32
  readonly origin: number
  readonly destination: number
  /** Delivery time at the destination, unix seconds. */
  readonly timestamp: number
}
