/**
 * Test-only: a real clearsim API server over a whole memory deployment (`Deployment.memory()`), with data
 * enough for every flow of the load test: intents in several statuses on two tickers, open invoices, solver
 * inventory so that the fast path is offered, and funded, approving users whose transactions the spokes execute.
 */
import { Deployment, DOMAIN_A, DOMAIN_B } from "../../service/api/deployment.ts"
import { type ApiServer, startApiServer } from "../../service/api/server.ts"
import { request } from "../../service/api/testing.ts"
import { Call } from "../../service/spoke/spoke.ts"
import type { ResponseLike } from "../lib/checks.ts"
import type { RequestSpec } from "../lib/requests.ts"
import { canonicalHeader, driveAsync, type Exchange } from "./drive.ts"

export type { Exchange } from "./drive.ts"

export interface TestWorld {
  readonly deployment: Deployment
  readonly server: ApiServer
  /** Intent ids created while building the world. */
  readonly intentIds: readonly string[]
  readonly close: () => Promise<void>
}

export const startWorld = async (): Promise<TestWorld> => {
  const d = Deployment.memory()
  await d.approveAll()
  const server = await startApiServer(d.service)
  const { alice, bob, solver } = d.accounts
  const create = async (body: Record<string, unknown> | Record<string, unknown>[]) => {
    const r = await request(server.url, "POST", "/intents", body)
    if (r.status !== 200) throw new Error(`POST /intents: ${r.status} ${r.text}`)
    const block = await d.send(r.body as never)
    const receipt = block.receipts[0]!
    if (receipt.status !== "success") throw new Error(`reverted: ${receipt.error.name}`)
  }
  // The operator solver's inventory on both spokes: the fast path is offered for USDC.
  for (const domain of [DOMAIN_A, DOMAIN_B]) await d.call(domain, solver.address, Call.spoke.deposit(d.token(domain, "USDC"), 1_000_000_000_000n))
  // WETH A→B: no WETH custody on B, so these become invoices.
  for (let i = 1; i <= 6; i++) {
    await create({ origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], to: bob.address, from: alice.address, inputAsset: d.token(DOMAIN_A, "WETH"), amount: `${i}000000000000000000` })
  }
  // USDC both ways, one of them an order.
  for (let i = 1; i <= 4; i++) {
    await create({ origin: String(DOMAIN_B), destinations: [String(DOMAIN_A)], to: alice.address, from: bob.address, inputAsset: d.token(DOMAIN_B, "USDC"), amount: `${i * 25}000000` })
  }
  await create(
    [1, 2, 3].map((i) => ({ origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], to: bob.address, from: alice.address, inputAsset: d.token(DOMAIN_A, "USDC"), amount: `${i * 10}000000`, max_fee: "0" })),
  )
  await d.relayIntents(DOMAIN_A)
  await d.relayIntents(DOMAIN_B)
  d.nextEpoch()
  d.hub.processDepositsAndInvoices("USDC")
  await d.settle(DOMAIN_A)
  await d.settle(DOMAIN_B)
  d.nextEpoch()
  // A last one left on the spoke (ADDED_SPOKE), and a fast-path one.
  await create({ origin: String(DOMAIN_A), destinations: [String(DOMAIN_B)], to: bob.address, from: alice.address, inputAsset: d.token(DOMAIN_A, "USDC"), amount: "42000000", isFastPath: true })
  const page = (await request(server.url, "GET", "/intents?limit=100")).body as { intents: { intent_id: string }[] }
  return { deployment: d, server, intentIds: page.intents.map((i) => i.intent_id), close: () => server.close() }
}

/** Sends a `RequestSpec` with Node's fetch, as k6 would send it (header names canonicalized as k6 does). */
export const sendWithFetch = async (baseUrl: string, spec: RequestSpec): Promise<ResponseLike> => {
  const init: RequestInit = { method: spec.method, headers: spec.body === undefined ? {} : { "content-type": "application/json" } }
  if (spec.body !== undefined) init.body = spec.body
  const response = await fetch(`${baseUrl}${spec.path}`, init)
  const headers: Record<string, string> = {}
  response.headers.forEach((value, name) => {
    headers[canonicalHeader(name)] = value
  })
  return { status: response.status, body: await response.text(), headers }
}

/** Drives a flow with fetch, collecting what went over the wire into `log`. */
export const driveWithFetch = <T>(baseUrl: string, flow: Generator<RequestSpec, T, ResponseLike>, log: Exchange[] = []): Promise<T> =>
  driveAsync(flow, (spec) => sendWithFetch(baseUrl, spec), (exchange) => log.push(exchange))
