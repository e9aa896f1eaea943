/**
 * A fleet snapshot: the facts read at one evaluation time, the stored metadata overlaid on them, what
 * the fleet pages read of the advisor's result per instance, the ranking, the table rows and the summary
 * (@untorn/fleet/rows, the builder the CLI uses too; the web adds each row's exporters and stale flag).
 * Building one is pure given the fleet facts and the metadata (tested without Prometheus or a store);
 * revising one instance after a metadata change re-advises that instance only.
 *
 * The snapshot keeps of each instance's advice only what ranking, the fleet table and summary, the
 * recommendations page and the API's fleet rows read (KeptAdvice): the full advice (profile, evidence,
 * gate checks, action steps and snippets) is about 19 KB of JSON an instance, most of a 10,000-instance
 * snapshot's heap. The instance page and GET /api/v1/instances/{id} advise that one instance again from
 * its facts with the metadata overlaid (instanceAdvice); the advisor is pure, so the result is the one
 * the ranking was built from.
 */
import { createHash } from "node:crypto";
import type { Advice } from "@untorn/advisor/advise";
import type { InstanceFacts } from "@untorn/advisor/facts";
import type { FleetRanking, RankedFinding } from "@untorn/advisor/fleet";
import type { ConfigChange, Finding } from "@untorn/advisor/rule";
import type { ExporterPresence, FleetFacts, RecordingRulesUse, SkippedInstance } from "@untorn/fleet/facts";
import { type MergeResult, mergeMetadata } from "@untorn/fleet/metadata";
import { adviseAll, type MetadataByInstance } from "@untorn/fleet/profile";
import { type RowAdvice, rankRows } from "@untorn/fleet/rows";
import type { InstanceMetadata } from "@untorn/store/store";
import type { FleetRow, FleetSummary } from "../../lib/fleet-row.js";

/** What the snapshot keeps of a finding: ranking's fields, the rule's docs page and the actions' changes. */
export interface KeptFinding extends RankedFinding {
  readonly docs: Finding["docs"];
  readonly actions: readonly { readonly changes: readonly ConfigChange[] }[];
}

/** What the snapshot keeps of an instance's advice (see the module comment). */
export interface KeptAdvice extends RowAdvice {
  readonly findings: readonly KeptFinding[];
}

/** The part of `a` the snapshot keeps, as new objects so the rest of `a` can be collected. */
export function keepAdvice(a: Advice): KeptAdvice {
  const ind = a.profile.indicators;
  const value = (i: { readonly value: number | null }) => ({ value: i.value });
  const g = a.safetyGate;
  return {
    identity: a.identity,
    verdict: { verdict: a.verdict.verdict, confidence: a.verdict.confidence },
    safetyGate: {
      status: g.status,
      path: g.path,
      providerManaged: g.providerManaged,
      summary: g.summary,
      toVerify: g.toVerify,
    },
    findings: a.findings.map((f) => ({
      ruleId: f.ruleId,
      title: f.title,
      severity: f.severity,
      docs: f.docs,
      expectedGain: f.expectedGain,
      blocked: f.blocked,
      confidence: f.confidence,
      actions: f.actions.map((x) => ({ changes: x.changes })),
    })),
    profile: {
      indicators: {
        amplification: value(ind.amplification),
        dblwrShareOfDeviceWriteBytes: value(ind.dblwrShareOfDeviceWriteBytes),
        dblwrShareOfInnodbWriteBytes: value(ind.dblwrShareOfInnodbWriteBytes),
        dblwrBytesRate: value(ind.dblwrBytesRate),
        deviceWriteBytesRate: value(ind.deviceWriteBytesRate),
        innodbWriteBytesRate: value(ind.innodbWriteBytesRate),
      },
    },
  };
}

/**
 * An instance's advice as a kept fleet read keeps it (kept-file.ts), with the digest of the inputs it was
 * derived from besides the facts and the build (adviceInputs).
 */
export interface ReusableAdvice {
  readonly advice: KeptAdvice;
  readonly inputs: string;
}

/**
 * The digest of what an instance's advice is derived from besides its measured facts and the build: the
 * declared metadata file's entry for it and its stored metadata, the two overlays buildSnapshot makes
 * before advising (the advisor itself is pure). Equal digests, equal facts and the same build give the
 * same advice.
 */
export function adviceInputs(snap: Pick<Snapshot, "metadata" | "declaredMeta">, instance: string): string {
  const declared = snap.declaredMeta.get(instance) ?? null;
  const stored = snap.metadata.get(instance) ?? null;
  return createHash("sha256")
    .update(JSON.stringify([declared, stored]))
    .digest("base64url");
}

/** Advises each instance and keeps only KeptAdvice, so at most one full advice is alive at a time. */
function adviseKept(facts: Iterable<InstanceFacts>): {
  advice: Map<string, KeptAdvice>;
  failed: SkippedInstance[];
} {
  const out = { advice: new Map<string, KeptAdvice>(), failed: [] as SkippedInstance[], reused: 0 };
  for (const _ of adviseKeptSteps(facts, out, null));
  return out;
}

/** Instances advised between two turns of the event loop in buildSnapshotYielding (a few ms). */
const ADVISE_BATCH = 100;
/** Instances whose kept advice is reused between two turns (a digest each: far cheaper than advice). */
const REUSE_BATCH = 2000;

/**
 * adviseKept's work into `out`, pausing (yielding) after every ADVISE_BATCH instances advised. An
 * instance `reuse` gives the advice of (its kept advice and the inputs digest it matches) takes it as is.
 */
function* adviseKeptSteps(
  facts: Iterable<InstanceFacts>,
  out: { advice: Map<string, KeptAdvice>; failed: SkippedInstance[]; reused: number },
  reuse: ((instance: string) => KeptAdvice | null) | null,
): Generator<void> {
  let n = 0;
  let r = 0;
  for (const f of facts) {
    const kept = reuse?.(f.identity.instance) ?? null;
    if (kept) {
      out.advice.set(f.identity.instance, kept);
      out.reused++;
      if (++r % REUSE_BATCH === 0) yield;
      continue;
    }
    const one = adviseAll([f]);
    if (one.advice[0]) out.advice.set(f.identity.instance, keepAdvice(one.advice[0]));
    out.failed.push(...one.failed);
    if (++n % ADVISE_BATCH === 0) yield;
  }
}

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
  /** The measured facts with the stored metadata overlaid (the same object where there is none). */
  readonly merged: ReadonlyMap<string, MergeResult>;
  /** What the fleet pages read of each advised instance's advice; instanceAdvice gives the full one. */
  readonly advice: ReadonlyMap<string, KeptAdvice>;
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
  /** The declared metadata file's entries by instance (empty without one): an input of the advice. */
  readonly declaredMeta: MetadataByInstance;
  /** Instances whose advice was taken from a kept fleet read instead of advised again. */
  readonly reused: number;
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
  /** The declared file's entries already overlaid on `fleet.facts` (recorded for adviceInputs). */
  readonly declaredMeta?: MetadataByInstance | null;
  /**
   * Advice kept from an earlier build of the same facts (the kept fleet read): an instance's is used
   * instead of advising it again when its inputs digest is the one adviceInputs gives now.
   */
  readonly reuse?: ReadonlyMap<string, ReusableAdvice> | null;
  readonly fetchedAt: number;
  readonly fetchMs: number;
  readonly window: string;
}

export function buildSnapshot(input: SnapshotInput, clock: () => number = () => performance.now()): Snapshot {
  const steps = snapshotSteps(input, clock);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * buildSnapshot for the server: the same snapshot, with a turn of the event loop after every
 * ADVISE_BATCH instances advised, so that pages (the "reading the fleet" state among them) are served
 * while a 10,000-instance fleet is advised. `adviseMs` then includes those turns.
 */
export async function buildSnapshotYielding(
  input: SnapshotInput,
  clock: () => number = () => performance.now(),
): Promise<Snapshot> {
  const steps = snapshotSteps(input, clock);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

function* snapshotSteps(input: SnapshotInput, clock: () => number): Generator<void, Snapshot> {
  const t0 = clock();
  const metadata = new Map(input.metadata.map((m) => [m.instance, m]));
  const measured = new Map(input.fleet.facts.map((f) => [f.identity.instance, f]));
  const merged = new Map<string, MergeResult>();
  for (const f of input.fleet.facts)
    merged.set(f.identity.instance, mergeMetadata(f, metadata.get(f.identity.instance)));
  const declaredMeta: MetadataByInstance = input.declaredMeta ?? new Map();
  const kept = { advice: new Map<string, KeptAdvice>(), failed: [] as SkippedInstance[], reused: 0 };
  const reuse = input.reuse;
  yield* adviseKeptSteps(
    [...merged.values()].map((m) => m.facts),
    kept,
    reuse?.size
      ? (instance) => {
          const r = reuse.get(instance);
          return r && r.inputs === adviceInputs({ metadata, declaredMeta }, instance) ? r.advice : null;
        }
      : null,
  );
  const { advice: adviceMap, failed } = kept;
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
    declaredMeta,
    reused: kept.reused,
  };
}

function rank(
  advice: ReadonlyMap<string, KeptAdvice>,
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
  const { advice: one, failed } = adviseKept([m.facts]);
  const kept = one.get(instance);
  if (kept) advice.set(instance, kept);
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

/**
 * One instance's full advice, advised again from its facts with the stored metadata overlaid (what the
 * snapshot's KeptAdvice was made from): null when the snapshot has no advice for it (unknown or skipped).
 */
export function instanceAdvice(
  snap: Pick<Snapshot, "merged" | "advice">,
  instance: string,
): { readonly advice: Advice } | { readonly failed: string } | null {
  const m = snap.merged.get(instance);
  if (!m || !snap.advice.has(instance)) return null;
  const { advice, failed } = adviseAll([m.facts]);
  if (advice[0]) return { advice: advice[0] };
  return { failed: failed[0]?.reason ?? "the advisor returned no advice" };
}

/** The rows marked as coming from the last good snapshot. */
export function staleRows(rows: readonly FleetRow[]): FleetRow[] {
  return rows.map((r) => ({ ...r, stale: true }));
}
