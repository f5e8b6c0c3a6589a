/**
 * A minimal JSON-RPC 2.0 client over `node:http` with a keep-alive agent. It exists beside viem's transport for
 * the sender's hot path: `batch()` sends exactly one HTTP request per call, so the caller decides when batch
 * k+1 leaves (after batch k was answered), which keeps anvil's arrival order equal to submission order.
 */
import http from "node:http"
import { RpcResponseError, RpcTransportError } from "./errors.ts"

export interface RpcCall {
  readonly method: string
  readonly params: readonly unknown[]
}

/** One answer of a batch, in the position of its call. Errors are values here, not exceptions. */
export type RpcOutcome =
  | { readonly ok: true; readonly result: unknown }
  | { readonly ok: false; readonly error: RpcResponseError }

export interface RpcClientOptions {
  /** Per-request timeout in ms (wall clock; only guards against a hung process). @default 120_000 */
  readonly timeoutMs?: number
}

interface JsonRpcErrorObject {
  readonly code: number
  readonly message: string
  readonly data?: unknown
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

const asErrorObject = (value: unknown): JsonRpcErrorObject | undefined => {
  if (!isRecord(value)) return undefined
  const { code, message, data } = value
  if (typeof code !== "number" || typeof message !== "string") return undefined
  return { code, message, data }
}

export class RpcClient {
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 8 })
  private readonly host: string
  private readonly port: number
  private readonly path: string
  private readonly timeoutMs: number
  private closed = false
  /** Why it was closed, for the error of later calls: "pool stopped", "anvil exited". */
  private closedReason = ""

  readonly chainId: number
  readonly url: string
  constructor(chainId: number, url: string, options: RpcClientOptions = {}) {
    this.chainId = chainId
    this.url = url
    const parsed = new URL(url)
    this.host = parsed.hostname
    this.port = Number(parsed.port)
    this.path = parsed.pathname === "" ? "/" : parsed.pathname
    this.timeoutMs = options.timeoutMs ?? 120_000
  }

  /** Calls one method; a JSON-RPC error becomes a thrown `RpcResponseError`. */
  async request(method: string, params: readonly unknown[] = []): Promise<unknown> {
    const body = await this.post(JSON.stringify({ jsonrpc: "2.0", id: 0, method, params }), method)
    if (!isRecord(body)) throw new RpcTransportError(this.chainId, this.url, method, "the response is not a JSON object")
    const error = asErrorObject(body["error"])
    if (error !== undefined) throw this.responseError(method, error)
    if (!("result" in body)) {
      throw new RpcTransportError(this.chainId, this.url, method, "the response has neither result nor error")
    }
    return body["result"]
  }

  /** Like `request`, for methods whose JSON-RPC error is an expected answer: returns it instead of throwing. */
  async tryRequest(method: string, params: readonly unknown[] = []): Promise<RpcOutcome> {
    const [outcome] = await this.batch([{ method, params }])
    if (outcome === undefined) throw new RpcTransportError(this.chainId, this.url, method, "empty batch answer")
    return outcome
  }

  /**
   * Sends the calls as ONE JSON-RPC batch (one HTTP POST) and returns their outcomes in call order. Node writes
   * the request on a later tick, so a caller that wants it on the wire while it computes must yield once.
   */
  async batch(calls: readonly RpcCall[]): Promise<readonly RpcOutcome[]> {
    if (calls.length === 0) return []
    const label = `batch of ${calls.length} (${calls[0]?.method ?? ""}${calls.length > 1 ? ", ..." : ""})`
    const payload = JSON.stringify(calls.map((call, id) => ({ jsonrpc: "2.0", id, method: call.method, params: call.params })))
    const body = await this.post(payload, label)
    if (!Array.isArray(body)) {
      const error = isRecord(body) ? asErrorObject(body["error"]) : undefined
      const reason =
        error === undefined ? "the batch answer is not a JSON array" : `the batch was refused: ${error.code} ${error.message}`
      throw new RpcTransportError(this.chainId, this.url, label, reason)
    }
    const outcomes: (RpcOutcome | undefined)[] = new Array(calls.length)
    for (const item of body) {
      if (!isRecord(item) || typeof item["id"] !== "number") continue
      const id = item["id"]
      const call = calls[id]
      if (call === undefined) continue
      const error = asErrorObject(item["error"])
      outcomes[id] =
        error === undefined
          ? { ok: true, result: item["result"] }
          : { ok: false, error: this.responseError(call.method, error) }
    }
    const missing = outcomes.findIndex((outcome) => outcome === undefined)
    if (missing !== -1 || outcomes.length !== calls.length) {
      throw new RpcTransportError(this.chainId, this.url, label, `no answer for call #${missing} (${calls[missing]?.method})`)
    }
    return outcomes as readonly RpcOutcome[]
  }

  /**
   * Closes idle keep-alive sockets; later calls fail with `RpcTransportError` giving `reason` ("the client is closed
   * (anvil exited)"). Idempotent: the first reason stays.
   */
  close(reason = "pool stopped"): void {
    if (this.closed) return
    this.closed = true
    this.closedReason = reason
    this.agent.destroy()
  }

  private responseError(method: string, error: JsonRpcErrorObject): RpcResponseError {
    return new RpcResponseError(this.chainId, this.url, method, error.code, error.message, error.data)
  }

  private post(payload: string, label: string): Promise<unknown> {
    if (this.closed) {
      return Promise.reject(new RpcTransportError(this.chainId, this.url, label, `the client is closed (${this.closedReason})`))
    }
    return new Promise<unknown>((resolve, reject) => {
      const request = http.request(
        {
          host: this.host,
          port: this.port,
          path: this.path,
          method: "POST",
          agent: this.agent,
          headers: { "content-type": "application/json", "content-length": Buffer.byteLength(payload) },
        },
        (response) => {
          const chunks: Buffer[] = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("error", (cause) =>
            reject(new RpcTransportError(this.chainId, this.url, label, "the response stream failed", cause)),
          )
          response.on("end", () => {
            const text = Buffer.concat(chunks).toString("utf8")
            if (response.statusCode !== 200) {
              reject(
                new RpcTransportError(this.chainId, this.url, label, `HTTP ${response.statusCode}: ${text.slice(0, 200)}`),
              )
              return
            }
            try {
              resolve(JSON.parse(text))
            } catch (cause) {
              reject(new RpcTransportError(this.chainId, this.url, label, "the response is not valid JSON", cause))
            }
          })
        },
      )
      // Wall-clock timeout: only detects a hung or dead anvil; it never influences what a run computes.
      request.setTimeout(this.timeoutMs, () =>
        request.destroy(new Error(`no answer within ${this.timeoutMs} ms`)),
      )
      request.on("error", (cause) =>
        reject(new RpcTransportError(this.chainId, this.url, label, cause.message, cause)),
      )
      request.end(payload)
    })
  }
}
