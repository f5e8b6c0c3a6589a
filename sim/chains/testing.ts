/**
 * Vitest fixture: one chain pool per test file, started in `beforeAll` and stopped in `afterAll`. There is no
 * global anvil and no globalSetup: each file owns its chains, on ports of its worker's slot.
 *
 * ```ts
 * const chains = useChains({ chainIds: [1, 10] })
 * test("...", async () => {
 *   const chain = chains.chain(10)
 *   await chain.mine(TEST_GENESIS_TIMESTAMP + 12n)
 * })
 * ```
 */
import { afterAll, afterEach, beforeAll, beforeEach } from "vitest"
import type { Chain, SnapshotId } from "./chain.ts"
import { ChainPool, type ChainPoolOptions } from "./pool.ts"

/** Genesis timestamp used by tests unless they pass their own (2023-11-14T22:13:20Z). */
export const TEST_GENESIS_TIMESTAMP = 1_700_000_000n

export interface UseChainsOptions extends Omit<ChainPoolOptions, "genesisTimestamp"> {
  /** @default TEST_GENESIS_TIMESTAMP */
  readonly genesisTimestamp?: bigint
  /**
   * "test": snapshot every chain before each test and revert after it, so tests of the file do not see each
   * other's blocks. "file": chains carry state from test to test. @default "file"
   */
  readonly isolate?: "file" | "test"
}

export interface ChainsFixture {
  /** The file's pool (throws outside tests/hooks, before `beforeAll` ran). */
  readonly pool: ChainPool
  /** Shorthand for `pool.chain(chainId)`. */
  chain(chainId: number): Chain
}

export const useChains = (options: UseChainsOptions): ChainsFixture => {
  let pool: ChainPool | undefined
  const { isolate = "file", genesisTimestamp = TEST_GENESIS_TIMESTAMP, ...poolOptions } = options

  beforeAll(async () => {
    pool = await ChainPool.start({ ...poolOptions, genesisTimestamp })
  })
  afterAll(async () => {
    await pool?.stop()
  })

  if (isolate === "test") {
    let snapshots: readonly { readonly chain: Chain; readonly id: SnapshotId }[] = []
    beforeEach(async () => {
      const chains = pool?.chains ?? []
      snapshots = await Promise.all(chains.map(async (chain) => ({ chain, id: await chain.snapshot() })))
    })
    afterEach(async () => {
      const taken = snapshots
      snapshots = []
      await Promise.all(taken.filter(({ chain }) => !chain.isStopped).map(({ chain, id }) => chain.revert(id)))
    })
  }

  const current = (): ChainPool => {
    if (pool === undefined) throw new Error("useChains: the pool is not started yet (use it inside tests or hooks)")
    return pool
  }
  return {
    get pool() {
      return current()
    },
    chain: (chainId) => current().chain(chainId),
  }
}
