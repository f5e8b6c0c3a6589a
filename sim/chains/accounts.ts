/**
 * Dev accounts derived from the pool's mnemonic on anvil's path `m/44'/60'/0'/0/i`, exactly the accounts anvil
 * funds at genesis (`--accounts N`). The BIP-39 seed is computed once per mnemonic (PBKDF2 with node:crypto), and
 * the BIP-32 private derivation (CKDpriv: HMAC-SHA512 and an addition modulo the curve order) is done here with
 * node:crypto's HMAC: the only elliptic-curve work left is one point multiplication for the parent's public key
 * (the last step is not hardened) and one per account, for its address (viem's `privateKeyToAccount`). Deriving
 * through viem's `HDKey` also computed each child's public key and fingerprint, twice the work: 220 accounts took
 * about 0.6 s at every start-up. `accounts.test.ts` checks the keys against viem's own derivation.
 */
import { createHmac, pbkdf2Sync } from "node:crypto"
import type { Hex } from "viem"
import { privateKeyToAccount, type PrivateKeyAccount } from "viem/accounts"
import * as Secp256k1 from "ox/Secp256k1"

/** The standard development mnemonic (anvil's and hardhat's default). */
export const TEST_MNEMONIC = "test test test test test test test test test test test junk"

/** A funded dev account: a viem local account (usable as `from` or `account` anywhere) plus its key and index. */
export type DevAccount = PrivateKeyAccount & {
  /** Position on the derivation path, as in anvil's account list. */
  readonly index: number
  readonly privateKey: Hex
}

const PARENT_PATH = "m/44'/60'/0'/0"
/** The path's steps: 44', 60', 0' are hardened (index + 2^31), the last 0 is not. */
const PARENT_STEPS = [0x8000_002c, 0x8000_003c, 0x8000_0000, 0]
/** The order of secp256k1's group. */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

interface ExtendedKey {
  readonly key: bigint
  readonly chainCode: Buffer
}

interface DerivationCache {
  readonly parent: ExtendedKey
  /** The parent's compressed public key (33 bytes): the data of every non-hardened child step. */
  readonly parentPublicKey: Buffer
  readonly accounts: DevAccount[]
}
const caches = new Map<string, DerivationCache>()

const bip39Seed = (mnemonic: string): Uint8Array =>
  pbkdf2Sync(mnemonic.normalize("NFKD"), "mnemonic", 2048, 64, "sha512")

const keyBytes = (key: bigint): Buffer => Buffer.from(key.toString(16).padStart(64, "0"), "hex")

/** The compressed public key: 0x02 or 0x03 (y even or odd), then x. */
const publicKeyOf = (key: bigint): Buffer => {
  const { x, y } = Secp256k1.getPublicKey({ privateKey: keyBytes(key) })
  return Buffer.concat([Buffer.of(y & 1n ? 3 : 2), keyBytes(x)])
}

/**
 * BIP-32 CKDpriv: HMAC-SHA512 keyed by the chain code over `0x00 || key` (hardened) or the compressed public key
 * (not hardened), then the index; the child key is IL + key mod n. An IL at or above n, or a zero child key, makes
 * the index invalid (probability below 2^-127): reported, never skipped silently.
 */
const childOf = (parent: ExtendedKey, index: number, publicKey: Buffer | undefined, path: string): ExtendedKey => {
  const hardened = index >= 0x8000_0000
  const data = Buffer.alloc(37)
  if (hardened) keyBytes(parent.key).copy(data, 1)
  else (publicKey ?? publicKeyOf(parent.key)).copy(data, 0)
  data.writeUInt32BE(index, 33)
  const i = createHmac("sha512", parent.chainCode).update(data).digest()
  const il = BigInt(`0x${i.subarray(0, 32).toString("hex")}`)
  const key = (il + parent.key) % N
  if (il >= N || key === 0n) throw new Error(`HD derivation gave no valid private key at ${path}`)
  return { key, chainCode: i.subarray(32) }
}

const derivationFor = (mnemonic: string): DerivationCache => {
  const master = createHmac("sha512", "Bitcoin seed").update(bip39Seed(mnemonic)).digest()
  const masterKey = BigInt(`0x${master.subarray(0, 32).toString("hex")}`)
  if (masterKey === 0n || masterKey >= N) throw new Error("HD derivation gave no valid master key")
  let key: ExtendedKey = { key: masterKey, chainCode: master.subarray(32) }
  for (const index of PARENT_STEPS) key = childOf(key, index, undefined, PARENT_PATH)
  return { parent: key, parentPublicKey: publicKeyOf(key.key), accounts: [] }
}

/** The first `count` dev accounts of `mnemonic` (cached per process; deterministic). */
export const deriveDevAccounts = (mnemonic: string, count: number): readonly DevAccount[] => {
  let cache = caches.get(mnemonic)
  if (cache === undefined) caches.set(mnemonic, (cache = derivationFor(mnemonic)))
  for (let index = cache.accounts.length; index < count; index++) {
    const child = childOf(cache.parent, index, cache.parentPublicKey, `${PARENT_PATH}/${index}`)
    const privateKey = `0x${keyBytes(child.key).toString("hex")}` as Hex
    cache.accounts.push({ ...privateKeyToAccount(privateKey), index, privateKey })
  }
  return cache.accounts.slice(0, count)
}
