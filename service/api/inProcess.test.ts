/**
 * The in-process form of POST /intents gives the same transaction request as the HTTP operation, plus the typed
 * spoke call that the request's calldata encodes (decoding the calldata gives back exactly that call).
 */
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import type { Address, Hex } from "../domain/hex.ts"
import { Call, decodeSpokeCall } from "../spoke/spoke.ts"
import { Deployment, DOMAIN_A, DOMAIN_B } from "./deployment.ts"
import { BadRequest } from "./errors.ts"
import { e4ToBps, e6ToBps } from "./quotes.ts"

describe("createIntentsWithCall", () => {
  it("returns createIntents' transaction and the call its calldata decodes to, for one intent, a fast one and an order", async () => {
    const d = Deployment.memory()
    const a = d.accounts
    const usdc = d.token(DOMAIN_A, "USDC")
    const body = { origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], to: a.bob.address, from: a.alice.address, inputAsset: usdc, amount: "1000000000" }
    for (const payload of [body, { ...body, isFastPath: true }, [body, { ...body, amount: "2000000" }]]) {
      const tx = await Effect.runPromise(d.service.createIntents(payload))
      const built = await Effect.runPromise(d.service.createIntentsWithCall(payload))
      expect(built.tx).toEqual(tx)
      const addresses = d.spokes.chain(DOMAIN_A).addresses
      expect(decodeSpokeCall(addresses, tx.to as Address, tx.data as Hex)).toEqual(built.call)
    }
  })
})

describe("quoteValuesNow", () => {
  it("gives the figures quoteNow writes out (fast path taken and refused, basic limit), and the same refusals", async () => {
    // The solver's inventory on B makes the fast path quotable up to 500 USDC; above it, refused (OverSolverLimit).
    const d = Deployment.memory()
    const a = d.accounts
    await d.approveAll()
    await d.call(DOMAIN_B, a.solver.address, Call.spoke.deposit(d.token(DOMAIN_B, "USDC"), 500_000_000n))
    const usdc = d.token(DOMAIN_A, "USDC")
    const base = { origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], to: a.bob.address, from: a.alice.address, inputAsset: usdc }
    const reached = new Set<string>()
    for (const amount of ["2000000", "100000000", "499999999", "1000000000", "123456789012"]) {
      const values = d.service.quoteValuesNow({ ...base, amount })
      const written = d.service.quoteNow({ ...base, amount })
      if (values.reqType === "invalid") throw new Error("a supported route was quoted invalid")
      const q = values.quote
      expect(written.reqType).toBe(values.reqType)
      expect(written.fixedFeeUnits).toBe(q.fees.fixedFeeUnits.toString())
      expect(written.fixedFeeUnits).toBe("10000") // the deployment's fixed fee, 0.01 USDC
      expect(written.variableFeeBps).toBe(e4ToBps(q.fees.variableFeeE4))
      expect(written.totalFeeBps).toBe(e6ToBps(q.fees.totalFeeE6))
      expect(written.expectedAmount).toBe(q.fees.expectedAmount.toString())
      expect(written.currentLimit).toBe(q.currentLimit.toString())
      expect(written.settlementEstimate.p50Minutes).toBe(q.settlementEstimate.p50Minutes)
      if (q.fast.ok) {
        reached.add("fast")
        expect(q.fast.quote.currentLimit).toBe(500_000_000n)
        expect(written.fastPathQuote).toEqual({
          fixedFeeUnits: q.fast.quote.fees.fixedFeeUnits.toString(),
          variableFeeBps: e4ToBps(q.fast.quote.fees.variableFeeE4),
          totalFeeBps: e6ToBps(q.fast.quote.fees.totalFeeE6),
          expectedAmount: q.fast.quote.fees.expectedAmount.toString(),
          expectedFillTime: String(q.fast.quote.expectedFillSeconds),
        })
      } else {
        reached.add(q.fast.error)
        expect(written.fastPathQuote).toEqual({ error: q.fast.error, message: q.fast.message })
        expect(JSON.parse(JSON.stringify(q.fast))).toEqual({ ok: false, error: q.fast.error, message: q.fast.message })
      }
    }
    expect([...reached].sort()).toEqual(["OverSolverLimit", "fast"])
    // Bad input, and an amount below the fixed fee: the same BadRequest from both.
    const unknownAsset = "0x00000000000000000000000000000000000000aa"
    const refusals: string[] = []
    for (const bad of [{ ...base, amount: "0" }, { ...base, amount: "-1" }, { ...base, amount: "1", origin: "999" }, { ...base, amount: "1000000", outputAsset: unknownAsset }, { ...base, amount: "5000" }]) {
      const refusal = (f: () => unknown) => {
        try {
          f()
        } catch (error) {
          if (error instanceof BadRequest) return [error.error, error.message]
          throw error
        }
        throw new Error("not refused")
      }
      const ours = refusal(() => d.service.quoteValuesNow(bad))
      expect(ours).toEqual(refusal(() => d.service.quoteNow(bad)))
      refusals.push(ours[0]!)
    }
    expect(refusals).toEqual(["InvalidAmount", "InvalidAmount", "UnsupportedDomain", "UnsupportedAsset", "InvalidAmount"])
  })
})
