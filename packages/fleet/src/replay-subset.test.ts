import { oneOf } from "@untorn/catalog/promql";
import { signal } from "@untorn/catalog/signals";
import { describe, expect, it } from "vitest";
import {
  ReplayApi,
  type ReplayMeta,
  ReplayMissError,
  splitInstanceMatcher,
  topLevelOrOnInstance,
} from "./replay.js";

const AT = 1_790_000_000;
const meta: ReplayMeta = {
  recordedFrom: "http://fake-prometheus:9090",
  recordedAt: new Date(AT * 1000).toISOString(),
  start: AT - 600,
  end: AT,
  spanSeconds: 600,
  everySeconds: 300,
  window: "10m",
  plan: { stepSeconds: 30, rateWindow: "60s", stats: ["avg"], source: "any", selector: {} },
  instances: ["db-a", "db-b", "db.c"],
  charts: { start: AT - 600, end: AT, step: 4 },
  tool: "test",
};
const tps = (sel: Record<string, ReturnType<typeof oneOf> | string>) =>
  signal("transactions_per_second").expr({ selector: sel, window: "60s" });
const up = (sel: Record<string, ReturnType<typeof oneOf> | string>) =>
  signal("mysql_up").expr({ selector: sel });
const flushed = (sel: Record<string, ReturnType<typeof oneOf> | string>) =>
  signal("data_pages_flushed_per_second").expr({ selector: sel, window: "60s" });

const points = (v: number) =>
  Array.from({ length: 151 }, (_, k) => [AT - 600 + 4 * k, v + k] as [number, number]);
const replay = () =>
  new ReplayApi({
    meta,
    instant: [
      {
        query: up({}),
        answers: [
          {
            time: AT,
            data: ["db-a", "db-b", "db.c"].map((instance, i) => ({
              labels: { instance },
              value: i === 1 ? 0 : 1,
            })),
          },
        ],
      },
    ],
    range: [tps({}), flushed({})].map((query) => ({
      query,
      start: AT - 600,
      end: AT,
      step: 4,
      data: [
        { labels: { instance: "db-a" }, points: points(100) },
        { labels: { instance: "db-b" }, points: points(200) },
        { labels: { instance: "db.c" }, points: points(300) },
      ],
    })),
  });

describe("splitInstanceMatcher", () => {
  it("takes the instance matcher out of every selector, keeping the others", () => {
    const q = flushed({ instance: oneOf(["db-a", "db.c"]) });
    const s = splitInstanceMatcher(q)!;
    expect(s.fleetWide).toBe(flushed({}));
    expect(s.matches("db-a")).toBe(true);
    expect(s.matches("db.c")).toBe(true);
    // The dot is escaped: db.c does not match dbxc.
    expect(s.matches("dbxc")).toBe(false);
    expect(s.matches("db-b")).toBe(false);
    expect(s.matches(undefined)).toBe(false);
    expect(splitInstanceMatcher(up({ instance: "db-b" }))!.fleetWide).toBe(up({}));
  });

  it("is null without an instance matcher, or with selectors that differ in it", () => {
    expect(splitInstanceMatcher(up({}))).toBeNull();
    expect(splitInstanceMatcher('max(x{instance="a"}) + max(y{instance="b"})')).toBeNull();
    expect(splitInstanceMatcher('max(x{my_instance="a"})')).toBeNull();
  });
});

describe("ReplayApi answers for a subset of the recorded fleet", () => {
  it("an instant query on some instances: the fleet-wide answer, filtered", async () => {
    const a = await replay().queryVector(up({ instance: oneOf(["db-b", "db.c"]) }), { time: AT });
    expect(a.data.map((x) => [x.labels.instance, x.value])).toEqual([
      ["db-b", 0],
      ["db.c", 1],
    ]);
  });

  it("an instant query from a recorded range: the value at or before the time, within one recorded step", async () => {
    const r = replay();
    const a = await r.queryVector(tps({ instance: oneOf(["db-a"]) }), { time: AT });
    expect(a.data).toEqual([{ labels: { instance: "db-a" }, timestamp: AT, value: 250 }]);
    const mid = await r.queryVector(tps({ instance: oneOf(["db-a"]) }), { time: AT - 598 });
    expect(mid.data[0]).toMatchObject({ timestamp: AT - 600, value: 100 });
    await expect(r.queryVector(tps({}), { time: AT + 3600 })).rejects.toThrow(/outside the recording/);
  });

  it("a range query on some instances at the recorded step", async () => {
    const a = await replay().queryRange(flushed({ instance: oneOf(["db-b"]) }), {
      start: AT - 40,
      end: AT,
      step: 4,
    });
    expect(a.data).toHaveLength(1);
    expect(a.data[0]!.labels.instance).toBe("db-b");
    expect(a.data[0]!.points).toHaveLength(11);
  });

  it("still misses what was not recorded at all", async () => {
    const q = signal("replication_io_thread_running").expr({ selector: { instance: oneOf(["db-a"]) } });
    const err = await replay()
      .queryVector(q, { time: AT })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReplayMissError);
    await expect(
      replay().queryRange(flushed({ instance: oneOf(["db-b"]) }), { start: AT - 40, end: AT, step: 15 }),
    ).rejects.toThrow(/recorded at step 4s/);
  });
});

describe("ReplayApi answers `A or on(instance) B` from its recorded sides", () => {
  it("A's series first, then B's for the instances A has none for", async () => {
    const q = up({ instance: oneOf(["db-a", "db-b"]) });
    const sides = topLevelOrOnInstance(up({}));
    expect(sides).toHaveLength(2);
    const r = new ReplayApi({
      meta,
      instant: [
        { query: sides[0]!, answers: [{ time: AT, data: [{ labels: { instance: "db-a" }, value: 1 }] }] },
        {
          query: sides[1]!,
          answers: [
            {
              time: AT,
              data: [
                { labels: { instance: "db-a" }, value: 0 },
                { labels: { instance: "db-b" }, value: 1 },
                { labels: { instance: "db.c" }, value: 1 },
              ],
            },
          ],
        },
      ],
      range: [],
    });
    const a = await r.queryVector(q, { time: AT });
    expect(a.data.map((x) => [x.labels.instance, x.value])).toEqual([
      ["db-a", 1],
      ["db-b", 1],
    ]);
    // One side not recorded: a miss naming the whole query.
    const half = new ReplayApi({ meta, instant: [], range: [] });
    await expect(half.queryVector(q, { time: AT })).rejects.toThrow(ReplayMissError);
  });

  it("splits only outside parentheses and strings", () => {
    expect(topLevelOrOnInstance('max(a or on(instance) b) or on(instance) c{x=" or on(instance) "}')).toEqual(
      ["max(a or on(instance) b)", 'c{x=" or on(instance) "}'],
    );
  });
});
