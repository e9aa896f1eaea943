import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { PromQueryApi } from "@untorn/fleet/api";
import { encodeReplay } from "@untorn/fleet/replay";
import { fakeReplay } from "@untorn/fleet/testing/fake-api";
import { SMALL_FLEET } from "@untorn/fleet/testing/fake-fleet";
import { TREND_POINTS, type TrendSignal, trendQuery } from "@untorn/fleet/trends";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { parseEnv } from "../../env.js";
import { withUnit } from "../../lib/format.js";
import { SPARKLINE } from "../../lib/sparkline.js";
import { startFakePrometheus } from "../../testing/fake-prometheus.js";
import { END, smallReplay } from "../../testing/fleet-facts.js";

/** smallReplay's chart range. */
const CHART = { start: END - 3 * 3600, end: END, step: 60 };

import { resetCaches } from "./data.js";
import { getInstanceCharts } from "./instance.js";
import { getPageTrends, resetTrends } from "./trends.js";

let dir: string;
let replayFile: string;
let noChartsFile: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-trends-"));
  replayFile = path.join(dir, "fleet.json.gz");
  fs.writeFileSync(replayFile, encodeReplay(smallReplay()));
  noChartsFile = path.join(dir, "no-charts.json.gz");
  fs.writeFileSync(noChartsFile, encodeReplay(fakeReplay(SMALL_FLEET, { window: "1h", times: [END] })));
});

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

beforeEach(() => {
  resetCaches();
  resetTrends();
});

const env = (over: Record<string, string> = {}) =>
  parseEnv({ UNTORN_DATA_DIR: path.join(dir, "store"), UNTORN_CACHE_DIR: "off", ...over });

const INSTANCES = SMALL_FLEET.map((i) => i.instance);

describe("getPageTrends on a recording", () => {
  it("draws each instance's doublewrite pages/s over the recording's window, with the instance chart's numbers", async () => {
    const e = env({ UNTORN_REPLAY: replayFile });
    const t = await getPageTrends(null, INSTANCES, e);
    expect(t.state).toBe("ok");
    expect(t.what).toBe("Doublewrite pages/s");
    expect(t.unit).toBe("pages/s");
    // The recording's window (1h) at its recorded chart step.
    expect(t.spanSeconds).toBe(3600);
    expect(t.stepSeconds).toBe(60);
    const heavy = t.cells["db-heavy-plain:9105"];
    expect(heavy?.d).toMatch(/^M[\d.]+,[\d.]+(L[\d.]+,[\d.]+)+/);
    // The same series as the instance page's write-path chart over the same hour.
    const chart = await getInstanceCharts("db-heavy-plain:9105", "1h", e);
    const dw = chart.charts?.charts[0]?.series.find((s) => s.name === "doublewrite pages");
    if (!dw) throw new Error("no doublewrite series on the instance chart");
    const v = (x: number) => withUnit(x, "pages/s");
    const values = dw.points.map((p) => p[1]);
    expect(heavy?.label).toBe(
      `Doublewrite pages/s over 1 h: first ${v(values[0]!)}, last ${v(values.at(-1)!)}, peak ${v(Math.max(...values))}`,
    );
    // Only the instances asked for; one with no series has no line, and says nothing it did not measure.
    const one = await getPageTrends(null, ["db-off:9105", "db-down:9105"], e);
    expect(Object.keys(one.cells)).toEqual(["db-off:9105"]);
    // Doublewrite off writes no doublewrite page: a measured flat zero, drawn at the bottom.
    expect(one.cells["db-off:9105"]?.label).toContain("peak 0 pages/s");
    expect(one.cells["db-off:9105"]?.d).toMatch(
      new RegExp(`^M${SPARKLINE.pad},${SPARKLINE.height - SPARKLINE.pad}L`),
    );
  });

  it("covers the range asked for within the recording, and the whole recording for a longer one", async () => {
    const e = env({ UNTORN_REPLAY: replayFile });
    expect((await getPageTrends("15m", INSTANCES, e)).spanSeconds).toBe(900);
    const week = await getPageTrends("7d", INSTANCES, e);
    expect(week.state).toBe("ok");
    expect(week.spanSeconds).toBe(3 * 3600);
  });

  it("draws device busy on a fixed 0–100% scale, so a line's height compares across rows", async () => {
    const e = env({ UNTORN_REPLAY: replayFile });
    const t = await getPageTrends(null, INSTANCES, e, { key: "busy" });
    expect(t.state).toBe("ok");
    expect(t.trend).toBe("busy");
    expect(t.what).toBe("Device utilisation");
    expect(t.unit).toBe("ratio");
    // HEAVY's utilisation is 0.92, flat: its line sits 92% of the way up the box, not at the top.
    const heavy = t.cells["db-heavy-plain:9105"];
    expect(heavy?.label).toBe("Device utilisation over 1 h: first 92%, last 92%, peak 92%");
    const inner = SPARKLINE.height - 2 * SPARKLINE.pad;
    const y = Math.round((SPARKLINE.pad + inner - 0.92 * inner) * 10) / 10;
    expect(heavy?.d).toMatch(new RegExp(`^M${SPARKLINE.pad},${y}L`));
  });

  it("draws each row's DW share on the basis its DW share column gives", async () => {
    const e = env({ UNTORN_REPLAY: replayFile });
    const t = await getPageTrends(null, ["db-heavy-plain:9105", "db-heavy-atomic:9105", "db-off:9105"], e, {
      key: "dw-share",
      bases: {
        "db-heavy-plain:9105": "device",
        "db-heavy-atomic:9105": "shared-device",
        "db-off:9105": null,
      },
    });
    expect(t.state).toBe("ok");
    expect(t.what).toBe("Doublewrite share");
    // The device basis reads the device's bytes; a shared device falls back to InnoDB's own, as the column does.
    expect(t.cells["db-heavy-plain:9105"]?.label).toMatch(/^Doublewrite share of device writes over 1 h: /);
    expect(t.cells["db-heavy-atomic:9105"]?.label).toMatch(/^Doublewrite share of write bytes over 1 h: /);
    // No doublewrite: a measured 0%, not a missing line.
    expect(t.cells["db-off:9105"]?.label).toContain("peak 0%");
  });

  it("says a recording made before the share series were recorded holds no DW share trend", async () => {
    const old = path.join(dir, "no-share.json.gz");
    const replay = smallReplay();
    const shareQueries = new Set(
      ["device_doublewrite_bytes_share", "doublewrite_write_bytes_share"].map((sig) =>
        trendQuery(
          replay.meta.plan.selector,
          { ...CHART, source: replay.meta.plan.source },
          sig as TrendSignal,
        ),
      ),
    );
    const kept = replay.range.filter((r) => !shareQueries.has(r.query));
    expect(kept.length).toBe(replay.range.length - 2);
    fs.writeFileSync(old, encodeReplay({ ...replay, range: kept }));
    const t = await getPageTrends(null, INSTANCES, env({ UNTORN_REPLAY: old }), { key: "dw-share" });
    expect(t.state).toBe("not-recorded");
    expect(t.note).toBe("this recording holds no doublewrite share series for the range");
    expect(t.cells).toEqual({});
    // The other trends still draw from it.
    expect((await getPageTrends(null, INSTANCES, env({ UNTORN_REPLAY: old }), { key: "busy" })).state).toBe(
      "ok",
    );
  });

  it("says plainly that a recording without chart series holds no trend, and draws nothing", async () => {
    const t = await getPageTrends(null, INSTANCES, env({ UNTORN_REPLAY: noChartsFile }));
    expect(t.state).toBe("not-recorded");
    expect(t.note).toContain("no chart series");
    expect(t.cells).toEqual({});
  });
});

describe("getPageTrends on a live Prometheus", () => {
  /** A Prometheus with 250 instances writing doublewrite pages; range queries are logged. */
  function livePrometheus() {
    const asked: { expr: string; start: number; end: number; step: number }[] = [];
    const api: PromQueryApi = {
      queryVector: async () => ({ data: [], warnings: [] }),
      queryRange: async (expr, o) => {
        asked.push({ expr, ...o });
        const data = Array.from({ length: 250 }, (_, k) => ({
          labels: { instance: `db-${k}:9105` },
          points: Array.from(
            { length: Math.floor((o.end - o.start) / o.step) + 1 },
            (_, i) => [o.start + i * o.step, k + (i % 5)] as const,
          ),
        }));
        return { data, warnings: [] };
      },
    };
    return { api, asked };
  }

  it("reads the whole fleet in one range query at no more than 48 points, for the page's rows only", async () => {
    const live = livePrometheus();
    const prom = await startFakePrometheus(live.api);
    try {
      const e = env({ PROMETHEUS_URL: prom.url, UNTORN_CACHE_SECONDS: "60" });
      const t = await getPageTrends("6h", ["db-7:9105", "db-8:9105", "db-none:9105"], e);
      expect(t.state).toBe("ok");
      expect(live.asked).toHaveLength(1);
      const q = live.asked[0]!;
      expect(q.expr).not.toContain("instance=");
      expect(q.end - q.start).toBe(6 * 3600);
      expect((q.end - q.start) / q.step).toBeLessThanOrEqual(TREND_POINTS);
      expect(t.stepSeconds).toBe(q.step);
      expect(Object.keys(t.cells).sort()).toEqual(["db-7:9105", "db-8:9105"]);
      expect(t.cells["db-8:9105"]?.label).toMatch(
        /^Doublewrite pages\/s over 6 h: first 8 pages\/s, .* peak 12 pages\/s$/,
      );
      // Another page of the same range is drawn from the same read.
      await getPageTrends("6h", ["db-9:9105"], e);
      expect(live.asked).toHaveLength(1);
    } finally {
      await prom.stop();
    }
  });

  it("keeps the last good lines, marked stale, while Prometheus fails, and says unavailable without any", async () => {
    const live = livePrometheus();
    const prom = await startFakePrometheus(live.api);
    const e = env({ PROMETHEUS_URL: prom.url, UNTORN_CACHE_SECONDS: "0", UNTORN_PROM_TIMEOUT_MS: "2000" });
    expect((await getPageTrends(null, ["db-1:9105"], e)).state).toBe("ok");
    await prom.stop();
    const stale = await getPageTrends(null, ["db-1:9105"], e);
    expect(stale.state).toBe("stale");
    expect(stale.note).toBeTruthy();
    expect(stale.cells["db-1:9105"]?.d).toMatch(/^M/);
    resetTrends();
    const none = await getPageTrends(null, ["db-1:9105"], e);
    expect(none.state).toBe("unavailable");
    expect(none.cells).toEqual({});
    expect(none.note).toBeTruthy();
  });
});
