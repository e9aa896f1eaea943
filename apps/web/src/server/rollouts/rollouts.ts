import "server-only";
/**
 * Rollouts for the console's pages and read API: read from the store through the rollout runner (the
 * same parsing the CLI does), summarised with lib/rollout-view.ts, and the canary-vs-control series
 * read through the same source as the instance page (live Prometheus or the replay). Reads only:
 * commands go through the Server Actions.
 */
import { type SignalId, signals } from "@untorn/catalog/signals";
import { mapLimit } from "@untorn/fleet/api";
import { type ChartRange, chartRateWindow } from "@untorn/fleet/charts";
import { instanceSelector } from "@untorn/fleet/plan";
import { ReplayMissError } from "@untorn/fleet/replay";
import { buildReport, type Report } from "@untorn/rollout/report";
import {
  type NextActions,
  nextActions,
  parseRolloutState,
  ROLLOUT_STATUSES,
  type RolloutState,
  type RolloutStatus,
} from "@untorn/rollout/state";
import type { Rollout } from "@untorn/store/store";
import { z } from "zod";
import { type Env, env } from "../../env.js";
import { errorMessage } from "../../lib/format.js";
import { redactForReaders } from "../../lib/redact.js";
import { type LastGate, type Progress, sortRollouts } from "../../lib/rollout-view.js";
import { readSource, type SourceInfo } from "../fleet/source.js";
import { getStore } from "../store.js";
import { summaryOfState } from "./rollout-api.js";

/** A rollout id: the store keys rollouts by UUID (the engine's default id); anything else names none. */
export const rolloutIdSchema = z.uuid("is not a rollout id (a UUID, as `untorn rollout list` shows them)");

export interface RolloutSummary {
  readonly id: string;
  readonly title: string;
  readonly change: string;
  readonly status: RolloutStatus;
  readonly version: number;
  readonly progress: Progress;
  readonly currentWave: number | null;
  readonly lastGate: LastGate | null;
  readonly createdBy: string;
  /** Unix seconds, on the rollout's clock (on a recording: the recording's end, whenever it was made). */
  readonly createdAt: number;
  /** When the store saved it, on the wall clock: what tells apart two rollouts made on a recording. */
  readonly storedAt: Date;
  readonly updatedAt: Date;
  readonly updatedBy: string;
  /** The stored document does not parse with this Untorn's schema: shown, never acted on. */
  readonly problem: string | null;
}

export interface StoredRolloutView {
  readonly state: RolloutState;
  readonly version: number;
  /** The store row's creation time (wall clock). */
  readonly storedAt: Date;
  readonly updatedAt: Date;
  readonly updatedBy: string;
}

/** The store could not be opened or read: the pages say so, the API answers 503. */
export class RolloutStoreError extends Error {
  override name = "RolloutStoreError";
}

async function store(e: Env) {
  try {
    return await getStore(e);
  } catch (err) {
    throw new RolloutStoreError(redactForReaders(errorMessage(err)));
  }
}

function describeProblem(err: unknown): string {
  if (err instanceof z.ZodError)
    return err.issues
      .slice(0, 3)
      .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
      .join("; ");
  return errorMessage(err);
}

function summaryOf(row: Rollout): RolloutSummary {
  const base = {
    id: row.id,
    version: row.version,
    updatedAt: row.updatedAt,
    updatedBy: row.updatedBy,
  };
  try {
    const state = parseRolloutState(row.document);
    return summaryOfState(
      {
        state,
        version: row.version,
        storedAt: row.createdAt,
        updatedAt: row.updatedAt,
        updatedBy: row.updatedBy,
      },
      changeText(state),
    );
  } catch (err) {
    const status = (ROLLOUT_STATUSES as readonly string[]).includes(row.state)
      ? (row.state as RolloutStatus)
      : "halted";
    return {
      ...base,
      title: row.name,
      change: "–",
      status,
      progress: { done: 0, total: 0, text: "–" },
      currentWave: null,
      lastGate: null,
      createdBy: row.createdBy,
      createdAt: row.createdAt.getTime() / 1000,
      storedAt: row.createdAt,
      problem: `the stored document does not match this Untorn's rollout schema: ${describeProblem(err)}`,
    };
  }
}

/** The change in one line, from the plan (the report's wording). */
export function changeText(s: RolloutState): string {
  return buildReport(s, s.createdAt).change;
}

/** Rollouts, active first; `statuses` filters, `limit` bounds what the store returns. */
export async function listRolloutSummaries(
  filter: { statuses?: readonly RolloutStatus[]; limit?: number } = {},
  e: Env = env(),
): Promise<RolloutSummary[]> {
  const s = await store(e);
  let rows: Rollout[];
  try {
    rows = await s.listRollouts({
      ...(filter.statuses?.length ? { states: [...filter.statuses] } : {}),
      limit: filter.limit ?? 100,
    });
  } catch (err) {
    throw new RolloutStoreError(redactForReaders(errorMessage(err)));
  }
  return sortRollouts(rows.map(summaryOf));
}

/**
 * Every stored rollout's state that parses (at most 1000, the store's page; one that does not parse is
 * left out: the rollout list names it), for the console's /metrics.
 */
export async function listRolloutStates(e: Env = env()): Promise<RolloutState[]> {
  const s = await store(e);
  let rows: Rollout[];
  try {
    rows = await s.listRollouts({ limit: 1000 });
  } catch (err) {
    throw new RolloutStoreError(redactForReaders(errorMessage(err)));
  }
  return rows.flatMap((r) => {
    try {
      return [parseRolloutState(r.document)];
    } catch {
      return [];
    }
  });
}

export type RolloutLookup =
  | { readonly kind: "found"; readonly rollout: StoredRolloutView }
  | { readonly kind: "not-found" }
  | { readonly kind: "invalid"; readonly problem: string; readonly row: Rollout };

export async function getRolloutView(id: string, e: Env = env()): Promise<RolloutLookup> {
  const s = await store(e);
  let row: Rollout | null;
  try {
    row = await s.getRollout(id);
  } catch (err) {
    throw new RolloutStoreError(redactForReaders(errorMessage(err)));
  }
  if (!row) return { kind: "not-found" };
  try {
    return {
      kind: "found",
      rollout: {
        state: parseRolloutState(row.document),
        version: row.version,
        storedAt: row.createdAt,
        updatedAt: row.updatedAt,
        updatedBy: row.updatedBy,
      },
    };
  } catch (err) {
    return {
      kind: "invalid",
      problem: `the stored document does not match this Untorn's rollout schema: ${describeProblem(err)}`,
      row,
    };
  }
}

export function reportOf(s: RolloutState, now: number = Date.now() / 1000): Report {
  return buildReport(s, Math.floor(now));
}

export function nextOf(s: RolloutState, now: number = Date.now() / 1000): NextActions {
  return nextActions(s, now);
}

// ---- canary vs control charts ----

/** Drawn beside the judged metrics: the doublewrite going flat is the change itself; lag is a guardrail. */
const EXTRA_SIGNALS: readonly SignalId[] = ["doublewrite_pages_per_second", "replication_lag_seconds"];

export interface RolloutChart {
  readonly id: string;
  readonly title: string;
  readonly unit: string;
  readonly series: { readonly name: string; readonly points: (readonly [number, number | null])[] }[];
}

export interface RolloutChartsView {
  readonly source: SourceInfo;
  readonly wave: number;
  /** The change point: the first step of the wave marked done (Unix seconds). */
  readonly changePoint: number | null;
  readonly window: { readonly start: number; readonly end: number; readonly step: number } | null;
  readonly charts: RolloutChart[];
  /** Signals the recording does not hold (a replay answers only what was recorded). */
  readonly notRecorded: string[];
  /** What failed (the stored results still show). */
  readonly error: string | null;
  /** Why there is nothing to draw. */
  readonly note: string | null;
  readonly warnings: string[];
}

/** The wave the charts show: the current one, else the last that started. */
export function chartWaveOf(s: RolloutState): number | null {
  if (s.currentWave !== null && s.waves[s.currentWave]?.startedAt) return s.currentWave;
  const started = s.waves.filter((w) => w.startedAt !== null);
  return started.at(-1)?.index ?? null;
}

/**
 * The judged metrics, the doublewrite page rate and replication lag of a wave's changed instances and
 * its controls around the change point, with the instance page's queries (one instance selector per
 * series): live, from before the change point to now or the wave's decision; from a replay, over the
 * recording's chart span. Never throws for a failing source: the error is in the view.
 */
export async function getRolloutCharts(s: RolloutState, e: Env = env()): Promise<RolloutChartsView> {
  const src = await readSource(e);
  const wave = chartWaveOf(s);
  const empty = (error: string | null, note: string | null = null): RolloutChartsView => ({
    source: src.info,
    wave: wave ?? 0,
    changePoint: null,
    window: null,
    charts: [],
    notRecorded: [],
    error,
    note,
    warnings: [],
  });
  if (wave === null) return empty(null, "No wave has started yet: nothing to compare.");
  const w = s.waves[wave]!;
  const mine = s.instances.filter((i) => i.wave === wave && i.appliedAt !== null);
  if (mine.length === 0) return empty(null, `No step of wave ${wave} is marked done yet: no change point.`);
  const changePoint = Math.min(...mine.map((i) => i.appliedAt!));
  if (!src.api)
    return {
      ...empty(
        src.info.kind === "none"
          ? `no data source: ${src.info.reason}`
          : src.info.kind === "invalid"
            ? `the recording cannot be read: ${src.info.error}`
            : "no data source",
      ),
      changePoint,
    };
  let range: ChartRange;
  if (src.replay) {
    const c = src.replay.charts;
    if (!c) return { ...empty(null, "This recording has no chart series."), changePoint };
    range = { start: c.start, end: c.end, step: c.step };
  } else {
    const end = Math.floor(w.decidedAt ?? Date.now() / 1000);
    const span = Math.max(1800, end - changePoint);
    const start = changePoint - span;
    range = {
      start,
      end: Math.max(end, changePoint + 60),
      step: Math.max(15, Math.ceil((end - start) / 240)),
    };
  }
  const window = chartRateWindow(range);
  const ids = [
    ...s.metrics.map((m) => m.metric),
    ...EXTRA_SIGNALS.filter((x) => !s.metrics.some((m) => m.metric === x)),
  ].filter((m): m is SignalId => m in signals);
  const classes = new Map(s.metrics.map((m) => [m.metric, m.classes]));
  const who = [
    ...w.instances.map((id) => ({ id, role: w.kind === "canary" ? "canary" : "changed" })),
    ...w.controls.map((id) => ({ id, role: "control" })),
  ];
  const jobs = ids.flatMap((metric) => who.map((inst) => ({ metric, inst })));
  const notRecorded = new Set<string>();
  const warnings = new Set<string>();
  let answers: ((readonly [number, number | null])[] | null)[];
  try {
    answers = await mapLimit(jobs, 4, async ({ metric, inst }) => {
      const expr = signals[metric].expr({ selector: instanceSelector(inst.id), window });
      try {
        const a = await src.api!.queryRange(expr, range);
        for (const x of a.warnings) warnings.add(x);
        const wanted = classes.get(metric);
        const series = a.data.find(
          (m) =>
            m.labels.instance === inst.id &&
            (!wanted || m.labels.class === undefined || wanted.includes(m.labels.class as never)),
        );
        return series
          ? series.points.map(([t, v]) => [t, Number.isFinite(v) ? v : null] as const)
          : ([] as (readonly [number, number | null])[]);
      } catch (err) {
        if (err instanceof ReplayMissError) {
          notRecorded.add(metric);
          return null;
        }
        throw err;
      }
    });
  } catch (err) {
    return { ...empty(redactForReaders(errorMessage(err))), changePoint };
  }
  const charts: RolloutChart[] = ids
    .filter((m) => !notRecorded.has(m))
    .map((metric) => ({
      id: metric,
      title: signals[metric].title,
      unit: signals[metric].unit,
      series: who.map((inst) => ({
        name: `${inst.id} (${inst.role})`,
        points: answers[jobs.findIndex((j) => j.metric === metric && j.inst.id === inst.id)] ?? [],
      })),
    }));
  const outside = changePoint < range.start || changePoint > range.end;
  if (notRecorded.size === ids.length)
    return {
      ...empty(
        null,
        `The recording holds no series of ${who.map((x) => x.id).join(", ")}: no charts (no data, not zero).`,
      ),
      changePoint,
    };
  const none = charts.every((c) => c.series.every((x) => x.points.length === 0));
  return {
    source: src.info,
    wave,
    changePoint,
    window: range,
    charts: none ? [] : charts,
    notRecorded: [...notRecorded],
    error: null,
    note: outside
      ? `The change point is outside the ${src.replay ? "recording" : "range"} shown: the series do not cover the change.`
      : none
        ? `No series of these instances in ${src.replay ? "the recording" : "Prometheus"} over the range: no data, which is never a pass.`
        : null,
    warnings: [...warnings],
  };
}
