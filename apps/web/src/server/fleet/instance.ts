/**
 * The instance page's reads, over the fleet read data.ts caches: one instance's facts, advice and
 * metadata from the fleet snapshot (getInstance), and its charts over a time range (getInstanceCharts).
 */
import "server-only";
import type { Advice } from "@untorn/advisor/advise";
import type { InstanceFacts } from "@untorn/advisor/facts";
import { type InstanceCharts, instanceCharts } from "@untorn/fleet/charts";
import type { ExporterPresence } from "@untorn/fleet/facts";
import type { FleetMetadata } from "@untorn/fleet/metadata";
import { instanceAdvice } from "@untorn/fleet/pipeline";
import { TIME_RANGE_PRESETS } from "@untorn/prom/duration";
import type { InstanceMetadata } from "@untorn/store/store";
import { type Env, env } from "../../env.js";
import type { FleetRow } from "../../lib/fleet-row.js";
import { errorMessage } from "../../lib/format.js";
import { type RangeKey, rangeSeconds } from "../../lib/ranges.js";
import { chartCache, getFleetView, type Snapshot, type Status } from "./data.js";
import { type ResolvedSource, readSource, type SourceInfo } from "./source.js";

export interface InstanceView {
  readonly source: SourceInfo;
  readonly status: Status;
  readonly instance: string;
  readonly at: number;
  readonly window: string;
  /** Facts with the stored metadata overlaid: what the advisor saw. */
  readonly facts: InstanceFacts;
  readonly measured: InstanceFacts;
  readonly advice: Advice;
  readonly row: FleetRow;
  readonly missing: readonly string[];
  readonly exporters: ExporterPresence;
  readonly metadata: InstanceMetadata | null;
  /** The declared metadata file's entry for the instance, and the file's name (null: none). */
  readonly declaredMetadata: { readonly file: string; readonly entry: FleetMetadata } | null;
  readonly declared: readonly string[];
  readonly conflicts: readonly string[];
  readonly storeProblem: string | null;
}

export type InstanceLookup =
  | { readonly kind: "found"; readonly view: InstanceView }
  | {
      readonly kind: "skipped";
      readonly source: SourceInfo;
      readonly status: Status;
      readonly reason: string;
    }
  | { readonly kind: "not-found"; readonly source: SourceInfo; readonly status: Status }
  | { readonly kind: "unavailable"; readonly source: SourceInfo; readonly status: Status };

function declaredEntry(snap: Snapshot, instance: string): InstanceView["declaredMetadata"] {
  const entry = snap.declaredMeta.get(instance);
  return entry && snap.declared ? { file: snap.declared.file, entry } : null;
}

export async function getInstance(
  instance: string,
  e: Env = env(),
  range: string | null = null,
): Promise<InstanceLookup> {
  const fleet = await getFleetView(e, range);
  const snap = fleet.snapshot;
  if (!snap) return { kind: "unavailable", source: fleet.source, status: fleet.status };
  const merged = snap.merged.get(instance);
  const measured = snap.measured.get(instance);
  const row = fleet.rows.find((r) => r.instance === instance);
  // The snapshot keeps only what the fleet pages read: this instance's full advice is advised again.
  const advised = merged && measured && row ? instanceAdvice(snap, instance) : null;
  if (!advised || !merged || !measured || !row) {
    const skipped = snap.skipped.find((s) => s.instance === instance);
    if (skipped)
      return { kind: "skipped", source: fleet.source, status: fleet.status, reason: skipped.reason };
    return { kind: "not-found", source: fleet.source, status: fleet.status };
  }
  if ("failed" in advised)
    return { kind: "skipped", source: fleet.source, status: fleet.status, reason: advised.failed };
  const advice = advised.advice;
  return {
    kind: "found",
    view: {
      source: fleet.source,
      status: fleet.status,
      instance,
      at: snap.at,
      window: snap.window,
      facts: merged.facts,
      measured,
      advice,
      row,
      missing: snap.missing[instance] ?? [],
      exporters: snap.exporters[instance] ?? { untorn: false, mysqldExporter: false },
      metadata: snap.metadata.get(instance) ?? null,
      declaredMetadata: declaredEntry(snap, instance),
      declared: merged.declared,
      conflicts: merged.conflicts,
      storeProblem: snap.storeProblem,
    },
  };
}

// ---- charts ----

export interface ChartWindow {
  /** A preset, `all`, or the custom duration asked for. */
  readonly key: string;
  readonly start: number;
  readonly end: number;
  readonly step: number;
}

/** About 240 points per chart; the end on a 15 s boundary so views within one scrape interval agree. */
function liveWindow(key: string, now: number): ChartWindow {
  const seconds = rangeSeconds(key);
  const step = Math.max(2, Math.round(seconds / 240));
  const end = Math.floor(now / 15) * 15;
  return { key, start: end - seconds, end, step };
}

/** Preset ranges the source can serve: a recording only within its chart span, at its recorded step. */
export function chartRanges(src: ResolvedSource, now: number = Date.now() / 1000): ChartWindow[] {
  if (src.replay) {
    const c = src.replay.charts;
    if (!c) return [];
    const span = c.end - c.start;
    const out: ChartWindow[] = TIME_RANGE_PRESETS.filter((k) => rangeSeconds(k) < span).map((k) => ({
      key: k,
      start: c.end - rangeSeconds(k),
      end: c.end,
      step: c.step,
    }));
    out.push({ key: "all", start: c.start, end: c.end, step: c.step });
    return out;
  }
  return TIME_RANGE_PRESETS.map((k) => liveWindow(k, now));
}

export interface ChartsView {
  readonly ranges: readonly ChartWindow[];
  readonly range: ChartWindow | null;
  readonly charts: InstanceCharts | null;
  readonly error: string | null;
  readonly stale: boolean;
  /** Why the range shown is not the one asked for (longer than the recording), or null. */
  readonly note: string | null;
}

export function defaultRange(src: ResolvedSource): RangeKey {
  return src.replay ? "all" : "1h";
}

/**
 * The chart window for `key` (null: the default): a preset the source serves, a custom duration (on a
 * recording, within its span), or on a recording the whole of it with a note when the range is longer.
 */
export function chartWindow(
  src: ResolvedSource,
  key: string | null,
  now: number = Date.now() / 1000,
): { range: ChartWindow | null; note: string | null } {
  const ranges = chartRanges(src, now);
  const wanted = key ?? defaultRange(src);
  const preset = ranges.find((r) => r.key === wanted);
  if (preset) return { range: preset, note: null };
  const c = src.replay?.charts;
  if (src.replay && !c) return { range: null, note: null };
  if (!c) return { range: wanted === "all" ? null : liveWindow(wanted, now), note: null };
  const all = ranges.at(-1)!;
  if (wanted !== "all" && rangeSeconds(wanted) < c.end - c.start)
    return {
      range: { key: wanted, start: c.end - rangeSeconds(wanted), end: c.end, step: c.step },
      note: null,
    };
  const hours = ((c.end - c.start) / 3600).toFixed(1);
  return {
    range: all,
    note:
      wanted === "all"
        ? null
        : `${wanted} is longer than the recording's chart series (${hours} hours): showing the whole recording.`,
  };
}

export async function getInstanceCharts(
  instance: string,
  key: string | null,
  e: Env = env(),
): Promise<ChartsView> {
  const src = await readSource(e);
  const ranges = chartRanges(src);
  const { range, note } = chartWindow(src, key);
  if (!src.api || !range)
    return {
      ranges,
      range,
      charts: null,
      error: src.replay ? "this recording has no chart series" : null,
      stale: false,
      note,
    };
  const cacheKey = `${src.key}|${instance}|${range.key}`;
  const cache = chartCache();
  try {
    const charts = await instanceCharts(src.api, instance, range);
    cache.delete(cacheKey);
    cache.set(cacheKey, charts);
    while (cache.size > 200) cache.delete(cache.keys().next().value!);
    return { ranges, range, charts, error: null, stale: false, note };
  } catch (err) {
    const last = cache.get(cacheKey) ?? null;
    return { ranges, range, charts: last, error: errorMessage(err), stale: last !== null, note };
  }
}
