import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { encodeReplay, ReplayApi } from "@untorn/fleet/replay";
import { fleetSummarySchema, rankedFleetRowSchema } from "@untorn/fleet/row";
import { fakeReplay } from "@untorn/fleet/testing/fake-api";
import {
  DB_DOWN,
  DB_IDLE,
  DB_OFF_LOADED,
  DB_ON_LOADED,
  DB_SHARED_DEVICE,
} from "@untorn/fleet/testing/fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakePrometheus, startFakePrometheus } from "../../test/fake-prometheus.js";
import { EXIT } from "../errors.js";
import { run } from "../program.js";
import { bufferIo } from "../testing/buffer-io.js";
import { fleetOutputSchema } from "./fleet-output.js";

// Fleet data from a fake replay (testing/fixtures: recorded-looking values, not a recording), served as a
// replay file and through a Prometheus HTTP facade so the real PromClient path is used too.
const AT = 1_790_000_000;
const FLEET = [DB_ON_LOADED, DB_OFF_LOADED, DB_IDLE, DB_DOWN];
let dir = "";
let replayFile = "";
let prom: FakePrometheus;
let empty: FakePrometheus;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "untorn-cli-fleet-"));
  replayFile = join(dir, "fleet.replay.json.gz");
  const file = fakeReplay(FLEET, { window: "30m", times: [AT - 300, AT] });
  await writeFile(replayFile, encodeReplay(file));
  prom = await startFakePrometheus(new ReplayApi(file));
  empty = await startFakePrometheus({
    queryVector: async () => ({ data: [], warnings: [] }),
    queryRange: async () => ({ data: [], warnings: [] }),
  });
});

afterAll(async () => {
  await prom?.close();
  await empty?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("untorn fleet", () => {
  it("marks a share of InnoDB's bytes on a shared device with †, and says under the table what † means", async () => {
    const shared = join(dir, "shared.replay.json.gz");
    await writeFile(
      shared,
      encodeReplay(fakeReplay([DB_ON_LOADED, DB_SHARED_DEVICE], { window: "30m", times: [AT] })),
    );
    const io = bufferIo();
    expect(await run(["fleet", "--replay", shared], io)).toBe(EXIT.ok);
    const lines = io.stdout().split("\n");
    expect(lines.find((l) => /\sdb-shared:9105\s/.test(l))).toMatch(/\s\d+%†\s/);
    expect(lines.find((l) => /\sdb-on:9105\s/.test(l))).toMatch(/\s\d+%\s/);
    expect(lines).toContain(
      "† dw share of InnoDB's write bytes: the device is shared with other instances or processes, so its share of the device's bytes says nothing",
    );
    expect(lines.some((l) => l.startsWith("* "))).toBe(false);
  });

  it("prints the ranked table from a replay file, labelled as recorded data", async () => {
    const io = bufferIo();
    expect(await run(["fleet", "--replay", replayFile], io)).toBe(EXIT.ok);
    const out = io.stdout();
    expect(out).toMatch(/^RECORDED DATA from .*fleet\.replay\.json\.gz/);
    const lines = out.split("\n");
    const header = lines.findIndex((l) => l.startsWith("#"));
    expect(lines[header]).toMatch(
      /#\s+instance\s+verdict\s+conf\s+score\s+dw\/flushed\s+dw share\s+gate\s+top finding/,
    );
    expect(lines[header + 2]).toMatch(/^1\s+db-on:9105\s+write-bound/);
    expect(out).toMatch(/AT RISK db-off:9105: critical: Doublewrite is off/);
    expect(out).toMatch(/skipped db-down:9105: the exporter cannot reach the database/);
    // A gain behind the safety gate is listed with what to verify first.
    const jio = bufferIo();
    expect(await run(["fleet", "--replay", replayFile, "--json"], jio)).toBe(EXIT.ok);
    const j = JSON.parse(jio.stdout());
    const blocked = (j.rows as { instance: string; blocked: boolean }[]).filter((r) => r.blocked);
    expect(blocked.length).toBeGreaterThan(0);
    for (const r of blocked)
      expect(out).toMatch(new RegExp(`WAITING ${r.instance} \\(gate \\w+\\): .+; first verify: `));
  });

  it("--json rows and summary are the fleet table's (docs/schemas/fleet-row.schema.json)", async () => {
    const io = bufferIo();
    expect(await run(["fleet", "--replay", replayFile, "--json"], io)).toBe(EXIT.ok);
    const j = JSON.parse(io.stdout());
    // The whole output is what docs/schemas/cli-fleet.schema.json says, nothing more.
    expect(fleetOutputSchema.parse(j)).toEqual(j);
    for (const r of j.rows) expect(rankedFleetRowSchema.parse(r)).toEqual(r);
    expect(fleetSummarySchema.parse(j.summary)).toMatchObject({ instances: 3, skipped: 1 });
    // The ranking's fields the output had before the shared row are still there.
    expect(Object.keys(j.rows[0])).toEqual(
      expect.arrayContaining(["verdictConfidence", "opportunity", "score", "blocked", "topFinding"]),
    );
    expect(j.rows[0].dblwrShareOfDeviceWrites).toBe(j.rows[0].dblwrShare);
  });

  it("--json gives the rows, counts and the constant query count", async () => {
    const io = bufferIo();
    expect(await run(["fleet", "--replay", replayFile, "--json"], io)).toBe(EXIT.ok);
    const j = JSON.parse(io.stdout());
    expect(j.rows.map((r: { instance: string }) => r.instance)).toEqual([
      "db-on:9105",
      "db-idle:9105",
      "db-off:9105",
    ]);
    expect(j.rows[0]).toMatchObject({ rank: 1, verdict: "write-bound", amplification: 1 });
    expect(j.rows.find((r: { instance: string }) => r.instance === "db-idle:9105").verdict).toBe(
      "not-write-bound",
    );
    expect(j.recorded).toMatchObject({ recordedFrom: "http://fake-prometheus:9090", window: "30m" });
    expect(j.at).toBe(new Date(AT * 1000).toISOString());
    expect(j.queries).toBeGreaterThan(30);
    expect(j.missing["db-on:9105"]).toContain("config.doublewritePages");
  });

  it("reads a live Prometheus through --prometheus and PROMETHEUS_URL with the same result", async () => {
    const a = bufferIo();
    expect(
      await run(["fleet", "--prometheus", prom.url, "--window", "30m", "--at", String(AT), "--json"], a),
    ).toBe(EXIT.ok);
    const b = bufferIo({ PROMETHEUS_URL: prom.url });
    expect(
      await run(["fleet", "--window", "30m", "--at", new Date(AT * 1000).toISOString(), "--json"], b),
    ).toBe(EXIT.ok);
    const replayed = bufferIo();
    await run(["fleet", "--replay", replayFile, "--json"], replayed);
    const rows = (io: ReturnType<typeof bufferIo>) => JSON.parse(io.stdout()).rows;
    expect(rows(a)).toEqual(rows(replayed));
    expect(rows(b)).toEqual(rows(replayed));
    expect(JSON.parse(a.stdout()).source).toBe(prom.url);
    // This prometheus has no recording rules: the profile says so and reads the raw series.
    expect(JSON.parse(a.stdout()).recordingRules).toEqual({
      used: false,
      fallbackReason: expect.stringMatching(/recording rules are not loaded/),
      tier: "raw",
      windowNote: null,
    });
    expect(JSON.parse(replayed.stdout()).recordingRules.used).toBe(false);
    const text = bufferIo();
    expect(await run(["fleet", "--prometheus", prom.url, "--window", "30m", "--at", String(AT)], text)).toBe(
      EXIT.ok,
    );
    expect(text.stdout()).toMatch(
      /queries; rates recomputed from raw series \(the recording rules are not loaded/,
    );
  });

  it("says how to add untorn-exporter when Prometheus has no instances", async () => {
    const io = bufferIo();
    expect(await run(["fleet", "--prometheus", empty.url], io)).toBe(EXIT.failure);
    expect(io.stderr()).toMatch(/no MySQL\/MariaDB instances found at http:\/\/127\.0\.0\.1:\d+/);
    expect(io.stderr()).toMatch(/job_name: untorn/);
  });

  it("names the URL when Prometheus is unreachable", async () => {
    const io = bufferIo();
    const url = empty.url.replace(/:\d+$/, ":9");
    expect(await run(["fleet", "--prometheus", url], io)).toBe(EXIT.failure);
    expect(io.stderr()).toContain(`Prometheus at ${url} is unreachable`);
    expect(io.stderr()).toMatch(/Check --prometheus \/ PROMETHEUS_URL/);
  }, 20_000);

  it("refuses a bad window, a bad time, a bad URL and a missing Prometheus with exit 2", async () => {
    const cases: [string[], NodeJS.ProcessEnv, RegExp][] = [
      [
        ["fleet", "--prometheus", prom.url, "--window", "5 minutes"],
        {},
        /--window "5 minutes": must be one of 15m, 1h, 6h, 24h, 7d or a PromQL duration/,
      ],
      [["fleet", "--prometheus", prom.url, "--window", "0s"], {}, /--window "0s": must be from 30s to 30d/],
      [["fleet", "--prometheus", prom.url, "--window", "90d"], {}, /--window "90d": must be from 30s to 30d/],
      [
        ["fleet", "--prometheus", prom.url, "--at", "yesterday"],
        {},
        /--at "yesterday": expected an RFC 3339 time/,
      ],
      [["fleet", "--prometheus", "prom:9090"], {}, /--prometheus "prom:9090": expected an http\(s\) URL/],
      [["fleet"], {}, /no Prometheus to read: pass --prometheus <url> or set PROMETHEUS_URL/],
      [["fleet"], { PROMETHEUS_URL: "ftp://x" }, /PROMETHEUS_URL: expected an http\(s\) URL/],
      [
        ["fleet", "--prometheus", prom.url, "--match", "cluster"],
        {},
        /--match "cluster": expected label=value/,
      ],
      [
        ["fleet", "--replay", replayFile, "--window", "1h"],
        {},
        /recorded with --window 30m; it cannot answer --window 1h/,
      ],
      [
        ["fleet", "--replay", replayFile, "--prometheus", prom.url],
        {},
        /either --replay <file> or --prometheus/,
      ],
    ];
    for (const [argv, env, message] of cases) {
      const io = bufferIo(env);
      expect(await run(argv, io), argv.join(" ")).toBe(EXIT.usage);
      expect(io.stderr()).toMatch(message);
    }
  });

  it("refuses a broken replay file with exit 3, naming the field", async () => {
    const bad = join(dir, "bad.json");
    const file = fakeReplay([DB_IDLE], { window: "30m", times: [AT] });
    await writeFile(bad, JSON.stringify({ ...file, meta: { ...file.meta, window: "" } }));
    const io = bufferIo();
    expect(await run(["fleet", "--replay", bad], io)).toBe(EXIT.invalidInput);
    expect(io.stderr()).toMatch(/bad\.json is not a valid replay file:\n\s+meta\.window: /);
    const missing = bufferIo();
    expect(await run(["fleet", "--replay", join(dir, "nope.gz")], missing)).toBe(EXIT.invalidInput);
    expect(missing.stderr()).toMatch(/cannot read replay file .*nope\.gz/);
  });

  it("names the query when a replay cannot answer it", async () => {
    const io = bufferIo();
    expect(await run(["fleet", "--replay", replayFile, "--at", String(AT + 86_400)], io)).toBe(EXIT.failure);
    expect(io.stderr()).toMatch(/is outside the recording .* for query: /);
    expect(io.stderr()).toMatch(/A replay answers only what `untorn record` captured \(window 30m/);
  });
});

describe("untorn fleet --metadata", () => {
  const write = async (name: string, body: unknown) => {
    const f = join(dir, name);
    await writeFile(f, typeof body === "string" ? body : JSON.stringify(body));
    return f;
  };

  it("overlays the declared cluster, role and volume limits, and warns about unknown instances", async () => {
    const f = await write("meta.json", {
      instances: {
        "db-idle:9105": { cluster: "orders", role: "replica" },
        "db-on:9105": { storageFacts: { limits: { writeIops: 50, ioUnitBytes: 16384 } } },
        "db-gone:9105": { cluster: "orders" },
      },
    });
    const io = bufferIo();
    expect(await run(["fleet", "--replay", replayFile, "--metadata", f, "--json"], io), io.stderr()).toBe(
      EXIT.ok,
    );
    const j = JSON.parse(io.stdout());
    const idle = j.rows.find((r: { instance: string }) => r.instance === "db-idle:9105");
    expect(idle).toMatchObject({ cluster: "orders", role: "replica" });
    expect(j.declared["db-on:9105"]).toEqual(["storage.limits.writeIops", "storage.limits.ioUnitBytes"]);
    expect(j.warnings).toContain("metadata for db-gone:9105: no such instance in the data");

    const one = bufferIo();
    expect(await run(["instance", "db-on:9105", "--replay", replayFile, "--metadata", f], one)).toBe(EXIT.ok);
    expect(one.stdout()).toMatch(/^\s*strong\s+IOPS near the volume limit/m);
    expect(one.stdout()).toMatch(/Declared \(--metadata\): storage\.limits\.writeIops/);
  });

  it.each([
    ["not JSON", "{ instances: ", /meta-bad\.json is not valid JSON/],
    [
      "a bad value",
      { instances: { "db-on:9105": { storageFacts: { limits: { writeIops: -1 } } } } },
      /is not a valid metadata:\n\s+instances\.db-on:9105\.storageFacts\.limits\.writeIops: /,
    ],
    ["an unknown field", { instances: { "db-on:9105": { rack: "r1" } } }, /rack/],
    ["no instances", {}, /instances: /],
  ])("rejects %s, naming the problem, before reading any data", async (_what, body, re) => {
    const f = await write("meta-bad.json", body);
    const io = bufferIo();
    expect(await run(["fleet", "--replay", replayFile, "--metadata", f], io)).toBe(EXIT.invalidInput);
    expect(io.stderr()).toMatch(re);
    expect(io.stdout()).toBe("");
  });

  it("names a file that cannot be read", async () => {
    const io = bufferIo();
    const missing = join(dir, "nope.json");
    expect(await run(["fleet", "--replay", replayFile, "--metadata", missing], io)).toBe(EXIT.invalidInput);
    expect(io.stderr()).toContain(`cannot read metadata file ${missing}`);
  });
});
