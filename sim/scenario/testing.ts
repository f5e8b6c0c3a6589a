/**
 * Scenario text for tests: the usual small world of two chains, 31001 and 31002, with USDC (6 decimals) on both,
 * and the fields a test is about after it. Parsed by the loader like any file.
 */
import { type LoadedScenario, parseScenario } from "./load.ts"

export interface TwoChainOptions {
  readonly seed?: number
  /** The `hub:` mapping's body, e.g. `epochLength: 20`. */
  readonly hub?: string
  /** Block times of the two chains, in seconds (default 2 each). */
  readonly blockTimeSeconds?: readonly [number, number]
  /** More fields of the USDC asset, e.g. `{ discountPerEpochDbps: 10 }`. */
  readonly usdc?: Readonly<Record<string, number | string>>
}

/** The scenario `name` over `horizon` (a YAML mapping such as `{ seconds: 600 }`), then `rest` (agents, keepers...). */
export const twoChainUsdc = (name: string, horizon: string, rest: string, options: TwoChainOptions = {}): LoadedScenario => {
  const [a, b] = options.blockTimeSeconds ?? [undefined, undefined]
  const chain = (id: number, blockTime: number | undefined) => (blockTime === undefined ? `{ id: ${id} }` : `{ id: ${id}, blockTimeSeconds: ${blockTime} }`)
  const text = [
    `name: ${name}`,
    ...(options.seed === undefined ? [] : [`seed: ${options.seed}`]),
    `horizon: ${horizon}`,
    ...(options.hub === undefined ? [] : [`hub: { ${options.hub} }`]),
    `chains: [${chain(31001, a)}, ${chain(31002, b)}]`,
    "assets:",
    "  - symbol: USDC",
    ...Object.entries(options.usdc ?? {}).map(([field, value]) => `    ${field}: ${value}`),
    "    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]",
    rest.trim(),
    "",
  ].join("\n")
  return parseScenario(text, `${name}.yaml`)
}
