/**
 * The console's rollout metrics (pure): stored rollouts → the families of @untorn/catalog's
 * consoleMetrics, fresh per scrape. Every status, gate × outcome and verdict is present (0 when none),
 * so a rate or an absence never depends on which rollouts happen to exist.
 */
import { consoleMetrics as C, TIME_TO_VERDICT_BUCKETS } from "@untorn/catalog/console-metrics";
import { GATE_KINDS, GATE_OUTCOMES } from "@untorn/rollout/events";
import { ROLLOUT_STATUSES, type RolloutState } from "@untorn/rollout/state";
import { type Family, histogramSamples } from "../exposition.js";

const VERDICTS = ["passed", "failed", "inconclusive"] as const;

/** Seconds from bake start to verdict of every judged wave. */
function timesToVerdict(states: readonly RolloutState[]): number[] {
  const out: number[] = [];
  for (const s of states)
    for (const w of s.waves)
      if ((VERDICTS as readonly string[]).includes(w.phase) && w.bakeStart !== null && w.decidedAt !== null)
        out.push(Math.max(0, w.decidedAt - w.bakeStart));
  return out;
}

export function rolloutFamilies(states: readonly RolloutState[] | null): Family[] {
  const up: Family = { def: C.scrapeSuccess, samples: [{ value: states ? 1 : 0 }] };
  if (!states) return [up];
  const byStatus = ROLLOUT_STATUSES.map((status) => ({
    labels: { status },
    value: states.filter((s) => s.status === status).length,
  }));
  const gates = new Map<string, number>();
  for (const s of states)
    for (const e of s.events)
      if (e.type === "gate" && e.gate) {
        const k = `${e.gate.gate}|${e.gate.outcome}`;
        gates.set(k, (gates.get(k) ?? 0) + 1);
      }
  const gateSamples = GATE_KINDS.flatMap((gate) =>
    GATE_OUTCOMES.map((outcome) => ({
      labels: { gate, outcome },
      value: gates.get(`${gate}|${outcome}`) ?? 0,
    })),
  );
  const verdicts = VERDICTS.map((verdict) => ({
    labels: { verdict },
    value: states.reduce((n, s) => n + s.waves.filter((w) => w.phase === verdict).length, 0),
  }));
  const waiting = states
    .filter((s) => s.status === "paused" && s.pause)
    .map((s) => ({ labels: { rollout: s.id, title: s.title, reason: s.pause!.reason }, value: s.pause!.at }));
  return [
    up,
    { def: C.rollouts, samples: byStatus },
    { def: C.gateResults, samples: gateSamples },
    { def: C.bakeVerdicts, samples: verdicts },
    { def: C.timeToVerdict, samples: histogramSamples(timesToVerdict(states), TIME_TO_VERDICT_BUCKETS) },
    { def: C.waitingSince, samples: waiting },
  ];
}
