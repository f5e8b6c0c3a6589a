/**
 * Route resolution shared by quotes, limits and intent creation: the input asset's ticker on the origin, the
 * ticker's asset on each destination, and the output asset. Unknown chains and assets are 400s. An output
 * asset of another ticker is a swap (`reqType: "swap"`), filled by a solver on the fast path, when the hub
 * accepts fast-path swaps (`allowFastPathSwaps`, the default); with the V1 contracts' check it is `invalid`.
 */
import { BoundedMemo } from "../domain/boundedMemo.ts"
import { type Address, addressToBytes32, type Bytes32 } from "../domain/hex.ts"
import { Strategy } from "../domain/protocol.ts"
import type { DomainAsset } from "../hub/config.ts"
import type { Hub } from "../hub/hub.ts"
import type { TickerState } from "../hub/state.ts"
import { badRequest } from "./errors.ts"

export interface ResolvedRoute {
  readonly origin: number
  readonly ticker: TickerState
  readonly input: DomainAsset
  /** The ticker's asset on each destination, in the request's order. */
  readonly destinations: readonly DomainAsset[]
  /** The explicit output asset, when given (of another ticker for a swap). */
  readonly output: DomainAsset | undefined
  readonly reqType: "bridge" | "swap" | "invalid"
  /** Why the route is invalid. */
  readonly invalidReason: string | undefined
}

/** Asset addresses as the hub's words (requests name the same few assets). */
const words = new BoundedMemo<Address, Bytes32>(4096, addressToBytes32)
const wordOf = (address: Address): Bytes32 => words.get(address)

export const resolveRoute = (
  hub: Hub,
  origin: number,
  destinations: readonly number[],
  inputAsset: Address,
  outputAsset: Address | undefined,
  /** Prefixed to the fields failures name: an order's entry (`[1].`), so that its message says which entry. */
  prefix = "",
): ResolvedRoute => {
  const state = hub.state
  const input = state.assetOn(origin, wordOf(inputAsset))
  if (input === undefined) throw badRequest("UnsupportedAsset", `${prefix}inputAsset: ${inputAsset} is not a supported asset on domain ${origin}.`)
  const ticker = input.ticker
  const assets = destinations.map((d, i) => {
    if (!state.supportedDomains.has(d)) throw badRequest("UnsupportedDomain", `${prefix}destinations[${i}]: domain ${d} is not supported by the hub.`)
    const asset = ticker.assetByDomain.get(d)
    if (asset === undefined) throw badRequest("UnsupportedAsset", `${prefix}destinations[${i}]: ${ticker.config.symbol} has no asset on domain ${d}.`)
    return asset
  })
  let output: DomainAsset | undefined
  let invalidReason: string | undefined
  let swap = false
  if (outputAsset !== undefined) {
    if (destinations.length !== 1) throw badRequest("InvalidRoute", `${prefix}outputAsset: an output asset needs exactly one destination.`)
    const found = state.assetOn(destinations[0]!, wordOf(outputAsset))
    if (found === undefined) throw badRequest("UnsupportedAsset", `${prefix}outputAsset: ${outputAsset} is not a supported asset on domain ${destinations[0]}.`)
    if (found.ticker === ticker) output = found.asset
    else if (input.asset.strategy === Strategy.XERC20) {
      // A swap is a fast-path fill, and xERC20 assets take only the native route (burn and mint, ttl 0).
      invalidReason = `outputAsset: ${outputAsset} is ${found.ticker.config.symbol}; a swap is filled on the fast path, which the xERC20 asset ${inputAsset} does not take (it is burnt and minted on the native route).`
    } else if (state.config.allowFastPathSwaps) {
      output = found.asset
      swap = true
    } else {
      invalidReason = `outputAsset: ${outputAsset} is ${found.ticker.config.symbol} and inputAsset is ${ticker.config.symbol}; this hub settles a ticker only into itself (no swaps).`
    }
  }
  const reqType = invalidReason !== undefined ? "invalid" : swap ? "swap" : "bridge"
  return { origin, ticker, input: input.asset, destinations: assets, output, reqType, invalidReason }
}
