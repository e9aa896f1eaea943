import fc from "fast-check";
import { describe, expect, expectTypeOf, it } from "vitest";
import type { z } from "zod";
import { adviceSchema } from "./advice-schema.js";
import { type Advice, advise } from "./advise.js";
import { instanceFactsArbitrary } from "./fixtures/arbitrary.js";
import { scenarios } from "./fixtures/scenarios.js";

/** A value and everything in it read-only, as the advisor hands its output out. */
type DeepReadonly<T> = T extends readonly (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** The advice as it goes over the wire: JSON drops undefined members. */
const asJson = (a: Advice): unknown => JSON.parse(JSON.stringify(a));

describe("adviceSchema", () => {
  it("the Advice type fits the schema (a new field on either side fails to compile)", () => {
    const fits = (a: Advice): DeepReadonly<z.input<typeof adviceSchema>> => a;
    expect(typeof fits).toBe("function");
    expectTypeOf<keyof z.output<typeof adviceSchema>>().toEqualTypeOf<keyof Advice>();
  });

  it.each(scenarios.map((s) => [s.name, s.facts] as const))("accepts the advice for %s", (_name, facts) => {
    const parsed = adviceSchema.safeParse(asJson(advise(facts)));
    expect(parsed.error?.issues ?? []).toEqual([]);
  });

  it("accepts the advice for any valid facts", () => {
    fc.assert(
      fc.property(instanceFactsArbitrary, (facts) => {
        const parsed = adviceSchema.safeParse(asJson(advise(facts)));
        expect(parsed.error?.issues ?? []).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it("refuses a member the advisor does not write, and a verdict it does not know", () => {
    const a = asJson(advise(scenarios[0]!.facts)) as Record<string, unknown>;
    expect(adviceSchema.safeParse({ ...a, extra: 1 }).success).toBe(false);
    const verdict = { ...(a.verdict as object), verdict: "maybe" };
    expect(adviceSchema.safeParse({ ...a, verdict }).error?.issues[0]?.path).toEqual(["verdict", "verdict"]);
  });
});
