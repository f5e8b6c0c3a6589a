/**
 * k6 script: the read paths: GET /health, /intents (filters, cursor pages), /intents/{id}, /invoices, /invoices/{id}/min-amounts, /configs/assets.
 * Run (k6 ≥ 1.0 runs TypeScript): k6 run -e BASE_URL=http://127.0.0.1:8080 -e PROFILE=smoke loadtest/reads.ts
 * or: npm run loadtest -- --script reads --profile smoke. Profiles, thresholds and checks: loadtest/README.md.
 */
import { k6Options, runIteration, runSetup } from "./k6/driver.ts"
import type { SetupData } from "./lib/data.ts"

export const options = k6Options("reads")

export function setup(): SetupData {
  return runSetup()
}

export default function (data: SetupData): void {
  runIteration("reads", data)
}
