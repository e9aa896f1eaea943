import { CliError } from "@untorn/cli/errors";
import type { SysbenchResult } from "@untorn/testkit/sysbench";
import { describe, expect, it } from "vitest";
import { runBench, settingOf } from "./runner.js";
import type { BenchServer } from "./server.js";
import type { ServerInfo } from "./server-info.js";

/**
 * A server whose counters advance with each sysbench call: every transaction flushes 5 pages, plus 5
 * doublewrite pages when doublewrite is on; the device writes each page once per copy.
 */
function fakeServer(opts: { restartable: boolean; mode?: string; flipDuringRun?: boolean }) {
  const log: string[] = [];
  let mode = opts.mode ?? "on";
  const counters = { trx: 0, flushed: 0, dblwr: 0, disk: 0 };
  const info = (): ServerInfo => ({
    flavor: "mariadb",
    version: "10.11.19-MariaDB",
    doublewrite: mode,
    pageSize: 16384,
    bufferPoolBytes: 64 << 20,
    flushLogAtTrxCommit: 2,
    flushMethod: "O_DIRECT",
    datadir: "/data",
    mdev31124: false,
  });
  const server: BenchServer = {
    kind: opts.restartable ? "throwaway" : "existing",
    label: "fake",
    target: { socket: "/fake.sock", user: "root", password: "", database: "sbtest" },
    volume: undefined,
    writeIops: 0,
    info: async () => info(),
    status: async () =>
      new Map([
        ["Innodb_buffer_pool_pages_flushed", String(counters.flushed)],
        ["Innodb_dblwr_pages_written", String(counters.dblwr)],
        ["Innodb_data_written", String((counters.flushed + counters.dblwr) * 16384)],
        ["Innodb_data_writes", String(counters.flushed)],
      ]),
    diskDevice: async () => "7:3",
    prepare: async () => "created",
    ...(opts.restartable
      ? {
          restartWith: async (on: boolean) => {
            log.push(`restart ${on ? "on" : "off"}`);
            mode = on ? "on" : "off";
          },
        }
      : {}),
    close: async () => undefined,
  };
  const sysbench = async (threads: number, seconds: number): Promise<SysbenchResult> => {
    log.push(`sysbench ${threads}x${seconds}`);
    const trx = threads * seconds * (mode === "on" ? 10 : 20);
    counters.trx += trx;
    counters.flushed += 5 * trx;
    if (mode === "on") counters.dblwr += 5 * trx;
    counters.disk += mode === "on" ? 10 * trx : 5 * trx;
    if (opts.flipDuringRun) mode = "off";
    return {
      transactions: trx,
      tps: trx / seconds,
      qps: 0,
      errors: 0,
      latencyAvgMs: 1,
      latencyP95Ms: 2,
      seconds,
    };
  };
  let clock = 0;
  return {
    server,
    log,
    deps: {
      server,
      sysbench,
      readDisk: async (d: string) =>
        d === "7:3" ? { writes: counters.disk, writeBytes: 0, flushes: undefined } : undefined,
      now: () => (clock += 1000),
    },
  };
}

describe("runBench", () => {
  it("restarts a throwaway server per setting in ABBA order, warms up, then sweeps the threads", async () => {
    const f = fakeServer({ restartable: true });
    const out = await runBench(f.deps, { threads: [1, 4], seconds: 10, warmupSeconds: 5, repeats: 2 });
    expect(f.log).toEqual([
      "restart on",
      "sysbench 4x5",
      "sysbench 1x10",
      "sysbench 4x10",
      "restart off",
      "sysbench 4x5",
      "sysbench 1x10",
      "sysbench 4x10",
      "restart off",
      "sysbench 4x5",
      "sysbench 1x10",
      "sysbench 4x10",
      "restart on",
      "sysbench 4x5",
      "sysbench 1x10",
      "sysbench 4x10",
    ]);
    expect(out.runs.map((r) => `${r.doublewrite}${r.repeat}/${r.threads}`)).toEqual([
      "on1/1",
      "on1/4",
      "off1/1",
      "off1/4",
      "off2/1",
      "off2/4",
      "on2/1",
      "on2/4",
    ]);
    const on = out.runs[0]!.metrics;
    const off = out.runs[2]!.metrics;
    expect(on.dblwrPagesPerTrx).toBe(5);
    expect(off.dblwrPagesPerTrx).toBe(0);
    expect(on.writeBytesPerTrx).toBe(10 * 16384);
    expect(off.writeBytesPerTrx).toBe(5 * 16384);
    expect(on.deviceWritesPerTrx).toBe(10);
    expect(off.deviceWritesPerTrx).toBe(5);
    expect(out.device).toBe("7:3");
    expect(Date.parse(out.runs[0]!.end)).toBeGreaterThan(Date.parse(out.runs[0]!.start));
  });

  it("measures an existing server as it is: no restarts, one warm-up, repeats back to back", async () => {
    const f = fakeServer({ restartable: false, mode: "off" });
    const out = await runBench(f.deps, { threads: [2], seconds: 3, warmupSeconds: 1, repeats: 2 });
    expect(f.log).toEqual(["sysbench 2x1", "sysbench 2x3", "sysbench 2x3"]);
    expect(out.runs.map((r) => r.doublewrite)).toEqual(["off", "off"]);
  });

  it("refuses results when doublewrite changed under it, and modes it does not compare", async () => {
    await expect(
      runBench(fakeServer({ restartable: false, flipDuringRun: true }).deps, {
        threads: [1],
        seconds: 1,
        warmupSeconds: 0,
        repeats: 1,
      }),
    ).rejects.toThrow(/changed from on to off during the bench/);
    expect(() => settingOf("fast")).toThrow(CliError);
    expect(() => settingOf("detect_only")).toThrow(/compares ON and OFF/);
    expect(settingOf("detect_and_recover")).toBe("on");
  });

  it("stops between runs when aborted", async () => {
    const f = fakeServer({ restartable: true });
    const abort = new AbortController();
    const sysbench = f.deps.sysbench;
    let calls = 0;
    const deps = {
      ...f.deps,
      signal: abort.signal,
      sysbench: async (t: number, s: number) => {
        if (++calls === 2) abort.abort(new Error("interrupted"));
        return sysbench(t, s);
      },
    };
    await expect(
      runBench(deps, { threads: [1, 4], seconds: 1, warmupSeconds: 1, repeats: 2 }),
    ).rejects.toThrow("interrupted");
    expect(calls).toBe(2);
  });
});
