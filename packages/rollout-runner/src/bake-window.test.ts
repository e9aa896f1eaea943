import type { PromQueryApi } from "@untorn/fleet/api";
import type { BakeRequest } from "@untorn/rollout/state";
import { describe, expect, it } from "vitest";
import { fetchBakes } from "./observe.js";

/** A Prometheus that answers nothing and keeps every range query it was asked. */
function recordingApi(): { api: PromQueryApi; ranges: string[] } {
  const ranges: string[] = [];
  const api: PromQueryApi = {
    queryVector: async () => ({ data: [], warnings: [] }),
    queryRange: async (expr) => {
      ranges.push(expr);
      return { data: [], warnings: [] };
    },
  };
  return { api, ranges };
}

const T = 1_800_000_000;
const request = (sequential: boolean): BakeRequest => ({
  wave: 0,
  instances: [
    { id: "r1", role: "treated" },
    { id: "r2", role: "control" },
  ],
  metrics: [{ metric: "transactions_per_second", kind: "throughput" }],
  windows: { before: { start: T - 3600, end: T }, after: { start: T + 60, end: T + 360 } },
  restarts: [],
  blockSeconds: "auto",
  signals: [],
  ...(sequential ? { sequential: { lookEverySeconds: 60, maxSeconds: 900, warmupSeconds: 60 } } : {}),
});

/** The rate() windows of the bake series' queries (the judged metric's, not the baseline cut's). */
const windowsOf = (ranges: readonly string[]) =>
  new Set(
    ranges.filter((q) => q.includes("commit")).flatMap((q) => [...q.matchAll(/\[(\w+)\]/g)].map((m) => m[1])),
  );

describe("the rate() window of a bake's series", () => {
  it("is the sequential judgement's own by default: a minute at its 15 s step, not 5m", async () => {
    const { api, ranges } = recordingApi();
    await fetchBakes(api, [request(true)], {});
    expect(windowsOf(ranges)).toEqual(new Set(["60s"]));
  });

  it("stays 5m for the fixed judgement, and is the caller's where it names one", async () => {
    const fixed = recordingApi();
    await fetchBakes(fixed.api, [request(false)], {});
    expect(windowsOf(fixed.ranges)).toEqual(new Set(["5m"]));
    const named = recordingApi();
    await fetchBakes(named.api, [request(true)], { window: "2m" });
    expect(windowsOf(named.ranges)).toEqual(new Set(["2m"]));
  });
});
