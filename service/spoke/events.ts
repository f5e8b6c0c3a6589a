/**
 * `SpokeEvent`: every event of the spoke contracts (ClearingSpoke, SpokeGateway, FeeAdapter, XERC20Module, the
 * tokens and the test call target), decoded, in one form for both backends. Field names are the Solidity
 * parameter names; addresses, words and bytes are lowercase hex; integer types up to 48 bits are numbers, wider
 * ones bigints (viem's convention), enums are numbers.
 */
import type { Address, Bytes32, Hex } from "../domain/hex.ts"
import type { Intent } from "../domain/protocol.ts"

type Amount = bigint

export type SpokeEventBody =
  // ClearingSpoke
  | { readonly name: "IntentAdded"; readonly intentId: Bytes32; readonly queueIdx: bigint; readonly intent: Intent }
  | {
      readonly name: "IntentFilled"
      readonly intentId: Bytes32
      readonly solver: Address
      readonly totalFeeDBPS: bigint
      readonly queueIdx: bigint
      readonly intent: Intent
    }
  | { readonly name: "IntentQueueProcessed"; readonly messageId: Bytes32; readonly firstIdx: bigint; readonly lastIdx: bigint; readonly quote: bigint }
  | { readonly name: "FillQueueProcessed"; readonly messageId: Bytes32; readonly firstIdx: bigint; readonly lastIdx: bigint; readonly quote: bigint }
  | { readonly name: "Deposited"; readonly depositant: Address; readonly asset: Address; readonly amount: Amount }
  | { readonly name: "Withdrawn"; readonly withdrawer: Address; readonly asset: Address; readonly amount: Amount }
  | { readonly name: "Settled"; readonly intentId: Bytes32; readonly account: Address; readonly asset: Address; readonly amount: Amount }
  | { readonly name: "AssetTransferFailed"; readonly asset: Address; readonly recipient: Address; readonly amount: Amount }
  | { readonly name: "AssetMintFailed"; readonly asset: Address; readonly recipient: Address; readonly amount: Amount; readonly strategy: number }
  | { readonly name: "ExternalCalldataExecuted"; readonly intentId: Bytes32; readonly returnData: Hex }
  | { readonly name: "GatewayUpdated"; readonly previous: Address; readonly current: Address }
  | { readonly name: "LighthouseUpdated"; readonly previous: Address; readonly current: Address }
  | { readonly name: "WatchtowerUpdated"; readonly previous: Address; readonly current: Address }
  /** Emitted by the spoke and by the gateway. */
  | { readonly name: "HubDomainUpdated"; readonly previous: number; readonly current: number }
  | { readonly name: "StrategySetForAsset"; readonly asset: Address; readonly strategy: number }
  | { readonly name: "ModuleSetForStrategy"; readonly strategy: number; readonly module: Address }
  | { readonly name: "OwnershipTransferred"; readonly previousOwner: Address; readonly newOwner: Address }
  | { readonly name: "Paused" }
  | { readonly name: "Unpaused" }
  // SpokeGateway
  | {
      readonly name: "MessageSent"
      readonly messageId: Bytes32
      readonly destination: number
      readonly nonce: bigint
      readonly message: Hex
      readonly fee: bigint
    }
  | { readonly name: "MessageReceived"; readonly messageId: Bytes32; readonly origin: number }
  | { readonly name: "FeesUpdated"; readonly baseFee: bigint; readonly feePerByte: bigint }
  | { readonly name: "SpokeUpdated"; readonly previous: Address; readonly current: Address }
  | { readonly name: "RelayerUpdated"; readonly previous: Address; readonly current: Address }
  | { readonly name: "FeesWithdrawn"; readonly to: Address; readonly amount: Amount }
  // FeeAdapter
  | { readonly name: "IntentWithFeesAdded"; readonly intentId: Bytes32; readonly initiator: Bytes32; readonly tokenFee: Amount; readonly nativeFee: bigint }
  | {
      readonly name: "OrderCreated"
      readonly orderId: Bytes32
      readonly initiator: Bytes32
      readonly intentIds: readonly Bytes32[]
      readonly tokenFee: Amount
      readonly nativeFee: bigint
    }
  | { readonly name: "FeeRecipientUpdated"; readonly previous: Address; readonly current: Address }
  | { readonly name: "FeeSignerUpdated"; readonly previous: Address; readonly current: Address }
  // Permit2
  | { readonly name: "UnorderedNonceInvalidation"; readonly owner: Address; readonly word: bigint; readonly mask: bigint }
  // XERC20Module
  | { readonly name: "HandleMintStrategyFailed"; readonly asset: Address; readonly recipient: Address; readonly amount: Amount }
  | { readonly name: "DebtMinted"; readonly asset: Address; readonly recipient: Address; readonly amount: Amount }
  // Tokens
  | { readonly name: "Transfer"; readonly from: Address; readonly to: Address; readonly value: Amount }
  | { readonly name: "Approval"; readonly owner: Address; readonly spender: Address; readonly value: Amount }
  | { readonly name: "BridgeLimitsSet"; readonly mintingLimit: Amount; readonly burningLimit: Amount; readonly bridge: Address }
  | { readonly name: "BlacklistUpdated"; readonly account: Address; readonly blacklisted: boolean }
  // TestCallTarget
  | { readonly name: "Called"; readonly caller: Address; readonly value: bigint }

export type SpokeEventName = SpokeEventBody["name"]

/** Where an event was emitted. */
export interface EventLocation {
  /** The emitting contract, lowercase. */
  readonly address: Address
  readonly blockNumber: bigint
  /** Position of the log in its block. */
  readonly logIndex: number
  /** Position of the transaction in its block. */
  readonly txIndex: number
  /** anvil only. */
  readonly transactionHash?: Hex
}

export type SpokeEvent = SpokeEventBody & EventLocation

/** The events named `name`, narrowed. */
export const eventsNamed = <N extends SpokeEventName>(events: readonly SpokeEvent[], name: N): Extract<SpokeEvent, { readonly name: N }>[] =>
  events.filter((event): event is Extract<SpokeEvent, { readonly name: N }> => event.name === name)
