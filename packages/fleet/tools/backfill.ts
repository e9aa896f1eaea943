// Backfills synthetic untorn-exporter history into TSDB blocks with promtool, for the real-Prometheus test
// and the benchmark: OpenMetrics text from src/testing/synthetic.ts, then
// `promtool tsdb create-blocks-from openmetrics`. Start prometheus with storagePath = the returned dir.
import { execFile } from "node:child_process";
import { createWriteStream } from "node:fs";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { recordingRuleGroups } from "@untorn/catalog/rules";
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

/**
 * Evaluates a group of the catalog's recording rules over [start, end] against a running prometheus, with
 * `promtool tsdb create-blocks-from rules`, into TSDB blocks in `outDir`. Move them into the TSDB and
 * restart prometheus: it then has the recorded series as if the rules had been loaded all along.
 * - "rates": the untorn.rates group's rules over raw series (the ones the fleet profile reads); the
 *   prometheus holds the raw history.
 * - "window": the untorn.window group, which reads the per-instance rates: the prometheus must already
 *   hold the "rates" blocks (promtool evaluates the rules by querying it, one group pass at a time).
 *   Its statistics over a window need the rates over that window before `start`.
 * The rule file is JSON (YAML's subset), written from @untorn/catalog/rules.
 */
export async function backfillRecordingRules(
  promUrl: string,
  o: { start: number; end: number; evalSeconds: number },
  outDir: string,
  group: "rates" | "window" = "rates",
): Promise<{ dir: string; rules: number; promtoolMs: number }> {
  const promtool = requireBinary("promtool", "prometheus");
  await mkdir(outDir, { recursive: true });
  const file = join(outDir, "rules.json");
  const rules = group === "rates" ? await writeRateRules(file) : await writeWindowRules(file);
  const dir = join(outDir, "blocks");
  const t0 = performance.now();
  await run(
    promtool,
    [
      "tsdb",
      "create-blocks-from",
      "rules",
      "--quiet",
      `--url=${promUrl}`,
      `--start=${o.start}`,
      `--end=${o.end}`,
      `--eval-interval=${o.evalSeconds}s`,
      `--output-dir=${dir}`,
      file,
    ],
    { maxBuffer: 64 << 20 },
  );
  return { dir, rules, promtoolMs: performance.now() - t0 };
}

/** OpenMetrics (seconds) → Prometheus text with millisecond timestamps, as VictoriaMetrics imports it. */
export const toVmImportText = (chunk: string): string =>
  chunk
    .split("\n")
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => `${l}000`)
    .join("\n");

/** Imports the synthetic history into VictoriaMetrics (/api/v1/import/prometheus), chunk by chunk. */
export async function importHistory(
  vm: { importPrometheus(text: string): Promise<void>; flush(): Promise<void> },
  instances: readonly SyntheticInstance[],
  o: HistoryOptions,
): Promise<{ ms: number }> {
  const t0 = performance.now();
  for (const chunk of history(instances, o)) await vm.importPrometheus(toVmImportText(chunk));
  await vm.flush();
  return { ms: performance.now() - t0 };
}

/**
 * Writes the catalog's per-instance rate rules over raw series (the untorn.rates group less the rules
 * over other rules' series, which a backfill cannot evaluate in the same pass) as a rule file; returns
 * how many. JSON, which both promtool and vmalert read as YAML.
 */
export async function writeRateRules(file: string): Promise<number> {
  const rules = recordingRuleGroups
    .filter((g) => g.name === "untorn.rates")
    .flatMap((g) => g.rules)
    .filter((r) => !/\binstance:untorn_/.test(r.expr));
  await writeFile(
    file,
    JSON.stringify({
      groups: [{ name: "untorn.rates", rules: rules.map((r) => ({ record: r.record, expr: r.expr })) }],
    }),
  );
  return rules.length;
}

/** The untorn.window group (with its evaluation interval) as a rule file; returns how many rules. */
export async function writeWindowRules(file: string): Promise<number> {
  const g = windowGroup();
  await writeFile(
    file,
    JSON.stringify({
      groups: [
        {
          name: g.name,
          ...(g.interval ? { interval: g.interval } : {}),
          rules: g.rules.map((r) => ({ record: r.record, expr: r.expr })),
        },
      ],
    }),
  );
  return g.rules.length;
}

/** The catalog's untorn.window group. */
export function windowGroup(): (typeof recordingRuleGroups)[number] {
  const g = recordingRuleGroups.find((x) => x.name === "untorn.window");
  if (!g) throw new Error("the catalog has no untorn.window group");
  return g;
}
