/**
 * The plan: waves from topology. A canary replica beside an untouched sibling replica of the same
 * cluster (the concurrent control) → the other replicas in batches bounded by the blast-radius budget →
 * the control replicas themselves (judged before/after, nothing concurrent is left untouched) →
 * primaries last, by switchover. Only instances whose advisor safety gate allows the change are
 * eligible; every exclusion is listed with its reason. Pure and deterministic.
 */
import { type Advice, advise } from "@untorn/advisor/advise";
import { type InstanceFacts, instanceFactsSchema } from "@untorn/advisor/facts";
import type { Finding } from "@untorn/advisor/rule";
import { REPLICATION_ROLES } from "@untorn/vocabulary/words";
import { z } from "zod";
import { bakeEstimateSchema } from "./bake-estimate.js";
import {
  type Change,
  changeSchema,
  currentValueOf,
  INELIGIBLE_REASONS,
  type InstanceStep,
  instanceStepSchema,
  removesProtection,
  stepFor,
} from "./change.js";
import { policySchema } from "./policy.js";

export const EXCLUSION_REASONS = [
  ...INELIGIBLE_REASONS,
  "no-control-sibling",
  "no-switchover-target",
  "role-unknown",
  "another-rollout-active",
  "duplicate-instance",
] as const;
export type ExclusionReason = (typeof EXCLUSION_REASONS)[number];

export const activeRolloutSchema = z.strictObject({
  rolloutId: z.string().min(1),
  instances: z.array(z.string()),
});
export type ActiveRollout = z.infer<typeof activeRolloutSchema>;

export const planInputSchema = z
  .strictObject({
    $schema: z.string().optional(),
    change: changeSchema,
    instances: z
      .array(instanceFactsSchema)
      .min(1)
      .max(10_000)
      .describe("InstanceFacts of every candidate (identity.cluster and identity.role drive the waves)."),
    targets: z
      .array(z.string().min(1))
      .optional()
      .describe(
        "Instances to change; default: every instance given. The others can still serve as controls.",
      ),
    activeRollouts: z
      .array(activeRolloutSchema)
      .default([])
      .describe("Other rollouts still active, with the instances they touch."),
    policy: policySchema.prefault({}),
  })
  .meta({ id: "RolloutPlanInput", description: "Input of the rollout planner (untorn rollout plan)." });
export type PlanInput = z.output<typeof planInputSchema>;
export type PlanInputJson = z.input<typeof planInputSchema>;

export const gainRangeSchema = z.strictObject({ low: z.number(), high: z.number() });

export const expectedGainSchema = z.strictObject({
  ruleId: z.string(),
  title: z.string(),
  kind: z.enum(["throughput", "efficiency", "none"]),
  throughput: gainRangeSchema,
  writeBytesPerTxn: gainRangeSchema.nullable(),
  writeOpsPerTxn: gainRangeSchema.nullable(),
  fsyncsPerTxn: gainRangeSchema.nullable(),
  basis: z.string(),
  confidence: z.number().min(0).max(1),
});
export type ExpectedGain = z.infer<typeof expectedGainSchema>;

export const WAVE_KINDS = ["canary", "replicas", "controls", "primaries"] as const;
export type WaveKind = (typeof WAVE_KINDS)[number];

export const plannedWaveSchema = z.strictObject({
  index: z.number().int().min(0),
  kind: z.enum(WAVE_KINDS),
  instances: z.array(z.string()).min(1),
  controls: z
    .array(z.string())
    .describe("Untouched sibling replicas judged concurrently; [] = before/after."),
});
export type PlannedWave = z.infer<typeof plannedWaveSchema>;

export const dryRunRowSchema = z.strictObject({
  instance: z.string(),
  cluster: z.string().nullable(),
  role: z.string().nullable(),
  wave: z.number().int().nullable(),
  control: z.boolean().describe("Serves as a control for an earlier wave."),
  current: z.string().nullable(),
  target: z.string().nullable(),
  restart: z.boolean().nullable(),
  method: z.string().nullable(),
  gate: z.enum(["verified", "unverified", "unsafe"]),
  gateSummary: z.string(),
  demoOnly: z
    .boolean()
    .optional()
    .describe("true: the gate's verification rests on torn-write protection declared for a demo only."),
  expectedGain: expectedGainSchema.nullable(),
  excluded: z.enum(EXCLUSION_REASONS).nullable(),
});
export type DryRunRow = z.infer<typeof dryRunRowSchema>;

export const exclusionSchema = z.strictObject({
  instance: z.string(),
  reason: z.enum(EXCLUSION_REASONS),
  detail: z.string(),
  toVerify: z
    .array(z.string())
    .describe("What would make the safety gate verified (gate-not-verified only)."),
});
export type Exclusion = z.infer<typeof exclusionSchema>;

/**
 * Exclusions that say the same thing (reason, detail, what to verify and, from `activeOn`, the other
 * rollouts blocking the instance) as one group naming every instance, in the plan's order: twelve servers
 * on one unverified storage read once. The plan editor, the rollout page and the change report list these.
 */
export function groupExclusions(
  exclusions: readonly Exclusion[],
  activeOn: ReadonlyMap<string, readonly string[]> = new Map(),
): { instances: string[]; x: Exclusion }[] {
  const groups = new Map<string, { instances: string[]; x: Exclusion }>();
  for (const x of exclusions) {
    const key = JSON.stringify([x.reason, x.detail, x.toVerify, activeOn.get(x.instance) ?? []]);
    const g = groups.get(key);
    if (g) g.instances.push(x.instance);
    else groups.set(key, { instances: [x.instance], x });
  }
  return [...groups.values()];
}

export const instanceInfoSchema = z.strictObject({
  instance: z.string(),
  cluster: z.string().nullable(),
  role: z.enum(REPLICATION_ROLES).nullable(),
});

export const planSchema = z
  .strictObject({
    change: changeSchema,
    removesTornPageProtection: z.boolean(),
    waves: z.array(plannedWaveSchema),
    steps: z.array(instanceStepSchema).describe("One per instance in a wave, in wave order."),
    exclusions: z.array(exclusionSchema),
    dryRun: z.array(dryRunRowSchema),
    topology: z.array(instanceInfoSchema),
    hypothesis: z.strictObject({
      findings: z.array(
        z.strictObject({ instance: z.string(), ruleId: z.string(), title: z.string(), summary: z.string() }),
      ),
      summary: z.string(),
    }),
    bakeEstimates: z
      .array(bakeEstimateSchema)
      .optional()
      .describe(
        "Per wave, the bake its judgement needs for the advisor's expected effect from the baseline's own noise (bake-estimate.ts); added by the dry run of `untorn rollout plan` and the console, which read the baselines.",
      ),
  })
  .meta({ id: "RolloutPlan", description: "Waves, per-instance steps, exclusions and dry run." });
export type Plan = z.infer<typeof planSchema>;

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Variables a change touches, to find the advisor finding that proposed it. */
function changedVariable(change: Change): string {
  switch (change.kind) {
    case "doublewrite-off":
    case "doublewrite-on":
    case "doublewrite-detect-only":
      return "innodb_doublewrite";
    case "doublewrite-pages":
      return "innodb_doublewrite_pages";
    case "flush-method":
      return "innodb_flush_method";
    case "custom-variable":
      return change.variable;
    case "atomic-storage":
      return change.platform === "rds-blue-green"
        ? "rds.optimized_writes"
        : change.platform === "alibaba-16k"
          ? "alibaba.16k_atomic_write"
          : "storage";
  }
}

/** The advisor finding behind this change on this instance: its expected gain and confidence. */
export function findingFor(change: Change, advice: Advice): Finding | null {
  const variable = changedVariable(change);
  const target =
    change.kind === "doublewrite-off"
      ? "OFF"
      : change.kind === "doublewrite-on"
        ? "ON"
        : change.kind === "doublewrite-detect-only"
          ? "DETECT_ONLY"
          : null;
  const matches = (f: Finding) =>
    f.actions.some((a) =>
      a.changes.some((c) => c.variable === variable && (target === null || c.to.toUpperCase() === target)),
    ) ||
    // A blocked finding lost its unsafe actions to the gate but keeps its expected gain.
    (f.blocked !== null && removesProtection(change) && f.expectedGain !== null);
  return (
    advice.findings.find((f) => matches(f) && f.expectedGain !== null) ??
    advice.findings.find(matches) ??
    null
  );
}

function gainOf(f: Finding | null): ExpectedGain | null {
  if (!f?.expectedGain) return null;
  const g = f.expectedGain;
  return {
    ruleId: f.ruleId,
    title: f.title,
    kind: g.kind,
    throughput: { ...g.throughput },
    writeBytesPerTxn: g.writeBytesPerTxn ? { ...g.writeBytesPerTxn } : null,
    writeOpsPerTxn: g.writeOpsPerTxn ? { ...g.writeOpsPerTxn } : null,
    fsyncsPerTxn: g.fsyncsPerTxn ? { ...g.fsyncsPerTxn } : null,
    basis: g.basis,
    confidence: f.confidence,
  };
}

/** Splits `items` into chunks that respect the wave budget and the per-cluster share. */
function batches(
  items: readonly { instance: string; cluster: string }[],
  maxPerWave: number,
  perCluster: (cluster: string) => number,
): string[][] {
  const out: string[][] = [];
  const left = [...items];
  while (left.length > 0) {
    const wave: string[] = [];
    const used = new Map<string, number>();
    for (let i = 0; i < left.length && wave.length < maxPerWave; ) {
      const it = left[i]!;
      const n = used.get(it.cluster) ?? 0;
      if (n < perCluster(it.cluster)) {
        wave.push(it.instance);
        used.set(it.cluster, n + 1);
        left.splice(i, 1);
      } else i++;
    }
    out.push(wave);
  }
  return out;
}

/**
 * Plans a rollout. `input` must be validated (planInputSchema.parse); the result is a pure function
 * of it. A plan with no waves is valid: every instance is excluded, each with its reason.
 */
export function planRollout(input: PlanInput): Plan {
  const { change, policy } = input;
  const needsGate = removesProtection(change);
  const exclusions: Exclusion[] = [];
  const exclude: ExcludeInstance = (instance, reason, detail, toVerify = []) =>
    exclusions.push({ instance, reason, detail, toVerify });

  const facts = firstOfEachInstance(input.instances, exclude);
  const targets = input.targets ? new Set(input.targets) : null;
  const busy = new Map<string, string>();
  for (const r of input.activeRollouts) for (const i of r.instances) busy.set(i, r.rolloutId);
  const { advice, steps, eligible } = eligibleSteps(facts, change, targets, busy, needsGate, exclude);

  const topology = clusterTopology(facts);
  const controlOf = reserveControls(topology.replicasOf, eligible, busy);
  const byRole = assignTargets(eligible, topology, controlOf, policy.requireControl, exclude);
  const primaries = primariesToChange(byRole, change, policy.includePrimaries, exclude);
  const waves = planWaves(byRole, primaries, controlOf, topology, policy);

  const dryRun = dryRunRows({ change, facts, targets, waves, steps, advice, exclusions });
  return {
    change,
    removesTornPageProtection: needsGate,
    waves,
    steps: waves.flatMap((w) => w.instances.map((i) => steps.get(i)!)),
    exclusions: exclusions.sort((a, b) => byName(a.instance, b.instance)),
    dryRun,
    topology: facts.map((f) => ({
      instance: f.identity.instance,
      cluster: f.identity.cluster ?? null,
      role: f.identity.role ?? null,
    })),
    hypothesis: {
      findings: hypothesisFindings(change, waves, advice),
      summary: hypothesisSummary(change, dryRun),
    },
  };
}

type ExcludeInstance = (
  instance: string,
  reason: ExclusionReason,
  detail: string,
  toVerify?: string[],
) => void;

/** An instance to change and its cluster (for the blast-radius budget). */
interface Target {
  readonly instance: string;
  readonly cluster: string;
}

/** The instances by name, the first of each: a repeated one is excluded. */
function firstOfEachInstance(instances: readonly InstanceFacts[], exclude: ExcludeInstance): InstanceFacts[] {
  const seen = new Set<string>();
  const facts: InstanceFacts[] = [];
  for (const f of instances) {
    if (seen.has(f.identity.instance)) {
      exclude(
        f.identity.instance,
        "duplicate-instance",
        "The instance appears more than once in the input; the first is used.",
      );
      continue;
    }
    seen.add(f.identity.instance);
    facts.push(f);
  }
  return facts.sort((a, b) => byName(a.identity.instance, b.identity.instance));
}

/**
 * The advice of every instance, and the step of each target the change may be made on: its role is
 * known, no other rollout is active on it, the change applies, and the safety gate is verified
 * where the change removes torn-page protection. The others are excluded.
 */
function eligibleSteps(
  facts: readonly InstanceFacts[],
  change: Change,
  targets: ReadonlySet<string> | null,
  busy: ReadonlyMap<string, string>,
  needsGate: boolean,
  exclude: ExcludeInstance,
): { advice: Map<string, Advice>; steps: Map<string, InstanceStep>; eligible: Set<string> } {
  const advice = new Map<string, Advice>();
  const steps = new Map<string, InstanceStep>();
  const eligible = new Set<string>();
  for (const f of facts) {
    const id = f.identity.instance;
    const a = advise(f);
    advice.set(id, a);
    if (targets && !targets.has(id)) continue;
    const role = f.identity.role ?? null;
    if (role === null) {
      exclude(id, "role-unknown", "The replication role is unknown: declare it in the fleet metadata.");
      continue;
    }
    const other = busy.get(id);
    if (other !== undefined) {
      exclude(id, "another-rollout-active", `Rollout ${other} is active on this instance.`);
      continue;
    }
    const s = stepFor(change, f);
    if (!s.ok) {
      exclude(id, s.ineligible.reason, s.ineligible.detail);
      continue;
    }
    if ((needsGate || s.step.removesTornPageProtection) && a.safetyGate.status !== "verified") {
      exclude(id, "gate-not-verified", `The safety gate reads ${a.safetyGate.summary}`, [
        ...a.safetyGate.toVerify,
      ]);
      continue;
    }
    steps.set(id, s.step);
    eligible.add(id);
  }
  return { advice, steps, eligible };
}

/** Cluster and role per instance, and the replicas of each cluster (by name). */
interface Topology {
  /** An instance without a cluster is its own cluster (no sibling). */
  readonly clusterOf: (id: string) => string;
  readonly roleOf: (id: string) => InstanceFacts["identity"]["role"] | null;
  readonly replicasOf: ReadonlyMap<string, readonly string[]>;
}

function clusterTopology(facts: readonly InstanceFacts[]): Topology {
  const byId = new Map(facts.map((f) => [f.identity.instance, f]));
  const clusterOf = (id: string) => byId.get(id)!.identity.cluster ?? `(no cluster) ${id}`;
  const roleOf = (id: string) => byId.get(id)!.identity.role ?? null;
  const replicasOf = new Map<string, string[]>();
  for (const f of facts) {
    if (f.identity.role !== "replica") continue;
    const c = clusterOf(f.identity.instance);
    replicasOf.set(c, [...(replicasOf.get(c) ?? []), f.identity.instance]);
  }
  return { clusterOf, roleOf, replicasOf };
}

/**
 * One reserved control per cluster of two or more replicas: an untouched replica, preferably one that
 * is not changed at all, else the last eligible one.
 */
function reserveControls(
  replicasOf: Topology["replicasOf"],
  eligible: ReadonlySet<string>,
  busy: ReadonlyMap<string, string>,
): Map<string, string> {
  const controlOf = new Map<string, string>();
  for (const [cluster, replicas] of [...replicasOf].sort((a, b) => byName(a[0], b[0]))) {
    if (replicas.length < 2) continue;
    const untouched = replicas.filter((r) => !eligible.has(r) && !busy.has(r));
    const pick = untouched[0] ?? [...replicas].filter((r) => eligible.has(r)).at(-1);
    if (pick !== undefined) controlOf.set(cluster, pick);
  }
  return controlOf;
}

/** The eligible instances by the wave they may go in, by name. */
interface TargetsByRole {
  readonly replicas: Target[];
  /** The reserved controls, changed after the replicas they served. */
  readonly controls: Target[];
  readonly primaries: Target[];
}

/**
 * Sorts the eligible instances into replicas, reserved controls and primaries. A replica without a
 * control in its cluster, or a standalone server, is judged before/after unless a control is
 * required; then it is excluded.
 */
function assignTargets(
  eligible: ReadonlySet<string>,
  topology: Topology,
  controlOf: ReadonlyMap<string, string>,
  requireControl: boolean,
  exclude: ExcludeInstance,
): TargetsByRole {
  const byRole: TargetsByRole = { replicas: [], controls: [], primaries: [] };
  for (const id of [...eligible].sort(byName)) {
    const cluster = topology.clusterOf(id);
    const role = topology.roleOf(id);
    if (role === "replica") {
      if (controlOf.get(cluster) === id) byRole.controls.push({ instance: id, cluster });
      else if (controlOf.has(cluster) || !requireControl) byRole.replicas.push({ instance: id, cluster });
      else {
        exclude(
          id,
          "no-control-sibling",
          `Cluster ${cluster} has no second replica to serve as the concurrent control.`,
        );
      }
    } else if (role === "primary") {
      byRole.primaries.push({ instance: id, cluster });
    } else if (role === "standalone" && !requireControl) {
      // Without a required control a standalone server is judged before/after, like a lone replica.
      byRole.replicas.push({ instance: id, cluster });
    } else {
      exclude(
        id,
        "no-control-sibling",
        "A standalone server has no sibling replica to serve as the concurrent control (plan it without a required control to judge it before/after).",
      );
    }
  }
  return byRole;
}

/**
 * The primaries the plan changes: none unless the policy includes them, and each only with a
 * replica of its cluster in the rollout to switch over to, unless the change needs no switchover
 * (Alibaba's replicas inherit from the primary; RDS Blue/Green switches over itself).
 */
function primariesToChange(
  byRole: TargetsByRole,
  change: Change,
  includePrimaries: boolean,
  exclude: ExcludeInstance,
): Target[] {
  if (!includePrimaries) return [];
  const inherits = change.kind === "atomic-storage" && change.platform === "alibaba-16k";
  const rdsBlueGreen = change.kind === "atomic-storage" && change.platform === "rds-blue-green";
  const changedReplica = (cluster: string) =>
    byRole.replicas.some((r) => r.cluster === cluster) || byRole.controls.some((r) => r.cluster === cluster);
  return byRole.primaries.filter((p) => {
    if (inherits || rdsBlueGreen || changedReplica(p.cluster)) return true;
    exclude(
      p.instance,
      "no-switchover-target",
      `Cluster ${p.cluster} has no replica in this rollout to switch over to before the primary is changed.`,
    );
    return false;
  });
}

/**
 * The waves: a canary replica (the first, by cluster and name, whose cluster has a control), the
 * other replicas in batches within the budget and the per-cluster share, each beside its clusters'
 * controls, then the controls, then the primaries (the canary when they are all there is).
 */
function planWaves(
  byRole: TargetsByRole,
  primaries: readonly Target[],
  controlOf: ReadonlyMap<string, string>,
  topology: Topology,
  policy: PlanInput["policy"],
): PlannedWave[] {
  const waves: PlannedWave[] = [];
  const share = (cluster: string) =>
    Math.max(1, Math.floor(policy.maxClusterShare * (topology.replicasOf.get(cluster)?.length ?? 1)));
  const controlsFor = (ids: readonly string[]) =>
    [
      ...new Set(
        ids.map((i) => controlOf.get(topology.clusterOf(i))).filter((x): x is string => x !== undefined),
      ),
    ]
      .filter((c) => !ids.includes(c))
      .sort(byName);
  const canary = byRole.replicas.find((r) => controlOf.has(r.cluster)) ?? byRole.replicas[0];
  if (canary)
    waves.push({
      index: 0,
      kind: "canary",
      instances: [canary.instance],
      controls: controlsFor([canary.instance]),
    });
  const rest = byRole.replicas.filter((r) => r !== canary);
  for (const b of batches(rest, policy.maxInstancesPerWave, share))
    waves.push({ index: waves.length, kind: "replicas", instances: b, controls: controlsFor(b) });
  for (const b of batches(byRole.controls, policy.maxInstancesPerWave, () => 1))
    waves.push({ index: waves.length, kind: "controls", instances: b, controls: [] });
  for (const b of batches(primaries, policy.maxInstancesPerWave, () => 1))
    waves.push({
      index: waves.length,
      kind: waves.length === 0 ? "canary" : "primaries",
      instances: b,
      controls: [],
    });
  return waves;
}

/** One row per target and per control of a wave (every instance without targets), by name. */
function dryRunRows(plan: {
  readonly change: Change;
  readonly facts: readonly InstanceFacts[];
  readonly targets: ReadonlySet<string> | null;
  readonly waves: readonly PlannedWave[];
  readonly steps: ReadonlyMap<string, InstanceStep>;
  readonly advice: ReadonlyMap<string, Advice>;
  readonly exclusions: readonly Exclusion[];
}): DryRunRow[] {
  const { change, targets } = plan;
  const waveOf = new Map<string, number>();
  for (const w of plan.waves) for (const i of w.instances) waveOf.set(i, w.index);
  const controls = new Set(plan.waves.flatMap((w) => w.controls));
  const excluded = new Map(plan.exclusions.map((e) => [e.instance, e.reason]));
  return plan.facts
    .filter((f) => !targets || targets.has(f.identity.instance) || controls.has(f.identity.instance))
    .map((f) => {
      const id = f.identity.instance;
      const a = plan.advice.get(id)!;
      const s = plan.steps.get(id) ?? null;
      const wave = waveOf.get(id) ?? null;
      return {
        instance: id,
        cluster: f.identity.cluster ?? null,
        role: f.identity.role ?? null,
        wave,
        control: controls.has(id),
        current: s?.current ?? currentValueOf(change, f),
        target: wave === null ? null : (s?.target ?? null),
        restart: wave === null ? null : (s?.restart ?? null),
        method: wave === null ? null : (s?.method ?? null),
        gate: a.safetyGate.status,
        gateSummary: a.safetyGate.summary,
        ...(a.safetyGate.demoOnly ? { demoOnly: true } : {}),
        expectedGain: gainOf(findingFor(change, a)),
        excluded: excluded.get(id) ?? null,
      };
    });
}

/** The advisor finding behind the change on each instance of a wave, in wave order. */
function hypothesisFindings(
  change: Change,
  waves: readonly PlannedWave[],
  advice: ReadonlyMap<string, Advice>,
): Plan["hypothesis"]["findings"] {
  return waves
    .flatMap((w) => w.instances)
    .flatMap((id) => {
      const f = findingFor(change, advice.get(id)!);
      return f ? [{ instance: id, ruleId: f.ruleId, title: f.title, summary: f.summary }] : [];
    });
}

export function hypothesisSummary(change: Change, rows: readonly DryRunRow[]): string {
  const gains = rows.filter((r) => r.wave !== null && r.expectedGain).map((r) => r.expectedGain!);
  const pct = (x: number) => `${Math.round(x * 100)}%`;
  if (gains.length === 0)
    return `No advisor finding quantifies the gain of ${changeLabel(change)} on the planned instances; the judge still checks the guardrails.`;
  const lo = Math.min(...gains.map((g) => g.throughput.low));
  const hi = Math.max(...gains.map((g) => g.throughput.high));
  const bytes = gains.flatMap((g) => (g.writeBytesPerTxn ? [g.writeBytesPerTxn] : []));
  const bytesText =
    bytes.length > 0
      ? `, write bytes per transaction ${pct(Math.min(...bytes.map((b) => b.low)))} to ${pct(Math.max(...bytes.map((b) => b.high)))} lower`
      : "";
  // A range that rounds to 0% says nothing (the instances are not write-bound): it is left out.
  const throughputText =
    pct(hi) === "0%" ? "" : `write throughput ${pct(lo)} to ${pct(hi)} higher where it is write-bound`;
  const expects = [throughputText, bytesText.replace(/^, /, "")].filter(Boolean).join(", ");
  const n = `${gains.length} instance${gains.length === 1 ? "" : "s"} with a finding`;
  if (expects === "")
    return `${changeLabel(change)}: the advisor's findings put no figure on the gain (${n}); the judge still checks the guardrails.`;
  return `${changeLabel(change)}: the advisor expects ${expects} (${n}).`;
}

function changeLabel(change: Change): string {
  return changedVariable(change) === "storage" ? "the storage migration" : changedVariable(change);
}
