import { describe, expect, it } from "vitest";
import { profileFacts, profileFleet, profileInstance } from "./profile.js";
import { ReplayApi } from "./replay.js";
import { fakeReplay } from "./testing/fake-api.js";
import { DB_IDLE, DB_OFF_LOADED, DB_ON_LOADED, FIXTURE_FLEET } from "./testing/fixtures.js";

const AT = 1_790_000_000;
const api = () => new ReplayApi(fakeReplay(FIXTURE_FLEET, { window: "1h", times: [AT] }));

describe("profileFleet", () => {
  it("ranks the loaded doublewrite-on instance first and calls the idle one not write-bound", async () => {
    const trio = new ReplayApi(
      fakeReplay([DB_ON_LOADED, DB_OFF_LOADED, DB_IDLE], { window: "1h", times: [AT] }),
    );
    const phases: string[] = [];
    const p = await profileFleet(trio, {
      window: "1h",
      onProgress: (done, total) => {
        if (done === total) phases.push(`queries ${total}`);
      },
      onAdvising: (n) => phases.push(`advising ${n}`),
    });
    // Progress reports the last query, then the advice phase for every instance with facts.
    expect(phases).toEqual([`queries ${p.queries}`, "advising 3"]);
    expect(p.rows[0]!.instance).toBe("db-on:9105");
    expect(p.rows[0]!.score).toBeGreaterThan(0);
    expect(p.rows[0]!.amplification).toBeCloseTo(1);
    expect(p.rows[0]!.dblwrShareOfDeviceWrites).toBeGreaterThan(0.4);
    expect(p.rows[0]!.topFinding).not.toBeNull();
    const idle = p.rows.find((r) => r.instance === "db-idle:9105")!;
    expect(idle.verdict).toBe("not-write-bound");
    const off = p.rows.find((r) => r.instance === "db-off:9105")!;
    expect(off.amplification).toBe(0);
    expect(off.topFinding?.ruleId).toBe("doublewrite-off-unverified-storage");
    expect(p.ranking.atRisk.map((r) => r.instance)).toEqual(["db-off:9105"]);
    expect(p.rows.map((r) => r.rank)).toEqual([1, 2, 3]);
  });

  it("lists instances without facts as skipped", async () => {
    const p = await profileFleet(api(), { window: "1h" });
    expect(p.rows).toHaveLength(4);
    expect(p.skipped.map((s) => s.instance)).toEqual(["db-down:9105"]);
  });

  it("profiles offline facts the same way as facts from Prometheus", async () => {
    const p = await profileFleet(api(), { window: "1h" });
    const offline = profileFacts(p.facts);
    expect(offline.rows).toEqual(p.rows);
  });
});

describe("profileInstance", () => {
  it("returns the instance's facts, advice and missing fields", async () => {
    const p = await profileInstance(api(), DB_ON_LOADED.instance, { window: "1h" });
    expect(p.facts?.identity.instance).toBe(DB_ON_LOADED.instance);
    expect(p.advice?.verdict.verdict).toMatch(/write-bound|likely/);
    expect(p.advice?.safetyGate.status).not.toBe("verified");
    expect(p.missing).toContain("config.doublewritePages");
  });
});

describe("declared metadata", () => {
  const declared = new Map([
    [
      DB_ON_LOADED.instance,
      {
        cluster: "orders",
        role: "replica" as const,
        storageFacts: { limits: { writeIops: 3000, ioUnitBytes: 16384 }, fsType: "zfs" },
      },
    ],
    ["db-gone:9105", { cluster: "orders" }],
  ]);

  it("fills what no probe sees, keeps the measured facts on conflict and names unknown instances", async () => {
    const p = await profileFleet(api(), { window: "1h" }, declared);
    const on = p.facts.find((f) => f.identity.instance === DB_ON_LOADED.instance)!;
    expect(on.identity.cluster).toBe("orders");
    expect(on.storage?.limits).toMatchObject({ writeIops: 3000, ioUnitBytes: 16384 });
    // The exporter measured ext4: a declared zfs must not replace it (it would verify the gate).
    expect(on.storage?.fsType).toBe("ext4");
    expect(p.declared[DB_ON_LOADED.instance]).toEqual(
      expect.arrayContaining(["identity.cluster", "storage.limits.writeIops"]),
    );
    expect(p.warnings).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^db-on:9105: storage\.fsType: declared zfs, measured ext4/),
        "metadata for db-gone:9105: no such instance in the data",
      ]),
    );
    expect(p.rows.find((r) => r.instance === DB_ON_LOADED.instance)!.cluster).toBe("orders");
  });

  it("makes the volume limit a signal of the verdict", async () => {
    const plain = await profileInstance(api(), DB_ON_LOADED.instance, { window: "1h" });
    const limited = await profileInstance(
      api(),
      DB_ON_LOADED.instance,
      { window: "1h" },
      { storageFacts: { limits: { writeIops: 1, ioUnitBytes: 16384 } } },
    );
    const iops = (p: typeof plain) => p.advice!.verdict.evidence.find((e) => e.signal === "iops-limit")!;
    expect(iops(plain).state).toBe("missing");
    expect(iops(limited).state).toBe("strong");
    expect(limited.declared).toEqual(["storage.limits.writeIops", "storage.limits.ioUnitBytes"]);
    expect(limited.advice!.verdict.verdict).toBe("write-bound");
  });
});
