/**
 * The contract build: the committed `abi.ts` matches the compiled contracts, the cache, and loud compile errors.
 */
import { readFile } from "node:fs/promises"
import { describe, expect, it } from "vitest"
import * as committed from "./abi.ts"
import {
  ABI_MODULE_PATH,
  cacheKey,
  compileContracts,
  compileSources,
  CONTRACT_NAMES,
  loadArtifacts,
  readSources,
  renderAbiModule,
  SolidityCompileError,
  solcVersion,
} from "./build.ts"

describe("service/spoke/build.ts", () => {
  it("compiles every contract with creation and runtime bytecode", async () => {
    const artifacts = await loadArtifacts()
    for (const name of CONTRACT_NAMES) {
      expect(artifacts[name].contractName).toBe(name)
      expect(artifacts[name].bytecode).toMatch(/^0x[0-9a-f]{100,}$/)
      expect(artifacts[name].deployedBytecode).toMatch(/^0x[0-9a-f]{100,}$/)
      // EIP-170: anvil (like mainnet) refuses bigger runtime code.
      expect((artifacts[name].deployedBytecode.length - 2) / 2).toBeLessThanOrEqual(24_576)
    }
  })

  it("abi.ts is the rendering of the compiled ABIs (regenerate: npx tsx service/spoke/build.ts --abi)", async () => {
    const artifacts = await loadArtifacts()
    expect(await readFile(ABI_MODULE_PATH, "utf8")).toBe(renderAbiModule(artifacts))
    expect(committed.ClearingSpokeAbi).toEqual(artifacts.ClearingSpoke.abi)
    expect(committed.FeeAdapterAbi).toEqual(artifacts.FeeAdapter.abi)
  })

  it("reads the second build from the cache, keyed by sources, settings and solc version", async () => {
    await compileContracts()
    const second = await compileContracts()
    expect(second.fromCache).toBe(true)
    const sources = await readSources()
    const key = cacheKey(sources, solcVersion())
    expect(second.cacheFile.endsWith(`${key}.json`)).toBe(true)
    expect(cacheKey({ ...sources, "Extra.sol": { content: "" } }, solcVersion())).not.toBe(key)
    expect(cacheKey(sources, "0.8.36")).not.toBe(key)
  })

  it("fails loudly with solc's formatted errors", async () => {
    const broken = { "Broken.sol": { content: "pragma solidity ^0.8.28;\ncontract Broken { function f() public { uint x = ; } }\n" } }
    const error = await compileSources(broken).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(SolidityCompileError)
    expect((error as SolidityCompileError).message).toContain("ParserError")
    expect((error as SolidityCompileError).message).toContain("Broken.sol:2")
  })
})
