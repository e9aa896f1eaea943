/**
 * Internals the transitions share (createRollout, applyCommand, reconcile, nextActions): the Draft a
 * transition edits, the plan lookups (step, waveOfReplicas), isChanged, advance to the next wave, and iso.
 */
import { type RolloutEvent, SYSTEM } from "./events.js";
import type { InstanceState, RolloutState, WaveState } from "./state-schema.js";

/** Mutable draft of a transition: copies the state once, appends events. */
export class Draft {
  readonly s: RolloutState;
  readonly events: RolloutEvent[] = [];
  constructor(
    state: RolloutState,
    readonly now: number,
  ) {
    // The plan and appended events are never mutated: share them, copy the rest. Spreading `state`
    // first keeps its key order, so a transition that changes nothing serializes as its input did.
    const { events, plan, ...rest } = state;
    this.s = { ...state, ...structuredClone(rest), plan, events: [...events] };
  }
  emit(e: Omit<RolloutEvent, "seq" | "at"> & { at?: number }): void {
    const event = { ...e, at: e.at ?? this.now, seq: this.s.events.length + 1 } as RolloutEvent;
    this.s.events.push(event);
    this.events.push(event);
  }
  inst(id: string): InstanceState | undefined {
    return this.s.instances.find((i) => i.instance === id);
  }
  wave(i: number | null): WaveState | undefined {
    return i === null ? undefined : this.s.waves[i];
  }
  done(): RolloutState {
    if (this.events.length > 0) this.s.revision += 1;
    return this.s;
  }
}

const stepIndex = new WeakMap<
  RolloutState["plan"]["steps"],
  Map<string, RolloutState["plan"]["steps"][number]>
>();
/** The planned step of an instance (indexed once per plan: reconcile runs over thousands of instances). */
export const step = (s: RolloutState, instance: string) => {
  let index = stepIndex.get(s.plan.steps);
  if (!index) {
    index = new Map(s.plan.steps.map((x) => [x.instance, x]));
    stepIndex.set(s.plan.steps, index);
  }
  return index.get(instance);
};

/** Whether the instance's step changed it (applied, verified or failed): what a revert takes back. */
export const isChanged = (i: InstanceState): boolean =>
  i.status === "applied" || i.status === "verified" || i.status === "failed";

/** Whether every changed instance of the wave is a replica (by the plan's roles): catch-up applies. */
export function waveOfReplicas(s: RolloutState, wave: number): boolean {
  const ids = s.plan.waves[wave]?.instances ?? [];
  return (
    ids.length > 0 && ids.every((id) => s.plan.dryRun.find((r) => r.instance === id)?.role === "replica")
  );
}

/** Moves to the next wave after a pass, or completes. */
export function advance(d: Draft): void {
  const s = d.s;
  const next = (s.currentWave ?? -1) + 1;
  if (next >= s.waves.length) {
    s.currentWave = null;
    s.status = "completed";
    d.emit({ actor: SYSTEM, type: "completed", message: "Every wave passed." });
    return;
  }
  s.currentWave = next;
  if (s.policy.approval === "first-wave") {
    const w = s.waves[next]!;
    w.approvedAt = d.now;
    w.approvedBy = SYSTEM;
  }
}

export function iso(t: number): string {
  return new Date(t * 1000).toISOString();
}
