import "server-only";
/**
 * Rollouts for the console's write side: the runner's dependencies (the process's store, the clock of
 * the data source), the planner fed with the very facts the fleet pages show, and the declarations
 * the reconciler overlays on fresh facts. The engine decides; nothing here re-derives eligibility.
 *
 * Time: live, the wall clock. Replay, the recording's last evaluation time, frozen: gates read the
 * recording as it was then, and a bake window after a change point made "now" never fills.
 */
import { layerDeclarations, type MetadataByInstance } from "@untorn/fleet/pipeline";
import { type BakeEstimate, estimateBakes } from "@untorn/rollout/bake-estimate";
import type { Change } from "@untorn/rollout/change";
import { type Plan, planInputSchema, planRollout } from "@untorn/rollout/plan";
import type { Policy, PolicyInput } from "@untorn/rollout/policy";
import { planBakeEstimates } from "@untorn/rollout-runner/bake-estimate";
import { replayReconcileOptions } from "@untorn/rollout-runner/replay";
import {
  activeRollouts,
  getRollout,
  type RunnerDeps,
  type StoredRollout,
} from "@untorn/rollout-runner/runner";
import { type Env, env } from "../../env.js";
import { getFleetView, type SourceInfo } from "../fleet/data.js";
import { readDeclaredFile } from "../fleet/declared.js";
import { readSource } from "../fleet/source.js";
import { getStore } from "../store.js";

export interface RolloutClock {
  readonly now: () => number;
  /** Set in replay mode: the recording's end, where time stands still. */
  readonly frozenAt: number | null;
}

export async function rolloutClock(e: Env = env()): Promise<RolloutClock> {
  const src = await readSource(e);
  if (src.replay) {
    const end = src.replay.end;
    return { now: () => end, frozenAt: end };
  }
  return { now: () => Date.now() / 1000, frozenAt: null };
}

const log = (m: string) => console.log(`untorn: rollout ${m}`);

/** The runner's dependencies for this process: its store and the source's clock. */
export async function runnerDeps(e: Env = env()): Promise<RunnerDeps> {
  return { store: await getStore(e), clock: (await rolloutClock(e)).now, log };
}

export type PlanView =
  | {
      readonly kind: "planned";
      readonly plan: Plan;
      readonly source: SourceInfo;
      readonly frozenAt: number | null;
      /** Instances the fleet knows (for the editor's target list). */
      readonly known: readonly string[];
      /** The other active rollouts by the instances they touch (to link a blocking one). */
      readonly activeOn: ReadonlyMap<string, readonly string[]>;
      readonly unknownTargets: readonly string[];
    }
  | { readonly kind: "unavailable"; readonly reason: string };

/**
 * The engine's plan for `change` on `targets` (every instance when empty), with the other active
 * rollouts from the store, over the facts the pages show (measured, declared file, stored metadata).
 */
export async function planFor(
  input: { change: Change; policy: PolicyInput; targets: readonly string[] },
  e: Env = env(),
): Promise<PlanView> {
  const fleet = await getFleetView(e);
  const snap = fleet.snapshot;
  if (!snap)
    return {
      kind: "unavailable",
      reason: fleet.status.error ?? "no data source: there is no fleet to plan on",
    };
  const facts = [...snap.merged.values()].map((m) => m.facts);
  if (facts.length === 0) return { kind: "unavailable", reason: "the fleet has no instance with facts" };
  const known = facts.map((f) => f.identity.instance).sort();
  const knownSet = new Set(known);
  const unknownTargets = input.targets.filter((t) => !knownSet.has(t));
  const targets = input.targets.filter((t) => knownSet.has(t));
  let active: Awaited<ReturnType<typeof activeRollouts>>;
  try {
    active = await activeRollouts({ store: await getStore(e) });
  } catch (err) {
    return {
      kind: "unavailable",
      reason: `the store cannot list the active rollouts, so a plan could clash with one: ${(err as Error).message}`,
    };
  }
  const parsed = planInputSchema.parse({
    change: input.change,
    instances: facts,
    ...(input.targets.length > 0 ? { targets } : {}),
    activeRollouts: active,
    policy: input.policy,
  });
  const activeOn = new Map<string, string[]>();
  for (const r of active)
    for (const i of r.instances) activeOn.set(i, [...(activeOn.get(i) ?? []), r.rolloutId]);
  const plan = planRollout(parsed);
  const clock = await rolloutClock(e);
  return {
    kind: "planned",
    plan: { ...plan, bakeEstimates: await bakeEstimatesFor(plan, parsed.policy, clock.now(), e) },
    activeOn,
    source: fleet.source,
    frozenAt: clock.frozenAt,
    known,
    unknownTargets,
  };
}

/**
 * The dry run's time to a verdict per wave: each wave's baseline read from the source as the
 * reconciler would read it at a bake starting now (on a recording, with its own query texts). A
 * source that cannot answer leaves every estimate saying there is no baseline; the plan never fails on it.
 */
async function bakeEstimatesFor(plan: Plan, policy: Policy, now: number, e: Env): Promise<BakeEstimate[]> {
  const src = await readSource(e);
  if (!src.api) return estimateBakes(plan, policy, []);
  const replayed = src.replay ? replayReconcileOptions(src.api, src.replay) : null;
  try {
    const r = await planBakeEstimates(replayed?.api ?? src.api, plan, policy, {
      now,
      ...(replayed ? { rateWindow: replayed.rateWindow } : {}),
      ...(replayed?.bakeStepSeconds ? { bakeStepSeconds: replayed.bakeStepSeconds } : {}),
    });
    for (const w of r.warnings) log(`plan estimate: ${w}`);
    return r.estimates;
  } catch (err) {
    log(`plan estimate: ${(err as Error).message}`);
    return estimateBakes(plan, policy, []);
  }
}

/** The stored rollout, or null when there is none with that id. */
export async function loadRollout(id: string, e: Env = env()): Promise<StoredRollout | null> {
  try {
    return await getRollout({ store: await getStore(e) }, id);
  } catch (err) {
    // The store keys rollouts by UUID: another id names no rollout.
    if ((err as Error).name === "NotFoundError" || (err as Error).name === "StoreValidationError")
      return null;
    throw err;
  }
}

/**
 * What the reconciler overlays on the facts it fetches: the declared file, then what users stored
 * (the layers the pages apply, layered by the fleet pipeline).
 */
export async function declarations(e: Env = env()): Promise<MetadataByInstance> {
  const src = await readSource(e);
  const file = src.metadataFile ? readDeclaredFile(src.metadataFile) : null;
  return layerDeclarations(file?.instances, await (await getStore(e)).listInstanceMetadata());
}
