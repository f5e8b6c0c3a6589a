/**
 * Dev accounts derived from the pool's mnemonic on anvil's path `m/44'/60'/0'/0/i`, exactly the accounts anvil
 * funds at genesis (`--accounts N`). The BIP-39 seed is computed once per mnemonic (PBKDF2 with node:crypto)
 * and children are derived from the shared parent key, so 1,000 accounts cost about a second, not a minute.
 */
import { pbkdf2Sync } from "node:crypto"
import type { Hex } from "viem"
import { bytesToHex } from "viem/utils"
import { HDKey, type PrivateKeyAccount, privateKeyToAccount } from "viem/accounts"

/** The standard development mnemonic (anvil's and hardhat's default). */
export const TEST_MNEMONIC = "test test test test test test test test test test test junk"

/** A funded dev account: a viem local account (usable as `from` or `account` anywhere) plus its key and index. */
export type DevAccount = PrivateKeyAccount & {
  /** Position on the derivation path, as in anvil's account list. */
  readonly index: number
  readonly privateKey: Hex
}

const PARENT_PATH = "m/44'/60'/0'/0"

interface DerivationCache {
  readonly parent: HDKey
  readonly accounts: DevAccount[]
}
const caches = new Map<string, DerivationCache>()

const bip39Seed = (mnemonic: string): Uint8Array =>
  pbkdf2Sync(mnemonic.normalize("NFKD"), "mnemonic", 2048, 64, "sha512")

/** The first `count` dev accounts of `mnemonic` (cached per process; deterministic). */
export const deriveDevAccounts = (mnemonic: string, count: number): readonly DevAccount[] => {
  let cache = caches.get(mnemonic)
  if (cache === undefined) {
    cache = { parent: HDKey.fromMasterSeed(bip39Seed(mnemonic)).derive(PARENT_PATH), accounts: [] }
    caches.set(mnemonic, cache)
  }
  for (let index = cache.accounts.length; index < count; index++) {
    const key = cache.parent.deriveChild(index).privateKey
    if (key === null) throw new Error(`HD derivation gave no private key at ${PARENT_PATH}/${index}`)
    const privateKey = bytesToHex(key)
    cache.accounts.push({ ...privateKeyToAccount(privateKey), index, privateKey })
  }
  return cache.accounts.slice(0, count)
}
