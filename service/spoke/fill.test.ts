/**
 * ClearingSpoke fills on anvil: fillIntent (checks in reference §4.3 order), output amounts in 6/12/18 decimals,
 * intent calldata, and the fill queue with its FILL message.
 */
import { describe, expect, it } from "vitest"
import { decodeAbiParameters, encodeFunctionData, type Hex, parseEventLogs, zeroAddress } from "viem"
import { decodeMessage, encodeFillMessage, intentId } from "../domain/encoding.ts"
import { addressToBytes32 } from "../domain/hex.ts"
import { type FillMessage, type Intent, IntentStatus } from "../domain/protocol.ts"
import {
  abis,
  approveAll,
  createIntent,
  expectRevert,
  foreignIntent,
  HUB_DOMAIN,
  intentArgs,
  intentData,
  mined,
  Role,
  SPOKE_CHAIN_ID,
  type SpokeFixture,
  units,
  useSpokeFixture,
} from "./test/fixture.ts"

const fixture = useSpokeFixture(async (f) => {
  await approveAll(f, f.deployment.spoke, [Role.user, Role.solver])
  // The solver keeps 1_000 of every token on the spoke.
  for (const symbol of ["USDC", "T12", "WETH", "BLK"] as const) {
    const decimals = f.deployment.tokens[symbol]!.decimals
    await mined(
      f,
      f.chain.wallet(Role.solver).writeContract({
        address: f.deployment.spoke,
        abi: abis.spoke,
        functionName: "deposit",
        args: [f.token(symbol), units(1_000n, decimals)],
      }),
    )
  }
})

const fill = (f: SpokeFixture, intent: Intent, fee: number, from: number = Role.solver) =>
  f.chain.wallet(from).writeContract({
    address: f.deployment.spoke,
    abi: abis.spoke,
    functionName: "fillIntent",
    args: [intentArgs(intent), fee],
  })

const simulateFill = (f: SpokeFixture, intent: Intent, fee: number, from: number = Role.solver) =>
  f.chain.publicClient.simulateContract({
    address: f.deployment.spoke,
    abi: abis.spoke,
    functionName: "fillIntent",
    args: [intentArgs(intent), fee],
    account: f.accounts[from]!,
  })

const tokenBalance = (f: SpokeFixture, token: Hex, account: Hex) =>
  f.chain.publicClient.readContract({ address: token, abi: abis.erc20, functionName: "balanceOf", args: [account] })
const virtualBalance = (f: SpokeFixture, token: Hex, account: Hex) =>
  f.chain.publicClient.readContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "balances", args: [token, account] })
const status = (f: SpokeFixture, id: Hex) =>
  f.chain.publicClient.readContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "status", args: [id] })

describe("ClearingSpoke.fillIntent", () => {
  it("pays the receiver amount - fee dbps from the solver's virtual balance and queues the fill message", async () => {
    const f = fixture()
    const usdc = f.token("USDC")
    const solver = f.accounts[Role.solver]!
    const receiver = f.accounts[Role.other]!
    const intent = await foreignIntent(f, { maxFee: 500 })
    const id = intentId(intent)
    const receiverBefore = await tokenBalance(f, usdc, receiver)
    const simulated = await simulateFill(f, intent, 500)
    const receipt = await mined(f, fill(f, intent, 500))
    const block = await f.chain.publicClient.getBlock({ blockNumber: receipt.blockNumber })

    // 100e18 -> 100 USDC (6 decimals) minus 0.5 %.
    expect(await tokenBalance(f, usdc, receiver)).toBe(receiverBefore + 99_500_000n)
    expect(await virtualBalance(f, usdc, solver)).toBe(units(1_000n, 6) - 99_500_000n)
    expect(await status(f, id)).toBe(IntentStatus.FILLED)
    const expected: FillMessage = {
      intentId: id,
      solver: addressToBytes32(solver),
      initiator: intent.initiator,
      fee: 500,
      executionTimestamp: Number(block.timestamp),
    }
    expect({ ...simulated.result, executionTimestamp: expected.executionTimestamp }).toEqual(expected)
    const [filled] = parseEventLogs({ abi: abis.spoke, eventName: "IntentFilled", logs: receipt.logs })
    expect(filled!.args).toEqual({ intentId: id, solver, totalFeeDBPS: 500n, queueIdx: 1n, intent })
    const queued = await f.chain.publicClient.readContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "fillQueue", args: [1n] })
    expect(queued).toEqual([expected.intentId, expected.solver, expected.initiator, expected.fee, expected.executionTimestamp])
  })

  it("converts the 18-decimal amount to the output decimals with truncation (12 and 18)", async () => {
    const f = fixture()
    const receiver = f.accounts[Role.other]!
    const amount = 1_234_567_891_234_567_891n
    const t12 = await foreignIntent(f, { outputAsset: addressToBytes32(f.token("T12")), amount })
    const before12 = await tokenBalance(f, f.token("T12"), receiver)
    await mined(f, fill(f, t12, 1_000))
    const out12 = 1_234_567_891_234n
    expect(await tokenBalance(f, f.token("T12"), receiver)).toBe(before12 + out12 - (out12 * 1_000n) / 100_000n)
    const weth = await foreignIntent(f, { outputAsset: addressToBytes32(f.token("WETH")), amount })
    const before18 = await tokenBalance(f, f.token("WETH"), receiver)
    await mined(f, fill(f, weth, 3))
    expect(await tokenBalance(f, f.token("WETH"), receiver)).toBe(before18 + amount - (amount * 3n) / 100_000n)
  })

  it("executes intent calldata abi.encode(target, callData) and emits its return data", async () => {
    const f = fixture()
    const callData = encodeFunctionData({ abi: abis.target, functionName: "record", args: [21n] })
    const intent = await foreignIntent(f, { data: intentData(f.target, callData) })
    const receipt = await mined(f, fill(f, intent, 0))
    const [executed] = parseEventLogs({ abi: abis.spoke, eventName: "ExternalCalldataExecuted", logs: receipt.logs })
    expect(executed!.args.intentId).toBe(intentId(intent))
    expect(BigInt(executed!.args.returnData)).toBe(42n)
    expect(await f.chain.publicClient.readContract({ address: f.target, abi: abis.target, functionName: "lastCaller" })).toBe(f.deployment.spoke)
  })

  it("queues the fill message after the calldata ran: a fill made from within the calldata is queued first (reference §4.3)", async () => {
    const f = fixture()
    // The inner intent takes a 100 % fee: its output is 0, so the call target fills it without any balance.
    const inner = await foreignIntent(f, { maxFee: 100_000, nonce: 77n })
    const fillInner = encodeFunctionData({ abi: abis.spoke, functionName: "fillIntent", args: [intentArgs(inner), 100_000] })
    const forward = encodeFunctionData({ abi: abis.target, functionName: "forward", args: [f.deployment.spoke, fillInner] })
    const outer = await foreignIntent(f, { data: intentData(f.target, forward) })
    const receipt = await mined(f, fill(f, outer, 0))
    const filled = parseEventLogs({ abi: abis.spoke, eventName: "IntentFilled", logs: receipt.logs })
    expect(filled.map((e) => [e.args.intentId, e.args.queueIdx])).toEqual([
      [intentId(inner), 1n],
      [intentId(outer), 2n],
    ])
    const queued = await f.chain.publicClient.readContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "fillQueue", args: [1n] })
    expect(queued[0]).toBe(intentId(inner))
    expect(queued[1]).toBe(addressToBytes32(f.target))
    // The forwarded call's return data is the inner FillMessage ABI-encoded as bytes (what the memory twin returns too).
    const [executed] = parseEventLogs({ abi: abis.spoke, eventName: "ExternalCalldataExecuted", logs: receipt.logs })
    const [bytes] = decodeAbiParameters([{ type: "bytes" }], executed!.args.returnData)
    const [message] = decodeAbiParameters([{ type: "tuple", components: [{ type: "bytes32" }, { type: "bytes32" }, { type: "bytes32" }, { type: "uint24" }, { type: "uint48" }] }], bytes)
    expect([message[0], message[1]]).toEqual([intentId(inner), addressToBytes32(f.target)])
  })

  it("fills without pushing tokens when the receiver is zero, still debiting the solver", async () => {
    const f = fixture()
    const intent = await foreignIntent(f, { receiver: addressToBytes32(zeroAddress) })
    await mined(f, fill(f, intent, 0))
    // The solver is still debited: the fill promises the output; the hub repays the solver.
    expect(await virtualBalance(f, f.token("USDC"), f.accounts[Role.solver]!)).toBe(units(900n, 6))
  })

  describe("reverts, in check order", () => {
    it("ClearingSpoke_Paused first", async () => {
      const f = fixture()
      await mined(f, f.chain.wallet(Role.watchtower).writeContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "pause" }))
      await expectRevert(simulateFill(f, await foreignIntent(f, { destinations: [1] }), 100_000), "ClearingSpoke_Paused", [])
    })

    it("ClearingSpoke_WrongDestination when destinations[0] is another domain or there is none", async () => {
      const f = fixture()
      await expectRevert(simulateFill(f, await foreignIntent(f, { destinations: [1, SPOKE_CHAIN_ID], ttl: 0 }), 0), "ClearingSpoke_WrongDestination", [])
      await expectRevert(simulateFill(f, await foreignIntent(f, { destinations: [] }), 0), "ClearingSpoke_WrongDestination", [])
    })

    it("ClearingSpoke_FillIntent_IntentExpired when block.timestamp >= timestamp + ttl (ttl 0 is never fillable)", async () => {
      const f = fixture()
      const now = (await foreignIntent(f)).timestamp
      await expectRevert(simulateFill(f, await foreignIntent(f, { timestamp: now - 3_600, ttl: 3_600 }), 100_000), "ClearingSpoke_FillIntent_IntentExpired", [])
      await expectRevert(simulateFill(f, await foreignIntent(f, { ttl: 0 }), 0), "ClearingSpoke_FillIntent_IntentExpired", [])
      await simulateFill(f, await foreignIntent(f, { timestamp: now - 3_599, ttl: 3_600 }), 0)
    })

    it("ClearingSpoke_FillIntent_MaxFeeExceeded(fee, maxFee)", async () => {
      const f = fixture()
      await expectRevert(simulateFill(f, await foreignIntent(f, { maxFee: 500 }), 501), "ClearingSpoke_FillIntent_MaxFeeExceeded", [501, 500])
    })

    it("ClearingSpoke_FillIntent_InvalidStatus(status): already filled, or an intent of this spoke (ADDED)", async () => {
      const f = fixture()
      const intent = await foreignIntent(f)
      await mined(f, fill(f, intent, 0))
      await expectRevert(simulateFill(f, intent, 0), "ClearingSpoke_FillIntent_InvalidStatus", [IntentStatus.FILLED])
      const own = await createIntent(f, { destinations: [SPOKE_CHAIN_ID], ttl: 3_600, outputAsset: f.token("USDC") })
      await expectRevert(simulateFill(f, own.intent, 0), "ClearingSpoke_FillIntent_InvalidStatus", [IntentStatus.ADDED])
    })

    it("ClearingSpoke_FillIntent_InsufficientFunds(requested, available)", async () => {
      const f = fixture()
      const intent = await foreignIntent(f, { amount: units(1_000n, 18) + 1n })
      // 1_000.000000000000000001 -> 1_000 USDC after truncation: exactly the balance, so it passes with fee 0...
      await simulateFill(f, intent, 0)
      const bigger = await foreignIntent(f, { amount: units(1_001n, 18) })
      await expectRevert(simulateFill(f, bigger, 0), "ClearingSpoke_FillIntent_InsufficientFunds", [units(1_001n, 6), units(1_000n, 6)])
      // ...and a solver without a deposit has nothing.
      await expectRevert(simulateFill(f, intent, 0, Role.other), "ClearingSpoke_FillIntent_InsufficientFunds", [units(1_000n, 6), 0n])
    })

    it("an output asset without decimals(): ClearingSpoke_DecimalsUnavailable(asset)", async () => {
      const f = fixture()
      const notAToken = f.accounts[Role.other]!
      await expectRevert(
        simulateFill(f, await foreignIntent(f, { outputAsset: addressToBytes32(notAToken) }), 0),
        "ClearingSpoke_DecimalsUnavailable",
        [notAToken],
      )
    })

    it("a receiver the token refuses: ClearingSpoke_TransferFailed, or the token's own error when it reverts", async () => {
      const f = fixture()
      const blk = f.token("BLK")
      const receiver = f.accounts[Role.other]!
      const owner = f.chain.wallet(Role.owner)
      await mined(f, owner.writeContract({ address: blk, abi: abis.blacklist, functionName: "setBlacklisted", args: [receiver, true] }))
      const intent = await foreignIntent(f, { outputAsset: addressToBytes32(blk) })
      await expectRevert(simulateFill(f, intent, 0), "ClearingSpoke_TransferFailed", [blk, f.deployment.spoke, receiver, units(100n, 6)])
      await mined(f, owner.writeContract({ address: blk, abi: abis.blacklist, functionName: "setRevertOnBlacklisted", args: [true] }))
      await expectRevert(simulateFill(f, intent, 0), "BlacklistERC20_Blacklisted", [receiver])
    })

    it("failing calldata reverts the fill: ClearingSpoke_ExecuteIntentCalldata_ExternalCallFailed", async () => {
      const f = fixture()
      const callData = encodeFunctionData({ abi: abis.target, functionName: "fail", args: [1n] })
      const intent = await foreignIntent(f, { data: intentData(f.target, callData) })
      await expectRevert(simulateFill(f, intent, 0), "ClearingSpoke_ExecuteIntentCalldata_ExternalCallFailed", [])
    })
  })
})

describe("ClearingSpoke.processFillQueue", () => {
  const processFillQueue = (f: SpokeFixture, amount: number, value: bigint) =>
    f.chain.wallet(Role.other).writeContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "processFillQueue", args: [amount], value })
  const simulateProcessFillQueue = (f: SpokeFixture, amount: number, value: bigint) =>
    f.chain.publicClient.simulateContract({
      address: f.deployment.spoke,
      abi: abis.spoke,
      functionName: "processFillQueue",
      args: [amount],
      value,
      account: f.accounts[Role.other]!,
    })
  const quote = (f: SpokeFixture, message: Hex) =>
    f.chain.publicClient.readContract({ address: f.deployment.gateway, abi: abis.gateway, functionName: "quoteMessage", args: [HUB_DOMAIN, message] })
  const filledMessages = async (f: SpokeFixture, count: number): Promise<FillMessage[]> => {
    const fills: FillMessage[] = []
    for (let i = 0; i < count; i++) {
      const intent = await foreignIntent(f, { nonce: BigInt(i + 1), maxFee: 10 * (i + 1) })
      const receipt = await mined(f, fill(f, intent, 10 * (i + 1)))
      const block = await f.chain.publicClient.getBlock({ blockNumber: receipt.blockNumber })
      fills.push({
        intentId: intentId(intent),
        solver: addressToBytes32(f.accounts[Role.solver]!),
        initiator: intent.initiator,
        fee: 10 * (i + 1),
        executionTimestamp: Number(block.timestamp),
      })
    }
    return fills
  }

  it("sends the first fills as one FILL batch that decodes to the queued fill messages", async () => {
    const f = fixture()
    const fills = await filledMessages(f, 3)
    const price = await quote(f, encodeFillMessage(fills.slice(0, 2)))
    const receipt = await mined(f, processFillQueue(f, 2, price))
    const [sent] = parseEventLogs({ abi: abis.gateway, eventName: "MessageSent", logs: receipt.logs })
    const [processed] = parseEventLogs({ abi: abis.spoke, eventName: "FillQueueProcessed", logs: receipt.logs })
    expect(decodeMessage(sent!.args.message)).toEqual({ type: "FILL", fills: fills.slice(0, 2) })
    expect(sent!.args.message).toBe(encodeFillMessage(fills.slice(0, 2)))
    expect(processed!.args).toEqual({ messageId: sent!.args.messageId, firstIdx: 1n, lastIdx: 3n, quote: price })
    const rest = await mined(f, processFillQueue(f, 1, await quote(f, encodeFillMessage(fills.slice(2)))))
    const [last] = parseEventLogs({ abi: abis.gateway, eventName: "MessageSent", logs: rest.logs })
    expect(decodeMessage(last!.args.message)).toEqual({ type: "FILL", fills: fills.slice(2) })
    expect(last!.args.nonce).toBe(2n)
  })

  it("reverts: ClearingSpoke_Paused, ClearingSpoke_ProcessQueue_ZeroAmount, ClearingSpoke_ProcessQueue_InvalidAmount(first, last, amount)", async () => {
    const f = fixture()
    await filledMessages(f, 1)
    await expectRevert(simulateProcessFillQueue(f, 0, 10n ** 18n), "ClearingSpoke_ProcessQueue_ZeroAmount", [])
    await expectRevert(simulateProcessFillQueue(f, 2, 10n ** 18n), "ClearingSpoke_ProcessQueue_InvalidAmount", [1n, 1n, 2n])
    await mined(f, f.chain.wallet(Role.lighthouse).writeContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "pause" }))
    await expectRevert(simulateProcessFillQueue(f, 1, 10n ** 18n), "ClearingSpoke_Paused", [])
  })

  it("reverts: ClearingSpoke_ProcessQueue_InsufficientFee(provided, required)", async () => {
    const f = fixture()
    const fills = await filledMessages(f, 1)
    const price = await quote(f, encodeFillMessage(fills))
    await expectRevert(simulateProcessFillQueue(f, 1, price - 1n), "ClearingSpoke_ProcessQueue_InsufficientFee", [price - 1n, price])
  })
})
