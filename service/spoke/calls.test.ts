import { encodeFunctionData, maxUint256, zeroAddress } from "viem"
import { describe, expect, test } from "vitest"
import type { Address, Bytes32, Hex } from "../domain/hex.ts"
import { type Intent, Strategy } from "../domain/protocol.ts"
import { Call, decodeSpokeCall, encodeSpokeCall, InvalidSpokeCallError, type NewIntentParams, type SpokeCall, type SpokeCallKind, validateSpokeCall } from "./calls.ts"
import { TestERC20Abi, XERC20TokenAbi } from "./abi.ts"
import { planSpokeLayout } from "./layout.ts"

const A = "0x00000000000000000000000000000000000000a1" as Address
const B = "0x00000000000000000000000000000000000000b2" as Address
const WORD = `0x${"11".repeat(32)}` as Bytes32
const layout = planSpokeLayout(25_327, {
  domain: 31_337,
  deployer: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
  relayer: A,
  feeSigner: B,
  tokens: [
    { symbol: "USDC", decimals: 6 },
    { symbol: "BLK", decimals: 6, kind: "blacklist" },
    { symbol: "XT", decimals: 18, kind: "xerc20" },
  ],
})
const { addresses } = layout
const usdc = addresses.tokens.USDC!.address
const blk = addresses.tokens.BLK!.address
const xt = addresses.tokens.XT!.address

const intent: Intent = {
  initiator: WORD,
  receiver: `0x000000000000000000000000${A.slice(2)}`,
  inputAsset: `0x000000000000000000000000${usdc.slice(2)}`,
  outputAsset: `0x000000000000000000000000${usdc.slice(2)}`,
  maxFee: 1_000,
  origin: 10,
  nonce: 7n,
  timestamp: 1_700_000_000,
  ttl: 3_600,
  amount: 123n * 10n ** 18n,
  destinations: [31_337, 10],
  data: "0xabcdef",
}
const params = { destinations: [10, 8453], receiver: A, inputAsset: usdc, outputAsset: zeroAddress, amount: 5n, maxFee: 3, ttl: 0, data: "0x" as Hex }
const feeParams = { fee: 1_000n, deadline: 1_800_000_000n, sig: `0x${"ab".repeat(65)}` as Hex }
const permit2Params = { nonce: 2n ** 200n + 5n, deadline: 1_800_000_100n, signature: `0x${"cd".repeat(64)}` as Hex }

/** One call of every kind. */
const EVERY_CALL: readonly SpokeCall[] = [
  Call.feeAdapter.newIntent({ ...params, feeParams }),
  Call.feeAdapter.newIntentPermit2({ ...params, permit2Params, feeParams }),
  Call.feeAdapter.newOrder(feeParams, [params, { ...params, ttl: 60, destinations: [10], outputAsset: usdc }]),
  Call.feeAdapter.returnUnsupportedIntent(usdc, 9n, A),
  Call.feeAdapter.updateFeeRecipient(A),
  Call.feeAdapter.updateFeeSigner(B),
  Call.spoke.newIntent(params),
  Call.spoke.newIntentPermit2({ ...params, permit2Params }),
  Call.spoke.processIntentQueue([intent, { ...intent, nonce: 8n, data: "0x" }]),
  Call.spoke.fillIntent(intent, 500),
  Call.spoke.processFillQueue(3),
  Call.spoke.deposit(usdc, 10n),
  Call.spoke.withdraw(usdc, 10n),
  Call.spoke.executeIntentCalldata(intent),
  Call.spoke.pause(),
  Call.spoke.unpause(),
  Call.spoke.updateGateway(B),
  Call.spoke.updateLighthouse(A),
  Call.spoke.updateWatchtower(B),
  Call.spoke.updateHubDomain(1),
  Call.spoke.setStrategyForAsset(xt, Strategy.XERC20),
  Call.spoke.setModuleForStrategy(Strategy.XERC20, A),
  Call.spoke.receiveMessage("0x00000000000000000000000000000000000000000000000000000000000000020000000000000000000000000000000000000000000000000000000000000040"),
  Call.gateway.receiveMessage(25_327, WORD, "0x1234"),
  Call.gateway.setFees(1n, 2n),
  Call.gateway.updateRelayer(B),
  Call.xerc20Module.mintDebt(xt, A, 4n),
  Call.permit2.permitTransferFrom({ token: usdc, amount: 10n, nonce: 3n, deadline: 4n, to: A, requestedAmount: 9n, owner: B, signature: `0x${"ef".repeat(65)}` }),
  Call.permit2.invalidateUnorderedNonces(1n, 6n),
  Call.erc20.approve(usdc, B, maxUint256),
  Call.erc20.transfer(blk, B, 1n),
  Call.erc20.transferFrom(usdc, A, B, 2n),
  Call.erc20.mint(usdc, A, 3n),
  Call.erc20.mint(xt, A, 3n),
  Call.xerc20.setLimits(xt, A, 10n, 20n),
  Call.blacklist.setBlacklisted(blk, A, true),
  Call.blacklist.setRevertOnBlacklisted(blk, true),
]

describe("SpokeCall calldata", () => {
  test("covers every kind", () => {
    // The compiler checks that this record names every kind of the union.
    const ALL: Record<SpokeCallKind, true> = {
      "feeAdapter.newIntent": true,
      "feeAdapter.newIntentPermit2": true,
      "feeAdapter.newOrder": true,
      "feeAdapter.returnUnsupportedIntent": true,
      "feeAdapter.updateFeeRecipient": true,
      "feeAdapter.updateFeeSigner": true,
      "spoke.newIntent": true,
      "spoke.newIntentPermit2": true,
      "spoke.processIntentQueue": true,
      "spoke.fillIntent": true,
      "spoke.processFillQueue": true,
      "spoke.deposit": true,
      "spoke.withdraw": true,
      "spoke.executeIntentCalldata": true,
      "spoke.pause": true,
      "spoke.unpause": true,
      "spoke.updateGateway": true,
      "spoke.updateLighthouse": true,
      "spoke.updateWatchtower": true,
      "spoke.updateHubDomain": true,
      "spoke.setStrategyForAsset": true,
      "spoke.setModuleForStrategy": true,
      "spoke.receiveMessage": true,
      "gateway.receiveMessage": true,
      "gateway.setFees": true,
      "gateway.updateRelayer": true,
      "xerc20Module.mintDebt": true,
      "permit2.permitTransferFrom": true,
      "permit2.invalidateUnorderedNonces": true,
      "erc20.approve": true,
      "erc20.transfer": true,
      "erc20.transferFrom": true,
      "erc20.mint": true,
      "xerc20.setLimits": true,
      "blacklist.setBlacklisted": true,
      "blacklist.setRevertOnBlacklisted": true,
    }
    expect(new Set(EVERY_CALL.map((call) => call.kind))).toEqual(new Set(Object.keys(ALL)))
  })

  test.each(EVERY_CALL.map((call) => [call.kind, call] as const))("%s decodes back to the same call", (_kind, call) => {
    const { to, data } = encodeSpokeCall(addresses, call)
    expect(decodeSpokeCall(addresses, to, data)).toEqual(call)
    // Any address case works for the target.
    expect(decodeSpokeCall(addresses, to.toUpperCase().replace("0X", "0x"), data)).toEqual(call)
  })

  test("the xERC20 test mint is ownerMint, the others mint", () => {
    expect(encodeSpokeCall(addresses, Call.erc20.mint(xt, A, 1n)).data.slice(0, 10)).not.toBe(encodeSpokeCall(addresses, Call.erc20.mint(usdc, A, 1n)).data.slice(0, 10))
  })

  test("XERC20Token.mint (the bridge mint, limited by the caller's minting limit) is no SpokeCall; ownerMint is erc20.mint", () => {
    // Decoded as erc20.mint it was run as ownerMint on both backends: a raw bridge mint by the owner minted without
    // limit where the contract reverts XERC20Token_NotHighEnoughLimits, and a stranger's got XERC20Token_NotOwner.
    const bridgeMint = encodeFunctionData({ abi: XERC20TokenAbi, functionName: "mint", args: [A, 1n] })
    expect(decodeSpokeCall(addresses, xt, bridgeMint)).toBeUndefined()
    const ownerMint = encodeFunctionData({ abi: XERC20TokenAbi, functionName: "ownerMint", args: [A, 1n] })
    expect(decodeSpokeCall(addresses, xt, ownerMint)).toEqual(Call.erc20.mint(xt, A, 1n))
    const testMint = encodeFunctionData({ abi: TestERC20Abi, functionName: "mint", args: [A, 1n] })
    expect(decodeSpokeCall(addresses, usdc, testMint)).toEqual(Call.erc20.mint(usdc, A, 1n))
  })

  test("checksummed and uppercase input decodes to lowercase", () => {
    const call = Call.spoke.deposit("0x5FbDB2315678afecb367f032d93F642f64180aa3", 1n)
    const { to, data } = encodeSpokeCall(addresses, call)
    expect(decodeSpokeCall(addresses, to, data)).toEqual({ kind: "spoke.deposit", asset: "0x5fbdb2315678afecb367f032d93f642f64180aa3", amount: 1n })
  })

  test("unknown targets and selectors decode to undefined", () => {
    const { data } = encodeSpokeCall(addresses, Call.spoke.pause())
    expect(decodeSpokeCall(addresses, A, data)).toBeUndefined()
    expect(decodeSpokeCall(addresses, addresses.spoke, "0xdeadbeef")).toBeUndefined()
    expect(decodeSpokeCall(addresses, addresses.gateway, data)).toBeUndefined()
  })
})

describe("validateSpokeCall", () => {
  test.each([
    ["maxFee above uint24", Call.spoke.newIntent({ ...params, maxFee: 2 ** 24 }), "maxFee"],
    ["negative amount", Call.spoke.deposit(usdc, -1n), "amount"],
    ["amount above uint256", Call.erc20.transfer(usdc, A, maxUint256 + 1n), "amount"],
    ["malformed address", Call.spoke.withdraw("0x1234" as Address, 1n), "asset"],
    ["odd hex data", Call.spoke.newIntent({ ...params, data: "0x123" as Hex }), "data"],
    ["destination above uint32", Call.spoke.newIntent({ ...params, destinations: [2 ** 32] }), "destinations[0]"],
    ["fractional fee", Call.spoke.fillIntent(intent, 1.5), "fee"],
    ["short intent word", Call.spoke.fillIntent({ ...intent, initiator: "0x11" as Bytes32 }, 1), "intent.initiator"],
    ["permit2 nonce above uint256", Call.spoke.newIntentPermit2({ ...params, permit2Params: { ...permit2Params, nonce: maxUint256 + 1n } }), "permit2Params.nonce"],
    ["odd permit2 signature", Call.feeAdapter.newIntentPermit2({ ...params, feeParams, permit2Params: { ...permit2Params, signature: "0x1" as Hex } }), "permit2Params.signature"],
    ["nonce above uint64", Call.spoke.executeIntentCalldata({ ...intent, nonce: 2n ** 64n }), "intent.nonce"],
    // The twin compares these as numbers (a ttl of 0n is not 0 there): a bigint would diverge from the contract.
    ["bigint ttl", Call.spoke.newIntent({ ...params, ttl: 0n as unknown as number }), "ttl"],
    ["bigint destination", Call.spoke.fillIntent({ ...intent, destinations: [31001n as unknown as number] }, 1), "intent.destinations[0]"],
  ])("refuses %s", (_name, call, field) => {
    expect(() => validateSpokeCall(call)).toThrowError(InvalidSpokeCallError)
    try {
      validateSpokeCall(call)
    } catch (error) {
      expect((error as InvalidSpokeCallError).field).toBe(field)
    }
    expect(() => encodeSpokeCall(addresses, call)).toThrowError(InvalidSpokeCallError)
  })
})

describe("validateSpokeCall on the fee adapter's order and fee parameters", () => {
  const order = (entry: Partial<NewIntentParams>, fee: Partial<typeof feeParams> = {}) => Call.feeAdapter.newOrder({ ...feeParams, ...fee }, [params, { ...params, ...entry }])
  const intent = (fee: Partial<typeof feeParams>) => Call.feeAdapter.newIntent({ ...params, feeParams: { ...feeParams, ...fee } })
  const permit2 = (fee: Partial<typeof feeParams>, permit: Partial<typeof permit2Params> = {}) =>
    Call.feeAdapter.newIntentPermit2({ ...params, feeParams: { ...feeParams, ...fee }, permit2Params: { ...permit2Params, ...permit } })

  test.each([
    // newOrder: the one fee of the order, then each field of each entry, named by its index.
    ["order fee above uint256", order({}, { fee: maxUint256 + 1n }), "feeAdapter.newOrder", "fee"],
    ["negative order fee", order({}, { fee: -1n }), "feeAdapter.newOrder", "fee"],
    ["order deadline above uint256", order({}, { deadline: maxUint256 + 1n }), "feeAdapter.newOrder", "deadline"],
    ["odd hex order sig", order({}, { sig: "0xabc" as Hex }), "feeAdapter.newOrder", "sig"],
    ["order destination above uint32", order({ destinations: [10, 2 ** 32] }), "feeAdapter.newOrder", "params[1].destinations[1]"],
    ["malformed order receiver", order({ receiver: "0x1234" as Address }), "feeAdapter.newOrder", "params[1].receiver"],
    ["malformed order inputAsset", order({ inputAsset: `${usdc}00` as Address }), "feeAdapter.newOrder", "params[1].inputAsset"],
    ["malformed order outputAsset", order({ outputAsset: "0x" as Address }), "feeAdapter.newOrder", "params[1].outputAsset"],
    ["negative order amount", order({ amount: -1n }), "feeAdapter.newOrder", "params[1].amount"],
    ["order amount above uint256", order({ amount: maxUint256 + 1n }), "feeAdapter.newOrder", "params[1].amount"],
    ["order maxFee above uint24", order({ maxFee: 2 ** 24 }), "feeAdapter.newOrder", "params[1].maxFee"],
    ["order ttl above uint48", order({ ttl: 2 ** 48 }), "feeAdapter.newOrder", "params[1].ttl"],
    ["negative order ttl", order({ ttl: -1 }), "feeAdapter.newOrder", "params[1].ttl"],
    ["order data that is not hex", order({ data: "0xzz" as Hex }), "feeAdapter.newOrder", "params[1].data"],
    // newIntent's feeParams.
    ["newIntent fee above uint256", intent({ fee: maxUint256 + 1n }), "feeAdapter.newIntent", "feeParams.fee"],
    ["newIntent deadline above uint256", intent({ deadline: maxUint256 + 1n }), "feeAdapter.newIntent", "feeParams.deadline"],
    ["newIntent negative deadline", intent({ deadline: -1n }), "feeAdapter.newIntent", "feeParams.deadline"],
    ["newIntent sig without 0x", intent({ sig: "ab".repeat(65) as Hex }), "feeAdapter.newIntent", "feeParams.sig"],
    // The Permit2 overload's feeParams and permit.
    ["Permit2 newIntent negative fee", permit2({ fee: -1n }), "feeAdapter.newIntentPermit2", "feeParams.fee"],
    ["Permit2 newIntent deadline above uint256", permit2({ deadline: maxUint256 + 1n }), "feeAdapter.newIntentPermit2", "feeParams.deadline"],
    ["Permit2 newIntent odd hex sig", permit2({ sig: "0x1" as Hex }), "feeAdapter.newIntentPermit2", "feeParams.sig"],
    ["Permit2 deadline above uint256", permit2({}, { deadline: maxUint256 + 1n }), "feeAdapter.newIntentPermit2", "permit2Params.deadline"],
    ["Permit2 negative nonce", permit2({}, { nonce: -1n }), "feeAdapter.newIntentPermit2", "permit2Params.nonce"],
  ])("refuses %s, naming the call and the argument", (_name, call, kind, field) => {
    let thrown: unknown
    try {
      validateSpokeCall(call)
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(InvalidSpokeCallError)
    expect(thrown).toMatchObject({ kind, field })
    expect((thrown as Error).message).toMatch(new RegExp(`^${kind.replace(".", "\\.")}: argument \`${field.replace(/[[\]]/g, "\\$&")}\` `))
    expect(() => encodeSpokeCall(addresses, call)).toThrowError(InvalidSpokeCallError)
  })

  test("refuses a Permit2 overload without permit2Params", () => {
    const call = { ...permit2({}), permit2Params: null } as unknown as SpokeCall
    expect(() => validateSpokeCall(call)).toThrowError(expect.objectContaining({ kind: "feeAdapter.newIntentPermit2", field: "permit2Params" }))
  })

  test("accepts every order and fee parameter at the ends of its ABI type, and the calls encode and decode unchanged", () => {
    const low = { destinations: [0], receiver: zeroAddress, inputAsset: usdc, outputAsset: zeroAddress, amount: 0n, maxFee: 0, ttl: 0, data: "0x" as Hex }
    const high = { destinations: [2 ** 32 - 1, 1], receiver: A, inputAsset: usdc, outputAsset: B, amount: maxUint256, maxFee: 2 ** 24 - 1, ttl: 2 ** 48 - 1, data: `0x${"ff".repeat(33)}` as Hex }
    const lowFee = { fee: 0n, deadline: 0n, sig: "0x" as Hex }
    const highFee = { fee: maxUint256, deadline: maxUint256, sig: `0x${"ab".repeat(65)}` as Hex }
    const calls = [
      Call.feeAdapter.newOrder(lowFee, [low, high]),
      Call.feeAdapter.newOrder(highFee, [high, low]),
      Call.feeAdapter.newIntent({ ...high, feeParams: highFee }),
      Call.feeAdapter.newIntent({ ...low, feeParams: lowFee }),
      Call.feeAdapter.newIntentPermit2({ ...high, feeParams: highFee, permit2Params: { nonce: maxUint256, deadline: maxUint256, signature: `0x${"cd".repeat(65)}` } }),
      Call.feeAdapter.newIntentPermit2({ ...low, feeParams: lowFee, permit2Params: { nonce: 0n, deadline: 0n, signature: "0x" } }),
    ]
    for (const call of calls) {
      expect(() => validateSpokeCall(call)).not.toThrow()
      const { to, data } = encodeSpokeCall(addresses, call)
      expect(to).toBe(addresses.feeAdapter)
      expect(decodeSpokeCall(addresses, to, data)).toEqual(call)
    }
  })
})
