/**
 * XERC20Token rate limits, XERC20Module access and debt paths, and the test tokens' own revert paths, on anvil.
 * The module's behaviour inside settlements is in settlement.test.ts.
 */
import { describe, expect, it } from "vitest"
import { type Address, maxUint256, parseEther } from "viem"
import { MAX_XERC20_LIMIT } from "./deploy.ts"
import { abis, expectRevert, mined, Role, type SpokeFixture, units, useSpokeFixture } from "./test/fixture.ts"

const fixture = useSpokeFixture()

const DAY = 86_400n

describe("XERC20Token", () => {
  const xt = (f: SpokeFixture) => ({ address: f.token("XT"), abi: abis.xerc20 }) as const
  /** Makes `bridge` a bridge of XT with the given limits; returns the number of the block that changed them. */
  const setLimits = async (f: SpokeFixture, bridge: Address, mint: bigint, burn: bigint): Promise<bigint> => {
    const receipt = await mined(f, f.chain.wallet(Role.owner).writeContract({ ...xt(f), functionName: "setLimits", args: [bridge, mint, burn] }))
    return receipt.blockNumber
  }
  /** The minting limit at the latest block, or at the end of block `blockNumber` (and at its timestamp). */
  const mintingLimit = (f: SpokeFixture, bridge: Address, blockNumber?: bigint) =>
    f.chain.publicClient.readContract({ ...xt(f), functionName: "mintingCurrentLimitOf", args: [bridge], blockNumber })
  const burningLimit = (f: SpokeFixture, bridge: Address) =>
    f.chain.publicClient.readContract({ ...xt(f), functionName: "burningCurrentLimitOf", args: [bridge] })
  const at = async (f: SpokeFixture, timestamp: bigint) => {
    await f.chain.testClient.setNextBlockTimestamp({ timestamp })
    await f.chain.testClient.mine({ blocks: 1 })
  }

  it("limits bridge mints and burns, refilling linearly over one day up to the max", async () => {
    const f = fixture()
    const bridge = f.accounts[Role.other]!
    const user = f.accounts[Role.user]!
    await setLimits(f, bridge, parseEther("100"), parseEther("50"))
    expect(await f.chain.publicClient.readContract({ ...xt(f), functionName: "mintingMaxLimitOf", args: [bridge] })).toBe(parseEther("100"))
    expect(await f.chain.publicClient.readContract({ ...xt(f), functionName: "burningMaxLimitOf", args: [bridge] })).toBe(parseEther("50"))
    const minted = await mined(f, f.chain.wallet(Role.other).writeContract({ ...xt(f), functionName: "mint", args: [user, parseEther("60")] }))
    const mintedAt = (await f.chain.publicClient.getBlock({ blockNumber: minted.blockNumber })).timestamp
    expect(await mintingLimit(f, bridge)).toBe(parseEther("40"))

    const rate = parseEther("100") / DAY
    await at(f, mintedAt + 3_600n)
    expect(await mintingLimit(f, bridge)).toBe(parseEther("40") + 3_600n * rate)
    await at(f, mintedAt + DAY)
    expect(await mintingLimit(f, bridge)).toBe(parseEther("100"))

    // A bridge burns its own tokens freely, someone else's only with their allowance.
    await mined(f, f.chain.wallet(Role.other).writeContract({ ...xt(f), functionName: "burn", args: [bridge, parseEther("10")] }))
    expect(await burningLimit(f, bridge)).toBe(parseEther("40"))
    await expectRevert(
      f.chain.publicClient.simulateContract({ ...xt(f), functionName: "burn", args: [user, parseEther("1")], account: bridge }),
      "ERC20_InsufficientAllowance",
      [bridge, 0n, parseEther("1")],
    )
  })

  it("moves the current limit with a new max: lowering floors at 0, raising adds the difference", async () => {
    const f = fixture()
    const bridge = f.accounts[Role.other]!
    await setLimits(f, bridge, parseEther("100"), 0n)
    await mined(f, f.chain.wallet(Role.other).writeContract({ ...xt(f), functionName: "mint", args: [bridge, parseEther("60")] }))
    const lowered = await setLimits(f, bridge, parseEther("30"), 0n)
    expect(await mintingLimit(f, bridge, lowered)).toBe(0n)
    // Raise in the same second, so that nothing refills in between.
    await f.chain.testClient.setNextBlockTimestamp({ timestamp: (await f.chain.publicClient.getBlock({ blockNumber: lowered })).timestamp })
    const raised = await setLimits(f, bridge, parseEther("230"), 0n)
    expect(await mintingLimit(f, bridge, raised)).toBe(parseEther("200"))
  })

  it("refuses limits above type(uint256).max / 2 (XERC20Token_LimitsTooHigh); at the maximum the refill does not overflow", async () => {
    const f = fixture()
    const bridge = f.accounts[Role.other]!
    for (const [mint, burn] of [
      [MAX_XERC20_LIMIT + 1n, 0n],
      [0n, MAX_XERC20_LIMIT + 1n],
      [maxUint256, maxUint256],
    ] as const) {
      await expectRevert(
        f.chain.publicClient.simulateContract({ ...xt(f), functionName: "setLimits", args: [bridge, mint, burn], account: f.accounts[Role.owner]! }),
        "XERC20Token_LimitsTooHigh",
        [],
      )
    }
    // At the maximum: half the limit used, then an hour of refill (current + elapsed * rate stays below 2^256).
    await setLimits(f, bridge, MAX_XERC20_LIMIT, MAX_XERC20_LIMIT)
    const minted = await mined(f, f.chain.wallet(Role.other).writeContract({ ...xt(f), functionName: "mint", args: [bridge, MAX_XERC20_LIMIT / 2n] }))
    const mintedAt = (await f.chain.publicClient.getBlock({ blockNumber: minted.blockNumber })).timestamp
    await at(f, mintedAt + 3_600n)
    const rate = MAX_XERC20_LIMIT / DAY
    expect(await mintingLimit(f, bridge)).toBe(MAX_XERC20_LIMIT - MAX_XERC20_LIMIT / 2n + 3_600n * rate)
    await mined(f, f.chain.wallet(Role.other).writeContract({ ...xt(f), functionName: "mint", args: [bridge, 1n] }))
    await at(f, mintedAt + DAY - 1n)
    expect(await mintingLimit(f, bridge)).toBeLessThanOrEqual(MAX_XERC20_LIMIT)
  })

  it("reverts: XERC20Token_NotHighEnoughLimits(bridge, requested, available) for mint and burn", async () => {
    const f = fixture()
    const bridge = f.accounts[Role.other]!
    await expectRevert(
      f.chain.publicClient.simulateContract({ ...xt(f), functionName: "mint", args: [bridge, 1n], account: bridge }),
      "XERC20Token_NotHighEnoughLimits",
      [bridge, 1n, 0n],
    )
    await setLimits(f, bridge, 5n, 3n)
    await expectRevert(
      f.chain.publicClient.simulateContract({ ...xt(f), functionName: "burn", args: [bridge, 4n], account: bridge }),
      "XERC20Token_NotHighEnoughLimits",
      [bridge, 4n, 3n],
    )
  })

  it("reverts: XERC20Token_NotOwner(caller) for setLimits, ownerMint and transferOwnership", async () => {
    const f = fixture()
    const user = f.accounts[Role.user]!
    for (const call of [
      { functionName: "setLimits", args: [user, 1n, 1n] },
      { functionName: "ownerMint", args: [user, 1n] },
      { functionName: "transferOwnership", args: [user] },
    ] as const) {
      await expectRevert(f.chain.publicClient.simulateContract({ ...xt(f), ...call, account: user } as never), "XERC20Token_NotOwner", [user])
    }
  })
})

describe("XERC20Module", () => {
  const moduleOf = (f: SpokeFixture) => ({ address: f.deployment.xerc20Module, abi: abis.module }) as const

  it("reverts: XERC20Module_NotSpoke(caller) for the strategy hooks", async () => {
    const f = fixture()
    const user = f.accounts[Role.user]!
    const xt = f.token("XT")
    await expectRevert(
      f.chain.publicClient.simulateContract({ ...moduleOf(f), functionName: "handleBurnStrategy", args: [xt, user, 1n], account: user }),
      "XERC20Module_NotSpoke",
      [user],
    )
    await expectRevert(
      f.chain.publicClient.simulateContract({ ...moduleOf(f), functionName: "handleMintStrategy", args: [xt, user, user, 1n], account: user }),
      "XERC20Module_NotSpoke",
      [user],
    )
  })

  it("reverts: XERC20Module_MintDebt_InsufficientMintable(requested, available) without debt", async () => {
    const f = fixture()
    const user = f.accounts[Role.user]!
    await expectRevert(
      f.chain.publicClient.simulateContract({ ...moduleOf(f), functionName: "mintDebt", args: [f.token("XT"), user, 1n], account: user }),
      "XERC20Module_MintDebt_InsufficientMintable",
      [1n, 0n],
    )
  })

  it("records debt instead of reverting when the asset has no minting limit to read (not an xERC20)", async () => {
    const f = fixture()
    const spoke = f.deployment.spoke
    const user = f.accounts[Role.user]!
    const usdc = f.token("USDC")
    await f.chain.testClient.impersonateAccount({ address: spoke })
    await f.chain.testClient.setBalance({ address: spoke, value: parseEther("1") })
    const simulated = await f.chain.publicClient.simulateContract({
      ...moduleOf(f),
      functionName: "handleMintStrategy",
      args: [usdc, user, user, units(5n, 6)],
      account: spoke,
    })
    expect(simulated.result).toBe(false)
    await mined(f, f.chain.wallet(spoke).writeContract({ ...moduleOf(f), functionName: "handleMintStrategy", args: [usdc, user, user, units(5n, 6)] }))
    await f.chain.testClient.stopImpersonatingAccount({ address: spoke })
    expect(await f.chain.publicClient.readContract({ ...moduleOf(f), functionName: "mintable", args: [user, usdc] })).toBe(units(5n, 6))
  })
})

describe("test tokens", () => {
  it("ERC20_InsufficientBalance(account, balance, needed) on transfer; TestERC20_NotOwner(caller) for mint and blacklist admin", async () => {
    const f = fixture()
    const user = f.accounts[Role.user]!
    const owner = f.accounts[Role.owner]!
    await expectRevert(
      f.chain.publicClient.simulateContract({ address: f.token("USDC"), abi: abis.erc20, functionName: "transfer", args: [user, 1n], account: owner }),
      "ERC20_InsufficientBalance",
      [owner, 0n, 1n],
    )
    await expectRevert(
      f.chain.publicClient.simulateContract({ address: f.token("USDC"), abi: abis.erc20, functionName: "mint", args: [user, 1n], account: user }),
      "TestERC20_NotOwner",
      [user],
    )
    for (const call of [
      { functionName: "setBlacklisted", args: [user, true] },
      { functionName: "setRevertOnBlacklisted", args: [true] },
    ] as const) {
      await expectRevert(
        f.chain.publicClient.simulateContract({ address: f.token("BLK"), abi: abis.blacklist, ...call, account: user } as never),
        "TestERC20_NotOwner",
        [user],
      )
    }
    expect(await f.chain.publicClient.readContract({ address: f.token("T12"), abi: abis.erc20, functionName: "decimals" })).toBe(12)
  })
})
