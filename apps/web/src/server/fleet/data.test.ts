import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import type { PromQueryApi } from "@untorn/fleet/api";
import { encodeReplay, ReplayApi, ReplayMissError } from "@untorn/fleet/replay";
import { fakeReplay } from "@untorn/fleet/testing/fake-api";
import { SMALL_FLEET } from "@untorn/fleet/testing/fake-fleet";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setUpDataDir } from "../../testing/data-dir.js";
import { type FakePrometheus, startFakePrometheus } from "../../testing/fake-prometheus.js";
import { END, smallReplay } from "../../testing/fleet-facts.js";
import { fleetReading, getFleetView, metadataChanged, metadataStore, resetCaches } from "./data.js";
import { getInstance } from "./instance.js";

const data = setUpDataDir("untorn-data-");
let prom: FakePrometheus;

/** Answers every instant query at the recording's last evaluation time, whatever time is asked. */
function pinnedToRecording(api: ReplayApi): PromQueryApi {
  return {
    queryVector: (expr) => api.queryVector(expr, { time: api.meta.end }),
    queryRange: (expr, opts) => api.queryRange(expr, opts),
  };
}

async function closedPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

beforeAll(async () => {
  prom = await startFakePrometheus(pinnedToRecording(new ReplayApi(data.replay)));
});

afterAll(async () => {
  await prom.stop();
});

const env = data.env;

describe("getFleetView", () => {
  it("serves a recorded fleet, labelled as recorded", async () => {
    const v = await getFleetView(env({ UNTORN_REPLAY: data.replayFile }));
    expect(v.source.kind).toBe("recorded");
    expect(v.status).toEqual({ state: "ok", error: null, slowMs: null });
    expect(v.rows).toHaveLength(5);
    expect(v.snapshot?.storeProblem).toBeNull();
  });

  it("reads a live Prometheus over HTTP and caches the snapshot", async () => {
    const e = env({ PROMETHEUS_URL: prom.url });
    const before = prom.requests();
    const v = await getFleetView(e);
    expect(v.source).toEqual({ kind: "live", url: prom.url });
    expect(v.rows).toHaveLength(5);
    const asked = prom.requests() - before;
    expect(asked).toBe(v.snapshot?.queries);
    await getFleetView(e);
    expect(prom.requests() - before).toBe(asked);
  });

  it("shares one read between concurrent requests", async () => {
    const e = env({ PROMETHEUS_URL: prom.url });
    const before = prom.requests();
    const views = await Promise.all(Array.from({ length: 5 }, () => getFleetView(e)));
    expect(new Set(views.map((v) => v.snapshot))).toHaveProperty("size", 1);
    expect(prom.requests() - before).toBe(views[0]?.snapshot?.queries);
  });

  it("says unavailable, with Prometheus's error, when it is unreachable and nothing was read before", async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const v = await getFleetView(env({ PROMETHEUS_URL: url }));
    expect(v.status.state).toBe("unavailable");
    expect(v.status.error).toMatch(/unreachable/);
    expect(v.status.error).toContain(url);
    expect(v.snapshot).toBeNull();
    expect(v.rows).toEqual([]);
  });

  it("serves the last good snapshot marked stale when Prometheus starts failing", async () => {
    const fake = await startFakePrometheus(pinnedToRecording(new ReplayApi(smallReplay())));
    const e = env({ PROMETHEUS_URL: fake.url, UNTORN_CACHE_SECONDS: "0" });
    const good = await getFleetView(e);
    expect(good.status.state).toBe("ok");
    await fake.stop();
    const v = await getFleetView(e);
    expect(v.status.state).toBe("stale");
    expect(v.status.error).toMatch(/unreachable/);
    expect(v.snapshot).toBe(good.snapshot);
    expect(v.rows).toHaveLength(5);
    expect(v.rows.every((r) => r.stale)).toBe(true);
  });

  it("reports a slow Prometheus", async () => {
    prom.setDelay(30);
    try {
      const v = await getFleetView(env({ PROMETHEUS_URL: prom.url, UNTORN_SLOW_MS: "1" }));
      expect(v.status.state).toBe("ok");
      expect(v.status.slowMs).toBeGreaterThanOrEqual(30);
    } finally {
      prom.setDelay(0);
    }
  });

  it("says no-source without a URL, a replay or recordings", async () => {
    const v = await getFleetView(env({ UNTORN_RECORDINGS_DIR: path.join(data.dir, "empty-recordings") }));
    expect(v.status.state).toBe("no-source");
    expect(v.source.kind).toBe("none");
  });
});

describe("getFleetView over a time range", () => {
  /** The first api that holds the query answers it: one recording per window. */
  function anyOf(...apis: ReplayApi[]): PromQueryApi {
    const first = async <T>(f: (a: ReplayApi) => Promise<T>): Promise<T> => {
      for (const a of apis.slice(0, -1))
        try {
          return await f(a);
        } catch (err) {
          if (!(err instanceof ReplayMissError)) throw err;
        }
      return f(apis.at(-1)!);
    };
    return {
      queryVector: (expr) => first((a) => a.queryVector(expr, { time: a.meta.end })),
      queryRange: (expr, opts) => first((a) => a.queryRange(expr, opts)),
    };
  }

  it("reads a live Prometheus over the range asked for, each range cached beside the default", async () => {
    const short = new ReplayApi(fakeReplay(SMALL_FLEET, { window: "15m", times: [END - 300, END] }));
    const fake = await startFakePrometheus(anyOf(new ReplayApi(smallReplay()), short));
    try {
      const e = env({ PROMETHEUS_URL: fake.url });
      const def = await getFleetView(e);
      expect(def.snapshot?.window).toBe("1h");
      expect(def.range).toEqual({ asked: null, note: null });
      const ranged = await getFleetView(e, "15m");
      expect(ranged.status.state).toBe("ok");
      expect(ranged.snapshot?.window).toBe("15m");
      expect(ranged.range).toEqual({ asked: "15m", note: null });
      expect(ranged.rows).toHaveLength(5);
      const asked = fake.requests();
      expect((await getFleetView(e)).snapshot).toBe(def.snapshot);
      expect((await getFleetView(e, "15m")).snapshot).toBe(ranged.snapshot);
      expect(fake.requests()).toBe(asked);
      // UNTORN_WINDOW asked for by name is the default read.
      expect((await getFleetView(e, "1h")).snapshot).toBe(def.snapshot);
    } finally {
      await fake.stop();
    }
  });

  it("on a recording, says plainly that a longer or another range is not what it holds", async () => {
    const e = env({ UNTORN_REPLAY: data.replayFile });
    const long = await getFleetView(e, "6h");
    expect(long.snapshot?.window).toBe("1h");
    expect(long.range?.note).toBe(
      "6h is longer than the recording, which covers 3.0 hours: the figures are over its recorded window of 1h.",
    );
    expect((await getFleetView(e, "15m")).range?.note).toMatch(
      /^A recording holds the fleet over the window it was recorded with only: the figures are over 1h, not 15m/,
    );
    expect((await getFleetView(e, "1h")).range?.note).toBeNull();
  });

  it("counts a recording as long as its window at least, in seconds under two minutes", async () => {
    const tiny = path.join(data.dir, "tiny.json.gz");
    fs.writeFileSync(
      tiny,
      encodeReplay(
        fakeReplay(SMALL_FLEET, { window: "30s", times: [END], chart: { start: END, end: END, step: 15 } }),
      ),
    );
    const v = await getFleetView(env({ UNTORN_REPLAY: tiny }), "2m");
    expect(v.range?.note).toBe(
      "2m is longer than the recording, which covers 30 seconds: the figures are over its recorded window of 30s.",
    );
  });
});

describe("declared metadata file", () => {
  const declaredDir = () => {
    const d = path.join(data.dir, `declared-${Math.random().toString(36).slice(2)}`);
    fs.mkdirSync(d);
    fs.copyFileSync(data.replayFile, path.join(d, "fleet.json.gz"));
    return d;
  };

  it("overlays a recording's sidecar file, and what users store still wins", async () => {
    const d = declaredDir();
    fs.writeFileSync(
      path.join(d, "fleet.metadata.json"),
      JSON.stringify({
        instances: {
          "db-heavy-plain:9105": {
            cluster: "lab",
            role: "standalone",
            storageFacts: { limits: { metered: false } },
          },
          "db-off:9105": { cluster: "lab" },
        },
      }),
    );
    const e = env({ UNTORN_REPLAY: path.join(d, "fleet.json.gz") });
    const v = await getFleetView(e);
    expect(v.snapshot?.declared).toEqual({
      file: path.join(d, "fleet.metadata.json"),
      instances: 2,
      problem: null,
    });
    expect(v.rows.find((r) => r.instance === "db-heavy-plain:9105")).toMatchObject({
      cluster: "lab",
      role: "standalone",
    });
    const r = await getInstance("db-heavy-plain:9105", e);
    expect(r.kind === "found" && r.view.facts.storage?.limits?.metered).toBe(false);
    // A stored declaration for the same instance overrides the file's identity.
    const store = await metadataStore(e);
    const saved = await store.upsertInstanceMetadata({
      instance: "db-heavy-plain:9105",
      cluster: "mine",
      actor: "test",
    });
    metadataChanged("db-heavy-plain:9105", saved);
    const after = await getFleetView(e);
    expect(after.rows.find((x) => x.instance === "db-heavy-plain:9105")?.cluster).toBe("mine");
    await store.deleteInstanceMetadata({ instance: "db-heavy-plain:9105", actor: "test" });
    metadataChanged("db-heavy-plain:9105", null);
  });

  it("reports a broken file with the field, and serves the fleet without it", async () => {
    const d = declaredDir();
    fs.writeFileSync(
      path.join(d, "fleet.metadata.json"),
      JSON.stringify({ instances: { "db-heavy-plain:9105": { role: "boss" } } }),
    );
    const v = await getFleetView(env({ UNTORN_REPLAY: path.join(d, "fleet.json.gz") }));
    expect(v.status.state).toBe("ok");
    expect(v.rows).toHaveLength(5);
    expect(v.snapshot?.declared?.problem).toMatch(/instances\.db-heavy-plain:9105\.role/);
    expect(v.rows.find((r) => r.instance === "db-heavy-plain:9105")?.role).toBeNull();
  });

  it("takes UNTORN_METADATA_FILE for a live Prometheus, and says when it is missing", async () => {
    const file = path.join(data.dir, "live-metadata.json");
    fs.writeFileSync(file, JSON.stringify({ instances: { "db-off:9105": { cluster: "live-declared" } } }));
    const v = await getFleetView(env({ PROMETHEUS_URL: prom.url, UNTORN_METADATA_FILE: file }));
    expect(v.rows.find((r) => r.instance === "db-off:9105")?.cluster).toBe("live-declared");
    resetCaches();
    const gone = await getFleetView(env({ PROMETHEUS_URL: prom.url, UNTORN_METADATA_FILE: `${file}.nope` }));
    expect(gone.snapshot?.declared?.problem).toMatch(/file not found/);
  });
});

describe("the first read of a replay file", () => {
  it("says how far it has got while it runs, and nothing once the fleet is read", async () => {
    const file = path.join(data.dir, "first-read.json.gz");
    fs.copyFileSync(data.replayFile, file);
    const e = env({ UNTORN_REPLAY: file });
    const reading = fleetReading(e);
    expect(reading).toMatchObject({
      phase: "replay",
      file: "first-read.json.gz",
      bytes: fs.statSync(file).size,
    });
    const phases = new Set<string>();
    const view = getFleetView(e);
    const watch = setInterval(() => {
      const r = fleetReading(e);
      if (r) phases.add(r.phase);
    }, 1);
    const v = await view;
    clearInterval(watch);
    expect(v.status.state).toBe("ok");
    expect(v.rows.length).toBeGreaterThan(0);
    expect(fleetReading(e)).toBeNull();
    // Every phase it went through is one the page knows how to say.
    for (const p of phases) expect(["replay", "facts", "advice"]).toContain(p);
  });

  it("surfaces a replay file that cannot be read as the page's error, not as a read under way", async () => {
    const file = path.join(data.dir, "truncated.json.gz");
    const bytes = fs.readFileSync(data.replayFile);
    fs.writeFileSync(file, bytes.subarray(0, bytes.length >> 1));
    const e = env({ UNTORN_REPLAY: file });
    const v = await getFleetView(e);
    expect(v.status).toMatchObject({ state: "unavailable" });
    expect(v.status.error).toMatch(/^replay file truncated\.json\.gz: not a gzip file that decompresses: /);
    expect(fleetReading(e)).toBeNull();
  });
});
