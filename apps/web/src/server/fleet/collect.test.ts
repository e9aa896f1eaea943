import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import {
  COLLECT_DELAY_MS,
  COLLECT_MIN_INTERVAL_MS,
  COLLECT_PASSES_MS,
  collections,
  largeWork,
  largeWorkBegins,
  largeWorkEnds,
} from "./collect.js";

const KEY = Symbol.for("untorn.server");
const g = globalThis as Record<symbol, unknown>;
/** One whole round: every pass after the first. */
const ROUND_MS = COLLECT_PASSES_MS.reduce((a, b) => a + b, 0);
const PASSES = COLLECT_PASSES_MS.length;

describe("the full collections after large work", () => {
  let calls = 0;
  let shift = 0;
  const install = () => {
    g[KEY] = { host: "127.0.0.1", port: 1, peerHeader: "x-untorn-peer", collectGarbage: () => calls++ };
  };
  beforeEach(() => {
    vi.useFakeTimers();
    calls = 0;
    install();
    // Past any interval left by an earlier test (the fake clock starts at the real time each time).
    shift += 10 * COLLECT_MIN_INTERVAL_MS;
    vi.setSystemTime(Date.now() + shift);
  });
  afterEach(() => {
    vi.runOnlyPendingTimers();
    vi.useRealTimers();
    delete g[KEY];
  });

  it("runs one round, after the last of overlapping work ends and the process was quiet", () => {
    expect(PASSES).toBeGreaterThan(1);
    const before = collections();
    largeWorkBegins(); // the read
    largeWorkBegins(); // the kept read's write, started inside it
    largeWorkEnds();
    vi.advanceTimersByTime(COLLECT_DELAY_MS * 5);
    expect(calls).toBe(0); // the write still runs
    largeWorkEnds();
    vi.advanceTimersByTime(COLLECT_DELAY_MS - 1);
    expect(calls).toBe(0);
    vi.advanceTimersByTime(1);
    expect(calls).toBe(1);
    vi.advanceTimersByTime(ROUND_MS);
    expect(calls).toBe(PASSES);
    expect(collections()).toBe(before + 1);
    vi.advanceTimersByTime(COLLECT_MIN_INTERVAL_MS * 3);
    expect(calls).toBe(PASSES);
  });

  it("waits out new work that begins during the quiet time, and ends a round when work begins", () => {
    largeWorkBegins();
    largeWorkEnds();
    vi.advanceTimersByTime(COLLECT_DELAY_MS / 2);
    largeWorkBegins();
    vi.advanceTimersByTime(COLLECT_DELAY_MS * 3);
    expect(calls).toBe(0);
    largeWorkEnds();
    vi.advanceTimersByTime(COLLECT_DELAY_MS);
    expect(calls).toBe(1);
    largeWorkBegins(); // a read begins between the passes: the rest of the round is dropped
    vi.advanceTimersByTime(ROUND_MS * 2);
    expect(calls).toBe(1);
    largeWorkEnds(); // the next round waits for the interval since the dropped one began
    vi.advanceTimersByTime(COLLECT_MIN_INTERVAL_MS + ROUND_MS);
    expect(calls).toBe(1 + PASSES);
  });

  it("runs at most one round per interval", () => {
    largeWorkBegins();
    largeWorkEnds();
    vi.advanceTimersByTime(COLLECT_DELAY_MS + ROUND_MS);
    expect(calls).toBe(PASSES);
    largeWorkBegins();
    largeWorkEnds();
    vi.advanceTimersByTime(COLLECT_MIN_INTERVAL_MS - COLLECT_DELAY_MS - ROUND_MS - 1);
    expect(calls).toBe(PASSES);
    vi.advanceTimersByTime(COLLECT_DELAY_MS + ROUND_MS + 1);
    expect(calls).toBe(2 * PASSES);
  });

  it("runs no round for work that left no garbage, unless earlier work did", () => {
    largeWorkBegins(); // looking for a kept read: there is none
    largeWorkEnds(false);
    vi.advanceTimersByTime(COLLECT_MIN_INTERVAL_MS * 2);
    expect(calls).toBe(0);
    largeWorkBegins(); // a replay's decode
    largeWorkEnds();
    largeWorkBegins(); // the kept read looked for right after it: none
    largeWorkEnds(false);
    vi.advanceTimersByTime(COLLECT_DELAY_MS);
    expect(calls).toBe(1);
  });

  it("counts largeWork as work from its call until its promise settles, fulfilled, rejected or thrown", async () => {
    let finish = () => {};
    const running = largeWork(() => new Promise<void>((resolve) => (finish = resolve)));
    vi.advanceTimersByTime(COLLECT_MIN_INTERVAL_MS);
    expect(calls).toBe(0);
    finish();
    await running;
    vi.advanceTimersByTime(COLLECT_DELAY_MS);
    expect(calls).toBe(1);
    vi.advanceTimersByTime(COLLECT_MIN_INTERVAL_MS + ROUND_MS);
    calls = 0;
    await expect(largeWork(() => Promise.reject(new Error("read failed")))).rejects.toThrow("read failed");
    await expect(
      largeWork(() => {
        throw new Error("thrown before any promise");
      }),
    ).rejects.toThrow("thrown before any promise");
    vi.advanceTimersByTime(COLLECT_DELAY_MS);
    expect(calls).toBe(1); // both ended: quiet again, one round
  });

  it("does nothing without server.mjs's collection (next start, next dev), and never counts below zero work", () => {
    delete g[KEY];
    largeWorkEnds();
    largeWorkEnds();
    largeWorkBegins();
    largeWorkEnds();
    vi.advanceTimersByTime(COLLECT_MIN_INTERVAL_MS * 2);
    expect(calls).toBe(0);
    install();
    largeWorkBegins();
    largeWorkEnds();
    vi.advanceTimersByTime(COLLECT_DELAY_MS);
    expect(calls).toBe(1);
  });
});
