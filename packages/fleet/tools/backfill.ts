// Backfills synthetic untorn-exporter history into TSDB blocks with promtool, for the real-Prometheus test
// and the benchmark: OpenMetrics text from src/testing/synthetic.ts, then
// `promtool tsdb create-blocks-from openmetrics`. Start prometheus with storagePath = the returned dir.
import { execFile } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import {
  type HistoryOptions,
  history,
  type SyntheticInstance,
  sampleCount,
} from "@untorn/fleet/testing/synthetic";
import { requireBinary } from "@untorn/testkit/process";

const run = promisify(execFile);

export interface Backfill {
  /** TSDB directory with the blocks. */
  readonly dir: string;
  readonly samples: number;
  readonly openMetricsBytes: number;
  readonly generateMs: number;
  readonly promtoolMs: number;
}

export async function backfill(
  instances: readonly SyntheticInstance[],
  o: HistoryOptions,
  workDir: string,
): Promise<Backfill> {
  const promtool = requireBinary("promtool", "prometheus");
  await mkdir(workDir, { recursive: true });
  const file = join(workDir, "history.om");
  const dir = join(workDir, "tsdb");
  const t0 = performance.now();
  const out = createWriteStream(file);
  let bytes = 0;
  for (const chunk of history(instances, o)) {
    bytes += chunk.length;
    if (!out.write(chunk)) await new Promise<void>((r) => out.once("drain", () => r()));
  }
  await new Promise<void>((resolve, reject) =>
    out.end((err?: Error | null) => (err ? reject(err) : resolve())),
  );
  const t1 = performance.now();
  await run(promtool, ["tsdb", "create-blocks-from", "openmetrics", "--quiet", file, dir], {
    maxBuffer: 64 << 20,
  });
  const t2 = performance.now();
  await rm(file, { force: true });
  return {
    dir,
    samples: sampleCount(instances, o),
    openMetricsBytes: bytes,
    generateMs: t1 - t0,
    promtoolMs: t2 - t1,
  };
}
