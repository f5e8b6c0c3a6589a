/**
 * A map from 32-byte ids (intent ids: keccak digests as `0x` hex strings) to values: the hub's intent contexts,
 * the read model's intents and the memory spokes' intent statuses, millions of entries looked up several times
 * each.
 *
 * Open addressing with linear probing over an `Int32Array` of (entry index, hash) pairs; ids and values
 * interleaved in one array in insertion order (like `Map`). The hash comes from the id's last eight characters:
 * for a digest those are uniformly distributed, so nothing else of the 66-character string is read, where `Map`
 * hashes every character of each new key. A deleted entry's slot becomes a tombstone until the table grows, and
 * its place in the entry list stays for good (deletions are rare: writes a reverted transaction undoes). Measured
 * on 1M digests: `get` about 1.4x `Map`'s, `set` about the same; the hub's 1M-intent intake about 10 % faster
 * with it. Growing walks the old table in slot order, so that its writes advance through two regions of the new
 * table instead of missing the cache once per entry.
 */
/** The value of a deleted entry (its slot stays, so probes go on past it; a later `set` appends a new entry). */
const DELETED: unique symbol = Symbol("IdMap.deleted")
/** A table slot's entry index when empty, and when its entry was deleted (occupied for probes, matches no id). */
const EMPTY = -1
const TOMBSTONE = -2

export class IdMap<V> implements Iterable<[string, V]> {
  /**
   * Per slot two int32s: the entry index (`EMPTY`, `TOMBSTONE` or ≥ 0) and the full 32-bit hash of its id, so
   * that a probe past another id is settled by the hash without reading that id's string (at a million entries
   * every string read is a cache miss), and growing needs no id at all.
   */
  private table: Int32Array
  private mask: number
  /** Ids and values interleaved by entry (`[id0, value0, id1, value1, …]`): a hit reads one neighbourhood. */
  private readonly kv: unknown[] = []
  /** Entries in `kv`, deleted ones included. */
  private entryCount = 0
  private live = 0

  constructor(initialCapacity = 1024) {
    let capacity = 16
    while (capacity < initialCapacity * 2) capacity *= 2
    this.table = new Int32Array(capacity * 2).fill(EMPTY)
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

  /** The slot holding `id`'s live entry, or the empty slot where it would go (tombstones are probed past). */
  private find(id: string, hash: number): number {
    const table = this.table
    const mask = this.mask
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const entry = table[2 * i]!
      if (entry === EMPTY || (entry >= 0 && table[2 * i + 1] === hash && this.kv[2 * entry] === id)) return i
    }
  }

  get(id: string): V | undefined {
    const entry = this.table[2 * this.find(id, IdMap.slotHash(id))]!
    return entry === EMPTY ? undefined : (this.kv[2 * entry + 1] as V)
  }

  has(id: string): boolean {
    return this.table[2 * this.find(id, IdMap.slotHash(id))] !== EMPTY
  }

  set(id: string, value: V): this {
    this.swap(id, value)
    return this
  }

  /** `set(id, value)`, returning the value it replaced (undefined when `id` was absent): one probe, not two. */
  swap(id: string, value: V): V | undefined {
    const hash = IdMap.slotHash(id)
    const slot = this.find(id, hash)
    const entry = this.table[2 * slot]!
    if (entry !== EMPTY) {
      const previous = this.kv[2 * entry + 1] as V
      this.kv[2 * entry + 1] = value
      return previous
    }
    this.insert(slot, hash, id, value)
    return undefined
  }

  /** The value of `id`; when absent, `value` is set first and returned. One probe, not two. */
  setIfAbsent(id: string, value: V): V {
    const hash = IdMap.slotHash(id)
    const slot = this.find(id, hash)
    const entry = this.table[2 * slot]!
    if (entry !== EMPTY) return this.kv[2 * entry + 1] as V
    this.insert(slot, hash, id, value)
    return value
  }

  /** A new id, or one deleted before, at the empty `slot`: a new entry at the end of the insertion order (as `Map` does). */
  private insert(slot: number, hash: number, id: string, value: V): void {
    this.table[2 * slot] = this.entryCount
    this.table[2 * slot + 1] = hash
    this.kv.push(id, value)
    this.entryCount++
    this.live++
    this.used++
    if (this.used * 4 > this.table.length) this.grow()
  }

  /** Removes `id`; true when it was there. Its slot becomes a tombstone until the table grows. */
  delete(id: string): boolean {
    const slot = this.find(id, IdMap.slotHash(id))
    const entry = this.table[2 * slot]!
    if (entry === EMPTY) return false
    this.table[2 * slot] = TOMBSTONE
    this.kv[2 * entry + 1] = DELETED
    this.live--
    return true
  }

  /** Slots not empty (live entries and tombstones): the load that decides growth. */
  private used = 0

  /**
   * Doubles the table, or rebuilds it at its size when tombstones are most of the load, dropping the tombstones.
   * The old table is read in slot order: an entry's home in the new table is its old home (or that plus the old
   * size), so the writes advance through the new table instead of jumping.
   */
  private grow(): void {
    const old = this.table
    const oldSlots = old.length / 2
    const slots = this.live * 4 > oldSlots ? oldSlots * 2 : oldSlots
    const table = new Int32Array(slots * 2).fill(EMPTY)
    const mask = slots - 1
    for (let s = 0; s < old.length; s += 2) {
      const entry = old[s]!
      if (entry < 0) continue
      const hash = old[s + 1]!
      let i = hash & mask
      while (table[2 * i] !== EMPTY) i = (i + 1) & mask
      table[2 * i] = entry
      table[2 * i + 1] = hash
    }
    this.table = table
    this.mask = mask
    this.used = this.live
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
