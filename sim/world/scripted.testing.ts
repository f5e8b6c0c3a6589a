/**
 * The scripted two-chain world of the hub-outage tests (world.test.ts, pause.test.ts): 10,000 USDC of initial
 * liquidity on 31002, hub blocks of 12 s and epochs of 40 blocks, a fixed 30 s latency, no agents, and one user who
 * approves the fee adapter at 0 s and sends 100 USDC 31001→31002 through `POST /intents` at each of `intentTimes`.
 * The caller adds its outages (and transport faults), observes what it needs, then runs the world.
 */
import type { HubInput } from "../../service/hub/hub.ts"
import type { HubInputTrace } from "../../service/hub/inputLines.ts"
import { createMemorySpokes } from "../../service/spoke/spoke.ts"
import { createIntents, sendTransaction } from "../agents/common.ts"
import { assembleRun } from "../run.ts"
import { parseScenario } from "../scenario/load.ts"
import { planWorld } from "./plan.ts"

/** The scenario, with `faults` as the body of `transport.faults` (e.g. `outages: [...]`). */
export const scriptedScenario = (name: string, faults: string) =>
  parseScenario(
    `
name: ${name}
horizon: { seconds: 2400 }
hub: { blockTimeSeconds: 12, epochLength: 40 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
transport:
  latency: { kind: fixed, seconds: 30 }
  faults: { ${faults} }
initialLiquidity: [{ chain: 31002, asset: USDC, tokens: 10000 }]
agents: {}
`,
    `${name}.yaml`,
  ).spec

/**
 * The world of `scriptedScenario(name, faults)`, assembled with seed 3 on the memory backend; every hub input goes
 * to `trace` (if any) and is recorded with its time in `inputs`, and the user's intents in `sent` as they are added.
 */
export const scriptedWorld = (name: string, faults: string, intentTimes: readonly number[], trace?: HubInputTrace) => {
  const spec = scriptedScenario(name, faults)
  const plan = planWorld(spec, { userAccounts: 1 })
  const inputs: { t: number; input: HubInput }[] = []
  let now = () => 0
  const recorded: HubInputTrace = {
    config: (config) => trace?.config(config),
    input: (input) => {
      inputs.push({ t: now(), input })
      trace?.input(input)
    },
  }
  const assembly = assembleRun(spec, plan, { seed: 3, spokes: createMemorySpokes(plan.spokes), agents: false, trace: recorded })
  const w = assembly.world
  now = () => w.nowMs / 1000
  const user = plan.users[0]!.address
  const usdc = plan.assets.get("USDC:31001")!
  w.scheduler.at(0, "approve", () => w.submit(31001, user, { kind: "erc20.approve", token: usdc.address, spender: w.chain(31001).addresses.feeAdapter, amount: 2n ** 256n - 1n }))
  const sent: { t: number; intentId: string }[] = []
  w.observe({
    onSpokeEvent: (e, context) => {
      if (e.name === "IntentAdded" && context.receipt.from.toLowerCase() === user.toLowerCase()) sent.push({ t: w.nowMs / 1000, intentId: e.intentId })
    },
  })
  for (const t of intentTimes) {
    w.scheduler.at(t * 1000, "user intent", async () => {
      const tx = await createIntents(assembly.service, { origin: "31001", destinations: ["31002"], to: user, from: user, inputAsset: usdc.address, amount: "100000000" })
      if (!tx.ok) throw new Error(`POST /intents: ${tx.error}`)
      sendTransaction(w, user, tx.value)
    })
  }
  return { plan, assembly, world: w, inputs, sent }
}
