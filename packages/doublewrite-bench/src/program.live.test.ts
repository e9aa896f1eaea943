import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXIT } from "@untorn/cli/errors";
import { bufferIo } from "@untorn/cli/testing/buffer-io";
import { type MariaDb, startMariaDb } from "@untorn/testkit/mariadb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { run } from "./program.js";
import { BenchResult } from "./result.js";

let dir = "";
let db: MariaDb;
const TINY = [
  "--threads",
  "1,2",
  "--time",
  "2",
  "--warmup",
  "1",
  "--repeats",
  "1",
  "--tables",
  "2",
  "--table-size",
  "2000",
];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "untorn-bench-cmd-"));
  db = await startMariaDb({ bufferPoolSize: "16M", doublewrite: true });
});
afterAll(async () => {
  await db?.destroy();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const io = bufferIo(env);
  const code = await run(args, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe("untorn-bench on an existing server", () => {
  it("measures the current setting only, never flips it, and merges the other setting with --against", async () => {
    const on = await cli(["--socket", db.socket, "--user", "root", ...TINY, "--out", join(dir, "on")]);
    expect(on.code, on.err).toBe(EXIT.ok);
    expect(on.out).toContain("TPS (doublewrite ON)");
    expect(on.err).toContain("Doublewrite is ON on this server and untorn never changes it");
    expect(on.err).toContain(`--against ${join(dir, "on", "bench.json")}`);
    const first = BenchResult.parse(JSON.parse(await readFile(join(dir, "on", "bench.json"), "utf8")));
    expect(first.server).toMatchObject({ kind: "existing", restartsBetweenRepeats: false });
    expect(first.runs.map((r) => `${r.doublewrite}/${r.threads}`)).toEqual(["on/1", "on/2"]);
    expect(first.runs[0]!.metrics.transactions).toBeGreaterThan(0);
    expect(first.runs[0]!.metrics.dblwrPagesPerTrx).not.toBeNull();
    expect(first.notes.join("\n")).toContain("without restarts");
    const [dw] = await db.query<{ dw: string }>("SELECT @@innodb_doublewrite AS dw");
    expect(String(dw?.dw)).toMatch(/^(1|ON)$/);

    // Same setting as the --against file: refused before anything runs.
    const same = await cli([
      "--socket",
      db.socket,
      "--user",
      "root",
      ...TINY,
      "--against",
      join(dir, "on", "bench.json"),
    ]);
    expect(same.code).toBe(EXIT.usage);
    expect(same.err).toContain("has runs with doublewrite ON, the setting this server has now");

    // The operator flips it (here the test owns the server), then runs again with --against.
    await db.restart({ doublewrite: false });
    const both = await cli([
      "--socket",
      db.socket,
      "--user",
      "root",
      ...TINY,
      "--against",
      join(dir, "on", "bench.json"),
      "--out",
      join(dir, "both"),
    ]);
    expect(both.code, both.err).toBe(EXIT.ok);
    expect(both.out).toMatch(/TPS ON → OFF/);
    expect(both.err).not.toContain("never changes it");
    const merged = BenchResult.parse(JSON.parse(await readFile(join(dir, "both", "bench.json"), "utf8")));
    expect(merged.runs.map((r) => r.doublewrite)).toEqual(["on", "on", "off", "off"]);
    expect(merged.summary.map((r) => r.threads)).toEqual([1, 2]);
    expect(merged.summary[0]!.changes.dblwrPagesPerTrx!.estimate).toBe(-1);
    expect(merged.notes.join("\n")).toContain("ON runs from");
    expect(await readFile(join(dir, "both", "tps.svg"), "utf8")).toContain("doublewrite OFF");

    const differs = await cli([
      "--socket",
      db.socket,
      ...TINY.slice(0, -2),
      "--table-size",
      "5000",
      "--against",
      join(dir, "on", "bench.json"),
    ]);
    expect(differs.code).toBe(EXIT.usage);
    expect(differs.err).toContain("used table size 2000, this run 5000");
  }, 120_000);

  it("refuses a half-prepared database and names a bad --against file's field", async () => {
    await db.query("CREATE DATABASE IF NOT EXISTS half");
    await db.query("CREATE TABLE IF NOT EXISTS half.sbtest1 (id INT PRIMARY KEY)");
    const half = await cli(["--socket", db.socket, "--user", "root", "--database", "half", ...TINY]);
    expect(half.code).toBe(EXIT.failure);
    expect(half.err).toContain("database half has 1 of the 2 sysbench tables");

    const bad = join(dir, "bad.json");
    await writeFile(bad, JSON.stringify({ version: 1, runs: "none" }));
    const r = await cli(["--socket", db.socket, ...TINY, "--against", bad]);
    expect(r.code).toBe(EXIT.invalidInput);
    expect(r.err).toMatch(/is not a valid bench result:[\s\S]*runs: /);
  });

  it("prints the results before saving them, and says when --out cannot be written", async () => {
    const file = join(dir, "a-file");
    await writeFile(file, "");
    const r = await cli([
      "--socket",
      db.socket,
      "--user",
      "root",
      ...TINY,
      "--repeats",
      "1",
      "--out",
      join(file, "sub"),
    ]);
    expect(r.code).toBe(EXIT.failure);
    expect(r.out).toMatch(/^untorn-bench: MariaDB/);
    expect(r.err).toContain(`cannot save the results in ${join(file, "sub")}`);
  }, 60_000);

  it("fails with exit 1 when the server cannot be reached", async () => {
    const r = await cli(["--socket", join(dir, "none.sock"), ...TINY]);
    expect(r.code).toBe(EXIT.failure);
    expect(r.err).toMatch(/cannot query the server at .*none\.sock/);
  });
});
