/**
 * The memory backend on its own (no anvil; `spoke.differential.test.ts` compares it with the contracts): reverts
 * change nothing, tolerated inner failures are undone, fee signatures are recovered once, blocks are atomic,
 * time never goes back, and the `Spokes` layer is a thin wrapper.
 */
import * as Effect from "effect/Effect"
import { decodeAbiParameters, encodeAbiParameters, encodeFunctionData, keccak256, maxUint256, zeroAddress } from "viem"
import { describe, expect, test } from "vitest"
import { encodeIntentMessage, encodeSettlementMessage, intentId } from "../domain/encoding.ts"
import { type Address, addressToBytes32, type Hex } from "../domain/hex.ts"
import { keccak256Utf8 } from "../domain/keccak.ts"
import { IdMap } from "../domain/idMap.ts"
import { IntentStatus } from "../domain/protocol.ts"
import { ClearingSpokeAbi, TestCallTargetAbi } from "./abi.ts"
import { MAX_XERC20_LIMIT, XERC20LimitTooHighError } from "./deploy.ts"
import {
  Call,
  createMemorySpokes,
  eventsNamed,
  type FeeParams,
  type MemorySpokeChain,
  SpokeTimestampError,
  Spokes,
  type SpokesConfig,
  UnsupportedMemoryCallError,
  UnverifiedFeeSignatureError,
} from "./spoke.ts"
import { Journal } from "./memory/journal.ts"
import { ALICE, BOB, config, DOMAIN, feeSigner, HUB, owner, relayer, T0 } from "./test/memoryWorld.ts"

const setup = async (): Promise<{ chain: MemorySpokeChain; usdc: Address; fee: (fee: bigint, deadline?: bigint) => Promise<FeeParams> }> => {
  const chain = createMemorySpokes(config).chain(DOMAIN)
  const usdc = chain.addresses.tokens.USDC!.address
  for (const user of [ALICE, BOB]) chain.submit({ from: user, call: Call.erc20.approve(usdc, chain.addresses.feeAdapter, maxUint256) })
  await chain.mine(T0 + 1n)
  const fee = async (amount: bigint, deadline = T0 + 86_400n): Promise<FeeParams> => ({
    fee: amount,
    deadline,
    sig: await feeSigner.signMessage({
      message: { raw: keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }, { type: "address" }, { type: "uint256" }], [amount, 0n, usdc, deadline])) },
    }),
  })
  return { chain, usdc, fee }
}

const intentParams = (usdc: Address) => ({ destinations: [10], receiver: ALICE, inputAsset: usdc, outputAsset: zeroAddress, amount: 10_000_000n })

/** Everything a call could have changed, as plain data. */
const snapshot = (chain: MemorySpokeChain, usdc: Address) => ({
  balances: [ALICE, BOB, chain.addresses.feeAdapter, chain.addresses.spoke, owner.address].map((a) => chain.read.erc20Balance(usdc, a as Address)),
  allowances: chain.read.allowance(usdc, chain.addresses.feeAdapter, chain.addresses.spoke),
  nonce: chain.read.nonce(),
  queue: chain.read.intentQueue(),
  supply: chain.read.totalSupply(usdc),
})

describe("memory spoke", () => {
  test("value sent with a token call: an address without code takes it, a contract's non-payable function refuses it", async () => {
    const { chain, usdc } = await setup()
    const noCode = "0x000000000000000000000000000000000000dead" as Address
    chain.submit({ from: ALICE, call: Call.erc20.transfer(noCode, BOB, 1n), value: 1n })
    chain.submit({ from: ALICE, call: Call.erc20.transfer(usdc, BOB, 1n), value: 1n })
    // Permit2's transfer names a token without code, but is sent to Permit2, which takes no value.
    const permit = { token: noCode, amount: 1n, nonce: 1n, deadline: 2n ** 40n, to: BOB, requestedAmount: 1n, owner: ALICE, signature: `0x${"11".repeat(65)}` as Hex }
    chain.submit({ from: ALICE, call: Call.permit2.permitTransferFrom(permit), value: 1n })
    const { receipts } = await chain.mine(T0 + 12n)
    expect(receipts.map((r) => r.status)).toEqual(["success", "reverted", "reverted"])
    expect([chain.world.nativeOf(ALICE.toLowerCase() as Address), chain.world.nativeOf(noCode)]).toEqual([-1n, 1n])
  })

  test("a call that reverts late (second intent of an order) changes nothing", async () => {
    const { chain, usdc, fee } = await setup()
    const before = snapshot(chain, usdc)
    const feeParams = await fee(1_000n)
    chain.submit({ from: ALICE, call: Call.feeAdapter.newOrder(feeParams, [intentParams(usdc), { ...intentParams(usdc), maxFee: 100_001 }]) })
    const block = await chain.mine(T0 + 12n)
    expect(block.receipts[0]).toMatchObject({ status: "reverted", error: { name: "ClearingSpoke_NewIntent_MaxFeeExceeded", args: [100_001, 100_000] }, events: [] })
    expect(snapshot(chain, usdc)).toEqual(before)
    expect(await chain.events(block.blockNumber)).toEqual([])
  })

  test("a failed settlement transfer is undone and credited, and the batch goes on", async () => {
    const { chain, usdc } = await setup()
    const too_much = addressToBytes32(usdc)
    const settlements = [
      // The spoke holds no USDC: the transfer fails, the recipient gets a virtual balance instead.
      { intentId: keccak256Utf8("a"), amount: 5n * 10n ** 18n, asset: too_much, recipient: addressToBytes32(BOB), updateVirtualBalance: false },
      { intentId: keccak256Utf8("b"), amount: 7n * 10n ** 18n + 1n, asset: too_much, recipient: addressToBytes32(ALICE), updateVirtualBalance: true },
    ]
    chain.submit({ from: relayer.address, call: Call.gateway.receiveMessage(HUB, keccak256Utf8("m"), encodeSettlementMessage(settlements)) })
    const [receipt] = (await chain.mine(T0 + 12n)).receipts
    expect(receipt?.status).toBe("success")
    expect(receipt?.events.map((e) => e.name)).toEqual(["AssetTransferFailed", "Settled", "Settled", "MessageReceived"])
    expect(chain.read.virtualBalance(usdc, BOB)).toBe(5_000_000n)
    expect(chain.read.virtualBalance(usdc, ALICE)).toBe(7_000_000n) // 18 -> 6 decimals truncates the extra wei
    expect(chain.read.status(keccak256Utf8("a"))).toBe(IntentStatus.SETTLED)
  })

  test("a repeated settlement leaves the status and balances as they were, also in the same batch", async () => {
    const { chain, usdc } = await setup()
    const word = addressToBytes32(usdc)
    const once = { intentId: keccak256Utf8("r"), amount: 3n * 10n ** 18n, asset: word, recipient: addressToBytes32(BOB), updateVirtualBalance: true }
    // The same intent twice in one batch, then again in a later message: one Settled, one credit.
    chain.submit({ from: relayer.address, call: Call.gateway.receiveMessage(HUB, keccak256Utf8("m1"), encodeSettlementMessage([once, { ...once, amount: 10n ** 18n }])) })
    chain.submit({ from: relayer.address, call: Call.gateway.receiveMessage(HUB, keccak256Utf8("m2"), encodeSettlementMessage([once])) })
    const block = await chain.mine(T0 + 12n)
    expect(block.receipts.map((r) => r.status)).toEqual(["success", "success"])
    expect(block.receipts.map((r) => eventsNamed(r.events, "Settled").length)).toEqual([1, 0])
    expect(chain.read.virtualBalance(usdc, BOB)).toBe(3_000_000n)
    expect(chain.read.status(keccak256Utf8("r"))).toBe(IntentStatus.SETTLED)
  })

  test("Journal.swap and set on an IdMap record the previous entry; rollback restores them newest first", () => {
    const journal = new Journal()
    const map = new IdMap<number>()
    map.set("a", 5)
    const mark = journal.mark()
    expect(journal.swap(map, "a", 7)).toBe(5)
    journal.replace(map, "a", 7, 3) // a third value: only newest-first ends at 5 (oldest-first would end at 7)
    expect(map.get("a")).toBe(3)
    expect(journal.swap(map, "b", 1)).toBeUndefined()
    journal.set(map, "c", 2)
    journal.set(map, "a", 9)
    expect([map.get("a"), map.get("b"), map.get("c")]).toEqual([9, 1, 2])
    journal.rollback(mark)
    expect([...map]).toEqual([["a", 5]])
  })

  for (const prior of [IntentStatus.SETTLED, IntentStatus.SETTLED_AND_MANUALLY_EXECUTED]) {
    test(`a repeated settlement of an intent in status ${prior} keeps it, also when its message reverts`, async () => {
      const { chain, usdc } = await setup()
      const r = keccak256Utf8("r")
      const spoke = chain.world.spokeAt(chain.addresses.spoke)
      spoke.status.set(r, prior) // as a settled (or settled and executed) intent has it
      const once = { intentId: r, amount: 10n ** 18n, asset: addressToBytes32(usdc), recipient: addressToBytes32(BOB), updateVirtualBalance: true }
      // Two settlements whose virtual credits overflow: the whole message reverts after the repeated one.
      const unknownAsset = addressToBytes32("0x00000000000000000000000000000000000000ee")
      const huge = (label: string) => ({ intentId: keccak256Utf8(label), amount: maxUint256, asset: unknownAsset, recipient: addressToBytes32(ALICE), updateVirtualBalance: true })
      chain.submit({ from: relayer.address, call: Call.gateway.receiveMessage(HUB, keccak256Utf8("m1"), encodeSettlementMessage([once, huge("x1"), huge("x2")])) })
      chain.submit({ from: relayer.address, call: Call.gateway.receiveMessage(HUB, keccak256Utf8("m2"), encodeSettlementMessage([once])) })
      const block = await chain.mine(T0 + 12n)
      expect(block.receipts.map((receipt) => receipt.status)).toEqual(["reverted", "success"])
      expect(eventsNamed(block.receipts[1]!.events, "Settled")).toEqual([])
      expect(chain.read.status(r)).toBe(prior)
      expect(chain.read.status(keccak256Utf8("x1"))).toBe(IntentStatus.NONE)
      expect([...spoke.status.keys()]).toEqual([r])
      expect(chain.read.virtualBalance(usdc, BOB)).toBe(0n)
    })
  }

  test("a fee signature is recovered once and then read from the cache", async () => {
    const { chain, usdc, fee } = await setup()
    const feeParams = await fee(1_000n)
    for (let i = 0; i < 200; i++) {
      chain.submit({ from: i % 2 === 0 ? ALICE : BOB, call: Call.feeAdapter.newIntent({ ...intentParams(usdc), amount: 1_000_000n, feeParams }) })
    }
    const block = await chain.mine(T0 + 12n)
    expect(block.receipts.every((r) => r.status === "success")).toBe(true)
    expect(chain.world.signatures.size).toBe(1)
    // Known signature: mineSync needs no recovery.
    chain.submit({ from: ALICE, call: Call.feeAdapter.newIntent({ ...intentParams(usdc), feeParams }) })
    expect(chain.mineSync(T0 + 24n).receipts[0]?.status).toBe("success")
    expect(chain.read.nonce()).toBe(201n)
  })

  test("mineSync with an unrecovered signature mines nothing and keeps the queue; mine then succeeds", async () => {
    const { chain, usdc, fee } = await setup()
    chain.submit({ from: BOB, call: Call.erc20.transfer(usdc, ALICE, 1n) })
    chain.submit({ from: ALICE, call: Call.feeAdapter.newIntent({ ...intentParams(usdc), feeParams: await fee(2_000n) }) })
    const before = { ...snapshot(chain, usdc), head: chain.read.blockNumber(), pending: chain.pending }
    expect(() => chain.mineSync(T0 + 12n)).toThrowError(UnverifiedFeeSignatureError)
    expect({ ...snapshot(chain, usdc), head: chain.read.blockNumber(), pending: chain.pending }).toEqual(before)
    const block = await chain.mine(T0 + 12n)
    expect(block.receipts.map((r) => r.status)).toEqual(["success", "success"])
  })

  test("xERC20 limits above type(uint256).max / 2 are refused: at planning time, and by setLimits", async () => {
    const tooHigh = (limit: "mintingLimit" | "burningLimit"): SpokesConfig => ({
      ...config,
      chains: [{ ...config.chains[0]!, tokens: [{ symbol: "XT", decimals: 18, kind: "xerc20", [limit]: MAX_XERC20_LIMIT + 1n }] }],
    })
    expect(() => createMemorySpokes(tooHigh("mintingLimit"))).toThrow(XERC20LimitTooHighError)
    expect(() => createMemorySpokes(tooHigh("burningLimit"))).toThrow(/burningLimit .* is above the xERC20 maximum/)
    const { chain } = await setup()
    const xt = chain.addresses.tokens.XT!.address
    chain.submit({ from: owner.address, call: Call.xerc20.setLimits(xt, BOB, MAX_XERC20_LIMIT + 1n, 0n) })
    chain.submit({ from: owner.address, call: Call.xerc20.setLimits(xt, BOB, MAX_XERC20_LIMIT, MAX_XERC20_LIMIT) })
    const block = await chain.mine(T0 + 12n)
    expect(block.receipts.map((r) => (r.status === "reverted" ? r.error.name : r.status))).toEqual(["XERC20Token_LimitsTooHigh", "success"])
  })

  test("an expired deadline and a malformed signature revert like the contract", async () => {
    const { chain, usdc, fee } = await setup()
    const expired = await fee(1_000n, T0 + 5n)
    chain.submit({ from: ALICE, call: Call.feeAdapter.newIntent({ ...intentParams(usdc), feeParams: expired }) })
    chain.submit({ from: ALICE, call: Call.feeAdapter.newIntent({ ...intentParams(usdc), feeParams: { ...expired, sig: expired.sig.slice(0, 20) as Hex } }) })
    // v as 0/1: not normalized (OpenZeppelin's ECDSA.recover), so nothing is recovered.
    const v = Number.parseInt(expired.sig.slice(130), 16)
    chain.submit({ from: ALICE, call: Call.feeAdapter.newIntent({ ...intentParams(usdc), feeParams: { ...expired, sig: `${expired.sig.slice(0, 130)}0${v - 27}` as Hex } }) })
    chain.submit({ from: ALICE, call: Call.feeAdapter.newIntent({ ...intentParams(usdc), feeParams: { ...expired, fee: 1n } }) })
    const block = await chain.mine(T0 + 12n)
    expect(block.receipts.map((r) => (r.status === "reverted" ? r.error.name : r.status))).toEqual([
      "FeeAdapter_InvalidDeadline",
      "ECDSAInvalidSignatureLength",
      "ECDSAInvalidSignature",
      "FeeAdapter_InvalidSignature",
    ])
    expect(block.receipts[1]).toMatchObject({ error: { args: [9n] } })
  })

  test("the keeper may pass back the queued intent objects or equal copies", async () => {
    const { chain, usdc, fee } = await setup()
    const feeParams = await fee(0n)
    expect(chain.read.intentQueueLength()).toBe(0)
    for (let i = 0; i < 3; i++) chain.submit({ from: ALICE, call: Call.feeAdapter.newIntent({ ...intentParams(usdc), feeParams }) })
    await chain.mine(T0 + 12n)
    expect(chain.read.intentQueueLength()).toBe(3)
    const [first, second, third] = chain.read.intentQueue().map((q) => q.intent)
    const copies = [first!, { ...second!, destinations: [...second!.destinations] }]
    const message = chain.read.quoteMessage(HUB, "0x")
    chain.submit({ from: BOB, call: Call.spoke.processIntentQueue(copies), value: message * 10n ** 6n })
    chain.submit({ from: BOB, call: Call.spoke.processIntentQueue([{ ...third!, amount: third!.amount + 1n }]), value: 10n ** 18n })
    const block = await chain.mine(T0 + 24n)
    expect(block.receipts[0]?.status).toBe("success")
    expect(block.receipts[1]).toMatchObject({ status: "reverted", error: { name: "ClearingSpoke_ProcessIntentQueue_NotFound" } })
    expect(eventsNamed(block.receipts[0]!.events, "IntentQueueProcessed")[0]).toMatchObject({ firstIdx: 1n, lastIdx: 3n })
    expect(chain.read.intentQueue()).toHaveLength(1)
    expect(chain.read.intentQueueLength()).toBe(1)
  })

  test("an overpaid dispatch: the gateway keeps the quote and refunds the rest to tx.origin; a revert moves no ETH", async () => {
    const { chain, usdc, fee } = await setup()
    const feeParams = await fee(0n)
    chain.submit({ from: ALICE, call: Call.feeAdapter.newIntent({ ...intentParams(usdc), feeParams }) })
    await chain.mine(T0 + 12n)
    const queued = chain.read.intentQueue().map((q) => q.intent)
    const { gateway, spoke } = chain.addresses
    const world = chain.world
    // Too little first (reverts: nothing moves), then the quote plus 7 wei.
    chain.submit({ from: BOB, call: Call.spoke.processFillQueue(1), value: 10n ** 18n })
    chain.submit({ from: BOB, call: Call.spoke.processIntentQueue(queued), value: 1n })
    const block = await chain.mine(T0 + 24n)
    expect(block.receipts.map((r) => r.status)).toEqual(["reverted", "reverted"])
    expect([world.nativeOf(BOB), world.nativeOf(gateway), world.nativeOf(spoke)]).toEqual([0n, 0n, 0n])
    chain.submit({ from: BOB, call: Call.spoke.processIntentQueue(queued), value: 10n ** 18n })
    const [receipt] = (await chain.mine(T0 + 36n)).receipts
    const [processed] = eventsNamed(receipt!.events, "IntentQueueProcessed")
    const [sent] = eventsNamed(receipt!.events, "MessageSent")
    expect(sent!.fee).toBe(processed!.quote)
    expect(world.gateway.nativeBalance).toBe(processed!.quote)
    expect(world.nativeOf(BOB)).toBe(-processed!.quote)
    expect(world.nativeOf(spoke)).toBe(0n)
  })

  test("time never goes back", async () => {
    const { chain } = await setup()
    await chain.mine(T0 + 100n)
    await chain.mine(T0 + 100n) // same timestamp: allowed, as on anvil
    await expect(chain.mine(T0 + 99n)).rejects.toBeInstanceOf(SpokeTimestampError)
  })

  test("a non-payable call with value reverts without data", async () => {
    const { chain, usdc } = await setup()
    chain.submit({ from: ALICE, call: Call.spoke.deposit(usdc, 1n), value: 1n })
    expect((await chain.mine(T0 + 12n)).receipts[0]).toMatchObject({ status: "reverted", error: { name: "Revert", args: [] } })
  })

  test("the Spokes layer serves the memory chains by domain", async () => {
    const program = Effect.gen(function* () {
      const spokes = yield* Spokes
      const chain = spokes.chain(DOMAIN)
      const usdc = chain.addresses.tokens.USDC!.address
      chain.submit({ from: ALICE, call: Call.erc20.transfer(usdc, BOB, 5n) })
      const block = yield* Effect.promise(() => chain.mine(T0 + 12n))
      return { backend: spokes.backend, domains: spokes.domains, status: block.receipts[0]?.status, balance: yield* Effect.promise(() => chain.erc20Balance(usdc, BOB)) }
    })
    const result = await Effect.runPromise(Effect.provide(program, Spokes.memory(config)))
    expect(result).toEqual({ backend: "memory", domains: [DOMAIN], status: "success", balance: 1_000n * 10n ** 6n + 5n })
  })
})

describe("memory spoke: a fill made from within a fill's calldata", () => {
  const setupNested = async () => {
    const chain = createMemorySpokes({ ...config, chains: [{ ...config.chains[0]!, callTarget: true }] }).chain(DOMAIN)
    const usdc = chain.addresses.tokens.USDC!.address
    // The solver (ALICE) keeps 500 USDC on the spoke.
    chain.submit({ from: ALICE, call: Call.erc20.approve(usdc, chain.addresses.spoke, maxUint256) })
    chain.submit({ from: ALICE, call: Call.spoke.deposit(usdc, 500_000_000n) })
    await chain.mine(T0 + 1n)
    const intent = (nonce: bigint, maxFee: number, data: Hex) => ({
      initiator: addressToBytes32(BOB),
      receiver: addressToBytes32(BOB),
      inputAsset: addressToBytes32(`0x${"ab".repeat(20)}`),
      outputAsset: addressToBytes32(usdc),
      maxFee,
      origin: 31_002,
      nonce,
      timestamp: Number(T0),
      ttl: 3_600,
      amount: 100n * 10n ** 18n,
      destinations: [DOMAIN],
      data,
    })
    /** An intent whose calldata has the call target forward `inner` to the spoke. */
    const forwarding = (inner: Hex) =>
      intent(1n, 1_000, encodeAbiParameters([{ type: "address" }, { type: "bytes" }], [chain.addresses.callTarget!, encodeFunctionData({ abi: TestCallTargetAbi, functionName: "forward", args: [chain.addresses.spoke, inner] })]))
    return { chain, intent, forwarding }
  }

  test("forwarded bytes that are no spoke function revert (the fill with them); a spoke getter, not modelled, is an error", async () => {
    const { chain, forwarding } = await setupNested()
    chain.submit({ from: ALICE, call: Call.spoke.fillIntent(forwarding("0xdeadbeef"), 0) })
    const [receipt] = (await chain.mine(T0 + 12n)).receipts
    expect(receipt).toMatchObject({ status: "reverted", error: { name: "ClearingSpoke_ExecuteIntentCalldata_ExternalCallFailed" } })
    const getter = encodeFunctionData({ abi: ClearingSpokeAbi, functionName: "status", args: [keccak256Utf8("x")] })
    chain.submit({ from: ALICE, call: Call.spoke.fillIntent(forwarding(getter), 0) })
    await expect(chain.mine(T0 + 24n)).rejects.toThrow(UnsupportedMemoryCallError)
  })

  test("answers the call target's public getters and refuses a forward whose address word has high bits, as the contract does", async () => {
    const { chain, intent } = await setupNested()
    const target = chain.addresses.callTarget!
    const calling = (nonce: bigint, callData: Hex) => intent(nonce, 1_000, encodeAbiParameters([{ type: "address" }, { type: "bytes" }], [target, callData]))
    chain.submit({ from: ALICE, call: Call.spoke.fillIntent(calling(11n, encodeFunctionData({ abi: TestCallTargetAbi, functionName: "record", args: [7n] })), 0) })
    chain.submit({ from: ALICE, call: Call.spoke.fillIntent(calling(12n, encodeFunctionData({ abi: TestCallTargetAbi, functionName: "lastValue" })), 0) })
    chain.submit({ from: ALICE, call: Call.spoke.fillIntent(calling(13n, encodeFunctionData({ abi: TestCallTargetAbi, functionName: "lastCaller" })), 0) })
    // forward to an address without code: the call succeeds, unless the address word has bits above its 20 bytes.
    const forward = encodeFunctionData({ abi: TestCallTargetAbi, functionName: "forward", args: ["0x000000000000000000000000000000000000dEaD", "0x"] })
    chain.submit({ from: ALICE, call: Call.spoke.fillIntent(calling(14n, forward), 0) })
    chain.submit({ from: ALICE, call: Call.spoke.fillIntent(calling(15n, `${forward.slice(0, 10)}000000000000000000000001${forward.slice(34)}` as Hex), 0) })
    const receipts = (await chain.mine(T0 + 12n)).receipts
    expect(receipts.map((r) => r.status)).toEqual(["success", "success", "success", "success", "reverted"])
    const returned = receipts.slice(1, 3).map((r) => eventsNamed(r.events, "ExternalCalldataExecuted")[0]!.returnData)
    expect(returned).toEqual([`0x${7n.toString(16).padStart(64, "0")}`, addressToBytes32(chain.addresses.spoke)])
    expect(receipts[4]).toMatchObject({ error: { name: "ClearingSpoke_ExecuteIntentCalldata_ExternalCallFailed" } })
  })

  test("refuses a forwarded fillIntent whose uint64 nonce word has bits above 64, as Solidity's decoder does", async () => {
    const { chain, intent, forwarding } = await setupNested()
    const fillInner = encodeFunctionData({ abi: ClearingSpokeAbi, functionName: "fillIntent", args: [intent(78n, 100_000, "0x"), 100_000] })
    // The head (the tuple's offset, the fee), then the tuple: initiator, receiver, input, output, maxFee, origin, nonce.
    const nonceAt = 10 + 2 * 64 + 6 * 64
    const dirty = `${fillInner.slice(0, nonceAt)}1${fillInner.slice(nonceAt + 1)}` as Hex
    chain.submit({ from: ALICE, call: Call.spoke.fillIntent(forwarding(dirty), 0) })
    chain.submit({ from: ALICE, call: Call.spoke.fillIntent({ ...forwarding(fillInner), nonce: 2n }, 0) })
    const receipts = (await chain.mine(T0 + 12n)).receipts
    expect(receipts.map((r) => r.status)).toEqual(["reverted", "success"])
    expect(receipts[0]).toMatchObject({ error: { name: "ClearingSpoke_ExecuteIntentCalldata_ExternalCallFailed" } })
  })

  test("is queued before the outer one, which is queued after its calldata ran (reference §4.3), with the contract's return data", async () => {
    const { chain, intent } = await setupNested()
    const target = chain.addresses.callTarget!
    // The inner intent takes a 100 % fee: its output is 0, so the call target fills it without any balance.
    const inner = intent(77n, 100_000, "0x")
    const fillInner = encodeFunctionData({ abi: ClearingSpokeAbi, functionName: "fillIntent", args: [inner, 100_000] })
    const forward = encodeFunctionData({ abi: TestCallTargetAbi, functionName: "forward", args: [chain.addresses.spoke, fillInner] })
    const outer = intent(1n, 1_000, encodeAbiParameters([{ type: "address" }, { type: "bytes" }], [target, forward]))
    chain.submit({ from: ALICE, call: Call.spoke.fillIntent(outer, 0) })
    const [receipt] = (await chain.mine(T0 + 12n)).receipts
    expect(receipt?.status).toBe("success")
    const filled = eventsNamed(receipt!.events, "IntentFilled")
    expect(filled.map((e) => [e.intentId, e.queueIdx])).toEqual([
      [intentId(inner), 1n],
      [intentId(outer), 2n],
    ])
    // The forwarded call's return data is the inner FillMessage, ABI-encoded as bytes, as on anvil.
    const [executed] = eventsNamed(receipt!.events, "ExternalCalldataExecuted")
    const [bytes] = decodeAbiParameters([{ type: "bytes" }], executed!.returnData)
    const [message] = decodeAbiParameters(
      [{ type: "tuple", components: [{ type: "bytes32" }, { type: "bytes32" }, { type: "bytes32" }, { type: "uint24" }, { type: "uint48" }] }],
      bytes,
    )
    expect(message[0]).toBe(intentId(inner))
    expect(message[1]).toBe(addressToBytes32(target))
  })
})

describe("memory spoke: newIntent and fillIntent boundaries (reference §4.1, §4.3)", () => {
  const reverted = (receipts: readonly { status: string; error?: { name: string } }[]) => receipts.map((r) => (r.status === "reverted" ? r.error!.name : r.status))

  test("newIntent accepts each limit itself and refuses one past it", async () => {
    const { chain, usdc } = await setup()
    chain.submit({ from: ALICE, call: Call.erc20.approve(usdc, chain.addresses.spoke, maxUint256) })
    const base = { ...intentParams(usdc), amount: 1n }
    const calldata = (size: number) => `0x${"00".repeat(size)}` as Hex
    chain.submit({ from: ALICE, call: Call.spoke.newIntent({ ...base, destinations: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] }) })
    chain.submit({ from: ALICE, call: Call.spoke.newIntent({ ...base, destinations: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11] }) })
    chain.submit({ from: ALICE, call: Call.spoke.newIntent({ ...base, maxFee: 100_000 }) })
    chain.submit({ from: ALICE, call: Call.spoke.newIntent({ ...base, maxFee: 100_001 }) })
    chain.submit({ from: ALICE, call: Call.spoke.newIntent({ ...base, data: calldata(50_000) }) })
    chain.submit({ from: ALICE, call: Call.spoke.newIntent({ ...base, data: calldata(50_001) }) })
    chain.submit({ from: ALICE, call: Call.spoke.newIntent({ ...base, amount: 0n }) })
    const block = await chain.mine(T0 + 12n)
    expect(reverted(block.receipts)).toEqual([
      "success", // the approval
      "success",
      "ClearingSpoke_NewIntent_InvalidIntent",
      "success",
      "ClearingSpoke_NewIntent_MaxFeeExceeded",
      "success",
      "ClearingSpoke_NewIntent_CalldataExceedsLimit",
      "ClearingSpoke_NewIntent_ZeroAmount",
    ])
    // 1 USDC unit (6 decimals) is 10^12 in 18 decimals; three intents pulled one unit each.
    expect(chain.read.intentQueue().map((q) => [q.queueIdx, q.intent.amount])).toEqual([
      [1n, 10n ** 12n],
      [2n, 10n ** 12n],
      [3n, 10n ** 12n],
    ])
    expect(chain.read.erc20Balance(usdc, chain.addresses.spoke)).toBe(3n)
  })

  test("fillIntent: fee equal to maxFee, the whole virtual balance, the fee rounded down, expiry at timestamp + ttl", async () => {
    const { chain, usdc } = await setup()
    // 123.456789 USDC at a 3 dbps fee: 123_456_789 * 3 / 100_000 = 3703.70367, floored to 3703, so 123_453_086 out.
    const out = 123_453_086n
    chain.submit({ from: BOB, call: Call.erc20.approve(usdc, chain.addresses.spoke, maxUint256) })
    chain.submit({ from: BOB, call: Call.spoke.deposit(usdc, out) })
    await chain.mine(T0 + 1n)
    const intent = (nonce: bigint, maxFee: number) => ({
      initiator: addressToBytes32(ALICE),
      receiver: addressToBytes32(ALICE),
      inputAsset: addressToBytes32(`0x${"ab".repeat(20)}`),
      outputAsset: addressToBytes32(usdc),
      maxFee,
      origin: 31_002,
      nonce,
      timestamp: Number(T0),
      ttl: 3_600,
      amount: 123_456_789n * 10n ** 12n,
      destinations: [DOMAIN],
      data: "0x" as Hex,
    })
    const before = chain.read.erc20Balance(usdc, ALICE)
    chain.submit({ from: BOB, call: Call.spoke.fillIntent(intent(1n, 3), 3) })
    chain.submit({ from: BOB, call: Call.spoke.fillIntent(intent(1n, 3), 3) }) // the same intent again
    const first = await chain.mine(T0 + 3_599n)
    expect(reverted(first.receipts)).toEqual(["success", "ClearingSpoke_FillIntent_InvalidStatus"])
    expect(chain.read.erc20Balance(usdc, ALICE) - before).toBe(out)
    expect(chain.read.virtualBalance(usdc, BOB)).toBe(0n)
    expect(chain.read.status(intentId(intent(1n, 3)))).toBe(IntentStatus.FILLED)
    // At timestamp + ttl the intent has expired; the expiry is checked before the fee.
    chain.submit({ from: BOB, call: Call.spoke.fillIntent(intent(2n, 3), 0) })
    chain.submit({ from: BOB, call: Call.spoke.fillIntent(intent(3n, 3), 4) })
    expect(reverted((await chain.mine(T0 + 3_600n)).receipts)).toEqual(["ClearingSpoke_FillIntent_IntentExpired", "ClearingSpoke_FillIntent_IntentExpired"])
  })

  test("processIntentQueue takes the whole queue for exactly the quote; one wei less reverts", async () => {
    const { chain, usdc, fee } = await setup()
    const feeParams = await fee(0n)
    for (let i = 0; i < 2; i++) chain.submit({ from: ALICE, call: Call.feeAdapter.newIntent({ ...intentParams(usdc), feeParams }) })
    await chain.mine(T0 + 12n)
    const queued = chain.read.intentQueue().map((q) => q.intent)
    const quote = chain.read.quoteMessage(HUB, encodeIntentMessage(queued))
    chain.submit({ from: BOB, call: Call.spoke.processIntentQueue(queued), value: quote - 1n })
    chain.submit({ from: BOB, call: Call.spoke.processIntentQueue(queued), value: quote })
    const block = await chain.mine(T0 + 24n)
    expect(reverted(block.receipts)).toEqual(["ClearingSpoke_ProcessQueue_InsufficientFee", "success"])
    expect(eventsNamed(block.receipts[1]!.events, "IntentQueueProcessed")[0]).toMatchObject({ firstIdx: 1n, lastIdx: 3n, quote })
    expect(chain.read.intentQueueLength()).toBe(0)
  })

  test("withdraw of the whole virtual balance; an xERC20 settlement to the virtual balance mints to the spoke and credits", async () => {
    const { chain, usdc } = await setup()
    const xt = chain.addresses.tokens.XT!.address
    chain.submit({ from: BOB, call: Call.erc20.approve(usdc, chain.addresses.spoke, maxUint256) })
    chain.submit({ from: BOB, call: Call.spoke.deposit(usdc, 7n) })
    chain.submit({ from: BOB, call: Call.spoke.withdraw(usdc, 7n) })
    const settlement = { intentId: keccak256Utf8("x"), amount: 2n * 10n ** 18n, asset: addressToBytes32(xt), recipient: addressToBytes32(ALICE), updateVirtualBalance: true }
    chain.submit({ from: relayer.address, call: Call.gateway.receiveMessage(HUB, keccak256Utf8("m"), encodeSettlementMessage([settlement])) })
    const block = await chain.mine(T0 + 12n)
    expect(reverted(block.receipts)).toEqual(["success", "success", "success", "success"])
    expect(chain.read.virtualBalance(usdc, BOB)).toBe(0n)
    expect(chain.read.virtualBalance(xt, ALICE)).toBe(2n * 10n ** 18n)
    expect(chain.read.erc20Balance(xt, chain.addresses.spoke)).toBe(2n * 10n ** 18n)
  })

  test("the fee adapter: a deadline equal to the block time is valid, an xERC20 input is approved to the module, an order takes one asset", async () => {
    const { chain, usdc } = await setup()
    const xt = chain.addresses.tokens.XT!.address
    const deadline = T0 + 12n
    const message = keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }, { type: "address" }, { type: "uint256" }], [0n, 0n, xt, deadline]))
    const feeParams = { fee: 0n, deadline, sig: await feeSigner.signMessage({ message: { raw: message } }) }
    chain.submit({ from: ALICE, call: Call.erc20.approve(xt, chain.addresses.feeAdapter, maxUint256) })
    chain.submit({ from: ALICE, call: Call.feeAdapter.newIntent({ ...intentParams(xt), amount: 5n * 10n ** 18n, feeParams }) })
    chain.submit({ from: ALICE, call: Call.feeAdapter.newOrder(feeParams, [intentParams(xt), intentParams(usdc)]) })
    const block = await chain.mine(T0 + 12n)
    expect(reverted(block.receipts)).toEqual(["success", "success", "FeeAdapter_MultipleOrderAssets"])
    expect(chain.read.allowance(xt, chain.addresses.feeAdapter, chain.addresses.xerc20Module)).toBe(maxUint256)
    // Pulled from ALICE to the adapter, then burned from it by the module (which needs the approval).
    expect(chain.read.erc20Balance(xt, ALICE)).toBe(995n * 10n ** 18n)
    expect(chain.read.intentQueue().map((q) => q.intent.amount)).toEqual([5n * 10n ** 18n])
  })

  test("tokens: an allowance equal to the amount suffices; a mint of exactly the module's limit succeeds; a limit refills to its max after a day", async () => {
    const { chain, usdc } = await setup()
    const xt = chain.addresses.tokens.XT!.address
    const module = chain.addresses.xerc20Module
    chain.submit({ from: ALICE, call: Call.erc20.approve(usdc, BOB, 5n) })
    chain.submit({ from: BOB, call: Call.erc20.transferFrom(usdc, ALICE, BOB, 5n) })
    chain.submit({ from: owner.address, call: Call.xerc20.setLimits(xt, module, 2n * 10n ** 18n, 0n) })
    const settlement = { intentId: keccak256Utf8("x"), amount: 2n * 10n ** 18n, asset: addressToBytes32(xt), recipient: addressToBytes32(ALICE), updateVirtualBalance: false }
    chain.submit({ from: relayer.address, call: Call.gateway.receiveMessage(HUB, keccak256Utf8("m"), encodeSettlementMessage([settlement])) })
    const block = await chain.mine(T0 + 12n)
    expect(reverted(block.receipts)).toEqual(["success", "success", "success", "success"])
    expect(eventsNamed(block.receipts[3]!.events, "AssetMintFailed")).toEqual([])
    expect(chain.read.erc20Balance(xt, ALICE)).toBe(1_002n * 10n ** 18n)
    expect(chain.read.allowance(usdc, ALICE, BOB)).toBe(0n)
    // 86_401 over 86_400 s refills at 1 per second: 86_400 after a full day, but a full day restores the max.
    const token = chain.world.tokens.get(xt.toLowerCase() as Address)!
    // setLimits' refill rate is the limit over a day, rounded down: 2e18 / 86_400 = 23_148_148_148_148.1...
    expect(token.bridges.get(module.toLowerCase() as Address)!.minter).toMatchObject({ ratePerSecond: 23_148_148_148_148n, currentLimit: 0n })
    const limit = { timestamp: 0, ratePerSecond: 1n, maxLimit: 86_401n, currentLimit: 0n }
    expect([token.currentLimit(limit, 86_399), token.currentLimit(limit, 86_400)]).toEqual([86_399n, 86_401n])
  })
})
