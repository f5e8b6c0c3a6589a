/**
 * Effect Schemas of the JSON forms of the protocol structures (trace files, API payloads, scenario files).
 * Amounts travel as decimal strings of integer units; 32-byte words as hex (a 20-byte address is accepted
 * wherever a bytes32 is expected and left-padded, as the protocol does).
 */
import * as Cause from "effect/Cause"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import * as SchemaAST from "effect/SchemaAST"
import * as SchemaIssue from "effect/SchemaIssue"
import { type Bytes32, type Hex, toBytes32 } from "./hex.ts"
import { type FillMessage, type Intent, MAX_UINT256 } from "./protocol.ts"

const DECIMAL_RE = /^(0|[1-9][0-9]*)$/

/** A non-negative integer as a decimal string that fits in a uint256. */
export const Uint256String = Schema.String.check(
  Schema.isPattern(DECIMAL_RE, { expected: "a non-negative integer as a decimal string (no sign, exponent or leading zeros)" }),
  // Every check runs even after a failed one, so this one must not throw on a non-decimal string.
  Schema.makeFilter((s: string) => !DECIMAL_RE.test(s) || (s.length <= 78 && BigInt(s) <= MAX_UINT256), { expected: "a value that fits in a uint256" }),
)

const uintNumber = (bits: 8 | 24 | 32 | 48) => {
  const maximum = 2 ** bits - 1
  return Schema.Int.check(Schema.isBetween({ minimum: 0, maximum }, { expected: `an integer between 0 and ${maximum} (uint${bits})` }))
}
export const Uint24 = uintNumber(24)
export const Uint32 = uintNumber(32)
export const Uint48 = uintNumber(48)
/** A uint64 as a JSON number (when safe) or a decimal string. */
export const Uint64 = Schema.Union([
  Schema.Int.check(
    Schema.isGreaterThanOrEqualTo(0, { expected: "a non-negative integer" }),
    Schema.isLessThanOrEqualTo(Number.MAX_SAFE_INTEGER, { expected: `a number of at most ${Number.MAX_SAFE_INTEGER} (2^53 - 1; a larger uint64 as a decimal string)` }),
  ),
  Schema.String.check(
    Schema.isPattern(DECIMAL_RE, { expected: "a uint64 as a decimal string (no sign, exponent or leading zeros)" }),
    Schema.makeFilter((s: string) => !DECIMAL_RE.test(s) || (s.length <= 20 && BigInt(s) < 2n ** 64n), { expected: "a value that fits in a uint64" }),
  ),
]).annotate({ expected: `a uint64 as a decimal string, or as a number up to ${Number.MAX_SAFE_INTEGER} (2^53 - 1)` })

/** A 32-byte word (`0x` + 64 hex digits) or a 20-byte address (`0x` + 40 hex digits), any case. */
export const Bytes32Input = Schema.String.check(
  Schema.isPattern(/^0x([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$/, { expected: "a 0x-prefixed 20-byte address or 32-byte hex word" }),
)
export const Bytes32Strict = Schema.String.check(Schema.isPattern(/^0x[0-9a-fA-F]{64}$/, { expected: "a 0x-prefixed 32-byte hex word" }))
export const HexData = Schema.String.check(Schema.isPattern(/^0x([0-9a-fA-F]{2})*$/, { expected: "0x-prefixed hex bytes of even length" }))

/** The 12 fields of the V1 intent, `amount` in 18-decimal units. */
export const IntentJson = Schema.Struct({
  initiator: Bytes32Input,
  receiver: Bytes32Input,
  inputAsset: Bytes32Input,
  outputAsset: Bytes32Input,
  maxFee: Uint24,
  origin: Uint32,
  nonce: Uint64,
  timestamp: Uint48,
  ttl: Uint48,
  amount: Uint256String,
  destinations: Schema.Array(Uint32),
  data: HexData,
})
export type IntentJson = typeof IntentJson.Type

export const FillJson = Schema.Struct({
  intentId: Bytes32Strict,
  solver: Bytes32Input,
  initiator: Bytes32Input,
  fee: Uint24,
  executionTimestamp: Uint48,
})
export type FillJson = typeof FillJson.Type

const word = (value: string): Bytes32 => toBytes32(value) as Bytes32

export const intentFromJson = (json: IntentJson): Intent => ({
  initiator: word(json.initiator),
  receiver: word(json.receiver),
  inputAsset: word(json.inputAsset),
  outputAsset: word(json.outputAsset),
  maxFee: json.maxFee,
  origin: json.origin,
  nonce: BigInt(json.nonce),
  timestamp: json.timestamp,
  ttl: json.ttl,
  amount: BigInt(json.amount),
  destinations: json.destinations,
  data: json.data.toLowerCase() as Hex,
})

export const intentToJson = (intent: Intent): IntentJson => ({
  initiator: intent.initiator,
  receiver: intent.receiver,
  inputAsset: intent.inputAsset,
  outputAsset: intent.outputAsset,
  maxFee: intent.maxFee,
  origin: intent.origin,
  nonce: intent.nonce <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(intent.nonce) : intent.nonce.toString(),
  timestamp: intent.timestamp,
  ttl: intent.ttl,
  amount: intent.amount.toString(),
  destinations: intent.destinations,
  data: intent.data,
})

export const fillFromJson = (json: FillJson): FillMessage => ({
  intentId: json.intentId.toLowerCase() as Bytes32,
  solver: word(json.solver),
  initiator: word(json.initiator),
  fee: json.fee,
  executionTimestamp: json.executionTimestamp,
})

// ---------------------------------------------------------------------------------------------------------
// Decoding with readable errors.

/** One problem found in an input: where (a dotted path, `""` for the root) and what was expected. */
export interface InputProblem {
  readonly path: string
  readonly message: string
}

/** The JSON types by their schema's tag (effect would name a schema with an identifier by the identifier). */
const PRIMITIVE_TYPES: Readonly<Record<string, string>> = { String: "string", Number: "number", Boolean: "boolean", BigInt: "bigint", Null: "null" }

/** What a check says of any number: dropped beside a more specific one, which says the number's type. */
const TYPE_CHECKS: Readonly<Record<string, string>> = { "an integer": "integer", "a finite number": "number" }

/**
 * What a schema with checks takes, from their `expected` (the formats the API and the scenario files check), and
 * its type: "a chain id (...)" for a checked string, "an array (at least one destination and at most 10
 * destinations)"; a number with a range says the range ("a ttl in seconds (uint48)", type "integer"); `format`
 * is undefined without checks.
 */
const expectation = (ast: SchemaAST.AST): { readonly format: string | undefined; readonly type: string } => {
  const expected: string[] = []
  const visit = (check: SchemaAST.Check<any>): void => {
    if (check._tag === "FilterGroup") check.checks.forEach(visit)
    else if (typeof check.annotations?.expected === "string" && !expected.includes(check.annotations.expected)) expected.push(check.annotations.expected)
  }
  ast.checks?.forEach(visit)
  const specific = expected.filter((e) => TYPE_CHECKS[e] === undefined)
  const formats = specific.length > 0 ? specific : expected
  const numberType = expected.map((e) => TYPE_CHECKS[e]).find((t) => t !== undefined)
  const type = numberType ?? PRIMITIVE_TYPES[ast._tag] ?? SchemaIssue.defaultLeafHook(new SchemaIssue.InvalidType(ast)).replace(/^Expected /u, "")
  if (formats.length === 0) return { format: undefined, type }
  return { format: SchemaAST.isArrays(ast) ? `an array (${formats.join(" and ")})` : chain(formats), type }
}

/** A later check's noun, before the condition it adds: "a value" of "a value that fits in a uint256". */
const LATER_NOUN = /^an? [\w-]+ (?=(?:of at (?:most|least)|that|which|between|from|up to|below|above) )/u

/**
 * The checks of one value, one after the other, as one expectation: each later check's condition qualifies the
 * first check's noun ("a non-negative integer" then "a value of at most 9007199254740991 (2^53 - 1)": "a
 * non-negative integer of at most 9007199254740991 (2^53 - 1)"), placed before the first's closing parenthesis
 * of details ("a non-negative integer as a decimal string that fits in a uint256 (no sign, exponent or leading
 * zeros)"). A later check that is not such a condition is joined with "and".
 */
const chain = (formats: readonly string[]): string =>
  formats.slice(1).reduce((out, next) => {
    const noun = LATER_NOUN.exec(next)
    if (noun === null) return `${out} and ${next}`
    const condition = next.slice(noun[0].length)
    const details = / \([^()]*\)$/u.exec(out)
    return details === null ? `${out} ${condition}` : `${out.slice(0, details.index)} ${condition}${details[0]}`
  }, formats[0]!)

/**
 * The annotation of a union with `null` whose null stands for "absent" (the API's optional body fields, which
 * take null for a field left out): its messages leave the null out, as they do the missing key.
 */
export const NULL_MEANS_ABSENT = "clearsimNullMeansAbsent"

/** A union's members, nested unions flattened; without `null` where it means absent (`NULL_MEANS_ABSENT`). */
const members = (ast: SchemaAST.AST, dropNull = false): SchemaAST.AST[] => {
  const drop = dropNull || ast.annotations?.[NULL_MEANS_ABSENT] === true
  return SchemaAST.isUnion(ast) ? ast.types.flatMap((member) => members(member, drop)) : drop && SchemaAST.isNull(ast) ? [] : [ast]
}

/** A struct with named keys (no index signature): what `formOf` can show. */
const isStruct = (ast: SchemaAST.AST): ast is SchemaAST.Objects => SchemaAST.isObjects(ast) && ast.propertySignatures.length > 0 && ast.indexSignatures.length === 0

/** Keys a struct's form lists in full; past them, a struct with optional keys shows its required keys and "...". */
const MAX_FORM_KEYS = 6

/**
 * A struct's keys, tags with their value: `{ kind: "poisson", perHour }`. A struct of many keys, some optional,
 * shows its required ones and "..." (`{ origin, destinations, to, from, inputAsset, amount, ... }`); one whose
 * keys are all optional, its first `MAX_FORM_KEYS` keys and "...".
 */
const formOf = (ast: SchemaAST.Objects): string => {
  const key = (p: SchemaAST.PropertySignature): string => (SchemaAST.isLiteral(p.type) ? `${String(p.name)}: ${JSON.stringify(p.type.literal)}` : String(p.name))
  const all = ast.propertySignatures
  const required = all.filter((p) => !SchemaAST.isOptional(p.type))
  if (all.length <= MAX_FORM_KEYS || required.length === all.length) return `{ ${all.map(key).join(", ")} }`
  return `{ ${(required.length > 0 ? required : all.slice(0, MAX_FORM_KEYS)).map(key).join(", ")}, ... }`
}

/** "an" or "a", by the next word's first letter. */
const article = (word: string): string => (/^[aeiou]/u.test(word) ? "an" : "a")

/**
 * "as a number" after a format that does not say its JSON type ("a non-negative integer"); nothing when it does.
 * After a format with a clause of its own (a comma or colon outside parentheses: "of at most 16 digits, without
 * leading zeros", "a trace hash: 0x and 64 lowercase hex digits"), ", as a string".
 * effect's own "a value ..." names the type instead ("a number greater than or equal to 0").
 */
const asType = (format: string, type: string): string => {
  const word = type === "integer" ? "number" : type
  if (!["string", "number", "boolean"].includes(word) || format.includes(word)) return format
  if (format.startsWith("a value ")) return `${article(type)} ${type} ${format.slice("a value ".length)}`
  return /[,:]/u.test(format.replace(/\([^()]*\)/gu, "")) ? `${format}, as a ${word}` : `${format} as a ${word}`
}

/**
 * A value without a format, in words: a struct with its keys ("an object { from, to, weight }", never its
 * identifier), an array, a literal as JSON, null, or the type with an article ("a string", "a boolean").
 */
const bare = (ast: SchemaAST.AST, type: string): string => {
  if (isStruct(ast)) return `an object ${formOf(ast)}`
  if (SchemaAST.isObjects(ast)) return "an object"
  if (SchemaAST.isArrays(ast)) return "an array"
  if (SchemaAST.isLiteral(ast)) return JSON.stringify(ast.literal)
  if (SchemaAST.isNull(ast)) return "null"
  return `${article(type)} ${type}`
}

/**
 * What a schema says it takes, as a whole (its own `expected` annotation, not a check's: a union of forms
 * described once, `Uint64`'s "a uint64 as a decimal string, or as a number up to ..."); seen through the `null` that means
 * absent (`NULL_MEANS_ABSENT`).
 */
const ownExpected = (ast: SchemaAST.AST): string | undefined => {
  const expected = ast.checks === undefined ? ast.annotations?.expected : undefined
  if (typeof expected === "string") return expected
  if (!SchemaAST.isUnion(ast) || ast.annotations?.[NULL_MEANS_ABSENT] !== true) return undefined
  const rest = ast.types.filter((member) => !SchemaAST.isNull(member))
  return rest.length === 1 ? ownExpected(rest[0]!) : undefined
}

/**
 * A value of the wrong type says what value was expected, the format rather than the type alone: "Expected a
 * chain id (a positive uint32 as a decimal string), got 5", not "Expected string, got 5"; with the JSON type when
 * the format does not say it ("a non-negative integer as a number, got \"3\""). A field taking a string or a
 * number of one format says the format once ("a fee in dbps (0 to 100000) as a string or a number"); of
 * different formats, each with its type; a union of structs names their keys and tags ("one of the forms
 * { epochs } | { hours }", `{ kind: "poisson", perHour }`), a union of literals its values (`one of "memory" |
 * "anvil"`). A schema with its own `expected` annotation says that. Without a format, the type in words ("a
 * boolean", "an object { from, to, weight }", "a number or null"), never a schema's identifier. The `null` of an
 * optional body field (the API's `optionalOrNull`: null is taken as absent) is left out, so a wrong value there
 * reads as one of a required field does ("Expected a boolean", not "Expected a boolean or null"). A `null` where a
 * value is required is answered the same way (the API's 400 adds that the field is required). Every other issue
 * keeps effect's message.
 */
export const formatLeafHook: SchemaIssue.LeafHook = (issue) => {
  const fallback = SchemaIssue.defaultLeafHook(issue)
  if (issue._tag !== "InvalidType" || issue.ast.annotations?.message !== undefined) return fallback
  const taken = members(issue.ast)
  if (taken.length === 0) return fallback
  const described = taken.map(expectation)
  const first = described[0]!.format
  const unique = (texts: readonly string[], separator: string): string => [...new Set(texts)].join(separator)
  const own = ownExpected(issue.ast)
  let expected: string
  if (own !== undefined) {
    expected = own
  } else if (taken.length > 1 && taken.every(isStruct)) {
    expected = `one of the forms ${taken.map(formOf).join(" | ")}`
  } else if (taken.length > 1 && taken.every(SchemaAST.isLiteral)) {
    expected = `one of ${taken.map((t) => JSON.stringify(t.literal)).join(" | ")}`
  } else if (first !== undefined && described.every((d) => d.format === first)) {
    const types = unique(described.map((d) => `a ${d.type === "integer" ? "number" : d.type}`), " or ")
    expected = described.length === 1 ? asType(first, described[0]!.type) : first.includes(" as a ") ? first : `${first} as ${types}`
  } else {
    // Each member's format with its type, or the member in words: a struct with its keys ("an object { coverage }").
    expected = unique(described.map((d, k) => (d.format === undefined ? bare(taken[k]!, d.type) : asType(d.format, d.type))), " or ")
  }
  const got = SchemaIssue.hasInput(issue) ? fallback.match(/, got (.*)$/su)?.[1] : undefined
  return got === undefined ? `Expected ${expected}` : `Expected ${expected}, got ${got}`
}

/** `issue` with its inner issues mapped by `f`: the same issue when none changed. */
const mapInner = (issue: SchemaIssue.Issue, f: (inner: SchemaIssue.Issue) => SchemaIssue.Issue): SchemaIssue.Issue => {
  const input = SchemaIssue.hasInput(issue) ? { input: issue.input, options: { reportInput: true } } : { input: undefined, options: undefined }
  const all = (issues: readonly SchemaIssue.Issue[]): SchemaIssue.Issue[] | undefined => {
    const mapped = issues.map(f)
    return mapped.every((m, k) => m === issues[k]) ? undefined : mapped
  }
  switch (issue._tag) {
    case "AnyOf": {
      const issues = all(issue.issues)
      return issues === undefined ? issue : new SchemaIssue.AnyOf(issue.ast, issues, input.input, input.options)
    }
    case "Composite": {
      const issues = all(issue.issues)
      return issues === undefined ? issue : new SchemaIssue.Composite(issue.ast, issues as [SchemaIssue.Issue, ...SchemaIssue.Issue[]], input.input, input.options)
    }
    case "Pointer": {
      const inner = f(issue.issue)
      return inner === issue.issue ? issue : new SchemaIssue.Pointer(issue.path, inner)
    }
    case "Filter": {
      const inner = f(issue.issue)
      return inner === issue.issue ? issue : new SchemaIssue.Filter(issue.filter, inner, input.input, input.options)
    }
    case "Encoding": {
      const inner = f(issue.issue)
      return inner === issue.issue ? issue : new SchemaIssue.Encoding(issue.ast, inner, input.input, input.options)
    }
    default:
      return issue
  }
}

/**
 * `issue` with every union refusal that names no member's issue (a value of none of the union's types) made an
 * `InvalidType` of the union, which `formatLeafHook` describes: effect's formatter words those itself, by the union's
 * types ("Expected number | null").
 */
export const unionsAsLeaves = (issue: SchemaIssue.Issue): SchemaIssue.Issue => {
  if (issue._tag === "AnyOf" && issue.issues.length === 0) {
    return SchemaIssue.hasInput(issue) ? new SchemaIssue.InvalidType(issue.ast, issue.input, { reportInput: true }) : new SchemaIssue.InvalidType(issue.ast)
  }
  return mapInner(issue, unionsAsLeaves)
}

/** What a schema takes, in `formatLeafHook`'s words: "a chain id (a positive uint32 as a decimal string)". */
const expectedOf = (ast: SchemaAST.AST): string => formatLeafHook(new SchemaIssue.InvalidType(ast)).replace(/^Expected /u, "")

/**
 * `issue` with every missing key of a struct saying what the key takes: "Missing key: expected a positive number of
 * hours" rather than effect's bare "Missing key" (its `messageMissingKey`; effect's issue has the key's
 * annotations, not its schema, so the struct's issue gives it).
 */
export const missingKeysExpected = (issue: SchemaIssue.Issue): SchemaIssue.Issue => {
  const mapped = mapInner(issue, missingKeysExpected)
  if (mapped._tag !== "Composite" || !SchemaAST.isObjects(mapped.ast)) return mapped
  const fields = mapped.ast.propertySignatures
  const issues = mapped.issues.map((child) => {
    if (child._tag !== "Pointer" || child.path.length !== 1 || child.issue._tag !== "MissingKey" || child.issue.annotations?.messageMissingKey !== undefined) return child
    const field = fields.find((p) => p.name === child.path[0])
    if (field === undefined) return child
    return new SchemaIssue.Pointer(child.path, new SchemaIssue.MissingKey({ ...child.issue.annotations, messageMissingKey: `Missing key: expected ${expectedOf(field.type)}` }))
  })
  if (issues.every((child, k) => child === mapped.issues[k])) return mapped
  const input = SchemaIssue.hasInput(mapped) ? { input: mapped.input, options: { reportInput: true } } : { input: undefined, options: undefined }
  return new SchemaIssue.Composite(mapped.ast, issues as [SchemaIssue.Issue, ...SchemaIssue.Issue[]], input.input, input.options)
}

const formatter = SchemaIssue.makeFormatterStandardSchemaV1({ leafHook: formatLeafHook })

const formatPath = (path: ReadonlyArray<PropertyKey | { readonly key: PropertyKey }>): string =>
  path
    .map((segment) => (typeof segment === "object" ? segment.key : segment))
    .reduce<string>((out, key) => (typeof key === "number" ? `${out}[${key}]` : out === "" ? String(key) : `${out}.${String(key)}`), "")

/**
 * Decodes `input` with `schema`; on failure returns every problem with its path (no exception). `strict`
 * also reports keys the schema does not know (typos in hand-written files).
 */
export const decodeWithProblems = <S extends Schema.Codec<unknown, unknown>>(
  schema: S,
  input: unknown,
  options: { readonly strict?: boolean } = {},
): { readonly ok: true; readonly value: S["Type"] } | { readonly ok: false; readonly problems: readonly InputProblem[] } => {
  const exit = Schema.decodeUnknownExit(schema as unknown as Schema.Codec<S["Type"], unknown>)(input, {
    errors: "all",
    ...(options.strict === true ? { onExcessProperty: "error" as const } : {}),
  })
  if (Exit.isSuccess(exit)) return { ok: true, value: exit.value }
  const error = Cause.squash(exit.cause)
  if (Schema.isSchemaError(error)) return { ok: false, problems: beyondSafeIntegers(problemsOf(missingKeysExpected(error.issue), [], input), input) }
  return { ok: false, problems: [{ path: "", message: String(error) }] }
}

const NOT_AN_INTEGER = "Expected an integer"

/**
 * Schemas' integers are safe integers, so a whole number past 2^53 − 1 (`1e17`) fails as "not an integer", which
 * it is: when the field has another problem (its range, which says more), that line goes; alone, it says why.
 */
const beyondSafeIntegers = (problems: readonly InputProblem[], input: unknown): InputProblem[] =>
  problems.flatMap((p) => {
    if (p.message !== NOT_AN_INTEGER && !p.message.startsWith(`${NOT_AN_INTEGER}, got `)) return [p]
    if (problems.some((other) => other !== p && other.path === p.path)) return []
    const value = valueAt(input, p.path === "" ? [] : pathKeys(p.path))
    if (typeof value !== "number" || !Number.isInteger(value)) return [p]
    return [{ path: p.path, message: `Expected an integer of at most ${Number.MAX_SAFE_INTEGER} (2^53 - 1), got ${value}` }]
  })

/** "a.b[2].c" back to its keys (an `InputProblem`'s path). */
export const pathKeys = (path: string): PropertyKey[] => [...path.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map((m) => (m[2] !== undefined ? Number(m[2]) : m[1]!))

/**
 * The problems of an issue at `at`. A union of structs that no member matched (a scenario's horizon: `{ epochs }`,
 * `{ hours }` or `{ seconds }`) reports only the member whose keys fit the input best, when one fits better than
 * the others, and otherwise one line naming the forms it accepts: each member's complaints about keys the others
 * want would only confuse.
 */
const problemsOf = (issue: SchemaIssue.Issue, at: readonly PropertyKey[], input: unknown): InputProblem[] => {
  switch (issue._tag) {
    case "Pointer":
      return problemsOf(issue.issue, [...at, ...issue.path], input)
    case "Composite":
      return issue.issues.flatMap((child) => problemsOf(child, at, input))
    case "AnyOf": {
      const tag = unknownTag(issue, input, at)
      if (tag !== undefined) return [tag]
      const choice = unionChoice(issue)
      if (choice === undefined) break
      if (typeof choice === "string") return [{ path: formatPath(at), message: withActual(`Expected exactly one of the forms ${choice}`, input, at) }]
      return problemsOf(choice, at, input)
    }
  }
  return formatter(unionsAsLeaves(issue)).issues.map((i) => {
    const path = [...at, ...(i.path ?? []).map((segment) => (typeof segment === "object" ? segment.key : segment))]
    if (i.message.startsWith("Expected no excess property")) return { path: formatPath(path), message: "unknown key (not a field here; a typo?)" }
    return { path: formatPath(path), message: withActual(i.message, input, path) }
  })
}

/**
 * For a union of structs told apart by a literal field (`kind: poisson | bursty | scripted`) whose value in the
 * input is none of them: that field's problem, naming the values it takes (instead of the members' types).
 */
const unknownTag = (issue: SchemaIssue.AnyOf, input: unknown, at: readonly PropertyKey[]): InputProblem | undefined => {
  const members = issue.ast.types
  if (issue.issues.length > 0 || members.length < 2 || !members.every(SchemaAST.isObjects)) return undefined
  const value = valueAt(input, at)
  if (typeof value !== "object" || value === null) return undefined
  for (const field of members[0]!.propertySignatures) {
    const literals = members.map((m) => m.propertySignatures.find((p) => p.name === field.name)?.type)
    if (!literals.every((t) => t !== undefined && SchemaAST.isLiteral(t))) continue
    const path = [...at, field.name]
    const expected = literals.map((t) => JSON.stringify((t as SchemaAST.Literal).literal)).join(" | ")
    if ((value as Record<PropertyKey, unknown>)[field.name] === undefined) return { path: formatPath(path), message: `Missing key: expected one of ${expected}` }
    return { path: formatPath(path), message: withActual(`Expected one of ${expected}`, input, path) }
  }
  return undefined
}

/**
 * For a union of structs that no member matched: the member issue to report (the one member with the fewest
 * unknown or missing keys), or the accepted forms (`{ epochs } | { hours } | { seconds }`) when several fit as badly
 * and none fits; undefined when the union is not of structs or several members fit the keys (their other
 * complaints are all shown then).
 */
const unionChoice = (issue: SchemaIssue.AnyOf): SchemaIssue.Issue | string | undefined => {
  const members = issue.ast.types
  if (issue.issues.length < 2 || !members.every(SchemaAST.isObjects)) return undefined
  const misfits: number[] = []
  for (const member of issue.issues) {
    if (member._tag !== "Composite") return undefined
    let keys = 0
    for (const child of member.issues) if (child._tag === "Pointer" && (child.issue._tag === "UnexpectedKey" || child.issue._tag === "MissingKey")) keys++
    misfits.push(keys)
  }
  const fewest = Math.min(...misfits)
  const best = misfits.flatMap((n, i) => (n === fewest ? [i] : []))
  if (best.length === 1) return issue.issues[best[0]!]
  if (fewest === 0) return undefined
  return members.map((m) => `{ ${m.propertySignatures.map((p) => String(p.name)).join(", ")} }`).join(" | ")
}

/** The value at `path` in `input` (undefined when the path leads nowhere). */
const valueAt = (input: unknown, path: readonly PropertyKey[]): unknown => {
  let value: unknown = input
  for (const key of path) {
    if (typeof value !== "object" || value === null) return undefined
    value = (value as Record<PropertyKey, unknown>)[key]
  }
  return value
}

/** Appends the offending value (`, got …`) when the message does not show it already. */
const withActual = (message: string, input: unknown, path: readonly PropertyKey[]): string => {
  if (message.includes(", got ") || message.startsWith("Missing key")) return message
  const value = valueAt(input, path)
  if (value === undefined) return message
  // JSON shows NaN and the infinities as null.
  const shown = typeof value === "bigint" ? `${value}n` : typeof value === "number" && !Number.isFinite(value) ? String(value) : JSON.stringify(value)
  return `${message}, got ${shown.length > 80 ? `${shown.slice(0, 77)}...` : shown}`
}

/** `a.b: Expected …; c: Expected …` */
export const formatProblems = (problems: readonly InputProblem[], prefix = ""): string =>
  problems
    .map((p) => {
      const path = prefix === "" ? p.path : p.path === "" ? prefix : `${prefix}.${p.path}`
      return path === "" ? p.message : `${path}: ${p.message}`
    })
    .join("; ")
