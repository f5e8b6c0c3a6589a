/**
 * k6 script: quotes and route limits: POST /routes/quotes, POST /routes/limits.
 * Run (k6 ≥ 1.0 runs TypeScript): k6 run -e BASE_URL=http://127.0.0.1:8080 -e PROFILE=smoke loadtest/quotes.ts
 * or: npm run loadtest -- --script quotes --profile smoke. Profiles, thresholds and checks: loadtest/README.md.
 */
import { k6Options, runIteration, runSetup } from "./k6/driver.ts"
import type { SetupData } from "./lib/data.ts"

export const options = k6Options("quotes")

export function setup(): SetupData {
  return runSetup()
}

export default function (data: SetupData): void {
  runIteration("quotes", data)
}
