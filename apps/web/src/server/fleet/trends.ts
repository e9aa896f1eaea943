/**
 * The fleet table's sparklines (server side): every instance's trend of the figure the table's trend
 * column shows (`?trend=`: doublewrite pages/s, DW share, device busy) over the page's time range, read
 * with one fleet-wide range query per catalog signal (@untorn/fleet/trends) and drawn here as SVG paths,
 * so the browser gets a path and a label per row of its page, never the series.
 *
 * - DW share plots, per row, the signal of the basis the row's DW share column gives: doublewrite's
 *   share of the device's write bytes, or of InnoDB's own where the device is unknown or shared (two
 *   queries, one per basis, whatever the fleet size). Ratios are drawn on a fixed 0–100% scale, so a
 *   line's height compares across rows; other figures from 0 to the row's peak.
 *
 * - Live: the range asked for (default UNTORN_WINDOW) ending on the same 15 s boundary as the instance
 *   charts, at a step of at least range / TREND_POINTS (at most that many points per instance, however
 *   large the fleet); cached for UNTORN_CACHE_SECONDS, one read in flight per range, the last good one
 *   served marked stale while Prometheus fails.
 * - Recorded: the instance charts' recorded fleet-wide series at their recorded step, over the range asked
 *   for (default the recording's window) within the recorded span; a recording without chart series says
 *   so instead of drawing anything.
 */
import "server-only";
import { signals } from "@untorn/catalog/signals";
import { ReplayMissError } from "@untorn/fleet/replay";
import {
  type FleetTrends,
  fleetTrends,
  TREND_POINTS,
  TREND_SIGNAL,
  type TrendSignal,
} from "@untorn/fleet/trends";
import type { ShareBasis } from "@untorn/vocabulary/words";
import { type Env, env } from "../../env.js";
import { errorMessage } from "../../lib/format.js";
import { redactForReaders } from "../../lib/redact.js";
import {
  type PageTrends,
  SPARKLINE,
  sparklineLabel,
  sparklinePath,
  type TrendCell,
  type TrendKey,
  type TrendState,
} from "../../lib/sparkline.js";
import { type ChartWindow, chartWindow } from "./instance.js";
import { type ResolvedSource, readSource } from "./source.js";

interface Entry {
  readonly trends: FleetTrends;
  readonly expiresAt: number;
}

interface State {
  /** By `<source key>|<range key>|<signal>`: the latest trends read (served stale when a fresh read fails). */
  readonly cache: Map<string, Entry>;
  readonly inflight: Map<string, Promise<FleetTrends>>;
}

const shared = globalThis as { __untornTrends?: State };
shared.__untornTrends ??= { cache: new Map(), inflight: new Map() };
const state: State = shared.__untornTrends;
const MAX_ENTRIES = 16;

/** The window the trends cover: the instance charts' for the range, coarser on a live source. */
export function trendWindow(src: ResolvedSource, range: string | null, e: Env): ChartWindow | null {
  const key = range ?? (src.replay ? src.replay.window : e.UNTORN_WINDOW);
  const w = chartWindow(src, key).range;
  if (!w || src.replay) return w;
  return { ...w, step: Math.max(w.step, Math.ceil((w.end - w.start) / TREND_POINTS)) };
}

const cacheKey = (src: ResolvedSource, w: ChartWindow, signal: TrendSignal) =>
  `${src.key}|${w.key}|${signal}`;

async function readTrends(
  src: ResolvedSource,
  w: ChartWindow,
  signal: TrendSignal,
  e: Env,
): Promise<FleetTrends> {
  const key = cacheKey(src, w, signal);
  const cached = state.cache.get(key);
  if (cached && cached.expiresAt > Date.now()) return cached.trends;
  const flight = `${key}|${w.start}|${w.end}|${w.step}`;
  let p = state.inflight.get(flight);
  if (!p) {
    p = fleetTrends(src.api!, w, {
      signal,
      ...(src.replay ? { selector: src.replay.plan.selector } : {}),
    }).finally(() => state.inflight.delete(flight));
    state.inflight.set(flight, p);
  }
  const trends = await p;
  const ttl = src.info.kind === "live" ? e.UNTORN_CACHE_SECONDS * 1000 : Number.POSITIVE_INFINITY;
  state.cache.delete(key);
  state.cache.set(key, { trends, expiresAt: Date.now() + ttl });
  while (state.cache.size > MAX_ENTRIES) state.cache.delete(state.cache.keys().next().value!);
  return trends;
}

/** The signal `trend` plots for an instance whose DW share rests on `basis` (device when unknown). */
function signalFor(trend: TrendKey, basis: ShareBasis | null | undefined): TrendSignal {
  if (trend === "busy") return "device_utilisation";
  if (trend === "dw-pages") return TREND_SIGNAL;
  return basis === "innodb" || basis === "shared-device"
    ? "doublewrite_write_bytes_share"
    : "device_doublewrite_bytes_share";
}

function cellOf(t: FleetTrends, instance: string): TrendCell | null {
  const trend = t.byInstance.get(instance);
  if (!trend) return null;
  const high = t.unit === "ratio" ? Math.max(1, trend.peak[1]) : trend.peak[1];
  const scale = { start: t.start, end: t.end, low: Math.min(0, trend.min), high };
  return {
    d: sparklinePath(trend.segments, scale, SPARKLINE),
    label: sparklineLabel({
      what: signals[t.signal].title,
      unit: t.unit,
      spanSeconds: t.end - t.start,
      first: trend.first[1],
      last: trend.last[1],
      peak: trend.peak[1],
    }),
  };
}

/** Each instance's cell from the trends of the signal it plots (instances without a value left out). */
function cellsOf(
  bySignal: ReadonlyMap<TrendSignal, FleetTrends>,
  instances: readonly string[],
  signalOf: (instance: string) => TrendSignal,
): Record<string, TrendCell> {
  const out: Record<string, TrendCell> = {};
  for (const instance of instances) {
    const t = bySignal.get(signalOf(instance));
    const cell = t && cellOf(t, instance);
    if (cell) out[instance] = cell;
  }
  return out;
}

/** Which trend a page draws, and (for DW share) the basis of each row's DW share column. */
export interface TrendRequest {
  readonly key: TrendKey;
  readonly bases?: Readonly<Record<string, ShareBasis | null>>;
}

/**
 * The sparklines of `instances` (a page of the table) over `range` (null: the page's default). Never
 * throws: a failing source, a recording without the series or no source at all is a state with a note.
 */
export async function getPageTrends(
  range: string | null,
  instances: readonly string[],
  e: Env = env(),
  request: TrendRequest = { key: "dw-pages" },
): Promise<PageTrends> {
  const trend = request.key;
  // One figure's name for the page: DW share's rows plot one of two signals.
  const what = trend === "dw-share" ? "Doublewrite share" : signals[signalFor(trend, null)].title;
  const signalOf = (instance: string) => signalFor(trend, request.bases?.[instance]);
  const wanted = [...new Set(instances.map(signalOf))];
  const unit = signals[wanted[0] ?? signalFor(trend, null)].unit;
  const none = (st: TrendState, note: string | null, w: ChartWindow | null = null): PageTrends => ({
    state: st,
    note,
    trend,
    what,
    unit,
    spanSeconds: w ? w.end - w.start : null,
    stepSeconds: w ? w.step : null,
    cells: {},
  });
  const src = await readSource(e);
  if (!src.api) return none("no-source", null);
  const w = trendWindow(src, range, e);
  if (!w)
    return none(
      src.replay ? "not-recorded" : "unavailable",
      src.replay ? "this recording holds no chart series to draw trends from" : "no time range",
    );
  try {
    const read = await Promise.all(
      wanted.map(async (sig) => [sig, await readTrends(src, w, sig, e)] as const),
    );
    return { ...none("ok", null, w), cells: cellsOf(new Map(read), instances, signalOf) };
  } catch (err) {
    if (err instanceof ReplayMissError)
      return none("not-recorded", `this recording holds no ${what.toLowerCase()} series for the range`, w);
    const note = redactForReaders(errorMessage(err));
    const last = new Map<TrendSignal, FleetTrends>();
    for (const sig of wanted) {
      const kept = state.cache.get(cacheKey(src, w, sig))?.trends;
      if (kept) last.set(sig, kept);
    }
    if (last.size) return { ...none("stale", note, w), cells: cellsOf(last, instances, signalOf) };
    return none("unavailable", note, w);
  }
}

/** Forgets every trend read (tests). */
export function resetTrends(): void {
  state.cache.clear();
  state.inflight.clear();
}
