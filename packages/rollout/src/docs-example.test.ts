import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { planInputSchema, planRollout } from "./plan.ts";
import { mysql } from "./testing.ts";

const doc = readFileSync(new URL("../../../docs/rollout.md", import.meta.url), "utf8");

describe("docs/rollout.md worked example", () => {
  const plan = planRollout(
    planInputSchema.parse({
      change: { kind: "doublewrite-off" },
      instances: [
        mysql("db1:3306", "primary", { cluster: "orders" }),
        mysql("db2:3306", "replica", { cluster: "orders" }),
        mysql("db3:3306", "replica", { cluster: "orders" }),
        mysql("db4:3306", "replica", { cluster: "orders", verified: false }),
      ],
    }),
  );

  it("shows the waves the planner produces", () => {
    for (const w of plan.waves)
      expect(doc).toContain(
        `| ${w.index} | ${w.kind} | ${w.instances.join(", ")} | ${w.controls.join(", ") || "before/after"} |`,
      );
    expect(plan.waves).toHaveLength(3);
  });

  it("shows the exclusion and the step title the planner produces", () => {
    expect(plan.exclusions.map((e) => [e.instance, e.reason])).toEqual([["db4:3306", "gate-not-verified"]]);
    expect(doc).toContain("`db4:3306` is excluded (`gate-not-verified`");
    expect(doc).toContain(plan.steps[0]!.title);
  });
});
