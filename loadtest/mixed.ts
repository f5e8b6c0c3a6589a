/**
 * k6 script: the default mix: 70% reads, 20% quotes and limits, 10% intent creation (what npm run loadtest runs).
 * Run (k6 ≥ 1.0 runs TypeScript): k6 run -e BASE_URL=http://127.0.0.1:8080 -e PROFILE=smoke loadtest/mixed.ts
 * or: npm run loadtest -- --script mixed --profile smoke. Profiles, thresholds and checks: loadtest/README.md.
 */
import { k6Options, runIteration, runSetup } from "./k6/driver.ts"
import type { SetupData } from "./lib/data.ts"

export const options = k6Options("mixed")

export function setup(): SetupData {
  return runSetup()
}

export default function (data: SetupData): void {
  runIteration("mixed", data)
}
