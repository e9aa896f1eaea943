import { describe, expect, it } from "vitest";
import { describeIssues, EXIT } from "./errors.js";
import { formatNumber, table } from "./io.js";
import { run } from "./program.js";
import { bufferIo } from "./testing/buffer-io.js";

describe("untorn program", () => {
  it("prints help and version with exit 0", async () => {
    const io = bufferIo();
    expect(await run(["--help"], io)).toBe(EXIT.ok);
    expect(io.stdout()).toContain("Usage: untorn");
    const v = bufferIo();
    expect(await run(["--version"], v)).toBe(EXIT.ok);
    expect(v.stdout()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("exits 2 on an unknown command", async () => {
    const io = bufferIo();
    expect(await run(["frobnicate"], io)).toBe(EXIT.usage);
    expect(io.stderr()).toMatch(/unknown command 'frobnicate'|too many arguments/);
  });
});

describe("output helpers", () => {
  it("aligns tables and right-aligns numeric columns", () => {
    const t = table(
      ["name", "n"],
      [
        ["a", 1],
        ["bbb", 22.5],
      ],
    );
    expect(t.split("\n")[0]).toBe("name     n");
    expect(t).toContain("bbb   22.5");
  });
  it("formats small and large numbers readably", () => {
    expect(formatNumber(0.001)).toBe("1.00e-3");
    expect(formatNumber(1.23456)).toBe("1.23");
    expect(formatNumber(42)).toBe("42");
  });
  it("names the field in validation errors", () => {
    expect(describeIssues([{ path: ["instances", 0, "id"], message: "Required" }])).toBe(
      "  instances[0].id: Required",
    );
  });
});
