/**
 * What the recorded fleet must show, by design of its members (fleet.ts): the run prints these checks
 * after recording and recordings.test.ts asserts them on the committed file.
 */
import type { FleetProfile } from "@untorn/fleet/profile";
import { idle, type InstanceSpec, writeLoaded } from "./fleet.js";

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
    if (idle(s) && r.verdict !== "not-write-bound")
      problems.push(`${s.name}: idle but the verdict is ${r.verdict}`);
    if (!idle(s) && !loaded && r.verdict === "write-bound")
      problems.push(`${s.name}: read-mostly or lightly loaded but write-bound`);
    if (s.throttle?.meterKiB === 16 && loaded && s.doublewrite && r.verdict === "not-write-bound")
      problems.push(`${s.name}: on a 16 KiB-metered ${s.throttle.writeIops}-IOPS volume but not write-bound`);
    // Doublewrite pages ÷ data pages flushed: every flushed page is written twice with doublewrite ON.
    // Held only where the data is 3x the buffer pool: with the 256M pool the first recording had 0.11 to
    // 0.12 doublewrite pages per page flushed (few flushes, most of them not doublewritten).
    const ampl = r.amplification;
    // The rollout canary's window holds both settings: its own checks are below.
    const canary = s.replication?.role === "replica" && s.replication.rollout === "canary";
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
