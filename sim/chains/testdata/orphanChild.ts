/**
 * Child process for `cleanup.test.ts`: starts a pool of two chains, prints `{"pids":[...]}` on one stdout line,
 * then ends the way `argv[2]` says, never calling `pool.stop()`:
 *   exit    process.exit(0)            throw   uncaught exception
 *   reject  unhandled rejection        wait    idle until the parent signals it (SIGTERM, SIGINT, SIGKILL)
 * ORPHAN_CHILD_PDEATHSIG=0 starts anvil without the parent-death signal, to test the in-process handlers alone.
 */
import { ChainPool } from "../pool.ts"

const mode = process.argv[2] ?? "wait"
const pool = await ChainPool.start({
  chainIds: [71, 72],
  genesisTimestamp: 1_700_000_000n,
  killOnParentDeath: process.env["ORPHAN_CHILD_PDEATHSIG"] !== "0",
})
process.stdout.write(`${JSON.stringify({ pids: pool.chains.map((chain) => chain.pid) })}\n`)

switch (mode) {
  case "exit":
    process.exit(0)
    break
  case "throw":
    setImmediate(() => {
      throw new Error("orphanChild: thrown on purpose")
    })
    break
  case "reject":
    void Promise.reject(new Error("orphanChild: rejected on purpose"))
    break
  default:
    // Keep the event loop alive until a signal arrives.
    setInterval(() => undefined, 60_000)
}
