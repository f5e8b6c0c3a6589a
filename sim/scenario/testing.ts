/**
 * Scenario text for tests: the usual small world of two chains, 31001 and 31002 (or the chains given), with USDC (6 decimals) on each,
 * and the fields a test is about after it. Parsed by the loader like any file.
 */
import { type LoadedScenario, parseScenario } from "./load.ts"

export interface TwoChainOptions {
  readonly seed?: number
  /** The `hub:` mapping's body, e.g. `epochLength: 20`. */
  readonly hub?: string
  /** Block times of the chains, in seconds, by position (default 2 each). */
  readonly blockTimeSeconds?: readonly (number | undefined)[]
  /** More fields of the USDC asset, e.g. `{ discountPerEpochDbps: 10 }`. */
  readonly usdc?: Readonly<Record<string, number | string>>
  /** The chains' ids (default 31001 and 31002), USDC with 6 decimals on each. */
  readonly chainIds?: readonly number[]
}

/**
 * `rest` for a small netting world on the default chains: 100,000 USDC of custody on each, and two users sending
 * 100 USDC each way, 120 intents an hour between them.
 */
export const TWO_USERS_USDC = `initialLiquidity:
  - { chain: 31001, asset: USDC, tokens: 100000 }
  - { chain: 31002, asset: USDC, tokens: 100000 }
agents:
  rebalancers:
    - name: users
      count: 2
      asset: USDC
      arrival: { kind: poisson, perHour: 120 }
      flows: [{ from: 31001, to: 31002 }, { from: 31002, to: 31001 }]
      size: { kind: fixed, tokens: 100 }`

/** The scenario `name` over `horizon` (a YAML mapping such as `{ seconds: 600 }`), then `rest` (agents, keepers...). */
export const twoChainUsdc = (name: string, horizon: string, rest: string, options: TwoChainOptions = {}): LoadedScenario =>
  parseScenario(twoChainUsdcText(name, horizon, rest, options), `${name}.yaml`)

/** `twoChainUsdc`'s text, for a test that writes a scenario file. */
export const twoChainUsdcText = (name: string, horizon: string, rest: string, options: TwoChainOptions = {}): string => {
  const ids = options.chainIds ?? [31001, 31002]
  const chain = (id: number, blockTime: number | undefined) => (blockTime === undefined ? `{ id: ${id} }` : `{ id: ${id}, blockTimeSeconds: ${blockTime} }`)
  const text = [
    `name: ${name}`,
    ...(options.seed === undefined ? [] : [`seed: ${options.seed}`]),
    `horizon: ${horizon}`,
    ...(options.hub === undefined ? [] : [`hub: { ${options.hub} }`]),
    `chains: [${ids.map((id, i) => chain(id, options.blockTimeSeconds?.[i])).join(", ")}]`,
    "assets:",
    "  - symbol: USDC",
    ...Object.entries(options.usdc ?? {}).map(([field, value]) => `    ${field}: ${value}`),
    `    chains: [${ids.map((id) => `{ chain: ${id}, decimals: 6 }`).join(", ")}]`,
    rest.trim(),
    "",
  ].join("\n")
  return text
}

/**
 * Three chains, USDC on 31001 and 31002, USDT on 31002 and 31003 (a swap of USDC into USDT on 31003 has no USDC
 * there to settle in), and one rebalancer population (`rebalancer`: a YAML flow mapping), on line 12.
 */
export const usdcUsdtText = (horizon: string, rebalancer: string): string => `
name: swap-destination
horizon: ${horizon}
chains: [{ id: 31001 }, { id: 31002 }, { id: 31003 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
  - symbol: USDT
    chains: [{ chain: 31002, decimals: 6 }, { chain: 31003, decimals: 6 }]
agents:
  rebalancers:
    - ${rebalancer}
`

/**
 * A scenario of a few hundred virtual hours of two-way netting on the default chains (8,000 intents an hour): still
 * running seconds after it starts, for tests that stop a run (signals, a parent killed).
 */
export const longRunText = (name: string): string => `name: ${name}
horizon: { hours: 400 }
chains: [{ id: 31001 }, { id: 31002 }]
assets: [{ symbol: USDC, chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }] }]
initialLiquidity: [{ chain: 31001, asset: USDC, tokens: 100000 }, { chain: 31002, asset: USDC, tokens: 100000 }]
agents:
  rebalancers: [{ name: users, count: 4, asset: USDC, arrival: { kind: poisson, perHour: 2000 }, flows: [{ from: 31001, to: 31002 }, { from: 31002, to: 31001 }], size: { kind: fixed, tokens: 10 } }]
`
