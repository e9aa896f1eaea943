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

interface Rule {
  record?: string;
  alert?: string;
  expr: string;
}
interface RuleFile {
  groups: { name: string; rules: Rule[] }[];
}

const NAMES = /[A-Za-z_:][A-Za-z0-9_:]*/g;

/**
 * The shipped recording rules that `text` (a unit test file) and the shipped alerts read, directly or
 * through other recorded series: promtool evaluates every rule of its rule files at every step of the
 * 26 h the wait-spike tests span, and a rule no alert and no test reads changes no result (each rule
 * reads only series; those it leaves out are read by nobody here). The rest, untorn.window's 88 one-hour
 * statistics among them, is checked by `check rules` above and against real backends in packages/fleet.
 */
function rulesRead(recording: RuleFile, alerts: RuleFile, text: string): RuleFile {
  const wanted = new Set(text.match(NAMES) ?? []);
  for (const g of alerts.groups)
    for (const r of g.rules) for (const n of r.expr.match(NAMES) ?? []) wanted.add(n);
  const recorded = recording.groups.flatMap((g) => g.rules).filter((r) => r.record);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of recorded) {
      if (!wanted.has(r.record!)) continue;
      for (const n of r.expr.match(NAMES) ?? [])
        if (!wanted.has(n)) {
          wanted.add(n);
          grew = true;
        }
    }
  }
  const groups = recording.groups
    .map((g) => ({ ...g, rules: g.rules.filter((r) => r.record && wanted.has(r.record)) }))
    .filter((g) => g.rules.length > 0);
  return { groups };
}

/** A copy of tests/<file> in `dir` whose recording rule file holds only the rules it reads (rulesRead). */
async function withRulesRead(file: string, dir: string): Promise<string> {
  const text = await readFile(join(TESTS_DIR, file), "utf8");
  const recording = parse(await readFile(RECORDING_RULES_FILE, "utf8")) as RuleFile;
  const alerts = parse(await readFile(ALERT_RULES_FILE, "utf8")) as RuleFile;
  await writeFile(join(dir, "recording-rules.yml"), stringify(rulesRead(recording, alerts, text)));
  const test = parse(text) as { rule_files: string[] };
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
        const r = await promtool(["test", "rules", await withRulesRead(file, dir)], dir, 480_000);
        expect(r.code, r.output).toBe(0);
        expect(r.output).toContain("SUCCESS");
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    540_000,
  );

  it("runs the unit tests on the rules they read: every rule an alert or a test reads, and no others", async () => {
    const recording = parse(await readFile(RECORDING_RULES_FILE, "utf8")) as RuleFile;
    const alerts = parse(await readFile(ALERT_RULES_FILE, "utf8")) as RuleFile;
    const records = (f: RuleFile) => f.groups.flatMap((g) => g.rules.map((r) => r.record));
    const spike = await readFile(join(TESTS_DIR, "doublewrite-wait-spike.yml"), "utf8");
    const kept = records(rulesRead(recording, alerts, spike));
    // The spike alert reads its baseline, which reads the per-instance wait rate.
    const spikeAlert = alerts.groups
      .flatMap((g) => g.rules)
      .find((r) => r.alert === "UntornDoublewriteWaitSpike")!;
    const direct = records(recording).filter((r) => spikeAlert.expr.includes(r!));
    expect(direct.length).toBeGreaterThan(0);
    for (const r of direct) expect(kept).toContain(r);
    for (const g of recording.groups.filter((x) => x.name !== WINDOW_GROUP))
      for (const r of g.rules) {
        const readers = recording.groups
          .flatMap((x) => x.rules)
          .filter((x) => kept.includes(x.record) && x.expr.includes(r.record!));
        if (readers.length > 0)
          expect(kept, `${r.record} is read by ${readers[0]!.record}`).toContain(r.record);
      }
    // No test and no alert reads untorn.window's statistics: the group is left out whole.
    const window = recording.groups.find((g) => g.name === WINDOW_GROUP)!;
    for (const file of unitTests) {
      const text = await readFile(join(TESTS_DIR, file), "utf8");
      for (const r of window.rules)
        expect(records(rulesRead(recording, alerts, text))).not.toContain(r.record);
    }
    expect(kept.length).toBeLessThan(records(recording).length);
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
