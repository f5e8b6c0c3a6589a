/**
 * What every memory contract sees of its chain while a call runs: the journal for its writes, the block's
 * timestamp, and the event log. Also the small map helpers the contracts share.
 */
import type { Address } from "../../domain/hex.ts"
import type { SpokeEventBody } from "../events.ts"
import type { Journal } from "./journal.ts"

export interface ExecutionContext {
  readonly journal: Journal
  /** `block.chainid`. */
  readonly domain: number
  /** `block.timestamp` of the block being mined, seconds. */
  readonly now: number
  /** Appends an event of contract `address` to the running call's log. */
  emit(address: Address, body: SpokeEventBody): void
}

/** `mapping(a => mapping(b => uint256))` read. */
export const get2 = (map: Map<string, Map<string, bigint>>, a: string, b: string): bigint => map.get(a)?.get(b) ?? 0n

/** `mapping(a => mapping(b => uint256))` write through the journal. */
export const set2 = (journal: Journal, map: Map<string, Map<string, bigint>>, a: string, b: string, value: bigint): void => {
  let inner = map.get(a)
  if (inner === undefined) {
    inner = new Map()
    map.set(a, inner)
  }
  journal.set(inner, b, value)
}
