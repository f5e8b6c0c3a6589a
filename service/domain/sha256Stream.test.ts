import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import { Sha256Stream } from "./sha256Stream.ts"

/** The SHA-256 of the UTF-8 of `text`, one shot, as the stream spells it. */
const sha256Of = (text: string): string => `0x${createHash("sha256").update(text, "utf8").digest("hex")}`

describe("Sha256Stream", () => {
  it("gives the standard vectors (what `sha256sum` prints)", () => {
    const empty = new Sha256Stream()
    expect(empty.digest()).toBe("0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    const abc = new Sha256Stream()
    abc.writeUtf8("a")
    abc.writeUtf8("bc")
    expect(abc.digest()).toBe("0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
  })

  it("equals a one-shot SHA-256 of the concatenation, across flushes", () => {
    const stream = new Sha256Stream()
    const parts: string[] = []
    for (let i = 0; i < 5000; i++) {
      const line = `{"kind":"X","i":${i},"s":"${"é".repeat(i % 7)}"}\n`
      parts.push(line)
      stream.writeUtf8(line)
    }
    expect(stream.digest()).toBe(sha256Of((parts.join(""))))
    stream.writeUtf8("more")
    expect(stream.digest()).toBe(sha256Of((`${parts.join("")}more`)))
  })

  it("continues in a worker thread past offloadAfterBytes and gives the same digests", () => {
    // Lines of every UTF-8 width, flushed here, then in the worker; digests mid-stream and at the end.
    const stream = new Sha256Stream({ offloadAfterBytes: 100_000 })
    const here = new Sha256Stream()
    const parts: string[] = []
    const digests: [string, string][] = []
    for (let i = 0; i < 40_000; i++) {
      const line = `{"i":${i},"s":"${"é€😀".repeat(i % 5)}"}`
      parts.push(line, "\n")
      stream.writeLine(line)
      here.writeLine(line)
      if (i % 9_999 === 0) digests.push([stream.digest(), here.digest()])
    }
    expect(stream.offloaded).toBe(true)
    expect(here.offloaded).toBe(false)
    for (const [offloaded, local] of digests) expect(offloaded).toBe(local)
    expect(stream.digest()).toBe(sha256Of((parts.join(""))))
    // The stream goes on after a digest.
    // A line longer than the worker's chunks, with characters straddling their boundaries.
    const huge = "a€😀".repeat(400_000)
    stream.writeUtf8(huge)
    stream.writeLine(huge)
    stream.writeLine("x".repeat(349_525)) // 3 bytes per unit plus the newline: exactly a chunk
    expect(stream.digest()).toBe(sha256Of((`${parts.join("")}${huge}${huge}\n${"x".repeat(349_525)}\n`)))
  })

  it("crosses the offload threshold inside a digest, and re-hashes the small pieces hashed before it in the worker", () => {
    // Each digest flushes what is pending: small pieces (views of Node's shared buffer pool) hashed here first.
    const stream = new Sha256Stream({ offloadAfterBytes: 10 })
    expect(stream.digest()).toBe(sha256Of(""))
    stream.writeUtf8("")
    stream.writeUtf8("hello")
    expect(stream.digest()).toBe(sha256Of("hello"))
    expect(stream.offloaded).toBe(false)
    stream.writeUtf8("wörld\ud83d") // 6 more bytes: 11 >= 10, offloaded in this digest, the half pair carried
    expect(stream.digest()).toBe(sha256Of("hellowörld\ufffd"))
    expect(stream.offloaded).toBe(true)
    expect(stream.digest()).toBe(sha256Of("hellowörld\ufffd"))
    stream.writeLine("\ude00!")
    expect(stream.digest()).toBe(sha256Of("hellowörld😀!\n"))
    stream.close()
    // A stream that never offloaded is closed all the same.
    const here = new Sha256Stream()
    here.close()
    expect(() => here.writeLine("x")).toThrow(/closed/)
  })

  it("hashes a surrogate pair split across writes as the pair, here and offloaded", () => {
    for (const offloadAfterBytes of [undefined, 1]) {
      const stream = new Sha256Stream(offloadAfterBytes === undefined ? {} : { offloadAfterBytes })
      // The first write fills a flush (here) and ends with the pair's first half; the second starts with the other.
      const first = `${"a".repeat(70_000)}\ud83d`
      stream.writeUtf8(first)
      stream.writeUtf8("\ude00 and more")
      stream.writeUtf8("\ud83d") // a lone high surrogate at the end: one replacement character
      expect(stream.offloaded).toBe(offloadAfterBytes !== undefined)
      expect(stream.digest()).toBe(sha256Of((`${"a".repeat(70_000)}😀 and more\ufffd`)))
      // A digest between the halves counts the first as lone; the pair completes afterwards all the same.
      stream.writeUtf8("\ude00")
      expect(stream.digest()).toBe(sha256Of((`${"a".repeat(70_000)}😀 and more😀`)))
      stream.close()
    }
  })

  it("formats values into text in the worker with its text formatter, in order with the text written around them", () => {
    // A formatter of the hub's trace (a TypeScript module the worker loads with type stripping): one line, no newline.
    const textFormatter = { module: new URL("../hub/events.ts", import.meta.url), exportName: "formatEvent" }
    const stream = new Sha256Stream({ offloadAfterBytes: 1, textFormatter })
    const events = Array.from({ length: 20_000 }, (_, i) => ({ kind: "DepositProcessed", epoch: i, domain: 10, tickerHash: `0x${"ab".repeat(32)}`, intentId: `0x${i.toString(16).padStart(64, "0")}`, amountAndRewards: 10n ** 24n + BigInt(i) }))
    const lines = events.map((e) => `{"kind":"DepositProcessed","epoch":${e.epoch},"domain":10,"tickerHash":"${e.tickerHash}","intentId":"${e.intentId}","amountAndRewards":"${e.amountAndRewards}"}`)
    expect(stream.acceptsValues).toBe(false) // nothing hashed yet: not offloaded
    const first = `first €${"a".repeat(70_000)}` // past a flush of the text buffer: hashed, so offloaded
    stream.writeLine(first)
    expect(stream.acceptsValues).toBe(true)
    stream.writeValues(events.slice(0, 15_000))
    stream.writeLine("between 😀")
    stream.writeValues(events.slice(15_000))
    expect(stream.digest()).toBe(sha256Of((`${first}\n${lines.slice(0, 15_000).join("")}between 😀\n${lines.slice(15_000).join("")}`)))
    stream.close()
    // Without a formatter, or before offloading, values are refused.
    const plain = new Sha256Stream({ offloadAfterBytes: 1 })
    plain.writeLine(first)
    expect(plain.acceptsValues).toBe(false)
    expect(() => plain.writeValues([1])).toThrow(/text formatter/)
    plain.close()
  })

  it("fails the stream when the worker cannot load its text formatter", () => {
    const stream = new Sha256Stream({ offloadAfterBytes: 1, textFormatter: { module: new URL("../hub/events.ts", import.meta.url), exportName: "noSuchExport" } })
    stream.writeLine("x".repeat(70_000))
    stream.writeValues([{ kind: "X" }])
    expect(() => stream.digest()).toThrow(/no function export noSuchExport/)
    stream.close()
  })

  it("keeps an offloaded stream's backlog bounded and gives the same digest; a closed stream refuses writes", () => {
    const offloaded = new Sha256Stream({ offloadAfterBytes: 1 })
    const here = new Sha256Stream()
    const block = "0123456789abcdef".repeat(1 << 16) // 1 MiB
    // 96 MiB written in one go: faster than the worker absorbs it, so writes wait for it to catch up.
    for (let i = 0; i < 96; i++) {
      offloaded.writeUtf8(block)
      here.writeUtf8(block)
    }
    expect(offloaded.offloaded).toBe(true)
    expect(offloaded.digest()).toBe(here.digest())
    offloaded.close()
    expect(() => offloaded.writeUtf8("x")).toThrow(/closed/)
    expect(() => offloaded.digest()).toThrow(/closed/)
  })
})
