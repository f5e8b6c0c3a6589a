/**
 * Lowercasing of call arguments: the memory contracts compare and key addresses, words and bytes as lowercase hex
 * (as the EVM compares their values), and arguments may come in any case.
 */
import type { Intent } from "../../domain/protocol.ts"
import type { NewIntentParams, Permit2Params } from "../calls.ts"

export const lc = <T extends string>(value: T): T => value.toLowerCase() as T

export const isLower = (value: string): boolean => value === value.toLowerCase()

/**
 * Strings found lowercase, among those that recur call after call (the addresses and words of a few hundred
 * accounts and assets, empty calldata): a set lookup instead of a lowercase copy to compare with. Whether a
 * string is lowercase never changes, so the set is a cache shared by every chain; it is emptied when full.
 */
const knownLower = new Set<string>()
const KNOWN_LOWER_LIMIT = 4096

/** `isLower` of a value that likely recurs (not of unique ones like intent ids: they would only fill the set). */
export const isLowerRecurring = (value: string): boolean => {
  if (knownLower.has(value)) return true
  if (value !== value.toLowerCase()) return false
  if (knownLower.size >= KNOWN_LOWER_LIMIT) knownLower.clear()
  knownLower.add(value)
  return true
}

/** The intent with lowercase words and data (the same object when it already is). */
export const lowerIntent = (intent: Intent): Intent =>
  isLowerRecurring(intent.initiator) &&
  isLowerRecurring(intent.receiver) &&
  isLowerRecurring(intent.inputAsset) &&
  isLowerRecurring(intent.outputAsset) &&
  isLower(intent.data)
    ? intent
    : {
        ...intent,
        initiator: lc(intent.initiator),
        receiver: lc(intent.receiver),
        inputAsset: lc(intent.inputAsset),
        outputAsset: lc(intent.outputAsset),
        data: lc(intent.data),
      }

export const lowerParams = (p: NewIntentParams): NewIntentParams =>
  isLowerRecurring(p.receiver) && isLowerRecurring(p.inputAsset) && isLowerRecurring(p.outputAsset) && isLower(p.data)
    ? p
    : { ...p, receiver: lc(p.receiver), inputAsset: lc(p.inputAsset), outputAsset: lc(p.outputAsset), data: lc(p.data) }

export const lowerPermit2Params = (p: Permit2Params): Permit2Params => (isLower(p.signature) ? p : { ...p, signature: lc(p.signature) })
