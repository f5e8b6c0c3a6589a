/**
 * The fee signer: EIP-191 (`personal_sign`) signatures of `keccak256(abi.encode(uint256 tokenFee, uint256
 * nativeFee, address inputAsset, uint256 deadline))` (reference §5.1), with a bounded cache by digest. Quotes
 * repeat (same asset, same fee, deadlines rounded to the minute), so most requests reuse a signature.
 */
import { hashMessage } from "viem/utils"
import { privateKeyToAccount } from "viem/accounts"
import { type Address, type Hex, writeDigitsRightAligned, writeHexRightAligned } from "../domain/hex.ts"
import { keccak256Bytes } from "../domain/keccak.ts"
import { rememberRecovery } from "../domain/recoveries.ts"

export interface FeeSignature {
  readonly digest: Hex
  readonly signature: Hex
}

/** `keccak256(abi.encode(tokenFee, nativeFee, inputAsset, deadline))`. */
export const feeDigest = (tokenFee: bigint, nativeFee: bigint, inputAsset: Address, deadline: bigint): Hex => {
  const buf = new Uint8Array(128)
  writeDigitsRightAligned(buf, 32, tokenFee.toString(16), 0)
  writeDigitsRightAligned(buf, 64, nativeFee.toString(16), 0)
  writeHexRightAligned(buf, 96, inputAsset)
  writeDigitsRightAligned(buf, 128, deadline.toString(16), 0)
  return keccak256Bytes(buf)
}

interface CachedSignature {
  readonly tokenFee: bigint
  readonly nativeFee: bigint
  /** Lowercase: the digest does not depend on the address's case. */
  readonly inputAsset: string
  readonly deadline: bigint
  readonly digest: Hex
  readonly signature: Hex
}

export class FeeSigner {
  readonly address: Address
  private readonly account: ReturnType<typeof privateKeyToAccount>
  /**
   * By fee parameters (`tokenFee/nativeFee/inputAsset/deadline`, which determine the digest), so that a lookup
   * costs no hashing; the last hit is kept aside, since consecutive requests mostly share their parameters.
   */
  private readonly cache = new Map<string, CachedSignature>()
  private last: CachedSignature | undefined
  /** Signatures computed (cache misses), for the README's measurements and tests. */
  signed = 0

  private readonly capacity: number
  constructor(privateKey: Hex, capacity = 10_000) {
    this.capacity = capacity
    this.account = privateKeyToAccount(privateKey)
    this.address = this.account.address.toLowerCase() as Address
  }

  private lookup(tokenFee: bigint, nativeFee: bigint, inputAsset: Address, deadline: bigint): CachedSignature | undefined {
    const last = this.last
    if (last !== undefined && last.tokenFee === tokenFee && last.deadline === deadline && last.nativeFee === nativeFee && last.inputAsset === inputAsset) return last
    const hit = this.cache.get(cacheKey(tokenFee, nativeFee, inputAsset, deadline))
    if (hit !== undefined) this.last = hit
    return hit
  }

  /** The cached signature of these fee parameters, if any (no signing: synchronous). */
  cached(tokenFee: bigint, nativeFee: bigint, inputAsset: Address, deadline: bigint): Hex | undefined {
    return this.lookup(tokenFee, nativeFee, inputAsset, deadline)?.signature
  }

  async sign(tokenFee: bigint, nativeFee: bigint, inputAsset: Address, deadline: bigint): Promise<FeeSignature> {
    const hit = this.lookup(tokenFee, nativeFee, inputAsset, deadline)
    if (hit !== undefined) return { digest: hit.digest, signature: hit.signature }
    const digest = feeDigest(tokenFee, nativeFee, inputAsset, deadline)
    const signature = await this.account.signMessage({ message: { raw: digest } })
    this.signed++
    // What the fee adapter's ecrecover of it gives: this signer (the memory twin need not recover it again).
    rememberRecovery(hashMessage({ raw: digest }), signature, this.address)
    const key = cacheKey(tokenFee, nativeFee, inputAsset, deadline)
    if (!this.cache.has(key)) {
      if (this.cache.size >= this.capacity) {
        const oldest = this.cache.keys().next().value!
        if (this.cache.get(oldest) === this.last) this.last = undefined
        this.cache.delete(oldest)
      }
      const entry: CachedSignature = { tokenFee, nativeFee, inputAsset: inputAsset.toLowerCase(), deadline, digest, signature }
      this.cache.set(key, entry)
      this.last = entry
    }
    return { digest, signature }
  }
}

const cacheKey = (tokenFee: bigint, nativeFee: bigint, inputAsset: Address, deadline: bigint): string =>
  `${tokenFee}/${nativeFee}/${inputAsset.toLowerCase()}/${deadline}`
