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
})
