/**
 * The fleet profile: facts for every instance, the advisor's result for each, the ranking by expected
 * benefit × confidence, and the fleet table's rows and summary. What `untorn fleet` and `untorn advise`
 * show: the pipeline's declarations, advice and ranking (pipeline.ts, the web console's too), with the
 * full Advice kept for the CLI's output.
 */
import type { Advice } from "@untorn/advisor/advise";
import type { InstanceFacts } from "@untorn/advisor/facts";
import type { FleetRanking } from "@untorn/advisor/fleet";
import type { PromQueryApi } from "./api.js";
import {
  buildFleetFacts,
  type FleetFacts,
  type FleetFactsOptions,
  instanceFacts,
  type SkippedInstance,
} from "./facts.js";
import { type FleetMetadata, mergeMetadata } from "./metadata.js";
import { adviseAll, applyMetadata, type Declarations, type MetadataByInstance } from "./pipeline.js";
import type { FleetSummary, RankedFleetRow } from "./row.js";
import { rankedRows, rankRows } from "./rows.js";

export interface FleetProfile extends FleetFacts {
  /** Fact paths each instance took from the declared metadata. */
  readonly declared: Declarations["declared"];
  readonly advice: readonly Advice[];
  readonly ranking: FleetRanking;
  /** The fleet table's rows (row.ts) with the ranking's detail, in rank order. */
  readonly rows: readonly RankedFleetRow[];
  readonly summary: FleetSummary;
}

/** Profiles a set of facts (offline: `untorn advise` over a file, or facts built elsewhere). */
export function profileFacts(
  facts: readonly InstanceFacts[],
  skipped = 0,
): {
  advice: Advice[];
  ranking: FleetRanking;
  rows: RankedFleetRow[];
  summary: FleetSummary;
  failed: SkippedInstance[];
} {
  const { advice, failed } = adviseAll(facts);
  const byInstance = new Map(advice.map((a) => [a.identity.instance, a]));
  const factsByInstance = new Map(facts.map((f) => [f.identity.instance, f]));
  const r = rankRows(byInstance, factsByInstance, skipped + failed.length);
  return {
    advice,
    ranking: r.ranking,
    rows: rankedRows(r.rows, r.ranking, byInstance),
    summary: r.summary,
    failed,
  };
}

/**
 * Facts, advice and ranking for the whole fleet: a constant number of PromQL requests. Declared metadata,
 * when given, is overlaid on the measured facts first (metadata.ts says which side wins).
 */
export async function profileFleet(
  api: PromQueryApi,
  opts: FleetFactsOptions,
  metadata?: MetadataByInstance,
): Promise<FleetProfile> {
  const fleet = await buildFleetFacts(api, opts);
  const found = new Set([
    ...fleet.facts.map((f) => f.identity.instance),
    ...fleet.skipped.map((s) => s.instance),
  ]);
  const m = applyMetadata(fleet.facts, metadata, found);
  opts.onAdvising?.(m.facts.length);
  const { failed, ...profile } = profileFacts(m.facts, fleet.skipped.length);
  return {
    ...fleet,
    facts: m.facts,
    declared: m.declared,
    warnings: [...fleet.warnings, ...m.warnings],
    skipped: [...fleet.skipped, ...failed],
    ...profile,
  };
}

export interface InstanceProfile {
  readonly facts: InstanceFacts | null;
  /** Fact paths taken from the declared metadata. */
  readonly declared: readonly string[];
  /** Conflicts between declared and measured facts (the measured ones are used). */
  readonly conflicts: readonly string[];
  readonly advice: Advice | null;
  readonly missing: readonly string[];
  readonly skipped: SkippedInstance | null;
  readonly fleet: FleetFacts;
}

/** One instance's facts and advice (the fleet plan narrowed to the instance). */
export async function profileInstance(
  api: PromQueryApi,
  instance: string,
  opts: FleetFactsOptions,
  metadata?: FleetMetadata | null,
): Promise<InstanceProfile> {
  const r = await instanceFacts(api, instance, opts);
  const skipped = r.skipped.find((s) => s.instance === instance) ?? null;
  if (!r.instance)
    return { facts: null, declared: [], conflicts: [], advice: null, missing: [], skipped, fleet: r };
  const m = mergeMetadata(r.instance, metadata);
  const { advice, failed } = adviseAll([m.facts]);
  return {
    facts: m.facts,
    declared: m.declared,
    conflicts: m.conflicts,
    advice: advice[0] ?? null,
    missing: r.missing[instance] ?? [],
    skipped: failed[0] ?? null,
    fleet: r,
  };
}
