/**
 * Seeded randomness: named PRNG streams split from the run seed (pure-rand's xoroshiro128+). A stream's state
 * is derived from keccak256(seed, name), so streams are independent of each other and of the order in which
 * they are created: adding an agent does not change the draws of the others.
 */
import { uniformFloat64 } from "pure-rand/distribution/uniformFloat64"
import { uniformInt } from "pure-rand/distribution/uniformInt"
import { xoroshiro128plusFromState } from "pure-rand/generator/xoroshiro128plus"
import type { JumpableRandomGenerator } from "pure-rand/types/JumpableRandomGenerator"
import { keccak256Utf8 } from "../service/domain/keccak.ts"

export class Rng {
  readonly name: string
  private readonly generator: JumpableRandomGenerator
  constructor(name: string, generator: JumpableRandomGenerator) {
    this.name = name
    this.generator = generator
  }

  /** Uniform in [0, 1). */
  float(): number {
    return uniformFloat64(this.generator)
  }

  /** Uniform integer in [min, max] (inclusive, safe integers). */
  int(min: number, max: number): number {
    return uniformInt(this.generator, min, max)
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return p > 0 && this.float() < p
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new Error(`rng ${this.name}: pick from an empty list`)
    return items[this.int(0, items.length - 1)]!
  }

  /** Picks an index with probability proportional to its weight (weights ≥ 0, not all 0). */
  weightedIndex(weights: readonly number[]): number {
    let total = 0
    for (const w of weights) total += w
    // Weights whose sum overflows (two of 1.7e308: Infinity) are taken relative to the largest: every draw was the
    // last positive weight's. Finite sums are drawn as before (the same draws).
    if (total === Number.POSITIVE_INFINITY) {
      const largest = Math.max(...weights)
      if (largest < Number.POSITIVE_INFINITY) return this.weightedIndex(weights.map((w) => w / largest))
    }
    let x = this.float() * total
    let last = -1
    for (let i = 0; i < weights.length; i++) {
      if (!(weights[i]! > 0)) continue
      x -= weights[i]!
      if (x < 0) return i
      last = i
    }
    // Rounding can leave x at or above 0 after every weight (a draw within an ulp of the total): the last positive
    // weight's index, never one of weight 0.
    if (last < 0) throw new Error(`rng ${this.name}: weightedIndex needs a positive weight`)
    return last
  }

  /** Exponential with the given mean (inter-arrival times of a Poisson process). */
  exponential(mean: number): number {
    return -mean * Math.log(1 - this.float())
  }

  /** Standard normal (Box-Muller, one draw used). */
  normal(): number {
    const u = 1 - this.float()
    const v = this.float()
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
  }

  /** Lognormal with the given median and shape σ. */
  lognormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal())
  }
}

/** The run's streams: `streams.get("agent/solver/3")` always gives the same sequence for the same seed. */
export class RngStreams {
  private readonly streams = new Map<string, Rng>()

  readonly seed: number
  constructor(seed: number) {
    this.seed = seed
  }

  get(name: string): Rng {
    let rng = this.streams.get(name)
    if (rng === undefined) {
      rng = new Rng(name, xoroshiro128plusFromState(stateOf(this.seed, name)))
      this.streams.set(name, rng)
    }
    return rng
  }
}

/** Four 32-bit words of keccak256(`${seed}/${name}`) (never all zero, which xoroshiro forbids). */
const stateOf = (seed: number, name: string): number[] => {
  const hex = keccak256Utf8(`clearsim-rng/${seed}/${name}`).slice(2)
  const words = [0, 1, 2, 3].map((i) => Number.parseInt(hex.slice(i * 8, i * 8 + 8), 16) | 0)
  if (!words.some((w) => w !== 0)) words[0] = 1
  return words
}
