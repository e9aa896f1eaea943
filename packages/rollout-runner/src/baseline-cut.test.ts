import type { MatrixSeries } from "@untorn/fleet/api";
import { describe, expect, it } from "vitest";
import { cutBaseline } from "./observe.js";

const before = { start: 1_800_000_000, end: 1_800_003_600 };
/** uptime_seconds every 15 s over the baseline for a server started at `startedAt`. */
const uptime = (instance: string, startedAt: number): MatrixSeries => {
  const points: [number, number][] = [];
  for (let t = Math.max(before.start, startedAt + 15); t <= before.end; t += 15)
    points.push([t, t - startedAt]);
  return { labels: { instance }, points };
};
const config = (instance: string, from: number, to: number, flush: string): MatrixSeries => {
  const points: [number, number][] = [];
  for (let t = from; t <= to; t += 15) points.push([t, 1]);
  return { labels: { instance, innodb_flush_method: flush }, points };
};

describe("the baseline from history, cut clean of restarts and changes", () => {
  it("keeps the whole hour when nothing restarted or changed", () => {
    const r = cutBaseline(
      [uptime("a", before.start - 86_400), uptime("b", before.start - 7200)],
      [config("a", before.start, before.end, "O_DIRECT")],
      before,
      600,
    );
    expect(r).toEqual({ start: before.start, end: before.end, notes: [] });
  });

  it("starts after a restart plus the warm-up, and says which instance and when", () => {
    // b restarted 20 minutes into the baseline: its uptime falls to 0 there.
    const restartAt = before.start + 1200;
    const b: MatrixSeries = {
      labels: { instance: "b" },
      points: [
        ...uptime("b", before.start - 7200).points.filter(([t]) => t < restartAt),
        ...uptime("b", restartAt).points,
      ],
    };
    const r = cutBaseline([uptime("a", before.start - 86_400), b], [], before, 600);
    expect(r.start).toBe(restartAt + 600);
    expect(r.notes).toEqual([
      "baseline cut to 30 min of the 60 min asked: b restarted at 2027-01-15T08:20:00Z (warm-up of 600 s excluded after it)",
    ]);
  });

  it("a server started inside the window (a stack's start-up) cuts it too", () => {
    const r = cutBaseline([uptime("a", before.start + 300)], [], before, 600);
    expect(r.start).toBe(before.start + 900);
    expect(r.notes[0]).toMatch(/a restarted at/);
  });

  it("starts after a change of InnoDB settings (a new config_info label set)", () => {
    const changedAt = before.start + 2400;
    const r = cutBaseline(
      [uptime("a", before.start - 86_400)],
      [config("a", before.start, changedAt - 15, "fsync"), config("a", changedAt, before.end, "O_DIRECT")],
      before,
      600,
    );
    expect(r.start).toBe(changedAt);
    expect(r.notes[0]).toMatch(
      /^baseline cut to 20 min of the 60 min asked: the InnoDB settings of a changed at/,
    );
  });

  describe("a changed instance restarted for its change before its step was marked done", () => {
    // The operator restarted a at `restartAt` (the change), then marked the step done at before.end.
    const restartAt = before.end - 90;
    const restarted: MatrixSeries = {
      labels: { instance: "a" },
      points: [
        ...uptime("a", before.start - 86_400).points.filter(([t]) => t < restartAt),
        ...uptime("a", restartAt).points,
      ],
    };
    const flushChange = [
      config("a", before.start, restartAt - 15, "O_DIRECT"),
      config("a", restartAt + 15, before.end, "fsync"),
    ];

    it("ends the baseline at that restart and says so, instead of cutting the whole baseline", () => {
      const r = cutBaseline([restarted, uptime("b", before.start - 7200)], flushChange, before, 600, {
        instances: ["a"],
        since: before.end - 300,
      });
      expect(r).toEqual({
        start: before.start,
        end: restartAt,
        notes: [
          "baseline ends at a's restart for the change (2027-01-15T08:58:30Z), 90 s before its step was marked done",
        ],
      });
    });

    it("without the wave's start (an older core) the restart still cuts the baseline, as before", () => {
      const r = cutBaseline([restarted], flushChange, before, 600);
      expect(r.end).toBe(before.end);
      expect(r.start).toBe(before.end);
    });

    it("a restart before the wave's steps began is not the change's: it cuts the baseline", () => {
      const early = before.start + 600;
      const a: MatrixSeries = {
        labels: { instance: "a" },
        points: [
          ...uptime("a", before.start - 86_400).points.filter(([t]) => t < early),
          ...uptime("a", early).points,
        ],
      };
      const r = cutBaseline([a], [], before, 600, { instances: ["a"], since: before.end - 300 });
      expect(r.end).toBe(before.end);
      expect(r.start).toBe(early + 600);
    });

    it("a control's restart after the wave began is not the change's own: it cuts as any restart", () => {
      const b: MatrixSeries = { ...restarted, labels: { instance: "b" } };
      const r = cutBaseline([b], [], before, 600, { instances: ["a"], since: before.end - 300 });
      expect(r.end).toBe(before.end);
      expect(r.start).toBe(before.end);
      expect(r.notes[0]).toMatch(/b restarted at/);
    });
  });
});
