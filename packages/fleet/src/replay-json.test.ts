import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { fromWire, replaySampleSchema } from "./replay.js";
import { readSamplesAt, valueEnd } from "./replay-json.js";

/** What JSON.parse and the sample schema make of `text`: columns, or "rejected". */
function reference(text: string) {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return "rejected";
  }
  if (!Array.isArray(parsed)) return "rejected";
  const labels: [string, string][][] = [];
  const values: number[] = [];
  for (const x of parsed) {
    const r = replaySampleSchema.safeParse(x);
    if (!r.success) return "rejected";
    labels.push(Object.entries(r.data.labels));
    values.push(fromWire(r.data.value));
  }
  return { labels, values };
}

/** readSamplesAt of `text` followed by `pad`: its columns where it reads the whole text, else null. */
const read = (text: string, pad = "") => {
  const b = Buffer.from(`${text}${pad}`, "utf8");
  const r = readSamplesAt(b, 0, new Map());
  if (!r || b.toString("utf8", r.end).trim() !== "") return null;
  return { labels: r.labels.map((l) => Object.entries(l)), values: [...r.values] };
};

const sameColumns = (
  a: { labels: [string, string][][]; values: number[] },
  b: { labels: [string, string][][]; values: number[] },
) => {
  expect(a.labels).toStrictEqual(b.labels);
  expect(a.values.length).toBe(b.values.length);
  for (const [i, v] of a.values.entries()) expect(Object.is(v, b.values[i])).toBe(true);
};

const labelName = fc.oneof(
  fc.constantFrom("instance", "job", "untorn_stat", "class", "0", "10", "__proto__", "constructor"),
  fc.string({ maxLength: 6 }),
);
const sample = fc.record(
  {
    labels: fc.dictionary(
      labelName,
      fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom("db-1:9104", "é", "\n")),
    ),
    value: fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true }),
      fc.integer(),
      fc.constantFrom("NaN", "+Inf", "-Inf", "Inf", "1"),
    ),
  },
  { requiredKeys: ["labels", "value"] },
);

describe("readSamplesAt", () => {
  it("reads what the recorder writes as JSON.parse and the sample schema do", () => {
    const text = JSON.stringify([
      { labels: { instance: "db-1:9104", untorn_stat: "avg" }, value: 1.5 },
      { labels: { instance: "db-2:9104", untorn_stat: "avg" }, value: "NaN" },
      { labels: {}, value: -0 },
      { labels: { instance: "db-1:9104", untorn_stat: "avg" }, value: 1e-7 },
    ]);
    const got = read(text);
    expect(got).not.toBeNull();
    sameColumns(got!, reference(text) as Exclude<ReturnType<typeof reference>, "rejected">);
  });

  it("hands one label set object to every sample with the same label bytes", () => {
    const b = Buffer.from(JSON.stringify([1, 2, 3].map((value) => ({ labels: { a: "x" }, value }))));
    const r = readSamplesAt(b, 0, new Map())!;
    expect(r.labels[0]).toBe(r.labels[2]);
  });

  it.each([
    ['[{"labels":{"a":"x","a":"y"},"value":1}]', "a duplicate label"],
    ['[{"labels":{"__proto__":"x"},"value":1}]', "a __proto__ label"],
    ['[{"labels":{"a":"x\\"y"},"value":1}]', "an escape"],
    ['[{"value":1,"labels":{}}]', "keys in the other order"],
    ['[{"labels":{},"value":1e999}]', "a number past a double"],
    ['[{"labels":{},"value":01}]', "a number JSON does not allow"],
    ['[{"labels":{"a":"x",},"value":1}]', "a trailing comma"],
    ['[{"labels":{},"value":1},]', "a trailing comma in the array"],
    ['[{"labels":{},"value":1,"x":2}]', "another key"],
  ])("leaves %s to JSON.parse (%s)", (text) => {
    expect(read(text)).toBeNull();
  });

  it("gives JSON.parse and the schema's columns wherever it reads, and reads the recorder's form (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.array(sample, { maxLength: 6 }),
        fc.constantFrom(0, 2),
        fc.constantFrom("", " \n"),
        (xs, indent, pad) => {
          const text = JSON.stringify(xs, null, indent);
          const want = reference(text);
          const got = read(text, pad);
          if (got === null) {
            // Deferred: only where JSON.parse and the schema refuse, or a string it does not read itself.
            const plain = want !== "rejected" && !/\\|__proto__/.test(text);
            expect(plain).toBe(false);
            return;
          }
          expect(want).not.toBe("rejected");
          sameColumns(got, want as Exclude<typeof want, "rejected">);
        },
      ),
      { numRuns: 3000 },
    );
  });

  it("never reads bytes JSON.parse or the schema refuse (fast-check, damaged text)", () => {
    const damage = fc.array(fc.tuple(fc.nat(), fc.constantFrom(...'{}[]",: \\0-9eE.+aN\u0001')), {
      minLength: 1,
      maxLength: 3,
    });
    fc.assert(
      fc.property(fc.array(sample, { minLength: 1, maxLength: 4 }), damage, (xs, edits) => {
        const chars = [...JSON.stringify(xs)];
        for (const [at, c] of edits) chars[at % chars.length] = c;
        const text = chars.join("");
        const got = read(text);
        if (got === null) return;
        const want = reference(text);
        expect(want).not.toBe("rejected");
        sameColumns(got, want as Exclude<typeof want, "rejected">);
      }),
      { numRuns: 5000 },
    );
  });
});

describe("readSamplesAt, text after the array", () => {
  /** The array at the start of `text` read with its end found as it reads, and the checks it must pass. */
  const check = (text: string) => {
    const b = Buffer.from(text, "utf8");
    const at = readSamplesAt(b, 0, new Map());
    if (!at) return;
    // It ends where the structure says the array ends, and reads what JSON.parse and the schema read there.
    expect(at.end).toBe(valueEnd(b, 0));
    const want = reference(b.toString("utf8", 0, at.end));
    expect(want).not.toBe("rejected");
    const got = { labels: at.labels.map((l) => Object.entries(l)), values: [...at.values] };
    sameColumns(got, want as Exclude<typeof want, "rejected">);
  };
  const after = fc.constantFrom("", "}", ',"time":1}]}', " ] , {", "]", '"x"', "\\", "[1]");

  it("ends where valueEnd does and reads what JSON.parse and the schema read there (fast-check)", () => {
    fc.assert(
      fc.property(fc.array(sample, { maxLength: 5 }), fc.constantFrom(0, 2), after, (xs, indent, tail) =>
        check(`${JSON.stringify(xs, null, indent)}${tail}`),
      ),
      { numRuns: 3000 },
    );
  });

  it("never reads bytes JSON.parse or the schema refuse, nor ends elsewhere (fast-check, damaged text)", () => {
    const damage = fc.array(fc.tuple(fc.nat(), fc.constantFrom(...'{}[]",: \\0-9eE.+aN\u0001')), {
      minLength: 1,
      maxLength: 3,
    });
    fc.assert(
      fc.property(fc.array(sample, { minLength: 1, maxLength: 4 }), after, damage, (xs, tail, edits) => {
        const chars = [...`${JSON.stringify(xs)}${tail}`];
        for (const [at, c] of edits) chars[at % chars.length] = c;
        check(chars.join(""));
      }),
      { numRuns: 5000 },
    );
  });
});
