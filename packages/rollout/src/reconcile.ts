/**
 * reconcile: advances the time- and observation-based gates (pre-wave gate, read-back of steps and
 * reverts, bake judgement) of a rollout, and the windows and replicas those gates look at.
 */
import type { Expectation } from "./change.js";
import { advance, Draft, isChanged, iso, step, waveOfReplicas } from "./draft.js";
import { type GateCheck, type GateOutcome, type GateResult, gateResultSchema, SYSTEM } from "./events.js";
import { judgeBake, preWaveGate, readBackChecks } from "./gates.js";
import type { Observations, ReadBack } from "./observations.js";
import {
  gateStatusSchema,
  type InstanceState,
  type RolloutState,
  type Transition,
  type WaveState,
} from "./state-schema.js";

/** 32-bit FNV-1a: a stable seed for the bootstrap from the rollout id, wave and evaluation. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

const gateEvent = (d: Draft, g: GateResult, instance?: string) =>
  d.emit({
    actor: SYSTEM,
    type: "gate",
    wave: g.wave,
    ...(instance ? { instance } : {}),
    message: `${g.gate} gate ${g.outcome}: ${g.summary}`,
    gate: gateResultSchema.parse(g),
  });

/** A step's or a revert's read-back gate on instance `i`, decided now, as its gate event. */
function instanceGate(
  d: Draft,
  i: InstanceState,
  gate: "step" | "revert",
  outcome: GateOutcome,
  summary: string,
  checks: GateCheck[],
): void {
  gateEvent(d, { gate, wave: i.wave, instance: i.instance, outcome, at: d.now, summary, checks }, i.instance);
}

function latestReadBacks(obs: Observations): Map<string, ReadBack[]> {
  const out = new Map<string, ReadBack[]>();
  for (const rb of [...obs.readBacks].sort((a, b) => a.at - b.at))
    out.set(rb.instance, [...(out.get(rb.instance) ?? []), rb]);
  return out;
}

/**
 * Advances time-based and observation-based gates: the pre-wave gate of an approved wave, the read-back
 * of applied steps (and reverts), the bake judgement. Deterministic in (state, observations, now);
 * calling it again with the same inputs adds nothing.
 */
export function reconcile(state: RolloutState, observations: Observations, now: number): Transition {
  const d = new Draft(state, now);
  const s = d.s;
  const rbs = latestReadBacks(observations);
  if (s.status === "reverting") {
    reconcileRevert(d, rbs);
    return { ok: true, state: d.done(), events: d.events, duplicate: false };
  }
  // Read-backs of applied steps count even while paused: they record what happened.
  if (s.status === "active" || s.status === "paused") verifySteps(d, rbs);
  for (let guard = 0; guard <= s.waves.length && s.status === "active"; guard++) {
    const w = d.wave(s.currentWave);
    if (!w) break;
    const before = `${w.index}:${w.phase}`;
    if (w.phase === "pending") startWave(d, w, observations);
    if (w.phase === "applying") finishApplying(d, w);
    if (w.phase === "baking") judgeWave(d, w, observations);
    if (w.phase === "passed") advance(d);
    const after = `${d.s.currentWave}:${d.wave(d.s.currentWave)?.phase}`;
    if (before === after) break;
  }
  return { ok: true, state: d.done(), events: d.events, duplicate: false };
}

/**
 * Replicas whose replication the pre-wave gate checks: the wave's own and its controls; for a wave of
 * primaries, every replica of their clusters (the switchover targets, as RDS Blue/Green's guardrails).
 */
export function gateReplicas(s: RolloutState, w: WaveState): string[] {
  const topo = new Map(s.plan.topology.map((t) => [t.instance, t]));
  const ids = new Set([...w.instances, ...w.controls]);
  if (w.kind === "primaries" || w.instances.some((i) => topo.get(i)?.role === "primary")) {
    const clusters = new Set(w.instances.map((i) => topo.get(i)?.cluster).filter((c) => c != null));
    for (const t of s.plan.topology)
      if (t.role === "replica" && t.cluster !== null && clusters.has(t.cluster)) ids.add(t.instance);
  }
  return [...ids].filter((id) => topo.get(id)?.role === "replica").sort();
}

function startWave(d: Draft, w: WaveState, obs: Observations): void {
  const s = d.s;
  if (w.approvedAt === null) return;
  const replicas = gateReplicas(s, w);
  const g = preWaveGate({
    rolloutId: s.id,
    wave: w.index,
    change: s.plan.change,
    needsGate:
      s.plan.removesTornPageProtection || w.instances.some((i) => step(s, i)?.removesTornPageProtection),
    targets: w.instances,
    controls: w.controls,
    replicas,
    backup: s.backup,
    health: obs.health,
    activeRollouts: obs.activeRollouts,
    policy: s.policy,
    now: d.now,
  });
  const signature = `${g.outcome}|${g.summary}`;
  if (signature !== w.lastPreWave) {
    w.lastPreWave = signature;
    gateEvent(d, g);
  }
  if (g.outcome !== "pass") return;
  w.phase = "applying";
  w.startedAt = d.now;
  for (const id of w.instances) {
    const i = d.inst(id)!;
    const c = g.checks.find((x) => x.id === "safety-gate" && x.instance === id);
    // The check's observed value is the gate's status; anything else is kept as unknown, never stored raw.
    const status = gateStatusSchema.safeParse(c?.observed);
    i.gateAtStart = status.success ? status.data : null;
  }
  d.emit({
    actor: SYSTEM,
    type: "wave-started",
    wave: w.index,
    message: `Wave ${w.index} (${w.kind}) started: ${w.instances.join(", ")}${w.controls.length ? `; control ${w.controls.join(", ")}` : ""}.`,
  });
}

/**
 * Reads an instance's read-backs newer than `since` (its step or revert applied) and than the last one
 * read, against `expect`, counting the readings in a row that `matches` accepts. Returns the reading
 * that reaches the policy's verifyConsecutive, with its checks; null while none has.
 */
function readBackRun(
  d: Draft,
  i: InstanceState,
  readings: readonly ReadBack[],
  since: number,
  expect: Expectation,
  matches: (checks: GateCheck[], rb: ReadBack) => boolean,
): { at: number; checks: GateCheck[] } | null {
  for (const rb of readings) {
    if (rb.at <= since || (i.lastReadBackAt !== null && rb.at <= i.lastReadBackAt)) continue;
    i.lastReadBackAt = rb.at;
    i.lastReadBack = { ...rb };
    const checks = readBackChecks(i.instance, expect, rb);
    i.matches = matches(checks, rb) ? i.matches + 1 : 0;
    if (i.matches >= d.s.policy.verifyConsecutive) return { at: rb.at, checks };
  }
  return null;
}

function verifySteps(d: Draft, rbs: Map<string, ReadBack[]>): void {
  const s = d.s;
  for (const i of s.instances) {
    if (i.status !== "applied" || i.appliedAt === null) continue;
    const st = step(s, i.instance)!;
    const run = readBackRun(d, i, rbs.get(i.instance) ?? [], i.appliedAt, st.expect, (checks) =>
      checks.every((c) => c.outcome === "pass"),
    );
    if (run) {
      const { at, checks } = run;
      i.status = "verified";
      i.verifiedAt = at;
      instanceGate(
        d,
        i,
        "step",
        "pass",
        `Read-back matches ${st.target} in ${i.matches} reading(s) in a row.`,
        checks,
      );
      d.emit({
        actor: SYSTEM,
        type: "step-verified",
        wave: i.wave,
        instance: i.instance,
        message: `${i.instance} verified: ${st.variable} = ${st.target}.`,
      });
    }
    if (i.status === "applied" && d.now - i.appliedAt > s.policy.verifyTimeoutSeconds) {
      const last = (i.lastReadBack as ReadBack | null) ?? null;
      const checks = readBackChecks(i.instance, st.expect, last);
      const unmet = checks.filter((c) => c.outcome !== "pass").map((c) => c.message);
      i.status = "failed";
      i.timedOut = true;
      instanceGate(
        d,
        i,
        "step",
        last === null ? "no-data" : "fail",
        `No matching read-back within ${s.policy.verifyTimeoutSeconds} s: ${unmet.join(" ") || "no read-back"}`,
        checks,
      );
      d.emit({
        actor: SYSTEM,
        type: "step-failed",
        wave: i.wave,
        instance: i.instance,
        message: `${i.instance}: the change was not verified.`,
      });
      halt(d, i.wave, `the step on ${i.instance} was not verified from metrics`);
    }
  }
}

function halt(d: Draft, wave: number, why: string): void {
  const s = d.s;
  if (s.status === "halted") return;
  s.status = "halted";
  s.pause = null;
  const changed = s.instances.filter(isChanged);
  d.emit({
    actor: SYSTEM,
    type: "revert-proposed",
    wave,
    message: `Halted: ${why}. Proposed: revert ${changed.map((i) => `${i.instance} to ${step(s, i.instance)?.revert.previousValue ?? "its previous value"}`).join(", ") || "nothing (no instance changed)"}.`,
  });
}

function finishApplying(d: Draft, w: WaveState): void {
  const s = d.s;
  const mine = s.instances.filter((i) => i.wave === w.index);
  if (!mine.every((i) => i.status === "verified")) return;
  const lastApplied = Math.max(...mine.map((i) => i.appliedAt ?? 0));
  const restart = mine.some((i) => step(s, i.instance)?.restart);
  w.phase = "baking";
  w.bakeStart = lastApplied + (restart ? s.policy.warmupSeconds : 0);
  w.bakeEnd = w.bakeStart + s.policy.bakeSeconds;
  const sequential = s.policy.judgement === "sequential";
  w.nextEvaluationAt = sequential ? Math.min(w.bakeStart + s.policy.lookEverySeconds, w.bakeEnd) : w.bakeEnd;
  d.emit({
    actor: SYSTEM,
    type: "bake-started",
    wave: w.index,
    message: sequential
      ? `Every step of wave ${w.index} verified; bake from ${iso(w.bakeStart)}${restart ? ` (after ${s.policy.warmupSeconds} s of warm-up)` : ""}, judged every ${s.policy.lookEverySeconds} s against ${Math.round(s.policy.baselineSeconds / 60)} min of baseline from history and ended as soon as decided; at most until ${iso(w.bakeEnd)}.`
      : `Every step of wave ${w.index} verified; bake from ${iso(w.bakeStart)}${restart ? ` (after ${s.policy.warmupSeconds} s of warm-up)` : ""} to ${iso(w.bakeEnd)}.`,
  });
}

/** The windows the bake judgement of a wave uses at `now`: before the first change point, then the bake. */
export function bakeWindows(state: RolloutState, wave: number, now: number) {
  const w = state.waves[wave];
  if (!w || w.bakeStart === null || w.bakeEnd === null) return null;
  const mine = state.instances.filter((i) => i.wave === wave);
  const firstApplied = Math.min(...mine.map((i) => i.appliedAt ?? Number.POSITIVE_INFINITY));
  if (state.policy.judgement === "sequential") {
    // The bake so far (at most the maximum bake) against the baseline from history before the change.
    const end = Math.min(w.bakeEnd, Math.max(now, w.bakeStart + 1));
    return {
      before: { start: firstApplied - state.policy.baselineSeconds, end: firstApplied },
      after: { start: w.bakeStart, end },
    };
  }
  const afterEnd = Math.max(w.bakeEnd, Math.min(now, w.nextEvaluationAt ?? now));
  const length = afterEnd - w.bakeStart;
  return {
    before: { start: firstApplied - length, end: firstApplied },
    after: { start: w.bakeStart, end: afterEnd },
  };
}

function judgeWave(d: Draft, w: WaveState, obs: Observations): void {
  const s = d.s;
  if (w.nextEvaluationAt === null || d.now < w.nextEvaluationAt) return;
  const want = bakeWindows(s, w.index, d.now)!;
  const sequential = s.policy.judgement === "sequential";
  // Sequential: any series reaching this look will do (it was fetched at or after the look's time).
  const needEnd = sequential ? Math.min(w.nextEvaluationAt, w.bakeEnd ?? w.nextEvaluationAt) : want.after.end;
  const series = obs.bakes.find(
    (b) =>
      b.wave === w.index &&
      b.windows.after.start >= want.after.start &&
      b.windows.after.end >= needEnd &&
      b.windows.after.end <= d.now,
  );
  if (!series) return;
  const g = judgeBake({
    wave: w.index,
    seed: fnv1a(`${s.id}/${w.index}/${w.evaluations}`),
    treated: w.instances,
    controls: w.controls,
    metrics: s.metrics,
    policy: s.policy,
    series,
    now: d.now,
    replicas: waveOfReplicas(s, w.index),
  });
  w.evaluations += 1;
  if (sequential) {
    judgeLook(d, w, g, series.windows.after.end >= (w.bakeEnd ?? 0));
    return;
  }
  w.nextEvaluationAt = d.now + s.policy.evaluationIntervalSeconds;
  const o = g.outcome;
  w.consecutive = {
    pass: o === "pass" ? w.consecutive.pass + 1 : 0,
    fail: o === "fail" ? w.consecutive.fail + 1 : 0,
    inconclusive: o === "inconclusive" || o === "no-data" ? w.consecutive.inconclusive + 1 : 0,
  };
  gateEvent(d, g);
  if (w.consecutive.pass >= s.policy.consecutiveSuccessLimit)
    decideWave(d, w, "passed", `Wave ${w.index} passed ${w.consecutive.pass} judgement(s) in a row.`);
  else if (w.consecutive.fail >= s.policy.failureLimit)
    decideWave(
      d,
      w,
      "failed",
      `Wave ${w.index} failed ${w.consecutive.fail} judgement(s) in a row: ${g.summary}`,
    );
  else if (
    w.consecutive.inconclusive >= s.policy.inconclusiveLimit ||
    w.evaluations >= s.policy.maxEvaluations
  )
    decideWave(d, w, "inconclusive", `Wave ${w.index} is inconclusive: ${g.summary}`, g.summary);
}

/**
 * A bake's decision on wave `w`: passed; failed (the rollout halts, a revert proposed); inconclusive (the
 * rollout pauses for a human, `summary` the pause's message). `message` is the wave event's.
 */
function decideWave(
  d: Draft,
  w: WaveState,
  phase: "passed" | "failed" | "inconclusive",
  message: string,
  summary = "",
): void {
  w.phase = phase;
  w.decidedAt = d.now;
  const type = phase === "passed" ? "wave-passed" : phase === "failed" ? "wave-failed" : "wave-inconclusive";
  d.emit({ actor: SYSTEM, type, wave: w.index, message });
  if (phase === "failed") halt(d, w.index, `wave ${w.index} failed its bake`);
  if (phase === "inconclusive") {
    d.s.status = "paused";
    d.s.pause = { reason: "inconclusive", at: d.now, message: summary };
    d.emit({
      actor: SYSTEM,
      type: "paused",
      wave: w.index,
      message: "Paused for a human: approve to accept the result, resume to judge again, or revert.",
    });
  }
}

/**
 * One look of a sequential bake: its interval holds alpha over every look up to the maximum bake, so
 * the first decided look decides the wave (no run of passes needed). Undecided before the maximum:
 * the next look; at the maximum: inconclusive, paused for a human. No data counts towards
 * inconclusiveLimit as in a fixed bake, so a wave without series does not wait out the maximum.
 */
function judgeLook(d: Draft, w: WaveState, g: GateResult, finalLook: boolean): void {
  const s = d.s;
  const o = g.outcome;
  w.consecutive = {
    pass: o === "pass" ? w.consecutive.pass + 1 : 0,
    fail: o === "fail" ? w.consecutive.fail + 1 : 0,
    inconclusive: o === "no-data" ? w.consecutive.inconclusive + 1 : 0,
  };
  gateEvent(d, g);
  const bakeMinutes = Math.round((d.now - (w.bakeStart ?? d.now)) / 6) / 10;
  if (o === "pass")
    decideWave(
      d,
      w,
      "passed",
      `Wave ${w.index} passed after ${bakeMinutes} min of bake (sequential judgement, look ${w.evaluations}).`,
    );
  else if (o === "fail")
    decideWave(d, w, "failed", `Wave ${w.index} failed after ${bakeMinutes} min of bake: ${g.summary}`);
  else if (finalLook || w.consecutive.inconclusive >= s.policy.inconclusiveLimit)
    decideWave(
      d,
      w,
      "inconclusive",
      finalLook
        ? `Wave ${w.index} is inconclusive after the maximum bake of ${Math.round(s.policy.bakeSeconds / 60)} min: ${g.summary}`
        : `Wave ${w.index} is inconclusive: ${g.summary}`,
      g.summary,
    );
  else w.nextEvaluationAt = Math.min(d.now + s.policy.lookEverySeconds, w.bakeEnd ?? d.now);
}

function reconcileRevert(d: Draft, rbs: Map<string, ReadBack[]>): void {
  const s = d.s;
  for (const i of s.instances) {
    if (i.status !== "revert-applied" || i.revertAppliedAt === null) continue;
    const st = step(s, i.instance)!;
    const run = readBackRun(
      d,
      i,
      rbs.get(i.instance) ?? [],
      i.revertAppliedAt,
      st.revert.expect,
      (checks, rb) => {
        const hasObservable = checks.some((c) => c.id !== "read-back");
        return hasObservable ? checks.every((c) => c.outcome === "pass") : rb.up === true;
      },
    );
    if (run) {
      const { checks } = run;
      i.status = "reverted";
      instanceGate(
        d,
        i,
        "revert",
        "pass",
        `Read-back matches the previous value ${st.revert.previousValue ?? "(unknown)"}.`,
        checks,
      );
      d.emit({
        actor: SYSTEM,
        type: "instance-reverted",
        wave: i.wave,
        instance: i.instance,
        message: `${i.instance} reverted.`,
      });
    }
    if (
      i.status === "revert-applied" &&
      !i.timedOut &&
      d.now - i.revertAppliedAt > s.policy.verifyTimeoutSeconds
    ) {
      i.timedOut = true;
      const checks = readBackChecks(
        i.instance,
        st.revert.expect,
        (i.lastReadBack as ReadBack | null) ?? null,
      );
      instanceGate(
        d,
        i,
        "revert",
        "fail",
        `The revert of ${i.instance} is not verified after ${s.policy.verifyTimeoutSeconds} s: check the server by hand.`,
        checks,
      );
    }
  }
  const reverting = s.instances.filter((i) => i.status === "reverting" || i.status === "revert-applied");
  if (reverting.length === 0) {
    s.status = "reverted";
    d.emit({
      actor: SYSTEM,
      type: "reverted",
      message: "Every changed instance is back at its previous value.",
    });
  }
}
