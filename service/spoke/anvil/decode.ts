/**
 * Logs and revert data of the spoke contracts, decoded into clearsim's uniform forms (`SpokeEvent`, `SpokeError`):
 * addresses, words and bytes lowercase, struct fields by name.
 */
import type { Abi, AbiEvent, AbiParameter, Hex, Log } from "viem"
import { decodeEventLog, toEventSelector } from "viem/utils"
import type { Address } from "../../domain/hex.ts"
import type { RevertReason } from "../../../sim/chains/index.ts"
import {
  BlacklistERC20Abi,
  ClearingSpokeAbi,
  ClearsimErrorsAbi,
  FeeAdapterAbi,
  Permit2Abi,
  SpokeGatewayAbi,
  TestCallTargetAbi,
  TestERC20Abi,
  XERC20ModuleAbi,
  XERC20TokenAbi,
} from "../abi.ts"
import type { SpokeEvent } from "../events.ts"
import type { SpokeError } from "../types.ts"

/** Every error the contracts can revert with, for the sender's revert decoding. */
export const SPOKE_ERRORS_ABI = ClearsimErrorsAbi as unknown as Abi

/** A value decoded by viem in clearsim's form: lowercase hex for addresses and bytes, structs by field name. */
export const normalizeAbiValue = (parameter: AbiParameter, value: unknown): unknown => {
  const type = parameter.type
  if (type.endsWith("]")) {
    const inner = { ...parameter, type: type.slice(0, type.lastIndexOf("[")) } as AbiParameter
    return (value as readonly unknown[]).map((item) => normalizeAbiValue(inner, item))
  }
  if (type === "tuple") {
    const components = (parameter as { readonly components: readonly AbiParameter[] }).components
    const out: Record<string, unknown> = {}
    for (const component of components) out[component.name!] = normalizeAbiValue(component, (value as Record<string, unknown>)[component.name!])
    return out
  }
  if (type === "address" || type.startsWith("bytes")) return (value as string).toLowerCase()
  return value
}

interface EventDecoder {
  readonly abi: readonly [AbiEvent]
  readonly event: AbiEvent
}

const decoders = new Map<string, EventDecoder>()
for (const abi of [
  ClearingSpokeAbi,
  SpokeGatewayAbi,
  FeeAdapterAbi,
  XERC20ModuleAbi,
  XERC20TokenAbi,
  TestERC20Abi,
  BlacklistERC20Abi,
  TestCallTargetAbi,
  Permit2Abi,
] as readonly Abi[]) {
  for (const item of abi) {
    if (item.type !== "event") continue
    const selector = toEventSelector(item)
    if (!decoders.has(selector)) decoders.set(selector, { abi: [item], event: item })
  }
}

const topicOf = (name: string): string => [...decoders.entries()].find(([, d]) => d.event.name === name)![0]
const TRANSFER = topicOf("Transfer")
const APPROVAL = topicOf("Approval")
const INTENT_ADDED = topicOf("IntentAdded")
const INTENT_WITH_FEES_ADDED = topicOf("IntentWithFeesAdded")

/** The `i`-th 32-byte word of lowercase `0x` data, as 64 hex digits. */
const wordAt = (data: string, i: number): string => data.slice(2 + 64 * i, 66 + 64 * i)
const uintAt = (data: string, i: number): bigint => BigInt(`0x${wordAt(data, i)}`)
const smallAt = (data: string, i: number): number => Number.parseInt(wordAt(data, i).slice(48), 16)
const topicAddress = (topic: string): Address => `0x${topic.slice(26).toLowerCase()}`

/**
 * The hot events of intent creation (four of the five logs of every fee-adapter intent), decoded by hand: viem's
 * generic decoder costs about as much as the rest of reading a block. `decode.test.ts` checks both agree.
 */
const decodeHot = (topic: string, log: Log): Record<string, unknown> | undefined => {
  const data = log.data.toLowerCase()
  const topics = log.topics
  switch (topic) {
    case TRANSFER:
      return { name: "Transfer", from: topicAddress(topics[1]!), to: topicAddress(topics[2]!), value: uintAt(data, 0) }
    case APPROVAL:
      return { name: "Approval", owner: topicAddress(topics[1]!), spender: topicAddress(topics[2]!), value: uintAt(data, 0) }
    case INTENT_WITH_FEES_ADDED:
      return {
        name: "IntentWithFeesAdded",
        intentId: topics[1]!.toLowerCase(),
        initiator: `0x${wordAt(data, 0)}`,
        tokenFee: uintAt(data, 1),
        nativeFee: uintAt(data, 2),
      }
    case INTENT_ADDED: {
      const tuple = smallAt(data, 1) / 32
      const destinationsAt = tuple + smallAt(data, tuple + 10) / 32
      const dataAt = tuple + smallAt(data, tuple + 11) / 32
      const destinations: number[] = []
      for (let i = 0, n = smallAt(data, destinationsAt); i < n; i++) destinations.push(smallAt(data, destinationsAt + 1 + i))
      const length = smallAt(data, dataAt)
      const start = 2 + 64 * (dataAt + 1)
      return {
        name: "IntentAdded",
        intentId: topics[1]!.toLowerCase(),
        queueIdx: uintAt(data, 0),
        intent: {
          initiator: `0x${wordAt(data, tuple)}`,
          receiver: `0x${wordAt(data, tuple + 1)}`,
          inputAsset: `0x${wordAt(data, tuple + 2)}`,
          outputAsset: `0x${wordAt(data, tuple + 3)}`,
          maxFee: smallAt(data, tuple + 4),
          origin: smallAt(data, tuple + 5),
          nonce: uintAt(data, tuple + 6),
          timestamp: smallAt(data, tuple + 7),
          ttl: smallAt(data, tuple + 8),
          amount: uintAt(data, tuple + 9),
          destinations,
          data: `0x${data.slice(start, start + 2 * length)}`,
        },
      }
    }
    default:
      return undefined
  }
}

const decodeWithViem = (decoder: EventDecoder, log: Log): Record<string, unknown> => {
  const decoded = decodeEventLog({ abi: decoder.abi, data: log.data, topics: log.topics as [Hex, ...Hex[]] })
  const args = (decoded.args ?? {}) as Record<string, unknown>
  const event: Record<string, unknown> = { name: decoded.eventName }
  for (const input of decoder.event.inputs) event[input.name!] = normalizeAbiValue(input, args[input.name!])
  return event
}

/**
 * Decodes one log of a spoke contract; `undefined` for a log clearsim's contracts do not emit. `viemOnly` skips
 * the hand-written decoders (for tests).
 */
export const decodeSpokeLog = (log: Log, viemOnly = false): SpokeEvent | undefined => {
  const topic = log.topics[0]?.toLowerCase()
  if (topic === undefined) return undefined
  const decoder = decoders.get(topic)
  if (decoder === undefined) return undefined
  const event = (viemOnly ? undefined : decodeHot(topic, log)) ?? decodeWithViem(decoder, log)
  event.address = log.address.toLowerCase() as Address
  event.blockNumber = log.blockNumber
  event.logIndex = log.logIndex
  event.txIndex = log.transactionIndex
  event.transactionHash = log.transactionHash
  return event as unknown as SpokeEvent
}

const errorInputs = new Map<string, readonly AbiParameter[]>()
for (const item of ClearsimErrorsAbi) errorInputs.set(item.name, item.inputs)

/** The sender's decoded revert in `SpokeError` form (`Revert` for a revert without data). */
export const spokeErrorFromRevert = (revert: RevertReason): SpokeError => {
  if (revert.kind === "undecoded") {
    return revert.data === "0x" || revert.data.length <= 2 ? { name: "Revert", args: [] } : { name: "UnknownError", args: [revert.data.toLowerCase()] }
  }
  const inputs = errorInputs.get(revert.errorName)
  const args = inputs === undefined ? [...revert.args] : revert.args.map((arg, i) => (inputs[i] === undefined ? arg : normalizeAbiValue(inputs[i], arg)))
  return { name: revert.errorName, args }
}
