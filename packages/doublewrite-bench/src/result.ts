/** The saved bench result (bench.json): runs, setup and summary. Read back by `untorn-bench --against`. */
import { FLAVORS } from "@untorn/vocabulary/words";
import { z } from "zod";

export const SETTINGS = ["on", "off"] as const;
export const Setting = z.enum(SETTINGS);
export type Setting = z.infer<typeof Setting>;

const n = z.number();
const nn = z.number().nullable();

export const RunMetricsSchema = z.strictObject({
  transactions: n,
  seconds: n,
  tps: n,
  latencyAvgMs: n,
  latencyP95Ms: n,
  errors: n,
  writeOpsPerTrx: nn,
  writeBytesPerTrx: nn,
  fsyncsPerTrx: nn,
  dblwrPagesPerTrx: nn,
  pagesFlushedPerTrx: nn,
  redoBytesPerTrx: nn,
  innodbWriteOpsPerSec: nn,
  freePageWaitsPerSec: nn,
  deviceWritesPerTrx: nn,
  deviceWriteIops: nn,
  deviceFlushesPerSec: nn,
});

export const BenchRun = z.strictObject({
  doublewrite: Setting,
  repeat: z.number().int().min(1),
  threads: z.number().int().min(1),
  start: z.iso.datetime().describe("When the measured run started (after warm-up)."),
  end: z.iso.datetime(),
  metrics: RunMetricsSchema,
});
export type BenchRun = z.infer<typeof BenchRun>;

const Range = z.strictObject({ median: n, min: n, max: n });
export type Range = z.infer<typeof Range>;

export const Change = z.strictObject({
  /** OFF ÷ ON − 1 of the medians. */
  estimate: n,
  /** Noise range: min OFF ÷ max ON − 1 to max OFF ÷ min ON − 1. */
  low: n,
  high: n,
  call: z.enum(["up", "down", "within noise", "single run"]),
});
export type Change = z.infer<typeof Change>;

export const SUMMARY_METRICS = [
  "tps",
  "latencyP95Ms",
  "writeOpsPerTrx",
  "writeBytesPerTrx",
  "fsyncsPerTrx",
  "dblwrPagesPerTrx",
  "deviceWritesPerTrx",
] as const;
export type SummaryMetric = (typeof SUMMARY_METRICS)[number];

const Group = z.strictObject({
  runs: z.number().int(),
  metrics: z.record(z.enum(SUMMARY_METRICS), Range.nullable()),
});
export type Group = z.infer<typeof Group>;

export const SummaryRow = z.strictObject({
  threads: z.number().int(),
  on: Group.nullable(),
  off: Group.nullable(),
  changes: z.record(z.enum(SUMMARY_METRICS), Change.nullable()),
});
export type SummaryRow = z.infer<typeof SummaryRow>;

export const BenchResult = z
  .strictObject({
    version: z.literal(1),
    startedAt: z.iso.datetime(),
    finishedAt: z.iso.datetime(),
    server: z.strictObject({
      kind: z.enum(["throwaway", "existing"]),
      label: z.string(),
      flavor: z.enum(FLAVORS),
      version: z.string(),
      pageSize: n,
      bufferPoolBytes: n,
      flushLogAtTrxCommit: n,
      flushMethod: z.string(),
      mdev31124: z.boolean(),
      restartsBetweenRepeats: z
        .boolean()
        .describe(
          "Whether repeats crossed server restarts (throwaway only; docs/reference/iops-metering.md §11).",
        ),
    }),
    volume: z
      .strictObject({ writeIops: n, meterKiB: n, sizeMiB: n, device: z.string() })
      .nullable()
      .describe("The emulated IOPS-limited volume, when used."),
    workload: z.strictObject({
      test: z.literal("oltp_write_only"),
      tables: z.number().int(),
      tableSize: z.number().int(),
      randType: z.string(),
      threads: z.array(z.number().int()),
      seconds: n,
      warmupSeconds: n,
      repeats: z.number().int(),
      rate: n.describe("sysbench --rate: transactions/s offered; 0 = as fast as possible."),
    }),
    machine: z.strictObject({ cpus: z.number().int(), kernel: z.string(), node: z.string() }),
    exporter: z.strictObject({ address: z.string() }).nullable(),
    runs: z.array(BenchRun),
    summary: z.array(SummaryRow),
    notes: z.array(z.string()),
  })
  .describe("Result of `untorn-bench`: sysbench oltp_write_only with doublewrite on and off.");
export type BenchResult = z.infer<typeof BenchResult>;
