import { describe, expect, it } from "vitest";
import { groupExclusions } from "./plan.ts";

const gate = (instance: string) => ({
  instance,
  reason: "gate-not-verified" as const,
  detail: "The safety gate reads unverified",
  toVerify: ["declare the storage's torn-write protection"],
});

describe("groupExclusions", () => {
  it("reads exclusions that say the same thing once, naming every instance in the plan's order", () => {
    const groups = groupExclusions([gate("db-b"), gate("db-a"), gate("db-c")], new Map());
    expect(groups).toHaveLength(1);
    expect(groups[0]?.instances).toEqual(["db-b", "db-a", "db-c"]);
  });

  it("keeps apart a different reason, detail, thing to verify or blocking rollout", () => {
    const other = { ...gate("db-d"), detail: "The safety gate reads unsafe" };
    const verify = { ...gate("db-e"), toVerify: ["something else"] };
    const held = (i: string) => ({
      instance: i,
      reason: "another-rollout-active" as const,
      detail: "Another rollout is active on this instance.",
      toVerify: [],
    });
    const activeOn = new Map([
      ["db-f", ["r1"]],
      ["db-g", ["r2"]],
      ["db-h", ["r1"]],
    ]);
    const groups = groupExclusions(
      [gate("db-a"), other, verify, held("db-f"), held("db-g"), held("db-h")],
      activeOn,
    );
    expect(groups.map((g) => g.instances)).toEqual([
      ["db-a"],
      ["db-d"],
      ["db-e"],
      ["db-f", "db-h"],
      ["db-g"],
    ]);
  });
});
