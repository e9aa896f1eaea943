import { describe, expect, it } from "vitest";
import { livePlan } from "./options.js";

const flags = { instance: "db1", before: "-3h..-2h", after: "-1h..now" };
const now = 1_800_000_000;

describe("livePlan", () => {
  it.each([
    [undefined, "1m"],
    ["5s", "1m"],
    ["45s", "90s"],
    ["2m", "4m"],
  ])("takes the catalog's rate-window rule for --step %s: %s", (step, want) => {
    expect(livePlan({ ...flags, ...(step ? { step } : {}) }, now).rateWindow).toBe(want);
  });

  it("keeps an explicit --rate-window", () => {
    expect(livePlan({ ...flags, step: "15s", rateWindow: "5m" }, now).rateWindow).toBe("5m");
  });
});
