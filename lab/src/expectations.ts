/**
 * What the recorded fleet must show, by design of its members (fleet.ts): the run prints these checks
 * after recording and recordings.test.ts asserts them on the committed file.
 */
import type { FleetProfile } from "@untorn/fleet/profile";
import type { ReplayMeta } from "@untorn/fleet/replay";
import { buildReport, reportSchema } from "@untorn/rollout/report";
import { nextActions, parseRolloutState, type RolloutState } from "@untorn/rollout/state";
import type { RecordedRolloutsFile } from "@untorn/rollout-runner/recorded";
import { type InstanceSpec, idle, shopMembers, writeLoaded } from "./fleet.js";

/** A loaded doublewrite-ON instance must rank among the first this many. */
export const TOP = 3;

/** Every failed expectation, as a sentence naming the instance; empty when the fleet looks as designed. */
export function checkFleet(profile: FleetProfile, specs: readonly InstanceSpec[]): string[] {
  const problems: string[] = [];
  const rows = new Map(profile.rows.map((r) => [r.instance, r]));
  const atRisk = new Set(profile.ranking.atRisk.map((r) => r.instance));

  for (const s of specs) {
    const r = rows.get(s.name);
    if (!r) {
      const skipped = profile.skipped.find((k) => k.instance === s.name);
      problems.push(`${s.name}: not in the fleet${skipped ? ` (skipped: ${skipped.reason})` : ""}`);
      continue;
    }
    const loaded = writeLoaded(s, specs);
    // The rollout canary's window holds both settings (doublewrite on, then off): its own checks are below.
    const canary = s.replication?.role === "replica" && s.replication.rollout === "canary";
    if (idle(s) && r.verdict !== "not-write-bound")
      problems.push(`${s.name}: idle but the verdict is ${r.verdict}`);
    if (!idle(s) && !loaded && r.verdict === "write-bound")
      problems.push(`${s.name}: read-mostly or lightly loaded but write-bound`);
    if (s.throttle?.meterKiB === 16 && loaded && s.doublewrite && !canary && r.verdict === "not-write-bound")
      problems.push(`${s.name}: on a 16 KiB-metered ${s.throttle.writeIops}-IOPS volume but not write-bound`);
    // Doublewrite pages ÷ data pages flushed: every flushed page is written twice with doublewrite ON.
    // Held only where the data is 3x the buffer pool: with the 256M pool the first recording had 0.11 to
    // 0.12 doublewrite pages per page flushed (few flushes, most of them not doublewritten).
    const ampl = r.amplification;
    const flushes = loaded && s.bufferPoolSize !== "256M" && !canary;
    if (s.doublewrite && flushes && !(ampl !== null && ampl > 0.5 && ampl < 1.5))
      problems.push(`${s.name}: doublewrite ON, amplification ${ampl} (expected about 1)`);
    if (!s.doublewrite && !canary && r.amplification !== null && r.amplification !== 0)
      problems.push(`${s.name}: doublewrite OFF, amplification ${r.amplification} (expected 0)`);
    // Doublewrite OFF on a volume nobody verified as atomic: the advisor's critical finding.
    if (!s.doublewrite && !atRisk.has(s.name)) problems.push(`${s.name}: doublewrite OFF but not at risk`);
    if (s.doublewrite && atRisk.has(s.name)) problems.push(`${s.name}: doublewrite ON but listed at risk`);
    const ex = profile.exporters[s.name];
    if (!ex?.untorn) problems.push(`${s.name}: no untorn-exporter series`);
    if (Boolean(ex?.mysqldExporter) !== s.mysqldExporter)
      problems.push(
        `${s.name}: mysqld_exporter ${ex?.mysqldExporter ? "present" : "absent"}, expected the opposite`,
      );
  }
  for (const r of profile.rows)
    if (!specs.some((s) => s.name === r.instance)) problems.push(`${r.instance}: not in the fleet spec`);

  // The positive path: storage declared atomic verifies the safety gate, and a doublewrite-ON instance on
  // it is one the console counts as "could safely drop doublewrite".
  const gate = new Map(profile.advice.map((a) => [a.identity.instance, a.safetyGate.status]));
  const mode = new Map(profile.facts.map((f) => [f.identity.instance, f.config.doublewrite ?? null]));
  for (const s of specs.filter((x) => x.declaredAtomic && rows.has(x.name)))
    if (gate.get(s.name) !== "verified")
      problems.push(`${s.name}: storage declared atomic but the safety gate reads ${gate.get(s.name)}`);
  const shop = shopMembers(specs);
  if (shop && rows.has(shop.canary.name)) {
    if (mode.get(shop.canary.name) !== "off")
      problems.push(
        `${shop.canary.name}: the rollout canary reads doublewrite ${mode.get(shop.canary.name)}, expected off`,
      );
    if (mode.get(shop.control.name) !== "on")
      problems.push(
        `${shop.control.name}: the control reads doublewrite ${mode.get(shop.control.name)}, expected on`,
      );
  }
  if (specs.some((s) => s.declaredAtomic && s.doublewrite) && verifiedStillOn(profile).length === 0)
    problems.push("no instance could safely drop doublewrite (a verified gate with doublewrite on)");

  const top = profile.rows.slice(0, TOP);
  const loadedOn = (instance: string) => {
    const s = specs.find((x) => x.name === instance);
    return s?.doublewrite === true && writeLoaded(s);
  };
  if (!top.some((r) => loadedOn(r.instance) && r.score > 0))
    problems.push(
      `no write-loaded doublewrite-ON instance with a positive score in the first ${TOP}: ${top.map((r) => r.instance).join(", ")}`,
    );
  return problems;
}

/** Instances whose safety gate is verified with doublewrite still on (the console's "could safely drop"). */
export function verifiedStillOn(profile: FleetProfile): string[] {
  const mode = new Map(profile.facts.map((f) => [f.identity.instance, f.config.doublewrite ?? null]));
  return profile.advice
    .filter((a) => a.safetyGate.status === "verified" && mode.get(a.identity.instance) === "on")
    .map((a) => a.identity.instance);
}

/** The recorded rollouts, as the demo needs them: one finished with its report, one waiting at a gate. */
export function checkRollouts(
  file: RecordedRolloutsFile,
  meta: ReplayMeta,
  specs: readonly InstanceSpec[],
): string[] {
  const problems: string[] = [];
  const shop = shopMembers(specs);
  if (!shop) return ["the fleet has no replicated cluster to run rollouts on"];
  const states: RolloutState[] = file.rollouts.map((r) => parseRolloutState(r.document));
  const final = states.filter((s) => s.status === "completed");
  const waiting = states.filter(
    (s) => (s.status === "active" || s.status === "paused") && nextActions(s, meta.end).human.length > 0,
  );
  if (final.length !== 1) problems.push(`${final.length} completed rollouts, expected 1`);
  if (waiting.length !== 1) problems.push(`${waiting.length} rollouts waiting for a human, expected 1`);
  const done = final[0];
  if (done) {
    const wave = done.waves[0];
    if (wave?.instances.join() !== shop.canary.name || wave.controls.join() !== shop.control.name)
      problems.push(
        `the completed rollout changed ${wave?.instances} against ${wave?.controls}, expected the canary against the control`,
      );
    const gates = done.events.flatMap((e) => (e.type === "gate" && e.gate ? [e.gate] : []));
    for (const kind of ["pre-wave", "step", "bake"] as const)
      if (!gates.some((g) => g.gate === kind)) problems.push(`the completed rollout has no ${kind} gate`);
    if (!gates.some((g) => g.gate === "bake" && g.comparison))
      problems.push("the completed rollout's bake gate holds no comparison");
    const report = reportSchema.safeParse(buildReport(done, meta.end));
    if (!report.success)
      problems.push(`the completed rollout's report does not validate: ${report.error.message}`);
    // The change point lies inside the recorded span, so the charts show before and after.
    const step = done.events.find((e) => e.type === "step-applied")?.at;
    if (step === undefined || step < meta.start || step > meta.end)
      problems.push(`the change point ${step} is outside the recorded span ${meta.start}..${meta.end}`);
  }
  for (const s of states) {
    const late = s.events.filter((e) => e.at > meta.end);
    if (late.length) problems.push(`rollout ${s.id}: ${late.length} events after the recording's end`);
  }
  return problems;
}
