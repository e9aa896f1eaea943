/**
 * The one fleet pipeline of the CLI and the web console: fleet metadata layered on the measured facts, each
 * instance advised (in batches, so a caller can yield between them), the ranking, the table rows and the
 * summary (rows.ts), and one instance advised again after its metadata changed. Pure given the facts and
 * the fleet metadata: tested without Prometheus or a store.
 *
 * Fleet metadata comes in two layers: the declared metadata file's entries (the CLI's `--metadata`, the
 * web console's UNTORN_METADATA_FILE or a recording's sidecar), then the stored metadata users saved in
 * the web console.
 *
 * A snapshot holds of each instance's advice only what ranking, the fleet table and summary, the
 * recommendations page and the API's fleet rows read (SnapshotAdvice): the full advice (profile, evidence,
 * gate checks, action steps and snippets) is about 19 KB of JSON an instance, most of a 10,000-instance
 * snapshot's heap. The instance page and GET /api/v1/instances/{id} advise that one instance again from
 * its facts with the metadata overlaid (instanceAdvice); the advisor is pure, so the result is the one
 * the ranking was built from.
 */
import { createHash } from "node:crypto";
import { type Advice, advise } from "@untorn/advisor/advise";
import type { InstanceFacts } from "@untorn/advisor/facts";
import type { FleetRanking, RankedFinding } from "@untorn/advisor/fleet";
import type { ConfigChange, Finding } from "@untorn/advisor/rule";
import type { ExporterPresence, FleetFacts, RecordingRulesUse, SkippedInstance } from "./facts.js";
import { type FleetMetadata, type MergeResult, mergeMetadata } from "./metadata.js";
import type { FleetRow, FleetSummary } from "./row.js";
import { type RowAdvice, rankRows } from "./rows.js";

/** Fleet metadata by instance label (the declared metadata file's entries, or the web app's store). */
export type MetadataByInstance = ReadonlyMap<string, FleetMetadata>;

/** Stored metadata: one instance's metadata row (the web app's store keeps more fields). */
export type StoredMetadata = FleetMetadata & { readonly instance: string };

export interface Declarations {
  /** Fact paths each instance took from its declaration. */
  readonly declared: Readonly<Record<string, readonly string[]>>;
  /** Conflicts between declared and measured facts (the measured ones are used), and unknown instances. */
  readonly warnings: readonly string[];
}

/** Overlays each instance's declaration on its facts; a declaration for an instance not found is reported. */
export function applyMetadata(
  facts: readonly InstanceFacts[],
  metadata: MetadataByInstance | null | undefined,
  found: ReadonlySet<string> = new Set(facts.map((f) => f.identity.instance)),
): { facts: InstanceFacts[] } & Declarations {
  if (!metadata || metadata.size === 0) return { facts: [...facts], declared: {}, warnings: [] };
  const declared: Record<string, readonly string[]> = {};
  const warnings: string[] = [];
  const out = facts.map((f) => {
    const instance = f.identity.instance;
    const m = mergeMetadata(f, metadata.get(instance));
    if (m.declared.length) declared[instance] = m.declared;
    for (const c of m.conflicts) warnings.push(`${instance}: ${c}`);
    return m.facts;
  });
  for (const instance of metadata.keys())
    if (!found.has(instance)) warnings.push(`metadata for ${instance}: no such instance in the data`);
  return { facts: out, declared, warnings };
}

/**
 * The two layers as one declaration per instance, for a caller that overlays once (the rollout
 * reconciler), by the rule the pages' two overlays follow (the file's, then the stored one,
 * snapshotSteps): what the store owns (cluster, role, storage class) is taken from the stored row over
 * the file's; a fact a probe could measure (managed service, storage facts, limits) is taken from the
 * file, the stored row only filling what the file leaves unset. So a reviewed file cannot be
 * overridden from the console's form, which refuses a declaration that contradicts it.
 */
export function layerDeclarations(
  file: MetadataByInstance | null | undefined,
  stored: Iterable<StoredMetadata>,
): Map<string, FleetMetadata> {
  const out = new Map<string, FleetMetadata>(file ?? []);
  for (const r of stored) {
    const prev = out.get(r.instance) ?? {};
    const facts = { ...(r.storageFacts ?? {}), ...(prev.storageFacts ?? {}) };
    const limits = { ...(r.storageFacts?.limits ?? {}), ...(prev.storageFacts?.limits ?? {}) };
    if (Object.keys(limits).length > 0) facts.limits = limits;
    const managedService = prev.managedService ?? r.managedService;
    out.set(r.instance, {
      ...prev,
      ...(r.cluster ? { cluster: r.cluster } : {}),
      ...(r.role ? { role: r.role } : {}),
      ...(r.storageClass ? { storageClass: r.storageClass } : {}),
      ...(managedService ? { managedService } : {}),
      ...(Object.keys(facts).length > 0 ? { storageFacts: facts } : {}),
    });
  }
  return out;
}

/** Advice for each instance; one the advisor fails on is reported as skipped instead of failing the fleet. */
export function adviseAll(facts: readonly InstanceFacts[]): { advice: Advice[]; failed: SkippedInstance[] } {
  const advice: Advice[] = [];
  const failed: SkippedInstance[] = [];
  for (const f of facts) {
    try {
      advice.push(advise(f));
    } catch (err) {
      failed.push({ instance: f.identity.instance, reason: `the advisor failed: ${(err as Error).message}` });
    }
  }
  return { advice, failed };
}

/** Snapshot advice's part of a finding: ranking's fields, the rule's docs page and the actions' changes. */
export interface SnapshotFinding extends RankedFinding {
  readonly docs: Finding["docs"];
  readonly actions: readonly { readonly changes: readonly ConfigChange[] }[];
}

/** Snapshot advice: what every snapshot holds of an instance's advice, fresh or reused (module comment). */
export interface SnapshotAdvice extends RowAdvice {
  readonly findings: readonly SnapshotFinding[];
}

/** The snapshot advice of `a`, as new objects so the rest of `a` can be collected. */
export function snapshotAdvice(a: Advice): SnapshotAdvice {
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
      demoOnly: g.demoOnly,
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
 * An instance's advice as a kept fleet read keeps it (the web app's kept-file.ts), with the digest of the
 * inputs it was derived from besides the facts and the build (adviceInputs).
 */
export interface ReusableAdvice {
  readonly advice: SnapshotAdvice;
  readonly inputs: string;
}

/**
 * The digest of what an instance's advice is derived from besides its measured facts and the build: the
 * declared metadata file's entry for it and its stored metadata, the two overlays snapshotSteps makes
 * before advising (the advisor itself is pure). Equal digests, equal facts and the same build give the
 * same advice.
 */
export function adviceInputs(
  snap: {
    readonly metadata: ReadonlyMap<string, FleetMetadata>;
    readonly declaredMeta: MetadataByInstance;
  },
  instance: string,
): string {
  const declared = snap.declaredMeta.get(instance) ?? null;
  const stored = snap.metadata.get(instance) ?? null;
  return createHash("sha256")
    .update(JSON.stringify([declared, stored]))
    .digest("base64url");
}

/** Instances advised between two turns of the event loop in buildSnapshotYielding (a few ms). */
const ADVISE_BATCH = 100;
/** Instances whose kept advice is reused between two turns (a digest each: far cheaper than advice). */
const REUSE_BATCH = 2000;

/**
 * Advises each instance into `out` as SnapshotAdvice only, so at most one full advice is alive at a
 * time, pausing (yielding) after every ADVISE_BATCH instances advised. An instance `reuse` gives the
 * advice of (its kept advice and the inputs digest it matches) takes it as is.
 */
export function* adviseSnapshotSteps(
  facts: Iterable<InstanceFacts>,
  out: { readonly advice: Map<string, SnapshotAdvice>; readonly failed: SkippedInstance[]; reused: number },
  reuse: ((instance: string) => SnapshotAdvice | null) | null,
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
    if (one.advice[0]) out.advice.set(f.identity.instance, snapshotAdvice(one.advice[0]));
    out.failed.push(...one.failed);
    if (++n % ADVISE_BATCH === 0) yield;
  }
}

/** The caller's rows from the pipeline's (the web app adds which exporters each instance has). */
export type RowsOf<R extends FleetRow> = (
  rows: readonly FleetRow[],
  exporters: Readonly<Record<string, ExporterPresence>>,
) => R[];

export interface Snapshot<M extends StoredMetadata = StoredMetadata, R extends FleetRow = FleetRow> {
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
  readonly advice: ReadonlyMap<string, SnapshotAdvice>;
  readonly metadata: ReadonlyMap<string, M>;
  readonly missing: Readonly<Record<string, readonly string[]>>;
  readonly exporters: Readonly<Record<string, ExporterPresence>>;
  readonly skipped: readonly SkippedInstance[];
  readonly warnings: readonly string[];
  readonly ranking: FleetRanking;
  readonly rows: readonly R[];
  /** How the rows were made from the pipeline's, again on a revision. */
  readonly rowsOf: RowsOf<R>;
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

/** A declared metadata file as read (the web app's declared.ts reads one). */
export interface DeclaredFile {
  readonly file: string;
  /** The declarations, or null when the file could not be used. */
  readonly instances: MetadataByInstance | null;
  /** Why the file could not be used, or null. */
  readonly problem: string | null;
}

/** The declared metadata file overlaid on the facts, with the number of instances it declares facts for. */
export type DeclaredInfo = Omit<DeclaredFile, "instances"> & { readonly instances: number };

export interface SnapshotInput<M extends StoredMetadata, R extends FleetRow> {
  /** The facts as measured: the declared file's entries are overlaid here, then the stored metadata. */
  readonly fleet: Omit<FleetFacts, "plan">;
  readonly metadata: readonly M[];
  readonly storeProblem: string | null;
  /** The declared metadata file, overlaid before the stored metadata. */
  readonly declared?: DeclaredFile | null;
  /**
   * Advice kept from an earlier build of the same facts (the kept fleet read): an instance's is used
   * instead of advising it again when its inputs digest is the one adviceInputs gives now.
   */
  readonly reuse?: ReadonlyMap<string, ReusableAdvice> | null;
  readonly rowsOf: RowsOf<R>;
  readonly fetchedAt: number;
  readonly fetchMs: number;
  readonly window: string;
}

export function buildSnapshot<M extends StoredMetadata, R extends FleetRow>(
  input: SnapshotInput<M, R>,
  clock: () => number = () => performance.now(),
): Snapshot<M, R> {
  const steps = snapshotSteps(input, clock);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * buildSnapshot for a server: the same snapshot, with a turn of the event loop after every ADVISE_BATCH
 * instances advised, so that pages (the "reading the fleet" state among them) are served while a
 * 10,000-instance fleet is advised. `adviseMs` then includes those turns.
 */
export async function buildSnapshotYielding<M extends StoredMetadata, R extends FleetRow>(
  input: SnapshotInput<M, R>,
  clock: () => number = () => performance.now(),
): Promise<Snapshot<M, R>> {
  const steps = snapshotSteps(input, clock);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

/** The snapshot's work: both declaration layers, the advice in batches (a yield between), the ranking. */
export function* snapshotSteps<M extends StoredMetadata, R extends FleetRow>(
  input: SnapshotInput<M, R>,
  clock: () => number,
): Generator<void, Snapshot<M, R>> {
  const t0 = clock();
  const d = input.declared;
  const declaredMeta: MetadataByInstance = d?.instances ?? new Map();
  // Declared facts join the measured ones first; what users store is overlaid on both.
  const file = applyMetadata(input.fleet.facts, declaredMeta);
  const metadata = new Map(input.metadata.map((m) => [m.instance, m]));
  const measured = new Map(file.facts.map((f) => [f.identity.instance, f]));
  const merged = new Map<string, MergeResult>();
  for (const f of file.facts)
    merged.set(f.identity.instance, mergeMetadata(f, metadata.get(f.identity.instance)));
  const kept = { advice: new Map<string, SnapshotAdvice>(), failed: [] as SkippedInstance[], reused: 0 };
  const reuse = input.reuse;
  yield* adviseSnapshotSteps(
    [...merged.values()].map((m) => m.facts),
    kept,
    reuse?.size
      ? (instance) => {
          const r = reuse.get(instance);
          return r && r.inputs === adviceInputs({ metadata, declaredMeta }, instance) ? r.advice : null;
        }
      : null,
  );
  const skipped = [...input.fleet.skipped, ...kept.failed];
  const ranked = rank(kept.advice, merged, skipped.length);
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
    advice: kept.advice,
    metadata,
    missing: input.fleet.missing,
    exporters: input.fleet.exporters,
    skipped,
    warnings: [...input.fleet.warnings, ...file.warnings],
    ranking: ranked.ranking,
    rows: input.rowsOf(ranked.rows, input.fleet.exporters),
    rowsOf: input.rowsOf,
    summary: ranked.summary,
    storeProblem: input.storeProblem,
    declared: d ? { file: d.file, instances: d.instances?.size ?? 0, problem: d.problem } : null,
    declaredMeta,
    reused: kept.reused,
  };
}

function rank(
  advice: ReadonlyMap<string, SnapshotAdvice>,
  merged: ReadonlyMap<string, MergeResult>,
  skipped: number,
) {
  return rankRows(advice, new Map([...merged].map(([k, m]) => [k, m.facts])), skipped);
}

/** The snapshot with one instance's metadata replaced (or removed) and that instance re-advised. */
export function reviseSnapshot<M extends StoredMetadata, R extends FleetRow>(
  snap: Snapshot<M, R>,
  instance: string,
  meta: M | null,
): Snapshot<M, R> {
  const facts = snap.measured.get(instance);
  const metadata = new Map(snap.metadata);
  if (meta) metadata.set(instance, meta);
  else metadata.delete(instance);
  if (!facts) return { ...snap, metadata };
  const merged = new Map(snap.merged);
  const m = mergeMetadata(facts, meta);
  merged.set(instance, m);
  const advice = new Map(snap.advice);
  const one = adviseAll([m.facts]);
  if (one.advice[0]) advice.set(instance, snapshotAdvice(one.advice[0]));
  else advice.delete(instance);
  const skipped = [...snap.skipped.filter((s) => s.instance !== instance), ...one.failed];
  const ranked = rank(advice, merged, skipped.length);
  return {
    ...snap,
    metadata,
    merged,
    advice,
    skipped,
    ranking: ranked.ranking,
    rows: snap.rowsOf(ranked.rows, snap.exporters),
    summary: ranked.summary,
  };
}

/**
 * One instance's full advice, advised again from its facts with the stored metadata overlaid (what the
 * snapshot's SnapshotAdvice was made from): null when the snapshot has no advice for it (unknown or skipped).
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
