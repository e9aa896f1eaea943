/**
 * What the backend tests share: the numeric leaves of a profile's facts and how far two readings are
 * apart, the advice they must agree on,
 * merging promtool's recording-rule blocks into a backfilled storage, and the instance view read from
 * two backends over the same options.
 */
import { mkdirSync, readdirSync, renameSync } from "node:fs";
import { join } from "node:path";
import { PromClient } from "@untorn/prom/client";
import { expect } from "vitest";
import type { FleetFactsOptions } from "../src/facts.js";
import { type FleetProfile, profileInstance } from "../src/profile.js";

/** Every numeric leaf of a JSON value by path (`workload.rates.dblwrPagesWritten.p95`). */
export function leaves(x: unknown, path = "", out = new Map<string, number>()): Map<string, number> {
  if (typeof x === "number") out.set(path, x);
  else if (x && typeof x === "object")
    for (const [k, v] of Object.entries(x)) leaves(v, path ? `${path}.${k}` : k, out);
  return out;
}

/** What two readings of one fleet must agree on exactly: verdicts, safety gates and findings. */
export const adviceSummary = (p: FleetProfile) =>
  p.advice.map((a) => ({
    instance: a.identity.instance,
    verdict: a.verdict.verdict,
    gate: a.safetyGate.status,
    findings: a.findings.map((f) => `${f.ruleId}:${f.severity}`),
  }));

/** A window statistic's path (`workload.rates.dblwrPagesWritten.p95`) → its statistic; null for other facts. */
export const windowStatOf = (path: string): "avg" | "p95" | null => {
  const m = /^workload\..+\.(avg|p95)$/.exec(path);
  return m ? (m[1] as "avg" | "p95") : null;
};

/**
 * How far two readings of one fleet's facts are apart: the same fact paths in both (asserted), the worst
 * relative difference per kind (window averages, p95s, every other fact), the window statistics compared,
 * and how many of them differ by no more than `quantum` (one step of a counter's resolution: counted as equal).
 */
export function factDifferences(a: FleetProfile, b: FleetProfile, quantum = 0) {
  const worst = { avg: 0, p95: 0, other: 0 };
  let compared = 0;
  let withinQuantum = 0;
  for (const [i, f] of a.facts.entries()) {
    const x = leaves(f);
    const y = leaves(b.facts[i]);
    expect([...x.keys()].sort()).toEqual([...y.keys()].sort());
    for (const [path, u] of x) {
      const v = y.get(path)!;
      const kind = windowStatOf(path) ?? "other";
      const close = kind !== "other" && Math.abs(u - v) <= quantum;
      const rel = u === v || close ? 0 : Math.abs(u - v) / Math.max(Math.abs(u), Math.abs(v));
      worst[kind] = Math.max(worst[kind], rel);
      if (kind !== "other") compared++;
      if (close && u !== v) withinQuantum++;
    }
  }
  return { worst, compared, withinQuantum };
}

/**
 * Moves the blocks `promtool tsdb create-blocks-from rules` wrote (ULID-named directories) into the raw
 * history's storage, so one prometheus serves both as if the rule file had been loaded all along.
 */
export function mergeRuleBlocks(rulesDir: string, storageDir: string): void {
  const blocks = readdirSync(rulesDir).filter((x) => /^[0-9A-Z]{26}$/.test(x));
  if (blocks.length === 0) throw new Error(`promtool wrote no recording rule blocks in ${rulesDir}`);
  mkdirSync(storageDir, { recursive: true });
  for (const x of blocks) renameSync(join(rulesDir, x), join(storageDir, x));
}

/** One instance's view from Prometheus and from VictoriaMetrics: the same verdict, gate and findings. */
export async function expectSameInstanceView(
  promUrl: string,
  vmUrl: string,
  instance: string,
  opts: FleetFactsOptions,
): Promise<void> {
  const p = await profileInstance(new PromClient({ baseUrl: promUrl }), instance, opts);
  const v = await profileInstance(new PromClient({ baseUrl: vmUrl }), instance, opts);
  expect(p.fleet.recordingRules.used).toBe(true);
  expect(v.fleet.recordingRules.used).toBe(true);
  expect(v.advice?.verdict.verdict).toBe(p.advice?.verdict.verdict);
  expect(v.advice?.safetyGate.status).toBe(p.advice?.safetyGate.status);
  expect(v.advice?.findings.map((f) => f.ruleId)).toEqual(p.advice?.findings.map((f) => f.ruleId));
}
