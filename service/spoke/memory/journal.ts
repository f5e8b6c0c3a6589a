/**
 * Reverts and the undo journal of the memory backend. Every state write goes through the journal, which keeps
 * the previous value; a reverted call (or a failed inner call that the contract tolerates, like a settlement
 * transfer) rolls back to a mark, so a revert changes nothing, as on the EVM.
 */
import { IdMap } from "../../domain/idMap.ts"
import { MAX_UINT256 } from "../../domain/protocol.ts"

/** The maps the journal can undo writes to: `Map`s, and `IdMap`s (million-entry maps keyed by intent id). */
interface UndoableMap<K, V> {
  get(key: K): V | undefined
  set(key: K, value: V): unknown
  delete(key: K): boolean
}

/**
 * A revert with its decoded error, thrown through the memory contracts like revert data through the EVM. Not an
 * `Error`: reverts are ordinary outcomes in a simulation and a stack trace would only cost time.
 */
export class SpokeRevert {
  readonly name: string
  readonly args: readonly unknown[]
  constructor(name: string, args: readonly unknown[]) {
    this.name = name
    this.args = args
  }

  /** A revert without data (`revert()`, failed abi decoding, a call to a function that does not exist). */
  get hasData(): boolean {
    return this.name !== EMPTY_REVERT_NAME
  }
}

export const EMPTY_REVERT_NAME = "Revert"

export const revert = (name: string, ...args: readonly unknown[]): never => {
  throw new SpokeRevert(name, args)
}

export const revertEmpty = (): never => {
  throw new SpokeRevert(EMPTY_REVERT_NAME, [])
}

/** Solidity's checked-arithmetic panic code. */
export const PANIC_OVERFLOW = 0x11n

export const checkedAdd = (a: bigint, b: bigint): bigint => {
  const sum = a + b
  if (sum > MAX_UINT256) throw new SpokeRevert("Panic", [PANIC_OVERFLOW])
  return sum
}

export const checkedMul = (a: bigint, b: bigint): bigint => {
  const product = a * b
  if (product > MAX_UINT256) throw new SpokeRevert("Panic", [PANIC_OVERFLOW])
  return product
}

/**
 * Undo log of map entries and object fields, as flat triples (container, key, previous value). Map values are
 * never `undefined` in the memory contracts, so `undefined` as a previous value means "absent".
 */
export class Journal {
  private entries: unknown[] = []

  /** `map.set(key, value)`, remembering the previous entry (one probe of an `IdMap`: `swap`). */
  set<K, V>(map: UndoableMap<K, V>, key: K, value: V): void {
    if (map instanceof IdMap) {
      this.swap(map as IdMap<V>, key as string, value)
      return
    }
    this.entries.push(map, key, map.get(key))
    map.set(key, value)
  }

  /** `map.swap(key, value)`, remembering and returning the previous entry (undefined if absent). */
  swap<V>(map: IdMap<V>, key: string, value: V): V | undefined {
    const previous = map.swap(key, value)
    this.entries.push(map, key, previous)
    return previous
  }

  /** `map.set(key, value)` when the caller just read the previous entry (`map.get(key)`, undefined if absent). */
  replace<K, V>(map: UndoableMap<K, V>, key: K, previous: V | undefined, value: V): void {
    this.entries.push(map, key, previous)
    map.set(key, value)
  }

  /** `map.delete(key)` when the caller just read the entry, `old` (not undefined). */
  remove<K, V>(map: UndoableMap<K, V>, key: K, old: V): void {
    this.entries.push(map, key, old)
    map.delete(key)
  }

  /** `map.delete(key)`, remembering the entry. */
  delete<K, V>(map: UndoableMap<K, V>, key: K): void {
    const old = map.get(key)
    if (old === undefined) return
    this.entries.push(map, key, old)
    map.delete(key)
  }

  /** `object[key] = value`, remembering the previous value. */
  field<T extends object, K extends keyof T>(object: T, key: K, value: T[K]): void {
    this.entries.push(object, key, object[key])
    object[key] = value
  }

  /** A position to roll back to. */
  mark(): number {
    return this.entries.length
  }

  /** Undoes every write after `mark`, newest first. */
  rollback(mark: number): void {
    const entries = this.entries
    for (let i = entries.length - 3; i >= mark; i -= 3) {
      const container = entries[i]
      const key = entries[i + 1]
      const old = entries[i + 2]
      if (container instanceof Map || container instanceof IdMap) {
        const map = container as UndoableMap<unknown, unknown>
        if (old === undefined) map.delete(key)
        else map.set(key, old)
      } else {
        ;(container as Record<PropertyKey, unknown>)[key as PropertyKey] = old
      }
    }
    entries.length = mark
  }

  /** Forgets every entry (the writes stay). */
  commit(): void {
    this.entries = []
  }
}
