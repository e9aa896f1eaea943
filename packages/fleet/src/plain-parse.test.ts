import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type InstanceFacts, instanceFactsSchema } from "@untorn/advisor/facts";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { buildFleetFacts } from "./facts.js";
import { plainParser, plainParserCompiles } from "./plain-parse.js";
import { decodeReplayApi, plainSample, ReplayApi, replayFactsOptions, replaySampleSchema } from "./replay.js";
import { fakeReplay } from "./testing/fake-api.js";
import { FIXTURE_FLEET } from "./testing/fixtures.js";

const LAB = fileURLToPath(new URL("../../../lab/recordings/mariadb-10.11-fleet.json.gz", import.meta.url));
const AT = 1_790_000_000;

/** `x` with every object's keys in their order and undefined values kept, for toStrictEqual. */
const ordered = (x: unknown): unknown =>
  Array.isArray(x)
    ? x.map(ordered)
    : typeof x === "object" && x !== null
      ? Object.entries(x).map(([k, v]) => [k, ordered(v)])
      : x;

/** zod's output for `x`, or "rejected". */
const viaZod = <S extends z.ZodType>(schema: S, x: unknown) => {
  const r = schema.safeParse(x);
  return r.success ? ordered(r.data) : "rejected";
};

const plainFacts = plainParser(instanceFactsSchema);
let fleetFacts: InstanceFacts[] = [];
let labFacts: InstanceFacts[] = [];

beforeAll(async () => {
  const api = new ReplayApi(fakeReplay(FIXTURE_FLEET, { window: "30m", times: [AT] }));
  fleetFacts = (await buildFleetFacts(api, { window: "30m", at: AT })).facts;
  const lab = decodeReplayApi(readFileSync(LAB));
  labFacts = (await buildFleetFacts(lab, replayFactsOptions(lab.meta))).facts;
});

/** Values a mutated fact may take: valid and invalid for the fields they land on. */
const VALUES: readonly unknown[] = [
  undefined,
  null,
  -1,
  0,
  -0,
  0.5,
  1,
  1.5,
  2,
  4096,
  16384,
  1e300,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  2 ** 53,
  "",
  "x",
  "8.0.35",
  "10.11.6-MariaDB",
  "ON",
  "mariadb",
  "atomic",
  "redo_log",
  true,
  false,
  [],
  {},
  ["a"],
  [1],
  { avg: 1 },
  { avg: -1 },
  { avg: 1, p95: null },
  { avg: 1, p95: undefined },
  { avg: 1, extra: 2 },
  { p95: 1 },
];
const anyValue = fc.oneof(
  { arbitrary: fc.constantFrom(...VALUES), weight: 4 },
  { arbitrary: fc.double(), weight: 1 },
  { arbitrary: fc.string(), weight: 1 },
);

/** Every path to a value in `x` (objects and arrays included). */
function pathsOf(x: unknown, prefix: readonly (string | number)[] = []): (string | number)[][] {
  if (typeof x !== "object" || x === null) return [];
  const keys: (string | number)[] = Array.isArray(x) ? x.map((_, i) => i) : Object.keys(x);
  return keys.flatMap((k) => [
    [...prefix, k],
    ...pathsOf((x as Record<string | number, unknown>)[k], [...prefix, k]),
  ]);
}

/** A copy of `facts` with a few fields set to other values, removed, or added where no field is. */
const mutated = (pool: () => readonly InstanceFacts[]) =>
  fc
    .tuple(
      fc.nat(),
      fc.array(
        fc.tuple(
          fc.nat(),
          fc.constantFrom("set", "delete", "add"),
          anyValue,
          fc.constantFrom("extra", "avg", "p95", "redo_log", "data", "__proto__"),
        ),
        { maxLength: 3 },
      ),
    )
    .map(([pick, edits]) => {
      const all = pool();
      const x = structuredClone(all[pick % all.length]!) as unknown as Record<string, unknown>;
      for (const [at, how, value, key] of edits) {
        const paths = pathsOf(x);
        const path = paths[at % paths.length]!;
        let parent = x as Record<string | number, unknown>;
        for (const p of path.slice(0, -1)) parent = parent[p] as Record<string | number, unknown>;
        const last = path.at(-1)!;
        if (how === "set") parent[last] = value;
        else if (how === "delete") delete parent[last];
        else {
          const target = parent[last];
          if (typeof target === "object" && target !== null)
            Object.defineProperty(target, key, {
              value,
              enumerable: true,
              writable: true,
              configurable: true,
            });
        }
      }
      return x;
    });

describe("plainParser (InstanceFacts)", () => {
  it("compiles for instanceFactsSchema, so the facts are not validated by zod one by one", () => {
    expect(plainParserCompiles(instanceFactsSchema)).toBe(true);
  });

  it("gives zod's own output, key order and undefined fields included, for every fact of a fleet and the lab recording", () => {
    expect(labFacts.length).toBeGreaterThan(0);
    for (const f of [...fleetFacts, ...labFacts]) {
      const plain = plainFacts(structuredClone(f));
      expect(plain).toBeDefined();
      expect(ordered(plain)).toStrictEqual(viaZod(instanceFactsSchema, f));
    }
  });

  it("vouches only for what zod accepts, with zod's output (fast-check, mutated facts)", () => {
    let vouched = 0;
    let rejected = 0;
    fc.assert(
      fc.property(
        mutated(() => [...fleetFacts, ...labFacts]),
        (x) => {
          const plain = plainFacts(x);
          const zod = viaZod(instanceFactsSchema, x);
          if (zod === "rejected") rejected++;
          if (plain === undefined) return;
          vouched++;
          expect(ordered(plain)).toStrictEqual(zod);
        },
      ),
      { numRuns: 3000 },
    );
    // Both sides were exercised: most mutations keep the facts valid, many do not.
    expect(vouched).toBeGreaterThan(500);
    expect(rejected).toBeGreaterThan(100);
  });

  it("gives zod's answer with each field of a fact set to each of the test values in turn", () => {
    const fleet = [fleetFacts, labFacts].flatMap((xs) => xs.slice(0, 1));
    let vouched = 0;
    for (const f of fleet)
      for (const path of pathsOf(f))
        for (const value of VALUES) {
          const x = structuredClone(f) as unknown as Record<string | number, unknown>;
          let parent = x;
          for (const p of path.slice(0, -1)) parent = parent[p] as Record<string | number, unknown>;
          parent[path.at(-1)!] = value;
          const plain = plainFacts(x);
          if (plain === undefined) continue;
          vouched++;
          expect(ordered(plain), `${path.join(".")} = ${String(value)}`).toStrictEqual(
            viaZod(instanceFactsSchema, x),
          );
        }
    expect(vouched).toBeGreaterThan(500);
  });

  it("defers to zod on a schema with a node it does not know", () => {
    const s = z.object({ n: z.number().transform((n) => n * 2) }).strict();
    expect(plainParserCompiles(s)).toBe(false);
    expect(plainParser(s)({ n: 1 })).toBeUndefined();
  });
});

describe("plainSample (a replay's samples)", () => {
  const sample = fc.oneof(
    fc.record(
      {
        labels: fc.oneof(
          fc.dictionary(fc.string(), fc.string()),
          fc.dictionary(fc.constantFrom("instance", "__proto__", "constructor", "0", "job"), fc.string()),
          fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.integer(), fc.constant(null))),
          fc.constant(null),
          fc.array(fc.string()),
        ),
        value: fc.oneof(fc.double(), fc.constantFrom("NaN", "+Inf", "-Inf", "Inf", "1", "", null, true)),
        extra: fc.anything(),
      },
      { requiredKeys: [] },
    ),
    fc.anything(),
  );

  it("accepts exactly what the sample schema accepts from JSON, with the same labels and value (fast-check)", () => {
    fc.assert(
      fc.property(sample, (raw) => {
        // What JSON.parse hands it: the replay's samples come from the file's text.
        const text = JSON.stringify(raw);
        if (text === undefined) return;
        const x: unknown = JSON.parse(text);
        const plain = plainSample(x);
        const r = replaySampleSchema.safeParse(x);
        const protoLabel =
          typeof x === "object" &&
          x !== null &&
          typeof (x as { labels?: unknown }).labels === "object" &&
          (x as { labels: object }).labels !== null &&
          Object.hasOwn((x as { labels: object }).labels, "__proto__");
        if (!plain) {
          // Deferred to zod: only for what zod rejects, or a __proto__ label zod's copy would drop.
          expect(r.success && !protoLabel).toBe(false);
          return;
        }
        expect(r.success).toBe(true);
        if (!r.success) return;
        expect(ordered(plain.labels)).toStrictEqual(ordered(r.data.labels));
        const wire = r.data.value;
        const value =
          typeof wire === "number"
            ? wire
            : wire === "NaN"
              ? Number.NaN
              : wire === "+Inf"
                ? Number.POSITIVE_INFINITY
                : Number.NEGATIVE_INFINITY;
        expect(Object.is(plain.value, value)).toBe(true);
      }),
      { numRuns: 5000 },
    );
  });
});
