/**
 * The one-chain memory world of the memory twin's own tests (memory.test.ts, Permit2.memory.test.ts): domain 31001
 * under hub 25327 at genesis `T0`, USDC (6 decimals) and the xERC20 XT (18), and the first five dev accounts of the
 * test mnemonic (owner/deployer, relayer, fee signer, alice and bob, the last two funded with 1,000 of each token).
 */
import { deriveDevAccounts, TEST_MNEMONIC } from "../../../sim/chains/index.ts"
import type { Address } from "../../domain/hex.ts"
import type { SpokesConfig } from "../spoke.ts"

type DevAccount = ReturnType<typeof deriveDevAccounts>[number]

export const T0 = 1_700_000_000n
export const DOMAIN = 31_001
export const HUB = 25_327
export const [owner, relayer, feeSigner, alice, bob] = deriveDevAccounts(TEST_MNEMONIC, 5) as [DevAccount, DevAccount, DevAccount, DevAccount, DevAccount]
export const ALICE = alice.address.toLowerCase() as Address
export const BOB = bob.address.toLowerCase() as Address

export const config: SpokesConfig = {
  hubDomain: HUB,
  genesisTimestamp: T0,
  chains: [
    {
      domain: DOMAIN,
      deployer: owner.address,
      relayer: relayer.address,
      feeSigner: feeSigner.address,
      tokens: [
        { symbol: "USDC", decimals: 6 },
        { symbol: "XT", decimals: 18, kind: "xerc20" },
      ],
      funding: { accounts: [alice.address, bob.address], amount: 1_000n },
    },
  ],
}
