/**
 * Config validation of reference §2.2 (`AssetManager`): `maxDiscountDbps <= 100_000`, `discountPerEpoch <=
 * maxDiscountDbps` (both `HubStorage_InvalidDbpsValue` on chain) and the sum of protocol fees `<= 100_000`.
 * Each violation is a `HubConfigError` naming the field's path, the ticker and the expected bound.
 */
import { describe, expect, it } from "vitest"
import { type HubConfigInput, HubConfigError, makeHubConfig } from "./config.ts"
import { daiTicker, FEE1, FEE2, makeConfig, usdcTicker } from "./testing.ts"

type TickerInput = HubConfigInput["tickers"][number]

/** DAI then USDC, with `overrides` applied to USDC (index 1, so the path shows the index is the ticker's). */
const withUsdc = (overrides: Partial<TickerInput>): HubConfigInput => makeConfig({ tickers: [daiTicker(), usdcTicker(overrides)] })

const configError = (input: HubConfigInput): HubConfigError => {
  try {
    makeHubConfig(input)
  } catch (error) {
    expect(error).toBeInstanceOf(HubConfigError)
    return error as HubConfigError
  }
  throw new Error("expected a HubConfigError")
}

describe("config: §2.2 dbps bounds and fee sum", () => {
  it("accepts the bounds themselves: maxDiscountDbps 100000, discountPerEpoch = maxDiscountDbps, fees summing to 100000", () => {
    const config = makeHubConfig(
      withUsdc({
        maxDiscountDbps: 100_000,
        discountPerEpoch: 100_000,
        fees: [
          { recipient: FEE1, fee: 60_000 },
          { recipient: FEE2, fee: 40_000 },
        ],
      }),
    )
    const usdc = config.tickers[1]!
    expect([usdc.maxDiscountDbps, usdc.discountPerEpochDbps, usdc.fees.map((f) => f.feeDbps)]).toEqual([100_000, 100_000, [60_000, 40_000]])
  })

  it("maxDiscountDbps above 100000", () => {
    const error = configError(withUsdc({ maxDiscountDbps: 100_001, discountPerEpoch: 3 }))
    expect(error.path).toBe("tickers[1].maxDiscountDbps")
    expect(error.message).toBe("tickers[1].maxDiscountDbps: ticker USDC: expected at most 100000 dbps, got 100001")
  })

  it("discountPerEpoch above the ticker's maxDiscountDbps", () => {
    const error = configError(withUsdc({ maxDiscountDbps: 12, discountPerEpoch: 13 }))
    expect(error.path).toBe("tickers[1].discountPerEpoch")
    expect(error.message).toBe("tickers[1].discountPerEpoch: ticker USDC: expected at most its maxDiscountDbps (12 dbps), got 13")
  })

  it("discountPerEpoch above the default maxDiscountDbps (12) when the cap is not given", () => {
    const { maxDiscountDbps: _omitted, ...rest } = usdcTicker({ discountPerEpoch: 20 })
    const error = configError(makeConfig({ tickers: [rest] }))
    expect(error.message).toBe("tickers[0].discountPerEpoch: ticker USDC: expected at most its maxDiscountDbps (12 dbps), got 20")
  })

  it("protocol fees summing to more than 100000 dbps", () => {
    const error = configError(
      withUsdc({
        fees: [
          { recipient: FEE1, fee: 60_000 },
          { recipient: FEE2, fee: 40_001 },
        ],
      }),
    )
    expect(error.path).toBe("tickers[1].fees")
    expect(error.message).toBe("tickers[1].fees: ticker USDC: expected the fees to sum to at most 100000 dbps, got 100001 (60000 + 40001)")
  })
})

describe("config: defaults", () => {
  it("are reference §2.3's mainnet production values and PROTOCOL.md's parameter defaults", () => {
    const config = makeHubConfig({ tickers: [{ symbol: "USDC", domains: [{ domain: 1, asset: FEE1, decimals: 6 }] }] })
    expect(config).toMatchObject({
      hubDomain: 25327,
      epochLengthBlocks: 40,
      expiryTimeBufferSeconds: 43_200, // 12 h in seconds
      discountExemptEpochs: 0,
      userMaxDiscount: true,
      allowFastPathSwaps: true,
      minSolverSupportedDomains: 2,
      gasConfig: { settlementBaseGasUnits: 40_000n, averageGasUnitsPerSettlement: 50_000n, bufferDbps: 10_000n },
      defaultDomainGasLimit: 30_000_000n,
      supportedDomains: [1],
    })
    expect(config.tickers[0]).toMatchObject({ discountPerEpochDbps: 3, maxDiscountDbps: 12, fees: [] })
  })
})

describe("config: whole numbers", () => {
  it("refuses a negative or fractional count, duration or dbps value, naming its path", () => {
    expect(configError(makeConfig({ discountExemptEpochs: -1 })).message).toBe(
      "discountExemptEpochs: expected a non-negative integer number of epochs, got -1",
    )
    expect(configError(makeConfig({ expiryTimeBuffer: 0.5 })).path).toBe("expiryTimeBuffer")
    expect(configError(makeConfig({ minSolverSupportedDomains: -2 })).path).toBe("minSolverSupportedDomains")
    expect(configError(withUsdc({ maxDiscountDbps: 12.5 })).message).toBe(
      "tickers[1].maxDiscountDbps: expected a non-negative integer number of dbps, got 12.5",
    )
    expect(configError(withUsdc({ discountPerEpoch: -3 })).path).toBe("tickers[1].discountPerEpoch")
    expect(configError(withUsdc({ fees: [{ recipient: FEE1, fee: 1.5 }] })).path).toBe("tickers[1].fees[0].fee")
  })
})

describe("config: asset decimals", () => {
  it("refuses decimals an ERC-20 cannot have (a uint8), naming the domain's path", () => {
    for (const decimals of [256, -1, 6.5]) {
      const usdc = usdcTicker()
      const domains = usdc.domains.map((d, j) => (j === 1 ? { ...d, decimals } : d))
      const error = configError(makeConfig({ tickers: [daiTicker(), { ...usdc, domains }] }))
      expect(error.path).toBe("tickers[1].domains[1].decimals")
      expect(error.message).toBe(`tickers[1].domains[1].decimals: expected an ERC-20's decimals (an integer from 0 to 255), got ${decimals}`)
    }
    expect(() => makeHubConfig(makeConfig({ tickers: [usdcTicker({ domains: usdcTicker().domains.map((d) => ({ ...d, decimals: 255 })) })] }))).not.toThrow()
  })
})

describe("config: gas config (reference §3.14, ProtocolManager.updateGasConfig)", () => {
  const gas = (bufferDBPS: number, settlementBaseGasUnits = 40_000) => makeConfig({ gasConfig: { settlementBaseGasUnits, averageGasUnitsPerSettlement: 50_000, bufferDBPS } })

  it("accepts bufferDBPS up to 100000 (a 100 % buffer)", () => {
    expect(makeHubConfig(gas(100_000)).gasConfig.bufferDbps).toBe(100_000n)
  })

  it("refuses bufferDBPS above 100000, as updateGasConfig does, naming the field", () => {
    const error = configError(gas(100_001))
    expect(error.path).toBe("gasConfig.bufferDBPS")
    expect(error.message).toBe("gasConfig.bufferDBPS: expected at most 100000 dbps, got 100001")
  })

  it("refuses a negative or fractional gas amount with its path (it was a RangeError from BigInt or a negative gas limit)", () => {
    expect(configError(gas(-1)).path).toBe("gasConfig.bufferDBPS")
    expect(configError(gas(10_000, 0.5)).message).toBe("gasConfig.settlementBaseGasUnits: expected a non-negative integer number of gas units, got 0.5")
  })
})

describe("config: an asset belongs to one ticker (adoptedForAssets[assetHash].tickerHash, reference §2.2, §3.3)", () => {
  it("refuses a second ticker listing the same asset on the same domain, naming the second listing", () => {
    // USDC's asset on A made DAI's asset on A: intake credited it to USDC alone while DAI settled out of it.
    const usdc = usdcTicker()
    const domains = usdc.domains.map((d, j) => (j === 0 ? { ...d, asset: daiTicker().domains[0]!.asset } : d))
    const error = configError(makeConfig({ tickers: [daiTicker(), { ...usdc, domains }] }))
    expect(error.path).toBe("tickers[1].domains[0].asset")
    expect(error.message).toMatch(/^tickers\[1\]\.domains\[0\]\.asset: asset 0x0{24}0{38}d1 on domain 1 is already an asset of ticker DAI; an asset belongs to one ticker$/)
  })

  it("the same token address on two domains is two assets (assetHash includes the domain)", () => {
    const usdc = usdcTicker()
    const domains = usdc.domains.map((d, j) => (j === 1 ? { ...d, asset: daiTicker().domains[0]!.asset } : d))
    expect(() => makeHubConfig(makeConfig({ tickers: [daiTicker(), { ...usdc, domains }] }))).not.toThrow()
  })
})
