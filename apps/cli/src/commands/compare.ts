import { writeFile } from "node:fs/promises";
import {
  type ComparisonInput,
  type ComparisonInputJson,
  Options,
  parseComparisonInput,
  toF64Window,
} from "@untorn/compare/input";
import type { ComparisonResult } from "@untorn/compare/result";
import { nowOf } from "@untorn/fleet/api";
import type { Command } from "commander";
import { fetchComparisonInput } from "../compare/fetch.js";
import {
  type CompareFlags,
  livePlan,
  optionOverrides,
  parseFailOn,
  parseSamplesForm,
  parseSeed,
  parseThreads,
} from "../compare/options.js";
import { compareParallel } from "../compare/parallel.js";
import { readComparisonFile } from "../compare/read-input-file.js";
import { renderComparison } from "../compare/render.js";
import { formatRange, iso } from "../compare/time-range.js";
import { loadEnv } from "../env.js";
import { CliError, describeIssues, EXIT } from "../errors.js";
import type { Io } from "../io.js";
import { Progress } from "../progress.js";
import { explain, openSource } from "../source.js";
import { DESCRIPTIONS } from "./descriptions.js";

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** `untorn compare`: before/after statistics over Prometheus series or a saved input file. */
export function registerCompare(program: Command, io: Io): void {
  program
    .command("compare")
    .description(DESCRIPTIONS.compare)
    .option(
      "--input <file>",
      "compare a saved input file (JSON, docs/schemas/comparison-input.schema.json; - = stdin)",
    )
    .option("--instance <name>", "the changed instance (its `instance` label)")
    .option("--control <name>", "an untouched sibling over the same windows (repeatable)", collect)
    .option(
      "--before <range>",
      "window before the change: <start>..<end>, RFC 3339, Unix seconds, now or -2h",
    )
    .option("--after <range>", "window after the change, same forms")
    .option("--prometheus <url>", "Prometheus base URL (default: $PROMETHEUS_URL)")
    .option("--step <duration>", "seconds between points of the range queries (default 15s)")
    .option(
      "--rate-window <duration>",
      "rate() window of the signals (default max(2 × --step, 1m), the catalog's rate-window rule)",
    )
    .option(
      "--metrics <ids>",
      "comma-separated catalog signals to compare (default: throughput, per-transaction costs, doublewrite wait)",
    )
    .option("--alpha <p>", "two-sided significance level (default 0.05)")
    .option("--margin <fraction>", "relative change treated as no change (default 0.02)")
    .option(
      "--throughput-margin <fraction>",
      "throughput within ±this counts as held for the demand-driven question (default 0.15)",
    )
    .option("--block-seconds <n|auto>", "block length for the statistics (default auto: 300, 120 or 60 s)")
    .option("--min-samples <n>", "fewer usable samples per window: inconclusive (default 20)")
    .option("--min-blocks <n>", "fewer usable blocks per window: inconclusive (default 6)")
    .option("--warmup <duration>", "excluded after each restart or counter reset (default 10m)")
    .option("--seasonality <match|none>", "compare the same hours of day (default match; none for lab runs)")
    .option("--method <name>", "auto, block-t, block-bootstrap or hodges-lehmann (default auto)")
    .option("--seed <n>", "random seed (block bootstrap only; default 1)")
    .option("--json", "print the full result as JSON (docs/schemas/comparison-result.schema.json)")
    .option("--save-input <file>", "also write the input built from Prometheus, for `--input` later")
    .option(
      "--samples <compact|f64>",
      "sample form of --save-input: compact (decimal numbers, the default) or f64 (base64 float64s: exact, smaller, read without decimal conversion)",
    )
    .option(
      "--threads <n|auto>",
      "threads for the analysis (default auto: from 1 million samples on, the cores the load average leaves idle; else 1; $UNTORN_COMPARE_THREADS)",
    )
    .option(
      "--fail-on <verdicts>",
      "exit 4 when the overall verdict is one of these, e.g. regressed,inconclusive",
    )
    .action(async (flags: CompareFlags, cmd: Command) => {
      const globals = cmd.optsWithGlobals() as { replay?: string };
      const overrides = optionOverrides(flags);
      const seed = parseSeed(flags.seed);
      const failOn = parseFailOn(flags.failOn);
      const samplesForm = parseSamplesForm(flags.samples);
      if (flags.samples !== undefined && flags.saveInput === undefined)
        throw new CliError("--samples sets the form of --save-input: give --save-input too", EXIT.usage);
      const threads = parseThreads(flags.threads) ?? loadEnv(io.env).UNTORN_COMPARE_THREADS;
      const header: string[] = [];
      let input: ComparisonInput;

      if (flags.input !== undefined) {
        for (const f of ["instance", "control", "before", "after", "prometheus", "saveInput"] as const) {
          if (flags[f] !== undefined)
            throw new CliError(`--input reads a saved input: drop --${kebab(f)}`, EXIT.usage);
        }
        const file = await readComparisonFile(flags.input);
        input = {
          ...file,
          ...(seed !== undefined ? { seed } : {}),
          options: { ...file.options, ...overrides },
        };
        header.push(`untorn compare: ${flags.input}`);
      } else {
        const source = await openSource({ prometheus: flags.prometheus, replay: globals.replay }, io);
        const plan = livePlan(flags, nowOf(source.api));
        const progress = new Progress(io, Boolean(flags.json) && !io.isTty);
        let fetched: Awaited<ReturnType<typeof fetchComparisonInput>>;
        try {
          progress.step(`querying ${source.url ?? "the replay"} for ${plan.instance}`);
          fetched = await fetchComparisonInput(source.api, {
            ...plan,
            warmupSeconds: overrides.warmupSeconds ?? Options.parse({}).warmupSeconds,
            options: overrides,
            ...(seed !== undefined ? { seed } : {}),
          });
        } catch (err) {
          throw explain(err, source);
        } finally {
          progress.done();
        }
        if (fetched.silent.includes(plan.instance)) {
          throw new CliError(
            `no series for instance ${JSON.stringify(plan.instance)} in either window at ${source.url ?? source.replay?.file}: check the instance label (\`untorn fleet\` lists them) and the time ranges`,
            EXIT.failure,
          );
        }
        for (const c of fetched.silent) io.err(`warning: control ${c} has no series in either window\n`);
        for (const a of fetched.absent)
          io.err(`note: ${a.metric} left out: no series${a.requires ? ` (needs ${a.requires})` : ""}\n`);
        for (const w of fetched.warnings) io.err(`warning from Prometheus: ${w}\n`);
        const parsed = parseComparisonInput(fetched.input);
        if (!parsed.success) {
          throw new CliError(
            `the input built from Prometheus does not validate (a bug):\n${describeIssues(parsed.error.issues)}`,
          );
        }
        input = parsed.data;
        if (flags.saveInput) {
          const saved = samplesForm === "f64" ? withF64Samples(fetched.input) : fetched.input;
          await writeFile(flags.saveInput, `${JSON.stringify(saved, null, 2)}\n`).catch((err) => {
            throw new CliError(`cannot write ${flags.saveInput}: ${(err as Error).message}`);
          });
        }
        header.push(
          `untorn compare: ${plan.instance}${plan.controls.length ? ` against control ${plan.controls.join(", ")}` : " (no control: plain before/after)"}, ${source.url ?? source.replay?.file}`,
          `  before ${formatRange(plan.before)}, after ${formatRange(plan.after)}; step ${plan.step} s, rate window ${plan.rateWindow}; ${fetched.queries} queries`,
        );
        const restarts = input.instances.flatMap((i) => (i.restarts ?? []).map((r) => `${i.id} ${iso(r)}`));
        if (restarts.length)
          header.push(
            `  restarts (warm-up of ${input.options.warmupSeconds} s excluded): ${restarts.join(", ")}`,
          );
      }

      // On worker threads for large inputs (parallel.ts): the same result as on one.
      const result: ComparisonResult = await compareParallel(input, threads !== undefined ? { threads } : {});
      if (flags.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
      else io.out(renderComparison(result, { header }));
      if (failOn.includes(result.overall.verdict)) {
        throw new CliError(
          `overall verdict ${result.overall.verdict} (--fail-on ${flags.failOn})`,
          EXIT.verdict,
        );
      }
    });
}

/** The input with every compact window's samples as base64 float64s (explicit windows stay). */
function withF64Samples(input: ComparisonInputJson): ComparisonInputJson {
  return {
    ...input,
    instances: input.instances.map((inst) => ({
      ...inst,
      series: Object.fromEntries(
        Object.entries(inst.series).map(([m, p]) => [
          m,
          { before: toF64Window(p.before), after: toF64Window(p.after) },
        ]),
      ),
    })),
  };
}

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
