/**
 * Feeds mined `Spokes` blocks to the read model: every event of every successful receipt, with the block's
 * number and time and the transaction's sender and hash. The memory backend has no transaction hashes: they
 * are derived deterministically from (domain, block, index). Neither backend reports nonces in receipts:
 * `txNonce` counts the sender's transactions this observer has seen on the domain (the chain nonce when every
 * transaction of the sender goes through observed blocks).
 */
import { encodeAbiParameters, keccak256 } from "viem/utils"
import type { Address, Hex } from "../domain/hex.ts"
import type { MinedSpokeBlock } from "../spoke/types.ts"
import type { ReadModel } from "./readModel.ts"

export interface SpokeBlockObserverOptions {
  /** Wei per gas, to turn a receipt's `gasUsed` into `origin_gas_fees`/`destination_gas_fees`. */
  readonly gasPrice?: (domain: number, blockNumber: bigint) => bigint | undefined
}

export class SpokeBlockObserver {
  private readonly nonces = new Map<string, number>()

  private readonly model: ReadModel
  private readonly options: SpokeBlockObserverOptions
  constructor(model: ReadModel, options: SpokeBlockObserverOptions = {}) {
    this.model = model
    this.options = options
  }

  observe(block: MinedSpokeBlock): void {
    const price = this.options.gasPrice?.(block.domain, block.blockNumber)
    for (const receipt of block.receipts) {
      const from = receipt.from.toLowerCase() as Address
      const key = `${block.domain}:${from}`
      const nonce = this.nonces.get(key) ?? 0
      this.nonces.set(key, nonce + 1)
      if (receipt.status !== "success") continue
      const txHash: Hex =
        receipt.transactionHash ??
        keccak256(encodeAbiParameters([{ type: "uint32" }, { type: "uint256" }, { type: "uint256" }], [block.domain, block.blockNumber, BigInt(receipt.index)]))
      const meta = {
        domain: block.domain,
        blockNumber: Number(block.blockNumber),
        timestamp: Number(block.timestamp),
        txHash,
        txFrom: from,
        txNonce: nonce,
        ...(receipt.gasUsed !== undefined && price !== undefined ? { gasFee: receipt.gasUsed * price } : {}),
      }
      for (const event of receipt.events) this.model.onSpokeEvent(event, meta)
    }
  }
}
