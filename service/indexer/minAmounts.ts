/**
 * Minimum purchase amounts of an invoice (reference §3.15, PROTOCOL.md "API behaviour not in the reference").
 *
 * For each candidate settlement domain d of the invoice: the smallest deposit (pre-fee, 18 decimals) that,
 * arriving on d in the current epoch, lets the next `processDepositsAndInvoices` of the epoch settle the
 * invoice. For an invoice alone on d this is the reference's formula
 *
 *     x = (100_000 * (invoice - custodied) - discountDbps * depositedThisEpoch) / (100_000 + discountDbps) + 1
 *
 * (0 when the current custody already covers it). Because invoices are processed oldest first, earlier
 * invoices of the ticker that the deposit makes settleable on d consume that liquidity first, so the amount is
 * found by replaying the FIFO processing of the earlier invoices with the extra deposit and raising it by the
 * formula's shortfall until the invoice settles; when earlier invoices took part, a bisection then finds the
 * smallest deposit that still settles it (their discounts grow with the deposit). The replay uses the hub's own evaluation
 * (`evaluateInvoice`, `settlementDomains`, `discountDbps`) on an overlay of custody and current-epoch
 * deposits, and never writes to the hub.
 *
 * Cost. The earlier invoices are replayed once without the extra deposit (the base, `FifoBase`), keeping the
 * overlay before each of them. The base of a ticker's whole list serves every invoice of it: `MinAmountsCache` keeps
 * it while the hub state it read is unchanged (the epoch, no invoice removed, no user domains changed, the custody
 * and current-epoch deposits of the ticker's domains), going on over invoices appended since, so an arbitrageur's
 * poll of n invoices costs O(n) for the bases instead of O(n²); `computeMinAmounts` alone makes one per call (O(p)
 * for the invoice's position p). A replay with `extra` on d differs from the base only on d at first, and later on
 * the few domains an invoice settles on, or no longer settles on, because of it. An invoice's outcome can differ
 * from the base's only if the base settled it on one of those domains, or if it lists one whose custody in the
 * replay reaches the least the invoice can cost there (its amount less the full discount): a min-tree per domain
 * over those thresholds (made once per base) finds the next such invoice in O(log p), and only those are evaluated
 * (the same `evaluateInvoice`; an invoice that no domain could settle in the base, with only d differing, or that
 * lists d as its only DEFAULT domain, the target included, by the same arithmetic on d alone). A replay thus costs
 * O(k log p) for the k invoices the deposit reaches instead of O(p). Replays with a larger deposit than an earlier
 * one of the call (each shortfall round, most bisection steps) settle the same earlier invoices first, so they
 * start where their decisions may first differ (`PureTrace`, which runs on through invoices the base settles on d
 * alone; the same deposit again, as after a bisection, reuses its trace whole): a shortfall round mostly costs the
 * invoices after the one it adds, and those after the first one settled without deposits covering it (their cost
 * depends on the deposit). The sequence of deposits tried (shortfall rounds, then bisection) is unchanged, so are
 * the results (minAmounts.test.ts compares them with the previous algorithm on random hub states, and counts the
 * takes the pure walks reuse). While only d differs, an invoice is a candidate only if its whole amount less d's
 * custody is within the discount the current-epoch deposits can earn (`fullCostTree`): among invoices of nearly
 * equal amounts the walk skips those the custody left cannot pay. The bisection makes its probes only until both
 * ends of its interval settle the same earlier invoices: settling is monotone between them, so `firstSettling`
 * finds the boundary the bisection would end at in a few probes instead of some seventy (`bisectReplays`).
 * Replays past an invoice the base settles on d that lists other DEFAULT domains too are evaluated invoice by
 * invoice in every probe (`replay`'s loop after the pure part; not recorded).
 */
import type { DomainAsset } from "../hub/config.ts"
import type { Hub } from "../hub/hub.ts"
import { discountDbps, discountFinal, evaluateInvoice, settlementDomains } from "../hub/settler.ts"
import type { InvoiceEvaluation, InvoiceNode, TickerState } from "../hub/state.ts"
import { DBPS_DENOMINATOR, Strategy } from "../domain/protocol.ts"

export interface InvoiceMinAmounts {
  /** Invoice amount (18 decimals) before discount. */
  readonly invoiceAmount: bigint
  /** Current discount in dbps. */
  readonly discountDbps: number
  /** Per candidate domain: what the invoice settles for when bought with `minAmounts[d]` on d. */
  readonly amountAfterDiscounts: ReadonlyMap<number, bigint>
  /** Per candidate domain: custodied liquidity now. */
  readonly custodiedAmounts: ReadonlyMap<number, bigint>
  /** Per candidate domain: the minimum current-epoch deposit on that domain. */
  readonly minAmounts: ReadonlyMap<number, bigint>
}

/** The reference formula for one invoice on one domain; 0 when custody already covers it. */
export const minDepositFormula = (invoice18: bigint, custodied18: bigint, depositedThisEpoch18: bigint, discount: number): bigint => {
  const short18 = invoice18 - custodied18
  if (short18 <= 0n) return 0n
  const dbps = BigInt(discount)
  const covered = depositedThisEpoch18 < invoice18 ? depositedThisEpoch18 : invoice18
  // custodied18 >= invoice18 - floor(covered * dbps / DBPS_DENOMINATOR), without the division.
  const scaledShort = DBPS_DENOMINATOR * short18
  if (covered * dbps >= scaledShort) return 0n
  return (scaledShort - dbps * depositedThisEpoch18) / (DBPS_DENOMINATOR + dbps) + 1n
}

/** One invoice of the replay as `processDepositsAndInvoices` phase 1 sees it (all reads of the hub made once). */
interface Step {
  readonly amount18: bigint
  readonly domains: readonly DomainAsset[]
  readonly hasXerc20: boolean
  /** False when the ticker prioritizes xERC20 and the invoice lists an xERC20 domain: settled unevaluated. */
  readonly evaluated: boolean
  readonly discount: number
  readonly discountBig: bigint
  /** The least the invoice can cost on any domain: its amount less the full discount. */
  readonly minAfter18: bigint
  /** Index of the domain the base replay settles it on, -1 when it does not. */
  readonly found: number
  /** Index of its one DEFAULT domain when it is evaluated and lists exactly one, else -1 (then only that domain's arithmetic decides). */
  readonly single: number
}

/** A read-only view of the ticker whose custody and current-epoch deposits are the overlay arrays. */
class OverlayView {
  readonly custodied18: bigint[]
  readonly available18: bigint[]
  private readonly queue = { available18: 0n }

  private readonly ticker: TickerState
  private readonly index: ReadonlyMap<number, number>
  constructor(ticker: TickerState, index: ReadonlyMap<number, number>) {
    this.ticker = ticker
    this.index = index
    this.custodied18 = new Array<bigint>(index.size).fill(0n)
    this.available18 = new Array<bigint>(index.size).fill(0n)
  }

  custodied(domain: number): bigint {
    const j = this.index.get(domain)
    return j === undefined ? this.ticker.custodied(domain) : this.custodied18[j]!
  }

  depositQueue(_epoch: number, domain: number): { readonly available18: bigint } {
    const j = this.index.get(domain)
    this.queue.available18 = j === undefined ? 0n : this.available18[j]!
    return this.queue
  }

  /** The hub's evaluation of `step` on this overlay. */
  evaluate(epoch: number, step: Step): InvoiceEvaluation | undefined {
    return evaluateInvoice(this as unknown as TickerState, epoch, step.amount18, step.discount, step.domains)
  }

  /** Settles `found` on the overlay; returns its domain index. */
  apply(found: InvoiceEvaluation): number {
    const j = this.index.get(found.domain)
    if (j === undefined) throw new Error(`minAmounts: domain ${found.domain} is not a domain of the ticker`)
    const after = found.amountAfterDiscount18
    this.custodied18[j] = this.custodied18[j]! - after
    const available = this.available18[j]!
    this.available18[j] = available > after ? available - after : 0n
    return j
  }
}

/**
 * What `step` settles for on the deposit's domain when that is the only domain that can take it (no other could in
 * the base, and only the deposit's domain differs from the base; or the only DEFAULT domain it lists:
 * `evaluateInvoice` reduced to it), given the domain's custody and current-epoch deposits; undefined when the
 * custody does not cover it.
 */
const costAlone = (step: Step, custodied18: bigint, available18: bigint): bigint | undefined => {
  const amount18 = step.amount18
  // Deposits covering the whole invoice: its least cost, made once (`minAfter18`, the same arithmetic).
  const after18 = available18 >= amount18 ? step.minAfter18 : step.discount === 0 ? amount18 : amount18 - (available18 * step.discountBig) / DBPS_DENOMINATOR
  return custodied18 >= after18 ? after18 : undefined
}

const INFINITY = 1n << 4096n
const MINUS_INFINITY = -INFINITY

/** A min-tree over per-invoice thresholds: the first index at or after `from` whose threshold is ≤ a value. */
class ThresholdTree {
  private readonly size: number
  private readonly tree: bigint[]

  readonly count: number
  constructor(count: number, threshold: (i: number) => bigint) {
    this.count = count
    let size = 1
    while (size < count) size *= 2
    this.size = size
    const tree = new Array<bigint>(2 * size).fill(INFINITY)
    for (let i = 0; i < count; i++) tree[size + i] = threshold(i)
    for (let i = size - 1; i >= 1; i--) {
      const l = tree[2 * i]!
      const r = tree[2 * i + 1]!
      tree[i] = l < r ? l : r
    }
    this.tree = tree
  }

  /** The threshold of index `i`. */
  at(i: number): bigint {
    return this.tree[this.size + i]!
  }

  /** The first index in [from, count) whose threshold is ≤ `value`, or `count`. */
  firstAtMost(from: number, value: bigint): number {
    if (from >= this.count) return this.count
    const tree = this.tree
    let i = from + this.size
    while (tree[i]! > value) {
      // Next subtree to the right: climb while a right child, then step to the right sibling.
      while ((i & 1) === 1) i >>= 1
      if (i === 0) return this.count
      i++
    }
    while (i < this.size) i = tree[2 * i]! <= value ? 2 * i : 2 * i + 1
    const found = i - this.size
    return found < this.count ? found : this.count
  }

  /** The least threshold in [from, to) (INFINITY when empty). */
  minIn(from: number, to: number): bigint {
    const tree = this.tree
    let least = INFINITY
    let l = from + this.size
    let r = to + this.size
    while (l < r) {
      if ((l & 1) === 1) {
        if (tree[l]! < least) least = tree[l]!
        l++
      }
      if ((r & 1) === 1) {
        r--
        if (tree[r]! < least) least = tree[r]!
      }
      l >>= 1
      r >>= 1
    }
    return least
  }
}

/**
 * The first part of a replay with `x` on domain d where it stops only at invoices no domain could settle in the
 * base (each settles on d if d's custody covers it) and at those the base settles on d that list no other DEFAULT
 * domain (the same arithmetic on d: it settles them while d's custody covers them, and ends where it does not, since
 * a larger deposit may), recorded so that a later replay with more can skip it. The base's custody on d changes only
 * at the latter, which are takes, so it is constant in every gap between takes. Custody and deposits on d before
 * each take, less `x`, are the same for any larger deposit as long as every
 * invoice settled left deposits covering it (the full discount whatever the deposit: up to `firstUncovered`) and
 * no invoice in the gaps between them becomes one to stop at (the gap's value: the least deposit for which it
 * holds an invoice whose threshold the replay's custody reaches; `leastGap`: for the gap before each take and the one
 * after the last up to `end`, the least of the gaps so far).
 */
interface PureTrace {
  readonly x: bigint
  /** Indices of the invoices it settles on d, in order. */
  readonly takes: readonly number[]
  /** Per take, in the same order. */
  readonly records: readonly TakeRecord[]
  /** The least of the gaps up to the one after the last take, up to `end` (the last of `leastGap`'s values). */
  readonly endLeastGap18: bigint
  /** The first of `takes` settled without deposits covering it (`takes.length` when none). */
  readonly firstUncovered: number
  /** The first invoice it stops at that the base settles (then the replay goes on from there), or all the invoices. */
  readonly end: number
  readonly endRelCustodied: bigint
  readonly endRelAvailable: bigint
}

/** One take of a `PureTrace`. */
interface TakeRecord {
  /**
   * Custody on d less the base's, and deposits on d, before it in the replay that walked it, and that replay's
   * deposit: less it, they are the same for every replay sharing the take (kept so, not subtracted, as most are
   * never read again).
   */
  readonly dCustodied18: bigint
  readonly available18: bigint
  readonly x18: bigint
  /** The least of the gaps so far, the one before it included (`leastGap`: non-increasing, for a binary search). */
  readonly leastGap18: bigint
}

/**
 * The least value of a pure walk's gaps so far (`records`' last, `PureTrace.leastGap`) and the gap [gapStart, i): the
 * least deposit for which the replay's custody reaches a threshold in it (thresholds are relative to the base's
 * custody, so `least - dCustodied + x18`); none when it is empty or holds no threshold (INFINITY itself, only ever
 * compared with deposits, instead of arithmetic on it).
 */
const leastGapThrough = (tree: ThresholdTree, gapStart: number, i: number, dCustodied18: bigint, x18: bigint, records: readonly TakeRecord[]): bigint => {
  const least18 = i === gapStart ? INFINITY : tree.minIn(gapStart, i)
  const gap18 = least18 === INFINITY ? INFINITY : least18 - dCustodied18 + x18
  const last18 = records.length === 0 ? gap18 : records[records.length - 1]!.leastGap18
  return gap18 < last18 ? gap18 : last18
}

/**
 * The next candidate of a pure walk at or after `at` (`count` when none): by their whole amount (`fullCostTree`),
 * within the custody increase plus what the deposits can earn as discount (`reach`, at least `dCustodied18`: an
 * invoice within that is the next one without it, as with consecutive takes, most of them). One the base settles
 * stops the walk where `tree` has it.
 */
const nextCandidate = (full: ThresholdTree, at: number, count: number, dCustodied18: bigint, available18: bigint, maxDiscountBig: bigint): number => {
  if (at >= count) return count
  if (full.at(at) <= dCustodied18) return at
  const found = full.firstAtMost(at, dCustodied18 + (available18 * maxDiscountBig) / DBPS_DENOMINATOR)
  return found < count ? found : count // the tree may run past the target (`FifoBase`)
}

/** What a replay tells: whether the target settles, and the overlay on the deposit's domain right before it. */
export interface Replay {
  readonly settled: boolean
  readonly custodied18: bigint
  readonly available18: bigint
  /**
   * When the deposit changed the outcome of no invoice the base settles (so only the deposit's domain differs
   * from the base up to the target), the earlier invoices it settles there, in order (those the base settles there
   * too, listing no other DEFAULT domain, included); undefined otherwise.
   */
  readonly takes: readonly number[] | undefined
}

/**
 * `processDepositsAndInvoices` phase 1 over a ticker's whole list without extra deposit (the base), the overlay
 * before each invoice kept per domain, with the thresholds of `FifoReplay`'s walks. It depends on the hub only
 * through the list, the settlement domains and discounts of its invoices and the custody and current-epoch deposits
 * of the ticker's domains when made; so it serves every target of the list while none of these changed
 * (`MinAmountsCache`: the same epoch, no invoice removed, no user domains changed, the same balances), and goes on
 * over invoices appended since (`extend`). A target's replays read the part before it.
 */
export class FifoBase {
  readonly index = new Map<number, number>()
  readonly epoch: number
  readonly xerc20First: boolean
  /** The invoices processed so far, from the head, each with its base outcome. */
  readonly steps: Step[] = []
  /** Each processed invoice's position in `steps`. */
  private readonly positions = new Map<InvoiceNode, number>()
  /** Per domain index, the base overlay before invoice i (i = steps.length: after the last). */
  readonly custodiedAt: bigint[][] = []
  readonly availableAt: bigint[][] = []
  /** Per processed invoice, the domain indices the settlement domains of the invoices up to it list, as a bit set (`listedBit`). */
  private readonly listedThrough: bigint[] = []
  /** Per processed invoice, whether every discount up to it is final in the epoch (`discountFinal`). */
  private readonly cappedThrough: boolean[] = []
  /** The overlay after the last processed invoice. */
  private readonly view: OverlayView
  private last: InvoiceNode | undefined
  private readonly trees = new Map<number, ThresholdTree>()
  private readonly fullCostTrees = new Map<number, ThresholdTree>()
  /** The largest discount of a processed invoice (dbps), for `fullCostTree`'s bound. */
  private maxDiscount = 0
  maxDiscountBig = 0n

  private readonly hub: Hub
  private readonly ticker: TickerState
  constructor(hub: Hub, ticker: TickerState) {
    this.hub = hub
    this.ticker = ticker
    const epoch = (this.epoch = hub.state.currentEpoch())
    this.xerc20First = ticker.config.prioritizedStrategy === Strategy.XERC20
    for (const d of ticker.config.domains) if (!this.index.has(d.domain)) this.index.set(d.domain, this.index.size)
    const view = (this.view = new OverlayView(ticker, this.index))
    for (const [domain, j] of this.index) {
      view.custodied18[j] = ticker.custodied(domain)
      view.available18[j] = ticker.depositQueue(epoch, domain)?.available18 ?? 0n
      this.custodiedAt.push([view.custodied18[j]!])
      this.availableAt.push([view.available18[j]!])
    }
  }

  /**
   * The position of `target` in the list, processing the invoices up to it first; `steps.length` after processing
   * the whole list when it is not in the list.
   */
  positionOf(target: InvoiceNode): number {
    const known = this.positions.get(target)
    return known !== undefined ? known : this.extend(target)
  }

  /** Processes the invoices after the last one processed up to `target`, or to the end of the list; returns `target`'s position, or `steps.length`. */
  private extend(target: InvoiceNode | undefined): number {
    const state = this.hub.state
    const ticker = this.ticker
    const epoch = this.epoch
    const view = this.view
    for (let invoice = this.last === undefined ? ticker.invoices.head : this.last.next; invoice !== undefined; invoice = invoice.next) {
      const domains = settlementDomains(state, ticker, invoice.ctx, invoice.owner)
      const hasXerc20 = domains.some((d) => d.strategy === Strategy.XERC20)
      const evaluated = !(this.xerc20First && hasXerc20)
      const discount = evaluated ? discountDbps(state, ticker, epoch, invoice.entryEpoch, invoice.ctx) : 0
      const amount18 = invoice.amount18
      const discountBig = BigInt(discount)
      const minAfter18 = discount > 0 ? amount18 - (amount18 * discountBig) / DBPS_DENOMINATOR : amount18
      let single = -1
      for (const d of evaluated ? domains : []) {
        if (d.strategy !== Strategy.DEFAULT) continue
        const j = this.index.get(d.domain)!
        if (single !== -1 && single !== j) {
          single = -1 // a second DEFAULT domain
          break
        }
        single = j
      }
      let found = -1
      if (evaluated) {
        const evaluation = view.evaluate(epoch, { amount18, domains, hasXerc20, evaluated, discount, discountBig, minAfter18, found, single })
        if (evaluation !== undefined) found = view.apply(evaluation)
      }
      const position = this.steps.length
      this.steps.push({ amount18, domains, hasXerc20, evaluated, discount, discountBig, minAfter18, found, single })
      this.positions.set(invoice, position)
      this.last = invoice
      for (let j = 0; j < view.custodied18.length; j++) {
        this.custodiedAt[j]!.push(view.custodied18[j]!)
        this.availableAt[j]!.push(view.available18[j]!)
      }
      let mask = position === 0 ? 0n : this.listedThrough[position - 1]!
      for (const d of domains) mask |= listedBit(this.index.get(d.domain)!)
      this.listedThrough.push(mask)
      const capped = (position === 0 || this.cappedThrough[position - 1]!) && discountFinal(state, ticker, epoch, invoice.entryEpoch, invoice.ctx)
      this.cappedThrough.push(capped)
      if (discount > this.maxDiscount) {
        this.maxDiscount = discount
        this.maxDiscountBig = discountBig
      }
      if (invoice === target) return position
    }
    return this.steps.length
  }

  /**
   * The domains listed by the invoices up to `target` (it included; all of them when it is not in the list), and
   * whether all their discounts are final: what `MinAmountsCache` checks an answer against.
   */
  readsUpTo(target: InvoiceNode): { readonly domains: number[]; readonly capped: boolean } {
    const position = this.positionOf(target)
    const through = position < this.steps.length ? position : position - 1
    const mask = through < 0 ? 0n : this.listedThrough[through]!
    const domains: number[] = []
    for (const [domain, j] of this.index) if ((mask & listedBit(j)) !== 0n) domains.push(domain)
    return { domains, capped: through < 0 || this.cappedThrough[through]! }
  }

  /**
   * A tree over at least the first `count` invoices of per-invoice custody increases on domain `jd` from which an
   * invoice's outcome may differ from the base: always when the base settles it on `jd`; never when it does not
   * list `jd` or is not evaluated; else when `jd`'s custody reaches the least the invoice can cost.
   */
  tree(jd: number, count: number): ThresholdTree {
    let tree = this.trees.get(jd)
    if (tree === undefined || tree.count < count) {
      // Made again for a later target: over the whole list, as the targets after it are asked about too
      // (arbitrageurs poll them all); the first time over the invoices processed (a base made for one call).
      if (tree !== undefined) this.extend(undefined)
      const custodied = this.custodiedAt[jd]!
      const steps = this.steps
      tree = new ThresholdTree(steps.length, (i) => {
        const step = steps[i]!
        if (!step.evaluated) return INFINITY
        if (step.found === jd) return MINUS_INFINITY
        for (const d of step.domains) {
          if (d.strategy === Strategy.DEFAULT && this.index.get(d.domain) === jd) return step.minAfter18 - custodied[i]!
        }
        return INFINITY
      })
      this.trees.set(jd, tree)
    }
    return tree
  }

  /**
   * `tree(jd)` with, for the invoices the base does not settle, their whole amount in place of their least cost:
   * while only `jd` differs, such an invoice takes liquidity there only if its amount less what the custody
   * covers is at most the discount the current-epoch deposits can earn, so at most `deposits · maxDiscount`
   * (`pureWalk` asks for the custody increase plus that). Invoices of nearly equal amounts, each a little more
   * than the custody left, are then skipped at once instead of evaluated one by one.
   */
  fullCostTree(jd: number, count: number): ThresholdTree {
    let tree = this.fullCostTrees.get(jd)
    if (tree === undefined || tree.count < count) {
      if (tree !== undefined) this.extend(undefined)
      const custodied = this.custodiedAt[jd]!
      const least = this.tree(jd, this.steps.length)
      const steps = this.steps
      tree = new ThresholdTree(steps.length, (i) => {
        const step = steps[i]!
        const t = least.at(i)
        return step.found === -1 && t !== INFINITY ? step.amount18 - custodied[i]! : t
      })
      this.fullCostTrees.set(jd, tree)
    }
    return tree
  }
}

/** Domain index j's bit in `FifoBase`'s listed-domain sets (a bigint: any number of domains). */
const LISTED_BITS: bigint[] = []
const listedBit = (j: number): bigint => (LISTED_BITS[j] ??= 1n << BigInt(j))

/**
 * The replays of one target over a `FifoBase` (the invoices before it; all of them when it is not in the list):
 * with an extra deposit on one domain (`replay`). Exported for minAmounts.test.ts, which compares its replays with
 * the reference's deposit by deposit.
 */
export class FifoReplay {
  readonly index: ReadonlyMap<number, number>
  private readonly epoch: number
  private readonly xerc20First: boolean
  private readonly base: FifoBase
  /** The base's invoices; those before `count` are the target's predecessors. */
  private readonly steps: readonly Step[]
  private readonly count: number
  /** The target's step, undefined when it is not in the list (then it never settles). */
  private readonly target: Step | undefined
  /** Per domain index, the base overlay before invoice i (i = count: before the target). */
  private readonly custodiedAt: readonly (readonly bigint[])[]
  private readonly availableAt: readonly (readonly bigint[])[]
  private readonly view: OverlayView
  /** Per domain index, the pure parts of its replays so far. */
  private readonly traces = new Map<number, PureTrace[]>()
  /**
   * How much of the pure parts came from recorded ones (`takesReused`: takes copied from a recorded replay) and how
   * much was walked (`takesWalked`): what minAmounts.test.ts checks reuse with.
   */
  readonly pureStats = { takesReused: 0, takesWalked: 0 }

  constructor(hub: Hub, ticker: TickerState, target: InvoiceNode, base: FifoBase = new FifoBase(hub, ticker)) {
    this.base = base
    this.index = base.index
    this.epoch = base.epoch
    this.xerc20First = base.xerc20First
    const count = (this.count = base.positionOf(target))
    this.steps = base.steps
    const targetStep = count < base.steps.length ? base.steps[count] : undefined
    this.target = targetStep === undefined ? undefined : { ...targetStep, found: -1 }
    this.custodiedAt = base.custodiedAt
    this.availableAt = base.availableAt
    this.view = new OverlayView(ticker, this.index)
  }

  private tree(jd: number): ThresholdTree {
    return this.base.tree(jd, this.count)
  }

  private fullCostTree(jd: number): ThresholdTree {
    return this.base.fullCostTree(jd, this.count)
  }

  /** Loads the base overlay before invoice `i` into the view, with domains `diff[k]` set to (`custodied18[k]`, `available18[k]`). */
  private load(i: number, diff: readonly number[], custodied18: readonly bigint[], available18: readonly bigint[]): void {
    const view = this.view
    for (let j = 0; j < view.custodied18.length; j++) {
      view.custodied18[j] = this.custodiedAt[j]![i]!
      view.available18[j] = this.availableAt[j]![i]!
    }
    for (let k = 0; k < diff.length; k++) {
      view.custodied18[diff[k]!] = custodied18[k]!
      view.available18[diff[k]!] = available18[k]!
    }
  }

  /**
   * Whether the target settles when only domain index `jd` differs from the base, with that custody and those
   * deposits there: when jd is its only DEFAULT domain, by jd's arithmetic (`costAlone`, as for `Step.single`),
   * else by the hub's evaluation on the overlay.
   */
  private targetSettlesOn(jd: number, custodied18: bigint, available18: bigint): boolean {
    const target = this.target
    if (target !== undefined && target.single === jd) return costAlone(target, custodied18, available18) !== undefined || (!this.xerc20First && target.hasXerc20)
    this.load(this.count, [jd], [custodied18], [available18])
    return this.targetSettles()
  }

  private targetSettles(): boolean {
    const target = this.target
    if (target === undefined) return false
    if (!target.evaluated) return true
    return this.view.evaluate(this.epoch, target) !== undefined || (!this.xerc20First && target.hasXerc20)
  }

  /**
   * The pure part of the replay with `x18` on domain index `jd` (`PureTrace`): from the recorded replay with the
   * largest deposit up to `x18`, what stays the same (its settled invoices are settled by any larger deposit too,
   * FIFO decisions being monotone in d's custody and deposits while no other domain is involved), then invoice by
   * invoice. Returns where it ends and d's custody and deposits there.
   */
  private pureWalk(jd: number, x18: bigint): { at: number; custodied18: bigint; available18: bigint; takes: readonly number[] } {
    const steps = this.steps
    const count = this.count
    const tree = this.tree(jd)
    // The base's custody on jd, which changes only at invoices the base settles there: those a pure part takes
    // (`Step.single`), where it is updated, or ends at.
    let base18 = this.custodiedAt[jd]![0]!
    let traces = this.traces.get(jd)
    if (traces === undefined) this.traces.set(jd, (traces = []))
    // The recorded replay with the largest deposit up to x18 (traces are kept sorted by deposit).
    let lo = 0
    let hi = traces.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (traces[mid]!.x <= x18) lo = mid + 1
      else hi = mid
    }
    const ref = lo > 0 ? traces[lo - 1] : undefined
    const insertAt = lo
    let takes: number[] = []
    let records: TakeRecord[] = []
    let reused = 0
    let firstUncovered = -1
    let from = 0
    let gapStart = 0
    // Custody on jd less the base's, and deposits on jd, where the walk starts.
    let dCustodied = x18
    let available18 = this.availableAt[jd]![0]! + x18
    if (ref !== undefined) {
      const m = ref.takes.length
      const refRecords = ref.records
      // The first gap that may hold an invoice to stop at for x18 (m + 1 when none).
      let a = 0
      let b = m + 1
      while (a < b) {
        const mid = (a + b) >> 1
        if ((mid < m ? refRecords[mid]!.leastGap18 : ref.endLeastGap18) <= x18) b = mid
        else a = mid + 1
      }
      const gap = a
      const uncovered = ref.firstUncovered
      if (ref.x === x18 || (gap > m && uncovered === m)) {
        // All of it, for x18 (the same deposit again: after a bisection, its last probe).
        this.pureStats.takesReused += m
        if (ref.x !== x18) {
          const whole = { ...ref, x: x18 }
          if (insertAt === traces.length) traces.push(whole)
          else traces.splice(insertAt, 0, whole)
        }
        return { at: ref.end, custodied18: ref.endRelCustodied + x18, available18: ref.endRelAvailable + x18, takes: ref.takes }
      }
      // From the start of that gap, or from the first invoice settled without deposits covering it if before.
      const resumeAtTake = uncovered < gap
      const t = resumeAtTake ? uncovered : gap
      gapStart = t === 0 ? 0 : ref.takes[t - 1]! + 1
      from = resumeAtTake ? ref.takes[t]! : gapStart
      takes = ref.takes.slice(0, t)
      records = refRecords.slice(0, t)
      reused = t
      base18 = this.custodiedAt[jd]![from]!
      if (t < m) {
        // The base's custody there is the one at take t (constant in the gap before it).
        const at = refRecords[t]!
        const more18 = x18 - at.x18
        dCustodied = at.dCustodied18 + more18
        available18 = at.available18 + more18
      } else {
        dCustodied = ref.endRelCustodied + x18 - base18
        available18 = ref.endRelAvailable + x18
      }
    }
    const full = this.fullCostTree(jd)
    const maxDiscountBig = this.base.maxDiscountBig
    let i = nextCandidate(full, from, count, dCustodied, available18, maxDiscountBig)
    let endsAtBaseTake = false
    for (; i < count; i = nextCandidate(full, i + 1, count, dCustodied, available18, maxDiscountBig)) {
      const step = steps[i]!
      const baseTake = step.found === jd && step.single === jd
      if (step.found !== -1 && !baseTake) {
        if (tree.at(i) <= dCustodied) break
        continue
      }
      // `costAlone` on jd's custody, dCustodied + base18 (base18 is the base's custody before invoice i). Deposits
      // covering it, and not settled by the base: its least cost, and its threshold in `tree` is that less base18.
      const amount18 = step.amount18
      const covered = available18 >= amount18
      let after18: bigint
      let covers: boolean
      if (covered && !baseTake) {
        after18 = step.minAfter18
        covers = tree.at(i) <= dCustodied
      } else {
        after18 = covered ? step.minAfter18 : step.discount === 0 ? amount18 : amount18 - (available18 * step.discountBig) / DBPS_DENOMINATOR
        covers = dCustodied >= after18 - base18
      }
      if (!covers) {
        // One the base settles on jd and lists no other DEFAULT domain is a take too while jd's custody covers it
        // (settling it is jd's arithmetic, monotone in the deposit as any take); otherwise the pure part ends there.
        if (baseTake) {
          endsAtBaseTake = true
          break
        }
        continue
      }
      const leastGap18 = leastGapThrough(tree, gapStart, i, dCustodied, x18, records)
      if (firstUncovered === -1 && !covered) firstUncovered = takes.length
      takes.push(i)
      records.push({ dCustodied18: dCustodied, available18, x18, leastGap18 })
      available18 = available18 > after18 ? available18 - after18 : 0n
      if (baseTake) {
        const next18 = this.custodiedAt[jd]![i + 1]!
        dCustodied = dCustodied + base18 - after18 - next18
        base18 = next18
      } else dCustodied -= after18
      gapStart = i + 1
    }
    const custodied18 = dCustodied + base18
    // Ended at an invoice the base settles on jd that this deposit cannot: a larger one may, so it walks on from there.
    let endLeastGap18 = leastGapThrough(tree, gapStart, i, dCustodied, x18, records)
    if (endsAtBaseTake && x18 + 1n < endLeastGap18) endLeastGap18 = x18 + 1n
    if (firstUncovered === -1) firstUncovered = takes.length
    this.pureStats.takesReused += reused
    this.pureStats.takesWalked += records.length - reused
    const trace = { x: x18, takes, records, endLeastGap18, firstUncovered, end: i, endRelCustodied: custodied18 - x18, endRelAvailable: available18 - x18 }
    if (insertAt === traces.length) traces.push(trace)
    else traces.splice(insertAt, 0, trace)
    return { at: i, custodied18, available18, takes }
  }

  /**
   * The replay with `extra18` deposited on `domain` (a domain of the ticker) in the current epoch. The replay's
   * overlay differs from the base's only on a few domains (`diff`: first the deposit's, then each domain an
   * invoice settles on, or no longer settles on, in the replay and not in the base); an invoice can come out
   * differently only where one of them reaches its threshold (`tree`), so only those invoices are evaluated.
   * The walk while only `domain` differs is `replayDiffering(…, [domain])` specialised to one domain: calling that
   * instead gives the same results and makes a poll of 300 invoices about 40 % slower.
   */
  replay(domain: number, extra18: bigint): Replay {
    const jd = this.index.get(domain)!
    const steps = this.steps
    const count = this.count
    const view = this.view
    const custodiedAt = this.custodiedAt[jd]!
    // While only jd differs (the common case): its custody and deposits in the replay, and its custody less the
    // base's (which changes only at invoices the base settles on jd, where the replay stops).
    const pure = this.pureWalk(jd, extra18)
    let custodied18 = pure.custodied18
    let available18 = pure.available18
    if (pure.at >= count) return { settled: this.targetSettlesOn(jd, custodied18, available18), custodied18, available18, takes: pure.takes }
    let dCustodied = custodied18 - custodiedAt[pure.at]!
    const tree = this.tree(jd)
    let i = pure.at
    for (; i < count; i = tree.firstAtMost(i + 1, dCustodied)) {
      const step = steps[i]!
      if (step.found === -1) {
        const after18 = costAlone(step, custodied18, available18)
        if (after18 !== undefined) {
          custodied18 -= after18
          available18 = available18 > after18 ? available18 - after18 : 0n
          dCustodied = custodied18 - custodiedAt[i]!
        }
        continue
      }
      if (step.single === jd) {
        // Settled on jd in the base and listing no other DEFAULT domain: the hub's evaluation is jd's arithmetic
        // (`costAlone`), whether it settles there again (for another amount) or no longer does.
        const after18 = costAlone(step, custodied18, available18)
        if (after18 !== undefined) {
          custodied18 -= after18
          available18 = available18 > after18 ? available18 - after18 : 0n
        }
        dCustodied = custodied18 - custodiedAt[i + 1]!
        continue
      }
      this.load(i, [jd], [custodied18], [available18])
      const found = view.evaluate(this.epoch, step)
      const chosen = found === undefined ? -1 : this.index.get(found.domain)!
      if (chosen === step.found && chosen !== jd) continue // the same other domain (or none), for the same amount
      if (found !== undefined) view.apply(found)
      if ((chosen === -1 || chosen === jd) && (step.found === -1 || step.found === jd)) {
        custodied18 = view.custodied18[jd]!
        available18 = view.available18[jd]!
        dCustodied = custodied18 - custodiedAt[i + 1]!
        continue
      }
      // Another domain differs from now on.
      const diff = [jd]
      if (chosen !== -1 && chosen !== jd) diff.push(chosen)
      if (step.found !== -1 && step.found !== jd && step.found !== chosen) diff.push(step.found)
      return this.replayDiffering(i + 1, diff)
    }
    return { settled: this.targetSettlesOn(jd, custodied18, available18), custodied18, available18, takes: undefined }
  }

  /** The rest of a replay from invoice `from`, the view holding its overlay there, which differs from the base's on `diff`. */
  private replayDiffering(from: number, diff: number[]): Replay {
    const jd = diff[0]!
    const steps = this.steps
    const count = this.count
    const view = this.view
    const custodied: bigint[] = []
    const available: bigint[] = []
    const deltas: bigint[] = []
    const trees: ThresholdTree[] = []
    const take = (at: number): void => {
      for (let k = 0; k < diff.length; k++) {
        const j = diff[k]!
        if (trees[k] === undefined) trees[k] = this.tree(j)
        custodied[k] = view.custodied18[j]!
        available[k] = view.available18[j]!
        deltas[k] = custodied[k]! - this.custodiedAt[j]![at]!
      }
    }
    take(from)
    for (let i = from; ; i++) {
      let next = count
      for (let k = 0; k < diff.length; k++) {
        const at = trees[k]!.firstAtMost(i, deltas[k]!)
        if (at < next) next = at
      }
      if (next >= count) break
      i = next
      const step = steps[i]!
      this.load(i, diff, custodied, available)
      const found = view.evaluate(this.epoch, step)
      const chosen = found === undefined ? -1 : this.index.get(found.domain)!
      if (chosen === step.found && !diff.includes(chosen)) continue // the same domain outside diff (or none), for the same amount
      if (found !== undefined) view.apply(found)
      if (chosen !== -1 && !diff.includes(chosen)) diff.push(chosen)
      if (step.found !== -1 && !diff.includes(step.found)) diff.push(step.found)
      take(i + 1)
    }
    this.load(count, diff, custodied, available)
    return { settled: this.targetSettles(), custodied18: view.custodied18[jd]!, available18: view.available18[jd]!, takes: undefined }
  }
}

/** Whether two replays are pure (`Replay.takes`) and settle the same earlier invoices. */
const sameTakes = (a: Replay, b: Replay): boolean => {
  const x = a.takes
  const y = b.takes
  if (x === undefined || y === undefined || x.length !== y.length) return false
  for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return false
  return true
}

/**
 * The bisection between a deposit `lo` that fails to settle the invoice and one `hi` that settles it, with the
 * same result in far fewer replays. Settling is not monotone in the deposit in general (one more earlier invoice
 * taking liquidity can leave too little for this one), so the bisection's probes decide which boundary it finds;
 * they are made as long as the two ends differ. Once both ends are pure replays settling the same earlier
 * invoices, every deposit between them settles those same invoices: invoice by invoice, with the decisions
 * before it the same, the deposit domain's custody and deposits at it only grow with the deposit, so whether it
 * takes liquidity is the same at both ends and in between (and no invoice the base settles elsewhere is reached,
 * as at `hi`; one it settles on the deposit's domain alone is a take like the others, its cost falling as the
 * deposits there grow). So settling is monotone there, the bisection would end at its one boundary, and `firstSettling` finds it.
 */
const bisectReplays = (lo: bigint, hi: bigint, atLo: Replay, atHi: Replay, replay: (x: bigint) => Replay, margin: (r: Replay) => bigint): bigint => {
  while (hi - lo > 1n) {
    if (sameTakes(atLo, atHi)) {
      return firstSettling(lo, hi, margin(atLo), margin(atHi), (x) => {
        const r = replay(x)
        return { settled: r.settled, margin: margin(r) }
      })
    }
    const mid = (lo + hi) / 2n
    const r = replay(mid)
    if (r.settled) {
      hi = mid
      atHi = r
    } else {
      lo = mid
      atLo = r
    }
  }
  return hi
}

/**
 * The least deposit in (lo, hi] that settles the invoice, `lo` failing and `hi` settling, where settling is
 * monotone in the deposit (so the one boundary a bisection would find), in a few probes. `margin` is what the
 * custody on the deposit's domain right before the invoice exceeds its cost by there (it settles when that is
 * ≥ 0 if that domain is the one that settles it). Between two deposits settling the same earlier invoices it
 * grows at least as fast as the deposit (every cost on the way falls, or stays, as the deposits that earn
 * discounts grow). So the first probe goes down from `hi` by its margin, at or below the crossing; from then on
 * the line through both ends points at the crossing within rounding. A probe that did not halve the interval
 * makes the next one a bisection step, so it never takes more than about twice a bisection's probes.
 */
export const firstSettling = (
  lo: bigint,
  hi: bigint,
  marginLo: bigint,
  marginHi: bigint,
  probe: (x: bigint) => { readonly settled: boolean; readonly margin: bigint },
): bigint => {
  let first = true
  let bisect = false
  while (hi - lo > 1n) {
    const width = hi - lo
    let x: bigint
    if (bisect) x = lo + width / 2n
    else if (first && marginHi >= 0n) x = hi - marginHi
    else if (marginLo < 0n && marginHi >= 0n) x = lo + (width * -marginLo) / (marginHi - marginLo)
    else x = lo + width / 2n
    first = false
    if (x <= lo) x = lo + 1n
    else if (x >= hi) x = hi - 1n
    const r = probe(x)
    if (r.settled) {
      hi = x
      marginHi = r.margin
    } else {
      lo = x
      marginLo = r.margin
    }
    bisect = !bisect && (hi - lo) * 2n > width
  }
  return hi
}

/**
 * The minimum amounts of the open invoice `node` of `ticker`, per candidate domain; `base`, when given, a `FifoBase`
 * of the ticker made at this hub state (shared with other targets), else one is made for the call.
 */
export const computeMinAmounts = (hub: Hub, ticker: TickerState, node: InvoiceNode, base?: FifoBase): InvoiceMinAmounts => minAmountsOf(hub, ticker, node, base).result

/**
 * `computeMinAmounts`, and whether a domain's shortfall rounds stopped at their limit, which grows with the
 * ticker's whole list (its later invoices included): only then does the answer depend on that length.
 */
const minAmountsOf = (hub: Hub, ticker: TickerState, node: InvoiceNode, base?: FifoBase): { readonly result: InvoiceMinAmounts; readonly roundLimitReached: boolean } => {
  const state = hub.state
  const epoch = state.currentEpoch()
  const discount = discountDbps(state, ticker, epoch, node.entryEpoch, node.ctx)
  const candidates: DomainAsset[] = settlementDomains(state, ticker, node.ctx, node.owner).filter((d) => d.strategy === Strategy.DEFAULT)
  const amountAfterDiscounts = new Map<number, bigint>()
  const custodiedAmounts = new Map<number, bigint>()
  const minAmounts = new Map<number, bigint>()
  const invoiceCount = ticker.invoices.length
  const fifo = candidates.length > 0 ? new FifoReplay(hub, ticker, node, base) : undefined
  let roundLimitReached = false
  for (const candidate of candidates) {
    const d = candidate.domain
    const replay = (extra18: bigint): Replay => fifo!.replay(d, extra18)
    custodiedAmounts.set(d, ticker.custodied(d))
    let extra = 0n
    let below = -1n
    let rounds = 0
    let result = replay(extra)
    let failed = result
    // Each round either settles the invoice or lets one more earlier invoice take liquidity on d.
    for (; !result.settled && rounds <= invoiceCount + 2; rounds++) {
      const shortfall = minDepositFormula(node.amount18, result.custodied18, result.available18, discount)
      if (shortfall === 0n) break // d cannot help this invoice
      below = extra
      failed = result
      extra += shortfall
      result = replay(extra)
    }
    if (!result.settled) {
      if (rounds > invoiceCount + 2) roundLimitReached = true
      continue
    }
    if (rounds > 1) {
      // Earlier invoices took part: their own discounts grow with the deposit, so the last step may overshoot.
      // Bisect between the last amount that failed and the one that settles.
      const margin = (r: Replay): bigint => {
        const covered = r.available18 < node.amount18 ? r.available18 : node.amount18
        return r.custodied18 - (node.amount18 - (covered * BigInt(discount)) / DBPS_DENOMINATOR)
      }
      extra = bisectReplays(below, extra, failed, result, replay, margin)
      result = replay(extra)
    }
    minAmounts.set(d, extra)
    const deposits = result.available18
    const covered = deposits < node.amount18 ? deposits : node.amount18
    amountAfterDiscounts.set(d, node.amount18 - (covered * BigInt(discount)) / DBPS_DENOMINATOR)
  }
  return { result: { invoiceAmount: node.amount18, discountDbps: discount, amountAfterDiscounts, custodiedAmounts, minAmounts }, roundLimitReached }
}

/** A computed answer and what it was computed from. */
interface CacheEntry {
  readonly result: InvoiceMinAmounts
  readonly epoch: number
  /** Every discount the answer read (the invoice's and its predecessors') was at its cap in `epoch`: so in any later one too. */
  readonly capped: boolean
  readonly userDomainsChanges: number
  /** The ticker's number of open invoices when a domain's rounds reached their limit (which grows with it); undefined when none did. */
  readonly invoiceCount: number | undefined
  /** The domains the answer read (the settlement domains of the invoice and of its predecessors), with their custody and current-epoch deposits then. */
  readonly domains: readonly number[]
  readonly custodied18: readonly bigint[]
  readonly available18: readonly bigint[]
}

/**
 * Min-amounts of open invoices, each kept while what it is computed from stays the same, checked in O(domains) per
 * question: the invoice's predecessors (none removed from the ticker's list since, `InvoiceList.removals`: appends
 * come after it; the list's length too when a domain's shortfall rounds reached their limit, which grows with it),
 * their settlement domains (no user changed their supported domains since), their discounts (the
 * same epoch, or a later one when every discount was already at its cap), and the custody and current-epoch
 * deposits of every domain those invoices list (compared by value). `computeMinAmounts` reads nothing else, so an
 * answer kept is the one it would give again (minAmounts.test.ts checks every answer against a fresh computation
 * along random hub histories). Arbitrageurs ask again and again between changes that touch none of this: intents
 * from chains no invoice lists, new invoices behind the one asked about, new epochs once the discounts are capped.
 * Answers computed again share one `FifoBase` per ticker while the hub state it read is unchanged (`KeptBase`):
 * a poll's questions at one hub state replay the list once.
 */
export class MinAmountsCache {
  private readonly tickers = new Map<TickerState, { readonly removals: number; readonly entries: Map<InvoiceNode, CacheEntry>; base: KeptBase | undefined }>()

  /** Forgets every answer (another hub is read from now on). */
  clear(): void {
    this.tickers.clear()
  }

  /** `computeMinAmounts(hub, ticker, node)`, computed again only when something it reads has changed. */
  get(hub: Hub, ticker: TickerState, node: InvoiceNode): InvoiceMinAmounts {
    const state = hub.state
    const epoch = state.currentEpoch()
    const removals = ticker.invoices.removals
    let cache = this.tickers.get(ticker)
    if (cache === undefined || cache.removals !== removals) this.tickers.set(ticker, (cache = { removals, entries: new Map(), base: undefined }))
    const answer = cache.entries.get(node)
    if (
      answer !== undefined &&
      answer.userDomainsChanges === state.userDomainsChanges &&
      (answer.epoch === epoch || (answer.capped && epoch > answer.epoch)) &&
      (answer.invoiceCount === undefined || answer.invoiceCount === ticker.invoices.length) &&
      sameBalances(ticker, epoch, answer)
    ) {
      return answer.result
    }
    let kept = cache.base
    if (kept === undefined || !kept.valid(hub, ticker)) cache.base = kept = new KeptBase(hub, ticker)
    const { result, roundLimitReached } = minAmountsOf(hub, ticker, node, kept.base)
    const { domains, capped } = kept.base.readsUpTo(node)
    cache.entries.set(node, {
      result,
      epoch,
      capped,
      userDomainsChanges: state.userDomainsChanges,
      invoiceCount: roundLimitReached ? ticker.invoices.length : undefined,
      domains,
      custodied18: domains.map((d) => ticker.custodied(d)),
      available18: domains.map((d) => ticker.depositQueue(epoch, d)?.available18 ?? 0n),
    })
    return result
  }
}

const sameBalances = (ticker: TickerState, epoch: number, kept: CacheEntry): boolean => {
  const domains = kept.domains
  for (let k = 0; k < domains.length; k++) {
    const d = domains[k]!
    if (ticker.custodied(d) !== kept.custodied18[k] || (ticker.depositQueue(epoch, d)?.available18 ?? 0n) !== kept.available18[k]) return false
  }
  return true
}

/**
 * A `FifoBase` kept for the ticker's next questions, with what it read besides the list (whose removals its
 * `MinAmountsCache` entry already follows): the hub, the epoch, the users' supported domains, and the custody and
 * current-epoch deposits of every domain of the ticker when it was made.
 */
class KeptBase {
  readonly base: FifoBase
  private readonly hub: Hub
  private readonly userDomainsChanges: number
  private readonly custodied18: readonly bigint[]
  private readonly available18: readonly bigint[]

  constructor(hub: Hub, ticker: TickerState) {
    this.hub = hub
    this.base = new FifoBase(hub, ticker)
    this.userDomainsChanges = hub.state.userDomainsChanges
    const epoch = this.base.epoch
    this.custodied18 = [...this.base.index.keys()].map((d) => ticker.custodied(d))
    this.available18 = [...this.base.index.keys()].map((d) => ticker.depositQueue(epoch, d)?.available18 ?? 0n)
  }

  valid(hub: Hub, ticker: TickerState): boolean {
    const state = hub.state
    const epoch = this.base.epoch
    if (hub !== this.hub || state.currentEpoch() !== epoch || state.userDomainsChanges !== this.userDomainsChanges) return false
    let k = 0
    for (const d of this.base.index.keys()) {
      if (ticker.custodied(d) !== this.custodied18[k] || (ticker.depositQueue(epoch, d)?.available18 ?? 0n) !== this.available18[k]) return false
      k++
    }
    return true
  }
}
