/**
 * `npm run loadtest [-- options] [-- k6 arguments]`: runs a k6 script of this folder against a running clearsim
 * API with `k6` from PATH, and exits with k6's exit code (99 when a threshold failed); the signals it receives are
 * passed on to k6 once each. When k6 is missing it
 * says how to install it; when nothing answers at the base URL it says to start `npm run up` first.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { accessSync, constants, statSync } from "node:fs"
import { constants as os } from "node:os"
import { delimiter, join } from "node:path"
import { parseArgs } from "node:util"
import { SCRIPTS, type Script } from "./lib/flows.ts"
import { DEFAULT_BASE_URL, PROFILES, type Profile } from "./lib/profiles.ts"

const root = join(import.meta.dirname, "..")

export const USAGE = `Usage: npm run loadtest [-- options] [-- k6 arguments]

Runs a k6 script of loadtest/ against a running clearsim API (start it with \`npm run up\` in another terminal).

  --profile NAME     ${PROFILES.join(" | ")} (default smoke)
  --script NAME      ${SCRIPTS.join(" | ")} (default mixed)
  --base-url URL     the API (default $BASE_URL or ${DEFAULT_BASE_URL})
  --rate N           iterations per second (load, soak)
  --duration D       k6 duration such as 30s, 10m, 2h (load, soak; smoke's time limit)
  --vus N            VUs: smoke's VUs, the most the arrival rate may use (load, soak), stress's peak
  --iterations N     smoke's iterations
  --seed N           seed of the traffic (default 1)
  --think-time S     seconds a VU waits after each iteration (default: 0.1 under stress, else 0)
  --help, -h

Arguments after a second \`--\` go to k6 as they are, e.g.
  npm run loadtest -- --profile load -- --summary-export summary.json
`

export const INSTALL_HINT = `k6 was not found on PATH.

npm run loadtest runs the k6 scripts in loadtest/ with k6, Grafana's load-testing tool, which is a Go program
and not an npm package. Install k6 1.0 or later (it runs the TypeScript scripts natively) with one of:

  macOS (Homebrew)   brew install k6
  Debian / Ubuntu    sudo gpg -k
                     sudo gpg --no-default-keyring --keyring /usr/share/keyrings/k6-archive-keyring.gpg \\
                       --keyserver hkp://keyserver.ubuntu.com:80 --recv-keys C5AD17C747E3415A3642D57D77C6C491D6AC1D69
                     echo "deb [signed-by=/usr/share/keyrings/k6-archive-keyring.gpg] https://dl.k6.io/deb stable main" \\
                       | sudo tee /etc/apt/sources.list.d/k6.list
                     sudo apt-get update && sudo apt-get install k6
  Docker             docker run --rm --network host -v "$PWD":/work -w /work grafana/k6 run \\
                       -e BASE_URL=${DEFAULT_BASE_URL} loadtest/mixed.ts
  A release binary   https://github.com/grafana/k6/releases (unpack it and put k6 on PATH)
  Everything else    https://grafana.com/docs/k6/latest/set-up/install-k6/

Then, with the clearsim API running (\`npm run up\` in another terminal):
  npm run loadtest -- --profile smoke

Without k6, \`npm run bench -- mix\` runs the same flows with a Node load generator, against an API of its own
(or the running one: \`MIX_BENCH_URL=${DEFAULT_BASE_URL} npm run bench -- mix\`).
`

export interface LoadtestArgs {
  readonly profile: Profile
  readonly script: Script
  readonly baseUrl: string
  /** k6 `--env` variables besides BASE_URL and PROFILE. */
  readonly env: Readonly<Record<string, string>>
  readonly k6Args: readonly string[]
}

export class UsageError extends Error {}

const positiveInteger = (value: string): boolean => /^[0-9]+$/.test(value) && Number(value) > 0 && Number.isSafeInteger(Number(value))

/** The values the k6 scripts accept (`lib/profiles.ts`), checked before k6 is looked for. */
const OPTION_VALUES = {
  rate: { what: "a positive integer (iterations per second)", valid: positiveInteger },
  duration: { what: "a k6 duration such as 30s, 5m or 1h30m", valid: (v: string) => /^([0-9]+(ms|s|m|h))+$/.test(v) },
  vus: { what: "a positive integer (VUs)", valid: positiveInteger },
  iterations: { what: "a positive integer (iterations)", valid: positiveInteger },
  seed: { what: "a positive integer", valid: positiveInteger },
  "think-time": { what: "a non-negative number of seconds", valid: (v: string) => /^([0-9]+\.?[0-9]*|\.[0-9]+)$/.test(v) && Number.isFinite(Number(v)) },
} as const satisfies Record<string, { readonly what: string; readonly valid: (value: string) => boolean }>

export const parseLoadtestArgs = (argv: readonly string[], environment: Readonly<Record<string, string | undefined>>): LoadtestArgs | "help" => {
  const split = argv.indexOf("--")
  const own = split < 0 ? argv : argv.slice(0, split)
  const k6Args = split < 0 ? [] : argv.slice(split + 1)
  let parsed
  try {
    parsed = parseArgs({
      args: [...own],
      options: {
        profile: { type: "string" },
        script: { type: "string" },
        "base-url": { type: "string" },
        rate: { type: "string" },
        duration: { type: "string" },
        vus: { type: "string" },
        iterations: { type: "string" },
        seed: { type: "string" },
        "think-time": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
      allowPositionals: false,
    }).values
  } catch (error) {
    throw new UsageError((error as Error).message)
  }
  if (parsed.help === true) return "help"
  const profile = parsed.profile ?? "smoke"
  if (!(PROFILES as readonly string[]).includes(profile)) throw new UsageError(`--profile: expected one of ${PROFILES.join(", ")}, got "${profile}"`)
  const script = parsed.script ?? "mixed"
  if (!(SCRIPTS as readonly string[]).includes(script)) throw new UsageError(`--script: expected one of ${SCRIPTS.join(", ")}, got "${script}"`)
  const baseUrl = (parsed["base-url"] ?? environment["BASE_URL"] ?? DEFAULT_BASE_URL).replace(/\/+$/, "")
  if (!/^https?:\/\/[^/]+/.test(baseUrl)) throw new UsageError(`--base-url: expected an http(s) URL such as ${DEFAULT_BASE_URL}, got "${baseUrl}"`)
  const env: Record<string, string> = {}
  const names = { rate: "RATE", duration: "DURATION", vus: "VUS", iterations: "ITERATIONS", seed: "SEED", "think-time": "THINK_TIME" } as const
  for (const option of Object.keys(names) as (keyof typeof names)[]) {
    const value = parsed[option]
    if (value === undefined) continue
    const expected = OPTION_VALUES[option]
    if (!expected.valid(value)) throw new UsageError(`--${option}: expected ${expected.what}, got "${value}"`)
    env[names[option]] = value
  }
  return { profile: profile as Profile, script: script as Script, baseUrl, env, k6Args }
}

/** The k6 command line (after the executable) for `args`. */
export const k6CommandLine = (args: LoadtestArgs): string[] => [
  "run",
  "--env",
  `BASE_URL=${args.baseUrl}`,
  "--env",
  `PROFILE=${args.profile}`,
  ...Object.entries(args.env).flatMap(([name, value]) => ["--env", `${name}=${value}`]),
  ...args.k6Args,
  `loadtest/${args.script}.ts`,
]

/** The first executable `name` on `path` (PATHEXT-style suffixes on Windows). */
export const findOnPath = (name: string, path: string | undefined): string | undefined => {
  const suffixes = process.platform === "win32" ? [".exe", ".cmd", ""] : [""]
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue
    for (const suffix of suffixes) {
      const candidate = join(dir, name + suffix)
      try {
        if (!statSync(candidate).isFile()) continue
        accessSync(candidate, constants.X_OK)
        return candidate
      } catch {
        // not there, or not executable
      }
    }
  }
  return undefined
}

/** `k6 version` → [major, minor], or undefined when the output is not understood. */
export const k6Version = (k6: string): readonly [number, number] | undefined => {
  const result = spawnSync(k6, ["version"], { encoding: "utf8", timeout: 10_000 })
  const m = /k6 v?(\d+)\.(\d+)/.exec(`${result.stdout ?? ""}${result.stderr ?? ""}`)
  return m === null ? undefined : [Number(m[1]), Number(m[2])]
}

/** Whether a clearsim API answers `GET /health` at `baseUrl`: undefined when it does, else why not. */
export const preflight = async (baseUrl: string): Promise<string | undefined> => {
  try {
    const response = await fetch(`${baseUrl}/health`, { signal: AbortSignal.timeout(5_000) })
    const body = (await response.json().catch(() => undefined)) as { status?: unknown } | undefined
    return response.status === 200 && body?.status === "ok" ? undefined : `GET ${baseUrl}/health answered ${response.status} ${JSON.stringify(body ?? null)}`
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause
    return `nothing answers at ${baseUrl} (${cause?.code ?? (error as Error).message})`
  }
}

/**
 * The watchdog's script: it waits for the end of its standard input, a pipe from the runner that the kernel closes
 * when the runner ends, however it ends, then sends SIGTERM to k6's process group, `$1` (k6 stops as on a Ctrl-C:
 * gracefully, its summary printed). Nothing is ever written to the pipe.
 */
export const WATCHDOG_SCRIPT = 'read -r _ || :; kill -TERM -"$1" 2>/dev/null'
/** The watchdog's `$0`, which names it in process lists. */
export const WATCHDOG_NAME = "clearsim-k6-watchdog"

/**
 * Starts the watchdog of k6's process group `group` (k6's pid): a shell in a process group of its own (a terminal's
 * Ctrl-C is not for it) blocked on a read, so no CPU and a shell's memory while k6 runs. k6 runs in a group of its
 * own so that the runner can pass signals on; a runner killed outright passed nothing, and k6 ran on to its end,
 * its load going on with nobody to stop it. (Linux's parent-death signal would do it without a process, but Node
 * cannot set it for a child.) The runner kills the watchdog when k6 exits. Without a shell, no watchdog.
 */
const startWatchdog = (group: number): ChildProcess | undefined => {
  try {
    const watchdog = spawn("/bin/sh", ["-c", WATCHDOG_SCRIPT, WATCHDOG_NAME, String(group)], { stdio: ["pipe", "ignore", "ignore"], detached: true })
    watchdog.on("error", () => undefined) // no /bin/sh: no watchdog
    watchdog.stdin?.on("error", () => undefined) // its end gone (the watchdog killed): nothing to write anyway
    return watchdog
  } catch {
    return undefined
  }
}

const main = async (): Promise<number> => {
  let args: LoadtestArgs | "help"
  try {
    args = parseLoadtestArgs(process.argv.slice(2), process.env)
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    process.stderr.write(`${error.message}\n\n${USAGE}`)
    return 2
  }
  if (args === "help") {
    process.stdout.write(USAGE)
    return 0
  }
  const k6 = findOnPath("k6", process.env["PATH"])
  if (k6 === undefined) {
    process.stderr.write(INSTALL_HINT)
    return 1
  }
  const version = k6Version(k6)
  if (version !== undefined && version[0] < 1) {
    process.stderr.write(`${k6} is k6 v${version.join(".")}: the scripts are TypeScript, which k6 runs natively from 1.0 on. Upgrade k6 (https://grafana.com/docs/k6/latest/set-up/install-k6/).\n`)
    return 1
  }
  const down = await preflight(args.baseUrl)
  if (down !== undefined) {
    process.stderr.write(`The load test needs a running clearsim API, but ${down}.\nStart it with \`npm run up\` in another terminal, or give its address with --base-url URL.\n`)
    return 1
  }
  const commandLine = k6CommandLine(args)
  process.stderr.write(`${k6} ${commandLine.join(" ")}\n`)
  // k6 runs in a process group of its own (not on Windows, which has none), and each SIGINT, SIGTERM or SIGHUP this
  // runner receives is passed on to it once: a terminal's Ctrl-C (SIGINT to the foreground group, which k6 is not
  // in) reaches k6 once, so k6 stops gracefully and prints its summary (a second Ctrl-C, as k6 wants, stops it at
  // once), and so does a SIGINT sent to this runner alone (a supervisor's, `kill -INT`), which k6 did not get
  // before: it ran on to its end. k6 chooses the exit code.
  // On Windows k6 shares the console, whose Ctrl-C reaches it directly, and a "signal" sent to it terminates it at
  // once (no summary): there, a SIGINT is left to k6 alone.
  const ownGroup = process.platform !== "win32"
  const child = spawn(k6, commandLine, { cwd: root, stdio: "inherit", detached: ownGroup })
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => void (ownGroup || signal !== "SIGINT" ? child.kill(signal) : undefined))
  // A runner that ends before k6 (an uncaught error) does not leave it running in its own group.
  process.on("exit", () => {
    if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM")
  })
  // Nor does one killed outright (SIGKILL, the OOM killer), which runs no handler: a watchdog stops k6 then.
  const watchdog = ownGroup && child.pid !== undefined ? startWatchdog(child.pid) : undefined
  child.on("exit", () => watchdog?.kill("SIGKILL"))
  return new Promise<number>((resolve) => {
    child.on("error", (error) => {
      process.stderr.write(`could not run ${k6}: ${error.message}\n`)
      resolve(1)
    })
    child.on("exit", (code, signal) => resolve(code ?? 128 + (signal === null ? 0 : (os.signals[signal] ?? 0))))
  })
}

if (import.meta.main ?? process.argv[1] === import.meta.filename) {
  // Output piped into a reader that stops early (`| head`): stop quietly, as command-line tools do.
  process.stdout.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0)
    throw error
  })
  process.exitCode = await main()
}
