import { consoleMetrics as C, TIME_TO_VERDICT_BUCKETS } from "@untorn/catalog/console-metrics";
import { GATE_KINDS, GATE_OUTCOMES } from "@untorn/rollout/events";
import { applyCommand, ROLLOUT_STATUSES, type RolloutState } from "@untorn/rollout/state";
import { cmd, playedRollout } from "@untorn/rollout/testing";
import { describe, expect, it } from "vitest";
import { exposition, type Family } from "../exposition.js";
import { rolloutFamilies } from "./rollout-metrics.js";

const T0 = 1_795_000_000;
const value = (fs: Family[], name: string, labels: Record<string, string> = {}, suffix = "") =>
  fs
    .find((f) => f.def.name === name)
    ?.samples.find(
      (s) => (s.suffix ?? "") === suffix && Object.entries(labels).every(([k, v]) => s.labels?.[k] === v),
    )?.value;

describe("rolloutFamilies", () => {
  const passed = playedRollout({
    t0: T0,
    rounds: 60,
    effect: { write_bytes_per_transaction: 0.6, write_ops_per_transaction: 0.7 },
  });
  const running = playedRollout({ t0: T0, rounds: 3 });
  const t = applyCommand(running, cmd({ type: "pause", reason: "lag on orders" }), T0 + 600);
  if (!t.ok) throw new Error(t.refusal.message);
  const unclear: RolloutState = t.state;
  const fs = rolloutFamilies([passed, unclear]);

  it("counts rollouts by status, every status present", () => {
    const samples = fs.find((f) => f.def === C.rollouts)!.samples;
    expect(samples.map((s) => s.labels?.status)).toEqual([...ROLLOUT_STATUSES]);
    expect(samples.reduce((n, s) => n + s.value, 0)).toBe(2);
    expect(value(fs, C.rollouts.name, { status: passed.status })).toBeGreaterThanOrEqual(1);
    expect(value(fs, C.scrapeSuccess.name)).toBe(1);
  });

  it("counts the audit's gate decisions by gate and outcome", () => {
    const gates = [passed, unclear].flatMap((s) => s.events.filter((e) => e.type === "gate"));
    const samples = fs.find((f) => f.def === C.gateResults)!.samples;
    expect(samples).toHaveLength(GATE_KINDS.length * GATE_OUTCOMES.length);
    expect(samples.reduce((n, s) => n + s.value, 0)).toBe(gates.length);
    expect(value(fs, C.gateResults.name, { gate: "bake", outcome: "pass" })).toBe(
      gates.filter((e) => e.gate?.gate === "bake" && e.gate.outcome === "pass").length,
    );
  });

  it("counts judged waves by verdict and times each from bake start to verdict", () => {
    const waves = [passed, unclear].flatMap((s) => s.waves);
    const judged = waves.filter((w) => ["passed", "failed", "inconclusive"].includes(w.phase));
    expect(judged.length).toBeGreaterThan(0);
    expect(value(fs, C.bakeVerdicts.name, { verdict: "passed" })).toBe(
      waves.filter((w) => w.phase === "passed").length,
    );
    expect(value(fs, C.timeToVerdict.name, {}, "_count")).toBe(judged.length);
    expect(value(fs, C.timeToVerdict.name, {}, "_sum")).toBe(
      judged.reduce((n, w) => n + (w.decidedAt! - w.bakeStart!), 0),
    );
    expect(fs.find((f) => f.def === C.timeToVerdict)!.samples).toHaveLength(
      TIME_TO_VERDICT_BUCKETS.length + 3,
    );
  });

  it("gives each paused rollout the time it began waiting and why", () => {
    const paused = [passed, unclear].filter((s) => s.status === "paused");
    expect(paused.map((s) => s.pause?.reason)).toEqual(["operator"]);
    const samples = fs.find((f) => f.def === C.waitingSince)!.samples;
    expect(samples).toEqual(
      paused.map((s) => ({
        labels: { rollout: s.id, title: s.title, reason: s.pause!.reason },
        value: s.pause!.at,
      })),
    );
  });

  it("says the store failed, and nothing else, when it could not be read", () => {
    expect(exposition(rolloutFamilies(null))).toBe(
      `# HELP ${C.scrapeSuccess.name} ${C.scrapeSuccess.help}\n# TYPE ${C.scrapeSuccess.name} gauge\n${C.scrapeSuccess.name} 0\n`,
    );
  });
});
