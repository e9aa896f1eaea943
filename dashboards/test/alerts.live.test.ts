// Live alert test: the alerts fire on what real servers emit and reach a real Alertmanager.
//
// Throwaway MariaDBs on emulated IOPS-limited volumes (testkit/throttle) under sysbench, scraped by
// untorn-exporter into a real Prometheus with the catalog's recording and alerting rules; Debian's
// prometheus-alertmanager routes to a webhook receiver this test runs on loopback.
//
// Time: the shipped rules wait 15 min (`for`), average over 5-15 min and skip the first 30 min after a
// restart, which no CI run can sit through. Prometheus therefore loads the same catalog definitions with
// only those time parameters divided by 15 (support/scaled-rules.ts, labelled TEST ONLY in the file): a
// 15 min `for` becomes 60 s, a [5m] rate [20s], the 1800 s uptime guard 120 s. The day-long baseline is
// NOT scaled: a day of history is backfilled with `promtool tsdb create-blocks-from openmetrics` from the
// wait each server showed while calm, measured live first, so the baseline rules run exactly as shipped.
// The shipped files are still checked here: every scaled expression scales back to the shipped one, and
// the shipped spike expression, evaluated live at the moment the scaled one fires, returns nothing
// because its real 30 min restart guard holds on servers up for a few minutes.
//
// The Grafana-managed rules: Grafana is NOT running here. Their data query and math condition, as the
// provisioning file defines them, are evaluated against the same Prometheus (support/grafana-eval.ts).
import { execFile } from "node:child_process";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { alertRules, runbookUrl, thresholds } from "@untorn/catalog/alerts";
import {
  DOUBLEWRITE_WAIT_BASELINE_AVG,
  DOUBLEWRITE_WAIT_BASELINE_STDDEV,
  DOUBLEWRITE_WAIT_RECORD,
} from "@untorn/catalog/rules";
import { RULE_WINDOW } from "@untorn/catalog/signals";
import {
  type Alertmanager,
  startAlertmanager,
  startWebhookReceiver,
  type WebhookReceiver,
} from "@untorn/testkit/alertmanager";
import { type RunningExporter, startUntornExporter } from "@untorn/testkit/exporters";
import { type MariaDb, startMariaDb } from "@untorn/testkit/mariadb";
import { type ManagedProcess, makeTempDir, removeDir, requireBinary, waitFor } from "@untorn/testkit/process";
import { type Prometheus, type ScrapeJob, startPrometheus } from "@untorn/testkit/prometheus";
import { prepareSysbench, startSysbenchLoad, targetOf } from "@untorn/testkit/sysbench";
import { createThrottledVolume, type ThrottledVolume, throttleAvailable } from "@untorn/testkit/throttle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { DATASOURCE_UID } from "../src/house.js";
import { evaluateGrafanaRule, type GrafanaRule } from "./support/grafana-eval.js";
import {
  durationSeconds,
  SCALED_MIN_UPTIME_S,
  scaledAlertRulesYaml,
  scaledAlerts,
  scaledRecordingRulesYaml,
  scaleExpr,
  TIME_SCALE,
  unscaleExpr,
} from "./support/scaled-rules.js";

const run = promisify(execFile);
const here = fileURLToPath(new URL(".", import.meta.url));
const SHIPPED_ALERTS = join(here, "..", "generated", "prometheus", "untorn-alert-rules.yml");
const SHIPPED_GRAFANA = join(here, "..", "provisioning", "alerting", "untorn-alert-rules.yaml");

/** Prometheus' scrape and rule evaluation interval here (shipped examples use 15 s and 1m). */
const EVAL_S = 1;
/** Seconds of calm wait samples measured before the backfill. */
const MEASURE_S = 40;
/** Backfilled history: 26 h ending 5 min before the run, one sample a minute. */
const BACKFILL_H = 26;
const BACKFILL_STEP_S = 60;
/**
 * The tightened write IOPS cap: well under what the calm load writes (~310 ibdata1 writes/s alone with
 * 16 KiB metering), yet high enough that an fsync of ibdata1 still completes every few seconds, so the
 * [20s] rate of the scaled rules stays up between completions.
 */
const TIGHT_WRITE_IOPS = 50;
const LOAD = { tables: 2, tableSize: 5000 };
/** A steady write load (sysbench --rate), the same on the spiking server and its calm twin. */
const CALM_TPS = 100;
const SERVER_OPTS = {
  performanceSchema: true,
  bufferPoolSize: "8M",
  // Constant flushing, so the doublewrite area is written all the time, not only at checkpoints.
  extra: {
    performance_schema_instrument: "'wait/synch/mutex/innodb/%=ON'",
    innodb_max_dirty_pages_pct: 0,
    innodb_max_dirty_pages_pct_lwm: 0,
    innodb_io_capacity: 5000,
    // MariaDB writes the doublewrite batch to ibdata1 with asynchronous I/O, and performance_schema times
    // only the submission: with O_DIRECT, a calibration run of this test under a 50 IOPS cap saw ibdata1's
    // write timer stay under 0.005 s/s while its writes fell from ~310/s to ~13/s. With `fsync` the batch
    // goes to the page cache and the fsync of ibdata1 that completes it writes it out, under the cap and
    // timed (misc): the wait the alert reads then reflects the device (0.05-0.07 s/s uncapped, 0.68 s/s at
    // 50 IOPS in that run). docs/runbook.md (UntornDoublewriteWaitSpike) has what this means for O_DIRECT.
    innodb_flush_method: "fsync",
  },
} as const;
const EXPORTER_PASSWORD = "exporter-pw";

const skipReason = await throttleAvailable();
if (skipReason)
  console.warn(
    `\n*** SKIPPED: live alert tests (dashboards/test/alerts.live.test.ts): cannot emulate an IOPS-limited volume here: ${skipReason} ***\n`,
  );

interface PromAlert {
  labels: Record<string, string>;
  annotations: Record<string, string>;
  state: "pending" | "firing";
  activeAt: string;
  value: string;
}

const alertByName = (name: string) => {
  const a = alertRules.find((r) => r.name === name);
  if (!a) throw new Error(`no alert ${name} in the catalog`);
  return a;
};
const scaledFor = (name: string) => {
  const a = scaledAlerts.find((r) => r.name === name);
  if (!a) throw new Error(`no scaled alert ${name}`);
  return Number(a.for.slice(0, -1));
};

/** What the run saw, per alert, printed at the end for docs/runbook.md. */
const observed: Record<string, Record<string, unknown>> = {};
const round = (x: number, d = 3) => Number(x.toFixed(d));

describe.skipIf(Boolean(skipReason))("alerts on real faults, through a real Alertmanager", () => {
  const volumes: ThrottledVolume[] = [];
  const dbs: MariaDb[] = [];
  const exporters: RunningExporter[] = [];
  const loads: ManagedProcess[] = [];
  let receiver: WebhookReceiver;
  let am: Alertmanager;
  let prom: Prometheus;
  let work: string;
  let spikeVol: ThrottledVolume;
  let spikeDb: MariaDb;
  let dwoffDb: MariaDb;
  let dwoffExporter: RunningExporter;
  let twinDb: MariaDb;
  let promStartedAt = 0;
  const calm: Record<string, { mean: number; sd: number; samples: number[] }> = {};

  const promAlerts = async (): Promise<PromAlert[]> => {
    const res = await fetch(`${prom.url}/api/v1/alerts`);
    const body = (await res.json()) as { data: { alerts: PromAlert[] } };
    return body.data.alerts;
  };
  const findAlert = async (name: string, instance: string, state?: PromAlert["state"]) =>
    (await promAlerts()).find(
      (a) =>
        a.labels["alertname"] === name && a.labels["instance"] === instance && (!state || a.state === state),
    );
  /** Raw samples of a range selector: [unix s, value][] per series. */
  const raw = async (
    selector: string,
  ): Promise<{ metric: Record<string, string>; values: [number, string][] }[]> => {
    const res = await fetch(`${prom.url}/api/v1/query?${new URLSearchParams({ query: selector })}`);
    const body = (await res.json()) as {
      status: string;
      error?: string;
      data: { result: { metric: Record<string, string>; values: [number, string][] }[] };
    };
    if (body.status !== "success") throw new Error(`${selector}: ${body.error}`);
    return body.data.result;
  };
  const value = async (selector: string): Promise<number | undefined> => {
    const [s] = await prom.query(selector);
    return s ? Number(s.value[1]) : undefined;
  };
  const missedIterations = async () =>
    (await value('sum(prometheus_rule_group_iterations_missed_total{rule_group=~".*;untorn.alerts"})')) ?? 0;

  /**
   * Waits for `name` on `instance` to fire, and reads from Prometheus' own ALERTS series when it went
   * pending and when it first fired (the evaluation timestamps, not this test's polling).
   */
  const waitFiring = async (name: string, instance: string, timeoutMs: number) => {
    const missedBefore = await missedIterations();
    let sawPending = false;
    const alert = await waitFor(
      `${name} firing for ${instance}`,
      async () => {
        const a = await findAlert(name, instance);
        if (a?.state === "pending") sawPending = true;
        return a?.state === "firing" ? a : undefined;
      },
      { timeoutMs, intervalMs: 250, detail: () => `alerts: ${prom.url}/api/v1/alerts` },
    );
    const window = `${Math.ceil(Date.now() / 1000 - promStartedAt) + 5}s`;
    // Every label of this alert (a collector's, a mode's), so the samples are this series' alone.
    const labels = Object.entries(alert.labels).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    const sel = (state: string) => `ALERTS{${[...labels, `alertstate="${state}"`].join(", ")}}[${window}]`;
    const pending = (await raw(sel("pending")))[0]?.values ?? [];
    const firing = (await raw(sel("firing")))[0]?.values ?? [];
    const activeAt = Date.parse(alert.activeAt) / 1000;
    return {
      alert,
      sawPending: sawPending || pending.length > 0,
      activeAt,
      pendingFirst: pending[0]?.[0],
      firedAt: firing[0]?.[0] ?? Number.NaN,
      missed: (await missedIterations()) - missedBefore,
    };
  };

  /** The `for` assertion: fired no earlier than `for` after going pending, at most one evaluation later. */
  const expectForWindow = (name: string, f: Awaited<ReturnType<typeof waitFiring>>) => {
    const forS = scaledFor(name);
    const held = f.firedAt - f.activeAt;
    expect(f.sawPending, `${name} went pending before firing`).toBe(true);
    expect(held).toBeGreaterThanOrEqual(forS);
    // An iteration Prometheus itself reports as missed (a slow evaluation on this shared machine) moves
    // the firing evaluation by one interval; nothing else may.
    expect(held).toBeLessThanOrEqual(forS + EVAL_S * (1 + f.missed) + 0.001);
    return held;
  };

  const expectNotification = async (
    name: string,
    instance: string,
    status: "firing" | "resolved",
    timeoutMs = 30_000,
  ) => {
    const got = await receiver.waitForAlert(
      `${name} ${status} for ${instance}`,
      (a) => a.labels["alertname"] === name && a.labels["instance"] === instance && a.status === status,
      timeoutMs,
    );
    const rule = alertByName(name);
    expect(got.alert.labels["severity"]).toBe(rule.severity);
    expect(got.alert.annotations["runbook_url"]).toBe(runbookUrl(rule));
    expect(got.alert.annotations["summary"]).toContain(instance);
    expect(got.alert.annotations["summary"]).not.toContain("{{");
    expect(got.alert.annotations["description"]).not.toContain("{{");
    return got;
  };

  const jobs = (names: Record<string, RunningExporter>): ScrapeJob[] =>
    Object.entries(names).map(([instance, e]) => ({
      jobName: `untorn-${instance}`,
      targets: [e.address],
      labels: { instance },
    }));

  beforeAll(async () => {
    requireBinary("promtool", "prometheus");
    work = await makeTempDir("alerts-live");
    receiver = await startWebhookReceiver();
    am = await startAlertmanager({ webhookUrl: receiver.url });

    // One volume at a time: the volumes' cgroup names are made of the PID and the millisecond.
    for (let i = 0; i < 3; i++) volumes.push(await createThrottledVolume({ sizeMiB: 2048 }));
    const serverOn = async (vol: ThrottledVolume, doublewrite: boolean) => {
      const db = await startMariaDb({
        ...SERVER_OPTS,
        doublewrite,
        datadirParent: vol.mountPoint,
        spawnPrefix: vol.spawnPrefix,
      });
      dbs.push(db);
      return { vol, db };
    };
    const [spike, twin, dwoff] = await Promise.all([
      serverOn(volumes[0]!, true),
      serverOn(volumes[1]!, true),
      serverOn(volumes[2]!, false),
    ]);
    spikeVol = spike.vol;
    spikeDb = spike.db;
    twinDb = twin.db;
    dwoffDb = dwoff.db;
    await Promise.all([prepareSysbench(spikeDb, LOAD), prepareSysbench(twinDb, LOAD)]);
    // The grant set docs/exporter.md documents, on the twin: the collector-failing case revokes part of it.
    await twinDb.query(`CREATE USER 'exporter'@'localhost' IDENTIFIED BY '${EXPORTER_PASSWORD}'`);
    await twinDb.query("GRANT PROCESS, REPLICATION CLIENT, SLAVE MONITOR ON *.* TO 'exporter'@'localhost'");
    await twinDb.query("GRANT SELECT ON performance_schema.* TO 'exporter'@'localhost'");

    const [eSpike, eTwin, eDwoff, eGrants] = await Promise.all([
      startUntornExporter({ db: spikeDb }),
      startUntornExporter({ db: twinDb }),
      startUntornExporter({ db: dwoffDb }),
      startUntornExporter({ db: { socket: twinDb.socket, user: "exporter", password: EXPORTER_PASSWORD } }),
    ]);
    exporters.push(eSpike, eTwin, eDwoff, eGrants);
    dwoffExporter = eDwoff;
    for (const db of [spikeDb, twinDb])
      loads.push(startSysbenchLoad(targetOf(db), db.dir, { ...LOAD, threads: 2, time: 0, rate: CALM_TPS }));

    const rulesDir = join(work, "rules");
    await mkdir(rulesDir);
    const ruleFiles = [
      join(rulesDir, "scaled-recording-rules.yml"),
      join(rulesDir, "scaled-alert-rules.yml"),
    ];
    await writeFile(ruleFiles[0]!, scaledRecordingRulesYaml());
    await writeFile(ruleFiles[1]!, scaledAlertRulesYaml());
    const storagePath = join(work, "tsdb");
    const common = {
      scrapeInterval: `${EVAL_S}s`,
      evaluationInterval: `${EVAL_S}s`,
      ruleFiles,
      storagePath,
    };

    // 1. Measure each loaded server's calm doublewrite wait, as the recording rule records it.
    const measuring = await startPrometheus({ ...common, jobs: jobs({ spike: eSpike, twin: eTwin }) });
    let measuredUntil = 0;
    try {
      for (const i of ["spike", "twin"])
        await measuring.waitForSeries(`${DOUBLEWRITE_WAIT_RECORD}{instance="${i}"} > 0`, 60_000);
      // One full rate window of load before the samples count, then MEASURE_S of samples.
      await new Promise((r) => setTimeout(r, (durationSeconds(RULE_WINDOW) / TIME_SCALE + MEASURE_S) * 1000));
      measuredUntil = Math.floor(Date.now() / 1000);
      for (const i of ["spike", "twin"]) {
        const res = await fetch(
          `${measuring.url}/api/v1/query?${new URLSearchParams({ query: `${DOUBLEWRITE_WAIT_RECORD}{instance="${i}"}[${MEASURE_S}s]`, time: String(measuredUntil) })}`,
        );
        const body = (await res.json()) as { data: { result: { values: [number, string][] }[] } };
        const samples = (body.data.result[0]?.values ?? []).map(([, v]) => Number(v));
        expect(samples.length, `calm samples of ${i}`).toBeGreaterThanOrEqual(MEASURE_S / EVAL_S / 2);
        const mean = samples.reduce((a, b) => a + b, 0) / samples.length;
        const sd = Math.sqrt(samples.reduce((a, b) => a + (b - mean) ** 2, 0) / samples.length);
        calm[i] = { mean, sd, samples };
      }
    } finally {
      await measuring.stop();
    }

    // 2. Backfill a day of that calm level: the measured samples, in their order, repeated once a minute.
    const end = measuredUntil - 300;
    const start = end - BACKFILL_H * 3600;
    const lines = [`# TYPE ${DOUBLEWRITE_WAIT_RECORD} gauge`];
    for (const [instance, c] of Object.entries(calm)) {
      let k = 0;
      for (let t = start; t <= end; t += BACKFILL_STEP_S, k++)
        lines.push(
          `${DOUBLEWRITE_WAIT_RECORD}{instance="${instance}"} ${c.samples[k % c.samples.length]} ${t}`,
        );
    }
    lines.push("# EOF", "");
    const om = join(work, "calm-baseline.om");
    await writeFile(om, lines.join("\n"));
    await run("promtool", ["tsdb", "create-blocks-from", "openmetrics", om, storagePath], {
      maxBuffer: 16 << 20,
    });
    const blocks = (await readdir(storagePath)).filter((f) => /^[0-9A-Z]{26}$/.test(f));
    expect(blocks.length, "promtool wrote blocks").toBeGreaterThan(0);

    // 3. The Prometheus the alerts run in: same data, every target, notifying the Alertmanager.
    prom = await startPrometheus({
      ...common,
      jobs: jobs({ spike: eSpike, twin: eTwin, dwoff: eDwoff, grants: eGrants }),
      alertmanagers: [am.address],
      // Send firing alerts on every evaluation instead of once a minute.
      extraArgs: ["--rules.alert.resend-delay=1s"],
    });
    promStartedAt = Date.now() / 1000;
    for (const i of ["spike", "twin"]) {
      await prom.waitForSeries(`${DOUBLEWRITE_WAIT_BASELINE_AVG}{instance="${i}"}`, 30_000);
      await prom.waitForSeries(`${DOUBLEWRITE_WAIT_BASELINE_STDDEV}{instance="${i}"}`, 30_000);
    }
  }, 300_000);

  afterAll(async () => {
    const errors: string[] = [];
    const attempt = async (what: string, fn: () => Promise<unknown>) => {
      try {
        await fn();
      } catch (err) {
        errors.push(`${what}: ${(err as Error).message}`);
      }
    };
    await Promise.all(loads.map((l) => attempt("sysbench", () => l.stop())));
    await attempt("prometheus", async () => prom?.stop());
    await attempt("alertmanager", async () => am?.stop());
    await attempt("receiver", async () => receiver?.close());
    await Promise.all(exporters.map((e) => attempt("exporter", () => e.stop())));
    await Promise.all(dbs.map((d) => attempt("mariadb", () => d.destroy())));
    await Promise.all(volumes.map((v) => attempt("volume", () => v.destroy())));
    if (work) await removeDir(work);
    console.log(`live alert observations (docs/runbook.md):\n${JSON.stringify(observed, null, 2)}`);
    if (errors.length) throw new Error(`teardown: ${errors.join("; ")}`);
  }, 120_000);

  it("loads the scaled rules, which scale back to the shipped expressions exactly", async () => {
    const res = await fetch(`${prom.url}/api/v1/rules`);
    const body = (await res.json()) as {
      data: { groups: { rules: { health: string; name: string; lastError?: string }[] }[] };
    };
    const rules = body.data.groups.flatMap((g) => g.rules);
    expect(rules.filter((r) => r.health === "err").map((r) => `${r.name}: ${r.lastError}`)).toEqual([]);
    const shipped = parse(await readFile(SHIPPED_ALERTS, "utf8")) as {
      groups: { rules: { alert: string; expr: string; for: string }[] }[];
    };
    const shippedRules = shipped.groups.flatMap((g) => g.rules);
    expect(shippedRules.map((r) => r.alert)).toEqual(scaledAlerts.map((a) => a.name));
    for (const s of scaledAlerts) {
      const r = shippedRules.find((x) => x.alert === s.name)!;
      expect(unscaleExpr(s.expr), s.name).toBe(r.expr);
      expect(s.shippedFor).toBe(r.for);
    }
  });

  let spikeFired: (v: number) => void;
  let spikeFailed: (e: unknown) => void;
  /** When the spike alert fired (unix s); the Grafana and twin checks wait for it. */
  const spikeFiring = new Promise<number>((res, rej) => {
    spikeFired = res;
    spikeFailed = rej;
  });
  spikeFiring.catch(() => undefined);
  let spikeDone: () => void;
  const spikeOver = new Promise<void>((res) => {
    spikeDone = res;
  });

  it.concurrent("UntornDoublewriteWaitSpike: a tightened IOPS cap raises the recorded wait, the alert fires and resolves", async ({
    expect,
  }) => {
    const name = "UntornDoublewriteWaitSpike";
    try {
      const avg = (await value(`${DOUBLEWRITE_WAIT_BASELINE_AVG}{instance="spike"}`))!;
      const sd = (await value(`${DOUBLEWRITE_WAIT_BASELINE_STDDEV}{instance="spike"}`))!;
      // The baseline Prometheus computed from the backfill is the measured calm level.
      expect(avg).toBeCloseTo(calm["spike"]!.mean, 6);
      const T = thresholds.waitSpike;
      const bar = Math.max(T.floor.value, T.ratio.value * avg, avg + T.sigmas.value * sd);
      await waitFor(
        `spike server up > ${SCALED_MIN_UPTIME_S} s`,
        async () => {
          const [u] = await spikeDb.query<{ Value: string }>("SHOW GLOBAL STATUS LIKE 'Uptime'");
          return Number(u?.Value) > SCALED_MIN_UPTIME_S;
        },
        { timeoutMs: 120_000, intervalMs: 1000 },
      );
      const before = (await value(`${DOUBLEWRITE_WAIT_RECORD}{instance="spike"}`))!;
      expect(await findAlert(name, "spike")).toBeUndefined();

      const cappedAt = Date.now() / 1000;
      await spikeVol.setLimits({ writeIops: TIGHT_WRITE_IOPS });
      let highest = before;
      const risen = await waitFor(
        "the recorded doublewrite wait above the alert's bar",
        async () => {
          const v = await value(`${DOUBLEWRITE_WAIT_RECORD}{instance="spike"}`);
          if (v !== undefined) highest = Math.max(highest, v);
          return v !== undefined && v > bar ? v : undefined;
        },
        {
          timeoutMs: 90_000,
          intervalMs: 500,
          detail: () =>
            `bar ${bar} (baseline mean ${avg}, stddev ${sd}); calm ${before}, highest since the cap ${highest}`,
        },
      );
      const risenAt = Date.now() / 1000;
      const f = await waitFiring(name, "spike", 240_000);
      const held = expectForWindow(name, f);
      spikeFired(f.firedAt);
      const note = await expectNotification(name, "spike", "firing");
      expect(note.alert.annotations["description"]).toMatch(/spend [\d.]+m?s per second/);

      const liftedAt = Date.now() / 1000;
      await spikeVol.setLimits({ writeIops: 0 });
      const resolved = await expectNotification(name, "spike", "resolved", 120_000);
      expect(await findAlert(name, "spike")).toBeUndefined();
      observed[name] = {
        tightCapWriteIops: TIGHT_WRITE_IOPS,
        calmWaitBefore: round(before, 4),
        baselineAvg: round(avg, 4),
        baselineStddev: round(sd, 4),
        bar: round(bar, 4),
        valueAtFiring: round(Number(f.alert.value), 4),
        firstValueAboveBar: round(risen, 4),
        capToAboveBarS: round(risenAt - cappedAt, 1),
        capToPendingS: round(f.activeAt - cappedAt, 1),
        pendingToFiringS: round(held, 1),
        capToFiringS: round(f.firedAt - cappedAt, 1),
        firingToReceiverS: round(note.receivedAt / 1000 - f.firedAt, 1),
        liftToResolvedAtReceiverS: round(resolved.receivedAt / 1000 - liftedAt, 1),
        missedEvaluations: f.missed,
      };
    } catch (err) {
      spikeFailed(err);
      throw err;
    } finally {
      spikeDone();
    }
  }, 420_000);

  it.concurrent("the shipped spike expression (30 min restart guard) stays silent on the same data, for that reason only", async ({
    expect,
  }) => {
    const at = await spikeFiring;
    const shipped = alertByName("UntornDoublewriteWaitSpike").expr;
    expect(scaleExpr(shipped)).toBe(scaledAlerts.find((a) => a.name === "UntornDoublewriteWaitSpike")!.expr);
    expect(await prom.query(shipped, at)).toEqual([]);
    // The same expression with only the uptime guard lowered fires at that moment.
    const guarded = shipped.replace(
      ` > ${thresholds.waitSpike.minUptime.value})`,
      ` > ${SCALED_MIN_UPTIME_S})`,
    );
    expect(guarded).not.toBe(shipped);
    const uptime = (await value(`untorn_mysql_uptime_seconds{instance="spike"}`))!;
    expect(uptime).toBeLessThan(thresholds.waitSpike.minUptime.value);
    // The expression alone, at one instant, without the rule's `for:`: the spike must match. The calm
    // twin can cross the bar for one evaluation when the shared CPU stalls its flushes (seen once at
    // load 5 while other builds ran); that it never holds there long enough to alert is "the calm twin
    // never alerts" below.
    expect((await prom.query(scaleExpr(shipped), at)).map((s) => s.metric["instance"])).toContain("spike");
  }, 420_000);

  it.concurrent("the Grafana-managed rule's query and condition, evaluated against the same Prometheus (Grafana itself is not running), decide the same", async ({
    expect,
  }) => {
    const at = await spikeFiring;
    const prov = parse(await readFile(SHIPPED_GRAFANA, "utf8")) as { groups: { rules: GrafanaRule[] }[] };
    const rule = prov.groups.flatMap((g) => g.rules).find((r) => r.title === "UntornDoublewriteWaitSpike")!;
    expect(rule.for).toBe(alertByName(rule.title).for);
    const grafana = await evaluateGrafanaRule(rule, DATASOURCE_UID, prom.query, {
      now: at,
      rewriteExpr: scaleExpr,
    });
    // Grafana's query is the Prometheus rule's expression, scaled the same way.
    expect(grafana.expr).toBe(scaledAlerts.find((a) => a.name === rule.title)!.expr);
    const prometheus = await prom.query(grafana.expr, at);
    expect(grafana.state).toBe("Alerting");
    expect(grafana.alerting.map((s) => s.labels["instance"])).toEqual(
      prometheus.map((s) => s.metric["instance"]),
    );
    // At that instant (no `for:` in an instant evaluation): see the test above for the calm twin.
    expect(grafana.alerting.map((s) => s.labels["instance"])).toContain("spike");
    // Unscaled, as provisioned: the 30 min restart guard keeps Grafana Normal too (noDataState OK).
    const asShipped = await evaluateGrafanaRule(rule, DATASOURCE_UID, prom.query, { now: at });
    expect(asShipped.state).toBe("Normal");
    observed["UntornDoublewriteWaitSpike (Grafana-managed)"] = {
      state: grafana.state,
      valueOfA: round(grafana.alerting[0]!.value, 4),
    };
  }, 420_000);

  it.concurrent("the calm twin never alerts", async ({ expect }) => {
    await spikeOver;
    const window = `${Math.ceil(Date.now() / 1000 - promStartedAt) + 5}s`;
    // Never firing and never notified. Going pending for a few evaluations is what `for` is there to
    // absorb (the shared machine's load moves a calm server's wait too); it is reported, not failed.
    expect(await raw(`ALERTS{instance="twin", alertstate="firing"}[${window}]`)).toEqual([]);
    const pending = await raw(`ALERTS{instance="twin", alertstate="pending"}[${window}]`);
    expect(
      receiver.notifications.flatMap((n) => n.alerts).filter((a) => a.labels["instance"] === "twin"),
    ).toEqual([]);
    // It had a baseline and data all along, so "never alerts" is not "could not alert".
    const waits = (await raw(`${DOUBLEWRITE_WAIT_RECORD}{instance="twin"}[${window}]`))[0]?.values ?? [];
    expect(waits.length).toBeGreaterThan(30);
    expect(await value(`${DOUBLEWRITE_WAIT_BASELINE_AVG}{instance="twin"}`)).toBeDefined();
    observed["twin"] = {
      calmMean: round(calm["twin"]!.mean, 4),
      calmStddev: round(calm["twin"]!.sd, 4),
      maxWaitDuringRun: round(Math.max(...waits.map(([, v]) => Number(v))), 4),
      pendingEvaluations: pending.reduce((n, s) => n + s.values.length, 0),
    };
  }, 420_000);

  it.concurrent("UntornDoublewriteOffUnverifiedStorage, then UntornDatabaseUnreachable (server stopped), then UntornExporterDown (exporter stopped)", async ({
    expect,
  }) => {
    const off = "UntornDoublewriteOffUnverifiedStorage";
    const f1 = await waitFiring(off, "dwoff", 120_000);
    const held1 = expectForWindow(off, f1);
    const n1 = await expectNotification(off, "dwoff", "firing");
    expect(n1.alert.labels["mode"]).toBe("off");
    const [ps] = await dwoffDb.query<{ v: number }>("SELECT @@innodb_page_size AS v");
    expect(Number(f1.alert.value)).toBe(Number(ps?.v));
    observed[off] = {
      valueAtFiring: Number(f1.alert.value),
      mode: f1.alert.labels["mode"],
      scrapeStartToFiringS: round(f1.firedAt - promStartedAt, 1),
      pendingToFiringS: round(held1, 1),
      firingToReceiverS: round(n1.receivedAt / 1000 - f1.firedAt, 1),
    };

    const down = "UntornDatabaseUnreachable";
    const stoppedAt = Date.now() / 1000;
    await dwoffDb.stop();
    const f2 = await waitFiring(down, "dwoff", 120_000);
    const held2 = expectForWindow(down, f2);
    const n2 = await expectNotification(down, "dwoff", "firing");
    expect(Number(f2.alert.value)).toBeGreaterThan(0);
    expect(Number(f2.alert.value)).toBeLessThanOrEqual(1);
    // The doublewrite alert has no data without the server and resolves.
    await expectNotification(off, "dwoff", "resolved", 60_000);
    observed[down] = {
      valueAtFiring: round(Number(f2.alert.value), 3),
      faultToPendingS: round(f2.activeAt - stoppedAt, 1),
      pendingToFiringS: round(held2, 1),
      faultToFiringS: round(f2.firedAt - stoppedAt, 1),
      firingToReceiverS: round(n2.receivedAt / 1000 - f2.firedAt, 1),
    };

    const gone = "UntornExporterDown";
    const killedAt = Date.now() / 1000;
    await dwoffExporter.process.stop(5000);
    const f3 = await waitFiring(gone, "dwoff", 120_000);
    const held3 = expectForWindow(gone, f3);
    const n3 = await expectNotification(gone, "dwoff", "firing");
    expect(n3.alert.labels["job"]).toBe("untorn-dwoff");
    expect(Number(f3.alert.value)).toBeGreaterThanOrEqual(scaledFor(gone) / EVAL_S - 1);
    observed[gone] = {
      valueAtFiring: Number(f3.alert.value),
      faultToPendingS: round(f3.activeAt - killedAt, 1),
      pendingToFiringS: round(held3, 1),
      faultToFiringS: round(f3.firedAt - killedAt, 1),
      firingToReceiverS: round(n3.receivedAt / 1000 - f3.firedAt, 1),
    };
  }, 420_000);

  it.concurrent("UntornCollectorFailing: revoking the exporter's performance_schema grant fails its collectors while the server is up", async ({
    expect,
  }) => {
    const name = "UntornCollectorFailing";
    await prom.waitForSeries(
      'untorn_exporter_collector_success{instance="grants", collector="perf_schema.file_io"} == 1',
      60_000,
    );
    expect(await findAlert(name, "grants")).toBeUndefined();
    const revokedAt = Date.now() / 1000;
    await twinDb.query("REVOKE SELECT ON performance_schema.* FROM 'exporter'@'localhost'");
    const f = await waitFiring(name, "grants", 120_000);
    const held = expectForWindow(name, f);
    const n = await expectNotification(name, "grants", "firing");
    expect(f.alert.labels["collector"]).toMatch(/^perf_schema\./);
    expect(n.alert.labels["collector"]).toMatch(/^perf_schema\./);
    expect(await value('untorn_mysql_up{instance="grants"}')).toBe(1);
    expect(Number(f.alert.value)).toBeLessThan(thresholds.collector.successRatio.value);
    observed[name] = {
      collector: f.alert.labels["collector"],
      valueAtFiring: round(Number(f.alert.value), 3),
      faultToPendingS: round(f.activeAt - revokedAt, 1),
      pendingToFiringS: round(held, 1),
      faultToFiringS: round(f.firedAt - revokedAt, 1),
      firingToReceiverS: round(n.receivedAt / 1000 - f.firedAt, 1),
    };
  }, 420_000);

  it("the receiver only ever got well-formed notifications", () => {
    expect(receiver.rejected).toEqual([]);
    expect(receiver.notifications.length).toBeGreaterThan(0);
  });
});
