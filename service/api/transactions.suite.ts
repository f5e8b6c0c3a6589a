/**
 * Transaction builders end to end, shared by both `Spokes` backends (`transactions.test.ts` runs it on memory,
 * `anvil.test.ts` on anvil): a transaction built over HTTP, sent by its sender to the spoke, creates exactly the
 * intent(s) the request described, and the read model and the API follow them through the hub to settlement and
 * calldata execution.
 */
import * as Effect from "effect/Effect"
import { decodeFunctionData, encodeAbiParameters, encodeFunctionData, keccak256, maxUint256, recoverMessageAddress, zeroAddress } from "viem"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { addressToBytes32, type Address, type Hex } from "../domain/hex.ts"
import { NORMALIZED_DECIMALS, normalizeDecimals } from "../domain/protocol.ts"
import { FeeAdapterAbi, TestCallTargetAbi } from "../spoke/abi.ts"
import { Call, eventsNamed, type MinedSpokeBlock } from "../spoke/spoke.ts"
import { type Deployment, DOMAIN_A, DOMAIN_B } from "./deployment.ts"
import { BadRequest } from "./errors.ts"
import { PERMIT2_ADDRESS } from "./permit2.ts"
import { type ApiServer, startApiServer } from "./server.ts"
import { request } from "./testing.ts"

export const describeTransactionBuilders = (backend: string, setup: () => Promise<Deployment>, teardown: () => Promise<void> = async () => {}): void => {
  let d: Deployment
  let server: ApiServer

  beforeAll(async () => {
    d = await setup()
    await d.approveAll()
    server = await startApiServer(d.service)
  }, 120_000)
  afterAll(async () => {
    await server?.close()
    await teardown()
  })

  const post = async (path: string, body: unknown) => {
    const r = await request(server.url, "POST", path, body)
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${r.text}`)
    return r.body as { to: Address; from: Address; data: Hex; value: string; chainId: number }
  }
  const success = (block: MinedSpokeBlock) => {
    const receipt = block.receipts[0]!
    if (receipt.status !== "success") throw new Error(`reverted: ${receipt.error.name} ${JSON.stringify(receipt.error.args, (_, v) => (typeof v === "bigint" ? String(v) : v))}`)
    return receipt
  }

  describe(`POST /intents on the ${backend} spokes`, () => {
    it("builds newIntent: the spoke creates exactly the requested intent, and the fee goes to the fee recipient", async () => {
      const a = d.accounts
      const usdcA = d.token(DOMAIN_A, "USDC")
      const before = await d.chain(DOMAIN_A).erc20Balance(usdcA, a.alice.address)
      const feeBefore = await d.chain(DOMAIN_A).erc20Balance(usdcA, a.owner.address)
      const tx = await post("/intents", { origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], to: a.bob.address, from: a.alice.address, inputAsset: usdcA, amount: "250000000", callData: "0x" })
      expect(tx).toMatchObject({ to: d.chain(DOMAIN_A).addresses.feeAdapter, from: a.alice.address.toLowerCase(), chainId: DOMAIN_A, value: "0" })
      const decoded = decodeFunctionData({ abi: FeeAdapterAbi, data: tx.data })
      expect(decoded.functionName).toBe("newIntent")
      const receipt = success(await d.send(tx))
      const [added] = eventsNamed(receipt.events, "IntentAdded")
      const [withFees] = eventsNamed(receipt.events, "IntentWithFeesAdded")
      const fee = 10_000n // 0.01 USDC fixed fee; no custody yet → the variable fee is at its maximum (10 bps)
      const variable = (250_000_000n * 100_000n) / 100_000_000n
      expect(withFees).toMatchObject({ tokenFee: fee + variable, nativeFee: 0n, initiator: addressToBytes32(a.alice.address) })
      expect(added!.intent).toEqual({
        initiator: addressToBytes32(d.chain(DOMAIN_A).addresses.feeAdapter),
        receiver: addressToBytes32(a.bob.address),
        inputAsset: addressToBytes32(usdcA),
        outputAsset: addressToBytes32(zeroAddress),
        maxFee: 0,
        origin: DOMAIN_A,
        nonce: added!.intent.nonce,
        timestamp: Number(d.time),
        ttl: 0,
        amount: normalizeDecimals(250_000_000n - fee - variable, 6, NORMALIZED_DECIMALS),
        destinations: [DOMAIN_B],
        data: "0x",
      })
      expect(await d.chain(DOMAIN_A).erc20Balance(usdcA, a.alice.address)).toBe(before - 250_000_000n)
      expect(await d.chain(DOMAIN_A).erc20Balance(usdcA, a.owner.address)).toBe(feeBefore + fee + variable)
      // The read model saw it.
      const got = await request(server.url, "GET", `/intents/${added!.intentId}`)
      expect(got.body).toMatchObject({ intent: { status: "ADDED_SPOKE", token_fee: String(fee + variable), fee_adapter_initiator: a.alice.address.toLowerCase(), origin_amount: String(250_000_000n - fee - variable) } })
    })

    it("builds a fast-path intent with the output asset, ttl and solver fee cap filled in", async () => {
      const a = d.accounts
      const tx = await post("/intents", { origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], to: a.bob.address, from: a.alice.address, inputAsset: d.token(DOMAIN_A, "USDC"), amount: "1000000", isFastPath: true })
      const [added] = eventsNamed(success(await d.send(tx)).events, "IntentAdded")
      expect(added!.intent).toMatchObject({ ttl: 3600, outputAsset: addressToBytes32(d.token(DOMAIN_B, "USDC")), maxFee: 130, destinations: [DOMAIN_B] })
    })

    it("quotes the fast path from the operator solver's inventory seen on the destination spoke", async () => {
      const a = d.accounts
      const usdcB = d.token(DOMAIN_B, "USDC")
      success(await d.call(DOMAIN_B, a.solver.address, Call.spoke.deposit(usdcB, 1_000_000_000n)))
      const quote = await post("/routes/quotes", { origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], inputAsset: d.token(DOMAIN_A, "USDC"), amount: "1000000" })
      expect((quote as unknown as { fastPathQuote: unknown }).fastPathQuote).toEqual({ fixedFeeUnits: "10000", variableFeeBps: 3, totalFeeBps: 103, expectedAmount: "989700", expectedFillTime: "90" })
      const tx = await post("/intents", { origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], to: a.bob.address, from: a.alice.address, inputAsset: d.token(DOMAIN_A, "USDC"), amount: "1000000", isFastPath: true })
      const [added] = eventsNamed(success(await d.send(tx)).events, "IntentAdded")
      expect(added!.intent).toMatchObject({ ttl: 3600, maxFee: 30 })
    })

    it("builds newOrder for an array: one fee, one intent per entry, in order", async () => {
      const a = d.accounts
      const usdcA = d.token(DOMAIN_A, "USDC")
      const entry = (amount: string, to: Address) => ({ origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], to, from: a.alice.address, inputAsset: usdcA, amount, max_fee: "0" })
      const tx = await post("/intents/", [entry("1000000", a.bob.address), entry("2000000", a.alice.address), entry("3000000", a.bob.address)])
      expect(decodeFunctionData({ abi: FeeAdapterAbi, data: tx.data }).functionName).toBe("newOrder")
      const before = await d.chain(DOMAIN_A).erc20Balance(usdcA, a.alice.address)
      const receipt = success(await d.send(tx))
      const added = eventsNamed(receipt.events, "IntentAdded")
      const [order] = eventsNamed(receipt.events, "OrderCreated")
      expect(order!.intentIds).toEqual(added.map((e) => e.intentId))
      expect(added.map((e) => e.intent.receiver)).toEqual([a.bob.address, a.alice.address, a.bob.address].map(addressToBytes32))
      expect(await d.chain(DOMAIN_A).erc20Balance(usdcA, a.alice.address)).toBe(before - 6_000_000n)
      const total = added.reduce((sum, e) => sum + normalizeDecimals(e.intent.amount, NORMALIZED_DECIMALS, 6), 0n)
      expect(total + order!.tokenFee).toBe(6_000_000n)
    })

    it("builds newOrder with a fast-path entry's ttl, max fee and output asset and another entry's calldata, each in its place; the spoke stores them", async () => {
      const a = d.accounts
      const usdcA = d.token(DOMAIN_A, "USDC")
      const usdcB = d.token(DOMAIN_B, "USDC")
      const target = d.chain(DOMAIN_B).addresses.callTarget!
      const callData = encodeAbiParameters([{ type: "address" }, { type: "bytes" }], [target, encodeFunctionData({ abi: TestCallTargetAbi, functionName: "record", args: [11n] })])
      const entry = (amount: string, over: Record<string, unknown> = {}) => ({ origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], to: a.bob.address, from: a.alice.address, inputAsset: usdcA, amount, ...over })
      const tx = await post("/intents", [entry("1000000", { max_fee: "0" }), entry("2000000", { ttl: 1_200, max_fee: "40" }), entry("3000000", { callData })])
      const decoded = decodeFunctionData({ abi: FeeAdapterAbi, data: tx.data })
      expect(decoded.functionName).toBe("newOrder")
      const params = (decoded.args[3] as readonly { receiver: Address; inputAsset: Address; outputAsset: Address; amount: bigint }[]).map((p) => ({
        ...p,
        receiver: p.receiver.toLowerCase(),
        inputAsset: p.inputAsset.toLowerCase(),
        outputAsset: p.outputAsset.toLowerCase(),
      }))
      const basic = { destinations: [DOMAIN_B], receiver: a.bob.address.toLowerCase(), inputAsset: usdcA.toLowerCase(), outputAsset: zeroAddress, maxFee: 0, ttl: 0, data: "0x" }
      expect(params.map(({ amount: _, ...p }) => p)).toEqual([basic, { ...basic, outputAsset: usdcB.toLowerCase(), maxFee: 40, ttl: 1_200 }, { ...basic, data: callData }])
      // The fast-path entry pays the fixed fee only (0.01 USDC): the solver takes its fee from what it delivers.
      expect(params[1]!.amount).toBe(2_000_000n - 10_000n)
      const receipt = success(await d.send(tx))
      const added = eventsNamed(receipt.events, "IntentAdded")
      expect(added.map((e) => ({ ttl: e.intent.ttl, maxFee: e.intent.maxFee, outputAsset: e.intent.outputAsset, data: e.intent.data }))).toEqual([
        { ttl: 0, maxFee: 0, outputAsset: addressToBytes32(zeroAddress), data: "0x" },
        { ttl: 1_200, maxFee: 40, outputAsset: addressToBytes32(usdcB), data: "0x" },
        { ttl: 0, maxFee: 0, outputAsset: addressToBytes32(zeroAddress), data: callData },
      ])
      expect(eventsNamed(receipt.events, "OrderCreated")[0]!.intentIds).toEqual(added.map((e) => e.intentId))
    })

    it("builds newOrder with value 0, the native fee its fee signature covers: sent with 1 wei more, the adapter refuses the signature", async () => {
      const a = d.accounts
      const usdcA = d.token(DOMAIN_A, "USDC")
      const entry = (amount: string) => ({ origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], to: a.bob.address, from: a.alice.address, inputAsset: usdcA, amount })
      const tx = await post("/intents", [entry("1500000"), entry("2500000")])
      expect(tx).toMatchObject({ to: d.chain(DOMAIN_A).addresses.feeAdapter, from: a.alice.address.toLowerCase(), chainId: DOMAIN_A, value: "0" })
      const decoded = decodeFunctionData({ abi: FeeAdapterAbi, data: tx.data })
      expect(decoded.functionName).toBe("newOrder")
      const [fee, deadline, sig] = decoded.args as unknown as [bigint, bigint, Hex]
      // Reference §5.1: the fee signer signs keccak256(abi.encode(tokenFee, nativeFee = msg.value, inputAsset, deadline)), EIP-191.
      const digest = (nativeFee: bigint) => keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }, { type: "address" }, { type: "uint256" }], [fee, nativeFee, usdcA, deadline]))
      expect(await recoverMessageAddress({ message: { raw: digest(BigInt(tx.value)) }, signature: sig })).toBe(a.feeSigner.address)
      expect(await recoverMessageAddress({ message: { raw: digest(1n) }, signature: sig })).not.toBe(a.feeSigner.address)
      const withValue = (await d.send({ ...tx, value: "1" })).receipts[0]!
      expect(withValue).toMatchObject({ status: "reverted", error: { name: "FeeAdapter_InvalidSignature", args: [] } })
      const receipt = success(await d.send(tx))
      expect(eventsNamed(receipt.events, "OrderCreated")[0]).toMatchObject({ tokenFee: fee, nativeFee: 0n, initiator: addressToBytes32(a.alice.address) })
    })
  })

  describe(`POST /intents with permit2Params on the ${backend} spokes`, () => {
    // Alice pays USDC on B through Permit2 only: no allowance for the fee adapter there, one for Permit2.
    const usdcB = () => d.token(DOMAIN_B, "USDC")
    const body = (amount: string, permit2Params?: unknown) => ({
      origin: String(DOMAIN_B),
      destinations: [String(DOMAIN_A)],
      to: d.accounts.bob.address,
      from: d.accounts.alice.address,
      inputAsset: usdcB(),
      amount,
      ...(permit2Params === undefined ? {} : { permit2Params }),
    })
    const signedParams = async (amount: string, nonce: bigint, deadline: bigint) => {
      const typedData = d.service.intentPermit2TypedData({ origin: DOMAIN_B, inputAsset: usdcB(), amount, nonce, deadline })
      expect(typedData.message).toMatchObject({ spender: d.chain(DOMAIN_B).addresses.feeAdapter, permitted: { token: usdcB(), amount: BigInt(amount) } })
      return { nonce: String(nonce), deadline: String(deadline), signature: await d.accounts.alice.signTypedData(typedData) }
    }

    beforeAll(async () => {
      const a = d.accounts
      success(await d.call(DOMAIN_B, a.alice.address, Call.erc20.approve(usdcB(), d.chain(DOMAIN_B).addresses.feeAdapter, 0n)))
      success(await d.call(DOMAIN_B, a.alice.address, Call.erc20.approve(usdcB(), PERMIT2_ADDRESS, maxUint256)))
    })
    afterAll(async () => {
      success(await d.call(DOMAIN_B, d.accounts.alice.address, Call.erc20.approve(usdcB(), d.chain(DOMAIN_B).addresses.feeAdapter, maxUint256)))
    })

    it("builds the Permit2 overload for a signed permit of amount (fee included) to the fee adapter; it executes, and the same permit again reverts InvalidNonce", async () => {
      const a = d.accounts
      const before = await d.chain(DOMAIN_B).erc20Balance(usdcB(), a.alice.address)
      const params = await signedParams("40000000", 77n, d.time + 3_600n)
      const tx = await post("/intents", body("40000000", params))
      expect(tx).toMatchObject({ to: d.chain(DOMAIN_B).addresses.feeAdapter, chainId: DOMAIN_B })
      const decoded = decodeFunctionData({ abi: FeeAdapterAbi, data: tx.data })
      expect(decoded.functionName).toBe("newIntent")
      expect(decoded.args).toHaveLength(10)
      expect(decoded.args[8]).toEqual({ nonce: 77n, deadline: d.time + 3_600n, signature: params.signature })
      const receipt = success(await d.send(tx))
      const [added] = eventsNamed(receipt.events, "IntentAdded")
      const [withFees] = eventsNamed(receipt.events, "IntentWithFeesAdded")
      expect(withFees).toMatchObject({ initiator: addressToBytes32(a.alice.address) })
      expect(normalizeDecimals(added!.intent.amount, NORMALIZED_DECIMALS, 6) + withFees!.tokenFee).toBe(40_000_000n)
      expect(await d.chain(DOMAIN_B).erc20Balance(usdcB(), a.alice.address)).toBe(before - 40_000_000n)
      const got = await request(server.url, "GET", `/intents/${added!.intentId}`)
      expect(got.body).toMatchObject({ intent: { status: "ADDED_SPOKE", fee_adapter_initiator: a.alice.address.toLowerCase() } })
      // The same signed permit again: the API cannot know the nonce is used; Permit2 refuses on-chain.
      const again = (await d.send(await post("/intents", body("40000000", params)))).receipts[0]!
      expect(again).toMatchObject({ status: "reverted", error: { name: "InvalidNonce", args: [] } })
    })

    it("carries a fast-path intent's ttl (or isFastPath's default ttl) and max fee into the Permit2 overload; it executes with them", async () => {
      const a = d.accounts
      const usdcA = d.token(DOMAIN_A, "USDC")
      const cases = [
        { over: { ttl: 900, max_fee: "250" }, nonce: 90n, ttl: 900, maxFee: 250 },
        { over: { isFastPath: true, maxFee: "75" }, nonce: 91n, ttl: 3_600, maxFee: 75 },
      ]
      for (const c of cases) {
        const before = await d.chain(DOMAIN_B).erc20Balance(usdcB(), a.alice.address)
        const params = await signedParams("20000000", c.nonce, d.time + 3_600n)
        const request = { ...body("20000000", params), ...c.over }
        const tx = await post("/intents", request)
        expect(tx).toMatchObject({ to: d.chain(DOMAIN_B).addresses.feeAdapter, chainId: DOMAIN_B, value: "0" })
        const decoded = decodeFunctionData({ abi: FeeAdapterAbi, data: tx.data })
        expect(decoded.functionName).toBe("newIntent")
        expect(decoded.args).toHaveLength(10)
        const [destinations, receiver, inputAsset, outputAsset, amount, maxFee, ttl, data, permit2, feeParams] = decoded.args as unknown as [number[], Address, Address, Address, bigint, number, number, Hex, unknown, { fee: bigint }]
        expect({ destinations, receiver: receiver.toLowerCase(), inputAsset: inputAsset.toLowerCase(), outputAsset: outputAsset.toLowerCase(), maxFee, ttl, data }, JSON.stringify(c.over)).toEqual({
          destinations: [DOMAIN_A],
          receiver: a.bob.address.toLowerCase(),
          inputAsset: usdcB().toLowerCase(),
          outputAsset: usdcA.toLowerCase(),
          maxFee: c.maxFee,
          ttl: c.ttl,
          data: "0x",
        })
        // The fast path charges the fixed fee only (0.01 USDC) through the adapter; Permit2 pulls amount + fee, the signed amount.
        expect([amount, feeParams.fee]).toEqual([20_000_000n - 10_000n, 10_000n])
        expect(permit2).toEqual({ nonce: c.nonce, deadline: d.time + 3_600n, signature: params.signature })
        // The in-process caller gets the same typed call.
        const { call } = await Effect.runPromise(d.service.createIntentsWithCall(request as never))
        expect(call).toMatchObject({ kind: "feeAdapter.newIntentPermit2", ttl: c.ttl, maxFee: c.maxFee, outputAsset: usdcA.toLowerCase(), permit2Params: { nonce: c.nonce } })
        const [added] = eventsNamed(success(await d.send(tx)).events, "IntentAdded")
        expect(added!.intent).toMatchObject({ ttl: c.ttl, maxFee: c.maxFee, outputAsset: addressToBytes32(usdcA), destinations: [DOMAIN_A] })
        expect(await d.chain(DOMAIN_B).erc20Balance(usdcB(), a.alice.address)).toBe(before - 20_000_000n)
      }
    })

    it("a permit signed for another amount, expired, or signed by someone else reverts with Permit2's error", async () => {
      const a = d.accounts
      const expectRevert = async (request: unknown, name: string, args: readonly unknown[]) => {
        const receipt = (await d.send(await post("/intents", request))).receipts[0]!
        expect(receipt).toMatchObject({ status: "reverted", error: { name, args } })
      }
      // Signed for the intent amount without the fee: the permit the adapter builds (amount + fee) has another hash.
      await expectRevert(body("30000000", await signedParams("29990000", 78n, d.time + 3_600n)), "InvalidSigner", [])
      await expectRevert(body("30000000", await signedParams("30000000", 79n, d.time)), "SignatureExpired", [d.time])
      const typedData = d.service.intentPermit2TypedData({ origin: DOMAIN_B, inputAsset: usdcB(), amount: "30000000", nonce: 80n, deadline: d.time + 60n })
      await expectRevert(body("30000000", { nonce: "80", deadline: String(d.time + 60n), signature: await a.bob.signTypedData(typedData) }), "InvalidSigner", [])
    })

    it("placeholders keep the allowance flow (newIntent without Permit2)", async () => {
      const placeholders = [{}, { nonce: "0", deadline: "0", signature: "0x" }, { nonce: "", deadline: "", signature: "" }, { signature: `0x${"00".repeat(65)}` }, { nonce: "0", deadline: "0", signature: "0x0" }, { signature: "0x000" }]
      for (const placeholder of placeholders) {
        const tx = await post("/intents", { ...body("1000000", placeholder), inputAsset: d.token(DOMAIN_A, "USDC"), origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)] })
        const decoded = decodeFunctionData({ abi: FeeAdapterAbi, data: tx.data })
        expect(decoded.functionName, JSON.stringify(placeholder)).toBe("newIntent")
        expect(decoded.args, JSON.stringify(placeholder)).toHaveLength(9)
      }
      // A "0x0" signature builds the allowance flow, which executes (Alice approved the fee adapter on A).
      const tx = await post("/intents", { ...body("1000000", { nonce: "0", deadline: "0", signature: "0x0" }), inputAsset: d.token(DOMAIN_A, "USDC"), origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)] })
      expect(eventsNamed(success(await d.send(tx)).events, "IntentAdded")).toHaveLength(1)
    })

    it("an order's permit2Params are placeholders unless they hold a real signature (SPEC: placeholders are allowed for orders)", async () => {
      const a = d.accounts
      const entry = (permit2Params?: unknown) => ({ ...body("1000000", permit2Params), inputAsset: d.token(DOMAIN_A, "USDC"), origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)] })
      const junk = [
        { nonce: "0", deadline: "0", signature: "0x0" },
        { nonce: "nonce", deadline: "deadline", signature: "string" },
        { signature: `0X${"11".repeat(64)}1b` },
        { nonce: "-1", deadline: `${maxUint256 + 1n}`, signature: "0x1234" },
        { signature: `0x${"00".repeat(65)}` },
        { nonce: "", deadline: "", signature: "" },
        {},
      ]
      const tx = await post("/intents", [entry(), ...junk.map(entry)])
      expect(tx).toMatchObject({ to: d.chain(DOMAIN_A).addresses.feeAdapter, chainId: DOMAIN_A })
      expect(decodeFunctionData({ abi: FeeAdapterAbi, data: tx.data }).functionName).toBe("newOrder")
      const receipt = success(await d.send(tx))
      expect(eventsNamed(receipt.events, "IntentAdded")).toHaveLength(junk.length + 1)
      expect(eventsNamed(receipt.events, "OrderCreated")[0]).toMatchObject({ initiator: addressToBytes32(a.alice.address) })
      // A real 64-byte (EIP-2098) signature in an entry is still refused, whatever its nonce and deadline.
      const compact = await request(server.url, "POST", "/intents", [entry(), entry({ nonce: "x", signature: `0x${"22".repeat(64)}` })])
      expect(compact.status).toBe(400)
      expect(compact.body).toMatchObject({ error: "Permit2NotSupportedForOrders" })
      expect((compact.body as { message: string }).message).toContain("[1].permit2Params")
    })

    it("refuses malformed permit2Params with 400 InvalidPermit2Params naming the field, and Permit2 in an order", async () => {
      const signature = `0x${"11".repeat(64)}1b`
      const cases: readonly [unknown, string][] = [
        [{ nonce: "1", deadline: "2", signature: "0x1234" }, "permit2Params.signature: expected a 65-byte (r, s, v) or 64-byte EIP-2098 signature, got 2 bytes."],
        [{ nonce: "1", deadline: "2", signature: "zz" }, "permit2Params.signature: expected 0x-prefixed hex"],
        [{ nonce: "1", deadline: "2", signature: `0x${"11".repeat(64)}01` }, "permit2Params.signature: v must be 27 or 28"],
        [{ deadline: "2", signature }, "permit2Params.nonce: required with a Permit2 signature"],
        [{ nonce: "-1", deadline: "2", signature }, "permit2Params.nonce: expected a uint256"],
        [{ nonce: "1", deadline: `${maxUint256 + 1n}`, signature }, "permit2Params.deadline: expected a uint256"],
        // Over 78 decimal digits or 0x and 64 hex digits: refused on its length, before BigInt reads it.
        [{ nonce: "1".repeat(79), deadline: "2", signature }, "permit2Params.nonce: too long for a uint256"],
        [{ nonce: "1", deadline: `0x${"f".repeat(65)}`, signature }, "permit2Params.deadline: too long for a uint256"],
        [{ nonce: "9".repeat(100_000), deadline: "2", signature }, "permit2Params.nonce: too long for a uint256"],
        [{ nonce: `2${"0".repeat(77)}`, deadline: "2", signature }, "permit2Params.nonce: expected a uint256"],
        // A single intent stays strict: junk that is not a placeholder is refused.
        [{ nonce: "1", deadline: "2", signature: "string" }, "permit2Params.signature: expected 0x-prefixed hex"],
        [{ nonce: "1", deadline: "2", signature: `0X${"11".repeat(64)}1b` }, "permit2Params.signature: expected 0x-prefixed hex"],
      ]
      for (const [permit2Params, message] of cases) {
        const r = await request(server.url, "POST", "/intents", body("1000000", permit2Params))
        expect(r.status).toBe(400)
        expect(r.body).toMatchObject({ error: "InvalidPermit2Params" })
        expect((r.body as { message: string }).message).toContain(message)
      }
      const order = await request(server.url, "POST", "/intents", [body("1000000"), body("1000000", { nonce: "1", deadline: "2", signature })])
      expect(order.status).toBe(400)
      expect(order.body).toMatchObject({ error: "Permit2NotSupportedForOrders" })
      expect((order.body as { message: string }).message).toContain("[1].permit2Params")
    })

    it("accepts a nonce and deadline of 2^256 - 1, in decimal (78 digits) and as 0x and 64 hex digits, and encodes them", async () => {
      const signature = `0x${"11".repeat(64)}1b`
      const decimal = "115792089237316195423570985008687907853269984665640564039457584007913129639935"
      const hex = `0x${"f".repeat(64)}`
      expect(BigInt(decimal)).toBe(2n ** 256n - 1n)
      for (const [nonce, deadline] of [[decimal, hex], [hex, decimal]]) {
        const tx = await post("/intents", body("1000000", { nonce, deadline, signature }))
        const decoded = decodeFunctionData({ abi: FeeAdapterAbi, data: tx.data })
        expect(decoded.args).toHaveLength(10)
        expect(decoded.args[8]).toEqual({ nonce: 2n ** 256n - 1n, deadline: 2n ** 256n - 1n, signature })
      }
    })

    it("intentPermit2TypedData refuses a nonce or deadline outside uint256 with BadRequest InvalidPermit2Params naming it", () => {
      const base = { origin: DOMAIN_B, inputAsset: usdcB(), amount: "1000000", nonce: 1n, deadline: d.time + 60n }
      expect(d.service.intentPermit2TypedData({ ...base, nonce: maxUint256, deadline: maxUint256 }).message).toMatchObject({ nonce: maxUint256, deadline: maxUint256 })
      expect(d.service.intentPermit2TypedData({ ...base, nonce: 0n, deadline: 0n }).message).toMatchObject({ nonce: 0n, deadline: 0n })
      const cases: readonly [Partial<typeof base>, string][] = [
        [{ nonce: -1n }, "nonce:"],
        [{ nonce: maxUint256 + 1n }, "nonce:"],
        [{ deadline: -5n }, "deadline:"],
        [{ deadline: maxUint256 + 1n }, "deadline:"],
      ]
      for (const [override, field] of cases) {
        let thrown: unknown
        try {
          d.service.intentPermit2TypedData({ ...base, ...override })
        } catch (e) {
          thrown = e
        }
        expect(thrown).toBeInstanceOf(BadRequest)
        expect(thrown).toMatchObject({ error: "InvalidPermit2Params" })
        expect((thrown as BadRequest).message).toMatch(new RegExp(`^${field}`))
      }
    })
  })

  describe(`the lifecycle through the API (${backend})`, () => {
    it("an invoice bought with its min amount settles; its calldata is executed with the execute transaction", async () => {
      const a = d.accounts
      const target = d.chain(DOMAIN_B).addresses.callTarget!
      const callData = encodeAbiParameters([{ type: "address" }, { type: "bytes" }], [target, encodeFunctionData({ abi: TestCallTargetAbi, functionName: "record", args: [7n] })])
      // A WETH intent A→B with calldata: no WETH on B, so it becomes an invoice.
      const tx = await post("/intents", { origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], to: a.bob.address, from: a.alice.address, inputAsset: d.token(DOMAIN_A, "WETH"), amount: "5000000000000000000", callData })
      const [added] = eventsNamed(success(await d.send(tx)).events, "IntentAdded")
      const id = added!.intentId
      await d.relayIntents(DOMAIN_A)
      expect(((await request(server.url, "GET", `/intents/${id}`)).body as { intent: { status: string } }).intent.status).toBe("INVOICED")
      const invoices = (await request(server.url, "GET", "/invoices")).body as { invoices: { intent_id: string }[] }
      expect(invoices.invoices.map((i) => i.intent_id)).toContain(id)
      d.nextEpoch()
      const min = (await request(server.url, "GET", `/invoices/${id}/min-amounts`)).body as { minAmounts: Record<string, string> }
      const needed18 = BigInt(min.minAmounts[String(DOMAIN_B)]!)
      expect(needed18).toBeGreaterThan(0n)
      // Bob buys it from B: his intent amount (after the adapter's fee) must be at least the min amount.
      const quote = (await request(server.url, "POST", "/routes/quotes", { origin: String(DOMAIN_B), destinations: [String(DOMAIN_A)], inputAsset: d.token(DOMAIN_B, "WETH"), amount: needed18.toString() })).body as { fixedFeeUnits: string }
      const buyAmount = needed18 + BigInt(quote.fixedFeeUnits) * 2n + needed18 / 500n
      const buy = await post("/intents", { origin: String(DOMAIN_B), destinations: [String(DOMAIN_A)], to: a.bob.address, from: a.bob.address, inputAsset: d.token(DOMAIN_B, "WETH"), amount: buyAmount.toString() })
      success(await d.send(buy))
      await d.relayIntents(DOMAIN_B)
      d.hub.processDepositsAndInvoices("WETH")
      expect(((await request(server.url, "GET", `/intents/${id}`)).body as { intent: { status: string } }).intent.status).toBe("SETTLED")
      const history = (await request(server.url, "GET", `/history/${id}/invoice-processing`)).body as { invoiceProcessingHistory: { selectedDestinationDomain: number }[] }
      expect(history.invoiceProcessingHistory.at(-1)?.selectedDestinationDomain).toBe(DOMAIN_B)
      await d.settle(DOMAIN_B)
      const settled = ((await request(server.url, "GET", `/intents/${id}`)).body as { intent: Record<string, unknown> }).intent
      expect(settled).toMatchObject({ status: "SETTLED", hub_settlement_domain: String(DOMAIN_B), call_data: callData })
      expect(settled.receive_tx_hash).toMatch(/^0x[0-9a-f]{64}$/)
      // Execute the calldata on B.
      const exec = await post(`/intents/${id}/execute`, { domain: String(DOMAIN_B) })
      expect(exec).toMatchObject({ to: d.chain(DOMAIN_B).addresses.spoke, chainId: DOMAIN_B })
      const receipt = success(await d.send(exec, a.bob.address))
      expect(eventsNamed(receipt.events, "ExternalCalldataExecuted").map((e) => e.intentId)).toEqual([id])
      expect(((await request(server.url, "GET", `/intents/${id}`)).body as { intent: { status: string } }).intent.status).toBe("SETTLED_AND_MANUALLY_EXECUTED")
      // Executing twice is refused by the API (no longer SETTLED).
      expect((await request(server.url, "POST", `/intents/${id}/execute`, { domain: String(DOMAIN_B) })).status).toBe(400)
    })
  })
}
