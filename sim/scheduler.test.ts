import { describe, expect, it } from "vitest"
import { Scheduler, SchedulerError } from "./scheduler.ts"

describe("Scheduler", () => {
  it("runs events in (time, sequence) order, same-time events in scheduling order", async () => {
    const s = new Scheduler()
    const log: string[] = []
    s.at(2000, "b", () => void log.push(`b@${s.nowMs}`))
    s.at(1000, "a1", () => void log.push(`a1@${s.nowMs}`))
    s.at(1000, "a2", () => {
      log.push(`a2@${s.nowMs}`)
      s.after(0, "a3", () => void log.push(`a3@${s.nowMs}`))
    })
    await s.run()
    expect(log).toEqual(["a1@1000", "a2@1000", "a3@1000", "b@2000"])
  })

  it("awaits an async handler before starting the next event", async () => {
    const s = new Scheduler()
    const log: string[] = []
    s.at(10, "slow", async () => {
      log.push("slow start")
      await new Promise((resolve) => setImmediate(resolve))
      log.push("slow end")
    })
    s.at(10, "next", () => void log.push("next"))
    await s.run()
    expect(log).toEqual(["slow start", "slow end", "next"])
  })

  it("repeats periodic events and stops at the horizon, ending the clock there", async () => {
    const s = new Scheduler()
    const times: number[] = []
    s.every(60_000, 0, "cron", () => void times.push(s.nowSeconds))
    await s.run(300_000)
    expect(times).toEqual([0, 60, 120, 180, 240, 300])
    expect(s.nowMs).toBe(300_000)
    expect(s.pending).toBe(1)
  })

  it("refuses to schedule in the past", async () => {
    const s = new Scheduler()
    s.at(1000, "x", () => {
      expect(() => s.at(500, "past", () => {})).toThrow(SchedulerError)
    })
    await s.run()
  })

  it("pops many events in (time, sequence) order, whatever order they were scheduled in", async () => {
    const s = new Scheduler()
    const ran: number[] = []
    // Times 0..9 s in a scrambled order, each ten times: by time, then in scheduling order.
    for (let k = 0; k < 100; k++) {
      const time = ((k * 7) % 10) * 1000
      s.at(time, "e", () => void ran.push(time * 1000 + k))
    }
    await s.run()
    expect(ran).toEqual([...ran].sort((a, b) => a - b))
    expect(ran).toHaveLength(100)
  })

  it("rounds event times to the millisecond, counts whole seconds down, and runs a negative delay now", async () => {
    const s = new Scheduler()
    const log: string[] = []
    s.at(1999.6, "late", () => void log.push(`late@${s.nowMs}/${s.nowSeconds}s`))
    s.at(2000, "on time", () => {
      log.push(`on time@${s.nowMs}`)
      s.after(-5, "negative", () => void log.push(`negative@${s.nowMs}`))
    })
    s.at(1999, "before", () => void log.push(`before@${s.nowMs}/${s.nowSeconds}s`))
    await s.run()
    // 1,999.6 ms is 2,000 ms, scheduled before "on time"; 1,999 ms is still second 1.
    expect(log).toEqual(["before@1999/1s", "late@2000/2s", "on time@2000", "negative@2000"])
  })

  it("refuses a periodic event without a positive period", () => {
    expect(() => new Scheduler().every(0, 0, "cron", () => {})).toThrow(SchedulerError)
  })

  it("keeps the clock where stop() left it, and a later run goes on from there", async () => {
    const s = new Scheduler()
    const times: number[] = []
    s.at(1000, "stop", () => {
      times.push(s.nowMs)
      s.stop()
    })
    s.at(2000, "next", () => void times.push(s.nowMs))
    await s.run(5000)
    expect([s.nowMs, times]).toEqual([1000, [1000]])
    await s.run(5000)
    expect([s.nowMs, times]).toEqual([5000, [1000, 2000]])
  })
})
