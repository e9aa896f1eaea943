import * as advisorFacts from "@untorn/advisor/facts";
import type { GatePath, GateStatus } from "@untorn/advisor/gate";
import { SEVERITIES as ADVISOR_SEVERITIES } from "@untorn/advisor/rule";
import type { VerdictKind } from "@untorn/advisor/verdict";
import { describe, expect, expectTypeOf, it } from "vitest";
import * as row from "./fleet-row.js";

describe("the row's enums repeat the advisor's", () => {
  it("flavors, roles, doublewrite modes and severities", () => {
    expect(row.FLAVORS).toEqual(advisorFacts.FLAVORS);
    expect(row.ROLES).toEqual(advisorFacts.ROLES);
    expect(row.DOUBLEWRITE_MODES).toEqual(advisorFacts.DOUBLEWRITE_MODES);
    expect(row.SEVERITIES).toEqual(ADVISOR_SEVERITIES);
  });

  it("verdicts, gate statuses and gate paths (types)", () => {
    expectTypeOf<row.VerdictKind>().toEqualTypeOf<VerdictKind>();
    expectTypeOf<row.GateStatus>().toEqualTypeOf<GateStatus>();
    expectTypeOf<(typeof row.GATE_PATHS)[number]>().toEqualTypeOf<GatePath>();
    expect(row.VERDICTS).toHaveLength(4);
  });
});
