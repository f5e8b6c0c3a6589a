import { describe, expect, test } from "vitest"
import { InvalidChainOptionError } from "./errors.ts"
import { isAddressInUse, PORT_MIN, PORTS_PER_SLOT, PortAllocator, portSlot, SLOT_COUNT } from "./ports.ts"

describe("portSlot", () => {
  test("vitest workers get slots 1..63 from VITEST_POOL_ID, then VITEST_WORKER_ID", () => {
    expect(portSlot({ VITEST_POOL_ID: "1" }, 1234)).toBe(1)
    expect(portSlot({ VITEST_POOL_ID: "2", VITEST_WORKER_ID: "40" }, 1234)).toBe(2)
    expect(portSlot({ VITEST_WORKER_ID: "5" }, 1234)).toBe(5)
    expect(portSlot({ VITEST_POOL_ID: "64" }, 1234)).toBe(1)
  })

  test("other processes get a pid-derived slot above the vitest ones", () => {
    for (const pid of [1, 63, 64, 4242, 99_999, 4_194_304]) {
      const slot = portSlot({}, pid)
      expect(slot).toBeGreaterThanOrEqual(64)
      expect(slot).toBeLessThan(SLOT_COUNT)
    }
    expect(portSlot({}, 4242)).toBe(portSlot({}, 4242))
    expect(portSlot({ VITEST_POOL_ID: "x" }, 4242)).toBe(portSlot({}, 4242))
  })

  test("every port stays below Linux's ephemeral range", () => {
    expect(PORT_MIN + SLOT_COUNT * PORTS_PER_SLOT - 1).toBeLessThan(32_768)
  })
})

describe("PortAllocator", () => {
  test("walks its slot and wraps inside the range", () => {
    const allocator = PortAllocator.forProcess({ VITEST_POOL_ID: "3" })
    expect([allocator.next(), allocator.next()]).toEqual([PORT_MIN + 96, PORT_MIN + 97])
    const last = new PortAllocator(PORT_MIN + SLOT_COUNT * PORTS_PER_SLOT - 1)
    expect([last.next(), last.next()]).toEqual([PORT_MIN + SLOT_COUNT * PORTS_PER_SLOT - 1, PORT_MIN])
  })

  test("a base port counts up from it", () => {
    const allocator = PortAllocator.fromBase(8545)
    expect([allocator.next(), allocator.next(), allocator.next()]).toEqual([8545, 8546, 8547])
    expect(() => PortAllocator.fromBase(70_000)).toThrow(InvalidChainOptionError)
  })
})

test("isAddressInUse recognises anvil's bind failure", () => {
  expect(isAddressInUse(new Error('Failed to start process "anvil": \n\nError: Address already in use (os error 98)'))).toBe(true)
  expect(isAddressInUse(new Error("unrecognized subcommand 'false'"))).toBe(false)
})
