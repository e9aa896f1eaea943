import { playedRollout } from "@untorn/rollout/testing";
import { describe, expect, it } from "vitest";
import {
  againstOf,
  effectText,
  intervalText,
  isActiveStatus,
  lastGateOf,
  OUTCOME_MEANING,
  progressOf,
  qualityFlags,
  savedApart,
  signedPct,
  sortRollouts,
} from "./rollout-view.js";

const T0 = 1_795_000_000;

describe("sortRollouts", () => {
  it("puts rollouts someone still acts on first, newest first within a state", () => {
    const saved = new Date(0);
    const list = [
      { id: "a", status: "completed" as const, createdAt: 300, storedAt: saved },
      { id: "b", status: "active" as const, createdAt: 100, storedAt: saved },
      { id: "c", status: "aborted" as const, createdAt: 400, storedAt: saved },
      { id: "d", status: "paused" as const, createdAt: 200, storedAt: saved },
      { id: "e", status: "active" as const, createdAt: 150, storedAt: saved },
      { id: "f", status: "halted" as const, createdAt: 50, storedAt: saved },
    ];
    expect(sortRollouts(list).map((r) => r.id)).toEqual(["e", "b", "d", "f", "a", "c"]);
    expect(list[0]!.id).toBe("a");
    expect(["active", "paused", "halted", "reverting"].every((s) => isActiveStatus(s as never))).toBe(true);
    expect(isActiveStatus("completed")).toBe(false);
  });

  it("on a recording, where rollouts share the rollout clock's time, puts the one saved last first", () => {
    const at = (iso: string) => new Date(iso);
    const list = [
      { id: "a", status: "active" as const, createdAt: T0, storedAt: at("2026-12-03T10:00:00Z") },
      { id: "b", status: "active" as const, createdAt: T0, storedAt: at("2026-12-03T10:07:00Z") },
    ];
    expect(sortRollouts(list).map((r) => r.id)).toEqual(["b", "a"]);
    // Only a save a minute or more from the rollout's clock is worth showing beside it.
    expect(savedApart(T0, new Date((T0 + 30) * 1000))).toBeNull();
    expect(savedApart(T0, at("2026-12-03T10:07:00Z"))).toEqual(at("2026-12-03T10:07:00Z"));
  });
});

describe("wording", () => {
  it("signs percentages from ratios, with a true minus", () => {
    expect(signedPct(0.62)).toBe("−38.0%");
    expect(signedPct(1.051)).toBe("+5.1%");
    expect(signedPct(1)).toBe("0.0%");
    expect(signedPct(null)).toBe("–");
    expect(signedPct(Number.NaN)).toBe("–");
    // Bounded: never a raw float like 6.684166647284321e+76%.
    expect(signedPct(6.684166647284321e74)).toBe("more than ×1000");
    expect(signedPct(12.5)).toBe("+1150%");
  });

  it("says what an effect is relative to", () => {
    const j = { ratio: 0.6, ciLow: 0.55, ciHigh: 0.66 };
    expect(effectText(j, "control")).toBe("−40.0% vs control");
    expect(effectText(j, "before")).toBe("−40.0% vs before the change");
    expect(effectText({ ratio: null, ciLow: null, ciHigh: null }, "control")).toBe("no estimate");
    expect(intervalText(j)).toBe("−45.0% … −34.0%");
    expect(intervalText({ ciLow: null, ciHigh: null })).toBe("–");
    // What a short, noisy bake gives: the data bound neither side, and the page says so.
    expect(intervalText({ ciLow: 2.9e-7, ciHigh: 1073264.9 })).toBe("unbounded … unbounded");
    expect(intervalText({ ciLow: 0, ciHigh: null })).toBe("unbounded … unbounded");
    expect(intervalText({ ciLow: 0.76, ciHigh: 1.3 })).toBe("−24.0% … +30.0%");
  });

  it("never words no data or inconclusive as a pass", () => {
    expect(OUTCOME_MEANING["no-data"]).toMatch(/never counted as a pass/);
    expect(OUTCOME_MEANING.inconclusive).toMatch(/not a pass/);
    expect(OUTCOME_MEANING.inconclusive).toMatch(/pauses for a person/);
  });
});

describe("a rollout played by the engine", () => {
  const s = playedRollout({
    t0: T0,
    rounds: 40,
    effect: { write_bytes_per_transaction: 0.6, write_ops_per_transaction: 0.7 },
  });

  it("counts passed waves as progress", () => {
    const p = progressOf(s);
    expect(p.total).toBe(s.waves.length);
    expect(p.total).toBeGreaterThan(1);
    expect(p.done).toBe(s.waves.filter((w) => w.phase === "passed").length);
    expect(p.done).toBeGreaterThan(0);
    expect(p.text).toBe(`${p.done} of ${p.total} waves done`);
    expect(progressOf({ waves: [], status: "completed" }).text).toMatch(/no wave/);
  });

  it("finds the last gate decision with its outcome", () => {
    const g = lastGateOf(s.events)!;
    const last = s.events.findLast((e) => e.gate)!.gate!;
    expect(g).toMatchObject({
      gate: last.gate,
      wave: last.wave,
      outcome: last.outcome,
      summary: last.summary,
    });
    expect(lastGateOf([])).toBeNull();
  });

  it("judges the canary vs its control, with clean data", () => {
    const bake = s.events.find((e) => e.gate?.gate === "bake" && e.gate.wave === 0)!.gate!;
    expect(bake.outcome).toBe("pass");
    const bytes = bake.judgement!.find((j) => j.metric === "write_bytes_per_transaction")!;
    expect(againstOf(bake, bytes.metric, true)).toBe("control");
    expect(effectText(bytes, "control")).toMatch(/^−\d+\.\d% vs control$/);
    expect(bytes.ratio!).toBeLessThan(0.7);
    expect(qualityFlags(bake, bytes.metric)).toEqual([]);
  });

  it("flags a metric without data from the gate's checks", () => {
    const bake = s.events.find((e) => e.gate?.gate === "bake")!.gate!;
    const flagged = {
      ...bake,
      checks: [
        {
          id: "metric",
          metric: "fsyncs_per_transaction",
          outcome: "no-data" as const,
          expected: "",
          observed: "",
          message: "",
        },
      ],
    };
    expect(qualityFlags(flagged, "fsyncs_per_transaction")).toEqual(["no data: no series"]);
  });
});

describe("progress of a rollout that did not finish", () => {
  it("an inconclusive wave then reverted is not done", () => {
    const waves = [{ phase: "inconclusive", decidedAt: T0 }, { phase: "pending" }] as unknown as Parameters<
      typeof progressOf
    >[0]["waves"];
    const p = progressOf({ waves, status: "reverted" });
    expect(p.done).toBe(0);
    expect(p.text).toBe("reverted after 0 of 2 waves passed");
  });
});
