// The fleet profile and the instance view on Prometheus and on VictoriaMetrics over the same history:
// synthetic untorn-exporter history with per-step noise (src/testing/synthetic.ts) backfilled into a real
// prometheus with promtool and imported into a real victoria-metrics; the catalog's rate recording rules
// evaluated over that history by promtool on one side and by vmalert (replay) on the other. Verdicts,
// safety gates and findings must agree; facts within TOLERANCE (MetricsQL's rate() does not extrapolate
// to the window's edges as Prometheus' does, and reads the sample before the window). Both with and
// without the recording rules. Three instances are not as old as the window: two servers started inside
// it and one restarted in it; the young ones' rates must read the same on both backends and both paths
// (young.ts), where Prometheus' uncorrected rate() reads them low.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { PromClient } from "@untorn/prom/client";
import { makeTempDir } from "@untorn/testkit/process";
import { type Prometheus, startPrometheus } from "@untorn/testkit/prometheus";
import { replayRules, startVictoriaMetrics, type VictoriaMetrics } from "@untorn/testkit/victoria-metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PromQueryApi } from "../src/api.js";
import { type FleetProfile, profileFleet } from "../src/profile.js";
import { syntheticFleet, VALUE_RESOLUTION } from "../src/testing/synthetic.js";
import { backfill, backfillRecordingRules, importHistory, writeRateRules } from "../tools/backfill.js";
import { adviceSummary, expectSameInstanceView, leaves, mergeRuleBlocks } from "./backends.js";

/**
 * Relative agreement of every numeric fact between the two backends. A window statistic that differs by
 * less than QUANTUM differs by the history's counter resolution (a ms timer advancing every few scrapes,
 * where the two engines' rate() edges differ by one step), not by the method.
 */
const TOLERANCE = 0.05;
const QUANTUM = (2 * VALUE_RESOLUTION) / 60;
/**
 * Per-step statistics (p95) of a server younger than the window: VictoriaMetrics' first per-step rates
 * cover less than their rate window (down to one scrape interval), so with the history's 10 % noise per
 * step they spread wider and its p95 reads higher (measured up to 6 % on the recorded path). The window
 * averages of young servers stay within TOLERANCE.
 */
const YOUNG_PEAK_TOLERANCE = 0.1;

const END = Math.floor(Date.now() / 1000 / 60) * 60 - 300;
const HISTORY = { start: END - 40 * 60, end: END, stepSeconds: 15, slowStepSeconds: 60, noise: 0.1 };
const opts = { window: "30m", at: END };
const WINDOW_SECONDS = 30 * 60;
const base = syntheticFleet(12, 9);
/** Servers started inside the window (no samples before), and one restarted in it. */
const YOUNG = [
  { ...base[5]!, instance: "young-20m", gap: [HISTORY.start, END - 20 * 60], restartAt: END - 20 * 60 },
  { ...base[9]!, instance: "young-12m", gap: [HISTORY.start, END - 12 * 60], restartAt: END - 12 * 60 },
] as const;
const RESTARTED = { ...base[10]!, instance: "restarted-15m", restartAt: END - 15 * 60 };
const fleet = [...base, ...YOUNG, RESTARTED];

let dir = "";
let prom: Prometheus | undefined;
let vm: VictoriaMetrics | undefined;

beforeAll(async () => {
  dir = await makeTempDir("fleet-vm");
  const b = await backfill(fleet, HISTORY, join(dir, "raw"));
  const first = await startPrometheus({ jobs: [], storagePath: b.dir });
  try {
    const r = await backfillRecordingRules(
      first.url,
      { start: HISTORY.start, end: HISTORY.end, evalSeconds: HISTORY.stepSeconds },
      join(dir, "rules"),
    );
    mergeRuleBlocks(r.dir, b.dir);
  } finally {
    await first.stop();
  }
  prom = await startPrometheus({ jobs: [], storagePath: b.dir });

  vm = await startVictoriaMetrics();
  await importHistory(vm, fleet, HISTORY);
  const rules = join(dir, "vm-rules.json");
  await writeRateRules(rules);
  await replayRules({
    vmUrl: vm.url,
    ruleFiles: [rules],
    evaluationInterval: `${HISTORY.stepSeconds}s`,
    from: HISTORY.start,
    to: HISTORY.end,
  });
  await vm.flush();
}, 400_000);

afterAll(async () => {
  await prom?.stop();
  await vm?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** The four readings: both backends, raw and recorded path. */
const profiles = new Map<string, Promise<FleetProfile>>();
function profile(backend: "prometheus" | "victoria-metrics", rules: boolean): Promise<FleetProfile> {
  const key = `${backend} ${rules}`;
  let p = profiles.get(key);
  if (!p) {
    const url = backend === "prometheus" ? prom!.url : vm!.url;
    p = profileFleet(new PromClient({ baseUrl: url }), { ...opts, recordingRules: rules });
    profiles.set(key, p);
  }
  return p;
}

/** A client of Prometheus that says it is VictoriaMetrics: the profile then leaves rate() as it reads. */
function uncorrected(url: string): PromQueryApi {
  const c = new PromClient({ baseUrl: url });
  return {
    queryVector: (e, o) => c.queryVector(e, o),
    queryRange: (e, o) => c.queryRange(e, o),
    backend: async () => ({ kind: "victoriametrics", queryDelaySeconds: 0, note: null }),
  };
}

const factsOf = (p: FleetProfile, instance: string) => {
  const f = p.facts.find((x) => x.identity.instance === instance);
  if (!f) throw new Error(`no facts for ${instance}`);
  return f;
};

/** Window averages of every rate of an instance, by path. */
const rateAverages = (p: FleetProfile, instance: string): Map<string, number> =>
  new Map(
    [...leaves(factsOf(p, instance).workload)].filter(
      ([path]) =>
        path.endsWith(".avg") &&
        (path.startsWith("rates.") || path.startsWith("fileIo.") || path.startsWith("device.")) &&
        !path.includes("utilisation") &&
        !path.includes("ioInProgress"),
    ),
  );

function compareFacts(a: FleetProfile, b: FleetProfile, label: string): void {
  expect(a.facts.map((f) => f.identity.instance)).toEqual(b.facts.map((f) => f.identity.instance));
  let worst = 0;
  let where = "";
  let quantised = 0;
  let worstYoungPeak = 0;
  const youngNames = new Set<string>(YOUNG.map((y) => y.instance));
  for (const [i, f] of a.facts.entries()) {
    const x = leaves(f);
    const y = leaves(b.facts[i]);
    expect([...x.keys()].sort()).toEqual([...y.keys()].sort());
    for (const [path, v] of x) {
      const w = y.get(path)!;
      const tiny = v !== w && path.startsWith("workload.") && Math.abs(v - w) <= QUANTUM;
      if (tiny) quantised++;
      const rel = v === w || tiny ? 0 : Math.abs(v - w) / Math.max(Math.abs(v), Math.abs(w));
      if (youngNames.has(f.identity.instance) && /\.(p50|p95|p99|max)$/.test(path))
        worstYoungPeak = Math.max(worstYoungPeak, rel);
      else if (rel > worst) [worst, where] = [rel, `${f.identity.instance} ${path}`];
    }
  }
  process.stderr.write(
    `[prometheus vs victoria-metrics, ${label}] worst relative difference ${worst.toFixed(4)} at ${where} (${quantised} window statistics within the counter resolution); young servers' per-step statistics ${worstYoungPeak.toFixed(4)}\n`,
  );
  expect(worst).toBeLessThanOrEqual(TOLERANCE);
  expect(worstYoungPeak).toBeLessThanOrEqual(YOUNG_PEAK_TOLERANCE);
}

describe("Prometheus and VictoriaMetrics over the same history", () => {
  for (const rules of [true, false]) {
    it(`give the same verdicts, gates and findings, facts within ${TOLERANCE * 100}% (recording rules ${rules ? "read" : "not read"})`, async () => {
      const p = await profile("prometheus", rules);
      const v = await profile("victoria-metrics", rules);
      expect(p.recordingRules.used).toBe(rules);
      expect(v.recordingRules.used).toBe(rules);
      expect(v.queries).toBe(p.queries);
      expect(v.facts).toHaveLength(fleet.length);
      expect(adviceSummary(v)).toEqual(adviceSummary(p));
      compareFacts(p, v, rules ? "recorded" : "raw");
    });
  }

  it("reads a young server's rates over the time it was observed, on both backends and both paths (a restarted one's over the window)", async () => {
    const readings = await Promise.all([
      profile("prometheus", false),
      profile("prometheus", true),
      profile("victoria-metrics", false),
      profile("victoria-metrics", true),
    ]);
    const names = [
      "prometheus raw",
      "prometheus recorded",
      "victoria-metrics raw",
      "victoria-metrics recorded",
    ];
    for (const young of [...YOUNG, RESTARTED]) {
      const observed = young === RESTARTED ? WINDOW_SECONDS : END - young.restartAt;
      for (const p of readings) {
        const w = factsOf(p, young.instance).workload!;
        if (young === RESTARTED) {
          // Not young: its series existed before the window; nothing is scaled.
          expect(w.observedSeconds).toBeUndefined();
          expect(w.restarts).toBe(1);
          continue;
        }
        // Uptime at the newest sample: the time the server was observed, the same on both backends.
        expect(w.observedSeconds).toBe(observed);
        // The time before it, on both backends alike (their step counts differ by the window's first step).
        expect(w.gapRatio).toBeCloseTo(1 - observed / WINDOW_SECONDS, 9);
      }
      const byReading = readings.map((p) => rateAverages(p, young.instance));
      const paths = [...byReading[2]!.keys()];
      expect(paths.length).toBeGreaterThan(20);
      let worst = 0;
      let where = "";
      for (const path of paths) {
        const xs = byReading.map((m) => m.get(path));
        expect(
          xs.every((x) => x !== undefined),
          path,
        ).toBe(true);
        const ys = xs as number[];
        const hi = Math.max(...ys);
        const lo = Math.min(...ys);
        const rel = hi - lo <= QUANTUM ? 0 : (hi - lo) / hi;
        if (rel > worst)
          [worst, where] = [rel, `${path} (${names.map((n, i) => `${n} ${ys[i]}`).join(", ")})`];
      }
      process.stderr.write(
        `[${young.instance}, observed ${observed} s of ${WINDOW_SECONDS}] worst relative difference over backends and paths ${worst.toFixed(4)} at ${where}\n`,
      );
      expect(worst).toBeLessThanOrEqual(TOLERANCE);
    }
    // Left as Prometheus reads it, the raw path would be low by about the unobserved share of the window.
    const raw = await profileFleet(uncorrected(prom!.url), { ...opts, recordingRules: false });
    const rec = await profileFleet(uncorrected(prom!.url), { ...opts, recordingRules: true });
    const vmRaw = readings[2]!;
    for (const young of YOUNG) {
      const share = (END - young.restartAt) / WINDOW_SECONDS;
      const path = "rates.bufferPoolPagesFlushed.avg";
      const truth = rateAverages(vmRaw, young.instance).get(path)!;
      const plain = rateAverages(raw, young.instance).get(path)!;
      const plainRecorded = rateAverages(rec, young.instance).get(path)!;
      process.stderr.write(
        `[young ${young.instance}] ${path}: victoria-metrics ${truth}, prometheus uncorrected raw ${plain} (${(plain / truth).toFixed(3)}), recorded ${plainRecorded} (${(plainRecorded / truth).toFixed(3)})\n`,
      );
      expect(plain / truth).toBeGreaterThan(share - 0.05);
      expect(plain / truth).toBeLessThan(share + 0.05);
      expect(plainRecorded / truth).toBeLessThan(1 - TOLERANCE);
    }
  });

  it("gives the same instance view", async () => {
    await expectSameInstanceView(prom!.url, vm!.url, fleet[2]!.instance, opts);
  });
});
