/**
 * No orphan anvil, whatever happens: stop() (idempotent), a throwing body, a failed start, and a child process
 * that starts a pool and exits, throws, rejects, or is killed by SIGTERM, SIGINT or even SIGKILL.
 */
import { type ChildProcess, spawn } from "node:child_process"
import { once } from "node:events"
import { createInterface } from "node:readline"
import { join } from "node:path"
import { describe, expect, test } from "vitest"
import { ChainStartError } from "./errors.ts"
import { ChainPool, withChainPool } from "./pool.ts"
import { trackedPids } from "./reaper.ts"
import { isRunning, waitUntilGone } from "./testdata/processes.ts"
import { TEST_GENESIS_TIMESTAMP } from "./testing.ts"

const CHILD = join(import.meta.dirname, "testdata", "orphanChild.ts")
const REPO_ROOT = join(import.meta.dirname, "..", "..")

interface ChildRun {
  readonly child: ChildProcess
  readonly pids: readonly number[]
  readonly exited: Promise<{ readonly code: number | null; readonly signal: NodeJS.Signals | null }>
}

/** Starts the child script and resolves once it printed its anvil pids. */
const startChild = async (mode: string, parentDeathSignal: boolean): Promise<ChildRun> => {
  // Without VITEST_* the child takes a pid-derived port slot, away from this worker's.
  const env = {
    ...Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith("VITEST"))),
    ORPHAN_CHILD_PDEATHSIG: parentDeathSignal ? "1" : "0",
  }
  const child = spawn(process.execPath, ["--import", "tsx", CHILD, mode], {
    cwd: REPO_ROOT,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  })
  const exited = once(child, "exit").then(([code, signal]) => ({
    code: code as number | null,
    signal: signal as NodeJS.Signals | null,
  }))
  let stderr = ""
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const lines = createInterface({ input: child.stdout ?? process.stdin })
  const first = await Promise.race([
    once(lines, "line").then(([line]) => String(line)),
    exited.then(({ code, signal }) => {
      throw new Error(`child exited (${code ?? signal}) before printing pids: ${stderr}`)
    }),
  ])
  const parsed: unknown = JSON.parse(first)
  const pids = (parsed as { pids: number[] }).pids
  expect(pids).toHaveLength(2)
  return { child, pids, exited }
}

/** Runs `body` with a child, and SIGKILLs the child afterwards if it is still there (a failed test). */
const withChild = async (
  mode: string,
  body: (run: ChildRun) => Promise<void>,
  parentDeathSignal = true,
): Promise<void> => {
  const run = await startChild(mode, parentDeathSignal)
  try {
    await body(run)
  } finally {
    if (run.child.exitCode === null && run.child.signalCode === null) run.child.kill("SIGKILL")
  }
}

describe("in-process stop", () => {
  test("stop() stops every anvil and is idempotent", async () => {
    const pool = await ChainPool.start({ chainIds: [61, 62, 63], genesisTimestamp: TEST_GENESIS_TIMESTAMP })
    const pids = pool.chains.map((chain) => chain.pid)
    expect(pids.every(isRunning)).toBe(true)
    await Promise.all([pool.stop(), pool.stop()])
    await pool.stop()
    expect(await waitUntilGone(pids)).toEqual([])
    expect(trackedPids()).toEqual([])
  })

  test("a body that throws still stops the pool", async () => {
    let pids: readonly number[] = []
    await expect(
      withChainPool({ chainIds: [64], genesisTimestamp: TEST_GENESIS_TIMESTAMP }, async (pool) => {
        pids = pool.chains.map((chain) => chain.pid)
        throw new Error("scenario failed")
      }),
    ).rejects.toThrow("scenario failed")
    expect(pids).toHaveLength(1)
    expect(await waitUntilGone(pids)).toEqual([])
  })

  test("a failed start leaves no process and names the chain", async () => {
    const error = await ChainPool.start({
      chainIds: [65],
      genesisTimestamp: TEST_GENESIS_TIMESTAMP,
      binary: process.execPath, // not anvil: it exits on the unknown flags
      killOnParentDeath: false,
    }).catch((cause: unknown) => cause)
    expect(error).toBeInstanceOf(ChainStartError)
    expect((error as ChainStartError).chainId).toBe(65)
    expect(trackedPids()).toEqual([])
  })
})

describe("child process that never calls stop()", () => {
  // Without the parent-death signal only the in-process layers (exit and signal handlers) act.
  describe.each([
    ["with", true],
    ["without", false],
  ] as const)("%s the parent-death signal", (_, parentDeathSignal) => {
    test.each([
      ["exit", 0],
      ["throw", 1],
      ["reject", 1],
    ] as const)("%s: anvils die with it", async (mode, exitCode) => {
      await withChild(
        mode,
        async (run) => {
          const { code } = await run.exited
          expect(code).toBe(exitCode)
          expect(await waitUntilGone(run.pids)).toEqual([])
        },
        parentDeathSignal,
      )
    })

    test.each(["SIGTERM", "SIGINT"] as const)("%s: anvils are killed and the signal still ends the child", async (signal) => {
      await withChild(
        "wait",
        async (run) => {
          expect(run.pids.every(isRunning)).toBe(true)
          run.child.kill(signal)
          const exit = await run.exited
          expect(exit.signal).toBe(signal)
          expect(await waitUntilGone(run.pids)).toEqual([])
        },
        parentDeathSignal,
      )
    }, 20_000)
  })

  test.runIf(process.platform === "linux")("SIGKILL: the kernel kills anvil (parent-death signal)", async () => {
    await withChild("wait", async (run) => {
      expect(run.pids.every(isRunning)).toBe(true)
      run.child.kill("SIGKILL")
      const exit = await run.exited
      expect(exit.signal).toBe("SIGKILL")
      expect(await waitUntilGone(run.pids)).toEqual([])
    })
  }, 20_000)
})
