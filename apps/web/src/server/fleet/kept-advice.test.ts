/**
 * The kept fleet read's advice across a restart: the snapshot built from a kept read, reusing the kept
 * advice whose inputs are unchanged, must be the one a fresh build of the same facts and metadata gives.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import type { FleetFacts } from "@untorn/fleet/facts";
import type { FleetMetadata } from "@untorn/fleet/metadata";
import { adviceInputs, buildSnapshot, type ReusableAdvice } from "@untorn/fleet/pipeline";
import type { InstanceMetadata } from "@untorn/store/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { webRows } from "../../lib/fleet-row.js";
import { factsOf, storedMetadata as metadata } from "../../testing/fleet-facts.js";
import type { Snapshot } from "./data.js";
import { parseKeptAdvice } from "./kept-advice-schema.js";
import { KEPT_FILE, type KeptSource, keptSourceKey, readKeptRead, writeKeptRead } from "./kept-file.js";

const LIVE: KeptSource = { kind: "live", url: "http://prom:9090", window: "1h" };
let root: string;
let n = 0;
let measured: FleetFacts;
const declared = new Map<string, FleetMetadata>([["db-heavy-plain:9105", { storageClass: "gp3" }]]);
const stored = [metadata("db-off:9105", { cluster: "orders", role: "primary" })];

/** The snapshot data.ts builds: the pipeline overlays the declared file's entries, then the stored metadata. */
function build(
  meta: readonly InstanceMetadata[],
  decl: ReadonlyMap<string, FleetMetadata>,
  reuse: ReadonlyMap<string, ReusableAdvice> | null = null,
): Snapshot {
  return buildSnapshot({
    fleet: measured,
    rowsOf: webRows,
    metadata: meta,
    storeProblem: null,
    declared: { file: "fleet.metadata.json", instances: decl, problem: null },
    reuse,
    fetchedAt: 1,
    fetchMs: 12,
    window: "1h",
  });
}

/** A snapshot without the fields that say how it was built (time taken, advice reused). */
const built = ({ adviseMs: _a, reused: _r, ...rest }: Snapshot) => rest;

/** Writes `snap`'s advice with `measured` as a kept read, then reads it back. */
async function keepAndRead(snap: Snapshot, edit?: (lines: string[]) => void) {
  const dir = path.join(root, `d${++n}`);
  await writeKeptRead(
    dir,
    { build: "b", source: LIVE, at: measured.at, fetchedAt: 1, fetchMs: 12 },
    measured,
    (instance) => {
      const advice = snap.advice.get(instance);
      return advice ? { advice, inputs: adviceInputs(snap, instance) } : null;
    },
  );
  if (edit) {
    const file = path.join(dir, KEPT_FILE);
    const lines = gunzipSync(fs.readFileSync(file)).toString("utf8").split("\n");
    edit(lines);
    fs.writeFileSync(file, gzipSync(lines.join("\n")));
  }
  const r = await readKeptRead(dir, { build: "b", sourceKey: keptSourceKey(LIVE) });
  if (!r.ok) throw new Error(r.reason);
  return r.read;
}

beforeAll(async () => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-kept-advice-"));
  measured = await factsOf();
});
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe("kept advice across a restart", () => {
  it("reuses every kept advice when nothing changed, and the snapshot is a fresh build's", async () => {
    const first = build(stored, declared);
    expect(first.reused).toBe(0);
    const read = await keepAndRead(first);
    expect(read.advice.size).toBe(first.advice.size);
    expect(read.adviceRejected).toBe(0);
    const restarted = build(stored, declared, read.advice);
    expect(restarted.reused).toBe(first.advice.size);
    expect(built(restarted)).toEqual(built(build(stored, declared)));
  });

  it("advises again an instance whose stored metadata changed while the server was down", async () => {
    const read = await keepAndRead(build(stored, declared));
    const changed = [metadata("db-off:9105", { cluster: "billing", role: "replica" })];
    const restarted = build(changed, declared, read.advice);
    const fresh = build(changed, declared);
    expect(restarted.reused).toBe(fresh.advice.size - 1);
    expect(restarted.advice.get("db-off:9105")?.identity.cluster).toBe("billing");
    expect(built(restarted)).toEqual(built(fresh));
  });

  it("advises again an instance whose metadata was added or whose declared entry changed", async () => {
    const read = await keepAndRead(build(stored, declared));
    const meta = [...stored, metadata("db-idle:9105", { cluster: "analytics" })];
    const decl = new Map<string, FleetMetadata>([["db-heavy-plain:9105", { storageClass: "io2" }]]);
    const restarted = build(meta, decl, read.advice);
    const fresh = build(meta, decl);
    expect(restarted.reused).toBe(fresh.advice.size - 2);
    expect(built(restarted)).toEqual(built(fresh));
  });

  it("advises again an instance whose kept advice fails its schema check, never trusting it", async () => {
    const first = build(stored, declared);
    const read = await keepAndRead(first, (lines) => {
      const i = lines.findIndex((l) => l.includes('"instance":"db-off:9105"') && l.startsWith('{"facts"'));
      const one = JSON.parse(lines[i]!);
      one.advice.verdict.verdict = "certainly";
      lines[i] = JSON.stringify(one);
    });
    expect(read.adviceRejected).toBe(1);
    expect(read.advice.has("db-off:9105")).toBe(false);
    const restarted = build(stored, declared, read.advice);
    expect(restarted.reused).toBe(first.advice.size - 1);
    expect(built(restarted)).toEqual(built(first));
  });

  it("checks kept advice against its schema: real advice passes, another instance's or a broken one not", () => {
    const a = build(stored, declared).advice.get("db-off:9105")!;
    expect(parseKeptAdvice(JSON.parse(JSON.stringify(a)))).toEqual(a);
    expect(parseKeptAdvice({ ...a, findings: [{ ruleId: 1 }] })).toBeNull();
    expect(parseKeptAdvice({ ...a, extra: true })).toBeNull();
  });
});
