/**
 * `TestCallTarget` in memory (a target for intent calldata in tests): `record(uint256)` counts the call, emits
 * `Called` and returns twice its argument; `forward(address, bytes)` calls the address with the bytes and returns
 * what it returned (a revert reverts; an address word with bits above its 20 bytes does not decode, as in
 * Solidity); `fail(uint256)` reverts; the public getters `calls()`, `lastValue()` and `lastCaller()` answer;
 * anything else has no function to run.
 */
import { decodeAbiParameters, encodeAbiParameters } from "viem/utils"
import type { Address, Hex } from "../../domain/hex.ts"
import type { ExecutionContext } from "./context.ts"
import { checkedAdd, checkedMul, revert, revertEmpty } from "./journal.ts"

const RECORD = "0x2c16cd8a"
const FAIL = "0x132e4f3c"
const FORWARD = "0x6fadcf72"
const CALLS = "0x305f72b7"
const LAST_VALUE = "0x43183834"
const LAST_CALLER = "0x2113522a"

const word = (value: bigint): Hex => `0x${value.toString(16).padStart(64, "0")}`

export interface CallArgs {
  uint(i: number): bigint
  /** The argument word as an address; reverts when it has bits above its 20 bytes. */
  address(i: number): Address
}

export class MemoryCallTarget {
  calls = 0n
  lastValue = 0n
  lastCaller: Address = "0x0000000000000000000000000000000000000000"

  private readonly world: { readonly ctx: ExecutionContext; callExternal(sender: Address, target: Address, callData: Hex): { readonly success: boolean; readonly returnData: Hex } }
  readonly address: Address
  constructor(
    world: { readonly ctx: ExecutionContext; callExternal(sender: Address, target: Address, callData: Hex): { readonly success: boolean; readonly returnData: Hex } },
    address: Address,
  ) {
    this.world = world
    this.address = address
  }

  call(sender: Address, selector: string, args: CallArgs, callData: Hex): Hex {
    const ctx = this.world.ctx
    switch (selector) {
      case RECORD: {
        const value = args.uint(0)
        ctx.journal.field(this as MemoryCallTarget, "calls", checkedAdd(this.calls, 1n))
        ctx.journal.field(this as MemoryCallTarget, "lastValue", value)
        ctx.journal.field(this as MemoryCallTarget, "lastCaller", sender)
        ctx.emit(this.address, { name: "Called", caller: sender, value })
        return `0x${checkedMul(value, 2n).toString(16).padStart(64, "0")}`
      }
      case FORWARD: {
        // Solidity's decoder refuses an address word with bits above its 20 bytes; viem's takes the low 20.
        const target = args.address(0)
        let data: Hex
        try {
          ;[, data] = decodeAbiParameters([{ type: "address" }, { type: "bytes" }], `0x${callData.slice(10)}`)
        } catch {
          return revertEmpty()
        }
        const result = this.world.callExternal(this.address, target.toLowerCase() as Address, data)
        if (!result.success) return revertEmpty()
        return encodeAbiParameters([{ type: "bytes" }], [result.returnData])
      }
      case FAIL:
        return revert("TestCallTarget_Failed", args.uint(0))
      case CALLS:
        return word(this.calls)
      case LAST_VALUE:
        return word(this.lastValue)
      case LAST_CALLER:
        return word(BigInt(this.lastCaller))
      default:
        return revertEmpty()
    }
  }
}
