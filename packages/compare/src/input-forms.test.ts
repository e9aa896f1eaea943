// The two input forms of a window, the one-pass sample check and its messages.
import { describe, expect, it } from "vitest";
import { compare } from "./compare.js";
import {
  ComparisonInput,
  type ComparisonInputJson,
  parseComparisonInput,
  toCompactWindow,
  toF64Window,
} from "./input.js";
import { createRng } from "./prng.js";
import { simulateSeries } from "./simulate.js";

const T0 = 1_767_225_600;

const withWindows = (before: unknown, after: unknown) => ({
  metrics: [{ id: "tps", kind: "throughput" }],
  instances: [{ id: "db", role: "treated", series: { tps: { before, after } } }],
});

const messages = (value: unknown) => {
  const r = parseComparisonInput(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("compact windows", () => {
  it("give the same result as the same samples with explicit timestamps", () => {
    const rng = createRng(3);
    const spec = (start: number, level: number) => ({
      start,
      seconds: 6 * 3600,
      step: 15,
      level,
      noise: { sd: 0.1, phi: 0.9 },
      gaps: { count: 2, seconds: 300 },
    });
    const explicit: ComparisonInputJson = {
      metrics: [
        { id: "tps", kind: "throughput" },
        { id: "lat", kind: "latency" },
      ],
      instances: ["db1", "db2"].map((id, i) => ({
        id,
        role: i === 0 ? ("treated" as const) : ("control" as const),
        series: Object.fromEntries(
          ["tps", "lat"].map((m) => [
            m,
            {
              before: simulateSeries(spec(T0, 100), rng),
              after: simulateSeries(spec(T0 + 86_400, i === 0 ? 120 : 100), rng),
            },
          ]),
        ),
      })),
    };
    const compact: ComparisonInputJson = {
      ...explicit,
      instances: explicit.instances.map((inst) => ({
        ...inst,
        series: Object.fromEntries(
          Object.entries(inst.series).map(([m, p]) => [
            m,
            {
              before: toCompactWindow(p.before as { t: number[]; v: (number | null)[] }, 15),
              after: toCompactWindow(p.after as { t: number[]; v: (number | null)[] }, 15),
            },
          ]),
        ),
      })),
    };
    const form = compact.instances[0]!.series["tps"]!.before as { v: (number | null)[] };
    expect(form).toMatchObject({ start: T0, step: 15 });
    expect(form.v).toContain(null);
    const a = compare(ComparisonInput.parse(explicit));
    const b = compare(ComparisonInput.parse(compact));
    // The gaps become nulls, which the compact form reports as missing samples (an info flag).
    const strip = (r: typeof a) =>
      JSON.stringify(r, (k, v) =>
        k === "flags" ? v.filter((f: { code: string }) => f.code !== "non_finite") : v,
      );
    expect(strip(b)).toBe(strip(a));
    // The same grid with its samples as base64 float64s (null → NaN): the very same result.
    const f64: ComparisonInputJson = {
      ...compact,
      instances: compact.instances.map((inst) => ({
        ...inst,
        series: Object.fromEntries(
          Object.entries(inst.series).map(([m, p]) => [
            m,
            { before: toF64Window(p.before), after: toF64Window(p.after) },
          ]),
        ),
      })),
    };
    expect(f64.instances[0]!.series["tps"]!.before).toMatchObject({ start: T0, step: 15 });
    expect(JSON.stringify(compare(ComparisonInput.parse(f64)))).toBe(JSON.stringify(b));
    expect(a.results[0]!.ratio).toBeGreaterThan(1.1);
    expect(b.results[0]!.flags.map((f) => f.code)).toContain("non_finite");
  });

  it("are read as Float64Arrays, null as NaN", () => {
    const r = ComparisonInput.parse(
      withWindows({ start: T0, step: 15, v: [1, null, 3] }, { t: [T0 + 60, T0 + 75], v: [4, 5] }),
    );
    const pair = r.instances[0]!.series["tps"]!;
    expect(pair.before).toMatchObject({ start: T0, step: 15 });
    expect(Array.from(pair.before.v)).toEqual([1, Number.NaN, 3]);
    expect(pair.after.v).toBeInstanceOf(Float64Array);
  });

  it("stay explicit when the times are off the grid, unsorted or mostly empty", () => {
    const off = { t: [T0, T0 + 15, T0 + 31], v: [1, 2, 3] };
    expect(toCompactWindow(off, 15)).toBe(off);
    const unsorted = { t: [T0, T0 + 30, T0 + 15], v: [1, 2, 3] };
    expect(toCompactWindow(unsorted, 15)).toBe(unsorted);
    const sparse = { t: [T0, T0 + 15 * 100_000], v: [1, 2] };
    expect(toCompactWindow(sparse, 15)).toBe(sparse);
    expect(toCompactWindow({ t: [T0, T0 + 45], v: [1, 2] }, 15)).toEqual({
      start: T0,
      step: 15,
      v: [1, null, null, 2],
    });
  });
});

describe("sample check", () => {
  const explicit = { t: [T0, T0 + 15], v: [1, 2] };
  it.each([
    [
      "a step of 0",
      withWindows({ start: T0, step: 0, v: [1] }, explicit),
      /^instances\.0\.series\.tps\.before\.step: /,
    ],
    [
      "a start in milliseconds",
      withWindows({ start: T0 * 1000, step: 15, v: [1] }, explicit),
      /before\.start: .*milliseconds; give Unix seconds/,
    ],
    [
      "a string among the values, at its index, counting the others",
      withWindows({ start: T0, step: 15, v: [1, "2", 3, "x"] }, explicit),
      /before\.v\.1: v\[1\] is the string "2": values are finite numbers, or null for a missing sample \(1 more like it\)/,
    ],
    [
      "a null timestamp",
      withWindows({ t: [T0, null], v: [1, 2] }, explicit),
      /before\.t\.1: t\[1\] is null: timestamps are finite numbers/,
    ],
    [
      "a millisecond timestamp, at its index",
      withWindows({ t: [T0, T0 * 1000], v: [1, 2] }, explicit),
      /before\.t\.1: timestamp 1767225600000 looks like a Unix time in milliseconds/,
    ],
    ["values that are not an array", withWindows({ start: T0, step: 15, v: 5 }, explicit), /before/],
    [
      "f64 text with a character outside base64",
      withWindows({ start: T0, step: 15, f64: "AAAAAAAAAA*=" }, explicit),
      /before\.f64: not base64: "\*" at character 10/,
    ],
    [
      "f64 bytes that are not whole samples",
      withWindows({ start: T0, step: 15, f64: "AAAAAAAAAAAA" }, explicit),
      /before\.f64: the base64 decodes to 9 bytes, not a whole number of float64 samples \(8 bytes each\)/,
    ],
    [
      "an infinite f64 sample",
      withWindows({ start: T0, step: 15, f64: "AAAAAAAA8H8=" }, explicit),
      /before\.f64: sample 0 is Infinity: values are finite numbers, or NaN for a missing sample/,
    ],
    [
      "f64 that is not a string",
      withWindows({ start: T0, step: 15, f64: [1, 2] }, explicit),
      /before: a window is .* or \{ start, step, f64 \}/,
    ],
    [
      "both forms at once",
      withWindows({ t: [T0], start: T0, step: 15, v: [1] }, explicit),
      /before: a window is \{ t, v \} \(explicit timestamps\), \{ start, step, v \} \(a regular grid\) or \{ start, step, f64 \}/,
    ],
    [
      "a compact window outside the declared window",
      {
        ...withWindows({ start: T0, step: 15, v: [1, 2, 3, 4] }, { start: T0 + 600, step: 15, v: [1] }),
        windows: { before: { start: T0, end: T0 + 30 }, after: { start: T0 + 600, end: T0 + 900 } },
      },
      /before\.start: 1 samples lie outside the declared before window .* \(first at 1767225645\)/,
    ],
  ])("rejects %s", (_, value, pattern) => {
    const m = messages(value);
    expect(m.join("\n")).toMatch(pattern);
  });

  it("reports one issue per kind of fault, not one per sample", () => {
    const v = Array.from({ length: 10_000 }, () => "bad");
    const m = messages(withWindows({ start: T0, step: 15, v }, explicit));
    expect(m).toEqual([expect.stringContaining("(9999 more like it)")]);
  });
});
