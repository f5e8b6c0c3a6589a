/**
 * Port allocation for anvil instances. Ports come from 20000–32767, below Linux's ephemeral range (32768+) so
 * outgoing connections never hold them, split into slots of 32 ports:
 *
 * - a vitest worker uses the slot of its `VITEST_POOL_ID` (1..63; at most one worker holds a pool id at a time),
 *   falling back to `VITEST_WORKER_ID`;
 * - any other process uses a slot derived from its pid (64..396), so two CLI runs rarely meet.
 *
 * Within a process one cursor walks its slot and then the following slots; a port found taken (EADDRINUSE, also
 * from another program) is skipped by the caller's retry. None of this influences what a chain computes.
 */
import { InvalidChainOptionError } from "./errors.ts"

export const PORT_MIN = 20_000
export const PORTS_PER_SLOT = 32
export const SLOT_COUNT = 397 // 20000 + 397 * 32 = 32704 <= 32767
const VITEST_SLOTS = 63

export interface PortSlotEnvironment {
  readonly VITEST_POOL_ID?: string | undefined
  readonly VITEST_WORKER_ID?: string | undefined
}

const positiveInt = (text: string | undefined): number | undefined => {
  if (text === undefined || !/^[0-9]+$/.test(text)) return undefined
  const value = Number(text)
  return Number.isSafeInteger(value) ? value : undefined
}

/** The slot this process starts allocating from. */
export const portSlot = (env: PortSlotEnvironment = process.env, pid: number = process.pid): number => {
  const vitestId = positiveInt(env.VITEST_POOL_ID) ?? positiveInt(env.VITEST_WORKER_ID)
  if (vitestId !== undefined) return 1 + ((vitestId - 1 + VITEST_SLOTS) % VITEST_SLOTS)
  return VITEST_SLOTS + 1 + (pid % (SLOT_COUNT - VITEST_SLOTS - 1))
}

/** Hands out ports one after another from a start port, wrapping inside the allowed range. */
export class PortAllocator {
  private cursor = 0

  readonly start: number
  private readonly min: number
  private readonly span: number
  constructor(start: number, min: number = PORT_MIN, span: number = SLOT_COUNT * PORTS_PER_SLOT) {
    this.start = start
    this.min = min
    this.span = span
    if (!Number.isInteger(start) || start < 1 || start > 65_535) {
      throw new InvalidChainOptionError("basePort", "an integer port between 1 and 65535", start)
    }
  }

  /** A port allocator for this process's slot (vitest worker or pid). */
  static forProcess(env: PortSlotEnvironment = process.env, pid: number = process.pid): PortAllocator {
    return new PortAllocator(PORT_MIN + portSlot(env, pid) * PORTS_PER_SLOT)
  }

  /** A caller-chosen base port (e.g. 8545 for `clearsim up`): base, base+1, ... */
  static fromBase(basePort: number): PortAllocator {
    return new PortAllocator(basePort, basePort, 65_536 - basePort)
  }

  next(): number {
    const offset = (this.start - this.min + this.cursor) % this.span
    this.cursor++
    return this.min + offset
  }
}

let processAllocator: PortAllocator | undefined

/** The allocator shared by every pool of this process, so two pools in one test file never pick the same port. */
export const processPortAllocator = (): PortAllocator => {
  processAllocator ??= PortAllocator.forProcess()
  return processAllocator
}

/** True when an anvil start failure means "port taken" (retry with the next port), not a real failure. */
export const isAddressInUse = (error: unknown): boolean => {
  const text = error instanceof Error ? error.message : String(error)
  return /address already in use|EADDRINUSE|os error 98/i.test(text)
}
