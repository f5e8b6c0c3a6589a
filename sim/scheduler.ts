/**
 * The discrete-event kernel: a virtual clock and a queue of events ordered by (time, sequence). Each event's
 * handler runs to completion, awaited when it is async (chain calls included), before the next starts; events
 * scheduled at the same time run in the order they were scheduled. Nothing here reads the wall clock.
 */

/** Virtual time in milliseconds since the start of the run. */
export type TimeMs = number

export type EventHandler = () => void | Promise<void>

interface ScheduledEvent {
  readonly timeMs: TimeMs
  readonly seq: number
  readonly label: string
  readonly run: EventHandler
}

export class SchedulerError extends Error {
  override readonly name = "SchedulerError"
}

export class Scheduler {
  private heap: ScheduledEvent[] = []
  private seq = 0
  private current: TimeMs = 0
  private stopped = false
  /** Events run so far. */
  executed = 0

  /** Now, in virtual milliseconds. */
  get nowMs(): TimeMs {
    return this.current
  }

  /** Now, in whole virtual seconds (block timestamps are seconds). */
  get nowSeconds(): number {
    return Math.floor(this.current / 1000)
  }

  get pending(): number {
    return this.heap.length
  }

  /** Time of the next event, or undefined when none is scheduled. */
  get nextTimeMs(): TimeMs | undefined {
    return this.heap[0]?.timeMs
  }

  /** Schedules `run` at `timeMs` (not before now). */
  at(timeMs: TimeMs, label: string, run: EventHandler): void {
    if (!Number.isFinite(timeMs)) throw new SchedulerError(`event "${label}" scheduled at a non-finite time ${timeMs}`)
    if (timeMs < this.current) throw new SchedulerError(`event "${label}" scheduled at ${timeMs} ms, before now (${this.current} ms)`)
    this.push({ timeMs: Math.round(timeMs), seq: this.seq++, label, run })
  }

  /** Schedules `run` after `delayMs`. */
  after(delayMs: TimeMs, label: string, run: EventHandler): void {
    this.at(this.current + Math.max(0, delayMs), label, run)
  }

  /** Runs `run` every `periodMs` from `firstMs` until the run stops (the handler is re-armed before it runs). */
  every(periodMs: TimeMs, firstMs: TimeMs, label: string, run: EventHandler): void {
    if (!(periodMs > 0)) throw new SchedulerError(`periodic event "${label}" needs a positive period, got ${periodMs}`)
    const tick = () => {
      this.after(periodMs, label, tick)
      return run()
    }
    this.at(firstMs, label, tick)
  }

  /** Stops the run after the current event. */
  stop(): void {
    this.stopped = true
  }

  /**
   * Runs events in (time, sequence) order until the queue is empty, `untilMs` is passed (events at exactly
   * `untilMs` still run) or `stop()` is called. The clock ends at `untilMs` when given.
   */
  async run(untilMs: TimeMs = Number.POSITIVE_INFINITY, onEvent?: (label: string, timeMs: TimeMs) => void): Promise<void> {
    this.stopped = false
    while (this.heap.length > 0 && !this.stopped) {
      const next = this.heap[0]!
      if (next.timeMs > untilMs) break
      this.pop()
      this.current = next.timeMs
      onEvent?.(next.label, next.timeMs)
      const result = next.run()
      if (result !== undefined) await result
      this.executed++
      // Let the process see signals and I/O now and then (a long synchronous run would not); the order of
      // events does not depend on it.
      if ((this.executed & 0xfff) === 0) await new Promise<void>((resolve) => setImmediate(resolve))
    }
    if (Number.isFinite(untilMs) && !this.stopped && this.current < untilMs) this.current = untilMs
  }

  private less(a: ScheduledEvent, b: ScheduledEvent): boolean {
    return a.timeMs < b.timeMs || (a.timeMs === b.timeMs && a.seq < b.seq)
  }

  private push(event: ScheduledEvent): void {
    const heap = this.heap
    heap.push(event)
    let i = heap.length - 1
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!this.less(heap[i]!, heap[parent]!)) break
      ;[heap[i], heap[parent]] = [heap[parent]!, heap[i]!]
      i = parent
    }
  }

  private pop(): ScheduledEvent {
    const heap = this.heap
    const top = heap[0]!
    const last = heap.pop()!
    if (heap.length > 0) {
      heap[0] = last
      let i = 0
      for (;;) {
        const l = 2 * i + 1
        const r = l + 1
        let m = i
        if (l < heap.length && this.less(heap[l]!, heap[m]!)) m = l
        if (r < heap.length && this.less(heap[r]!, heap[m]!)) m = r
        if (m === i) break
        ;[heap[i], heap[m]] = [heap[m]!, heap[i]!]
        i = m
      }
    }
    return top
  }
}
