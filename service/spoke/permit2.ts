/**
 * Permit2 (contracts/Permit2.sol) from the outside: its canonical address, the EIP-712 typed data a token owner signs
 * for `permitTransferFrom`, and its installation on an anvil chain.
 *
 * The signed message is `PermitTransferFrom{permitted: {token, amount}, spender, nonce, deadline}` in the domain
 * `{name: "Permit2", chainId, verifyingContract: PERMIT2_ADDRESS}` (no version). `spender` is the contract that calls
 * Permit2: the fee adapter for `FeeAdapter.newIntent(..., permit2Params, feeParams)` (amount = intent amount + fee),
 * the spoke for `ClearingSpoke.newIntent(..., permit2Params)` (amount = intent amount). Before the first permit the
 * owner approves Permit2 on the token (`approve(PERMIT2_ADDRESS, max)`), once.
 */
import type { Client } from "viem"
import { hashTypedData } from "viem/utils"
import type { Address, Bytes32, Hex } from "../domain/hex.ts"
import type { Artifacts } from "./build.ts"

/** The canonical Permit2 address (reference §2.1), lowercase. */
export const PERMIT2_ADDRESS = "0x000000000022d473030f116ddee9f6b43ac78ba3" as Address

/** What a user passes to the Permit2 overloads of `newIntent`: the permit's nonce and deadline, and its signature. */
export interface Permit2Params {
  /** Unordered nonce: bit `nonce & 0xff` of word `nonce >> 8` of the owner's `nonceBitmap`. */
  readonly nonce: bigint
  /** Last `block.timestamp` at which the permit is valid, seconds. */
  readonly deadline: bigint
  /** The owner's EIP-712 signature: 65 bytes `r ++ s ++ v`, or 64 bytes EIP-2098 `r ++ vs`. */
  readonly signature: Hex
}

/** The permit a signature covers: `amount` of `token` for `spender`, once (`nonce`), until `deadline`. */
export interface Permit2Permit {
  readonly chainId: number
  readonly token: Address
  readonly amount: bigint
  readonly spender: Address
  readonly nonce: bigint
  readonly deadline: bigint
}

export const PERMIT2_TYPES = {
  PermitTransferFrom: [
    { name: "permitted", type: "TokenPermissions" },
    { name: "spender", type: "address" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
  TokenPermissions: [
    { name: "token", type: "address" },
    { name: "amount", type: "uint256" },
  ],
} as const

/**
 * The EIP-712 typed data of a permit, ready for viem's `signTypedData` (`account.signTypedData(typedData)` or
 * `walletClient.signTypedData({ account, ...typedData })`) or any wallet's `eth_signTypedData_v4`.
 */
export const permit2TypedData = (permit: Permit2Permit) =>
  ({
    domain: { name: "Permit2", chainId: permit.chainId, verifyingContract: PERMIT2_ADDRESS },
    types: PERMIT2_TYPES,
    primaryType: "PermitTransferFrom",
    message: {
      permitted: { token: permit.token, amount: permit.amount },
      spender: permit.spender,
      nonce: permit.nonce,
      deadline: permit.deadline,
    },
  }) as const

/** The digest Permit2 checks the signature against: `keccak256("\x19\x01" ++ domainSeparator ++ structHash)`. */
export const permit2Digest = (permit: Permit2Permit): Bytes32 => hashTypedData(permit2TypedData(permit)).toLowerCase() as Bytes32

/**
 * Installs Permit2's runtime code at `PERMIT2_ADDRESS` with `anvil_setCode` (the code has no immutables and no
 * constructor: its domain separator uses `address(this)` and `block.chainid` at each call). Takes effect at once,
 * without a transaction or a block.
 */
export const installPermit2 = async (client: Client, artifacts: Artifacts): Promise<void> => {
  await client.request({ method: "anvil_setCode", params: [PERMIT2_ADDRESS, artifacts.Permit2.deployedBytecode] } as never)
}
