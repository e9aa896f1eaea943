/**
 * Prometheus's own parser and rule engine over everything generated: `promtool check rules` and
 * `check config`, the `promtool test rules` unit tests in tests/*.yml (synthetic series: spikes, steady
 * load, counter resets, restarts, missing data), and every dashboard and signal query compiled as a rule.
 */

import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { consoleMetrics as C } from "@untorn/catalog/console-metrics";
import { consoleSignals as CS } from "@untorn/catalog/console-signals";
import { signalList } from "@untorn/catalog/signals";
import { describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { PACKAGE_DIR } from "./generate.js";
import { ALERT_RULES_FILE, RECORDING_RULES_FILE } from "./prometheus-rules.js";
import { findPromtool, PROMTOOL_MISSING, promtool, requirePromtool } from "./promtool.js";
import { PROVISIONING_FILES } from "./provisioning.js";
import { panelQueries, resolveQuery } from "./queries.js";
import { toYaml } from "./yaml.js";

const TESTS_DIR = join(PACKAGE_DIR, "tests");
const WINDOW_GROUP = "untorn.window";

interface RuleFile {
  groups: { name: string; rules: { record?: string; alert?: string }[] }[];
}

/**
 * A copy of tests/<file> in `dir` whose rule files are the shipped ones less the untorn.window group:
 * its 88 one-hour statistics are evaluated every minute of the 26 h the wait-spike tests span and read by
 * none of them (1.4x the CPU of the run without it; BENCHMARKS.md "Test suite"). The window rules are
 * checked by `check rules` above and against real backends in packages/fleet.
 */
async function withoutWindowGroup(file: string, dir: string): Promise<string> {
  const rules = parse(await readFile(RECORDING_RULES_FILE, "utf8")) as RuleFile;
  rules.groups = rules.groups.filter((g) => g.name !== WINDOW_GROUP);
  await writeFile(join(dir, "recording-rules.yml"), stringify(rules));
  const test = parse(await readFile(join(TESTS_DIR, file), "utf8")) as { rule_files: string[] };
  test.rule_files = test.rule_files.map((f) =>
    f.endsWith("untorn-recording-rules.yml") ? "recording-rules.yml" : join(TESTS_DIR, f),
  );
  await writeFile(join(dir, file), stringify(test));
  return file;
}
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
      const dir = await mkdtemp(join(tmpdir(), "untorn-promtool-"));
      try {
        const r = await promtool(["test", "rules", await withoutWindowGroup(file, dir)], dir, 480_000);
        expect(r.code, r.output).toBe(0);
        expect(r.output).toContain("SUCCESS");
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    540_000,
  );

  it("runs the unit tests on the shipped rules but for the untorn.window group, which none of them reads", async () => {
    const shipped = parse(await readFile(RECORDING_RULES_FILE, "utf8")) as RuleFile;
    expect(shipped.groups.map((g) => g.name)).toContain(WINDOW_GROUP);
    for (const file of unitTests) {
      const text = await readFile(join(TESTS_DIR, file), "utf8");
      for (const g of shipped.groups.filter((x) => x.name === WINDOW_GROUP)) {
        for (const rule of g.rules) expect(text, file).not.toContain(rule.record);
      }
    }
  });

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

  it("evaluates the console signals of the Rollouts row on synthetic console series (test rules)", async () => {
    // Two consoles on one store (the same rollouts on both) and one console whose store read failed.
    const both = (name: string, labels: string, values: string) =>
      ["c1:3000", "c2:3000"].map((i) => ({
        series: `${name}{instance="${i}", job="untorn-console"${labels ? `, ${labels}` : ""}}`,
        values,
      }));
    const w = C.waitingSince.name;
    const h = `${C.timeToVerdict.name}_bucket`;
    const sharedStore = [
      ...both(C.rollouts.name, 'status="paused"', "2x10"),
      ...both(C.rollouts.name, 'status="active"', "1x10"),
      ...both(C.gateResults.name, 'gate="bake", outcome="pass"', "3x10"),
      ...both(C.gateResults.name, 'gate="bake", outcome="fail"', "0x10"),
      ...both(w, 'rollout="r1", title="Canary", reason="inconclusive"', "0x10"),
      ...both(w, 'rollout="r2", title="Orders", reason="operator"', "300x10"),
      ...both(C.scrapeSuccess.name, "", "1x10"),
      // One judged wave within 5 min, one within 15 min.
      ...both(h, 'le="300"', "1x10"),
      ...both(h, 'le="900"', "2x10"),
      ...both(h, 'le="+Inf"', "2x10"),
    ];
    const at = (expr: string, samples: { labels: string; value: number }[]) => ({
      expr,
      eval_time: "10m",
      exp_samples: samples.map((x) => ({ labels: x.labels, value: x.value })),
    });
    const test = {
      rule_files: [],
      evaluation_interval: "1m",
      tests: [
        {
          name: "two consoles on one store count each rollout once",
          interval: "1m",
          input_series: sharedStore,
          promql_expr_test: [
            at(CS.console_rollouts_by_status.expr(), [
              { labels: '{status="paused"}', value: 2 },
              { labels: '{status="active"}', value: 1 },
            ]),
            at(CS.console_gate_results.expr(), [{ labels: '{gate="bake", outcome="pass"}', value: 3 }]),
            at(CS.console_rollouts_waiting.expr(), [{ labels: "{}", value: 2 }]),
            at(CS.console_rollout_waiting_seconds.expr(), [
              { labels: '{rollout="r1", title="Canary", reason="inconclusive"}', value: 600 },
              { labels: '{rollout="r2", title="Orders", reason="operator"}', value: 300 },
            ]),
            at(CS.console_longest_wait_seconds.expr(), [{ labels: "{}", value: 600 }]),
            at(CS.console_store_up.expr(), [{ labels: "{}", value: 1 }]),
            // Rank 1 of 2 ends the first bucket; rank 1.8 lies 80% into (300, 900].
            at(CS.console_time_to_verdict_seconds.expr({ quantile: 0.5 }), [{ labels: "{}", value: 300 }]),
            at(CS.console_time_to_verdict_seconds.expr({ quantile: 0.9 }), [{ labels: "{}", value: 780 }]),
          ],
        },
        {
          name: "nothing waiting reads 0 only when the store was read",
          interval: "1m",
          input_series: [
            { series: `${C.scrapeSuccess.name}{instance="c1:3000", job="untorn-console"}`, values: "1x10" },
            { series: `${C.scrapeSuccess.name}{instance="c3:3000", job="untorn-other"}`, values: "0x10" },
          ],
          promql_expr_test: [
            at(CS.console_rollouts_waiting.expr(), [{ labels: "{}", value: 0 }]),
            at(CS.console_rollouts_waiting.expr({ selector: { job: "untorn-other" } }), []),
            at(CS.console_store_up.expr(), [{ labels: "{}", value: 0 }]),
          ],
        },
      ],
    };
    const dir = await mkdtemp(join(tmpdir(), "untorn-console-signals-"));
    try {
      await writeFile(join(dir, "console-signals.yml"), toYaml(test, undefined));
      const r = await promtool(["test", "rules", "console-signals.yml"], dir);
      expect(r.code, r.output).toBe(0);
      expect(r.output).toContain("SUCCESS");
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
