/**
 * `ChainPool`: N local anvil chains started through prool, configured for deterministic runs:
 * automine off (`--no-mining`), FIFO ordering, fixed mnemonic, genesis timestamp from the caller's clock, a large
 * block gas limit, no default CREATE2 deployer (unless asked), and the dev accounts funded at genesis. Blocks are mined only by `chain.mine(timestamp)`.
 *
 * Same options + same transactions at the same timestamps => same block hashes, on any machine and any port.
 */
import { once } from "node:events"
import { createRequire } from "node:module"
import { createServer } from "node:net"
import { dirname, join } from "node:path"
import { existsSync } from "node:fs"
import { Instance } from "prool"
import { type DevAccount, deriveDevAccounts, TEST_MNEMONIC } from "./accounts.ts"
import { Chain, chainExitText } from "./chain.ts"
import {
  AnvilBinaryNotFoundError,
  ChainStartError,
  InvalidChainOptionError,
  UnexpectedChainStateError,
  UnknownChainError,
} from "./errors.ts"
import { isAddressInUse, PortAllocator, processPortAllocator } from "./ports.ts"
import { parentDeathWrapper, trackChild, untrackChild } from "./reaper.ts"
import { RpcClient } from "./rpc.ts"
import { AddressListJson, decodeResult } from "./rpcResults.ts"

export interface ChainPoolOptions {
  /** Chain ids, one anvil each, in this order in `pool.chains`. */
  readonly chainIds: readonly number[]
  /** Genesis block timestamp in seconds, from the caller's virtual clock (there is no wall-clock default). */
  readonly genesisTimestamp: bigint
  /** @default TEST_MNEMONIC ("test test ... junk") */
  readonly mnemonic?: string
  /** Dev accounts funded at genesis on every chain. @default 10 */
  readonly accounts?: number
  /** Genesis balance of each dev account, in ether. @default 10_000n */
  readonly balanceEth?: bigint
  /** Block gas limit (2,000 ERC-20 transfers use about 70M). @default 1_000_000_000n */
  readonly gasLimit?: bigint
  /** Genesis base fee in wei; later base fees follow EIP-1559 from block contents only. @default 1_000_000_000n */
  readonly baseFeePerGas?: bigint
  /** First port to try (then +1, ...). @default a per-vitest-worker or per-process slot in 20000-32767 */
  readonly basePort?: number
  /** Path of the anvil binary. @default ANVIL_BINARY, else the `@foundry-rs/anvil-<platform>` package's binary */
  readonly binary?: string
  /** Wall-clock limit for one anvil start or stop, in ms. @default 20_000 */
  readonly startTimeoutMs?: number
  /** Ports tried per chain before giving up (only "address in use" failures are retried). @default 16 */
  readonly maxStartAttempts?: number
  /** Linux: start anvil under `setpriv --pdeathsig KILL` so it dies even if this process is SIGKILLed. @default true */
  readonly killOnParentDeath?: boolean
  /**
   * Keep anvil's default CREATE2 deployer (0x4e59…956c). Off for simulation runs, whose memory twin has nothing at
   * that address (intent calldata calling it would deploy a contract on anvil only); on for the live devnet, where
   * users deploy their own contracts. @default false
   */
  readonly create2Deployer?: boolean
}

type AnvilInstance = ReturnType<typeof Instance.anvil>
type AnvilProcess = AnvilInstance["_internal"]["process"]

interface RunningInstance {
  readonly chainId: number
  readonly port: number
  readonly instance: AnvilInstance
  readonly child: AnvilProcess
}

const PLATFORM_PACKAGES: Partial<Record<string, string>> = {
  "linux-x64": "@foundry-rs/anvil-linux-amd64",
  "linux-arm64": "@foundry-rs/anvil-linux-arm64",
  "darwin-x64": "@foundry-rs/anvil-darwin-amd64",
  "darwin-arm64": "@foundry-rs/anvil-darwin-arm64",
  "win32-x64": "@foundry-rs/anvil-win32-amd64",
}

/** The real anvil binary (not the `.bin/anvil` Node wrapper, which would add a Node process per chain). */
export const resolveAnvilBinary = (explicit?: string): string => {
  const searched: string[] = []
  const candidates = [explicit, process.env["ANVIL_BINARY"]]
  const platformPackage = PLATFORM_PACKAGES[`${process.platform}-${process.arch}`]
  if (platformPackage !== undefined) {
    const require = createRequire(import.meta.url)
    for (const base of ["@foundry-rs/anvil/package.json", undefined]) {
      try {
        const from = base === undefined ? require : createRequire(require.resolve(base))
        const packageJson = from.resolve(`${platformPackage}/package.json`)
        candidates.push(join(dirname(packageJson), "bin", process.platform === "win32" ? "anvil.exe" : "anvil"))
      } catch {
        searched.push(`${platformPackage} (not installed)`)
      }
    }
  }
  for (const candidate of candidates) {
    if (candidate === undefined) continue
    if (existsSync(candidate)) return candidate
    searched.push(candidate)
  }
  throw new AnvilBinaryNotFoundError(searched)
}

const isSafePositiveInt = (value: number): boolean => Number.isSafeInteger(value) && value > 0

const validate = (options: ChainPoolOptions): void => {
  const { chainIds, genesisTimestamp } = options
  if (chainIds.length === 0) throw new InvalidChainOptionError("chainIds", "a non-empty list", "[]")
  for (const chainId of chainIds) {
    if (!isSafePositiveInt(chainId)) throw new InvalidChainOptionError("chainIds", "positive safe integers", chainId)
  }
  if (new Set(chainIds).size !== chainIds.length) {
    throw new InvalidChainOptionError("chainIds", "distinct chain ids", chainIds.join(", "))
  }
  if (genesisTimestamp < 0n || genesisTimestamp > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new InvalidChainOptionError("genesisTimestamp", "non-negative seconds (a safe integer)", genesisTimestamp)
  }
  if (options.accounts !== undefined && !isSafePositiveInt(options.accounts)) {
    throw new InvalidChainOptionError("accounts", "a positive integer", options.accounts)
  }
  if (options.gasLimit !== undefined && options.gasLimit < 21_000n) {
    throw new InvalidChainOptionError("gasLimit", "at least 21000", options.gasLimit)
  }
  if (options.balanceEth !== undefined && options.balanceEth < 0n) {
    throw new InvalidChainOptionError("balanceEth", "non-negative", options.balanceEth)
  }
  if (options.baseFeePerGas !== undefined && options.baseFeePerGas < 0n) {
    throw new InvalidChainOptionError("baseFeePerGas", "non-negative", options.baseFeePerGas)
  }
  if (options.maxStartAttempts !== undefined && !isSafePositiveInt(options.maxStartAttempts)) {
    throw new InvalidChainOptionError("maxStartAttempts", "a positive integer", options.maxStartAttempts)
  }
}

const waitForExit = (child: AnvilProcess): Promise<void> =>
  child.exitCode !== null || child.signalCode !== null
    ? Promise.resolve()
    : new Promise((resolve) => child.once("exit", () => resolve()))

export class ChainPool {
  private stopping: Promise<void> | undefined

  /** The chains, in `chainIds` order. */
  readonly chains: readonly Chain[]
  private readonly running: readonly RunningInstance[]
  private constructor(
    chains: readonly Chain[],
    running: readonly RunningInstance[],
  ) {
    this.chains = chains
    this.running = running
  }

  /**
   * Starts one anvil per chain id in parallel. If any chain fails to start, the ones already started are
   * stopped before the error (`ChainStartError`) is thrown.
   */
  static async start(options: ChainPoolOptions): Promise<ChainPool> {
    validate(options)
    const mnemonic = options.mnemonic ?? TEST_MNEMONIC
    const accountCount = options.accounts ?? 10
    const accounts = deriveDevAccounts(mnemonic, accountCount)
    const realBinary = resolveAnvilBinary(options.binary)
    const binary = options.killOnParentDeath === false ? realBinary : (parentDeathWrapper(realBinary) ?? realBinary)
    const ports = options.basePort === undefined ? processPortAllocator() : PortAllocator.fromBase(options.basePort)
    const settings: StartSettings = {
      binary,
      mnemonic,
      accounts: accountCount,
      balanceEth: options.balanceEth ?? 10_000n,
      genesisTimestamp: options.genesisTimestamp,
      gasLimit: options.gasLimit ?? 1_000_000_000n,
      baseFeePerGas: options.baseFeePerGas ?? 1_000_000_000n,
      timeoutMs: options.startTimeoutMs ?? 20_000,
      maxAttempts: options.maxStartAttempts ?? 16,
      ports,
      create2Deployer: options.create2Deployer ?? false,
    }
    const started = await Promise.allSettled(options.chainIds.map((chainId) => startInstance(chainId, settings)))
    const running = started.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []))
    const failure = started.find((result) => result.status === "rejected")
    const pool = new ChainPool(
      running.map((instance) => makeChain(instance, accounts)),
      running,
    )
    for (const [index, instance] of running.entries()) {
      const chain = pool.chains[index]
      // anvil exiting on its own (crash, external kill): later calls fail with ChainStoppedError.
      instance.instance.on("exit", (code, signal) => {
        chain?.markStopped("anvil exited", { code, signal })
        untrackChild(instance.child)
      })
    }
    if (failure !== undefined) {
      await pool.stop()
      throw failure.reason
    }
    try {
      await Promise.all(pool.chains.map((chain) => verifyChain(chain, accounts)))
    } catch (error) {
      // An anvil that exited between its start and the check (killed, crashed) did not start, as far as the caller knows.
      const [gone] = await pool.exitedOnTheirOwn(error)
      await pool.stop()
      if (gone !== undefined) throw new ChainStartError(gone.chainId, [gone.port], `its process (pid ${gone.pid}) ${chainExitText(gone.exit)} before it answered`)
      throw error
    }
    return pool
  }

  get chainIds(): readonly number[] {
    return this.chains.map((chain) => chain.chainId)
  }

  /** The chain with this id; `UnknownChainError` if the pool does not run it. */
  chain(chainId: number): Chain {
    const chain = this.chains.find((candidate) => candidate.chainId === chainId)
    if (chain === undefined) throw new UnknownChainError(chainId, this.chainIds)
    return chain
  }

  /**
   * The chains whose anvil exited on its own (killed, crashed), for telling why `error` happened; call it before
   * `stop()`, which stops the others. A killed anvil's connections close before its exit is seen, so a request
   * can fail (ECONNRESET) while its chain still looks alive: the chains `error` says could not be reached
   * (`unreachableChainIds`) are given up to `waitMs` to exit, the others none.
   */
  async exitedOnTheirOwn(error: unknown, waitMs = 2_000): Promise<readonly Chain[]> {
    const named = new Set(unreachableChainIds(error, this.chains))
    const waitExits = (which: (chain: Chain) => boolean, ms: number) =>
      Promise.all(
        this.running.map(async (instance, index) => {
          const chain = this.chains[index]
          if (chain === undefined || chain.isStopped || !which(chain)) return
          let timer: NodeJS.Timeout | undefined
          await Promise.race([waitForExit(instance.child), new Promise<void>((resolve) => (timer = setTimeout(resolve, ms)))])
          clearTimeout(timer)
        }),
      )
    const exited = () => {
      // An exit seen by the process but not yet by prool's listener (same tick) counts too.
      for (const [index, { child }] of this.running.entries()) {
        if (child.exitCode !== null || child.signalCode !== null) this.chains[index]?.markStopped("anvil exited", { code: child.exitCode, signal: child.signalCode })
      }
      return this.chains.filter((chain) => chain.stopReason === "anvil exited")
    }
    await waitExits((chain) => named.has(chain.chainId), waitMs)
    // Anvils killed together (`pkill anvil`) end within moments of each other: the others get a short grace too.
    if (exited().length > 0) await waitExits(() => true, OTHERS_EXIT_GRACE_MS)
    return exited()
  }

  /** Stops every anvil and waits for the processes to exit. Idempotent; safe to call from several places. */
  stop(): Promise<void> {
    this.stopping ??= Promise.all(this.running.map((instance, index) => stopInstance(instance, this.chains[index]))).then(
      () => undefined,
    )
    return this.stopping
  }
}

/**
 * The ids of the chains (of `chains`) that `error`, itself or through its causes, says could not be reached: an
 * `RpcTransportError` or `ChainStoppedError` of the chain, or another error (viem's) naming its RPC URL. A chain
 * that answered, however wrongly (an `RpcResponseError`), was reached.
 */
/** Whether `text` names `url` as a whole (`http://127.0.0.1:2240` is not in `http://127.0.0.1:22401`); no pattern is made of it. */
const mentionsUrl = (text: string, url: string): boolean => {
  for (let at = text.indexOf(url); at !== -1; at = text.indexOf(url, at + 1)) {
    const next = text.charCodeAt(at + url.length)
    if (!(next >= 48 && next <= 57)) return true
  }
  return false
}

export const unreachableChainIds = (error: unknown, chains: readonly Pick<Chain, "chainId" | "rpcUrl">[]): number[] => {
  const ids: number[] = []
  for (let e = error, depth = 0; typeof e === "object" && e !== null && depth < 8; e = (e as { readonly cause?: unknown }).cause, depth++) {
    const { _tag: tag, chainId, url, message } = e as { readonly _tag?: unknown; readonly chainId?: unknown; readonly url?: unknown; readonly message?: unknown }
    if (tag === "RpcResponseError") continue
    for (const chain of chains) {
      const byId = (tag === "RpcTransportError" || tag === "ChainStoppedError") && chainId === chain.chainId
      const byUrl = url === chain.rpcUrl || (typeof message === "string" && mentionsUrl(message, chain.rpcUrl))
      if ((byId || byUrl) && !ids.includes(chain.chainId)) ids.push(chain.chainId)
    }
  }
  return ids
}

/** Starts a pool, runs `body`, and stops the pool whatever happens (return, throw). */
export const withChainPool = async <T>(options: ChainPoolOptions, body: (pool: ChainPool) => Promise<T>): Promise<T> => {
  const pool = await ChainPool.start(options)
  try {
    return await body(pool)
  } finally {
    await pool.stop()
  }
}

interface StartSettings {
  readonly binary: string
  readonly mnemonic: string
  readonly accounts: number
  readonly balanceEth: bigint
  readonly genesisTimestamp: bigint
  readonly gasLimit: bigint
  readonly baseFeePerGas: bigint
  readonly timeoutMs: number
  readonly maxAttempts: number
  readonly ports: PortAllocator
  readonly create2Deployer: boolean
}

/** Can 127.0.0.1:port be bound right now? (Skips ports in use without spawning anvil; the race is retried.) */
const portIsFree = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer()
    server.once("error", () => resolve(false))
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)))
  })

const startInstance = async (chainId: number, settings: StartSettings): Promise<RunningInstance> => {
  const tried: number[] = []
  for (let attempt = 0; attempt < settings.maxAttempts; attempt++) {
    const port = settings.ports.next()
    tried.push(port)
    if (!(await portIsFree(port))) continue
    // Only true-valued flags: prool turns `false` into `--flag false`, which anvil rejects. No `silent`: prool
    // waits for anvil's "Listening on" line.
    const instance = Instance.anvil(
      {
        binary: settings.binary,
        host: "127.0.0.1",
        port,
        chainId,
        mnemonic: settings.mnemonic,
        accounts: settings.accounts,
        balance: settings.balanceEth,
        timestamp: settings.genesisTimestamp,
        gasLimit: settings.gasLimit,
        blockBaseFeePerGas: settings.baseFeePerGas,
        noMining: true,
        order: "fifo",
        // No CREATE2 factory at 0x4e59…956c unless asked (`create2Deployer`): `--no-create2`, which prool's types
        // do not list.
        ...(settings.create2Deployer ? {} : ({ noCreate2: true } as object)),
      },
      { timeout: settings.timeoutMs },
    )
    // prool rejects on the first stderr chunk and kills anvil, so the text may be just "Error"; keep what came.
    let stderr = ""
    instance.on("stderr", (message) => {
      stderr += message
    })
    const starting = instance.start()
    // prool spawns synchronously inside start(): track the child before anything can go wrong.
    const child = instance._internal.process
    trackChild(child)
    const stderrClosed = child.stderr === null ? Promise.resolve() : once(child.stderr, "close").then(() => undefined)
    try {
      await starting
      return { chainId, port, instance, child }
    } catch (error) {
      // A timed-out start leaves the process running; a failed one may still be exiting.
      const killedHere = child.exitCode === null && child.signalCode === null
      if (killedHere) child.kill("SIGKILL")
      await waitForExit(child)
      await stderrClosed.catch(() => undefined)
      untrackChild(child)
      // Lost the race for the port (someone bound it after our probe)? Then it is still taken: try the next one.
      const collided = isAddressInUse(error) || isAddressInUse(stderr) || !(await portIsFree(port))
      if (!collided) {
        // prool's message may quote anvil's stderr already (once, after blank lines): each line said once, no blank ones.
        const prool = error instanceof Error ? error.message : String(error)
        // prool's word for a process that ended before it was seen listening ('Failed to start process "anvil":
        // exited') says neither how nor that it was anvil's own doing: said as a start whose check it failed is.
        const exitedEarly = /^Failed to start process "[^"]*": exited\s*$/.test(prool) && !killedHere
        const said = exitedEarly ? `its process (pid ${child.pid}) ${chainExitText({ code: child.exitCode, signal: child.signalCode })} before it answered` : prool
        const lines = `${said}\n${stderr}`.split("\n").map((line) => line.trimEnd()).filter((line) => line.trim() !== "")
        throw new ChainStartError(chainId, tried, [...new Set(lines)].join("\n"))
      }
    }
  }
  throw new ChainStartError(chainId, tried, "every port tried was in use")
}

const makeChain = (running: RunningInstance, accounts: readonly DevAccount[]): Chain =>
  new Chain({
    chainId: running.chainId,
    port: running.port,
    pid: running.child.pid ?? -1,
    rpc: new RpcClient(running.chainId, `http://127.0.0.1:${running.port}`),
    accounts,
  })

/** Checks that the anvil on this port is ours: right chain id and the dev accounts the pool derived. */
const verifyChain = async (chain: Chain, accounts: readonly DevAccount[]): Promise<void> => {
  const [chainIdOutcome, accountsOutcome] = await chain.rpc.batch([
    { method: "eth_chainId", params: [] },
    { method: "eth_accounts", params: [] },
  ])
  if (!chainIdOutcome?.ok) throw chainIdOutcome?.error ?? new Error("eth_chainId: no answer")
  if (!accountsOutcome?.ok) throw accountsOutcome?.error ?? new Error("eth_accounts: no answer")
  const reportedChainId = typeof chainIdOutcome.result === "string" ? Number(chainIdOutcome.result) : Number.NaN
  if (reportedChainId !== chain.chainId) {
    throw new UnexpectedChainStateError(chain.chainId, "eth_chainId", String(chain.chainId), String(chainIdOutcome.result))
  }
  const nodeAccounts = decodeResult(AddressListJson, accountsOutcome.result, {
    chainId: chain.chainId,
    url: chain.rpcUrl,
    method: "eth_accounts",
  })
  const mismatch = accounts.findIndex((account, i) => nodeAccounts[i]?.toLowerCase() !== account.address.toLowerCase())
  if (nodeAccounts.length !== accounts.length || mismatch !== -1) {
    throw new UnexpectedChainStateError(
      chain.chainId,
      `dev account ${mismatch === -1 ? "count" : `#${mismatch}`} (eth_accounts vs the pool's derivation)`,
      mismatch === -1 ? String(accounts.length) : (accounts[mismatch]?.address ?? "?"),
      mismatch === -1 ? String(nodeAccounts.length) : (nodeAccounts[mismatch] ?? "none"),
    )
  }
}

/** How long `exitedOnTheirOwn` waits for the other anvils once one has exited on its own. */
const OTHERS_EXIT_GRACE_MS = 300

/** How long a stopped anvil gets to exit before it is killed. */
const STOP_GRACE_MS = 10_000

/**
 * Stops one anvil with SIGINT, its Ctrl-C, on which it exits at once (status 0), and waits for the exit. Not through
 * prool's `stop()`: its SIGTERM goes through execa's `kill`, which arms a 5-second SIGKILL timer that outlives the
 * process, so every command that ran chains stayed alive 5 s after its last line. A process still running after
 * `STOP_GRACE_MS` is killed (the timer is unref'd: it never holds the command open itself).
 */
const stopInstance = async (running: RunningInstance, chain: Chain | undefined): Promise<void> => {
  chain?.markStopped()
  const { child } = running
  if (child.exitCode === null && child.signalCode === null) {
    child.kill("SIGINT")
    const timer = setTimeout(() => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    }, STOP_GRACE_MS)
    timer.unref()
    await waitForExit(child)
    clearTimeout(timer)
  }
  untrackChild(child)
}
