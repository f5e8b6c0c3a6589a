/**
 * The differential harness: the same random operations on the memory and the anvil backend, block by block.
 *
 * Operations are generated from the MEMORY backend's state (the reference) with a seeded xoroshiro128+ stream,
 * submitted to both backends, mined at the same timestamp, and every receipt is compared at once, so a
 * divergence is reported at the first call that differs, with its label. Outbound INTENT/FILL messages of each
 * backend feed its own hub engine; the hubs' settlement batches come back to the spokes through the relayer.
 * Test-only.
 */
import { uniformBigInt } from "pure-rand/distribution/uniformBigInt"
import { uniformInt } from "pure-rand/distribution/uniformInt"
import { xoroshiro128plus } from "pure-rand/generator/xoroshiro128plus"
import type { JumpableRandomGenerator } from "pure-rand/types/JumpableRandomGenerator"
import { encodeAbiParameters, encodeFunctionData, keccak256, maxUint256, parseSignature, serializeCompactSignature, serializeSignature, signatureToCompactSignature } from "viem"
import { type DevAccount, deriveDevAccounts, TEST_MNEMONIC } from "../../../sim/chains/index.ts"
import { decodeMessage, encodeIntentMessage, encodeSettlementMessage, encodeVarUpdateMessage } from "../../domain/encoding.ts"
import { type Address, addressToBytes32, type Bytes32, type Hex, ZERO_ADDRESS } from "../../domain/hex.ts"
import { keccak256Utf8 } from "../../domain/keccak.ts"
import { type Intent, IntentStatus, type Settlement, Strategy } from "../../domain/protocol.ts"
import type { HubConfigInput } from "../../hub/config.ts"
import { Hub } from "../../hub/hub.ts"
import type { OutboundMessage } from "../../hub/state.ts"
import { TraceHasher } from "../../hub/trace.ts"
import { TestCallTargetAbi } from "../abi.ts"
import { MAX_XERC20_LIMIT, type TokenSpec } from "../deploy.ts"
import { VARIABLE_HASHES } from "../memory/clearingSpoke.ts"
import { PERMIT2_ADDRESS, type Permit2Params, type Permit2Permit, permit2TypedData } from "../permit2.ts"
import {
  Call,
  encodeSpokeCall,
  type FeeParams,
  type MemorySpokeChain,
  type MinedSpokeBlock,
  type NewIntentParams,
  type SpokeCall,
  type SpokeChain,
  type SpokeEvent,
  type SpokeReceipt,
  type SpokesConfig,
  type SpokesShape,
} from "../spoke.ts"

// ---------------------------------------------------------------------------------------------------------
// The run's world

export const HUB_DOMAIN = 25_327
export const DOMAINS = [31_001, 31_002, 31_003] as const
export const GENESIS = 1_700_000_000n
export const BLOCK_TIME = 12n

export const accounts: readonly DevAccount[] = deriveDevAccounts(TEST_MNEMONIC, 10)
const at = (i: number): Address => accounts[i]!.address.toLowerCase() as Address
export const ROLE = {
  owner: at(0),
  relayer: at(1),
  feeSigner: at(2),
  alice: at(3),
  bob: at(4),
  solver1: at(5),
  solver2: at(6),
  lighthouse: at(7),
  watchtower: at(8),
  feeRecipient: at(9),
} as const
const account = (address: Address): DevAccount => accounts.find((a) => a.address.toLowerCase() === address)!

/** An account without a key (receivers only) and an address without code (intent calldata target, fake asset). */
export const CAROL = "0x00000000000000000000000000000000c0ffee01" as Address
export const NO_CODE = "0x000000000000000000000000000000000000dead" as Address
/** Where anvil puts a CREATE2 factory unless started without it (the chain pool does: `--no-create2`). */
export const CREATE2_DEPLOYER = "0x4e59b44847b379578588920ca78fbf26c0b4956c" as Address

export const XT_MINT_LIMIT = 2_000n * 10n ** 18n
export const XT_BURN_LIMIT = 20_000n * 10n ** 18n
export const TOKENS: readonly TokenSpec[] = [
  { symbol: "USDC", decimals: 6 },
  { symbol: "WETH", decimals: 18 },
  { symbol: "T24", decimals: 24 },
  { symbol: "BLK", decimals: 6, kind: "blacklist" },
  { symbol: "XT", decimals: 18, kind: "xerc20", mintingLimit: XT_MINT_LIMIT, burningLimit: XT_BURN_LIMIT },
]
export type Symbol = "USDC" | "WETH" | "T24" | "BLK" | "XT"
const SYMBOLS: readonly Symbol[] = ["USDC", "WETH", "T24", "BLK", "XT"]
const DECIMALS: Record<Symbol, number> = { USDC: 6, WETH: 18, T24: 24, BLK: 6, XT: 18 }

export const spokesConfig = (): SpokesConfig => ({
  hubDomain: HUB_DOMAIN,
  genesisTimestamp: GENESIS,
  chains: DOMAINS.map((domain) => ({
    domain,
    deployer: ROLE.owner,
    relayer: ROLE.relayer,
    feeSigner: ROLE.feeSigner,
    feeRecipient: ROLE.feeRecipient,
    lighthouse: ROLE.lighthouse,
    watchtower: ROLE.watchtower,
    tokens: TOKENS,
    funding: { accounts: [ROLE.alice, ROLE.bob, ROLE.solver1, ROLE.solver2], amount: 1_000_000n },
    callTarget: true,
  })),
})

/** Every domain gets the same addresses (same deployer, same nonces), so one token address serves all domains. */
export const hubConfig = (token: (symbol: Symbol) => Address): HubConfigInput => ({
  hubDomain: HUB_DOMAIN,
  epochLength: 4,
  expiryTimeBuffer: 600,
  minSolverSupportedDomains: 2,
  tickers: SYMBOLS.map((symbol) => ({
    symbol,
    discountPerEpoch: 3,
    maxDiscountDbps: 12,
    prioritizedStrategy: symbol === "XT" ? ("xerc20" as const) : ("default" as const),
    fees: [{ recipient: ROLE.owner, fee: 2 }],
    domains: DOMAINS.map((domain) => ({
      domain,
      asset: token(symbol),
      decimals: DECIMALS[symbol],
      strategy: symbol === "XT" ? ("xerc20" as const) : ("default" as const),
    })),
  })),
})

// ---------------------------------------------------------------------------------------------------------
// Randomness

export class TestRng {
  private readonly generator: JumpableRandomGenerator
  constructor(seed: number) {
    this.generator = xoroshiro128plus(seed)
  }
  int(min: number, max: number): number {
    return uniformInt(this.generator, min, max)
  }
  big(min: bigint, max: bigint): bigint {
    return uniformBigInt(this.generator, min, max)
  }
  chance(p: number): boolean {
    return this.int(0, 999_999) < p * 1_000_000
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]!
  }
  weighted<T>(entries: readonly (readonly [number, T])[]): T {
    const total = entries.reduce((sum, [w]) => sum + w, 0)
    let x = this.int(0, total - 1)
    for (const [w, value] of entries) {
      if (x < w) return value
      x -= w
    }
    return entries[entries.length - 1]![1]
  }
}

// ---------------------------------------------------------------------------------------------------------
// Operations

export interface Operation {
  readonly domain: number
  readonly from: Address
  readonly call: SpokeCall
  readonly value: bigint
  /** Submitted as raw calldata (`submitRaw`), which exercises `decodeSpokeCall`. */
  readonly raw: boolean
  readonly label: string
}

const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const DAY = 86_400n
/** Deadlines: one past the whole run, one that expires a minute after genesis. */
const LONG_DEADLINE = GENESIS + 60n * DAY
const SHORT_DEADLINE = GENESIS + 60n
const NATIVE_FEE = 1_000_000_000n

type SignatureVariant = "valid" | "v01" | "wrongFee" | "wrongKey" | "short" | "highS" | "zeroR"

const feeHash = (fee: bigint, value: bigint, asset: Address, deadline: bigint): Hex =>
  keccak256(encodeAbiParameters([{ type: "uint256" }, { type: "uint256" }, { type: "address" }, { type: "uint256" }], [fee, value, asset, deadline]))

interface KnownIntent {
  readonly intentId: Bytes32
  readonly intent: Intent
}

interface Delivery {
  readonly destination: number
  readonly messageId: Bytes32
  readonly message: Hex
}

export class OperationGenerator {
  readonly rng: TestRng
  private readonly signatures = new Map<string, Hex>()
  /** Every intent seen in an `IntentAdded` event of the memory backend, by id. */
  readonly intents = new Map<Bytes32, KnownIntent>()
  readonly fastIntents: KnownIntent[] = []
  /** Settlement batches from the hubs, waiting for the relayer, per destination. */
  readonly pending: Delivery[] = []
  readonly delivered: Delivery[] = []
  /** Ids of handmade settlements (so statuses can be compared for them too). */
  readonly extraIds: Bytes32[] = []
  /** The relayer's calls that deliver a hub batch: one that reverts goes back to `pending`. */
  private readonly deliveryOps = new Map<Operation, Delivery>()
  private handmade = 0
  /** The Permit2 operations' own stream, so that adding them left the rest of the run as it was. */
  private readonly permitRng: TestRng
  private permitTurn = 0
  now = GENESIS

  private readonly memory: SpokesShape<MemorySpokeChain>
  constructor(seed: number, memory: SpokesShape<MemorySpokeChain>) {
    this.memory = memory
    this.rng = new TestRng(seed)
    this.permitRng = new TestRng(seed ^ 0x5045524d)
  }

  private chain(domain: number): MemorySpokeChain {
    return this.memory.chain(domain)
  }

  token(symbol: Symbol): Address {
    return this.chain(DOMAINS[0]).addresses.tokens[symbol]!.address
  }

  /**
   * Learns the intents of a mined memory block; `ops` are the block's operations (same order as the receipts).
   * A hub batch whose delivery reverted (relayer or spoke gateway changed, spoke paused) waits for another try.
   */
  observe(block: MinedSpokeBlock, ops: readonly Operation[] = []): void {
    block.receipts.forEach((receipt, i) => {
      const delivery = this.deliveryOps.get(ops[i]!)
      if (delivery === undefined) return
      this.deliveryOps.delete(ops[i]!)
      if (receipt.status !== "reverted") return
      this.delivered.splice(this.delivered.indexOf(delivery), 1)
      this.pending.push(delivery)
    })
    for (const receipt of block.receipts) {
      for (const event of receipt.events) {
        if (event.name !== "IntentAdded") continue
        const known = { intentId: event.intentId, intent: event.intent }
        this.intents.set(event.intentId, known)
        if (event.intent.ttl > 0) this.fastIntents.push(known)
      }
    }
  }

  private op(domain: number, from: Address, call: SpokeCall, label: string, value = 0n): Operation {
    return { domain, from, call, value, raw: this.rng.chance(0.15), label }
  }

  // --- amounts and signatures -----------------------------------------------------------------------------

  private amount(symbol: Symbol, maxWhole = 1_000): bigint {
    const unit = 10n ** BigInt(DECIMALS[symbol])
    return BigInt(this.rng.int(1, maxWhole)) * unit + this.rng.big(0n, unit - 1n)
  }

  private async sign(fee: bigint, value: bigint, asset: Address, deadline: bigint, signer: DevAccount): Promise<Hex> {
    const key = `${fee}|${value}|${asset}|${deadline}|${signer.address}`
    let sig = this.signatures.get(key)
    if (sig === undefined) {
      sig = await signer.signMessage({ message: { raw: feeHash(fee, value, asset, deadline) } })
      this.signatures.set(key, sig)
    }
    return sig
  }

  private async feeParams(asset: Address, fee: bigint, value: bigint, deadline: bigint, variant: SignatureVariant): Promise<FeeParams> {
    const feeSigner = account(ROLE.feeSigner)
    switch (variant) {
      case "valid":
        return { fee, deadline, sig: await this.sign(fee, value, asset, deadline, feeSigner) }
      case "v01": {
        // v as 0/1 instead of 27/28: not normalized (OpenZeppelin's ECDSA.recover), so ecrecover gives nothing.
        const sig = await this.sign(fee, value, asset, deadline, feeSigner)
        const v = Number.parseInt(sig.slice(130), 16) - 27
        return { fee, deadline, sig: `${sig.slice(0, 130)}0${v}` as Hex }
      }
      case "wrongFee":
        return { fee: fee + 1n, deadline, sig: await this.sign(fee, value, asset, deadline, feeSigner) }
      case "wrongKey":
        return { fee, deadline, sig: await this.sign(fee, value, asset, deadline, account(ROLE.alice)) }
      case "short":
        return { fee, deadline, sig: (await this.sign(fee, value, asset, deadline, feeSigner)).slice(0, 130) as Hex }
      case "highS": {
        const { r, s, yParity } = parseSignature(await this.sign(fee, value, asset, deadline, feeSigner))
        const flipped = SECP256K1_N - BigInt(s)
        return { fee, deadline, sig: serializeSignature({ r, s: `0x${flipped.toString(16).padStart(64, "0")}`, yParity: yParity === 0 ? 1 : 0 }) }
      }
      case "zeroR": {
        const sig = await this.sign(fee, value, asset, deadline, feeSigner)
        return { fee, deadline, sig: `0x${"0".repeat(64)}${sig.slice(66)}` as Hex }
      }
    }
  }

  // --- intents ---------------------------------------------------------------------------------------------

  private calldata(domain: number): Hex {
    const target = this.chain(domain).addresses.callTarget!
    const choice = this.rng.int(0, 6)
    const to = (address: Address, callData: Hex) => encodeAbiParameters([{ type: "address" }, { type: "bytes" }], [address, callData])
    switch (choice) {
      case 3:
        return to(NO_CODE, "0x1234")
      case 4:
        // A public getter of the target.
        return to(target, encodeFunctionData({ abi: TestCallTargetAbi, functionName: this.rng.pick(["calls", "lastValue", "lastCaller"] as const) }))
      case 5: {
        // forward(address, bytes) whose address word has bits above its 20 bytes: Solidity's decoder refuses it.
        const forward = encodeFunctionData({ abi: TestCallTargetAbi, functionName: "forward", args: [target, "0x"] })
        return to(target, `${forward.slice(0, 10)}00000000000000000000000${this.rng.int(1, 9)}${forward.slice(34)}` as Hex)
      }
      case 6:
        // The address of anvil's default CREATE2 deployer (salt 0, init code STOP): no code on either backend.
        return to(CREATE2_DEPLOYER, `0x${"0".repeat(64)}00`)
      default: {
        const functionName = choice === 2 ? "fail" : "record"
        return to(target, encodeFunctionData({ abi: TestCallTargetAbi, functionName, args: [BigInt(this.rng.int(0, 1_000))] }))
      }
    }
  }

  /** Intent parameters of a random path: netting, fast (same or another output asset), multi-destination, xERC20. */
  private intentParams(origin: number, symbol: Symbol): NewIntentParams {
    const others = DOMAINS.filter((d) => d !== origin)
    const receiver = this.rng.weighted<Address>([
      [5, ROLE.alice],
      [3, ROLE.bob],
      [3, CAROL],
      [1, ZERO_ADDRESS],
    ])
    const destination = this.rng.chance(0.9) ? this.rng.pick(others) : origin
    const path = this.rng.weighted<"netting" | "fast" | "multi">([
      [4, "netting"],
      [4, "fast"],
      [2, "multi"],
    ])
    const data = this.rng.chance(0.12) ? this.calldata(destination) : "0x"
    const amount = this.amount(symbol)
    if (path === "multi") {
      const destinations = this.rng.chance(0.5) ? [...others] : [others[1]!, origin, others[0]!]
      return { destinations, receiver, inputAsset: this.token(symbol), outputAsset: ZERO_ADDRESS, amount, maxFee: 0, ttl: 0, data: "0x" }
    }
    if (path === "netting") {
      const outputAsset = this.rng.chance(0.5) ? this.token(symbol) : ZERO_ADDRESS
      return { destinations: [destination], receiver, inputAsset: this.token(symbol), outputAsset, amount, maxFee: this.rng.pick([0, 10, 1000]), ttl: 0, data }
    }
    const outputSymbol = this.rng.chance(0.8) ? symbol : this.rng.pick(SYMBOLS)
    return {
      destinations: [destination],
      receiver,
      inputAsset: this.token(symbol),
      outputAsset: this.token(outputSymbol),
      amount,
      maxFee: this.rng.pick([0, 100, 1_000, 5_000]),
      ttl: this.rng.pick([60, 600, 3_600, 86_400]),
      data,
    }
  }

  private async adapterIntent(domain: number, forced: { readonly symbol?: Symbol; readonly variant?: SignatureVariant; readonly label?: string } = {}): Promise<Operation> {
    const symbol =
      forced.symbol ??
      this.rng.weighted<Symbol>([
        [4, "USDC"],
        [2, "WETH"],
        [1, "T24"],
        [2, "BLK"],
        [2, "XT"],
      ])
    // Scenario probes come from alice, who never revokes her approvals.
    const user = forced.variant === undefined ? this.rng.pick([ROLE.alice, ROLE.bob]) : ROLE.alice
    const params = this.intentParams(domain, symbol)
    const unit = 10n ** BigInt(DECIMALS[symbol])
    const fee = this.rng.pick([0n, 1_000n, unit])
    const value = this.rng.chance(0.2) ? NATIVE_FEE : 0n
    const variant =
      forced.variant ??
      this.rng.weighted<SignatureVariant>([
        [40, "valid"],
        [3, "v01"],
        [2, "wrongFee"],
        [2, "wrongKey"],
        [1, "short"],
        [1, "highS"],
        [1, "zeroR"],
      ])
    // Scenario probes (a forced variant) keep a long deadline.
    const deadline = forced.variant === undefined && this.rng.chance(0.1) ? SHORT_DEADLINE : LONG_DEADLINE
    const feeParams = await this.feeParams(params.inputAsset, fee, value, deadline, variant)
    return this.op(domain, user, { kind: "feeAdapter.newIntent", ...params, feeParams }, forced.label ?? `adapter intent ${symbol} (${variant}, deadline ${deadline === SHORT_DEADLINE ? "short" : "long"})`, value)
  }

  private async invalidIntent(domain: number): Promise<Operation> {
    const symbol = this.rng.pick<Symbol>(["USDC", "WETH", "XT"])
    const base = this.intentParams(domain, symbol)
    const other = DOMAINS.find((d) => d !== domain)!
    const kind = this.rng.weighted<string>([
      [2, "ttl without output asset"],
      [2, "multi-destination with ttl"],
      [1, "multi-destination with output asset"],
      [1, "eleven destinations"],
      [2, "maxFee over 100%"],
      [1, "calldata over 50,000 bytes"],
      [2, "zero normalized amount"],
      [2, "over balance"],
      [2, "xERC20 over burn limit"],
    ])
    let params: NewIntentParams = base
    switch (kind) {
      case "ttl without output asset":
        params = { ...base, destinations: [other], outputAsset: ZERO_ADDRESS, ttl: 600 }
        break
      case "multi-destination with ttl":
        params = { ...base, destinations: [...DOMAINS], outputAsset: ZERO_ADDRESS, ttl: 600 }
        break
      case "multi-destination with output asset":
        params = { ...base, destinations: [...DOMAINS], outputAsset: this.token(symbol), ttl: 0 }
        break
      case "eleven destinations":
        params = { ...base, destinations: Array.from({ length: 11 }, (_, i) => DOMAINS[i % 3]!), outputAsset: ZERO_ADDRESS, ttl: 0 }
        break
      case "maxFee over 100%":
        params = { ...base, maxFee: 100_001 }
        break
      case "calldata over 50,000 bytes":
        params = { ...base, data: `0x${"ab".repeat(50_001)}` }
        break
      case "zero normalized amount":
        params = { ...base, inputAsset: this.token("T24"), amount: this.rng.big(0n, 999_999n) }
        break
      case "over balance":
        params = { ...base, amount: 2_000_000n * 10n ** BigInt(DECIMALS[symbol]) }
        break
      case "xERC20 over burn limit":
        params = { ...base, inputAsset: this.token("XT"), amount: XT_BURN_LIMIT + 1n }
        break
    }
    const feeParams = await this.feeParams(params.inputAsset, 0n, 0n, LONG_DEADLINE, "valid")
    return this.op(domain, this.rng.pick([ROLE.alice, ROLE.bob]), { kind: "feeAdapter.newIntent", ...params, feeParams }, `invalid adapter intent: ${kind}`)
  }

  private async order(domain: number): Promise<Operation> {
    const kind = this.rng.weighted<string>([
      [5, "valid"],
      [1, "empty"],
      [1, "mixed assets"],
    ])
    const symbol = this.rng.pick<Symbol>(["USDC", "WETH", "BLK", "XT"])
    const count = kind === "empty" ? 0 : this.rng.int(1, 3)
    const params = Array.from({ length: count }, () => this.intentParams(domain, symbol))
    if (kind === "mixed assets") params.push({ ...this.intentParams(domain, "WETH"), inputAsset: this.token(symbol === "WETH" ? "USDC" : "WETH") })
    const value = this.rng.chance(0.2) ? NATIVE_FEE : 0n
    const fee = this.rng.pick([0n, 5_000n])
    const feeParams = await this.feeParams(this.token(symbol), fee, value, LONG_DEADLINE, this.rng.chance(0.9) ? "valid" : "wrongFee")
    return this.op(
      domain,
      this.rng.pick([ROLE.alice, ROLE.bob]),
      { kind: "feeAdapter.newOrder", fee: feeParams.fee, deadline: feeParams.deadline, sig: feeParams.sig, params },
      `order of ${count} (${kind})`,
      value,
    )
  }

  private directIntent(domain: number): Operation {
    const kind = this.rng.weighted<string>([
      [4, "valid"],
      [1, "asset without code"],
      [1, "normalization overflow"],
      [1, "with value"],
    ])
    const symbol = this.rng.pick<Symbol>(["USDC", "WETH", "XT", "T24"])
    let params = this.intentParams(domain, symbol)
    let value = 0n
    if (kind === "asset without code") params = { ...params, inputAsset: NO_CODE }
    if (kind === "normalization overflow") params = { ...params, inputAsset: this.token("USDC"), amount: 2n ** 255n }
    if (kind === "with value") value = 1n
    return this.op(domain, this.rng.pick([ROLE.alice, ROLE.bob, ROLE.solver1]), { kind: "spoke.newIntent", ...params }, `spoke.newIntent (${kind})`, value)
  }

  // --- fills -----------------------------------------------------------------------------------------------

  private fill(domain: number): Operation | undefined {
    const chain = this.chain(domain)
    const candidates = this.fastIntents.filter((k) => k.intent.destinations[0] === domain)
    if (candidates.length === 0) return undefined
    // Mostly intents a solver would fill: not expired, not filled yet.
    const live = candidates.filter(
      (k) => this.now < BigInt(k.intent.timestamp + k.intent.ttl) && chain.read.status(k.intentId) === IntentStatus.NONE,
    )
    const known = live.length > 0 && this.rng.chance(0.85) ? this.rng.pick(live) : this.rng.pick(candidates)
    const solver = this.rng.chance(0.75) ? ROLE.solver1 : ROLE.solver2
    const fee = this.rng.chance(0.9) ? this.rng.int(0, known.intent.maxFee) : known.intent.maxFee + 1
    return this.op(domain, solver, Call.spoke.fillIntent(known.intent, fee), `fill ${known.intentId.slice(0, 10)} fee ${fee}`)
  }

  private invalidFill(domain: number): Operation | undefined {
    const all = [...this.intents.values()]
    if (all.length === 0) return undefined
    const known = this.rng.pick(all)
    return this.op(domain, ROLE.solver1, Call.spoke.fillIntent(known.intent, 0), `fill of any intent on ${domain} (ttl ${known.intent.ttl}, destination ${known.intent.destinations[0]})`)
  }

  // --- balances --------------------------------------------------------------------------------------------

  private deposit(domain: number): Operation {
    const symbol = this.rng.pick(SYMBOLS)
    const solver = this.rng.pick([ROLE.solver1, ROLE.solver2, ROLE.alice])
    const amount = this.rng.chance(0.9) ? this.amount(symbol, 20_000) : 5_000_000n * 10n ** BigInt(DECIMALS[symbol])
    const value = this.rng.chance(0.03) ? 1n : 0n
    return this.op(domain, solver, Call.spoke.deposit(this.token(symbol), amount), `deposit ${symbol}`, value)
  }

  private withdraw(domain: number): Operation {
    const symbol = this.rng.pick(SYMBOLS)
    const who = this.rng.pick([ROLE.solver1, ROLE.solver2, ROLE.alice, ROLE.bob])
    const balance = this.chain(domain).read.virtualBalance(this.token(symbol), who)
    const amount = this.rng.chance(0.8) && balance > 0n ? this.rng.big(0n, balance) : balance + 1n
    return this.op(domain, who, Call.spoke.withdraw(this.token(symbol), amount), `withdraw ${symbol}`)
  }

  // --- queues ----------------------------------------------------------------------------------------------

  private processIntentQueue(domain: number, forced?: "valid"): Operation {
    const chain = this.chain(domain)
    const queue = chain.read.intentQueue(8).map((q) => q.intent)
    const kind = forced ?? this.rng.weighted<string>([
      [8, "valid"],
      [1, "zero"],
      [1, "too many"],
      [1, "wrong order"],
      [1, "insufficient fee"],
    ])
    let intents = queue.slice(0, Math.max(1, this.rng.int(1, Math.max(1, queue.length))))
    if (queue.length === 0 || kind === "zero") intents = []
    if (kind === "too many") intents = [...queue, ...(this.intents.size > 0 ? [this.rng.pick([...this.intents.values()]).intent] : [])]
    if (kind === "wrong order" && intents.length >= 2) intents = [intents[1]!, intents[0]!, ...intents.slice(2)]
    const quote = chain.read.quoteMessage(HUB_DOMAIN, encodeIntentMessage(intents))
    const value = kind === "insufficient fee" ? quote - 1n : quote + (this.rng.chance(0.3) ? 12_345n : 0n)
    return this.op(domain, this.rng.pick([ROLE.lighthouse, ROLE.alice]), Call.spoke.processIntentQueue(intents), `processIntentQueue ${intents.length} (${kind}${value > quote ? ", overpaid" : ""})`, value)
  }

  private processFillQueue(domain: number): Operation {
    const chain = this.chain(domain)
    const length = chain.read.fillQueueLength()
    const kind = this.rng.weighted<string>([
      [6, "valid"],
      [1, "zero"],
      [1, "too many"],
      [1, "insufficient fee"],
    ])
    let amount = length === 0 ? 0 : this.rng.int(1, length)
    if (kind === "zero") amount = 0
    if (kind === "too many") amount = length + 1
    const gateway = chain.world.gateway
    const quote = gateway.baseFee + gateway.feePerByte * BigInt(160 + 160 * amount)
    // Overpaid sometimes: the gateway refunds the rest to tx.origin.
    const value = kind === "insufficient fee" ? quote - 1n : quote + (this.rng.chance(0.3) ? this.rng.pick([1n, 10n ** 15n]) : 0n)
    return this.op(domain, ROLE.lighthouse, Call.spoke.processFillQueue(amount), `processFillQueue ${amount} (${kind}${value > quote ? ", overpaid" : ""})`, value)
  }

  // --- hub messages ----------------------------------------------------------------------------------------

  /** Settlement batches of the hubs, delivered by the relayer (sometimes late, sometimes twice). */
  private deliveries(domain: number): Operation[] {
    const ops: Operation[] = []
    for (let i = 0; i < this.pending.length; ) {
      const delivery = this.pending[i]!
      if (delivery.destination !== domain || !this.rng.chance(0.75)) {
        i++
        continue
      }
      this.pending.splice(i, 1)
      this.delivered.push(delivery)
      const op = this.op(domain, ROLE.relayer, Call.gateway.receiveMessage(HUB_DOMAIN, delivery.messageId, delivery.message), `deliver hub batch ${delivery.messageId.slice(0, 10)}`)
      this.deliveryOps.set(op, delivery)
      ops.push(op)
    }
    return ops
  }

  private deliveryVariant(domain: number): Operation | undefined {
    const mine = this.delivered.filter((d) => d.destination === domain)
    const kind = this.rng.weighted<string>([
      [3, "duplicate"],
      [1, "wrong origin"],
      [1, "not the relayer"],
      [2, "var update"],
      [1, "unknown variable"],
      [1, "intent message"],
      [1, "garbage"],
    ])
    const fresh = this.freshMessageId()
    switch (kind) {
      case "duplicate": {
        if (mine.length === 0) return undefined
        const d = this.rng.pick(mine)
        return this.op(domain, ROLE.relayer, Call.gateway.receiveMessage(HUB_DOMAIN, d.messageId, d.message), "duplicate delivery")
      }
      case "wrong origin":
        return this.op(domain, ROLE.relayer, Call.gateway.receiveMessage(DOMAINS[0], fresh, encodeSettlementMessage([])), "delivery from a wrong origin")
      case "not the relayer":
        return this.op(domain, ROLE.alice, Call.gateway.receiveMessage(HUB_DOMAIN, fresh, encodeSettlementMessage([])), "delivery by a non-relayer")
      case "var update": {
        const variable = this.rng.pick([VARIABLE_HASHES.LIGHTHOUSE, VARIABLE_HASHES.WATCHTOWER])
        const value = variable === VARIABLE_HASHES.LIGHTHOUSE ? ROLE.lighthouse : ROLE.watchtower
        const message = encodeVarUpdateMessage(variable, encodeAbiParameters([{ type: "bytes32" }], [addressToBytes32(value)]))
        return this.op(domain, ROLE.relayer, Call.gateway.receiveMessage(HUB_DOMAIN, fresh, message), "VAR_UPDATE (same value)")
      }
      case "unknown variable": {
        const message = encodeVarUpdateMessage(keccak256Utf8("MAX_FEE"), encodeAbiParameters([{ type: "uint256" }], [1n]))
        return this.op(domain, ROLE.relayer, Call.gateway.receiveMessage(HUB_DOMAIN, fresh, message), "VAR_UPDATE of an unknown variable")
      }
      case "intent message": {
        const some = [...this.intents.values()].slice(0, 1).map((k) => k.intent)
        return this.op(domain, ROLE.relayer, Call.gateway.receiveMessage(HUB_DOMAIN, fresh, encodeIntentMessage(some)), "INTENT message to a spoke")
      }
      default:
        return this.op(domain, ROLE.relayer, Call.gateway.receiveMessage(HUB_DOMAIN, fresh, "0x1234"), "garbage message")
    }
  }

  private freshMessageId(): Bytes32 {
    return keccak256Utf8(`handmade message ${this.handmade++}`)
  }

  /** A settlement batch written by hand: blacklisted recipients, debts, unknown assets, repeats, truncation. */
  private handmadeSettlement(domain: number): Operation {
    const count = this.rng.int(1, 4)
    const settlements: Settlement[] = []
    for (let i = 0; i < count; i++) {
      const repeat = this.extraIds.length > 0 && this.rng.chance(0.2)
      const intentId = repeat ? this.rng.pick(this.extraIds) : keccak256Utf8(`handmade settlement ${this.handmade++}`)
      if (!repeat) this.extraIds.push(intentId)
      const assetChoice = this.rng.weighted<Address>([
        [3, this.token("USDC")],
        [3, this.token("BLK")],
        [4, this.token("XT")],
        [1, this.token("T24")],
        [1, NO_CODE],
      ])
      const amount18 = this.rng.chance(0.1) ? this.rng.big(0n, 999_999_999_999n) : this.rng.big(1n, 3_000n) * 10n ** 18n + this.rng.big(0n, 10n ** 18n)
      settlements.push({
        intentId,
        amount: amount18,
        asset: addressToBytes32(assetChoice),
        recipient: addressToBytes32(this.rng.pick([ROLE.alice, ROLE.bob, CAROL])),
        updateVirtualBalance: this.rng.chance(0.3),
      })
    }
    const messageId = this.freshMessageId()
    const delivery = { destination: domain, messageId, message: encodeSettlementMessage(settlements) }
    this.delivered.push(delivery)
    return this.op(domain, ROLE.relayer, Call.gateway.receiveMessage(HUB_DOMAIN, messageId, delivery.message), `handmade settlement batch of ${count}`)
  }

  // --- xERC20, roles, tokens -----------------------------------------------------------------------------

  private mintDebt(domain: number): Operation | undefined {
    const chain = this.chain(domain)
    const xt = this.token("XT")
    const debtors = [ROLE.alice, ROLE.bob, CAROL, chain.addresses.spoke].filter((a) => chain.read.mintable(a, xt) > 0n)
    if (debtors.length === 0) return undefined
    const recipient = this.rng.pick(debtors)
    const debt = chain.read.mintable(recipient, xt)
    const limit = chain.read.xerc20Limits(xt).mintingCurrentLimit
    const amount = this.rng.weighted<bigint>([
      [5, limit > 0n ? (debt < limit ? debt : limit) : debt],
      [3, this.rng.big(1n, debt)],
      [1, debt + 1n],
    ])
    return this.op(domain, this.rng.pick([ROLE.bob, ROLE.lighthouse]), Call.xerc20Module.mintDebt(xt, recipient, amount), "mintDebt")
  }

  private pauseToggle(domain: number): Operation {
    const paused = this.chain(domain).read.paused()
    const who = this.rng.weighted<Address>([
      [3, ROLE.lighthouse],
      [3, ROLE.watchtower],
      [1, ROLE.alice],
    ])
    return this.op(domain, who, paused ? Call.spoke.unpause() : Call.spoke.pause(), paused ? "unpause" : "pause")
  }

  private executeCalldata(domain: number): Operation | undefined {
    const chain = this.chain(domain)
    const settled = [...this.intents.values()].filter(
      (k) => k.intent.destinations[0] === domain && chain.read.status(k.intentId) === IntentStatus.SETTLED,
    )
    const known = settled.length > 0 && this.rng.chance(0.8) ? this.rng.pick(settled) : this.intents.size > 0 ? this.rng.pick([...this.intents.values()]) : undefined
    if (known === undefined) return undefined
    return this.op(domain, this.rng.pick([ROLE.alice, ROLE.lighthouse]), Call.spoke.executeIntentCalldata(known.intent), "executeIntentCalldata")
  }

  private admin(domain: number): Operation {
    const kind = this.rng.weighted<string>([
      [2, "blacklist bob"],
      [2, "unblacklist bob"],
      [1, "blacklist carol"],
      [1, "revert mode"],
      [1, "blacklist by non-owner"],
      [1, "xERC20 limits"],
      [1, "xERC20 limits by non-owner"],
      [1, "fee recipient to a contract"],
      [2, "fee recipient back"],
      [1, "fee recipient by non-owner"],
      [1, "hub domain by non-owner"],
      [1, "gateway fees"],
    ])
    const blk = this.token("BLK")
    const chain = this.chain(domain)
    switch (kind) {
      case "blacklist bob":
        return this.op(domain, ROLE.owner, Call.blacklist.setBlacklisted(blk, ROLE.bob, true), kind)
      case "unblacklist bob":
        return this.op(domain, ROLE.owner, Call.blacklist.setBlacklisted(blk, ROLE.bob, false), kind)
      case "blacklist carol":
        return this.op(domain, ROLE.owner, Call.blacklist.setBlacklisted(blk, CAROL, this.rng.chance(0.5)), kind)
      case "revert mode":
        return this.op(domain, ROLE.owner, Call.blacklist.setRevertOnBlacklisted(blk, this.rng.chance(0.5)), kind)
      case "blacklist by non-owner":
        return this.op(domain, ROLE.alice, Call.blacklist.setBlacklisted(blk, ROLE.bob, true), kind)
      case "xERC20 limits": {
        const mint = this.rng.pick([XT_MINT_LIMIT, XT_MINT_LIMIT / 4n, 0n])
        return this.op(domain, ROLE.owner, Call.xerc20.setLimits(this.token("XT"), chain.addresses.xerc20Module, mint, XT_BURN_LIMIT), kind)
      }
      case "xERC20 limits by non-owner":
        return this.op(domain, ROLE.bob, Call.xerc20.setLimits(this.token("XT"), chain.addresses.xerc20Module, 0n, 0n), kind)
      case "fee recipient to a contract":
        return this.op(domain, ROLE.owner, Call.feeAdapter.updateFeeRecipient(chain.addresses.callTarget!), kind)
      case "fee recipient back":
        return this.op(domain, ROLE.owner, Call.feeAdapter.updateFeeRecipient(ROLE.feeRecipient), kind)
      case "fee recipient by non-owner":
        return this.op(domain, ROLE.alice, Call.feeAdapter.updateFeeRecipient(ROLE.alice), kind)
      case "hub domain by non-owner":
        return this.op(domain, ROLE.bob, Call.spoke.updateHubDomain(1), kind)
      default:
        return this.op(domain, this.rng.pick([ROLE.owner, ROLE.alice]), Call.gateway.setFees(1_000_000_000n, this.rng.pick([1_000_000n, 2_000_000n])), kind)
    }
  }

  private tokenMisc(domain: number): Operation {
    const symbol = this.rng.pick(SYMBOLS)
    const token = this.token(symbol)
    const kind = this.rng.weighted<string>([
      [3, "transfer"],
      [1, "transfer over balance"],
      [1, "transferFrom without allowance"],
      [2, "mint by owner"],
      [1, "mint by non-owner"],
      [1, "revoke approval"],
      [2, "approve again"],
    ])
    const from = this.rng.pick([ROLE.alice, ROLE.bob])
    const to = this.rng.pick([ROLE.alice, ROLE.bob, CAROL, ROLE.solver1])
    const chain = this.chain(domain)
    switch (kind) {
      case "transfer":
        return this.op(domain, from, Call.erc20.transfer(token, to, this.amount(symbol, 100)), `${symbol} ${kind}`)
      case "transfer over balance":
        return this.op(domain, from, Call.erc20.transfer(token, to, 10n ** 40n), `${symbol} ${kind}`)
      case "transferFrom without allowance":
        return this.op(domain, ROLE.solver2, Call.erc20.transferFrom(token, from, to, 1n), `${symbol} ${kind}`)
      case "mint by owner":
        return this.op(domain, ROLE.owner, Call.erc20.mint(token, this.rng.pick([ROLE.solver2, ROLE.bob]), this.amount(symbol, 10_000)), `${symbol} ${kind}`)
      case "mint by non-owner":
        return this.op(domain, from, Call.erc20.mint(token, from, 1n), `${symbol} ${kind}`)
      case "revoke approval":
        return this.op(domain, ROLE.bob, Call.erc20.approve(token, this.rng.pick([chain.addresses.feeAdapter, chain.addresses.spoke]), 0n), `${symbol} ${kind}`)
      default:
        return this.op(domain, from, Call.erc20.approve(token, this.rng.pick([chain.addresses.feeAdapter, chain.addresses.spoke, chain.addresses.xerc20Module]), maxUint256), `${symbol} ${kind}`)
    }
  }

  // --- configuration: roles, strategies, modules, relayer, VAR_UPDATEs, unsupported intents ---------------
  //
  // Scenarios taken in turn (so that every one comes up a few times whatever the seed), each a change followed by
  // probes that meet the changed state; `restores` undoes the change a block or two later.

  /** The settings the owner puts back at the start of this block (`restores`), by domain. */
  private readonly restoring = new Map<number, Set<string>>()
  private scenarioTurn = 0

  /** The settings as they will be after this block's restores (the memory state is the block's start). */
  private effective(domain: number): { readonly lighthouse: Address; readonly watchtower: Address; readonly relayer: Address; readonly gateway: Address } {
    const world = this.chain(domain).world
    const restored = this.restoring.get(domain) ?? new Set<string>()
    return {
      lighthouse: restored.has("lighthouse") ? ROLE.lighthouse : world.spoke.lighthouse,
      watchtower: restored.has("watchtower") ? ROLE.watchtower : world.spoke.watchtower,
      relayer: restored.has("relayer") ? ROLE.relayer : world.gateway.relayer,
      gateway: restored.has("spoke gateway") ? world.layout.addresses.gateway : world.spoke.gateway,
    }
  }

  /**
   * The owner puts back what the scenarios changed, each setting with probability 3/4 per block: the rest of the
   * mix meets a change for a block or so, without starving.
   */
  private restores(domain: number): Operation[] {
    const world = this.chain(domain).world
    const { addresses } = world.layout
    const ops: Operation[] = []
    const restored = new Set<string>()
    this.restoring.set(domain, restored)
    const restore = (changed: boolean, call: SpokeCall, label: string): void => {
      if (!changed || !this.rng.chance(0.75)) return
      restored.add(label)
      ops.push(this.op(domain, ROLE.owner, call, `restore ${label}`))
    }
    restore(world.feeAdapter.feeSigner !== ROLE.feeSigner, Call.feeAdapter.updateFeeSigner(ROLE.feeSigner), "fee signer")
    restore(world.spoke.lighthouse !== ROLE.lighthouse, Call.spoke.updateLighthouse(ROLE.lighthouse), "lighthouse")
    restore(world.spoke.watchtower !== ROLE.watchtower, Call.spoke.updateWatchtower(ROLE.watchtower), "watchtower")
    restore(world.spoke.hubDomain !== HUB_DOMAIN, Call.spoke.updateHubDomain(HUB_DOMAIN), "hub domain")
    restore(world.spoke.gateway !== addresses.gateway, Call.spoke.updateGateway(addresses.gateway), "spoke gateway")
    restore(world.gateway.relayer !== ROLE.relayer, Call.gateway.updateRelayer(ROLE.relayer), "relayer")
    restore((world.spoke.modules.get(Strategy.XERC20) ?? ZERO_ADDRESS) !== addresses.xerc20Module, Call.spoke.setModuleForStrategy(Strategy.XERC20, addresses.xerc20Module), "xERC20 module")
    const xt = this.token("XT")
    restore(world.tokens.get(xt)!.limits(addresses.xerc20Module, world.now).burningMaxLimit === MAX_XERC20_LIMIT, Call.xerc20.setLimits(xt, addresses.xerc20Module, XT_MINT_LIMIT, XT_BURN_LIMIT), "xERC20 limits")
    for (const symbol of SYMBOLS) {
      const expected = symbol === "XT" ? Strategy.XERC20 : Strategy.DEFAULT
      const asset = this.token(symbol)
      restore((world.spoke.strategies.get(asset) ?? Strategy.DEFAULT) !== expected, Call.spoke.setStrategyForAsset(asset, expected), `${symbol} strategy`)
    }
    return ops
  }

  /** A hub message delivered by `from` (the relayer, normally) under a fresh message id. */
  private hubMessage(domain: number, from: Address, message: Hex, label: string): Operation {
    return this.op(domain, from, Call.gateway.receiveMessage(HUB_DOMAIN, this.freshMessageId(), message), label)
  }

  /** A one-settlement batch of `symbol` (a fresh intent id), delivered by `from`. */
  private settlementOf(domain: number, from: Address, symbol: Symbol, recipient: Address, updateVirtualBalance: boolean, amount18: bigint, label: string): Operation {
    const intentId = keccak256Utf8(`handmade settlement ${this.handmade++}`)
    this.extraIds.push(intentId)
    const message = encodeSettlementMessage([{ intentId, amount: amount18, asset: addressToBytes32(this.token(symbol)), recipient: addressToBytes32(recipient), updateVirtualBalance }])
    const op = this.hubMessage(domain, from, message, label)
    const call = op.call as Extract<SpokeCall, { kind: "gateway.receiveMessage" }>
    this.delivered.push({ destination: domain, messageId: call.messageId, message })
    return op
  }

  /** A one-settlement batch handed to the spoke's `receiveMessage` by `from` directly (the owner, normally). */
  private ownerSettlement(domain: number, from: Address, symbol: Symbol, recipient: Address, updateVirtualBalance: boolean, amount18: bigint, label: string): Operation {
    const intentId = keccak256Utf8(`handmade settlement ${this.handmade++}`)
    this.extraIds.push(intentId)
    const message = encodeSettlementMessage([{ intentId, amount: amount18, asset: addressToBytes32(this.token(symbol)), recipient: addressToBytes32(recipient), updateVirtualBalance }])
    return this.op(domain, from, Call.spoke.receiveMessage(message), label)
  }

  private varUpdate(domain: number, variable: Bytes32, value: Hex, label: string): Operation {
    return this.hubMessage(domain, this.effective(domain).relayer, encodeVarUpdateMessage(variable, value), label)
  }

  /** The next scenario: a configuration change (or owner operation) and its probes, in order. */
  private async scenario(domain: number): Promise<Operation[]> {
    const world = this.chain(domain).world
    const { addresses } = world.layout
    const { relayer } = this.effective(domain)
    const word = (address: Address): Hex => encodeAbiParameters([{ type: "bytes32" }], [addressToBytes32(address)])
    const user = (): Address => this.rng.pick([ROLE.alice, ROLE.bob])
    const scenarios = [
      "unsupported intent",
      "fee signer",
      "lighthouse",
      "watchtower",
      "role VAR_UPDATEs",
      "hub domain",
      "xERC20 strategy on a plain token",
      "default strategy on XT",
      "module",
      "relayer",
      "gateway VAR_UPDATE",
      "short VAR_UPDATE",
      "owner receiveMessage",
      "mailbox VAR_UPDATE",
      "malformed hub messages",
      "fee signature variants",
      "xERC20 limits at the maximum",
    ] as const
    const scenario = scenarios[this.scenarioTurn++ % scenarios.length]!
    switch (scenario) {
      case "unsupported intent": {
        // What the hub does with an intent it cannot settle: credits the initiator (the fee adapter) on the
        // origin; the adapter's owner then sends the funds back by hand.
        const symbol = this.rng.pick<Symbol>(["USDC", "WETH", "BLK", "XT"])
        const amount18 = this.rng.big(1n, 500n) * 10n ** 18n
        const credited = amount18 / 10n ** BigInt(18 - DECIMALS[symbol])
        const held = world.spoke.balanceOf(this.token(symbol), addresses.feeAdapter) + credited
        const recipient = this.rng.weighted<Address>([
          [3, ROLE.alice],
          [2, ROLE.bob],
          [1, CAROL],
        ])
        const asset = this.token(symbol)
        const ops = [
          this.settlementOf(domain, relayer, symbol, addresses.feeAdapter, true, amount18, `unsupported ${symbol} intent returned to the fee adapter`),
          this.op(domain, ROLE.owner, Call.feeAdapter.returnUnsupportedIntent(asset, this.rng.chance(0.5) ? held : this.rng.big(1n, held), recipient), `returnUnsupportedIntent ${symbol} (valid)`),
        ]
        const extra = this.rng.weighted<string>([
          [2, "none"],
          [1, "over balance"],
          [1, "by non-owner"],
        ])
        if (extra === "over balance") ops.push(this.op(domain, ROLE.owner, Call.feeAdapter.returnUnsupportedIntent(asset, held + 1n, recipient), `returnUnsupportedIntent ${symbol} (over balance)`))
        if (extra === "by non-owner") ops.push(this.op(domain, ROLE.alice, Call.feeAdapter.returnUnsupportedIntent(asset, 1n, ROLE.alice), `returnUnsupportedIntent ${symbol} (by non-owner)`))
        return ops
      }
      case "fee signer":
        // The fee signer's signatures stop working, the new signer's (alice: the "wrongKey" variant) start to.
        return [
          this.op(domain, ROLE.bob, Call.feeAdapter.updateFeeSigner(ROLE.bob), "fee signer by non-owner"),
          this.op(domain, ROLE.owner, Call.feeAdapter.updateFeeSigner(ROLE.alice), "fee signer to alice"),
          await this.adapterIntent(domain, { variant: "valid", label: "intent signed by the former fee signer" }),
          await this.adapterIntent(domain, { variant: "wrongKey", label: "intent signed by the new fee signer" }),
        ]
      case "lighthouse":
        return [
          this.op(domain, ROLE.lighthouse, Call.spoke.updateLighthouse(ROLE.lighthouse), "lighthouse by non-owner"),
          this.op(domain, ROLE.owner, Call.spoke.updateLighthouse(ROLE.bob), "lighthouse to bob"),
          this.op(domain, ROLE.lighthouse, Call.spoke.unpause(), "unpause by the former lighthouse"),
          this.op(domain, ROLE.bob, Call.spoke.unpause(), "unpause by the new lighthouse"),
        ]
      case "watchtower":
        return [
          this.op(domain, ROLE.owner, Call.spoke.updateWatchtower(CAROL), "watchtower to carol"),
          this.op(domain, ROLE.watchtower, Call.spoke.unpause(), "unpause by the former watchtower"),
        ]
      case "role VAR_UPDATEs":
        return this.rng.chance(0.5)
          ? [this.varUpdate(domain, VARIABLE_HASHES.LIGHTHOUSE, word(ROLE.bob), "lighthouse VAR_UPDATE to bob"), this.op(domain, ROLE.bob, Call.spoke.unpause(), "unpause by the new lighthouse")]
          : [this.varUpdate(domain, VARIABLE_HASHES.WATCHTOWER, word(ROLE.alice), "watchtower VAR_UPDATE to alice"), this.op(domain, ROLE.alice, Call.spoke.unpause(), "unpause by the new watchtower")]
      case "hub domain":
        // The queue goes to another domain (the hubs never see these intents, on either backend).
        return [this.op(domain, ROLE.owner, Call.spoke.updateHubDomain(this.rng.pick([HUB_DOMAIN + 1, DOMAINS[0]])), "hub domain changed"), this.processIntentQueue(domain, "valid")]
      case "xERC20 strategy on a plain token": {
        const symbol = this.rng.pick<Symbol>(["USDC", "WETH"])
        const ops = [this.op(domain, ROLE.owner, Call.spoke.setStrategyForAsset(this.token(symbol), Strategy.XERC20), "xERC20 strategy on a plain token")]
        ops.push(await this.adapterIntent(domain, { symbol, variant: "valid", label: `${symbol} intent with the xERC20 strategy` }))
        ops.push(this.settlementOf(domain, relayer, symbol, user(), this.rng.chance(0.5), this.rng.big(1n, 100n) * 10n ** 18n, `${symbol} settlement with the xERC20 strategy`))
        if (this.rng.chance(0.3)) ops.push(this.op(domain, ROLE.bob, Call.spoke.setStrategyForAsset(this.token(symbol), Strategy.XERC20), "strategy by non-owner"))
        return ops
      }
      case "default strategy on XT":
        // XT pulled and transferred like a plain token (the spoke holds XT only from virtual-balance mints).
        return [
          this.op(domain, ROLE.owner, Call.spoke.setStrategyForAsset(this.token("XT"), Strategy.DEFAULT), "default strategy on XT"),
          await this.adapterIntent(domain, { symbol: "XT", variant: "valid", label: "XT intent with the default strategy" }),
          this.settlementOf(domain, relayer, "XT", user(), this.rng.chance(0.5), this.rng.big(1n, 100n) * 10n ** 18n, "XT settlement with the default strategy"),
        ]
      case "module": {
        const variant = this.rng.weighted<string>([
          [3, "xERC20 module unset"],
          [2, "xERC20 module without code"],
        ])
        const ops = [this.op(domain, ROLE.owner, Call.spoke.setModuleForStrategy(Strategy.XERC20, variant === "xERC20 module unset" ? ZERO_ADDRESS : NO_CODE), variant)]
        // XT must use the module for the probes to reach it (the "default strategy on XT" scenario may be on).
        if (world.spoke.strategies.get(this.token("XT")) !== Strategy.XERC20) ops.push(this.op(domain, ROLE.owner, Call.spoke.setStrategyForAsset(this.token("XT"), Strategy.XERC20), "restore XT strategy"))
        if (this.rng.chance(0.3)) ops.push(this.op(domain, ROLE.owner, Call.spoke.setModuleForStrategy(Strategy.DEFAULT, NO_CODE), "module of the default strategy"))
        if (this.rng.chance(0.3)) ops.push(this.op(domain, ROLE.alice, Call.spoke.setModuleForStrategy(Strategy.XERC20, ZERO_ADDRESS), "module by non-owner"))
        ops.push(await this.adapterIntent(domain, { symbol: "XT", variant: "valid", label: `XT intent (${variant})` }))
        ops.push(this.settlementOf(domain, relayer, "XT", user(), this.rng.chance(0.5), this.rng.big(1n, 100n) * 10n ** 18n, `XT settlement (${variant})`))
        return ops
      }
      case "relayer":
        return [
          this.op(domain, ROLE.relayer, Call.gateway.updateRelayer(ROLE.relayer), "relayer by non-owner"),
          this.op(domain, ROLE.owner, Call.gateway.updateRelayer(ROLE.alice), "relayer to alice"),
          this.settlementOf(domain, ROLE.relayer, "USDC", user(), false, this.rng.big(1n, 100n) * 10n ** 18n, "settlement by the former relayer"),
          this.settlementOf(domain, ROLE.alice, "USDC", user(), this.rng.chance(0.5), this.rng.big(1n, 100n) * 10n ** 18n, "settlement by the new relayer"),
        ]
      case "gateway VAR_UPDATE": {
        if (this.rng.chance(0.25)) return [this.varUpdate(domain, VARIABLE_HASHES.GATEWAY, word(addresses.gateway), "GATEWAY VAR_UPDATE (same value)")]
        // The spoke then refuses the gateway's deliveries, and its sends go to an address that is not a gateway.
        return [
          this.varUpdate(domain, VARIABLE_HASHES.GATEWAY, word(this.rng.pick([NO_CODE, ROLE.alice, addresses.callTarget!])), "GATEWAY VAR_UPDATE to another address"),
          this.settlementOf(domain, relayer, "USDC", user(), false, 10n ** 18n, "settlement through a replaced gateway"),
          this.processIntentQueue(domain, "valid"),
        ]
      }
      case "short VAR_UPDATE": {
        const variable = this.rng.pick([VARIABLE_HASHES.GATEWAY, VARIABLE_HASHES.MAILBOX, VARIABLE_HASHES.LIGHTHOUSE, VARIABLE_HASHES.WATCHTOWER])
        const same =
          variable === VARIABLE_HASHES.GATEWAY
            ? addresses.gateway
            : variable === VARIABLE_HASHES.MAILBOX
              ? relayer
              : variable === VARIABLE_HASHES.LIGHTHOUSE
                ? ROLE.lighthouse
                : ROLE.watchtower
        // `abi.decode(value, (bytes32))` needs 32 bytes: shorter values revert; longer ones and dirty upper bytes
        // (the spoke keeps the low 20 bytes) do not.
        const short = this.rng.weighted<readonly [Hex, string]>([
          [2, [same, "VAR_UPDATE with a 20-byte value"]],
          [1, ["0x", "VAR_UPDATE with an empty value"]],
          [1, [word(same).slice(0, 64) as Hex, "VAR_UPDATE with a 31-byte value"]],
        ])
        const ops = [this.varUpdate(domain, variable, short[0], short[1])]
        const extra = this.rng.weighted<string>([
          [1, "unknown variable, short value"],
          [1, "dirty upper bytes"],
          [1, "33-byte value"],
        ])
        if (extra === "unknown variable, short value") ops.push(this.varUpdate(domain, keccak256Utf8("INTENT_TTL"), "0x01", "VAR_UPDATE: unknown variable, short value"))
        if (extra === "dirty upper bytes") ops.push(this.varUpdate(domain, variable, `0x${"ff".repeat(12)}${same.slice(2)}` as Hex, "VAR_UPDATE with dirty upper bytes"))
        if (extra === "33-byte value") ops.push(this.varUpdate(domain, variable, `${word(same)}00` as Hex, "VAR_UPDATE with a 33-byte value"))
        return ops
      }
      case "owner receiveMessage": {
        // The gateway cannot deliver while the spoke is paused; the owner can hand messages to the spoke directly,
        // paused or not (reference §4.8). Anyone else is refused.
        const { lighthouse } = this.effective(domain)
        const ops = [this.op(domain, lighthouse, Call.spoke.pause(), "pause before the owner's delivery")]
        ops.push(this.settlementOf(domain, relayer, "USDC", user(), false, this.rng.big(1n, 100n) * 10n ** 18n, "settlement through the gateway while paused"))
        ops.push(this.ownerSettlement(domain, ROLE.owner, this.rng.pick<Symbol>(["USDC", "BLK", "XT"]), user(), this.rng.chance(0.5), this.rng.big(1n, 100n) * 10n ** 18n, "owner's settlement while paused"))
        if (this.rng.chance(0.5)) {
          ops.push(this.op(domain, ROLE.owner, Call.spoke.receiveMessage(encodeVarUpdateMessage(VARIABLE_HASHES.WATCHTOWER, word(this.effective(domain).watchtower))), "owner's VAR_UPDATE while paused"))
        }
        ops.push(this.ownerSettlement(domain, this.rng.pick([ROLE.alice, relayer, ROLE.lighthouse]), "USDC", user(), false, 10n ** 18n, "receiveMessage on the spoke by a stranger"))
        ops.push(this.op(domain, lighthouse, Call.spoke.unpause(), "unpause after the owner's delivery"))
        if (this.rng.chance(0.5)) ops.push(this.ownerSettlement(domain, ROLE.owner, "WETH", user(), this.rng.chance(0.5), this.rng.big(1n, 100n) * 10n ** 18n, "owner's settlement"))
        return ops
      }
      case "mailbox VAR_UPDATE": {
        // The gateway's mailbox is its relayer: the new one delivers, the former one is refused.
        const mailbox = relayer === ROLE.alice ? ROLE.bob : ROLE.alice
        const message = encodeVarUpdateMessage(VARIABLE_HASHES.MAILBOX, word(mailbox))
        return [
          this.rng.chance(0.3) ? this.op(domain, ROLE.owner, Call.spoke.receiveMessage(message), "owner's MAILBOX VAR_UPDATE") : this.hubMessage(domain, relayer, message, "MAILBOX VAR_UPDATE"),
          this.settlementOf(domain, relayer, "USDC", user(), false, this.rng.big(1n, 100n) * 10n ** 18n, "settlement by the former mailbox"),
          this.settlementOf(domain, mailbox, "USDC", user(), this.rng.chance(0.5), this.rng.big(1n, 100n) * 10n ** 18n, "settlement by the new mailbox"),
        ]
      }
      case "malformed hub messages":
        // Payloads abi.decode refuses: without data, or Panic(0x41) when a length cannot be allocated.
        return malformedHubMessages().map(([label, message]) =>
          this.rng.chance(0.7) ? this.hubMessage(domain, relayer, message, `malformed: ${label}`) : this.op(domain, ROLE.owner, Call.spoke.receiveMessage(message), `malformed: ${label}`),
        )
      case "fee signature variants": {
        const ops: Operation[] = []
        for (const variant of ["v01", "short", "highS", "zeroR", "wrongKey"] as const) {
          ops.push(await this.adapterIntent(domain, { variant, label: `intent with a ${variant} signature` }))
        }
        return ops
      }
      case "xERC20 limits at the maximum": {
        // Limits above type(uint256).max / 2 are refused; at the maximum, the refill never overflows (the limits
        // stay until the owner restores them, so time passes over a partly used limit).
        const xt = this.token("XT")
        const { xerc20Module } = addresses
        return [
          this.op(domain, ROLE.owner, Call.xerc20.setLimits(xt, xerc20Module, MAX_XERC20_LIMIT + 1n, XT_BURN_LIMIT), "xERC20 minting limit above the maximum"),
          this.op(domain, ROLE.owner, Call.xerc20.setLimits(xt, xerc20Module, XT_MINT_LIMIT, this.rng.pick([MAX_XERC20_LIMIT + 1n, maxUint256])), "xERC20 burning limit above the maximum"),
          this.op(domain, ROLE.owner, Call.xerc20.setLimits(xt, xerc20Module, MAX_XERC20_LIMIT, MAX_XERC20_LIMIT), "xERC20 limits at the maximum"),
          await this.adapterIntent(domain, { symbol: "XT", variant: "valid", label: "XT intent under the maximum limits" }),
          this.settlementOf(domain, relayer, "XT", user(), this.rng.chance(0.5), this.rng.big(1n, 100n) * 10n ** 18n, "XT settlement under the maximum limits"),
        ]
      }
    }
  }

  /**
   * A scenario at the end of the block, after an unpause (and a restored spoke gateway) when the block may have
   * left the spoke paused or deaf, so that the change itself goes through.
   */
  private async scenarioOps(domain: number, block: readonly Operation[]): Promise<Operation[]> {
    const world = this.chain(domain).world
    const { addresses } = world.layout
    const ops: Operation[] = []
    const effective = this.effective(domain)
    if (effective.gateway !== addresses.gateway) ops.push(this.op(domain, ROLE.owner, Call.spoke.updateGateway(addresses.gateway), "restore spoke gateway"))
    if (world.spoke.paused || block.some((op) => op.call.kind === "spoke.pause")) {
      if (effective.lighthouse !== ROLE.lighthouse) ops.push(this.op(domain, ROLE.owner, Call.spoke.updateLighthouse(ROLE.lighthouse), "restore lighthouse"))
      ops.push(this.op(domain, ROLE.lighthouse, Call.spoke.unpause(), "unpause"))
    }
    ops.push(...(await this.scenario(domain)))
    return ops
  }

  // --- Permit2 -------------------------------------------------------------------------------------------

  private permitOp(domain: number, from: Address, call: SpokeCall, label: string): Operation {
    return { domain, from, call, value: 0n, raw: this.permitRng.chance(0.3), label }
  }

  private async signPermit(permit: Permit2Permit, signer: Address): Promise<Hex> {
    return account(signer).signTypedData(permit2TypedData(permit))
  }

  /** A fresh nonce anywhere in the bitmap (several words, bit positions at both ends). */
  private permitNonce(): bigint {
    return this.permitRng.pick([0n, 1n << 8n, 1n << 200n]) + this.permitRng.big(0n, 255n)
  }

  /**
   * Permit2 operations, on one domain every third block (their own random stream): the fee adapter's and the
   * spoke's Permit2 overloads, good and bad (expired, reused nonce, another signer, a permit without the fee, a
   * token Permit2 may not spend, an invalid intent with an expired or a good permit), and direct `permitTransferFrom` calls (over the permitted amount, compact and
   * malformed signatures, invalidated nonces). Alice approved Permit2 in the setup block; bob did not.
   */
  async permit2Ops(): Promise<Operation[]> {
    const turn = this.permitTurn++
    if (turn % 3 !== 0) return []
    const domain = DOMAINS[(turn / 3) % DOMAINS.length]!
    const { addresses } = this.chain(domain)
    const rng = this.permitRng
    const symbol = rng.pick<Symbol>(["USDC", "WETH", "T24", "XT"])
    const token = this.token(symbol)
    const unit = 10n ** BigInt(DECIMALS[symbol])
    const alice = ROLE.alice
    const amount = BigInt(rng.int(1, 500)) * unit + rng.big(0n, unit - 1n)
    const destination = rng.pick(DOMAINS.filter((d) => d !== domain))
    const fast = symbol !== "XT" && rng.chance(0.4)
    const params: NewIntentParams = {
      destinations: [destination],
      receiver: rng.pick([ROLE.alice, ROLE.bob, CAROL]),
      inputAsset: token,
      outputAsset: fast || rng.chance(0.5) ? token : ZERO_ADDRESS,
      amount,
      maxFee: fast ? rng.pick([100, 1_000]) : 0,
      ttl: fast ? rng.pick([600, 3_600]) : 0,
      data: "0x",
    }
    const fee = rng.pick([0n, 1_000n, unit])
    const feeParams = await this.feeParams(token, fee, 0n, LONG_DEADLINE, "valid")
    const deadline = this.now + 3_600n
    const adapterPermit = (nonce: bigint, amount: bigint, permitDeadline = deadline): Permit2Permit => ({ chainId: domain, token, amount, spender: addresses.feeAdapter, nonce, deadline: permitDeadline })
    const adapterParams = async (permit: Permit2Permit, signer: Address = alice): Promise<Permit2Params> => ({ nonce: permit.nonce, deadline: permit.deadline, signature: await this.signPermit(permit, signer) })
    const ops: Operation[] = []

    // The fee adapter: amount + fee through Permit2, then the same permit again.
    const good = adapterPermit(this.permitNonce(), amount + fee)
    const goodParams = await adapterParams(good)
    ops.push(this.permitOp(domain, alice, Call.feeAdapter.newIntentPermit2({ ...params, permit2Params: goodParams, feeParams }), `permit2 adapter intent ${symbol} (valid)`))
    ops.push(this.permitOp(domain, alice, Call.feeAdapter.newIntentPermit2({ ...params, permit2Params: goodParams, feeParams }), "permit2 adapter intent (reused nonce)"))
    // Expired (the block's time is at least now), signed by bob for alice, signed for the amount without the fee.
    const expired = adapterPermit(this.permitNonce(), amount + fee, this.now - 1n)
    ops.push(this.permitOp(domain, alice, Call.feeAdapter.newIntentPermit2({ ...params, permit2Params: await adapterParams(expired), feeParams }), "permit2 adapter intent (expired)"))
    const byBob = adapterPermit(this.permitNonce(), amount + fee)
    ops.push(this.permitOp(domain, alice, Call.feeAdapter.newIntentPermit2({ ...params, permit2Params: await adapterParams(byBob, ROLE.bob), feeParams }), "permit2 adapter intent (wrong signer)"))
    if (fee > 0n) {
      const withoutFee = adapterPermit(this.permitNonce(), amount)
      ops.push(this.permitOp(domain, alice, Call.feeAdapter.newIntentPermit2({ ...params, permit2Params: await adapterParams(withoutFee), feeParams }), "permit2 adapter intent (permit without the fee)"))
    }
    // Bob never approved Permit2: the token refuses Permit2's transferFrom.
    const bobs = adapterPermit(this.permitNonce(), amount + fee)
    ops.push(this.permitOp(domain, ROLE.bob, Call.feeAdapter.newIntentPermit2({ ...params, permit2Params: await adapterParams(bobs, ROLE.bob), feeParams }), "permit2 adapter intent (Permit2 not approved)"))

    // The spoke's overload: amount through Permit2 (an xERC20 goes to custody).
    const spokePermit: Permit2Permit = { chainId: domain, token, amount, spender: addresses.spoke, nonce: this.permitNonce(), deadline }
    ops.push(this.permitOp(domain, alice, Call.spoke.newIntentPermit2({ ...params, permit2Params: { nonce: spokePermit.nonce, deadline, signature: await this.signPermit(spokePermit, alice) } }), `permit2 spoke intent ${symbol} (valid)`))
    const spokeExpired = { ...spokePermit, nonce: this.permitNonce(), deadline: this.now - 1n }
    ops.push(this.permitOp(domain, alice, Call.spoke.newIntentPermit2({ ...params, permit2Params: { nonce: spokeExpired.nonce, deadline: spokeExpired.deadline, signature: await this.signPermit(spokeExpired, alice) } }), "permit2 spoke intent (expired)"))
    // An invalid intent (a ttl without an output asset): Permit2 pulls first (§4.1 step 7), so an expired permit
    // reports SignatureExpired; with a good permit the intent check reverts and undoes the pull.
    const invalid: NewIntentParams = { ...params, outputAsset: ZERO_ADDRESS, ttl: 600 }
    const invalidExpired = { ...spokePermit, nonce: this.permitNonce(), deadline: this.now - 1n }
    ops.push(this.permitOp(domain, alice, Call.spoke.newIntentPermit2({ ...invalid, permit2Params: { nonce: invalidExpired.nonce, deadline: invalidExpired.deadline, signature: await this.signPermit(invalidExpired, alice) } }), "permit2 spoke intent (invalid intent, expired permit)"))
    const invalidGood = { ...spokePermit, nonce: this.permitNonce() }
    ops.push(this.permitOp(domain, alice, Call.spoke.newIntentPermit2({ ...invalid, permit2Params: { nonce: invalidGood.nonce, deadline, signature: await this.signPermit(invalidGood, alice) } }), "permit2 spoke intent (invalid intent, good permit)"))

    // Direct transfers: solver1 as spender moves alice's tokens to carol.
    const direct: Permit2Permit = { chainId: domain, token, amount, spender: ROLE.solver1, nonce: this.permitNonce(), deadline }
    const directSig = await this.signPermit(direct, alice)
    const transfer = (requestedAmount: bigint, signature: Hex, nonce = direct.nonce) =>
      Call.permit2.permitTransferFrom({ token, amount, nonce, deadline, to: CAROL, requestedAmount, owner: alice, signature })
    ops.push(this.permitOp(domain, ROLE.solver1, transfer(amount + 1n, directSig), "permit2 transfer (over the permitted amount)"))
    ops.push(this.permitOp(domain, ROLE.solver2, transfer(amount, directSig), "permit2 transfer (another spender)"))
    ops.push(this.permitOp(domain, ROLE.solver1, transfer(amount, `${directSig.slice(0, 130)}00` as Hex), "permit2 transfer (v = 0)"))
    ops.push(this.permitOp(domain, ROLE.solver1, transfer(amount, directSig.slice(0, 128) as Hex), "permit2 transfer (63-byte signature)"))
    const compact = rng.chance(0.5) ? serializeCompactSignature(signatureToCompactSignature(parseSignature(directSig))) : directSig
    ops.push(this.permitOp(domain, ROLE.solver1, transfer(rng.big(0n, amount), compact), `permit2 transfer (${compact.length === 130 ? "compact" : "65-byte"} signature)`))
    // Invalidated nonces: alice sets bits of a word, then a permit with one of them fails.
    const word = this.permitRng.pick([0n, 1n, 1n << 192n])
    const bit = rng.big(0n, 255n)
    ops.push(this.permitOp(domain, alice, Call.permit2.invalidateUnorderedNonces(word, (1n << bit) | rng.big(0n, 15n)), "permit2 invalidateUnorderedNonces"))
    const invalidated: Permit2Permit = { ...direct, nonce: (word << 8n) | bit }
    ops.push(this.permitOp(domain, ROLE.solver1, transfer(amount, await this.signPermit(invalidated, alice), invalidated.nonce), "permit2 transfer (invalidated nonce)"))
    return ops
  }

  // --- blocks ----------------------------------------------------------------------------------------------

  /** The first block: approvals and solver deposits everywhere. */
  setup(): Operation[] {
    const ops: Operation[] = []
    for (const domain of DOMAINS) {
      const { addresses } = this.chain(domain)
      for (const user of [ROLE.alice, ROLE.bob, ROLE.solver1, ROLE.solver2]) {
        for (const symbol of SYMBOLS) {
          for (const spender of [addresses.feeAdapter, addresses.spoke, addresses.xerc20Module, ...(user === ROLE.alice ? [PERMIT2_ADDRESS] : [])]) {
            ops.push({ domain, from: user, call: Call.erc20.approve(this.token(symbol), spender, maxUint256), value: 0n, raw: false, label: "setup approve" })
          }
        }
      }
      for (const symbol of SYMBOLS) {
        const unit = 10n ** BigInt(DECIMALS[symbol])
        ops.push({ domain, from: ROLE.solver1, call: Call.spoke.deposit(this.token(symbol), 50_000n * unit), value: 0n, raw: false, label: "setup deposit" })
        ops.push({ domain, from: ROLE.solver2, call: Call.spoke.deposit(this.token(symbol), 300n * unit), value: 0n, raw: false, label: "setup deposit" })
      }
    }
    return ops
  }

  /** The operations of the next block on every domain. */
  async next(): Promise<Operation[]> {
    const ops: Operation[] = []
    for (const domain of DOMAINS) {
      if (this.chain(domain).read.paused() && this.rng.chance(0.5)) ops.push(this.op(domain, ROLE.lighthouse, Call.spoke.unpause(), "unpause"))
      ops.push(...this.restores(domain))
      ops.push(...this.deliveries(domain))
      const start = ops.length
      const count = this.rng.int(4, 9)
      for (let i = 0; i < count; i++) {
        const kind = this.rng.weighted<string>([
          [12, "intent"],
          [4, "invalid intent"],
          [2, "order"],
          [2, "direct intent"],
          [7, "fill"],
          [2, "invalid fill"],
          [2, "deposit"],
          [2, "withdraw"],
          [4, "processIntentQueue"],
          [3, "processFillQueue"],
          [2, "handmade settlement"],
          [2, "delivery variant"],
          [2, "mintDebt"],
          [1, "pause"],
          [2, "executeIntentCalldata"],
          [2, "admin"],
          [2, "token"],
        ])
        let op: Operation | undefined
        switch (kind) {
          case "intent":
            op = await this.adapterIntent(domain)
            break
          case "invalid intent":
            op = await this.invalidIntent(domain)
            break
          case "order":
            op = await this.order(domain)
            break
          case "direct intent":
            op = this.directIntent(domain)
            break
          case "fill":
            op = this.fill(domain)
            break
          case "invalid fill":
            op = this.invalidFill(domain)
            break
          case "deposit":
            op = this.deposit(domain)
            break
          case "withdraw":
            op = this.withdraw(domain)
            break
          case "processIntentQueue":
            op = this.processIntentQueue(domain)
            break
          case "processFillQueue":
            op = this.processFillQueue(domain)
            break
          case "handmade settlement":
            op = this.handmadeSettlement(domain)
            break
          case "delivery variant":
            op = this.deliveryVariant(domain)
            break
          case "mintDebt":
            op = this.mintDebt(domain)
            break
          case "pause":
            op = this.pauseToggle(domain)
            break
          case "executeIntentCalldata":
            op = this.executeCalldata(domain)
            break
          case "admin":
            op = this.admin(domain)
            break
          default:
            op = this.tokenMisc(domain)
        }
        if (op !== undefined) ops.push(op)
      }
      // On top of the usual mix (which keeps its share): sometimes the next configuration scenario.
      if (this.rng.chance(0.35)) ops.push(...(await this.scenarioOps(domain, ops.slice(start))))
    }
    ops.push(...(await this.permit2Ops()))
    return ops
  }

  /** The next block's timestamp: mostly one block time, sometimes a day (xERC20 limits refill, fast intents expire). */
  advance(): bigint {
    this.now += this.rng.chance(0.06) ? DAY : this.rng.chance(0.1) ? 0n : BLOCK_TIME
    return this.now
  }
}

// ---------------------------------------------------------------------------------------------------------
// Malformed hub messages

const hexWord = (value: bigint | number): string => BigInt(value).toString(16).padStart(64, "0")
/** `abi.encode(uint8 type, bytes data)` with `data` given as hex without 0x. */
const envelope = (type: number, data: string): Hex =>
  `0x${hexWord(type)}${hexWord(0x40)}${hexWord(data.length / 2)}${data}${"0".repeat((64 - (data.length % 64)) % 64)}` as Hex
const oneSettlement = (flag: bigint): string => `${"11".repeat(32)}${hexWord(10n ** 18n)}${"00".repeat(12)}${"22".repeat(20)}${"00".repeat(12)}${"33".repeat(20)}${hexWord(flag)}`
const TWO_64 = 1n << 64n

/**
 * Hub messages that `abi.decode` refuses, with the outcome in the label. In `ClearingSpoke.receiveMessage` the
 * envelope's `data` is allocated at the free memory pointer 0x80 and the payload's array or `bytes` right after
 * it, so the allocation limit (`Panic(0x41)` past 2^64 - 1) falls at lengths computed from the data's size: a
 * SETTLEMENT count of 2^59 - 13 with a 224-byte payload, an envelope length of 2^64 - 191, a VAR_UPDATE value
 * length of 2^64 - 319 with a 96-byte payload.
 */
export const malformedHubMessages = (): readonly (readonly [string, Hex])[] => [
  ["settlement flag 2 (revert)", envelope(2, `${hexWord(0x20)}${hexWord(1)}${oneSettlement(2n)}`)],
  ["settlement count beyond the payload (revert)", envelope(2, `${hexWord(0x20)}${hexWord(2)}${oneSettlement(1n)}`)],
  ["settlement count 2^64 (panic)", envelope(2, `${hexWord(0x20)}${hexWord(TWO_64)}${oneSettlement(1n)}`)],
  ["settlement count at the allocation limit (revert)", envelope(2, `${hexWord(0x20)}${hexWord((1n << 59n) - 14n)}${oneSettlement(1n)}`)],
  ["settlement count past the allocation limit (panic)", envelope(2, `${hexWord(0x20)}${hexWord((1n << 59n) - 13n)}${oneSettlement(1n)}`)],
  ["settlement offset past the payload (revert)", envelope(2, `${hexWord(0x1000)}${hexWord(1)}${oneSettlement(1n)}`)],
  ["payload length at the allocation limit (revert)", `0x${hexWord(2)}${hexWord(0x40)}${hexWord(TWO_64 - 192n)}${hexWord(0)}` as Hex],
  ["payload length past the allocation limit (panic)", `0x${hexWord(2)}${hexWord(0x40)}${hexWord(TWO_64 - 191n)}${hexWord(0)}` as Hex],
  ["VAR_UPDATE value length at the allocation limit (revert)", envelope(3, `${VARIABLE_HASHES.GATEWAY.slice(2)}${hexWord(0x40)}${hexWord(TWO_64 - 320n)}`)],
  ["VAR_UPDATE value length past the allocation limit (panic)", envelope(3, `${VARIABLE_HASHES.GATEWAY.slice(2)}${hexWord(0x40)}${hexWord(TWO_64 - 319n)}`)],
]

// ---------------------------------------------------------------------------------------------------------
// Comparison

/** A receipt or event without what only anvil has (transaction hashes, gas). */
export const comparable = (receipt: SpokeReceipt): unknown => {
  const { transactionHash: _hash, gasUsed: _gas, ...rest } = receipt
  return { ...rest, events: receipt.events.map(comparableEvent) }
}

export const comparableEvent = (event: SpokeEvent): unknown => {
  const { transactionHash: _hash, ...rest } = event
  return rest
}

/** Feeds a block's outbound messages to a hub, in log order. */
export const feedHub = (hub: Hub, block: MinedSpokeBlock): number => {
  let fed = 0
  for (const receipt of block.receipts) {
    for (const event of receipt.events) {
      if (event.name !== "MessageSent" || event.destination !== HUB_DOMAIN) continue
      const decoded = decodeMessage(event.message)
      if (decoded.type === "INTENT") hub.apply({ kind: "intents", intents: decoded.intents })
      else if (decoded.type === "FILL") hub.apply({ kind: "fills", fills: decoded.fills })
      fed++
    }
  }
  return fed
}

export interface HubPair {
  readonly memory: Hub
  readonly anvil: Hub
  readonly memoryTrace: TraceHasher
  readonly anvilTrace: TraceHasher
}

export const makeHubs = (config: HubConfigInput): HubPair => {
  const memoryTrace = new TraceHasher()
  const anvilTrace = new TraceHasher()
  return { memory: new Hub(config, memoryTrace), anvil: new Hub(config, anvilTrace), memoryTrace, anvilTrace }
}

/** The hub's keeper work for one block, decided once and applied to both hubs. Returns both outboxes. */
export const runHubs = (
  hubs: HubPair,
  rng: TestRng,
  block: number,
  timestamp: number,
): { readonly memory: OutboundMessage[]; readonly anvil: OutboundMessage[] } => {
  for (const hub of [hubs.memory, hubs.anvil]) hub.apply({ kind: "block", number: block, timestamp })
  for (const symbol of SYMBOLS) {
    if (!rng.chance(0.7)) continue
    for (const hub of [hubs.memory, hubs.anvil]) hub.apply({ kind: "processDepositsAndInvoices", ticker: symbol, maxEpochs: 0, maxDeposits: 0, maxInvoices: 0 })
  }
  for (const domain of DOMAINS) {
    const size = hubs.memory.state.settlementQueues.get(domain)?.size ?? 0
    if (size === 0 || !rng.chance(0.7)) continue
    const amount = rng.int(1, size)
    for (const hub of [hubs.memory, hubs.anvil]) hub.apply({ kind: "processSettlementQueue", domain, amount })
  }
  return { memory: hubs.memory.drainOutbox(), anvil: hubs.anvil.drainOutbox() }
}

/** Submits an operation to a chain, as a typed call or as raw calldata. */
export const submitOperation = (chain: SpokeChain, op: Operation): void => {
  if (op.raw) {
    const { to, data } = encodeSpokeCall(chain.addresses, op.call)
    chain.submitRaw({ from: op.from, to, data, value: op.value })
  } else {
    chain.submit({ from: op.from, call: op.call, value: op.value })
  }
}

