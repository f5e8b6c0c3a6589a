/**
 * A map from 32-byte ids (intent ids: keccak digests as `0x` hex strings) to values: the hub's intent contexts,
 * the read model's intents and the memory spokes' intent statuses, millions of entries looked up several times
 * each.
 *
 * Open addressing with linear probing over an `Int32Array` of (entry index, hash) pairs; ids and values
 * interleaved in one array in insertion order (like `Map`). The hash comes from the id's last eight characters:
 * for a digest those are uniformly distributed, so nothing else of the 66-character string is read, where `Map`
 * hashes every character of each new key. A deleted entry keeps its slot until the table grows, and its place in
 * the entry list for good (deletions are rare: writes a reverted transaction undoes). Measured on 1M digests: `get` about 1.4x `Map`'s, `set` about the
 * same; the hub's 1M-intent intake about 10 % faster with it.
 */
/** The value of a deleted entry (its slot stays, so probes go on past it; a later `set` appends a new entry). */
const DELETED: unique symbol = Symbol("IdMap.deleted")

export class IdMap<V> implements Iterable<[string, V]> {
  /**
   * Per slot two int32s: the entry index (-1 when empty) and the full 32-bit hash of its id, so that a probe past
   * another id is settled by the hash without reading that id's string (at a million entries every string read
   * is a cache miss).
   */
  private table: Int32Array
  private mask: number
  /** Ids and values interleaved by entry (`[id0, value0, id1, value1, …]`): a hit reads one neighbourhood. */
  private readonly kv: unknown[] = []
  /** Each entry's hash (growing with `kv`): the table is rebuilt from these without reading an id again. */
  private hashes = new Int32Array(64)
  /** Entries in `kv`, deleted ones included. */
  private entryCount = 0
  private live = 0

  constructor(initialCapacity = 1024) {
    let capacity = 16
    while (capacity < initialCapacity * 2) capacity *= 2
    this.table = new Int32Array(capacity * 2).fill(-1)
    this.mask = capacity - 1
  }

  get size(): number {
    return this.live
  }

  /** FNV-1a over the last (up to) eight characters, finalized so that low bits depend on every one of them. */
  private static slotHash(id: string): number {
    let h = 0x811c9dc5
    for (let i = Math.max(0, id.length - 8); i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193)
    h ^= h >>> 15
    h = Math.imul(h, 0x2c1b3c6d)
    return h ^ (h >>> 12)
  }

  /** The slot holding `id` (possibly as a deleted entry), or the empty slot where it would go. */
  private find(id: string, hash: number): number {
    const table = this.table
    const mask = this.mask
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = table[2 * i]!
      if (entry === -1 || (table[2 * i + 1] === hash && this.kv[2 * entry] === id)) return i
    }
  }

  get(id: string): V | undefined {
    const entry = this.table[2 * this.find(id, IdMap.slotHash(id))]!
    if (entry === -1) return undefined
    const value = this.kv[2 * entry + 1]
    return value === DELETED ? undefined : (value as V)
  }

  has(id: string): boolean {
    const entry = this.table[2 * this.find(id, IdMap.slotHash(id))]!
    return entry !== -1 && this.kv[2 * entry + 1] !== DELETED
  }

  set(id: string, value: V): this {
    const hash = IdMap.slotHash(id)
    const slot = this.find(id, hash)
    const entry = this.table[2 * slot]!
    if (entry !== -1 && this.kv[2 * entry + 1] !== DELETED) {
      this.kv[2 * entry + 1] = value
      return this
    }
    // A new id, or one deleted before: a new entry at the end of the insertion order (as `Map` does).
    const entryIndex = this.entryCount
    this.table[2 * slot] = entryIndex
    this.table[2 * slot + 1] = hash
    this.kv.push(id, value)
    if (entryIndex === this.hashes.length) {
      const hashes = new Int32Array(entryIndex * 2)
      hashes.set(this.hashes)
      this.hashes = hashes
    }
    this.hashes[entryIndex] = hash
    this.entryCount++
    this.live++
    if (this.entryCount * 4 > this.table.length) this.grow()
    return this
  }

  /** Removes `id`; true when it was there. */
  delete(id: string): boolean {
    const entry = this.table[2 * this.find(id, IdMap.slotHash(id))]!
    if (entry === -1 || this.kv[2 * entry + 1] === DELETED) return false
    this.kv[2 * entry + 1] = DELETED
    this.live--
    return true
  }

  private grow(): void {
    const capacity = this.table.length
    const table = new Int32Array(capacity * 2).fill(-1)
    const mask = capacity - 1
    for (let entry = 0; entry < this.entryCount; entry++) {
      if (this.kv[2 * entry + 1] === DELETED) continue // unreachable from now on: `get` misses it, `set` appends
      const hash = this.hashes[entry]!
      let i = hash & mask
      while (table[2 * i] !== -1) i = (i + 1) & mask
      table[2 * i] = entry
      table[2 * i + 1] = hash
    }
    this.table = table
    this.mask = mask
  }

  /** Values in insertion order. */
  *values(): IterableIterator<V> {
    for (let i = 0; i < this.entryCount; i++) if (this.kv[2 * i + 1] !== DELETED) yield this.kv[2 * i + 1] as V
  }

  /** Ids in insertion order. */
  *keys(): IterableIterator<string> {
    for (let i = 0; i < this.entryCount; i++) if (this.kv[2 * i + 1] !== DELETED) yield this.kv[2 * i] as string
  }

  *entries(): IterableIterator<[string, V]> {
    for (let i = 0; i < this.entryCount; i++) if (this.kv[2 * i + 1] !== DELETED) yield [this.kv[2 * i] as string, this.kv[2 * i + 1] as V]
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries()
  }
}
