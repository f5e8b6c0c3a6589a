import { availableParallelism } from "node:os"
import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["service/**/*.test.ts", "sim/**/*.test.ts", "loadtest/**/*.test.ts", "bench/**/*.test.ts"],
    pool: "forks",
    // Vitest's default (CPUs - 1) runs the files one at a time on a 2-CPU machine such as CI's, while much of the
    // suite waits on child processes (anvil chains, the clearsim CLI): two workers took the suite from 552 s to
    // 354 s here (2026-11-29). Each worker starts its own chains.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
