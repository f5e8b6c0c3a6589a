/**
 * Exact latency samples and their percentiles (simple-statistics' `quantileSorted`, the linear method of
 * numpy and R type 7). Samples are kept in growable Float64Arrays: a million samples cost 8 MB.
 */
import { quantileSorted } from "simple-statistics"

export interface Percentiles {
  readonly count: number
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
  readonly mean: number
}

export class Samples {
  private values = new Float64Array(256)
  count = 0
  private sum = 0

  /** A sorted copy (a typed-array sort: numeric, several times faster than Array#sort with a comparator). */
  private sorted(): number[] {
    return this.values.slice(0, this.count).sort() as unknown as number[]
  }

  add(value: number): void {
    if (this.count === this.values.length) {
      const grown = new Float64Array(this.values.length * 2)
      grown.set(this.values)
      this.values = grown
    }
    this.values[this.count++] = value
    this.sum += value
  }

  /** Percentiles of the samples so far, or undefined when there are none. */
  percentiles(): Percentiles | undefined {
    if (this.count === 0) return undefined
    const sorted = this.sorted()
    return {
      count: this.count,
      p50: quantileSorted(sorted, 0.5),
      p90: quantileSorted(sorted, 0.9),
      p99: quantileSorted(sorted, 0.99),
      max: sorted[sorted.length - 1]!,
      mean: this.sum / this.count,
    }
  }

  quantile(p: number): number | undefined {
    if (this.count === 0) return undefined
    return quantileSorted(this.sorted(), p)
  }
}
