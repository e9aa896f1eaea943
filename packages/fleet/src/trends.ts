/**
 * Per-instance trends for the fleet table's sparklines: one catalog signal (TREND_SIGNAL, doublewrite
 * pages written per second, unless another of TREND_SIGNALS is asked for) over the whole fleet in one
 * range query, whatever the fleet size. The query is a recorded chart series (the instance page's, as
 * "Doublewrite vs data pages written", or one of TREND_CHARTS) without the instance selector, the same
 * text record.ts files fleet-wide, so a replay answers it from what it already holds and the sparkline
 * shows the numbers the instance page charts.
 */
import type { Selector } from "@untorn/catalog/promql";
import type { SignalId } from "@untorn/catalog/signals";
import { signals } from "@untorn/catalog/signals";
import type { Point } from "@untorn/prom/result";
import type { PromQueryApi } from "./api.js";
import {
  CHARTS,
  type ChartDef,
  type ChartRange,
  chartQueries,
  chartRateWindow,
  TREND_CHARTS,
} from "./charts.js";

/** The figure a DBA scans the fleet for: what doublewrite writes, in pages/s. */
export const TREND_SIGNAL = "doublewrite_pages_per_second" satisfies SignalId;

/**
 * The signals a sparkline may draw: doublewrite pages/s, the device's utilisation (the write pressure the
 * advisor weighs), and doublewrite's share of the device's and of InnoDB's write bytes (the table's DW
 * share on each of its bases).
 */
export const TREND_SIGNALS = [
  TREND_SIGNAL,
  "device_utilisation",
  "device_doublewrite_bytes_share",
  "doublewrite_write_bytes_share",
] as const satisfies readonly SignalId[];
export type TrendSignal = (typeof TREND_SIGNALS)[number];

/** Points a sparkline keeps, about one per pixel of its width (and, live, about as many steps asked for). */
export const TREND_POINTS = 48;

/** The recorded chart that plots `signal`, reduced to that one series. */
function trendChart(signal: TrendSignal): ChartDef {
  for (const c of [...CHARTS, ...TREND_CHARTS]) {
    const s = c.series.find((x) => x.signal === signal);
    if (s) return { id: c.id, title: c.title, unit: signals[signal].unit, series: [s] };
  }
  throw new Error(`no recorded chart plots ${signal}`);
}

/** The fleet-wide range query of `signal`'s trend for `selector` ({} or the plan's, never one instance's). */
export function trendQuery(
  selector: Selector,
  range: ChartRange,
  signal: TrendSignal = TREND_SIGNAL,
): string {
  return chartQueries(selector, range, [trendChart(signal)])[0]!.expr;
}

/** One instance's trend: the sparkline's points and the figures its label gives. */
export interface Trend {
  /** Runs of points with no gap longer than two steps, each downsampled; at least one point each. */
  readonly segments: readonly (readonly Point[])[];
  /** Of every point of the range (not only the kept ones): the first, last, highest and lowest value. */
  readonly first: Point;
  readonly last: Point;
  readonly peak: Point;
  readonly min: number;
  /** Points the range held for the instance, before downsampling. */
  readonly points: number;
}

export interface FleetTrends {
  readonly signal: TrendSignal;
  readonly unit: string;
  readonly query: string;
  readonly start: number;
  readonly end: number;
  readonly step: number;
  readonly rateWindow: string;
  /** Instances with at least one finite value in the range. */
  readonly byInstance: ReadonlyMap<string, Trend>;
  readonly warnings: readonly string[];
}

/**
 * Trends of every instance over `range` from one range query (of TREND_SIGNAL unless `signal` says). Throws what the api throws (a replay's
 * ReplayMissError when the recording holds no such series).
 */
export async function fleetTrends(
  api: PromQueryApi,
  range: ChartRange,
  opts: { readonly selector?: Selector; readonly points?: number; readonly signal?: TrendSignal } = {},
): Promise<FleetTrends> {
  if (!(range.end > range.start))
    throw new RangeError(`trend range needs start < end, got ${range.start}..${range.end}`);
  if (!(range.step > 0)) throw new RangeError(`trend step must be > 0 seconds, got ${range.step}`);
  const signal = opts.signal ?? TREND_SIGNAL;
  const query = trendQuery(opts.selector ?? {}, range, signal);
  const a = await api.queryRange(query, { start: range.start, end: range.end, step: range.step });
  const byInstance = new Map<string, Trend>();
  for (const s of a.data) {
    const instance = s.labels["instance"];
    if (instance === undefined) continue;
    const t = trendOf(s.points, range.step, opts.points ?? TREND_POINTS);
    if (t) byInstance.set(instance, t);
  }
  return {
    signal,
    unit: signals[signal].unit,
    query,
    start: range.start,
    end: range.end,
    step: range.step,
    rateWindow: chartRateWindow(range),
    byInstance,
    warnings: a.warnings,
  };
}

/**
 * A series' trend: its finite points split where more than two steps are missing (a gap is drawn as a
 * gap, never bridged), each run downsampled to its share of `maxPoints`. Null when no value is finite.
 */
export function trendOf(
  points: readonly Point[],
  step: number,
  maxPoints: number = TREND_POINTS,
): Trend | null {
  const finite = points.filter((p) => Number.isFinite(p[1])).sort((a, b) => a[0] - b[0]);
  if (finite.length === 0) return null;
  const runs: Point[][] = [];
  for (const p of finite) {
    const run = runs.at(-1);
    if (run && p[0] - run.at(-1)![0] <= 2 * step + 1e-9) run.push(p);
    else runs.push([p]);
  }
  const first = finite[0]!;
  let peak = first;
  let min = first[1];
  for (const p of finite) {
    if (p[1] > peak[1]) peak = p;
    if (p[1] < min) min = p[1];
  }
  const budget = Math.max(maxPoints, 3 * runs.length);
  const segments = runs.map((r) =>
    downsample(r, Math.max(3, Math.round((budget * r.length) / finite.length))),
  );
  return { segments, first, last: finite.at(-1)!, peak, min, points: finite.length };
}

/**
 * Largest-Triangle-Three-Buckets downsampling (S. Steinarsson, "Downsampling Time Series for Visual
 * Representation", University of Iceland, 2013, §4.2): keeps the first and last points and, from each of
 * `threshold − 2` equal buckets between them, the point forming the largest triangle with the point kept
 * before it and the next bucket's mean, so the line keeps its shape. One change: the bucket holding the
 * series' highest value keeps that point, so a sparkline never draws below the peak its label gives.
 * Returns the points unchanged when there are no more than `threshold` (or `threshold` < 3).
 *
 *   downsample([[0, 1], [1, 5], [2, 2], [3, 2], [4, 1]], 3) → [[0, 1], [1, 5], [4, 1]]
 */
export function downsample(points: readonly Point[], threshold: number): Point[] {
  const n = points.length;
  if (threshold >= n || threshold < 3) return [...points];
  let peakAt = 0;
  for (let i = 1; i < n; i++) if (points[i]![1] > points[peakAt]![1]) peakAt = i;
  const out: Point[] = [points[0]!];
  const every = (n - 2) / (threshold - 2);
  let a = 0;
  for (let i = 0; i < threshold - 2; i++) {
    const nextFrom = Math.floor((i + 1) * every) + 1;
    const nextTo = Math.min(Math.floor((i + 2) * every) + 1, n);
    let avgT = 0;
    let avgV = 0;
    for (let j = nextFrom; j < nextTo; j++) {
      avgT += points[j]![0];
      avgV += points[j]![1];
    }
    const count = Math.max(1, nextTo - nextFrom);
    avgT /= count;
    avgV /= count;
    const from = Math.floor(i * every) + 1;
    const to = Math.floor((i + 1) * every) + 1;
    const [at, av] = points[a]!;
    let chosen = from;
    if (peakAt >= from && peakAt < to) chosen = peakAt;
    else {
      let best = -1;
      for (let j = from; j < to; j++) {
        const [t, v] = points[j]!;
        const area = Math.abs((at - avgT) * (v - av) - (at - t) * (avgV - av));
        if (area > best) {
          best = area;
          chosen = j;
        }
      }
    }
    out.push(points[chosen]!);
    a = chosen;
  }
  out.push(points[n - 1]!);
  return out;
}
