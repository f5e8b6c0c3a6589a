/**
 * A map from 32-byte ids (intent ids: keccak digests as `0x` hex strings) to values, for the hub's intent
 * contexts: millions of entries, looked up and added once per message.
 *
 * Open addressing with linear probing over an `Int32Array` of entry indices, keys and values in parallel
 * arrays (insertion order, like `Map`). The slot comes from the id's last eight characters: for a digest
 * those are uniformly distributed, so nothing else of the 66-character string is read, where `Map` hashes
 * every character of each new key. No deletion (the hub never forgets an intent). Measured on 1M digests:
 * `get` about 1.4x `Map`'s, `set` about the same; the hub's 1M-intent intake about 10 % faster with it.
 */
export class IdMap<V> implements Iterable<[string, V]> {
  private slots: Int32Array
  private mask: number
  private readonly ids: string[] = []
  private readonly vals: V[] = []

  constructor(initialCapacity = 1024) {
    let capacity = 16
    while (capacity < initialCapacity * 2) capacity *= 2
    this.slots = new Int32Array(capacity).fill(-1)
    this.mask = capacity - 1
  }

  get size(): number {
    return this.ids.length
  }

  /** FNV-1a over the last (up to) eight characters, finalized so that low bits depend on every one of them. */
  private static slotHash(id: string): number {
    let h = 0x811c9dc5
    for (let i = Math.max(0, id.length - 8); i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193)
    h ^= h >>> 15
    h = Math.imul(h, 0x2c1b3c6d)
    return (h ^ (h >>> 12)) >>> 0
  }

  private find(id: string): number {
    const slots = this.slots
    const mask = this.mask
    for (let i = IdMap.slotHash(id) & mask; ; i = (i + 1) & mask) {
      const entry = slots[i]!
      if (entry === -1 || this.ids[entry] === id) return i
    }
  }

  get(id: string): V | undefined {
    const entry = this.slots[this.find(id)]!
    return entry === -1 ? undefined : this.vals[entry]
  }

  has(id: string): boolean {
    return this.slots[this.find(id)] !== -1
  }

  set(id: string, value: V): this {
    const slot = this.find(id)
    const entry = this.slots[slot]!
    if (entry !== -1) {
      this.vals[entry] = value
      return this
    }
    this.slots[slot] = this.ids.length
    this.ids.push(id)
    this.vals.push(value)
    if (this.ids.length * 2 > this.slots.length) this.grow()
    return this
  }

  private grow(): void {
    const capacity = this.slots.length * 2
    const slots = new Int32Array(capacity).fill(-1)
    const mask = capacity - 1
    for (let entry = 0; entry < this.ids.length; entry++) {
      let i = IdMap.slotHash(this.ids[entry]!) & mask
      while (slots[i] !== -1) i = (i + 1) & mask
      slots[i] = entry
    }
    this.slots = slots
    this.mask = mask
  }

  /** Values in insertion order. */
  values(): IterableIterator<V> {
    return this.vals[Symbol.iterator]()
  }

  /** Ids in insertion order. */
  keys(): IterableIterator<string> {
    return this.ids[Symbol.iterator]()
  }

  *entries(): IterableIterator<[string, V]> {
    for (let i = 0; i < this.ids.length; i++) yield [this.ids[i]!, this.vals[i]!]
  }

  [Symbol.iterator](): IterableIterator<[string, V]> {
    return this.entries()
  }
}
