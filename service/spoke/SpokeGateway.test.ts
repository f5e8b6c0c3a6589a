/**
 * SpokeGateway on anvil: the deterministic quote, outbound messages (spoke only, fee, message id), inbound delivery
 * (relayer only, hub origin only, once per message id) and administration.
 */
import { describe, expect, it } from "vitest"
import { encodeAbiParameters, type Hex, keccak256, parseEventLogs } from "viem"
import { encodeSettlementMessage } from "../domain/encoding.ts"
import { DEFAULT_GATEWAY_FEES } from "./deploy.ts"
import { abis, deliver, expectRevert, HUB_DOMAIN, mined, Role, SPOKE_CHAIN_ID, type SpokeFixture, useSpokeFixture } from "./test/fixture.ts"

const fixture = useSpokeFixture()

const gatewayOf = (f: SpokeFixture) => ({ address: f.deployment.gateway, abi: abis.gateway }) as const
const emptySettlement = encodeSettlementMessage([])

describe("SpokeGateway.quoteMessage", () => {
  it("is baseFee + feePerByte * message length for any destination, and follows setFees", async () => {
    const f = fixture()
    const gateway = gatewayOf(f)
    const message: Hex = `0x${"11".repeat(100)}`
    for (const chainId of [HUB_DOMAIN, 1]) {
      expect(await f.chain.publicClient.readContract({ ...gateway, functionName: "quoteMessage", args: [chainId, message] })).toBe(
        DEFAULT_GATEWAY_FEES.baseFee + 100n * DEFAULT_GATEWAY_FEES.feePerByte,
      )
    }
    const receipt = await mined(f, f.chain.wallet(Role.owner).writeContract({ ...gateway, functionName: "setFees", args: [7n, 3n] }))
    expect(parseEventLogs({ abi: abis.gateway, eventName: "FeesUpdated", logs: receipt.logs })[0]!.args).toEqual({ baseFee: 7n, feePerByte: 3n })
    expect(await f.chain.publicClient.readContract({ ...gateway, functionName: "quoteMessage", args: [HUB_DOMAIN, message] })).toBe(307n)
  })
})

describe("SpokeGateway.sendMessage", () => {
  it("emits MessageSent with messageId = keccak256(abi.encode(origin, destination, nonce, message)), keeps the quote and refunds the rest to tx.origin", async () => {
    const f = fixture()
    const gateway = gatewayOf(f)
    const sender = f.accounts[Role.other]!
    await mined(f, f.chain.wallet(Role.owner).writeContract({ ...gateway, functionName: "updateSpoke", args: [sender] }))
    const message: Hex = "0xdeadbeef"
    const quote = DEFAULT_GATEWAY_FEES.baseFee + 4n * DEFAULT_GATEWAY_FEES.feePerByte
    const simulated = await f.chain.publicClient.simulateContract({ ...gateway, functionName: "sendMessage", args: [HUB_DOMAIN, message], value: quote, account: sender })
    const before = await f.chain.publicClient.getBalance({ address: sender })
    const extra = 10n ** 15n
    const receipt = await mined(f, f.chain.wallet(Role.other).writeContract({ ...gateway, functionName: "sendMessage", args: [HUB_DOMAIN, message], value: quote + extra }))
    const messageId = (nonce: bigint) =>
      keccak256(encodeAbiParameters([{ type: "uint32" }, { type: "uint32" }, { type: "uint256" }, { type: "bytes" }], [SPOKE_CHAIN_ID, HUB_DOMAIN, nonce, message]))
    expect(simulated.result).toBe(messageId(1n))
    expect(parseEventLogs({ abi: abis.gateway, eventName: "MessageSent", logs: receipt.logs })[0]!.args).toEqual({
      messageId: messageId(1n),
      destination: HUB_DOMAIN,
      nonce: 1n,
      message,
      fee: quote,
    })
    expect(await f.chain.publicClient.readContract({ ...gateway, functionName: "nonce" })).toBe(1n)
    expect(await f.chain.publicClient.getBalance({ address: f.deployment.gateway })).toBe(quote)
    // The sender (tx.origin here) paid the quote and the gas; `extra` came back.
    expect(await f.chain.publicClient.getBalance({ address: sender })).toBe(before - quote - receipt.gasUsed * receipt.effectiveGasPrice)
  })

  it("reverts SpokeGateway_SendMessage_RefundFailed(tx.origin, unused) when tx.origin refuses the refund", async () => {
    const f = fixture()
    const gateway = gatewayOf(f)
    const sender = f.accounts[Role.other]!
    await mined(f, f.chain.wallet(Role.owner).writeContract({ ...gateway, functionName: "updateSpoke", args: [sender] }))
    // An EIP-7702 delegation to a contract without receive(): tx.origin now runs code that refuses plain ETH.
    await f.chain.testClient.setCode({ address: sender, bytecode: `0xef0100${f.target.slice(2)}` })
    const quote = DEFAULT_GATEWAY_FEES.baseFee
    await expectRevert(
      f.chain.publicClient.simulateContract({ ...gateway, functionName: "sendMessage", args: [HUB_DOMAIN, "0x"], value: quote + 5n, account: sender }),
      "SpokeGateway_SendMessage_RefundFailed",
      [sender, 5n],
    )
    // Paying exactly the quote needs no refund.
    await f.chain.publicClient.simulateContract({ ...gateway, functionName: "sendMessage", args: [HUB_DOMAIN, "0x"], value: quote, account: sender })
  })

  it("reverts: SpokeGateway_SendMessage_NotSpoke(caller), SpokeGateway_SendMessage_InsufficientFee(provided, required)", async () => {
    const f = fixture()
    const gateway = gatewayOf(f)
    const sender = f.accounts[Role.other]!
    await expectRevert(
      f.chain.publicClient.simulateContract({ ...gateway, functionName: "sendMessage", args: [HUB_DOMAIN, "0x"], value: 10n ** 18n, account: sender }),
      "SpokeGateway_SendMessage_NotSpoke",
      [sender],
    )
    await mined(f, f.chain.wallet(Role.owner).writeContract({ ...gateway, functionName: "updateSpoke", args: [sender] }))
    await expectRevert(
      f.chain.publicClient.simulateContract({ ...gateway, functionName: "sendMessage", args: [HUB_DOMAIN, "0x"], value: DEFAULT_GATEWAY_FEES.baseFee - 1n, account: sender }),
      "SpokeGateway_SendMessage_InsufficientFee",
      [DEFAULT_GATEWAY_FEES.baseFee - 1n, DEFAULT_GATEWAY_FEES.baseFee],
    )
  })
})

describe("SpokeGateway.receiveMessage", () => {
  const simulateReceive = (f: SpokeFixture, origin: number, messageId: Hex, from: number = Role.relayer) =>
    f.chain.publicClient.simulateContract({
      ...gatewayOf(f),
      functionName: "receiveMessage",
      args: [origin, messageId, emptySettlement],
      account: f.accounts[from]!,
    })

  it("delivers to the spoke and records the message id: MessageReceived, then SpokeGateway_ReceiveMessage_AlreadyDelivered(id)", async () => {
    const f = fixture()
    const messageId = keccak256("0x01")
    const receipt = await deliver(f, emptySettlement, messageId)
    expect(parseEventLogs({ abi: abis.gateway, eventName: "MessageReceived", logs: receipt.logs })[0]!.args).toEqual({ messageId, origin: HUB_DOMAIN })
    expect(await f.chain.publicClient.readContract({ ...gatewayOf(f), functionName: "delivered", args: [messageId] })).toBe(true)
    await expectRevert(simulateReceive(f, HUB_DOMAIN, messageId), "SpokeGateway_ReceiveMessage_AlreadyDelivered", [messageId])
  })

  it("reverts: SpokeGateway_ReceiveMessage_NotRelayer(caller) before SpokeGateway_ReceiveMessage_InvalidOrigin(origin, hubDomain)", async () => {
    const f = fixture()
    await expectRevert(simulateReceive(f, 1, keccak256("0x02"), Role.owner), "SpokeGateway_ReceiveMessage_NotRelayer", [f.accounts[Role.owner]!])
    await expectRevert(simulateReceive(f, 1, keccak256("0x02")), "SpokeGateway_ReceiveMessage_InvalidOrigin", [1, HUB_DOMAIN])
  })

  it("follows updateRelayer and updateHubDomain", async () => {
    const f = fixture()
    const gateway = gatewayOf(f)
    await mined(f, f.chain.wallet(Role.owner).writeContract({ ...gateway, functionName: "updateRelayer", args: [f.accounts[Role.other]!] }))
    await mined(f, f.chain.wallet(Role.owner).writeContract({ ...gateway, functionName: "updateHubDomain", args: [99] }))
    await expectRevert(simulateReceive(f, 99, keccak256("0x03")), "SpokeGateway_ReceiveMessage_NotRelayer", [f.accounts[Role.relayer]!])
    await expectRevert(simulateReceive(f, HUB_DOMAIN, keccak256("0x03"), Role.other), "SpokeGateway_ReceiveMessage_InvalidOrigin", [HUB_DOMAIN, 99])
    await simulateReceive(f, 99, keccak256("0x03"), Role.other)
  })
})

describe("SpokeGateway administration", () => {
  it("owner functions: SpokeGateway_NotOwner(caller)", async () => {
    const f = fixture()
    const gateway = gatewayOf(f)
    const user = f.accounts[Role.user]!
    const calls = [
      { functionName: "setFees", args: [1n, 1n] },
      { functionName: "updateSpoke", args: [user] },
      { functionName: "updateRelayer", args: [user] },
      { functionName: "updateHubDomain", args: [1] },
      { functionName: "transferOwnership", args: [user] },
      { functionName: "withdrawFees", args: [user] },
    ] as const
    for (const call of calls) {
      await expectRevert(f.chain.publicClient.simulateContract({ ...gateway, ...call, account: user } as never), "SpokeGateway_NotOwner", [user])
    }
  })

  it("withdrawFees pays out the collected fees, or reverts SpokeGateway_Withdraw_TransferFailed(to, amount)", async () => {
    const f = fixture()
    const gateway = gatewayOf(f)
    const sender = f.accounts[Role.other]!
    await mined(f, f.chain.wallet(Role.owner).writeContract({ ...gateway, functionName: "updateSpoke", args: [sender] }))
    // The gateway keeps the quote of an empty message (baseFee) and refunds the rest.
    await mined(f, f.chain.wallet(Role.other).writeContract({ ...gateway, functionName: "sendMessage", args: [HUB_DOMAIN, "0x"], value: 5n * 10n ** 9n }))
    const collected = DEFAULT_GATEWAY_FEES.baseFee
    await expectRevert(
      f.chain.publicClient.simulateContract({ ...gateway, functionName: "withdrawFees", args: [f.target], account: f.accounts[Role.owner]! }),
      "SpokeGateway_Withdraw_TransferFailed",
      [f.target, collected],
    )
    const to = f.accounts[Role.feeRecipient]!
    const before = await f.chain.publicClient.getBalance({ address: to })
    await mined(f, f.chain.wallet(Role.owner).writeContract({ ...gateway, functionName: "withdrawFees", args: [to] }))
    expect(await f.chain.publicClient.getBalance({ address: to })).toBe(before + collected)
  })
})
