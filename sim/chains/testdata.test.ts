import { readFileSync } from "node:fs"
import { expect, test } from "vitest"
import { compileTestToken, renderModule, TEST_TOKEN_MODULE } from "./testdata/build.ts"

test("the committed TestToken artifact matches TestToken.sol (else: npx tsx sim/chains/testdata/build.ts)", async () => {
  expect(readFileSync(TEST_TOKEN_MODULE, "utf8")).toBe(renderModule(await compileTestToken()))
}, 30_000)
