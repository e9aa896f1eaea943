/**
 * Prometheus's own parser and rule engine over everything generated: `promtool check rules` and
 * `check config`, the `promtool test rules` unit tests in tests/*.yml (synthetic series: spikes, steady
 * load, counter resets, restarts, missing data), and every dashboard and signal query compiled as a rule.
 */

import { mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { signalList } from "@untorn/catalog/signals";
import { describe, expect, it } from "vitest";
import { PACKAGE_DIR } from "./generate.js";
import { ALERT_RULES_FILE, RECORDING_RULES_FILE } from "./prometheus-rules.js";
import { findPromtool, PROMTOOL_MISSING, promtool, requirePromtool } from "./promtool.js";
import { PROVISIONING_FILES } from "./provisioning.js";
import { panelQueries, resolveQuery } from "./queries.js";
import { toYaml } from "./yaml.js";

const TESTS_DIR = join(PACKAGE_DIR, "tests");
const unitTests = (await readdir(TESTS_DIR)).filter((f) => f.endsWith(".yml")).sort();

describe("promtool", () => {
  it("is installed (Debian package `prometheus`)", () => {
    expect(findPromtool(), PROMTOOL_MISSING).toBeDefined();
    expect(PROMTOOL_MISSING).toContain("Debian package `prometheus`");
  });

  it("fails with the package name when it is missing", () => {
    const path = process.env["PATH"];
    process.env["PATH"] = "/nonexistent";
    try {
      expect(() => requirePromtool()).toThrow(/Debian package `prometheus`/);
    } finally {
      process.env["PATH"] = path;
    }
  });

  it("accepts the generated recording and alerting rules (check rules)", async () => {
    const r = await promtool(["check", "rules", RECORDING_RULES_FILE, ALERT_RULES_FILE], PACKAGE_DIR);
    expect(r.output).toMatch(/SUCCESS: \d+ rules found/);
    expect(r.code, r.output).toBe(0);
  });

  it("accepts the example Prometheus configuration and its rule files (check config)", async () => {
    const r = await promtool(
      ["check", "config", "prometheus.yml"],
      join(PACKAGE_DIR, "provisioning/prometheus"),
    );
    expect(r.code, r.output).toBe(0);
  });

  it("finds the unit tests", () => {
    expect(unitTests).toEqual(
      expect.arrayContaining(["doublewrite-wait-spike.yml", "storage-and-health.yml"]),
    );
  });

  it.each(unitTests)(
    "passes the unit tests in tests/%s (test rules)",
    async (file) => {
      // The day-long wait-spike file takes about 70 s of CPU (every rule evaluated each minute of 26 h).
      const r = await promtool(["test", "rules", file], TESTS_DIR, 480_000);
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain("SUCCESS");
    },
    540_000,
  );

  it("compiles every dashboard query and every signal in every form with Prometheus's parser", async () => {
    const exprs: string[] = panelQueries().map((q) =>
      resolveQuery(q.expr, { instance: ["db1", "db-2.example:3306"] }),
    );
    for (const s of signalList) {
      for (const source of s.fallback
        ? (["untorn", "fallback", "any"] as const)
        : (["untorn", "any"] as const)) {
        exprs.push(s.expr({ source }));
        exprs.push(s.expr({ source, recorded: true, selector: { instance: "db1" }, offset: "1d" }));
      }
    }
    // Distinct names: promtool's lint rejects identical rules.
    const rules = exprs.map((expr, i) => ({ record: `untorn_check:q${i}`, expr }));
    const dir = await mkdtemp(join(tmpdir(), "untorn-promql-"));
    try {
      await writeFile(join(dir, "queries.yml"), toYaml({ groups: [{ name: "check", rules }] }, undefined));
      const r = await promtool(["check", "rules", "queries.yml"], dir);
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain(`SUCCESS: ${rules.length} rules found`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("rejects a broken rule (the check is not a no-op)", async () => {
    const dir = await mkdtemp(join(tmpdir(), "untorn-promql-"));
    try {
      await writeFile(
        join(dir, "bad.yml"),
        toYaml(
          { groups: [{ name: "bad", rules: [{ record: "a:b:c", expr: "x group_left (y)" }] }] },
          undefined,
        ),
      );
      const r = await promtool(["check", "rules", "bad.yml"], dir);
      expect(r.code).not.toBe(0);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

export { PROVISIONING_FILES };
