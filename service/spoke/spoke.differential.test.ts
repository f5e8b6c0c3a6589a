/**
 * Differential test: the memory twin against the contracts on anvil. Several hundred seeded random operations
 * (valid and invalid) run on both backends block by block; every receipt (status, error name and args, decoded
 * events in order), the final balances, statuses, queues, debts and limits, the full event logs and the outbound
 * messages must be identical, and two hub engines fed with each backend's INTENT/FILL messages must end with the
 * same trace hash. Replay a seed: `DIFF_SEED=7 npx vitest run service/spoke/spoke.differential.test.ts`.
 */
import { afterAll, beforeAll, expect, test } from "vitest"
import { ChainPool } from "../../sim/chains/index.ts"
import { encodeSettlementMessage } from "../domain/encoding.ts"
import { type Address, type Bytes32, ZERO_ADDRESS } from "../domain/hex.ts"
import {
  type AnvilSpokeChain,
  createAnvilSpokes,
  createMemorySpokes,
  type MemorySpokeChain,
  type MinedSpokeBlock,
  type SpokeReceipt,
  type SpokesShape,
} from "./spoke.ts"
import {
  CAROL,
  comparable,
  comparableEvent,
  DOMAINS,
  feedHub,
  GENESIS,
  hubConfig,
  makeHubs,
  NO_CODE,
  type Operation,
  OperationGenerator,
  ROLE,
  runHubs,
  spokesConfig,
  submitOperation,
  TOKENS,
} from "./test/differential.ts"

const SEED = Number(process.env.DIFF_SEED ?? 20_261_122)
const STEPS = Number(process.env.DIFF_STEPS ?? 45)

let pool: ChainPool | undefined
let anvil: SpokesShape<AnvilSpokeChain>
let memory: SpokesShape<MemorySpokeChain>

beforeAll(async () => {
  pool = await ChainPool.start({ chainIds: DOMAINS, genesisTimestamp: GENESIS })
  anvil = await createAnvilSpokes(pool, spokesConfig())
  memory = createMemorySpokes(spokesConfig())
}, 120_000)

afterAll(async () => {
  await pool?.stop()
})

const describeOp = (op: Operation | undefined): string =>
  op === undefined ? "(unknown operation)" : `${op.label} [${op.call.kind} from ${op.from}${op.raw ? ", raw calldata" : ""}]`

const replayHint = `replay: DIFF_SEED=${SEED} DIFF_STEPS=${STEPS} npx vitest run service/spoke/spoke.differential.test.ts`

/** Submits to both backends; a call that cannot be encoded must be refused by both. */
const submitBoth = (op: Operation): void => {
  let memoryError: unknown
  let anvilError: unknown
  try {
    submitOperation(memory.chain(op.domain), op)
  } catch (error) {
    memoryError = error
  }
  try {
    submitOperation(anvil.chain(op.domain), op)
  } catch (error) {
    anvilError = error
  }
  expect((anvilError as Error | undefined)?.name, `${describeOp(op)}: refused by one backend only\n${replayHint}`).toBe(
    (memoryError as Error | undefined)?.name,
  )
}

const compareBlocks = (domain: number, ops: readonly Operation[], memoryBlock: MinedSpokeBlock, anvilBlock: MinedSpokeBlock): void => {
  expect(anvilBlock.blockNumber, `domain ${domain}: block number`).toBe(memoryBlock.blockNumber)
  expect(anvilBlock.receipts.length).toBe(memoryBlock.receipts.length)
  memoryBlock.receipts.forEach((receipt: SpokeReceipt, i) => {
    expect(comparable(anvilBlock.receipts[i]!), `domain ${domain} block ${memoryBlock.blockNumber} call #${i}: ${describeOp(ops[i])}\n${replayHint}`).toEqual(
      comparable(receipt),
    )
  })
}

test(`memory and anvil spokes agree on ${STEPS} blocks of random operations (seed ${SEED})`, async () => {
  const generator = new OperationGenerator(SEED, memory)
  const token = (symbol: "USDC" | "WETH" | "T24" | "BLK" | "XT"): Address => generator.token(symbol)
  const hubs = makeHubs(hubConfig(token))
  const errors = new Map<string, number>()
  const events = new Map<string, number>()
  let operations = 0
  let messagesToHub = 0

  for (let step = 0; step < STEPS; step++) {
    const ops = step === 0 ? generator.setup() : await generator.next()
    const timestamp = generator.advance()
    for (const op of ops) submitBoth(op)
    operations += ops.length
    const memoryBlocks: MinedSpokeBlock[] = []
    for (const domain of DOMAINS) memoryBlocks.push(await memory.chain(domain).mine(timestamp))
    const anvilBlocks = await Promise.all(DOMAINS.map((domain) => anvil.chain(domain).mine(timestamp)))
    DOMAINS.forEach((domain, d) => {
      compareBlocks(
        domain,
        ops.filter((op) => op.domain === domain),
        memoryBlocks[d]!,
        anvilBlocks[d]!,
      )
      generator.observe(memoryBlocks[d]!)
      for (const receipt of memoryBlocks[d]!.receipts) {
        if (receipt.status === "reverted") errors.set(receipt.error.name, (errors.get(receipt.error.name) ?? 0) + 1)
        for (const event of receipt.events) events.set(event.name, (events.get(event.name) ?? 0) + 1)
      }
    })
    for (const d of DOMAINS.keys()) {
      messagesToHub += feedHub(hubs.memory, memoryBlocks[d]!)
      feedHub(hubs.anvil, anvilBlocks[d]!)
    }
    const outboxes = runHubs(hubs, generator.rng, step + 1, Number(timestamp))
    expect(outboxes.anvil, `hub settlement batches after block ${step}\n${replayHint}`).toEqual(outboxes.memory)
    for (const message of outboxes.memory) {
      generator.pending.push({ destination: message.destination, messageId: message.messageId, message: encodeSettlementMessage(message.settlements) })
    }
  }

  // Final state, domain by domain.
  for (const domain of DOMAINS) {
    const m = memory.chain(domain)
    const a = anvil.chain(domain)
    const { addresses } = m
    const holders: Address[] = [
      ...Object.values(ROLE),
      CAROL,
      NO_CODE,
      ZERO_ADDRESS,
      addresses.spoke,
      addresses.feeAdapter,
      addresses.xerc20Module,
      addresses.gateway,
      addresses.callTarget!,
    ]
    const tokens = TOKENS.map((spec) => addresses.tokens[spec.symbol]!.address)
    const reads: { readonly what: string; readonly memory: () => Promise<unknown>; readonly anvil: () => Promise<unknown> }[] = []
    const read = (what: string, f: (chain: MemorySpokeChain | AnvilSpokeChain) => Promise<unknown>) => reads.push({ what, memory: () => f(m), anvil: () => f(a) })
    for (const t of tokens) {
      read(`totalSupply ${t}`, (c) => c.totalSupply(t))
      for (const h of holders) read(`balance ${t} ${h}`, (c) => c.erc20Balance(t, h))
    }
    for (const asset of [...tokens, NO_CODE]) for (const h of holders) read(`virtual balance ${asset} ${h}`, (c) => c.virtualBalance(asset, h))
    for (const h of holders) read(`mintable XT ${h}`, (c) => c.mintable(h, token("XT")))
    const ids: Bytes32[] = [...generator.intents.keys(), ...generator.extraIds]
    for (const id of ids) read(`status ${id}`, (c) => c.status(id))
    for (const d of [...generator.delivered, ...generator.pending]) read(`delivered ${d.messageId}`, (c) => c.delivered(d.messageId))
    read("intent queue", (c) => c.intentQueue())
    read("fill queue length", (c) => c.fillQueueLength())
    read("nonce", (c) => c.nonce())
    read("paused", (c) => c.paused())
    read("xERC20 limits", (c) => c.xerc20Limits(token("XT")))
    read("head", (c) => c.blockNumber())
    const memoryValues = await Promise.all(reads.map((r) => r.memory()))
    const anvilValues = await Promise.all(reads.map((r) => r.anvil()))
    reads.forEach((r, i) => expect(anvilValues[i], `domain ${domain}: ${r.what}`).toEqual(memoryValues[i]))

    const from = BigInt(m.layout.deploymentBlocks) + 1n
    const memoryLog = (await m.events(from)).map(comparableEvent)
    const anvilLog = (await a.events(from)).map(comparableEvent)
    expect(anvilLog.length, `domain ${domain}: events`).toBe(memoryLog.length)
    expect(anvilLog).toEqual(memoryLog)
  }

  expect(hubs.memoryTrace.events).toBeGreaterThan(100)
  expect(hubs.anvilTrace.digest()).toBe(hubs.memoryTrace.digest())

  // Coverage: the run exercised what matters.
  const report = [...errors.entries()].sort().map(([name, n]) => `${name}: ${n}`)
  console.log(`seed ${SEED}: ${operations} operations, ${messagesToHub} messages to the hub, ${hubs.memoryTrace.events} hub events\nreverts:\n  ${report.join("\n  ")}\nevents:\n  ${[...events.entries()].sort().map(([name, n]) => `${name}: ${n}`).join("\n  ")}`)
  expect(operations).toBeGreaterThanOrEqual(500)
  for (const name of [
    "FeeAdapter_InvalidSignature",
    "FeeAdapter_InvalidDeadline",
    "ClearingSpoke_NewIntent_InvalidIntent",
    "ClearingSpoke_FillIntent_InsufficientFunds",
    "ClearingSpoke_FillIntent_IntentExpired",
    "ClearingSpoke_ProcessIntentQueue_NotFound",
    "ClearingSpoke_ProcessQueue_InsufficientFee",
    "SpokeGateway_ReceiveMessage_AlreadyDelivered",
    "ClearingSpoke_Paused",
    "XERC20Module_HandleBurnStrategy_InsufficientBurningLimit",
  ]) {
    expect(errors.get(name) ?? 0, `no ${name} in the run`).toBeGreaterThan(0)
  }
  for (const name of ["IntentAdded", "IntentFilled", "OrderCreated", "Settled", "AssetTransferFailed", "AssetMintFailed", "DebtMinted", "MessageSent", "ExternalCalldataExecuted"]) {
    expect(events.get(name) ?? 0, `no ${name} event in the run`).toBeGreaterThan(0)
  }
}, 600_000)

