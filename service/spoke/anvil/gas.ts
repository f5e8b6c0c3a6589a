/**
 * Gas limits for spoke calls on anvil, without estimation round trips: a generous bound per call kind that grows
 * with the calldata and the batch size. Overestimating costs nothing (only the gas used is charged, and the block
 * limit is large); underestimating would turn a success into an out-of-gas revert that the memory backend does not
 * have, so the bounds are several times the measured cost.
 */
import type { SpokeCall } from "../calls.ts"

/** EIP-7825 per-transaction cap (Osaka), which anvil enforces. */
export const MAX_TRANSACTION_GAS = 16_777_216n

const dataBytes = (hex: string): bigint => BigInt((hex.length - 2) >> 1)

/** Calldata and log data of a payload: calldata floor (40 gas per byte under EIP-7623) plus log data and copies. */
const perByte = (bytes: bigint): bigint => 96n * bytes

export const gasLimitFor = (call: SpokeCall, calldataBytes: number): bigint => {
  let gas: bigint
  switch (call.kind) {
    case "feeAdapter.newIntent":
    case "feeAdapter.newIntentPermit2":
    case "spoke.newIntent":
    case "spoke.newIntentPermit2":
    case "spoke.fillIntent":
    case "spoke.executeIntentCalldata":
      gas = 600_000n
      break
    case "feeAdapter.newOrder":
      gas = 300_000n + 450_000n * BigInt(call.params.length)
      break
    case "spoke.processIntentQueue":
      gas = 300_000n + 80_000n * BigInt(call.intents.length)
      break
    case "spoke.processFillQueue":
      gas = 300_000n + 60_000n * BigInt(call.amount)
      break
    case "gateway.receiveMessage":
    case "spoke.receiveMessage":
      // Each settlement: status write, decimals, a transfer or mint (plus debt), events.
      gas = 400_000n + 250_000n * (dataBytes(call.message) / 160n + 1n)
      break
    default:
      gas = 300_000n
  }
  gas += perByte(BigInt(calldataBytes))
  return gas > MAX_TRANSACTION_GAS ? MAX_TRANSACTION_GAS : gas
}
