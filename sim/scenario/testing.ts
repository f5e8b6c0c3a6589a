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

/** The scenario `name` over `horizon` (a YAML mapping such as `{ seconds: 600 }`), then `rest` (agents, keepers...). */
export const twoChainUsdc = (name: string, horizon: string, rest: string, options: TwoChainOptions = {}): LoadedScenario => {
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
  return parseScenario(text, `${name}.yaml`)
}
