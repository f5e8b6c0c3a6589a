/**
 * Test-only: a whole clearing deployment on either `Spokes` backend, wired the way a simulation wires it:
 * spoke chains (memory or anvil), the hub engine, the read model fed by mined blocks and hub events, the
 * clearing service with registries taken from the spokes' layouts, and a relayer that carries INTENT batches to
 * the hub and SETTLEMENT batches to the spokes. Time is virtual: every mined block advances it by 12 s, and the
 * hub block and the service clock follow.
 */
import type { Hex } from "viem"
import { type DevAccount, deriveDevAccounts, TEST_MNEMONIC } from "../../sim/chains/accounts.ts"
import type { ChainPool } from "../../sim/chains/pool.ts"
import { decodeMessage, encodeIntentMessage, encodeSettlementMessage } from "../domain/encoding.ts"
import type { Address, Bytes32 } from "../domain/hex.ts"
import { MAX_UINT256 } from "../domain/protocol.ts"
import type { HubConfigInput } from "../hub/config.ts"
import { Hub } from "../hub/hub.ts"
import { ReadModel } from "../indexer/readModel.ts"
import { SpokeBlockObserver } from "../indexer/spokeBlocks.ts"
import { Call, createAnvilSpokes, createMemorySpokes, eventsNamed, type MinedSpokeBlock, type SpokeCall, type SpokeChain, type SpokesConfig, type SpokesShape } from "../spoke/spoke.ts"
import { type ClearingApiConfigInput, fixedClock, spokeRegistries } from "./config.ts"
import type { TransactionRequest } from "./schemas.ts"
import { ClearingService } from "./service.ts"

export const DOMAIN_A = 31_001
export const DOMAIN_B = 31_002
export const HUB_DOMAIN = 25_327
export const HUB_ADDRESS: Address = "0xa05a3380889115bf313f1db9d5f335157be4d816"
export const T0 = 1_700_000_000n
const BLOCK_TIME = 12n

export interface Accounts {
  readonly owner: DevAccount
  readonly relayer: DevAccount
  readonly feeSigner: DevAccount
  readonly alice: DevAccount
  readonly bob: DevAccount
  readonly solver: DevAccount
}

const accounts = (): Accounts => {
  const [owner, relayer, feeSigner, alice, bob, solver] = deriveDevAccounts(TEST_MNEMONIC, 6)
  return { owner: owner!, relayer: relayer!, feeSigner: feeSigner!, alice: alice!, bob: bob!, solver: solver! }
}

const spokesConfig = (a: Accounts): SpokesConfig => ({
  hubDomain: HUB_DOMAIN,
  genesisTimestamp: T0,
  chains: [DOMAIN_A, DOMAIN_B].map((domain) => ({
    domain,
    deployer: a.owner.address,
    relayer: a.relayer.address,
    feeSigner: a.feeSigner.address,
    feeRecipient: a.owner.address,
    // XYZ is deployed on the spokes but not configured on the hub: intents in it are UNSUPPORTED.
    tokens: [
      { symbol: "USDC", decimals: 6 },
      { symbol: "WETH", decimals: 18 },
      { symbol: "XYZ", decimals: 18 },
    ],
    funding: { accounts: [a.alice.address, a.bob.address, a.solver.address], amount: 10_000_000n },
    callTarget: true,
  })),
})

const hubConfig = (spokes: SpokesShape, a: Accounts): HubConfigInput => ({
  hubDomain: HUB_DOMAIN,
  epochLength: 10,
  minSolverSupportedDomains: 2,
  // The deployer owns the hub: it may pause it (reference §3.14) through the JSON-RPC endpoint.
  owner: a.owner.address,
  tickers: ["USDC", "WETH"].map((symbol) => ({
    symbol,
    discountPerEpoch: 3,
    maxDiscountDbps: 12,
    fees: [{ recipient: a.owner.address, fee: 2 }],
    domains: spokes.domains.map((domain) => {
      const token = spokes.chain(domain).addresses.tokens[symbol]!
      return { domain, asset: token.address, decimals: token.decimals }
    }),
  })),
})

export class Deployment {
  readonly accounts = accounts()
  readonly model: ReadModel
  readonly hub: Hub
  readonly clock = fixedClock(Number(T0))
  readonly service: ClearingService
  readonly observer: SpokeBlockObserver
  time = T0
  private hubBlock = 100

  readonly spokes: SpokesShape
  private constructor(
    spokes: SpokesShape,
    config: Partial<ClearingApiConfigInput>,
  ) {
    this.spokes = spokes
    this.model = new ReadModel({ solvers: [this.accounts.solver.address] })
    this.hub = new Hub(hubConfig(spokes, this.accounts), this.model.hubSink())
    this.model.attachHub(this.hub)
    this.hub.setBlock(this.hubBlock, Number(T0))
    this.observer = new SpokeBlockObserver(this.model)
    this.service = new ClearingService({
      hub: this.hub,
      model: this.model,
      clock: this.clock,
      config: {
        hubAddress: HUB_ADDRESS,
        spokes: spokeRegistries(spokes),
        feeSignerKey: this.accounts.feeSigner.privateKey,
        quotes: { default: { fixedFeeTokens: "0.01", maxVariableFeeBps: 10, fastPathFeeBps: 3 } },
        fastPath: { solvers: [this.accounts.solver.address] },
        ...config,
      },
    })
  }

  static memory(config: Partial<ClearingApiConfigInput> = {}): Deployment {
    const a = accounts()
    return new Deployment(createMemorySpokes(spokesConfig(a)), config)
  }

  static async anvil(pool: ChainPool, config: Partial<ClearingApiConfigInput> = {}): Promise<Deployment> {
    const a = accounts()
    return new Deployment(await createAnvilSpokes(pool, spokesConfig(a)), config)
  }

  /** The ChainPool options this deployment needs on anvil. */
  static readonly poolOptions = { chainIds: [DOMAIN_A, DOMAIN_B], genesisTimestamp: T0 } as const

  chain(domain: number): SpokeChain {
    return this.spokes.chain(domain)
  }

  token(domain: number, symbol: string): Address {
    return this.chain(domain).addresses.tokens[symbol]!.address
  }

  /** Advances virtual time by one block and moves the hub and the service clock with it. */
  private tick(): bigint {
    this.time += BLOCK_TIME
    this.hubBlock++
    this.hub.setBlock(this.hubBlock, Number(this.time))
    this.clock.set(Number(this.time))
    return this.time
  }

  /** Moves the hub to the first block of its next epoch (and time with it). */
  nextEpoch(): void {
    const length = this.hub.state.epochLengthBlocks
    const target = (Math.floor(this.hubBlock / length) + 1) * length
    while (this.hubBlock < target) this.tick()
  }

  async mine(domain: number): Promise<MinedSpokeBlock> {
    const block = await this.chain(domain).mine(this.tick())
    this.observer.observe(block)
    return block
  }

  async call(domain: number, from: Address, call: SpokeCall, value = 0n): Promise<MinedSpokeBlock> {
    this.chain(domain).submit({ from, call, value })
    return this.mine(domain)
  }

  /** Sends a transaction request built by the API, as its sender would, and mines it. */
  async send(request: TransactionRequest, from: Address = request.from as Address): Promise<MinedSpokeBlock> {
    this.chain(request.chainId).submitRaw({ from, to: request.to as Address, data: request.data as Hex, value: BigInt(request.value) })
    return this.mine(request.chainId)
  }

  /** Every funded user approves the fee adapter (and the spoke, for solver deposits) for every token. */
  async approveAll(): Promise<void> {
    for (const domain of this.spokes.domains) {
      const chain = this.chain(domain)
      for (const user of [this.accounts.alice, this.accounts.bob, this.accounts.solver]) {
        for (const token of Object.values(chain.addresses.tokens)) {
          chain.submit({ from: user.address, call: Call.erc20.approve(token.address, chain.addresses.feeAdapter, MAX_UINT256) })
          chain.submit({ from: user.address, call: Call.erc20.approve(token.address, chain.addresses.spoke, MAX_UINT256) })
        }
      }
      await this.mine(domain)
    }
  }

  /** Dispatches the whole intent queue of `domain` and delivers the INTENT batch to the hub. */
  async relayIntents(domain: number): Promise<Bytes32 | undefined> {
    const chain = this.chain(domain)
    const queue = await chain.intentQueue()
    if (queue.length === 0) return undefined
    const intents = queue.map((q) => q.intent)
    const fee = await chain.quoteMessage(HUB_DOMAIN, encodeIntentMessage(intents))
    const block = await this.call(domain, this.accounts.relayer.address, Call.spoke.processIntentQueue(intents), fee)
    const receipt = block.receipts[0]!
    if (receipt.status !== "success") throw new Error(`processIntentQueue reverted: ${receipt.error.name}`)
    const [sent] = eventsNamed(receipt.events, "MessageSent")
    const message = decodeMessage(sent!.message)
    if (message.type !== "INTENT") throw new Error("expected an INTENT message")
    this.hub.receiveIntents(message.intents)
    this.model.onDelivery({ messageId: sent!.messageId, origin: domain, destination: HUB_DOMAIN, timestamp: Number(this.time) })
    return sent!.messageId
  }

  /** Dispatches the settlement queue of `domain` and delivers the batch to its spoke. */
  async settle(domain: number): Promise<MinedSpokeBlock | undefined> {
    const size = this.hub.state.settlementQueues.get(domain)?.size ?? 0
    if (size > 0) this.hub.processSettlementQueue(domain, size)
    return this.deliverOutbox()
  }

  /** Delivers every hub message waiting in the outbox (settlements, unsupported returns). */
  async deliverOutbox(): Promise<MinedSpokeBlock | undefined> {
    let last: MinedSpokeBlock | undefined
    for (const message of this.hub.drainOutbox()) {
      const call = Call.gateway.receiveMessage(HUB_DOMAIN, message.messageId, encodeSettlementMessage(message.settlements))
      last = await this.call(message.destination, this.accounts.relayer.address, call)
      const receipt = last.receipts[0]!
      if (receipt.status !== "success") throw new Error(`settlement delivery reverted: ${receipt.error.name}`)
      this.model.onDelivery({ messageId: message.messageId, origin: HUB_DOMAIN, destination: message.destination, timestamp: Number(this.time) })
    }
    return last
  }
}
