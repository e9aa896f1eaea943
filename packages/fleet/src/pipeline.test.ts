import { advise } from "@untorn/advisor/advise";
import type { InstanceFacts } from "@untorn/advisor/facts";
import { beforeAll, describe, expect, it } from "vitest";
import { buildFleetFacts } from "./facts.js";
import type { FleetMetadata } from "./metadata.js";
import {
  applyMetadata,
  buildSnapshot,
  instanceAdvice,
  layerDeclarations,
  type RowsOf,
  reviseSnapshot,
  type Snapshot,
  type StoredMetadata,
  snapshotAdvice,
} from "./pipeline.js";
import { ReplayApi, replayFactsOptions } from "./replay.js";
import type { FleetRow } from "./row.js";
import { rankRows } from "./rows.js";
import { fakeReplay } from "./testing/fake-api.js";
import { SMALL_FLEET } from "./testing/fake-fleet.js";

/** Last evaluation time of the fake recording: 2026-11-18T11:06:40Z. */
const END = 1_795_000_000;

/** Stored metadata for `instance`, empty but for `over`. */
const metadata = (instance: string, over: Partial<StoredMetadata> = {}): StoredMetadata => ({
  instance,
  cluster: null,
  role: null,
  storageClass: null,
  storageFacts: {},
  managedService: null,
  ...over,
});

/** The caller's own row fields, as the web app adds them (its lib/fleet-row.ts). */
type Row = FleetRow & { readonly exporters: { readonly untorn: boolean }; readonly stale: boolean };
const rowsOf: RowsOf<Row> = (rows, exporters) =>
  rows.map((r) => ({ ...r, exporters: { untorn: exporters[r.instance]?.untorn ?? false }, stale: false }));

let snap: Snapshot<StoredMetadata, Row>;
let measuredFacts: InstanceFacts[];

beforeAll(async () => {
  const api = new ReplayApi(
    fakeReplay(SMALL_FLEET, {
      window: "1h",
      times: [END - 300, END],
      chart: { start: END - 3 * 3600, end: END, step: 60 },
    }),
  );
  const fleet = await buildFleetFacts(api, replayFactsOptions(api.meta));
  measuredFacts = fleet.facts;
  snap = buildSnapshot({
    fleet,
    rowsOf,
    metadata: [metadata("db-off:9105", { cluster: "orders", role: "primary" })],
    storeProblem: null,
    fetchedAt: 1,
    fetchMs: 12,
    window: "1h",
  });
});

describe("buildSnapshot", () => {
  it("carries whether the rates came from the recording rules, for the page's notice", () => {
    // A replay holds the raw plan's answers: no probe, the page shows no notice for recorded data.
    expect(snap.recordingRules).toEqual({
      used: false,
      fallbackReason: "recording rules not requested",
      tier: "raw",
      windowNote: null,
    });
  });

  it("has one row per instance with facts, in rank order, and the skipped one listed", () => {
    expect(snap.rows.map((r) => r.rank)).toEqual([1, 2, 3, 4, 5]);
    expect(new Set(snap.rows.map((r) => r.instance))).toEqual(
      new Set([
        "db-heavy-plain:9105",
        "db-heavy-atomic:9105",
        "db-off:9105",
        "db-idle:9105",
        "mysql-medium:9105",
      ]),
    );
    expect(snap.skipped.map((s) => s.instance)).toEqual(["db-down:9105"]);
    expect(snap.summary.skipped).toBe(1);
  });

  it("ranks the write-bound instance on verified atomic storage first, and only it can drop doublewrite", () => {
    const first = snap.rows[0]!;
    expect(first.instance).toBe("db-heavy-atomic:9105");
    expect(first).toMatchObject({ verdict: "write-bound", canDropDoublewrite: true, doublewrite: "on" });
    expect(first.gate.status).toBe("verified");
    expect(first.gain?.blocked).toBe(false);
    expect(snap.rows.filter((r) => r.canDropDoublewrite).map((r) => r.instance)).toEqual([
      "db-heavy-atomic:9105",
    ]);
  });

  it("computes amplification and doublewrite's share of device writes from the profile", () => {
    const off = snap.rows.find((r) => r.instance === "db-off:9105")!;
    expect(off.amplification).toBe(0);
    expect(off.dblwrShare).toBe(0);
    const plain = snap.rows.find((r) => r.instance === "db-heavy-plain:9105")!;
    expect(plain.amplification).toBeCloseTo(1, 6);
    expect(plain.dblwrShareBasis).toBe("device");
    // 1700 doublewrite pages/s of 16 KiB out of (1700 + 1700) × 16 KiB + 320 × 1800 B/s.
    expect(plain.dblwrShare).toBeCloseTo((1700 * 16384) / (3400 * 16384 + 320 * 1800), 6);
  });

  it("sums the summary: write-bound count, safe removals and the write I/O they save", () => {
    const s = snap.summary;
    expect(s.instances).toBe(5);
    expect(s.verdicts["write-bound"]).toBe(snap.rows.filter((r) => r.verdict === "write-bound").length);
    expect(s.canDropDoublewrite).toBe(1);
    expect(s.savedBytesPerSecond).toBeCloseTo(1700 * 16384, 3);
    expect(s.savedShare).not.toBeNull();
    expect(s.savedShare!).toBeGreaterThan(0);
    expect(s.savedShare!).toBeLessThan(1);
  });

  it("applies stored metadata before advising", () => {
    const off = snap.rows.find((r) => r.instance === "db-off:9105")!;
    expect(off).toMatchObject({ cluster: "orders", role: "primary" });
    expect(snap.merged.get("db-off:9105")?.declared).toContain("identity.cluster");
  });
});

describe("what the snapshot keeps of the advice", () => {
  it("keeps no profile evidence, gate checks or action steps, and ranks exactly as the full advice does", () => {
    const kept = snap.advice.get("db-heavy-plain:9105")!;
    expect(kept.findings.length).toBeGreaterThan(0);
    expect(Object.keys(kept).sort()).toEqual(["findings", "identity", "profile", "safetyGate", "verdict"]);
    expect(Object.keys(kept.safetyGate)).not.toContain("checks");
    expect(Object.keys(kept.findings[0]!)).not.toContain("evidence");
    expect(Object.keys(kept.profile.indicators.amplification)).toEqual(["value"]);
    const full = new Map([...snap.merged].map(([k, m]) => [k, advise(m.facts)]));
    const facts = new Map([...snap.merged].map(([k, m]) => [k, m.facts]));
    const fromFull = rankRows(full, facts, snap.skipped.length);
    expect(snap.ranking).toEqual(fromFull.ranking);
    expect(snap.summary).toEqual(fromFull.summary);
    expect(snap.rows.map(({ exporters: _e, stale: _s, ...r }) => r)).toEqual(fromFull.rows);
  });

  it("gives one instance's full advice again, from its facts with the metadata overlaid", () => {
    const r = instanceAdvice(snap, "db-off:9105");
    expect(r && "advice" in r).toBe(true);
    const full = (r as { advice: ReturnType<typeof advise> }).advice;
    expect(full).toEqual(advise(snap.merged.get("db-off:9105")!.facts));
    expect(full.identity.cluster).toBe("orders");
    expect(snapshotAdvice(full)).toEqual(snap.advice.get("db-off:9105"));
    expect(instanceAdvice(snap, "db-down:9105")).toBeNull();
    expect(instanceAdvice(snap, "nowhere:9105")).toBeNull();
  });
});

describe("reviseSnapshot", () => {
  it("re-advises one instance after its metadata changed and leaves the others as they were", () => {
    const next = reviseSnapshot(snap, "db-idle:9105", metadata("db-idle:9105", { cluster: "analytics" }));
    expect(next.rows.find((r) => r.instance === "db-idle:9105")?.cluster).toBe("analytics");
    expect(next.rows.find((r) => r.instance === "db-off:9105")?.cluster).toBe("orders");
    expect(next.advice.get("db-heavy-plain:9105")).toBe(snap.advice.get("db-heavy-plain:9105"));
    expect(snap.rows.find((r) => r.instance === "db-idle:9105")?.cluster).toBeNull();
    const cleared = reviseSnapshot(next, "db-off:9105", null);
    expect(cleared.rows.find((r) => r.instance === "db-off:9105")?.cluster).toBeNull();
  });

  it("keeps metadata for an instance without facts without re-ranking anything", () => {
    const next = reviseSnapshot(snap, "db-down:9105", metadata("db-down:9105", { cluster: "x" }));
    expect(next.metadata.get("db-down:9105")?.cluster).toBe("x");
    expect(next.rows).toBe(snap.rows);
  });
});

it("makes the caller's rows again on a revision", () => {
  expect(snap.rows.every((r) => !r.stale && typeof r.exporters.untorn === "boolean")).toBe(true);
  const next = reviseSnapshot(snap, "db-idle:9105", metadata("db-idle:9105", { cluster: "analytics" }));
  expect(next.rows.every((r) => !r.stale && typeof r.exporters.untorn === "boolean")).toBe(true);
});

describe("layerDeclarations", () => {
  it("takes cluster, role and storage class from the stored row, and probe-measurable facts from the file first", () => {
    const file = new Map([
      [
        "a",
        {
          cluster: "lab",
          role: "replica" as const,
          managedService: "rds" as const,
          storageFacts: { fsType: "xfs", cloud: "aws" as const, limits: { writeIops: 100 } },
        },
      ],
      ["b", { cluster: "lab" }],
    ]);
    const out = layerDeclarations(file, [
      metadata("a", {
        cluster: "mine",
        managedService: "other",
        storageFacts: { fsType: "ext4", fsClusterSizeBytes: 16384, limits: { writeIops: 200, iops: 500 } },
      }),
      metadata("c", { storageClass: "gp3" }),
    ]);
    expect(out.get("a")).toEqual({
      cluster: "mine",
      role: "replica",
      managedService: "rds",
      storageFacts: {
        fsType: "xfs",
        fsClusterSizeBytes: 16384,
        cloud: "aws",
        limits: { writeIops: 100, iops: 500 },
      },
    });
    expect(out.get("b")).toEqual({ cluster: "lab" });
    expect(out.get("c")).toEqual({ storageClass: "gp3" });
    expect(layerDeclarations(undefined, [])).toEqual(new Map());
  });

  it("gives the reconciler's one overlay the facts the pages' two overlays give (file, then stored)", () => {
    const [x, y] = measuredFacts.map((f) => f.identity.instance);
    const file = new Map<string, FleetMetadata>([
      [
        x!,
        {
          cluster: "lab",
          role: "replica",
          storageClass: "file-class",
          managedService: "rds",
          storageFacts: {
            fsClusterSizeBytes: 16384,
            limits: { writeIops: 100 },
            tornWriteProtection: { provider: "other", unitBytes: 16384, demoOnly: true },
          },
        },
      ],
      [y!, { storageFacts: { fsType: "zfs", zfsRecordsizeBytes: 16384 } }],
    ]);
    const stored = [
      metadata(x!, {
        cluster: "mine",
        storageClass: "gp3",
        managedService: "other",
        storageFacts: {
          fsClusterSizeBytes: 65536,
          dataOffsetAlignmentBytes: 1048576,
          limits: { writeIops: 200, iops: 500 },
          tornWriteProtection: { provider: "aws-ebs", unitBytes: 16384 },
        },
      }),
      metadata(y!, { role: "primary", storageFacts: { btrfsNodatacow: false } }),
    ];
    const pages = applyMetadata(
      applyMetadata(measuredFacts, file).facts,
      new Map(stored.map((m) => [m.instance, m])),
    ).facts;
    const reconciler = applyMetadata(measuredFacts, layerDeclarations(file, stored)).facts;
    expect(reconciler).toEqual(pages);
    // And the case is not vacuous: both layers left their mark.
    const fx = reconciler.find((f) => f.identity.instance === x)!;
    expect(fx.identity.cluster).toBe("mine");
    expect(fx.storage?.fsClusterSizeBytes).toBe(16384);
    expect(fx.storage?.dataOffsetAlignmentBytes).toBe(1048576);
  });
});
