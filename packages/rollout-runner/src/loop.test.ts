// The loop on a real PGlite store. With no active rollout a pass asks Prometheus nothing, so the API
// points at a closed port; the rollout-carrying passes are in test/reconciler-processes.live.test.ts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PromClient } from "@untorn/prom/client";
import { openStore, type Store } from "@untorn/store/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type LoopPass, MIN_LOOP_WAIT_SECONDS, nextWaitSeconds, startReconcilerLoop } from "./loop.js";
import type { ReconcileSummary, RolloutPass } from "./runner.js";

const summary = (at: number, wakeAts: (number | null)[]): ReconcileSummary => ({
  acquired: true,
  at,
  rollouts: wakeAts.map(
    (wakeAt, i): RolloutPass => ({
      id: `r${i}`,
      outcome: "unchanged",
      status: "active",
      events: [],
      hooks: [],
      queries: 0,
      wakeAt,
      warnings: [],
    }),
  ),
});

describe("nextWaitSeconds", () => {
  it("waits the rest of the interval when nothing wakes earlier", () => {
    expect(nextWaitSeconds(30, 2, summary(1000, [null, 5000]))).toBe(28);
    expect(nextWaitSeconds(30, 2, undefined)).toBe(28);
  });
  it("wakes for the earliest gate ahead, on the rollouts' clock", () => {
    // A replayed clock far from the wall clock: only wakeAt − at matters.
    expect(nextWaitSeconds(30, 2, summary(1000, [1012, 1020, null]))).toBe(10);
  });
  it("ignores a wakeAt already past (the gate waits for data or a human) and never spins", () => {
    expect(nextWaitSeconds(30, 2, summary(1000, [990, 1001]))).toBe(28);
    expect(nextWaitSeconds(30, 45, summary(1000, []))).toBe(MIN_LOOP_WAIT_SECONDS);
  });
});

describe("startReconcilerLoop", () => {
  let dir = "";
  let store: Store;
  const api = new PromClient({ baseUrl: "http://127.0.0.1:9" });
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-loop-"));
    store = await openStore({ dataDir: path.join(dir, "data") });
  }, 180_000);
  afterAll(async () => {
    await store?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("refuses an interval that is not a positive number", () => {
    for (const intervalSeconds of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => startReconcilerLoop({ store }, { api, intervalSeconds })).toThrow(/intervalSeconds/);
  });

  it("runs passes one after another until stopped, and ends the wait at once", async () => {
    const passes: LoopPass[] = [];
    const controller = new AbortController();
    const loop = startReconcilerLoop(
      { store },
      {
        api,
        intervalSeconds: 0.05,
        signal: controller.signal,
        onPass: (p) => {
          passes.push(p);
          if (p.n === 2) {
            // A long wait would follow: stopping must not sit it out.
            controller.abort();
          }
        },
      },
    );
    const t0 = Date.now();
    expect(await loop.done).toEqual({ passes: 2, failed: 0 });
    expect(Date.now() - t0).toBeLessThan(5000);
    expect(passes.map((p) => p.n)).toEqual([1, 2]);
    for (const p of passes) expect(p.summary).toMatchObject({ acquired: true, rollouts: [] });
    expect(passes[1]!.startedAt).toBeGreaterThanOrEqual(passes[0]!.startedAt + passes[0]!.durationSeconds);
  });

  it("finishes the pass in flight when stopped during it", async () => {
    const passes: LoopPass[] = [];
    const loop = startReconcilerLoop(
      { store },
      { api, intervalSeconds: 3600, onPass: (p) => passes.push(p) },
    );
    loop.stop();
    expect(await loop.done).toEqual({ passes: 1, failed: 0 });
    expect(passes).toHaveLength(1);
    expect(passes[0]!.summary?.acquired).toBe(true);
  });

  it("reports a failed pass and keeps going (the store may come back)", async () => {
    const broken = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-loop-closed-"));
    const closed = await openStore({ dataDir: path.join(broken, "data") });
    await closed.close();
    const passes: LoopPass[] = [];
    const logs: string[] = [];
    const loop = startReconcilerLoop(
      { store: closed, log: (m) => logs.push(m) },
      {
        api,
        intervalSeconds: 0.01,
        onPass: (p) => {
          passes.push(p);
          if (p.n === 3) loop.stop();
        },
      },
    );
    try {
      expect(await loop.done).toEqual({ passes: 3, failed: 3 });
      for (const p of passes) expect(p.error).toBeInstanceOf(Error);
      expect(logs[0]).toMatch(/^reconciler pass 1 failed: /);
    } finally {
      fs.rmSync(broken, { recursive: true, force: true });
    }
  }, 180_000);
});
