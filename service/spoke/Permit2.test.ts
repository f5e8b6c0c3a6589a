/**
 * Permit2 on anvil (contracts/Permit2.sol at its canonical address) and the Permit2 overloads of
 * `ClearingSpoke.newIntent` (reference §4.1 step 7) and `FeeAdapter.newIntent` (§5.1: Permit2 pulls `amount + fee`).
 * Owners sign with viem's `signTypedData` over `permit2TypedData`.
 */
import { describe, expect, it } from "vitest"
import { type Address, encodeAbiParameters, getAddress, type Hex, hashDomain, keccak256, maxUint256, parseEventLogs, parseSignature, serializeCompactSignature, serializeSignature, signatureToCompactSignature } from "viem"
import { mnemonicToAccount } from "viem/accounts"
import { addressToBytes32 } from "../domain/hex.ts"
import { gasLimitFor } from "./anvil/gas.ts"
import { Call } from "./calls.ts"
import { PERMIT2_ADDRESS, type Permit2Permit, permit2TypedData } from "./permit2.ts"
import {
  abis,
  expectRevert,
  feeSignerAccount,
  latestTimestamp,
  mined,
  newIntentArgs,
  newIntentParameters,
  type NewIntentParameters,
  Role,
  SPOKE_CHAIN_ID,
  type SpokeFixture,
  units,
  useSpokeFixture,
} from "./test/fixture.ts"
import { TEST_MNEMONIC } from "./test/anvil.ts"

const permit2Abi = abis.permit2
const userAccount = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: Role.user })
const otherAccount = mnemonicToAccount(TEST_MNEMONIC, { addressIndex: Role.other })

const fixture = useSpokeFixture(async (f) => {
  // The user approves Permit2 once on every token it uses here.
  for (const symbol of ["USDC", "XT"] as const) {
    await mined(f, f.chain.wallet(Role.user).writeContract({ address: f.token(symbol), abi: abis.erc20, functionName: "approve", args: [PERMIT2_ADDRESS, maxUint256] }))
  }
})

const deadlineIn = async (f: SpokeFixture, seconds: bigint): Promise<bigint> => BigInt(await latestTimestamp(f)) + seconds

const permit = async (f: SpokeFixture, overrides: Partial<Permit2Permit> = {}): Promise<Permit2Permit> => ({
  chainId: SPOKE_CHAIN_ID,
  token: f.token("USDC"),
  amount: units(100n, 6),
  spender: f.accounts[Role.other]!,
  nonce: 7n,
  deadline: await deadlineIn(f, 3_600n),
  ...overrides,
})

const signPermit = (p: Permit2Permit, signer = userAccount): Promise<Hex> => signer.signTypedData(permit2TypedData(p))

/** `permitTransferFrom` sent by `from` (the spender), moving `requested` to `to`. */
const transferFrom = (f: SpokeFixture, p: Permit2Permit, signature: Hex, opts: { requested?: bigint; to?: Address; owner?: Address; from?: number } = {}) =>
  f.chain.wallet(opts.from ?? Role.other).writeContract({
    address: PERMIT2_ADDRESS,
    abi: permit2Abi,
    functionName: "permitTransferFrom",
    args: [
      { permitted: { token: p.token, amount: p.amount }, nonce: p.nonce, deadline: p.deadline },
      { to: opts.to ?? f.accounts[Role.other]!, requestedAmount: opts.requested ?? p.amount },
      opts.owner ?? f.accounts[Role.user]!,
      signature,
    ],
  })

const balance = (f: SpokeFixture, token: Address, account: Address) =>
  f.chain.publicClient.readContract({ address: token, abi: abis.erc20, functionName: "balanceOf", args: [account] })
const bitmap = (f: SpokeFixture, owner: Address, wordPos: bigint) =>
  f.chain.publicClient.readContract({ address: PERMIT2_ADDRESS, abi: permit2Abi, functionName: "nonceBitmap", args: [owner, wordPos] })

describe("Permit2", () => {
  it("sits at the canonical address with the EIP-712 domain {name Permit2, chainId, verifyingContract}", async () => {
    const f = fixture()
    expect(f.deployment.permit2).toBe(PERMIT2_ADDRESS)
    const code = await f.chain.publicClient.getCode({ address: PERMIT2_ADDRESS })
    expect(code).toBe(f.artifacts.Permit2.deployedBytecode)
    const separator = await f.chain.publicClient.readContract({ address: PERMIT2_ADDRESS, abi: permit2Abi, functionName: "DOMAIN_SEPARATOR" })
    expect(separator).toBe(hashDomain({ domain: { name: "Permit2", chainId: BigInt(SPOKE_CHAIN_ID), verifyingContract: PERMIT2_ADDRESS }, types: { EIP712Domain: [{ name: "name", type: "string" }, { name: "chainId", type: "uint256" }, { name: "verifyingContract", type: "address" }] } }))
  })

  it("moves the requested amount on the owner's signature, for the signed spender, and consumes the nonce bit", async () => {
    const f = fixture()
    const usdc = f.token("USDC")
    const [user, other, recipient] = [f.accounts[Role.user]!, f.accounts[Role.other]!, f.accounts[Role.feeRecipient]!]
    const p = await permit(f, { nonce: 3n * 256n + 5n })
    const signature = await signPermit(p)
    const [userBefore, recipientBefore] = await Promise.all([balance(f, usdc, user), balance(f, usdc, recipient)])
    const receipt = await mined(f, transferFrom(f, p, signature, { requested: units(40n, 6), to: recipient }))
    expect(await balance(f, usdc, user)).toBe(userBefore - units(40n, 6))
    expect(await balance(f, usdc, recipient)).toBe(recipientBefore + units(40n, 6))
    expect(await bitmap(f, user, 3n)).toBe(1n << 5n)
    expect(await bitmap(f, other, 3n)).toBe(0n)
    // The token's Transfer is the only log: SignatureTransfer emits nothing.
    expect(receipt.logs.map((log) => log.address.toLowerCase())).toEqual([usdc.toLowerCase()])
    // The same permit again: the nonce is used.
    await expectRevert(transferFrom(f, p, signature, { requested: 1n }), "InvalidNonce", [])
  })

  it("checks the deadline, then the amount, then the nonce, then the signature", async () => {
    const f = fixture()
    const now = BigInt(await latestTimestamp(f))
    // A write lands in the next block (one second later): a deadline of `now` has passed by then.
    const expired = await permit(f, { deadline: now })
    await expectRevert(transferFrom(f, expired, "0x", { requested: expired.amount + 1n }), "SignatureExpired", [now])
    const p = await permit(f)
    await expectRevert(transferFrom(f, p, "0x", { requested: p.amount + 1n }), "InvalidAmount", [p.amount])
    await mined(f, f.chain.wallet(Role.user).writeContract({ address: PERMIT2_ADDRESS, abi: permit2Abi, functionName: "invalidateUnorderedNonces", args: [0n, 1n << 7n] }))
    await expectRevert(transferFrom(f, p, "0x"), "InvalidNonce", [])
    const fresh = await permit(f, { nonce: 8n })
    await expectRevert(transferFrom(f, fresh, "0x1234"), "InvalidSignatureLength", [])
  })

  it("refuses another signer, another spender, another amount, and an unrecoverable signature", async () => {
    const f = fixture()
    const p = await permit(f)
    await expectRevert(transferFrom(f, p, await signPermit(p, otherAccount)), "InvalidSigner", [])
    // Signed for `other` as spender; sent by the fee recipient.
    await expectRevert(transferFrom(f, p, await signPermit(p), { from: Role.feeRecipient }), "InvalidSigner", [])
    // Signed for less than the permit says.
    await expectRevert(transferFrom(f, p, await signPermit({ ...p, amount: p.amount - 1n })), "InvalidSigner", [])
    // v = 0 is not normalized: ecrecover gives the zero address.
    const signature = await signPermit(p)
    await expectRevert(transferFrom(f, p, `${signature.slice(0, 130)}00` as Hex), "InvalidSignature", [])
  })

  it("accepts a 64-byte EIP-2098 signature of either parity, and refuses one with the other parity bit (InvalidSigner)", async () => {
    const f = fixture()
    // The first permits from nonce 7 whose signatures have y parity 0 and 1 (the deadline follows the clock).
    const byParity = new Map<number, { p: Permit2Permit; signature: Hex }>()
    for (let nonce = 7n; byParity.size < 2; nonce++) {
      const p = await permit(f, { nonce })
      const signature = await signPermit(p)
      const { yParity } = parseSignature(signature)
      if (!byParity.has(yParity)) byParity.set(yParity, { p, signature })
    }
    let expected = 0n
    for (const [yParity, { p, signature }] of byParity) {
      const compact = serializeCompactSignature(signatureToCompactSignature(parseSignature(signature)))
      expect((compact.length - 2) / 2).toBe(64)
      const vs = BigInt(`0x${compact.slice(66)}`)
      expect(vs >> 255n, "vs's top bit is the y parity").toBe(BigInt(yParity))
      // The other parity bit: r and s are still a point, another key's.
      const flipped = `${compact.slice(0, 66)}${(vs ^ (1n << 255n)).toString(16).padStart(64, "0")}` as Hex
      await expectRevert(transferFrom(f, p, flipped), "InvalidSigner", [])
      await mined(f, transferFrom(f, p, compact))
      expected |= 1n << p.nonce
    }
    expect(await bitmap(f, f.accounts[Role.user]!, 0n)).toBe(expected)
  })

  it("accepts a high-s signature (ecrecover does not check s) and refuses r = 0 with InvalidSignature", async () => {
    const f = fixture()
    const p = await permit(f, { nonce: 9n })
    const { r, s, yParity } = parseSignature(await signPermit(p))
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
    const zeroR = `0x${"00".repeat(32)}${(await signPermit(p)).slice(66)}` as Hex
    await expectRevert(transferFrom(f, p, zeroR), "InvalidSignature", [])
    const highS = serializeSignature({ r, s: `0x${(n - BigInt(s)).toString(16).padStart(64, "0")}`, yParity: yParity === 0 ? 1 : 0 })
    await mined(f, transferFrom(f, p, highS))
    expect(await bitmap(f, f.accounts[Role.user]!, 0n)).toBe(1n << 9n)
  })

  it("bubbles the token's error up (no allowance for Permit2)", async () => {
    const f = fixture()
    const p = await permit(f, { token: f.token("WETH"), amount: units(1n, 18) })
    await expectRevert(transferFrom(f, p, await signPermit(p)), "ERC20_InsufficientAllowance", [getAddress(PERMIT2_ADDRESS), 0n, units(1n, 18)])
  })

  it("invalidateUnorderedNonces sets bits of the caller's word and emits UnorderedNonceInvalidation", async () => {
    const f = fixture()
    const receipt = await mined(f, f.chain.wallet(Role.user).writeContract({ address: PERMIT2_ADDRESS, abi: permit2Abi, functionName: "invalidateUnorderedNonces", args: [2n, 0b1010n] }))
    const [event] = parseEventLogs({ abi: permit2Abi, eventName: "UnorderedNonceInvalidation", logs: receipt.logs })
    expect(event!.args).toEqual({ owner: f.accounts[Role.user], word: 2n, mask: 0b1010n })
    expect(await bitmap(f, f.accounts[Role.user]!, 2n)).toBe(0b1010n)
  })
})

// ---------------------------------------------------------------------------------------------------------
// The overloads

const spokeNewIntent = (f: SpokeFixture, p: NewIntentParameters, permit2Params: { nonce: bigint; deadline: bigint; signature: Hex }, from = Role.user) =>
  f.chain.wallet(from).writeContract({
    address: f.deployment.spoke,
    abi: abis.spoke,
    functionName: "newIntent",
    args: [...newIntentArgs(p), permit2Params],
  })

describe("ClearingSpoke.newIntent with Permit2", () => {
  it("pulls amount through Permit2 (spender = the spoke) and creates the intent with the caller as initiator", async () => {
    const f = fixture()
    const usdc = f.token("USDC")
    const user = f.accounts[Role.user]!
    const p = newIntentParameters(f, { amount: units(75n, 6) })
    const signed = await permit(f, { amount: p.amount, spender: f.deployment.spoke, nonce: 1n })
    const before = await balance(f, usdc, user)
    const receipt = await mined(f, spokeNewIntent(f, p, { nonce: signed.nonce, deadline: signed.deadline, signature: await signPermit(signed) }))
    const [added] = parseEventLogs({ abi: abis.spoke, eventName: "IntentAdded", logs: receipt.logs })
    expect(added!.args.intent.initiator).toBe(addressToBytes32(user))
    expect(added!.args.intent.amount).toBe(units(75n, 18))
    expect(await balance(f, usdc, user)).toBe(before - units(75n, 6))
    expect(await balance(f, usdc, f.deployment.spoke)).toBe(units(75n, 6))
    // No allowance on the spoke was needed or used.
    expect(await f.chain.publicClient.readContract({ address: usdc, abi: abis.erc20, functionName: "allowance", args: [user, f.deployment.spoke] })).toBe(0n)
  })

  it("pulls through Permit2 before validating the intent (§4.1 step 7: the production order)", async () => {
    const f = fixture()
    const invalid = newIntentParameters(f, { ttl: 60 })
    // An invalid intent with a bad permit reports Permit2's error, not the intent's.
    await expectRevert(spokeNewIntent(f, invalid, { nonce: 1n, deadline: 0n, signature: "0x" }), "SignatureExpired", [0n])
    const deadline = await deadlineIn(f, 3_600n)
    await expectRevert(spokeNewIntent(f, invalid, { nonce: 1n, deadline, signature: "0x" }), "InvalidSignatureLength", [])
    const zero = newIntentParameters(f, { amount: 0n })
    await expectRevert(spokeNewIntent(f, zero, { nonce: 1n, deadline, signature: "0x" }), "InvalidSignatureLength", [])
    // With a valid permit the intent checks still apply, and their revert undoes the pull (nonce unused).
    const signed = await permit(f, { amount: invalid.amount, spender: f.deployment.spoke, nonce: 1n })
    await expectRevert(spokeNewIntent(f, invalid, { nonce: 1n, deadline: signed.deadline, signature: await signPermit(signed) }), "ClearingSpoke_NewIntent_InvalidIntent", [])
    const signedZero = await permit(f, { amount: 0n, spender: f.deployment.spoke, nonce: 1n })
    await expectRevert(spokeNewIntent(f, zero, { nonce: 1n, deadline: signedZero.deadline, signature: await signPermit(signedZero) }), "ClearingSpoke_NewIntent_ZeroAmount", [])
    expect(await bitmap(f, f.accounts[Role.user]!, 0n)).toBe(0n)
  })

  it("reverts with Permit2's errors: expired, reused nonce, another amount", async () => {
    const f = fixture()
    const p = newIntentParameters(f)
    const now = BigInt(await latestTimestamp(f))
    await expectRevert(spokeNewIntent(f, p, { nonce: 1n, deadline: now, signature: "0x" }), "SignatureExpired", [now])
    const signed = await permit(f, { amount: p.amount, spender: f.deployment.spoke, nonce: 2n })
    const params = { nonce: 2n, deadline: signed.deadline, signature: await signPermit(signed) }
    await mined(f, spokeNewIntent(f, p, params))
    await expectRevert(spokeNewIntent(f, p, params), "InvalidNonce", [])
    const more = newIntentParameters(f, { amount: p.amount + 1n })
    const another = await permit(f, { amount: p.amount, spender: f.deployment.spoke, nonce: 3n })
    await expectRevert(spokeNewIntent(f, more, { nonce: 3n, deadline: another.deadline, signature: await signPermit(another) }), "InvalidSigner", [])
  })

  it("an xERC20 pulled through Permit2 goes to the spoke's custody, not burned (the burn is the other variant's)", async () => {
    const f = fixture()
    const xt = f.token("XT")
    const p = newIntentParameters(f, { inputAsset: xt, amount: units(5n, 18) })
    const signed = await permit(f, { token: xt, amount: p.amount, spender: f.deployment.spoke, nonce: 4n })
    const supplyBefore = await f.chain.publicClient.readContract({ address: xt, abi: abis.xerc20, functionName: "totalSupply" })
    await mined(f, spokeNewIntent(f, p, { nonce: 4n, deadline: signed.deadline, signature: await signPermit(signed) }))
    expect(await balance(f, xt, f.deployment.spoke)).toBe(units(5n, 18))
    expect(await f.chain.publicClient.readContract({ address: xt, abi: abis.xerc20, functionName: "totalSupply" })).toBe(supplyBefore)
  })
})

const feeHash = (fee: bigint, nativeFee: bigint, asset: Address, deadline: bigint): Hex =>
  keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }, { type: "address" }, { type: "uint256" }], [fee, nativeFee, asset, deadline]))

describe("FeeAdapter.newIntent with Permit2", () => {
  const adapterNewIntent = (f: SpokeFixture, p: NewIntentParameters, permit2Params: { nonce: bigint; deadline: bigint; signature: Hex }, feeParams: { fee: bigint; deadline: bigint; sig: Hex }, value = 0n) =>
    f.chain.wallet(Role.user).writeContract({
      address: f.deployment.feeAdapter,
      abi: abis.feeAdapter,
      functionName: "newIntent",
      args: [...newIntentArgs(p), permit2Params, feeParams],
      value,
    })

  it("pulls amount + fee through Permit2 (spender = the adapter), pays the fee and creates the intent", async () => {
    const f = fixture()
    const usdc = f.token("USDC")
    const [user, recipient] = [f.accounts[Role.user]!, f.accounts[Role.feeRecipient]!]
    const p = newIntentParameters(f, { amount: units(250n, 6) })
    const fee = 1_500_000n
    const deadline = await deadlineIn(f, 3_600n)
    const feeParams = { fee, deadline, sig: await feeSignerAccount.signMessage({ message: { raw: feeHash(fee, 0n, usdc, deadline) } }) }
    const signed = await permit(f, { amount: p.amount + fee, spender: f.deployment.feeAdapter, nonce: 11n })
    const [userBefore, recipientBefore] = await Promise.all([balance(f, usdc, user), balance(f, usdc, recipient)])
    const receipt = await mined(f, adapterNewIntent(f, p, { nonce: 11n, deadline: signed.deadline, signature: await signPermit(signed) }, feeParams))
    const [added] = parseEventLogs({ abi: abis.spoke, eventName: "IntentAdded", logs: receipt.logs })
    const [withFees] = parseEventLogs({ abi: abis.feeAdapter, eventName: "IntentWithFeesAdded", logs: receipt.logs })
    expect(added!.args.intent.initiator).toBe(addressToBytes32(f.deployment.feeAdapter))
    expect(added!.args.intent.amount).toBe(units(250n, 18))
    expect(withFees!.args.tokenFee).toBe(fee)
    expect(withFees!.args.initiator).toBe(addressToBytes32(user))
    expect(await balance(f, usdc, user)).toBe(userBefore - p.amount - fee)
    expect(await balance(f, usdc, recipient)).toBe(recipientBefore + fee)
    expect(await balance(f, usdc, f.deployment.spoke)).toBe(p.amount)
    expect(await balance(f, usdc, f.deployment.feeAdapter)).toBe(0n)
  })

  it("a permit for the amount without the fee is refused (InvalidSigner); Permit2 is checked before the fee signature", async () => {
    const f = fixture()
    const usdc = f.token("USDC")
    const p = newIntentParameters(f, { amount: units(10n, 6) })
    const fee = 1_000n
    const deadline = await deadlineIn(f, 3_600n)
    const feeParams = { fee, deadline, sig: await feeSignerAccount.signMessage({ message: { raw: feeHash(fee, 0n, usdc, deadline) } }) }
    const short = await permit(f, { amount: p.amount, spender: f.deployment.feeAdapter, nonce: 12n })
    await expectRevert(adapterNewIntent(f, p, { nonce: 12n, deadline: short.deadline, signature: await signPermit(short) }, feeParams), "InvalidSigner", [])
    // A bad fee signature too: Permit2's error comes first (§5.1 step 1 before step 2).
    await expectRevert(adapterNewIntent(f, p, { nonce: 12n, deadline: short.deadline, signature: "0x12" }, { ...feeParams, sig: "0x" }), "InvalidSignatureLength", [])
    // A good permit with a bad fee signature: the fee check refuses, and the whole call (nonce included) reverts.
    const good = await permit(f, { amount: p.amount + fee, spender: f.deployment.feeAdapter, nonce: 12n })
    const permit2Params = { nonce: 12n, deadline: good.deadline, signature: await signPermit(good) }
    const otherDeadlineSig = await feeSignerAccount.signMessage({ message: { raw: feeHash(fee, 0n, usdc, deadline + 1n) } })
    await expectRevert(adapterNewIntent(f, p, permit2Params, { ...feeParams, sig: otherDeadlineSig }), "FeeAdapter_InvalidSignature", [])
    expect(await bitmap(f, f.accounts[Role.user]!, 0n)).toBe(0n)
    await mined(f, adapterNewIntent(f, p, permit2Params, feeParams))
    expect(await bitmap(f, f.accounts[Role.user]!, 0n)).toBe(1n << 12n)
  })
})

describe("gas limits of the Permit2 overloads (anvil/gas.ts)", () => {
  it("with 10 destinations each overload uses at most half the limit the anvil backend gives it, the plain overloads' limit", async () => {
    const f = fixture()
    const usdc = f.token("USDC")
    const p = newIntentParameters(f, { destinations: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], amount: units(20n, 6) })
    const fee = 1_000n
    const deadline = await deadlineIn(f, 3_600n)
    const feeParams = { fee, deadline, sig: await feeSignerAccount.signMessage({ message: { raw: feeHash(fee, 0n, usdc, deadline) } }) }
    const toSpoke = await permit(f, { amount: p.amount, spender: f.deployment.spoke, nonce: 21n })
    const toAdapter = await permit(f, { amount: p.amount + fee, spender: f.deployment.feeAdapter, nonce: 22n })
    const spokeParams = { nonce: 21n, deadline: toSpoke.deadline, signature: await signPermit(toSpoke) }
    const adapterParams = { nonce: 22n, deadline: toAdapter.deadline, signature: await signPermit(toAdapter) }
    const intent = { ...p, destinations: [...p.destinations] }
    const cases = [
      [Call.spoke.newIntentPermit2({ ...intent, permit2Params: spokeParams }), Call.spoke.newIntent(intent), () => spokeNewIntent(f, p, spokeParams)],
      [
        Call.feeAdapter.newIntentPermit2({ ...intent, permit2Params: adapterParams, feeParams }),
        Call.feeAdapter.newIntent({ ...intent, feeParams }),
        () => f.chain.wallet(Role.user).writeContract({ address: f.deployment.feeAdapter, abi: abis.feeAdapter, functionName: "newIntent", args: [...newIntentArgs(p), adapterParams, feeParams] }),
      ],
    ] as const
    for (const [call, plain, sent] of cases) {
      const receipt = await mined(f, sent())
      const tx = await f.chain.publicClient.getTransaction({ hash: receipt.transactionHash })
      const calldataBytes = (tx.input.length - 2) >> 1
      const limit = gasLimitFor(call, calldataBytes)
      expect(limit, call.kind).toBe(gasLimitFor(plain, calldataBytes))
      expect(receipt.gasUsed * 2n, `${call.kind}: ${receipt.gasUsed} gas used of ${limit}`).toBeLessThanOrEqual(limit)
    }
  })
})
