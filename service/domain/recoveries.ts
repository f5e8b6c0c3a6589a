/**
 * `ecrecover` results known in this process, by digest and signature (both lowercase hex): what the memory spoke
 * twin's fee adapter would otherwise compute with a millisecond of curve arithmetic per signature
 * (`service/spoke/memory/signature.ts`). `ecrecover` is a pure function, so an entry is either one it computed
 * before, or one a signer of this process added when it made the signature: an ECDSA signature that a key made
 * over a digest recovers, with its own recovery id, to that key's address, so the entry is what the recovery
 * would give. Emptied when it holds `RECOVERY_LIMIT` entries (they are only made again).
 */
import type { Address, Hex } from "./hex.ts"

export const RECOVERY_LIMIT = 1 << 16

const recoveries = new Map<string, Address>()

/** The signer `ecrecover(digest, signature)` is known to give, if known. */
export const knownRecovery = (digest: Hex, signature: Hex): Address | undefined => recoveries.get(`${digest.toLowerCase()}${signature.toLowerCase()}`)

/** Records what `ecrecover(digest, signature)` gives (a recovery made, or a signature `signer` made over `digest`). */
export const rememberRecovery = (digest: Hex, signature: Hex, signer: Address): void => {
  if (recoveries.size >= RECOVERY_LIMIT) recoveries.clear()
  recoveries.set(`${digest.toLowerCase()}${signature.toLowerCase()}`, signer.toLowerCase() as Address)
}
