/**
 * Errors of the chain pool. Each one says which chain, which RPC or process, what was expected and what
 * happened, and carries that data as fields, so callers can branch on `_tag` and tests can assert on values.
 */

/** Base class: `_tag` names the failure; the message is one precise sentence, plus a hint when there is one. */
export abstract class ChainPoolError extends Error {
  abstract readonly _tag: string
  constructor(message: string, options?: { readonly cause?: unknown; readonly hint?: string }) {
    super(options?.hint === undefined ? message : `${message}\nHint: ${options.hint}`, { cause: options?.cause })
  }
  override get name(): string {
    return this._tag
  }
}

const describeCause = (cause: unknown): string => {
  if (cause instanceof Error) return cause.message.trim()
  return String(cause).trim()
}

/** The anvil binary of `@foundry-rs/anvil` for this platform could not be found. */
export class AnvilBinaryNotFoundError extends ChainPoolError {
  readonly _tag = "AnvilBinaryNotFoundError"
  readonly searched: readonly string[]
  constructor(searched: readonly string[]) {
    super(`No anvil binary found; looked at ${searched.join(", ")}.`, {
      hint: "Install the pinned @foundry-rs/anvil (npm ci) or pass `binary` / set ANVIL_BINARY.",
    })
    this.searched = searched
  }
}

/** An option given to `ChainPool.start` or the sender is out of range. */
export class InvalidChainOptionError extends ChainPoolError {
  readonly _tag = "InvalidChainOptionError"
  readonly option: string
  readonly expected: string
  readonly received: unknown
  constructor(option: string, expected: string, received: unknown) {
    super(`Option \`${option}\` must be ${expected}; received ${String(received)}.`)
    this.option = option
    this.expected = expected
    this.received = received
  }
}

/** An anvil instance did not start (every port tried was taken, it crashed, or it timed out). */
export class ChainStartError extends ChainPoolError {
  readonly _tag = "ChainStartError"
  readonly chainId: number
  readonly ports: readonly number[]
  constructor(chainId: number, ports: readonly number[], cause: unknown) {
    super(
      `Chain ${chainId}: anvil did not start on 127.0.0.1 (ports tried: ${ports.join(", ")}): ${describeCause(cause)}`,
      { cause },
    )
    this.chainId = chainId
    this.ports = ports
  }
}

/** A chain was used after `ChainPool.stop()` or after its anvil process exited. */
export class ChainStoppedError extends ChainPoolError {
  readonly _tag = "ChainStoppedError"
  readonly chainId: number
  readonly operation: string
  constructor(chainId: number, operation: string) {
    super(`Chain ${chainId}: cannot ${operation}, its anvil instance is stopped.`)
    this.chainId = chainId
    this.operation = operation
  }
}

/** `pool.chain(id)` was asked for a chain id the pool does not run. */
export class UnknownChainError extends ChainPoolError {
  readonly _tag = "UnknownChainError"
  readonly chainId: number
  readonly available: readonly number[]
  constructor(chainId: number, available: readonly number[]) {
    super(`No chain ${chainId} in this pool; it runs ${available.join(", ")}.`)
    this.chainId = chainId
    this.available = available
  }
}

/** The JSON-RPC server answered a call with an error object. */
export class RpcResponseError extends ChainPoolError {
  readonly _tag = "RpcResponseError"
  readonly chainId: number
  readonly url: string
  readonly method: string
  readonly code: number
  readonly rpcMessage: string
  readonly data: unknown
  constructor(chainId: number, url: string, method: string, code: number, rpcMessage: string, data: unknown) {
    super(`Chain ${chainId}: ${method} at ${url} failed with JSON-RPC error ${code}: ${rpcMessage}`)
    this.chainId = chainId
    this.url = url
    this.method = method
    this.code = code
    this.rpcMessage = rpcMessage
    this.data = data
  }
}

/** The HTTP exchange itself failed (connection refused, bad status, unparsable or incomplete body). */
export class RpcTransportError extends ChainPoolError {
  readonly _tag = "RpcTransportError"
  readonly chainId: number
  readonly url: string
  readonly method: string
  readonly reason: string
  constructor(chainId: number, url: string, method: string, reason: string, cause?: unknown) {
    super(`Chain ${chainId}: ${method} at ${url} failed: ${reason}`, { cause })
    this.chainId = chainId
    this.url = url
    this.method = method
    this.reason = reason
  }
}

/** A block was asked for at a timestamp earlier than the chain head: the caller's clock went back. */
export class TimestampOrderError extends ChainPoolError {
  readonly _tag = "TimestampOrderError"
  readonly chainId: number
  readonly requested: bigint
  readonly detail: string
  constructor(chainId: number, requested: bigint, detail: string) {
    super(`Chain ${chainId}: cannot mine a block at timestamp ${requested}: ${detail}`, {
      hint: "Block timestamps come from the caller's virtual clock and must never decrease.",
    })
    this.chainId = chainId
    this.requested = requested
    this.detail = detail
  }
}

/** anvil produced something other than what was asked (wrong timestamp, block not found, ...). */
export class UnexpectedChainStateError extends ChainPoolError {
  readonly _tag = "UnexpectedChainStateError"
  readonly chainId: number
  readonly what: string
  readonly expected: string
  readonly actual: string
  constructor(chainId: number, what: string, expected: string, actual: string) {
    super(`Chain ${chainId}: ${what}: expected ${expected}, got ${actual}.`)
    this.chainId = chainId
    this.what = what
    this.expected = expected
    this.actual = actual
  }
}

/** `revert(id)` named a snapshot anvil does not have (unknown, or already consumed by an earlier revert). */
export class SnapshotNotFoundError extends ChainPoolError {
  readonly _tag = "SnapshotNotFoundError"
  readonly chainId: number
  readonly snapshotId: string
  constructor(chainId: number, snapshotId: string) {
    super(`Chain ${chainId}: snapshot ${snapshotId} does not exist (a snapshot is consumed by the revert to it).`)
    this.chainId = chainId
    this.snapshotId = snapshotId
  }
}

/**
 * A mined block does not hold the sender's transactions in submission order. anvil processed a JSON-RPC batch
 * out of order, so block contents would depend on timing: the run is no longer a function of its inputs.
 */
export class TransactionOrderError extends ChainPoolError {
  readonly _tag = "TransactionOrderError"
  readonly chainId: number
  readonly blockNumber: bigint
  readonly position: number
  readonly expectedHash: string
  readonly actualHash: string
  constructor(chainId: number, blockNumber: bigint, position: number, expectedHash: string, actualHash: string) {
    super(
      `Chain ${chainId}: block ${blockNumber} holds ${actualHash} where the sender's transaction #${position} ` +
        `${expectedHash} was expected; anvil reordered a submission batch.`,
      { hint: "Lower the sender's `batchSize` (30 or less keeps anvil's in-order processing)." },
    )
    this.chainId = chainId
    this.blockNumber = blockNumber
    this.position = position
    this.expectedHash = expectedHash
    this.actualHash = actualHash
  }
}

/**
 * Signing the same transaction twice gave two signatures. viem's process-wide `setSignEntropy` was switched on,
 * which makes transaction hashes (and so block hashes) differ between runs.
 */
export class NondeterministicSignatureError extends ChainPoolError {
  readonly _tag = "NondeterministicSignatureError"
  constructor() {
    super("Signing the same transaction twice produced different signatures.", {
      hint: "Something called viem's setSignEntropy(); deterministic runs need RFC 6979 signatures without extra entropy.",
    })
  }
}

/** `flush` or `sign` was called while another flush or sign of the same sender was still running. */
export class ConcurrentFlushError extends ChainPoolError {
  readonly _tag = "ConcurrentFlushError"
  readonly chainId: number
  readonly operation: string
  constructor(chainId: number, operation: string) {
    super(`Chain ${chainId}: ${operation} called while a flush or sign of this sender is in progress.`, {
      hint: "Await each flush before the next one: one flush is one block, and blocks are ordered.",
    })
    this.chainId = chainId
    this.operation = operation
  }
}

/** Some transactions of a flush did not succeed where the caller required success (`requireSuccess`). */
export class TransactionsFailedError extends ChainPoolError {
  readonly _tag = "TransactionsFailedError"
  readonly chainId: number
  readonly blockNumber: bigint
  readonly failures: readonly { readonly index: number; readonly status: string; readonly reason: string }[]
  constructor(
    chainId: number,
    blockNumber: bigint,
    failures: readonly { readonly index: number; readonly status: string; readonly reason: string }[],
  ) {
    const shown = failures
      .slice(0, 5)
      .map((failure) => `#${failure.index} ${failure.status}: ${failure.reason}`)
      .join("; ")
    const more = failures.length > 5 ? `; and ${failures.length - 5} more` : ""
    super(`Chain ${chainId}: ${failures.length} transaction(s) of block ${blockNumber} failed: ${shown}${more}.`)
    this.chainId = chainId
    this.blockNumber = blockNumber
    this.failures = failures
  }
}

export type ChainPoolErrorType =
  | AnvilBinaryNotFoundError
  | InvalidChainOptionError
  | ChainStartError
  | ChainStoppedError
  | UnknownChainError
  | RpcResponseError
  | RpcTransportError
  | TimestampOrderError
  | UnexpectedChainStateError
  | SnapshotNotFoundError
  | TransactionOrderError
  | NondeterministicSignatureError
  | ConcurrentFlushError
  | TransactionsFailedError
