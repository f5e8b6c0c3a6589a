/**
 * Keepers size each spoke dispatch by its message: intents carry their calldata (`POST /intents` takes up to
 * 50,000 bytes), and a batch of large intents must still fit one transaction (16,777,216 gas on anvil, where nine
 * intents of 50,000 non-zero calldata bytes exceed it through the EIP-7623 calldata floor and the transaction is
 * refused). Ordinary batches are unchanged.
 *
 * The scripted world: a user sends twelve intents of 50,000 non-zero calldata bytes 31001→31002 (four per 2 s
 * block, at 1, 3 and 5 s); the intent keeper (default thresholds: cron every 60 s) finds all twelve queued at
 * 60 s and dispatches 5 (a 252,800-byte message), then 5 at 120 s and 2 at 180 s. Same on both backends, the
 * same trace hash; on anvil the single 12-intent dispatch the keeper sent before was refused
 * (AnvilTransactionsFailedError).
 */
import { describe, expect, it } from "vitest"
import { encodeIntentMessage } from "../../service/domain/encoding.ts"
import type { Hex } from "../../service/domain/hex.ts"
import type { Intent } from "../../service/domain/protocol.ts"
import { MAX_CALLDATA_SIZE } from "../../service/domain/protocol.ts"
import { createAnvilSpokes, createMemorySpokes, type SpokesShape } from "../../service/spoke/spoke.ts"
import { ChainPool } from "../chains/index.ts"
import type { Timeseries } from "../metrics/timeseries.ts"
import { assembleRun, type Backend } from "../run.ts"
import { parseScenario } from "../scenario/load.ts"
import { twoChainUsdc } from "../scenario/testing.ts"
import { planWorld } from "../world/plan.ts"
import { scriptedWorld } from "../world/scripted.testing.ts"
import { createIntents, sendTransaction } from "./common.ts"
import {
  fillBatchSize,
  fillMessageLength,
  intentBatchSize,
  intentMessageLength,
  MAX_DISPATCH_MESSAGE_BYTES,
  MAX_QUEUE_BATCH,
} from "./keepers.ts"

const word = (byte: string): Hex => `0x${byte.repeat(32)}` as Hex
const intent = (dataBytes: number, nonce = 0n): Intent => ({
  initiator: word("11"),
  receiver: word("22"),
  inputAsset: word("33"),
  outputAsset: word("44"),
  maxFee: 0,
  origin: 31001,
  nonce,
  timestamp: 1_700_000_000,
  ttl: 0,
  amount: 10n ** 18n,
  destinations: [31002],
  data: `0x${"ab".repeat(dataBytes)}` as Hex,
})

describe("keeper batch sizes", () => {
  it("take MAX_QUEUE_BATCH ordinary intents and fills, as before", () => {
    const ordinary = Array.from({ length: 250 }, (_, i) => intent(0, BigInt(i)))
    expect(intentBatchSize(ordinary)).toBe(MAX_QUEUE_BATCH)
    expect(intentBatchSize(ordinary.slice(0, 7))).toBe(7)
    expect(intentBatchSize([])).toBe(0)
    // Up to a few kilobytes of calldata each, a full batch still fits.
    expect(intentBatchSize(Array.from({ length: 200 }, (_, i) => intent(700, BigInt(i))))).toBe(MAX_QUEUE_BATCH)
    expect(fillBatchSize(1000)).toBe(MAX_QUEUE_BATCH)
    expect(fillBatchSize(3)).toBe(3)
    expect(fillMessageLength(MAX_QUEUE_BATCH)).toBeLessThanOrEqual(MAX_DISPATCH_MESSAGE_BYTES)
  })

  it("cut a queue of large intents at the longest prefix whose message fits", () => {
    const large = Array.from({ length: 12 }, (_, i) => intent(MAX_CALLDATA_SIZE, BigInt(i)))
    expect(intentBatchSize(large)).toBe(5)
    expect(intentMessageLength(large.slice(0, 5))).toBe(252_800)
    expect(intentMessageLength(large.slice(0, 6))).toBeGreaterThan(MAX_DISPATCH_MESSAGE_BYTES)
    // The estimate is the real encoded length.
    expect(intentMessageLength(large.slice(0, 5))).toBe((encodeIntentMessage(large.slice(0, 5)).length - 2) / 2)
    // Small intents behind large ones fill the rest of the budget.
    const mixed = [...large.slice(0, 4), ...Array.from({ length: 300 }, (_, i) => intent(0, BigInt(i + 4)))]
    const n = intentBatchSize(mixed)
    expect(n).toBe(4 + Math.floor((MAX_DISPATCH_MESSAGE_BYTES - intentMessageLength(mixed.slice(0, 4))) / 512))
    expect(n).toBe(120)
    expect(intentMessageLength(mixed.slice(0, n))).toBeLessThanOrEqual(MAX_DISPATCH_MESSAGE_BYTES)
    expect(intentMessageLength(mixed.slice(0, n + 1))).toBeGreaterThan(MAX_DISPATCH_MESSAGE_BYTES)
    // An intent too large for the budget on its own still goes, alone (the queue is processed in order).
    expect(intentBatchSize([intent(300_000), intent(0, 1n)])).toBe(1)
  })

  it("take a prefix whose message is exactly the budget, and as many 160-byte fills as fit a small one", () => {
    const ordinary = Array.from({ length: 7 }, (_, i) => intent(0, BigInt(i)))
    // 5 words of envelope and array, then 512 bytes an intent: three are 1,696 bytes.
    expect(intentMessageLength(ordinary.slice(0, 3))).toBe(1696)
    expect(intentBatchSize(ordinary, 1696)).toBe(3)
    expect(intentBatchSize(ordinary, 1695)).toBe(2)
    // (1,000 - 160) / 160 = 5.25: five fills (a 960-byte message); at least one, however small the budget.
    expect(fillBatchSize(1000, 1000)).toBe(5)
    expect(fillBatchSize(1000, 960)).toBe(5)
    expect(fillBatchSize(1000, 100)).toBe(1)
  })
})

const scenario = parseScenario(
  `
name: large-calldata-intents
horizon: { seconds: 240 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: USDC
    chains: [{ chain: 31001, decimals: 6 }, { chain: 31002, decimals: 6 }]
transport: { latency: { kind: fixed, seconds: 30 } }
agents: {}
`,
  "large-calldata-intents.yaml",
)

const INTENTS = 12

/** Runs the scripted world on `backend`: the intents' queue indexes per dispatch, keeper stats, trace hash. */
const runLargeCalldata = async (backend: Backend) => {
  const plan = planWorld(scenario.spec, { userAccounts: 1 })
  let pool: ChainPool | undefined
  try {
    let spokes: SpokesShape
    if (backend === "anvil") {
      pool = await ChainPool.start({ chainIds: scenario.spec.chains.map((c) => c.id), genesisTimestamp: plan.genesisTimestamp, accounts: 6 + plan.agents.length })
      spokes = await createAnvilSpokes(pool, plan.spokes)
    } else {
      spokes = createMemorySpokes(plan.spokes)
    }
    const { world, service, keepers } = assembleRun(scenario.spec, plan, { seed: 1, spokes })
    const user = plan.users[0]!.address
    const asset = [...plan.assets.values()].find((a) => a.domain === 31001)!
    const batches: number[] = []
    const rejections: string[] = []
    world.observe({
      onSpokeEvent: (event, context) => {
        if (event.name === "IntentQueueProcessed" && context.domain === 31001) batches.push(Number(event.lastIdx - event.firstIdx))
      },
    })
    world.scheduler.at(0, "approve", () =>
      world.submit(31001, user, { kind: "erc20.approve", token: asset.address, spender: world.chain(31001).addresses.feeAdapter, amount: 2n ** 256n - 1n }),
    )
    for (let block = 0; block < 3; block++) {
      world.scheduler.at(1000 + 2000 * block, "large intents", async () => {
        for (let i = 4 * block; i < 4 * block + 4; i++) {
          // Non-zero bytes (the dearest calldata), different per intent.
          const callData = `0x${"ab".repeat(MAX_CALLDATA_SIZE - 1)}${(i + 1).toString(16).padStart(2, "0")}`
          const tx = await createIntents(service, { origin: "31001", destinations: ["31002"], to: user, from: user, inputAsset: asset.address, amount: "1000000", callData })
          if (!tx.ok) throw new Error(`POST /intents: ${tx.error} ${tx.message}`)
          sendTransaction(world, user, tx.value, (receipt) => {
            if (receipt.status !== "success") rejections.push(receipt.error.name)
          })
        }
      })
    }
    await world.run(plan.horizonSeconds)
    const atHub = [...world.hub.state.contexts.values()].filter((c) => c.intent !== undefined && c.intent.data.length === 2 + 2 * MAX_CALLDATA_SIZE).length
    const traceHash = world.traceHash()
    world.close()
    return { batches, keepers, rejections, atHub, traceHash }
  } finally {
    await pool?.stop()
  }
}

describe("keepers with large-calldata intents", () => {
  let memoryTraceHash: string | undefined

  it("split the intent queue into dispatches that fit (memory)", async () => {
    const run = await runLargeCalldata("memory")
    expect(run.rejections).toEqual([])
    expect(run.batches).toEqual([5, 5, 2])
    expect(run.keepers.intentDispatches).toBe(3)
    expect(run.keepers.reverts).toBe(0)
    expect(run.atHub).toBe(INTENTS)
    memoryTraceHash = run.traceHash
  })

  it("split them the same way on anvil, where one 12-intent dispatch is refused", async () => {
    const run = await runLargeCalldata("anvil")
    expect(run.rejections).toEqual([])
    expect(run.batches).toEqual([5, 5, 2])
    expect(run.keepers.intentDispatches).toBe(3)
    expect(run.keepers.reverts).toBe(0)
    expect(run.atHub).toBe(INTENTS)
    if (memoryTraceHash !== undefined) expect(run.traceHash).toBe(memoryTraceHash)
  }, 120_000)
})

describe("the intent keeper's size threshold", () => {
  /** 3,600 intents an hour from one chain, a keeper that dispatches at `maxSize` queued intents (or after 10 h). */
  const scenario = (maxSize: number) =>
    twoChainUsdc(
      "queue-threshold",
      "{ seconds: 1800 }",
      `keepers: { intentQueue: { maxSize: ${maxSize}, maxAgeSeconds: 36000, cronSeconds: 60 } }
transport: { latency: { kind: fixed, seconds: 10 } }
agents:
  rebalancers:
    - { name: east, count: 10, asset: USDC, arrival: { kind: poisson, perHour: 3600 }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 } }`,
      { seed: 11 },
    )

  it("is judged on the whole queue above a batch's 200 intents (a dispatch still carries at most 200)", async () => {
    const { runScenario } = await import("../run.ts")
    const at = async (maxSize: number) => await runScenario(scenario(maxSize), { seed: 11, backend: "memory" })
    const { report: small } = await at(150)
    const { report: large, timeseries } = await at(300)
    // The queue grows to 300 before each dispatch of 200 (checked each minute, at about 60 new intents a minute):
    // a keeper that dispatched at 200 would never see it much above 200.
    const deepest = Math.max(...timeseries.toArray().filter((r) => r.metric === "intentQueue.31001").map((r) => r.value))
    expect(deepest).toBeGreaterThan(250)
    expect(large.intents.created).toBe(small.intents.created)
    expect(large.intents.created).toBeGreaterThan(1500)
    // At 300 queued (checked each minute) the keeper dispatches 200, and the rest waits for the next 300: it used
    // to compare 300 with the 200 intents it had read, and never dispatched before the 10-hour age threshold.
    expect(large.keepers.intentDispatches).toBeGreaterThanOrEqual(Math.floor(large.intents.created / 300))
    expect(large.keepers.intentDispatches).toBeLessThan(small.keepers.intentDispatches)
  })
})

describe("keeper thresholds per chain", () => {
  const scenario = (chains: string) =>
    twoChainUsdc(
      "per-chain",
      "{ seconds: 3000 }",
      `keepers:
  intentQueue: { maxSize: 1, cronSeconds: 60 }
${chains}
agents:
  rebalancers:
    - { name: both, count: 4, asset: USDC, arrival: { kind: poisson, perHour: 600 }, flows: [{ from: 31001, to: 31002 }, { from: 31002, to: 31001 }], size: { kind: fixed, tokens: 100 } }`,
      { seed: 5, hub: "epochLength: 20" },
    )
  /** The deepest intent queue of `domain` over the run's epochs. */
  const deepest = (timeseries: Timeseries, domain: number) => Math.max(...timeseries.toArray().filter((r) => r.metric === `intentQueue.${domain}`).map((r) => r.value))

  it("lets one chain's intent queue wait for its own size and age while the others keep the defaults", async () => {
    const { runScenario } = await import("../run.ts")
    const plain = await runScenario(scenario(""), { seed: 5, backend: "memory" })
    const own = await runScenario(scenario("  chains:\n    - { chain: 31002, intentQueue: { maxSize: 1000, maxAgeSeconds: 1800 } }"), { seed: 5, backend: "memory" })
    // Without its own thresholds 31002's queue is dispatched each minute; with them it waits half an hour.
    expect(deepest(plain.timeseries, 31002)).toBeLessThan(20)
    expect(deepest(own.timeseries, 31002)).toBeGreaterThan(100)
    // 31001 keeps the keepers' thresholds (its cron every minute, a dispatch at one intent).
    expect(deepest(own.timeseries, 31001)).toBeLessThan(20)
    expect(own.report.keepers.intentDispatches).toBeLessThan(plain.report.keepers.intentDispatches)
  })

  it("dispatches a queue when its oldest intent is exactly maxAgeSeconds old; a chain's own fields override only those fields", async () => {
    /** The times of the intent dispatches of each chain, one intent sent on each at 300 s. */
    const dispatches = async (keepers: string) => {
      const spec = twoChainUsdc(
        "age",
        "{ seconds: 1200 }",
        `keepers: ${keepers}
transport: { latency: { kind: fixed, seconds: 10 } }
agents:
  rebalancers:
    - { name: east, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [300] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 } }
    - { name: west, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [300] }, flows: [{ from: 31002, to: 31001 }], size: { kind: fixed, tokens: 100 } }`,
      ).spec
      const plan = planWorld(spec)
      const { world } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes) })
      const added: Record<number, number[]> = { 31001: [], 31002: [] }
      const sent: Record<number, number[]> = { 31001: [], 31002: [] }
      world.observe({
        onSpokeEvent: (event, context) => {
          if (event.name === "IntentAdded") added[context.domain]!.push(world.nowMs / 1000)
          if (event.name === "IntentQueueProcessed") sent[context.domain]!.push(world.nowMs / 1000)
        },
      })
      await world.run(plan.horizonSeconds)
      world.close()
      return { added, sent }
    }
    // Added at 300 s; the cron (every 60 s from 0 s) finds it 60 s old (the default maxAgeSeconds) at 360 s.
    const byAge = await dispatches("{ intentQueue: { maxSize: 10 } }")
    expect(byAge).toEqual({ added: { 31001: [300], 31002: [300] }, sent: { 31001: [360], 31002: [360] } })
    // 31002's own maxSize keeps the keepers' maxAgeSeconds of 600 s: both dispatched at 900 s.
    const own = await dispatches("{ intentQueue: { maxSize: 10, maxAgeSeconds: 600 }, chains: [{ chain: 31002, intentQueue: { maxSize: 5 } }] }")
    expect(own.sent).toEqual({ 31001: [900], 31002: [900] })
  })

  it("dispatches the fill queue by the age of its oldest fill not yet dispatched, or each 180 s by default", async () => {
    /** Fills and fill dispatches on 31002 (time in seconds, fills dispatched): a solver fills intents sent at 60, 64 and 300 s. */
    const fills = async (keepers: string) => {
      const spec = twoChainUsdc(
        "fill-age",
        "{ seconds: 900 }",
        `keepers: ${keepers}
transport: { latency: { kind: fixed, seconds: 10 } }
agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60, 64, 300] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 }, paths: { fast: 1 } }
  solvers:
    - { name: solver, count: 1, feeDbps: 20, reactionSeconds: { kind: fixed, seconds: 5 }, inventory: [{ chain: 31002, asset: USDC, tokens: 10000 }] }`,
      ).spec
      const plan = planWorld(spec)
      const { world } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes) })
      const filled: number[] = []
      const dispatched: [number, number][] = []
      world.observe({
        onSpokeEvent: (event, context) => {
          if (context.domain !== 31002) return
          if (event.name === "IntentFilled") filled.push(world.nowMs / 1000)
          if (event.name === "FillQueueProcessed") dispatched.push([world.nowMs / 1000, Number(event.lastIdx - event.firstIdx)])
        },
      })
      await world.run(plan.horizonSeconds)
      world.close()
      return { filled, dispatched }
    }
    // Filled at 66 and 70 s: 60 s old at 126 s, dispatched by the 180 s cron; the fill at 306 s is 60 s old at
    // 366 s, dispatched at 420 s (its age is its own, not the age of the fills dispatched before it).
    expect(await fills("{ fillQueue: { maxSize: 10, cronSeconds: 60 } }")).toEqual({
      filled: [66, 70, 306],
      dispatched: [
        [180, 2],
        [420, 1],
      ],
    })
    // Defaults: a fill is enough, on the cron every 180 s.
    expect((await fills("{}")).dispatched).toEqual([
      [180, 2],
      [360, 1],
    ])
  })

  it("gives a chain's settlement queue a cron of its own, and refuses a chain that is not in chains or is listed twice", async () => {
    const { runScenario } = await import("../run.ts")
    const own = await runScenario(scenario("  chains:\n    - { chain: 31001, settlementQueue: { cronSeconds: 900 } }"), { seed: 5, backend: "memory" })
    const plain = await runScenario(scenario(""), { seed: 5, backend: "memory" })
    expect(own.report.keepers.settlementDispatches).toBeLessThan(plain.report.keepers.settlementDispatches)
    expect(Math.max(...own.timeseries.toArray().filter((r) => r.metric === "settlementQueue.31001").map((r) => r.value))).toBeGreaterThan(
      Math.max(...plain.timeseries.toArray().filter((r) => r.metric === "settlementQueue.31001").map((r) => r.value)),
    )
    expect(() => scenario("  chains:\n    - { chain: 31009, fillQueue: { maxSize: 3 } }")).toThrow(/keepers\.chains\[0\]\.chain: chain 31009 is not in chains/)
    expect(() => scenario("  chains:\n    - { chain: 31001 }\n    - { chain: 31001, fillQueue: { maxSize: 3 } }")).toThrow(/keepers\.chains\[1\]\.chain: chain 31001 is listed twice/)
  })
})

describe("the settlement keeper of a chain with a cron of its own", () => {
  it("skips its turns while the hub is halted, and dispatches at the halt's end", async () => {
    // The intent sent at 300 s reaches the hub at 370 s and is enqueued for 31002; the hub halts from 400 s to
    // 1,200 s; 31002's cron runs every 120 s.
    const spec = twoChainUsdc(
      "own-cron-halt",
      "{ seconds: 1500 }",
      `keepers: { chains: [{ chain: 31002, settlementQueue: { cronSeconds: 120 } }] }
transport: { latency: { kind: fixed, seconds: 10 }, faults: { outages: [{ domain: 25327, kind: halt, fromSeconds: 400, toSeconds: 1200 }] } }
initialLiquidity: [{ chain: 31002, asset: USDC, tokens: 10000 }]
agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [300] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 } }`,
    ).spec
    const plan = planWorld(spec)
    const { world, keepers } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes) })
    const events: { t: number; kind: string; domain?: number }[] = []
    world.observe({ onHubEvent: (e) => void events.push({ t: world.nowMs / 1000, kind: e.kind, ...("domain" in e ? { domain: Number(e.domain) } : {}) }) })
    await world.run(plan.horizonSeconds)
    world.close()
    expect(keepers.revertsByError).toEqual({})
    expect(events.filter((e) => e.kind === "SettlementEnqueued" && e.domain === 31002).map((e) => e.t)).toContain(370)
    expect(events.find((e) => e.kind === "SettlementQueueProcessed" && e.domain === 31002)?.t).toBe(1200)
  })
})

describe("the settlement keeper's batch size", () => {
  it("dispatches a batch whose gas is exactly the domain's gas limit (reference §3.7: the hub reverts only above it)", async () => {
    // Gas of n settlements (mainnet gasConfig, §2.3): (40,000 + 50,000·n) + 10 % = 44,000 + 55,000·n; three are
    // 209,000, the domain limit here, four 264,000. Five intents sent at 301..309 s are dispatched together at
    // 360 s and enqueued for 31002 at 370 s (liquidity there): the 420 s turn sends three, the 480 s turn two.
    const spec = twoChainUsdc(
      "gas-boundary",
      "{ seconds: 600 }",
      `transport: { latency: { kind: fixed, seconds: 10 } }
initialLiquidity: [{ chain: 31002, asset: USDC, tokens: 10000 }]
agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [301, 303, 305, 307, 309] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 } }`,
      { hub: "domainGasLimit: 209000" },
    ).spec
    const plan = planWorld(spec)
    const { world, keepers } = assembleRun(spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes) })
    const enqueued: number[] = []
    const batches: [number, number][] = []
    world.observe({
      onHubEvent: (e) => {
        if (e.kind === "SettlementEnqueued" && Number(e.domain) === 31002) enqueued.push(world.nowMs / 1000)
        if (e.kind === "SettlementQueueProcessed" && e.domain === 31002) batches.push([world.nowMs / 1000, e.amount])
      },
    })
    await world.run(plan.horizonSeconds)
    world.close()
    expect(enqueued).toEqual([370, 370, 370, 370, 370])
    // A keeper that kept a batch strictly under the limit sent 2 at 420 s, 2 at 480 s and 1 at 540 s.
    expect(batches).toEqual([
      [420, 3],
      [480, 2],
    ])
    expect(keepers.settlementDispatches).toBe(2)
    expect(keepers.revertsByError).toEqual({})
  })
})

describe("the expired-intents keeper", () => {
  /**
   * One user sends fast-path intents (ttl `ttl`) 31001→31002 at `times`; an idle solver (it would react after
   * 100,000 s) gives the fast path its inventory and fills nothing. Returns the intents' ids as added and their
   * timestamps (virtual seconds), the keeper's `handleExpiredIntents` calls (time, ids) and its stats.
   */
  const expiring = async (times: readonly number[], ttl: number, bufferSeconds: number, horizonSeconds: number) => {
    const spec = twoChainUsdc(
      "expiring",
      `{ seconds: ${horizonSeconds} }`,
      `transport: { latency: { kind: fixed, seconds: 10 } }
agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [${times.join(", ")}] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 1 }, paths: { fast: 1 }, fastTtlSeconds: ${ttl} }
  solvers:
    - { name: idle, count: 1, feeDbps: 20, reactionSeconds: { kind: fixed, seconds: 100000 }, inventory: [{ chain: 31002, asset: USDC, tokens: 10000 }] }`,
      { hub: `expiryTimeBufferSeconds: ${bufferSeconds}` },
    ).spec
    const plan = planWorld(spec)
    const calls: { t: number; intentIds: readonly string[] }[] = []
    const { world, keepers } = assembleRun(spec, plan, {
      seed: 1,
      spokes: createMemorySpokes(plan.spokes),
      trace: { config: () => {}, input: (input) => void (input.kind === "handleExpiredIntents" && calls.push({ t: world.nowMs / 1000, intentIds: input.intentIds })) },
    })
    const added: { id: string; timestamp: number; ttl: number }[] = []
    world.observe({
      onSpokeEvent: (e) => {
        if (e.name === "IntentAdded") added.push({ id: e.intentId, timestamp: Number(e.intent.timestamp) - Number(plan.genesisTimestamp), ttl: Number(e.intent.ttl) })
      },
    })
    await world.run(plan.horizonSeconds)
    world.close()
    return { added, calls, keepers }
  }

  it("hands an intent over at exactly timestamp + ttl + expiryTimeBuffer (reference §3.10: >=, not >)", async () => {
    // Added at 300 s with ttl 600 and a 300 s buffer: expired at 1,200 s, a turn of the keeper (every 600 s from
    // 0 s). A keeper that waited for a later second handed it over at 1,800 s.
    const { added, calls, keepers } = await expiring([300], 600, 300, 1900)
    expect(added.map((a) => [a.timestamp, a.ttl])).toEqual([[300, 600]])
    expect(calls).toEqual([{ t: 1200, intentIds: [added[0]!.id] }])
    expect(keepers.expiredHandled).toBe(1)
    expect(keepers.revertsByError).toEqual({})
  })

  it("hands over at most 200 expired intents a call (MAX_SETTLEMENT_BATCH), the first 200 in order, the rest on its next turn", async () => {
    // 201 intents sent one a second from 100 s (mined in the 2 s blocks from 100 s to 300 s; ttl 600, no buffer):
    // none expired at the 600 s turn, all by 900 s. The 1,200 s turn takes the first 200, the 1,800 s turn the last.
    const times = Array.from({ length: 201 }, (_, i) => 100 + i)
    const { added, calls, keepers } = await expiring(times, 600, 0, 2000)
    expect(added).toHaveLength(201)
    expect(Math.min(...added.map((a) => a.timestamp))).toBe(100)
    expect(Math.max(...added.map((a) => a.timestamp))).toBe(300)
    const ids = added.map((a) => a.id)
    expect(calls).toEqual([
      { t: 1200, intentIds: ids.slice(0, 200) },
      { t: 1800, intentIds: [ids[200]] },
    ])
    expect(keepers.expiredHandled).toBe(201)
    expect(keepers.revertsByError).toEqual({})
  })
})

describe("the processDepositsAndInvoices keeper", () => {
  it("calls it once an epoch when no invoice is open: when an epoch has closed since the last call", async () => {
    // Epochs of 40 blocks of 12 s (480 s) over 2,400 s; the liquidity deposited at the start leaves no invoice.
    const { plan, assembly, world: w, inputs } = scriptedWorld("process-per-epoch", "", [])
    await w.run(plan.horizonSeconds)
    w.close()
    expect(inputs.filter((i) => i.input.kind === "processDepositsAndInvoices").map((i) => i.t)).toEqual([480, 960, 1440, 1920, 2400])
    expect(assembly.keepers.processCalls).toBe(5)
  })

  it("calls it every turn while an invoice is open", async () => {
    // No liquidity on 31002: the intent sent at 60 s reaches the hub at 130 s (dispatched at 120 s) and stays an invoice.
    const spec = twoChainUsdc(
      "process-invoice",
      "{ seconds: 600 }",
      `transport: { latency: { kind: fixed, seconds: 10 } }
agents:
  rebalancers:
    - { name: user, count: 1, asset: USDC, arrival: { kind: scripted, atSeconds: [60] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 } }`,
    ).spec
    const plan = planWorld(spec)
    const calls: number[] = []
    const { world, keepers } = assembleRun(spec, plan, {
      seed: 1,
      spokes: createMemorySpokes(plan.spokes),
      trace: { config: () => {}, input: (input) => void (input.kind === "processDepositsAndInvoices" && calls.push(world.nowMs / 1000)) },
    })
    await world.run(plan.horizonSeconds)
    world.close()
    expect([...world.hub.state.tickers.values()][0]!.invoices).toHaveLength(1)
    // Each minute from 180 s to 600 s (the 480 s epoch start among them).
    expect(calls).toEqual([180, 240, 300, 360, 420, 480, 540, 600])
    expect(keepers.processCalls).toBe(8)
  })
})

/**
 * Two xERC20 chains with a 1,000-a-day minting limit, 30 s messages, chain 31002 halted over [haltFrom, haltTo),
 * and one bridger sending `tokens` XT from 31001 to 31002 at t=10 (the debt keepers' scenarios).
 */
const debtMintScenario = (name: string, o: { readonly haltFrom: number; readonly haltTo: number; readonly tokens: string }): string => `
name: ${name}
horizon: { seconds: 2400 }
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: XT
    prioritizedStrategy: xerc20
    chains:
      - { chain: 31001, decimals: 6, strategy: xerc20, mintLimit: 1000, burnLimit: 10000000 }
      - { chain: 31002, decimals: 6, strategy: xerc20, mintLimit: 1000, burnLimit: 10000000 }
transport:
  latency: { kind: fixed, seconds: 30 }
  faults: { outages: [{ domain: 31002, kind: halt, fromSeconds: ${o.haltFrom}, toSeconds: ${o.haltTo} }] }
agents:
  rebalancers:
    - { name: bridgers, count: 1, asset: XT, arrival: { kind: scripted, atSeconds: [10] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: ${o.tokens} } }
`

describe("the xERC20 debt keeper", () => {
  // 1,500 XT sent to 31002, whose module may mint 1,000 a day: 1,000 minted, about 500 owed as debt.
  const scenario = (horizon: string, outages = "") =>
    parseScenario(
      `name: xdebt
seed: 7
horizon: ${horizon}
chains: [{ id: 31001 }, { id: 31002 }]
assets:
  - symbol: XT
    prioritizedStrategy: xerc20
    chains:
      - { chain: 31001, decimals: 18, strategy: xerc20, mintLimit: 1000, burnLimit: 10000000 }
      - { chain: 31002, decimals: 18, strategy: xerc20, mintLimit: 1000, burnLimit: 10000000 }
transport:
  latency: { kind: fixed, seconds: 60 }${outages}
agents:
  rebalancers:
    - { name: bridgers, count: 1, asset: XT, arrival: { kind: scripted, atSeconds: [30] }, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 1500 } }
`,
      "xdebt.yaml",
    )
  const run = async (spec: ReturnType<typeof scenario>) => {
    const { runScenario } = await import("../run.ts")
    const { report } = await runScenario(spec, { seed: 7, backend: "memory" })
    return { keepers: report.keepers, bridgers: report.agents.find((a) => a.population === "bridgers")! }
  }

  it("mints the debt as the limit refills on a chain that mines nothing else (its reads stay at its last block)", async () => {
    // Nothing else happens on 31002: its limit read 0 at its last block for good, and the debt was never minted.
    const { keepers, bridgers } = await run(scenario("{ hours: 30 }"))
    expect(keepers.debtMints).toBeGreaterThan(1)
    expect(keepers.reverts).toBe(0)
    expect(bridgers.inFlight).toEqual({})
  })

  it("does not send a debt's mint again while one is on its way (a halted chain mines none of them)", async () => {
    // 31002 halts for two hours after the first mint failed: each ten-minute turn sent the same mint again, and
    // all but one reverted once the chain mined them (they asked for more than was still owed).
    const { keepers } = await run(scenario("{ hours: 4 }", "\n  faults: { outages: [{ domain: 31002, kind: halt, fromSeconds: 295, toSeconds: 7200 }] }"))
    expect(keepers.debtMints).toBeGreaterThan(0)
    expect(keepers.reverts).toBe(0)
  })

  /**
   * Its mint reverting while it is on its way (reference §4.5 step 5: `mintDebt` is anyone's to call), by hand, on
   * the hand-computed debt of the metrics tests (sim/metrics/scripted.test.ts): 1,000.5 XT of 6 decimals sent at 10,
   * settled on 31002 at 150 for 1,000.47999, over the 1,000 a day it may mint: all owed.
   *  t=300  the keeper mints 1,000: 0.47999 owed.
   *  t=895  31002 halts until 1,600 (nothing mined, calls wait in order).
   *  t=896  someone else sends mintDebt of 0.1 for the receiver.
   *  t=900  the keeper sends mintDebt of the 0.47999 owed (the limit has refilled by 6.94): on its way.
   *  t=1500 owed 0.47999 less 0.47999 on its way: nothing to send, but the debt is kept while its mint is out.
   *  t=1600 mined in order: the 0.1 (DebtMinted, 0.37999 owed), then the keeper's 0.47999, more than is owed:
   *         XERC20Module_MintDebt_InsufficientMintable; nothing is on its way any more.
   *  t=2100 the keeper mints the 0.37999 left: the receiver is paid once, at 2,100 (latency 2,090 s).
   */
  it("keeps a debt whose mint is on its way, and mints what that mint did not when it reverts", async () => {
    const { buildRunResult, measureInFlight } = await import("../run.ts")
    const text = debtMintScenario("debt-mint-reverts", { haltFrom: 895, haltTo: 1600, tokens: '"1000.5"' })
    const loaded = parseScenario(text, "debt-mint-reverts.yaml")
    const plan = planWorld(loaded.spec, { userAccounts: 1 })
    const assembly = assembleRun(loaded.spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes) })
    const { world, keepers } = assembly
    const receiver = plan.agents.find((a) => a.population === "bridgers")!.account.address
    const xt = plan.assets.get("XT:31002")!.address
    const minted: [number, bigint][] = []
    world.observe({ onSpokeEvent: (event) => void (event.name === "DebtMinted" && minted.push([world.nowMs / 1000, event.amount])) })
    const other: string[] = []
    world.scheduler.at(896_000, "someone else's mintDebt", () =>
      world.submit(31002, plan.users[0]!.address, { kind: "xerc20Module.mintDebt", asset: xt, recipient: receiver, amount: 100_000n }, undefined, (r) => void other.push(r.status)),
    )
    await world.run(plan.horizonSeconds)
    measureInFlight(plan, assembly)
    const { report } = buildRunResult(loaded, assembly, { seed: 1, run: 0, backend: "memory", horizonSeconds: plan.horizonSeconds, wallSeconds: 0 })
    const chain = world.chain(31002)
    const [owed, balance] = [await chain.mintable(receiver, xt), await chain.erc20Balance(xt, receiver)]
    world.close()
    expect(other).toEqual(["success"])
    expect(minted).toEqual([[300, 1_000_000_000n], [1600, 100_000n], [2100, 379_990n]])
    expect(keepers).toMatchObject({ debtMints: 2, reverts: 1, revertsByError: { XERC20Module_MintDebt_InsufficientMintable: 1 } })
    // Its 10^12 XT of funding at deployment and the 1,000.47999 settled, minted once.
    expect([owed, balance]).toEqual([0n, 10n ** 18n + 1_000_479_990n])
    expect(report.agents.find((a) => a.population === "bridgers")!.inFlight).toEqual({})
    expect(report.latency).toMatchObject({ count: 1, max: 2090 })
  })

  /**
   * A reverted mint gives back the share of the minting limit the keeper had set aside for it. The limit is tight:
   * 1,000 a day refills 1,000,000,000 / 86,400 = 11,574 units (of 6 decimals) a second, and the reverted mint was
   * the whole 1,000, more than the limit ever holds besides (it never exceeds 1,000); a keeper that kept it aside
   * would never mint the debt. 1,500 XT sent at 10 settle on 31002 at 150 for 1,500 − 0.03 (2 dbps) = 1,499.97, over
   * the limit: all owed.
   *  t=295  31002 halts until 1,000 (nothing mined, calls wait in order).
   *  t=296  someone else sends mintDebt of 600 for the receiver.
   *  t=300  the keeper sends mintDebt of 1,000 (the whole limit): 1,000 of the limit set aside.
   *  t=900  owed 1,499.97 less 1,000 on its way, limit 1,000 less the 1,000 set aside: nothing to send.
   *  t=1000 mined in order: the 600 (limit 400 left, 899.97 owed), then the keeper's 1,000, more than is owed:
   *         XERC20Module_MintDebt_InsufficientMintable; its 1,000 is no longer set aside.
   *  t=1500 the limit is 400 + 500 × 11,574 = 405.787: the keeper mints that much of the 899.97 owed.
   *  t=2100 the limit has refilled by 600 × 11,574 = 6.9444: minted; 899.97 − 405.787 − 6.9444 = 487.2386 owed.
   */
  it("gives back the minting limit set aside for a mint that reverts: the debt is minted from it on the next turns", async () => {
    const text = debtMintScenario("debt-mint-reverts-tight-limit", { haltFrom: 295, haltTo: 1000, tokens: "1500" })
    const loaded = parseScenario(text, "debt-mint-reverts-tight-limit.yaml")
    const plan = planWorld(loaded.spec, { userAccounts: 1 })
    const { world, keepers } = assembleRun(loaded.spec, plan, { seed: 1, spokes: createMemorySpokes(plan.spokes) })
    const receiver = plan.agents.find((a) => a.population === "bridgers")!.account.address
    const xt = plan.assets.get("XT:31002")!.address
    const owedAt: [number, bigint][] = []
    const minted: [number, bigint][] = []
    world.observe({
      onSpokeEvent: (event) => {
        if (event.name === "AssetMintFailed") owedAt.push([world.nowMs / 1000, event.amount])
        if (event.name === "DebtMinted") minted.push([world.nowMs / 1000, event.amount])
      },
    })
    const other: string[] = []
    world.scheduler.at(296_000, "someone else's mintDebt", () =>
      world.submit(31002, plan.users[0]!.address, { kind: "xerc20Module.mintDebt", asset: xt, recipient: receiver, amount: 600_000_000n }, undefined, (r) => void other.push(r.status)),
    )
    await world.run(plan.horizonSeconds)
    const owed = await world.chain(31002).mintable(receiver, xt)
    world.close()
    expect(owedAt).toEqual([[150, 1_499_970_000n]])
    expect(other).toEqual(["success"])
    expect(minted).toEqual([[1000, 600_000_000n], [1500, 405_787_000n], [2100, 6_944_400n]])
    expect(keepers).toMatchObject({ debtMints: 2, reverts: 1, revertsByError: { XERC20Module_MintDebt_InsufficientMintable: 1 } })
    expect(owed).toBe(487_238_600n)
  })
})
