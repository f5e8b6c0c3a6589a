/**
 * Observed settlement times per route, for the quotes' `settlementEstimate`: the last `window` observations
 * of each (origin, destination, path) and of each path overall, with p25/p50/p75 (linear interpolation
 * between closest ranks). Deterministic: a ring buffer, no sampling.
 */
import { lowerBound } from "./sequence.ts"

export type SettlementPath = "basic" | "fast"

export interface SettlementPercentiles {
  readonly p25Minutes: number
  readonly p50Minutes: number
  readonly p75Minutes: number
  /** Observations behind the figures (0 for a prior). */
  readonly observations: number
}

class Window {
  /** The observations in arrival order, a ring once full (`next` is the oldest then). */
  private readonly values: Float64Array
  /** The same values in ascending order, kept sorted as they come and go (instead of sorting per query). */
  private readonly sorted: Float64Array
  private count = 0
  private next = 0
  private cached: SettlementPercentiles | undefined
  private readonly capacity: number
  constructor(capacity: number) {
    this.capacity = capacity
    this.values = new Float64Array(capacity)
    this.sorted = new Float64Array(capacity)
  }

  get size(): number {
    return this.count
  }

  add(minutes: number): void {
    const sorted = this.sorted
    const at = lowerBound(sorted, minutes, this.count)
    this.cached = undefined
    if (this.count < this.capacity) {
      this.values[this.count] = minutes
      sorted.copyWithin(at + 1, at, this.count)
      sorted[at] = minutes
      this.count++
      return
    }
    // Full: the oldest value leaves and the new one enters in one move of the values between their places.
    const evicted = this.values[this.next]!
    this.values[this.next] = minutes
    this.next = (this.next + 1) % this.capacity
    const gone = lowerBound(sorted, evicted, this.count)
    if (at <= gone) {
      sorted.copyWithin(at + 1, at, gone)
      sorted[at] = minutes
    } else {
      sorted.copyWithin(gone, gone + 1, at)
      sorted[at - 1] = minutes
    }
  }

  percentiles(): SettlementPercentiles {
    if (this.cached !== undefined) return this.cached
    const sorted = this.sorted
    const length = this.count
    const at = (q: number): number => {
      const pos = (length - 1) * q
      const lo = Math.floor(pos)
      const hi = Math.ceil(pos)
      const value = sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo)
      return Math.round(value * 100) / 100
    }
    this.cached = { p25Minutes: at(0.25), p50Minutes: at(0.5), p75Minutes: at(0.75), observations: length }
    return this.cached
  }
}

export class SettlementTimes {
  /** Per path, origin, then destination. */
  private readonly byRoute = new Map<SettlementPath, Map<number, Map<number, Window>>>()
  private readonly byPath = new Map<SettlementPath, Window>()

  /** Observations kept per route. */
  private readonly window: number
  /** Fewer observations than this on a route fall back to the path, then to the prior. */
  private readonly minObservations: number
  constructor(window = 1000, minObservations = 3) {
    this.window = window
    this.minObservations = minObservations
  }

  record(origin: number, destination: number, path: SettlementPath, seconds: number): void {
    if (!(seconds >= 0)) return
    const minutes = seconds / 60
    let byOrigin = this.byRoute.get(path)
    if (byOrigin === undefined) this.byRoute.set(path, (byOrigin = new Map()))
    let byDestination = byOrigin.get(origin)
    if (byDestination === undefined) byOrigin.set(origin, (byDestination = new Map()))
    let route = byDestination.get(destination)
    if (route === undefined) byDestination.set(destination, (route = new Window(this.window)))
    route.add(minutes)
    let all = this.byPath.get(path)
    if (all === undefined) this.byPath.set(path, (all = new Window(this.window)))
    all.add(minutes)
  }

  /** The route's percentiles, else the path's, else `prior`. */
  estimate(origin: number, destination: number, path: SettlementPath, prior: SettlementPercentiles): SettlementPercentiles {
    const route = this.byRoute.get(path)?.get(origin)?.get(destination)
    if (route !== undefined && route.size >= this.minObservations) return route.percentiles()
    const all = this.byPath.get(path)
    if (all !== undefined && all.size >= this.minObservations) return all.percentiles()
    return prior
  }
}
