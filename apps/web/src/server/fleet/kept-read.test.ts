/**
 * The kept fleet read through the data layer: a read is kept, a "restart" (resetCaches: every cache and
 * replay read forgotten, as in a new process) serves it, for a replay file without reading the file and
 * for a live source (a real HTTP server speaking the Prometheus API) as the last read while a fresh one
 * runs. The build is the one server.mjs reports (the same global it sets).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { encodeReplay, ReplayApi } from "@untorn/fleet/replay";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type Env, parseEnv } from "../../env.js";
import type { ServerInfo } from "../../lib/server-info.js";
import {
  type FakePrometheus,
  pinnedToRecording,
  startFakePrometheus,
} from "../../testing/fake-prometheus.js";
import { smallReplay } from "../../testing/fleet-facts.js";
import {
  type FleetView,
  fleetReading,
  getFleetView,
  getSourceInfo,
  metadataStore,
  resetCaches,
} from "./data.js";
import { KEPT_FILE, readKeptRead } from "./kept-file.js";
import { keptWritesSettled } from "./kept-read.js";

const SERVER = Symbol.for("untorn.server");
const globals = globalThis as Record<symbol, ServerInfo | undefined>;
const setBuild = (buildId: string | undefined) => {
  globals[SERVER] = { host: "127.0.0.1", port: 3000, peerHeader: "x-untorn-peer", buildId };
};

let dir: string;
let replayFile: string;
let storeDir: string;

/** Replay reads this process has started (source.ts keeps them on globalThis, one per file). */
const replayReads = () =>
  (globalThis as { __untornReplays?: Map<string, unknown> }).__untornReplays?.size ?? 0;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-kept-read-"));
  storeDir = path.join(dir, "store");
  replayFile = path.join(dir, "fleet.json.gz");
  fs.writeFileSync(replayFile, encodeReplay(smallReplay()));
  await metadataStore(parseEnv({ UNTORN_DATA_DIR: storeDir }));
});

afterAll(async () => {
  const store = await metadataStore(parseEnv({ UNTORN_DATA_DIR: storeDir })).catch(() => null);
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

beforeEach(() => {
  resetCaches();
  setBuild("build-1");
});
afterEach(async () => {
  await keptWritesSettled();
  delete globals[SERVER];
});

const env = (over: Record<string, string>): Env => parseEnv({ UNTORN_DATA_DIR: storeDir, ...over });
const keptFile = (d = storeDir) => path.join(d, KEPT_FILE);
const rowsOf = (v: FleetView) => v.rows.map((r) => ({ ...r, stale: false }));

/** A first start that reads the source and keeps the read; then the "restart". */
async function firstStart(e: Env): Promise<FleetView> {
  fs.rmSync(keptFile(path.resolve(e.UNTORN_CACHE_DIR ?? storeDir)), { force: true });
  const v = await getFleetView(e);
  expect(v.status.state).toBe("ok");
  expect(v.status.kept).toBeUndefined();
  await keptWritesSettled();
  resetCaches();
  return v;
}

describe("a replay file", () => {
  it("is served from the kept read after a restart, without reading the file, with fresh metadata", async () => {
    const e = env({ UNTORN_REPLAY: replayFile });
    const first = await firstStart(e);
    const r = await readKeptRead(storeDir, {
      build: "build-1",
      sourceKey: `replay:${replayFile}|size:${fs.statSync(replayFile).size}|mtime:${fs.statSync(replayFile).mtimeMs}`,
    });
    expect(r.ok && r.read.fleet.facts.length).toBe(first.snapshot?.measured.size);
    // Stored while the server was down: the kept read has facts only, the store's metadata is overlaid now.
    const store = await metadataStore(e);
    await store.upsertInstanceMetadata({ instance: "db-idle:9105", cluster: "kept-test", actor: "test" });
    try {
      const again = await getFleetView(e);
      expect(again.status).toMatchObject({
        state: "ok",
        error: null,
        kept: { origin: "replay", refreshing: false },
      });
      expect(again.status.kept?.readAt).toBe(new Date(first.snapshot!.fetchedAt).toISOString());
      expect(again.source).toEqual(first.source);
      expect(again.snapshot?.at).toBe(first.snapshot?.at);
      expect(again.rows.find((x) => x.instance === "db-idle:9105")?.cluster).toBe("kept-test");
      expect(rowsOf(again).filter((x) => x.instance !== "db-idle:9105")).toEqual(
        rowsOf(first).filter((x) => x.instance !== "db-idle:9105"),
      );
      // Neither the view nor the layout's source badge nor the reading notice read the replay file.
      expect(getSourceInfo(e)).toEqual(first.source);
      expect(fleetReading(e)).toBeNull();
      expect(replayReads()).toBe(0);
    } finally {
      await store.deleteInstanceMetadata({ instance: "db-idle:9105", actor: "test" });
    }
  });

  it("is read again when the file changed since (its mtime), and the new read is kept", async () => {
    const e = env({ UNTORN_REPLAY: replayFile });
    await firstStart(e);
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(replayFile, later, later);
    const v = await getFleetView(e);
    expect(v.status).toEqual({ state: "ok", error: null, slowMs: null });
    expect(replayReads()).toBe(1);
    await keptWritesSettled();
    resetCaches();
    expect((await getFleetView(e)).status.kept?.origin).toBe("replay");
  });

  it("ignores a kept read of another build, and replaces it with this build's", async () => {
    const e = env({ UNTORN_REPLAY: replayFile });
    await firstStart(e);
    setBuild("build-2");
    const v = await getFleetView(e);
    expect(v.status.kept).toBeUndefined();
    expect(replayReads()).toBe(1);
    await keptWritesSettled();
    resetCaches();
    expect((await getFleetView(e)).status.kept?.origin).toBe("replay");
  });

  it("ignores a corrupt kept read (the page shows the file's own read), and the next read overwrites it", async () => {
    const e = env({ UNTORN_REPLAY: replayFile });
    const first = await firstStart(e);
    const bytes = fs.readFileSync(keptFile());
    fs.writeFileSync(keptFile(), bytes.subarray(0, bytes.length - 40));
    const v = await getFleetView(e);
    expect(v.status).toEqual({ state: "ok", error: null, slowMs: null });
    expect(rowsOf(v)).toEqual(rowsOf(first));
    await keptWritesSettled();
    resetCaches();
    expect((await getFleetView(e)).status.kept?.origin).toBe("replay");
  });

  it("keeps nothing with UNTORN_CACHE_DIR=off, or without the build (next start)", async () => {
    fs.rmSync(keptFile(), { force: true });
    await getFleetView(env({ UNTORN_REPLAY: replayFile, UNTORN_CACHE_DIR: "off" }));
    await keptWritesSettled();
    expect(fs.existsSync(keptFile())).toBe(false);
    resetCaches();
    delete globals[SERVER];
    await getFleetView(env({ UNTORN_REPLAY: replayFile }));
    await keptWritesSettled();
    expect(fs.existsSync(keptFile())).toBe(false);
  });

  it("keeps it in UNTORN_CACHE_DIR when set", async () => {
    const cacheDir = path.join(dir, "cache");
    const e = env({ UNTORN_REPLAY: replayFile, UNTORN_CACHE_DIR: cacheDir });
    await firstStart(e);
    expect(fs.existsSync(keptFile(cacheDir))).toBe(true);
    expect((await getFleetView(e)).status.kept?.origin).toBe("replay");
  });
});

describe("a live source", () => {
  let prom: FakePrometheus;
  beforeAll(async () => {
    prom = await startFakePrometheus(pinnedToRecording(new ReplayApi(smallReplay())));
  });
  afterAll(() => prom.stop());

  it("serves the last read, marked stale, while a fresh read runs, then the fresh read", async () => {
    const e = env({ PROMETHEUS_URL: prom.url });
    const first = await firstStart(e);
    prom.setDelay(300);
    let v: FleetView;
    try {
      v = await getFleetView(e);
      expect(v.status).toMatchObject({
        state: "stale",
        error: null,
        kept: { origin: "live", refreshing: true, readAt: new Date(first.snapshot!.fetchedAt).toISOString() },
      });
      expect(v.rows.every((r) => r.stale)).toBe(true);
      expect(rowsOf(v)).toEqual(rowsOf(first));
    } finally {
      prom.setDelay(0);
    }
    for (let i = 0; i < 600 && v.status.kept; i++) {
      await new Promise((r) => setTimeout(r, 100));
      v = await getFleetView(e);
    }
    expect(v.status).toEqual({ state: "ok", error: null, slowMs: null });
    expect(v.snapshot?.fetchedAt).toBeGreaterThan(first.snapshot!.fetchedAt);
    expect(v.rows.some((r) => r.stale)).toBe(false);
  });

  it("keeps serving the last read, with the error, while Prometheus is unreachable", async () => {
    const fake = await startFakePrometheus(pinnedToRecording(new ReplayApi(smallReplay())));
    const e = env({ PROMETHEUS_URL: fake.url, UNTORN_PROM_TIMEOUT_MS: "500" });
    const first = await firstStart(e);
    await fake.stop();
    let v = await getFleetView(e);
    for (let i = 0; i < 600 && v.status.error === null; i++) {
      await new Promise((r) => setTimeout(r, 100));
      v = await getFleetView(e);
    }
    expect(v.status).toMatchObject({ state: "stale", kept: { origin: "live" } });
    expect(v.status.error).toMatch(/unreachable/);
    expect(rowsOf(v)).toEqual(rowsOf(first));
  });

  it("ignores a kept read of another Prometheus or another window", async () => {
    const e = env({ PROMETHEUS_URL: prom.url });
    await firstStart(e);
    const v = await getFleetView(env({ PROMETHEUS_URL: prom.url, UNTORN_WINDOW: "30m" }));
    expect(v.status.kept).toBeUndefined();
  });
});
