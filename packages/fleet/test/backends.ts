/**
 * What the backend tests share: the numeric leaves of a profile's facts, the advice they must agree on,
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
