/**
 * ClearingSpoke on anvil: newIntent (checks in reference §4.1 order), the intent queue, virtual balances, roles.
 * Fills are in fill.test.ts, settlement receipt in settlement.test.ts.
 */
import { describe, expect, it } from "vitest"
import { encodeAbiParameters, type Hex, keccak256, parseEventLogs, zeroAddress } from "viem"
import { decodeMessage, encodeIntentMessage, intentId } from "../domain/encoding.ts"
import { addressToBytes32 } from "../domain/hex.ts"
import { type Intent, IntentStatus, Strategy } from "../domain/protocol.ts"
import {
  abis,
  approveAll,
  createIntent,
  DESTINATION_DOMAIN,
  expectRevert,
  HUB_DOMAIN,
  intentArgs,
  mined,
  newIntentArgs,
  newIntentParameters,
  type NewIntentParameters,
  Role,
  SPOKE_CHAIN_ID,
  type SpokeFixture,
  units,
  useSpokeFixture,
  XT_BURN_LIMIT,
} from "./test/fixture.ts"

const fixture = useSpokeFixture(async (f) => {
  await approveAll(f, f.deployment.spoke, [Role.user, Role.solver])
  await approveAll(f, f.deployment.xerc20Module, [Role.user])
})

const simulateNewIntent = (f: SpokeFixture, overrides: Partial<NewIntentParameters> = {}, from: number = Role.user, blockTag: "latest" | "pending" = "latest") =>
  f.chain.publicClient.simulateContract({
    blockTag,
    address: f.deployment.spoke,
    abi: abis.spoke,
    functionName: "newIntent",
    args: newIntentArgs(newIntentParameters(f, overrides)),
    account: f.accounts[from]!,
  })

const read = {
  status: (f: SpokeFixture, id: Hex) =>
    f.chain.publicClient.readContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "status", args: [id] }),
  balanceOf: (f: SpokeFixture, token: Hex, account: Hex) =>
    f.chain.publicClient.readContract({ address: token, abi: abis.erc20, functionName: "balanceOf", args: [account] }),
  virtualBalance: (f: SpokeFixture, token: Hex, account: Hex) =>
    f.chain.publicClient.readContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "balances", args: [token, account] }),
  quote: (f: SpokeFixture, message: Hex) =>
    f.chain.publicClient.readContract({ address: f.deployment.gateway, abi: abis.gateway, functionName: "quoteMessage", args: [HUB_DOMAIN, message] }),
}

const pause = (f: SpokeFixture) =>
  mined(f, f.chain.wallet(Role.lighthouse).writeContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "pause" }))

describe("ClearingSpoke.newIntent", () => {
  it("creates an intent whose emitted id is intentId() of the emitted intent, and pulls the funds", async () => {
    const f = fixture()
    const usdc = f.token("USDC")
    const before = await read.balanceOf(f, usdc, f.accounts[Role.user]!)
    // The intent id covers block.timestamp: simulate on the pending block, the one the write lands in.
    const simulated = await simulateNewIntent(f, { amount: 100_500_000n }, Role.user, "pending")
    const { intentId: id, intent, queueIdx, receipt } = await createIntent(f, { amount: 100_500_000n })
    const block = await f.chain.publicClient.getBlock({ blockNumber: receipt.blockNumber })

    expect(id).toBe(intentId(intent))
    expect(simulated.result[0]).toBe(id)
    expect(queueIdx).toBe(1n)
    expect(intent).toEqual({
      initiator: addressToBytes32(f.accounts[Role.user]!),
      receiver: addressToBytes32(f.accounts[Role.other]!),
      inputAsset: addressToBytes32(usdc),
      outputAsset: addressToBytes32(zeroAddress),
      maxFee: 0,
      origin: SPOKE_CHAIN_ID,
      nonce: 1n,
      timestamp: Number(block.timestamp),
      ttl: 0,
      amount: 100_500_000_000_000_000_000n,
      destinations: [DESTINATION_DOMAIN],
      data: "0x",
    } satisfies Intent)
    expect(await read.status(f, id)).toBe(IntentStatus.ADDED)
    expect(await read.balanceOf(f, usdc, f.accounts[Role.user]!)).toBe(before - 100_500_000n)
    expect(await read.balanceOf(f, usdc, f.deployment.spoke)).toBe(100_500_000n)

    const second = await createIntent(f, { amount: 1n })
    expect(second.intent.nonce).toBe(2n)
    expect(second.queueIdx).toBe(2n)
    expect(second.intentId).toBe(intentId(second.intent))
    const spoke = { address: f.deployment.spoke, abi: abis.spoke } as const
    expect(await f.chain.publicClient.readContract({ ...spoke, functionName: "intentQueueFirst" })).toBe(1n)
    expect(await f.chain.publicClient.readContract({ ...spoke, functionName: "intentQueueLast" })).toBe(2n)
    expect(await f.chain.publicClient.readContract({ ...spoke, functionName: "intentQueue", args: [2n] })).toBe(second.intentId)
  })

  it("normalizes 12 and 24 decimals to 18 (multiplying, or dividing with truncation)", async () => {
    const f = fixture()
    const t12 = await createIntent(f, { inputAsset: f.token("T12"), amount: 1_234_567_890_123n })
    expect(t12.intent.amount).toBe(1_234_567_890_123_000_000n)
    const t24 = await createIntent(f, { inputAsset: f.token("T24"), amount: 1_234_567_891_234_567_891_234_567n })
    expect(t24.intent.amount).toBe(1_234_567_891_234_567_891n)
    // The truncated dust still goes to the spoke: it pulls the native amount.
    expect(await read.balanceOf(f, f.token("T24"), f.deployment.spoke)).toBe(1_234_567_891_234_567_891_234_567n)
  })

  it("accepts multi-destination and destination-less netting intents, and a solver intent with an output asset", async () => {
    const f = fixture()
    const multi = await createIntent(f, { destinations: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10] })
    expect(multi.intent.destinations).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    const none = await createIntent(f, { destinations: [] })
    expect(none.intent.destinations).toEqual([])
    const solver = await createIntent(f, { ttl: 3_600, outputAsset: f.token("WETH"), maxFee: 100_000 })
    expect(solver.intent.ttl).toBe(3_600)
    const withData = await createIntent(f, { data: `0x${"ab".repeat(50_000)}` })
    expect(withData.intentId).toBe(intentId(withData.intent))
  })

  it("burns xERC20 input through the module instead of custodying it", async () => {
    const f = fixture()
    const xt = f.token("XT")
    const supply = await f.chain.publicClient.readContract({ address: xt, abi: abis.xerc20, functionName: "totalSupply" })
    const { intent } = await createIntent(f, { inputAsset: xt, amount: units(40n, 18) })
    expect(intent.amount).toBe(units(40n, 18))
    expect(await read.balanceOf(f, xt, f.deployment.spoke)).toBe(0n)
    expect(await f.chain.publicClient.readContract({ address: xt, abi: abis.xerc20, functionName: "totalSupply" })).toBe(
      supply - units(40n, 18),
    )
    expect(
      await f.chain.publicClient.readContract({
        address: xt,
        abi: abis.xerc20,
        functionName: "burningCurrentLimitOf",
        args: [f.deployment.xerc20Module],
      }),
    ).toBe(XT_BURN_LIMIT - units(40n, 18))
  })

  describe("reverts, in check order", () => {
    it("1. ClearingSpoke_Paused before any other check", async () => {
      const f = fixture()
      await pause(f)
      await expectRevert(simulateNewIntent(f, { destinations: Array(11).fill(1), maxFee: 200_000, amount: 0n }), "ClearingSpoke_Paused", [])
    })

    it("2. more than 10 destinations: ClearingSpoke_NewIntent_InvalidIntent (before the maxFee check)", async () => {
      const f = fixture()
      await expectRevert(simulateNewIntent(f, { destinations: Array(11).fill(1), maxFee: 200_000 }), "ClearingSpoke_NewIntent_InvalidIntent", [])
    })

    it("3. ttl/outputAsset rules: ClearingSpoke_NewIntent_InvalidIntent", async () => {
      const f = fixture()
      const weth = f.token("WETH")
      // One destination: a solver intent (ttl > 0) needs an output asset.
      await expectRevert(simulateNewIntent(f, { ttl: 1, maxFee: 200_000 }), "ClearingSpoke_NewIntent_InvalidIntent", [])
      // Zero or several destinations: netting only, no ttl and no output asset.
      await expectRevert(simulateNewIntent(f, { destinations: [], ttl: 1 }), "ClearingSpoke_NewIntent_InvalidIntent", [])
      await expectRevert(simulateNewIntent(f, { destinations: [], outputAsset: weth }), "ClearingSpoke_NewIntent_InvalidIntent", [])
      await expectRevert(simulateNewIntent(f, { destinations: [1, 2], ttl: 1, outputAsset: weth }), "ClearingSpoke_NewIntent_InvalidIntent", [])
      await expectRevert(simulateNewIntent(f, { destinations: [1, 2], outputAsset: weth }), "ClearingSpoke_NewIntent_InvalidIntent", [])
    })

    it("4. maxFee above 100_000 dbps: ClearingSpoke_NewIntent_MaxFeeExceeded(maxFee, 100_000) (before the calldata check)", async () => {
      const f = fixture()
      await expectRevert(
        simulateNewIntent(f, { maxFee: 100_001, data: `0x${"00".repeat(50_001)}` }),
        "ClearingSpoke_NewIntent_MaxFeeExceeded",
        [100_001, 100_000],
      )
    })

    it("5. data above 50_000 bytes: ClearingSpoke_NewIntent_CalldataExceedsLimit (before the amount check)", async () => {
      const f = fixture()
      await expectRevert(simulateNewIntent(f, { data: `0x${"00".repeat(50_001)}`, amount: 0n }), "ClearingSpoke_NewIntent_CalldataExceedsLimit", [])
    })

    it("6. normalized amount 0: ClearingSpoke_NewIntent_ZeroAmount (zero, or truncated from 24 decimals)", async () => {
      const f = fixture()
      await expectRevert(simulateNewIntent(f, { amount: 0n }), "ClearingSpoke_NewIntent_ZeroAmount", [])
      await expectRevert(simulateNewIntent(f, { inputAsset: f.token("T24"), amount: 999_999n }), "ClearingSpoke_NewIntent_ZeroAmount", [])
    })

    it("an input asset without decimals(): ClearingSpoke_DecimalsUnavailable(asset)", async () => {
      const f = fixture()
      const notAToken = f.accounts[Role.other]!
      await expectRevert(simulateNewIntent(f, { inputAsset: notAToken }), "ClearingSpoke_DecimalsUnavailable", [notAToken])
    })

    it("7. funds (DEFAULT): the token's own revert bubbles up; a false return gives ClearingSpoke_TransferFailed", async () => {
      const f = fixture()
      // The `other` account never approved the spoke.
      await expectRevert(simulateNewIntent(f, {}, Role.other), "ERC20_InsufficientAllowance", [f.deployment.spoke, 0n, units(100n, 6)])
      const blk = f.token("BLK")
      await mined(
        f,
        f.chain.wallet(Role.owner).writeContract({ address: blk, abi: abis.blacklist, functionName: "setBlacklisted", args: [f.deployment.spoke, true] }),
      )
      await expectRevert(simulateNewIntent(f, { inputAsset: blk, amount: 5n }), "ClearingSpoke_TransferFailed", [
        blk,
        f.accounts[Role.user]!,
        f.deployment.spoke,
        5n,
      ])
    })

    it("7. funds (XERC20): over the module's burning limit, XERC20Module_HandleBurnStrategy_InsufficientBurningLimit", async () => {
      const f = fixture()
      const xt = f.token("XT")
      await expectRevert(
        simulateNewIntent(f, { inputAsset: xt, amount: XT_BURN_LIMIT + 1n }),
        "XERC20Module_HandleBurnStrategy_InsufficientBurningLimit",
        [xt, XT_BURN_LIMIT, XT_BURN_LIMIT + 1n],
      )
    })

    it("7. funds (XERC20) without a module: ClearingSpoke_StrategyModuleNotSet(XERC20)", async () => {
      const f = fixture()
      await mined(
        f,
        f.chain.wallet(Role.owner).writeContract({
          address: f.deployment.spoke,
          abi: abis.spoke,
          functionName: "setModuleForStrategy",
          args: [Strategy.XERC20, zeroAddress],
        }),
      )
      await expectRevert(simulateNewIntent(f, { inputAsset: f.token("XT"), amount: 1n }), "ClearingSpoke_StrategyModuleNotSet", [Strategy.XERC20])
    })
  })
})

describe("ClearingSpoke.processIntentQueue", () => {
  const processQueue = (f: SpokeFixture, intents: readonly Intent[], value: bigint, from: number = Role.other) =>
    f.chain.wallet(from).writeContract({
      address: f.deployment.spoke,
      abi: abis.spoke,
      functionName: "processIntentQueue",
      args: [intents.map(intentArgs)],
      value,
    })
  const simulateProcessQueue = (f: SpokeFixture, intents: readonly Intent[], value: bigint) =>
    f.chain.publicClient.simulateContract({
      address: f.deployment.spoke,
      abi: abis.spoke,
      functionName: "processIntentQueue",
      args: [intents.map(intentArgs)],
      value,
      account: f.accounts[Role.other]!,
    })
  const intentMessage = encodeIntentMessage

  it("sends the first intents as one INTENT batch that decodes to them, with the messageId of the gateway", async () => {
    const f = fixture()
    const a = await createIntent(f, { amount: 1_000_000n })
    const b = await createIntent(f, { amount: 2_000_000n, destinations: [1, 2] })
    const c = await createIntent(f, { amount: 3_000_000n, inputAsset: f.token("WETH") })
    const quote = await read.quote(f, intentMessage([a.intent, b.intent]))
    const receipt = await mined(f, processQueue(f, [a.intent, b.intent], quote))

    const [sent] = parseEventLogs({ abi: abis.gateway, eventName: "MessageSent", logs: receipt.logs })
    const [processed] = parseEventLogs({ abi: abis.spoke, eventName: "IntentQueueProcessed", logs: receipt.logs })
    expect(sent!.args.destination).toBe(HUB_DOMAIN)
    expect(sent!.args.nonce).toBe(1n)
    expect(sent!.args.fee).toBe(quote)
    const decoded = decodeMessage(sent!.args.message)
    expect(decoded).toEqual({ type: "INTENT", intents: [a.intent, b.intent] })
    expect(sent!.args.messageId).toBe(
      keccak256(
        encodeAbiParameters(
          [{ type: "uint32" }, { type: "uint32" }, { type: "uint256" }, { type: "bytes" }],
          [SPOKE_CHAIN_ID, HUB_DOMAIN, 1n, sent!.args.message],
        ),
      ),
    )
    expect(processed!.args).toEqual({ messageId: sent!.args.messageId, firstIdx: 1n, lastIdx: 3n, quote })
    // Overpaying is accepted; the gateway keeps the quote and refunds the rest to tx.origin (reference §1.6).
    const quoteC = await read.quote(f, intentMessage([c.intent]))
    const caller = f.accounts[Role.other]!
    const callerBefore = await f.chain.publicClient.getBalance({ address: caller })
    const second = await mined(f, processQueue(f, [c.intent], quoteC + 5n))
    expect(await f.chain.publicClient.getBalance({ address: caller })).toBe(callerBefore - quoteC - second.gasUsed * second.effectiveGasPrice)
    const [processedC] = parseEventLogs({ abi: abis.spoke, eventName: "IntentQueueProcessed", logs: second.logs })
    const [sentC] = parseEventLogs({ abi: abis.gateway, eventName: "MessageSent", logs: second.logs })
    expect(processedC!.args.firstIdx).toBe(3n)
    expect(processedC!.args.lastIdx).toBe(4n)
    expect(sentC!.args.fee).toBe(quoteC)
    expect(await f.chain.publicClient.getBalance({ address: f.deployment.gateway })).toBe(quote + quoteC)
    expect(await f.chain.publicClient.getBalance({ address: f.deployment.spoke })).toBe(0n)
    // Dispatched intents keep their ADDED status on the spoke.
    expect(await read.status(f, a.intentId)).toBe(IntentStatus.ADDED)
  })

  it("reverts: ClearingSpoke_Paused", async () => {
    const f = fixture()
    const a = await createIntent(f)
    await pause(f)
    await expectRevert(simulateProcessQueue(f, [a.intent], 10n ** 18n), "ClearingSpoke_Paused", [])
  })

  it("reverts: ClearingSpoke_ProcessQueue_ZeroAmount and ClearingSpoke_ProcessQueue_InvalidAmount(first, last, amount)", async () => {
    const f = fixture()
    await expectRevert(simulateProcessQueue(f, [], 10n ** 18n), "ClearingSpoke_ProcessQueue_ZeroAmount", [])
    const a = await createIntent(f)
    await expectRevert(simulateProcessQueue(f, [a.intent, a.intent], 10n ** 18n), "ClearingSpoke_ProcessQueue_InvalidAmount", [1n, 1n, 2n])
  })

  it("reverts: ClearingSpoke_ProcessIntentQueue_NotFound(hash, index) out of order or altered", async () => {
    const f = fixture()
    const a = await createIntent(f)
    const b = await createIntent(f)
    await expectRevert(simulateProcessQueue(f, [b.intent, a.intent], 10n ** 18n), "ClearingSpoke_ProcessIntentQueue_NotFound", [b.intentId, 0n])
    const altered = { ...b.intent, amount: b.intent.amount + 1n }
    await expectRevert(simulateProcessQueue(f, [a.intent, altered], 10n ** 18n), "ClearingSpoke_ProcessIntentQueue_NotFound", [intentId(altered), 1n])
  })

  it("reverts: ClearingSpoke_ProcessQueue_InsufficientFee(provided, required) below the gateway quote", async () => {
    const f = fixture()
    const a = await createIntent(f)
    const quote = await read.quote(f, intentMessage([a.intent]))
    expect(quote).toBeGreaterThan(0n)
    await expectRevert(simulateProcessQueue(f, [a.intent], quote - 1n), "ClearingSpoke_ProcessQueue_InsufficientFee", [quote - 1n, quote])
  })
})

describe("ClearingSpoke.deposit and withdraw", () => {
  const spokeCall = (f: SpokeFixture, from: number, functionName: "deposit" | "withdraw", token: Hex, amount: bigint) =>
    f.chain.wallet(from).writeContract({ address: f.deployment.spoke, abi: abis.spoke, functionName, args: [token, amount] })
  const simulateSpokeCall = (f: SpokeFixture, from: number, functionName: "deposit" | "withdraw", token: Hex, amount: bigint) =>
    f.chain.publicClient.simulateContract({
      address: f.deployment.spoke,
      abi: abis.spoke,
      functionName,
      args: [token, amount],
      account: f.accounts[from]!,
    })

  it("credits deposits and pays withdrawals in native units, with events", async () => {
    const f = fixture()
    const usdc = f.token("USDC")
    const solver = f.accounts[Role.solver]!
    const before = await read.balanceOf(f, usdc, solver)
    const deposited = await mined(f, spokeCall(f, Role.solver, "deposit", usdc, 7_000_000n))
    expect(parseEventLogs({ abi: abis.spoke, eventName: "Deposited", logs: deposited.logs })[0]!.args).toEqual({
      depositant: solver,
      asset: usdc,
      amount: 7_000_000n,
    })
    expect(await read.virtualBalance(f, usdc, solver)).toBe(7_000_000n)
    const withdrawn = await mined(f, spokeCall(f, Role.solver, "withdraw", usdc, 2_000_000n))
    expect(parseEventLogs({ abi: abis.spoke, eventName: "Withdrawn", logs: withdrawn.logs })[0]!.args).toEqual({
      withdrawer: solver,
      asset: usdc,
      amount: 2_000_000n,
    })
    expect(await read.virtualBalance(f, usdc, solver)).toBe(5_000_000n)
    expect(await read.balanceOf(f, usdc, solver)).toBe(before - 5_000_000n)
  })

  it("reverts: ClearingSpoke_Paused for both", async () => {
    const f = fixture()
    await mined(f, spokeCall(f, Role.solver, "deposit", f.token("USDC"), 1n))
    await pause(f)
    await expectRevert(simulateSpokeCall(f, Role.solver, "deposit", f.token("USDC"), 1n), "ClearingSpoke_Paused", [])
    await expectRevert(simulateSpokeCall(f, Role.solver, "withdraw", f.token("USDC"), 1n), "ClearingSpoke_Paused", [])
  })

  it("reverts: deposit without allowance bubbles ERC20_InsufficientAllowance", async () => {
    const f = fixture()
    await expectRevert(simulateSpokeCall(f, Role.other, "deposit", f.token("USDC"), 1n), "ERC20_InsufficientAllowance", [f.deployment.spoke, 0n, 1n])
  })

  it("reverts: withdraw above the balance, ClearingSpoke_Withdraw_InsufficientBalance(requested, available)", async () => {
    const f = fixture()
    await mined(f, spokeCall(f, Role.solver, "deposit", f.token("USDC"), 10n))
    await expectRevert(simulateSpokeCall(f, Role.solver, "withdraw", f.token("USDC"), 11n), "ClearingSpoke_Withdraw_InsufficientBalance", [11n, 10n])
  })

  it("reverts: withdraw to a recipient the token refuses, ClearingSpoke_TransferFailed", async () => {
    const f = fixture()
    const blk = f.token("BLK")
    const solver = f.accounts[Role.solver]!
    await mined(f, spokeCall(f, Role.solver, "deposit", blk, 10n))
    await mined(f, f.chain.wallet(Role.owner).writeContract({ address: blk, abi: abis.blacklist, functionName: "setBlacklisted", args: [solver, true] }))
    await expectRevert(simulateSpokeCall(f, Role.solver, "withdraw", blk, 10n), "ClearingSpoke_TransferFailed", [blk, f.deployment.spoke, solver, 10n])
  })
})

describe("ClearingSpoke roles", () => {
  const simulateAs = (f: SpokeFixture, from: number, call: OwnerCall) =>
    f.chain.publicClient.simulateContract({ address: f.deployment.spoke, abi: abis.spoke, account: f.accounts[from]!, ...call } as never)

  it("pause and unpause only by the lighthouse or the watchtower: ClearingSpoke_Pause_NotAuthorized(caller)", async () => {
    const f = fixture()
    const spoke = { address: f.deployment.spoke, abi: abis.spoke } as const
    for (const functionName of ["pause", "unpause"] as const) {
      await expectRevert(
        f.chain.publicClient.simulateContract({ ...spoke, functionName, account: f.accounts[Role.owner]! }),
        "ClearingSpoke_Pause_NotAuthorized",
        [f.accounts[Role.owner]!],
      )
    }
    const paused = await mined(f, f.chain.wallet(Role.lighthouse).writeContract({ ...spoke, functionName: "pause" }))
    expect(parseEventLogs({ abi: abis.spoke, eventName: "Paused", logs: paused.logs })).toHaveLength(1)
    expect(await f.chain.publicClient.readContract({ ...spoke, functionName: "paused" })).toBe(true)
    const unpaused = await mined(f, f.chain.wallet(Role.watchtower).writeContract({ ...spoke, functionName: "unpause" }))
    expect(parseEventLogs({ abi: abis.spoke, eventName: "Unpaused", logs: unpaused.logs })).toHaveLength(1)
    expect(await f.chain.publicClient.readContract({ ...spoke, functionName: "paused" })).toBe(false)
  })

  it("owner setters: ClearingSpoke_NotOwner(caller) for anyone else; the owner's calls take effect", async () => {
    const f = fixture()
    const someone = f.accounts[Role.other]!
    const calls: OwnerCall[] = [
      { functionName: "updateGateway", args: [someone] },
      { functionName: "updateLighthouse", args: [someone] },
      { functionName: "updateWatchtower", args: [someone] },
      { functionName: "updateHubDomain", args: [7] },
      { functionName: "setStrategyForAsset", args: [f.token("USDC"), Strategy.XERC20] },
      { functionName: "setModuleForStrategy", args: [Strategy.XERC20, someone] },
      { functionName: "transferOwnership", args: [someone] },
    ]
    for (const call of calls) {
      await expectRevert(simulateAs(f, Role.user, call), "ClearingSpoke_NotOwner", [f.accounts[Role.user]!])
      await simulateAs(f, Role.owner, call)
    }
    const spoke = { address: f.deployment.spoke, abi: abis.spoke } as const
    await mined(f, f.chain.wallet(Role.owner).writeContract({ ...spoke, functionName: "setStrategyForAsset", args: [f.token("USDC"), Strategy.XERC20] }))
    expect(await f.chain.publicClient.readContract({ ...spoke, functionName: "strategies", args: [f.token("USDC")] })).toBe(Strategy.XERC20)
    await mined(f, f.chain.wallet(Role.owner).writeContract({ ...spoke, functionName: "updateHubDomain", args: [7] }))
    expect(await f.chain.publicClient.readContract({ ...spoke, functionName: "hubDomain" })).toBe(7)
  })

  it("exposes its wiring: domain, hub domain, gateway, roles, module", async () => {
    const f = fixture()
    const spoke = { address: f.deployment.spoke, abi: abis.spoke } as const
    const r = f.chain.publicClient
    expect(await r.readContract({ ...spoke, functionName: "DOMAIN" })).toBe(SPOKE_CHAIN_ID)
    expect(await r.readContract({ ...spoke, functionName: "hubDomain" })).toBe(HUB_DOMAIN)
    expect(await r.readContract({ ...spoke, functionName: "gateway" })).toBe(f.deployment.gateway)
    expect(await r.readContract({ ...spoke, functionName: "lighthouse" })).toBe(f.accounts[Role.lighthouse])
    expect(await r.readContract({ ...spoke, functionName: "watchtower" })).toBe(f.accounts[Role.watchtower])
    expect(await r.readContract({ ...spoke, functionName: "owner" })).toBe(f.accounts[Role.owner])
    expect(await r.readContract({ ...spoke, functionName: "modules", args: [Strategy.XERC20] })).toBe(f.deployment.xerc20Module)
    expect(await r.readContract({ ...spoke, functionName: "strategies", args: [f.token("XT")] })).toBe(Strategy.XERC20)
    expect(await r.readContract({ ...spoke, functionName: "GATEWAY_HASH" })).toBe(
      keccak256(encodeAbiParameters([{ type: "string" }], ["GATEWAY"])),
    )
  })
})

interface OwnerCall {
  readonly functionName: string
  readonly args: readonly unknown[]
}
