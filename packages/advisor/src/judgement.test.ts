// What the advisor says to a DBA who writes InstanceFacts by hand: redo-bound instances, inputs it
// ignores or overrides, managed platforms, build version strings, version-true advice, utilisation-only
// load evidence, efficiency-only gains and the errors of invalid input.
import { describe, expect, it } from "vitest";
import { advise } from "./advise.js";
import { safeParseInstanceFacts } from "./facts.js";
import {
  alibaba,
  atomicNvme,
  facts,
  load,
  mariadb1011,
  merge,
  mysql57,
  mysql8035,
  percona57,
  st,
  virtio,
} from "./fixtures/build.js";
import { scenarios } from "./fixtures/scenarios.js";

const moderate = () =>
  load({ flushed: 200, doublewrite: true, txn: 300, device: { util: 0.25, writeLatency: 0.0006 } });

describe("redo log waits", () => {
  const redoBound = facts("redo", mysql8035, virtio, moderate(), {
    workload: { rates: { logWaits: st(40) } },
  });

  it("are evidence of a write-bound instance", () => {
    const a = advise(redoBound);
    const e = a.verdict.evidence.find((x) => x.signal === "redo-log-waits");
    expect(e?.state).toBe("strong");
    expect(e?.value).toBe(40);
    expect(a.verdict.verdict).not.toBe("not-write-bound");
  });

  it("say that the redo log, not doublewrite, is the bottleneck", () => {
    const a = advise(redoBound);
    expect(a.verdict.context.join("\n")).toMatch(/redo log.*not doublewrite/i);
    expect(a.verdict.context.join("\n")).toMatch(/innodb_log_buffer_size/);
  });

  it("stay quiet at zero", () => {
    const a = advise(facts("calm", mysql8035, virtio, moderate()));
    expect(a.verdict.evidence.find((x) => x.signal === "redo-log-waits")?.state).toBe("clear");
    expect(a.verdict.context.join("\n")).not.toMatch(/redo log/i);
  });
});

describe("input warnings: contradicted, ignored or overridden facts are said", () => {
  it("warns when an atomic-write unit is ignored for want of attributesPresent", () => {
    const f = facts(
      "aw",
      mysql8035,
      merge(atomicNvme, {
        storage: { atomicWrite: { attributesPresent: null, unitMaxBytes: 16384 } },
      }),
      moderate(),
    );
    const a = advise(f);
    const w = a.warnings.find((x) => x.path === "storage.atomicWrite.unitMaxBytes");
    expect(w?.code).toBe("ignored");
    expect(w?.message).toMatch(/attributesPresent/);
  });

  it("warns when the platform guarantee overrides the device's own atomic unit", () => {
    const f = facts(
      "twp",
      mysql8035,
      merge(atomicNvme, {
        storage: { tornWriteProtection: { provider: "other", unitBytes: 16384, source: "declared" } },
      }),
      moderate(),
    );
    expect(advise(f).warnings.find((x) => x.path === "storage.atomicWrite")?.code).toBe("overridden");
  });

  it("warns when the version string contradicts the flavor", () => {
    const f = facts("flavor", mysql8035, { server: { flavor: "mysql", version: "10.6.16-MariaDB-log" } });
    const w = advise(f).warnings.find((x) => x.path === "server.flavor");
    expect(w?.code).toBe("contradicted");
    expect(w?.message).toMatch(/MariaDB/);
  });

  it("warns about settings its version does not have", () => {
    const f = facts("pages", mysql57, { config: { doublewritePages: 64 } });
    const w = advise(f).warnings.find((x) => x.path === "config.doublewritePages");
    expect(w?.code).toBe("ignored");
    expect(w?.message).toMatch(/8\.0\.20/);
  });

  it("has no warnings for consistent facts", () => {
    expect(advise(facts("ok", mysql8035, atomicNvme, moderate())).warnings).toEqual([]);
  });
});

describe("safety gate: an atomic unit of 0", () => {
  it("is unsafe without the page size too", () => {
    const f = facts("zero", mysql8035, virtio, { config: { pageSizeBytes: null } });
    const gate = advise(f).safetyGate;
    expect(gate.status).toBe("unsafe");
    expect(gate.checks.find((c) => c.id === "atomic-unit")?.status).toBe("fail");
  });
});

describe("managed platforms: Alibaba like RDS", () => {
  const off = { config: { doublewrite: "off", doublewriteRaw: "OFF" } };

  it("reads doublewrite OFF on ApsaraDB RDS as 16K atomic write when the feature flag was not given", () => {
    const f = facts("ali", mysql8035, merge(alibaba, { platform: { alibaba16kAtomicWrite: null } }), off);
    const a = advise(f);
    expect(a.safetyGate.status).toBe("verified");
    expect(a.findings.filter((x) => x.severity === "critical")).toEqual([]);
  });

  it("reports the contradiction when the flag says the feature is off", () => {
    const f = facts("ali-off", mysql8035, alibaba, off);
    const a = advise(f);
    expect(a.safetyGate.status).not.toBe("verified");
    expect(a.warnings.find((x) => x.path === "platform.alibaba16kAtomicWrite")?.code).toBe("contradicted");
  });
});

describe("version strings of managed and vendor builds", () => {
  it.each([
    ["8.0.mysql_aurora.3.05.2", "mysql", "8.0.32"],
    ["5.7.mysql_aurora.2.11.2", "mysql", "5.7.12"],
    ["8.0.36-28", "percona", "8.0.36"],
    ["5.7.44-48-log", "percona", "5.7.44"],
    ["8.0.35-google", "mysql", "8.0.35"],
    ["10.6.16-MariaDB-log", "mariadb", "10.6.16"],
  ])("accepts %s", (version, flavor, parsed) => {
    const r = safeParseInstanceFacts({
      schemaVersion: 1,
      identity: { instance: "x" },
      server: { flavor, version },
      config: {},
    });
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(advise(r.data).server.version).toBe(parsed);
  });

  it("still rejects a string with no version in it", () => {
    const r = safeParseInstanceFacts({
      schemaVersion: 1,
      identity: { instance: "x" },
      server: { flavor: "mysql", version: "latest" },
      config: {},
    });
    expect(r.success).toBe(false);
  });
});

describe("every line of advice exists on the server's version", () => {
  // Settings named in action steps and snippets, with the versions that have them.
  const settings: { name: RegExp; has: (a: ReturnType<typeof advise>) => boolean }[] = [
    { name: /innodb_doublewrite_pages/, has: (a) => a.server.capabilities.doublewritePagesVariable },
    { name: /innodb_doublewrite_files/, has: (a) => a.server.capabilities.doublewritePagesVariable },
    { name: /DETECT_ONLY/, has: (a) => a.server.capabilities.detectOnly },
    { name: /innodb_data_file_buffering/, has: (a) => a.server.capabilities.dataFileBufferingVariable },
  ];
  const cases = [
    ...scenarios.map((s) => ({ name: s.name, facts: s.facts })),
    {
      name: "mysql 5.7 write-bound hdd",
      facts: facts(
        "57",
        mysql57,
        virtio,
        load({
          flushed: 2500,
          doublewrite: true,
          txn: 1500,
          waitFree: 4,
          device: { util: 0.95, writeLatency: 0.02 },
        }),
      ),
    },
    {
      name: "percona 5.7 write-bound",
      facts: facts(
        "p57",
        percona57,
        virtio,
        load({
          flushed: 2500,
          doublewrite: true,
          txn: 1500,
          waitFree: 4,
          device: { util: 0.95, writeLatency: 0.02 },
        }),
      ),
    },
    {
      name: "mariadb 10.11 write-bound",
      facts: facts(
        "m1011",
        mariadb1011,
        virtio,
        load({
          flushed: 2500,
          doublewrite: true,
          txn: 1500,
          waitFree: 4,
          device: { util: 0.95, writeLatency: 0.02 },
        }),
      ),
    },
  ];
  it.each(cases)("$name", ({ facts: f }) => {
    const a = advise(f);
    for (const finding of a.findings) {
      for (const action of finding.actions) {
        const lines = [...action.steps, ...action.snippets.map((s) => s.text)];
        for (const line of lines) {
          for (const s of settings) {
            if (s.name.test(line)) expect(s.has(a), `${finding.ruleId}: ${line}`).toBe(true);
          }
        }
      }
    }
  });
});

describe("device utilisation as the only load evidence", () => {
  const utilOnly = facts("util", mysql8035, merge(virtio, { storage: { limits: { metered: false } } }), {
    workload: {
      windowSeconds: 86400,
      device: { utilisationRatio: st(0.97, 1.02) },
    },
  });

  it("says what would settle the verdict and how to collect it", () => {
    const v = advise(utilOnly).verdict;
    const text = v.context.join("\n");
    expect(text).toMatch(/not saturation/);
    expect(v.toSettle.length).toBeGreaterThan(0);
    expect(v.toSettle.join("\n")).toMatch(/write latency/i);
    expect(v.toSettle.join("\n")).toMatch(/Innodb_buffer_pool_wait_free/);
  });
});

describe("efficiency-only gains", () => {
  it("tell a not-write-bound instance: cheaper transactions, no throughput gain, low priority", () => {
    const a = advise(facts("eff", mysql8035, virtio, moderate()));
    expect(a.verdict.verdict).toBe("not-write-bound");
    const keep = a.findings.find((f) => f.ruleId === "keep-doublewrite-on");
    expect(keep?.summary).toMatch(/no throughput gain/);
    expect(keep?.summary).toMatch(/fewer write bytes/);
    expect(keep?.summary).toMatch(/fewer fsyncs per transaction/);
    expect(keep?.summary).toMatch(/low priority/);
  });
});

describe("errors", () => {
  it("lists the allowed page sizes", () => {
    const r = safeParseInstanceFacts({
      schemaVersion: 1,
      identity: { instance: "x" },
      server: { flavor: "mysql", version: "8.0.35" },
      config: { pageSizeBytes: 12000 },
    });
    expect(r.success).toBe(false);
    if (r.success) return;
    expect(r.error.issues[0]?.message).toMatch(/4096, 8192, 16384, 32768, 65536/);
  });
});
