/**
 * The memory twin of Permit2 and of the Permit2 overloads on its own (`spoke.differential.test.ts` compares them
 * with the contracts, `Permit2.test.ts` tests the contracts): transfers, nonce bits, reverts that change nothing,
 * signature forms, and `mineSync` (the twin recovers permit signatures synchronously).
 */
import { concat, encodeAbiParameters, type Hex, hashDomain, hashStruct, keccak256, maxUint256, parseSignature, serializeCompactSignature, serializeSignature, signatureToCompactSignature, toHex, zeroAddress } from "viem"
import { describe, expect, test } from "vitest"
import { type Address, addressToBytes32 } from "../domain/hex.ts"
import { ecrecover } from "./memory/permit2.ts"
import { PERMIT2_ADDRESS, permit2Digest, type Permit2Permit, permit2TypedData } from "./permit2.ts"
import { Call, createMemorySpokes, eventsNamed, type MemorySpokeChain } from "./spoke.ts"
import { ALICE, alice, BOB, bob, config, DOMAIN, feeSigner, T0 } from "./test/memoryWorld.ts"

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

const setup = async () => {
  const chain = createMemorySpokes(config).chain(DOMAIN)
  const usdc = chain.addresses.tokens.USDC!.address
  const xt = chain.addresses.tokens.XT!.address
  for (const token of [usdc, xt]) chain.submit({ from: ALICE, call: Call.erc20.approve(token, PERMIT2_ADDRESS, maxUint256) })
  await chain.mine(T0 + 1n)
  return { chain, usdc, xt }
}

const sign = (permit: Permit2Permit, signer = alice): Promise<Hex> => signer.signTypedData(permit2TypedData(permit))

const transfer = (permit: Permit2Permit, signature: Hex, requestedAmount = permit.amount, to: Address = BOB) =>
  Call.permit2.permitTransferFrom({ token: permit.token, amount: permit.amount, nonce: permit.nonce, deadline: permit.deadline, to, requestedAmount, owner: ALICE, signature })

const only = (chain: MemorySpokeChain, timestamp: bigint) => chain.mineSync(timestamp).receipts[0]!

describe("Permit2 in memory", () => {
  test("a transfer moves tokens and sets the nonce bit; a reverted one changes nothing (the bit included)", async () => {
    const { chain, usdc } = await setup()
    const permit: Permit2Permit = { chainId: DOMAIN, token: usdc, amount: 5_000_000n, spender: BOB, nonce: 2n * 256n + 9n, deadline: T0 + 100n }
    const signature = await sign(permit)
    // Over the permitted amount: refused before the nonce is touched.
    chain.submit({ from: BOB, call: transfer(permit, signature, permit.amount + 1n) })
    expect(only(chain, T0 + 2n)).toMatchObject({ status: "reverted", error: { name: "InvalidAmount", args: [permit.amount] } })
    expect(chain.world.permit2.bitmapWord(ALICE, 2n)).toBe(0n)
    const before = chain.read.erc20Balance(usdc, ALICE)
    chain.submit({ from: BOB, call: transfer(permit, signature, 3_000_000n) })
    expect(only(chain, T0 + 3n).status).toBe("success")
    expect(chain.read.erc20Balance(usdc, ALICE)).toBe(before - 3_000_000n)
    expect(chain.read.erc20Balance(usdc, BOB)).toBe(1_000n * 10n ** 6n + 3_000_000n)
    expect(chain.world.permit2.bitmapWord(ALICE, 2n)).toBe(1n << 9n)
    chain.submit({ from: BOB, call: transfer(permit, signature, 1n) })
    expect(only(chain, T0 + 4n)).toMatchObject({ status: "reverted", error: { name: "InvalidNonce", args: [] } })
    // Past the deadline.
    const late = { ...permit, nonce: 3n }
    chain.submit({ from: BOB, call: transfer(late, await sign(late)) })
    expect(only(chain, T0 + 101n)).toMatchObject({ status: "reverted", error: { name: "SignatureExpired", args: [T0 + 100n] } })
    expect(chain.world.permit2.bitmapWord(ALICE, 0n)).toBe(0n)
  })

  test("signature forms: compact accepted, high s accepted (ecrecover does not check it), v 0, r 0 and bad lengths refused", async () => {
    const { chain, usdc } = await setup()
    const permit = (nonce: bigint): Permit2Permit => ({ chainId: DOMAIN, token: usdc, amount: 1_000n, spender: BOB, nonce, deadline: T0 + 1_000n })
    const compactSig = serializeCompactSignature(signatureToCompactSignature(parseSignature(await sign(permit(1n)))))
    const { r, s, yParity } = parseSignature(await sign(permit(2n)))
    const highS = serializeSignature({ r, s: `0x${(SECP256K1_N - BigInt(s)).toString(16).padStart(64, "0")}`, yParity: yParity === 0 ? 1 : 0 })
    const base = await sign(permit(3n))
    const cases: readonly [Hex, bigint, string][] = [
      [compactSig, 1n, "success"],
      [highS, 2n, "success"],
      [`${base.slice(0, 130)}00` as Hex, 3n, "InvalidSignature"],
      [`0x${"00".repeat(32)}${base.slice(66)}` as Hex, 3n, "InvalidSignature"],
      [`${base}00` as Hex, 3n, "InvalidSignatureLength"],
      ["0x", 3n, "InvalidSignatureLength"],
      [await sign(permit(3n), bob), 3n, "InvalidSigner"],
    ]
    let t = T0 + 2n
    for (const [signature, nonce, outcome] of cases) {
      chain.submit({ from: BOB, call: transfer(permit(nonce), signature) })
      const receipt = only(chain, t++)
      expect(receipt.status === "success" ? "success" : receipt.error.name, signature).toBe(outcome)
    }
  })

  test("a 64-byte EIP-2098 signature r ++ vs of either parity is accepted, and refused with the other parity bit, as on anvil", async () => {
    const { chain, usdc } = await setup()
    const permit = (nonce: bigint): Permit2Permit => ({ chainId: DOMAIN, token: usdc, amount: 1_000n, spender: BOB, nonce, deadline: T0 + 1_000n })
    // Alice's first signatures from nonce 20 with y parity 0 and 1 (signing is deterministic).
    const byParity = new Map<number, { nonce: bigint; r: Hex; s: Hex }>()
    for (let nonce = 20n; byParity.size < 2; nonce++) {
      const { r, s, yParity } = parseSignature(await sign(permit(nonce)))
      if (!byParity.has(yParity)) byParity.set(yParity, { nonce, r, s })
    }
    /** EIP-2098: `vs` is `s` with the y parity in its top bit (s < n/2 leaves that bit free). */
    const compact = (r: Hex, s: Hex, yParity: number): Hex => `${r}${((BigInt(yParity) << 255n) | BigInt(s)).toString(16).padStart(64, "0")}` as Hex
    const before = chain.read.erc20Balance(usdc, BOB)
    let t = T0 + 2n
    let bits = 0n
    for (const [yParity, { nonce, r, s }] of byParity) {
      // The other parity: the point (r, s) of another key, not the zero address (InvalidSignature); the nonce stays unused.
      chain.submit({ from: BOB, call: transfer(permit(nonce), compact(r, s, 1 - yParity)) })
      expect(only(chain, t++), `y parity ${yParity} flipped`).toMatchObject({ status: "reverted", error: { name: "InvalidSigner" } })
      chain.submit({ from: BOB, call: transfer(permit(nonce), compact(r, s, yParity)) })
      expect(only(chain, t++).status, `y parity ${yParity}`).toBe("success")
      bits |= 1n << nonce
    }
    expect(chain.world.permit2.bitmapWord(ALICE, 0n)).toBe(bits)
    expect(chain.read.erc20Balance(usdc, BOB)).toBe(before + 2_000n)
  })

  test("the EIP-712 domain is {name Permit2, chainId, verifyingContract} without a version: the DOMAIN_SEPARATOR the contract returns", async () => {
    const { chain, usdc } = await setup()
    // Permit2.sol's DOMAIN_SEPARATOR(): keccak256(abi.encode(typehash, keccak256("Permit2"), chainid, address(this))).
    const separator = keccak256(
      encodeAbiParameters(
        [{ type: "bytes32" }, { type: "bytes32" }, { type: "uint256" }, { type: "address" }],
        [keccak256(toHex("EIP712Domain(string name,uint256 chainId,address verifyingContract)")), keccak256(toHex("Permit2")), BigInt(DOMAIN), PERMIT2_ADDRESS],
      ),
    )
    const domain = { name: "Permit2", chainId: DOMAIN, verifyingContract: PERMIT2_ADDRESS } as const
    expect(separator).toBe(hashDomain({ domain: { ...domain, chainId: BigInt(DOMAIN) }, types: { EIP712Domain: [{ name: "name", type: "string" }, { name: "chainId", type: "uint256" }, { name: "verifyingContract", type: "address" }] } }))
    const types = {
      PermitTransferFrom: [
        { name: "permitted", type: "TokenPermissions" },
        { name: "spender", type: "address" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
      TokenPermissions: [
        { name: "token", type: "address" },
        { name: "amount", type: "uint256" },
      ],
    } as const
    const message = (nonce: bigint) => ({ permitted: { token: usdc, amount: 1_000n }, spender: BOB, nonce, deadline: T0 + 1_000n })
    const send = (nonce: bigint, signature: Hex) => transfer({ chainId: DOMAIN, token: usdc, amount: 1_000n, spender: BOB, nonce, deadline: T0 + 1_000n }, signature)
    // Signed over another domain: with a version, another name, another chain, another verifying contract.
    const others = [{ ...domain, version: "1" }, { ...domain, name: "Permit3" }, { ...domain, chainId: DOMAIN + 1 }, { ...domain, verifyingContract: BOB }]
    let t = T0 + 2n
    for (const other of others) {
      chain.submit({ from: BOB, call: send(1n, await alice.signTypedData({ domain: other, types, primaryType: "PermitTransferFrom", message: message(1n) })) })
      expect(only(chain, t++), JSON.stringify(other)).toMatchObject({ status: "reverted", error: { name: "InvalidSigner" } })
    }
    // The digest keccak256("\x19\x01" ++ separator ++ structHash), signed as a bare hash.
    const digest = keccak256(concat(["0x1901", separator, hashStruct({ types, primaryType: "PermitTransferFrom", data: message(1n) })]))
    chain.submit({ from: BOB, call: send(1n, await alice.sign({ hash: digest })) })
    expect(only(chain, t++).status).toBe("success")
    expect(chain.world.permit2.bitmapWord(ALICE, 0n)).toBe(1n << 1n)
  })

  test("invalidateUnorderedNonces sets bits of the caller's word, with its event", async () => {
    const { chain, usdc } = await setup()
    chain.submit({ from: ALICE, call: Call.permit2.invalidateUnorderedNonces(1n, 0b110n) })
    const receipt = only(chain, T0 + 2n)
    expect(eventsNamed(receipt.events, "UnorderedNonceInvalidation")).toMatchObject([{ address: PERMIT2_ADDRESS, owner: ALICE, word: 1n, mask: 0b110n }])
    const permit: Permit2Permit = { chainId: DOMAIN, token: usdc, amount: 1n, spender: BOB, nonce: 256n + 2n, deadline: T0 + 10n }
    chain.submit({ from: BOB, call: transfer(permit, await sign(permit)) })
    expect(only(chain, T0 + 3n)).toMatchObject({ status: "reverted", error: { name: "InvalidNonce" } })
  })
})

describe("ecrecover's cache", () => {
  // The cache is keyed by digest and signature. A key written without separators ("<digest><v><r hex>.<s hex>")
  // made v = 2 with r = 0x7<r hex> and v = 27 with r = 0x<r hex> one entry: whichever came first decided both.
  /** Alice's signature of the first permit from nonce `from` on whose signature v is 27 (signing is deterministic). */
  const signedWithV27 = async (from: bigint) => {
    for (let nonce = from; ; nonce++) {
      const permit: Permit2Permit = { chainId: DOMAIN, token: BOB, amount: 1n, spender: BOB, nonce, deadline: T0 }
      const { r, s, v } = parseSignature(await sign(permit))
      if (v !== 27n) continue
      const valid = { r: BigInt(r), s: BigInt(s) }
      return { digest: permit2Digest(permit), valid, forgedR: BigInt(`0x7${valid.r.toString(16)}`) }
    }
  }

  test("a v = 2 signature does not poison the entry of a v = 27 one", async () => {
    const { digest, valid, forgedR } = await signedWithV27(9_000n)
    expect(ecrecover(digest, 2, forgedR, valid.s)).toBe(zeroAddress)
    expect(ecrecover(digest, 27, valid.r, valid.s)).toBe(ALICE)
  })

  test("a v = 27 signature does not lend its signer to a v = 2 one", async () => {
    const { digest, valid, forgedR } = await signedWithV27(9_100n)
    expect(ecrecover(digest, 27, valid.r, valid.s)).toBe(ALICE)
    expect(ecrecover(digest, 2, forgedR, valid.s)).toBe(zeroAddress)
  })
})

describe("the Permit2 overloads in memory", () => {
  test("FeeAdapter: amount + fee through Permit2, the fee paid, the intent created by the adapter; the same permit again reverts", async () => {
    const { chain, usdc } = await setup()
    const { feeAdapter } = chain.addresses
    const fee = 250_000n
    const deadline = T0 + 3_600n
    const feeParams = {
      fee,
      deadline,
      sig: await feeSigner.signMessage({ message: { raw: keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }, { type: "address" }, { type: "uint256" }], [fee, 0n, usdc, deadline])) } }),
    }
    const params = { destinations: [10], receiver: BOB, inputAsset: usdc, outputAsset: zeroAddress, amount: 10_000_000n }
    const permit: Permit2Permit = { chainId: DOMAIN, token: usdc, amount: params.amount + fee, spender: feeAdapter, nonce: 42n, deadline }
    const permit2Params = { nonce: 42n, deadline, signature: await sign(permit) }
    const before = chain.read.erc20Balance(usdc, ALICE)
    chain.submit({ from: ALICE, call: Call.feeAdapter.newIntentPermit2({ ...params, permit2Params, feeParams }) })
    chain.submit({ from: ALICE, call: Call.feeAdapter.newIntentPermit2({ ...params, permit2Params, feeParams }) })
    const block = await chain.mine(T0 + 2n)
    const [first, second] = block.receipts as [(typeof block.receipts)[0], (typeof block.receipts)[0]]
    expect(first.status).toBe("success")
    expect(eventsNamed(first.events, "IntentAdded")[0]!.intent).toMatchObject({ initiator: addressToBytes32(feeAdapter), amount: params.amount * 10n ** 12n })
    expect(eventsNamed(first.events, "IntentWithFeesAdded")[0]).toMatchObject({ initiator: addressToBytes32(ALICE), tokenFee: fee })
    expect(second).toMatchObject({ status: "reverted", error: { name: "InvalidNonce" } })
    expect(chain.read.erc20Balance(usdc, ALICE)).toBe(before - params.amount - fee)
    expect(chain.read.erc20Balance(usdc, chain.addresses.spoke)).toBe(params.amount)
  })

  test("ClearingSpoke: amount through Permit2; an xERC20 goes to the spoke's custody unburned; the pull comes before the intent checks", async () => {
    const { chain, xt } = await setup()
    const { spoke } = chain.addresses
    const amount = 3n * 10n ** 18n
    const permit: Permit2Permit = { chainId: DOMAIN, token: xt, amount, spender: spoke, nonce: 5n, deadline: T0 + 60n }
    const params = { destinations: [10], receiver: BOB, inputAsset: xt, outputAsset: zeroAddress, amount }
    const supply = await chain.totalSupply(xt)
    const signature = await sign(permit)
    // An invalid intent (ttl without an output asset) reports Permit2's error first: expired, then a short signature.
    chain.submit({ from: ALICE, call: Call.spoke.newIntentPermit2({ ...params, ttl: 60, permit2Params: { nonce: 5n, deadline: 0n, signature: "0x" } }) })
    chain.submit({ from: ALICE, call: Call.spoke.newIntentPermit2({ ...params, ttl: 60, permit2Params: { nonce: 5n, deadline: T0 + 60n, signature: "0x" } }) })
    // With a valid permit the intent checks still revert, and undo the pull (nonce 5 stays usable).
    chain.submit({ from: ALICE, call: Call.spoke.newIntentPermit2({ ...params, ttl: 60, permit2Params: { nonce: 5n, deadline: T0 + 60n, signature } }) })
    chain.submit({ from: ALICE, call: Call.spoke.newIntentPermit2({ ...params, permit2Params: { nonce: 5n, deadline: T0 + 60n, signature } }) })
    const block = await chain.mine(T0 + 2n)
    expect(block.receipts[0]).toMatchObject({ status: "reverted", error: { name: "SignatureExpired" } })
    expect(block.receipts[1]).toMatchObject({ status: "reverted", error: { name: "InvalidSignatureLength" } })
    expect(block.receipts[2]).toMatchObject({ status: "reverted", error: { name: "ClearingSpoke_NewIntent_InvalidIntent" } })
    expect(block.receipts[3]!.status).toBe("success")
    expect(eventsNamed(block.receipts[3]!.events, "IntentAdded")[0]!.intent.initiator).toBe(addressToBytes32(ALICE))
    expect(chain.read.erc20Balance(xt, spoke)).toBe(amount)
    expect(await chain.totalSupply(xt)).toBe(supply)
  })
})
