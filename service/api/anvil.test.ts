/**
 * The same transaction-builder suite as on the memory backend, on anvil: the contracts deployed by `Spokes.anvil`
 * on a `ChainPool`, transactions built over HTTP signed by the users' keys and mined on real chains.
 */
import { ChainPool } from "../../sim/chains/index.ts"
import { Deployment } from "./deployment.ts"
import { describeTransactionBuilders } from "./transactions.suite.ts"

let pool: ChainPool | undefined

describeTransactionBuilders(
  "anvil",
  async () => {
    pool = await ChainPool.start({ ...Deployment.poolOptions, chainIds: [...Deployment.poolOptions.chainIds] })
    return Deployment.anvil(pool)
  },
  async () => {
    await pool?.stop()
  },
)
