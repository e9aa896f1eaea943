// The fleet profile over untorn.window's recorded statistics (tier 2) against the same profile over the
// per-instance rates (tier 1) and over raw series, on one real prometheus: synthetic history backfilled
// with promtool, then the backfill chained as the rules run: untorn.rates evaluated over the history
// (`promtool tsdb create-blocks-from rules`), the blocks merged and prometheus restarted so it serves
// them, then untorn.window evaluated over the last minutes by querying that prometheus (it reads the
// rates), merged in turn. Verdicts, safety gates and findings agree exactly across the three; the
// statistics tier 2 stores are tier 1's own queries, so they agree with tier 1 evaluated when the group
// was to the float, and with raw series within the tolerance recorded.prometheus.test.ts states.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_FLEET_WINDOW, RECORDED_WINDOW, WINDOW_PROBE_RECORD } from "@untorn/catalog/rules";
import { PromClient } from "@untorn/prom/client";
import { makeTempDir } from "@untorn/testkit/process";
import { type Prometheus, startPrometheus } from "@untorn/testkit/prometheus";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FleetProfile, profileFleet, profileInstance } from "../src/profile.js";
import { syntheticFleet, VALUE_RESOLUTION } from "../src/testing/synthetic.js";
import { backfill, backfillRecordingRules } from "../tools/backfill.js";
import { adviceSummary, factDifferences, mergeRuleBlocks } from "./backends.js";

/** recorded.prometheus.test.ts' tolerances for the recorded statistics against raw series. */
const TOLERANCE = { avg: 0.02, p95: 0.1 } as const;
const QUANTUM = (2 * VALUE_RESOLUTION) / 60;

const END = Math.floor(Date.now() / 1000 / 60) * 60 - 300;
// The 1h window, the rules' 5m rate window before it, and a margin.
const HISTORY = { start: END - 70 * 60, end: END, stepSeconds: 15, slowStepSeconds: 60, noise: 0.1 };
const WINDOW = DEFAULT_FLEET_WINDOW;
const fleet = syntheticFleet(24, 7);
const opts = { window: WINDOW, at: END };

let dir = "";
let prom: Prometheus | undefined;
let raw: FleetProfile;
let tier1: FleetProfile;
/** With untorn.rates' series only: the probe must fall back to them. */
let withoutWindow: FleetProfile;

const restart = async (storagePath: string) => {
  await prom?.stop();
  prom = await startPrometheus({ jobs: [], storagePath });
  return new PromClient({ baseUrl: prom.url });
};

beforeAll(async () => {
  dir = await makeTempDir("fleet-window");
  const b = await backfill(fleet, HISTORY, join(dir, "raw"));
  await restart(b.dir);
  const rates = await backfillRecordingRules(
    prom!.url,
    { start: HISTORY.start, end: HISTORY.end, evalSeconds: HISTORY.stepSeconds },
    join(dir, "rates"),
  );
  await prom!.stop();
  mergeRuleBlocks(rates.dir, b.dir);
  let client = await restart(b.dir);
  raw = await profileFleet(client, { ...opts, recordingRules: false });
  withoutWindow = await profileFleet(client, opts);
  // untorn.window reads the rates: promtool queries the prometheus that now serves them.
  const interval = 60;
  const window = await backfillRecordingRules(
    prom!.url,
    { start: END - 3 * interval, end: END, evalSeconds: interval },
    join(dir, "window"),
    "window",
  );
  mergeRuleBlocks(window.dir, b.dir);
  client = await restart(b.dir);
  tier1 = await profileFleet(client, { ...opts, windowRules: false });
}, 600_000);

afterAll(async () => {
  await prom?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("fleet profile over untorn.window's statistics (real prometheus, chained rule backfill)", () => {
  it("falls back to the per-instance rates, and says so, while untorn.window's series are absent", () => {
    expect(withoutWindow.recordingRules).toMatchObject({ used: true, fallbackReason: null, tier: "rates" });
    expect(withoutWindow.recordingRules.windowNote).toMatch(/untorn.window rules are not loaded/);
    expect(adviceSummary(withoutWindow)).toEqual(adviceSummary(raw));
  });

  it("reads the recorded statistics with the same request count and the same verdicts, gates and findings", async () => {
    const client = new PromClient({ baseUrl: prom!.url });
    const t2 = await profileFleet(client, opts);
    expect(t2.recordingRules).toMatchObject({ used: true, fallbackReason: null, tier: "window" });
    expect(t2.recordingRules.windowNote).toMatch(
      new RegExp(`as of the untorn.window rules' last evaluation, at most ${RECORDED_WINDOW.interval}`),
    );
    expect(tier1.recordingRules.tier).toBe("rates");
    expect(t2.queries).toBe(tier1.queries);
    expect(t2.queries).toBe(withoutWindow.queries); // the probe is sent either way; raw here sent none
    expect(t2.facts).toHaveLength(fleet.length);
    expect(adviceSummary(t2)).toEqual(adviceSummary(tier1));
    expect(adviceSummary(t2)).toEqual(adviceSummary(raw));

    // Prometheus (and promtool) evaluate a group at an offset within its interval hashed from its name:
    // the statistic read at END is the one evaluated at `evaluated`, up to one interval before END.
    const evaluated = (await client.queryVector(`timestamp(${WINDOW_PROBE_RECORD})`, { time: END })).data[0]!
      .value;
    expect(evaluated).toBeLessThanOrEqual(END);
    expect(evaluated).toBeGreaterThan(END - 60);
    // There, the statistics are tier 1's queries' answers to the float, and raw series' within tolerance.
    const tier1Then = await profileFleet(client, { ...opts, at: evaluated, windowRules: false });
    const rawThen = await profileFleet(client, { ...opts, at: evaluated, recordingRules: false });
    const vsTier1 = factDifferences(t2, tier1Then, 0);
    const vsRaw = factDifferences(t2, rawThen, QUANTUM);
    const vsTier1AtEnd = factDifferences(t2, tier1, QUANTUM);
    process.stderr.write(
      `[window vs rates] evaluated ${END - evaluated} s before the time read; ${vsTier1.compared} statistics, worst relative difference to the rates' at that time: avg ${vsTier1.worst.avg}, p95 ${vsTier1.worst.p95}; to raw series' then: avg ${vsRaw.worst.avg.toFixed(4)}, p95 ${vsRaw.worst.p95.toFixed(4)}; to the rates' at the time read: avg ${vsTier1AtEnd.worst.avg.toFixed(4)}, p95 ${vsTier1AtEnd.worst.p95.toFixed(4)}\n`,
    );
    expect(vsTier1.compared).toBeGreaterThan(fleet.length * 40);
    expect(vsTier1.worst).toEqual({ avg: 0, p95: 0, other: 0 });
    expect(vsRaw.worst.avg).toBeLessThanOrEqual(TOLERANCE.avg);
    expect(vsRaw.worst.p95).toBeLessThanOrEqual(TOLERANCE.p95);
    expect(vsRaw.worst.other).toBe(0);
  });

  it("reads a statistic up to one evaluation interval old between evaluations", async () => {
    const client = new PromClient({ baseUrl: prom!.url });
    // 30 s after the last evaluation: the same statistics as at it (the instant read finds its sample).
    const later = await profileFleet(client, { ...opts, at: END + 30 });
    expect(later.recordingRules.tier).toBe("window");
    const t2 = await profileFleet(client, opts);
    expect(factDifferences(later, t2, 0).worst.avg).toBe(0);
    expect(factDifferences(later, t2, 0).worst.p95).toBe(0);
  });

  it("reads one instance's recorded statistics for the instance view", async () => {
    const client = new PromClient({ baseUrl: prom!.url });
    const instance = fleet[5]!.instance;
    const one = await profileInstance(client, instance, opts);
    expect(one.fleet.recordingRules.tier).toBe("window");
    const fromRaw = raw.advice.find((a) => a.identity.instance === instance)!;
    expect(one.advice?.verdict.verdict).toBe(fromRaw.verdict.verdict);
    expect(one.advice?.safetyGate.status).toBe(fromRaw.safetyGate.status);
  });

  it("reads the per-instance rates for another window or a statistic it does not record", async () => {
    const client = new PromClient({ baseUrl: prom!.url });
    const p99 = await profileFleet(client, { ...opts, stats: ["avg", "p95", "p99"] });
    expect(p99.recordingRules).toMatchObject({ used: true, tier: "rates" });
    expect(p99.recordingRules.windowNote).toMatch(/p99 asked/);
    const half = await profileFleet(client, { ...opts, window: "30m" });
    expect(half.recordingRules).toMatchObject({ used: true, tier: "rates" });
    expect(half.recordingRules.windowNote).toMatch(/a 30m window/);
  });
});
