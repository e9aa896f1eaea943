import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { gunzipSync, gzipSync } from "node:zlib";
import { buildFleetFacts, type FleetFacts } from "@untorn/fleet/facts";
import { readReplayApi, replayFactsOptions } from "@untorn/fleet/replay";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { templates } from "../../../bench/synthetic-fleet.js";
import { factsOf } from "../../testing/fleet-facts.js";
import {
  KEPT_FILE,
  KEPT_FORMAT,
  type KeptHeaderInput,
  type KeptSource,
  keptSourceKey,
  readKeptRead,
  removeLeftovers,
  writeKeptRead,
} from "./kept-file.js";
import { newestReplay } from "./source.js";

const RECORDINGS = fileURLToPath(new URL("../../../../../lab/recordings/", import.meta.url));

let root: string;
let n = 0;
const freshDir = () => path.join(root, `d${++n}`);

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-kept-"));
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

const LIVE: KeptSource = { kind: "live", url: "http://prom:9090", window: "1h" };
const header = (fleet: FleetFacts, source: KeptSource = LIVE, build = "build-a"): KeptHeaderInput => ({
  build,
  source,
  at: fleet.at,
  fetchedAt: 1_795_000_000_000,
  fetchMs: 1234.5,
});
const expectFor = (source: KeptSource = LIVE, build = "build-a") => ({
  build,
  sourceKey: keptSourceKey(source),
});

describe("writeKeptRead / readKeptRead", () => {
  it("gives back the lab recording's fleet facts exactly", async () => {
    const file = newestReplay(RECORDINGS)!;
    const api = await readReplayApi({
      chunks: () => fs.createReadStream(file),
      whole: () => fs.promises.readFile(file),
    });
    const fleet = await buildFleetFacts(api, replayFactsOptions(api.meta));
    expect(fleet.facts.length).toBeGreaterThan(10);
    const st = fs.statSync(file);
    const source: KeptSource = {
      kind: "replay",
      file,
      size: st.size,
      mtimeMs: st.mtimeMs,
      recorded: {
        recordedAt: api.meta.recordedAt,
        recordedFrom: api.meta.recordedFrom,
        window: api.meta.window,
        end: api.meta.end,
        note: api.meta.note ?? null,
      },
    };
    const dir = freshDir();
    await writeKeptRead(
      dir,
      header(fleet, source),
      fleet,
      () => null,
      () => 1_795_000_100_000,
    );
    const r = await readKeptRead(dir, expectFor(source));
    if (!r.ok) throw new Error(r.reason);
    expect(r.read.fleet).toStrictEqual(fleet);
    expect(r.read.header).toMatchObject({
      format: KEPT_FORMAT,
      build: "build-a",
      source,
      at: fleet.at,
      fetchedAt: 1_795_000_000_000,
      fetchMs: 1234.5,
      writtenAt: 1_795_000_100_000,
      instances: fleet.facts.length,
    });
  });

  it("gives back a synthetic fleet's facts exactly, and its header is the first line", async () => {
    const fleet = await factsOf(templates(60));
    expect(fleet.facts).toHaveLength(60);
    const dir = freshDir();
    const written = await writeKeptRead(dir, header(fleet), fleet);
    expect(written.file).toBe(path.join(dir, KEPT_FILE));
    const r = await readKeptRead(dir, expectFor());
    if (!r.ok) throw new Error(r.reason);
    expect(r.read.fleet).toStrictEqual(fleet);
    const lines = gunzipSync(fs.readFileSync(written.file)).toString().split("\n");
    expect(JSON.parse(lines[0]!)).toMatchObject({
      build: "build-a",
      sourceKey: "live:http://prom:9090|window:1h",
    });
    // Header, the fleet's other fields, one line per instance, and the final newline.
    expect(lines).toHaveLength(2 + 60 + 1);
  });

  it("says there is none when the directory has no kept read", async () => {
    const r = await readKeptRead(freshDir(), expectFor());
    expect(r).toMatchObject({ ok: false, missing: true });
  });

  describe("refuses, with the reason", () => {
    let fleet: FleetFacts;
    let good: Buffer;
    beforeAll(async () => {
      fleet = await factsOf(templates(30));
      const dir = freshDir();
      const w = await writeKeptRead(dir, header(fleet), fleet);
      good = fs.readFileSync(w.file);
    });
    const withFile = (bytes: Buffer) => {
      const dir = freshDir();
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, KEPT_FILE), bytes);
      return dir;
    };
    const refused = async (dir: string, e = expectFor()) => {
      const r = await readKeptRead(dir, e);
      if (r.ok) throw new Error("the kept read was accepted");
      expect(r.missing).toBe(false);
      return r.reason;
    };

    it("a file written by another build", async () => {
      expect(await refused(withFile(good), expectFor(LIVE, "build-b"))).toBe(
        "written by build build-a, this is build build-b",
      );
    });

    it("a read of another source: another URL, another window, another replay file", async () => {
      const dir = withFile(good);
      expect(await refused(dir, expectFor({ ...LIVE, url: "http://other:9090" }))).toMatch(
        /^read from another source \(live:http:\/\/prom:9090\|window:1h; this one is live:http:\/\/other:9090/,
      );
      expect(await refused(dir, expectFor({ ...LIVE, window: "6h" }))).toMatch(/^read from another source/);
    });

    it("a replay file edited since (its size or mtime)", async () => {
      const recorded = {
        recordedAt: "2026-11-18T10:00:00Z",
        recordedFrom: "lab",
        window: "1h",
        end: 1,
        note: null,
      };
      const source: KeptSource = {
        kind: "replay",
        file: "/r/fleet.json.gz",
        size: 100,
        mtimeMs: 5,
        recorded,
      };
      const dir = freshDir();
      await writeKeptRead(dir, header(fleet, source), fleet);
      expect(await refused(dir, expectFor({ ...source, mtimeMs: 6 }))).toMatch(
        /^read from another source \(replay:\/r\/fleet\.json\.gz\|size:100\|mtime:5;/,
      );
      expect(await refused(dir, expectFor({ ...source, size: 101 }))).toMatch(/^read from another source/);
      const ok = await readKeptRead(dir, expectFor(source));
      expect(ok.ok).toBe(true);
    });

    it("a truncated file", async () => {
      expect(await refused(withFile(good.subarray(0, Math.floor(good.length * 0.6))))).toMatch(
        /^corrupt or truncated \(unexpected end of file\)/,
      );
    });

    it("a file whose bytes were changed", async () => {
      const bad = Buffer.from(good);
      for (let i = Math.floor(bad.length / 2); i < bad.length / 2 + 64; i++) bad[i] = bad[i]! ^ 0x5a;
      expect(await refused(withFile(bad))).toMatch(/^corrupt/);
    });

    it("a file that is not gzip, or not a kept read", async () => {
      expect(await refused(withFile(Buffer.from("hello\n")))).toMatch(
        /^corrupt or truncated \(incorrect header check\)/,
      );
      expect(await refused(withFile(gzipSync('{"kind":"something else"}\n')))).toBe(
        "not a kept fleet read (no header)",
      );
      expect(await refused(withFile(gzipSync("")))).toBe("the file is empty");
    });

    it("another format version", async () => {
      const lines = gunzipSync(good).toString().split("\n");
      lines[0] = JSON.stringify({ ...JSON.parse(lines[0]!), format: KEPT_FORMAT + 1 });
      expect(await refused(withFile(gzipSync(lines.join("\n"))))).toBe(
        `format ${KEPT_FORMAT + 1}, this build reads ${KEPT_FORMAT}`,
      );
    });

    it("a whole gzip stream that lacks instances", async () => {
      const lines = gunzipSync(good).toString().split("\n");
      const cut = [...lines.slice(0, 12), ""].join("\n");
      expect(await refused(withFile(gzipSync(cut)))).toBe("truncated: 10 of 30 instances");
    });
  });

  it("leaves no partial file when a write fails, and keeps the previous kept read", async () => {
    const fleet = await factsOf(templates(20));
    const dir = freshDir();
    await writeKeptRead(dir, header(fleet), fleet);
    const before = fs.readFileSync(path.join(dir, KEPT_FILE));
    // A value JSON cannot write, in the middle of the facts: the write fails after it began.
    const broken = {
      ...fleet,
      facts: fleet.facts.map((f, i) => (i === 10 ? { ...f, identity: { ...f.identity, bad: 1n } } : f)),
    } as unknown as FleetFacts;
    await expect(writeKeptRead(dir, header(broken), broken)).rejects.toThrow(/BigInt/);
    expect(fs.readdirSync(dir)).toEqual([KEPT_FILE]);
    expect(fs.readFileSync(path.join(dir, KEPT_FILE)).equals(before)).toBe(true);
  });

  it("removes temporary files a killed writer left, never the kept read", async () => {
    const fleet = await factsOf(templates(5));
    const dir = freshDir();
    await writeKeptRead(dir, header(fleet), fleet);
    fs.writeFileSync(path.join(dir, `${KEPT_FILE}.123.abc.tmp`), "partial");
    fs.writeFileSync(path.join(dir, "other.tmp"), "not ours");
    expect(await removeLeftovers(dir)).toBe(1);
    expect(fs.readdirSync(dir).sort()).toEqual([KEPT_FILE, "other.tmp"]);
  });
});
