/**
 * Seeded randomness for the traffic mix: the same (SEED, VU, iteration) gives the same requests, in k6 and in the
 * tests. mulberry32 is small, fast and good enough for choosing requests (not for anything cryptographic).
 */

export type Random = () => number

export const mulberry32 = (seed: number): Random => {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** One stream per (seed, VU, iteration), mixed so that neighbouring iterations do not start alike. */
export const iterationRandom = (seed: number, vu: number, iteration: number): Random => {
  let h = Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b)
  h = Math.imul(h ^ vu ^ (h >>> 13), 0xc2b2ae35)
  h = Math.imul(h ^ iteration ^ (h >>> 16), 0x27d4eb2f)
  return mulberry32(h ^ (h >>> 15))
}

/** A uniformly chosen element; undefined for an empty list. */
export const pick = <T>(random: Random, items: readonly T[]): T | undefined => (items.length === 0 ? undefined : items[Math.floor(random() * items.length)])

/** An integer in [min, max]. */
export const between = (random: Random, min: number, max: number): number => min + Math.floor(random() * (max - min + 1))

/** A key chosen with probability proportional to its weight (weights ≤ 0 are never chosen). */
export const weighted = <K extends string>(random: Random, weights: Readonly<Record<K, number>>): K => {
  const entries = (Object.keys(weights) as K[]).filter((k) => weights[k] > 0)
  const total = entries.reduce((sum, k) => sum + weights[k], 0)
  let x = random() * total
  for (const k of entries) {
    x -= weights[k]
    if (x < 0) return k
  }
  return entries[entries.length - 1]!
}
