/**
 * A replay file built from per-instance values instead of a recording, for unit tests of the facts
 * builder, the replay path and the CLI: for every query of the facts plan (fleet-wide and per instance)
 * and of the charts, it holds the answer Prometheus would give if each instance's series had these values.
 * The answers have the shape of real ones (labels of untorn-exporter's info series, the statistic tag,
 * `class` / `operation` splits); the numbers are whatever the test gives.
 */

import type { Selector } from "@untorn/catalog/promql";
import { recordingRulesProbe } from "@untorn/catalog/rules";
import { FACT_LABEL, STAT_LABEL, type Stat } from "@untorn/catalog/window-stats";
import { CHARTS, type ChartRange, chartQueries, ROLLOUT_CHARTS, TREND_CHARTS } from "../charts.js";
import type { FleetSource } from "../plan.js";
import {
  durationSeconds,
  factQueries,
  INSTANT,
  instanceSelector,
  type PlanOptions,
  planOptions,
  QUALITY_QUERY,
  WINDOWED,
} from "../plan.js";
import { REPLAY_FORMAT, REPLAY_VERSION, type ReplayFile, toWire } from "../replay.js";

/** A window statistic: one number for every statistic, or each given. */
export type FakeStat = number | Partial<Record<Stat, number>>;

export interface FakeInstance {
  readonly instance: string;
  /** Label sets of the info series (server_info, doublewrite_mode, innodb_config_info, storage_info, replication_role). */
  readonly info?: Partial<
    Record<"server" | "doublewriteMode" | "innodbConfig" | "storageInfo" | "topology", Record<string, string>>
  >;
  /** untorn_mysql_up / mysql_up values; absent = no such series. */
  readonly presence?: { readonly untorn?: number; readonly fallback?: number };
  /** Values of the numeric and boolean instant facts, by spec id (e.g. "config.pageSizeBytes"). */
  readonly numbers?: Readonly<Record<string, number>>;
  /** untorn_perf_schema_file_io_instrumented per class. */
  readonly classFlags?: Readonly<Record<string, number>>;
  /** Window statistics by windowed spec id; split specs take a map by class / operation. */
  readonly windowed?: Readonly<Record<string, FakeStat | Readonly<Record<string, FakeStat>>>>;
  readonly restarts?: number;
  /** Steps of the window with samples; default all of them. */
  readonly sampledSteps?: number;
  /** Constant chart values by chart series name (split charts: by class). */
  readonly charts?: Readonly<Record<string, number | Readonly<Record<string, number>>>>;
}

export interface FakeReplayOptions {
  readonly window: string;
  readonly times: readonly number[];
  readonly stepSeconds?: number;
  readonly stats?: readonly Stat[];
  readonly source?: FleetSource;
  readonly selector?: Selector;
  /** Chart range; charts are left out without it. */
  readonly chart?: { readonly start: number; readonly end: number; readonly step: number };
  readonly recordedFrom?: string;
}

type Sample = { labels: Record<string, string>; value: number };

const statOf = (s: FakeStat, stat: Stat): number | undefined => (typeof s === "number" ? s : s[stat]);

function instantAnswer(id: string, kind: string, x: FakeInstance): Sample[] {
  const base = { instance: x.instance };
  const spec = INSTANT.find((s) => s.id === id)!;
  switch (spec.kind) {
    case "info": {
      const labels = x.info?.[id as keyof NonNullable<FakeInstance["info"]>];
      return labels ? [{ labels: { ...base, ...labels }, value: 1 }] : [];
    }
    case "presence": {
      const v = id === "up.untorn" ? x.presence?.untorn : x.presence?.fallback;
      return v === undefined ? [] : [{ labels: base, value: v }];
    }
    case "class-flag":
      return Object.entries(x.classFlags ?? {}).map(([cls, v]) => ({
        labels: { ...base, class: cls },
        value: v,
      }));
    default: {
      void kind;
      const v = x.numbers?.[id];
      return v === undefined ? [] : [{ labels: base, value: v }];
    }
  }
}

function windowedAnswer(id: string, stats: readonly Stat[], x: FakeInstance): Sample[] {
  const spec = WINDOWED.find((s) => s.id === id)!;
  const v = x.windowed?.[id];
  if (v === undefined) return [];
  const out: Sample[] = [];
  const entries: [string | undefined, FakeStat][] = spec.split
    ? Object.entries(v as Record<string, FakeStat>)
    : [[undefined, v as FakeStat]];
  for (const [key, s] of entries) {
    for (const stat of stats) {
      const value = statOf(s, stat);
      if (value === undefined) continue;
      const labels: Record<string, string> = { instance: x.instance, [STAT_LABEL]: stat };
      if (spec.split && key !== undefined) labels[spec.split] = key;
      out.push({ labels, value });
    }
  }
  return out;
}

function qualityAnswer(x: FakeInstance, steps: number): Sample[] {
  const out: Sample[] = [];
  if (x.restarts) out.push({ labels: { instance: x.instance, [FACT_LABEL]: "restarts" }, value: x.restarts });
  out.push({
    labels: { instance: x.instance, [FACT_LABEL]: "sampledSteps" },
    value: x.sampledSteps ?? steps,
  });
  return out;
}

function answersFor(plan: PlanOptions, instances: readonly FakeInstance[]): Sample[][] {
  const steps = Math.floor(durationSeconds(plan.window) / plan.stepSeconds) + 1;
  return factQueries(plan).map((q) => {
    if (q.kind === "instant") return instances.flatMap((x) => instantAnswer(q.id, q.kind, x));
    if (q.id === QUALITY_QUERY)
      return [
        ...instances.flatMap((x) => qualityAnswer(x, steps)),
        { labels: { [FACT_LABEL]: "steps" }, value: steps },
      ];
    return instances.flatMap((x) => windowedAnswer(q.id, plan.stats, x));
  });
}

/** A replay file answering every facts and chart query for `instances`, at each of `times`. */
export function fakeReplay(instances: readonly FakeInstance[], o: FakeReplayOptions): ReplayFile {
  const plan = planOptions(o);
  const times = [...o.times].sort((a, b) => a - b);
  const instant: ReplayFile["instant"] = [];
  const add = (p: PlanOptions, xs: readonly FakeInstance[], derived: boolean) => {
    const qs = factQueries(p);
    const answers = answersFor(p, xs);
    qs.forEach((q, i) => {
      instant.push({
        query: q.expr,
        ...(derived ? { derived: true } : {}),
        answers: times.map((time) => ({
          time,
          data: answers[i]!.map((s) => ({ labels: s.labels, value: toWire(s.value) })),
        })),
      });
    });
  };
  add(plan, instances, false);
  for (const x of instances)
    add({ ...plan, selector: { ...plan.selector, ...instanceSelector(x.instance) } }, [x], true);
  // A Prometheus without the recording rules: the loaded-rules probe finds nothing, the raw plan is read.
  for (const instance of [undefined, ...instances.map((x) => x.instance)])
    instant.push({
      query: recordingRulesProbe(plan.window, instance),
      ...(instance === undefined ? {} : { derived: true }),
      answers: times.map((time) => ({ time, data: [] })),
    });

  const range: ReplayFile["range"] = [];
  if (o.chart) {
    const c = o.chart;
    const r: ChartRange = { ...c, source: plan.source };
    const points = (v: number) => {
      const out: [number, number][] = [];
      for (let t = c.start; t <= c.end; t += c.step) out.push([t, v]);
      return out;
    };
    const chartData = (name: string, xs: readonly FakeInstance[]) =>
      xs.flatMap((x) => {
        const v = x.charts?.[name];
        if (v === undefined) return [];
        const byClass = typeof v === "number" ? { "": v } : v;
        return Object.entries(byClass).map(([cls, value]) => ({
          labels: { instance: x.instance, ...(cls ? { class: cls } : {}) },
          points: points(value).map(([t, y]) => [t, toWire(y)] as [number, number | "NaN" | "+Inf" | "-Inf"]),
        }));
      });
    // What record.ts asks: the instance page's charts and the rollout page's, and fleet-wide only the
    // sparklines' own series.
    const defs = [...CHARTS, ...ROLLOUT_CHARTS];
    for (const q of chartQueries(plan.selector, r, [...defs, ...TREND_CHARTS]))
      range.push({
        query: q.expr,
        start: c.start,
        end: c.end,
        step: c.step,
        data: chartData(q.name, instances),
      });
    for (const x of instances)
      for (const q of chartQueries({ ...plan.selector, ...instanceSelector(x.instance) }, r, defs))
        range.push({
          query: q.expr,
          derived: true,
          start: c.start,
          end: c.end,
          step: c.step,
          data: chartData(q.name, [x]),
        });
  }

  return {
    format: REPLAY_FORMAT,
    version: REPLAY_VERSION,
    recorded: true,
    meta: {
      recordedFrom: o.recordedFrom ?? "http://fake-prometheus:9090",
      recordedAt: new Date(times.at(-1)! * 1000).toISOString(),
      start: times[0]!,
      end: times.at(-1)!,
      spanSeconds: times.at(-1)! - times[0]!,
      everySeconds: times.length > 1 ? times[1]! - times[0]! : 60,
      window: plan.window,
      plan: {
        stepSeconds: plan.stepSeconds,
        rateWindow: plan.rateWindow,
        stats: [...plan.stats],
        source: plan.source,
        selector: plan.selector,
      },
      instances: instances.map((x) => x.instance).sort(),
      charts: o.chart ?? null,
      tool: "fake-replay (tests)",
    },
    instant,
    range,
  };
}
