// The fast reader against the JSON.parse + zod path: the same validated input (bit for bit) on random
// inputs in both forms split into random chunks, the same numbers, and the same accept/reject decision
// on malformed input, with the fast reader's error naming the offending sample.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compare } from "./compare.js";
import { encodeF64 } from "./f64-samples.js";
import { parseComparisonInput } from "./input.js";
import { InputSyntaxError, readComparisonInput, readInputBytes, readInputJson } from "./read-input.js";

const T0 = 1_767_225_600;

/** The bytes handed over in chunks ending at the given cut points. */
function chunksOf(bytes: Uint8Array, cuts: readonly number[]) {
  const ends = [...new Set(cuts.map((c) => Math.floor(c * bytes.length)))].sort((a, b) => a - b);
  ends.push(bytes.length);
  let k = 0;
  let from = 0;
  return () => {
    if (k >= ends.length) return null;
    const end = ends[k++]!;
    const chunk = bytes.subarray(from, end);
    from = end;
    return chunk;
  };
}

/** A stable text of a value in which Float64Arrays are compared bit for bit (NaN, −0 included). */
function exact(value: unknown): string {
  return JSON.stringify(value, (_, v) =>
    v instanceof Float64Array
      ? `f64:${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString("hex")}`
      : v,
  );
}

/** What the two paths decide: the validated input, or the zod issues' paths, or a syntax error. */
function bothPaths(text: string, cuts: readonly number[] = []) {
  let slow: { ok: true; data: string } | { ok: false; paths: string[] } | { ok: false; syntax: true };
  try {
    // What the previous path read: the bytes decoded as UTF-8 (a lone surrogate a corruption leaves in
    // the JS string becomes U+FFFD in the bytes, for both readers).
    const r = parseComparisonInput(JSON.parse(Buffer.from(text, "utf8").toString("utf8")));
    slow = r.success
      ? { ok: true, data: exact(r.data) }
      : { ok: false, paths: r.error.issues.map((i) => i.path.join(".")) };
  } catch {
    slow = { ok: false, syntax: true };
  }
  let fast:
    | { ok: true; data: string }
    | { ok: false; paths: string[] }
    | { ok: false; error: InputSyntaxError };
  try {
    const r = readComparisonInput(chunksOf(Buffer.from(text, "utf8"), cuts));
    fast = r.success
      ? { ok: true, data: exact(r.data) }
      : { ok: false, paths: r.error.issues.map((i) => i.path.join(".")) };
  } catch (err) {
    if (!(err instanceof InputSyntaxError)) throw err;
    fast = { ok: false, error: err };
  }
  return { slow, fast };
}

const sample = fc.oneof(
  { weight: 6, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 2, arbitrary: fc.integer({ min: -1e6, max: 1e9 }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 10_000 }).map((x) => x / 1000) },
  { weight: 1, arbitrary: fc.constant(null) },
);
const id = fc.oneof(
  fc.constantFrom("tps", "lat", "bytes_per_trx"),
  fc.string({ minLength: 1, maxLength: 8, unit: "binary" }),
);
const window = fc.oneof(
  fc.record({
    start: fc.integer({ min: T0, max: T0 + 86_400 }),
    step: fc.constantFrom(1, 15, 0.5),
    v: fc.array(sample, { maxLength: 60 }),
  }),
  fc.array(fc.tuple(fc.integer({ min: T0, max: T0 + 86_400 }), sample), { maxLength: 60 }).map((xs) => ({
    t: xs.map((x) => x[0]),
    v: xs.map((x) => x[1]),
  })),
  fc
    .record({
      start: fc.integer({ min: T0, max: T0 + 86_400 }),
      step: fc.constantFrom(1, 15, 0.5),
      v: fc.array(fc.oneof(sample, fc.constant(Number.NaN)), { maxLength: 60 }),
    })
    .map(({ start, step, v }) => ({ start, step, f64: encodeF64(v) })),
);
const input = fc
  .record({
    seed: fc.integer({ min: 0, max: 1000 }),
    metrics: fc.uniqueArray(id, { minLength: 1, maxLength: 3 }),
    instances: fc.array(
      fc.record({
        id,
        treated: fc.boolean(),
        windows: fc.array(fc.tuple(window, window), { minLength: 3, maxLength: 3 }),
      }),
      {
        minLength: 1,
        maxLength: 3,
      },
    ),
    description: fc.string({ maxLength: 20, unit: "binary" }),
  })
  .map(({ seed, metrics, instances, description }) => ({
    seed,
    metrics: metrics.map((m) => ({ id: m, kind: "throughput", description })),
    instances: instances.map((inst, i) => ({
      id: `${inst.id}-${i}`,
      role: i === 0 || inst.treated ? "treated" : "control",
      series: Object.fromEntries(
        metrics.map((m, k) => [m, { before: inst.windows[k]![0], after: inst.windows[k]![1] }]),
      ),
    })),
  }));
const cuts = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { maxLength: 12 });

/** One treated instance whose tps before window is in the f64 form with this text. */
const withF64 = (f64: string) => ({
  metrics: [{ id: "tps", kind: "throughput" }],
  instances: [
    {
      id: "db",
      role: "treated",
      series: { tps: { before: { start: T0, step: 15, f64 }, after: { start: T0, step: 15, v: [1, 2] } } },
    },
  ],
});

describe("the fast reader", () => {
  it("validates random inputs of all three forms, in any chunking, exactly as JSON.parse and zod do", () => {
    fc.assert(
      fc.property(input, cuts, fc.boolean(), (value, cut, pretty) => {
        const { slow, fast } = bothPaths(JSON.stringify(value, null, pretty ? 2 : undefined), cut);
        expect(slow.ok).toBe(true);
        expect(fast).toEqual(slow);
      }),
      { numRuns: 300 },
    );
  });

  it("reads every number as JSON.parse does, bit for bit", () => {
    const digits = (min: number, max: number) =>
      fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(""));
    // Number texts in every shape JSON allows: up to 25 digits, fractions, exponents far and near.
    const written = fc
      .tuple(
        fc.boolean(),
        fc.integer({ min: 1, max: 9 }),
        digits(0, 24),
        fc.option(digits(1, 25)),
        fc.option(fc.tuple(fc.constantFrom("e", "E", "e+", "e-", "E-"), fc.integer({ min: 0, max: 330 }))),
      )
      .map(
        ([neg, lead, rest, frac, exp]) =>
          `${neg ? "-" : ""}${lead}${rest}${frac === null ? "" : `.${frac}`}${exp === null ? "" : `${exp[0]}${exp[1]}`}`,
      );
    const number = fc.oneof(
      written,
      fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => JSON.stringify(x)),
      fc.constantFrom("0", "-0", "0.0", "0e5", "-0.0e-0"),
    );
    fc.assert(
      fc.property(fc.array(number, { minLength: 1, maxLength: 20 }), cuts, (xs, cut) => {
        const text = `{"instances":[{"series":{"m":{"before":{"v":[${xs.join(",")}]}}}}],"plain":[${xs.join(",")}]}`;
        const want = JSON.parse(text) as { plain: number[] };
        const got = readInputJson(chunksOf(Buffer.from(text), cut)) as {
          instances: [{ series: { m: { before: { v: Float64Array } } } }];
          plain: number[];
        };
        expect(exact(got.instances[0].series.m.before.v)).toBe(exact(Float64Array.from(want.plain)));
        // Outside the sample arrays: plain numbers, −0 kept.
        expect(got.plain.map((x) => (Object.is(x, -0) ? "-0" : x))).toEqual(
          want.plain.map((x) => (Object.is(x, -0) ? "-0" : x)),
        );
      }),
      { numRuns: 500 },
    );
  });

  it("rejects what JSON.parse or zod rejects, and accepts only the same input, under random corruption", () => {
    const junk = fc.constantFrom(
      '"',
      ",",
      "]",
      "}",
      "[",
      "{",
      ":",
      "x",
      "-",
      ".",
      "e",
      "0",
      "null",
      '"a"',
      "true",
      " ",
      "\\",
      "é",
      "1e999",
    );
    fc.assert(
      fc.property(
        input,
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.integer({ min: 0, max: 3 }),
        junk,
        cuts,
        (value, where, len, bad, cut) => {
          const text = JSON.stringify(value);
          const at = Math.floor(where * text.length);
          const broken = text.slice(0, at) + bad + text.slice(at + len);
          const { slow, fast } = bothPaths(broken, cut);
          expect(fast.ok).toBe(slow.ok);
          if (slow.ok) expect(fast).toEqual(slow);
          if ("syntax" in slow) expect("error" in fast).toBe(true);
          if ("paths" in fast && "paths" in slow) expect(fast.paths).toEqual(slow.paths);
        },
      ),
      { numRuns: 1000 },
    );
  });

  it("names the sample that is not a number, where zod names the same one", () => {
    fc.assert(
      fc.property(
        input,
        fc.nat(),
        fc.constantFrom('"1.5"', "true", "{}", "[]", "false", '"NaN"'),
        (value, pick, bad) => {
          const windows = value.instances.flatMap((inst, i) =>
            Object.entries(inst.series).flatMap(([m, pair]) =>
              (["before", "after"] as const).map((which) => ({
                i,
                m,
                which,
                w: pair[which] as { v?: unknown[] },
              })),
            ),
          );
          const withSamples = windows.filter((x): x is typeof x & { w: { v: unknown[] } } =>
            Boolean(x.w.v && x.w.v.length > 0),
          );
          fc.pre(withSamples.length > 0);
          const target = withSamples[pick % withSamples.length]!;
          const k = pick % target.w.v.length;
          target.w.v[k] = "\u0000marker";
          const text = JSON.stringify(value).replace('"\\u0000marker"', bad);
          const { slow, fast } = bothPaths(text);
          expect(slow.ok).toBe(false);
          expect("paths" in slow && slow.paths).toContain(
            ["instances", target.i, "series", target.m, target.which, "v", k].join("."),
          );
          expect("error" in fast).toBe(true);
          const error = (fast as { error: InputSyntaxError }).error;
          const key = /^[A-Za-z_$][\w$]*$/.test(target.m) ? `.${target.m}` : `[${JSON.stringify(target.m)}]`;
          expect(error.path).toBe(`instances[${target.i}].series${key}.${target.which}.v[${k}]`);
          expect(error.message).toMatch(/expected a number or null, found /);
        },
      ),
      { numRuns: 200 },
    );
  });

  it("reports a timestamp that is null, and malformed JSON, with a path and byte offset", () => {
    const t = (text: string) => {
      try {
        readInputBytes(Buffer.from(text));
      } catch (err) {
        return (err as Error).message;
      }
      return "accepted";
    };
    expect(t('{"instances":[{"series":{"m":{"after":{"t":[1,null],"v":[1,2]}}}}]}')).toBe(
      'instances[0].series.m.after.t[1]: expected a number (Unix seconds), found "null" (at byte 46)',
    );
    expect(t('{"instances":[{"series":{"m":{"before":{"v":[1,2 3]}}}}]}')).toBe(
      "instances[0].series.m.before.v[1]: expected ',' or ']' after a sample, found \"3\" (at byte 49)",
    );
    expect(t('{"seed": 01}')).toMatch(
      /^expected ',' or '}' after a property value, found "1" \(at byte 10\)$/,
    );
    expect(t('{"metrics": [{"id": "a\nb"}]}')).toMatch(/^metrics\[0\]\.id: control character in a string/);
    expect(t("[".repeat(300))).toMatch(/nested deeper than 256 levels/);
    expect(t('{"a": 1} {')).toMatch(/unexpected data after the JSON value \(at byte 9\)/);
  });

  it("reads f64 text split across chunks, and with JSON escapes, as JSON.parse does", () => {
    const v = Array.from({ length: 3000 }, (_, i) => (i % 97 === 0 ? Number.NaN : Math.sin(i) * 1e3));
    const f64 = encodeF64(v);
    expect(f64).toContain("/");
    for (const text of [f64, f64.replaceAll("/", "\\/")]) {
      const json = JSON.stringify(withF64(f64)).replace(JSON.stringify(f64), `"${text}"`);
      const { slow, fast } = bothPaths(json, [0.2, 0.21, 0.5, 0.8]);
      expect(slow.ok).toBe(true);
      expect(fast).toEqual(slow);
    }
    const r = readInputBytes(Buffer.from(JSON.stringify(withF64(f64)))) as {
      instances: { series: { tps: { before: { f64: unknown } } } }[];
    };
    const got = r.instances[0]!.series.tps.before.f64;
    expect(got).toBeInstanceOf(Float64Array);
    expect(Array.from(got as Float64Array)).toEqual(v);
  });

  it("leaves f64 text that does not decode to the schema, which names what is wrong", () => {
    for (const [text, message] of [
      ["AAAA!AAAAAA=", /before\.f64: not base64: "!" at character 4/],
      [
        "AAAAAAAAAAAAAAAA",
        /before\.f64: the base64 decodes to 12 bytes, not a whole number of float64 samples/,
      ],
      ["AAAAA", /before\.f64: 5 characters are not base64/],
      [
        encodeF64([1, Number.POSITIVE_INFINITY, 2, Number.NEGATIVE_INFINITY]),
        /before\.f64: sample 1 is Infinity: values are finite numbers, or NaN for a missing sample \(1 more like it\)/,
      ],
    ] as const) {
      const json = JSON.stringify(withF64(text));
      const { slow, fast } = bothPaths(json, [0.5]);
      expect(fast).toEqual(slow);
      const r = readComparisonInput(chunksOf(Buffer.from(json), [0.5]));
      expect(r.success).toBe(false);
      if (!r.success)
        expect(r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("\n")).toMatch(message);
    }
  });

  it("gives compare the same result as the zod path", () => {
    const value = fc.sample(input, { seed: 7, numRuns: 1 })[0]!;
    value.instances[0]!.series = Object.fromEntries(
      value.metrics.map((m, k) => [
        m.id,
        {
          before: {
            start: T0,
            step: 15,
            v: Array.from({ length: 400 }, (_, i) => 100 + ((i * 7919 + k) % 13)),
          },
          after: {
            start: T0 + 86_400,
            step: 15,
            v: Array.from({ length: 400 }, (_, i) => (i % 50 === 0 ? null : 110 + ((i * 104_729) % 17))),
          },
        },
      ]),
    );
    value.instances = [value.instances[0]!];
    const text = JSON.stringify(value);
    const slow = parseComparisonInput(JSON.parse(text));
    const fast = readComparisonInput(chunksOf(Buffer.from(text), [0.3, 0.6]));
    expect(slow.success && fast.success).toBe(true);
    if (!slow.success || !fast.success) return;
    expect(JSON.stringify(compare(fast.data))).toBe(JSON.stringify(compare(slow.data)));
  });
});
