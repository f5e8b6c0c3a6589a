/**
 * A run's per-epoch time series (timeseries.csv's rows, report.html's charts, the per-epoch property checks),
 * stored compactly: one row is a metric id (2 bytes, 4 past 65,536 names) and a value (a double, 8 bytes) in
 * chunks of typed arrays, and each epoch is its number and the index of its first row. An object per row
 * (`{ epoch, metric, value }`, then a copy with `run` and `seed`) and a map of the epoch's values beside it made
 * a run's heap grow by 2.2 to 4 KB an epoch (17 and 28 rows an epoch; 0.2 to 0.4 KB now), and a run of 1.3 million
 * one-millisecond epochs did not fit in a 4 GB heap.
 *
 * Values are kept as the doubles pushed (a Float64Array holds every double exactly), in the order pushed: the
 * rows read back are the rows written, and so are the files made from them.
 */

/** One row of the series: the value of a metric in an epoch. */
export interface TimeseriesRow {
  readonly epoch: number
  readonly metric: string
  readonly value: number
}

/** A row of timeseries.csv: the series' row with its run's number and seed. */
export interface SeriesRow extends TimeseriesRow {
  readonly run: number
  readonly seed: number
}

/** Rows per chunk (a power of two: a row's chunk and place in it are a shift and a mask). */
const CHUNK_BITS = 16
const CHUNK_ROWS = 1 << CHUNK_BITS
const CHUNK_MASK = CHUNK_ROWS - 1
/** Metric ids fit 16 bits up to this many names; past it the ids are widened to 32 bits. */
const NARROW_IDS = 1 << 16

/** One metric's points: `epochs[i]` and `values[i]`, in the order of the rows. */
export interface MetricColumn {
  readonly epochs: Float64Array
  readonly values: Float64Array
}

export class EpochSeries {
  /** Metric names by id, in the order they first appear. */
  private readonly names: string[] = []
  private readonly ids = new Map<string, number>()
  /** Rows of each metric, by id. */
  private readonly rowsOf: number[] = []
  private idChunks: (Uint16Array | Uint32Array)[] = []
  private readonly valueChunks: Float64Array[] = []
  /** The last chunk (rows are appended there) and the place of the next row in it (`CHUNK_ROWS`: full, or none yet). */
  private lastIds: Uint16Array | Uint32Array = new Uint16Array(0)
  private lastValues = new Float64Array(0)
  private lastFill = CHUNK_ROWS
  private rowCount = 0
  /** Per epoch (a run of rows of one epoch number): its number and its first row. */
  private readonly epochNumbers: number[] = []
  private readonly epochStarts: number[] = []

  /** The number of rows. */
  get length(): number {
    return this.rowCount
  }

  /** The number of epochs begun (`beginEpoch`, or rows of another epoch number than the previous row's). */
  get epochCount(): number {
    return this.epochNumbers.length
  }

  /** The metric names, in the order they first appear. */
  get metricNames(): readonly string[] {
    return this.names
  }

  /** The rows that follow are of `epoch` (a new epoch even when it is the number of the previous one). */
  beginEpoch(epoch: number): void {
    this.epochNumbers.push(epoch)
    this.epochStarts.push(this.rowCount)
  }

  /** Appends a row of the current epoch (`beginEpoch` first). */
  push(metric: string, value: number): void {
    if (this.epochNumbers.length === 0) throw new Error("EpochSeries.push before any beginEpoch")
    let id = this.ids.get(metric)
    if (id === undefined) id = this.addMetric(metric)
    if (this.lastFill === CHUNK_ROWS) this.addChunk()
    this.lastIds[this.lastFill] = id
    this.lastValues[this.lastFill++] = value
    this.rowsOf[id]!++
    this.rowCount++
  }

  private addMetric(metric: string): number {
    const id = this.names.length
    this.names.push(metric)
    this.ids.set(metric, id)
    this.rowsOf.push(0)
    // Past 65,536 names an id takes 32 bits: the chunks so far are widened.
    if (id === NARROW_IDS) {
      this.idChunks = this.idChunks.map((c) => Uint32Array.from(c))
      if (this.idChunks.length > 0) this.lastIds = this.idChunks[this.idChunks.length - 1]!
    }
    return id
  }

  private addChunk(): void {
    this.lastIds = this.names.length > NARROW_IDS ? new Uint32Array(CHUNK_ROWS) : new Uint16Array(CHUNK_ROWS)
    this.lastValues = new Float64Array(CHUNK_ROWS)
    this.idChunks.push(this.lastIds)
    this.valueChunks.push(this.lastValues)
    this.lastFill = 0
  }

  /** Appends a row, beginning an epoch when `epoch` is not the current one's number. */
  pushRow(epoch: number, metric: string, value: number): void {
    if (this.epochNumbers.length === 0 || this.epochNumbers[this.epochNumbers.length - 1] !== epoch) this.beginEpoch(epoch)
    this.push(metric, value)
  }

  /** The series of `rows`, in their order. */
  static fromRows(rows: Iterable<TimeseriesRow>): EpochSeries {
    const series = new EpochSeries()
    for (const row of rows) series.pushRow(row.epoch, row.metric, row.value)
    return series
  }

  /**
   * Calls `visit` with each row of `[from, to)` in order: its epoch, its metric's id (`metricNames[id]`) and value.
   */
  scan(from: number, to: number, visit: (epoch: number, metricId: number, value: number) => void): void {
    const end = Math.min(to, this.rowCount)
    if (from >= end) return
    const starts = this.epochStarts
    // The epoch of row `from`: the last epoch starting at or before it (epochs without rows are passed over).
    let lo = 0
    let hi = starts.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if (starts[mid]! <= from) lo = mid
      else hi = mid - 1
    }
    let e = lo
    let epoch = this.epochNumbers[e]!
    let nextStart = e + 1 < starts.length ? starts[e + 1]! : Number.POSITIVE_INFINITY
    for (let row = from; row < end; ) {
      const chunk = row >>> CHUNK_BITS
      const ids = this.idChunks[chunk]!
      const values = this.valueChunks[chunk]!
      const stop = Math.min(end, (chunk + 1) * CHUNK_ROWS)
      for (; row < stop; row++) {
        while (row >= nextStart) {
          e++
          epoch = this.epochNumbers[e]!
          nextStart = e + 1 < starts.length ? starts[e + 1]! : Number.POSITIVE_INFINITY
        }
        visit(epoch, ids[row & CHUNK_MASK]!, values[row & CHUNK_MASK]!)
      }
    }
  }

  /** The rows in order, as objects (tests and small series: a row object each). */
  *rows(): Generator<TimeseriesRow> {
    const rows: TimeseriesRow[] = []
    for (let from = 0; from < this.rowCount; from += CHUNK_ROWS) {
      rows.length = 0
      this.scan(from, from + CHUNK_ROWS, (epoch, id, value) => void rows.push({ epoch, metric: this.names[id]!, value }))
      yield* rows
    }
  }

  /** Calls `visit` with the epoch and value of each row of `metric`, in order (nothing when no row has it). */
  forEachValue(metric: string, visit: (epoch: number, value: number) => void): void {
    const wanted = this.ids.get(metric)
    if (wanted === undefined) return
    this.scan(0, this.rowCount, (epoch, id, value) => {
      if (id === wanted) visit(epoch, value)
    })
  }

  /**
   * The points of each of `metrics` that has rows, by name (in the order of `metrics`), in one pass over the rows:
   * a chart's lines without a row object or a pair per point.
   */
  columns(metrics: readonly string[]): Map<string, MetricColumn> {
    const slotOf = new Map<number, number>()
    const wanted: string[] = []
    for (const metric of metrics) {
      const id = this.ids.get(metric)
      if (id === undefined || slotOf.has(id)) continue
      slotOf.set(id, wanted.length)
      wanted.push(metric)
    }
    const out = new Map<string, MetricColumn>()
    if (wanted.length === 0) return out
    // The slot of each metric id (-1: not wanted); each wanted metric's columns, sized by its count of rows.
    const slots = new Int32Array(this.names.length).fill(-1)
    const columns: MetricColumn[] = []
    for (const [id, slot] of slotOf) {
      slots[id] = slot
      columns[slot] = { epochs: new Float64Array(this.rowsOf[id]!), values: new Float64Array(this.rowsOf[id]!) }
    }
    const filled = new Int32Array(wanted.length)
    // Chunk by chunk, the epoch of each row followed from the epochs' starts: a tight loop over the ids.
    const starts = this.epochStarts
    let e = -1
    let nextStart = 0
    let epoch = 0
    for (let chunk = 0; chunk < this.idChunks.length; chunk++) {
      const ids = this.idChunks[chunk]!
      const values = this.valueChunks[chunk]!
      const base = chunk * CHUNK_ROWS
      const rows = Math.min(CHUNK_ROWS, this.rowCount - base)
      for (let i = 0; i < rows; i++) {
        const slot = slots[ids[i]!]!
        if (slot < 0) continue
        const row = base + i
        while (row >= nextStart) {
          e++
          epoch = this.epochNumbers[e]!
          nextStart = e + 1 < starts.length ? starts[e + 1]! : Number.POSITIVE_INFINITY
        }
        const column = columns[slot]!
        const k = filled[slot]!++
        column.epochs[k] = epoch
        column.values[k] = values[i]!
      }
    }
    wanted.forEach((metric, slot) => out.set(metric, columns[slot]!))
    return out
  }
}

/** A run's time series: its rows with the run's number and seed (timeseries.csv's columns). */
export class Timeseries {
  readonly run: number
  readonly seed: number
  readonly series: EpochSeries

  constructor(run: number, seed: number, series: EpochSeries) {
    this.run = run
    this.seed = seed
    this.series = series
  }

  /** The number of rows. */
  get length(): number {
    return this.series.length
  }

  /**
   * The time series of `rows`, all of one run and seed (an empty list: run 0, seed 0). Rows of several runs are
   * refused: a run's files are one run's.
   */
  static fromRows(rows: readonly SeriesRow[]): Timeseries {
    const first = rows[0]
    const run = first?.run ?? 0
    const seed = first?.seed ?? 0
    const other = rows.find((r) => r.run !== run || r.seed !== seed)
    if (other !== undefined) throw new Error(`rows of several runs (run ${run} seed ${seed}, run ${other.run} seed ${other.seed}): a run's time series is one run's`)
    return new Timeseries(run, seed, EpochSeries.fromRows(rows))
  }

  /** The rows in order, as objects (tests and small series: a row object each). */
  *rows(): Generator<SeriesRow> {
    for (const row of this.series.rows()) yield { run: this.run, seed: this.seed, ...row }
  }

  /** Every row as an object (tests and small series). */
  toArray(): SeriesRow[] {
    return [...this.rows()]
  }
}

/** A run's time series, or its rows as a list (tests, small series). */
export type SeriesInput = Timeseries | readonly SeriesRow[]

export const timeseriesOf = (input: SeriesInput): Timeseries => (input instanceof Timeseries ? input : Timeseries.fromRows(input))
