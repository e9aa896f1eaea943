// The fleet profile and the instance view on Prometheus and on VictoriaMetrics over the same history:
// synthetic untorn-exporter history with per-step noise (src/testing/synthetic.ts) backfilled into a real
// prometheus with promtool and imported into a real victoria-metrics; the catalog's rate recording rules
// evaluated over that history by promtool on one side and by vmalert (replay) on the other. Verdicts,
// safety gates and findings must agree; facts within TOLERANCE (MetricsQL's rate() does not extrapolate
// to the window's edges as Prometheus' does, and reads the sample before the window). Both with and
// without the recording rules.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { PromClient } from "@untorn/prom/client";
import { makeTempDir } from "@untorn/testkit/process";
import { type Prometheus, startPrometheus } from "@untorn/testkit/prometheus";
import { replayRules, startVictoriaMetrics, type VictoriaMetrics } from "@untorn/testkit/victoria-metrics";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
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

const END = Math.floor(Date.now() / 1000 / 60) * 60 - 300;
const HISTORY = { start: END - 40 * 60, end: END, stepSeconds: 15, slowStepSeconds: 60, noise: 0.1 };
const opts = { window: "30m", at: END };
const fleet = syntheticFleet(12, 9);

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

function compareFacts(a: FleetProfile, b: FleetProfile, label: string): void {
  expect(a.facts.map((f) => f.identity.instance)).toEqual(b.facts.map((f) => f.identity.instance));
  let worst = 0;
  let where = "";
  let quantised = 0;
  for (const [i, f] of a.facts.entries()) {
    const x = leaves(f);
    const y = leaves(b.facts[i]);
    expect([...x.keys()].sort()).toEqual([...y.keys()].sort());
    for (const [path, v] of x) {
      const w = y.get(path)!;
      const tiny = v !== w && path.startsWith("workload.") && Math.abs(v - w) <= QUANTUM;
      if (tiny) quantised++;
      const rel = v === w || tiny ? 0 : Math.abs(v - w) / Math.max(Math.abs(v), Math.abs(w));
      if (rel > worst) [worst, where] = [rel, `${f.identity.instance} ${path}`];
    }
  }
  process.stderr.write(
    `[prometheus vs victoria-metrics, ${label}] worst relative difference ${worst.toFixed(4)} at ${where} (${quantised} window statistics within the counter resolution)\n`,
  );
  expect(worst).toBeLessThanOrEqual(TOLERANCE);
}

describe("Prometheus and VictoriaMetrics over the same history", () => {
  for (const rules of [true, false]) {
    it(`give the same verdicts, gates and findings, facts within ${TOLERANCE * 100}% (recording rules ${rules ? "read" : "not read"})`, async () => {
      const p = await profileFleet(new PromClient({ baseUrl: prom!.url }), {
        ...opts,
        recordingRules: rules,
      });
      const v = await profileFleet(new PromClient({ baseUrl: vm!.url }), { ...opts, recordingRules: rules });
      expect(p.recordingRules.used).toBe(rules);
      expect(v.recordingRules.used).toBe(rules);
      expect(v.queries).toBe(p.queries);
      expect(v.facts).toHaveLength(fleet.length);
      expect(adviceSummary(v)).toEqual(adviceSummary(p));
      compareFacts(p, v, rules ? "recorded" : "raw");
    });
  }

  it("gives the same instance view", async () => {
    await expectSameInstanceView(prom!.url, vm!.url, fleet[2]!.instance, opts);
  });
});
