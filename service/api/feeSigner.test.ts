/**
 * The fee signer's bounded cache: oldest-first eviction at capacity, and cache hits only for the exact
 * (tokenFee, nativeFee, inputAsset, deadline) that determine the digest.
 */
import { encodeAbiParameters, hashMessage, keccak256, recoverAddress, recoverMessageAddress } from "viem"
import { describe, expect, it } from "vitest"
import type { Address, Hex } from "../domain/hex.ts"
import { knownRecovery } from "../domain/recoveries.ts"
import { FeeSigner, feeDigest } from "./feeSigner.ts"

// Anvil's first account.
const KEY: Hex = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
const SIGNER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"
const ASSET_A: Address = "0x00000000000000000000000000000000000000aa"
const ASSET_B: Address = "0x00000000000000000000000000000000000000bb"
const DEADLINE = 1_700_000_000n

describe("FeeSigner", () => {
  it("signs keccak256(abi.encode(tokenFee, nativeFee, inputAsset, deadline)) with personal_sign by its key", async () => {
    const signer = new FeeSigner(KEY)
    expect(signer.address).toBe(SIGNER)
    const { digest, signature } = await signer.sign(5n, 7n, ASSET_A, DEADLINE)
    const expected = keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }, { type: "address" }, { type: "uint256" }], [5n, 7n, ASSET_A, DEADLINE]))
    expect(digest).toBe(expected)
    expect(feeDigest(5n, 7n, ASSET_A, DEADLINE)).toBe(expected)
    expect((await recoverMessageAddress({ message: { raw: digest }, signature })).toLowerCase()).toBe(SIGNER)
  })

  it("records what ecrecover gives for each signature it makes: its own address, as the recovery computes it", async () => {
    const signer = new FeeSigner(KEY)
    for (let fee = 1n; fee <= 20n; fee++) {
      const { digest, signature } = await signer.sign(fee * 1_000_003n, fee, fee % 2n === 0n ? ASSET_A : ASSET_B, DEADLINE + fee)
      const prefixed = hashMessage({ raw: digest })
      expect(knownRecovery(prefixed, signature)).toBe(SIGNER)
      expect((await recoverAddress({ hash: prefixed, signature })).toLowerCase()).toBe(SIGNER)
      // Only that pair: another digest with the same signature is not known.
      expect(knownRecovery(hashMessage({ raw: keccak256(digest) }), signature)).toBeUndefined()
    }
  })

  it("at capacity 2, a third distinct signature evicts the oldest entry, not the newest, and keeps the other two", async () => {
    const signer = new FeeSigner(KEY, 2)
    const a = await signer.sign(1n, 0n, ASSET_A, DEADLINE)
    const b = await signer.sign(2n, 0n, ASSET_A, DEADLINE)
    const c = await signer.sign(3n, 0n, ASSET_A, DEADLINE)
    expect(signer.signed).toBe(3)
    // The oldest (tokenFee 1) is gone; the newest two are still there, with their own signatures.
    expect(signer.cached(1n, 0n, ASSET_A, DEADLINE)).toBeUndefined()
    expect(signer.cached(2n, 0n, ASSET_A, DEADLINE)).toBe(b.signature)
    expect(signer.cached(3n, 0n, ASSET_A, DEADLINE)).toBe(c.signature)
    // Signing the evicted one again is a miss (a fourth signature), the same signature as before (RFC 6979).
    expect((await signer.sign(1n, 0n, ASSET_A, DEADLINE)).signature).toBe(a.signature)
    expect(signer.signed).toBe(4)
    // Signing the kept ones again is a hit: no new signature.
    await signer.sign(3n, 0n, ASSET_A, DEADLINE)
    expect(signer.signed).toBe(4)
  })

  it("the same fees and deadline for another input asset are not a cache hit, even right after the first (the last-hit shortcut)", async () => {
    const signer = new FeeSigner(KEY)
    const a = await signer.sign(10n, 20n, ASSET_A, DEADLINE)
    expect(signer.cached(10n, 20n, ASSET_A, DEADLINE)).toBe(a.signature)
    expect(signer.cached(10n, 20n, ASSET_B, DEADLINE)).toBeUndefined()
    const b = await signer.sign(10n, 20n, ASSET_B, DEADLINE)
    expect(signer.signed).toBe(2)
    expect(b.digest).not.toBe(a.digest)
    expect((await recoverMessageAddress({ message: { raw: b.digest }, signature: b.signature })).toLowerCase()).toBe(SIGNER)
  })

  it("another nativeFee is not a cache hit, also when the entry is not the last hit (the cache key)", async () => {
    const signer = new FeeSigner(KEY)
    const first = await signer.sign(10n, 1n, ASSET_A, DEADLINE)
    // Another entry becomes the last hit, so the next lookups go through the cache's key.
    await signer.sign(99n, 1n, ASSET_B, DEADLINE)
    expect(signer.cached(10n, 1n, ASSET_A, DEADLINE)).toBe(first.signature)
    await signer.sign(99n, 1n, ASSET_B, DEADLINE)
    expect(signer.cached(10n, 2n, ASSET_A, DEADLINE)).toBeUndefined()
    const other = await signer.sign(10n, 2n, ASSET_A, DEADLINE)
    expect(signer.signed).toBe(3)
    expect(other.digest).toBe(feeDigest(10n, 2n, ASSET_A, DEADLINE))
    expect(other.digest).not.toBe(first.digest)
  })
})
