/**
 * A fast encoder of `FeeAdapter.newIntent` calldata (the hot path of `POST /intents`): hex words concatenated in
 * one pass, about 10× viem's `encodeFunctionData`. `feeAdapterCalldata.test.ts` proves it byte-equal to viem on
 * random arguments. Arguments are trusted to fit their ABI types (the service validated them).
 */
import { toFunctionSelector } from "viem/utils"
import type { Hex } from "../domain/hex.ts"
import type { FeeParams, OrderParameters } from "./transactions.ts"

const NEW_INTENT_SELECTOR = toFunctionSelector(
  "newIntent(uint32[],address,address,address,uint256,uint24,uint48,bytes,(uint256,uint256,bytes))",
).slice(2)

const ZERO_WORD = "0".repeat(64)

const word = (value: bigint | number): string => {
  const digits = value.toString(16)
  return digits.length >= 64 ? digits : ZERO_WORD.slice(digits.length) + digits
}

const addressWord = (address: string): string => `000000000000000000000000${address.slice(2).toLowerCase()}`

/** `bytes` as its length word followed by the data right-padded to whole words. */
const bytesTail = (data: Hex): string => {
  const hex = data.slice(2).toLowerCase()
  const length = hex.length / 2
  const pad = (64 - (hex.length % 64)) % 64
  return word(length) + hex + ZERO_WORD.slice(0, pad)
}

/** `FeeAdapter.newIntent(destinations, receiver, inputAsset, outputAsset, amount, maxFee, ttl, data, feeParams)`. */
export const encodeNewIntentFast = (o: OrderParameters, fee: FeeParams): Hex => {
  const destinations = word(o.destinations.length) + o.destinations.map(word).join("")
  const data = bytesTail(o.data)
  // feeParams is a dynamic tuple (its `sig` is bytes): fee, deadline, offset of sig (3 words), then sig.
  const feeTuple = word(fee.fee) + word(fee.deadline) + word(96) + bytesTail(fee.sig)
  const headSize = 9 * 32
  const destinationsOffset = headSize
  const dataOffset = destinationsOffset + destinations.length / 2
  const feeOffset = dataOffset + data.length / 2
  return `0x${NEW_INTENT_SELECTOR}${word(destinationsOffset)}${addressWord(o.receiver)}${addressWord(o.inputAsset)}${
    addressWord(o.outputAsset)
  }${word(o.amount)}${word(o.maxFee)}${word(o.ttl)}${word(dataOffset)}${word(feeOffset)}${destinations}${data}${feeTuple}`
}
