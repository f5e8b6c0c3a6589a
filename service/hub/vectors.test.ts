/**
 * The reference's vectors (everclear-protocol-facts §7 A, D, E, F) replayed from trace files through the
 * replay interface; the expected amounts are the reference's, written out by hand. Vectors A, D and F end with
 * an end line (`{"kind":"end","inputs":N}`); vector E is kept in the format of traces written before end lines, and
 * proves that such traces still replay.
 */
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { normalizeDecimals } from "../domain/protocol.ts"
import { replayFile } from "./replay.ts"

const E18 = 10n ** 18n
const DAI_S = 1
const DAI_B = 10

interface EventLine {
  readonly kind: string
  readonly [field: string]: unknown
}

const replay = async (name: string) => {
  const lines: EventLine[] = []
  const summary = await replayFile(fileURLToPath(new URL(`./vectors/${name}`, import.meta.url)), {
    onLine: (line) => lines.push(JSON.parse(line) as EventLine),
    checkEveryInput: true,
  })
  const events = lines.filter((l) => l.kind !== "summary")
  return { events, summary, last: lines.at(-1)!, of: (kind: string) => events.filter((e) => e.kind === kind) }
}

describe("vector A: partial coverage, 3-epoch discount, reward leakage", () => {
  it("settles the invoice at 94,900 on B and pays each E+3 deposit 9,700 + 221.285563751317175974", async () => {
    const { of, last, summary } = await replay("vector-a.jsonl")
    const invoice = of("InvoiceEnqueued")
    expect(invoice).toHaveLength(1)
    expect(invoice[0]).toMatchObject({ entryEpoch: 10, amount: (97_000n * E18).toString() })
    const settlements = of("SettlementEnqueued")
    expect(settlements).toHaveLength(11)
    expect(settlements[0]).toMatchObject({ intentId: invoice[0]!.intentId, domain: DAI_B, entryEpoch: 13, amount: (94_900n * E18).toString() })
    // The three E+2 deposits: cleaned up at E+3 after phase 1, no rewards, on S.
    for (const s of settlements.slice(1, 4)) expect(s).toMatchObject({ domain: DAI_S, entryEpoch: 13, amount: (9_700n * E18).toString() })
    // The seven E+3 deposits: 10,000 × 2,100 / 94,900 each (floored) on top of 9,700.
    const reward = (10_000n * E18 * 2_100n * E18) / (94_900n * E18)
    expect(reward).toBe(221_285563751317175974n)
    for (const s of settlements.slice(4)) expect(s).toMatchObject({ domain: DAI_S, entryEpoch: 14, amount: (9_700n * E18 + reward).toString() })
    // Spoke payout of the invoice in the 6-decimal token.
    expect(normalizeDecimals(94_900n * E18, 18, 6)).toBe(94_900_000_000n)
    expect(last).toEqual({ kind: "summary", traceHash: summary.traceHash, events: summary.events })
  })

  it("leaves custody S = 1,451.001… and B = 5,100: 6,000 of fees plus 551.001… of undistributed reward", async () => {
    const { of } = await replay("vector-a.jsonl")
    const paidOnS = of("SettlementEnqueued")
      .filter((s) => s.domain === DAI_S)
      .reduce((sum, s) => sum + BigInt(s.amount as string), 0n)
    const paidOnB = of("SettlementEnqueued")
      .filter((s) => s.domain === DAI_B)
      .reduce((sum, s) => sum + BigInt(s.amount as string), 0n)
    const custodyS = 100_000n * E18 - paidOnS
    const custodyB = 100_000n * E18 - paidOnB
    expect(custodyB).toBe(5_100n * E18)
    expect(custodyS).toBe(1_451_001053740779768182n)
    // Across both domains: 6,000 of protocol fees (3 % of 200,000) plus 551.001… of the 2,100 reward that the
    // deposits could not absorb. (The reference's per-domain reading, "S = 3,000 fees + 551.001", does not add
    // up: S also paid the 1,548.99… of rewards that were distributed.)
    expect(custodyS + custodyB - 6_000n * E18).toBe(551_001053740779768182n)
  })
})

describe("vector D: zero discount when only old-epoch liquidity covers the invoice", () => {
  it("settles the invoice for exactly 970 on B and the deposit for 970 on S, one epoch later", async () => {
    const { of } = await replay("vector-d.jsonl")
    const [invoice] = of("InvoiceEnqueued")
    expect(invoice).toMatchObject({ entryEpoch: 10, amount: (970n * E18).toString() })
    const settlements = of("SettlementEnqueued")
    expect(settlements).toEqual([
      expect.objectContaining({ intentId: invoice!.intentId, domain: DAI_B, entryEpoch: 11, amount: (970n * E18).toString() }),
      expect.objectContaining({ domain: DAI_S, entryEpoch: 11, amount: (970n * E18).toString() }),
    ])
    expect(of("DepositEnqueued")[0]).toMatchObject({ epoch: 10, domain: DAI_B })
    // 970,000,000 units of the 6-decimal token on B; 970 × 10^12 units of the 12-decimal token on S.
    expect(normalizeDecimals(970n * E18, 18, 6)).toBe(970_000_000n)
    expect(normalizeDecimals(970n * E18, 18, 12)).toBe(970n * 10n ** 12n)
  })
})

describe("vector E: fast path, the solver is repaid on the origin net of protocol fees only", () => {
  it("repays 970 to the solver on S when its fill arrives, and dispatches it", async () => {
    const { of, events } = await replay("vector-e.jsonl")
    expect(of("IntentProcessed")[0]).toMatchObject({ status: "DEPOSIT_PROCESSED" })
    const [settlement] = of("SettlementEnqueued")
    expect(settlement).toMatchObject({ domain: DAI_S, amount: (970n * E18).toString(), owner: `0x${"0".repeat(24)}${"50".repeat(20)}` })
    expect(of("FillProcessed")[0]).toMatchObject({ status: "SETTLED" })
    expect(events.at(-1)).toMatchObject({ kind: "SettlementQueueProcessed", domain: DAI_S, amount: 1 })
    // The user side (spoke): 1,000 less the solver's 500 dbps = 995 in output decimals.
    const out = normalizeDecimals(1_000n * E18, 18, 6)
    expect(out - (out * 500n) / 100_000n).toBe(995_000_000n)
  })
})

describe("vector F: one-epoch discounts consume this epoch's deposits FIFO", () => {
  it("discounts 10% then 5% of the covered part, crediting deposits in order", async () => {
    const { of } = await replay("vector-f.jsonl")
    const invoices = of("InvoiceEnqueued")
    expect(invoices.map((i) => i.entryEpoch)).toEqual([10, 11, 13, 13])
    const settlements = of("SettlementEnqueued")
    // E+2: invoice 1 (2 epochs × 5,000 dbps = 10%) then invoice 2 (1 epoch = 5%), both fully covered by E+2 deposits.
    expect(settlements[0]).toMatchObject({ intentId: invoices[0]!.intentId, domain: DAI_B, amount: (900n * E18).toString() })
    expect(settlements[1]).toMatchObject({ intentId: invoices[1]!.intentId, domain: DAI_B, amount: (950n * E18).toString() })
    // Deposit 1 absorbed 900 of invoice 1 (reward 100) and 100 of invoice 2 (reward 100 × 50 / 950, floored).
    const deposit1 = 1_000n * E18 + 100n * E18 + (100n * E18 * 50n * E18) / (950n * E18)
    expect(settlements[2]).toMatchObject({ domain: DAI_S, amount: deposit1.toString() })
    expect(deposit1).toBe(1_105_263157894736842105n)
    // Deposit 2 absorbed the remaining 850 of invoice 2; custody on S no longer covers it, so it is invoiced.
    expect(invoices[2]).toMatchObject({ amount: (1_000n * E18 + (850n * E18 * 50n * E18) / (950n * E18)).toString() })
    expect(invoices[3]).toMatchObject({ amount: (1_000n * E18).toString() })
  })
})

describe("the vector traces' end lines", () => {
  it("end A, D and F (counting their inputs, checked by the replay), and not E, the earlier format", async () => {
    for (const [name, inputs] of [["vector-a.jsonl", 9], ["vector-d.jsonl", 5], ["vector-f.jsonl", 10]] as const) {
      const { summary } = await replay(name)
      expect(summary).toMatchObject({ inputs, end: { line: inputs + 2 } })
    }
    // A trace without an end line, as every trace was before them, replays all the same.
    const { summary } = await replay("vector-e.jsonl")
    expect(summary.inputs).toBe(6)
    expect(summary.end).toBeUndefined()
  })
})
