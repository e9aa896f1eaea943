/**
 * A fleet snapshot: the facts read at one evaluation time, the stored metadata overlaid on them, the
 * advisor's result per instance, the ranking, the table rows and the summary (@untorn/fleet/rows, the
 * builder the CLI uses too; the web adds each row's exporters and stale flag). Building one is pure
 * given the fleet facts and the metadata (tested without Prometheus or a store); revising one instance
 * after a metadata change re-advises that instance only.
 */
import type { Advice } from "@untorn/advisor/advise";
import type { InstanceFacts } from "@untorn/advisor/facts";
import type { FleetRanking } from "@untorn/advisor/fleet";
import type { ExporterPresence, FleetFacts, RecordingRulesUse, SkippedInstance } from "@untorn/fleet/facts";
import { type MergeResult, mergeMetadata } from "@untorn/fleet/metadata";
import { adviseAll } from "@untorn/fleet/profile";
import { rankRows } from "@untorn/fleet/rows";
import type { InstanceMetadata } from "@untorn/store/store";
import type { FleetRow, FleetSummary } from "../lib/fleet-row.js";

export interface Snapshot {
  /** Evaluation time, Unix seconds. */
  readonly at: number;
  readonly window: string;
  /** Wall clock when the facts were read, ms since the epoch. */
  readonly fetchedAt: number;
  /** Time spent reading facts from Prometheus or the replay, ms. */
  readonly fetchMs: number;
  /** Time spent merging metadata, advising and ranking, ms. */
  readonly adviseMs: number;
  readonly queries: number;
  /** Whether the rates came from the recording rules' series (a replay: never), and why not. */
  readonly recordingRules: RecordingRulesUse;
  /** Why "now" was read in the past (VictoriaMetrics' -search.latencyOffset), or null. */
  readonly clockNote: string | null;
  /** Facts as measured (with the declared metadata file's facts), before the stored metadata overlay. */
  readonly measured: ReadonlyMap<string, InstanceFacts>;
  readonly merged: ReadonlyMap<string, MergeResult>;
  readonly advice: ReadonlyMap<string, Advice>;
  readonly metadata: ReadonlyMap<string, InstanceMetadata>;
  readonly missing: Readonly<Record<string, readonly string[]>>;
  readonly exporters: Readonly<Record<string, ExporterPresence>>;
  readonly skipped: readonly SkippedInstance[];
  readonly warnings: readonly string[];
  readonly ranking: FleetRanking;
  readonly rows: readonly FleetRow[];
  readonly summary: FleetSummary;
  /** Why the stored metadata could not be read (the advice then lacks it), or null. */
  readonly storeProblem: string | null;
  /** The declared metadata file overlaid on the measured facts, or null when there is none. */
  readonly declared: DeclaredInfo | null;
}

/** The declared metadata file overlaid on the facts (server/declared.ts). */
export interface DeclaredInfo {
  readonly file: string;
  /** Instances it declares facts for; 0 when it could not be used. */
  readonly instances: number;
  readonly problem: string | null;
}

export interface SnapshotInput {
  readonly fleet: Omit<FleetFacts, "plan">;
  readonly metadata: readonly InstanceMetadata[];
  readonly storeProblem: string | null;
  readonly declared?: DeclaredInfo | null;
  readonly fetchedAt: number;
  readonly fetchMs: number;
  readonly window: string;
}

export function buildSnapshot(input: SnapshotInput, clock: () => number = () => performance.now()): Snapshot {
  const t0 = clock();
  const metadata = new Map(input.metadata.map((m) => [m.instance, m]));
  const measured = new Map(input.fleet.facts.map((f) => [f.identity.instance, f]));
  const merged = new Map<string, MergeResult>();
  for (const f of input.fleet.facts)
    merged.set(f.identity.instance, mergeMetadata(f, metadata.get(f.identity.instance)));
  const { advice, failed } = adviseAll([...merged.values()].map((m) => m.facts));
  const adviceMap = new Map(advice.map((a) => [a.identity.instance, a]));
  const skipped = [...input.fleet.skipped, ...failed];
  const { ranking, rows, summary } = rank(adviceMap, merged, input.fleet.exporters, skipped.length);
  return {
    at: input.fleet.at,
    window: input.window,
    fetchedAt: input.fetchedAt,
    fetchMs: input.fetchMs,
    adviseMs: clock() - t0,
    queries: input.fleet.queries,
    recordingRules: input.fleet.recordingRules,
    clockNote: input.fleet.clockNote ?? null,
    measured,
    merged,
    advice: adviceMap,
    metadata,
    missing: input.fleet.missing,
    exporters: input.fleet.exporters,
    skipped,
    warnings: input.fleet.warnings,
    ranking,
    rows,
    summary,
    storeProblem: input.storeProblem,
    declared: input.declared ?? null,
  };
}

function rank(
  advice: ReadonlyMap<string, Advice>,
  merged: ReadonlyMap<string, MergeResult>,
  exporters: Readonly<Record<string, ExporterPresence>>,
  skipped: number,
): { ranking: FleetRanking; rows: FleetRow[]; summary: FleetSummary } {
  const facts = new Map([...merged].map(([k, m]) => [k, m.facts]));
  const { ranking, rows, summary } = rankRows(advice, facts, skipped);
  return {
    ranking,
    rows: rows.map((r) => ({ ...r, exporters: exporters[r.instance] ?? NO_EXPORTER, stale: false })),
    summary,
  };
}

const NO_EXPORTER: ExporterPresence = { untorn: false, mysqldExporter: false };

/** The snapshot with one instance's metadata replaced (or removed) and that instance re-advised. */
export function reviseSnapshot(snap: Snapshot, instance: string, meta: InstanceMetadata | null): Snapshot {
  const facts = snap.measured.get(instance);
  const metadata = new Map(snap.metadata);
  if (meta) metadata.set(instance, meta);
  else metadata.delete(instance);
  if (!facts) return { ...snap, metadata };
  const merged = new Map(snap.merged);
  const m = mergeMetadata(facts, meta);
  merged.set(instance, m);
  const advice = new Map(snap.advice);
  const { advice: one, failed } = adviseAll([m.facts]);
  if (one[0]) advice.set(instance, one[0]);
  else advice.delete(instance);
  const skipped = [...snap.skipped.filter((s) => s.instance !== instance), ...failed];
  return {
    ...snap,
    metadata,
    merged,
    advice,
    skipped,
    ...rank(advice, merged, snap.exporters, skipped.length),
  };
}

/** The rows marked as coming from the last good snapshot. */
export function staleRows(rows: readonly FleetRow[]): FleetRow[] {
  return rows.map((r) => ({ ...r, stale: true }));
}
