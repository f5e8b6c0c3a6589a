/**
 * `clearsim up` end to end, as a user sees it: the command runs as a child process on free ports with a scenario
 * of one-second blocks and crons; an external user creates an intent through `POST /intents`, signs the returned
 * transaction with a viem wallet and sends it to the chain's RPC URL; the devnet mines it, indexes it and the
 * keepers carry it in real time to its settlement on the destination. A hub transaction goes through `/hub/rpc`.
 * SIGINT then stops everything: exit 0, the session's files written, the hub transaction in the trace, no anvil left;
 * the trace ends with its end line, so that `clearsim hub replay` replays it to the session's hash without a note.
 * A second session, whose standard output's reader goes away, goes on serving and exits 141 at the stop. A third,
 * started in this process (`clearsim up` refuses a trace.jsonl that is not a file, see sim/cli/up.test.ts), has
 * its trace.jsonl linked to /dev/full: it says once that it cannot write its trace, goes on serving, and stops with
 * the failure in session.json.
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process"
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs"
import { createServer, type AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createPublicClient, createWalletClient, defineChain, erc20Abi, http, maxUint256 } from "viem"
import { privateKeyToAccount } from "viem/accounts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { HubAbi } from "../../service/api/hubAbi.ts"
import { encodeEndLine } from "../../service/hub/replay.ts"
import { loadScenario } from "../scenario/load.ts"
import { renderDevnetInfo, renderSession } from "../cli/up.ts"
import { type DevnetInfo, probeListen, startDevnet } from "./devnet.ts"
import { traceWriteError } from "./traceError.ts"

const root = new URL("../../", import.meta.url).pathname
const bin = join(root, "bin/clearsim.js")
const scenario = join(root, "sim/live/testdata/live-smoke.yaml")
const out = mkdtempSync(join(tmpdir(), "clearsim-up-"))

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const until = async <T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> => {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await probe().catch(() => undefined)
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await sleep(100)
  }
}
const getJson = async (url: string): Promise<{ status: number; body: unknown }> => {
  const r = await fetch(url)
  return { status: r.status, body: await r.json() }
}
const postJson = async (url: string, body: unknown): Promise<{ status: number; body: unknown }> => {
  const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) })
  return { status: r.status, body: await r.json() }
}
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}
const anvilPids = (): number[] => {
  try {
    return execFileSync("pgrep", ["-x", "anvil"], { encoding: "utf8" }).split("\n").filter(Boolean).map(Number)
  } catch {
    return [] // pgrep exits 1 when nothing matches
  }
}

/**
 * Starts `clearsim up` on the test scenario on free ports, writing into `outDir`; its stdout and stderr go to
 * `onOutput` as they come (stderr also to `stderr()`). `devnet()` waits for its devnet.json.
 */
const startUp = (outDir: string, onOutput: (text: string) => void) => {
  let output = ""
  let stderr = ""
  const child = spawn(process.execPath, [bin, "up", scenario, "--port", "0", "--accounts", "2", "--out", outDir], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
  const gather = (chunk: Buffer) => {
    output += chunk.toString()
    onOutput(chunk.toString())
  }
  child.stdout!.on("data", gather)
  child.stderr!.on("data", gather)
  child.stderr!.on("data", (chunk: Buffer) => void (stderr += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
  // `until` takes a failed probe for "not yet": an early exit is raced instead, to fail at once with the output.
  const devnet = () =>
    Promise.race([
      until("devnet.json", 25_000, async () => {
        const file = join(outDir, "devnet.json")
        return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as DevnetInfo) : undefined
      }),
      exited.then((code): never => {
        throw new Error(`clearsim up exited with ${code}:\n${output}`)
      }),
    ])
  return { child, exited, devnet, stderr: () => stderr }
}

let child: ChildProcess
let stdout = ""
let exited: Promise<number | null>
let info: DevnetInfo

beforeAll(async () => {
  const up = startUp(out, (text) => void (stdout += text))
  ;({ child, exited } = up)
  info = await up.devnet()
}, 40_000)

afterAll(async () => {
  if (child.exitCode === null) child.kill("SIGKILL")
  rmSync(out, { recursive: true, force: true })
})

describe("clearsim up", () => {
  it("prints where everything is: the API, each chain's RPC URL and contracts, the hub, the dev accounts", async () => {
    await until("the start-up text", 5000, async () => (stdout.includes("Create an intent") ? true : undefined))
    expect(stdout).toContain(`API          ${info.apiUrl}`)
    expect(stdout).toContain(`${info.apiUrl}/docs`)
    expect(stdout).toContain(`JSON-RPC ${info.hub.rpcUrl}`)
    for (const chain of info.chains) {
      expect(stdout).toContain(`RPC ${chain.rpcUrl}   chain id ${chain.chainId}`)
      expect(stdout).toContain(`fee adapter ${chain.contracts.feeAdapter}`)
      expect(stdout).toContain(chain.contracts.tokens.USDC!.address)
    }
    expect(stdout).toContain("PUBLIC TEST KEYS")
    for (const account of info.accounts) expect(stdout).toContain(`${account.address}   key ${account.privateKey}`)
    const health = await getJson(`${info.apiUrl}/health`)
    expect(health).toMatchObject({ status: 200, body: { status: "ok", hubDomain: info.hub.domain } })
  })

  it("carries an intent a user signs and sends to the chain from ADDED to SETTLED in real time, and takes hub transactions over /hub/rpc", async () => {
    const [origin, destination] = info.chains as [DevnetInfo["chains"][number], DevnetInfo["chains"][number]]
    const user = privateKeyToAccount(info.accounts[0]!.privateKey)
    const chainOf = (c: typeof origin) =>
      defineChain({ id: c.chainId, name: `chain ${c.chainId}`, nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [c.rpcUrl] } } })
    const wallet = createWalletClient({ chain: chainOf(origin), transport: http(), account: user })
    const originClient = createPublicClient({ chain: chainOf(origin), transport: http(), pollingInterval: 100 })
    const destinationClient = createPublicClient({ chain: chainOf(destination), transport: http(), pollingInterval: 100 })
    const usdc = origin.contracts.tokens.USDC!.address
    const usdcThere = destination.contracts.tokens.USDC!.address
    const balanceThere = () => destinationClient.readContract({ address: usdcThere, abi: erc20Abi, functionName: "balanceOf", args: [user.address] })
    const before = await balanceThere()

    // The fee adapter pulls the tokens: approve it once, like any ERC-20 spender.
    const approval = await wallet.writeContract({ address: usdc, abi: erc20Abi, functionName: "approve", args: [origin.contracts.feeAdapter, maxUint256] })
    expect((await originClient.waitForTransactionReceipt({ hash: approval })).status).toBe("success")

    const request = { origin: String(origin.chainId), destinations: [String(destination.chainId)], to: user.address, from: user.address, inputAsset: usdc, amount: "100000000" }
    // As a careful user: wait until the route can settle the amount now (the initial liquidity has reached the hub).
    await until("liquidity on the route", 15_000, async () => {
      const quote = await postJson(`${info.apiUrl}/routes/quotes`, request)
      return BigInt((quote.body as { currentLimit: string }).currentLimit) >= 100_000_000n ? true : undefined
    })
    const built = await postJson(`${info.apiUrl}/intents`, request)
    expect(built.status).toBe(200)
    const tx = built.body as { to: `0x${string}`; data: `0x${string}`; value: string; chainId: number }
    expect(tx.chainId).toBe(origin.chainId)
    const hash = await wallet.sendTransaction({ to: tx.to, data: tx.data, value: BigInt(tx.value) })

    // The devnet mines it at the chain's next tick and indexes it under its transaction hash.
    const intentId = await until("the intent indexed by its transaction", 10_000, async () => {
      const r = await getJson(`${info.apiUrl}/intents?txHash=${hash}`)
      return (r.body as { intents: { intent_id: string }[] }).intents[0]?.intent_id
    })
    const statuses: string[] = []
    await until("the settlement", 20_000, async () => {
      const r = await getJson(`${info.apiUrl}/intents/${intentId}`)
      const status = (r.body as { intent: { status: string } }).intent.status
      if (statuses.at(-1) !== status) statuses.push(status)
      return status === "SETTLED_AND_COMPLETED" ? true : undefined
    })
    // Created on the origin, dispatched to the hub, a deposit there (the scenario's open invoice) settled when its
    // epoch is processed, dispatched back, paid on the destination.
    const order = ["ADDED_SPOKE", "DISPATCHED_SPOKE", "ADDED", "INVOICED", "SETTLED", "DISPATCHED_HUB", "SETTLED_AND_COMPLETED"]
    expect(statuses[0]).toBe("ADDED_SPOKE")
    expect(statuses.at(-1)).toBe("SETTLED_AND_COMPLETED")
    expect(statuses.map((s) => order.indexOf(s))).toEqual(statuses.map((s) => order.indexOf(s)).filter((i) => i >= 0).sort((a, b) => a - b))
    const received = (await balanceThere()) - before
    expect(received > 99_000_000n && received < 100_000_000n).toBe(true) // the amount less the fees

    // A hub transaction from a viem wallet, through the API's JSON-RPC endpoint.
    const hubChain = defineChain({ id: info.hub.domain, name: "clearsim hub", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [info.hub.rpcUrl] } } })
    const hubWallet = createWalletClient({ chain: hubChain, transport: http(), account: user })
    const hubClient = createPublicClient({ chain: hubChain, transport: http(), pollingInterval: 100 })
    const hubTx = await hubWallet.writeContract({ address: info.hub.address, abi: HubAbi, functionName: "setUpdateVirtualBalance", args: [true] })
    expect((await hubClient.waitForTransactionReceipt({ hash: hubTx })).status).toBe("success")
    const word = `0x${user.address.slice(2).toLowerCase().padStart(64, "0")}` as const
    expect(await hubClient.readContract({ address: info.hub.address, abi: HubAbi, functionName: "updateVirtualBalance", args: [word] })).toBe(true)

    // The printed hub owner pauses and unpauses the hub; a user may not.
    expect(stdout).toContain(`owner (may pause/unpause): account ${info.hub.owner.index} ${info.hub.owner.address}`)
    const ownerWallet = createWalletClient({ chain: hubChain, transport: http(), account: privateKeyToAccount(info.hub.owner.privateKey) })
    const paused = () => hubClient.readContract({ address: info.hub.address, abi: HubAbi, functionName: "paused" })
    const byUser = await hubWallet.writeContract({ address: info.hub.address, abi: HubAbi, functionName: "pause" })
    expect((await hubClient.waitForTransactionReceipt({ hash: byUser })).status).toBe("reverted")
    const pause = await ownerWallet.writeContract({ address: info.hub.address, abi: HubAbi, functionName: "pause" })
    expect((await hubClient.waitForTransactionReceipt({ hash: pause })).status).toBe("success")
    expect(await paused()).toBe(true)
    const unpause = await ownerWallet.writeContract({ address: info.hub.address, abi: HubAbi, functionName: "unpause" })
    expect((await hubClient.waitForTransactionReceipt({ hash: unpause })).status).toBe("success")
    expect(await paused()).toBe(false)
  }, 45_000)

  it("stops cleanly on SIGINT: exit 0, trace and report written (the hub transaction recorded), no anvil left", async () => {
    const pids = info.chains.map((c) => c.pid)
    expect(pids.every(alive)).toBe(true)
    child.kill("SIGINT")
    expect(await exited).toBe(0)
    expect(stdout).toContain("clearsim up stopped after")
    for (const file of ["trace.jsonl", "report.json", "report.md", "report.html", "timeseries.csv", "session.json"]) expect(existsSync(join(out, file))).toBe(true)
    const trace = readFileSync(join(out, "trace.jsonl"), "utf8")
    const user = info.accounts[0]!.address.slice(2)
    expect(trace.split("\n").some((line) => line.includes('"setUpdateVirtualBalance"') && line.includes(user))).toBe(true)
    const session = JSON.parse(readFileSync(join(out, "session.json"), "utf8")) as { foreignTransactions: number; hubRpcTransactions: number; conservation: string; traceHash: string }
    expect(session.foreignTransactions).toBeGreaterThanOrEqual(2)
    expect(session.hubRpcTransactions).toBe(4) // setUpdateVirtualBalance, a refused pause, pause, unpause
    expect(session.conservation).toBe("ok")
    const report = JSON.parse(readFileSync(join(out, "report.json"), "utf8")) as { traceHash: string; intents: { created: number }; live?: { scenarioHorizonSeconds: number } }
    expect(report.traceHash).toBe(session.traceHash)
    // A live session's report is marked as such: its headline is no PASS/FAIL verdict.
    expect(report.live?.scenarioHorizonSeconds).toBeGreaterThan(0)
    expect(readFileSync(join(out, "report.md"), "utf8")).toMatch(/^# [^\n]*: live session of /)
    expect(pids.some(alive)).toBe(false)
    expect(anvilPids().filter((pid) => pids.includes(pid))).toEqual([])
  }, 20_000)

  it("ends the stopped session's trace with its end line: hub replay gives the session's trace hash, exit 0, no note", () => {
    const session = JSON.parse(readFileSync(join(out, "session.json"), "utf8")) as { traceHash: string; hubInputs: number }
    const lines = readFileSync(join(out, "trace.jsonl"), "utf8").trimEnd().split("\n")
    expect(lines.at(-1)).toBe(encodeEndLine(session.hubInputs))
    expect(lines).toHaveLength(session.hubInputs + 2) // the config line, the inputs, the end line
    const replay = spawnSync(process.execPath, [bin, "hub", "replay", join(out, "trace.jsonl")], { cwd: root, encoding: "utf8", timeout: 30_000 })
    expect(replay.status, replay.stderr).toBe(0)
    expect(replay.stderr).toBe("")
    expect(JSON.parse(replay.stdout.trimEnd().split("\n").at(-1)!)).toMatchObject({ kind: "summary", traceHash: session.traceHash })
  }, 40_000)

  it("goes on serving when its standard output's reader goes away (clearsim up | head -2), and exits 141 at the stop", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clearsim-up-pipe-"))
    let stdout = ""
    const up = startUp(dir, (text) => void (stdout += text))
    try {
      const devnet = await up.devnet()
      await until("the start-up text", 5000, async () => (stdout.includes("Create an intent") ? true : undefined))
      // The reader goes away: the devnet's next line to stdout (the hub transaction's below) fails with EPIPE.
      up.child.stdout!.destroy()
      const user = privateKeyToAccount(devnet.accounts[0]!.privateKey)
      const hubChain = defineChain({ id: devnet.hub.domain, name: "clearsim hub", nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 }, rpcUrls: { default: { http: [devnet.hub.rpcUrl] } } })
      const hubWallet = createWalletClient({ chain: hubChain, transport: http(), account: user })
      const hubClient = createPublicClient({ chain: hubChain, transport: http(), pollingInterval: 100 })
      const first = await hubWallet.writeContract({ address: devnet.hub.address, abi: HubAbi, functionName: "setUpdateVirtualBalance", args: [true] })
      expect((await hubClient.waitForTransactionReceipt({ hash: first })).status).toBe("success")
      // Still serving after its log line failed: another transaction goes through, the API answers.
      const second = await hubWallet.writeContract({ address: devnet.hub.address, abi: HubAbi, functionName: "setUpdateVirtualBalance", args: [false] })
      expect((await hubClient.waitForTransactionReceipt({ hash: second })).status).toBe("success")
      expect(await getJson(`${devnet.apiUrl}/health`)).toMatchObject({ status: 200, body: { status: "ok" } })
      expect(up.child.exitCode).toBe(null)
      const pids = devnet.chains.map((c) => c.pid)
      up.child.kill("SIGINT")
      expect(await up.exited).toBe(141)
      expect(up.stderr()).toBe("clearsim up: starting live-smoke: 2 anvil chains, their contracts and funded accounts...\n") // the EPIPE silently, as other commands
      // The stop completed: the session's files are written, its trace ends with its end line.
      const session = JSON.parse(readFileSync(join(dir, "session.json"), "utf8")) as { hubRpcTransactions: number; hubInputs: number }
      expect(session.hubRpcTransactions).toBe(2)
      expect(readFileSync(join(dir, "trace.jsonl"), "utf8").trimEnd().split("\n").at(-1)).toBe(encodeEndLine(session.hubInputs))
      expect(pids.some(alive)).toBe(false)
    } finally {
      if (up.child.exitCode === null) up.child.kill("SIGKILL")
      await up.exited
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it("goes on serving when trace.jsonl cannot be written (a full disk): told once, the failure in session.json and the summary; a report file that cannot be written at the stop is named, the others written", async () => {
    const full = mkdtempSync(join(tmpdir(), "clearsim-up-full-"))
    // The write stream follows the link: its first write fails with ENOSPC, as on a full disk.
    symlinkSync("/dev/full", join(full, "trace.jsonl"))
    // And so does report.html's at the stop: named in the session, the other files written all the same.
    symlinkSync("/dev/full", join(full, "report.html"))
    const lines: string[] = []
    const devnet = await startDevnet({ loaded: loadScenario(scenario), port: 0, host: "127.0.0.1", agents: true, userAccounts: 1, outDir: full, statusEverySeconds: 0, log: (line) => void lines.push(line) })
    let stopped = false
    try {
      const failure = "trace.jsonl cannot be written: no space left on device (ENOSPC); the session goes on without its trace"
      await until("the trace failure line", 10_000, async () => (lines.includes(failure) ? true : undefined))
      expect(await getJson(`${devnet.info.apiUrl}/health`)).toMatchObject({ status: 200, body: { status: "ok" } })
      const pids = devnet.info.chains.map((c) => c.pid)
      const session = await devnet.stop()
      stopped = true
      expect(lines.filter((line) => line.includes("trace.jsonl"))).toEqual([failure]) // told once
      // Nothing of the trace was written (its first write failed): it could not be written, it is not "incomplete".
      expect(session.traceError).toEqual({ code: "ENOSPC", reason: "no space left on device", bytesWritten: 0 })
      const summary = renderSession(session, full)
      expect(summary).toContain("trace.jsonl could not be written (no space left on device, ENOSPC): the session has no trace to replay")
      expect(summary).not.toContain("replay the hub:")
      const written = JSON.parse(readFileSync(join(full, "session.json"), "utf8")) as { traceError?: unknown; conservation: string; hubInputs: number }
      expect(written.traceError).toEqual(session.traceError)
      expect(written.conservation).toBe("ok")
      expect(written.hubInputs).toBeGreaterThan(0)
      const unwritten = [{ file: "report.html", code: "ENOSPC", reason: "no space left on device" }]
      expect(session.unwrittenFiles).toEqual(unwritten)
      expect((written as { unwrittenFiles?: unknown }).unwrittenFiles).toEqual(unwritten)
      expect(summary).toContain(`not written: report.html (no space left on device, ENOSPC) in ${full}`)
      expect(summary).not.toContain("report: ")
      for (const file of ["report.json", "report.md", "timeseries.csv"]) expect(existsSync(join(full, file)), file).toBe(true)
      expect(pids.some(alive)).toBe(false)
      expect(anvilPids().filter((pid) => pids.includes(pid))).toEqual([])
    } finally {
      if (!stopped) await devnet.stop().catch(() => undefined)
      rmSync(full, { recursive: true, force: true })
    }
  }, 60_000)

  it("funds many accounts many to a block: with 1,000 user accounts, every account holds its tokens on every chain a few blocks after the contracts", async () => {
    // Was: one funding mint per block (the layout `clearsim run` keeps for its memory twin): a head past block 1,000
    // on each chain, and minutes to start with --accounts 1000.
    const dir = mkdtempSync(join(tmpdir(), "clearsim-up-accounts-"))
    const devnet = await startDevnet({ loaded: loadScenario(scenario), port: 0, host: "127.0.0.1", agents: false, userAccounts: 1000, outDir: dir, statusEverySeconds: 0 })
    try {
      expect(devnet.info.accounts).toHaveLength(1000)
      const funded = BigInt(devnet.info.fundingTokens)
      for (const chain of devnet.info.chains) {
        const client = createPublicClient({ transport: http(chain.rpcUrl, { batch: { batchSize: 200 } }) })
        // The contracts take 5 blocks (one token), the 1,000 users', the keeper's and the agents' mints 2: the block
        // clock has added a few since.
        expect(await client.getBlockNumber(), `chain ${chain.chainId}`).toBeLessThan(30n)
        for (const [symbol, token] of Object.entries(chain.contracts.tokens)) {
          const balances = await Promise.all(devnet.info.accounts.map((account) => client.readContract({ address: token.address, abi: erc20Abi, functionName: "balanceOf", args: [account.address] })))
          const expected = funded * 10n ** BigInt(token.decimals)
          expect(balances.filter((balance) => balance !== expected), `${symbol} on chain ${chain.chainId}`).toEqual([])
        }
      }
    } finally {
      await devnet.stop().catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)

  it("gives URLs clients can use when the API listens on an IPv6 address (--host ::1): the address in brackets", async () => {
    // Without IPv6 on the loopback there is nothing to check.
    const ipv6 = await probeListen("::1", 0).then(
      () => true,
      () => false,
    )
    if (!ipv6) return
    const dir = mkdtempSync(join(tmpdir(), "clearsim-up-ipv6-"))
    const devnet = await startDevnet({ loaded: loadScenario(scenario), port: 0, host: "::1", agents: false, userAccounts: 1, outDir: dir, statusEverySeconds: 0 })
    try {
      expect(devnet.info.apiUrl).toMatch(/^http:\/\/\[::1\]:\d+$/)
      expect(devnet.info.docsUrl).toBe(`${devnet.info.apiUrl}/docs`)
      expect(await getJson(`${devnet.info.apiUrl}/health`)).toMatchObject({ status: 200, body: { status: "ok" } })
      const chainId = await postJson(devnet.info.hub.rpcUrl, { jsonrpc: "2.0", id: 1, method: "eth_chainId" })
      expect(chainId).toMatchObject({ status: 200, body: { result: `0x${devnet.info.hub.domain.toString(16)}` } })
      expect(JSON.parse(readFileSync(join(dir, "devnet.json"), "utf8")).apiUrl).toBe(devnet.info.apiUrl)
      expect(renderDevnetInfo(devnet.info)).toContain(`API          ${devnet.info.apiUrl}          docs ${devnet.info.apiUrl}/docs`)
    } finally {
      await devnet.stop()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it("says once that a chain's anvil exited (killed outright), naming the chain and its pid, and goes on serving without logging that chain's failures again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clearsim-up-anvil-"))
    const lines: string[] = []
    const devnet = await startDevnet({ loaded: loadScenario(scenario), port: 0, host: "127.0.0.1", agents: false, userAccounts: 1, outDir: dir, statusEverySeconds: 0, log: (line) => void lines.push(line) })
    let stopped = false
    try {
      const chain = devnet.info.chains[0]!
      process.kill(chain.pid, "SIGKILL")
      const said = `chain ${chain.chainId}: its anvil (pid ${chain.pid}) has exited (killed or crashed)`
      await until("the line saying the anvil exited", 10_000, async () => (lines.some((line) => line.startsWith(said)) ? true : undefined))
      await sleep(3000) // three more one-second blocks of the chain: each would fail again
      expect(lines.filter((line) => line.startsWith(said))).toHaveLength(1)
      // A request in flight as it died may fail first (a socket hang up) and be logged; none after the line.
      expect(lines.slice(lines.findIndex((line) => line.startsWith(said))).filter((line) => line.startsWith("error in"))).toEqual([])
      expect(await getJson(`${devnet.info.apiUrl}/health`)).toMatchObject({ status: 200, body: { status: "ok" } })
      const session = await devnet.stop()
      stopped = true
      expect(session.handlerErrors).toBeGreaterThan(1) // still counted
    } finally {
      if (!stopped) await devnet.stop().catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it("says at the stop that trace.jsonl was removed during the session (its directory deleted), instead of offering its replay", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clearsim-up-removed-"))
    const devnet = await startDevnet({ loaded: loadScenario(scenario), port: 0, host: "127.0.0.1", agents: false, userAccounts: 1, outDir: dir, statusEverySeconds: 0 })
    let stopped = false
    try {
      await until("the trace's first lines", 10_000, async () => (readFileSync(join(dir, "trace.jsonl"), "utf8").length > 0 ? true : undefined))
      rmSync(dir, { recursive: true, force: true })
      await sleep(1500) // the hub takes more inputs, written to the removed file
      const session = await devnet.stop()
      stopped = true
      // Was: no traceError, exit 0, and "replay the hub: npx clearsim hub replay <dir>/trace.jsonl", a file not there.
      expect(session.traceError).toMatchObject({ removed: true })
      const summary = renderSession(session, dir)
      expect(summary).toContain("trace.jsonl was removed or replaced during the session: the session has no trace to replay")
      expect(summary).not.toContain("replay the hub:")
      expect(existsSync(join(dir, "trace.jsonl"))).toBe(false)
      expect((JSON.parse(readFileSync(join(dir, "session.json"), "utf8")) as { traceError?: unknown }).traceError).toMatchObject({ removed: true })
    } finally {
      if (!stopped) await devnet.stop().catch(() => undefined)
      rmSync(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it("words a trace that cannot be opened by the system's words for its error, without the call and path of the message", async () => {
    const dir = mkdtempSync(join(tmpdir(), "clearsim-up-open-"))
    try {
      const stream = createWriteStream(dir) // a directory: the open fails with EISDIR
      const error = await new Promise<NodeJS.ErrnoException>((resolve) => stream.once("error", resolve))
      expect(error.message).toContain(`open '${dir}'`)
      expect(traceWriteError(error, 0)).toEqual({ code: "EISDIR", reason: "illegal operation on a directory", bytesWritten: 0 })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("refuses a bad flag with a one-line message and exit code 2, before starting anything", () => {
    let status: number | null = 0
    let stderr = ""
    try {
      execFileSync(process.execPath, [bin, "up", scenario, "--port", "70000"], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
    } catch (error) {
      status = (error as { status: number | null }).status
      stderr = String((error as { stderr: unknown }).stderr)
    }
    expect(status).toBe(2)
    expect(stderr.trim()).toBe('clearsim: --port: expected a TCP port between 0 and 65535 in decimal digits (0 picks a free one), got "70000"')
  }, 20_000)

  it("takes --host [::1] (an IPv6 address as URLs write it) for the address ::1, and names it so in its messages", async () => {
    const taken = createServer()
    const listening = await new Promise<boolean>((resolve) => {
      taken.once("error", () => resolve(false))
      taken.listen(0, "::1", () => resolve(true))
    })
    if (!listening) return // no IPv6 on the loopback: nothing to check
    const port = (taken.address() as AddressInfo).port
    const parent = mkdtempSync(join(tmpdir(), "clearsim-up-brackets-"))
    try {
      const result = spawnSync(process.execPath, [bin, "up", scenario, "--host", "[::1]", "--port", String(port), "--out", join(parent, "out")], { cwd: root, encoding: "utf8", timeout: 20_000 })
      expect(result.status, result.stderr).toBe(2)
      // Was: "--host/--port: cannot listen on [::1]:<port> (ENOTFOUND)": the brackets were taken for part of a host name.
      expect(result.stderr).toBe(`clearsim: --port: [::1]:${port} is already in use (another clearsim up?); pass another --port, or --port 0 for a free one\n`)
      expect(existsSync(join(parent, "out"))).toBe(false)
    } finally {
      taken.close()
      rmSync(parent, { recursive: true, force: true })
    }
  }, 20_000)

  it("refuses a host it cannot listen on, port 0 included, before writing anything", () => {
    const parent = mkdtempSync(join(tmpdir(), "clearsim-up-host-"))
    const out = join(parent, "out")
    let status: number | null = 0
    let stderr = ""
    try {
      execFileSync(process.execPath, [bin, "up", scenario, "--port", "0", "--host", "999.1.1.1", "--out", out], { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
    } catch (error) {
      status = (error as { status: number | null }).status
      stderr = String((error as { stderr: unknown }).stderr)
    }
    try {
      expect(status).toBe(2)
      expect(stderr.trim()).toMatch(/^clearsim: --host\/--port: cannot listen on 999\.1\.1\.1:0 \((ENOTFOUND|EAI_AGAIN)\)$/)
      expect(existsSync(out)).toBe(false)
    } finally {
      rmSync(parent, { recursive: true, force: true })
    }
  }, 20_000)
})
