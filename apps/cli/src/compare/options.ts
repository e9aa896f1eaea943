/** `untorn compare` flags → validated analysis options, time ranges and query settings. */

import { rateWindowSeconds } from "@untorn/catalog/rate-window";
import { type ComparisonInput, Options } from "@untorn/compare/input";
import { VERDICTS, type Verdict } from "@untorn/compare/result";
import { InvalidDurationError, parseDuration } from "@untorn/prom/duration";
import { CliError, EXIT } from "../errors.js";
import { type CompareMetric, selectMetrics } from "./metrics.js";
import { parseTimeRange, type TimeRange } from "./time-range.js";

export interface CompareFlags {
  input?: string;
  instance?: string;
  control?: string[];
  before?: string;
  after?: string;
  prometheus?: string;
  step?: string;
  rateWindow?: string;
  metrics?: string;
  alpha?: string;
  margin?: string;
  throughputMargin?: string;
  blockSeconds?: string;
  minSamples?: string;
  minBlocks?: string;
  warmup?: string;
  seasonality?: string;
  method?: string;
  seed?: string;
  json?: boolean;
  saveInput?: string;
  samples?: string;
  threads?: string;
  failOn?: string;
}

const usage = (message: string) => new CliError(message, EXIT.usage);

function seconds(flag: string, text: string): number {
  try {
    return parseDuration(text) / 1000;
  } catch (err) {
    if (err instanceof InvalidDurationError) throw usage(`${flag} ${JSON.stringify(text)}: ${err.message}`);
    throw err;
  }
}

function number(flag: string, text: string, integer = false): number {
  const n = Number(text);
  if (text.trim() === "" || !Number.isFinite(n) || (integer && !Number.isInteger(n))) {
    throw usage(`${flag} ${JSON.stringify(text)}: expected ${integer ? "a whole number" : "a number"}`);
  }
  return n;
}

const OPTION_FLAGS: Record<string, string> = {
  alpha: "--alpha",
  equivalenceMargin: "--margin",
  throughputMargin: "--throughput-margin",
  blockSeconds: "--block-seconds",
  minSamples: "--min-samples",
  minBlocks: "--min-blocks",
  warmupSeconds: "--warmup",
  seasonality: "--seasonality",
  method: "--method",
};

/** The analysis options the user gave on the command line, validated by the compare package's schema. */
export function optionOverrides(f: CompareFlags): Partial<ComparisonInput["options"]> {
  const given: Record<string, unknown> = {};
  if (f.alpha !== undefined) given["alpha"] = number("--alpha", f.alpha);
  if (f.margin !== undefined) given["equivalenceMargin"] = number("--margin", f.margin);
  if (f.throughputMargin !== undefined)
    given["throughputMargin"] = number("--throughput-margin", f.throughputMargin);
  if (f.blockSeconds !== undefined)
    given["blockSeconds"] =
      f.blockSeconds === "auto" ? "auto" : number("--block-seconds", f.blockSeconds, true);
  if (f.minSamples !== undefined) given["minSamples"] = number("--min-samples", f.minSamples, true);
  if (f.minBlocks !== undefined) given["minBlocks"] = number("--min-blocks", f.minBlocks, true);
  if (f.warmup !== undefined) given["warmupSeconds"] = seconds("--warmup", f.warmup);
  if (f.seasonality !== undefined) given["seasonality"] = f.seasonality;
  if (f.method !== undefined) given["method"] = f.method;
  const r = Options.safeParse(given);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const key = String(issue.path[0] ?? "");
    throw usage(`${OPTION_FLAGS[key] ?? key}: ${issue.message}`);
  }
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(given)) out[k] = (r.data as Record<string, unknown>)[k];
  return out as Partial<ComparisonInput["options"]>;
}

export function parseSeed(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = number("--seed", text, true);
  if (n < 0 || n > 2 ** 32 - 1) throw usage(`--seed ${text}: expected 0 to ${2 ** 32 - 1}`);
  return n;
}

export function parseFailOn(text: string | undefined): Verdict[] {
  if (text === undefined) return [];
  const list = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const v of list) {
    if (!(VERDICTS as readonly string[]).includes(v)) {
      throw usage(`--fail-on ${JSON.stringify(v)}: expected verdicts from ${VERDICTS.join(", ")}`);
    }
  }
  return list as Verdict[];
}

export interface LivePlan {
  readonly instance: string;
  readonly controls: string[];
  readonly before: TimeRange;
  readonly after: TimeRange;
  readonly step: number;
  readonly rateWindow: string;
  readonly metrics: CompareMetric[];
}

/** Checks the flags of the Prometheus form; `now` resolves relative times. */
export function livePlan(f: CompareFlags, now: number): LivePlan {
  if (!f.instance) throw usage("give --instance <name> (or --input <file> to compare a saved input)");
  for (const flag of ["before", "after"] as const) {
    if (!f[flag]) throw usage(`give --${flag} <start>..<end>, e.g. --${flag} -2h..-1h`);
  }
  const range = (flag: "before" | "after") => {
    try {
      return parseTimeRange(f[flag]!, now);
    } catch (err) {
      if (err instanceof RangeError) throw usage(`--${flag} ${err.message}`);
      throw err;
    }
  };
  const before = range("before");
  const after = range("after");
  const controls = [...new Set(f.control ?? [])];
  if (controls.includes(f.instance)) throw usage(`--control ${f.instance} is the treated --instance itself`);
  const step = seconds("--step", f.step ?? "15s");
  if (step <= 0) throw usage("--step must be longer than 0");
  for (const [name, r] of [
    ["--before", before],
    ["--after", after],
  ] as const) {
    if (r.end - r.start < 2 * step) throw usage(`${name} is shorter than two --step intervals (${step} s)`);
  }
  const rateWindow = f.rateWindow ?? `${Math.round(rateWindowSeconds(step) * 1000)}ms`;
  const rateSeconds = seconds("--rate-window", rateWindow);
  if (rateSeconds < step) {
    throw usage(
      `--rate-window ${rateWindow} is shorter than --step: samples between points would be skipped`,
    );
  }
  let metrics: CompareMetric[];
  try {
    metrics = selectMetrics(
      f.metrics
        ?.split(",")
        .map((s) => s.trim())
        .filter(Boolean),
    );
  } catch (err) {
    if (err instanceof RangeError) throw usage(`--metrics: ${err.message}`);
    throw err;
  }
  return {
    instance: f.instance,
    controls,
    before,
    after,
    step,
    rateWindow: normaliseWindow(rateSeconds),
    metrics,
  };
}

/** Seconds → the shortest PromQL duration text ("4s", "1m", "1500ms"). */
function normaliseWindow(s: number): string {
  const ms = Math.round(s * 1000);
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/** How --save-input writes the samples: compact (decimal, readable; the default) or f64 (base64 float64s). */
export function parseSamplesForm(text: string | undefined): "compact" | "f64" {
  if (text === undefined || text === "compact") return "compact";
  if (text === "f64") return "f64";
  throw usage(`--samples ${text}: expected compact or f64`);
}

/** --threads: a whole number of worker threads, 1 or more ("auto" or absent: undefined). */
export function parseThreads(text: string | undefined): number | undefined {
  if (text === undefined || text === "auto") return undefined;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 256)
    throw usage(`--threads ${text}: expected auto or a whole number of threads from 1 to 256`);
  return n;
}
