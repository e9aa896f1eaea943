// Benchmark: decoding an instant query's answer, the fleet profile's hot path at 10,000 instances (76
// requests, up to 8 series per instance each). Side by side in one process, rounds alternating which
// goes first: the previous decode (every sample through the zod schema) and the current one (a plain
// loop for vectors, zod only for what the loop does not plainly accept). Both from the same JSON text,
// parsed afresh for each (JSON.parse is timed apart: the same for both). Checks both decode the same.
// Writes bench/results/prom-decode.json. Run: npm run bench -w @untorn/prom
import { writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { isDeepStrictEqual } from "node:util";
import { decode, decodeQueryData, QueryDataSchema } from "../src/result.js";

const ROUNDS = 7;
const SIZES = [
  { instances: 1_000, seriesPerInstance: 1 },
  { instances: 10_000, seriesPerInstance: 1 },
  { instances: 10_000, seriesPerInstance: 8 },
];
const here = path.dirname(fileURLToPath(import.meta.url));
const out = path.resolve(here, "../../../bench/results/prom-decode.json");
const log = (m: string) => process.stderr.write(`[bench prom decode] ${m}\n`);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

/** An instant answer as Prometheus sends it: job/instance labels, a file class where split. */
function answer(instances: number, perInstance: number): string {
  const result = [];
  for (let i = 0; i < instances; i++)
    for (let c = 0; c < perInstance; c++)
      result.push({
        metric: {
          instance: `db-${i}.example.internal:9105`,
          job: "untorn",
          ...(perInstance > 1 ? { class: `class-${c}` } : {}),
        },
        value: [1_764_000_000.123, String(Math.random() * 10_000)],
      });
  return JSON.stringify({ resultType: "vector", result });
}

const variants = {
  previous: (data: unknown) => decode(QueryDataSchema, data, "data"),
  current: (data: unknown) => decodeQueryData(data, "vector"),
};

const loadBefore = loadavg()[0]!;
const rows = [];
for (const size of SIZES) {
  const text = answer(size.instances, size.seriesPerInstance);
  const samples = size.instances * size.seriesPerInstance;
  const same = isDeepStrictEqual(variants.previous(JSON.parse(text)), variants.current(JSON.parse(text)));
  if (!same) throw new Error(`the two decodes differ at ${samples} samples`);
  const ms: Record<keyof typeof variants | "jsonParse", number[]> = {
    previous: [],
    current: [],
    jsonParse: [],
  };
  for (let r = 0; r < ROUNDS; r++) {
    const order = r % 2 ? (["current", "previous"] as const) : (["previous", "current"] as const);
    for (const v of order) {
      const t0 = performance.now();
      const data = JSON.parse(text);
      const t1 = performance.now();
      variants[v](data);
      ms[v].push(performance.now() - t1);
      ms.jsonParse.push(t1 - t0);
    }
  }
  const row = {
    ...size,
    samples,
    bytes: text.length,
    decodeMs: { previous: round(median(ms.previous)), current: round(median(ms.current)) },
    jsonParseMs: round(median(ms.jsonParse)),
    ratio: round(median(ms.current.map((c, i) => c / ms.previous[i]!)), 3),
    sameResult: same,
  };
  log(JSON.stringify(row));
  rows.push(row);
}
writeFileSync(
  out,
  `${JSON.stringify(
    {
      benchmark:
        "Prometheus client: decoding an instant vector answer, previous (zod per sample) vs current (plain loop, zod for anything odd)",
      when: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? "",
        memoryGiB: Math.round(totalmem() / 2 ** 30),
        node: process.version,
        loadAverage1mBefore: round(loadBefore, 1),
        loadAverage1mAfter: round(loadavg()[0]!, 1),
      },
      rounds: ROUNDS,
      rows,
    },
    null,
    2,
  )}\n`,
);
log(`wrote ${path.relative(process.cwd(), out)}`);
