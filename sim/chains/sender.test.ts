import { type Address, encodeFunctionData, getContractAddress, type Hex, parseEventLogs } from "viem"
import { describe, expect, test, vi } from "vitest"
import type { Chain } from "./chain.ts"
import { ConcurrentFlushError, RpcResponseError, TransactionsFailedError } from "./errors.ts"
import { requireSuccess, type TransactionOutcome } from "./outcomes.ts"
import type { RpcCall } from "./rpc.ts"
import { createSender, type TransactionSender } from "./sender.ts"
import { testTokenAbi, testTokenBytecode } from "./testdata/testToken.ts"
import { TEST_GENESIS_TIMESTAMP, useChains } from "./testing.ts"

const T0 = TEST_GENESIS_TIMESTAMP
const CHAIN_ID = 31_001
const chains = useChains({ chainIds: [CHAIN_ID], accounts: 20, isolate: "test" })

const account = (chain: Chain, index: number) => {
  const found = chain.accounts[index]
  if (found === undefined) throw new Error(`no dev account ${index}`)
  return found
}

/** Address 0x...00<n>, never a dev account. */
const recipient = (n: number): Address => `0x${(0xbeef0000 + n).toString(16).padStart(40, "0")}`

const deployToken = async (sender: TransactionSender, chain: Chain, timestamp: bigint): Promise<Address> => {
  sender.queue({ from: account(chain, 0), data: testTokenBytecode, gas: 1_000_000n })
  const [deployed] = requireSuccess(await sender.flush(timestamp))
  const address = deployed?.contractAddress
  if (address === undefined) throw new Error("no contract address")
  return address
}

const countCalls = (chain: Chain, method: string) => {
  const spy = vi.spyOn(chain.rpc, "batch")
  return {
    count: () =>
      spy.mock.calls.reduce((total, [calls]) => total + calls.filter((call: RpcCall) => call.method === method).length, 0),
    restore: () => spy.mockRestore(),
  }
}

describe("nonces", () => {
  test("are tracked locally over several flushes (one eth_getTransactionCount per account)", async () => {
    const chain = chains.chain(CHAIN_ID)
    const sender = createSender(chain)
    const counter = countCalls(chain, "eth_getTransactionCount")
    try {
      for (let flush = 0; flush < 3; flush++) {
        for (let round = 0; round < 3; round++) {
          for (let i = 0; i < 5; i++) sender.queue({ from: account(chain, i), to: recipient(i), value: 1n, gas: 21_000n })
        }
        const result = await sender.flush(T0 + 12n * BigInt(flush + 1))
        expect(result.block.number).toBe(BigInt(flush + 1))
        expect(result.block.timestamp).toBe(T0 + 12n * BigInt(flush + 1))
        const successes = requireSuccess(result)
        expect(successes).toHaveLength(15)
        for (const outcome of successes) {
          const round = Math.floor(outcome.index / 5)
          expect(outcome.nonce).toBe(flush * 3 + round)
          expect(outcome.transactionIndex).toBe(outcome.index)
        }
      }
      expect(counter.count()).toBe(5)
    } finally {
      counter.restore()
    }
    expect(await chain.publicClient.getTransactionCount({ address: account(chain, 4).address })).toBe(9)
  })

  test("are reloaded after the chain reverts to a snapshot", async () => {
    const chain = chains.chain(CHAIN_ID)
    const sender = createSender(chain)
    const snapshot = await chain.snapshot()
    sender.queue({ from: account(chain, 1), to: recipient(1), value: 1n, gas: 21_000n })
    expect(requireSuccess(await sender.flush(T0 + 1n))[0]?.nonce).toBe(0)
    await chain.revert(snapshot)
    sender.queue({ from: account(chain, 1), to: recipient(1), value: 1n, gas: 21_000n })
    expect(requireSuccess(await sender.flush(T0 + 1n))[0]?.nonce).toBe(0)
  })

  test("a refused transaction leaves a gap: the account's next ones are dropped, then nonces resync", async () => {
    const chain = chains.chain(CHAIN_ID)
    const sender = createSender(chain)
    const poor = account(chain, 3)
    sender.queue({ from: poor, to: recipient(3), value: 1n, gas: 21_000n })
    sender.queue({ from: poor, to: recipient(3), value: 10n ** 30n, gas: 21_000n }) // more than it has
    sender.queue({ from: poor, to: recipient(3), value: 2n, gas: 21_000n })
    sender.queue({ from: account(chain, 4), to: recipient(4), value: 3n, gas: 21_000n })
    const result = await sender.flush(T0 + 12n)
    expect(result.outcomes.map((outcome) => [outcome.status, outcome.nonce])).toEqual([
      ["success", 0],
      ["rejected", 1],
      ["dropped", 2],
      ["success", 0],
    ])
    const rejected = result.outcomes[1]
    expect(rejected?.status === "rejected" && rejected.error).toBeInstanceOf(RpcResponseError)
    expect(rejected?.status === "rejected" && rejected.error.rpcMessage).toMatch(/insufficient funds/i)
    expect(result.block.transactions).toHaveLength(2)

    // The dropped transaction (nonce 2) is gone from the pool: the next flush starts again at nonce 1.
    sender.queue({ from: poor, to: recipient(3), value: 4n, gas: 21_000n })
    const next = await sender.flush(T0 + 24n)
    expect(next.outcomes.map((outcome) => [outcome.status, outcome.nonce])).toEqual([["success", 1]])
    expect(next.block.transactions).toHaveLength(1)
    expect(await chain.publicClient.getBalance({ address: recipient(3) })).toBe(1n + 4n)
  })
})

/** Counts the calls of `method`, whether sent alone (`request`) or in a batch. */
const countMethod = (chain: Chain, method: string) => {
  const batch = vi.spyOn(chain.rpc, "batch")
  const request = vi.spyOn(chain.rpc, "request")
  return {
    count: () =>
      batch.mock.calls.reduce((total, [calls]) => total + calls.filter((call: RpcCall) => call.method === method).length, 0) +
      request.mock.calls.filter(([name]) => name === method).length,
    restore: () => {
      batch.mockRestore()
      request.mockRestore()
    },
  }
}

/** Top-level `trace_block` entries of a block by transaction hash: what outcomes were read from before. */
const topLevelTraces = async (chain: Chain, blockNumber: bigint) => {
  const traces = (await chain.rpc.request("trace_block", [`0x${blockNumber.toString(16)}`])) as {
    transactionHash: string
    traceAddress: number[]
    type: string
    error?: string
    result?: { output?: Hex; address?: Address } | null
  }[]
  return new Map(traces.filter((trace) => trace.traceAddress.length === 0).map((trace) => [trace.transactionHash.toLowerCase(), trace]))
}

/** Init code that emits one LOG0 and deploys empty code: a creation with logs. */
const LOGGING_INIT_CODE: Hex = "0x60006000a000"

describe("flush", () => {
  test("2,000 transfers land in one block, in submission order", async () => {
    const chain = chains.chain(CHAIN_ID)
    const sender = createSender(chain)
    for (let round = 0; round < 100; round++) {
      for (let i = 0; i < 20; i++) sender.queue({ from: account(chain, i), to: recipient(i), value: 1n, gas: 21_000n })
    }
    expect(sender.pending).toBe(2_000)
    const result = await sender.flush(T0 + 12n)
    expect(sender.pending).toBe(0)
    expect(result.block.number).toBe(1n)
    expect(result.block.transactions).toHaveLength(2_000)
    const successes = requireSuccess(result)
    expect(successes.map((outcome) => outcome.transactionIndex)).toEqual([...Array(2_000).keys()])
    expect(result.block.transactions).toEqual(successes.map((outcome) => outcome.hash))
    expect(await chain.publicClient.getBalance({ address: recipient(19) })).toBe(100n)
    expect(await chain.publicClient.getBlockNumber()).toBe(1n)
  })

  test("transactions with large calldata go in JSON-RPC batches anvil accepts, in one block", async () => {
    // 24 transactions of 100 kB calldata (zero bytes: cheap in gas, 200 kB of hex each on the wire): 4.8 MB in
    // batches of 30, more than anvil takes in one request; split by size, every one lands, in order.
    const chain = chains.chain(CHAIN_ID)
    const sender = createSender(chain)
    const data = `0x${"00".repeat(100_000)}` as Hex
    for (let i = 0; i < 24; i++) sender.queue({ from: account(chain, i % 20), to: recipient(i), data, gas: 1_100_000n })
    const spy = vi.spyOn(chain.rpc, "batch")
    const result = await sender.flush(T0 + 12n)
    const sendBatches = spy.mock.calls.filter(([calls]) => calls.some((call: RpcCall) => call.method === "eth_sendRawTransaction"))
    spy.mockRestore()
    expect(sendBatches.reduce((n, [calls]) => n + calls.length, 0)).toBe(24)
    expect(sendBatches.length).toBeGreaterThan(1)
    for (const [calls] of sendBatches) expect(JSON.stringify(calls).length).toBeLessThanOrEqual(2 ** 20 + 64 * 1024)
    const successes = requireSuccess(result)
    expect(successes.map((outcome) => outcome.transactionIndex)).toEqual([...Array(24).keys()])
  })

  test("with nothing queued, a flush still mines exactly one block", async () => {
    const chain = chains.chain(CHAIN_ID)
    const result = await createSender(chain).flush(T0 + 5n)
    expect(result.outcomes).toEqual([])
    expect(result.block).toMatchObject({ number: 1n, timestamp: T0 + 5n, transactions: [] })
  })

  test("reports contract creation, logs, and decoded reverts", async () => {
    const chain = chains.chain(CHAIN_ID)
    const sender = createSender(chain)
    const token = await deployToken(sender, chain, T0 + 12n)
    const [alice, bob] = [account(chain, 0), account(chain, 1)]

    sender.queueContract({ from: alice, address: token, abi: testTokenAbi, functionName: "mint", args: [alice.address, 100n], gas: 100_000n })
    sender.queueContract({ from: alice, address: token, abi: testTokenAbi, functionName: "transfer", args: [bob.address, 40n], gas: 100_000n })
    sender.queueContract({ from: bob, address: token, abi: testTokenAbi, functionName: "transfer", args: [alice.address, 41n], gas: 100_000n })
    sender.queueContract({ from: bob, address: token, abi: testTokenAbi, functionName: "burn", args: [1_000n], gas: 100_000n })
    sender.queue({ from: bob, to: token, data: "0xdeadbeef", gas: 100_000n })
    const result = await sender.flush(T0 + 24n)
    const [mint, transfer, overdraw, burn, unknown] = result.outcomes as TransactionOutcome[]

    expect(mint?.status).toBe("success")
    expect(transfer?.status).toBe("success")
    if (transfer?.status !== "success") throw new Error("transfer failed")
    const [event] = parseEventLogs({ abi: testTokenAbi, logs: [...transfer.logs], eventName: "Transfer" })
    expect(event?.args).toEqual({ from: alice.address, to: bob.address, value: 40n })

    expect(overdraw?.status).toBe("reverted")
    if (overdraw?.status !== "reverted") throw new Error("expected a revert")
    expect(overdraw.revert).toMatchObject({ kind: "decoded", errorName: "InsufficientBalance", args: [bob.address, 40n, 41n] })
    expect(overdraw.revert.message).toBe(`InsufficientBalance(${bob.address}, 40, 41)`)

    expect(burn?.status === "reverted" && burn.revert).toMatchObject({
      kind: "decoded",
      errorName: "Error",
      message: "Error(burn exceeds balance)",
    })
    expect(unknown?.status === "reverted" && unknown.revert).toMatchObject({ kind: "undecoded", data: "0x" })

    expect(await sender.readContract({ address: token, abi: testTokenAbi, functionName: "balanceOf", args: [bob.address] })).toBe(40n)
  })

  test("the sender's errorAbi decodes reverts of raw transactions", async () => {
    const chain = chains.chain(CHAIN_ID)
    const sender = createSender(chain, { errorAbi: testTokenAbi })
    const token = await deployToken(sender, chain, T0 + 1n)
    sender.queue({
      from: account(chain, 2),
      to: token,
      data: "0xa9059cbb000000000000000000000000000000000000000000000000000000000000dead0000000000000000000000000000000000000000000000000000000000000001",
      gas: 100_000n,
    })
    const [outcome] = (await sender.flush(T0 + 2n)).outcomes
    expect(outcome?.status === "reverted" && outcome.revert.message).toBe(
      `InsufficientBalance(${account(chain, 2).address}, 0, 1)`,
    )
  })

  test("receipts are fetched on request and agree with the outcomes", async () => {
    const chain = chains.chain(CHAIN_ID)
    const sender = createSender(chain)
    const token = await deployToken(sender, chain, T0 + 1n)
    sender.queue({ from: account(chain, 5), to: recipient(5), value: 7n, gas: 21_000n })
    sender.queueContract({ from: account(chain, 5), address: token, abi: testTokenAbi, functionName: "burn", args: [1n], gas: 60_000n })
    const result = await sender.flush(T0 + 2n, { receipts: true })
    const [transfer, burn] = result.outcomes
    expect(transfer?.status === "success" && transfer.receipt).toMatchObject({ status: "success", gasUsed: 21_000n, blockNumber: 2n })
    expect(burn?.status === "reverted" && burn.receipt?.status).toBe("reverted")
  })

  test("requireSuccess names every failed transaction", async () => {
    const chain = chains.chain(CHAIN_ID)
    const sender = createSender(chain)
    const token = await deployToken(sender, chain, T0 + 1n)
    sender.queue({ from: account(chain, 6), to: recipient(6), value: 1n, gas: 21_000n })
    sender.queueContract({ from: account(chain, 6), address: token, abi: testTokenAbi, functionName: "burn", args: [5n], gas: 60_000n })
    const result = await sender.flush(T0 + 2n)
    expect(() => requireSuccess(result)).toThrow(TransactionsFailedError)
    expect(() => requireSuccess(result)).toThrow(
      `Chain ${CHAIN_ID}: 1 transaction(s) of block 2 failed: #1 reverted: Error(burn exceeds balance).`,
    )
  })

  test("a second flush while one runs is refused", async () => {
    const chain = chains.chain(CHAIN_ID)
    const sender = createSender(chain)
    sender.queue({ from: account(chain, 7), to: recipient(7), value: 1n, gas: 21_000n })
    const first = sender.flush(T0 + 1n)
    await expect(sender.flush(T0 + 2n)).rejects.toThrow(ConcurrentFlushError)
    expect(requireSuccess(await first)).toHaveLength(1)
  })
})

describe("outcome reading (logs tell success; traces only for the rest)", () => {
  test("a block mixing success with logs, success without logs, creations and reverts", async () => {
    const chain = chains.chain(CHAIN_ID)
    const sender = createSender(chain)
    const token = await deployToken(sender, chain, T0 + 1n)
    const [alice, bob, carol] = [account(chain, 0), account(chain, 1), account(chain, 2)]
    const balanceOfData = encodeFunctionData({ abi: testTokenAbi, functionName: "balanceOf", args: [alice.address] })
    const traceTransaction = countMethod(chain, "trace_transaction")
    const traceBlock = countMethod(chain, "trace_block")
    let result
    try {
      for (let i = 3; i < 15; i++) {
        const minter = account(chain, i)
        sender.queueContract({ from: minter, address: token, abi: testTokenAbi, functionName: "mint", args: [minter.address, 50n], gas: 100_000n })
      }
      sender.queue({ from: alice, to: recipient(1), value: 9n, gas: 21_000n }) // 12: success, no logs (ETH)
      sender.queue({ from: alice, to: token, data: balanceOfData, gas: 60_000n }) // 13: success, no logs (contract)
      sender.queue({ from: bob, data: testTokenBytecode, gas: 1_000_000n }) // 14: creation, no logs
      sender.queue({ from: bob, data: LOGGING_INIT_CODE, gas: 100_000n }) // 15: creation with a log
      sender.queueContract({ from: carol, address: token, abi: testTokenAbi, functionName: "transfer", args: [bob.address, 1n], gas: 100_000n }) // 16
      sender.queueContract({ from: carol, address: token, abi: testTokenAbi, functionName: "burn", args: [1n], gas: 100_000n }) // 17
      sender.queue({ from: carol, to: token, data: "0xdeadbeef", gas: 100_000n }) // 18: undecoded revert
      sender.queueContract({ from: account(chain, 3), address: token, abi: testTokenAbi, functionName: "transfer", args: [carol.address, 5n], gas: 100_000n }) // 19: logs
      result = await sender.flush(T0 + 2n)
      // 7 transactions without logs or creating a contract, out of 20: traced one by one, no trace_block.
      expect(traceTransaction.count()).toBe(7)
      expect(traceBlock.count()).toBe(0)
    } finally {
      traceTransaction.restore()
      traceBlock.restore()
    }
    const outcomes = result.outcomes
    expect(outcomes.map((outcome) => outcome.status)).toEqual([
      ...Array(12).fill("success"),
      "success",
      "success",
      "success",
      "success",
      "reverted",
      "reverted",
      "reverted",
      "success",
    ])
    expect(outcomes.map((outcome) => (outcome.status === "success" ? outcome.logs.length : -1))).toEqual([
      ...Array(12).fill(1),
      0,
      0,
      0,
      1,
      -1,
      -1,
      -1,
      1,
    ])
    expect(outcomes.map((outcome) => ("transactionIndex" in outcome ? outcome.transactionIndex : -1))).toEqual([...Array(20).keys()])
    const [plainDeploy, loggingDeploy] = [outcomes[14], outcomes[15]]
    expect(plainDeploy?.status === "success" && plainDeploy.contractAddress).toBe(
      getContractAddress({ from: bob.address, nonce: BigInt(plainDeploy?.nonce ?? -1) }).toLowerCase(),
    )
    expect(loggingDeploy?.status === "success" && loggingDeploy.contractAddress).toBe(
      getContractAddress({ from: bob.address, nonce: BigInt(loggingDeploy?.nonce ?? -1) }).toLowerCase(),
    )
    for (const k of [...Array(14).keys(), 19]) {
      const outcome = outcomes[k]
      expect(outcome?.status === "success" && outcome.contractAddress).toBeUndefined()
    }
    expect(outcomes[16]?.status === "reverted" && outcomes[16].revert).toMatchObject({
      kind: "decoded",
      errorName: "InsufficientBalance",
      args: [carol.address, 0n, 1n],
      message: `InsufficientBalance(${carol.address}, 0, 1)`,
    })
    expect(outcomes[17]?.status === "reverted" && outcomes[17].revert).toMatchObject({
      kind: "decoded",
      errorName: "Error",
      args: ["burn exceeds balance"],
      message: "Error(burn exceeds balance)",
    })
    expect(outcomes[18]?.status === "reverted" && outcomes[18].revert).toEqual({ kind: "undecoded", data: "0x", message: "Reverted" })
    const [transferEvent] = parseEventLogs({ abi: testTokenAbi, logs: outcomes[19]?.status === "success" ? [...outcomes[19].logs] : [] })
    expect(transferEvent?.args).toEqual({ from: account(chain, 3).address, to: carol.address, value: 5n })

    // Differential: the same statuses, revert data and created addresses as the block's full trace.
    const traces = await topLevelTraces(chain, result.block.number)
    for (const outcome of outcomes) {
      const trace = traces.get(outcome.hash)
      expect(trace).toBeDefined()
      if (outcome.status === "reverted") {
        expect(trace?.error).toBeTruthy()
        expect(outcome.revert.data).toBe(trace?.result?.output ?? "0x")
      } else {
        expect(outcome.status).toBe("success")
        expect(trace?.error ?? undefined).toBeUndefined()
        const created = trace?.type === "create" ? trace.result?.address : undefined
        expect(outcome.status === "success" && outcome.contractAddress?.toLowerCase()).toBe(created)
      }
    }
  })

  test("a block where every transaction logged reads no trace at all", async () => {
    const chain = chains.chain(CHAIN_ID)
    const sender = createSender(chain)
    const token = await deployToken(sender, chain, T0 + 1n)
    const traceTransaction = countMethod(chain, "trace_transaction")
    const traceBlock = countMethod(chain, "trace_block")
    try {
      for (let i = 0; i < 60; i++) {
        const minter = account(chain, i % 20)
        sender.queueContract({ from: minter, address: token, abi: testTokenAbi, functionName: "mint", args: [minter.address, 1n], gas: 100_000n })
      }
      const successes = requireSuccess(await sender.flush(T0 + 2n))
      expect(successes.map((outcome) => outcome.logs.length)).toEqual(Array(60).fill(1))
      expect(traceTransaction.count()).toBe(0)
      expect(traceBlock.count()).toBe(0)
    } finally {
      traceTransaction.restore()
      traceBlock.restore()
    }
  })

  test("when most transactions did not log, one trace_block replaces the per-transaction traces", async () => {
    const chain = chains.chain(CHAIN_ID)
    const sender = createSender(chain, { errorAbi: testTokenAbi })
    const token = await deployToken(sender, chain, T0 + 1n)
    const traceTransaction = countMethod(chain, "trace_transaction")
    const traceBlock = countMethod(chain, "trace_block")
    let result
    try {
      for (let i = 0; i < 10; i++) sender.queue({ from: account(chain, i), to: recipient(i), value: 1n, gas: 21_000n })
      sender.queueContract({ from: account(chain, 10), address: token, abi: testTokenAbi, functionName: "mint", args: [recipient(0), 1n], gas: 100_000n })
      sender.queueContract({ from: account(chain, 11), address: token, abi: testTokenAbi, functionName: "burn", args: [1n], gas: 100_000n })
      result = await sender.flush(T0 + 2n)
      expect(traceBlock.count()).toBe(1)
      expect(traceTransaction.count()).toBe(0)
    } finally {
      traceTransaction.restore()
      traceBlock.restore()
    }
    expect(result.outcomes.map((outcome) => outcome.status)).toEqual([...Array(11).fill("success"), "reverted"])
    expect(result.outcomes.map((outcome) => (outcome.status === "success" ? outcome.logs.length : -1))).toEqual([
      ...Array(10).fill(0),
      1,
      -1,
    ])
    expect(result.outcomes[11]?.status === "reverted" && result.outcomes[11].revert.message).toBe("Error(burn exceeds balance)")
  })
})
