import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { decodeReplay, ReplayApi } from "@untorn/fleet/replay";
import { fakeReplay } from "@untorn/fleet/testing/fake-api";
import { DB_IDLE, DB_OFF_LOADED, DB_ON_LOADED } from "@untorn/fleet/testing/fixtures";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakePrometheus, startFakePrometheus } from "../../test/fake-prometheus.js";
import { EXIT } from "../errors.js";
import { run } from "../program.js";
import { bufferIo } from "../testing/buffer-io.js";

// `untorn record` against a Prometheus HTTP facade over a fake replay (recorded-looking fixture values):
// the recording must replay to exactly what the live source answers.
const AT = 1_790_000_000;
let dir = "";
let prom: FakePrometheus;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "untorn-cli-record-"));
  const source = fakeReplay([DB_ON_LOADED, DB_OFF_LOADED, DB_IDLE], {
    window: "30m",
    times: [AT - 600, AT - 300, AT],
    chart: { start: AT - 600, end: AT, step: 3 },
  });
  prom = await startFakePrometheus(new ReplayApi(source));
});

afterAll(async () => {
  await prom?.close();
  await rm(dir, { recursive: true, force: true });
});

describe("untorn record", () => {
  it("writes a replay file that fleet and instance read back with the live answers", async () => {
    const out = join(dir, "sub", "rec.json.gz");
    const io = bufferIo();
    const argv = ["record", "--prometheus", prom.url, "--out", out, "--span", "10m", "--every", "5m"];
    expect(await run([...argv, "--window", "30m", "--at", String(AT), "--note", "test"], io)).toBe(EXIT.ok);
    expect(io.stdout()).toMatch(
      /^wrote .*rec\.json\.gz: 3 instances, 3 evaluation times .* window 30m, \d+ queries, \d+ KiB/,
    );
    const file = decodeReplay(await readFile(out));
    expect(file.meta).toMatchObject({
      recordedFrom: prom.url,
      tool: "untorn 0.1.0",
      note: "test",
      window: "30m",
    });
    expect(file.meta.charts).toEqual({ start: AT - 600, end: AT, step: 3 });

    for (const at of [AT - 600, AT]) {
      const live = bufferIo();
      await run(["fleet", "--prometheus", prom.url, "--window", "30m", "--at", String(at), "--json"], live);
      const replayed = bufferIo();
      expect(await run(["fleet", "--replay", out, "--at", String(at), "--json"], replayed)).toBe(EXIT.ok);
      expect(JSON.parse(replayed.stdout()).rows).toEqual(JSON.parse(live.stdout()).rows);
    }
    const inst = bufferIo();
    expect(await run(["instance", "db-off:9105", "--replay", out, "--json"], inst)).toBe(EXIT.ok);
    expect(JSON.parse(inst.stdout()).facts.config.doublewrite).toBe("off");
  });

  it("needs --out, refuses --replay and bad spans", async () => {
    const cases: [string[], RegExp][] = [
      [["record", "--prometheus", prom.url], /required option '--out <file>'/],
      [["--replay", "x", "record", "--out", "y"], /record reads a live Prometheus/],
      [
        ["record", "--prometheus", prom.url, "--out", "y", "--span", "3 hours"],
        /--span "3 hours": not a PromQL duration/,
      ],
    ];
    for (const [argv, message] of cases) {
      const io = bufferIo();
      expect(await run(argv, io)).toBe(EXIT.usage);
      expect(io.stderr()).toMatch(message);
    }
  });

  it("fails with the query when Prometheus cannot answer", async () => {
    const io = bufferIo();
    const argv = [
      "record",
      "--prometheus",
      prom.url,
      "--out",
      join(dir, "x.gz"),
      "--window",
      "1h",
      "--at",
      String(AT),
    ];
    expect(await run(argv, io)).toBe(EXIT.failure);
    expect(io.stderr()).toMatch(
      /Prometheus at http:\/\/127\.0\.0\.1:\d+ rejected the query \(execution, HTTP 422\): /,
    );
  });
});
