/** The rollout read API's bodies from the data layer's views (pure; shapes in lib/api-schema.ts). */
import type { NextActions, RolloutState } from "@untorn/rollout/state";
import type { RolloutResponse, RolloutSummaryJson } from "../../lib/api-schema.js";
import { lastGateOf, progressOf } from "../../lib/rollout-view.js";
import type { RolloutSummary, StoredRolloutView } from "./rollouts.js";

const isoOf = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

export function rolloutSummaryJson(r: RolloutSummary): RolloutSummaryJson {
  return {
    id: r.id,
    title: r.title,
    change: r.change,
    status: r.status,
    version: r.version,
    progress: { ...r.progress },
    currentWave: r.currentWave,
    lastGate: r.lastGate && { ...r.lastGate },
    createdBy: r.createdBy,
    createdAt: isoOf(r.createdAt),
    storedAt: r.storedAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
    updatedBy: r.updatedBy,
    problem: r.problem,
  };
}

export function summaryOfState(v: StoredRolloutView, change: string): RolloutSummary {
  const s: RolloutState = v.state;
  return {
    id: s.id,
    title: s.title,
    change,
    status: s.status,
    version: v.version,
    progress: progressOf(s),
    currentWave: s.currentWave,
    lastGate: lastGateOf(s.events),
    createdBy: s.createdBy.id,
    createdAt: s.createdAt,
    storedAt: v.storedAt,
    updatedAt: v.updatedAt,
    updatedBy: v.updatedBy,
    problem: null,
  };
}

export function rolloutResponse(
  v: StoredRolloutView,
  change: string,
  next: Pick<NextActions, "human" | "wakeAt">,
): RolloutResponse {
  const s = v.state;
  return {
    summary: rolloutSummaryJson(summaryOfState(v, change)),
    document: s,
    events: s.events.map(({ gate: _g, output: _o, ...e }) => e),
    gates: s.events.flatMap((e) => (e.gate ? [e.gate] : [])),
    next: {
      human: next.human.map((h) => ({
        kind: h.kind,
        ...(h.wave !== undefined ? { wave: h.wave } : {}),
        ...(h.instance !== undefined ? { instance: h.instance } : {}),
        message: h.message,
      })),
      wakeAt: next.wakeAt,
    },
  };
}
