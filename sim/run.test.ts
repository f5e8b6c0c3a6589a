/**
 * `runScenario`'s failures that are not clearsim's: a chain whose anvil exits mid-run (killed, crashed) stops the
 * run with a `ChainExited` that says which chain, how it ended and when, rather than the request that failed.
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import { RpcTransportError } from "./chains/errors.ts"
import { descendants, running } from "./cli/testing.ts"
import { ChainExited, runScenario } from "./run.ts"
import { TWO_USERS_USDC, twoChainUsdc } from "./scenario/testing.ts"

const alpha = { chainId: 31001, name: "alpha", rpcUrl: "http://127.0.0.1:20001", pid: 4242, how: "was killed by SIGKILL" }
const beta = { chainId: 31002, rpcUrl: "http://127.0.0.1:20002", pid: 4343, how: "exited with code 1" }

describe("ChainExited", () => {
  it("says which chain's anvil ended, how, and when: the virtual time and epoch, the start, or past the horizon", () => {
    const cause = new RpcTransportError(31001, alpha.rpcUrl, "eth_getLogs", "read ECONNRESET")
    const during = new ChainExited(11, [alpha], { atMs: 2_524_900, epoch: 500_005, firstEpoch: 500_000 }, 7_200_000, cause)
    expect(during.message).toBe("the run of seed 11 was stopped: the anvil of chain 31001 (alpha; pid 4242, RPC http://127.0.0.1:20001) was killed by SIGKILL at virtual time 2524 s of 7200 s, in epoch 500005 (the run's 6th)")
    expect([during.atMs, during.epoch, during.cause]).toEqual([2_524_900, 500_005, cause])
    expect(new ChainExited(11, [beta], undefined, 7_200_000, cause).message).toBe(
      "the run of seed 11 was stopped: the anvil of chain 31002 (pid 4343, RPC http://127.0.0.1:20002) exited with code 1 while the run was starting (deploying its contracts)",
    )
    expect(new ChainExited(11, [alpha, beta], { atMs: 7_200_000, epoch: 500_015, firstEpoch: 500_000 }, 7_200_000, cause).message).toBe(
      "the run of seed 11 was stopped: the anvil of chain 31001 (alpha; pid 4242, RPC http://127.0.0.1:20001) was killed by SIGKILL and the anvil of chain 31002 (pid 4343, RPC http://127.0.0.1:20002) exited with code 1 after the run reached its horizon (7200 s of virtual time), while it read the agents' balances",
    )
    expect(new ChainExited(11, [alpha, { ...beta, how: alpha.how }], { atMs: 60_000, epoch: 7, firstEpoch: 7 }, 7_200_000, cause).message).toBe(
      "the run of seed 11 was stopped: the anvils of chains 31001 (alpha; pid 4242, RPC http://127.0.0.1:20001) and 31002 (pid 4343, RPC http://127.0.0.1:20002) were killed by SIGKILL at virtual time 60 s of 7200 s, in epoch 7 (the run's 1st)",
    )
    const nth = (n: number) => /the run's (\w+)\)$/.exec(new ChainExited(11, [alpha], { atMs: 0, epoch: n - 1, firstEpoch: 0 }, 1000, cause).message)![1]
    expect([1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111].map(nth)).toEqual(["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "101st", "111th"])
  })

  it("stops a run on anvil whose chain is killed mid-run: the chain, the virtual time and epoch it was at; no anvil left", async () => {
    const loaded = twoChainUsdc("killed", "{ seconds: 1800 }", TWO_USERS_USDC)
    let anvils: number[] = []
    let killed: { readonly pid: number; readonly chainId: number; readonly atMs: number } | undefined
    const run = runScenario(loaded, {
      seed: 1,
      backend: "anvil",
      onProgress: (nowMs) => {
        if (killed !== undefined || nowMs < 10 * 60_000) return
        // This test's own anvils: a vitest worker runs one test file at a time.
        anvils = descendants(process.pid, "anvil")
        const pid = anvils.at(-1)!
        const chainId = Number(/--chain-id\0(\d+)/.exec(readFileSync(`/proc/${pid}/cmdline`, "latin1"))![1])
        killed = { pid, chainId, atMs: nowMs }
        process.kill(pid, "SIGKILL")
      },
    })
    try {
      const error = await run.then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(ChainExited)
      const exited = error as ChainExited
      expect(anvils).toHaveLength(2)
      expect(exited.chains.map((c) => [c.chainId, c.pid, c.how])).toEqual([[killed!.chainId, killed!.pid, "was killed by SIGKILL"]])
      expect(exited.chains[0]!.rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      // Stopped at the event after the kill, a virtual minute at most later.
      expect(exited.atMs).toBeGreaterThanOrEqual(killed!.atMs)
      expect(exited.atMs).toBeLessThan(killed!.atMs + 60_000)
      expect(exited.epoch).toBeGreaterThan(0)
      expect(exited.message).toMatch(new RegExp(`^the run of seed 1 was stopped: the anvil of chain ${killed!.chainId} \\(pid ${killed!.pid}, RPC http://127\\.0\\.0\\.1:\\d+\\) was killed by SIGKILL at virtual time \\d+ s of 1800 s, in epoch ${exited.epoch} \\(the run's \\d+\\w\\w\\)$`))
      expect(anvils.filter(running)).toEqual([])
    } finally {
      for (const pid of anvils.filter(running)) process.kill(pid, "SIGKILL")
    }
  }, 60_000)
})
