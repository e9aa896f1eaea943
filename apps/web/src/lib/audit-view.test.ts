import { describe, expect, it } from "vitest";
import { changeLines, dayBound, entityHref } from "./audit-view.js";

describe("changeLines", () => {
  it("shows each changed field from and to, nested facts key by key", () => {
    expect(
      changeLines({
        changes: {
          cluster: { from: "a", to: "b" },
          storageFacts: { from: { fsType: "ext4", cloud: "aws" }, to: { fsType: "zfs", cloud: "aws" } },
          password: "changed",
        },
      }),
    ).toEqual([
      { field: "cluster", from: "a", to: "b" },
      { field: "storageFacts.fsType", from: "ext4", to: "zfs" },
      { field: "password", to: "changed" },
    ]);
  });

  it("shows created values and other details, and nothing for no details", () => {
    expect(changeLines({ values: { notes: "" }, reason: "wrong password" })).toEqual([
      { field: "notes", to: "(none)" },
      { field: "reason", to: "wrong password" },
    ]);
    expect(changeLines(null)).toEqual([]);
  });
});

describe("entityHref", () => {
  it("links rollouts and instances, encoded", () => {
    expect(entityHref("rollout", "7f0c")).toBe("/rollouts/7f0c");
    expect(entityHref("instance_metadata", "db-1:9105")).toBe("/instances/db-1%3A9105");
    expect(entityHref("api_token", "x")).toBeNull();
    expect(entityHref("rollout", null)).toBeNull();
  });
});

describe("dayBound", () => {
  it("reads real dates only; the end of a day is the next midnight", () => {
    expect(dayBound("2026-12-01")?.toISOString()).toBe("2026-12-01T00:00:00.000Z");
    expect(dayBound("2026-12-31", true)?.toISOString()).toBe("2027-01-01T00:00:00.000Z");
    expect(dayBound("2026-02-30")).toBeUndefined();
    expect(dayBound("yesterday")).toBeUndefined();
  });
});
