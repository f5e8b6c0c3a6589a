/**
 * The real-time adapter of live devnets (`clearsim up`): it paces the simulator's virtual-clock scheduler to the
 * wall clock, so that virtual time is wall time since a fixed origin and chain and hub timestamps follow the
 * wall clock. It is the only code in service/ and sim/ whose wall-clock reads and timers drive what a run does
 * (elsewhere they time the CLI's report and bound RPC calls); everything it drives stays the deterministic
 * scheduler of `clearsim run`.
 *
 * Pacing: run every event due by now (in (time, sequence) order, each awaited as in a simulation), which also
 * moves the scheduler's clock to now; then sleep until the next event, at most `maxSleepMs`, so that events
 * scheduled from outside the scheduler (HTTP requests: hub transactions whose messages the transport delivers)
 * start on time and the clock that HTTP handlers read stays within `maxSleepMs` of the wall clock. When handlers
 * take longer than real time the clock lags and catches up by running due events back to back; it never runs
 * ahead of the wall clock.
 */
import type { Scheduler } from "../scheduler.ts"

/** Wall-clock milliseconds (unix epoch). */
export const wallClockMs = (): number => Date.now()

/** Wall-clock unix seconds, whole. */
export const wallClockSeconds = (): bigint => BigInt(Math.floor(Date.now() / 1000))

/** The wall clock's time of day, UTC, `HH:MM:SS` (for log lines). */
export const wallClockTimeOfDay = (): string => new Date(Date.now()).toISOString().slice(11, 19)

/** `promise`, or `onTimeout()` once `ms` of wall time have passed first. */
export const withTimeout = <A>(promise: Promise<A>, ms: number, onTimeout: () => A): Promise<A> => {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<A>((resolve) => {
    timer = setTimeout(() => resolve(onTimeout()), ms)
  })
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer))
}

export interface RealtimePacerOptions {
  /** Wall-clock milliseconds at virtual time 0. */
  readonly originWallMs: number
  /** Longest sleep between two looks at the queue, ms. @default 50 */
  readonly maxSleepMs?: number
  /**
   * An event's handler threw. Default: the pacer stops and `run()` rejects. A live devnet logs the error and
   * goes on with the next event instead (periodic events were re-armed before they ran).
   */
  readonly onError?: (error: unknown, label: string) => void
}

export class RealtimePacer {
  private stopped = false
  private running: Promise<void> | undefined
  private timer: ReturnType<typeof setTimeout> | undefined
  private wake: (() => void) | undefined
  private readonly maxSleepMs: number

  private readonly scheduler: Scheduler
  private readonly options: RealtimePacerOptions
  constructor(scheduler: Scheduler, options: RealtimePacerOptions) {
    this.scheduler = scheduler
    this.options = options
    this.maxSleepMs = options.maxSleepMs ?? 50
  }

  /** Virtual time the wall clock is at now, ms (never negative). */
  get wallVirtualMs(): number {
    return Math.max(0, wallClockMs() - this.options.originWallMs)
  }

  /** Starts pacing (idempotent); the promise settles when `stop()` has taken effect, or rejects on an unhandled error. */
  run(): Promise<void> {
    this.running ??= this.loop()
    return this.running
  }

  private async loop(): Promise<void> {
    let label = ""
    while (!this.stopped) {
      try {
        await this.scheduler.run(this.wallVirtualMs, (current) => {
          label = current
        })
      } catch (error) {
        // After stop() the chains may be gone under the running event: its failure is expected.
        if (this.stopped) break
        if (this.options.onError === undefined) throw error
        this.options.onError(error, label)
      }
      if (this.stopped) break
      const next = this.scheduler.nextTimeMs
      const delay = next === undefined ? this.maxSleepMs : Math.min(this.maxSleepMs, Math.max(1, next - this.wallVirtualMs))
      await new Promise<void>((resolve) => {
        this.wake = resolve
        this.timer = setTimeout(resolve, delay)
      })
      this.wake = undefined
    }
  }

  /** Stops after the event running now, if any (awaited), and resolves once the loop has ended. */
  async stop(): Promise<void> {
    this.stopped = true
    this.scheduler.stop()
    clearTimeout(this.timer)
    this.wake?.()
    await this.running?.catch(() => undefined)
  }
}
