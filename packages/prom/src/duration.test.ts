import { describe, expect, it } from "vitest";
import { WindowDuration } from "./duration.js";

describe("WindowDuration", () => {
  it("accepts a window and keeps its text", () => {
    expect(WindowDuration.parse("1h30m")).toBe("1h30m");
  });
  it("rejects zero and garbage with a message", () => {
    expect(WindowDuration.safeParse("0s").error?.issues[0]?.message).toMatch(/longer than 0/);
    expect(WindowDuration.safeParse("5 minutes").error?.issues[0]?.message).toMatch(/not a PromQL duration/);
    expect(WindowDuration.safeParse("5 minutes").error?.issues).toHaveLength(1);
  });
});
