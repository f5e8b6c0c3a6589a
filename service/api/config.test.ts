import { describe, expect, it } from "vitest"
import { ApiConfigError, makeApiConfig } from "./config.ts"
import { HUB_ADDRESS, registry, TEST_FEE_SIGNER_KEY } from "./testing.ts"

const base = { hubAddress: HUB_ADDRESS, spokes: [registry(1)], feeSignerKey: TEST_FEE_SIGNER_KEY }

describe("API configuration", () => {
  it("fills every default and resolves quote parameters per ticker", () => {
    const config = makeApiConfig({ ...base, quotes: { default: { fixedFeeTokens: "0.5" }, bySymbol: { USDC: { fastPathFeeBps: 5 } } } })
    expect(config).toMatchObject({ feeDeadlineSeconds: 3600, feeDeadlineGranularitySeconds: 60, defaultPageSize: 10, maxPageSize: 100, fastPathTtlSeconds: 3600, maxOrderSize: 100 })
    expect(config.quoteFor("DAI")).toEqual({ fixedFeeTokens: "0.5", maxVariableFeeE4: 100_000n, fastPathFeeE4: 30_000n })
    expect(config.quoteFor("USDC")).toEqual({ fixedFeeTokens: "0.5", maxVariableFeeE4: 100_000n, fastPathFeeE4: 50_000n })
  })

  it("names the offending field", () => {
    const error = (input: Parameters<typeof makeApiConfig>[0]) => {
      try {
        makeApiConfig(input)
      } catch (e) {
        return e instanceof ApiConfigError ? e.path : String(e)
      }
      return "no error"
    }
    expect(error({ ...base, hubAddress: "0x12" })).toBe("hubAddress")
    expect(error({ ...base, feeSignerKey: "0x12" })).toBe("feeSignerKey")
    expect(error({ ...base, spokes: [registry(1), registry(1)] })).toBe("spokes[1].domain")
    expect(error({ ...base, quotes: { default: { maxVariableFeeBps: -1 } } })).toBe("quotes.default.maxVariableFeeBps")
    expect(error({ ...base, quotes: { default: { fixedFeeTokens: "1e3" } } })).toBe("quotes.default.fixedFeeTokens")
    expect(error({ ...base, pageSize: { default: 500 } })).toBe("pageSize.default")
    // The server refuses an array body of more than 1000 items before decoding it: no order can be larger.
    expect([error({ ...base, maxOrderSize: 1001 }), error({ ...base, maxOrderSize: 0 }), error({ ...base, maxOrderSize: 1000 })]).toEqual(["maxOrderSize", "maxOrderSize", "no error"])
  })
})
