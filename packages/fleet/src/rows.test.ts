import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { profileFacts, profileFleet } from "./profile.js";
import { ReplayApi } from "./replay.js";
import { fleetRowSchema, fleetSummarySchema, rankedFleetRowSchema } from "./row.js";
import { fakeReplay } from "./testing/fake-api.js";
import { DB_DOWN, DB_IDLE, DB_OFF_LOADED, DB_ON_LOADED, DB_SHARED_DEVICE } from "./testing/fixtures.js";

const AT = 1_790_000_000;
const fleet = () =>
  profileFleet(
    new ReplayApi(fakeReplay([DB_ON_LOADED, DB_OFF_LOADED, DB_IDLE, DB_DOWN], { window: "1h", times: [AT] })),
    {
      window: "1h",
    },
  );

describe("the fleet rows", () => {
  it("match the row and summary schemas the web API and the CLI document", async () => {
    const p = await fleet();
    for (const r of p.rows) {
      expect(rankedFleetRowSchema.parse(r)).toEqual(r);
      // The shared row is the ranked row without the ranking's detail.
      const shared = Object.fromEntries(
        Object.keys(fleetRowSchema.shape).map((k) => [k, r[k as keyof typeof r]]),
      );
      const gate = { ...r.gate } as Record<string, unknown>;
      delete gate.toVerify;
      expect(() => fleetRowSchema.parse({ ...shared, gate })).not.toThrow();
    }
    expect(fleetSummarySchema.parse(p.summary)).toEqual(p.summary);
  });

  it("carry the facts, the gate and doublewrite's share of writes of each instance", async () => {
    const p = await fleet();
    const on = p.rows.find((r) => r.instance === DB_ON_LOADED.instance)!;
    expect(on).toMatchObject({ rank: 1, flavor: "mariadb", doublewrite: "on", dblwrShareBasis: "device" });
    expect(on.dblwrShare).toBe(on.dblwrShareOfDeviceWrites);
    expect(on.confidence).toBe(on.verdictConfidence);
    expect(on.gain?.ruleId).toBe(on.opportunity?.ruleId);
    // The exporter measured ext4 without atomic writes: the gate is not verified, doublewrite must stay.
    expect(on.gate.status).not.toBe("verified");
    expect(on.canDropDoublewrite).toBe(false);
    expect(on.findings).toBeGreaterThan(0);
    const off = p.rows.find((r) => r.instance === DB_OFF_LOADED.instance)!;
    expect(off).toMatchObject({ doublewrite: "off", amplification: 0, worstSeverity: "critical" });
  });

  it("on a device other writers share, give InnoDB's share of write bytes, marked shared-device", async () => {
    const p = await profileFleet(
      new ReplayApi(fakeReplay([DB_ON_LOADED, DB_SHARED_DEVICE], { window: "1h", times: [AT] })),
      { window: "1h" },
    );
    const own = p.rows.find((r) => r.instance === DB_ON_LOADED.instance)!;
    const shared = p.rows.find((r) => r.instance === DB_SHARED_DEVICE.instance)!;
    expect(shared.dblwrShareBasis).toBe("shared-device");
    // Not the device's share (withheld: a quarter of its bytes are the instance's), InnoDB's own.
    expect(shared.dblwrShareOfDeviceWrites).toBeNull();
    const avg = (id: string) => (DB_SHARED_DEVICE.windowed![id] as { avg: number }).avg;
    expect(shared.dblwrShare).toBeCloseTo(
      (avg("rates.dblwrPagesWritten") * 16384) / avg("rates.dataWrittenBytes"),
      6,
    );
    // The same load on a device of its own: the device's share, lower than InnoDB's (redo and more).
    expect(own.dblwrShareBasis).toBe("device");
    expect(own.dblwrShare).toBeLessThan(shared.dblwrShare!);
  });

  it("count verdicts, gates, skipped and at-risk instances in the summary", async () => {
    const p = await fleet();
    expect(p.summary).toMatchObject({ instances: 3, skipped: 1, atRisk: p.ranking.atRisk.length });
    const verdicts = Object.values(p.summary.verdicts).reduce((a, b) => a + b, 0);
    const gates = Object.values(p.summary.gates).reduce((a, b) => a + b, 0);
    expect([verdicts, gates]).toEqual([3, 3]);
    expect(p.summary.canDropDoublewrite).toBe(0);
    expect(p.summary.savedBytesPerSecond).toBe(0);
    expect(p.summary.fleetWriteBytesPerSecond).toBeGreaterThan(0);
    // Offline: the same rows and summary from the same facts, the skipped count given.
    expect(profileFacts(p.facts, 1).summary).toEqual(p.summary);
  });
});

describe("row.ts", () => {
  it("imports only zod and the vocabulary at run time (the browser bundles it)", () => {
    const text = readFileSync(fileURLToPath(new URL("./row.ts", import.meta.url)), "utf8");
    const runtime = [...text.matchAll(/^import (?!type )[\s\S]*? from "([^"]+)";/gm)].map((m) => m[1]);
    expect(runtime.sort()).toEqual(["@untorn/vocabulary/words", "zod"]);
  });
});
