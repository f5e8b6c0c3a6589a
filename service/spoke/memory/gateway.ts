/**
 * `SpokeGateway` in memory: fee quotes, outbound messages with their ids, inbound delivery by the relayer with the
 * origin and duplicate checks (contracts/SpokeGateway.sol).
 */
import type { Address, Bytes32, Hex } from "../../domain/hex.ts"
import type { Intent } from "../../domain/protocol.ts"
import type { SpokeEvent } from "../events.ts"
import { bytesToHex, hexToBytes } from "../../domain/hex.ts"
import type { GatewayFees } from "../deploy.ts"
import { checkedAdd, checkedMul, revert } from "./journal.ts"
import { messageIdOf } from "../../domain/encoding.ts"
import type { DecodedSettlement } from "./messages.ts"
import type { MemoryWorld } from "./world.ts"

/** The intents of an INTENT message as the spoke held them, with the ids it computed for them (same order). */
export interface SentIntents {
  readonly intents: readonly Intent[]
  readonly ids: readonly Bytes32[]
}

/** The intents of the INTENT messages the memory spokes sent, by their `MessageSent` event (see `memorySentIntents`). */
const SENT_INTENTS = new WeakMap<object, SentIntents>()

/**
 * The intents a memory spoke's `MessageSent` event carries, as the spoke held them, and their ids: the message is
 * their `encodeIntentMessage`, so `decodeMessage(event.message)` gives the same values. In-process consumers (the
 * simulator's transport to the hub) use them instead of decoding the bytes and hashing each intent again.
 * Undefined for other events, other message types and the anvil backend.
 */
export const memorySentIntents = (event: SpokeEvent): SentIntents | undefined => SENT_INTENTS.get(event)

/**
 * Makes `event.message` (already a key of `event`, which keeps its place) an enumerable property whose hex is made
 * from `bytes` on first read and then stored as a plain value. `bytes` must not change afterwards.
 */
const lazyHex = (event: { message: Hex }, bytes: Uint8Array): void => {
  Object.defineProperty(event, "message", {
    enumerable: true,
    configurable: true,
    get(): Hex {
      const hex = bytesToHex(bytes)
      Object.defineProperty(event, "message", { value: hex, enumerable: true, writable: true, configurable: true })
      return hex
    },
  })
}

export class MemoryGateway {
  owner: Address
  spoke: Address
  relayer: Address
  hubDomain: number
  baseFee: bigint
  feePerByte: bigint
  nonce = 0n
  readonly delivered = new Map<Bytes32, true>()

  private readonly world: MemoryWorld
  readonly address: Address
  constructor(
    world: MemoryWorld,
    address: Address,
    config: { owner: Address; spoke: Address; relayer: Address; hubDomain: number; fees: GatewayFees },
  ) {
    this.world = world
    this.address = address
    this.owner = config.owner
    this.spoke = config.spoke
    this.relayer = config.relayer
    this.hubDomain = config.hubDomain
    this.baseFee = config.fees.baseFee
    this.feePerByte = config.fees.feePerByte
  }

  private get ctx() {
    return this.world.ctx
  }

  /** Native balance: the transport fees collected (the quotes; overpayments are refunded). */
  get nativeBalance(): bigint {
    return this.world.nativeOf(this.address)
  }

  quoteMessage(message: Hex): bigint {
    return this.quoteBytes((message.length - 2) >> 1)
  }

  /** `quoteMessage` of a message of `byteLength` bytes. */
  quoteBytes(byteLength: number): bigint {
    return checkedAdd(this.baseFee, checkedMul(this.feePerByte, BigInt(byteLength)))
  }

  /** `quoteMessage` of a message given as hex or as bytes. */
  quote(message: Hex | Uint8Array): bigint {
    return typeof message === "string" ? this.quoteMessage(message) : this.quoteBytes(message.length)
  }

  /**
   * `message` as hex, or as bytes: the event's `message` is then made hex on first read (consumers in process take
   * `intents` and never read it; a million intents make a gigabyte of hex). `intents` (when given) are the intents
   * the message encodes, with their ids.
   */
  sendMessage(sender: Address, value: bigint, destination: number, message: Hex | Uint8Array, intents?: SentIntents): Bytes32 {
    if (sender !== this.spoke) revert("SpokeGateway_SendMessage_NotSpoke", sender)
    const required = this.quote(message)
    if (value < required) revert("SpokeGateway_SendMessage_InsufficientFee", value, required)
    // msg.value arrives with the call.
    this.world.moveNative(sender, this.address, value)
    const nonce = this.nonce + 1n
    this.ctx.journal.field(this as MemoryGateway, "nonce", nonce)
    const hex = typeof message === "string" ? message : undefined
    const messageId = messageIdOf(this.ctx.domain, destination, nonce, hex === undefined ? (message as Uint8Array) : hexToBytes(hex))
    const event = { name: "MessageSent" as const, messageId, destination, nonce, message: hex as Hex, fee: required }
    if (hex === undefined) lazyHex(event, message as Uint8Array)
    this.ctx.emit(this.address, event)
    // The gateway keeps the quote; the unused rest goes back to tx.origin (reference §1.6), and a failed refund
    // reverts the call.
    const unused = value - required
    if (unused > 0n) {
      const origin = this.world.txOrigin
      if (!this.world.sendNative(this.address, origin, unused)) revert("SpokeGateway_SendMessage_RefundFailed", origin, unused)
    }
    if (intents !== undefined) SENT_INTENTS.set(event, intents)
    return messageId
  }

  /** `settlements` (when given) are what decoding the SETTLEMENT `message` gives. */
  receiveMessage(sender: Address, origin: number, messageId: Bytes32, message: Hex, settlements?: readonly DecodedSettlement[]): void {
    if (sender !== this.relayer) revert("SpokeGateway_ReceiveMessage_NotRelayer", sender)
    if (origin !== this.hubDomain) revert("SpokeGateway_ReceiveMessage_InvalidOrigin", origin, this.hubDomain)
    if (this.delivered.has(messageId)) revert("SpokeGateway_ReceiveMessage_AlreadyDelivered", messageId)
    this.ctx.journal.set(this.delivered, messageId, true)
    this.world.spokeAt(this.spoke).receiveMessage(this.address, message, settlements)
    this.ctx.emit(this.address, { name: "MessageReceived", messageId, origin })
  }

  setFees(sender: Address, baseFee: bigint, feePerByte: bigint): void {
    this.onlyOwner(sender)
    this.ctx.journal.field(this as MemoryGateway, "baseFee", baseFee)
    this.ctx.journal.field(this as MemoryGateway, "feePerByte", feePerByte)
    this.ctx.emit(this.address, { name: "FeesUpdated", baseFee, feePerByte })
  }

  updateRelayer(sender: Address, relayer: Address): void {
    this.onlyOwner(sender)
    this.ctx.emit(this.address, { name: "RelayerUpdated", previous: this.relayer, current: relayer })
    this.ctx.journal.field(this as MemoryGateway, "relayer", relayer)
  }

  /** The spoke's MAILBOX VAR_UPDATE: the relayer is the mailbox. */
  updateMailbox(sender: Address, mailbox: Address): void {
    if (sender !== this.spoke) revert("SpokeGateway_UpdateMailbox_NotSpoke", sender)
    this.ctx.emit(this.address, { name: "RelayerUpdated", previous: this.relayer, current: mailbox })
    this.ctx.journal.field(this as MemoryGateway, "relayer", mailbox)
  }

  private onlyOwner(sender: Address): void {
    if (sender !== this.owner) revert("SpokeGateway_NotOwner", sender)
  }
}
