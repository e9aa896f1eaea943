/**
 * The bench procedure: per repeat, each doublewrite setting in ABBA order (ON, OFF, then OFF, ON), a
 * restart, a warm-up and one run per thread count; an existing server is measured as it is, repeats
 * back to back. SHOW GLOBAL STATUS and device counters are read around every run.
 */

import { CliError, EXIT } from "@untorn/cli/errors";
import type { SysbenchResult } from "@untorn/testkit/sysbench";
import type { DiskCounters } from "./device.js";
import { pickCounters, type RunSample, runMetrics } from "./measure.js";
import type { BenchRun, Setting } from "./result.js";
import type { BenchServer } from "./server.js";
import type { ServerInfo } from "./server-info.js";

export interface BenchPlan {
  threads: readonly number[];
  seconds: number;
  warmupSeconds: number;
  repeats: number;
}

export interface RunnerDeps {
  server: BenchServer;
  sysbench(threads: number, seconds: number, signal?: AbortSignal): Promise<SysbenchResult>;
  readDisk(majorMinor: string): Promise<DiskCounters | undefined>;
  now?: () => number;
  progress?: (message: string) => void;
  signal?: AbortSignal;
}

export interface RunnerOutput {
  runs: BenchRun[];
  info: ServerInfo;
  device: string | undefined;
}

/** innodb_doublewrite as the bench's two settings; other modes are not what it compares. */
export function settingOf(mode: string): Setting {
  if (mode === "on" || mode === "detect_and_recover") return "on";
  if (mode === "off") return "off";
  throw new CliError(
    `innodb_doublewrite is ${mode.toUpperCase()} here: untorn-bench compares ON and OFF (DETECT_ONLY writes no page copies, MariaDB's fast skips data-file syncs; docs/reference/mysql.md §1.4, docs/reference/mariadb.md §2.2)`,
    EXIT.failure,
  );
}

export async function runBench(deps: RunnerDeps, plan: BenchPlan): Promise<RunnerOutput> {
  const { server, signal } = deps;
  const now = deps.now ?? Date.now;
  const say = deps.progress ?? (() => undefined);
  const runs: BenchRun[] = [];
  const device = await server.diskDevice();
  let info = await server.info();
  const maxThreads = Math.max(...plan.threads);

  const sample = async (): Promise<RunSample> => ({
    status: pickCounters(await server.status()),
    disk: device ? await deps.readDisk(device) : undefined,
    at: now(),
  });

  const phase = async (setting: Setting, repeat: number, warmup: boolean) => {
    const label = `doublewrite ${setting.toUpperCase()}, repeat ${repeat}/${plan.repeats}`;
    if (warmup && plan.warmupSeconds > 0) {
      signal?.throwIfAborted();
      say(`${label}: ${plan.warmupSeconds} s warm-up at ${maxThreads} threads`);
      await deps.sysbench(maxThreads, plan.warmupSeconds, signal);
    }
    for (const threads of plan.threads) {
      signal?.throwIfAborted();
      say(`${label}: ${threads} threads, ${plan.seconds} s`);
      const before = await sample();
      const result = await deps.sysbench(threads, plan.seconds, signal);
      const after = await sample();
      runs.push({
        doublewrite: setting,
        repeat,
        threads,
        start: new Date(before.at).toISOString(),
        end: new Date(after.at).toISOString(),
        metrics: runMetrics(before, after, result, info),
      });
    }
  };

  if (server.restartWith) {
    for (let repeat = 1; repeat <= plan.repeats; repeat++) {
      const order: Setting[] = repeat % 2 === 1 ? ["on", "off"] : ["off", "on"];
      for (const setting of order) {
        signal?.throwIfAborted();
        say(`doublewrite ${setting.toUpperCase()}, repeat ${repeat}/${plan.repeats}: restarting`);
        await server.restartWith(setting === "on");
        info = await server.info();
        if (settingOf(info.doublewrite) !== setting) {
          throw new Error(`restarted with doublewrite ${setting} but the server reports ${info.doublewrite}`);
        }
        await phase(setting, repeat, true);
      }
    }
  } else {
    const setting = settingOf(info.doublewrite);
    for (let repeat = 1; repeat <= plan.repeats; repeat++) await phase(setting, repeat, repeat === 1);
    const end = await server.info();
    if (end.doublewrite !== info.doublewrite) {
      throw new CliError(
        `innodb_doublewrite changed from ${info.doublewrite} to ${end.doublewrite} during the bench: the runs mix both settings; run it again`,
        EXIT.failure,
      );
    }
  }
  return { runs, info, device };
}
