import { describe, expect, it } from "vitest";
import { compare } from "./compare.js";
import { ComparisonInput } from "./input.js";
import { createRng } from "./prng.js";
import { sharedFactor, simulateSeries } from "./simulate.js";

const changeAt = 1_800_000_000;

/** A canary and its control at 15 s: 1 h of baseline, `bake` seconds after the change. */
function input(effect: number, bake: number, seed: number) {
  const rng = createRng(seed);
  const n = (3600 + bake) / 15;
  const shared = sharedFactor(n, 0.05, 0.95, rng);
  const spec = {
    start: changeAt - 3600,
    seconds: n * 15,
    step: 15,
    level: 1e5,
    noise: { sd: 0.1, phi: 0.9 },
    shared,
  };
  const x = simulateSeries(spec, rng);
  const c = simulateSeries(spec, rng);
  const split = (w: { t: number[]; v: (number | null)[] }, scale: number) => ({
    before: { t: w.t.filter((t) => t < changeAt), v: w.v.filter((_, i) => w.t[i]! < changeAt) },
    after: {
      t: w.t.filter((t) => t >= changeAt),
      v: w.v.filter((_, i) => w.t[i]! >= changeAt).map((v) => (v as number) * scale),
    },
  });
  return ComparisonInput.parse({
    seed,
    metrics: [{ id: "bytes_per_trx", kind: "efficiency" }],
    instances: [
      { id: "canary", role: "treated", series: { bytes_per_trx: split(x, effect) } },
      { id: "control", role: "control", series: { bytes_per_trx: split(c, 1) } },
    ],
    options: { sequential: { lookEverySeconds: 60, maxSeconds: 1800 } },
  });
}

describe("compare with options.sequential (a bake against a baseline from history)", () => {
  it("decides −45% after 5 minutes of bake against the control, with bounded numbers and the sequential flag", () => {
    const r = compare(input(0.55, 300, 11));
    const row = r.results.find((x) => x.instance === "canary")!;
    expect(row.method).toBe("sequential");
    expect(row.design).toBe("difference-in-differences");
    expect(row.controls).toEqual(["control"]);
    expect(row.verdict).toBe("improved");
    expect(row.ratio!).toBeGreaterThan(0.4);
    expect(row.ratio!).toBeLessThan(0.7);
    expect(row.ciHigh!).toBeLessThan(1);
    expect(row.flags.find((f) => f.code === "sequential")?.message).toMatch(/over 30 look\(s\) up to 30 min/);
    expect(r.overall.verdict).toBe("improved");
    expect(r.overall.reasons.join(" ")).not.toMatch(/NaN|Infinity|e\+/);
  });

  it("an undecided A/A at the maximum bake says that the maximum was reached", () => {
    const r = compare(input(1, 1800, 12));
    const row = r.results.find((x) => x.instance === "canary")!;
    expect(row.method).toBe("sequential");
    expect(row.verdict).toBe("inconclusive");
    expect(row.flags.find((f) => f.code === "sequential")?.message).toMatch(
      /maximum bake is reached undecided/,
    );
  });
});

describe("a metric at 0 throughout the baseline", () => {
  it("33 samples whose mean is 0 are not 'no data': inconclusive, saying the zeros were left out", () => {
    const t = Array.from({ length: 33 }, (_, i) => changeAt - 33 * 15 + i * 15);
    const ta = Array.from({ length: 20 }, (_, i) => changeAt + i * 15);
    const r = compare(
      ComparisonInput.parse({
        metrics: [{ id: "write_bytes_per_transaction", kind: "efficiency" }],
        instances: [
          {
            id: "db",
            role: "treated",
            series: {
              write_bytes_per_transaction: {
                before: { t, v: t.map(() => 0) },
                after: { t: ta, v: ta.map(() => 0) },
              },
            },
          },
        ],
        options: { sequential: { lookEverySeconds: 60, maxSeconds: 1800 } },
      }),
    );
    const row = r.results[0]!;
    expect(row.nBefore).toBe(33);
    expect(row.verdict).toBe("inconclusive");
    expect(row.flags.map((f) => f.code)).not.toContain("no_data");
    expect(row.flags.find((f) => f.code === "too_little_data")?.message).toBe(
      "0 usable baseline samples (33 at 0 or below left out: no logarithm); at least 8 needed to read its noise",
    );
  });
});
