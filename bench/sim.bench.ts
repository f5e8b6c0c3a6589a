/**
 * Whole-simulator benchmarks: the 10,000-intent scenario on anvil beside anvil's raw ERC-20 transfer rate
 * measured in the same run (2,000 transfers per block through the chain pool's sender, signing included, as
 * in the simulator), and the same scenario in memory. The 1M-intent stress scenario is a separate command (it
 * needs minutes and gigabytes): `npx clearsim run scenarios/stress-1m.yaml` (see README).
 *
 * Run: `npm run bench -- sim`. Each case runs once after the raw-rate warm-up: a scenario run is long enough
 * that timer resolution and JIT warm-up are negligible, and its result is deterministic (same trace hash).
 */
import type { Hex } from "viem"
import { encodeFunctionData } from "viem/utils"
import { requireSuccess } from "../sim/chains/outcomes.ts"
import { ChainPool } from "../sim/chains/pool.ts"
import { createSender } from "../sim/chains/sender.ts"
import { testTokenAbi, testTokenBytecode } from "../sim/chains/testdata/testToken.ts"
import { runScenario } from "../sim/run.ts"
import { loadScenario } from "../sim/scenario/load.ts"

const T0 = 1_700_000_000n
const TXS = 2_000
const ROUNDS = 3

/** Raw anvil rate: ERC-20 transfers signed and sent in batches, one 2,000-transaction block per flush. */
const rawTransfersPerSecond = async (): Promise<number> => {
  const pool = await ChainPool.start({ chainIds: [31337], genesisTimestamp: T0, accounts: 41 })
  try {
    const chain = pool.chain(31337)
    const sender = createSender(chain)
    const deployer = chain.accounts[0]!
    sender.queue({ from: deployer, data: testTokenBytecode as Hex, gas: 3_000_000n })
    const deployed = await sender.flush(T0 + 12n)
    requireSuccess(deployed)
    const outcome = deployed.outcomes[0]!
    const token = outcome.status === "success" ? outcome.contractAddress! : undefined
    if (token === undefined) throw new Error("token deployment failed")
    const senders = chain.accounts.slice(1, 41)
    for (const s of senders) sender.queue({ from: deployer, to: token, data: encodeFunctionData({ abi: testTokenAbi, functionName: "mint", args: [s.address, 10n ** 30n] }), gas: 100_000n })
    requireSuccess(await sender.flush(T0 + 24n))
    let now = T0 + 24n
    const times: number[] = []
    for (let round = 0; round <= ROUNDS; round++) {
      for (let i = 0; i < TXS; i++) {
        const from = senders[i % senders.length]!
        sender.queue({ from, to: token, data: encodeFunctionData({ abi: testTokenAbi, functionName: "transfer", args: [senders[(i + 1) % senders.length]!.address, 1n] }), gas: 80_000n })
      }
      const t0 = performance.now()
      requireSuccess(await sender.flush((now += 12n)))
      if (round > 0) times.push(performance.now() - t0) // round 0 warms up
    }
    times.sort((a, b) => a - b)
    return (TXS / times[Math.floor(times.length / 2)]!) * 1000
  } finally {
    await pool.stop()
  }
}

const scenario = loadScenario(new URL("../scenarios/throughput-10k.yaml", import.meta.url).pathname)
const rows: Record<string, string | number>[] = []

const raw = await rawTransfersPerSecond()
rows.push({ case: "anvil raw ERC-20 transfers (2,000 per block, signed)", "per second": Math.round(raw), unit: "tx" })

for (const backend of ["anvil", "memory"] as const) {
  const t0 = performance.now()
  const { report } = await runScenario(scenario, { seed: scenario.spec.seed ?? 1, backend }, () => performance.now())
  const seconds = (performance.now() - t0) / 1000
  const txs = report.world.spokeCalls
  rows.push({
    case: `throughput-10k on ${backend}: ${report.intents.created} intents, ${txs} spoke transactions, ${seconds.toFixed(1)} s`,
    "per second": Math.round(report.intents.created / seconds),
    unit: `intents (${Math.round(txs / seconds)} tx/s; trace ${report.traceHash.slice(0, 10)})`,
  })
}
const anvilRow = rows[1]!
rows.push({ case: "anvil scenario intents/s ÷ raw transfers/s", "per second": Number(((anvilRow["per second"] as number) / raw).toFixed(2)), unit: "ratio" })
console.log(`simulator, Node ${process.version}`)
console.table(rows)
