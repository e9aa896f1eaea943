import { PromClient } from "@untorn/prom/client";
import { describe, expect, it } from "vitest";
import { CountingApi, mapLimit, nowOf, type PromQueryApi } from "./api.js";

describe("PromQueryApi", () => {
  it("is satisfied by the real PromClient", () => {
    const api: PromQueryApi = new PromClient({ baseUrl: "http://127.0.0.1:9" });
    expect(typeof api.queryVector).toBe("function");
    // PromClient has no default time: the wall clock, in whole seconds.
    const t = nowOf(api);
    expect(Number.isInteger(t)).toBe(true);
    expect(Math.abs(t - Date.now() / 1000)).toBeLessThan(5);
  });

  it("counts requests through CountingApi and forwards the default time", async () => {
    const inner: PromQueryApi = {
      queryVector: async () => ({ data: [], warnings: [] }),
      queryRange: async () => ({ data: [], warnings: [] }),
      defaultTime: () => 1234.9,
    };
    const c = new CountingApi(inner);
    await c.queryVector("a", { time: 1 });
    await c.queryRange("b", { start: 1, end: 2, step: 1 });
    expect(c.count).toBe(2);
    expect(c.defaultTime()).toBe(1234);
  });
});

describe("mapLimit", () => {
  it("keeps order and never runs more than the limit at once", async () => {
    let running = 0;
    let most = 0;
    const out = await mapLimit([5, 1, 4, 2, 3], 2, async (x) => {
      running++;
      most = Math.max(most, running);
      await new Promise((r) => setTimeout(r, x));
      running--;
      return x * 10;
    });
    expect(out).toEqual([50, 10, 40, 20, 30]);
    expect(most).toBe(2);
  });

  it("rejects with the first failure", async () => {
    await expect(
      mapLimit([1, 2], 2, async (x) => (x === 2 ? Promise.reject(new Error("boom")) : x)),
    ).rejects.toThrow("boom");
  });
});
