/**
 * The fleet table's sparklines (server side): every instance's trend of one catalog signal over the
 * page's time range, read with one fleet-wide range query (@untorn/fleet/trends) and drawn here as SVG
 * paths, so the browser gets a path and a label per row of its page, never the series.
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
import { type FleetTrends, fleetTrends, TREND_POINTS, TREND_SIGNAL } from "@untorn/fleet/trends";
import { type Env, env } from "../../env.js";
import { errorMessage } from "../../lib/format.js";
import { redactForReaders } from "../../lib/redact.js";
import {
  type PageTrends,
  SPARKLINE,
  sparklineLabel,
  sparklinePath,
  type TrendCell,
  type TrendState,
} from "../../lib/sparkline.js";
import { type ChartWindow, chartWindow } from "./instance.js";
import { type ResolvedSource, readSource } from "./source.js";

interface Entry {
  readonly trends: FleetTrends;
  readonly expiresAt: number;
}

interface State {
  /** By `<source key>|<range key>`: the latest trends read (served stale when a fresh read fails). */
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

async function readTrends(src: ResolvedSource, w: ChartWindow, e: Env): Promise<FleetTrends> {
  const key = `${src.key}|${w.key}`;
  const cached = state.cache.get(key);
  if (cached && cached.expiresAt > Date.now()) return cached.trends;
  const flight = `${key}|${w.start}|${w.end}|${w.step}`;
  let p = state.inflight.get(flight);
  if (!p) {
    p = fleetTrends(src.api!, w, {
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

function cellsOf(t: FleetTrends, instances: readonly string[], what: string): Record<string, TrendCell> {
  const out: Record<string, TrendCell> = {};
  for (const instance of instances) {
    const trend = t.byInstance.get(instance);
    if (!trend) continue;
    const scale = { start: t.start, end: t.end, low: Math.min(0, trend.min), high: trend.peak[1] };
    out[instance] = {
      d: sparklinePath(trend.segments, scale, SPARKLINE),
      label: sparklineLabel({
        what,
        unit: t.unit,
        spanSeconds: t.end - t.start,
        first: trend.first[1],
        last: trend.last[1],
        peak: trend.peak[1],
      }),
    };
  }
  return out;
}

/**
 * The sparklines of `instances` (a page of the table) over `range` (null: the page's default). Never
 * throws: a failing source, a recording without the series or no source at all is a state with a note.
 */
export async function getPageTrends(
  range: string | null,
  instances: readonly string[],
  e: Env = env(),
): Promise<PageTrends> {
  const s = signals[TREND_SIGNAL];
  const what = s.title;
  const none = (st: TrendState, note: string | null, w: ChartWindow | null = null): PageTrends => ({
    state: st,
    note,
    what,
    unit: s.unit,
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
    const t = await readTrends(src, w, e);
    return { ...none("ok", null, w), cells: cellsOf(t, instances, what) };
  } catch (err) {
    if (err instanceof ReplayMissError)
      return none("not-recorded", `this recording holds no ${what.toLowerCase()} series for the range`, w);
    const note = redactForReaders(errorMessage(err));
    const last = state.cache.get(`${src.key}|${w.key}`)?.trends;
    if (last) return { ...none("stale", note, w), cells: cellsOf(last, instances, what) };
    return none("unavailable", note, w);
  }
}

/** Forgets every trend read (tests). */
export function resetTrends(): void {
  state.cache.clear();
  state.inflight.clear();
}
