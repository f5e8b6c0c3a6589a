/**
 * The test tokens of `contracts/`: `TestERC20` (owner mint), `BlacklistERC20` (refuses blacklisted recipients
 * and spenders by returning false, or by reverting), and `XERC20Token` (bridge mint/burn limits that refill
 * linearly over a day). Same checks, errors and events, in the same order, as the Solidity.
 */
import type { Address } from "../../domain/hex.ts"
import { ZERO_ADDRESS } from "../../domain/hex.ts"
import { MAX_UINT256 } from "../../domain/protocol.ts"
import { MAX_XERC20_LIMIT, type TokenKind } from "../deploy.ts"
import { XERC20_DURATION, type XERC20Limits } from "../types.ts"
import type { ExecutionContext } from "./context.ts"
import { checkedAdd, checkedMul, revert } from "./journal.ts"

/** `BridgeParameters`, mutated through the journal. */
export interface BridgeLimit {
  timestamp: number
  ratePerSecond: bigint
  maxLimit: bigint
  currentLimit: bigint
}

const newLimit = (): BridgeLimit => ({ timestamp: 0, ratePerSecond: 0n, maxLimit: 0n, currentLimit: 0n })

export class MemoryToken {
  readonly balances = new Map<Address, bigint>()
  readonly allowances = new Map<Address, Map<Address, bigint>>()
  totalSupply = 0n
  // BlacklistERC20
  readonly blacklisted = new Map<Address, boolean>()
  revertOnBlacklisted = false
  // XERC20Token
  readonly bridges = new Map<Address, { readonly minter: BridgeLimit; readonly burner: BridgeLimit }>()

  readonly address: Address
  readonly symbol: string
  readonly decimals: number
  readonly kind: TokenKind
  /** Owner: the deployer (TestERC20's is immutable; the xERC20's could change, which clearsim never does). */
  readonly owner: Address
  constructor(address: Address, symbol: string, decimals: number, kind: TokenKind, owner: Address) {
    this.address = address
    this.symbol = symbol
    this.decimals = decimals
    this.kind = kind
    this.owner = owner
  }

  balanceOf(account: Address): bigint {
    return this.balances.get(account) ?? 0n
  }

  allowance(owner: Address, spender: Address): bigint {
    return this.allowances.get(owner)?.get(spender) ?? 0n
  }

  // --- ERC20 ---------------------------------------------------------------------------------------------

  transfer(ctx: ExecutionContext, sender: Address, to: Address, amount: bigint): boolean {
    if (this.kind === "blacklist" && this.blacklisted.get(to) === true) return this.refuse(to)
    this.move(ctx, sender, to, amount)
    return true
  }

  transferFrom(ctx: ExecutionContext, sender: Address, from: Address, to: Address, amount: bigint): boolean {
    if (this.kind === "blacklist" && this.blacklisted.get(to) === true) return this.refuse(to)
    this.spendAllowance(ctx, from, sender, amount)
    this.move(ctx, from, to, amount)
    return true
  }

  approve(ctx: ExecutionContext, sender: Address, spender: Address, amount: bigint): boolean {
    if (this.kind === "blacklist" && this.blacklisted.get(spender) === true) return this.refuse(spender)
    this.setAllowance(ctx, sender, spender, amount)
    ctx.emit(this.address, { name: "Approval", owner: sender, spender, value: amount })
    return true
  }

  /** `mint` (TestERC20, BlacklistERC20) or `ownerMint` (XERC20Token): owner only, no limit. */
  ownerMint(ctx: ExecutionContext, sender: Address, to: Address, amount: bigint): void {
    if (sender !== this.owner) {
      if (this.kind === "xerc20") revert("XERC20Token_NotOwner", sender)
      revert("TestERC20_NotOwner", sender)
    }
    this.mintTokens(ctx, to, amount)
  }

  private refuse(account: Address): boolean {
    if (this.revertOnBlacklisted) revert("BlacklistERC20_Blacklisted", account)
    return false
  }

  // The balance writes journal the entries they just read (undefined when absent), with no second lookup.

  private move(ctx: ExecutionContext, from: Address, to: Address, amount: bigint): void {
    const balances = this.balances
    const fromEntry = balances.get(from)
    const balance = fromEntry ?? 0n
    if (balance < amount) revert("ERC20_InsufficientBalance", from, balance, amount)
    ctx.journal.replace(balances, from, fromEntry, balance - amount)
    // Read after the write above: `to` may be `from`.
    const toEntry = balances.get(to)
    ctx.journal.replace(balances, to, toEntry, checkedAdd(toEntry ?? 0n, amount))
    ctx.emit(this.address, { name: "Transfer", from, to, value: amount })
  }

  private spendAllowance(ctx: ExecutionContext, owner: Address, spender: Address, amount: bigint): void {
    const allowed = this.allowance(owner, spender)
    if (allowed === MAX_UINT256) return
    if (allowed < amount) revert("ERC20_InsufficientAllowance", spender, allowed, amount)
    this.setAllowance(ctx, owner, spender, allowed - amount)
  }

  private setAllowance(ctx: ExecutionContext, owner: Address, spender: Address, amount: bigint): void {
    let inner = this.allowances.get(owner)
    if (inner === undefined) {
      inner = new Map()
      this.allowances.set(owner, inner)
    }
    ctx.journal.set(inner, spender, amount)
  }

  private mintTokens(ctx: ExecutionContext, to: Address, amount: bigint): void {
    ctx.journal.field(this as MemoryToken, "totalSupply", checkedAdd(this.totalSupply, amount))
    const toEntry = this.balances.get(to)
    ctx.journal.replace(this.balances, to, toEntry, (toEntry ?? 0n) + amount)
    ctx.emit(this.address, { name: "Transfer", from: ZERO_ADDRESS, to, value: amount })
  }

  private burnTokens(ctx: ExecutionContext, from: Address, amount: bigint): void {
    const fromEntry = this.balances.get(from)
    const balance = fromEntry ?? 0n
    if (balance < amount) revert("ERC20_InsufficientBalance", from, balance, amount)
    ctx.journal.replace(this.balances, from, fromEntry, balance - amount)
    ctx.journal.field(this as MemoryToken, "totalSupply", this.totalSupply - amount)
    ctx.emit(this.address, { name: "Transfer", from, to: ZERO_ADDRESS, value: amount })
  }

  // --- BlacklistERC20 --------------------------------------------------------------------------------------

  setBlacklisted(ctx: ExecutionContext, sender: Address, account: Address, value: boolean): void {
    if (sender !== this.owner) revert("TestERC20_NotOwner", sender)
    ctx.journal.set(this.blacklisted, account, value)
    ctx.emit(this.address, { name: "BlacklistUpdated", account, blacklisted: value })
  }

  setRevertOnBlacklisted(ctx: ExecutionContext, sender: Address, value: boolean): void {
    if (sender !== this.owner) revert("TestERC20_NotOwner", sender)
    ctx.journal.field(this as MemoryToken, "revertOnBlacklisted", value)
  }

  // --- XERC20Token -----------------------------------------------------------------------------------------

  private bridge(account: Address): { readonly minter: BridgeLimit; readonly burner: BridgeLimit } {
    let bridge = this.bridges.get(account)
    if (bridge === undefined) {
      // A fresh all-zero struct is what an unset mapping entry reads as; creating it needs no journal entry.
      bridge = { minter: newLimit(), burner: newLimit() }
      this.bridges.set(account, bridge)
    }
    return bridge
  }

  /** `_currentLimit` at `now`. */
  currentLimit(limit: BridgeLimit, now: number): bigint {
    const current = limit.currentLimit
    const max = limit.maxLimit
    if (current === max) return current
    if (limit.timestamp + XERC20_DURATION <= now) return max
    // Checked as in Solidity; `setLimits` keeps every limit at most MAX_UINT256 / 2, so this never overflows.
    const refilled = checkedAdd(current, checkedMul(BigInt(now - limit.timestamp), limit.ratePerSecond))
    return refilled > max ? max : refilled
  }

  limits(bridge: Address, now: number): XERC20Limits {
    const { minter, burner } = this.bridge(bridge)
    return {
      mintingCurrentLimit: this.currentLimit(minter, now),
      burningCurrentLimit: this.currentLimit(burner, now),
      mintingMaxLimit: minter.maxLimit,
      burningMaxLimit: burner.maxLimit,
    }
  }

  mintingCurrentLimitOf(bridge: Address, now: number): bigint {
    return this.currentLimit(this.bridge(bridge).minter, now)
  }

  burningCurrentLimitOf(bridge: Address, now: number): bigint {
    return this.currentLimit(this.bridge(bridge).burner, now)
  }

  /** Bridge `mint(user, amount)` by `sender`. */
  bridgeMint(ctx: ExecutionContext, sender: Address, user: Address, amount: bigint): void {
    const limit = this.bridge(sender).minter
    const available = this.currentLimit(limit, ctx.now)
    if (available < amount) revert("XERC20Token_NotHighEnoughLimits", sender, amount, available)
    ctx.journal.field(limit, "timestamp", ctx.now)
    ctx.journal.field(limit, "currentLimit", available - amount)
    this.mintTokens(ctx, user, amount)
  }

  /** Bridge `burn(user, amount)` by `sender`; burning someone else's tokens spends their allowance. */
  bridgeBurn(ctx: ExecutionContext, sender: Address, user: Address, amount: bigint): void {
    const limit = this.bridge(sender).burner
    const available = this.currentLimit(limit, ctx.now)
    if (available < amount) revert("XERC20Token_NotHighEnoughLimits", sender, amount, available)
    if (sender !== user) this.spendAllowance(ctx, user, sender, amount)
    ctx.journal.field(limit, "timestamp", ctx.now)
    ctx.journal.field(limit, "currentLimit", available - amount)
    this.burnTokens(ctx, user, amount)
  }

  setLimits(ctx: ExecutionContext, sender: Address, bridge: Address, mintingLimit: bigint, burningLimit: bigint): void {
    if (sender !== this.owner) revert("XERC20Token_NotOwner", sender)
    if (mintingLimit > MAX_XERC20_LIMIT || burningLimit > MAX_XERC20_LIMIT) revert("XERC20Token_LimitsTooHigh")
    const { minter, burner } = this.bridge(bridge)
    this.changeLimit(ctx, minter, mintingLimit)
    this.changeLimit(ctx, burner, burningLimit)
    ctx.emit(this.address, { name: "BridgeLimitsSet", mintingLimit, burningLimit, bridge })
  }

  private changeLimit(ctx: ExecutionContext, params: BridgeLimit, limit: bigint): void {
    const oldLimit = params.maxLimit
    let current = this.currentLimit(params, ctx.now)
    if (oldLimit > limit) {
      const difference = oldLimit - limit
      current = current > difference ? current - difference : 0n
    } else {
      current = checkedAdd(current, limit - oldLimit)
    }
    ctx.journal.field(params, "maxLimit", limit)
    ctx.journal.field(params, "currentLimit", current)
    ctx.journal.field(params, "ratePerSecond", limit / BigInt(XERC20_DURATION))
    ctx.journal.field(params, "timestamp", ctx.now)
  }
}
