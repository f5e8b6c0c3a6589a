/**
 * One running anvil chain of a pool: its RPC URL, viem clients, funded dev accounts, and the only ways the
 * simulation advances it: `mine(timestamp)` (one block, at the caller's timestamp) and snapshot/revert.
 */
import {
  type Chain as ViemChain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  type Hash,
  type Hex,
  http,
  type HttpTransport,
  type PublicClient,
  type TestClient,
  type WalletClient,
} from "viem"
import type { DevAccount } from "./accounts.ts"
import {
  ChainStoppedError,
  RpcResponseError,
  SnapshotNotFoundError,
  TimestampOrderError,
  UnexpectedChainStateError,
} from "./errors.ts"
import type { RpcClient } from "./rpc.ts"
import { BlockHeaderJson, decodeResult } from "./rpcResults.ts"

/** A mined block as the pool reports it. */
export interface MinedBlock {
  readonly number: bigint
  readonly hash: Hash
  /** Seconds; always the value the caller asked for. */
  readonly timestamp: bigint
  /** Transaction hashes in block order. */
  readonly transactions: readonly Hash[]
}

/** An anvil snapshot id (`evm_snapshot`); consumed by the revert to it. */
export type SnapshotId = Hex

export interface ChainParameters {
  readonly chainId: number
  readonly port: number
  readonly pid: number
  readonly rpc: RpcClient
  readonly accounts: readonly DevAccount[]
}

/** Why a chain stopped answering: its pool stopped it, or its anvil exited on its own (killed, crashed). */
export type ChainStopReason = "pool stopped" | "anvil exited"

/** How an anvil process ended: its exit code, or the signal that killed it. */
export interface ChainExit {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** An anvil's end in words: "was killed by SIGKILL", "exited with code 1", "exited". */
export const chainExitText = (exit: ChainExit | undefined): string =>
  exit?.signal != null ? `was killed by ${exit.signal}` : exit?.code != null ? `exited with code ${exit.code}` : "exited"

export class Chain {
  readonly chainId: number
  readonly rpcUrl: string
  readonly port: number
  /** Pid of the anvil process. */
  readonly pid: number
  /** viem chain definition (id, name `anvil-<id>`, native ETH, this RPC URL). */
  readonly viemChain: ViemChain
  readonly publicClient: PublicClient<HttpTransport, ViemChain>
  readonly testClient: TestClient<"anvil", HttpTransport, ViemChain>
  /** Wallet client with `accounts[0]` hoisted (a local account: transactions are signed here, not by anvil). */
  readonly walletClient: WalletClient<HttpTransport, ViemChain, DevAccount>
  /** Funded dev accounts derived from the pool's mnemonic, `accounts[i].index === i`. */
  readonly accounts: readonly DevAccount[]
  /** The pool's own JSON-RPC client (keep-alive, batches). */
  readonly rpc: RpcClient
  private stopped = false
  private reason: ChainStopReason | undefined
  private exitStatus: ChainExit | undefined
  private version = 0

  constructor(parameters: ChainParameters) {
    const { chainId, port, pid, rpc, accounts } = parameters
    this.chainId = chainId
    this.port = port
    this.pid = pid
    this.rpc = rpc
    this.accounts = accounts
    this.rpcUrl = rpc.url
    this.viemChain = defineChain({
      id: chainId,
      name: `anvil-${chainId}`,
      nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
      rpcUrls: { default: { http: [this.rpcUrl] } },
    })
    const transport = http(this.rpcUrl)
    // cacheTime 0: viem otherwise serves eth_blockNumber from a 4 s cache, stale right after a mine().
    this.publicClient = createPublicClient({ chain: this.viemChain, transport, cacheTime: 0 })
    this.testClient = createTestClient({ chain: this.viemChain, transport, mode: "anvil", cacheTime: 0 })
    const first = accounts[0]
    if (first === undefined) throw new Error(`chain ${chainId} needs at least one dev account`)
    this.walletClient = createWalletClient({ chain: this.viemChain, transport, account: first, cacheTime: 0 })
  }

  /** Increments on every `revert`, so that holders of cached chain state (sender nonces) know to reload it. */
  get stateVersion(): number {
    return this.version
  }

  get isStopped(): boolean {
    return this.stopped
  }

  /** Why the chain stopped (the first reason given), or undefined while it runs. */
  get stopReason(): ChainStopReason | undefined {
    return this.reason
  }

  /** How its anvil ended when it exited on its own (`stopReason` "anvil exited"), when known. */
  get exit(): ChainExit | undefined {
    return this.exitStatus
  }

  /** Mines exactly one block at `timestamp` (seconds) and returns its number. */
  async mine(timestamp: bigint): Promise<bigint> {
    return (await this.mineBlock(timestamp)).number
  }

  /**
   * Mines exactly one block with `evm_mine(timestamp)` and returns it. The timestamp may equal the head's
   * (anvil allows it) but never be lower; the mined block is checked to carry exactly this timestamp.
   */
  async mineBlock(timestamp: bigint): Promise<MinedBlock> {
    this.assertRunning("mine")
    const seconds = this.checkTimestamp(timestamp)
    const outcome = await this.rpc.tryRequest("evm_mine", [seconds])
    if (!outcome.ok) {
      if (/lower than previous/i.test(outcome.error.rpcMessage)) {
        throw new TimestampOrderError(this.chainId, timestamp, outcome.error.rpcMessage)
      }
      throw outcome.error
    }
    const block = await this.latestBlock()
    if (block.timestamp !== timestamp) {
      throw new UnexpectedChainStateError(
        this.chainId,
        `timestamp of block ${block.number} after evm_mine`,
        String(timestamp),
        String(block.timestamp),
      )
    }
    return block
  }

  /** Sets the timestamp of the next block mined by any means (`mine` passes its own and overrides this). */
  async setNextBlockTimestamp(timestamp: bigint): Promise<void> {
    this.assertRunning("set the next block timestamp")
    const seconds = this.checkTimestamp(timestamp)
    try {
      await this.rpc.request("evm_setNextBlockTimestamp", [seconds])
    } catch (error) {
      if (error instanceof RpcResponseError && /lower than|timestamp/i.test(error.rpcMessage)) {
        throw new TimestampOrderError(this.chainId, timestamp, error.rpcMessage)
      }
      throw error
    }
  }

  /** Takes an `evm_snapshot` of the whole chain state. */
  async snapshot(): Promise<SnapshotId> {
    this.assertRunning("snapshot")
    const id = await this.rpc.request("evm_snapshot")
    if (typeof id !== "string" || !/^0x[0-9a-fA-F]+$/.test(id)) {
      throw new UnexpectedChainStateError(this.chainId, "evm_snapshot result", "a hex id", JSON.stringify(id))
    }
    return id as SnapshotId
  }

  /** Reverts to a snapshot (consuming it) and bumps `stateVersion`. */
  async revert(id: SnapshotId): Promise<void> {
    this.assertRunning("revert")
    const reverted = await this.rpc.request("evm_revert", [id])
    this.version++
    if (reverted !== true) throw new SnapshotNotFoundError(this.chainId, id)
  }

  /** The head block. */
  async latestBlock(): Promise<MinedBlock> {
    return this.block("latest")
  }

  /** A block by number (or tag), with its transaction hashes. */
  async block(number: bigint | "latest"): Promise<MinedBlock> {
    this.assertRunning("read a block")
    const tag = number === "latest" ? number : `0x${number.toString(16)}`
    const raw = await this.rpc.request("eth_getBlockByNumber", [tag, false])
    if (raw === null) throw new UnexpectedChainStateError(this.chainId, `block ${tag}`, "a block", "null")
    const json = decodeResult(BlockHeaderJson, raw, {
      chainId: this.chainId,
      url: this.rpcUrl,
      method: "eth_getBlockByNumber",
    })
    return {
      number: BigInt(json.number),
      hash: json.hash as Hash,
      timestamp: BigInt(json.timestamp),
      transactions: json.transactions as readonly Hash[],
    }
  }

  /**
   * @internal Called by the pool when it stops the instance (`"pool stopped"`) or the instance exits on its own
   * (`"anvil exited"`, with how it ended); later calls throw `ChainStoppedError`, and requests in flight fail
   * saying which. The first reason stays.
   */
  markStopped(reason: ChainStopReason = "pool stopped", exit?: ChainExit): void {
    if (this.stopped) return
    this.stopped = true
    this.reason = reason
    this.exitStatus = exit
    this.rpc.close(reason)
  }

  /** Throws `ChainStoppedError` when the chain's anvil is gone. */
  assertRunning(operation: string): void {
    if (this.stopped) throw new ChainStoppedError(this.chainId, operation)
  }

  private checkTimestamp(timestamp: bigint): number {
    if (timestamp < 0n || timestamp > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new TimestampOrderError(this.chainId, timestamp, "a timestamp must be a non-negative safe integer of seconds")
    }
    return Number(timestamp)
  }
}
