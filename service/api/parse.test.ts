import fc from "fast-check"
import { getAddress, isAddress } from "viem"
import { describe, expect, it } from "vitest"
import { jsonArrayLength, jsonLongestArray, parseAddress, parseAmount, parseCalldata, parseDomain, parseDomains, parseLimit, parseOptionalAddress, pathOfLongArray } from "./parse.ts"

const accepts = (value: string): boolean => {
  try {
    parseAddress("to", value)
    return true
  } catch {
    return false
  }
}

describe("parseAddress", () => {
  it("accepts an address in one case or with its EIP-55 checksum, and refuses other mixed cases (viem's checksum)", () => {
    const hex = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => `0x${Buffer.from(b).toString("hex")}`)
    fc.assert(
      fc.property(hex, fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), (lower, flips) => {
        const checksummed = getAddress(lower)
        expect(accepts(lower)).toBe(true)
        expect(accepts(`0x${lower.slice(2).toUpperCase()}`)).toBe(true)
        expect(accepts(checksummed)).toBe(true)
        // Flip the case of some letters of the checksummed form: accepted exactly when its letters are all in one case
        // (EIP-55's unchecksummed forms, as ethers takes them; viem's strict check takes only all-lowercase) or it is
        // still the checksum.
        const mixed = `0x${[...checksummed.slice(2)].map((c, i) => (flips[i] ? (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase()) : c)).join("")}`
        const digits = mixed.slice(2)
        const oneCase = digits === digits.toLowerCase() || digits === digits.toUpperCase()
        expect(accepts(mixed)).toBe(oneCase || mixed === checksummed)
        // Where viem's strict check and EIP-55 agree (not all-uppercase), the same verdict.
        if (digits !== digits.toUpperCase() || digits === digits.toLowerCase()) expect(accepts(mixed)).toBe(isAddress(mixed, { strict: true }))
        expect(parseAddress("to", checksummed)).toBe(lower)
      }),
      { numRuns: 300 },
    )
  })

  it("names the field and the rule when the case is not the checksum", () => {
    // EIP-55's own example, with one letter's case flipped.
    const checksummed = getAddress("0x52908400098527886e0f7030069857d2e4169ee7")
    expect(checksummed).toBe("0x52908400098527886E0F7030069857D2E4169EE7")
    const bad = checksummed.replace("E0F", "e0F")
    expect(() => parseAddress("to", bad)).toThrow(/to: expected an address whose mixed case is its EIP-55 checksum \(or all one case\), got "0x/)
  })
})

describe("parseDomain, parseAmount, parseCalldata at their bounds", () => {
  it("take a chain id up to 2^32 - 1, and refuse 2^32", () => {
    expect(parseDomain("origin", "4294967295")).toBe(4_294_967_295)
    expect(() => parseDomain("origin", "4294967296")).toThrow(/^origin: expected a chain id \(a positive uint32 as a decimal string\), got "4294967296"\.$/)
  })

  it("refuse a zero amount where it must be positive, naming that rule", () => {
    expect(parseAmount("amount", "0")).toBe(0n)
    expect(() => parseAmount("amount", "0", { positive: true })).toThrow(/^amount: expected an amount above 0, got "0"\.$/)
  })

  it("take calldata of exactly 50,000 bytes (the spoke's limit, reference §4.1) and refuse one byte more", () => {
    const max = `0x${"ab".repeat(50_000)}`
    expect(parseCalldata("callData", max)).toBe(max)
    expect(() => parseCalldata("callData", `${max}ab`)).toThrow(/^callData: expected at most 50000 bytes, got 50001 bytes\.$/)
  })
})

describe("parseOptionalAddress, parseLimit, parseDomains", () => {
  it("read the zero address as no address (an intent's outputAsset 0 means none, reference §4.1)", () => {
    expect(parseOptionalAddress("outputAsset", `0x${"0".repeat(40)}`)).toBeUndefined()
    expect(parseOptionalAddress("outputAsset", `0x${"0".repeat(39)}1`)).toBe(`0x${"0".repeat(39)}1`)
  })

  it("give the default page size when no limit is passed, and take 1 to the maximum", () => {
    expect(parseLimit(undefined, 10, 100)).toBe(10)
    expect([parseLimit("1", 10, 100), parseLimit("100", 10, 100)]).toEqual([1, 100])
    expect(() => parseLimit("101", 10, 100)).toThrow(/^limit: expected an integer between 1 and 100, got "101"\.$/)
  })

  it("take up to 10 destinations (the spoke's limit, reference §4.1) and refuse 11", () => {
    const ten = [...Array(10).keys()].map((i) => String(i + 1))
    expect(parseDomains("destinations", ten)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10])
    expect(() => parseDomains("destinations", [...ten, "11"])).toThrow(/^destinations: expected an array of 1 to 10 chain ids, got /)
  })
})

describe("jsonArrayLength", () => {
  const utf8 = (text: string) => new TextEncoder().encode(text)

  it("counts the items of any well-formed JSON array as JSON.parse does, whatever its strings, nesting and whitespace", () => {
    const whitespace = fc.array(fc.constantFrom(" ", "\n", "\r", "\t"), { maxLength: 3 }).map((ws) => ws.join(""))
    fc.assert(
      fc.property(fc.array(fc.jsonValue({ maxDepth: 3, stringUnit: "binary" }), { maxLength: 30 }), fc.constantFrom(undefined, 1, "\t"), whitespace, fc.boolean(), (items, indent, lead, bom) => {
        const text = `${bom ? "\ufeff" : ""}${lead}${JSON.stringify(items, null, indent)}`
        // What the server's decoder gives JSON.parse (a byte-order mark dropped).
        expect((JSON.parse(new TextDecoder().decode(utf8(text))) as unknown[]).length).toBe(items.length)
        expect(jsonArrayLength(utf8(text))).toBe(items.length)
      }),
      { numRuns: 200 },
    )
  })

  it("reads brackets, commas and escaped quotes inside strings as text", () => {
    const strings = String.raw`["a,b]", "\\", "\"],[", {"k": "}]"}, "\u005d", "é,€"]`
    expect((JSON.parse(strings) as unknown[]).length).toBe(6)
    expect(jsonArrayLength(utf8(strings))).toBe(6)
    expect(jsonArrayLength(utf8("[ ]"))).toBe(0)
    expect(jsonArrayLength(utf8("[[1, 2], {\"a\": [3, 4]}]"))).toBe(2)
  })

  it("is undefined for a body that does not start as an array (another value, or a space JSON does not take)", () => {
    for (const text of ["{}", "1", '"[1]"', "", "  ", "\u00a0[1]", "\f[1]", "x[1]"]) expect(jsonArrayLength(utf8(text)), JSON.stringify(text)).toBeUndefined()
  })
})

describe("jsonLongestArray and pathOfLongArray", () => {
  const utf8 = (text: string) => new TextEncoder().encode(text)
  it("count the longest array anywhere, nested ones and arrays in objects included, strings skipped", () => {
    const cases: readonly [string, number][] = [
      ["{}", 0],
      ["[]", 0],
      ["[ ]", 0],
      ["[1,2,3]", 3],
      ['{"a":[1,2],"b":{"c":[1,2,3,4]}}', 4],
      ['[[1,2,3,4,5],[1]]', 5],
      ['{"s":"[1,2,3,4,5,6]","a":[[],[]]}', 2],
      [String.raw`["a\\",",","b"]`, 3],
      [String.raw`["\"]\"",[1,2]]`, 2],
      ['{"a":[{},{},{"b":[1,2,3]}]}', 3],
    ]
    for (const [text, longest] of cases) {
      expect(jsonLongestArray(utf8(text)), text).toBe(longest)
      expect(Math.max(0, ...collectLengths(JSON.parse(text))), text).toBe(longest)
    }
    // Deep nesting costs no recursion.
    const deep = `${"[".repeat(200_000)}1,2${"]".repeat(200_000)}`
    expect(jsonLongestArray(utf8(deep))).toBe(2)
    expect(pathOfLongArray(JSON.parse(deep), 1)).toEqual({ path: `${"[0]".repeat(199_999)}`, length: 2 })
  })

  it("name the first array over the limit by its path", () => {
    expect(pathOfLongArray([1, 2, 3], 2)).toEqual({ path: "", length: 3 })
    expect(pathOfLongArray({ a: [1], b: { c: [1, 2, 3] }, d: [1, 2, 3, 4] }, 2)).toEqual({ path: "b.c", length: 3 })
    expect(pathOfLongArray([{ x: [1] }, { destinations: [1, 2, 3] }], 2)).toEqual({ path: "[1].destinations", length: 3 })
    expect(pathOfLongArray({ a: [1, 2] }, 2)).toBeUndefined()
  })
})

const collectLengths = (value: unknown): number[] => {
  const out: number[] = []
  const stack = [value]
  while (stack.length > 0) {
    const node = stack.pop()
    if (Array.isArray(node)) {
      out.push(node.length)
      stack.push(...node)
    } else if (typeof node === "object" && node !== null) stack.push(...Object.values(node))
  }
  return out
}
