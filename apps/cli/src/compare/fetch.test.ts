import { re } from "@untorn/catalog/promql";
import { type SignalId, signals } from "@untorn/catalog/signals";
import { parseComparisonInput } from "@untorn/compare/input";
import type { MatrixSeries, PromQueryApi } from "@untorn/fleet/api";
import { describe, expect, it } from "vitest";
import { chunkRange, fetchComparisonInput, MAX_POINTS_PER_QUERY, restartsFromUptime } from "./fetch.js";
import { selectMetrics } from "./metrics.js";

type Gen = (instance: string, t: number) => number;

/** Answers range queries for the signals it knows, rendered with the same selector and window. */
function fakeApi(
  queried: string[],
  window: string,
  gens: Partial<Record<SignalId | "uptime", Gen>>,
  instances = queried,
) {
  const selector = { instance: re(queried.map((i) => i.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("|")) };
  const calls: { expr: string; start: number; end: number; step: number }[] = [];
  const api: PromQueryApi = {
    async queryVector() {
      throw new Error("not used");
    },
    async queryRange(expr, opts) {
      calls.push({ expr, ...opts });
      let gen: Gen | undefined;
      if (expr === signals.uptime_seconds.expr({ selector })) gen = gens.uptime;
      for (const [id, g] of Object.entries(gens)) {
        if (id !== "uptime" && expr === signals[id as SignalId].expr({ selector, window })) gen = g;
      }
      const data: MatrixSeries[] = [];
      if (gen) {
        for (const instance of instances) {
          const points: [number, number][] = [];
          for (let t = opts.start; t <= opts.end; t += opts.step) points.push([t, gen(instance, t)]);
          data.push({ labels: { instance }, points });
        }
      }
      return { data, warnings: calls.length === 1 ? ["partial data"] : [] };
    },
  };
  return { api, calls };
}

describe("chunkRange", () => {
  it("splits long ranges into aligned chunks under the point limit and covers every step", () => {
    const range = { start: 1000, end: 1000 + 25_000 };
    const chunks = chunkRange(range, 1);
    expect(chunks).toHaveLength(3);
    expect(chunks[0]).toEqual({ start: 1000, end: 1000 + MAX_POINTS_PER_QUERY - 1 });
    expect(chunks[1]!.start).toBe(chunks[0]!.end + 1);
    expect(chunks.at(-1)!.end).toBe(range.end);
    expect(chunkRange({ start: 0, end: 600 }, 15)).toEqual([{ start: 0, end: 600 }]);
  });
});

describe("restartsFromUptime", () => {
  it("finds each server start once despite jitter", () => {
    const t = [100, 101, 102, 103, 104, 105];
    const up = [50, 51.4, 52, 1, 2, null];
    expect(restartsFromUptime(t, up)).toEqual([50, 102]);
  });
});

describe("fetchComparisonInput", () => {
  const before = { start: 10_000, end: 10_600 };
  const after = { start: 11_000, end: 11_600 };
  it("builds a valid input with treated and control series, restarts and absent metrics", async () => {
    const { api, calls } = fakeApi(["db.1:9105", "db2"], "1m", {
      transactions_per_second: (i, t) => (i === "db.1:9105" && t >= 11_000 ? 150 : 100) + (t % 7),
      write_bytes_per_transaction: (_i, t) => (Math.floor(t / 15) % 3 === 0 ? Number.NaN : 16_000),
      // db.1 restarted at 10_900 (between the windows); db2 has run since 5_000.
      uptime: (i, t) => (i === "db.1:9105" && t >= 10_900 ? t - 10_900 : t - 5_000),
    });
    const r = await fetchComparisonInput(api, {
      instance: "db.1:9105",
      controls: ["db2"],
      before,
      after,
      step: 15,
      rateWindow: "1m",
      metrics: selectMetrics([
        "transactions_per_second",
        "write_bytes_per_transaction",
        "fsyncs_per_transaction",
      ]),
      warmupSeconds: 300,
      options: { seasonality: "none" },
    });
    expect(calls[0]!.expr).toContain('instance=~"db\\\\.1:9105|db2"');
    expect(r.absent.map((a) => a.metric)).toEqual(["fsyncs_per_transaction"]);
    expect(r.silent).toEqual([]);
    expect(r.warnings).toEqual(["partial data"]);
    const parsed = parseComparisonInput(r.input);
    expect(parsed.success).toBe(true);
    const input = parsed.data!;
    expect(input.metrics.map((m) => m.id)).toEqual([
      "transactions_per_second",
      "write_bytes_per_transaction",
    ]);
    const [treated, control] = input.instances;
    expect(treated!.role).toBe("treated");
    expect(control!.role).toBe("control");
    expect(treated!.restarts).toEqual([10_900]);
    expect(control!.restarts).toEqual([]);
    // Range queries answer on the step grid: the input carries the compact form, NaN as null.
    type Compact = { v: (number | null)[] };
    const tps = r.input.instances[0]!.series["transactions_per_second"]!;
    expect(tps.before).toMatchObject({ start: 10_000, step: 15 });
    expect((tps.before as Compact).v).toHaveLength(41);
    expect((tps.after as Compact).v[0]).toBe(150 + (11_000 % 7));
    expect((r.input.instances[0]!.series["write_bytes_per_transaction"]!.before as Compact).v).toContain(
      null,
    );
    // compare reads them as Float64Arrays, a missing sample as NaN.
    const typed = treated!.series["transactions_per_second"]!;
    expect(typed.before.v).toBeInstanceOf(Float64Array);
    expect(typed.before.v).toHaveLength(41);
    expect(Array.from(treated!.series["write_bytes_per_transaction"]!.before.v).some(Number.isNaN)).toBe(
      true,
    );
    expect(input.options.warmupSeconds).toBe(300);
    expect(input.options.seasonality).toBe("none");
    expect(input.windows).toEqual({ before, after });
  });

  it("names instances without any series", async () => {
    const { api } = fakeApi(["db1", "ghost"], "1m", { transactions_per_second: () => 1 }, ["db1"]);
    const r = await fetchComparisonInput(api, {
      instance: "db1",
      controls: ["ghost"],
      before,
      after,
      step: 15,
      rateWindow: "1m",
      metrics: selectMetrics(undefined),
      warmupSeconds: 0,
    });
    expect(r.silent).toEqual(["ghost"]);
  });
});
