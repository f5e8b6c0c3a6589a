/**
 * The fee adapter's signature check: `SignatureLib.recoverPersonal(keccak256(abi.encode(uint256 fee, uint256
 * nativeFee, address inputAsset, uint256 deadline)), sig)`, recovered with viem's `recoverAddress` over the same
 * EIP-191 digest, with OpenZeppelin's `ECDSA.recover` rules: `ecdsaRefusal` gives the error of a signature refused
 * before `ecrecover` (not 65 bytes, high s); a v other than 27/28 (0 and 1 included) recovers to the zero address
 * without any curve work, as the precompile does, and the adapter refuses a zero signer.
 *
 * viem's recovery is asynchronous, and the memory chain executes blocks synchronously, so recovery happens before
 * a block runs (`verifyPending`), and the block reads the cache. Recovered signers are cached per (payload,
 * signature): a fee signature is reused by every intent until its deadline, so it is recovered once.
 */
import { recoverAddress } from "viem/utils"
import { type Address, type Hex, hexToBytes, ZERO_ADDRESS } from "../../domain/hex.ts"
import { keccak256Bytes } from "../../domain/keccak.ts"
import { knownRecovery, rememberRecovery } from "../../domain/recoveries.ts"

const HALF_ORDER_HEX = "7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0"
const CACHE_LIMIT = 1 << 16

export interface FeePayload {
  readonly fee: bigint
  readonly nativeFee: bigint
  readonly inputAsset: Address
  readonly deadline: bigint
  readonly sig: Hex
}

const writeUint = (buf: Uint8Array, end: number, value: bigint): void => {
  let v = value
  for (let j = end - 1; v > 0n; j--, v >>= 8n) buf[j] = Number(v & 0xffn)
}

/** `toEthSignedMessageHash(keccak256(abi.encode(fee, nativeFee, inputAsset, deadline)))`. */
export const feeDigest = (payload: FeePayload): Hex => {
  const buf = new Uint8Array(128)
  writeUint(buf, 32, payload.fee)
  writeUint(buf, 64, payload.nativeFee)
  buf.set(hexToBytes(payload.inputAsset), 76)
  writeUint(buf, 128, payload.deadline)
  const hash = hexToBytes(keccak256Bytes(buf))
  const prefixed = new Uint8Array(28 + 32)
  prefixed.set(new TextEncoder().encode("\x19Ethereum Signed Message:\n32"), 0)
  prefixed.set(hash, 28)
  return keccak256Bytes(prefixed)
}

/** An error of OpenZeppelin's `ECDSA.recover`, as `SignatureLib` reverts with it. */
export interface EcdsaRefusal {
  readonly name: "ECDSAInvalidSignatureLength" | "ECDSAInvalidSignatureS"
  readonly args: readonly unknown[]
}

/** The refusal of a signature `SignatureLib.recover` rejects before `ecrecover`: its length, then a high `s`. */
export const ecdsaRefusal = (sig: Hex): EcdsaRefusal | undefined => {
  if (sig.length !== 2 + 130) return { name: "ECDSAInvalidSignatureLength", args: [BigInt((sig.length - 2) >> 1)] }
  // Same-length lowercase hex compares as the numbers do (no bigint per intent).
  const s = sig.slice(66, 130).toLowerCase()
  if (s > HALF_ORDER_HEX) return { name: "ECDSAInvalidSignatureS", args: [`0x${s}`] }
  return undefined
}

/**
 * The signature as `ecrecover` takes it, or `undefined` when `ecrecover` returns zero whatever the curve says:
 * refused before it (`ecdsaRefusal`), or a `v` other than 27/28. `v` is not normalized: 0 and 1 recover nothing.
 */
const recoverableSignature = (sig: Hex): Hex | undefined => {
  if (ecdsaRefusal(sig) !== undefined) return undefined
  const v = Number.parseInt(sig.slice(130, 132), 16)
  return v === 27 || v === 28 ? sig : undefined
}

interface CachedSigner {
  readonly fee: bigint
  readonly nativeFee: bigint
  readonly inputAsset: Address
  readonly deadline: bigint
  readonly signer: Address
}

/** `ecrecover(digest, signature)` as the precompile gives it (zero address when there is no valid point). */
const ecrecover = async (digest: Hex, signature: Hex): Promise<Address> => {
  // Recoveries already made in this process, and signatures its fee signer made (`recoveries.ts`): the chains of
  // a run (each with its own cache) see the same fee signatures, each costing a millisecond of curve arithmetic.
  const known = knownRecovery(digest, signature)
  if (known !== undefined) return known
  let signer: Address
  try {
    signer = (await recoverAddress({ hash: digest, signature })).toLowerCase() as Address
  } catch {
    signer = ZERO_ADDRESS // r or s out of range, or r not on the curve: ecrecover gives address(0)
  }
  rememberRecovery(digest, signature, signer)
  return signer
}

export class FeeSignatureCache {
  /** By signature (the same string object is reused call after call, so its hash is computed once). */
  private readonly signers = new Map<string, CachedSigner[]>()
  private count = 0

  private find(payload: FeePayload): CachedSigner | undefined {
    return this.findOf(payload.fee, payload.nativeFee, payload.inputAsset, payload.deadline, payload.sig)
  }

  private findOf(fee: bigint, nativeFee: bigint, inputAsset: Address, deadline: bigint, sig: Hex): CachedSigner | undefined {
    const entries = this.signers.get(sig)
    if (entries === undefined) return undefined
    for (const entry of entries) {
      if (entry.fee === fee && entry.nativeFee === nativeFee && entry.deadline === deadline && entry.inputAsset === inputAsset) return entry
    }
    return undefined
  }

  /**
   * What `ecrecover` gives (zero for an invalid signature, and for one `ecdsaRefusal` refuses), or `undefined` when
   * it still has to be recovered.
   */
  signer(payload: FeePayload): Address | undefined {
    return this.signerOf(payload.fee, payload.nativeFee, payload.inputAsset, payload.deadline, payload.sig)
  }

  /** `signer` of the payload with these fields (no payload object per intent). */
  signerOf(fee: bigint, nativeFee: bigint, inputAsset: Address, deadline: bigint, sig: Hex): Address | undefined {
    const cached = this.findOf(fee, nativeFee, inputAsset, deadline, sig)
    if (cached !== undefined) return cached.signer
    if (recoverableSignature(sig.toLowerCase() as Hex) === undefined) return ZERO_ADDRESS
    return undefined
  }

  /** Recovers the signers of the payloads not in the cache yet. */
  async recover(payloads: readonly FeePayload[]): Promise<void> {
    for (const payload of payloads) {
      if (this.find(payload) !== undefined) continue
      const signature = recoverableSignature(payload.sig.toLowerCase() as Hex)
      const signer = signature === undefined ? ZERO_ADDRESS : await ecrecover(feeDigest(payload), signature)
      if (this.count >= CACHE_LIMIT) {
        this.signers.clear()
        this.count = 0
      }
      const entry: CachedSigner = { fee: payload.fee, nativeFee: payload.nativeFee, inputAsset: payload.inputAsset, deadline: payload.deadline, signer }
      const entries = this.signers.get(payload.sig)
      if (entries === undefined) this.signers.set(payload.sig, [entry])
      else entries.push(entry)
      this.count++
    }
  }

  get size(): number {
    return this.count
  }
}
