// The committed recording (what the web app serves with no PROMETHEUS_URL): it must validate, hold the
// fleet of fleet.ts over the recorded span, and profile into the verdicts the fleet was designed for.
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { CHARTS, chartQueries, ROLLOUT_CHARTS } from "@untorn/fleet/charts";
import { metadataFileSchema, sidecarMetadataPath } from "@untorn/fleet/metadata";
import { instanceSelector } from "@untorn/fleet/plan";
import { profileFleet } from "@untorn/fleet/profile";
import { decodeReplay, ReplayApi, replayFactsOptions } from "@untorn/fleet/replay";
import { buildReport, renderReportMarkdown, reportSchema } from "@untorn/rollout/report";
import { nextActions, parseRolloutState } from "@untorn/rollout/state";
import { parseRecordedRollouts, sidecarRolloutsPath } from "@untorn/rollout-runner/recorded";
import { describe, expect, it } from "vitest";
import { checkFleet, checkRollouts, TOP, verifiedStillOn } from "./expectations.js";
import { DEMO_DECLARATION_NOTE, declaredMetadata, FLEET, idle, shopMembers } from "./fleet.js";

const DIR = fileURLToPath(new URL("../recordings", import.meta.url));
// The web app's pattern (apps/web/src/server/fleet/source.ts): *.json.gz or *.json, not *.schema.json.
const files = readdirSync(DIR).filter(
  (n) => /\.json(\.gz)?$/.test(n) && !/\.(schema|metadata|rollouts)\.json$/.test(n),
);

describe("lab/recordings", () => {
  it("holds exactly one replay file, gzip compressed and a few MB at most", () => {
    // One file: the web app serves the newest by mtime, which a git checkout does not preserve.
    expect(files).toHaveLength(1);
    expect(files[0]).toMatch(/\.json\.gz$/);
    const bytes = readFileSync(join(DIR, files[0]!));
    expect(bytes.length).toBeLessThan(4 << 20);
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
  });
});

describe.each(files)("%s", (name) => {
  const file = decodeReplay(readFileSync(join(DIR, name)));
  const m = file.meta;
  const recorded = new Set(m.instances);
  const specs = FLEET.filter((s) => recorded.has(s.name));

  it("validates and says it is recorded", () => {
    expect(file.format).toBe("untorn-replay");
    expect(file.recorded).toBe(true);
    expect(m.recordedFrom).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(m.note).toMatch(/MariaDB .* servers .* sysbench/);
  });

  it("holds at least 12 instances, all of them from the lab fleet", () => {
    expect(m.instances.length).toBeGreaterThanOrEqual(12);
    expect(m.instances.filter((i) => !FLEET.some((s) => s.name === i))).toEqual([]);
    // Only the IOPS-limited instances may be missing (a machine that cannot emulate the volumes).
    expect(FLEET.filter((s) => !s.throttle && !recorded.has(s.name)).map((s) => s.name)).toEqual([]);
  });

  it("spans 15 minutes of 15-minute windows, with chart series over the span", () => {
    expect(m.window).toBe("15m");
    expect(m.spanSeconds).toBe(900);
    expect(m.end - m.start).toBe(900);
    expect(m.everySeconds).toBe(300);
    expect(m.charts).toMatchObject({ start: m.start, end: m.end });
    const times = new Set(file.instant.flatMap((e) => e.answers.map((a) => a.time)));
    expect([...times].sort()).toEqual([m.start, m.start + 300, m.start + 600, m.end]);
    // Every instance has chart points across the whole span (first and last 2 min included).
    const charted = new Map<string, number[]>();
    for (const r of file.range)
      if (!r.derived)
        for (const s of r.data) {
          const ts = s.points.map(([t]) => t);
          const i = s.labels.instance;
          if (i && ts.length) charted.set(i, [...(charted.get(i) ?? []), Math.min(...ts), Math.max(...ts)]);
        }
    for (const i of m.instances) {
      const ts = charted.get(i) ?? [];
      expect(Math.min(...ts), i).toBeLessThanOrEqual(m.start + 120);
      expect(Math.max(...ts), i).toBeGreaterThanOrEqual(m.end - 120);
    }
  });

  const sidecar = sidecarMetadataPath(join(DIR, name));

  it("ships the lab's declared facts beside it, as the lab writes them, valid for the web app and the CLI", () => {
    const declared = metadataFileSchema.parse(JSON.parse(readFileSync(sidecar, "utf8")));
    expect(declared).toEqual(declaredMetadata(specs));
    // The capped volumes carry their cap and metering unit; cluster for every member.
    for (const s of specs) {
      const d = declared.instances[s.name];
      expect(d?.cluster, s.name).toBe(s.cluster);
      if (s.throttle)
        expect(d?.storageFacts?.limits, s.name).toEqual({
          writeIops: s.throttle.writeIops,
          ioUnitBytes: s.throttle.meterKiB * 1024,
        });
    }
  });

  let profiled: ReturnType<typeof profileFleet> | undefined;
  const profile = () => {
    profiled ??= profileFleet(
      new ReplayApi(file),
      replayFactsOptions(m),
      new Map(Object.entries(declaredMetadata(specs).instances)),
    );
    return profiled;
  };

  it("profiles into the verdicts the fleet was designed for", async () => {
    const p = await profile();
    expect(p.skipped).toEqual([]);
    expect(p.rows.map((r) => r.instance).sort()).toEqual([...m.instances].sort());
    expect(checkFleet(p, specs)).toEqual([]);

    const verdict = new Map(p.rows.map((r) => [r.instance, r.verdict]));
    for (const s of specs.filter(idle)) expect(verdict.get(s.name)).toBe("not-write-bound");
    // checkFleet also wants a loaded doublewrite-ON instance with a positive score among the first 3.
    const top = p.rows.slice(0, TOP).filter((r) => r.score > 0);
    expect(top.length).toBeGreaterThan(0);
    // Both verdict kinds are present: the fleet has write-bound candidates and members that are not.
    const kinds = new Set(verdict.values());
    expect(kinds.has("not-write-bound")).toBe(true);
    expect(kinds.has("write-bound") || kinds.has("likely")).toBe(true);
  });

  it("is checked by expectations that can fail", async () => {
    const p = await profile();
    const idle = specs.find((s) => s.loads.length === 0)!;
    const idleWriteBound = {
      ...p,
      rows: p.rows.map((r) => (r.instance === idle.name ? { ...r, verdict: "write-bound" as const } : r)),
    };
    expect(checkFleet(idleWriteBound, specs)).toContain(`${idle.name}: idle but the verdict is write-bound`);
    const nothingToGain = { ...p, rows: p.rows.map((r) => ({ ...r, score: 0 })) };
    expect(checkFleet(nothingToGain, specs).at(-1)).toMatch(/^no write-loaded doublewrite-ON instance/);
    const offNotAtRisk = { ...p, ranking: { ...p.ranking, atRisk: [] } };
    expect(checkFleet(offNotAtRisk, specs)).toContain("db-idle-dw-off-1: doublewrite OFF but not at risk");
    const unverified = {
      ...p,
      advice: p.advice.map((a) => ({ ...a, safetyGate: { ...a.safetyGate, status: "unverified" as const } })),
    };
    const problems = checkFleet(unverified, specs);
    expect(problems).toContain(
      "db-shop-replica-1: storage declared atomic but the safety gate reads unverified",
    );
    expect(problems).toContain(
      "no instance could safely drop doublewrite (a verified gate with doublewrite on)",
    );
  });

  it("has instances whose safety gate is verified: the canary off, its sibling still on (could safely drop)", async () => {
    const p = await profile();
    const shop = shopMembers(specs)!;
    expect(shop, "the replicated cluster is in the recording").not.toBeNull();
    const gate = new Map(p.advice.map((a) => [a.identity.instance, a.safetyGate.status]));
    expect(gate.get(shop.canary.name)).toBe("verified");
    expect(gate.get(shop.control.name)).toBe("verified");
    expect(verifiedStillOn(p)).toEqual([shop.control.name]);
    // The declaration says, where the console shows it, that it is for the demo.
    const declared = declaredMetadata(specs).instances[shop.canary.name]!;
    expect(declared.storageFacts?.tornWriteProtection?.note).toBe(DEMO_DECLARATION_NOTE);
    expect(DEMO_DECLARATION_NOTE).toMatch(/^Declared for the demo/);
  });

  it("holds the rollout charts of the replicated cluster over the span (canary vs control, replication lag)", () => {
    const shop = shopMembers(specs)!;
    const range = { start: m.charts!.start, end: m.charts!.end, step: m.charts!.step, source: m.plan.source };
    const answers = new Map(file.range.map((r) => [r.query, r]));
    for (const instance of [shop.canary.name, shop.control.name]) {
      const qs = chartQueries({ ...m.plan.selector, ...instanceSelector(instance) }, range, ROLLOUT_CHARTS);
      for (const q of qs.filter((x) => x.chart !== "doublewrite-mode")) {
        const points = answers.get(q.expr)?.data.flatMap((d) => d.points) ?? [];
        expect(points.length, `${instance} ${q.chart}`).toBeGreaterThan(20);
      }
    }
    // The instance page's charts are still there for them too.
    const tx = chartQueries({ ...m.plan.selector, ...instanceSelector(shop.canary.name) }, range, CHARTS);
    expect(tx.every((q) => answers.has(q.expr))).toBe(true);
  });

  const rolloutsFile = sidecarRolloutsPath(join(DIR, name));

  it("ships the rollouts the run recorded beside it: one completed with its report, one waiting at a gate", () => {
    const recorded = parseRecordedRollouts(rolloutsFile, readFileSync(rolloutsFile, "utf8"));
    expect(recorded.version).toBe(1);
    expect(recorded.recording).toBe(name);
    expect(checkRollouts(recorded, m, specs)).toEqual([]);
    const states = recorded.rollouts.map((r) => parseRolloutState(r.document));
    const done = states.find((s) => s.status === "completed")!;
    const report = reportSchema.parse(buildReport(done, m.end));
    expect(["succeeded", "inconclusive"]).toContain(report.verdict);
    expect(report.gates.map((g) => g.gate)).toEqual(expect.arrayContaining(["pre-wave", "step", "bake"]));
    expect(report.effects.some((e) => e.metric === "write_bytes_per_transaction")).toBe(true);
    expect(renderReportMarkdown(report)).toContain("db-shop-replica-1");
    const waiting = states.find((s) => s.status !== "completed")!;
    expect(nextActions(waiting, m.end).human.map((h) => h.kind)).toContain("approve");
    // Every actor says it acted in the lab's recording run (or is the engine itself).
    for (const s of states)
      for (const e of s.events) expect(e.actor.id).toMatch(/^lab-recording\/|^reconciler$/);
  });
});
