import { describe, expect, it } from "vitest";
import { setUpDataDir } from "../../testing/data-dir.js";
import { getFleetView, metadataChanged, metadataStore, resetCaches } from "./data.js";
import { getInstance, getInstanceCharts } from "./instance.js";

const data = setUpDataDir("untorn-instance-");

const env = data.env;

describe("getInstance", () => {
  it("finds an instance, says which are skipped, and which do not exist", async () => {
    const e = env({ UNTORN_REPLAY: data.replayFile });
    const found = await getInstance("db-heavy-atomic:9105", e);
    expect(found.kind).toBe("found");
    if (found.kind === "found") {
      expect(found.view.advice.safetyGate.status).toBe("verified");
      expect(found.view.row.rank).toBe(1);
    }
    const skipped = await getInstance("db-down:9105", e);
    expect(skipped).toMatchObject({ kind: "skipped" });
    expect(skipped.kind === "skipped" && skipped.reason).toMatch(/cannot reach the database/);
    expect((await getInstance("nope:1", e)).kind).toBe("not-found");
  });

  it("applies saved metadata to the cached snapshot at once", async () => {
    const e = env({ UNTORN_REPLAY: data.replayFile });
    await getFleetView(e);
    const store = await metadataStore(e);
    const saved = await store.upsertInstanceMetadata({
      instance: "db-idle:9105",
      cluster: "analytics",
      role: "replica",
      actor: "test",
    });
    metadataChanged("db-idle:9105", saved);
    const r = await getInstance("db-idle:9105", e);
    expect(r.kind === "found" && r.view.row).toMatchObject({ cluster: "analytics", role: "replica" });
    expect(r.kind === "found" && r.view.metadata?.updatedBy).toBe("test");
    // A fresh read (new process, cache gone) gets it from the store.
    resetCaches();
    const again = await getFleetView(e);
    expect(again.rows.find((x) => x.instance === "db-idle:9105")?.cluster).toBe("analytics");
  });

  it("shows a change another console wrote to the shared store within a second, without a restart", async () => {
    const e = env({ UNTORN_REPLAY: data.replayFile });
    await getFleetView(e);
    const store = await metadataStore(e);
    // Written to the store directly, as another console process would: this one is never told.
    await store.upsertInstanceMetadata({ instance: "db-off:9105", cluster: "elsewhere", actor: "console-b" });
    await new Promise((r) => setTimeout(r, 1100));
    const r = await getInstance("db-off:9105", e);
    expect(r.kind === "found" && r.view.row.cluster).toBe("elsewhere");
    expect(r.kind === "found" && r.view.metadata?.updatedBy).toBe("console-b");
    await store.deleteInstanceMetadata({ instance: "db-off:9105", actor: "console-b" });
    await new Promise((r) => setTimeout(r, 1100));
    const gone = await getInstance("db-off:9105", e);
    expect(gone.kind === "found" && gone.view.metadata).toBeNull();
  });
});

describe("getInstanceCharts", () => {
  it("replays the recorded chart series over the recording or a part of it", async () => {
    const e = env({ UNTORN_REPLAY: data.replayFile });
    const all = await getInstanceCharts("db-heavy-plain:9105", null, e);
    expect(all.error).toBeNull();
    expect(all.range?.key).toBe("all");
    expect(all.ranges.map((r) => r.key)).toEqual(["15m", "1h", "all"]);
    expect(all.charts?.charts.map((c) => c.id)).toEqual([
      "write-path",
      "fsync-latency",
      "device-write-iops",
      "device-utilisation",
      "transactions",
      "fsyncs",
    ]);
    const wp = all.charts?.charts[0];
    expect(wp?.series.map((s) => s.name)).toEqual(["doublewrite pages", "data pages flushed"]);
    expect(wp?.series[0]?.points).toHaveLength(3 * 60 + 1);
    const hour = await getInstanceCharts("db-heavy-plain:9105", "1h", e);
    expect(hour.charts?.charts[0]?.series[0]?.points).toHaveLength(61);
  });

  it("falls back to the whole recording for a longer range, and says so", async () => {
    const r = await getInstanceCharts("db-heavy-plain:9105", "7d", env({ UNTORN_REPLAY: data.replayFile }));
    expect(r.range?.key).toBe("all");
    expect(r.note).toBe(
      "7d is longer than the recording's chart series (3.0 hours): showing the whole recording.",
    );
    expect(
      (await getInstanceCharts("db-heavy-plain:9105", "all", env({ UNTORN_REPLAY: data.replayFile }))).note,
    ).toBeNull();
  });

  it("serves a custom range within a recording at its recorded step", async () => {
    const r = await getInstanceCharts("db-heavy-plain:9105", "90m", env({ UNTORN_REPLAY: data.replayFile }));
    expect(r.note).toBeNull();
    expect(r.range).toMatchObject({ key: "90m", step: 60 });
    expect(r.charts?.charts[0]?.series[0]?.points).toHaveLength(91);
  });
});
