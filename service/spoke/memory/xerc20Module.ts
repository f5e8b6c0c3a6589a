/**
 * `XERC20Module` in memory: burns on intent creation, mints on settlement or records debt, and `mintDebt`
 * (contracts/XERC20Module.sol).
 */
import type { Address } from "../../domain/hex.ts"
import { get2, set2 } from "./context.ts"
import { checkedAdd, revert, revertEmpty, SpokeRevert } from "./journal.ts"
import type { MemoryToken } from "./tokens.ts"
import type { MemoryWorld } from "./world.ts"

export class MemoryXERC20Module {
  /** `mintable[account][asset]`. */
  readonly mintable = new Map<Address, Map<Address, bigint>>()

  private readonly world: MemoryWorld
  readonly address: Address
  readonly spoke: Address
  constructor(world: MemoryWorld, address: Address, spoke: Address) {
    this.world = world
    this.address = address
    this.spoke = spoke
  }

  private get ctx() {
    return this.world.ctx
  }

  mintableOf(account: Address, asset: Address): bigint {
    return get2(this.mintable, account, asset)
  }

  /** A direct (non-try) call to an xERC20 function: anything but an xERC20 reverts without data. */
  private xerc20(asset: Address): MemoryToken {
    const token = this.world.tokens.get(asset)
    if (token === undefined || token.kind !== "xerc20") return revertEmpty()
    return token
  }

  handleBurnStrategy(sender: Address, asset: Address, user: Address, amount: bigint): void {
    if (sender !== this.spoke) revert("XERC20Module_NotSpoke", sender)
    const token = this.xerc20(asset)
    const limit = token.burningCurrentLimitOf(this.address, this.ctx.now)
    if (limit < amount) revert("XERC20Module_HandleBurnStrategy_InsufficientBurningLimit", asset, limit, amount)
    token.bridgeBurn(this.ctx, this.address, user, amount)
  }

  handleMintStrategy(sender: Address, asset: Address, mintRecipient: Address, fallbackRecipient: Address, amount: bigint): boolean {
    if (sender !== this.spoke) revert("XERC20Module_NotSpoke", sender)
    let success = false
    const token = this.world.tokens.get(asset)
    // `_mintingLimit`: only an xERC20 answers `mintingCurrentLimitOf`; any other token or address gives "unknown".
    if (token !== undefined && token.kind === "xerc20" && token.mintingCurrentLimitOf(this.address, this.ctx.now) >= amount) {
      success = this.tryMint(token, mintRecipient, amount)
    }
    if (!success) {
      set2(this.ctx.journal, this.mintable, fallbackRecipient, asset, checkedAdd(this.mintableOf(fallbackRecipient, asset), amount))
      this.ctx.emit(this.address, { name: "HandleMintStrategyFailed", asset, recipient: fallbackRecipient, amount })
    }
    return success
  }

  mintDebt(asset: Address, recipient: Address, amount: bigint): void {
    const debt = this.mintableOf(recipient, asset)
    if (debt < amount) revert("XERC20Module_MintDebt_InsufficientMintable", amount, debt)
    const token = this.xerc20(asset)
    const limit = token.mintingCurrentLimitOf(this.address, this.ctx.now)
    if (limit < amount) revert("XERC20Module_MintDebt_InsufficientMintingLimit", amount, limit)
    set2(this.ctx.journal, this.mintable, recipient, asset, debt - amount)
    token.bridgeMint(this.ctx, this.address, recipient, amount)
    this.ctx.emit(this.address, { name: "DebtMinted", asset, recipient, amount })
  }

  private tryMint(token: MemoryToken, recipient: Address, amount: bigint): boolean {
    const mark = this.world.checkpoint()
    try {
      token.bridgeMint(this.ctx, this.address, recipient, amount)
      return true
    } catch (error) {
      if (!(error instanceof SpokeRevert)) throw error
      this.world.restore(mark)
      return false
    }
  }
}
