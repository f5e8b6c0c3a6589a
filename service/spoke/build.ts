/**
 * Compiles `service/spoke/contracts/*.sol` with the pinned solcjs (standard JSON, fixed settings) and caches the
 * output in `.cache/contracts/<sha256>.json`, keyed by the sources, the settings and the solc version, so a second
 * load only reads one file.
 *
 * CLI: `npx tsx service/spoke/build.ts [--force] [--abi]`
 *   --force  compile even when the cache has the output
 *   --abi    rewrite `service/spoke/abi.ts` from the compiled ABIs
 */
import { createHash } from "node:crypto"
import { mkdir, readdir, readFile, rename, writeFile } from "node:fs/promises"
import { createRequire } from "node:module"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import type { Abi } from "viem"
import type { Hex } from "../domain/hex.ts"

const here = dirname(fileURLToPath(import.meta.url))
export const CONTRACTS_DIR = join(here, "contracts")
export const REPO_ROOT = resolve(here, "../..")
export const CACHE_DIR = join(REPO_ROOT, ".cache", "contracts")
export const ABI_MODULE_PATH = join(here, "abi.ts")

/** The deployable contracts, in the order `abi.ts` lists them. */
export const CONTRACT_NAMES = [
  "ClearingSpoke",
  "SpokeGateway",
  "FeeAdapter",
  "XERC20Module",
  "XERC20Token",
  "TestERC20",
  "BlacklistERC20",
  "TestCallTarget",
  "Permit2",
] as const
export type ContractName = (typeof CONTRACT_NAMES)[number]

export interface ContractArtifact {
  readonly contractName: ContractName
  /** Source unit, e.g. `ClearingSpoke.sol`. */
  readonly sourceName: string
  readonly abi: Abi
  /** Creation bytecode. */
  readonly bytecode: Hex
  readonly deployedBytecode: Hex
}
export type Artifacts = { readonly [K in ContractName]: ContractArtifact }

/** Fixed compiler settings (part of the cache key). */
export const COMPILER_SETTINGS = {
  optimizer: { enabled: true, runs: 200 },
  evmVersion: "cancun",
  viaIR: false,
  outputSelection: { "*": { "*": ["abi", "evm.bytecode.object", "evm.deployedBytecode.object"] } },
} as const

export interface CompileResult {
  readonly artifacts: Artifacts
  readonly cacheFile: string
  readonly fromCache: boolean
  /** solc's formatted warnings (empty when read from the cache of a warning-free build). */
  readonly warnings: readonly string[]
}

export interface CompileOptions {
  /** Compile even when the cache holds the output. Default false. */
  readonly force?: boolean
}

/** Thrown when solc reports errors; the message holds solc's formatted messages. */
export class SolidityCompileError extends Error {
  override readonly name = "SolidityCompileError"
  readonly formattedErrors: readonly string[]
  constructor(formattedErrors: readonly string[]) {
    super(`solc failed to compile service/spoke/contracts:\n\n${formattedErrors.join("\n")}`)
    this.formattedErrors = formattedErrors
  }
}

export type Sources = Record<string, { readonly content: string }>

export interface CacheFile {
  readonly solcVersion: string
  readonly contracts: Record<string, Omit<ContractArtifact, "contractName">>
  readonly warnings: readonly string[]
}

interface SolcOutput {
  errors?: { severity: "error" | "warning" | "info"; formattedMessage: string }[]
  contracts?: Record<
    string,
    Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>
  >
}

/** The pinned solcjs version, read from its package.json (loading solc itself takes a few hundred ms). */
export const solcVersion = (): string => {
  const require = createRequire(import.meta.url)
  return (require("solc/package.json") as { version: string }).version
}

/** Every `.sol` file of `contracts/`, keyed by file name (the source unit names the imports use). */
export const readSources = async (): Promise<Sources> => {
  const names = (await readdir(CONTRACTS_DIR)).filter((name) => name.endsWith(".sol")).sort()
  const sources: Sources = {}
  for (const name of names) sources[name] = { content: await readFile(join(CONTRACTS_DIR, name), "utf8") }
  return sources
}

/** sha256 over the sources, the settings and the solc version. */
export const cacheKey = (sources: Sources, version: string): string =>
  createHash("sha256").update(JSON.stringify({ version, settings: COMPILER_SETTINGS, sources })).digest("hex")

const toArtifacts = (contracts: CacheFile["contracts"], cacheFile: string): Artifacts => {
  const artifacts: Partial<Record<ContractName, ContractArtifact>> = {}
  for (const contractName of CONTRACT_NAMES) {
    const artifact = contracts[contractName]
    if (artifact === undefined) throw new Error(`contract ${contractName} is missing from ${cacheFile}`)
    artifacts[contractName] = { contractName, ...artifact }
  }
  return artifacts as Artifacts
}

/** Compiles the given sources with the fixed settings (no cache); throws `SolidityCompileError` on errors. */
export const compileSources = async (
  sources: Sources,
): Promise<{ readonly contracts: CacheFile["contracts"]; readonly warnings: readonly string[] }> => {
  const { default: solc } = await import("solc")
  const input = { language: "Solidity", sources, settings: COMPILER_SETTINGS }
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as SolcOutput
  const problems = output.errors ?? []
  const errors = problems.filter((p) => p.severity === "error").map((p) => p.formattedMessage)
  if (errors.length > 0) throw new SolidityCompileError(errors)
  const warnings = problems.filter((p) => p.severity !== "error").map((p) => p.formattedMessage)
  const contracts: CacheFile["contracts"] = {}
  for (const [sourceName, units] of Object.entries(output.contracts ?? {})) {
    for (const [name, unit] of Object.entries(units)) {
      if (unit.evm.bytecode.object.length === 0) continue // interfaces and abstract contracts
      if (contracts[name] !== undefined) throw new Error(`contract name ${name} is defined twice`)
      contracts[name] = {
        sourceName,
        abi: unit.abi,
        bytecode: `0x${unit.evm.bytecode.object}`,
        deployedBytecode: `0x${unit.evm.deployedBytecode.object}`,
      }
    }
  }
  return { contracts, warnings }
}

/** Compiles the contracts, or reads them from the cache when the sources, settings and solc version are unchanged. */
export const compileContracts = async (options: CompileOptions = {}): Promise<CompileResult> => {
  const sources = await readSources()
  const version = solcVersion()
  const cacheFile = join(CACHE_DIR, `${cacheKey(sources, version)}.json`)
  if (options.force !== true) {
    const cached = await readFile(cacheFile, "utf8").then(
      (text) => JSON.parse(text) as CacheFile,
      () => undefined,
    )
    if (cached !== undefined) {
      return { artifacts: toArtifacts(cached.contracts, cacheFile), cacheFile, fromCache: true, warnings: cached.warnings }
    }
  }
  const { contracts, warnings } = await compileSources(sources)
  const artifacts = toArtifacts(contracts, cacheFile)
  const file: CacheFile = { solcVersion: version, contracts, warnings }
  await mkdir(CACHE_DIR, { recursive: true })
  // Write then rename, so that test workers compiling at the same time never read a half-written file.
  const temporary = `${cacheFile}.${process.pid}.tmp`
  await writeFile(temporary, JSON.stringify(file))
  await rename(temporary, cacheFile)
  return { artifacts, cacheFile, fromCache: false, warnings }
}

let loaded: Promise<Artifacts> | undefined

/** The compiled contracts (compiled once per process, and at most once per source change thanks to the cache). */
export const loadArtifacts = (): Promise<Artifacts> => {
  loaded ??= compileContracts().then(
    (result) => result.artifacts,
    (error: unknown) => {
      loaded = undefined
      throw error
    },
  )
  return loaded
}

/** The text of `abi.ts`: every ABI `as const` (one item per line), plus the union of all custom errors. */
export const renderAbiModule = (artifacts: Artifacts): string => {
  const lines = [
    "/**",
    " * Contract ABIs `as const`, for viem's type inference. GENERATED by `npx tsx service/spoke/build.ts --abi` from",
    " * service/spoke/contracts; `abi.test.ts` checks that it matches the compiled contracts. Do not edit by hand.",
    " */",
    "",
  ]
  const errors = new Map<string, string>()
  for (const name of CONTRACT_NAMES) {
    lines.push(`export const ${name}Abi = [`)
    for (const item of artifacts[name].abi) {
      const text = JSON.stringify(item)
      lines.push(`  ${text},`)
      if (item.type === "error") {
        const signature = `${item.name}(${item.inputs.map((input) => input.type).join(",")})`
        if (!errors.has(signature)) errors.set(signature, text)
      }
    }
    lines.push("] as const", "")
  }
  lines.push(
    "/** Every custom error of every contract, so that a revert bubbling up from another contract decodes too. */",
    "export const ClearsimErrorsAbi = [",
  )
  for (const signature of [...errors.keys()].sort()) lines.push(`  ${errors.get(signature)},`)
  lines.push("] as const", "")
  return lines.join("\n")
}

const main = async (): Promise<void> => {
  const args = new Set(process.argv.slice(2))
  const started = process.hrtime.bigint()
  const result = await compileContracts({ force: args.has("--force") })
  const elapsedMs = Number((process.hrtime.bigint() - started) / 1_000_000n)
  for (const warning of result.warnings) process.stderr.write(`${warning}\n`)
  process.stdout.write(`${result.fromCache ? "cache hit" : `compiled with solc ${solcVersion()}`} in ${elapsedMs} ms: ${result.cacheFile}\n`)
  for (const name of CONTRACT_NAMES) {
    const size = (result.artifacts[name].deployedBytecode.length - 2) / 2
    process.stdout.write(`  ${name.padEnd(16)} ${String(size).padStart(6)} bytes deployed${size > 24_576 ? "  (over the EIP-170 limit)" : ""}\n`)
  }
  if (args.has("--abi")) {
    await writeFile(ABI_MODULE_PATH, renderAbiModule(result.artifacts))
    process.stdout.write(`wrote ${ABI_MODULE_PATH}\n`)
  }
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`)
    process.exitCode = 1
  })
}
