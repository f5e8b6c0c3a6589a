/**
 * FeeAdapter on anvil (reference §5.1): signed fees, the order of the checks, newOrder, the unsupported-intent refund.
 * The fee signer signs with viem's `signMessage({ message: { raw: hash } })` (EIP-191 personal_sign).
 */
import { describe, expect, it } from "vitest"
import { type Address, encodeAbiParameters, type Hex, keccak256, maxUint256, parseEventLogs, zeroAddress } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { encodeSettlementMessage, intentId } from "../domain/encoding.ts"
import { addressToBytes32 } from "../domain/hex.ts"
import {
  abis,
  approveAll,
  deliver,
  DESTINATION_DOMAIN,
  expectRevert,
  feeSignerAccount,
  latestTimestamp,
  mined,
  newIntentParameters,
  type NewIntentParameters,
  Role,
  type SpokeFixture,
  units,
  useSpokeFixture,
} from "./test/fixture.ts"

const fixture = useSpokeFixture(async (f) => {
  await approveAll(f, f.deployment.feeAdapter, [Role.user])
})

interface Fee {
  readonly fee: bigint
  readonly nativeFee: bigint
  readonly asset: Address
  readonly deadline: bigint
}

/** The signed payload: `keccak256(abi.encode(uint256 tokenFee, uint256 nativeFee, address inputAsset, uint256 deadline))`. */
const feeHash = (fee: Fee): Hex =>
  keccak256(
    encodeAbiParameters(
      [{ type: "uint256" }, { type: "uint256" }, { type: "address" }, { type: "uint256" }],
      [fee.fee, fee.nativeFee, fee.asset, fee.deadline],
    ),
  )

const sign = (fee: Fee, signer: { signMessage: typeof feeSignerAccount.signMessage } = feeSignerAccount): Promise<Hex> =>
  signer.signMessage({ message: { raw: feeHash(fee) } })

const defaultFee = async (f: SpokeFixture, overrides: Partial<Fee> = {}): Promise<Fee> => ({
  fee: 1_000_000n,
  nativeFee: 1_000n,
  asset: f.token("USDC"),
  deadline: BigInt(await latestTimestamp(f)) + 3_600n,
  ...overrides,
})

interface AdapterCall {
  readonly intent?: Partial<NewIntentParameters>
  readonly fee: Fee
  readonly sig: Hex
  readonly value?: bigint
}

const adapterArgs = (f: SpokeFixture, call: AdapterCall) => {
  const p = newIntentParameters(f, { inputAsset: call.fee.asset, ...call.intent })
  return [p.destinations, p.receiver, p.inputAsset, p.outputAsset, p.amount, p.maxFee, p.ttl, p.data, { fee: call.fee.fee, deadline: call.fee.deadline, sig: call.sig }] as const
}

/** Simulates on the latest block's state and time; `"pending"` simulates the next block, the one a write lands in. */
const simulateNewIntent = (f: SpokeFixture, call: AdapterCall, from: number = Role.user, blockTag: "latest" | "pending" = "latest") =>
  f.chain.publicClient.simulateContract({
    blockTag,
    address: f.deployment.feeAdapter,
    abi: abis.feeAdapter,
    functionName: "newIntent",
    args: adapterArgs(f, call),
    value: call.value ?? call.fee.nativeFee,
    account: f.accounts[from]!,
  })

const newIntent = (f: SpokeFixture, call: AdapterCall, from: number = Role.user) =>
  f.chain.wallet(from).writeContract({
    address: f.deployment.feeAdapter,
    abi: abis.feeAdapter,
    functionName: "newIntent",
    args: adapterArgs(f, call),
    value: call.value ?? call.fee.nativeFee,
  })

const tokenBalance = (f: SpokeFixture, token: Hex, account: Hex) =>
  f.chain.publicClient.readContract({ address: token, abi: abis.erc20, functionName: "balanceOf", args: [account] })

describe("FeeAdapter.newIntent", () => {
  it("pulls amount + fee, pays the token and native fees, and creates the intent with the adapter as initiator", async () => {
    const f = fixture()
    const usdc = f.token("USDC")
    const [user, recipient] = [f.accounts[Role.user]!, f.accounts[Role.feeRecipient]!]
    const fee = await defaultFee(f)
    const call = { fee, sig: await sign(fee), intent: { amount: units(250n, 6) } }
    const [userBefore, recipientBefore, recipientEthBefore] = await Promise.all([
      tokenBalance(f, usdc, user),
      tokenBalance(f, usdc, recipient),
      f.chain.publicClient.getBalance({ address: recipient }),
    ])
    const simulated = await simulateNewIntent(f, call, Role.user, "pending")
    const receipt = await mined(f, newIntent(f, call))

    const [added] = parseEventLogs({ abi: abis.spoke, eventName: "IntentAdded", logs: receipt.logs })
    const [withFees] = parseEventLogs({ abi: abis.feeAdapter, eventName: "IntentWithFeesAdded", logs: receipt.logs })
    const intent = added!.args.intent
    expect(intent.initiator).toBe(addressToBytes32(f.deployment.feeAdapter))
    expect(intent.amount).toBe(units(250n, 18))
    expect(added!.args.intentId).toBe(intentId(intent))
    expect(simulated.result[0]).toBe(intentId(intent))
    expect(withFees!.args).toEqual({ intentId: intentId(intent), initiator: addressToBytes32(user), tokenFee: fee.fee, nativeFee: fee.nativeFee })
    expect(await tokenBalance(f, usdc, user)).toBe(userBefore - units(250n, 6) - fee.fee)
    expect(await tokenBalance(f, usdc, recipient)).toBe(recipientBefore + fee.fee)
    expect(await f.chain.publicClient.getBalance({ address: recipient })).toBe(recipientEthBefore + fee.nativeFee)
    expect(await tokenBalance(f, usdc, f.deployment.spoke)).toBe(units(250n, 6))
    expect(await tokenBalance(f, usdc, f.deployment.feeAdapter)).toBe(0n)
    expect(
      await f.chain.publicClient.readContract({ address: usdc, abi: abis.erc20, functionName: "allowance", args: [f.deployment.feeAdapter, f.deployment.spoke] }),
    ).toBe(maxUint256)
    // The signature carries no nonce: it can be reused until the deadline.
    await mined(f, newIntent(f, call))
  })

  it("approves the xERC20 module for an XERC20 input, which burns the amount", async () => {
    const f = fixture()
    const xt = f.token("XT")
    const fee = await defaultFee(f, { asset: xt, fee: units(1n, 18), nativeFee: 0n })
    const supply = await f.chain.publicClient.readContract({ address: xt, abi: abis.xerc20, functionName: "totalSupply" })
    await mined(f, newIntent(f, { fee, sig: await sign(fee), intent: { amount: units(10n, 18) } }))
    expect(await f.chain.publicClient.readContract({ address: xt, abi: abis.xerc20, functionName: "totalSupply" })).toBe(supply - units(10n, 18))
    expect(await tokenBalance(f, xt, f.accounts[Role.feeRecipient]!)).toBe(units(1n, 18))
    expect(
      await f.chain.publicClient.readContract({ address: xt, abi: abis.xerc20, functionName: "allowance", args: [f.deployment.feeAdapter, f.deployment.xerc20Module] }),
    ).toBe(maxUint256)
  })

  it("accepts a deadline equal to block.timestamp and a zero fee", async () => {
    const f = fixture()
    const fee = await defaultFee(f, { fee: 0n, nativeFee: 0n, deadline: BigInt(await latestTimestamp(f)) })
    await simulateNewIntent(f, { fee, sig: await sign(fee) })
  })

  describe("reverts, in check order", () => {
    it("1. the pull comes first: the token's ERC20_InsufficientAllowance even with a bad signature", async () => {
      const f = fixture()
      const fee = await defaultFee(f)
      await expectRevert(simulateNewIntent(f, { fee, sig: "0x" }, Role.other), "ERC20_InsufficientAllowance", [
        f.deployment.feeAdapter,
        0n,
        units(100n, 6) + fee.fee,
      ])
    })

    it("2. FeeAdapter_InvalidSignature: another signer, or any signed field different from the call", async () => {
      const f = fixture()
      const fee = await defaultFee(f)
      const stranger = privateKeyToAccount(keccak256("0x01"))
      await expectRevert(simulateNewIntent(f, { fee, sig: await sign(fee, stranger) }), "FeeAdapter_InvalidSignature", [])
      const signed = await sign(fee)
      await expectRevert(simulateNewIntent(f, { fee: { ...fee, fee: fee.fee + 1n }, sig: signed }), "FeeAdapter_InvalidSignature", [])
      await expectRevert(simulateNewIntent(f, { fee, sig: signed, value: fee.nativeFee + 1n }), "FeeAdapter_InvalidSignature", [])
      await expectRevert(simulateNewIntent(f, { fee: { ...fee, deadline: fee.deadline + 1n }, sig: signed }), "FeeAdapter_InvalidSignature", [])
      await expectRevert(simulateNewIntent(f, { fee: { ...fee, asset: f.token("WETH") }, sig: signed, intent: { amount: 1n } }), "FeeAdapter_InvalidSignature", [])
    })

    it("2. OpenZeppelin's ECDSA.recover errors for malformed signatures (64 bytes, high s, bad v), v not normalized", async () => {
      const f = fixture()
      const fee = await defaultFee(f)
      const signed = await sign(fee)
      await expectRevert(simulateNewIntent(f, { fee, sig: `0x${signed.slice(2, 130)}` }), "ECDSAInvalidSignatureLength", [64n])
      const secp256k1n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
      const s = BigInt(`0x${signed.slice(66, 130)}`)
      const v = Number.parseInt(signed.slice(130), 16)
      const highS = `0x${(secp256k1n - s).toString(16).padStart(64, "0")}` as Hex
      const malleable: Hex = `0x${signed.slice(2, 66)}${highS.slice(2)}${(v === 27 ? 28 : 27).toString(16)}`
      await expectRevert(simulateNewIntent(f, { fee, sig: malleable }), "ECDSAInvalidSignatureS", [highS])
      await expectRevert(simulateNewIntent(f, { fee, sig: `0x${signed.slice(2, 130)}1d` }), "ECDSAInvalidSignature", [])
      // v as 0/1 (yParity) is not turned into 27/28: ecrecover gives address(0), which recover refuses.
      await expectRevert(simulateNewIntent(f, { fee, sig: `0x${signed.slice(2, 130)}0${v - 27}` }), "ECDSAInvalidSignature", [])
      await expectRevert(simulateNewIntent(f, { fee, sig: `0x${signed.slice(2, 130)}0${28 - v}` }), "ECDSAInvalidSignature", [])
      // r = 0 has no point: ecrecover gives address(0) too.
      await expectRevert(simulateNewIntent(f, { fee, sig: `0x${"0".repeat(64)}${signed.slice(66)}` }), "ECDSAInvalidSignature", [])
      // A well-formed signature of other fees (it recovers to another address) is the adapter's own refusal.
      await expectRevert(simulateNewIntent(f, { fee, sig: await sign({ ...fee, fee: fee.fee + 1n }) }), "FeeAdapter_InvalidSignature", [])
    })

    it("3. FeeAdapter_InvalidDeadline after the deadline (a bad signature is reported first)", async () => {
      const f = fixture()
      const fee = await defaultFee(f, { deadline: BigInt(await latestTimestamp(f)) - 1n })
      await expectRevert(simulateNewIntent(f, { fee, sig: await sign(fee) }), "FeeAdapter_InvalidDeadline", [])
      await expectRevert(simulateNewIntent(f, { fee, sig: await sign({ ...fee, fee: 0n }) }), "FeeAdapter_InvalidSignature", [])
    })

    it("4. the fee push: FeeAdapter_TransferFailed(asset, adapter, feeRecipient, fee) when the token refuses", async () => {
      const f = fixture()
      const blk = f.token("BLK")
      const recipient = f.accounts[Role.feeRecipient]!
      await mined(f, f.chain.wallet(Role.owner).writeContract({ address: blk, abi: abis.blacklist, functionName: "setBlacklisted", args: [recipient, true] }))
      const fee = await defaultFee(f, { asset: blk })
      await expectRevert(simulateNewIntent(f, { fee, sig: await sign(fee) }), "FeeAdapter_TransferFailed", [blk, f.deployment.feeAdapter, recipient, fee.fee])
    })

    it("5. the native fee: FeeAdapter_NativeTransferFailed(feeRecipient, value) when the recipient refuses ether", async () => {
      const f = fixture()
      await mined(f, f.chain.wallet(Role.owner).writeContract({ address: f.deployment.feeAdapter, abi: abis.feeAdapter, functionName: "updateFeeRecipient", args: [f.target] }))
      const fee = await defaultFee(f)
      await expectRevert(simulateNewIntent(f, { fee, sig: await sign(fee) }), "FeeAdapter_NativeTransferFailed", [f.target, fee.nativeFee])
    })

    it("6. the approval: FeeAdapter_ApproveFailed(asset, spender) when the token refuses to approve the spoke", async () => {
      const f = fixture()
      const blk = f.token("BLK")
      await mined(f, f.chain.wallet(Role.owner).writeContract({ address: blk, abi: abis.blacklist, functionName: "setBlacklisted", args: [f.deployment.spoke, true] }))
      const fee = await defaultFee(f, { asset: blk })
      await expectRevert(simulateNewIntent(f, { fee, sig: await sign(fee) }), "FeeAdapter_ApproveFailed", [blk, f.deployment.spoke])
    })

    it("7. the spoke's errors bubble up: ClearingSpoke_Paused, ClearingSpoke_NewIntent_MaxFeeExceeded", async () => {
      const f = fixture()
      const fee = await defaultFee(f)
      const sig = await sign(fee)
      await expectRevert(simulateNewIntent(f, { fee, sig, intent: { maxFee: 100_001 } }), "ClearingSpoke_NewIntent_MaxFeeExceeded", [100_001, 100_000])
      await mined(f, f.chain.wallet(Role.lighthouse).writeContract({ address: f.deployment.spoke, abi: abis.spoke, functionName: "pause" }))
      await expectRevert(simulateNewIntent(f, { fee, sig }), "ClearingSpoke_Paused", [])
    })
  })
})

describe("FeeAdapter.newOrder", () => {
  const orderParameters = (f: SpokeFixture, overrides: Partial<NewIntentParameters> = {}) => {
    const p = newIntentParameters(f, overrides)
    return { ...p, destinations: [...p.destinations] }
  }
  // On the pending block: the intent ids cover the timestamp of the block the write lands in.
  const simulateNewOrder = (f: SpokeFixture, fee: Fee, sig: Hex, params: readonly ReturnType<typeof orderParameters>[]) =>
    f.chain.publicClient.simulateContract({
      blockTag: "pending",
      address: f.deployment.feeAdapter,
      abi: abis.feeAdapter,
      functionName: "newOrder",
      args: [fee.fee, fee.deadline, sig, params],
      value: fee.nativeFee,
      account: f.accounts[Role.user]!,
    })

  it("creates one intent per parameter set for one fee; orderId = keccak256(abi.encode(intentIds))", async () => {
    const f = fixture()
    const usdc = f.token("USDC")
    const user = f.accounts[Role.user]!
    const fee = await defaultFee(f, { fee: 3_000_000n })
    const params = [
      orderParameters(f, { amount: units(10n, 6) }),
      orderParameters(f, { amount: units(20n, 6), destinations: [DESTINATION_DOMAIN, 1] }),
      orderParameters(f, { amount: units(30n, 6), receiver: f.accounts[Role.solver]! }),
    ]
    const before = await tokenBalance(f, usdc, user)
    const sig = await sign(fee)
    const simulated = await simulateNewOrder(f, fee, sig, params)
    const receipt = await mined(
      f,
      f.chain.wallet(Role.user).writeContract({
        address: f.deployment.feeAdapter,
        abi: abis.feeAdapter,
        functionName: "newOrder",
        args: [fee.fee, fee.deadline, sig, params],
        value: fee.nativeFee,
      }),
    )
    const added = parseEventLogs({ abi: abis.spoke, eventName: "IntentAdded", logs: receipt.logs })
    const ids = added.map((e) => e.args.intentId)
    expect(added.map((e) => e.args.intent.amount)).toEqual([units(10n, 18), units(20n, 18), units(30n, 18)])
    expect(added.map((e) => intentId(e.args.intent))).toEqual(ids)
    const orderId = keccak256(encodeAbiParameters([{ type: "bytes32[]" }], [ids]))
    const [created] = parseEventLogs({ abi: abis.feeAdapter, eventName: "OrderCreated", logs: receipt.logs })
    expect(created!.args).toEqual({ orderId, initiator: addressToBytes32(user), intentIds: ids, tokenFee: fee.fee, nativeFee: fee.nativeFee })
    expect(simulated.result).toEqual([orderId, ids])
    expect(await tokenBalance(f, usdc, user)).toBe(before - units(60n, 6) - fee.fee)
    expect(await tokenBalance(f, usdc, f.deployment.spoke)).toBe(units(60n, 6))
  })

  it("reverts: FeeAdapter_EmptyOrder, FeeAdapter_MultipleOrderAssets (before the pull), then the fee checks", async () => {
    const f = fixture()
    const fee = await defaultFee(f)
    const sig = await sign(fee)
    await expectRevert(simulateNewOrder(f, fee, sig, []), "FeeAdapter_EmptyOrder", [])
    await expectRevert(
      simulateNewOrder(f, fee, "0x", [orderParameters(f), orderParameters(f, { inputAsset: f.token("WETH") })]),
      "FeeAdapter_MultipleOrderAssets",
      [],
    )
    await expectRevert(simulateNewOrder(f, fee, await sign({ ...fee, fee: 1n }), [orderParameters(f)]), "FeeAdapter_InvalidSignature", [])
    const expired = await defaultFee(f, { deadline: 1n })
    await expectRevert(simulateNewOrder(f, expired, await sign(expired), [orderParameters(f)]), "FeeAdapter_InvalidDeadline", [])
    await expectRevert(simulateNewOrder(f, fee, sig, [orderParameters(f, { amount: units(10n ** 9n, 6) })]), "ERC20_InsufficientBalance")
  })
})

describe("FeeAdapter administration", () => {
  it("returnUnsupportedIntent withdraws the adapter's spoke balance and pays the recipient", async () => {
    const f = fixture()
    const usdc = f.token("USDC")
    const user = f.accounts[Role.user]!
    await mined(f, f.chain.wallet(Role.owner).writeContract({ address: usdc, abi: abis.erc20, functionName: "mint", args: [f.deployment.spoke, units(100n, 6)] }))
    // The hub returns an unsupported intent to its initiator, the adapter, as a virtual-balance settlement.
    await deliver(
      f,
      encodeSettlementMessage([
        { intentId: keccak256("0x1234"), amount: units(100n, 18), asset: addressToBytes32(usdc), recipient: addressToBytes32(f.deployment.feeAdapter), updateVirtualBalance: true },
      ]),
      keccak256("0xabcd"),
    )
    const adapter = { address: f.deployment.feeAdapter, abi: abis.feeAdapter } as const
    await expectRevert(
      f.chain.publicClient.simulateContract({ ...adapter, functionName: "returnUnsupportedIntent", args: [usdc, units(100n, 6), user], account: user }),
      "FeeAdapter_NotOwner",
      [user],
    )
    await expectRevert(
      f.chain.publicClient.simulateContract({ ...adapter, functionName: "returnUnsupportedIntent", args: [usdc, units(101n, 6), user], account: f.accounts[Role.owner]! }),
      "ClearingSpoke_Withdraw_InsufficientBalance",
      [units(101n, 6), units(100n, 6)],
    )
    const before = await tokenBalance(f, usdc, user)
    await mined(f, f.chain.wallet(Role.owner).writeContract({ ...adapter, functionName: "returnUnsupportedIntent", args: [usdc, units(100n, 6), user] }))
    expect(await tokenBalance(f, usdc, user)).toBe(before + units(100n, 6))
  })

  it("owner setters: FeeAdapter_NotOwner(caller); a new fee signer invalidates the old signatures", async () => {
    const f = fixture()
    const adapter = { address: f.deployment.feeAdapter, abi: abis.feeAdapter } as const
    const user = f.accounts[Role.user]!
    for (const functionName of ["updateFeeRecipient", "updateFeeSigner", "transferOwnership"] as const) {
      await expectRevert(f.chain.publicClient.simulateContract({ ...adapter, functionName, args: [user], account: user }), "FeeAdapter_NotOwner", [user])
    }
    const fee = await defaultFee(f)
    const sig = await sign(fee)
    const newSigner = privateKeyToAccount(keccak256("0x02"))
    const receipt = await mined(f, f.chain.wallet(Role.owner).writeContract({ ...adapter, functionName: "updateFeeSigner", args: [newSigner.address] }))
    expect(parseEventLogs({ abi: abis.feeAdapter, eventName: "FeeSignerUpdated", logs: receipt.logs })[0]!.args).toEqual({
      previous: feeSignerAccount.address,
      current: newSigner.address,
    })
    await expectRevert(simulateNewIntent(f, { fee, sig }), "FeeAdapter_InvalidSignature", [])
    await simulateNewIntent(f, { fee, sig: await sign(fee, newSigner) })
    expect(await f.chain.publicClient.readContract({ ...adapter, functionName: "spoke" })).toBe(f.deployment.spoke)
    expect(await f.chain.publicClient.readContract({ ...adapter, functionName: "xerc20Module" })).toBe(f.deployment.xerc20Module)
    expect(zeroAddress).not.toBe(await f.chain.publicClient.readContract({ ...adapter, functionName: "feeRecipient" }))
  })
})
