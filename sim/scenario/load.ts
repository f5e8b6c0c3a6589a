/**
 * Loading a scenario file: YAML → Effect Schema decode → cross-field checks → a normalized `Scenario` with
 * every default filled in (a transport section's latency among them) and scripted times in time order. Every
 * problem is reported with the file, the path in the document, its line and column, and what was expected. The
 * scenario hash (keccak256 of the file bytes) goes into every report.
 */
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, visit, type Document, type YAMLError } from "yaml"
import { keccak256Bytes } from "../../service/domain/keccak.ts"
import { FileTooLargeError, readFileBounded } from "../files.ts"
import { MAX_XERC20_LIMIT, tokensToUnits, tokensToUnitsRounded } from "../../service/domain/protocol.ts"
import { decodeWithProblems, type InputProblem, pathKeys } from "../../service/domain/schemas.ts"
import type { LatencySpec } from "../../service/transport/latency.ts"
import { inOutageWindow, MIN_REFUSAL_RETRY_SECONDS, outageMs } from "../../service/transport/transport.ts"
import type { IntentPath } from "../metrics/collector.ts"
import { COVERAGE_PREDICATES, parseComparison } from "../metrics/properties.ts"
import { assetMetricNames, knownMetricNames, METRIC_NAMES, populationMetricNames } from "../report/report.ts"
import { HUB_DEFAULTS } from "../../service/hub/config.ts"
import { horizonSeconds as horizonSecondsOf } from "../world/plan.ts"
import { ACCOUNT_FUNDING_TOKENS, MAX_HORIZON_SECONDS, MAX_TOKEN_DECIMALS, OBJECT_MEMBERS, type RebalancerSpec, ScenarioSpec } from "./schema.ts"
import { scriptedInTimeOrder, timelineWarnings } from "./timeline.ts"

export class ScenarioError extends Error {
  override readonly name = "ScenarioError"
  readonly file: string
  readonly problems: readonly { readonly path: string; readonly line?: number; readonly column?: number; readonly message: string }[]
  /** Set when the file could not be read at all (then there is one problem, the reason). */
  readonly unreadable: boolean
  constructor(
    file: string,
    problems: readonly { readonly path: string; readonly line?: number; readonly column?: number; readonly message: string }[],
    unreadable = false,
  ) {
    super(
      unreadable
        ? `${file}: cannot read the scenario file: ${problems[0]?.message ?? "unknown reason"}`
        : `${file}: invalid scenario\n${problems
            .map((p) => `  ${p.line === undefined ? "" : `${p.line}:${p.column ?? 1} `}${p.path === "" ? "(root)" : p.path}: ${p.message}`)
            .join("\n")}`,
    )
    this.file = file
    this.problems = problems
    this.unreadable = unreadable
  }
}

const READ_FAILURES: Readonly<Record<string, string>> = {
  ENOENT: "it does not exist",
  EISDIR: "it is a directory",
  EACCES: "permission denied",
  ENOTDIR: "a part of the path is not a directory",
}

/**
 * The node of `doc` at `parts`, as far as the path exists (a missing key gives its parent). A key is matched by its
 * text, as the problem's path gives it: a number or boolean key (`31001: ...`) too, which `doc.getIn` looks up by
 * value and missed, so its problem was placed at the top of the file.
 */
const nodeAt = (doc: Document, parts: readonly PropertyKey[]): unknown => {
  let node: unknown = doc.contents
  for (const part of parts) {
    let child: unknown
    if (isMap(node)) child = node.items.find((pair) => isScalar(pair.key) && String(pair.key.value) === String(part))?.value
    else if (isSeq(node) && typeof part === "number") child = node.items[part]
    if (child === undefined || child === null) break
    node = child
  }
  return node
}

const locate = (doc: Document, lineCounter: LineCounter, path: string): { line?: number; column?: number } => {
  const range = (nodeAt(doc, pathKeys(path)) as { range?: [number, number, number] } | null | undefined)?.range
  if (range === undefined) return {}
  const pos = lineCounter.linePos(range[0])
  return { line: pos.line, column: pos.col }
}

/** A setting the run cannot use, where it is in the file. */
export interface ScenarioWarning {
  readonly path: string
  readonly line?: number
  readonly column?: number
  readonly message: string
}

export interface LoadedScenario {
  readonly file: string
  readonly spec: ScenarioSpec
  /** keccak256 of the file's bytes. */
  readonly scenarioHash: `0x${string}`
  /** The file's text, as decoded: what a run in a child process is given (`parseScenario` of it is this scenario again). */
  readonly text: string
  /**
   * Settings that cannot change the run as written (a reorder window without reorders, say), scripted times and
   * outages after the horizon, scripted times out of order, a run expected to make millions of intents: told, not refused.
   */
  readonly warnings: readonly ScenarioWarning[]
}

/** A message cut to 200 characters: the YAML parser quotes whole tokens, which may be a line of garbage. */
const clip = (message: string): string => (message.length <= 200 ? message : `${message.slice(0, 200)}…`)

/** The path of a node of `doc` (`agents.rebalancers[0].name`) from its ancestors, as `visit` gives them. */
const nodePath = (ancestors: readonly unknown[], node: unknown): string => {
  let path = ""
  const chain = [...ancestors, node]
  chain.forEach((ancestor, i) => {
    const child = chain[i + 1]
    if (isPair(ancestor) && child === ancestor.value) {
      const key = isScalar(ancestor.key) ? String(ancestor.key.value) : String(ancestor.key)
      path += path === "" ? key : `.${key}`
    } else if (isSeq(ancestor) && child !== undefined) path += `[${ancestor.items.indexOf(child as never)}]`
  })
  return path
}

/**
 * A YAML parse error in our words where the parser's would puzzle a user: a second document (its message advises
 * a function of the library), a key given twice (its message does not say which key, nor where).
 */
const yamlProblem = (doc: Document, lineCounter: LineCounter, error: YAMLError): { path: string; line: number; column: number; message: string } => {
  const pos = lineCounter.linePos(error.pos[0])
  const at = { path: "", line: pos.line, column: pos.col }
  if (error.code === "MULTIPLE_DOCS") return { ...at, message: "YAML: a second document starts here (after ---); expected one scenario per file" }
  if (error.code === "DUPLICATE_KEY") {
    let found: { path: string; key: string } | undefined
    visit(doc, {
      Pair: (_, pair, ancestors) => {
        if (found !== undefined || !isScalar(pair.key) || pair.key.range?.[0] !== error.pos[0]) return
        const parent = nodePath(ancestors.slice(0, -1), ancestors.at(-1))
        const key = String(pair.key.value)
        found = { path: parent === "" ? key : `${parent}.${key}`, key }
        return visit.BREAK
      },
    })
    if (found !== undefined) return { ...at, path: found.path, message: `YAML: the key ${JSON.stringify(found.key)} is given twice in this mapping (expected each key once)` }
  }
  return { ...at, message: `YAML: ${clip(error.message.split("\n")[0]!)}` }
}

/** Where an alias of an anchor not defined before it (`*nope`) is: the parser only says its name. */
const unresolvedAlias = (doc: Document, lineCounter: LineCounter): { path: string; line?: number; column?: number } => {
  let found: { path: string; line?: number; column?: number } = { path: "" }
  visit(doc, {
    Alias: (_, alias, ancestors) => {
      if (alias.resolve(doc) !== undefined) return
      const pos = alias.range === undefined || alias.range === null ? undefined : lineCounter.linePos(alias.range[0])
      found = { path: nodePath(ancestors, alias), ...(pos === undefined ? {} : { line: pos.line, column: pos.col }) }
      return visit.BREAK
    },
  })
  return found
}

/** Decodes scenario text (YAML or JSON); `file` is used in messages. */
export const parseScenario = (text: string, file: string): LoadedScenario => {
  const lineCounter = new LineCounter()
  // `merge`: YAML's `<<: *anchor` merge keys, for scenarios that share agent settings.
  // `logLevel: "error"`: a key that is a mapping or a list (`[a, b]: 1`) is refused as an unknown key below, not
  // also told by the library as a Node warning on stderr.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, merge: true, logLevel: "error" })
  if (doc.errors.length > 0) throw new ScenarioError(file, doc.errors.map((e) => yamlProblem(doc, lineCounter, e)))
  // A tag the parser does not know (`seed: !foo 5`) is only a warning to it, and the value a string: refused here,
  // at the tag, rather than as a string where a number goes.
  // The parser warns the same way of one of YAML's own tags whose value does not fit it (`!!float 5000`, read as the
  // string "5000" as before, which the schema takes or refuses): only tags outside YAML's own are refused here.
  const unknownTags = doc.warnings.filter((w) => w.code === "TAG_RESOLVE_FAILED" && !w.message.includes("tag:yaml.org,2002:"))
  if (unknownTags.length > 0) {
    throw new ScenarioError(
      file,
      unknownTags.map((w) => {
        const pos = lineCounter.linePos(w.pos[0])
        const tag = text.slice(w.pos[0], w.pos[1])
        // The tagged node: the first to start after the tag (its resolved name may differ from the text, via %TAG).
        let path = ""
        visit(doc, (_, node, ancestors) => {
          const range = (node as { range?: readonly number[] | null }).range
          if (range === undefined || range === null || range[0]! < w.pos[1]) return
          path = nodePath(ancestors, node)
          return visit.BREAK
        })
        return { path, line: pos.line, column: pos.col, message: `YAML: unknown tag ${tag}; expected no tag, or one of YAML's own (!!str, !!int, !!float, !!bool, !!null, !!map, !!seq)` }
      }),
    )
  }
  if (doc.contents === null) throw new ScenarioError(file, [{ path: "", message: "the file is empty (nothing but blank lines or comments): expected a mapping of scenario fields" }])
  if (!isMap(doc.contents) && !isSeq(doc.contents)) throw new ScenarioError(file, [{ path: "", message: "expected a mapping of scenario fields" }])
  // YAML's `!!binary` reads as bytes, which no field takes: told at the value, not as a Buffer's JSON.
  const binaries: InputProblem[] = []
  visit(doc, {
    Scalar: (_, node, ancestors) => {
      if (node.tag !== "tag:yaml.org,2002:binary") return
      const pos = node.range === undefined || node.range === null ? undefined : lineCounter.linePos(node.range[0])
      binaries.push({ path: nodePath(ancestors, node), ...(pos === undefined ? {} : { line: pos.line, column: pos.col }), message: "YAML: a !!binary value (bytes), which no field takes; expected text or a number" })
    },
  })
  if (binaries.length > 0) throw new ScenarioError(file, binaries)
  let value: unknown
  try {
    value = doc.toJS()
  } catch (error) {
    // The yaml library refuses aliases that expand exponentially ("billion laughs") here, and aliases of no anchor.
    const at = error instanceof ReferenceError ? unresolvedAlias(doc, lineCounter) : { path: "" }
    throw new ScenarioError(file, [{ ...at, message: `YAML: ${(error as Error).message}` }])
  }
  const decoded = decodeWithProblems(ScenarioSpec, value, { strict: true })
  const located = (problems: readonly InputProblem[]) => problems.map((p) => ({ ...p, ...locate(doc, lineCounter, p.path) }))
  if (!decoded.ok) throw new ScenarioError(file, located(decoded.problems))
  const crossProblems = checkReferences(decoded.value)
  if (crossProblems.length > 0) throw new ScenarioError(file, located(crossProblems))
  const { spec, warnings: orderWarnings } = scriptedInTimeOrder(decoded.value)
  // Paths of the file as written: the timeline's warnings name scripted times by their place before sorting.
  const warnings = [...settingsWithoutEffect(spec), ...unpricedTotals(spec), ...sizesNeverSent(spec), ...seedsNeverSent(spec), ...solversNeverFilling(spec), ...settlementsNeverSent(spec), ...xerc20SettingsUnused(spec), ...propertiesWithoutValue(spec), ...orderWarnings, ...timelineWarnings(decoded.value)]
  return { file, spec, scenarioHash: keccak256Bytes(new TextEncoder().encode(text)), text, warnings: located(warnings) }
}

/**
 * Settings the run cannot use as the scenario stands: a fault's parameter without the fault, a path's parameter
 * without the path. Not errors (a sweep may set a probability to 0 and keep its window), but worth a line: a
 * misspelt or forgotten weight would otherwise go unnoticed.
 */
export const settingsWithoutEffect = (spec: ScenarioSpec): InputProblem[] => {
  const warnings: InputProblem[] = []
  const faults = spec.transport?.faults
  if (faults?.reorderWindowSeconds !== undefined && !((faults.reorderProbability ?? 0) > 0)) {
    warnings.push({ path: "transport.faults.reorderWindowSeconds", message: "has no effect without a reorderProbability above 0" })
  }
  // A reordered message is held a draw of up to the window more: a window of 0 holds none (they are counted, though).
  if (faults?.reorderWindowSeconds === 0 && (faults.reorderProbability ?? 0) > 0) {
    warnings.push({ path: "transport.faults.reorderProbability", message: "has no effect with a reorderWindowSeconds of 0: a reordered message is held up to that window more, so none is held (each is still counted as reordered)" })
  }
  const hubDomain = spec.hub?.domain ?? HUB_DEFAULTS.hubDomain
  const hubPaused = faults?.outages?.some((o) => o.kind === "pause" && o.domain === hubDomain) ?? false
  if (faults?.redeliveryDelaySeconds !== undefined && !((faults.dropProbability ?? 0) > 0) && !hubPaused) {
    warnings.push({ path: "transport.faults.redeliveryDelaySeconds", message: "has no effect without a dropProbability above 0 or a pause of the hub (what it delays)" })
  }
  spec.agents.rebalancers?.forEach((r, i) => {
    const weight = (path: "fast" | "swap") => r.paths?.[path] ?? 0
    if (r.swapTo !== undefined && !(weight("swap") > 0)) warnings.push({ path: `agents.rebalancers[${i}].swapTo`, message: "has no effect without a swap weight in paths" })
    for (const field of ["fastTtlSeconds", "fastMaxFeeDbps"] as const) {
      if (r[field] !== undefined && !(weight("fast") > 0) && !(weight("swap") > 0)) {
        warnings.push({ path: `agents.rebalancers[${i}].${field}`, message: "has no effect without a fast or swap weight in paths" })
      }
    }
  })
  // The hub tries an xERC20 destination first (settler.ts): with none on any chain, its order is the default one.
  spec.assets.forEach((a, i) => {
    if (a.prioritizedStrategy === "xerc20" && !a.chains.some((c) => c.strategy === "xerc20")) {
      warnings.push({ path: `assets[${i}].prioritizedStrategy`, message: `xerc20 has no effect: ${a.symbol} has no chain with strategy xerc20, so the hub settles it as with "default"` })
    }
  })
  const setsSomething = (threshold: object | undefined) => threshold !== undefined && Object.keys(threshold).length > 0
  spec.keepers?.chains?.forEach((k, i) => {
    if (!setsSomething(k.intentQueue) && !setsSomething(k.fillQueue) && !setsSomething(k.settlementQueue)) {
      warnings.push({ path: `keepers.chains[${i}]`, message: `sets nothing for chain ${k.chain} (expected intentQueue, fillQueue or settlementQueue)` })
    }
  })
  return warnings
}

/**
 * Several assets and no prices: the report's totals over assets add their tokens as they are. The netting totals
 * add the default-strategy assets' (an xERC20 asset is burnt and minted, never custodied: it has no netting); the
 * volume the discount is measured against (`discounts.settledVolume`, behind `paidBps`) adds every asset's
 * settlements, xERC20 ones included. So any second asset makes those totals mix tokens: told, not refused (a
 * scenario of assets of one value, or one reading only per-asset figures, may do without prices).
 */
export const unpricedTotals = (spec: ScenarioSpec): InputProblem[] => {
  if (spec.assets.length < 2 || spec.assets.some((a) => a.priceUsd !== undefined)) return []
  const symbols = spec.assets.map((a) => a.symbol)
  return [
    {
      path: "assets",
      message:
        `${symbols.join(", ")} have no priceUsd: the report's totals over assets (netting ratio and volumes, discount paid and its bps) ` +
        `add their tokens as they are, 1 ${symbols[1]} counting as 1 ${symbols[0]}; give every asset a priceUsd (the USD value of one whole token) to weigh them by value`,
    },
  ]
}

/** The warnings of a loaded scenario, one line each, as the CLI prints them (`file:line:column: path: message`). */
export const scenarioWarningLines = (loaded: LoadedScenario): string[] =>
  loaded.warnings.map((w) => `clearsim: warning: ${loaded.file}${w.line === undefined ? "" : `:${w.line}:${w.column}`}: ${w.path}: ${w.message}`)

/** Strict UTF-8 that keeps a byte-order mark (the YAML parser skips it; the scenario's hash covers it, as before). */
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** The largest scenario file read: the shipped ones are a few kilobytes, a million scripted times about 10 MB. */
export const MAX_SCENARIO_BYTES = 64 * 2 ** 20

export const loadScenario = (file: string): LoadedScenario => {
  // Named as "" (a message starting ": cannot read" names nothing), as a shell's `clearsim run "$SCENARIO"` gives it.
  if (file === "") throw new ScenarioError('""', [{ path: "", message: "expected the path of a scenario file, got an empty one" }], true)
  let bytes: Buffer
  try {
    bytes = readFileBounded(file, MAX_SCENARIO_BYTES)
  } catch (error) {
    if (error instanceof FileTooLargeError) {
      throw new ScenarioError(file, [{ path: "", message: `more than ${MAX_SCENARIO_BYTES / 2 ** 20} MiB; expected a YAML scenario (a few kilobytes)` }], true)
    }
    const code = (error as NodeJS.ErrnoException).code
    const reason = code === undefined ? (error as Error).message : `${READ_FAILURES[code] ?? (error as Error).message} (${code})`
    throw new ScenarioError(file, [{ path: "", message: reason }], true)
  }
  // Binary content is named as such, rather than quoted back through the YAML parser's messages.
  if ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff)) {
    throw new ScenarioError(file, [{ path: "", message: "UTF-16 text; expected a YAML scenario in UTF-8 (save it as UTF-8)" }], true)
  }
  const nul = bytes.indexOf(0)
  if (nul >= 0) throw new ScenarioError(file, [{ path: "", message: `not a text file (a NUL byte at offset ${nul}); expected a YAML scenario` }], true)
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    throw new ScenarioError(file, [{ path: "", message: "not UTF-8 text; expected a YAML scenario" }], true)
  }
  return parseScenario(text, file)
}

/**
 * A rebalancer's fixed size that no intent can be sent at, from some flow's origin chain: below half a unit of the
 * token there (every intent 0 units, refused as zeroAmount), above the tokens each account is funded with, or above
 * its own `balanceTokens` (every intent budgetExhausted). Not errors (the run counts each refusal), but a run that
 * sends nothing of a population is worth a line before it starts.
 */
export const sizesNeverSent = (spec: ScenarioSpec): InputProblem[] => {
  const warnings: InputProblem[] = []
  spec.agents.rebalancers?.forEach((r, i) => {
    if (r.size.kind !== "fixed") {
      drawnSizesZero(spec, r, i, warnings)
      return
    }
    const tokens = r.size.tokens
    const chains = [...new Set(r.flows.map((f) => f.from))]
    for (const chain of chains) {
      const decimals = assetOnChain(spec, r.asset, chain)?.decimals
      if (decimals === undefined) continue // reported as a missing asset
      const at = `of ${r.asset} on chain ${chain} (${decimals} decimals)`
      // In units as the rebalancer sends it (rounded half up), its budget in units as it counts it (truncated).
      const units = tokensToUnitsRounded(tokens, decimals)
      if (units === 0n) {
        warnings.push({ path: `agents.rebalancers[${i}].size.tokens`, message: `${tokens} is below half a unit ${at}: every intent from there would be 0 units, refused as zeroAmount` })
      } else if (units > ACCOUNT_FUNDING_TOKENS * 10n ** BigInt(decimals)) {
        warnings.push({ path: `agents.rebalancers[${i}].size.tokens`, message: `${tokens} exceeds the ${ACCOUNT_FUNDING_TOKENS} whole tokens ${at} each account is funded with: no intent from there can be paid` })
      } else if (units <= fixedFeeUnits(spec, r.asset, decimals)) {
        const fee = spec.assets.find((a) => a.symbol === r.asset)?.fixedFeeTokens
        warnings.push({
          path: `agents.rebalancers[${i}].size.tokens`,
          message: `${tokens} does not exceed the fixedFeeTokens ${fee} of ${r.asset} (the API's quote fee) on chain ${chain}: every intent from there would leave nothing once the fee is taken, refused as InvalidAmount`,
        })
      } else if (r.balanceTokens !== undefined && units > tokensToUnits(r.balanceTokens, decimals)) {
        const budget = tokensToUnits(r.balanceTokens, decimals)
        warnings.push({
          path: `agents.rebalancers[${i}].balanceTokens`,
          message: `${r.balanceTokens} (${budget} units) is less than one intent's size, ${tokens} (${units} units) ${at}: every intent from there would be refused as budgetExhausted`,
        })
      }
    }
  })
  return warnings
}

/**
 * A solver whose fee does not exceed the protocol fee of any asset: the hub repays a fill less the protocol fee of
 * the intent's input ticker, so the solver (sim/agents/solver.ts) takes no fast intent at all, each counted as
 * `unprofitable`. Told, not refused: a sweep over fees may go that low.
 */
export const solversNeverFilling = (spec: ScenarioSpec): InputProblem[] => {
  const fees = spec.assets.map((a) => ({ symbol: a.symbol, dbps: a.protocolFeeDbps ?? HUB_DEFAULTS.protocolFeeDbps }))
  const lowest = Math.min(...fees.map((f) => f.dbps))
  const warnings: InputProblem[] = []
  spec.agents.solvers?.forEach((s, i) => {
    if (s.feeDbps > lowest) return
    warnings.push({
      path: `agents.solvers[${i}].feeDbps`,
      message:
        `${s.feeDbps} does not exceed the protocol fee of any asset (${fees.map((f) => `${f.symbol} ${f.dbps}`).join(", ")} dbps): the hub repays a fill less that fee, ` +
        `so this solver fills nothing (every fast intent counted as unprofitable); expected above ${lowest}`,
    })
  })
  return warnings
}

/**
 * xERC20 settings a run cannot use. A `burnLimit` on a chain users send the asset from that holds no intent's burn:
 * an intent from there burns its amount within the limit (`XERC20Module.handleBurnStrategy`), so with a limit of 0
 * units, or one below what each intent of a fixed size burns at least (its size less the quote's largest fees, the
 * fixed fee and `maxVariableFeeBps`), every intent from there reverts
 * (`XERC20Module_HandleBurnStrategy_InsufficientBurningLimit`, among the population's rejections). A solver's
 * inventory of an asset that is an xERC20 on every chain: such an asset has no fast path (its intents are burnt and
 * minted), so no intent is filled from it and it stays deposited, idle (on a chain where the asset is an xERC20 and
 * a default-strategy chain sends fast intents to it, the inventory fills them: no warning); an arbitrageur's capital
 * of such an asset, which has no invoices to buy. Told, not refused.
 */
export const xerc20SettingsUnused = (spec: ScenarioSpec): InputProblem[] => {
  const warnings: InputProblem[] = []
  spec.assets.forEach((a, i) => {
    a.chains.forEach((c, j) => {
      if (c.strategy !== "xerc20" || c.burnLimit === undefined) return
      const limit = tokensToUnits(c.burnLimit, c.decimals)
      const senders = (spec.agents.rebalancers ?? []).filter((r) => r.asset === a.symbol && r.flows.some((f) => f.from === c.chain && (f.weight ?? 1) > 0))
      if (senders.length === 0) return
      const names = senders.map((r) => r.name).join(", ")
      const reverts = `every intent from there would revert (XERC20Module_HandleBurnStrategy_InsufficientBurningLimit)`
      if (limit === 0n) {
        warnings.push({
          path: `assets[${i}].chains[${j}].burnLimit`,
          message: `${c.burnLimit} is 0 units of ${a.symbol} on chain ${c.chain} (${c.decimals} decimals): nothing can be burnt there, where ${names} send${senders.length === 1 ? "s" : ""} ${a.symbol} from, so ${reverts}; expected a limit above 0, or no flow from chain ${c.chain}`,
        })
        return
      }
      const variableBps = a.maxVariableFeeBps ?? 10
      for (const r of senders) {
        if (r.size.kind !== "fixed") continue
        const size = tokensToUnitsRounded(r.size.tokens, c.decimals)
        // The least an intent burns: its size less the largest fees the quote may take from it.
        const least = size - fixedFeeUnits(spec, a.symbol, c.decimals) - (size * BigInt(Math.ceil(variableBps * 100))) / 1_000_000n
        if (least <= limit) continue
        warnings.push({
          path: `assets[${i}].chains[${j}].burnLimit`,
          message: `${c.burnLimit} tokens of ${a.symbol} on chain ${c.chain} is less than each intent of ${r.name} from there burns (its fixed size, ${r.size.tokens} tokens, less the quote's fees): the limit, replenished up to itself, never holds one, so ${reverts}; expected a limit of at least ${r.size.tokens}`,
        })
      }
    })
  })
  const xerc20Only = new Set(spec.assets.filter((a) => a.chains.every((c) => c.strategy === "xerc20")).map((a) => a.symbol))
  spec.agents.solvers?.forEach((s, i) => {
    s.inventory.forEach((inv, j) => {
      if (!xerc20Only.has(inv.asset)) return
      warnings.push({
        path: `agents.solvers[${i}].inventory[${j}]`,
        message: `${inv.asset} is an xERC20 on every chain: its intents are burnt and minted, never on the fast path, so no intent is filled from this inventory (deposited on chain ${inv.chain}, it stays idle); expected an asset with a default-strategy chain that sends fast intents`,
      })
    })
  })
  spec.agents.arbitrageurs?.forEach((a, i) => {
    a.capital.forEach((c, j) => {
      if (!xerc20Only.has(c.asset)) return
      warnings.push({
        path: `agents.arbitrageurs[${i}].capital[${j}]`,
        message: `${c.asset} is an xERC20 on every chain: its intents are burnt and minted, never invoiced, so there is no invoice of it to buy and this capital on chain ${c.chain} is never spent; expected an asset with a default-strategy chain`,
      })
    })
  })
  return warnings
}

/**
 * A `hub.domainGasLimit` below the gas of a settlement batch of one (the hub's gas configuration, which a scenario
 * does not set: 99,000 by default): every `processSettlementQueue` reverts (`Settler_DomainBlockGasLimitReached`),
 * so the hub settles nothing on any spoke. Told, not refused: a run may study just that.
 */
export const settlementsNeverSent = (spec: ScenarioSpec): InputProblem[] => {
  const limit = spec.hub?.domainGasLimit
  if (limit === undefined) return []
  const gas = HUB_DEFAULTS.gasConfig
  const base = gas.settlementBaseGasUnits + gas.averageGasUnitsPerSettlement
  const one = base + Math.floor((base * gas.bufferDBPS) / 100_000)
  if (limit >= one) return []
  return [
    {
      path: "hub.domainGasLimit",
      message: `${limit} is below the ${one} gas a settlement batch of one needs: every processSettlementQueue reverts (Settler_DomainBlockGasLimitReached), so the hub settles nothing on the spokes; expected at least ${one}`,
    },
  ]
}

/**
 * Netting ratio properties that can have no value: an asset that is an xERC20 on every chain is burnt and minted,
 * never held in custody, so it has no netting ratio (`asset.<S>.nettingRatio`), and a scenario of such assets only
 * has none overall (`nettingRatio`, `netting.ratio`). A path's latency (`latency.<path>.<q>`,
 * `latency.settlement.<path>.<q>`) has samples of users' intents only, the rebalancers' (`sim/metrics/collector.ts`):
 * none when no rebalancer sends on that path. Such a property fails every run with "no samples". Told, not refused:
 * it is the run's verdict to give.
 */
export const propertiesWithoutValue = (spec: ScenarioSpec): InputProblem[] => {
  const xerc20Only = new Set(spec.assets.filter((a) => a.chains.every((c) => c.strategy === "xerc20")).map((a) => a.symbol))
  const allXerc20 = spec.assets.every((a) => xerc20Only.has(a.symbol))
  const sentPaths = pathsSent(spec)
  const warnings: InputProblem[] = []
  spec.properties?.forEach((property, i) => {
    if (typeof property !== "string") return
    let metric: string
    try {
      metric = parseComparison(property).metric
    } catch {
      return // refused above
    }
    const symbol = /^asset\.(.+)\.nettingRatio$/u.exec(metric)?.[1]
    const path = /^latency\.(?:settlement\.)?(basic|fast|swap|xerc20)\.(?:p50|p90|p99|max)$/u.exec(metric)?.[1] as IntentPath | undefined
    if (path !== undefined && !sentPaths.has(path)) {
      warnings.push({ path: `properties[${i}]`, message: `${metric} has no value: ${NO_SENDER[path]}, and a path's latencies are of rebalancers' intents only; the property fails with "no samples"` })
    } else if (symbol !== undefined && xerc20Only.has(symbol)) {
      warnings.push({ path: `properties[${i}]`, message: `${metric} has no value: ${symbol} is an xERC20 on every chain, burnt and minted, never held in custody, so it has no netting ratio; the property fails with "no samples"` })
    } else if ((metric === "nettingRatio" || metric === "netting.ratio") && allXerc20) {
      warnings.push({ path: `properties[${i}]`, message: `${metric} has no value: every asset is an xERC20 on every chain, burnt and minted, never held in custody, so the run has no netting ratio; the property fails with "no samples"` })
    }
  })
  return warnings
}

/** Why no rebalancer sends on a path, as `pathsSent` decides it. */
const NO_SENDER: Readonly<Record<IntentPath, string>> = {
  basic: "no rebalancer sends basic intents (none has a flow from a chain where its asset is not an xERC20 with a basic weight in paths, paths left out being all basic, nor a fast intent to fall back to basic when the fast path is refused)",
  fast: "no rebalancer sends fast-path intents (none has a fast weight in paths and a flow from a chain where its asset is not an xERC20, nor a swap weight and such a flow to a chain without another asset to swap into, which sends the swap as a fast intent)",
  swap: "no rebalancer sends swaps (none has a swap weight in paths and a flow from a chain where its asset is not an xERC20 to a chain with another asset to swap into)",
  xerc20: "no rebalancer sends xERC20 intents (none has a flow from a chain where its asset is an xERC20)",
}

/**
 * The paths some rebalancer may send on (sim/agents/rebalancer.ts), over its flows of positive weight: an intent from
 * a chain where the asset is an xERC20 takes the xERC20 route; from elsewhere, a path drawn by the weights (all basic
 * without paths), a swap without an asset to swap into on the destination sent as a fast intent, and a fast intent
 * refused a fast path sent as a basic one.
 */
const pathsSent = (spec: ScenarioSpec): Set<IntentPath> => {
  const sent = new Set<IntentPath>()
  for (const r of spec.agents.rebalancers ?? []) {
    const flows = r.flows.filter((f) => (f.weight ?? 1) > 0)
    if (flows.some((f) => assetOnChain(spec, r.asset, f.from)?.strategy === "xerc20")) sent.add("xerc20")
    const others = flows.filter((f) => (assetOnChain(spec, r.asset, f.from)?.strategy ?? "default") === "default")
    if (others.length === 0) continue
    const weight = (path: "basic" | "fast" | "swap") => (r.paths === undefined ? (path === "basic" ? 1 : 0) : (r.paths[path] ?? 0))
    const swaps = weight("swap") > 0
    if (swaps && others.some((f) => swapTarget(spec, r, f.to) !== undefined)) sent.add("swap")
    const fast = weight("fast") > 0 || (swaps && others.some((f) => swapTarget(spec, r, f.to) === undefined))
    if (fast) sent.add("fast")
    if (weight("basic") > 0 || fast) sent.add("basic")
  }
  return sent
}

/**
 * An initial liquidity entry below one unit of its token on its chain: the seed's amount, truncated to units as it
 * is sent (sim/agents/liquidity.ts), is 0, which the service refuses (`intents:InvalidAmount` among the liquidity's
 * rejections). Told, not refused: the run goes on without that seed.
 */
export const seedsNeverSent = (spec: ScenarioSpec): InputProblem[] => {
  const warnings: InputProblem[] = []
  spec.initialLiquidity?.forEach((l, i) => {
    const decimals = assetOnChain(spec, l.asset, l.chain)?.decimals
    if (decimals === undefined) return
    const units = tokensToUnits(l.tokens, decimals)
    if (units > 0n) {
      if (units > fixedFeeUnits(spec, l.asset, decimals)) return
      const fee = spec.assets.find((a) => a.symbol === l.asset)?.fixedFeeTokens
      warnings.push({
        path: `initialLiquidity[${i}].tokens`,
        message: `${l.tokens} does not exceed the fixedFeeTokens ${fee} of ${l.asset} (the API's quote fee) on chain ${l.chain}: the seed would leave nothing once the fee is taken, refused as InvalidAmount`,
      })
      return
    }
    warnings.push({
      path: `initialLiquidity[${i}].tokens`,
      message: `${l.tokens} is below one unit of ${l.asset} on chain ${l.chain} (${decimals} decimals): the seed would be 0 units, refused as InvalidAmount (expected at least ${decimals === 0 ? "1" : `0.${"0".repeat(decimals - 1)}1`})`,
    })
  })
  return warnings
}

/**
 * A drawn size (uniform, lognormal) whose largest value is 0 units from some origin chain: a uniform's `maxTokens`,
 * a lognormal's cap `maxTokens`, or a lognormal's `medianTokens` of 0. The rebalancer (sim/agents/rebalancer.ts)
 * rounds a drawn size to at most 6 decimals of the token (`unitsOf`) and sends a lognormal's draw at or above its
 * cap at the cap rounded to the token's units: when both are 0, every intent from there is 0 units (zeroAmount).
 */
const drawnSizesZero = (spec: ScenarioSpec, r: RebalancerSpec, i: number, warnings: InputProblem[]): void => {
  const size = r.size
  if (size.kind === "fixed") return
  const at = size.kind === "lognormal" && size.maxTokens === undefined ? "medianTokens" : "maxTokens"
  const largest = size.kind === "uniform" ? size.maxTokens : (size.maxTokens ?? size.medianTokens)
  if (size.kind === "lognormal" && size.maxTokens === undefined && Number(size.medianTokens) !== 0) return
  for (const chain of new Set(r.flows.map((f) => f.from))) {
    const decimals = assetOnChain(spec, r.asset, chain)?.decimals
    if (decimals === undefined) continue // reported as a missing asset
    const drawn = Math.round(Number(largest) * 10 ** Math.min(6, decimals))
    if (drawn !== 0 || (size.kind === "lognormal" && tokensToUnitsRounded(largest, decimals) !== 0n)) continue
    const what = size.kind === "uniform" ? "the largest size drawn" : at === "medianTokens" ? "the median (every size drawn is 0)" : "the cap"
    warnings.push({
      path: `agents.rebalancers[${i}].size.${at}`,
      message: `${largest}, ${what}, is 0 units of ${r.asset} on chain ${chain} (${decimals} decimals; a drawn size is rounded to at most 6 decimals): every intent from there would be 0 units, refused as zeroAmount`,
    })
  }
}

/** An asset's `fixedFeeTokens` (the API's quote fee, 0 by default) in units of `decimals`, as the quotes take it. */
const fixedFeeUnits = (spec: ScenarioSpec, symbol: string, decimals: number): bigint => {
  const fee = spec.assets.find((a) => a.symbol === symbol)?.fixedFeeTokens
  return fee === undefined ? 0n : tokensToUnits(fee, decimals)
}

/** The scenario's entry for `symbol` on `chain` (its decimals, strategy and limits), if the asset is there. */
const assetOnChain = (spec: ScenarioSpec, symbol: string, chain: number) => spec.assets.find((a) => a.symbol === symbol)?.chains.find((c) => c.chain === chain)

/**
 * The asset a population's swaps to `chain` go to (sim/agents/rebalancer.ts): its `swapTo`, or the first other asset
 * of the scenario, in the assets' order, with a default-strategy deployment there; undefined when there is none (the
 * swap is sent as a plain fast intent).
 */
const swapTarget = (spec: ScenarioSpec, r: RebalancerSpec, chain: number): string | undefined =>
  spec.assets.find((a) => a.symbol !== r.asset && (r.swapTo === undefined || a.symbol === r.swapTo) && a.chains.some((c) => c.chain === chain && (c.strategy ?? "default") === "default"))?.symbol

/**
 * Why a flow to a chain where the population's asset is not configured is refused, naming the population, the
 * assets and the chains. An intent is settled in its input asset on its destination, and the service refuses such a
 * route (`UnsupportedAsset`), so no intent of the flow would be sent. A swap says more: the hub takes a fast-path
 * swap whose input ticker has no asset on the destination (its output asset only has to be supported there), and
 * one no solver fills is settled in its input asset on the destination once it expires (reference §3.10), which
 * cannot be: its invoice would never settle. Refused, not warned: the combination can never work.
 */
const missingOnDestination = (spec: ScenarioSpec, r: RebalancerSpec, flow: { readonly from: number; readonly to: number }): string => {
  const missing = `asset ${r.asset} is not configured on chain ${flow.to}`
  const expected = `expected ${r.asset} on chain ${flow.to}, or no flow of ${r.name} to it`
  const swaps = (r.paths?.swap ?? 0) > 0 && (assetOnChain(spec, r.asset, flow.from)?.strategy ?? "default") === "default"
  const target = swaps ? swapTarget(spec, r, flow.to) : undefined
  if (target === undefined) {
    return `${missing}, where population ${r.name} sends ${r.asset} from chain ${flow.from}: its intents are paid out in ${r.asset} on their destination (a fill or a settlement), so the service would refuse every one (UnsupportedAsset); ${expected}`
  }
  return (
    `${missing}, where population ${r.name} swaps ${r.asset} from chain ${flow.from} into ${target}: a swap no solver fills is settled in its input asset on its ` +
    `destination once it expires, so without ${r.asset} on chain ${flow.to} its invoice would never settle (the service refuses such a swap: UnsupportedAsset); ${expected}`
  )
}

/**
 * Amounts one account puts in must fit what it is funded with (`ACCOUNT_FUNDING_TOKENS` of every asset on every
 * chain): a solver's inventory and an arbitrageur's capital per chain and asset, and the initial liquidity (one
 * account sends every seed) summed per chain and asset. Beyond that the deposits would revert on the chains and
 * the run would go on without them. Reported at the entry that passes the funding.
 */
const checkFunding = (spec: ScenarioSpec, problems: InputProblem[]): void => {
  const check = (what: string, entries: readonly { readonly asset: string; readonly chain: number; readonly tokens: string | number }[], path: (j: number) => string) => {
    const sums = new Map<string, { units: bigint; entries: number; reported: boolean }>()
    entries.forEach((e, j) => {
      const decimals = assetOnChain(spec, e.asset, e.chain)?.decimals
      if (decimals === undefined) return // reported as a missing asset
      const key = `${e.asset}:${e.chain}`
      const sum = sums.get(key) ?? { units: 0n, entries: 0, reported: false }
      sums.set(key, sum)
      sum.units += tokensToUnits(e.tokens, decimals)
      sum.entries++
      if (!sum.reported && sum.units > ACCOUNT_FUNDING_TOKENS * 10n ** BigInt(decimals)) {
        sum.reported = true
        const total = sum.entries === 1 ? "" : `, with the ${sum.entries - 1} entr${sum.entries === 2 ? "y" : "ies"} for it before this one,`
        problems.push({ path: path(j), message: `${what} of ${e.asset} on chain ${e.chain}${total} exceeds the ${ACCOUNT_FUNDING_TOKENS} whole tokens an account is funded with` })
      }
    })
  }
  spec.agents.solvers?.forEach((s, i) => check("the inventory", s.inventory, (j) => `agents.solvers[${i}].inventory[${j}].tokens`))
  spec.agents.arbitrageurs?.forEach((a, i) => check("the capital", a.capital, (j) => `agents.arbitrageurs[${i}].capital[${j}].tokens`))
  check("the initial liquidity", spec.initialLiquidity ?? [], (j) => `initialLiquidity[${j}].tokens`)
}

/** Names every JavaScript object has, which an asset symbol cannot be (`OBJECT_MEMBERS` in schema.ts). */
const OBJECT_MEMBER_NAMES: ReadonlySet<string> = new Set(OBJECT_MEMBERS)

/** The shortest period of what repeats: a range of those fields in the schema (`schema.ts`). */
export { MIN_PERIOD_SECONDS } from "./schema.ts"


/** Checks between fields: every reference to a chain or asset exists, names are unique, limits fit the strategy. */
const checkReferences = (spec: ScenarioSpec): InputProblem[] => {
  const problems: InputProblem[] = []
  const chainIds = new Set<number>()
  spec.chains.forEach((c, i) => {
    if (chainIds.has(c.id)) problems.push({ path: `chains[${i}].id`, message: `chain ${c.id} is listed twice` })
    chainIds.add(c.id)
  })
  // Virtual time is kept in milliseconds (a double: exact to 2^53) and timestamps are uint48 seconds.
  const horizonSeconds = horizonSecondsOf(spec)
  if (!(horizonSeconds <= MAX_HORIZON_SECONDS)) {
    problems.push({ path: "horizon", message: `${horizonSeconds} s is beyond what virtual time can count (at most ${MAX_HORIZON_SECONDS} s, about 285,000 years)` })
  }
  const hubDomain = spec.hub?.domain ?? HUB_DEFAULTS.hubDomain
  if (chainIds.has(hubDomain)) {
    // Blamed on the chain when the hub domain is the default one.
    const chain = spec.chains.findIndex((c) => c.id === hubDomain)
    problems.push(
      spec.hub?.domain === undefined
        ? { path: `chains[${chain}].id`, message: `chain id ${hubDomain} is the hub's default domain: pick another id, or set hub.domain` }
        : { path: "hub.domain", message: `the hub domain ${hubDomain} must differ from every spoke chain id` },
    )
  }
  const assets = new Map<string, Set<number>>()
  spec.assets.forEach((a, i) => {
    if (assets.has(a.symbol)) problems.push({ path: `assets[${i}].symbol`, message: `asset ${a.symbol} is listed twice` })
    if (OBJECT_MEMBER_NAMES.has(a.symbol)) {
      problems.push({ path: `assets[${i}].symbol`, message: `${a.symbol} is the name of a member every JavaScript object has (Object.prototype.${a.symbol}), which tables keyed by symbol cannot hold: expected another symbol` })
    }
    const on = new Set<number>()
    a.chains.forEach((c, j) => {
      if (!chainIds.has(c.chain)) problems.push({ path: `assets[${i}].chains[${j}].chain`, message: `chain ${c.chain} is not in chains` })
      if (on.has(c.chain)) problems.push({ path: `assets[${i}].chains[${j}].chain`, message: `chain ${c.chain} is listed twice for ${a.symbol}` })
      on.add(c.chain)
      if ((c.strategy ?? "default") === "default" && (c.mintLimit !== undefined || c.burnLimit !== undefined)) {
        problems.push({ path: `assets[${i}].chains[${j}]`, message: "mintLimit/burnLimit apply only to strategy xerc20" })
      }
      for (const field of ["mintLimit", "burnLimit"] as const) {
        const limit = c[field]
        if (limit === undefined || tokensToUnits(limit, c.decimals) <= MAX_XERC20_LIMIT) continue
        problems.push({
          path: `assets[${i}].chains[${j}].${field}`,
          message: `${limit} tokens at ${c.decimals} decimals is above the xERC20 maximum, type(uint256).max / 2 token units (XERC20Token.setLimits refuses it)`,
        })
      }
    })
    if ((a.maxDiscountDbps ?? 12) < (a.discountPerEpochDbps ?? 3)) {
      problems.push({ path: `assets[${i}].discountPerEpochDbps`, message: "must not exceed maxDiscountDbps" })
    }
    // A second listing adds its chains to the first's (no follow-on "not configured on chain" errors).
    const first = assets.get(a.symbol)
    if (first === undefined) assets.set(a.symbol, on)
    else for (const chain of on) first.add(chain)
  })
  // Prices weigh the assets' tokens in the report's totals: every asset has one, or none does.
  const priced = spec.assets.filter((a) => a.priceUsd !== undefined)
  if (priced.length > 0 && priced.length < spec.assets.length) {
    const withPrice = priced.map((a) => a.symbol).join(", ")
    spec.assets.forEach((a, i) => {
      if (a.priceUsd !== undefined) return
      problems.push({
        path: `assets[${i}]`,
        message: `asset ${a.symbol} has no priceUsd, while ${withPrice} ${priced.length === 1 ? "has" : "have"} one (expected a priceUsd on every asset, or on none)`,
      })
    })
  }
  const names = new Set<string>()
  const agentName = (path: string, name: string) => {
    if (names.has(name)) problems.push({ path, message: `agent population name ${name} is used twice` })
    names.add(name)
  }
  const assetOn = (path: string, symbol: string, chain: number) => {
    const on = assets.get(symbol)
    // A chain the scenario lacks is named as such (its asset is not there either, but that is not the mistake).
    if (!chainIds.has(chain)) problems.push({ path, message: `chain ${chain} is not in chains` })
    else if (on === undefined) problems.push({ path, message: `asset ${symbol} is not in assets` })
    else if (!on.has(chain)) problems.push({ path, message: `asset ${symbol} is not configured on chain ${chain}` })
  }
  spec.agents.rebalancers?.forEach((r, i) => {
    agentName(`agents.rebalancers[${i}].name`, r.name)
    if (!assets.has(r.asset)) problems.push({ path: `agents.rebalancers[${i}].asset`, message: `asset ${r.asset} is not in assets` })
    r.flows.forEach((f, j) => {
      if (f.from === f.to) problems.push({ path: `agents.rebalancers[${i}].flows[${j}]`, message: "from and to must differ" })
      // An unknown asset is reported once, above, not again for each flow.
      if (!assets.has(r.asset)) return
      assetOn(`agents.rebalancers[${i}].flows[${j}].from`, r.asset, f.from)
      if (!chainIds.has(f.to)) problems.push({ path: `agents.rebalancers[${i}].flows[${j}].to`, message: `chain ${f.to} is not in chains` })
      else if (!assets.get(r.asset)!.has(f.to)) problems.push({ path: `agents.rebalancers[${i}].flows[${j}].to`, message: missingOnDestination(spec, r, f) })
    })
  })
  const keeperChains = new Set<number>()
  spec.keepers?.chains?.forEach((k, i) => {
    if (!chainIds.has(k.chain)) problems.push({ path: `keepers.chains[${i}].chain`, message: `chain ${k.chain} is not in chains` })
    else if (keeperChains.has(k.chain)) problems.push({ path: `keepers.chains[${i}].chain`, message: `chain ${k.chain} is listed twice in keepers.chains` })
    keeperChains.add(k.chain)
  })
  spec.agents.solvers?.forEach((s, i) => {
    agentName(`agents.solvers[${i}].name`, s.name)
    s.inventory.forEach((inv, j) => assetOn(`agents.solvers[${i}].inventory[${j}]`, inv.asset, inv.chain))
    // Each chain once: the schema refuses a duplicate, which would count twice towards minSolverSupportedDomains below.
    s.repaymentChains?.forEach((c, j) => {
      if (!chainIds.has(c)) problems.push({ path: `agents.solvers[${i}].repaymentChains[${j}]`, message: `chain ${c} is not in chains` })
    })
    const minDomains = spec.hub?.minSolverSupportedDomains ?? HUB_DEFAULTS.minSolverSupportedDomains
    if (s.repaymentChains !== undefined && s.repaymentChains.length < minDomains) {
      problems.push({
        path: `agents.solvers[${i}].repaymentChains`,
        message: `the hub takes at least ${minDomains} repayment chain(s) (hub.minSolverSupportedDomains), got ${s.repaymentChains.length}`,
      })
    } else if (s.repaymentChains === undefined && spec.chains.length < minDomains) {
      // By default a solver registers every chain: fewer than the hub requires would be refused.
      problems.push({
        path: `agents.solvers[${i}]`,
        message: `the hub takes at least ${minDomains} repayment chain(s) (hub.minSolverSupportedDomains), but the scenario has ${spec.chains.length} chains, which this solver registers by default`,
      })
    }
  })
  spec.agents.arbitrageurs?.forEach((a, i) => {
    agentName(`agents.arbitrageurs[${i}].name`, a.name)
    a.capital.forEach((c, j) => assetOn(`agents.arbitrageurs[${i}].capital[${j}]`, c.asset, c.chain))
  })
  spec.initialLiquidity?.forEach((l, i) => assetOn(`initialLiquidity[${i}]`, l.asset, l.chain))
  checkFunding(spec, problems)
  const known = knownMetricNames([...names], spec.assets.map((a) => a.symbol))
  spec.properties?.forEach((property, i) => {
    if (typeof property !== "string") {
      if (!Object.hasOwn(COVERAGE_PREDICATES, property.coverage)) {
        problems.push({ path: `properties[${i}].coverage`, message: `unknown coverage predicate "${property.coverage}" (known: ${Object.keys(COVERAGE_PREDICATES).join(", ")})` })
      }
      return
    }
    let metric: string
    try {
      metric = parseComparison(property).metric
    } catch {
      // The schema took its form, so its number is what failed: one past a double's range (1e999) is Infinity.
      problems.push({ path: `properties[${i}]`, message: `expected "<metric> <op> <number>" with a finite number (at most about 1.8e308), got ${JSON.stringify(property)}` })
      return
    }
    if (!known.includes(metric)) {
      // The population metrics are listed too when the scenario has populations (or the name was meant as one).
      const hint =
        names.size > 0 || metric.startsWith("population.")
          ? `; a population's metrics: ${populationMetricNames("<name>").join(", ")} for the populations ${[...names].join(", ") || "(none)"}`
          : ""
      const assetHint = `; an asset's: ${assetMetricNames("<symbol>").join(", ")} for the assets ${spec.assets.map((a) => a.symbol).join(", ")}`
      problems.push({ path: `properties[${i}]`, message: `unknown metric "${metric}" (known: ${METRIC_NAMES.join(", ")}${hint}${assetHint})` })
    }
  })
  spec.agents.rebalancers?.forEach((r, i) => {
    if (r.flows.every((f) => (f.weight ?? 1) === 0)) problems.push({ path: `agents.rebalancers[${i}].flows`, message: "at least one flow needs a positive weight" })
    const mix = r.paths
    if (mix !== undefined && (mix.basic ?? 0) + (mix.fast ?? 0) + (mix.swap ?? 0) === 0) problems.push({ path: `agents.rebalancers[${i}].paths`, message: "at least one path needs a positive weight" })
    // A swap goes to another default-strategy asset on the destination; a flow without one sends a plain fast
    // intent instead (sim/agents/rebalancer.ts), so swaps asked for where no flow has one would never be sent.
    // An intent from a chain where the asset is an xERC20 always takes the basic path (burn and mint).
    const strategyOf = (symbol: string, chain: number) => assetOnChain(spec, symbol, chain)?.strategy ?? "default"
    const flows = r.flows.filter((f) => (f.weight ?? 1) > 0)
    const swapsInto = (chain: number) =>
      spec.assets.some((a) => a.symbol !== r.asset && (r.swapTo === undefined || a.symbol === r.swapTo) && a.chains.some((c) => c.chain === chain && (c.strategy ?? "default") === "default"))
    if (r.swapTo !== undefined && (r.swapTo === r.asset || !assets.has(r.swapTo))) {
      problems.push({ path: `agents.rebalancers[${i}].swapTo`, message: `expected another asset of the scenario than ${r.asset} (${[...assets.keys()].filter((a) => a !== r.asset).join(", ") || "none"}), got ${r.swapTo}` })
    }
    if ((mix?.fast ?? 0) + (mix?.swap ?? 0) > 0 && flows.length > 0 && flows.every((f) => strategyOf(r.asset, f.from) === "xerc20")) {
      problems.push({ path: `agents.rebalancers[${i}].paths`, message: `every flow starts where ${r.asset} is an xERC20, whose intents take the basic path only (expected no fast or swap weight)` })
    } else if ((mix?.swap ?? 0) > 0 && !flows.some((f) => strategyOf(r.asset, f.from) !== "xerc20" && swapsInto(f.to))) {
      problems.push({
        path: `agents.rebalancers[${i}].paths.swap`,
        message: `no flow of ${r.asset} goes to a chain with ${r.swapTo === undefined ? "another default-strategy asset" : `${r.swapTo} as a default-strategy asset`} to swap into (expected ${r.swapTo === undefined ? "a second asset" : r.swapTo} on a destination chain, or no swap weight)`,
      })
    }
  })
  spec.initialLiquidity?.forEach((l, i) => {
    const on = assets.get(l.asset)
    if (on !== undefined && on.size < 2) problems.push({ path: `initialLiquidity[${i}].asset`, message: `asset ${l.asset} is on one chain only: initial liquidity is sent to another chain` })
    // Seeds are fast-path intents held in custody (sim/agents/liquidity.ts): an xERC20 asset has no fast path
    // and no custody (it is burnt and minted), so the service would refuse every seed.
    const strategy = assetOnChain(spec, l.asset, l.chain)?.strategy
    if (strategy === "xerc20") {
      problems.push({ path: `initialLiquidity[${i}]`, message: `asset ${l.asset} is an xERC20 on chain ${l.chain}: it is burnt and minted, never custodied, so it takes no initial liquidity (expected a default-strategy asset)` })
    }
  })
  const domains = `one of the chain ids (${[...chainIds].join(", ")}) or the hub domain ${hubDomain}`
  const isDomain = (domain: number) => chainIds.has(domain) || domain === hubDomain
  spec.transport?.faults?.outages?.forEach((o, i) => {
    if (!isDomain(o.domain)) problems.push({ path: `transport.faults.outages[${i}].domain`, message: `domain ${o.domain} is neither a chain nor the hub (expected ${domains})` })
    if (o.toSeconds <= o.fromSeconds) problems.push({ path: `transport.faults.outages[${i}].toSeconds`, message: `outage of ${o.domain} ends before it starts (expected toSeconds > fromSeconds ${o.fromSeconds})` })
    // On the milliseconds the transport and the world act on: a window within one millisecond holds nothing (and a
    // pause of it was a pause and an unpause at the same instant).
    else if (outageMs(o.toSeconds) <= outageMs(o.fromSeconds)) {
      problems.push({
        path: `transport.faults.outages[${i}].toSeconds`,
        message: `the ${o.kind} of ${o.domain} from ${o.fromSeconds} s to ${o.toSeconds} s covers no whole millisecond of the virtual clock (a window runs from the first millisecond at or after its start to the last before its end; expected toSeconds above ${outageMs(o.fromSeconds) / 1000})`,
      })
    }
    if (o.kind === "pause" && o.domain !== hubDomain && isDomain(o.domain)) {
      problems.push({ path: `transport.faults.outages[${i}].domain`, message: `a pause applies to the hub only: domain ${o.domain} is a chain (expected the hub domain ${hubDomain}, or kind partition or halt)` })
    }
  })
  // The world pauses and unpauses the hub with hub inputs, which a halted hub does not take.
  const hubHalts = (spec.transport?.faults?.outages ?? []).filter((o) => o.kind === "halt" && o.domain === hubDomain)
  spec.transport?.faults?.outages?.forEach((o, i) => {
    if (o.kind !== "pause" || o.domain !== hubDomain) return
    for (const [field, at] of [["fromSeconds", o.fromSeconds], ["toSeconds", o.toSeconds]] as const) {
      // On the milliseconds the world acts on (64.4 s after a halt to 64.4 s is outside it, whatever the float product).
      const halt = hubHalts.find((h) => inOutageWindow(outageMs(at), h.fromSeconds, h.toSeconds))
      if (halt !== undefined) {
        problems.push({ path: `transport.faults.outages[${i}].${field}`, message: `the hub's pause would ${field === "fromSeconds" ? "start" : "end"} at ${at} s, inside its halt from ${halt.fromSeconds} s to ${halt.toSeconds} s, when the hub takes no inputs (expected a time outside every hub halt)` })
      }
    }
  })
  // A paused hub refuses what arrives and the relayer retries after the redelivery delay: too short a delay would
  // retry a refused message all through the pause (the transport waits at least MIN_REFUSAL_RETRY_SECONDS anyway).
  const delay = spec.transport?.faults?.redeliveryDelaySeconds
  if (delay !== undefined && delay < MIN_REFUSAL_RETRY_SECONDS && spec.transport?.faults?.outages?.some((o) => o.kind === "pause" && o.domain === hubDomain)) {
    problems.push({
      path: "transport.faults.redeliveryDelaySeconds",
      message: `must be at least ${MIN_REFUSAL_RETRY_SECONDS} s when the hub is paused (the relayer retries each refused delivery after it), got ${delay}`,
    })
  }
  if (spec.transport !== undefined) latencyRange("transport.latency", spec.transport.latency, problems)
  const routes = new Map<string, number>()
  spec.transport?.routes?.forEach((r, i) => {
    // The transport keeps one latency per route, the last entry's: an earlier one would be ignored without a word.
    const earlier = routes.get(`${r.from}>${r.to}`)
    if (earlier !== undefined) {
      problems.push({ path: `transport.routes[${i}]`, message: `route ${r.from} → ${r.to} is listed twice, at routes[${earlier}] and here (expected each route once: a route has one latency)` })
    }
    routes.set(`${r.from}>${r.to}`, earlier ?? i)
    if (!isDomain(r.from)) problems.push({ path: `transport.routes[${i}].from`, message: `domain ${r.from} is neither a chain nor the hub (expected ${domains})` })
    if (!isDomain(r.to)) problems.push({ path: `transport.routes[${i}].to`, message: `domain ${r.to} is neither a chain nor the hub (expected ${domains})` })
    // Messages only go from a spoke to the hub and back: any other route would never be used.
    if (isDomain(r.from) && isDomain(r.to) && (r.from === hubDomain) === (r.to === hubDomain)) {
      problems.push({ path: `transport.routes[${i}]`, message: `route ${r.from} → ${r.to} carries no message (expected one end to be the hub domain ${hubDomain} and the other a chain)` })
    }
    latencyRange(`transport.routes[${i}].latency`, r.latency, problems)
  })
  spec.agents.solvers?.forEach((s, i) => {
    if (s.reactionSeconds !== undefined) latencyRange(`agents.solvers[${i}].reactionSeconds`, s.reactionSeconds, problems)
  })
  spec.agents.rebalancers?.forEach((r, i) => {
    // Compared exactly at the most decimals a token may have.
    if (r.size.kind === "uniform" && tokensToUnits(r.size.minTokens, MAX_TOKEN_DECIMALS) > tokensToUnits(r.size.maxTokens, MAX_TOKEN_DECIMALS)) {
      problems.push({ path: `agents.rebalancers[${i}].size.minTokens`, message: `must not exceed maxTokens ${r.size.maxTokens}, got ${r.size.minTokens}` })
    }
  })
  return problems
}

/** A uniform latency's minSeconds must not exceed its maxSeconds. */
const latencyRange = (path: string, latency: LatencySpec, problems: InputProblem[]): void => {
  if (latency.kind === "uniform" && latency.minSeconds > latency.maxSeconds) {
    problems.push({ path: `${path}.minSeconds`, message: `must not exceed maxSeconds ${latency.maxSeconds}, got ${latency.minSeconds}` })
  }
}
