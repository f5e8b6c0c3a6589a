/**
 * `FeeAdapter` in memory: pulls amount + fee, checks the fee signer's signature and the deadline, pays the fees,
 * approves the spoke (or the module) once, and creates the intents (contracts/FeeAdapter.sol).
 */
import { type Address, type Bytes32, type Hex, hexToBytes, ZERO_ADDRESS } from "../../domain/hex.ts"
import { keccak256Bytes } from "../../domain/keccak.ts"
import { MAX_UINT256, Strategy } from "../../domain/protocol.ts"
import type { FeeParams, NewIntentParams, Permit2Params } from "../calls.ts"
import { checkedAdd, revert, SpokeRevert } from "./journal.ts"
import { ecdsaRefusal } from "./signature.ts"
import type { MemoryWorld } from "./world.ts"

/** A fee signature reached execution without being recovered first (`MemorySpokeChain.mine` recovers them). */
export class UnverifiedFeeSignatureError extends Error {
  override readonly name = "UnverifiedFeeSignatureError"
  readonly sig: Hex
  constructor(sig: Hex) {
    super(`The fee signature ${sig.slice(0, 18)}... was not recovered before the block ran; use mine(), not mineSync(), for new signatures.`)
    this.sig = sig
  }
}

/** `keccak256(abi.encode(bytes32[] ids))`. */
const orderId = (intentIds: readonly Bytes32[]): Bytes32 => {
  const buf = new Uint8Array(64 + 32 * intentIds.length)
  buf[31] = 0x20
  new DataView(buf.buffer).setUint32(60, intentIds.length)
  intentIds.forEach((id, i) => buf.set(hexToBytes(id), 64 + 32 * i))
  return keccak256Bytes(buf)
}

export class MemoryFeeAdapter {
  owner: Address
  feeRecipient: Address
  feeSigner: Address
  /**
   * The last signature `ecdsaRefusal` accepted: the check depends on the string alone, and one fee signature
   * serves every intent of its asset until its deadline (a cache, not state).
   */
  private acceptedSig: Hex | undefined

  private readonly world: MemoryWorld
  readonly address: Address
  readonly spoke: Address
  readonly xerc20Module: Address
  constructor(
    world: MemoryWorld,
    address: Address,
    spoke: Address,
    xerc20Module: Address,
    config: { owner: Address; feeRecipient: Address; feeSigner: Address },
  ) {
    this.world = world
    this.address = address
    this.spoke = spoke
    this.xerc20Module = xerc20Module
    this.owner = config.owner
    this.feeRecipient = config.feeRecipient
    this.feeSigner = config.feeSigner
  }

  private get ctx() {
    return this.world.ctx
  }

  newIntent(sender: Address, value: bigint, p: NewIntentParams, feeParams: FeeParams): Bytes32 {
    this.handleFees(sender, value, p.inputAsset, p.amount, feeParams.fee, feeParams.deadline, feeParams.sig)
    const { intentId } = this.world.spokeAt(this.spoke).newIntent(this.address, p)
    this.ctx.emit(this.address, { name: "IntentWithFeesAdded", intentId, initiator: this.world.spoke.word(sender), tokenFee: feeParams.fee, nativeFee: value })
    return intentId
  }

  /** The Permit2 overload: `amount + fee` pulled with `Permit2.permitTransferFrom` (§5.1 step 1), then the same flow. */
  newIntentPermit2(sender: Address, value: bigint, p: NewIntentParams, permit2Params: Permit2Params, feeParams: FeeParams): Bytes32 {
    const pulled = checkedAdd(p.amount, feeParams.fee)
    const permit = { token: p.inputAsset, amount: pulled, nonce: permit2Params.nonce, deadline: permit2Params.deadline }
    this.world.permit2.permitTransferFrom(this.address, permit, this.address, pulled, sender, permit2Params.signature)
    this.handleFees(sender, value, p.inputAsset, p.amount, feeParams.fee, feeParams.deadline, feeParams.sig, true)
    const { intentId } = this.world.spokeAt(this.spoke).newIntent(this.address, p)
    this.ctx.emit(this.address, { name: "IntentWithFeesAdded", intentId, initiator: this.world.spoke.word(sender), tokenFee: feeParams.fee, nativeFee: value })
    return intentId
  }

  newOrder(sender: Address, value: bigint, fee: bigint, deadline: bigint, sig: Hex, params: readonly NewIntentParams[]): Bytes32 {
    const count = params.length
    if (count === 0) revert("FeeAdapter_EmptyOrder")
    const inputAsset = params[0]!.inputAsset
    let total = 0n
    for (const entry of params) {
      if (entry.inputAsset !== inputAsset) revert("FeeAdapter_MultipleOrderAssets")
      total = checkedAdd(total, entry.amount)
    }
    this.handleFees(sender, value, inputAsset, total, fee, deadline, sig)
    const spoke = this.world.spokeAt(this.spoke)
    const intentIds = params.map((entry) => spoke.newIntent(this.address, entry).intentId)
    const id = orderId(intentIds)
    this.ctx.emit(this.address, { name: "OrderCreated", orderId: id, initiator: this.world.spoke.word(sender), intentIds, tokenFee: fee, nativeFee: value })
    return id
  }

  returnUnsupportedIntent(sender: Address, asset: Address, amount: bigint, recipient: Address): void {
    this.onlyOwner(sender)
    this.world.spokeAt(this.spoke).withdraw(this.address, asset, amount)
    this.push(asset, recipient, amount)
  }

  updateFeeRecipient(sender: Address, feeRecipient: Address): void {
    this.onlyOwner(sender)
    this.ctx.emit(this.address, { name: "FeeRecipientUpdated", previous: this.feeRecipient, current: feeRecipient })
    this.ctx.journal.field(this as MemoryFeeAdapter, "feeRecipient", feeRecipient)
  }

  updateFeeSigner(sender: Address, feeSigner: Address): void {
    this.onlyOwner(sender)
    this.ctx.emit(this.address, { name: "FeeSignerUpdated", previous: this.feeSigner, current: feeSigner })
    this.ctx.journal.field(this as MemoryFeeAdapter, "feeSigner", feeSigner)
  }

  private onlyOwner(sender: Address): void {
    if (sender !== this.owner) revert("FeeAdapter_NotOwner", sender)
  }

  /** Reference §5.1 steps 1 to 6, in order (step 1 skipped when the caller pulled through Permit2). */
  private handleFees(sender: Address, value: bigint, inputAsset: Address, amount: bigint, fee: bigint, deadline: bigint, sig: Hex, pulledWithPermit2 = false): void {
    const pulled = checkedAdd(amount, fee)
    const result = pulledWithPermit2 || this.world.tryTransferFrom(inputAsset, this.address, sender, this.address, pulled)
    if (result !== true) {
      if (result instanceof SpokeRevert) throw result
      revert("FeeAdapter_TransferFailed", inputAsset, sender, this.address, pulled)
    }
    // SignatureLib.recover (OpenZeppelin's ECDSA.recover): its own errors for a malformed or unrecoverable
    // signature, then the adapter's for another signer.
    if (sig !== this.acceptedSig) {
      const refusal = ecdsaRefusal(sig)
      if (refusal !== undefined) revert(refusal.name, ...refusal.args)
      this.acceptedSig = sig
    }
    const signer = this.world.signatures.signerOf(fee, value, inputAsset, deadline, sig)
    if (signer === undefined) throw new UnverifiedFeeSignatureError(sig)
    if (signer === ZERO_ADDRESS) revert("ECDSAInvalidSignature")
    if (signer !== this.feeSigner) revert("FeeAdapter_InvalidSignature")
    if (BigInt(this.ctx.now) > deadline) revert("FeeAdapter_InvalidDeadline")
    if (fee > 0n) this.push(inputAsset, this.feeRecipient, fee)
    if (value > 0n && !this.world.sendNative(this.address, this.feeRecipient, value)) revert("FeeAdapter_NativeTransferFailed", this.feeRecipient, value)
    const spender = this.world.spokeAt(this.spoke).strategies.get(inputAsset) === Strategy.XERC20 ? this.xerc20Module : this.spoke
    const token = this.world.tokens.get(inputAsset)
    const allowance = token === undefined ? 0n : token.allowance(this.address, spender)
    if (allowance < amount) {
      const approved = this.world.tryTokenCall(inputAsset, (t) => t.approve(this.ctx, this.address, spender, MAX_UINT256))
      if (approved !== true) revert("FeeAdapter_ApproveFailed", inputAsset, spender)
    }
  }

  private push(asset: Address, to: Address, amount: bigint): void {
    const result = this.world.tryTransfer(asset, this.address, to, amount)
    if (result === true) return
    if (result instanceof SpokeRevert) throw result
    revert("FeeAdapter_TransferFailed", asset, this.address, to, amount)
  }
}
