/**
 * Exact latency samples and their percentiles (simple-statistics' `quantileSorted`, the linear method of
 * numpy and R type 7). Samples are kept in growable Float64Arrays: a million samples cost 8 MB.
 */
import { quantileSorted } from "simple-statistics"

/** Seconds to the millisecond, as reports and time series show latencies (688.479999999999 → 688.48). */
export const toMilliseconds = (seconds: number): number => Math.round(seconds * 1000) / 1000

export interface Percentiles {
  readonly count: number
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
  readonly mean: number
}

const percentilesOf = (sorted: Float64Array, sum: number): Percentiles => {
  const values = sorted as unknown as number[]
  return {
    count: sorted.length,
    p50: quantileSorted(values, 0.5),
    p90: quantileSorted(values, 0.9),
    p99: quantileSorted(values, 0.99),
    max: sorted[sorted.length - 1]!,
    mean: sum / sorted.length,
  }
}

export class Samples {
  private values = new Float64Array(256)
  private size = 0
  private sum = 0
  /** The last sorted copy, kept while no sample is added (a union of sets reads its parts' copies). */
  private sortedCopy: Float64Array | undefined = undefined

  /** Samples added so far (only ever grows, so a sorted copy of as many samples is still current). */
  get count(): number {
    return this.size
  }

  /**
   * The samples in ascending order (a typed-array sort: numeric, several times faster than Array#sort with a
   * comparator). The array is shared with later calls: read it, never write to it.
   */
  sorted(): Float64Array {
    if (this.sortedCopy?.length !== this.size) this.sortedCopy = this.values.slice(0, this.size).sort()
    return this.sortedCopy
  }

  add(value: number): void {
    if (this.size === this.values.length) {
      const grown = new Float64Array(this.values.length * 2)
      grown.set(this.values)
      this.values = grown
    }
    this.values[this.size++] = value
    this.sum += value
  }

  /** Percentiles of the samples so far, or undefined when there are none. */
  percentiles(): Percentiles | undefined {
    if (this.count === 0) return undefined
    return percentilesOf(this.sorted(), this.sum)
  }

  /**
   * Forgets every sample, keeping the storage (the collector's per-epoch samples: a new set each epoch allocated
   * 2 KB of which most epochs use nothing). Not for a set a `SampleUnion` reads: a union counts its parts' samples.
   */
  clear(): void {
    this.size = 0
    this.sum = 0
    this.sortedCopy = undefined
  }
}

/**
 * The samples of several sets taken together (every path's latencies), without a copy of their values: each
 * sample is `add`ed to its part and to the union (which only counts and sums it, in the same order as one set
 * would); the union's sorted values are its parts' sorted values merged, so no set is sorted twice.
 */
export class SampleUnion {
  private size = 0
  private sum = 0

  private readonly parts: readonly Samples[]
  constructor(parts: readonly Samples[]) {
    this.parts = parts
  }

  get count(): number {
    return this.size
  }

  add(value: number): void {
    this.size++
    this.sum += value
  }

  percentiles(): Percentiles | undefined {
    if (this.size === 0) return undefined
    let merged: Float64Array = new Float64Array(0)
    for (const part of this.parts) if (part.count > 0) merged = merged.length === 0 ? part.sorted() : mergeSorted(merged, part.sorted())
    if (merged.length !== this.count) throw new Error(`SampleUnion: ${this.count} samples added, ${merged.length} in its parts`)
    return percentilesOf(merged, this.sum)
  }
}

const mergeSorted = (a: Float64Array, b: Float64Array): Float64Array => {
  const out = new Float64Array(a.length + b.length)
  let i = 0
  let j = 0
  let k = 0
  while (i < a.length && j < b.length) out[k++] = a[i]! <= b[j]! ? a[i++]! : b[j++]!
  while (i < a.length) out[k++] = a[i++]!
  while (j < b.length) out[k++] = b[j++]!
  return out
}
