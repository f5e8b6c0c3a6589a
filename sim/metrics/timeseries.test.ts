/**
 * The compact time series: rows read back exactly as pushed (order, epochs, every double), over chunk boundaries
 * and past 65,536 metric names; a metric's points in one pass; the CSV made from it the same as from row objects.
 */
import { describe, expect, it } from "vitest"
import { csvNumber, renderTimeseriesCsv, reportDifferences, timeseriesCsvChunks } from "../report/report.ts"
import type { RunReport } from "../report/report.ts"
import { EpochSeries, type SeriesRow, Timeseries, type TimeseriesRow } from "./timeseries.ts"

/** Rows of `epochs` epochs, each with the metrics its number picks (some epochs lack some), values of every kind. */
const sampleRows = (epochs: number, first = 500_000): TimeseriesRow[] => {
  const values = [0, -0, 1, 0.1 + 0.2, 677.6999999999999, 1e-9, -12.5, 2 ** 53 + 2, Number.MAX_VALUE, Number.MIN_VALUE, 1 / 3]
  const rows: TimeseriesRow[] = []
  for (let e = 0; e < epochs; e++) {
    for (let m = 0; m < 9; m++) {
      if ((e + m) % 5 === 0 && m > 2) continue
      rows.push({ epoch: first + e, metric: m < 3 ? `m${m}` : `queue.${m}`, value: values[(e * 7 + m) % values.length]! })
    }
  }
  return rows
}

describe("EpochSeries", () => {
  it("reads its rows back as pushed: order, epochs and the exact doubles (-0 included), across chunks of 65,536 rows", () => {
    const rows = sampleRows(20_000)
    expect(rows.length).toBeGreaterThan(2 * 65_536)
    const series = EpochSeries.fromRows(rows)
    expect(series.length).toBe(rows.length)
    expect(series.epochCount).toBe(20_000)
    // (toEqual tells -0 from 0.)
    expect([...series.rows()]).toEqual(rows)
    // In the order they first appear: epoch 0 has no queue.5.
    expect(series.metricNames).toEqual(["m0", "m1", "m2", "queue.3", "queue.4", "queue.6", "queue.7", "queue.8", "queue.5"])
  })

  it("keeps the rows' order as given: an epoch number again later is another epoch, and an epoch may have no rows", () => {
    const series = new EpochSeries()
    series.beginEpoch(7)
    series.beginEpoch(8)
    series.push("a", 1)
    series.push("b", 2)
    series.beginEpoch(9)
    series.beginEpoch(10)
    series.push("a", 3)
    series.pushRow(8, "b", 4)
    series.pushRow(8, "a", 5)
    expect(series.epochCount).toBe(5)
    expect([...series.rows()]).toEqual([
      { epoch: 8, metric: "a", value: 1 },
      { epoch: 8, metric: "b", value: 2 },
      { epoch: 10, metric: "a", value: 3 },
      { epoch: 8, metric: "b", value: 4 },
      { epoch: 8, metric: "a", value: 5 },
    ])
    const seen: [number, number][] = []
    series.forEachValue("a", (epoch, value) => void seen.push([epoch, value]))
    expect(seen).toEqual([[8, 1], [10, 3], [8, 5]])
    series.forEachValue("absent", () => expect.unreachable())
    expect(() => new EpochSeries().push("a", 1)).toThrow(/before any beginEpoch/)
  })

  it("scans any range of rows with each row's epoch, from inside an epoch and across chunks", () => {
    const rows = sampleRows(16_000)
    const series = EpochSeries.fromRows(rows)
    for (const [from, to] of [[0, 10], [65_530, 65_545], [65_536, 131_072], [rows.length - 3, rows.length + 10], [17, 17]] as const) {
      const got: TimeseriesRow[] = []
      series.scan(from, to, (epoch, id, value) => void got.push({ epoch, metric: series.metricNames[id]!, value }))
      expect(got, `${from}..${to}`).toEqual(rows.slice(from, to))
    }
  })

  it("gives a chart's metrics as columns of epochs and values in one pass, in the rows' order", () => {
    const rows = sampleRows(70_000)
    const series = EpochSeries.fromRows(rows)
    const columns = series.columns(["queue.5", "m1", "absent", "queue.5"])
    expect([...columns.keys()]).toEqual(["queue.5", "m1"])
    for (const metric of ["queue.5", "m1"]) {
      const own = rows.filter((r) => r.metric === metric)
      const column = columns.get(metric)!
      expect(column.epochs.length).toBe(own.length)
      expect(Array.from(column.epochs)).toEqual(own.map((r) => r.epoch))
      expect(Array.from(column.values)).toEqual(own.map((r) => r.value))
    }
    expect(series.columns(["absent"]).size).toBe(0)
  })

  it("takes more than 65,536 metric names: the ids widen to 32 bits, the rows before unchanged", () => {
    const series = new EpochSeries()
    series.beginEpoch(1)
    const names = Array.from({ length: 70_000 }, (_, i) => `m${i}`)
    names.forEach((name, i) => series.push(name, i))
    series.beginEpoch(2)
    series.push("m65535", -1)
    series.push("m69999", -2)
    series.push("m0", -3)
    const rows = [...series.rows()]
    expect(rows.length).toBe(70_003)
    expect(rows[65_535]).toEqual({ epoch: 1, metric: "m65535", value: 65_535 })
    expect(rows[65_536]).toEqual({ epoch: 1, metric: "m65536", value: 65_536 })
    expect(rows.slice(-3)).toEqual([
      { epoch: 2, metric: "m65535", value: -1 },
      { epoch: 2, metric: "m69999", value: -2 },
      { epoch: 2, metric: "m0", value: -3 },
    ])
    expect(Array.from(series.columns(["m69999"]).get("m69999")!.values)).toEqual([69_999, -2])
  })
})

describe("Timeseries", () => {
  it("gives its rows with the run and seed, and refuses rows of several runs", () => {
    const rows: SeriesRow[] = sampleRows(3).map((r) => ({ run: 2, seed: 9, ...r }))
    const timeseries = Timeseries.fromRows(rows)
    expect([timeseries.run, timeseries.seed, timeseries.length]).toEqual([2, 9, rows.length])
    expect(timeseries.toArray()).toEqual(rows)
    expect(Timeseries.fromRows([]).toArray()).toEqual([])
    expect(() => Timeseries.fromRows([...rows, { ...rows[0]!, seed: 10 }])).toThrow(/rows of several runs \(run 2 seed 9, run 2 seed 10\)/)
  })

  it("writes the timeseries.csv that rows written one by one make, in the same pieces", () => {
    const rows: SeriesRow[] = sampleRows(15_000).map((r) => ({ run: 0, seed: 1, ...r }))
    const timeseries = new Timeseries(0, 1, EpochSeries.fromRows(rows))
    const expected = `run,seed,epoch,metric,value\n${rows.map((r) => `${r.run},${r.seed},${r.epoch},${r.metric},${csvNumber(r.value)}\n`).join("")}`
    expect(renderTimeseriesCsv(timeseries)).toBe(expected)
    expect([...timeseriesCsvChunks(timeseries)].map((p) => p.split("\n").length - 1)).toEqual([1, 50_000, 50_000, rows.length - 100_000])
    // NaN and the infinities (never in a run's series) as String writes them.
    expect(renderTimeseriesCsv([{ run: 0, seed: 1, epoch: 3, metric: "x", value: Number.NaN }, { run: 0, seed: 1, epoch: 3, metric: "x", value: Number.NaN }, { run: 0, seed: 1, epoch: 4, metric: "x", value: -Infinity }])).toBe(
      "run,seed,epoch,metric,value\n0,1,3,x,NaN\n0,1,3,x,NaN\n0,1,4,x,-Infinity\n",
    )
  })

  it("is compared row by row as the rows' JSON was: -0 is 0, a changed value, metric, epoch or seed differs", () => {
    const report = { wallSeconds: 1 } as unknown as RunReport
    const rows: SeriesRow[] = sampleRows(50).map((r) => ({ run: 0, seed: 1, ...r }))
    const same = (other: readonly SeriesRow[]) => reportDifferences(report, Timeseries.fromRows(rows), report, Timeseries.fromRows(other)).length === 0
    expect(same(rows.map((r) => ({ ...r })))).toBe(true)
    expect(same(rows.map((r) => (Object.is(r.value, -0) ? { ...r, value: 0 } : r)))).toBe(true)
    expect(same(rows.map((r, i) => (i === 40 ? { ...r, value: r.value + 1 } : r)))).toBe(false)
    expect(same(rows.map((r, i) => (i === 40 ? { ...r, metric: "other" } : r)))).toBe(false)
    expect(same(rows.map((r, i) => (i === 40 ? { ...r, epoch: r.epoch + 1 } : r)))).toBe(false)
    expect(same(rows.map((r) => ({ ...r, seed: 2 })))).toBe(false)
    expect(same(rows.slice(1))).toBe(false)
  })
})
