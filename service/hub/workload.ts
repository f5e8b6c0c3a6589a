/**
 * Deterministic synthetic hub workloads for benchmarks: realistic intent mixes (several domains, two tickers,
 * skewed flows, mostly netting intents with some fast-path ones, heavy-tailed amounts), from a seeded PRNG.
 */
import { uniformInt } from "pure-rand/distribution/uniformInt"
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus"
import { addressToBytes32, type Bytes32, ZERO_BYTES32 } from "../domain/hex.ts"
import type { Intent } from "../domain/protocol.ts"
import type { HubConfigInput } from "./config.ts"

export const WORKLOAD_DOMAINS = [1, 10, 8453, 42161] as const
const SYMBOLS = ["USDC", "WETH"] as const

export const workloadAsset = (symbol: string, domain: number): Bytes32 =>
  addressToBytes32(`0x${symbol === "USDC" ? "a0" : "c0"}${"00".repeat(16)}${domain.toString(16).padStart(6, "0")}`)

export const workloadConfig = (overrides: Partial<HubConfigInput> = {}): HubConfigInput => ({
  epochLength: 40,
  expiryTimeBuffer: 43_200,
  tickers: SYMBOLS.map((symbol) => ({
    symbol,
    discountPerEpoch: 3,
    maxDiscountDbps: 12,
    prioritizedStrategy: "default" as const,
    fees: [{ recipient: addressToBytes32(`0x${"fe".repeat(20)}`), fee: 2 }],
    domains: WORKLOAD_DOMAINS.map((domain) => ({ domain, asset: workloadAsset(symbol, domain), decimals: symbol === "USDC" ? 6 : 18, strategy: "default" as const })),
  })),
  ...overrides,
})

export interface WorkloadOptions {
  readonly count: number
  readonly seed: number
  /** Share of fast-path (ttl > 0) intents, in percent. */
  readonly fastPercent?: number
  readonly timestamp?: number
}

const RECEIVERS: Bytes32[] = Array.from({ length: 512 }, (_, i) => addressToBytes32(`0x${(i + 1).toString(16).padStart(40, "0")}`))
const ADAPTER = addressToBytes32(`0x${"ad".repeat(20)}`)

/**
 * `count` intents: origin/destination pairs skewed towards the first domains, 70 % USDC, amounts from 1 to
 * ~10^6 units with a heavy tail, `fastPercent` % fast path with a single destination and output asset.
 */
export const generateIntents = (options: WorkloadOptions): Intent[] => {
  const rng = xoroshiro128plus(options.seed)
  const fastPercent = options.fastPercent ?? 20
  const timestamp = options.timestamp ?? 1_700_000_000
  const nonces = new Map<number, bigint>()
  const n = WORKLOAD_DOMAINS.length
  const out: Intent[] = new Array(options.count)
  for (let i = 0; i < options.count; i++) {
    const origin = WORKLOAD_DOMAINS[Math.min(uniformInt(rng, 0, n - 1), uniformInt(rng, 0, n - 1))]!
    let destination = WORKLOAD_DOMAINS[uniformInt(rng, 0, n - 1)]!
    if (destination === origin) destination = WORKLOAD_DOMAINS[(WORKLOAD_DOMAINS.indexOf(origin) + 1) % n]!
    const symbol = uniformInt(rng, 0, 9) < 7 ? "USDC" : "WETH"
    const fast = uniformInt(rng, 0, 99) < fastPercent
    const magnitude = BigInt(uniformInt(rng, 0, 6))
    const amount = (BigInt(uniformInt(rng, 1, 999)) * 10n ** magnitude + 1n) * 10n ** 15n
    const nonce = (nonces.get(origin) ?? 0n) + 1n
    nonces.set(origin, nonce)
    out[i] = {
      initiator: ADAPTER,
      receiver: RECEIVERS[uniformInt(rng, 0, RECEIVERS.length - 1)]!,
      inputAsset: workloadAsset(symbol, origin),
      outputAsset: fast ? workloadAsset(symbol, destination) : ZERO_BYTES32,
      maxFee: fast ? 500 : 0,
      origin,
      nonce,
      timestamp,
      ttl: fast ? 3600 : 0,
      amount,
      destinations: [destination],
      data: "0x",
    }
  }
  return out
}

/** `count` netting intents of one ticker from `origin` to `destination`, equal amounts (matching benches). */
export const generateLane = (count: number, symbol: string, origin: number, destination: number, amount: bigint, firstNonce: bigint, timestamp: number): Intent[] =>
  Array.from({ length: count }, (_, i) => ({
    initiator: ADAPTER,
    receiver: RECEIVERS[i % RECEIVERS.length]!,
    inputAsset: workloadAsset(symbol, origin),
    outputAsset: ZERO_BYTES32,
    maxFee: 0,
    origin,
    nonce: firstNonce + BigInt(i),
    timestamp,
    ttl: 0,
    amount,
    destinations: [destination],
    data: "0x",
  }))
