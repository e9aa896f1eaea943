// The installed `untorn-exporter` command (bin/untorn-exporter.js), run as a process.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const run = promisify(execFile);
const bin = fileURLToPath(new URL("../bin/untorn-exporter.js", import.meta.url));

describe("the untorn-exporter command", () => {
  it("prints its usage with --help and exits 0", async () => {
    const { stdout } = await run(bin, ["--help"]);
    expect(stdout).toMatch(/^usage: untorn-exporter \[flags\]/);
    expect(stdout).toContain("--collect.host.storage");
  });

  it("rejects an unknown flag with a message and a non-zero exit", async () => {
    const err = await run(bin, ["--no-such-flag"]).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(err?.code).not.toBe(0);
    expect(err?.stderr).toMatch(/no-such-flag/);
  });
});
