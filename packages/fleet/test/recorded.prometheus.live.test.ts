// The fleet profile over the recording rules' series against the same profile over raw series, on one
// real prometheus: synthetic untorn-exporter history with per-step noise (src/testing/synthetic.ts)
// backfilled with promtool, then the catalog's rate rules evaluated over that history with
// `promtool tsdb create-blocks-from rules` (as if the generated rule file had been loaded all along).
// Verdicts, safety gates and findings must agree exactly; the facts the recorded series stand in for
// agree within TOLERANCE (the rules' 5m rates vs the plan's per-step rate window), every other fact
// exactly (those queries do not change).
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { PromClient } from "@untorn/prom/client";
import { makeTempDir } from "@untorn/testkit/process";
import { type Prometheus, startPrometheus } from "@untorn/testkit/prometheus";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RECORDED_SPEC_IDS, WINDOWED } from "../src/plan.js";
import { type FleetProfile, profileFleet, profileInstance } from "../src/profile.js";
import { syntheticFleet, VALUE_RESOLUTION } from "../src/testing/synthetic.js";
import { backfill, backfillRecordingRules } from "../tools/backfill.js";
import { adviceSummary, factDifferences, mergeRuleBlocks } from "./backends.js";

/**
 * Relative agreement of the facts read from recorded series: window averages, and p95s. Below
 * QUANTUM the difference is the history's counter resolution, not the method: a counter that advances
 * by VALUE_RESOLUTION every few scrapes (a timer in ms) reads as 0 or 1 step per 1 min per-step rate
 * window on the raw path and as a fifth of that per 5 min rule window; two such steps are tolerated.
 */
const TOLERANCE = { avg: 0.02, p95: 0.1 } as const;
const QUANTUM = (2 * VALUE_RESOLUTION) / 60;

const END = Math.floor(Date.now() / 1000 / 60) * 60 - 300;
const HISTORY = { start: END - 40 * 60, end: END, stepSeconds: 15, slowStepSeconds: 60, noise: 0.1 };
const WINDOW = "30m";
const fleet = syntheticFleet(24, 5);

let dir = "";
let prom: Prometheus | undefined;
let raw: FleetProfile;
let beforeRules: FleetProfile;

const opts = { window: WINDOW, at: END };

beforeAll(async () => {
  dir = await makeTempDir("fleet-recorded");
  const b = await backfill(fleet, HISTORY, join(dir, "raw"));
  prom = await startPrometheus({ jobs: [], storagePath: b.dir });
  let client = new PromClient({ baseUrl: prom.url });
  raw = await profileFleet(client, { ...opts, recordingRules: false });
  beforeRules = await profileFleet(client, opts);
  const r = await backfillRecordingRules(
    prom.url,
    { start: HISTORY.start, end: HISTORY.end, evalSeconds: HISTORY.stepSeconds },
    join(dir, "rules"),
  );
  await prom.stop();
  mergeRuleBlocks(r.dir, b.dir);
  prom = await startPrometheus({ jobs: [], storagePath: b.dir });
  client = new PromClient({ baseUrl: prom.url });
}, 300_000);

afterAll(async () => {
  await prom?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("fleet profile over recorded series vs raw series (real prometheus, backfilled rules)", () => {
  it("falls back to the raw series, and says why, while the rules' series are absent", () => {
    expect(beforeRules.recordingRules.used).toBe(false);
    expect(beforeRules.recordingRules.fallbackReason).toMatch(/recording rules are not loaded/);
    expect(beforeRules.rows.map((r) => r.instance)).toEqual(raw.rows.map((r) => r.instance));
  });

  it("reads the recorded series with the same request count and the same verdicts, gates and findings", async () => {
    const client = new PromClient({ baseUrl: prom!.url });
    const rec = await profileFleet(client, opts);
    expect(rec.recordingRules).toMatchObject({ used: true, fallbackReason: null, tier: "rates" });
    expect(rec.queries).toBe(beforeRules.queries); // the probe is sent either way
    expect(rec.facts).toHaveLength(fleet.length);
    expect(RECORDED_SPEC_IDS).toEqual(WINDOWED.map((s) => s.id));
    expect(adviceSummary(rec)).toEqual(adviceSummary(raw));

    // Every window statistic is read from recorded series (RECORDED_SPEC_IDS above).
    const { worst, compared, withinQuantum } = factDifferences(rec, raw, QUANTUM);
    process.stderr.write(
      `[recorded vs raw] ${compared} recorded statistics (${withinQuantum} differ by less than the counter resolution); worst relative difference otherwise: avg ${worst.avg.toFixed(4)}, p95 ${worst.p95.toFixed(4)}, other facts ${worst.other}\n`,
    );
    expect(compared).toBeGreaterThan(fleet.length * 40);
    expect(withinQuantum).toBeLessThan(compared / 5); // 13 % measured: the ms timers
    expect(worst.avg).toBeLessThanOrEqual(TOLERANCE.avg);
    expect(worst.p95).toBeLessThanOrEqual(TOLERANCE.p95);
    expect(worst.other).toBe(0);
  });

  it("reads one instance's recorded series for the instance view", async () => {
    const client = new PromClient({ baseUrl: prom!.url });
    const instance = fleet[3]!.instance;
    const one = await profileInstance(client, instance, opts);
    expect(one.fleet.recordingRules.used).toBe(true);
    const fromFleet = raw.advice.find((a) => a.identity.instance === instance)!;
    expect(one.advice?.verdict.verdict).toBe(fromFleet.verdict.verdict);
    expect(one.advice?.safetyGate.status).toBe(fromFleet.safetyGate.status);
  });

  it("does not read recorded series under a selector on a label the rules drop", async () => {
    const client = new PromClient({ baseUrl: prom!.url });
    const r = await profileFleet(client, { ...opts, selector: { job: "untorn" } });
    expect(r.recordingRules.used).toBe(false);
    expect(r.recordingRules.fallbackReason).toMatch(/selector on job/);
  });
});
