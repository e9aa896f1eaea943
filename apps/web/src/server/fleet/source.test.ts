import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { encodeReplay } from "@untorn/fleet/replay";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseEnv } from "../../env.js";
import { smallReplay } from "../../testing/fleet-facts.js";
import { findRecordingsDir, newestReplay, readSource, replayFile, resolveSource } from "./source.js";

let root: string;

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-source-"));
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

const write = (file: string, data: string | Buffer, mtime?: number) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
  if (mtime !== undefined) fs.utimesSync(file, mtime, mtime);
};

describe("the source a recording names", () => {
  it("is what the shipped recording's source says", async () => {
    const rec = path.resolve(__dirname, "../../../../../lab/recordings/mariadb-10.11-fleet.json.gz");
    const src = await readSource(parseEnv({ UNTORN_REPLAY: rec }));
    expect(src.info).toMatchObject({
      kind: "recorded",
      recordedFrom: "a Prometheus local to the recording machine",
    });
    expect(JSON.stringify(src.info)).not.toMatch(/127\.0\.0\.1|localhost/);
  }, 120_000);
});

describe("findRecordingsDir / newestReplay", () => {
  it("finds lab/recordings in a parent directory", () => {
    fs.mkdirSync(path.join(root, "lab", "recordings"), { recursive: true });
    fs.mkdirSync(path.join(root, "apps", "web"), { recursive: true });
    expect(findRecordingsDir(path.join(root, "apps", "web"))).toBe(path.join(root, "lab", "recordings"));
  });

  it("picks the most recently modified replay file and ignores other files", () => {
    const dir = path.join(root, "rec");
    write(path.join(dir, "old.json.gz"), "x", 1_000);
    write(path.join(dir, "new.json.gz"), "x", 2_000);
    write(path.join(dir, "notes.txt"), "x", 3_000);
    write(path.join(dir, "replay.schema.json"), "x", 3_000);
    write(path.join(dir, "new.metadata.json"), "{}", 4_000);
    write(path.join(dir, "new.rollouts.json"), "{}", 5_000);
    expect(newestReplay(dir)).toBe(path.join(dir, "new.json.gz"));
    expect(newestReplay(path.join(root))).toBeNull();
  });
});

describe("replayFile", () => {
  it("names the replay the console would serve, without reading it; null in live mode", () => {
    const dir = path.join(root, "lab", "recordings");
    write(path.join(dir, "fleet.json.gz"), "not even a replay", 1_000);
    write(path.join(dir, "fleet.rollouts.json"), "{}", 2_000);
    const cwd = path.join(root, "apps", "web");
    fs.mkdirSync(cwd, { recursive: true });
    expect(replayFile(parseEnv({}), cwd)).toBe(path.join(dir, "fleet.json.gz"));
    expect(replayFile(parseEnv({ UNTORN_REPLAY: "x.json.gz" }), cwd)).toBe(path.join(cwd, "x.json.gz"));
    expect(replayFile(parseEnv({ PROMETHEUS_URL: "http://prom:9090" }), cwd)).toBeNull();
    expect(replayFile(parseEnv({ UNTORN_RECORDINGS_DIR: "nowhere" }), cwd)).toBeNull();
  });
});

describe("resolveSource / readSource", () => {
  it("is live with PROMETHEUS_URL, whatever else is set", async () => {
    const s = resolveSource(parseEnv({ PROMETHEUS_URL: "http://prom:9090/", UNTORN_REPLAY: "/nope" }), root);
    expect(s.info).toEqual({ kind: "live", url: "http://prom:9090" });
    expect(s.api).not.toBeNull();
    expect(s.factsOptions).toEqual({ window: "1h" });
  });

  it("replays the newest recording with the recording's plan", async () => {
    write(path.join(root, "lab", "recordings", "fleet.json.gz"), encodeReplay(smallReplay()));
    const s = await readSource(parseEnv({}), path.join(root, "apps", "web"));
    expect(s.info.kind).toBe("recorded");
    expect(s.replay?.window).toBe("1h");
    expect(s.factsOptions).toMatchObject({ window: "1h", at: s.replay?.end });
  });

  it("takes a recording's sidecar metadata file, unless UNTORN_METADATA_FILE names another", async () => {
    const rec = path.join(root, "lab", "recordings", "fleet.json.gz");
    write(rec, encodeReplay(smallReplay()));
    const web = path.join(root, "apps", "web");
    expect((await readSource(parseEnv({}), web)).metadataFile).toBeNull();
    write(path.join(root, "lab", "recordings", "fleet.metadata.json"), "{}", 1_000);
    const s = await readSource(parseEnv({}), web);
    expect(s.metadataFile).toBe(path.join(root, "lab", "recordings", "fleet.metadata.json"));
    // Editing the file changes the cache key, so the next read applies it.
    write(path.join(root, "lab", "recordings", "fleet.metadata.json"), '{"instances":{}}', 2_000);
    expect((await readSource(parseEnv({}), web)).key).not.toBe(s.key);
    const named = await readSource(parseEnv({ UNTORN_METADATA_FILE: "/etc/untorn/fleet.json" }), web);
    expect(named.metadataFile).toBe("/etc/untorn/fleet.json");
  });

  it("says why there is no data", async () => {
    expect((await readSource(parseEnv({}), root)).info).toMatchObject({ kind: "none", searched: null });
    fs.mkdirSync(path.join(root, "lab", "recordings"), { recursive: true });
    const s = await readSource(parseEnv({}), root);
    expect(s.info).toMatchObject({ kind: "none", searched: "lab/recordings" });
    expect(s.info.kind === "none" && s.info.reason).toMatch(/no replay file/);
  });

  it("reports an unreadable or missing replay file instead of throwing", async () => {
    write(path.join(root, "bad.json.gz"), "not gzip, not json");
    const bad = await readSource(parseEnv({ UNTORN_REPLAY: "bad.json.gz" }), root);
    expect(bad.info).toMatchObject({ kind: "invalid", file: "bad.json.gz" });
    expect(bad.info.kind === "invalid" && bad.info.error).toMatch(/not JSON/);
    const missing = await readSource(parseEnv({ UNTORN_REPLAY: "/no/such/file.json.gz" }), root);
    expect(missing.info).toMatchObject({ kind: "invalid", error: "file not found" });
  });

  it("shows readers no absolute server path: checkout-relative inside it, else the base name", async () => {
    write(path.join(root, "lab", "recordings", "fleet.json.gz"), encodeReplay(smallReplay()));
    const inside = await readSource(parseEnv({}), path.join(root, "apps", "web"));
    expect(inside.info).toMatchObject({ kind: "recorded", file: "lab/recordings/fleet.json.gz" });
    const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-elsewhere-"));
    try {
      const file = path.join(elsewhere, "other.json.gz");
      write(file, encodeReplay(smallReplay()));
      const outside = await readSource(parseEnv({ UNTORN_REPLAY: file }), path.join(root, "apps", "web"));
      expect(outside.info).toMatchObject({ kind: "recorded", file: "other.json.gz" });
      expect(JSON.stringify(outside.info)).not.toContain(elsewhere);
      expect(outside.key).toContain(file);
    } finally {
      fs.rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it("reloads a replay file when it changes on disk", async () => {
    const file = path.join(root, "r.json.gz");
    write(file, encodeReplay(smallReplay()), 1_000);
    const a = await readSource(parseEnv({ UNTORN_REPLAY: file }), root);
    write(file, encodeReplay(smallReplay()), 2_000);
    const b = await readSource(parseEnv({ UNTORN_REPLAY: file }), root);
    expect(a.key).not.toBe(b.key);
    expect(a.api).not.toBe(b.api);
  });

  it("reads a replay file once, in the background, saying how far it has got; a failed read is kept", async () => {
    const file = path.join(root, "big.json.gz");
    write(file, encodeReplay(smallReplay()), 1_000);
    const e = parseEnv({ UNTORN_REPLAY: file });
    const first = resolveSource(e, root);
    expect(first.info).toMatchObject({ kind: "reading", file: "big.json.gz", bytes: fs.statSync(file).size });
    expect(first.api).toBeNull();
    expect("reading" in first && (await first.reading)).toBeUndefined();
    const read = resolveSource(e, root);
    expect(read.info.kind).toBe("recorded");
    // One read per file and process: the same api again, from either function.
    expect((await readSource(e, root)).api).toBe(read.api);
    write(file, "not gzip, not json", 2_000);
    const bad = await readSource(e, root);
    expect(bad.info).toMatchObject({ kind: "invalid", file: "big.json.gz" });
    expect(bad.info.kind === "invalid" && bad.info.error).toMatch(/^not JSON: /);
    expect(resolveSource(e, root).info.kind).toBe("invalid");
  });
});
