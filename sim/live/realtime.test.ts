/**
 * The real-time adapter: events run no earlier than their virtual time on the wall clock, in order, the clock
 * follows the wall clock between events, events scheduled from outside start on time, handler errors are
 * reported without stopping the pacing, and `stop()` waits for the running event.
 */
import { describe, expect, it } from "vitest"
import { Scheduler } from "../scheduler.ts"
import { RealtimePacer } from "./realtime.ts"

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe("RealtimePacer", () => {
  it("paces the scheduler to the wall clock", async () => {
    const scheduler = new Scheduler()
    const origin = Date.now()
    const ran: { label: string; virtual: number; wall: number }[] = []
    const record = (label: string) => () => void ran.push({ label, virtual: scheduler.nowMs, wall: Date.now() - origin })
    scheduler.at(0, "a", record("a"))
    scheduler.at(250, "b", record("b"))
    scheduler.at(250, "c", record("c"))
    scheduler.at(350, "d", async () => {
      await sleep(20)
      record("d")()
    })
    const pacer = new RealtimePacer(scheduler, { originWallMs: origin, maxSleepMs: 20 })
    const running = pacer.run()
    await sleep(80)
    // Between events the clock follows the wall clock (within a sleep).
    expect(scheduler.nowMs).toBeGreaterThanOrEqual(40)
    // An event scheduled from outside the scheduler (an HTTP request) runs on time.
    scheduler.at(scheduler.nowMs + 50, "e", record("e"))
    await sleep(380)
    await pacer.stop()
    await running
    expect(ran.map((r) => r.label)).toEqual(["a", "e", "b", "c", "d"])
    for (const r of ran) expect(r.wall).toBeGreaterThanOrEqual(r.virtual)
    expect(ran.find((r) => r.label === "d")!.virtual).toBe(350)
  })

  it("reports a failing handler and goes on; stop() waits for the running event", async () => {
    const scheduler = new Scheduler()
    const errors: string[] = []
    let finished = false
    scheduler.at(0, "boom", () => {
      throw new Error("no chain")
    })
    scheduler.at(10, "slow", async () => {
      await sleep(100)
      finished = true
    })
    const pacer = new RealtimePacer(scheduler, { originWallMs: Date.now(), onError: (error, label) => errors.push(`${label}: ${(error as Error).message}`) })
    const running = pacer.run()
    await sleep(50)
    await pacer.stop()
    expect(finished).toBe(true)
    expect(errors).toEqual(["boom: no chain"])
    await running
  })

  it("an event scheduled from outside into an empty queue starts within a sleep; virtual time is never before 0", async () => {
    const scheduler = new Scheduler()
    const ran: string[] = []
    const pacer = new RealtimePacer(scheduler, { originWallMs: Date.now(), maxSleepMs: 20 })
    const running = pacer.run()
    await sleep(30)
    scheduler.at(scheduler.nowMs + 10, "e", () => void ran.push("e"))
    await sleep(200)
    expect(ran).toEqual(["e"])
    await pacer.stop()
    await running
    // An origin still ahead of the wall clock: virtual time 0, not negative.
    expect(new RealtimePacer(new Scheduler(), { originWallMs: Date.now() + 60_000 }).wallVirtualMs).toBe(0)
  })

  it("stop() during an event: the events due after it do not run, and its failure once stopped is not reported", async () => {
    const scheduler = new Scheduler()
    const ran: string[] = []
    const errors: string[] = []
    scheduler.at(0, "dies with the chains", async () => {
      await sleep(50)
      throw new Error("chain gone")
    })
    scheduler.at(0, "due next", () => void ran.push("due next"))
    const pacer = new RealtimePacer(scheduler, { originWallMs: Date.now(), onError: (_, label) => errors.push(label) })
    const running = pacer.run()
    await sleep(10)
    await pacer.stop()
    await running
    expect(ran).toEqual([])
    expect(errors).toEqual([])
  })

  it("stop() during an event that completes: the scheduler's run ends there, the events due after it do not run", async () => {
    const scheduler = new Scheduler()
    const ran: string[] = []
    scheduler.at(0, "slow", async () => {
      await sleep(50)
      ran.push("slow")
    })
    scheduler.at(0, "due next", () => void ran.push("due next"))
    const pacer = new RealtimePacer(scheduler, { originWallMs: Date.now() })
    const running = pacer.run()
    await sleep(10)
    await pacer.stop()
    await running
    expect(ran).toEqual(["slow"])
  })
})
