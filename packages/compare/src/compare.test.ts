import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { at, buildInput, DAY, fleetLoad, HOUR } from "../test/scenarios.js";
import { compare, finishComparison, instanceAnalyser, planComparison } from "./compare.js";
import { ComparisonInput } from "./input.js";
import { createRng } from "./prng.js";
import { ComparisonResult, type SeriesResult } from "./result.js";
import { simulateSeries } from "./simulate.js";

const codes = (r: SeriesResult) => r.flags.map((f) => f.code);
const find = (res: ComparisonResult, instance: string, metric: string) =>
  res.results.find((r) => r.instance === instance && r.metric === metric)!;

describe("compare: demand-driven throughput", () => {
  // An unsaturated replica: the same demand before and after (TPS unchanged), while turning doublewrite
  // off halves the bytes written and cuts fsyncs per transaction (docs/reference/iops-metering.md §11, fast disk).
  const two = 2 * DAY;
  const input = buildInput(
    7,
    [
      { id: "tps", kind: "throughput" },
      { id: "bytes_per_trx", kind: "efficiency", unit: "bytes" },
      { id: "fsyncs_per_trx", kind: "efficiency" },
      { id: "commit_latency", kind: "latency", unit: "s" },
      { id: "com_insert", kind: "workload" },
      { id: "com_update", kind: "workload" },
    ],
    [
      {
        id: "db-1",
        role: "treated",
        series: {
          tps: { before: at(0, 0, two, 800), after: at(2, 0, two, 800) },
          bytes_per_trx: {
            before: at(0, 0, two, 120_000),
            after: { ...at(2, 0, two, 120_000), effect: 0.55 },
          },
          fsyncs_per_trx: { before: at(0, 0, two, 2.4), after: { ...at(2, 0, two, 2.4), effect: 0.6 } },
          commit_latency: { before: at(0, 0, two, 0.004), after: at(2, 0, two, 0.004) },
          com_insert: { before: at(0, 0, two, 200), after: at(2, 0, two, 200) },
          com_update: { before: at(0, 0, two, 600), after: at(2, 0, two, 600) },
        },
      },
    ],
  );
  const res = compare(input);

  it("finds efficiency improved and throughput unchanged, and says throughput is demand-driven", () => {
    expect(find(res, "db-1", "tps").verdict).toBe("unchanged");
    const bytes = find(res, "db-1", "bytes_per_trx");
    expect(bytes.verdict).toBe("improved");
    expect(bytes.ratio!).toBeGreaterThan(0.53);
    expect(bytes.ratio!).toBeLessThan(0.57);
    expect(bytes.ciLow!).toBeLessThan(0.55);
    expect(bytes.ciHigh!).toBeGreaterThan(0.55);
    expect(find(res, "db-1", "fsyncs_per_trx").verdict).toBe("improved");
    expect(res.overall.verdict).toBe("improved");
    expect(res.overall.throughput.demandDriven).toBe(true);
    expect(res.overall.carriedBy).toEqual(expect.arrayContaining(["bytes_per_trx", "fsyncs_per_trx"]));
    expect(res.overall.carriedBy).not.toContain("tps");
    expect(res.metrics.find((m) => m.metric === "tps")!.carriesVerdict).toBe(false);
    expect(res.overall.workloadMismatch).toBe(false);
    expect(res.overall.reasons.join(" ")).toMatch(
      /demand-driven: efficiency improved, throughput held within ±15%/,
    );
  });

  it("uses matched hours and the intended methods", () => {
    expect(find(res, "db-1", "tps")).toMatchObject({
      design: "matched-hours",
      method: "block-t",
      blockSeconds: 300,
    });
    expect(find(res, "db-1", "commit_latency").method).toBe("hodges-lehmann");
    expect(find(res, "db-1", "com_insert").verdict).toBe("unchanged");
    expect(find(res, "db-1", "com_insert").carriesVerdict).toBe(false);
  });

  it("returns output that matches the result schema and is deterministic", () => {
    expect(() => ComparisonResult.parse(res)).not.toThrow();
    expect(JSON.stringify(compare(input))).toBe(JSON.stringify(res));
  });
});

describe("compare: difference in differences against a control replica", () => {
  // Before 10:00-11:00, after 15:00-16:00 the same day: fleet load dropped 30% (and the hours differ).
  const scenario = (seed: number, effect: number) => {
    const rng = createRng(1000 + seed);
    const before = fleetLoad(HOUR, 15, rng);
    const after = fleetLoad(HOUR, 15, rng, 0.7);
    const w = (hour: number, shared: Float64Array, e = 1) => ({
      ...at(0, hour, HOUR),
      seasonality: undefined,
      shared,
      effect: e,
    });
    return [
      {
        id: "canary",
        role: "treated" as const,
        series: { tps: { before: w(10, before), after: w(15, after, effect) } },
      },
      {
        id: "sibling",
        role: "control" as const,
        series: { tps: { before: w(10, before), after: w(15, after) } },
      },
    ];
  };
  const metrics = [{ id: "tps", kind: "throughput" as const }];

  it("removes a fleet-wide load shift that plain before/after calls a regression", () => {
    const withControl = compare(buildInput(1, metrics, scenario(1, 1)));
    const canary = find(withControl, "canary", "tps");
    expect(canary.design).toBe("difference-in-differences");
    expect(canary.controls).toEqual(["sibling"]);
    expect(canary.verdict).not.toBe("regressed");
    expect(canary.ciLow!).toBeLessThan(1);
    expect(canary.ciHigh!).toBeGreaterThan(1);
    expect(codes(canary)).not.toContain("seasonality_unmatched");
    const sibling = find(withControl, "sibling", "tps");
    expect(sibling.ratio!).toBeLessThan(0.8);
    expect(sibling.carriesVerdict).toBe(false);

    const alone = compare(buildInput(1, metrics, scenario(1, 1).slice(0, 1)));
    expect(find(alone, "canary", "tps").verdict).toBe("regressed");
  });

  it("recovers a real +20% effect under the same shift", () => {
    const res = compare(buildInput(2, metrics, scenario(2, 1.2)));
    const canary = find(res, "canary", "tps");
    expect(canary.verdict).toBe("improved");
    expect(canary.ciLow!).toBeLessThan(1.2);
    expect(canary.ciHigh!).toBeGreaterThan(1.2);
    expect(res.overall.verdict).toBe("improved");
    expect(res.overall.designs).toEqual(["difference-in-differences"]);
  });

  it("falls back to before/after with a warning when the control has no overlapping data", () => {
    const inst = scenario(3, 1);
    inst[1]!.series.tps.before = {
      ...inst[1]!.series.tps.before,
      start: inst[1]!.series.tps.before.start + 5 * DAY,
    };
    const res = compare(buildInput(3, metrics, inst));
    const canary = find(res, "canary", "tps");
    expect(canary.design).not.toBe("difference-in-differences");
    expect(codes(canary)).toContain("control_missing");
  });
});

describe("compare: seasonality", () => {
  const metrics = [{ id: "tps", kind: "throughput" as const }];
  it("warns when pure before/after windows cover different hours, and is biased there", () => {
    const res = compare(
      buildInput(4, metrics, [
        {
          id: "db",
          role: "treated",
          series: { tps: { before: at(0, 4, 2 * HOUR), after: at(0, 13, 2 * HOUR) } },
        },
      ]),
    );
    const r = find(res, "db", "tps");
    expect(codes(r)).toContain("seasonality_unmatched");
    expect(r.design).toBe("before-after");
    expect(r.ratio!).toBeGreaterThan(1.3); // the daily cycle, not an effect
  });

  it("matches hours of day and then finds no change", () => {
    const res = compare(
      buildInput(4, metrics, [
        { id: "db", role: "treated", series: { tps: { before: at(0, 0, DAY), after: at(1, 6, 6 * HOUR) } } },
      ]),
    );
    const r = find(res, "db", "tps");
    expect(r.design).toBe("matched-hours");
    expect(codes(r)).toContain("seasonality_matched");
    expect(r.ciLow!).toBeLessThan(1);
    expect(r.ciHigh!).toBeGreaterThan(1);
  });

  it("can be told not to match (lab runs)", () => {
    const res = compare(
      buildInput(
        4,
        metrics,
        [
          {
            id: "db",
            role: "treated",
            series: {
              tps: {
                before: { ...at(0, 4, HOUR), seasonality: undefined },
                after: { ...at(0, 13, HOUR), seasonality: undefined },
              },
            },
          },
        ],
        { seasonality: "none" },
      ),
    );
    expect(codes(find(res, "db", "tps"))).not.toContain("seasonality_unmatched");
  });
});

describe("compare: data-quality guards", () => {
  it("handles counter resets: rate from the counter, reset dropped, warm-up excluded instance-wide", () => {
    const restart = at(1, 10, HOUR).start + 20 * 60;
    const res = compare(
      buildInput(
        5,
        [
          { id: "writes", kind: "efficiency", counter: true },
          { id: "tps", kind: "throughput" },
        ],
        [
          {
            id: "db",
            role: "treated",
            series: {
              writes: {
                before: { ...at(0, 10, HOUR, 50), counter: true },
                after: { ...at(1, 10, HOUR, 50), counter: true, resets: [restart], effect: 0.5 },
              },
              tps: { before: at(0, 10, HOUR), after: at(1, 10, HOUR) },
            },
          },
        ],
      ),
    );
    const writes = find(res, "db", "writes");
    expect(codes(writes)).toEqual(expect.arrayContaining(["counter_reset", "warmup_excluded"]));
    expect(writes.meanBefore!).toBeGreaterThan(40);
    expect(writes.meanBefore!).toBeLessThan(60);
    expect(writes.ratio!).toBeGreaterThan(0.4);
    expect(writes.ratio!).toBeLessThan(0.6);
    expect(writes.verdict).toBe("improved");
    // The reset marks a restart for the whole instance: the gauge loses its warm-up too.
    expect(codes(find(res, "db", "tps"))).toContain("warmup_excluded");
  });

  it("flags gaps, and says inconclusive when too little data is left", () => {
    const metrics = [{ id: "tps", kind: "throughput" as const }];
    const gappy = compare(
      buildInput(6, metrics, [
        {
          id: "db",
          role: "treated",
          series: {
            tps: { before: { ...at(0, 10, HOUR), gaps: { count: 1, seconds: 900 } }, after: at(1, 10, HOUR) },
          },
        },
      ]),
    );
    expect(codes(find(gappy, "db", "tps"))).toContain("gaps");
    expect(find(gappy, "db", "tps").blocksBefore).toBeLessThan(12);

    // 45 s before (3 samples): too few even against the hour after's own noise.
    const short = compare(
      buildInput(6, metrics, [
        { id: "db", role: "treated", series: { tps: { before: at(0, 10, 45), after: at(1, 10, HOUR) } } },
      ]),
    );
    expect(find(short, "db", "tps").verdict).toBe("inconclusive");
    expect(codes(find(short, "db", "tps"))).toContain("too_little_data");
    // 2 minutes before beside an hour after: too few blocks, judged against the hour's own noise.
    const two = compare(
      buildInput(6, metrics, [
        { id: "db", role: "treated", series: { tps: { before: at(0, 10, 120), after: at(1, 10, HOUR) } } },
      ]),
    );
    expect(find(two, "db", "tps").method).toBe("baseline-noise");
    expect(codes(find(two, "db", "tps"))).toContain("baseline_noise");
  });

  it("reports no data per metric and overall", () => {
    const input = ComparisonInput.parse({
      metrics: [{ id: "tps", kind: "throughput" }],
      instances: [
        {
          id: "db",
          role: "treated",
          series: { tps: { before: { t: [1, 2], v: [null, null] }, after: { t: [], v: [] } } },
        },
      ],
    });
    const res = compare(input);
    expect(find(res, "db", "tps").verdict).toBe("no_data");
    expect(res.overall.verdict).toBe("no_data");
  });

  it("flags overlapping windows", () => {
    const res = compare(
      buildInput(
        8,
        [{ id: "tps", kind: "throughput" }],
        [
          {
            id: "db",
            role: "treated",
            series: { tps: { before: at(0, 10, HOUR), after: at(0, 10.5, HOUR) } },
          },
        ],
      ),
    );
    expect(codes(find(res, "db", "tps"))).toContain("windows_overlap");
  });

  it("compares zero-inflated waits as a ratio of means and calls all-zero unchanged", () => {
    const t = Array.from({ length: 480 }, (_, i) => 1_767_225_600 + i * 15);
    // Doublewrite waits come in bursts: two blocks in three have none at all.
    const wait = (scale: number) =>
      t.map((_, i) => (Math.floor(i / 20) % 3 === 0 ? scale * (1 + (i % 3)) : 0));
    const res = compare(
      ComparisonInput.parse({
        metrics: [
          { id: "dblwr_wait", kind: "wait" },
          { id: "never", kind: "wait" },
          { id: "new_wait", kind: "wait" },
        ],
        instances: [
          {
            id: "db",
            role: "treated",
            series: {
              dblwr_wait: { before: { t, v: wait(1) }, after: { t: t.map((x) => x + DAY), v: wait(0.3) } },
              never: {
                before: { t, v: t.map(() => 0) },
                after: { t: t.map((x) => x + DAY), v: t.map(() => 0) },
              },
              new_wait: { before: { t, v: t.map(() => 0) }, after: { t: t.map((x) => x + DAY), v: wait(1) } },
            },
          },
        ],
      }),
    );
    const w = find(res, "db", "dblwr_wait");
    expect(w.method).toBe("block-t");
    expect(codes(w)).toContain("zero_values");
    expect(w.ratio!).toBeCloseTo(0.3, 1);
    expect(w.verdict).toBe("improved");
    expect(find(res, "db", "never")).toMatchObject({ verdict: "unchanged", ratio: 1 });
    // From nothing to something has no ratio: say so instead of inventing one.
    const fresh = find(res, "db", "new_wait");
    expect(fresh).toMatchObject({ verdict: "inconclusive", ratio: null });
    expect(codes(fresh)).toContain("zero_baseline");
  });
});

describe("compare: workload parity (SRM-like)", () => {
  const metrics = [
    { id: "tps", kind: "throughput" as const },
    { id: "bytes_per_trx", kind: "efficiency" as const },
    { id: "com_insert", kind: "workload" as const },
    { id: "com_update", kind: "workload" as const },
  ];
  const series = (volume: number, insertShare: number) => ({
    tps: { before: at(0, 8, 4 * HOUR, 800), after: { ...at(1, 8, 4 * HOUR, 800), effect: volume } },
    bytes_per_trx: {
      before: at(0, 8, 4 * HOUR, 100_000),
      after: { ...at(1, 8, 4 * HOUR, 100_000), effect: 0.6 },
    },
    com_insert: {
      before: at(0, 8, 4 * HOUR, 250),
      after: { ...at(1, 8, 4 * HOUR, 1000 * insertShare), effect: volume },
    },
    com_update: {
      before: at(0, 8, 4 * HOUR, 750),
      after: { ...at(1, 8, 4 * HOUR, 1000 * (1 - insertShare)), effect: volume },
    },
  });

  it("flags a volume change, sets throughput aside and lets efficiency carry the verdict", () => {
    const res = compare(buildInput(9, metrics, [{ id: "db", role: "treated", series: series(1.4, 0.25) }]));
    expect(res.overall.workloadMismatch).toBe(true);
    expect(res.workload[0]!.volumeRatio!).toBeGreaterThan(1.3);
    const tps = find(res, "db", "tps");
    expect(tps.carriesVerdict).toBe(false);
    expect(codes(tps)).toContain("workload_mismatch");
    expect(res.overall.verdict).toBe("improved");
    expect(res.overall.carriedBy).toEqual(["bytes_per_trx"]);
    expect(res.overall.throughput.demandDriven).toBeNull();
  });

  it("flags a change in the statement mix", () => {
    const res = compare(buildInput(10, metrics, [{ id: "db", role: "treated", series: series(1, 0.5) }]));
    expect(res.workload[0]!.mixDistance!).toBeCloseTo(0.25, 1);
    expect(res.workload[0]!.flagged).toBe(true);
    expect(res.workload[0]!.reasons.join(" ")).toMatch(/mix/);
  });

  it("stays quiet when the workload did not change", () => {
    const res = compare(buildInput(11, metrics, [{ id: "db", role: "treated", series: series(1, 0.25) }]));
    expect(res.workload[0]!.flagged).toBe(false);
    expect(res.overall.workloadMismatch).toBe(false);
  });
});

describe("compare: verdicts across metrics and instances", () => {
  it("reports a latency regression even when efficiency improved (trade-off)", () => {
    const res = compare(
      buildInput(
        12,
        [
          { id: "bytes_per_trx", kind: "efficiency" },
          { id: "p99_commit", kind: "latency", unit: "s" },
        ],
        [
          {
            id: "db",
            role: "treated",
            series: {
              bytes_per_trx: {
                before: at(0, 0, DAY, 100_000),
                after: { ...at(1, 0, DAY, 100_000), effect: 0.6 },
              },
              p99_commit: {
                before: { ...at(0, 0, DAY, 0.01), outliers: { rate: 0.01, scale: 6 } },
                after: { ...at(1, 0, DAY, 0.01), outliers: { rate: 0.01, scale: 6 }, effect: 1.3 },
              },
            },
          },
        ],
      ),
    );
    expect(find(res, "db", "p99_commit").verdict).toBe("regressed");
    expect(res.overall.verdict).toBe("regressed");
    expect(res.overall.carriedBy).toEqual(["p99_commit"]);
    expect(res.overall.reasons.join(" ")).toMatch(/trade-off/);
  });

  it("pools treated instances per metric", () => {
    const inst = (id: string) => ({
      id,
      role: "treated" as const,
      series: {
        bytes_per_trx: {
          before: at(0, 0, 6 * HOUR, 100_000),
          after: { ...at(1, 0, 6 * HOUR, 100_000), effect: 0.55 },
        },
      },
    });
    const res = compare(
      buildInput(13, [{ id: "bytes_per_trx", kind: "efficiency" }], [inst("a"), inst("b"), inst("c")]),
    );
    const s = res.metrics[0]!;
    expect(s.instances).toBe(3);
    expect(s.ratio!).toBeGreaterThan(0.52);
    expect(s.ratio!).toBeLessThan(0.58);
    expect(s.verdict).toBe("improved");
    expect(s.pValueAdjusted).not.toBeNull();
  });

  it("is reproducible with the bootstrap for a seed and only the interval moves with the seed", () => {
    const input = buildInput(
      14,
      [{ id: "tps", kind: "throughput" }],
      [
        {
          id: "db",
          role: "treated",
          series: {
            tps: {
              before: { ...at(0, 0, DAY), seasonality: undefined },
              after: { ...at(1, 0, DAY), seasonality: undefined, effect: 1.1 },
            },
          },
        },
      ],
      { method: "block-bootstrap", seasonality: "none" },
    );
    const a = compare(input);
    const b = compare({ ...input, seed: 99 });
    const ra = find(a, "db", "tps");
    const rb = find(b, "db", "tps");
    expect(ra.method).toBe("block-bootstrap");
    expect(JSON.stringify(compare(input))).toBe(JSON.stringify(a));
    expect(ra.ratio).toBe(rb.ratio);
    expect(ra.ciLow).not.toBe(rb.ciLow);
    expect(ra.verdict).toBe("improved");
    expect(rb.verdict).toBe("improved");
  });
});

const T0 = 1_767_225_600;

describe("instance analyses", () => {
  it("do not depend on the order they run in (what compare on worker threads relies on)", () => {
    const rng = createRng(11);
    const spec = (start: number, level: number) => ({
      start,
      seconds: 4 * 3600,
      step: 15,
      level,
      noise: { sd: 0.1, phi: 0.8 },
      gaps: { count: 1, seconds: 300 },
    });
    const input = ComparisonInput.parse({
      metrics: [
        { id: "tps", kind: "throughput" },
        { id: "lat", kind: "latency" },
        { id: "ins", kind: "workload" },
      ],
      instances: ["a", "b", "c", "k1", "k2"].map((id, i) => ({
        id,
        role: i < 3 ? "treated" : "control",
        series: Object.fromEntries(
          ["tps", "lat", "ins"].map((m) => [
            m,
            {
              before: simulateSeries(spec(T0, 100 + i), rng),
              after: simulateSeries(spec(T0 + 86_400, i < 3 ? 115 : 100 + i), rng),
            },
          ]),
        ),
      })),
    });
    const whole = JSON.stringify(compare(input));
    fc.assert(
      fc.property(fc.shuffledSubarray([0, 1, 2, 3, 4], { minLength: 5, maxLength: 5 }), (order) => {
        const plan = planComparison(input);
        const analyse = instanceAnalyser(plan, input.instances);
        const analyses = new Array(input.instances.length);
        for (const i of order) analyses[i] = analyse(input.instances[i]!);
        expect(JSON.stringify(finishComparison(plan, analyses))).toBe(whole);
      }),
      { numRuns: 15 },
    );
  });
});
