// untorn.window on VictoriaMetrics: synthetic history imported into a real victoria-metrics, then the two
// groups replayed by vmalert in order, as they run: untorn.rates over the history at the scrape interval,
// a flush so its series are searchable, then untorn.window over the last minutes at its own interval
// (-datasource.queryStep = the interval), reading the rates just written. The profile reads tier 2 with
// the same verdicts, gates and findings as tier 1 and raw series; tier 2's statistics are tier 1's
// queries' answers at the time vmalert evaluated them; without the group's series the probe falls back
// to the rates and says so.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { DEFAULT_FLEET_WINDOW, RECORDED_WINDOW, WINDOW_PROBE_RECORD } from "@untorn/catalog/rules";
import { PromClient } from "@untorn/prom/client";
import { parseDuration } from "@untorn/prom/duration";
import { makeTempDir } from "@untorn/testkit/process";
import { replayRules, startVictoriaMetrics, type VictoriaMetrics } from "@untorn/testkit/victoria-metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FleetProfile, profileFleet } from "../src/profile.js";
import { syntheticFleet } from "../src/testing/synthetic.js";
import { importHistory, writeRateRules, writeWindowRules } from "../tools/backfill.js";
import { adviceSummary, factDifferences } from "./backends.js";

const END = Math.floor(Date.now() / 1000 / 60) * 60 - 300;
const HISTORY = { start: END - 70 * 60, end: END, stepSeconds: 15, slowStepSeconds: 60, noise: 0.1 };
const opts = { window: DEFAULT_FLEET_WINDOW, at: END };
const fleet = syntheticFleet(12, 11);
const INTERVAL_S = parseDuration(RECORDED_WINDOW.interval) / 1000;

let dir = "";
let vm: VictoriaMetrics | undefined;
let raw: FleetProfile;
let withoutWindow: FleetProfile;

beforeAll(async () => {
  dir = await makeTempDir("fleet-vm-window");
  vm = await startVictoriaMetrics();
  await importHistory(vm, fleet, HISTORY);
  const rates = join(dir, "rates.json");
  await writeRateRules(rates);
  await replayRules({
    vmUrl: vm.url,
    ruleFiles: [rates],
    evaluationInterval: `${HISTORY.stepSeconds}s`,
    from: HISTORY.start,
    to: HISTORY.end,
  });
  // The rates must be searchable before untorn.window's replay reads them.
  await vm.flush();
  const client = new PromClient({ baseUrl: vm.url });
  raw = await profileFleet(client, { ...opts, recordingRules: false });
  withoutWindow = await profileFleet(client, opts);
  const window = join(dir, "window.json");
  await writeWindowRules(window);
  await replayRules({
    vmUrl: vm.url,
    ruleFiles: [window],
    evaluationInterval: RECORDED_WINDOW.interval,
    from: END - 3 * INTERVAL_S,
    to: END,
  });
  await vm.flush();
  await untilSearchable(vm, `count(${WINDOW_PROBE_RECORD})`, END);
}, 600_000);

/**
 * Waits until `expr` has an answer at `time`: a flush makes new series searchable, but a query made
 * before them (the fallback profile's probe) can still be answered from VictoriaMetrics' caches for a
 * while (one CI run read tier "rates" right after the replay). Resets the rollup result cache, as
 * VictoriaMetrics asks after backfilling, and retries for up to 30 s; throws if the series never show.
 */
async function untilSearchable(vm: VictoriaMetrics, expr: string, time: number): Promise<void> {
  const client = new PromClient({ baseUrl: vm.url });
  const deadline = Date.now() + 30_000;
  for (;;) {
    await fetch(`${vm.url}/internal/resetRollupResultCache`).then((r) => r.arrayBuffer());
    const a = await client.queryVector(expr, { time });
    if (a.data.length > 0) return;
    if (Date.now() > deadline)
      throw new Error(`${expr} still has no answer at ${time} 30 s after the replay`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

afterAll(async () => {
  await vm?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Worst relative difference of the window statistics of two profiles; every other fact must be equal. */
function worstStat(a: FleetProfile, b: FleetProfile): { worst: number; compared: number } {
  const d = factDifferences(a, b);
  expect(d.worst.other).toBe(0);
  return { worst: Math.max(d.worst.avg, d.worst.p95), compared: d.compared };
}

describe("untorn.window on VictoriaMetrics (vmalert replays the groups in order)", () => {
  it("falls back to the per-instance rates, and says so, before untorn.window is replayed", () => {
    expect(withoutWindow.recordingRules).toMatchObject({ used: true, tier: "rates" });
    expect(withoutWindow.recordingRules.windowNote).toMatch(/untorn.window rules are not loaded/);
    expect(adviceSummary(withoutWindow)).toEqual(adviceSummary(raw));
  });

  it("reads the replayed statistics: same verdicts, gates and findings; tier 1's answers when evaluated", async () => {
    const client = new PromClient({ baseUrl: vm!.url });
    const t2 = await profileFleet(client, opts);
    expect(t2.recordingRules).toMatchObject({ used: true, fallbackReason: null, tier: "window" });
    expect(t2.queries).toBe(withoutWindow.queries);
    expect(t2.facts).toHaveLength(fleet.length);
    expect(adviceSummary(t2)).toEqual(adviceSummary(withoutWindow));
    expect(adviceSummary(t2)).toEqual(adviceSummary(raw));
    const evaluated = (await client.queryVector(`timestamp(${WINDOW_PROBE_RECORD})`, { time: END })).data[0]!
      .value;
    expect(evaluated).toBeLessThanOrEqual(END);
    expect(evaluated).toBeGreaterThan(END - INTERVAL_S - 1);
    const tier1Then = await profileFleet(client, { ...opts, at: evaluated, windowRules: false });
    const { worst, compared } = worstStat(t2, tier1Then);
    process.stderr.write(
      `[victoria-metrics window vs rates] evaluated ${END - evaluated} s before the time read; ${compared} statistics, worst relative difference ${worst}\n`,
    );
    expect(compared).toBeGreaterThan(fleet.length * 40);
    expect(worst).toBeLessThanOrEqual(1e-9);
  });
});
