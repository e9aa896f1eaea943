import { describe, expect, it } from "vitest";
import { DESCRIPTIONS } from "./commands/descriptions.js";
import { describeIssues, EXIT } from "./errors.js";
import { formatNumber, table } from "./io.js";
import { buildProgram, commandNameOf, programFor, run } from "./program.js";
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

describe("lazy commands", () => {
  it("finds the command argv names, past --replay's value and `help`", () => {
    expect(commandNameOf(["--help"])).toBeNull();
    expect(commandNameOf(["--replay", "fleet.json.gz", "fleet", "--json"])).toBe("fleet");
    expect(commandNameOf(["--replay=x", "instance", "db1"])).toBe("instance");
    expect(commandNameOf(["help", "rollout"])).toBe("rollout");
    expect(commandNameOf(["fleet"])).toBe("fleet");
  });

  it("lists every command with the description its module registers, loading only the one asked for", async () => {
    const full = await buildProgram(bufferIo());
    const lazy = await programFor(["--help"], bufferIo());
    const describe = (p: typeof full) => p.commands.map((c) => [c.name(), c.description()]);
    expect(describe(lazy)).toEqual(describe(full));
    expect(describe(full)).toEqual(Object.entries(DESCRIPTIONS));
    // Only the named command carries its options; the others are names in the list.
    const one = await programFor(["fleet", "--json"], bufferIo());
    const opts = (name: string) => one.commands.find((c) => c.name() === name)!.options.length;
    expect(opts("fleet")).toBeGreaterThan(0);
    expect(opts("rollout")).toBe(0);
  });

  it("prints a command's own help with its options", async () => {
    const io = bufferIo();
    expect(await run(["help", "fleet"], io)).toBe(EXIT.ok);
    expect(io.stdout()).toMatch(/--metadata <file>[\s\S]*the recording's own/);
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
