/**
 * Every command in every rollout status: allowed (ok) or refused with its code. The table is the
 * specification of the state machine's command side; docs/rollout.md describes the same rules.
 */
import { describe, expect, it } from "vitest";
import { observationsSchema } from "./observations.ts";
import { applyCommand, createRollout, nextActions, type RolloutState, reconcile } from "./state.ts";
import { bakeFor, cmd, create, type LooseCommand, mysql, readBack, T0 } from "./testing.ts";

const fleet = [mysql("p1", "primary"), mysql("r1", "replica"), mysql("r2", "replica")];
const facts = new Map(fleet.map((f) => [f.identity.instance, f]));
const fast = {
  verifyConsecutive: 1,
  consecutiveSuccessLimit: 1,
  warmupSeconds: 60,
  bakeSeconds: 900,
  evaluationIntervalSeconds: 60,
};

function must(s: RolloutState, c: LooseCommand, now: number): RolloutState {
  const t = applyCommand(s, cmd(c), now);
  if (!t.ok) throw new Error(`${c.type} refused: ${t.refusal.message}`);
  return t.state;
}
function observe(s: RolloutState, now: number, mode: string) {
  const next = nextActions(s, now);
  return reconcile(
    s,
    observationsSchema.parse({
      health: next.observations.health.map((i) => ({
        instance: i,
        at: now,
        facts: facts.get(i)!,
        replication: { ioRunning: true, sqlRunning: true, lagSeconds: 0 },
      })),
      activeRollouts: [],
      readBacks: next.observations.readBacks.map((i) => readBack(i, now, mode)),
      bakes: next.observations.bakes.map((b) =>
        bakeFor(b, { write_bytes_per_transaction: 0.6, write_ops_per_transaction: 0.6 }),
      ),
    }),
    now,
  ).state;
}

const pending = createRollout(create(fleet, fast), T0);
const applying = observe(
  must(must(pending, { type: "attest-backup", takenAt: T0 }, T0), { type: "approve", wave: 0 }, T0),
  T0 + 1,
  "off",
);
const paused = must(applying, { type: "pause", reason: "freeze" }, T0 + 2);
const halted = observe(must(applying, { type: "step-done", instance: "r1" }, T0 + 2), T0 + 4000, "on");
const aborted = must(pending, { type: "abort", reason: "no" }, T0 + 1);
const reverting = must(halted, { type: "revert", reason: "failed" }, T0 + 4001);
const reverted = [T0 + 4010, T0 + 4020].reduce(
  (s, t) => reconcile(s, observationsSchema.parse({ readBacks: [readBack("r1", t, "on", 10)] }), t).state,
  must(reverting, { type: "revert-done", instance: "r1" }, T0 + 4002),
);
function completedState(): RolloutState {
  let s = pending;
  let now = T0;
  for (let i = 0; i < 200 && s.status !== "completed"; i++) {
    now += 300;
    for (const h of nextActions(s, now).human) {
      if (h.kind === "attest-backup") s = must(s, { type: "attest-backup", takenAt: now }, now);
      if (h.kind === "approve") s = must(s, { type: "approve", wave: h.wave! }, now);
      if (h.kind === "apply-step") s = must(s, { type: "step-done", instance: h.instance! }, now);
    }
    s = observe(s, now, "off");
  }
  return s;
}
const completed = completedState();

const states: Record<string, RolloutState> = {
  pending,
  applying,
  paused,
  halted,
  completed,
  aborted,
  reverting,
  reverted,
};

const commands: Record<string, LooseCommand> = {
  "attest-backup": { type: "attest-backup", takenAt: T0 - 10 },
  approve: { type: "approve", wave: 0 },
  "step-done": { type: "step-done", instance: "r1" },
  "hook-started": { type: "hook-started", instance: "r1" },
  "hook-result": { type: "hook-result", instance: "r1", ok: true, output: "" },
  pause: { type: "pause", reason: "p" },
  resume: { type: "resume" },
  abort: { type: "abort", reason: "a" },
  revert: { type: "revert", reason: "r" },
  "revert-done": { type: "revert-done", instance: "r1" },
};

// ok, or the refusal code.
const table: Record<string, Record<string, string>> = {
  pending: {
    "attest-backup": "ok",
    approve: "ok",
    "step-done": "wave-not-applying",
    "hook-started": "wave-not-applying",
    "hook-result": "wave-not-applying",
    pause: "ok",
    resume: "not-paused",
    abort: "ok",
    revert: "nothing-to-revert",
    "revert-done": "not-reverting",
  },
  applying: {
    "attest-backup": "ok",
    approve: "wave-not-pending",
    "step-done": "ok",
    "hook-started": "not-hook-applier",
    "hook-result": "not-hook-applier",
    pause: "ok",
    resume: "not-paused",
    abort: "ok",
    revert: "nothing-to-revert",
    "revert-done": "not-reverting",
  },
  paused: {
    "attest-backup": "ok",
    approve: "wave-not-pending",
    "step-done": "ok",
    "hook-started": "not-hook-applier",
    "hook-result": "not-hook-applier",
    pause: "already-paused",
    resume: "ok",
    abort: "ok",
    revert: "nothing-to-revert",
    "revert-done": "not-reverting",
  },
  halted: {
    "attest-backup": "ok",
    approve: "not-active",
    "step-done": "not-active",
    "hook-started": "not-active",
    "hook-result": "not-active",
    pause: "not-active",
    resume: "not-paused",
    abort: "ok",
    revert: "ok",
    "revert-done": "not-reverting",
  },
  completed: {
    "attest-backup": "final",
    approve: "not-current-wave",
    "step-done": "not-active",
    "hook-started": "not-active",
    "hook-result": "not-active",
    pause: "not-active",
    resume: "not-paused",
    abort: "final",
    revert: "ok",
    "revert-done": "not-reverting",
  },
  aborted: {
    "attest-backup": "final",
    approve: "not-active",
    "step-done": "not-active",
    "hook-started": "not-active",
    "hook-result": "not-active",
    pause: "not-active",
    resume: "not-paused",
    abort: "final",
    revert: "nothing-to-revert",
    "revert-done": "not-reverting",
  },
  reverting: {
    "attest-backup": "ok",
    approve: "not-active",
    "step-done": "not-active",
    "hook-started": "not-active",
    "hook-result": "not-active",
    pause: "not-active",
    resume: "not-paused",
    abort: "not-active",
    revert: "not-active",
    "revert-done": "ok",
  },
  reverted: {
    "attest-backup": "final",
    approve: "not-active",
    "step-done": "not-active",
    "hook-started": "not-active",
    "hook-result": "not-active",
    pause: "not-active",
    resume: "not-paused",
    abort: "final",
    revert: "not-active",
    "revert-done": "not-reverting",
  },
};

describe("transitions", () => {
  it("the fixtures reach the statuses they are named after", () => {
    expect(
      [pending, applying, paused, halted, completed, aborted, reverting, reverted].map((s) => s.status),
    ).toEqual(["active", "active", "paused", "halted", "completed", "aborted", "reverting", "reverted"]);
    expect(applying.waves[0]!.phase).toBe("applying");
  });

  for (const [name, row] of Object.entries(table))
    for (const [type, expected] of Object.entries(row))
      it(`${name} + ${type} → ${expected}`, () => {
        const before = states[name]!;
        const t = applyCommand(before, cmd(commands[type]!), T0 + 5000);
        expect(t.ok ? "ok" : t.refusal.code).toBe(expected);
        if (!t.ok) {
          // A refusal changes nothing but the audit and the key it records.
          expect({ ...t.state, events: [], keys: {}, revision: 0 }).toEqual({
            ...before,
            events: [],
            keys: {},
            revision: 0,
          });
          expect(t.state.events.at(-1)!.type).toBe("command-refused");
        }
      });
});
