/**
 * `Permit2` in memory (contracts/Permit2.sol): signature transfers with the unordered nonce bitmap, checked in the
 * contract's order (deadline, amount, nonce, signature, then the token transfer).
 *
 * Signatures are recovered synchronously with ox's `Secp256k1.recoverAddress` (ox is viem's own dependency), with
 * the precompile's rules: `v` must be 27 or 28, `r` and `s` in [1, n - 1] and `r` a point's x coordinate, otherwise
 * `ecrecover` gives the zero address. A permit is rare next to the fee signature every intent carries, so there is no
 * pre-block recovery step as for those (`signature.ts`); the recoveries are cached by digest and signature.
 */
import * as Secp256k1 from "ox/Secp256k1"
import { type Address, type Hex, ZERO_ADDRESS } from "../../domain/hex.ts"
import { permit2Digest } from "../permit2.ts"
import { get2, set2 } from "./context.ts"
import { revert, SpokeRevert } from "./journal.ts"
import type { MemoryWorld } from "./world.ts"

/** Clears the top bit of an EIP-2098 `vs` word. */
const UPPER_BIT_MASK = (1n << 255n) - 1n
const CACHE_LIMIT = 1 << 12

/** `permit.permitted` with the permit's nonce and deadline. */
export interface MemoryPermit {
  readonly token: Address
  readonly amount: bigint
  readonly nonce: bigint
  readonly deadline: bigint
}

/** Signers recovered in this process, by digest and signature (`ecrecover` is a pure function). */
const recovered = new Map<string, Address>()

/** `ecrecover(digest, v, r, s)`: the signer, or the zero address where the precompile gives nothing. */
export const ecrecover = (digest: Hex, v: number, r: bigint, s: bigint): Address => {
  // Separated decimal fields: the key is unambiguous (v = 2 with r = 0x7… must not meet v = 27 with r = 0x…).
  const key = `${digest}:${v}:${r}:${s}`
  const known = recovered.get(key)
  if (known !== undefined) return known
  let signer: Address = ZERO_ADDRESS
  if (v === 27 || v === 28) {
    try {
      signer = Secp256k1.recoverAddress({ payload: digest, signature: { r, s, yParity: v - 27 } }).toLowerCase() as Address
    } catch {
      signer = ZERO_ADDRESS // r or s out of range, or r not on the curve
    }
  }
  if (recovered.size >= CACHE_LIMIT) recovered.clear()
  recovered.set(key, signer)
  return signer
}

/**
 * `SignatureVerification.verify` for a key owner: 65 bytes `r ++ s ++ v` or 64 bytes EIP-2098 `r ++ vs`, else
 * `InvalidSignatureLength`; a zero signer `InvalidSignature`; another signer `InvalidSigner`.
 */
export const verifyPermitSignature = (signature: Hex, digest: Hex, claimedSigner: Address): void => {
  const length = (signature.length - 2) / 2
  let r: bigint
  let s: bigint
  let v: number
  if (length === 65) {
    r = BigInt(`0x${signature.slice(2, 66)}`)
    s = BigInt(`0x${signature.slice(66, 130)}`)
    v = Number.parseInt(signature.slice(130, 132), 16)
  } else if (length === 64) {
    r = BigInt(`0x${signature.slice(2, 66)}`)
    const vs = BigInt(`0x${signature.slice(66, 130)}`)
    s = vs & UPPER_BIT_MASK
    v = Number(vs >> 255n) + 27
  } else {
    return revert("InvalidSignatureLength")
  }
  const signer = ecrecover(digest, v, r, s)
  if (signer === ZERO_ADDRESS) revert("InvalidSignature")
  if (signer !== claimedSigner) revert("InvalidSigner")
}

export class MemoryPermit2 {
  /** `nonceBitmap[owner][wordPos]`, word positions as decimal strings. */
  readonly nonceBitmap = new Map<string, Map<string, bigint>>()

  private readonly world: MemoryWorld
  readonly address: Address
  constructor(world: MemoryWorld, address: Address) {
    this.world = world
    this.address = address
  }

  private get ctx() {
    return this.world.ctx
  }

  /** The bitmap word `wordPos` of `owner` (the public getter). */
  bitmapWord(owner: Address, wordPos: bigint): bigint {
    return get2(this.nonceBitmap, owner, wordPos.toString())
  }

  /**
   * `permitTransferFrom(permit, {to, requestedAmount}, owner, signature)` called by `sender` (the spender the
   * signature must name). Addresses lowercase.
   */
  permitTransferFrom(sender: Address, permit: MemoryPermit, to: Address, requestedAmount: bigint, owner: Address, signature: Hex): void {
    if (BigInt(this.ctx.now) > permit.deadline) revert("SignatureExpired", permit.deadline)
    if (requestedAmount > permit.amount) revert("InvalidAmount", permit.amount)
    this.useUnorderedNonce(owner, permit.nonce)
    const digest = permit2Digest({
      chainId: this.ctx.domain,
      token: permit.token,
      amount: permit.amount,
      spender: sender,
      nonce: permit.nonce,
      deadline: permit.deadline,
    })
    verifyPermitSignature(signature.toLowerCase() as Hex, digest, owner)
    const result = this.world.tryTransferFrom(permit.token, this.address, owner, to, requestedAmount)
    if (result === true) return
    if (result instanceof SpokeRevert) throw result
    revert("Permit2_TransferFromFailed", permit.token, owner, to, requestedAmount)
  }

  /** `invalidateUnorderedNonces(wordPos, mask)` by `sender`. */
  invalidateUnorderedNonces(sender: Address, wordPos: bigint, mask: bigint): void {
    const key = wordPos.toString()
    set2(this.ctx.journal, this.nonceBitmap, sender, key, get2(this.nonceBitmap, sender, key) | mask)
    this.ctx.emit(this.address, { name: "UnorderedNonceInvalidation", owner: sender, word: wordPos, mask })
  }

  private useUnorderedNonce(owner: Address, nonce: bigint): void {
    const key = (nonce >> 8n).toString()
    const bit = 1n << (nonce & 0xffn)
    const flipped = get2(this.nonceBitmap, owner, key) ^ bit
    set2(this.ctx.journal, this.nonceBitmap, owner, key, flipped)
    if ((flipped & bit) === 0n) revert("InvalidNonce")
  }
}
