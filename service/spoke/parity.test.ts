/**
 * Targeted parity cases found by reviewing `contracts/*.sol` against `memory/*.ts` function by function: each
 * block runs on anvil and in memory and every receipt (status, error, events in log order) must be equal, as in
 * `spoke.differential.test.ts`, whose random operations do not reach these inputs. One anvil chain for the file.
 */
import { encodeAbiParameters, encodeFunctionData, maxUint256 } from "viem"
import { afterAll, beforeAll, expect, test } from "vitest"
import { ChainPool } from "../../sim/chains/index.ts"
import { type Address, addressToBytes32, type Hex } from "../domain/hex.ts"
import type { Intent } from "../domain/protocol.ts"
import {
  type AnvilSpokeChain,
  Call,
  createAnvilSpokes,
  createMemorySpokes,
  type MemorySpokeChain,
  type SpokeCall,
  type SpokesConfig,
  type SpokesShape,
} from "./spoke.ts"
import { TestERC20Abi } from "./abi.ts"
import { comparable, GENESIS, ROLE, spokesConfig } from "./test/differential.ts"

const DOMAIN = 31_001
let pool: ChainPool | undefined
let anvil: SpokesShape<AnvilSpokeChain>
let memory: SpokesShape<MemorySpokeChain>
let now = GENESIS

const config = (): SpokesConfig => {
  const full = spokesConfig()
  return { ...full, chains: full.chains.filter((chain) => chain.domain === DOMAIN) }
}

beforeAll(async () => {
  pool = await ChainPool.start({ chainIds: [DOMAIN], genesisTimestamp: GENESIS, baseFeePerGas: 0n })
  anvil = await createAnvilSpokes(pool, config())
  memory = createMemorySpokes(config())
}, 120_000)

afterAll(async () => {
  await pool?.stop()
})

/** Runs `calls` in one block on both backends; returns the memory receipts after checking anvil's are equal. */
const both = async (calls: readonly { readonly from: Address; readonly call: SpokeCall; readonly value?: bigint }[]) => {
  now += 12n
  for (const c of calls) memory.chain(DOMAIN).submit(c)
  for (const c of calls) anvil.chain(DOMAIN).submit(c)
  const m = await memory.chain(DOMAIN).mine(now)
  const a = await anvil.chain(DOMAIN).mine(now)
  expect(a.receipts.map(comparable)).toEqual(m.receipts.map(comparable))
  return m.receipts
}

const token = (symbol: string): Address => memory.chain(DOMAIN).addresses.tokens[symbol]!.address

const intentTo = (p: { outputAsset: Address; amount: bigint; maxFee: number; nonce: bigint }): Intent => ({
  initiator: addressToBytes32(ROLE.alice),
  receiver: addressToBytes32(ROLE.bob),
  inputAsset: addressToBytes32(token("USDC")),
  outputAsset: addressToBytes32(p.outputAsset),
  maxFee: p.maxFee,
  origin: 31_002,
  nonce: p.nonce,
  timestamp: Number(now),
  ttl: 3_600,
  amount: p.amount,
  destinations: [DOMAIN],
  data: "0x",
})

test("fillIntent with a fee above 100 % (allowed by an intent's maxFee over 100_000) panics 0x11 on the subtraction", async () => {
  const usdc = token("USDC")
  const spoke = memory.chain(DOMAIN).addresses.spoke
  await both([
    { from: ROLE.solver1, call: Call.erc20.approve(usdc, spoke, maxUint256) },
    { from: ROLE.solver1, call: Call.spoke.deposit(usdc, 1_000_000_000n) },
  ])
  const receipts = await both([
    // 150 %: amountOut * fee / 100_000 > amountOut, so `amountOut - ...` underflows.
    { from: ROLE.solver1, call: Call.spoke.fillIntent(intentTo({ outputAsset: usdc, amount: 10n ** 20n, maxFee: 200_000, nonce: 1n }), 150_000) },
    // Exactly 100 %: the receiver gets nothing, no transfer.
    { from: ROLE.solver1, call: Call.spoke.fillIntent(intentTo({ outputAsset: usdc, amount: 10n ** 20n, maxFee: 100_000, nonce: 2n }), 100_000) },
    // One unit of output at 150 %: 1 - 1 = 0, no underflow.
    { from: ROLE.solver1, call: Call.spoke.fillIntent(intentTo({ outputAsset: usdc, amount: 10n ** 12n, maxFee: 16_777_215, nonce: 3n }), 150_000) },
    // Two units at 200 %: 2 - 4 underflows.
    { from: ROLE.solver1, call: Call.spoke.fillIntent(intentTo({ outputAsset: usdc, amount: 2n * 10n ** 12n, maxFee: 16_777_215, nonce: 4n }), 200_000) },
  ])
  expect(receipts.map((r) => (r.status === "reverted" ? `${r.error.name}(${r.error.args.join(",")})` : r.status))).toEqual([
    "Panic(17)",
    "success",
    "success",
    "Panic(17)",
  ])
  expect(await memory.chain(DOMAIN).virtualBalance(usdc, ROLE.solver1)).toBe(await anvil.chain(DOMAIN).virtualBalance(usdc, ROLE.solver1))
  expect(await memory.chain(DOMAIN).erc20Balance(usdc, ROLE.bob)).toBe(await anvil.chain(DOMAIN).erc20Balance(usdc, ROLE.bob))
}, 60_000)

test("intent calldata to a token with a selector no token function has (or under 4 bytes) fails the call, as the token has no fallback", async () => {
  const usdc = token("USDC")
  const calldataTo = (target: Address, callData: Hex): Hex => encodeAbiParameters([{ type: "address" }, { type: "bytes" }], [target, callData])
  const withData = (nonce: bigint, data: Hex): Intent => ({ ...intentTo({ outputAsset: usdc, amount: 10n ** 18n, maxFee: 0, nonce }), data })
  const receipts = await both([
    { from: ROLE.solver1, call: Call.spoke.fillIntent(withData(11n, calldataTo(usdc, "0xdeadbeef")), 0) },
    { from: ROLE.solver1, call: Call.spoke.fillIntent(withData(12n, calldataTo(usdc, "0x")), 0) },
    { from: ROLE.solver1, call: Call.spoke.fillIntent(withData(13n, calldataTo(token("XT"), "0x1234")), 0) },
    { from: ROLE.solver1, call: Call.spoke.fillIntent(withData(14n, calldataTo(token("BLK"), "0xdeadbeef0000")), 0) },
    // A function the token has: the twin runs it (balanceOf), as before.
    { from: ROLE.solver1, call: Call.spoke.fillIntent(withData(15n, calldataTo(usdc, encodeFunctionData({ abi: TestERC20Abi, functionName: "balanceOf", args: [ROLE.bob] }))), 0) },
  ])
  expect(receipts.map((r) => (r.status === "reverted" ? r.error.name : r.status))).toEqual([
    "ClearingSpoke_ExecuteIntentCalldata_ExternalCallFailed",
    "ClearingSpoke_ExecuteIntentCalldata_ExternalCallFailed",
    "ClearingSpoke_ExecuteIntentCalldata_ExternalCallFailed",
    "ClearingSpoke_ExecuteIntentCalldata_ExternalCallFailed",
    "success",
  ])
}, 60_000)
