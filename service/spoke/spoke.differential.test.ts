/**
 * Differential test: the memory twin against the contracts on anvil. Several hundred seeded random operations
 * (valid and invalid) run on both backends block by block; every receipt (status, error name and args, decoded
 * events in order), the final balances, statuses, queues, debts and limits, the full event logs and the outbound
 * messages must be identical, and two hub engines fed with each backend's INTENT/FILL messages must end with the
 * same trace hash. Native ETH too: anvil runs with a zero base fee (gas costs nothing), so every account's and
 * contract's ETH change on anvil must equal the memory backend's native ledger (values paid, fees forwarded, the
 * gateway's quote kept and the overpayment refunded to tx.origin).
 * Replay a seed: `DIFF_SEED=7 npx vitest run service/spoke/spoke.differential.test.ts`.
 */
import type { Abi } from "viem"
import { afterAll, beforeAll, expect, test } from "vitest"
import { ChainPool } from "../../sim/chains/index.ts"
import { encodeSettlementMessage } from "../domain/encoding.ts"
import { type Address, type Bytes32, ZERO_ADDRESS } from "../domain/hex.ts"
import { Strategy } from "../domain/protocol.ts"
import { ClearingSpokeAbi, FeeAdapterAbi, Permit2Abi, SpokeGatewayAbi } from "./abi.ts"
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
  malformedHubMessages,
  TOKENS,
} from "./test/differential.ts"

const SEED = Number(process.env.DIFF_SEED ?? 20_261_122)
const STEPS = Number(process.env.DIFF_STEPS ?? 45)

let pool: ChainPool | undefined
let anvil: SpokesShape<AnvilSpokeChain>
let memory: SpokesShape<MemorySpokeChain>

/** Every address whose token, virtual and native balances are compared at the end. */
const holdersOf = (addresses: MemorySpokeChain["addresses"]): Address[] => [
  ...Object.values(ROLE),
  CAROL,
  NO_CODE,
  ZERO_ADDRESS,
  addresses.spoke,
  addresses.feeAdapter,
  addresses.xerc20Module,
  addresses.gateway,
  addresses.callTarget!,
  addresses.permit2,
]

/** A view call on anvil; addresses come back lowercase (as the memory backend keeps them). */
const onAnvil = async (chain: AnvilSpokeChain, address: Address, abi: Abi, functionName: string, args: readonly unknown[] = []): Promise<unknown> => {
  const value = await chain.chain.publicClient.readContract({ address, abi, functionName, args })
  return typeof value === "string" ? value.toLowerCase() : value
}

/** Anvil's ETH balances after deployment, by domain and address: the native ledger's zero. */
const ethBaseline = new Map<number, Map<Address, bigint>>()

beforeAll(async () => {
  // A zero base fee (and the sender's zero priority fee) makes gas free, so ETH moves only with call values.
  pool = await ChainPool.start({ chainIds: DOMAINS, genesisTimestamp: GENESIS, baseFeePerGas: 0n })
  anvil = await createAnvilSpokes(pool, spokesConfig())
  memory = createMemorySpokes(spokesConfig())
  for (const domain of DOMAINS) {
    const a = anvil.chain(domain)
    const holders = holdersOf(a.addresses)
    const balances = await Promise.all(holders.map((address) => a.chain.publicClient.getBalance({ address })))
    ethBaseline.set(domain, new Map(holders.map((h, i) => [h, balances[i]!])))
  }
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
  /** Successes and reverts (by error name) per operation label. */
  const outcomes = new Map<string, Map<string, number>>()
  let plainTokenMintFailures = 0
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
      const domainOps = ops.filter((op) => op.domain === domain)
      compareBlocks(domain, domainOps, memoryBlocks[d]!, anvilBlocks[d]!)
      generator.observe(memoryBlocks[d]!, domainOps)
      memoryBlocks[d]!.receipts.forEach((receipt, i) => {
        const outcome = receipt.status === "reverted" ? receipt.error.name : "success"
        if (receipt.status === "reverted") errors.set(receipt.error.name, (errors.get(receipt.error.name) ?? 0) + 1)
        // Labels without ids and fees, so that the report groups them.
        const label = (domainOps[i]?.label ?? "?").replace(/0x[0-9a-f]{8}\b/g, "0x…").replace(/ fee \d+$/, "")
        const byOutcome = outcomes.get(label) ?? new Map<string, number>()
        byOutcome.set(outcome, (byOutcome.get(outcome) ?? 0) + 1)
        outcomes.set(label, byOutcome)
        for (const event of receipt.events) {
          events.set(event.name, (events.get(event.name) ?? 0) + 1)
          if (event.name === "HandleMintStrategyFailed" && event.asset !== token("XT")) plainTokenMintFailures++
        }
      })
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
    const holders = holdersOf(addresses)
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
    // Native ETH: the change since deployment (memory's ledger; anvil's balance minus its baseline).
    for (const h of holders) {
      reads.push({ what: `ETH change of ${h}`, memory: async () => m.world.nativeOf(h), anvil: async () => (await a.chain.publicClient.getBalance({ address: h })) - ethBaseline.get(domain)!.get(h)! })
    }
    read("gateway fees collected", (c) => (c === m ? Promise.resolve(m.world.gateway.nativeBalance) : a.chain.publicClient.getBalance({ address: addresses.gateway })))
    // Configuration the run changes and restores.
    const w = m.world
    const config = async (c: MemorySpokeChain | AnvilSpokeChain) =>
      c === m
        ? {
            feeSigner: w.feeAdapter.feeSigner,
            lighthouse: w.spoke.lighthouse,
            watchtower: w.spoke.watchtower,
            hubDomain: w.spoke.hubDomain,
            gateway: w.spoke.gateway,
            relayer: w.gateway.relayer,
            module: w.spoke.modules.get(Strategy.XERC20) ?? ZERO_ADDRESS,
            strategies: tokens.map((t) => w.spoke.strategies.get(t) ?? Strategy.DEFAULT),
          }
        : {
            feeSigner: await onAnvil(a, addresses.feeAdapter, FeeAdapterAbi, "feeSigner"),
            lighthouse: await onAnvil(a, addresses.spoke, ClearingSpokeAbi, "lighthouse"),
            watchtower: await onAnvil(a, addresses.spoke, ClearingSpokeAbi, "watchtower"),
            hubDomain: await onAnvil(a, addresses.spoke, ClearingSpokeAbi, "hubDomain"),
            gateway: await onAnvil(a, addresses.spoke, ClearingSpokeAbi, "gateway"),
            relayer: await onAnvil(a, addresses.gateway, SpokeGatewayAbi, "relayer"),
            module: await onAnvil(a, addresses.spoke, ClearingSpokeAbi, "modules", [Strategy.XERC20]),
            strategies: await Promise.all(tokens.map((t) => onAnvil(a, addresses.spoke, ClearingSpokeAbi, "strategies", [t]))),
          }
    read("configuration", config)
    // Permit2's nonce bitmaps: the words the run's nonces and invalidations use.
    for (const owner of [ROLE.alice, ROLE.bob]) {
      for (const word of [0n, 1n, 2n ** 192n, 2n ** 184n]) {
        reads.push({
          what: `Permit2 nonceBitmap ${owner} word ${word}`,
          memory: async () => m.world.permit2.bitmapWord(owner, word),
          anvil: () => onAnvil(a, addresses.permit2, Permit2Abi, "nonceBitmap", [owner, word]),
        })
      }
    }
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
  const labels = [...outcomes.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([label, byOutcome]) => `${label}: ${[...byOutcome.entries()].map(([o, n]) => `${o} ${n}`).join(", ")}`)
  console.log(`seed ${SEED}: ${operations} operations, ${messagesToHub} messages to the hub, ${hubs.memoryTrace.events} hub events\nreverts:\n  ${report.join("\n  ")}\nevents:\n  ${[...events.entries()].sort().map(([name, n]) => `${name}: ${n}`).join("\n  ")}\noperations:\n  ${labels.join("\n  ")}`)
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

  // Configuration paths: owner setters (changed to other values, and back), their non-owner reverts, a spoke
  // whose gateway, relayer, module or strategies changed, VAR_UPDATEs of every variable, unsupported intents.
  for (const name of [
    "ClearingSpoke_StrategyModuleNotSet",
    "ClearingSpoke_ReceiveMessage_NotAuthorized",
    "SpokeGateway_ReceiveMessage_NotRelayer",
    "ClearingSpoke_NotOwner",
    "SpokeGateway_NotOwner",
    "FeeAdapter_NotOwner",
    "ClearingSpoke_Withdraw_InsufficientBalance",
  ]) {
    expect(errors.get(name) ?? 0, `no ${name} in the run`).toBeGreaterThan(0)
  }
  for (const name of ["FeeSignerUpdated", "GatewayUpdated", "LighthouseUpdated", "WatchtowerUpdated", "HubDomainUpdated", "StrategySetForAsset", "ModuleSetForStrategy", "RelayerUpdated"]) {
    expect(events.get(name) ?? 0, `no ${name} event in the run`).toBeGreaterThan(0)
  }
  const count = (match: (label: string) => boolean, outcome: string): number =>
    [...outcomes.entries()].filter(([label]) => match(label)).reduce((sum, [, byOutcome]) => sum + (byOutcome.get(outcome) ?? 0), 0)
  const expectOutcome = (label: string | RegExp, outcome: string): void => {
    const match = typeof label === "string" ? (l: string) => l === label : (l: string) => label.test(l)
    expect(count(match, outcome), `no "${String(label)}" with outcome ${outcome}`).toBeGreaterThan(0)
  }
  for (const label of ["fee signer to alice", "restore fee signer", "lighthouse to bob", "watchtower to carol", "restore lighthouse", "restore watchtower"]) expectOutcome(label, "success")
  expectOutcome("intent signed by the former fee signer", "FeeAdapter_InvalidSignature")
  expectOutcome("intent signed by the new fee signer", "success")
  expectOutcome("unpause by the former lighthouse", "ClearingSpoke_Pause_NotAuthorized")
  expectOutcome("unpause by the new lighthouse", "success")
  expectOutcome(/^(lighthouse VAR_UPDATE to bob|watchtower VAR_UPDATE to alice)$/, "success")
  for (const label of ["hub domain changed", "restore hub domain"]) expectOutcome(label, "success")
  // A GATEWAY VAR_UPDATE to another address: the spoke refuses the gateway until the owner restores it.
  for (const label of ["GATEWAY VAR_UPDATE to another address", "restore spoke gateway"]) expectOutcome(label, "success")
  expectOutcome("settlement through a replaced gateway", "ClearingSpoke_ReceiveMessage_NotAuthorized")
  for (const label of ["relayer to alice", "settlement by the new relayer", "restore relayer"]) expectOutcome(label, "success")
  expectOutcome("settlement by the former relayer", "SpokeGateway_ReceiveMessage_NotRelayer")
  // The xERC20 strategy on a plain token: the module cannot burn it (no limits: a revert without data), and
  // settlements record a debt instead of minting it.
  expectOutcome("xERC20 strategy on a plain token", "success")
  expectOutcome(/^(USDC|WETH) intent with the xERC20 strategy$/, "Revert")
  expect(plainTokenMintFailures, "no settlement minting a plain token").toBeGreaterThan(0)
  expectOutcome("default strategy on XT", "success")
  expectOutcome("XT intent with the default strategy", "success")
  // No xERC20 module: intents and settlements of XT revert StrategyModuleNotSet.
  for (const label of ["xERC20 module unset", "restore xERC20 module"]) expectOutcome(label, "success")
  expectOutcome(/^XT (intent|settlement) \(xERC20 module unset\)$/, "ClearingSpoke_StrategyModuleNotSet")
  expectOutcome(/^returnUnsupportedIntent .* \(valid\)$/, "success")
  expectOutcome(/^VAR_UPDATE with an? (20-byte|31-byte|empty) value$/, "Revert")
  // Overpaid dispatches that went through: the gateway refunded the rest to tx.origin (the ETH comparison above).
  expectOutcome(/overpaid/, "success")
  // The owner hands hub messages to the spoke while it is paused; the gateway cannot, strangers never can.
  expectOutcome("pause before the owner's delivery", "success")
  expectOutcome("settlement through the gateway while paused", "ClearingSpoke_Paused")
  expectOutcome("owner's settlement while paused", "success")
  expectOutcome("receiveMessage on the spoke by a stranger", "ClearingSpoke_ReceiveMessage_NotAuthorized")
  // MAILBOX VAR_UPDATEs replace the gateway's relayer (its mailbox).
  expectOutcome(/^(owner's )?MAILBOX VAR_UPDATE$/, "success")
  expectOutcome("settlement by the former mailbox", "SpokeGateway_ReceiveMessage_NotRelayer")
  expectOutcome("settlement by the new mailbox", "success")
  // Malformed payloads: the same revert (without data, or Panic(0x41) for an allocation too large) on both.
  for (const [label] of malformedHubMessages()) expectOutcome(`malformed: ${label}`, label.endsWith("(panic)") ? "Panic" : "Revert")
  // Fee signatures are checked as OpenZeppelin's ECDSA.recover does: v must be 27 or 28.
  expectOutcome("intent with a v01 signature", "ECDSAInvalidSignature")
  expectOutcome("intent with a zeroR signature", "ECDSAInvalidSignature")
  expectOutcome("intent with a short signature", "ECDSAInvalidSignatureLength")
  expectOutcome("intent with a highS signature", "ECDSAInvalidSignatureS")
  expectOutcome("intent with a wrongKey signature", "FeeAdapter_InvalidSignature")
  // Permit2: both overloads and direct transfers, good and bad.
  expectOutcome(/^permit2 adapter intent \S+ \(valid\)$/, "success")
  expectOutcome("permit2 adapter intent (reused nonce)", "InvalidNonce")
  expectOutcome("permit2 adapter intent (expired)", "SignatureExpired")
  expectOutcome("permit2 adapter intent (wrong signer)", "InvalidSigner")
  expectOutcome("permit2 adapter intent (permit without the fee)", "InvalidSigner")
  expectOutcome("permit2 adapter intent (Permit2 not approved)", "ERC20_InsufficientAllowance")
  expectOutcome(/^permit2 spoke intent USDC \(valid\)$/, "success")
  expectOutcome("permit2 spoke intent XT (valid)", "success")
  expectOutcome("permit2 spoke intent (expired)", "SignatureExpired")
  // The pull comes before the intent checks (as the production spoke): Permit2's error wins over the intent's.
  expectOutcome("permit2 spoke intent (invalid intent, expired permit)", "SignatureExpired")
  expectOutcome("permit2 spoke intent (invalid intent, good permit)", "ClearingSpoke_NewIntent_InvalidIntent")
  expectOutcome("permit2 transfer (over the permitted amount)", "InvalidAmount")
  expectOutcome("permit2 transfer (another spender)", "InvalidSigner")
  expectOutcome("permit2 transfer (v = 0)", "InvalidSignature")
  expectOutcome("permit2 transfer (63-byte signature)", "InvalidSignatureLength")
  expectOutcome("permit2 transfer (compact signature)", "success")
  expectOutcome("permit2 transfer (65-byte signature)", "success")
  expectOutcome("permit2 invalidateUnorderedNonces", "success")
  expectOutcome("permit2 transfer (invalidated nonce)", "InvalidNonce")
  // xERC20 limits: above type(uint256).max / 2 refused, at it accepted (and the refill does not overflow).
  expectOutcome(/^xERC20 (minting|burning) limit above the maximum$/, "XERC20Token_LimitsTooHigh")
  expectOutcome("xERC20 limits at the maximum", "success")
  expectOutcome("restore xERC20 limits", "success")
}, 600_000)

