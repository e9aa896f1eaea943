/**
 * The reconciler's observations read from the committed lab recording (lab/recordings/), the one the
 * console serves on its embedded defaults: every query it makes must be answered from the recording,
 * never a "query not in the replay file".
 */
import { readFileSync } from "node:fs";
import { decodeReplayApi } from "@untorn/fleet/replay";

import { changeSchema } from "@untorn/rollout/change";
import { defaultMetrics } from "@untorn/rollout/gates";
import { describe, expect, it } from "vitest";
import { fetchBakes, fetchShared } from "./observe.js";
import { NOT_RECORDED_WARNING, replayReconcileOptions } from "./replay.js";

const file = new URL("../../../lab/recordings/mariadb-10.11-fleet.json.gz", import.meta.url);
const api = decodeReplayApi(readFileSync(file));
const { api: reconcileApi, ...opts } = replayReconcileOptions(api, api.meta);
const end = api.meta.end;

describe("the reconciler on the lab recording", () => {
  it("reads fresh facts, replication and read-backs of a few instances from the recording", async () => {
    const ids = ["db-dw-off-iops300-16k", "db-shop-replica-1", "db-shop-replica-2"];
    const r = await fetchShared(reconcileApi, { now: end, readBacks: ids, health: ids, ...opts });
    for (const id of ids) {
      expect(r.health.get(id)?.facts?.identity.instance, id).toBe(id);
      expect(r.readBacks.get(id)?.up, id).toBe(true);
    }
    // What the recording shows at its end: the canary's doublewrite OFF, its sibling's still ON.
    expect(r.readBacks.get("db-shop-replica-1")!.doublewriteMode).toBe("off");
    expect(r.readBacks.get("db-shop-replica-2")!.doublewriteMode).toBe("on");
    expect(r.readBacks.get("db-dw-off-iops300-16k")!.doublewriteMode).toBe("off");
    expect(r.readBacks.get("db-dw-off-iops300-16k")!.doublewritePagesPerSecond).toBe(0);
    expect(r.health.get("db-dw-off-iops300-16k")!.facts!.config.doublewrite).toBe("off");
    // The recording holds the replicas' lag but not their threads: no data, never healthy.
    expect(r.health.get("db-shop-replica-1")!.replication).toBeNull();
    expect(r.health.get("db-dw-off-iops300-16k")!.replication).toBeNull();
  });

  it("reads a bake's series of canary and control from the recorded charts", async () => {
    const change = changeSchema.parse({ kind: "doublewrite-off" });
    const b = await fetchBakes(
      reconcileApi,
      [
        {
          wave: 0,
          instances: [
            { id: "db-shop-replica-1", role: "treated" },
            { id: "db-shop-replica-2", role: "control" },
          ],
          metrics: defaultMetrics(change).map((m) => ({ metric: m.metric, kind: m.kind })),
          windows: { before: { start: end - 900, end: end - 780 }, after: { start: end - 600, end } },
          restarts: [],
          blockSeconds: "auto",
          signals: ["replication_lag_seconds", "transactions_per_second"],
        },
      ],
      { window: opts.rateWindow, ...(opts.bakeStepSeconds ? { stepSeconds: opts.bakeStepSeconds } : {}) },
    );
    const canary = b.series[0]!.instances.find((i) => i.id === "db-shop-replica-1")!;
    const values = (x: { v?: readonly (number | null)[] } | object) =>
      "v" in x && Array.isArray(x.v) ? x.v.filter((v) => v !== null).length : 0;
    // Transactions/s and the lag were recorded as charts: the bake reads them from the recording.
    expect(values(canary.series.transactions_per_second!.before)).toBeGreaterThan(0);
    expect(values(canary.series.transactions_per_second!.after)).toBeGreaterThan(0);
    expect(values(canary.series.replication_lag_seconds!.after)).toBeGreaterThan(0);
    // Bytes per transaction are summed from write bytes/s and transactions/s; the lab recorded the ratio
    // only, so it reads as no data (never as a pass), with the warning saying so.
    expect(values(canary.series.write_bytes_per_transaction!.after)).toBe(0);
    expect(b.warnings).toContain(NOT_RECORDED_WARNING);
  });
});
