import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["service/**/*.test.ts", "sim/**/*.test.ts", "loadtest/**/*.test.ts", "bench/**/*.test.ts"],
    pool: "forks",
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
})
