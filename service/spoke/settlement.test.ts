/**
 * Settlement receipt on anvil (reference §4.5): SETTLEMENT batches encoded with `encodeSettlementMessage` and
 * delivered by the relayer through the gateway; VAR_UPDATEs; executeIntentCalldata.
 */
import { describe, expect, it } from "vitest"
import { ContractFunctionRevertedError, encodeAbiParameters, encodeFunctionData, type Hex, keccak256, parseEventLogs, stringToHex, zeroAddress } from "viem"
import { encodeFillMessage, encodeIntentMessage, encodeSettlementMessage, encodeVarUpdateMessage, intentId } from "../domain/encoding.ts"
import { addressToBytes32, type Bytes32 } from "../domain/hex.ts"
import { type Intent, IntentStatus, type Settlement, Strategy } from "../domain/protocol.ts"
import {
  abis,
  deliver,
  expectRevert,
  foreignIntent,
  HUB_DOMAIN,
  intentArgs,
  intentData,
  mined,
  Role,
  type SpokeFixture,
  units,
  useSpokeFixture,
  XT_MINT_LIMIT,
} from "./test/fixture.ts"
import { malformedHubMessages } from "./test/differential.ts"

/** The spoke holds 1_000 of each DEFAULT token, as custodied liquidity. */
const fixture = useSpokeFixture(async (f) => {
  for (const symbol of ["USDC", "T12", "WETH", "BLK"] as const) {
    const decimals = f.deployment.tokens[symbol]!.decimals
    await mined(
      f,
      f.chain.wallet(Role.owner).writeContract({
        address: f.token(symbol),
        abi: abis.erc20,
        functionName: "mint",
        args: [f.deployment.spoke, units(1_000n, decimals)],
      }),
    )
  }
})

const AMOUNT_18 = 1_234_567_891_234_567_891n
let messageCounter = 0
const nextMessageId = (): Hex => keccak256(stringToHex(`hub message ${++messageCounter}`))
const id = (label: string): Bytes32 => keccak256(stringToHex(label))

const settlement = (f: SpokeFixture, label: string, asset: Hex, overrides: Partial<Settlement> = {}): Settlement => ({
  intentId: id(label),
  amount: AMOUNT_18,
  asset: addressToBytes32(asset),
  recipient: addressToBytes32(f.accounts[Role.other]!),
  updateVirtualBalance: false,
  ...overrides,
})

const settle = (f: SpokeFixture, settlements: readonly Settlement[]) => deliver(f, encodeSettlementMessage(settlements), nextMessageId())

const simulateDeliver = (f: SpokeFixture, message: Hex, messageId: Hex = nextMessageId()) =>
  f.chain.publicClient.simulateContract({
    address: f.deployment.gateway,
    abi: abis.gateway,
    functionName: "receiveMessage",
    args: [HUB_DOMAIN, messageId, message],
    account: f.accounts[Role.relayer]!,
  })

const tokenBalance = (f: SpokeFixture, token: Hex, account: Hex) =>
  f.chain.publicClient.readContract({ address: token, abi: abis.erc20, functionName: "balanceOf", args: [account] })
const virtualBalance = (f: SpokeFixture, token: Hex, account: Hex) =>
  f.chain.publicClient.readContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "balances", args: [token, account] })
const status = (f: SpokeFixture, intent: Hex) =>
  f.chain.publicClient.readContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "status", args: [intent] })
const mintable = (f: SpokeFixture, account: Hex, asset: Hex) =>
  f.chain.publicClient.readContract({ address: f.deployment.xerc20Module, abi: abis.module, functionName: "mintable", args: [account, asset] })
const settledEvents = (receipt: { logs: Parameters<typeof parseEventLogs>[0]["logs"] }) =>
  parseEventLogs({ abi: abis.spoke, eventName: "Settled", logs: receipt.logs }).map((e) => e.args)

describe("settlement receipt", () => {
  it("pays each settlement in the asset's decimals, truncating 18 -> 6 and 18 -> 12", async () => {
    const f = fixture()
    const other = f.accounts[Role.other]!
    const [usdc, t12, weth] = [f.token("USDC"), f.token("T12"), f.token("WETH")]
    const before = await Promise.all([tokenBalance(f, usdc, other), tokenBalance(f, t12, other), tokenBalance(f, weth, other)])
    const batch = [settlement(f, "a", usdc), settlement(f, "b", t12), settlement(f, "c", weth)]
    const receipt = await settle(f, batch)

    const paid = [1_234_567n, 1_234_567_891_234n, AMOUNT_18]
    expect(await tokenBalance(f, usdc, other)).toBe(before[0]! + paid[0]!)
    expect(await tokenBalance(f, t12, other)).toBe(before[1]! + paid[1]!)
    expect(await tokenBalance(f, weth, other)).toBe(before[2]! + paid[2]!)
    expect(settledEvents(receipt)).toEqual([
      { intentId: id("a"), account: other, asset: usdc, amount: paid[0] },
      { intentId: id("b"), account: other, asset: t12, amount: paid[1] },
      { intentId: id("c"), account: other, asset: weth, amount: paid[2] },
    ])
    for (const label of ["a", "b", "c"]) expect(await status(f, id(label))).toBe(IntentStatus.SETTLED)
    const [received] = parseEventLogs({ abi: abis.gateway, eventName: "MessageReceived", logs: receipt.logs })
    expect(received!.args.origin).toBe(HUB_DOMAIN)
  })

  it("credits the virtual balance instead of transferring when updateVirtualBalance is set", async () => {
    const f = fixture()
    const other = f.accounts[Role.other]!
    const usdc = f.token("USDC")
    const before = await tokenBalance(f, usdc, other)
    await settle(f, [settlement(f, "a", usdc, { updateVirtualBalance: true })])
    expect(await virtualBalance(f, usdc, other)).toBe(1_234_567n)
    expect(await tokenBalance(f, usdc, other)).toBe(before)
  })

  it("falls back to the virtual balance with AssetTransferFailed when the transfer returns false, reverts or lacks funds", async () => {
    const f = fixture()
    const other = f.accounts[Role.other]!
    const blk = f.token("BLK")
    const owner = f.chain.wallet(Role.owner)
    await mined(f, owner.writeContract({ address: blk, abi: abis.blacklist, functionName: "setBlacklisted", args: [other, true] }))
    const returnsFalse = await settle(f, [settlement(f, "false", blk)])
    expect(parseEventLogs({ abi: abis.spoke, eventName: "AssetTransferFailed", logs: returnsFalse.logs })[0]!.args).toEqual({
      asset: blk,
      recipient: other,
      amount: 1_234_567n,
    })
    await mined(f, owner.writeContract({ address: blk, abi: abis.blacklist, functionName: "setRevertOnBlacklisted", args: [true] }))
    const reverts = await settle(f, [settlement(f, "revert", blk)])
    expect(parseEventLogs({ abi: abis.spoke, eventName: "AssetTransferFailed", logs: reverts.logs })).toHaveLength(1)
    expect(await virtualBalance(f, blk, other)).toBe(2n * 1_234_567n)
    expect(settledEvents(reverts)).toEqual([{ intentId: id("revert"), account: other, asset: blk, amount: 1_234_567n }])

    // More than the spoke holds: the token reverts, the recipient is credited.
    const usdc = f.token("USDC")
    await settle(f, [settlement(f, "big", usdc, { amount: units(5_000n, 18) })])
    expect(await virtualBalance(f, usdc, other)).toBe(units(5_000n, 6))
  })

  it("ignores a settlement for an intent already SETTLED or SETTLED_AND_MANUALLY_EXECUTED (in a later message or the same batch)", async () => {
    const f = fixture()
    const other = f.accounts[Role.other]!
    const usdc = f.token("USDC")
    const before = await tokenBalance(f, usdc, other)
    const first = await settle(f, [settlement(f, "a", usdc), settlement(f, "a", usdc, { amount: units(1n, 18) })])
    expect(settledEvents(first)).toHaveLength(1)
    const again = await settle(f, [settlement(f, "a", usdc)])
    expect(settledEvents(again)).toHaveLength(0)
    expect(await tokenBalance(f, usdc, other)).toBe(before + 1_234_567n)

    const intent = await foreignIntent(f)
    await settle(f, [settlement(f, "x", usdc, { intentId: intentId(intent) })])
    await mined(f, f.chain.wallet(Role.user).writeContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "executeIntentCalldata", args: [intentArgs(intent)] }))
    const afterExecution = await settle(f, [settlement(f, "x", usdc, { intentId: intentId(intent) })])
    expect(settledEvents(afterExecution)).toHaveLength(0)
    expect(await status(f, intentId(intent))).toBe(IntentStatus.SETTLED_AND_MANUALLY_EXECUTED)
  })

  it("settles a FILLED intent to the solver (status FILLED -> SETTLED)", async () => {
    const f = fixture()
    const solver = f.accounts[Role.solver]!
    const usdc = f.token("USDC")
    await mined(f, f.chain.wallet(Role.solver).writeContract({ address: usdc, abi: abis.erc20, functionName: "approve", args: [f.deployment.spoke, units(100n, 6)] }))
    await mined(f, f.chain.wallet(Role.solver).writeContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "deposit", args: [usdc, units(100n, 6)] }))
    const intent = await foreignIntent(f)
    await mined(f, f.chain.wallet(Role.solver).writeContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "fillIntent", args: [intentArgs(intent), 0] }))
    expect(await status(f, intentId(intent))).toBe(IntentStatus.FILLED)
    await settle(f, [settlement(f, "", usdc, { intentId: intentId(intent), recipient: addressToBytes32(solver), amount: units(97n, 18), updateVirtualBalance: true })])
    expect(await status(f, intentId(intent))).toBe(IntentStatus.SETTLED)
    expect(await virtualBalance(f, usdc, solver)).toBe(units(97n, 6))
  })

  it("an amount that truncates to 0 pays nothing and still emits Settled(…, 0)", async () => {
    const f = fixture()
    const receipt = await settle(f, [settlement(f, "dust", f.token("USDC"), { amount: 999_999_999_999n })])
    expect(settledEvents(receipt)).toEqual([{ intentId: id("dust"), account: f.accounts[Role.other]!, asset: f.token("USDC"), amount: 0n }])
    expect(parseEventLogs({ abi: abis.spoke, eventName: "AssetTransferFailed", logs: receipt.logs })).toHaveLength(0)
  })

  it("an asset without decimals() is taken as 18 decimals; the failed transfer is credited, the batch goes on", async () => {
    const f = fixture()
    const notAToken = f.accounts[Role.user]!
    const receipt = await settle(f, [settlement(f, "eoa", notAToken), settlement(f, "ok", f.token("WETH"))])
    expect(settledEvents(receipt).map((e) => e.amount)).toEqual([AMOUNT_18, AMOUNT_18])
    expect(await virtualBalance(f, notAToken, f.accounts[Role.other]!)).toBe(AMOUNT_18)
  })

  describe("xERC20", () => {
    const xerc20Limit = (f: SpokeFixture) =>
      f.chain.publicClient.readContract({ address: f.token("XT"), abi: abis.xerc20, functionName: "mintingCurrentLimitOf", args: [f.deployment.xerc20Module] })

    it("mints to the recipient, or to the spoke crediting the recipient's virtual balance", async () => {
      const f = fixture()
      const xt = f.token("XT")
      const other = f.accounts[Role.other]!
      const before = await tokenBalance(f, xt, other)
      await settle(f, [settlement(f, "direct", xt, { amount: units(30n, 18) }), settlement(f, "vb", xt, { amount: units(20n, 18), updateVirtualBalance: true })])
      expect(await tokenBalance(f, xt, other)).toBe(before + units(30n, 18))
      expect(await tokenBalance(f, xt, f.deployment.spoke)).toBe(units(20n, 18))
      expect(await virtualBalance(f, xt, other)).toBe(units(20n, 18))
      expect(await xerc20Limit(f)).toBe(XT_MINT_LIMIT - units(50n, 18))
    })

    it("over the minting limit: AssetMintFailed, debt recorded; mintDebt mints it as the limit refills over time", async () => {
      const f = fixture()
      const xt = f.token("XT")
      const other = f.accounts[Role.other]!
      const before = await tokenBalance(f, xt, other)
      const receipt = await settle(f, [settlement(f, "over", xt, { amount: units(150n, 18), updateVirtualBalance: true })])
      expect(parseEventLogs({ abi: abis.spoke, eventName: "AssetMintFailed", logs: receipt.logs })[0]!.args).toEqual({
        asset: xt,
        recipient: other,
        amount: units(150n, 18),
        strategy: Strategy.XERC20,
      })
      expect(parseEventLogs({ abi: abis.module, eventName: "HandleMintStrategyFailed", logs: receipt.logs })[0]!.args).toEqual({
        asset: xt,
        recipient: other,
        amount: units(150n, 18),
      })
      expect(settledEvents(receipt)).toEqual([{ intentId: id("over"), account: other, asset: xt, amount: units(150n, 18) }])
      expect(await mintable(f, other, xt)).toBe(units(150n, 18))
      expect(await virtualBalance(f, xt, other)).toBe(0n)

      const module = { address: f.deployment.xerc20Module, abi: abis.module } as const
      const simulateMintDebt = (amount: bigint) =>
        f.chain.publicClient.simulateContract({ ...module, functionName: "mintDebt", args: [xt, other, amount], account: f.accounts[Role.user]! })
      await expectRevert(simulateMintDebt(units(151n, 18)), "XERC20Module_MintDebt_InsufficientMintable", [units(151n, 18), units(150n, 18)])
      await expectRevert(simulateMintDebt(units(150n, 18)), "XERC20Module_MintDebt_InsufficientMintingLimit", [units(150n, 18), XT_MINT_LIMIT])

      // Anyone can mint the debt; the limit allows 100 now.
      const minted = await mined(f, f.chain.wallet(Role.user).writeContract({ ...module, functionName: "mintDebt", args: [xt, other, units(100n, 18)] }))
      expect(parseEventLogs({ abi: abis.module, eventName: "DebtMinted", logs: minted.logs })[0]!.args).toEqual({ asset: xt, recipient: other, amount: units(100n, 18) })
      const mintedAt = (await f.chain.publicClient.getBlock({ blockNumber: minted.blockNumber })).timestamp
      await expectRevert(simulateMintDebt(units(50n, 18)), "XERC20Module_MintDebt_InsufficientMintingLimit", [units(50n, 18), 0n])

      // Half a day (and a minute) later the limit has refilled linearly past 50.
      await f.chain.testClient.setNextBlockTimestamp({ timestamp: mintedAt + 43_260n })
      await f.chain.testClient.mine({ blocks: 1 })
      const ratePerSecond = XT_MINT_LIMIT / 86_400n
      expect(await xerc20Limit(f)).toBe(43_260n * ratePerSecond)
      await mined(f, f.chain.wallet(Role.user).writeContract({ ...module, functionName: "mintDebt", args: [xt, other, units(50n, 18)] }))
      expect(await mintable(f, other, xt)).toBe(0n)
      expect(await tokenBalance(f, xt, other)).toBe(before + units(150n, 18))
    })

    it("a batch with a refused transfer, an over-limit mint and a good payment settles all three", async () => {
      const f = fixture()
      const other = f.accounts[Role.other]!
      await mined(f, f.chain.wallet(Role.owner).writeContract({ address: f.token("BLK"), abi: abis.blacklist, functionName: "setBlacklisted", args: [other, true] }))
      const receipt = await settle(f, [
        settlement(f, "blk", f.token("BLK")),
        settlement(f, "xt", f.token("XT"), { amount: units(101n, 18) }),
        settlement(f, "usdc", f.token("USDC")),
      ])
      expect(settledEvents(receipt).map((e) => e.intentId)).toEqual([id("blk"), id("xt"), id("usdc")])
      expect(parseEventLogs({ abi: abis.spoke, eventName: "AssetTransferFailed", logs: receipt.logs })).toHaveLength(1)
      expect(parseEventLogs({ abi: abis.spoke, eventName: "AssetMintFailed", logs: receipt.logs })).toHaveLength(1)
    })

    it("without a module the whole message reverts with ClearingSpoke_StrategyModuleNotSet (so it can be retried)", async () => {
      const f = fixture()
      await mined(f, f.chain.wallet(Role.owner).writeContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "setModuleForStrategy", args: [Strategy.XERC20, zeroAddress] }))
      await expectRevert(simulateDeliver(f, encodeSettlementMessage([settlement(f, "xt", f.token("XT"))])), "ClearingSpoke_StrategyModuleNotSet", [Strategy.XERC20])
    })
  })

  describe("reverts", () => {
    it("ClearingSpoke_ReceiveMessage_NotAuthorized(caller) for anyone but the gateway and the owner", async () => {
      const f = fixture()
      for (const role of [Role.relayer, Role.lighthouse, Role.user]) {
        await expectRevert(
          f.chain.publicClient.simulateContract({
            address: f.deployment.spoke,
            abi: abis.spoke,
            functionName: "receiveMessage",
            args: [encodeSettlementMessage([])],
            account: f.accounts[role]!,
          }),
          "ClearingSpoke_ReceiveMessage_NotAuthorized",
          [f.accounts[role]!],
        )
      }
    })

    it("the owner may call receiveMessage directly, also while paused (reference §4.8)", async () => {
      const f = fixture()
      const spoke = { address: f.deployment.spoke, abi: abis.spoke } as const
      await mined(f, f.chain.wallet(Role.lighthouse).writeContract({ ...spoke, functionName: "pause" }))
      const usdc = f.token("USDC")
      const message = encodeSettlementMessage([settlement(f, "owner while paused", usdc)])
      // The gateway cannot deliver while paused; the owner can.
      await expectRevert(simulateDeliver(f, message), "ClearingSpoke_Paused", [])
      const before = await tokenBalance(f, usdc, f.accounts[Role.other]!)
      const receipt = await mined(f, f.chain.wallet(Role.owner).writeContract({ ...spoke, functionName: "receiveMessage", args: [message] }))
      expect(settledEvents(receipt)).toHaveLength(1)
      expect(await tokenBalance(f, usdc, f.accounts[Role.other]!)).toBe(before + AMOUNT_18 / 10n ** 12n)
      expect(await status(f, id("owner while paused"))).toBe(IntentStatus.SETTLED)
      // A VAR_UPDATE from the owner while paused goes through too.
      const watchtower = f.accounts[Role.user]!
      const value = encodeAbiParameters([{ type: "bytes32" }], [addressToBytes32(watchtower)])
      const varUpdate = encodeVarUpdateMessage(keccak256(encodeAbiParameters([{ type: "string" }], ["WATCHTOWER"])), value)
      await mined(f, f.chain.wallet(Role.owner).writeContract({ ...spoke, functionName: "receiveMessage", args: [varUpdate] }))
      expect(await f.chain.publicClient.readContract({ ...spoke, functionName: "watchtower" })).toBe(watchtower)
    })

    it("malformed payloads revert without data, or Panic(0x41) when a length cannot be allocated", async () => {
      const f = fixture()
      for (const [label, message] of malformedHubMessages()) {
        const error = await simulateDeliver(f, message).then(
          () => undefined,
          (e: unknown) => e,
        )
        expect(error, label).toBeDefined()
        const reason = (error as { walk: (fn: (e: unknown) => boolean) => unknown }).walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError
        if (label.endsWith("(panic)")) expect(reason.data?.errorName, label).toBe("Panic")
        else expect(reason.data, label).toBeUndefined()
        if (label.endsWith("(panic)")) expect(reason.data?.args, label).toEqual([0x41n])
      }
    })

    it("ClearingSpoke_Paused while paused; the same message id is delivered after unpause", async () => {
      const f = fixture()
      const spoke = { address: f.deployment.spoke, abi: abis.spoke } as const
      await mined(f, f.chain.wallet(Role.lighthouse).writeContract({ ...spoke, functionName: "pause" }))
      const message = encodeSettlementMessage([settlement(f, "a", f.token("USDC"))])
      const messageId = nextMessageId()
      await expectRevert(simulateDeliver(f, message, messageId), "ClearingSpoke_Paused", [])
      await mined(f, f.chain.wallet(Role.lighthouse).writeContract({ ...spoke, functionName: "unpause" }))
      const receipt = await deliver(f, message, messageId)
      expect(settledEvents(receipt)).toHaveLength(1)
    })

    it("ClearingSpoke_ReceiveMessage_InvalidMessageType(type) for INTENT and FILL messages", async () => {
      const f = fixture()
      const intent: Intent = await foreignIntent(f)
      await expectRevert(simulateDeliver(f, encodeIntentMessage([intent])), "ClearingSpoke_ReceiveMessage_InvalidMessageType", [0])
      await expectRevert(simulateDeliver(f, encodeFillMessage([])), "ClearingSpoke_ReceiveMessage_InvalidMessageType", [1])
    })
  })
})

describe("VAR_UPDATE", () => {
  const variable = (name: string): Bytes32 => keccak256(encodeAbiParameters([{ type: "string" }], [name]))
  const addressValue = (account: Hex): Hex => encodeAbiParameters([{ type: "bytes32" }], [addressToBytes32(account)])

  it("updates the lighthouse, the watchtower and the gateway", async () => {
    const f = fixture()
    const spoke = { address: f.deployment.spoke, abi: abis.spoke } as const
    const [a, b, c] = [f.accounts[Role.user]!, f.accounts[Role.solver]!, f.accounts[Role.other]!]
    await deliver(f, encodeVarUpdateMessage(variable("LIGHTHOUSE"), addressValue(a)), nextMessageId())
    await deliver(f, encodeVarUpdateMessage(variable("WATCHTOWER"), addressValue(b)), nextMessageId())
    const receipt = await deliver(f, encodeVarUpdateMessage(variable("GATEWAY"), addressValue(c)), nextMessageId())
    expect(parseEventLogs({ abi: abis.spoke, eventName: "GatewayUpdated", logs: receipt.logs })[0]!.args).toEqual({ previous: f.deployment.gateway, current: c })
    expect(await f.chain.publicClient.readContract({ ...spoke, functionName: "lighthouse" })).toBe(a)
    expect(await f.chain.publicClient.readContract({ ...spoke, functionName: "watchtower" })).toBe(b)
    expect(await f.chain.publicClient.readContract({ ...spoke, functionName: "gateway" })).toBe(c)
    // The old gateway is no longer accepted.
    await expectRevert(simulateDeliver(f, encodeSettlementMessage([])), "ClearingSpoke_ReceiveMessage_NotAuthorized", [f.deployment.gateway])
  })

  it("MAILBOX replaces the gateway's relayer (its mailbox)", async () => {
    const f = fixture()
    const gateway = { address: f.deployment.gateway, abi: abis.gateway } as const
    const mailbox = f.accounts[Role.other]!
    const receipt = await deliver(f, encodeVarUpdateMessage(variable("MAILBOX"), addressValue(mailbox)), nextMessageId())
    // The gateway's RelayerUpdated comes before its MessageReceived.
    const events = parseEventLogs({ abi: abis.gateway, logs: receipt.logs })
    expect(events.map((e) => e.eventName)).toEqual(["RelayerUpdated", "MessageReceived"])
    expect(events[0]!.args).toEqual({ previous: f.accounts[Role.relayer]!, current: mailbox })
    expect(await f.chain.publicClient.readContract({ ...gateway, functionName: "relayer" })).toBe(mailbox)
    // The former relayer is refused, the new mailbox delivers.
    await expectRevert(simulateDeliver(f, encodeSettlementMessage([])), "SpokeGateway_ReceiveMessage_NotRelayer", [f.accounts[Role.relayer]!])
    await mined(f, f.chain.wallet(Role.other).writeContract({ ...gateway, functionName: "receiveMessage", args: [HUB_DOMAIN, nextMessageId(), encodeSettlementMessage([])] }))
    // Only the spoke may call updateMailbox.
    await expectRevert(
      f.chain.publicClient.simulateContract({ ...gateway, functionName: "updateMailbox", args: [mailbox], account: f.accounts[Role.owner]! }),
      "SpokeGateway_UpdateMailbox_NotSpoke",
      [f.accounts[Role.owner]!],
    )
  })

  it("reverts ClearingSpoke_InvalidVarUpdate(variable) for any other variable", async () => {
    const f = fixture()
    const unknown = variable("MAX_FEE")
    await expectRevert(
      simulateDeliver(f, encodeVarUpdateMessage(unknown, encodeAbiParameters([{ type: "uint256" }], [5n]))),
      "ClearingSpoke_InvalidVarUpdate",
      [unknown],
    )
  })
})

describe("ClearingSpoke.executeIntentCalldata", () => {
  const simulateExecute = (f: SpokeFixture, intent: Intent) =>
    f.chain.publicClient.simulateContract({
      address: f.deployment.spoke,
      abi: abis.spoke,
      functionName: "executeIntentCalldata",
      args: [intentArgs(intent)],
      account: f.accounts[Role.user]!,
    })
  const settleIntent = (f: SpokeFixture, intent: Intent) =>
    settle(f, [settlement(f, "", f.token("USDC"), { intentId: intentId(intent) })])

  it("runs the calldata of a SETTLED intent once: SETTLED_AND_MANUALLY_EXECUTED, ExternalCalldataExecuted", async () => {
    const f = fixture()
    const intent = await foreignIntent(f, { data: intentData(f.target, encodeFunctionData({ abi: abis.target, functionName: "record", args: [5n] })) })
    await settleIntent(f, intent)
    const receipt = await mined(f, f.chain.wallet(Role.user).writeContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "executeIntentCalldata", args: [intentArgs(intent)] }))
    const [executed] = parseEventLogs({ abi: abis.spoke, eventName: "ExternalCalldataExecuted", logs: receipt.logs })
    expect(executed!.args.intentId).toBe(intentId(intent))
    expect(BigInt(executed!.args.returnData)).toBe(10n)
    expect(await f.chain.publicClient.readContract({ address: f.target, abi: abis.target, functionName: "lastValue" })).toBe(5n)
    expect(await status(f, intentId(intent))).toBe(IntentStatus.SETTLED_AND_MANUALLY_EXECUTED)
    await expectRevert(simulateExecute(f, intent), "ClearingSpoke_ExecuteIntentCalldata_InvalidStatus", [IntentStatus.SETTLED_AND_MANUALLY_EXECUTED])
  })

  it("an intent without calldata only changes status and emits empty return data", async () => {
    const f = fixture()
    const intent = await foreignIntent(f)
    await settleIntent(f, intent)
    const receipt = await mined(f, f.chain.wallet(Role.user).writeContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "executeIntentCalldata", args: [intentArgs(intent)] }))
    expect(parseEventLogs({ abi: abis.spoke, eventName: "ExternalCalldataExecuted", logs: receipt.logs })[0]!.args.returnData).toBe("0x")
  })

  it("reverts: ClearingSpoke_Paused, ClearingSpoke_WrongDestination, ClearingSpoke_ExecuteIntentCalldata_InvalidStatus, ..._ExternalCallFailed", async () => {
    const f = fixture()
    const failing = await foreignIntent(f, { data: intentData(f.target, encodeFunctionData({ abi: abis.target, functionName: "fail", args: [1n] })) })
    await expectRevert(simulateExecute(f, failing), "ClearingSpoke_ExecuteIntentCalldata_InvalidStatus", [IntentStatus.NONE])
    await settleIntent(f, failing)
    await expectRevert(simulateExecute(f, failing), "ClearingSpoke_ExecuteIntentCalldata_ExternalCallFailed", [])
    await expectRevert(simulateExecute(f, { ...failing, destinations: [HUB_DOMAIN] }), "ClearingSpoke_WrongDestination", [])
    await mined(f, f.chain.wallet(Role.watchtower).writeContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "pause" }))
    await expectRevert(simulateExecute(f, failing), "ClearingSpoke_Paused", [])
  })
})
