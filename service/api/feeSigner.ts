/**
 * The fee signer: EIP-191 (`personal_sign`) signatures of `keccak256(abi.encode(uint256 tokenFee, uint256
 * nativeFee, address inputAsset, uint256 deadline))` (reference §5.1), with a bounded cache by digest. Quotes
 * repeat (same asset, same fee, deadlines rounded to the minute), so most requests reuse a signature.
 */
import { privateKeyToAccount } from "viem/accounts"
import { type Address, type Hex, writeDigitsRightAligned, writeHexRightAligned } from "../domain/hex.ts"
import { keccak256Bytes } from "../domain/keccak.ts"

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

export class FeeSigner {
  readonly address: Address
  private readonly account: ReturnType<typeof privateKeyToAccount>
  private readonly cache = new Map<Hex, Hex>()
  /** Signatures computed (cache misses), for the README's measurements and tests. */
  signed = 0

  constructor(
    privateKey: Hex,
    private readonly capacity = 10_000,
  ) {
    this.account = privateKeyToAccount(privateKey)
    this.address = this.account.address.toLowerCase() as Address
  }

  /** The cached signature of these fee parameters, if any (no signing: synchronous). */
  cached(tokenFee: bigint, nativeFee: bigint, inputAsset: Address, deadline: bigint): Hex | undefined {
    return this.cache.get(feeDigest(tokenFee, nativeFee, inputAsset, deadline))
  }

  async sign(tokenFee: bigint, nativeFee: bigint, inputAsset: Address, deadline: bigint): Promise<FeeSignature> {
    const digest = feeDigest(tokenFee, nativeFee, inputAsset, deadline)
    const hit = this.cache.get(digest)
    if (hit !== undefined) return { digest, signature: hit }
    const signature = await this.account.signMessage({ message: { raw: digest } })
    this.signed++
    if (this.cache.size >= this.capacity) this.cache.delete(this.cache.keys().next().value!)
    this.cache.set(digest, signature)
    return { digest, signature }
  }
}
