import { gzipSync } from "node:zlib";
import { describe, expect, it, vi } from "vitest";
import type { PromQueryApi } from "./api.js";
import { instanceCharts } from "./charts.js";
import { buildFleetFacts, instanceFacts } from "./facts.js";
import { recordFleet } from "./record.js";
import {
  decodeReplay,
  decodeReplayApi,
  encodeReplay,
  RecordingApi,
  ReplayApi,
  ReplayFormatError,
  ReplayMissError,
  replayFactsOptions,
  shownRecordedFrom,
} from "./replay.js";
import { fakeReplay } from "./testing/fake-api.js";
import { DB_IDLE, DB_ON_LOADED, FIXTURE_FLEET } from "./testing/fixtures.js";

const AT = 1_790_000_000;
const source = () =>
  new ReplayApi(
    fakeReplay(FIXTURE_FLEET, {
      window: "30m",
      times: [AT - 600, AT - 300, AT],
      chart: { start: AT - 600, end: AT, step: 3 },
    }),
  );

describe("replay files", () => {
  it("round-trips through gzip JSON", () => {
    const file = fakeReplay([DB_IDLE], { window: "30m", times: [AT] });
    const bytes = encodeReplay(file);
    expect([bytes[0], bytes[1]]).toEqual([0x1f, 0x8b]);
    expect(decodeReplay(bytes)).toEqual(file);
  });

  it("keeps non-finite sample values", async () => {
    const rec = new RecordingApi({
      queryVector: async () => ({
        data: [{ labels: { instance: "a" }, timestamp: AT, value: Number.NaN }],
        warnings: ["partial"],
      }),
      queryRange: async () => ({
        data: [{ labels: { instance: "a" }, points: [[AT, Number.POSITIVE_INFINITY]] }],
        warnings: [],
      }),
    });
    await rec.queryVector("x", { time: AT });
    await rec.queryRange("y", { start: AT, end: AT, step: 1 });
    const file = decodeReplay(encodeReplay(rec.toReplay(fakeReplay([], { window: "5m", times: [AT] }).meta)));
    const replay = new ReplayApi(file);
    const v = await replay.queryVector("x", { time: AT });
    expect(Number.isNaN(v.data[0]!.value)).toBe(true);
    expect(v.warnings).toEqual(["partial"]);
    expect((await replay.queryRange("y", { start: AT, end: AT, step: 1 })).data[0]!.points).toEqual([
      [AT, Number.POSITIVE_INFINITY],
    ]);
  });

  it("names the field of a malformed file", () => {
    const file = fakeReplay([DB_IDLE], { window: "30m", times: [AT] });
    const broken = { ...file, meta: { ...file.meta, everySeconds: -5 } };
    try {
      decodeReplay(gzipSync(JSON.stringify(broken)));
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(ReplayFormatError);
      expect((err as ReplayFormatError).issues[0]?.path).toEqual(["meta", "everySeconds"]);
    }
    expect(() => decodeReplay(Buffer.from("{not json"))).toThrow(/not JSON/);
    expect(() => decodeReplay(Buffer.from([0x1f, 0x8b, 1, 2, 3]))).toThrow(/gzip/);
    expect(() => decodeReplay(Buffer.from('{"format":"other"}'))).toThrow(/not an untorn replay file/);
  });
});

describe("decodeReplayApi (entry by entry into the columnar store)", () => {
  const file = () =>
    fakeReplay(FIXTURE_FLEET, {
      window: "30m",
      times: [AT - 300, AT],
      chart: { start: AT - 600, end: AT, step: 3 },
    });
  /** Every issue decodeReplay / decodeReplayApi throw for the same bytes. */
  const issuesOf = (decode: (b: Uint8Array) => unknown, bytes: Uint8Array) => {
    try {
      decode(bytes);
    } catch (err) {
      expect(err).toBeInstanceOf(ReplayFormatError);
      expect((err as Error).message).toBe("not a valid replay file");
      return (err as ReplayFormatError).issues;
    }
    return expect.unreachable("the file was accepted");
  };

  it("answers every recorded query as ReplayApi over decodeReplay does", async () => {
    const f = file();
    const bytes = encodeReplay(f);
    const whole = new ReplayApi(decodeReplay(bytes));
    const entrywise = decodeReplayApi(bytes);
    expect(entrywise.meta).toEqual(f.meta);
    expect(f.instant.length).toBeGreaterThan(20);
    // Every entry took the chunked path (none fell back to a whole-entry read), and the plain
    // constructor over decodeReplay's file never does.
    expect(entrywise.decoding).toEqual({ columnarEntries: f.instant.length, wholeEntries: 0 });
    expect(whole.decoding).toEqual({ columnarEntries: 0, wholeEntries: f.instant.length });
    for (const e of f.instant)
      for (const a of e.answers)
        expect(await entrywise.queryVector(e.query, { time: a.time })).toEqual(
          await whole.queryVector(e.query, { time: a.time }),
        );
    expect(f.range.length).toBeGreaterThan(0);
    for (const e of f.range)
      expect(await entrywise.queryRange(e.query, e)).toEqual(await whole.queryRange(e.query, e));
    // Plain JSON too, not only gzip.
    expect(decodeReplayApi(Buffer.from(JSON.stringify(f))).meta).toEqual(f.meta);
  });

  it("reports a bad sample deep in entry N at the same path as whole-file validation", () => {
    const f = file();
    const n = f.instant.findLastIndex((e) => e.answers[0]!.data.length > 3);
    expect(n).toBeGreaterThan(10);
    (f.instant[n]!.answers[0]!.data[3] as { value: unknown }).value = "lots";
    const bytes = gzipSync(JSON.stringify(f));
    const issues = issuesOf(decodeReplayApi, bytes);
    expect(issues.map((i) => i.path)).toEqual([["instant", n, "answers", 0, "data", 3, "value"]]);
    expect(issues).toEqual(issuesOf(decodeReplay, bytes));
  });

  it("reports every issue of every entry, range entries and refinements included, as before", () => {
    const f = file();
    (f.instant[2]!.answers[1] as { time: unknown }).time = "soon";
    (f.instant[7] as { extra?: number }).extra = 1;
    const r = f.range.length - 1;
    f.range[r]!.end = f.range[r]!.start - 1;
    (f.range[0]!.data[0]!.points[4] as unknown[])[1] = null;
    const bytes = gzipSync(JSON.stringify(f));
    const issues = issuesOf(decodeReplayApi, bytes);
    expect(issues.map((i) => i.path)).toEqual([
      ["instant", 2, "answers", 1, "time"],
      ["instant", 7],
      ["range", 0, "data", 0, "points", 4, 1],
      ["range", r, "end"],
    ]);
    expect(issues).toEqual(issuesOf(decodeReplay, bytes));
  });

  it("reports header and entry issues together, as before", () => {
    const f = file();
    const broken = { ...f, extra: true, meta: { ...f.meta, everySeconds: -5 } };
    (broken.instant[1]!.answers[0]!.data[0] as { labels: unknown }).labels = { instance: 9 };
    const bytes = gzipSync(JSON.stringify(broken));
    const issues = issuesOf(decodeReplayApi, bytes);
    expect(issues.map((i) => i.path)).toEqual(
      expect.arrayContaining([
        [],
        ["meta", "everySeconds"],
        ["instant", 1, "answers", 0, "data", 0, "labels", "instance"],
      ]),
    );
    expect(issues).toEqual(issuesOf(decodeReplay, bytes));
    expect(issuesOf(decodeReplayApi, gzipSync(JSON.stringify({ ...f, range: {} })))).toEqual(
      issuesOf(decodeReplay, gzipSync(JSON.stringify({ ...f, range: {} }))),
    );
  });

  it("reads indented JSON and duplicate keys as JSON.parse does", async () => {
    const f = file();
    const indented = Buffer.from(JSON.stringify(f, null, 2));
    expect(decodeReplayApi(indented).meta).toEqual(f.meta);
    // A later member wins, as in JSON.parse: the first, broken range list is replaced.
    const dup = Buffer.from(`{"range":[1],${JSON.stringify(f).slice(1)}`);
    const api = decodeReplayApi(dup);
    expect(await api.queryRange(f.range[0]!.query, f.range[0]!)).toEqual(
      await new ReplayApi(decodeReplay(dup)).queryRange(f.range[0]!.query, f.range[0]!),
    );
  });

  it("reads an entry it cannot take chunk by chunk whole, and only that one", async () => {
    const f = file();
    const json = JSON.stringify(f);
    // A duplicate "query" member in the first instant entry (JSON.parse keeps the later one).
    const at = json.indexOf('{"query":') + 1;
    const bytes = Buffer.from(`${json.slice(0, at)}"query":"shadowed",${json.slice(at)}`);
    const api = decodeReplayApi(bytes);
    expect(api.decoding).toEqual({ columnarEntries: f.instant.length - 1, wholeEntries: 1 });
    const first = f.instant[0]!;
    expect(await api.queryVector(first.query, { time: first.answers[0]!.time })).toEqual(
      await new ReplayApi(decodeReplay(bytes)).queryVector(first.query, { time: first.answers[0]!.time }),
    );
  });

  it("reports a __proto__ member as the unknown key JSON.parse makes it, as decodeReplay does", () => {
    const json = JSON.stringify(file());
    const at = json.indexOf('"answers":[{') + '"answers":[{'.length;
    const bytes = Buffer.from(`${json.slice(0, at)}"__proto__":{"time":1},${json.slice(at)}`);
    const issues = issuesOf(decodeReplayApi, bytes);
    expect(issues.map((i) => i.path)).toEqual([["instant", 0, "answers", 0]]);
    expect(issues).toEqual(issuesOf(decodeReplay, bytes));
  });

  it("reports a syntax error deep in an entry with JSON.parse's message, as decodeReplay does", () => {
    const f = file();
    const json = JSON.stringify(f);
    const at = json.lastIndexOf('"value":');
    expect(at).toBeGreaterThan(json.length / 2);
    const broken = gzipSync(`${json.slice(0, at)}"value":01${json.slice(at + 8)}`);
    const whole = (() => {
      try {
        decodeReplay(broken);
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(whole).toMatch(/^not JSON: /);
    expect(() => decodeReplayApi(broken)).toThrow(whole!);
  });

  it("rejects what is not a replay file as decodeReplay does", () => {
    expect(() => decodeReplayApi(Buffer.from("{not json"))).toThrow(/not JSON/);
    expect(() => decodeReplayApi(Buffer.from([0x1f, 0x8b, 1, 2, 3]))).toThrow(/gzip/);
    expect(() => decodeReplayApi(Buffer.from('{"format":"other"}'))).toThrow(/not an untorn replay file/);
    expect(() => decodeReplayApi(Buffer.from("[]"))).toThrow(ReplayFormatError);
  });
});

describe("ReplayApi", () => {
  it("snaps instant times to the nearest recorded evaluation time", async () => {
    const rec = new RecordingApi({
      queryVector: async (_e, o) => ({
        data: [{ labels: {}, timestamp: o.time, value: o.time }],
        warnings: [],
      }),
      queryRange: async () => ({ data: [], warnings: [] }),
    });
    for (const t of [AT - 600, AT - 300, AT]) await rec.queryVector("q", { time: t });
    const replay = new ReplayApi(
      rec.toReplay({ ...fakeReplay([], { window: "5m", times: [AT - 300, AT] }).meta }),
    );
    expect((await replay.queryVector("q", { time: AT - 420 })).data[0]!.value).toBe(AT - 300);
    expect((await replay.queryVector("q", { time: AT - 480 })).data[0]!.value).toBe(AT - 600);
    expect((await replay.queryVector("q", { time: AT + 100 })).data[0]).toMatchObject({
      value: AT,
      timestamp: AT,
    });
    await expect(replay.queryVector("q", { time: AT + 3600 })).rejects.toThrow(/outside the recording/);
  });

  it("throws a clear error naming a query that was not recorded", async () => {
    const replay = source();
    const err = await replay.queryVector("up", { time: AT }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ReplayMissError);
    expect((err as ReplayMissError).query).toBe("up");
    expect((err as Error).message).toMatch(
      /query not in the replay file recorded from http:\/\/fake-prometheus:9090 .*window 30m.*: up$/,
    );
  });

  it("a miss names a loopback recording source for what it was, never its local address", async () => {
    const meta = {
      ...fakeReplay([], { window: "5m", times: [AT] }).meta,
      recordedFrom: "http://127.0.0.1:34111",
    };
    const err = await new ReplayApi({ ...fakeReplay([], { window: "5m", times: [AT] }), meta })
      .queryVector("up", { time: AT })
      .catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/recorded from a Prometheus local to the recording machine at /);
    expect((err as Error).message).not.toMatch(/127\.0\.0\.1/);
  });

  it("a miss is a ReplayMissError for every copy of the module (Next.js bundles it more than once)", async () => {
    // Another bundle's copy of the module: the same file imported again after the registry is reset.
    vi.resetModules();
    const copy = await import("./replay.js");
    expect(copy.ReplayMissError).not.toBe(ReplayMissError);
    const fromCopy = new copy.ReplayMissError("up", "query not in the replay file");
    expect(fromCopy).toBeInstanceOf(ReplayMissError);
    expect(new ReplayMissError("up", "x")).toBeInstanceOf(copy.ReplayMissError);
    expect(new Error("query not in the replay file: up")).not.toBeInstanceOf(ReplayMissError);
    expect(Object.assign(new Error("x"), { name: "ReplayMissError" })).not.toBeInstanceOf(ReplayMissError);
    expect(null).not.toBeInstanceOf(ReplayMissError);
  });

  it("answers range queries inside the recorded range at the recorded step only", async () => {
    const replay = source();
    const c = await instanceCharts(replay, "db-on:9105", { start: AT - 600, end: AT, step: 3 });
    const write = c.charts.find((x) => x.id === "write-path")!;
    expect(write.series.map((s) => s.name)).toEqual(["doublewrite pages", "data pages flushed"]);
    expect(write.series[0]!.points).toHaveLength(201);
    const clipped = await instanceCharts(replay, "db-on:9105", { start: AT - 60, end: AT, step: 3 });
    expect(clipped.charts[0]!.series[0]!.points).toHaveLength(21);
    await expect(instanceCharts(replay, "db-on:9105", { start: AT - 600, end: AT, step: 5 })).rejects.toThrow(
      /not in the replay file|recorded at step/,
    );
  });

  it("defaults the evaluation time to the end of the recording", () => {
    expect(source().defaultTime()).toBe(AT);
  });

  it("says which server answered, Prometheus when the file does not say", async () => {
    const replay = source();
    expect((await replay.backend()).kind).toBe("prometheus");
    const vm = new ReplayApi({
      meta: { ...replay.meta, backend: "victoriametrics" },
      instant: [],
      range: [],
    });
    expect(await vm.backend()).toEqual({ queryDelaySeconds: 0, note: null, kind: "victoriametrics" });
  });
});

describe("recordFleet", () => {
  it("records which server answered, so a replay reads young servers' rates as the live profile did", async () => {
    const inner = source();
    const vm: PromQueryApi = {
      queryVector: (e, o) => inner.queryVector(e, o),
      queryRange: (e, o) => inner.queryRange(e, o),
      backend: async () => ({ kind: "victoriametrics", queryDelaySeconds: 30, note: null }),
    };
    const opts = { window: "30m", span: "0s", every: "5m", at: AT, recordedFrom: "x", tool: "t" };
    expect((await recordFleet(vm, opts)).file.meta.backend).toBe("victoriametrics");
    const unknown = { ...vm, backend: () => Promise.reject(new Error("403")) };
    expect((await recordFleet(unknown, opts)).file.meta.backend).toBeUndefined();
  });

  it("records what fleet, instance and chart views need, in a fleet-size-independent number of requests", async () => {
    const rec = await recordFleet(source(), {
      window: "30m",
      span: "10m",
      every: "5m",
      at: AT,
      chartStep: 3,
      recordedFrom: "http://prom:9090",
      tool: "untorn test",
      clock: () => new Date(AT * 1000),
    });
    const file = decodeReplay(encodeReplay(rec.file));
    expect(file.recorded).toBe(true);
    expect(file.meta).toMatchObject({
      recordedFrom: "http://prom:9090",
      backend: "prometheus",
      start: AT - 600,
      end: AT,
      spanSeconds: 600,
      everySeconds: 300,
      window: "30m",
      instances: ["db-down:9105", "db-idle:9105", "db-off:9105", "db-on:9105", "mysql-legacy:9104"],
      charts: { start: AT - 600, end: AT, step: 3 },
    });
    // Three evaluation times of the facts plan plus one range query per chart series (the instance
    // page's 7, a rollout page's 5 and the fleet table's 2 share sparklines).
    const perTime = (await buildFleetFacts(source(), { window: "30m", at: AT, recordingRules: false }))
      .queries;
    expect(rec.queries).toBe(3 * perTime + 7 + 5 + 2);

    const replay = new ReplayApi(file);
    const opts = replayFactsOptions(file.meta);
    for (const t of [AT - 600, AT - 300, AT]) {
      const live = await buildFleetFacts(source(), { window: "30m", at: t });
      const replayed = await buildFleetFacts(replay, { ...opts, at: t });
      expect(replayed.facts).toEqual(live.facts);
    }
    const one = await instanceFacts(replay, "db-on:9105", { ...opts, at: AT - 300 });
    expect(one.instance?.workload?.rates?.dblwrPagesWritten?.avg).toBe(1700);
    expect(file.instant.filter((e) => e.derived).length).toBeGreaterThan(0);

    const charts = await instanceCharts(replay, "db-idle:9105", file.meta.charts!);
    const live = await instanceCharts(source(), "db-idle:9105", file.meta.charts!);
    expect(charts.charts).toEqual(live.charts);
    expect(charts.charts.find((c) => c.id === "fsync-latency")!.series.map((s) => s.name)).toEqual([
      "data",
      "system_tablespace",
    ]);
  });

  it("fails with the api's error when Prometheus fails", async () => {
    const failing = {
      queryVector: async () => {
        throw new Error("Prometheus at http://x:9090 is unreachable");
      },
      queryRange: async () => ({ data: [], warnings: [] }),
    };
    await expect(
      recordFleet(failing, { window: "5m", span: "5m", every: "5m", at: AT, recordedFrom: "x", tool: "t" }),
    ).rejects.toThrow(/unreachable/);
  });

  it("single instance recordings replay their facts", async () => {
    const src = new ReplayApi(fakeReplay([DB_ON_LOADED], { window: "30m", times: [AT] }));
    const rec = await recordFleet(src, {
      window: "30m",
      span: "0s",
      every: "1m",
      at: AT,
      recordedFrom: "x",
      tool: "t",
    });
    const r = await buildFleetFacts(new ReplayApi(rec.file), replayFactsOptions(rec.file.meta));
    expect(r.facts.map((f) => f.identity.instance)).toEqual(["db-on:9105"]);
  });
});

describe("shownRecordedFrom", () => {
  it("never shows the lab's loopback Prometheus address, nor credentials", () => {
    expect(shownRecordedFrom("http://127.0.0.1:34111")).toBe("a Prometheus local to the recording machine");
    expect(shownRecordedFrom("http://localhost:9090/")).toBe("a Prometheus local to the recording machine");
    expect(shownRecordedFrom("http://[::1]:9090")).toBe("a Prometheus local to the recording machine");
    expect(shownRecordedFrom("https://u:secret@prom.example.com:9090/")).toBe(
      "https://prom.example.com:9090",
    );
    expect(shownRecordedFrom("not a url")).toBe("not a url");
  });
});
