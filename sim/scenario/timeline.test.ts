/**
 * The loader against the horizon: a run expected to make millions of intents, scripted times out of order, after
 * the horizon or at it, outages that start after it or at it. Told as warnings (the scenario loads), with the path in the file.
 */
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { runScenario } from "../run.ts"
import { loadScenario, scenarioWarningLines } from "./load.ts"
import { twoChainUsdc } from "./testing.ts"
import { LARGE_RUN_EPOCHS, LARGE_RUN_INTENTS, timeseriesRowsPerEpoch } from "./timeline.ts"

const population = (name: string, arrival: string, count = 10) =>
  `    - { name: ${name}, count: ${count}, asset: USDC, arrival: ${arrival}, flows: [{ from: 31001, to: 31002 }], size: { kind: fixed, tokens: 100 } }`
const rebalancers = (...lines: string[]) => `agents:\n  rebalancers:\n${lines.join("\n")}`
const warningsOf = (horizon: string, rest: string) => twoChainUsdc("timeline", horizon, rest).warnings.map((w) => [w.path, w.message])

describe("a run expected to make more than five million intents", () => {
  it("is told at load, at the horizon, with the count and each population's share, rate and the horizon", () => {
    const loaded = twoChainUsdc("huge", "{ hours: 24 }", rebalancers(population("users", "{ kind: poisson, perHour: 300000 }")))
    expect(loaded.warnings.map((w) => [w.path, w.message])).toEqual([
      [
        "horizon",
        "about 7,200,000 intents expected over the horizon of 24 h (86,400 s): users 7,200,000 (poisson, 300,000 per hour). " +
          "A run's time and memory grow with its intents (stress-1m's one million take about a minute here, and 1.7 GB), " +
          "and `clearsim run` tells its progress in percent of virtual time (a line every 10 % when stderr is not a terminal): the first may be long in coming",
      ],
    ])
    // The line the CLI prints, at the horizon's place in the file (line 2 of twoChainUsdc's text).
    expect(scenarioWarningLines(loaded)[0]).toMatch(/^clearsim: warning: huge\.yaml:2:10: horizon: about 7,200,000 intents expected/u)
    expect(loaded.spec.agents.rebalancers?.[0]?.arrival).toEqual({ kind: "poisson", perHour: 300000 })
  })

  it("adds every population's arrivals, largest first: poisson, bursts and scripted times within the horizon", () => {
    const [path, message] = warningsOf(
      "{ epochs: 10000 }",
      rebalancers(
        population("trickle", "{ kind: scripted, atSeconds: [60, 120] }"),
        population("steady", "{ kind: poisson, perHour: 10000 }"),
        population("bursts", "{ kind: bursty, everySeconds: 60, size: 100 }"),
      ),
    )[0]!
    // 10,000 epochs of 40 blocks of 12 s: 4,800,000 s, 1,333.33 h.
    expect([path, message!.split(". ")[0]]).toEqual([
      "horizon",
      "about 21,333,335 intents expected over the horizon of 10000 epochs (4,800,000 s): steady 13,333,333 (poisson, 10,000 per hour), bursts 8,000,000 (bursts of 100 every 60 s, 6,000 per hour), trickle 2 (2 scripted times)",
    ])
  })

  it(`is not told at ${LARGE_RUN_INTENTS.toLocaleString("en-US")} or fewer (stress-1m's million, the shipped scenarios)`, () => {
    expect(LARGE_RUN_INTENTS).toBe(5_000_000)
    expect(warningsOf("{ seconds: 3600 }", rebalancers(population("users", "{ kind: poisson, perHour: 5000000 }")))).toEqual([])
    expect(warningsOf("{ seconds: 3600 }", rebalancers(population("users", "{ kind: poisson, perHour: 5000001 }"))).map(([path]) => path)).toEqual(["horizon"])
    expect(loadScenario(fileURLToPath(new URL("../../scenarios/stress-1m.yaml", import.meta.url))).warnings).toEqual([])
  })
})

describe("a horizon of more than a million epochs", () => {
  const quiet = rebalancers(population("users", "{ kind: poisson, perHour: 1 }", 1))

  it("is told at load, at the horizon, with the epochs, the rows, the files' size, the memory and how to have fewer epochs", () => {
    // One-millisecond epochs over 1,300 s (a block time of a millisecond given for a second): 1,300,001 epochs.
    const loaded = twoChainUsdc("ms", "{ seconds: 1300 }", quiet, { hub: "blockTimeSeconds: 0.001, epochLength: 1" })
    // USDC on two chains: 5 counters, 3 + 2 custody rows of USDC, 3 queues on each chain.
    expect(timeseriesRowsPerEpoch(loaded.spec)).toBe(16)
    expect(loaded.warnings.map((w) => [w.path, w.message])).toEqual([
      [
        "horizon",
        "about 1,300,001 epochs over the horizon of 1300 s, an epoch being 0.001 s (hub.epochLength 1 × hub.blockTimeSeconds 0.001 s). " +
          "The time series has a row per epoch and metric, at least 16 an epoch here: about 20,800,016 rows, a timeseries.csv of about 832 MB, " +
          "250 MB of memory and about 10 s to write the report files besides the run itself. " +
          "For fewer epochs, make them longer (a larger hub.epochLength or hub.blockTimeSeconds) or the horizon shorter",
      ],
    ])
    expect(scenarioWarningLines(loaded)[0]).toMatch(/^clearsim: warning: ms\.yaml:2:10: horizon: about 1,300,001 epochs over the horizon of 1300 s/u)
  })

  it("counts a horizon in epochs as given (and the one it ends in), in hours by the epoch's seconds, and gigabytes past a thousand megabytes", () => {
    const [[path, message]] = warningsOf("{ epochs: 5000000 }", quiet).map(([p, m]) => [p, m!.split(". ")]) as [[string, string[]]]
    expect(path).toBe("horizon")
    // 5,000,001 epochs of the default 40 blocks of 12 s; 16 rows each: 80,000,016 rows of about 40 bytes, 12 in memory.
    expect(message[0]).toBe("about 5,000,001 epochs over the horizon of 5000000 epochs (2,400,000,000 s), an epoch being 480 s (hub.epochLength 40 × hub.blockTimeSeconds 12 s)")
    expect(message[1]).toMatch(/about 80,000,016 rows, a timeseries\.csv of about 3\.2 GB, 960 MB of memory and about 40 s to write/)
    // 0.0015-s blocks, 56 to an epoch (a fuzzed scenario's): 0.084-s epochs, 3 hours of them.
    const fuzzed = twoChainUsdc("f", "{ hours: 30 }", quiet, { hub: "blockTimeSeconds: 0.0015, epochLength: 56" }).warnings[0]!.message
    expect(fuzzed).toMatch(/^about 1,285,715 epochs over the horizon of 30 h \(108,000 s\), an epoch being 0\.084 s \(hub\.epochLength 56 × hub\.blockTimeSeconds 0\.0015 s\)/u)
  })

  it(`is not told at ${LARGE_RUN_EPOCHS.toLocaleString("en-US")} epochs or fewer (a day of one-second epochs, the shipped scenarios)`, () => {
    expect(LARGE_RUN_EPOCHS).toBe(1_000_000)
    expect(warningsOf("{ epochs: 999999 }", quiet)).toEqual([])
    expect(warningsOf("{ epochs: 1000000 }", quiet).map(([path]) => path)).toEqual(["horizon"])
    expect(twoChainUsdc("s", "{ hours: 24 }", quiet, { hub: "blockTimeSeconds: 1, epochLength: 1" }).warnings).toEqual([])
    for (const name of ["quickstart", "stress-1m", "five-chain-mixed", "one-sided-drain"]) {
      expect(loadScenario(fileURLToPath(new URL(`../../scenarios/${name}.yaml`, import.meta.url))).warnings, name).toEqual([])
    }
  })

  it("counts the rows every epoch has: per asset its custody on default-strategy chains only, per chain three queues", () => {
    // USDC on three chains: 5 + (3 + 3) + 3 × 3.
    expect(timeseriesRowsPerEpoch(twoChainUsdc("three", "{ hours: 1 }", quiet, { chainIds: [31001, 31002, 31003] }).spec)).toBe(20)
    // An xERC20 asset is burnt and minted, never custodied: 5 + 3 + 3 × 2 (its run has 16 to 24 rows an epoch).
    expect(timeseriesRowsPerEpoch(loadScenario(fileURLToPath(new URL("../../scenarios/xerc20-limits.yaml", import.meta.url))).spec)).toBe(14)
  })
})

describe("scripted times", () => {
  it("out of order are sorted; with one agent silently (nothing changes), with several told at the first out of order", () => {
    const one = twoChainUsdc("order", "{ seconds: 900 }", rebalancers(population("users", "{ kind: scripted, atSeconds: [300, 60, 120, 60] }", 1)))
    expect(one.spec.agents.rebalancers?.[0]?.arrival).toEqual({ kind: "scripted", atSeconds: [60, 60, 120, 300] })
    expect(one.warnings).toEqual([])
    const three = twoChainUsdc("order", "{ seconds: 900 }", rebalancers(population("users", "{ kind: scripted, atSeconds: [60, 300, 120] }", 3)))
    expect(three.spec.agents.rebalancers?.[0]?.arrival).toEqual({ kind: "scripted", atSeconds: [60, 120, 300] })
    expect(three.warnings.map((w) => [w.path, w.message])).toEqual([
      [
        "agents.rebalancers[0].arrival.atSeconds[2]",
        "120 s comes before the time above it (300 s): the times are taken in time order, and the population's 3 agents send them in turn in that order, not in the list's",
      ],
    ])
    // In order, with equal times, nothing to tell.
    expect(warningsOf("{ seconds: 900 }", rebalancers(population("users", "{ kind: scripted, atSeconds: [60, 60, 120] }", 3)))).toEqual([])
  })

  it("out of order run as in order with one agent: the same trace hash", async () => {
    const hash = async (times: string) => {
      const loaded = twoChainUsdc("order-run", "{ seconds: 1200 }", rebalancers(population("users", `{ kind: scripted, atSeconds: ${times} }`, 1)))
      const { report } = await runScenario(loaded, { seed: 1, backend: "memory" })
      expect(report.intents.created).toBe(3)
      return report.traceHash
    }
    expect(await hash("[400, 60, 200]")).toBe(await hash("[60, 200, 400]"))
  })

  it("after the horizon are told at the first of them, with how many: they are never sent; one at the horizon itself is sent, and told apart", () => {
    expect(warningsOf("{ seconds: 600 }", rebalancers(population("users", "{ kind: scripted, atSeconds: [60, 900, 600, 601, 30] }", 1)))).toEqual([
      ["agents.rebalancers[0].arrival.atSeconds[1]", "900 s and 1 more of these times are after the horizon (600 s): the run ends first, so these intents are never sent"],
      [
        "agents.rebalancers[0].arrival.atSeconds[2]",
        "600 s is the horizon itself (600 s), the run's last millisecond: its intent is sent, then the run stops, so it is counted as created but never reaches the hub nor settles (in flight in the report)",
      ],
    ])
    expect(warningsOf("{ hours: 0.5 }", rebalancers(population("a", "{ kind: poisson, perHour: 1 }"), population("b", "{ kind: scripted, atSeconds: [1800.0004, 1800.0006] }", 1)))).toEqual([
      ["agents.rebalancers[1].arrival.atSeconds[1]", "1800.0006 s is after the horizon (0.5 h (1,800 s)): the run ends first, so this intent is never sent"],
      [
        "agents.rebalancers[1].arrival.atSeconds[0]",
        "1800.0004 s is the horizon itself (0.5 h (1,800 s)), the run's last millisecond: its intent is sent, then the run stops, so it is counted as created but never reaches the hub nor settles (in flight in the report)",
      ],
    ])
  })
})

describe("a scripted time at the horizon itself", () => {
  it("is told at the first of them, with how many: the intent is sent at the run's last millisecond, then the run stops", async () => {
    // 599.9996 s is the horizon's millisecond too (the scheduler rounds to milliseconds); 599.9994 s the one before.
    const rest = `transport: { latency: { kind: fixed, seconds: 0 } }\n${rebalancers(population("users", "{ kind: scripted, atSeconds: [30, 599.9994, 600, 599.9996] }", 1))}`
    expect(warningsOf("{ seconds: 600 }", rest)).toEqual([
      [
        "agents.rebalancers[0].arrival.atSeconds[2]",
        "600 s and 1 more of these times are the horizon itself (600 s), the run's last millisecond: their intents are sent, then the run stops, so they are counted as created but never reach the hub nor settle (in flight in the report)",
      ],
    ])
    // As told: the run counts the two at the horizon as created, and the hub never hears of them, even with no latency.
    const atHorizon = twoChainUsdc("at-horizon", "{ seconds: 600 }", `transport: { latency: { kind: fixed, seconds: 0 } }\n${rebalancers(population("users", "{ kind: scripted, atSeconds: [600, 599.9996] }", 1))}`)
    const { report } = await runScenario(atHorizon, { seed: 1, backend: "memory" })
    expect([report.intents.created, report.intents.settled, report.hubInputs]).toEqual([2, 0, expect.any(Number)])
    const { report: none } = await runScenario(twoChainUsdc("none", "{ seconds: 600 }", "transport: { latency: { kind: fixed, seconds: 0 } }\nagents: {}"), { seed: 1, backend: "memory" })
    // No input of theirs reached the hub: as many hub inputs as a run without them.
    expect(report.hubInputs).toBe(none.hubInputs)
  })
})

describe("a chain whose block time is longer than the horizon", () => {
  it("is told at its blockTimeSeconds: it mines no block in the run; one of exactly the horizon mines at its last millisecond, and is not told", async () => {
    // Users sending from 31001 only: their intents are created when 31001 mines them.
    const slow = (seconds: number) => twoChainUsdc("slow-chain", "{ seconds: 600 }", rebalancers(population("users", "{ kind: poisson, perHour: 120 }", 2)), { blockTimeSeconds: [seconds] })
    expect(slow(601).warnings.map((w) => [w.path, w.message])).toEqual([
      [
        "chains[0].blockTimeSeconds",
        "601 s is longer than the horizon (600 s): chain 31001 mines its first block after the run ends, so nothing sent there (its users' intents, fills, deposits, settlements from the hub) is ever included; expected a block time under the horizon",
      ],
    ])
    expect(slow(600).warnings).toEqual([])
    // As told: no block, no intent created; a block at the horizon's millisecond does create them.
    const created = async (seconds: number) => (await runScenario(slow(seconds), { seed: 1, backend: "memory" })).report.intents.created
    expect(await created(601)).toBe(0)
    expect(await created(600)).toBeGreaterThan(0)
  })
})

describe("a keeper cron longer than the horizon", () => {
  it("is told where it is given: the keeper looks at the start only; a chain's own cron at the chain, the keepers' one only if some chain uses it", async () => {
    const users = rebalancers(population("users", "{ kind: poisson, perHour: 120 }", 2))
    const keepers = (body: string) => twoChainUsdc("slow-keeper", "{ seconds: 600 }", `keepers: ${body}\n${users}`)
    const look = "s is longer than the horizon (600 s): the keeper looks at the start only, before anything is queued, and next after the run ends, so"
    expect(keepers("{ intentQueue: { cronSeconds: 601 }, fillQueue: { cronSeconds: 600 }, processDepositsAndInvoicesCronSeconds: 1e6, expiredIntentsCronSeconds: 700 }").warnings.map((w) => [w.path, w.message])).toEqual([
      ["keepers.intentQueue.cronSeconds", `601 ${look} no intent queue is dispatched to the hub: no intent reaches it`],
      ["keepers.processDepositsAndInvoicesCronSeconds", `1000000 ${look} the keepers' processDepositsAndInvoices never runs in the run`],
      ["keepers.expiredIntentsCronSeconds", `700 ${look} no expired fast-path intent is handed to the slow path`],
    ])
    // Both chains with their own cron: the keepers' one is used by none; a chain's own is told at the chain.
    const both = "{ settlementQueue: { cronSeconds: 9000 }, chains: [{ chain: 31001, settlementQueue: { cronSeconds: 60 } }, { chain: 31002, settlementQueue: { cronSeconds: 900 } }] }"
    expect(keepers(both).warnings.map((w) => [w.path, w.message])).toEqual([
      ["keepers.chains[1].settlementQueue.cronSeconds", `900 ${look} on chain 31002, no settlement queue is dispatched from the hub: nothing is settled on the spokes`],
    ])
    // As told: no intent reaches the hub (as many hub inputs as a run of no users), though users send them.
    const { report } = await runScenario(keepers("{ intentQueue: { cronSeconds: 601 } }"), { seed: 1, backend: "memory" })
    const { report: none } = await runScenario(twoChainUsdc("no-users", "{ seconds: 600 }", "agents: {}"), { seed: 1, backend: "memory" })
    expect(report.intents.created).toBeGreaterThan(0)
    expect(report.hubInputs).toBe(none.hubInputs)
  })
})

describe("an outage that starts after the horizon", () => {
  it("is told at its fromSeconds: it never happens; one starting at the horizon itself is told apart (it begins as the run stops)", () => {
    const outages = (list: string) => warningsOf("{ seconds: 600 }", `transport:\n  faults:\n    outages: [${list}]\n${rebalancers(population("users", "{ kind: poisson, perHour: 60 }"))}`)
    expect(outages("{ domain: 31002, kind: partition, fromSeconds: 100, toSeconds: 700 }, { domain: 31001, kind: halt, fromSeconds: 600.5, toSeconds: 900 }, { domain: 25327, kind: pause, fromSeconds: 1200, toSeconds: 1300 }")).toEqual([
      ["transport.faults.outages[1].fromSeconds", "the halt of chain 31001 starts at 600.5 s, after the horizon (600 s): the run ends first, so it never happens"],
      ["transport.faults.outages[2].fromSeconds", "the pause of the hub starts at 1200 s, after the horizon (600 s): the run ends first, so it never happens"],
    ])
    // At the horizon's millisecond the world still acts on it, and the run stops right then (told apart); from the
    // next one (600.0004 s starts at 600,001 ms), never.
    expect(outages("{ domain: 31002, kind: partition, fromSeconds: 600, toSeconds: 700 }, { domain: 25327, kind: pause, fromSeconds: 599.9995, toSeconds: 700 }")).toEqual([
      [
        "transport.faults.outages[0].fromSeconds",
        "the partition of chain 31002 starts at 600 s, the horizon itself (600 s), the run's last millisecond: the run stops as it begins, so it holds back no message, block or delivery of the run",
      ],
      [
        "transport.faults.outages[1].fromSeconds",
        "the pause of the hub starts at 599.9995 s, the horizon itself (600 s), the run's last millisecond: the run stops as it begins, so it holds back no message, block or delivery of the run",
      ],
    ])
    expect(outages("{ domain: 31002, kind: partition, fromSeconds: 599.999, toSeconds: 700 }")).toEqual([])
    expect(outages("{ domain: 31002, kind: partition, fromSeconds: 600.0004, toSeconds: 700 }").map(([path]) => path)).toEqual(["transport.faults.outages[0].fromSeconds"])
  })
})
