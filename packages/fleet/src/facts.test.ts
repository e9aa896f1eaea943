import { RULES_PROBE_LABEL } from "@untorn/catalog/rules";
import { STAT_LABEL } from "@untorn/catalog/window-stats";
import { describe, expect, it } from "vitest";
import type { PromQueryApi } from "./api.js";
import { buildFleetFacts, instanceFacts } from "./facts.js";
import { mergeMetadata } from "./metadata.js";
import { factQueries, planOptions } from "./plan.js";
import { ReplayApi } from "./replay.js";
import { type FakeInstance, fakeReplay } from "./testing/fake-api.js";
import {
  DB_DOWN,
  DB_IDLE,
  DB_OFF_LOADED,
  DB_ON_LOADED,
  FIXTURE_FLEET,
  MYSQL_FALLBACK_ONLY,
} from "./testing/fixtures.js";

// Facts built from a fake replay: answers shaped like Prometheus' to the plan's exact queries, with the
// values of testing/fixtures.ts (recorded-looking, not recorded). The real PromQL is exercised against a
// real prometheus in facts.prometheus.live.test.ts.
const AT = 1_790_000_000;
const api = (xs: readonly FakeInstance[] = FIXTURE_FLEET, window = "1h") =>
  new ReplayApi(fakeReplay(xs, { window, times: [AT - 300, AT] }));

describe("buildFleetFacts", () => {
  it("fills every instance's facts from the aggregate answers", async () => {
    const r = await buildFleetFacts(api(), { window: "1h", at: AT });
    expect(r.facts.map((f) => f.identity.instance)).toEqual([
      "db-idle:9105",
      "db-off:9105",
      "db-on:9105",
      "mysql-legacy:9104",
    ]);
    const on = r.facts.find((f) => f.identity.instance === "db-on:9105")!;
    expect(on.server).toEqual({ flavor: "mariadb", version: "10.11.19-MariaDB-0+deb12u1" });
    expect(on.platform?.managed).toBe("none");
    expect(on.config).toMatchObject({
      doublewrite: "on",
      doublewriteRaw: "ON",
      pageSizeBytes: 16384,
      flushMethod: "O_DIRECT",
      bufferPoolSizeBytes: 8388608,
      flushLogAtTrxCommit: 2,
      perfSchemaEnabled: true,
      useAtomicWrites: true,
    });
    expect(on.storage).toMatchObject({
      device: "vda1",
      disks: ["vda"],
      layers: ["partition"],
      fsType: "ext4",
      mountOptions: ["rw", "relatime"],
      rotational: false,
      writeCacheVolatile: true,
      atomicWrite: { attributesPresent: false },
    });
    expect(on.workload).toMatchObject({
      windowSeconds: 3600,
      stepSeconds: 120,
      end: new Date(AT * 1000).toISOString(),
      restarts: 0,
      gapRatio: 0,
    });
    expect(on.workload?.rates?.dblwrPagesWritten).toEqual({ avg: 1700, p95: 1700 * 1.3 });
    expect(on.workload?.rates?.rowsRead?.avg).toBeCloseTo(320 * 14);
    expect(on.workload?.device?.utilisationRatio).toEqual({ avg: 0.92, p95: 1 });
    expect(r.exporters["db-on:9105"]).toEqual({ untorn: true, mysqldExporter: false });
  });

  it("computes the statistics asked for", async () => {
    const all = ["avg", "p50", "p95", "p99", "max"] as const;
    const replay = new ReplayApi(fakeReplay([DB_ON_LOADED], { window: "1h", times: [AT], stats: all }));
    const r = await buildFleetFacts(replay, { window: "1h", at: AT, stats: all });
    // The fixture has no p50 / p99 values: absent statistics stay absent.
    expect(r.facts[0]!.workload?.rates?.dblwrPagesWritten).toEqual({
      avg: 1700,
      p95: 1700 * 1.3,
      max: 1700 * 1.6,
    });
    await expect(buildFleetFacts(replay, { window: "1h", at: AT, stats: ["p95"] })).rejects.toThrow(
      /must include avg/,
    );
  });

  it("keeps only instrumented file classes (MariaDB: doublewrite I/O sits in system_tablespace)", async () => {
    const r = await buildFleetFacts(api(), { window: "1h", at: AT });
    const on = r.facts.find((f) => f.identity.instance === "db-on:9105")!;
    expect(Object.keys(on.workload?.fileIo ?? {}).sort()).toEqual(["data", "system_tablespace"]);
    expect(on.workload?.fileIo?.system_tablespace?.writeBytesPerSecond?.avg).toBe(1700 * 16384 + 32768);
  });

  it("leaves missing data missing, never zero", async () => {
    const r = await buildFleetFacts(api(), { window: "1h", at: AT });
    const legacy = r.facts.find((f) => f.identity.instance === "mysql-legacy:9104")!;
    expect(legacy.workload?.rates?.handlerCommits).toBeUndefined();
    expect(legacy.workload?.device?.utilisationRatio).toBeUndefined();
    expect(legacy.storage).toBeUndefined();
    expect(r.missing["mysql-legacy:9104"]).toEqual(
      expect.arrayContaining([
        "workload.rates.handlerCommits",
        "workload.device.utilisationRatio",
        "storage.device",
        "config.doublewriteRaw",
      ]),
    );
    expect(r.missing["mysql-legacy:9104"]).not.toContain("workload.rates.dblwrPagesWritten");
    // A measured 0 is kept as 0.
    const off = r.facts.find((f) => f.identity.instance === "db-off:9105")!;
    expect(off.workload?.rates?.dblwrPagesWritten?.avg).toBe(0);
    expect(r.missing["db-off:9105"]).not.toContain("workload.rates.dblwrPagesWritten");
  });

  it("reads mysqld_exporter-only instances through the catalog's fallback forms", async () => {
    const r = await buildFleetFacts(api(), { window: "1h", at: AT });
    const legacy = r.facts.find((f) => f.identity.instance === "mysql-legacy:9104")!;
    expect(legacy.server).toEqual({ flavor: "mysql", version: "8.0.35" });
    expect(legacy.platform).toBeUndefined(); // managed "unknown" from the fallback is not a fact
    expect(legacy.config.doublewritePages).toBe(4);
    expect(legacy.workload?.fileIo?.doublewrite?.writesPerSecond?.avg).toBe(105);
    expect(r.exporters["mysql-legacy:9104"]).toEqual({ untorn: false, mysqldExporter: true });
  });

  it("skips instances without a server version and says why", async () => {
    const r = await buildFleetFacts(api(), { window: "1h", at: AT });
    expect(r.skipped).toEqual([
      { instance: "db-down:9105", reason: "the exporter cannot reach the database (mysql_up 0)" },
    ]);
  });

  it("drops mutex and flush-wait rates where the instrument is off", async () => {
    const r = await buildFleetFacts(api(), { window: "1h", at: AT });
    const on = r.facts.find((f) => f.identity.instance === "db-on:9105")!;
    expect(on.workload?.rates?.dblwrMutexWaitSeconds).toBeUndefined();
    const instrumented: FakeInstance = {
      ...DB_ON_LOADED,
      numbers: { ...DB_ON_LOADED.numbers, dblwrMutexInstrumented: 1 },
      windowed: { ...DB_ON_LOADED.windowed, "rates.dblwrMutexWaitSeconds": 0.25 },
    };
    const r2 = await buildFleetFacts(api([instrumented]), { window: "1h", at: AT });
    expect(r2.facts[0]!.workload?.rates?.dblwrMutexWaitSeconds?.avg).toBe(0.25);
  });

  it("counts restarts and the share of steps without samples", async () => {
    const flaky: FakeInstance = { ...DB_IDLE, instance: "db-flaky:9105", restarts: 2, sampledSteps: 25 };
    const r = await buildFleetFacts(api([flaky]), { window: "1h", at: AT });
    const w = r.facts[0]!.workload!;
    expect(w.restarts).toBe(2);
    // 1 h at 120 s steps = 31 evaluation points, 25 with samples.
    expect(w.gapRatio).toBeCloseTo(1 - 25 / 31);
  });

  it("reads a server started inside the window over the time it was observed, on Prometheus' rate()", async () => {
    // 40 min of a 1 h window: 21 of 31 steps sampled, uptime 2400 s, no restart.
    const young: FakeInstance = {
      ...DB_ON_LOADED,
      instance: "db-young:9105",
      numbers: { ...DB_ON_LOADED.numbers, uptimeSeconds: 2400 },
      sampledSteps: 21,
    };
    const restarted: FakeInstance = { ...young, instance: "db-restarted:9105", restarts: 1 };
    const old: FakeInstance = { ...young, instance: "db-old:9105", numbers: DB_ON_LOADED.numbers };
    const fleet = [young, restarted, old];
    const of = (r: Awaited<ReturnType<typeof buildFleetFacts>>, i: string) =>
      r.facts.find((f) => f.identity.instance === i)!.workload!;
    const onProm = await buildFleetFacts(api(fleet), { window: "1h", at: AT });
    // A replay recorded from VictoriaMetrics says so (meta.backend), as a live client does.
    const fake = fakeReplay(fleet, { window: "1h", times: [AT - 300, AT] });
    const onVm = await buildFleetFacts(
      new ReplayApi({ ...fake, meta: { ...fake.meta, backend: "victoriametrics" } }),
      { window: "1h", at: AT },
    );
    const y = of(onProm, "db-young:9105");
    expect(y.observedSeconds).toBe(2400);
    expect(y.gapRatio).toBeCloseTo(1 / 3);
    // The window average of a rate is scaled by window ÷ observed time; per-step statistics and gauges not.
    expect(y.rates?.dblwrPagesWritten).toEqual({ avg: 1700 * 1.5, p95: 1700 * 1.3 });
    expect(y.gauges).toEqual(of(onProm, "db-old:9105").gauges);
    expect(y.device?.utilisationRatio?.avg).toBeCloseTo(0.92 * 1.5);
    // MetricsQL's rate() already divides by the covered time.
    expect(of(onVm, "db-young:9105").observedSeconds).toBe(2400);
    expect(of(onVm, "db-young:9105").rates?.dblwrPagesWritten).toEqual({ avg: 1700, p95: 1700 * 1.3 });
    // A restarted server's series existed before the window; an old one's gap is not a young series.
    for (const i of ["db-restarted:9105", "db-old:9105"]) {
      expect(of(onProm, i).observedSeconds).toBeUndefined();
      expect(of(onProm, i).rates?.dblwrPagesWritten).toEqual({ avg: 1700, p95: 1700 * 1.3 });
    }
  });

  it("drops values the schema refuses, with a warning, and keeps the instance", async () => {
    const odd: FakeInstance = {
      ...DB_IDLE,
      instance: "db-odd:9105",
      numbers: { ...DB_IDLE.numbers, "config.pageSizeBytes": 12345, "config.flushLogAtTrxCommit": 7 },
      windowed: { ...DB_IDLE.windowed, "rates.dataFsyncs": { avg: Number.NaN }, "rates.logWrites": -3 },
    };
    const r = await buildFleetFacts(api([odd]), { window: "1h", at: AT });
    const f = r.facts[0]!;
    expect(f.config.pageSizeBytes).toBeUndefined();
    expect(f.config.flushLogAtTrxCommit).toBeUndefined();
    expect(f.workload?.rates?.dataFsyncs).toBeUndefined();
    expect(f.workload?.rates?.logWrites).toBeUndefined();
    expect(r.warnings.join("\n")).toMatch(/pageSizeBytes: dropped 12345/);
    expect(r.warnings.join("\n")).toMatch(/dataFsyncs: dropped avg = NaN/);
    expect(r.missing["db-odd:9105"]).toContain("config.pageSizeBytes");
  });

  it("reads role and cluster from the servers and the scrape labels; declared metadata overrides them", async () => {
    const on = FIXTURE_FLEET.find((x) => x.instance === "db-on:9105")!;
    const withTopology = FIXTURE_FLEET.map((x) =>
      x === on ? { ...x, info: { ...x.info, topology: { role: "replica", cluster: "orders" } } } : x,
    );
    const r = await buildFleetFacts(api(withTopology), { window: "1h", at: AT });
    const facts = (i: string) => r.facts.find((f) => f.identity.instance === i)!;
    expect(facts("db-on:9105").identity).toMatchObject({ role: "replica", cluster: "orders" });
    expect(facts("db-off:9105").identity.role).toBeUndefined();
    const declared = mergeMetadata(facts("db-on:9105"), { role: "primary", cluster: "orders-eu" });
    expect(declared.facts.identity).toMatchObject({ role: "primary", cluster: "orders-eu" });
  });

  it("drops a role outside the vocabulary and an empty cluster label", async () => {
    const xs = FIXTURE_FLEET.map((x) =>
      x.instance === "db-on:9105"
        ? { ...x, info: { ...x.info, topology: { role: "leader", cluster: "" } } }
        : x,
    );
    const r = await buildFleetFacts(api(xs), { window: "1h", at: AT });
    const on = r.facts.find((f) => f.identity.instance === "db-on:9105")!;
    expect(on.identity.role).toBeUndefined();
    expect(on.identity.cluster).toBeUndefined();
  });

  it("reads a recording made before the topology query without one, and fails on any other miss", async () => {
    const file = fakeReplay(FIXTURE_FLEET, { window: "1h", times: [AT - 300, AT] });
    const topology = factQueries(planOptions({ window: "1h" })).find((q) => q.id === "topology")!;
    const old = { ...file, instant: file.instant.filter((e) => e.query !== topology.expr) };
    const r = await buildFleetFacts(new ReplayApi(old), { window: "1h", at: AT });
    expect(r.facts).toHaveLength(4);
    expect(r.facts.every((f) => f.identity.role === undefined)).toBe(true);
    const server = factQueries(planOptions({ window: "1h" })).find((q) => q.id === "server")!;
    const broken = { ...file, instant: file.instant.filter((e) => e.query !== server.expr) };
    await expect(buildFleetFacts(new ReplayApi(broken), { window: "1h", at: AT })).rejects.toThrow(
      /query not in the replay file/,
    );
  });

  it("makes the same number of requests for 3 and for 300 instances", async () => {
    const small = await buildFleetFacts(api([DB_ON_LOADED, DB_OFF_LOADED, DB_IDLE]), {
      window: "1h",
      at: AT,
    });
    const many = Array.from({ length: 300 }, (_, i) => ({ ...DB_ON_LOADED, instance: `db-${i}:9105` }));
    const large = await buildFleetFacts(api(many), { window: "1h", at: AT });
    expect(large.facts).toHaveLength(300);
    expect(large.queries).toBe(small.queries);
    // The plan, plus the one probe for loaded recording rules (none here: the raw plan is read).
    expect(small.queries).toBe(factQueries(planOptions({ window: "1h" })).length + 1);
    expect(small.recordingRules.used).toBe(false);
    expect(small.recordingRules.fallbackReason).toMatch(/recording rules are not loaded/);
  });

  it("evaluates every query at one time, the api's now by default", async () => {
    const times: number[] = [];
    const inner = api();
    const spy: PromQueryApi = {
      queryVector: (e, o) => {
        times.push(o.time);
        return inner.queryVector(e, o);
      },
      queryRange: (e, o) => inner.queryRange(e, o),
      defaultTime: () => inner.defaultTime(),
    };
    await buildFleetFacts(spy, { window: "1h" });
    expect(new Set(times)).toEqual(new Set([AT]));
  });

  it("asks the backend first, so now is read as far back as VictoriaMetrics hides samples", async () => {
    const times: number[] = [];
    const inner = api();
    let delay = 0;
    const vm: PromQueryApi = {
      queryVector: (e, o) => {
        times.push(o.time);
        return inner.queryVector(e, o);
      },
      queryRange: (e, o) => inner.queryRange(e, o),
      defaultTime: () => inner.defaultTime() - delay,
      backend: async () => {
        delay = 30;
        return {
          queryDelaySeconds: 30,
          note: 'VictoriaMetrics hides the newest 30 s: "now" is read 30 s ago',
        };
      },
    };
    const f = await buildFleetFacts(vm, { window: "1h" });
    expect(f.at).toBe(AT - 30);
    expect(new Set(times)).toEqual(new Set([AT - 30]));
    expect(f.clockNote).toMatch(/newest 30 s/);
    // A time the caller gives is used as given; the backend is still asked whose rate() it reads, and a
    // failure to tell is then no clock note.
    delay = 0;
    const given = await buildFleetFacts(
      { ...vm, backend: () => Promise.reject(new Error("buildinfo refused")) },
      {
        window: "1h",
        at: AT,
      },
    );
    expect(given.at).toBe(AT);
    expect(given.clockNote).toBeNull();
  });

  it("says so when the backend cannot be told, and reads now from the wall clock", async () => {
    const inner = api();
    const f = await buildFleetFacts(
      {
        queryVector: (e, o) => inner.queryVector(e, o),
        queryRange: (e, o) => inner.queryRange(e, o),
        defaultTime: () => inner.defaultTime(),
        backend: () => Promise.reject(new Error("buildinfo: 403 Forbidden")),
      },
      { window: "1h" },
    );
    expect(f.at).toBe(AT);
    expect(f.clockNote).toMatch(/could not tell which backend answers \(buildinfo: 403 Forbidden\)/);
  });

  it("reports progress per query", async () => {
    const seen: [number, number][] = [];
    await buildFleetFacts(api(), { window: "1h", at: AT, onProgress: (d, t) => seen.push([d, t]) });
    const total = factQueries(planOptions({ window: "1h" })).length + 1; // + the recording rules probe
    expect(seen).toHaveLength(total - 1);
    expect(seen.at(-1)).toEqual([total, total]);
  });
});

describe("instanceFacts", () => {
  it("narrows every query to the instance and returns its facts", async () => {
    const seen: string[] = [];
    const inner = api();
    const spy: PromQueryApi = {
      queryVector: (e, o) => {
        seen.push(e);
        return inner.queryVector(e, o);
      },
      queryRange: (e, o) => inner.queryRange(e, o),
    };
    const r = await instanceFacts(spy, "db-off:9105", { window: "1h", at: AT });
    expect(r.instance?.config.doublewrite).toBe("off");
    expect(r.facts).toHaveLength(1);
    expect(seen.every((q) => q.includes('instance="db-off:9105"'))).toBe(true);
  });

  it("returns null facts for an unknown instance and the reason for a skipped one", async () => {
    const empty: PromQueryApi = {
      queryVector: async () => ({ data: [], warnings: [] }),
      queryRange: async () => ({ data: [], warnings: [] }),
    };
    const none = await instanceFacts(empty, "nope:1", { window: "1h", at: AT });
    expect(none.instance).toBeNull();
    expect(none.facts).toEqual([]);
    const down = await instanceFacts(api([DB_DOWN]), "db-down:9105", { window: "1h", at: AT });
    expect(down.instance).toBeNull();
    expect(down.skipped[0]?.reason).toMatch(/cannot reach/);
  });

  it("fact values equal the fleet's for the same instance", async () => {
    const fleet = await buildFleetFacts(api(), { window: "1h", at: AT });
    const one = await instanceFacts(api(), "mysql-legacy:9104", { window: "1h", at: AT });
    expect(one.instance).toEqual(
      fleet.facts.find((f) => f.identity.instance === MYSQL_FALLBACK_ONLY.instance),
    );
  });
});

describe("the recording rules probe: which tier the window statistics are read from", () => {
  /** An api whose only answer is the probe's: `counts` by probe term; every other query is empty. */
  const probing = (counts: Partial<Record<"now" | "start" | "window", number>>) => {
    const sent: string[] = [];
    const a: PromQueryApi = {
      queryVector: async (expr) => {
        sent.push(expr);
        const data = expr.includes(RULES_PROBE_LABEL)
          ? Object.entries(counts).map(([k, value]) => ({
              labels: { [RULES_PROBE_LABEL]: k },
              value,
              timestamp: AT,
            }))
          : [];
        return { data, warnings: [] };
      },
      queryRange: async () => ({ data: [], warnings: [] }),
    };
    return { api: a, sent };
  };
  const windowedSent = (sent: readonly string[]) => sent.filter((q) => q.includes(`"${STAT_LABEL}"`));
  const all = { now: 3, start: 3, window: 3 };

  it("reads untorn.window's statistics when the probe finds them and the rates reach the window's start", async () => {
    const { api: a, sent } = probing(all);
    const r = await buildFleetFacts(a, { window: "1h", at: AT });
    expect(r.recordingRules).toMatchObject({ used: true, fallbackReason: null, tier: "window" });
    expect(r.recordingRules.windowNote).toMatch(/as of the untorn.window rules' last evaluation, at most 1m/);
    expect(windowedSent(sent).every((q) => !q.includes("_over_time"))).toBe(true);
    expect(sent[0]).toContain('"window"');
    // One probe, then the plan: the same count as the raw plan's.
    expect(r.queries).toBe(factQueries(planOptions({ window: "1h" })).length + 1);
  });

  it("falls back to the per-instance rates, and says why, without the group's series", async () => {
    const { api: a, sent } = probing({ now: 3, start: 3 });
    const r = await buildFleetFacts(a, { window: "1h", at: AT });
    expect(r.recordingRules).toMatchObject({ used: true, fallbackReason: null, tier: "rates" });
    expect(r.recordingRules.windowNote).toMatch(/untorn.window rules are not loaded/);
    expect(windowedSent(sent).every((q) => q.includes("quantile_over_time(0.95, instance:untorn_"))).toBe(
      true,
    );
  });

  it("needs the rates to reach back over the window too: raw series when they do not", async () => {
    const { api: a } = probing({ now: 3, window: 3 });
    const r = await buildFleetFacts(a, { window: "1h", at: AT });
    expect(r.recordingRules).toMatchObject({ used: false, tier: "raw", windowNote: null });
    expect(r.recordingRules.fallbackReason).toMatch(/do not reach back to the window's start/);
  });

  it("reads the per-instance rates for another window, other statistics, or when asked to", async () => {
    for (const [o, why] of [
      [{ window: "30m" }, /a 30m window/],
      [{ window: "1h", stats: ["avg", "p99"] as const }, /p99 asked/],
      [{ window: "1h", windowRules: false }, /untorn.window not requested/],
    ] as const) {
      const { api: a } = probing(all);
      const r = await buildFleetFacts(a, { ...o, at: AT });
      expect(r.recordingRules.tier).toBe("rates");
      expect(r.recordingRules.windowNote).toMatch(why);
    }
    const { api: a } = probing(all);
    const r = await buildFleetFacts(a, { window: "1h", at: AT, selector: { cluster: "prod" } });
    expect(r.recordingRules).toMatchObject({ used: false, tier: "raw" });
  });
});
