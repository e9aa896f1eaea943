// `untorn compare --input` on the 5-minute case: an hour before, 5 minutes after, the canary's
// bytes per transaction 140 → 80 beside a flat control, 15 s samples with autocorrelated noise.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRng } from "@untorn/compare/prng";
import { sharedFactor, simulateSeries } from "@untorn/compare/simulate";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../errors.js";
import { run } from "../program.js";
import { bufferIo } from "../testing/buffer-io.js";

const changeAt = 1_800_000_000;

function fiveMinuteCase(effect: number, seed: number) {
  const rng = createRng(seed);
  const n = 3900 / 15;
  const spec = {
    start: changeAt - 3600,
    seconds: 3900,
    step: 15,
    level: 140,
    noise: { sd: 0.07, phi: 0.9 },
    shared: sharedFactor(n, 0.05, 0.95, rng),
  };
  const split = (w: { t: number[]; v: (number | null)[] }, scale: number) => ({
    before: { t: w.t.filter((t) => t < changeAt), v: w.v.filter((_, i) => w.t[i]! < changeAt) },
    after: {
      t: w.t.filter((t) => t >= changeAt),
      v: w.v.filter((_, i) => w.t[i]! >= changeAt).map((v) => (v as number) * scale),
    },
  });
  const x = simulateSeries(spec, rng);
  const c = simulateSeries(spec, rng);
  return {
    metrics: [{ id: "write_bytes_per_transaction", kind: "efficiency" }],
    instances: [
      { id: "canary", role: "treated", series: { write_bytes_per_transaction: split(x, effect) } },
      { id: "control", role: "control", series: { write_bytes_per_transaction: split(c, 1) } },
    ],
  };
}

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "untorn-compare-short-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function compareFile(input: unknown, extra: string[] = []) {
  const file = join(dir, `in-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(input));
  const io = bufferIo({});
  const code = await run(["compare", "--input", file, ...extra], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe("untorn compare on a short after window", () => {
  it("decides the clear 5-minute case against the control, and says how it was judged", async () => {
    const r = await compareFile(fiveMinuteCase(80 / 140, 1));
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain("Verdict: IMPROVED");
    expect(r.out).toMatch(/baseline-noise, difference-in-differences/);
    expect(r.out).toMatch(/240\/20 samples/);
    expect(r.out).toMatch(/judged against the before window's own noise instead/);
    expect(r.out).not.toMatch(/control_missing|controls share only|e\+\d/);
  });

  it("an A/A pair over the same windows is not decided", async () => {
    const r = await compareFile(fiveMinuteCase(1, 2), ["--json"]);
    const res = JSON.parse(r.out) as {
      results: { instance: string; method: string; ciLow: number; ciHigh: number }[];
    };
    const row = res.results.find((x) => x.instance === "canary")!;
    expect(row.method).toBe("baseline-noise");
    expect(row.ciLow).toBeLessThan(1);
    expect(row.ciHigh).toBeGreaterThan(1);
  });
});
