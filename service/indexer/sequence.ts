/**
 * Ordered indexes over the read model's sequence numbers, for cursor pagination that costs O(page · log n)
 * whatever the position of the cursor:
 * - `SortedSeqs`: a sorted set of sequence numbers that only grows (intents are never removed);
 * - `LiveSeqs`: a sorted set with removals (open invoices), where "the first live entry at or after s" is
 *   answered through forward/backward union-find pointers with path compression, and dead entries are
 *   compacted away once they are the majority.
 * Both answer `atOrAfter(seq)` / `atOrBefore(seq)`; `mergeAsc`/`mergeDesc` walk the union of several.
 */

/** The first index of the ascending `arr` whose value is not below `seq` (values are never NaN). */
export const lowerBound = (arr: ArrayLike<number>, seq: number, length = arr.length): number => {
  let lo = 0
  let hi = length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (arr[mid]! < seq) lo = mid + 1
    else hi = mid
  }
  return lo
}

export interface SeqSource {
  /** Number of (live) entries. */
  readonly size: number
  /** The smallest entry `>= seq`. */
  atOrAfter(seq: number): number | undefined
  /** The largest entry `<= seq`. */
  atOrBefore(seq: number): number | undefined
}

export class SortedSeqs implements SeqSource {
  private readonly seqs: number[] = []

  get size(): number {
    return this.seqs.length
  }

  /** Adds `seq` (a no-op when present). Appending in increasing order is O(1). */
  add(seq: number): void {
    const arr = this.seqs
    const last = arr.length === 0 ? -1 : arr[arr.length - 1]!
    if (seq > last) {
      arr.push(seq)
      return
    }
    const i = lowerBound(arr, seq)
    if (arr[i] !== seq) arr.splice(i, 0, seq)
  }

  atOrAfter(seq: number): number | undefined {
    return this.seqs[lowerBound(this.seqs, seq)]
  }

  atOrBefore(seq: number): number | undefined {
    const i = lowerBound(this.seqs, seq + 1) - 1
    return i >= 0 ? this.seqs[i] : undefined
  }
}

/** One sequence number as a `SeqSource`. */
class SingleSeq implements SeqSource {
  private readonly seq: number
  constructor(seq: number) {
    this.seq = seq
  }
  get size(): number {
    return 1
  }
  atOrAfter(seq: number): number | undefined {
    return this.seq >= seq ? this.seq : undefined
  }
  atOrBefore(seq: number): number | undefined {
    return this.seq <= seq ? this.seq : undefined
  }
}

/**
 * `SortedSeqs` by key, for indexes where most keys hold one sequence number (transaction hashes): a key's
 * first number is stored as is, and a `SortedSeqs` is made only when a second one comes.
 */
export class KeyedSeqs<K> {
  private readonly map = new Map<K, number | SortedSeqs>()

  add(key: K, seq: number): void {
    const current = this.map.get(key)
    if (current === undefined) this.map.set(key, seq)
    else if (typeof current === "number") {
      if (current === seq) return
      const seqs = new SortedSeqs()
      seqs.add(current)
      seqs.add(seq)
      this.map.set(key, seqs)
    } else current.add(seq)
  }

  get(key: K): SeqSource | undefined {
    const current = this.map.get(key)
    return typeof current === "number" ? new SingleSeq(current) : current
  }
}

/** Every sequence number in `[0, size)`: the index of all records, without storing it. */
export class RangeSeqs implements SeqSource {
  private readonly count: () => number
  constructor(count: () => number) {
    this.count = count
  }
  get size(): number {
    return this.count()
  }
  atOrAfter(seq: number): number | undefined {
    const s = Math.max(0, Math.ceil(seq))
    return s < this.count() ? s : undefined
  }
  atOrBefore(seq: number): number | undefined {
    const s = Math.min(this.count() - 1, Math.floor(seq))
    return s >= 0 ? s : undefined
  }
}

export class LiveSeqs implements SeqSource {
  private seqs: number[] = []
  /** `fwd[i] === i` when entry i is live; else a later position to look at (`length` = none). */
  private fwd: number[] = []
  /** `bwd[i] === i` when entry i is live; else an earlier position (-1 = none). */
  private bwd: number[] = []
  private live = 0

  get size(): number {
    return this.live
  }

  /** Appends `seq`, which must exceed every entry ever added. */
  add(seq: number): void {
    const n = this.seqs.length
    if (n > 0 && this.seqs[n - 1]! >= seq) throw new Error(`LiveSeqs.add: ${seq} is not above the last entry ${this.seqs[n - 1]}`)
    this.seqs.push(seq)
    this.fwd.push(n)
    this.bwd.push(n)
    this.live++
  }

  remove(seq: number): boolean {
    const i = lowerBound(this.seqs, seq)
    if (this.seqs[i] !== seq || this.fwd[i] !== i) return false
    this.fwd[i] = i + 1
    this.bwd[i] = i - 1
    this.live--
    const dead = this.seqs.length - this.live
    if (dead > 1024 && dead * 2 > this.seqs.length) this.compact()
    return true
  }

  has(seq: number): boolean {
    const i = lowerBound(this.seqs, seq)
    return this.seqs[i] === seq && this.fwd[i] === i
  }

  private findFwd(start: number): number {
    const fwd = this.fwd
    const n = fwd.length
    let root = start
    while (root < n && fwd[root] !== root) root = fwd[root]!
    for (let i = start; i < n && fwd[i] !== i; ) {
      const next = fwd[i]!
      fwd[i] = root
      i = next
    }
    return root
  }

  private findBwd(start: number): number {
    const bwd = this.bwd
    let root = start
    while (root >= 0 && bwd[root] !== root) root = bwd[root]!
    for (let i = start; i >= 0 && bwd[i] !== i; ) {
      const next = bwd[i]!
      bwd[i] = root
      i = next
    }
    return root
  }

  atOrAfter(seq: number): number | undefined {
    const i = this.findFwd(lowerBound(this.seqs, seq))
    return i < this.seqs.length ? this.seqs[i] : undefined
  }

  atOrBefore(seq: number): number | undefined {
    const i = this.findBwd(lowerBound(this.seqs, seq + 1) - 1)
    return i >= 0 ? this.seqs[i] : undefined
  }

  private compact(): void {
    const kept: number[] = []
    for (let i = 0; i < this.seqs.length; i++) if (this.fwd[i] === i) kept.push(this.seqs[i]!)
    this.seqs = kept
    this.fwd = kept.map((_, i) => i)
    this.bwd = kept.map((_, i) => i)
  }
}

/** The entries of the union of `sources` from `start` upwards, each once. */
export function* mergeAsc(sources: readonly SeqSource[], start: number): Generator<number> {
  if (sources.length === 1) {
    const source = sources[0]!
    for (let s = source.atOrAfter(start); s !== undefined; s = source.atOrAfter(s + 1)) yield s
    return
  }
  const heads = sources.map((s) => s.atOrAfter(start))
  for (;;) {
    let min: number | undefined
    for (const h of heads) if (h !== undefined && (min === undefined || h < min)) min = h
    if (min === undefined) return
    yield min
    for (let i = 0; i < heads.length; i++) if (heads[i] === min) heads[i] = sources[i]!.atOrAfter(min + 1)
  }
}

/** The entries of the union of `sources` from `start` downwards, each once. */
export function* mergeDesc(sources: readonly SeqSource[], start: number): Generator<number> {
  if (sources.length === 1) {
    const source = sources[0]!
    for (let s = source.atOrBefore(start); s !== undefined; s = source.atOrBefore(s - 1)) yield s
    return
  }
  const heads = sources.map((s) => s.atOrBefore(start))
  for (;;) {
    let max: number | undefined
    for (const h of heads) if (h !== undefined && (max === undefined || h > max)) max = h
    if (max === undefined) return
    yield max
    for (let i = 0; i < heads.length; i++) if (heads[i] === max) heads[i] = sources[i]!.atOrBefore(max - 1)
  }
}
