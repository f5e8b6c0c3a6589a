/** Local anvil chains for simulations and tests: the pool, its chains, the batched sender. See README.md. */
export { type DevAccount, deriveDevAccounts, TEST_MNEMONIC } from "./accounts.ts"
export { Chain, type MinedBlock, type SnapshotId } from "./chain.ts"
export * from "./errors.ts"
export {
  decodeRevert,
  type DroppedOutcome,
  type FlushResult,
  type RejectedOutcome,
  requireSuccess,
  type RevertedOutcome,
  type RevertReason,
  type SuccessOutcome,
  type TransactionOutcome,
} from "./outcomes.ts"
export { ChainPool, type ChainPoolOptions, resolveAnvilBinary, withChainPool } from "./pool.ts"
export {
  type ContractTransactionRequest,
  createSender,
  type FlushOptions,
  type QueuedTransaction,
  type SenderOptions,
  type TransactionRequest,
  TransactionSender,
} from "./sender.ts"
