/**
 * Where fleet data comes from: a live Prometheus (--prometheus / PROMETHEUS_URL) or a replay file
 * (--replay), plus the flags every reading command shares (--window, --at, --match).
 */
import { readFile } from "node:fs/promises";
import type { Matcher, Selector } from "@untorn/catalog/promql";
import { DEFAULT_FLEET_WINDOW } from "@untorn/catalog/rules";
import type { PromQueryApi } from "@untorn/fleet/api";
import type { FleetFactsOptions, RecordingRulesUse } from "@untorn/fleet/facts";
import {
  decodeReplayApi,
  type ReplayApi,
  ReplayFormatError,
  type ReplayMeta,
  ReplayMissError,
  replayFactsOptions,
  shownRecordedFrom,
} from "@untorn/fleet/replay";
import { PromClient } from "@untorn/prom/client";
import { TIME_RANGE_PRESETS, TimeRange, WindowDuration } from "@untorn/prom/duration";
import { PromError, PromUnreachableError } from "@untorn/prom/errors";
import type { Command } from "commander";
import { loadEnv, PrometheusUrl } from "./env.js";
import { CliError, describeIssues, EXIT } from "./errors.js";
import type { Io } from "./io.js";

/** The window untorn.window records, so a default profile reads one sample per series. */
export const DEFAULT_WINDOW = DEFAULT_FLEET_WINDOW;

export interface SourceFlags {
  prometheus?: string;
  window?: string;
  at?: string;
  match?: string[];
  replay?: string;
}

export interface Source {
  readonly api: PromQueryApi;
  /** The Prometheus base URL (credentials removed), or null for a replay. */
  readonly url: string | null;
  /** Replay metadata when reading a recording. */
  readonly replay: (ReplayMeta & { readonly file: string }) | null;
  readonly facts: FleetFactsOptions & { readonly window: string };
}

/** --prometheus, --window, --at and --match on a command. */
export function sourceOptions(cmd: Command, opts: { window?: string } = {}): Command {
  return cmd
    .option("--prometheus <url>", "Prometheus base URL (default: $PROMETHEUS_URL)")
    .option(
      "--window <duration>",
      `time range the workload statistics cover: ${TIME_RANGE_PRESETS.join(", ")} or a PromQL duration from 30s to 30d, as the console's ?range= (default: ${opts.window ?? DEFAULT_WINDOW}, or the replay's)`,
    )
    .option(
      "--at <time>",
      "end of the window: RFC 3339 time or Unix seconds (default: now, or the replay's end)",
    )
    .option(
      "--match <matcher>",
      'label matcher ANDed into every query, e.g. cluster=prod or env=~"prod|staging" (repeatable)',
      (v: string, prev: string[] = []) => [...prev, v],
    );
}

/** --window takes the console's time ranges (TimeRange); --span and --every any PromQL duration. */
export function parseWindow(text: string, flag = "--window"): string {
  const r = (flag === "--window" ? TimeRange : WindowDuration).safeParse(text);
  if (!r.success)
    throw new CliError(`${flag} ${JSON.stringify(text)}: ${r.error.issues[0]?.message}`, EXIT.usage);
  return r.data;
}

export function parseAt(text: string): number {
  if (/^\d+(\.\d+)?$/.test(text)) {
    const s = Number(text);
    if (s > 1e11) throw new CliError(`--at ${text} looks like milliseconds: give Unix seconds`, EXIT.usage);
    return s;
  }
  const ms = Date.parse(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(ms))
    throw new CliError(
      `--at ${JSON.stringify(text)}: expected an RFC 3339 time (2026-01-31T12:00:00Z) or Unix seconds`,
      EXIT.usage,
    );
  return ms / 1000;
}

const MATCHER = /^([a-zA-Z_][a-zA-Z0-9_]*)(=~|!~|!=|=)(.*)$/;

export function parseMatch(list: readonly string[] = []): Selector {
  const out: Record<string, Matcher> = {};
  for (const m of list) {
    const p = MATCHER.exec(m);
    if (!p)
      throw new CliError(
        `--match ${JSON.stringify(m)}: expected label=value, label!=value, label=~regex or label!~regex`,
        EXIT.usage,
      );
    const value = p[3]!.replace(/^"(.*)"$/, "$1");
    out[p[1]!] = { op: p[2] as Matcher["op"], value };
  }
  return out;
}

const sameSelector = (a: Selector, b: Selector) => {
  const norm = (s: Selector) =>
    JSON.stringify(
      Object.entries(s)
        .map(([k, v]) => [k, typeof v === "string" ? { op: "=", value: v } : v])
        .sort(),
    );
  return norm(a) === norm(b);
};

/** Opens the replay file or the Prometheus connection the flags name. */
export async function openSource(
  flags: SourceFlags,
  io: Io,
  defaults: { window?: string } = {},
): Promise<Source> {
  const at = flags.at === undefined ? undefined : parseAt(flags.at);
  const window = flags.window === undefined ? undefined : parseWindow(flags.window);
  const selector = parseMatch(flags.match);
  if (flags.replay !== undefined) {
    if (flags.prometheus !== undefined)
      throw new CliError("give either --replay <file> or --prometheus <url>, not both", EXIT.usage);
    const meta = await readReplay(flags.replay);
    const replayApi = meta.api;
    if (window !== undefined && window !== meta.meta.window)
      throw new CliError(
        `${flags.replay} was recorded with --window ${meta.meta.window}; it cannot answer --window ${window}`,
        EXIT.usage,
      );
    if (flags.match?.length && !sameSelector(selector, meta.meta.plan.selector))
      throw new CliError(
        `${flags.replay} was recorded with other --match matchers; it answers only those`,
        EXIT.usage,
      );
    const facts = replayFactsOptions(meta.meta);
    return {
      api: replayApi,
      url: null,
      replay: { ...meta.meta, file: flags.replay },
      facts: { ...facts, at: at ?? facts.at ?? meta.meta.end },
    };
  }
  const env = loadEnv(io.env);
  let url = env.PROMETHEUS_URL;
  if (flags.prometheus !== undefined) {
    const r = PrometheusUrl.safeParse(flags.prometheus);
    if (!r.success)
      throw new CliError(
        `--prometheus ${JSON.stringify(flags.prometheus)}: ${r.error.issues[0]?.message}`,
        EXIT.usage,
      );
    url = r.data;
  }
  if (url === undefined)
    throw new CliError(
      "no Prometheus to read: pass --prometheus <url> or set PROMETHEUS_URL (or --replay <file> to read a recording)",
      EXIT.usage,
    );
  const client = new PromClient({ baseUrl: url });
  return {
    api: client,
    url: client.baseUrl,
    replay: null,
    facts: {
      window: window ?? defaults.window ?? DEFAULT_WINDOW,
      ...(at !== undefined ? { at } : {}),
      selector,
    },
  };
}

async function readReplay(path: string): Promise<{ api: ReplayApi; meta: ReplayMeta }> {
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    throw new CliError(`cannot read replay file ${path}: ${(err as Error).message}`, EXIT.invalidInput);
  }
  try {
    const api = decodeReplayApi(bytes);
    return { api, meta: api.meta };
  } catch (err) {
    if (err instanceof ReplayFormatError)
      throw new CliError(
        `${path} is ${err.message}${err.issues.length ? `:\n${describeIssues(err.issues)}` : ""}`,
        EXIT.invalidInput,
      );
    throw err;
  }
}

/** Turns the engine's and the client's errors into messages for the user, with the exit code. */
export function explain(err: unknown, source?: Source): unknown {
  if (err instanceof CliError) return err;
  if (err instanceof PromUnreachableError)
    return new CliError(
      `${err.message}\nCheck --prometheus / PROMETHEUS_URL and that Prometheus is running there.`,
      EXIT.failure,
    );
  if (err instanceof PromError) return new CliError(err.message, EXIT.failure);
  if (err instanceof ReplayMissError)
    return new CliError(
      `${err.message}\nA replay answers only what \`untorn record\` captured${source?.replay ? ` (window ${source.replay.window}, ${new Date(source.replay.start * 1000).toISOString()} to ${new Date(source.replay.end * 1000).toISOString()})` : ""}.`,
      EXIT.failure,
    );
  if (err instanceof RangeError) return new CliError(err.message, EXIT.usage);
  return err;
}

/** One line saying where the data came from, for the top of text output. */
/**
 * Where the window statistics came from, for the line under the source: untorn.window's recorded
 * statistics (and how old they may be), the recording rules' per-instance rates (and why not the
 * former), or raw series and why (live Prometheus only: a replay always holds the raw plan's answers).
 */
export function ratesLine(s: Source, rules: RecordingRulesUse): string {
  if (rules.tier === "window") return `; window statistics from the recording rules (${rules.windowNote})`;
  if (rules.used) return `; rates from the recording rules (${rules.windowNote})`;
  if (s.replay) return "";
  return `; rates recomputed from raw series (${rules.fallbackReason}: slower on large fleets, see docs/scaling.md)`;
}

export function sourceLine(s: Source, at: number): string {
  const when = new Date(at * 1000).toISOString();
  if (s.replay)
    return `RECORDED DATA from ${s.replay.file} (recorded from ${shownRecordedFrom(s.replay.recordedFrom)} at ${s.replay.recordedAt}), at ${when}, window ${s.facts.window}`;
  return `${s.url} at ${when}, window ${s.facts.window}`;
}
