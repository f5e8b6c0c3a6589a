import { describe, expect, it } from "vitest"
import type { Bytes32 } from "../domain/hex.ts"
import { NORMALIZED_DECIMALS } from "../domain/protocol.ts"
import { EntryColumns, IntentEntry } from "./readModel.ts"

const id = (n: number): Bytes32 => `0x${n.toString(16).padStart(64, "0")}` as Bytes32

describe("EntryColumns and IntentEntry views", () => {
  it("start each entry unset, keep each fact by seq past the first size, and share facts between views of one seq", () => {
    const columns = new EntryColumns()
    const n = 3000 // past the typed columns' first size (1024) twice, and into the second chunk of references (2048 each)
    for (let i = 0; i < n; i++) expect(columns.add(id(i))).toBe(i)
    const fresh = new IntentEntry(n - 1, columns)
    expect(fresh.intentId).toBe(id(n - 1))
    expect([fresh.originStatus, fresh.hubStatus, fresh.settlementStatus]).toEqual(["NONE", "NONE", "NONE"])
    expect(fresh.inputDecimals).toBe(NORMALIZED_DECIMALS)
    expect([fresh.settlementDomain, fresh.queueIdx, fresh.tokenFee, fresh.fill, fresh.received, fresh.json, fresh.countedStatus]).toEqual([
      undefined, undefined, undefined, undefined, undefined, undefined, undefined,
    ])
    expect([fresh.uncounted, fresh.settlementVirtual]).toEqual([false, false])

    for (let i = 0; i < n; i += 7) {
      const e = new IntentEntry(i, columns)
      e.hubStatus = "SETTLED"
      e.settlementDomain = i === 0 ? 0 : 4_294_967_295 - i // 0 is a domain, not "unset"
      e.queueIdx = i
      e.tokenFee = BigInt(i) << 70n // beyond 64 bits
      e.inputDecimals = i % 19
      e.settlementVirtual = i % 2 === 0
      e.uncounted = true
    }
    for (let i = 0; i < n; i++) {
      const e = new IntentEntry(i, columns)
      const set = i % 7 === 0
      expect(e.intentId).toBe(id(i))
      expect(e.hubStatus).toBe(set ? "SETTLED" : "NONE")
      expect(e.settlementDomain).toBe(set ? (i === 0 ? 0 : 4_294_967_295 - i) : undefined)
      expect(e.queueIdx).toBe(set ? i : undefined)
      expect(e.tokenFee).toBe(set ? BigInt(i) << 70n : undefined)
      expect(e.inputDecimals).toBe(set ? i % 19 : NORMALIZED_DECIMALS)
      expect(e.settlementVirtual).toBe(set && i % 2 === 0)
      expect(e.uncounted).toBe(set)
    }

    // The two flags of one entry are independent; clearing one leaves the other.
    const a = new IntentEntry(14, columns)
    const b = new IntentEntry(14, columns)
    a.uncounted = false
    expect([b.uncounted, b.settlementVirtual]).toEqual([false, true])
    b.settlementVirtual = false
    a.uncounted = true
    expect([a.uncounted, a.settlementVirtual]).toEqual([true, false])
    // Decimals are a uint8: others are refused, not wrapped.
    for (const bad of [256, -1, 1.5, Number.NaN]) expect(() => (a.inputDecimals = bad)).toThrowError(RangeError)
    expect(a.inputDecimals).toBe(14 % 19)
    // A number unset again reads as unset.
    a.queueIdx = undefined
    expect(b.queueIdx).toBeUndefined()
    expect(new IntentEntry(13, columns).queueIdx).toBeUndefined()
  })
})
