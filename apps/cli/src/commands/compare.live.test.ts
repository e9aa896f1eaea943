import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { re } from "@untorn/catalog/promql";
import { type SignalId, signals } from "@untorn/catalog/signals";
import type { ComparisonInputJson, ExplicitWindow } from "@untorn/compare/input";
import { createRng } from "@untorn/compare/prng";
import type { ComparisonResult } from "@untorn/compare/result";
import { simulateSeries } from "@untorn/compare/simulate";
import type { MatrixSeries, PromQueryApi } from "@untorn/fleet/api";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakePrometheus } from "../../test/fake-prometheus.js";
import { EXIT } from "../errors.js";
import { run } from "../program.js";
import { bufferIo } from "../testing/buffer-io.js";
import { spawnCli } from "../testing/spawn-cli.js";

const BEFORE = { start: 1_767_225_600, end: 1_767_229_200 };
const AFTER = { start: 1_767_232_800, end: 1_767_236_400 };

/** TPS +30% after; bytes per transaction halved (doublewrite off on a saturated instance). */
function syntheticInput(): ComparisonInputJson {
  const rng = createRng(7);
  const win = (start: number, level: number) =>
    simulateSeries({ start, seconds: 3600, step: 15, level, noise: { sd: 0.1, phi: 0.8 } }, rng);
  return {
    metrics: [
      { id: "tps", kind: "throughput", unit: "1/s" },
      { id: "bytes_per_trx", kind: "efficiency", unit: "bytes" },
    ],
    instances: [
      {
        id: "db1",
        role: "treated",
        series: {
          tps: { before: win(BEFORE.start, 100), after: win(AFTER.start, 130) },
          bytes_per_trx: { before: win(BEFORE.start, 160_000), after: win(AFTER.start, 80_000) },
        },
      },
    ],
    options: { seasonality: "none" },
  };
}

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "untorn-compare-cmd-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  const io = bufferIo(env);
  const code = await run(["compare", ...args], io);
  return { code, out: io.stdout(), err: io.stderr() };
}

describe("untorn compare --input", () => {
  it("prints the verdict, one row per metric and the reasons", async () => {
    const file = join(dir, "ok.json");
    await writeFile(file, JSON.stringify(syntheticInput()));
    const r = await cli(["--input", file]);
    expect(r.err).toBe("");
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain("Verdict: IMPROVED");
    expect(r.out).toMatch(/tps\s+improved\s+\+\d/);
    expect(r.out).toMatch(/bytes_per_trx\s+improved\s+-\d/);
  });

  it("prints the full result with --json and applies option flags over the file's", async () => {
    const file = join(dir, "ok.json");
    await writeFile(file, JSON.stringify(syntheticInput()));
    const r = await cli([
      "--input",
      file,
      "--json",
      "--alpha",
      "0.01",
      "--block-seconds",
      "120",
      "--throughput-margin",
      "0.05",
    ]);
    expect(r.code).toBe(EXIT.ok);
    const result = JSON.parse(r.out) as ComparisonResult;
    expect(result.overall.throughput.margin).toBe(0.05);
    expect(result.overall.verdict).toBe("improved");
    expect(result.options.alpha).toBe(0.01);
    expect(result.options.blockSeconds).toBe(120);
    const tps = result.metrics.find((m) => m.metric === "tps")!;
    expect(tps.ratio!).toBeGreaterThan(1.2);
    expect(tps.ratio!).toBeLessThan(1.4);
  });

  it("gives the same result on worker threads (--threads, $UNTORN_COMPARE_THREADS) as on one", async () => {
    const file = join(dir, "threads.json");
    const input = syntheticInput();
    input.instances.push(
      { ...input.instances[0]!, id: "db2" },
      { ...input.instances[0]!, id: "db3", role: "control" },
    );
    await writeFile(file, JSON.stringify(input));
    const one = await cli(["--input", file, "--json", "--threads", "1"]);
    expect(one.code).toBe(EXIT.ok);
    const two = await cli(["--input", file, "--json", "--threads", "2"]);
    expect(two.out).toBe(one.out);
    const env = await cli(["--input", file, "--json"], { UNTORN_COMPARE_THREADS: "2" });
    expect(env.out).toBe(one.out);
    const bad = await cli(["--input", file, "--threads", "0"]);
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.err).toContain("--threads 0: expected auto or a whole number of threads from 1 to 256");
    const badEnv = await cli(["--input", file], { UNTORN_COMPARE_THREADS: "many" });
    expect(badEnv.code).toBe(EXIT.usage);
    expect(badEnv.err).toMatch(/UNTORN_COMPARE_THREADS.*expected a whole number of threads/s);
    const samples = await cli(["--input", file, "--samples", "f64"]);
    expect(samples.code).toBe(EXIT.usage);
    expect(samples.err).toContain("--samples sets the form of --save-input");
  });

  it("exits 3 naming the field of a bad file", async () => {
    const bad = syntheticInput() as { metrics: { kind: string }[] };
    bad.metrics[0]!.kind = "speed";
    const file = join(dir, "bad.json");
    await writeFile(file, JSON.stringify(bad));
    const r = await cli(["--input", file]);
    expect(r.code).toBe(EXIT.invalidInput);
    expect(r.err).toContain("metrics[0].kind");

    const unequal = syntheticInput();
    (unequal.instances[0]!.series["tps"]!.before as { v: unknown[] }).v.pop();
    await writeFile(file, JSON.stringify(unequal));
    const r2 = await cli(["--input", file]);
    expect(r2.code).toBe(EXIT.invalidInput);
    expect(r2.err).toMatch(/instances\[0\]\.series\.tps\.before.*t and v must have the same length/s);

    await writeFile(file, "{ not json");
    expect((await cli(["--input", file])).code).toBe(EXIT.invalidInput);
    const missing = await cli(["--input", join(dir, "nope.json")]);
    expect(missing.code).toBe(EXIT.invalidInput);
    expect(missing.err).toContain("cannot read comparison input file");
  });

  it("exits 3 on millisecond timestamps and on declared windows the data contradicts", async () => {
    const file = join(dir, "ms.json");
    const ms = syntheticInput();
    const tps = ms.instances[0]!.series["tps"]!;
    // syntheticInput writes explicit timestamps (simulateSeries).
    tps.before = { ...tps.before, t: (tps.before as ExplicitWindow).t.map((x) => x * 1000) };
    await writeFile(file, JSON.stringify(ms));
    const r = await cli(["--input", file]);
    expect(r.code).toBe(EXIT.invalidInput);
    expect(r.err).toMatch(/instances\[0\]\.series\.tps\.before\.t.*milliseconds/s);

    const contradicted = {
      ...syntheticInput(),
      windows: { before: BEFORE, after: { ...AFTER, end: AFTER.start + 600 } },
    };
    await writeFile(file, JSON.stringify(contradicted));
    const r2 = await cli(["--input", file]);
    expect(r2.code).toBe(EXIT.invalidInput);
    expect(r2.err).toMatch(/instances\[0\]\.series\.tps\.after\.t.*outside the declared after window/s);
  });

  it("reads through the fast reader: a non-numeric sample is named with its index and byte offset", async () => {
    const file = join(dir, "bad-sample.json");
    const text = JSON.stringify(syntheticInput()).replace(
      /("before":\{"t":\[[^\]]*\],"v":\[[^,]*,)[^,]*/,
      '$1"2"',
    );
    await writeFile(file, text);
    const r = await cli(["--input", file]);
    expect(r.code).toBe(EXIT.invalidInput);
    expect(r.err).toMatch(
      /bad-sample\.json is not valid JSON: instances\[0\]\.series\.tps\.before\.v\[1\]: expected a number or null, found a string \(at byte \d+\)/,
    );
  });

  it("reads the input from stdin with --input - (a CLI process, end to end)", async () => {
    const { proc, out, err, closed } = spawnCli(["compare", "--input", "-", "--json"]);
    // In chunks, as a pipe delivers them.
    const text = JSON.stringify(syntheticInput());
    for (let i = 0; i < text.length; i += 4096) proc.stdin?.write(text.slice(i, i + 4096));
    proc.stdin?.end();
    const code = await closed;
    expect(err()).toBe("");
    expect(code).toBe(0);
    const fromStdin = JSON.parse(out()) as ComparisonResult;
    const file = join(dir, "stdin-same.json");
    await writeFile(file, text);
    const fromFile = JSON.parse((await cli(["--input", file, "--json"])).out) as ComparisonResult;
    expect(fromStdin.overall.verdict).toBe("improved");
    expect(fromStdin).toEqual(fromFile);
  }, 60_000);

  it("prints the interval the verdict rests on, and says when it is simultaneous", async () => {
    const file = join(dir, "ok.json");
    await writeFile(file, JSON.stringify(syntheticInput()));
    const r = await cli(["--input", file]);
    // Two metrics carry the verdict: each interval is a 97.5% simultaneous one.
    expect(r.out).toContain("97.5% CI (simultaneous)");
    expect(r.out).toContain("p (adjusted)");
    expect(r.out).not.toContain("Holm");
  });

  it("exits 4 with --fail-on when the verdict matches", async () => {
    const file = join(dir, "ok.json");
    await writeFile(file, JSON.stringify(syntheticInput()));
    const r = await cli(["--input", file, "--fail-on", "improved,regressed"]);
    expect(r.code).toBe(EXIT.verdict);
    expect(r.out).toContain("Verdict: IMPROVED");
  });

  it.each([
    [["--input", "x.json", "--instance", "db1"], /--input reads a saved input: drop --instance/],
    [["--before", "-2h..-1h", "--after", "-1h..now"], /give --instance/],
    [["--instance", "db1", "--after", "-1h..now"], /give --before/],
    [["--instance", "db1", "--before", "-1h", "--after", "-1h..now"], /--before "-1h" is not a range/],
    [["--instance", "db1", "--before", "-1h..-2h", "--after", "-1h..now"], /must be after the start/],
    [["--input", "x.json", "--alpha", "0.7"], /--alpha: Too big/],
    [["--input", "x.json", "--warmup", "ten"], /--warmup "ten": invalid PromQL duration/],
    [["--input", "x.json", "--fail-on", "worse"], /--fail-on "worse": expected verdicts/],
    [["--input", "x.json", "--seasonality", "weekly"], /--seasonality/],
  ])("refuses %j", async (args, message) => {
    const r = await cli(args, { PROMETHEUS_URL: "http://127.0.0.1:1" });
    expect(r.code).toBe(EXIT.usage);
    expect(r.err).toMatch(message);
  });
});

describe("untorn compare against Prometheus", () => {
  // A Prometheus HTTP facade over generated series: db1 doubles its TPS and halves its write bytes per
  // transaction after a restart at AFTER.start - 300; the control db2 stays put.
  const ids = ["db1", "db2"];
  const selector = { instance: re(ids.join("|")) };
  const gens: Partial<Record<SignalId, (i: string, t: number) => number>> = {
    transactions_per_second: (i, t) =>
      (i === "db1" && t >= AFTER.start ? 200 : 100) * (1 + 0.05 * Math.sin(t / 45)),
    write_bytes_per_transaction: (i, t) =>
      (i === "db1" && t >= AFTER.start ? 80_000 : 160_000) * (1 + 0.05 * Math.cos(t / 60)),
    uptime_seconds: (i, t) =>
      i === "db1" && t >= AFTER.start - 300 ? t - (AFTER.start - 300) : t - 1_000_000,
  };
  const api: PromQueryApi = {
    async queryVector() {
      return { data: [], warnings: [] };
    },
    async queryRange(expr, o) {
      const id = (Object.keys(gens) as SignalId[]).find(
        (k) => expr === signals[k].expr({ selector, window: "1m" }) || expr === signals[k].expr({ selector }),
      );
      const data: MatrixSeries[] = id
        ? ids.map((instance) => {
            const points: [number, number][] = [];
            for (let t = o.start; t <= o.end; t += o.step) points.push([t, gens[id]!(instance, t)]);
            return { labels: { instance }, points };
          })
        : [];
      return { data, warnings: [] };
    },
  };

  it("queries the signals for the instance and its control and judges them", async () => {
    const prom = await startFakePrometheus(api);
    try {
      const saved = join(dir, "saved.json");
      const iso = (s: number) => new Date(s * 1000).toISOString();
      const query = [
        "--instance",
        "db1",
        "--control",
        "db2",
        "--before",
        `${iso(BEFORE.start)}..${iso(BEFORE.end)}`,
        "--after",
        `${BEFORE.end + 3600}..${AFTER.end}`,
        "--prometheus",
        prom.url,
        "--metrics",
        "transactions_per_second,write_bytes_per_transaction,fsyncs_per_transaction",
        "--warmup",
        "5m",
      ];
      const r = await cli([...query, "--save-input", saved]);
      expect(r.code).toBe(EXIT.ok);
      expect(r.out).toContain("db1 against control db2");
      expect(r.out).toContain("restarts (warm-up of 300 s excluded): db1 2026-01-01T01:55:00Z");
      expect(r.out).toContain("Verdict: IMPROVED");
      expect(r.out).toMatch(/transactions_per_second\s+improved\s+\+(9\d|10\d)/);
      // The change is relative to the control; the means are db1's own raw levels, and say so.
      expect(r.out).toContain("change vs control");
      expect(r.out).toContain("db1 mean before → after (raw)");
      expect(r.out).not.toMatch(/control instance would help/);
      expect(r.err).toContain("note: fsyncs_per_transaction left out: no series");
      const input = JSON.parse(await readFile(saved, "utf8")) as ComparisonInputJson;
      expect(input.instances.map((i) => i.role)).toEqual(["treated", "control"]);
      expect(input.instances[0]!.restarts).toEqual([AFTER.start - 300]);
      // Reading the saved input gives the same verdict offline.
      const again = await cli(["--input", saved, "--json"]);
      expect((JSON.parse(again.out) as ComparisonResult).overall.verdict).toBe("improved");
      // The same input saved with base64 float64 samples reads to the very same result.
      const saved64 = join(dir, "saved-f64.json");
      const r64 = await cli([...query, "--save-input", saved64, "--samples", "f64"]);
      expect(r64.code).toBe(EXIT.ok);
      const input64 = JSON.parse(await readFile(saved64, "utf8")) as ComparisonInputJson;
      expect(input64.instances[0]!.series["transactions_per_second"]!.before).toMatchObject({
        step: 15,
        f64: expect.stringMatching(/^[A-Za-z0-9+/]+=*$/),
      });
      const again64 = await cli(["--input", saved64, "--json"]);
      expect(again64.out).toBe(again.out);
    } finally {
      await prom.close();
    }
  });

  it("fails with exit 1 when the instance has no series, and when Prometheus is unreachable", async () => {
    const prom = await startFakePrometheus(api);
    try {
      const r = await cli([
        "--instance",
        "nope",
        "--before",
        "-2h..-1h",
        "--after",
        "-1h..now",
        "--prometheus",
        prom.url,
      ]);
      expect(r.code).toBe(EXIT.failure);
      expect(r.err).toContain('no series for instance "nope"');
    } finally {
      await prom.close();
    }
    const down = await cli(["--instance", "db1", "--before", "-2h..-1h", "--after", "-1h..now"], {
      PROMETHEUS_URL: "http://127.0.0.1:1",
    });
    expect(down.code).toBe(EXIT.failure);
    expect(down.err).toMatch(/unreachable/);
  });
});
