import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { parseEther } from "viem"
import { describe, expect, test } from "vitest"
import { deriveDevAccounts, TEST_MNEMONIC } from "./accounts.ts"
import { chainExitText } from "./chain.ts"
import {
  ChainStartError,
  ChainStoppedError,
  InvalidChainOptionError,
  RpcResponseError,
  RpcTransportError,
  SnapshotNotFoundError,
  TimestampOrderError,
  UnknownChainError,
} from "./errors.ts"
import { ChainPool, unreachableChainIds, withChainPool } from "./pool.ts"
import { TEST_GENESIS_TIMESTAMP, useChains } from "./testing.ts"

const T0 = TEST_GENESIS_TIMESTAMP
const chains = useChains({ chainIds: [1, 10, 8453], accounts: 12, isolate: "test" })

describe("start", () => {
  test("runs one anvil per chosen chain id, each on its own port", async () => {
    const pool = chains.pool
    expect(pool.chainIds).toEqual([1, 10, 8453])
    const ports = new Set(pool.chains.map((chain) => chain.port))
    expect(ports.size).toBe(3)
    for (const chain of pool.chains) {
      expect(await chain.publicClient.getChainId()).toBe(chain.chainId)
      expect(chain.rpcUrl).toBe(`http://127.0.0.1:${chain.port}`)
      expect(chain.viemChain.id).toBe(chain.chainId)
    }
  })

  test("genesis is at the caller's timestamp with the large gas limit and automine off", async () => {
    for (const chain of chains.pool.chains) {
      const genesis = await chain.publicClient.getBlock({ blockNumber: 0n })
      expect(genesis.timestamp).toBe(T0)
      expect(genesis.gasLimit).toBe(1_000_000_000n)
      expect(await chain.testClient.getAutomine()).toBe(false)
    }
  })

  test("dev accounts are the mnemonic's, with their private keys, funded at genesis", async () => {
    const chain = chains.chain(10)
    expect(chain.accounts).toHaveLength(12)
    expect(chain.accounts[0]?.address).toBe("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266")
    expect(chain.accounts[0]?.privateKey).toBe("0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
    expect(chain.accounts[1]?.privateKey).toBe("0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")
    expect(chain.accounts.map((account) => account.index)).toEqual([...Array(12).keys()])
    const last = chain.accounts[11]
    expect(last).toBeDefined()
    expect(await chain.publicClient.getBalance({ address: last?.address ?? "0x" })).toBe(parseEther("10000"))
    expect(deriveDevAccounts(TEST_MNEMONIC, 3).map((account) => account.address)).toEqual(
      chain.accounts.slice(0, 3).map((account) => account.address),
    )
  })

  test("unknown chain id is a typed error", () => {
    expect(() => chains.chain(5)).toThrow(UnknownChainError)
    expect(() => chains.chain(5)).toThrow("No chain 5 in this pool; it runs 1, 10, 8453.")
  })

  test("bad options are rejected before any process starts", async () => {
    const base = { genesisTimestamp: T0 }
    await expect(ChainPool.start({ ...base, chainIds: [] })).rejects.toThrow(InvalidChainOptionError)
    await expect(ChainPool.start({ ...base, chainIds: [1, 1] })).rejects.toThrow("distinct chain ids")
    await expect(ChainPool.start({ ...base, chainIds: [0] })).rejects.toThrow(InvalidChainOptionError)
    await expect(ChainPool.start({ chainIds: [1], genesisTimestamp: -1n })).rejects.toThrow("genesisTimestamp")
  })

  test("stopping leaves no timer behind: a command exits as soon as its chains are stopped", async () => {
    const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length
    const before = timers()
    const pool = await ChainPool.start({ chainIds: [778, 779], genesisTimestamp: T0 })
    expect(pool.chains).toHaveLength(2)
    await pool.stop()
    // prool's stop (execa's kill) armed a 5-second SIGKILL timer per process that outlived it.
    expect(timers()).toBeLessThanOrEqual(before)
  })

  test("a taken port is skipped (EADDRINUSE retry)", async () => {
    const blocker: Server = createServer()
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve))
    const address = blocker.address()
    const taken = typeof address === "object" && address !== null ? address.port : 0
    try {
      await withChainPool({ chainIds: [777], genesisTimestamp: T0, basePort: taken }, async (pool) => {
        // The taken port is skipped; the next free one is used (not necessarily taken + 1: other processes hold ports too).
        expect(pool.chain(777).port).toBeGreaterThan(taken)
        expect(await pool.chain(777).publicClient.getChainId()).toBe(777)
      })
    } finally {
      blocker.close()
    }
  })
})

describe("blocks", () => {
  test("automine is off: a sent transaction stays pending until mine()", async () => {
    const chain = chains.chain(1)
    const [alice, bob] = chain.accounts
    if (alice === undefined || bob === undefined) throw new Error("accounts")
    const hash = await chain.walletClient.sendTransaction({
      to: bob.address,
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 0n,
    })
    expect(await chain.publicClient.getBlockNumber()).toBe(0n)
    await expect(chain.publicClient.getTransactionReceipt({ hash })).rejects.toThrow()
    const pending = await chain.publicClient.getBlock({ blockTag: "pending" })
    expect(pending.transactions).toEqual([hash])

    expect(await chain.mine(T0 + 12n)).toBe(1n)
    const receipt = await chain.publicClient.getTransactionReceipt({ hash })
    expect(receipt.status).toBe("success")
    expect(receipt.blockNumber).toBe(1n)
  })

  test("each mine() makes exactly one block at exactly the requested timestamp", async () => {
    const chain = chains.chain(10)
    const requested = [T0 + 1n, T0 + 1n, T0 + 100n, T0 + 86_400n]
    for (const [i, timestamp] of requested.entries()) {
      const block = await chain.mineBlock(timestamp)
      expect(block.number).toBe(BigInt(i + 1))
      expect(block.timestamp).toBe(timestamp)
    }
    expect((await chain.publicClient.getBlock()).timestamp).toBe(T0 + 86_400n)
  })

  test("a timestamp earlier than the head is refused with a typed error", async () => {
    const chain = chains.chain(10)
    await chain.mine(T0 + 50n)
    const error = await chain.mine(T0 + 49n).catch((cause: unknown) => cause)
    expect(error).toBeInstanceOf(TimestampOrderError)
    expect((error as TimestampOrderError).chainId).toBe(10)
    expect((error as TimestampOrderError).requested).toBe(T0 + 49n)
    expect(await chain.publicClient.getBlockNumber()).toBe(1n)
  })

  test("setNextBlockTimestamp applies to a block mined by other means", async () => {
    const chain = chains.chain(8453)
    await chain.setNextBlockTimestamp(T0 + 777n)
    await chain.testClient.mine({ blocks: 1 })
    expect((await chain.latestBlock()).timestamp).toBe(T0 + 777n)
  })

  test("snapshot/revert restore blocks and balances and bump stateVersion", async () => {
    const chain = chains.chain(8453)
    const [alice, bob] = chain.accounts
    if (alice === undefined || bob === undefined) throw new Error("accounts")
    const before = await chain.publicClient.getBalance({ address: bob.address })
    const version = chain.stateVersion
    const snapshot = await chain.snapshot()
    await chain.walletClient.sendTransaction({
      to: bob.address,
      value: 5n,
      gas: 21_000n,
      maxFeePerGas: 10_000_000_000n,
      maxPriorityFeePerGas: 0n,
    })
    await chain.mine(T0 + 5n)
    expect(await chain.publicClient.getBalance({ address: bob.address })).toBe(before + 5n)
    await chain.revert(snapshot)
    expect(chain.stateVersion).toBe(version + 1)
    expect(await chain.publicClient.getBlockNumber()).toBe(0n)
    expect(await chain.publicClient.getBalance({ address: bob.address })).toBe(before)
    await expect(chain.revert(snapshot)).rejects.toThrow(SnapshotNotFoundError)
  })

  test("isolate: 'test' reverted the previous test's blocks", async () => {
    const numbers = await Promise.all(chains.pool.chains.map((chain) => chain.publicClient.getBlockNumber()))
    expect(numbers).toEqual([0n, 0n, 0n])
  })
})

test("an anvil killed from outside is reported as stopped", async () => {
  await withChainPool({ chainIds: [31338, 31339], genesisTimestamp: T0 }, async (pool) => {
    const [victim, survivor] = pool.chains
    if (victim === undefined || survivor === undefined) throw new Error("chains")
    process.kill(victim.pid, "SIGKILL")
    await expect.poll(() => victim.isStopped).toBe(true)
    await expect(victim.mine(T0 + 1n)).rejects.toThrow(ChainStoppedError)
    // Its RPC client's later requests say what happened: the anvil exited, not the pool stopping.
    await expect(victim.rpc.request("eth_blockNumber")).rejects.toThrow("the client is closed (anvil exited)")
    expect(await survivor.mine(T0 + 1n)).toBe(1n)
  })
})

test("after a failed request, tells which chains' anvils exited on their own, and how, before the pool stops them", async () => {
  await withChainPool({ chainIds: [31338, 31339], genesisTimestamp: T0 }, async (pool) => {
    const [victim, survivor] = pool.chains
    if (victim === undefined || survivor === undefined) throw new Error("chains")
    await victim.mine(T0 + 1n)
    process.kill(victim.pid, "SIGKILL")
    // The request fails as soon as the connection does, maybe before the exit is seen (no poll here).
    const failure = await victim.rpc.request("eth_blockNumber").then(
      () => undefined,
      (error: unknown) => error,
    )
    expect(failure).toBeInstanceOf(RpcTransportError)
    const exited = await pool.exitedOnTheirOwn(failure)
    expect(exited).toEqual([victim])
    expect([victim.stopReason, victim.exit, chainExitText(victim.exit)]).toEqual(["anvil exited", { code: null, signal: "SIGKILL" }, "was killed by SIGKILL"])
    expect([survivor.isStopped, survivor.stopReason]).toEqual([false, undefined])
    // An error that names no unreachable chain waits for none (given 10 minutes to wait, past this test's timeout: a
    // wait would fail the test), and the survivor never counts.
    expect(await pool.exitedOnTheirOwn(new Error("a defect"), 600_000)).toEqual([victim])
    await pool.stop()
    // The pool's own stop is no exit of the anvil's: the first reason stays on each.
    expect([victim.stopReason, survivor.stopReason, survivor.exit]).toEqual(["anvil exited", "pool stopped", undefined])
    expect(await pool.exitedOnTheirOwn(failure)).toEqual([victim])
  })
})

test("anvils killed together (pkill -9 anvil) are all told, though the failed request named one", async () => {
  await withChainPool({ chainIds: [31338, 31339, 31340], genesisTimestamp: T0 }, async (pool) => {
    const [first, second, third] = pool.chains
    if (first === undefined || second === undefined || third === undefined) throw new Error("chains")
    process.kill(first.pid, "SIGKILL")
    process.kill(second.pid, "SIGKILL")
    const failure = await first.rpc.request("eth_blockNumber").catch((error: unknown) => error)
    expect(await pool.exitedOnTheirOwn(failure)).toEqual([first, second])
    expect([first.exit?.signal, second.exit?.signal, third.stopReason]).toEqual(["SIGKILL", "SIGKILL", undefined])
  })
})

test("an anvil that exits before it answers its first request did not start: ChainStartError says how it ended", async () => {
  // A stand-in binary: says it listens (what prool waits for), then exits with code 3 before answering anything.
  const dir = mkdtempSync(join(tmpdir(), "clearsim-fake-anvil-"))
  const binary = join(dir, "anvil")
  writeFileSync(binary, '#!/bin/sh\nwhile [ "$1" != "--port" ]; do shift; done\necho "Listening on 127.0.0.1:$2"\nexit 3\n', { mode: 0o755 })
  try {
    const started = ChainPool.start({ chainIds: [31337], genesisTimestamp: T0, binary })
    await expect(started).rejects.toThrow(ChainStartError)
    await expect(started).rejects.toThrow(/^Chain 31337: anvil did not start on 127\.0\.0\.1 \(ports tried: \d+\): its process \(pid \d+\) exited with code 3 before it answered$/)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test("an anvil that exits before it even listens is told as one that exits before it answers: how it ended, not prool's bare 'exited'", async () => {
  // Was: 'Failed to start process "anvil": exited'. The stand-in of the test above can land either way (prool may see
  // its exit before its "Listening on" line); this one always ends before listening.
  const dir = mkdtempSync(join(tmpdir(), "clearsim-fake-anvil-"))
  const binary = join(dir, "anvil")
  writeFileSync(binary, "#!/bin/sh\nexit 3\n", { mode: 0o755 })
  try {
    await expect(ChainPool.start({ chainIds: [31337], genesisTimestamp: T0, binary })).rejects.toThrow(
      /^Chain 31337: anvil did not start on 127\.0\.0\.1 \(ports tried: \d+\): its process \(pid \d+\) exited with code 3 before it answered$/,
    )
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
})

test("chainExitText and unreachableChainIds: how an anvil ended, and which chains an error could not reach", () => {
  expect([chainExitText({ code: 1, signal: null }), chainExitText({ code: null, signal: "SIGTERM" }), chainExitText(undefined)]).toEqual(["exited with code 1", "was killed by SIGTERM", "exited"])
  const chains = [
    { chainId: 1, rpcUrl: "http://127.0.0.1:2240" },
    { chainId: 2, rpcUrl: "http://127.0.0.1:22400" },
  ]
  const transport = new RpcTransportError(2, "http://127.0.0.1:22400", "eth_getLogs", "read ECONNRESET")
  expect(unreachableChainIds(transport, chains)).toEqual([2])
  // Through causes, and as another library names it: by its URL (not a URL it is a prefix of).
  expect(unreachableChainIds(new Error("spoke 2 failed", { cause: new Error("x", { cause: transport }) }), chains)).toEqual([2])
  expect(unreachableChainIds(new Error("HTTP request failed.\n\nURL: http://127.0.0.1:22400\nDetails: fetch failed"), chains)).toEqual([2])
  expect(unreachableChainIds(Object.assign(new Error("HTTP request failed."), { url: "http://127.0.0.1:2240" }), chains)).toEqual([1])
  expect(unreachableChainIds(new ChainStoppedError(1, "mine"), chains)).toEqual([1])
  // A chain that answered, however wrongly, was reached.
  expect(unreachableChainIds(new RpcResponseError(2, "http://127.0.0.1:22400", "eth_call", -32000, "execution reverted", undefined), chains)).toEqual([])
  expect(unreachableChainIds(new Error("conservation violated"), chains)).toEqual([])
  expect(unreachableChainIds(undefined, chains)).toEqual([])
  // A URL is matched as text, never as a pattern: an IPv6 host's brackets made a character class of it.
  const v6 = [{ chainId: 3, rpcUrl: "http://[::1]:2240" }]
  expect(unreachableChainIds(new Error("HTTP request failed.\n\nURL: http://[::1]:2240\nDetails: fetch failed"), v6)).toEqual([3])
  expect(unreachableChainIds(new Error("URL: http://[::1]:22401, then http://[::1]:2240."), v6)).toEqual([3])
  expect(unreachableChainIds(new Error("URL: http://[::1]:22401"), v6)).toEqual([])
})

test("a stopped pool refuses work with ChainStoppedError", async () => {
  const pool = await ChainPool.start({ chainIds: [31337], genesisTimestamp: T0 })
  const chain = pool.chain(31337)
  await pool.stop()
  expect(chain.isStopped).toBe(true)
  await expect(chain.mine(T0 + 1n)).rejects.toThrow(ChainStoppedError)
  await expect(chain.mine(T0 + 1n)).rejects.toThrow("Chain 31337: cannot mine, its anvil instance is stopped.")
  await expect(chain.rpc.request("eth_blockNumber")).rejects.toThrow("the client is closed (pool stopped)")
})
