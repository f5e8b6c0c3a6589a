import { describe, expect, it } from "vitest"
import { normalizeDecimals, numberToDecimal, tokensToUnits } from "./protocol.ts"

describe("decimals", () => {
  it("normalizes down with truncation, as AssetUtils.normalizeDecimals (reference §4)", () => {
    // 1.234567891234567891 tokens in 18 decimals: 6 decimals keep 1.234567, the rest is dust, never rounded up.
    expect(normalizeDecimals(1_234_567_891_234_567_891n, 18, 6)).toBe(1_234_567n)
    expect(normalizeDecimals(999_999_999_999n, 18, 6)).toBe(0n)
    expect(normalizeDecimals(1_234_567n, 6, 18)).toBe(1_234_567_000_000_000_000n)
  })

  it("converts whole tokens to units, fraction digits to the right of the point, extra ones truncated", () => {
    expect(tokensToUnits("1.5", 6)).toBe(1_500_000n)
    expect(tokensToUnits("0.0000019", 6)).toBe(1n)
    expect(tokensToUnits(1e-7, 18)).toBe(100_000_000_000n)
  })

  it("writes exponent forms out in full", () => {
    expect(numberToDecimal(1e-7)).toBe("0.0000001")
    expect(numberToDecimal(1.5e-7)).toBe("0.00000015")
    expect(numberToDecimal(1e21)).toBe("1000000000000000000000")
    expect(numberToDecimal(1.25e22)).toBe("12500000000000000000000")
  })
})
