import { describe, expect, it } from "vitest"
import { findSuites, planBench } from "./run.ts"

describe("npm run bench arguments", () => {
  const suites = findSuites()

  it("finds the project's suites", () => {
    expect(suites).toEqual(expect.arrayContaining(["bench/sim.bench.ts", "loadtest/mix.bench.ts", "service/api/api.bench.ts", "service/hub/hub.bench.ts"]))
  })

  it("runs every suite, or those whose path contains a filter", () => {
    expect(planBench([], suites)).toEqual({ kind: "run", suites })
    expect(planBench(["hub", "mix"], suites)).toEqual({ kind: "run", suites: ["loadtest/mix.bench.ts", "service/hub/hub.bench.ts"] })
  })

  it("lists the suites on --list and --help, and with the error when a filter matches nothing or an option is unknown", () => {
    const line = /^ {2}api +service\/api\/api\.bench\.ts$/m
    const list = planBench(["--list"], suites)
    expect(list.kind).toBe("list")
    expect((list as { text: string }).text).toMatch(line)
    const help = planBench(["--help"], suites)
    expect(help.kind).toBe("help")
    expect((help as { text: string }).text).toMatch(/^Usage: npm run bench/)
    expect((help as { text: string }).text).toMatch(line)
    const none = planBench(["nonexistent"], suites)
    expect(none.kind).toBe("error")
    expect((none as { text: string }).text).toMatch(/^no benchmark matches nonexistent; the suites/)
    expect((none as { text: string }).text).toMatch(line)
    const unknown = planBench(["--fast"], suites)
    expect(unknown.kind).toBe("error")
    expect((unknown as { text: string }).text).toMatch(/^unknown option --fast/)
    expect((unknown as { text: string }).text).toMatch(line)
  })
})
