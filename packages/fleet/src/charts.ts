/**
 * Range series of one instance's write path for the web app's charts: doublewrite vs data pages written,
 * misc (≈fsync) latency per file class, device write IOPS and utilisation, transactions and fsyncs.
 * Each series is one catalog signal; a chart query for the whole fleet is the same text without the
 * instance selector (record.ts uses that to capture every instance's charts in a few requests).
 */
import type { Selector } from "@untorn/catalog/promql";
import { rateWindowSeconds } from "@untorn/catalog/rate-window";
import type { SignalId } from "@untorn/catalog/signals";
import { signals } from "@untorn/catalog/signals";
import type { Point } from "@untorn/prom/result";
import { CountingApi, mapLimit, type PromQueryApi } from "./api.js";
import { durationSeconds, type FleetSource, instanceSelector } from "./plan.js";

export interface ChartDef {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  readonly series: readonly { readonly name: string; readonly signal: SignalId }[];
  /** Result label that names one series per value (e.g. the file class). */
  readonly splitBy?: string;
}

/** A chart of one catalog signal, with the signal's title and unit. */
function signalChart(id: string, signal: SignalId, name: string, splitBy?: string): ChartDef {
  const { title, unit } = signals[signal];
  return { id, title, unit, series: [{ name, signal }], ...(splitBy ? { splitBy } : {}) };
}

export const CHARTS: readonly ChartDef[] = [
  {
    id: "write-path",
    title: "Doublewrite vs data pages written",
    unit: "pages/s",
    series: [
      { name: "doublewrite pages", signal: "doublewrite_pages_per_second" },
      { name: "data pages flushed", signal: "data_pages_flushed_per_second" },
    ],
  },
  signalChart("fsync-latency", "file_misc_latency_seconds", "misc latency", "class"),
  signalChart("device-write-iops", "device_write_iops", "write IOPS"),
  signalChart("device-utilisation", "device_utilisation", "utilisation"),
  signalChart("transactions", "transactions_per_second", "transactions"),
  signalChart("fsyncs", "fsyncs_per_second", "fsyncs"),
];

/**
 * What a rollout page draws for canary vs control over a rollout (per-transaction efficiency, replication
 * lag, the doublewrite mode read-back). Not drawn on the instance page; recorded beside CHARTS so a
 * recorded fleet's rollouts can be charted from the replay (record.ts).
 */
export const ROLLOUT_CHARTS: readonly ChartDef[] = [
  signalChart("write-bytes-per-transaction", "write_bytes_per_transaction", "write bytes per transaction"),
  signalChart("write-ops-per-transaction", "write_ops_per_transaction", "write ops per transaction"),
  signalChart("fsyncs-per-transaction", "fsyncs_per_transaction", "fsyncs per transaction"),
  signalChart("replication-lag", "replication_lag_seconds", "replication lag"),
  signalChart("doublewrite-mode", "doublewrite_mode", "doublewrite mode", "mode"),
];

/**
 * Series the fleet table's sparklines read beside CHARTS' (@untorn/fleet/trends), drawn nowhere else:
 * doublewrite's share of the device's write bytes and of InnoDB's own, the two bases of the table's
 * DW share column. Recorded fleet-wide only (record.ts), as a sparkline reads them.
 */
export const TREND_CHARTS: readonly ChartDef[] = [
  signalChart(
    "doublewrite-device-share",
    "device_doublewrite_bytes_share",
    "doublewrite share of device writes",
  ),
  signalChart(
    "doublewrite-innodb-share",
    "doublewrite_write_bytes_share",
    "doublewrite share of InnoDB writes",
  ),
];

export interface ChartRange {
  /** Unix seconds. */
  readonly start: number;
  readonly end: number;
  /** Seconds between points. */
  readonly step: number;
  /** rate() window; default max(2 × step, 1m), at most the range. */
  readonly rateWindow?: string;
  readonly source?: FleetSource;
}

export interface ChartQuery {
  readonly chart: string;
  readonly name: string;
  readonly expr: string;
}

/** Default rate() window for points `step` seconds apart: the catalog's rule (rateWindowSeconds). */
export function chartRateWindow(range: ChartRange): string {
  if (range.rateWindow) {
    durationSeconds(range.rateWindow);
    return range.rateWindow;
  }
  const span = Math.max(1, Math.floor(range.end - range.start));
  return `${rateWindowSeconds(range.step, { spanSeconds: span })}s`;
}

/** The chart queries for a selector (an instance, or {} for the whole fleet); `defs` default CHARTS. */
export function chartQueries(
  selector: Selector,
  range: ChartRange,
  defs: readonly ChartDef[] = CHARTS,
): ChartQuery[] {
  const window = chartRateWindow(range);
  return defs.flatMap((c) =>
    c.series.map((s) => ({
      chart: c.id,
      name: s.name,
      expr: signals[s.signal].expr({ selector, window, source: range.source ?? "any" }),
    })),
  );
}

export interface ChartSeries {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly points: readonly Point[];
}

export interface Chart {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  /** Empty when the instance has no data for the chart (missing, not zero). */
  readonly series: readonly ChartSeries[];
}

export interface InstanceCharts {
  readonly instance: string;
  readonly start: number;
  readonly end: number;
  readonly step: number;
  readonly rateWindow: string;
  readonly charts: readonly Chart[];
  readonly queries: number;
  readonly warnings: readonly string[];
}

function checkRange(r: ChartRange): void {
  if (!(Number.isFinite(r.start) && Number.isFinite(r.end) && r.end >= r.start))
    throw new RangeError(`chart range needs start ≤ end, got ${r.start}..${r.end}`);
  if (!(r.step > 0)) throw new RangeError(`chart step must be > 0 seconds, got ${r.step}`);
}

/** Range series of one instance for CHARTS (one request per series, whatever the fleet size). */
export async function instanceCharts(
  api: PromQueryApi,
  instance: string,
  range: ChartRange,
  defs: readonly ChartDef[] = CHARTS,
): Promise<InstanceCharts> {
  checkRange(range);
  const counting = new CountingApi(api);
  const queries = chartQueries(instanceSelector(instance), range, defs);
  const warnings = new Set<string>();
  const answers = await mapLimit(queries, 4, async (q) => {
    const a = await counting.queryRange(q.expr, { start: range.start, end: range.end, step: range.step });
    for (const w of a.warnings) warnings.add(w);
    return a.data;
  });
  const charts: Chart[] = defs.map((c) => {
    const series: ChartSeries[] = [];
    queries.forEach((q, i) => {
      if (q.chart !== c.id) return;
      for (const m of answers[i] ?? []) {
        if (m.labels.instance !== instance) continue;
        const split = c.splitBy ? m.labels[c.splitBy] : undefined;
        series.push({ name: split ?? q.name, labels: m.labels, points: m.points });
      }
    });
    if (c.splitBy) series.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    return { id: c.id, title: c.title, unit: c.unit, series };
  });
  return {
    instance,
    start: range.start,
    end: range.end,
    step: range.step,
    rateWindow: chartRateWindow(range),
    charts,
    queries: counting.count,
    warnings: [...warnings],
  };
}
