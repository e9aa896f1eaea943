import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  decode,
  decodeQueryData,
  EnvelopeSchema,
  parseSampleValue,
  QueryDataSchema,
  ShapeError,
} from "./result.js";

describe("parseSampleValue", () => {
  it.each([
    ["1", 1],
    ["-0.5", -0.5],
    ["1e+06", 1e6],
    ["1.5E-3", 0.0015],
    [".5", 0.5],
    ["+Inf", Number.POSITIVE_INFINITY],
    ["-Inf", Number.NEGATIVE_INFINITY],
  ])("%s is %d", (text, n) => {
    expect(parseSampleValue(text)).toBe(n);
  });

  it("keeps NaN", () => {
    expect(parseSampleValue("NaN")).toBeNaN();
  });

  // Number() would take all of these: "" and " " as 0, hex, "Infinity".
  it.each(["", " ", "0x10", "Infinity", "1,5", "abc", "1e"])("rejects %j", (text) => {
    expect(parseSampleValue(text)).toBeUndefined();
  });
});

describe("decodeQueryData", () => {
  it("decodes a vector with special values", () => {
    const data = decodeQueryData(
      {
        resultType: "vector",
        result: [
          { metric: { instance: "a" }, value: [1700000000.5, "NaN"] },
          { metric: { instance: "b" }, value: [1700000000.5, "+Inf"] },
        ],
      },
      "vector",
    );
    expect(data.result[0]?.labels).toEqual({ instance: "a" });
    expect(data.result[0]?.timestamp).toBe(1700000000.5);
    expect(data.result[0]?.value).toBeNaN();
    expect(data.result[1]?.value).toBe(Number.POSITIVE_INFINITY);
  });

  it("decodes a matrix into points", () => {
    const data = decodeQueryData({
      resultType: "matrix",
      result: [
        {
          metric: {},
          values: [
            [1, "1"],
            [2, "-Inf"],
          ],
        },
      ],
    });
    expect(data).toEqual({
      resultType: "matrix",
      result: [
        {
          labels: {},
          points: [
            [1, 1],
            [2, Number.NEGATIVE_INFINITY],
          ],
        },
      ],
    });
  });

  it("decodes scalars and strings", () => {
    expect(decodeQueryData({ resultType: "scalar", result: [3, "4.5"] })).toEqual({
      resultType: "scalar",
      result: { timestamp: 3, value: 4.5 },
    });
    expect(decodeQueryData({ resultType: "string", result: [3, "hi"] })).toEqual({
      resultType: "string",
      result: { timestamp: 3, value: "hi" },
    });
  });

  it("names the bad field", () => {
    const bad = {
      resultType: "vector",
      result: [
        { metric: {}, value: [1, "1"] },
        { metric: {}, value: [1, 2] },
      ],
    };
    expect(() => decodeQueryData(bad)).toThrow(ShapeError);
    expect(() => decodeQueryData(bad)).toThrow(/^data\.result\[1\]\.value\[1\]: /);
  });

  it("says when a sample value string is not a number", () => {
    const bad = { resultType: "scalar", result: [1, "twelve"] };
    expect(() => decodeQueryData(bad)).toThrow('data.result[1]: expected a number as a string, got "twelve"');
  });

  it("names the bad point of a matrix series", () => {
    const series = (values: unknown) => ({
      resultType: "matrix",
      result: [
        { metric: {}, values: [[1, "1"]] },
        { metric: {}, values },
      ],
    });
    expect(() =>
      decodeQueryData(
        series([
          [1, "1"],
          [2, "x"],
        ]),
      ),
    ).toThrow('data.result[1].values[1][1]: expected a number as a string, got "x"');
    expect(() => decodeQueryData(series([[null, "1"]]))).toThrow(
      "data.result[1].values[0][0]: expected a finite Unix timestamp",
    );
    expect(() => decodeQueryData(series([[1, "1", 2]]))).toThrow(
      "data.result[1].values[0]: expected a [timestamp, value] pair",
    );
    expect(() => decodeQueryData(series({}))).toThrow("data.result[1].values: expected an array");
    expect(() => decodeQueryData(series(undefined))).toThrow("data.result[1]: series without values");
  });

  it("rejects unknown and unexpected result types", () => {
    expect(() => decodeQueryData({ resultType: "table", result: [] })).toThrow(
      'data.resultType: unexpected result type "table"',
    );
    expect(() => decodeQueryData({ result: [] })).toThrow("unexpected result type null");
    expect(() => decodeQueryData({ resultType: "vector", result: [] }, "matrix")).toThrow(
      "data.resultType: expected matrix, got vector",
    );
  });

  it("rejects native histogram samples with a hint", () => {
    const data = { resultType: "vector", result: [{ metric: {}, histogram: [1, { count: "1" }] }] };
    expect(() => decodeQueryData(data)).toThrow(/native histogram samples are not supported/);
  });

  it("decodes a vector without zod to what the zod schema makes of it, and leaves anything odd to zod", () => {
    const value = fc.oneof(
      fc.double().map(String),
      fc.constantFrom("NaN", "+Inf", "-Inf", "Inf", "1e+06", ".5", "x", "", "1.5.2"),
    );
    const sample = fc.record(
      {
        metric: fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.constant(1 as unknown as string))),
        value: fc.oneof(
          fc.tuple(fc.double({ noNaN: true }), value),
          fc.tuple(fc.constant(Number.NaN), value),
          fc.tuple(fc.double({ noNaN: true }), value, value),
        ),
        histogram: fc.constant([1, { count: "1" }]),
        extra: fc.string(),
      },
      { requiredKeys: ["metric"] },
    );
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 6 }), (result) => {
        // Both sides get their own copy of the answer, as a fresh JSON.parse would give.
        const wire = JSON.stringify({ resultType: "vector", result });
        const viaZod = (() => {
          try {
            return { ok: decode(QueryDataSchema, JSON.parse(wire), "data") };
          } catch (e) {
            return { error: (e as Error).message };
          }
        })();
        const viaDecode = (() => {
          try {
            return { ok: decodeQueryData(JSON.parse(wire), "vector") };
          } catch (e) {
            return { error: (e as Error).message };
          }
        })();
        expect(viaDecode).toEqual(viaZod);
      }),
      { numRuns: 500 },
    );
  });

  it("rejects non-string label values", () => {
    const data = { resultType: "vector", result: [{ metric: { instance: 1 }, value: [1, "1"] }] };
    expect(() => decodeQueryData(data)).toThrow(/^data\.result\[0\]\.metric\.instance: /);
  });
});

describe("EnvelopeSchema", () => {
  it("defaults missing or null warnings and infos to empty lists", () => {
    const env = decode(EnvelopeSchema, { status: "success", data: 1, warnings: null }, "");
    expect(env).toEqual({ status: "success", data: 1, warnings: [], infos: [] });
  });
  it("keeps warnings and infos", () => {
    const env = decode(EnvelopeSchema, { status: "success", data: [], warnings: ["w"], infos: ["i"] }, "");
    expect(env.warnings).toEqual(["w"]);
    expect(env.infos).toEqual(["i"]);
  });
  it("needs errorType and error on an error", () => {
    expect(() => decode(EnvelopeSchema, { status: "error", error: "x" }, "")).toThrow(/errorType/);
  });
});
