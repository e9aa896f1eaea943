import { advise } from "@untorn/advisor/advise";
import type { InstanceFacts } from "@untorn/advisor/facts";
import { mergeMetadata } from "@untorn/fleet/metadata";
import { fakeInstance, HEAVY } from "@untorn/fleet/testing/fake-fleet";
import type { InstanceMetadata } from "@untorn/store/store";
import { beforeAll, describe, expect, it } from "vitest";
import { factsOf } from "../../testing/fleet-facts.js";

type Meta = Parameters<typeof mergeMetadata>[1];

const meta = (over: Partial<InstanceMetadata> = {}): Meta => ({
  cluster: null,
  role: null,
  storageClass: null,
  storageFacts: {},
  managedService: null,
  ...over,
});

let plain: InstanceFacts;
let atomic: InstanceFacts;

beforeAll(async () => {
  const fleet = await factsOf([
    fakeInstance("plain:9105", { load: HEAVY }),
    fakeInstance("atomic:9105", { load: HEAVY, storage: "atomic" }),
  ]);
  plain = fleet.facts.find((f) => f.identity.instance === "plain:9105")!;
  atomic = fleet.facts.find((f) => f.identity.instance === "atomic:9105")!;
});

describe("mergeMetadata", () => {
  it("returns the facts untouched without metadata", () => {
    expect(mergeMetadata(plain, null)).toEqual({
      facts: plain,
      declared: [],
      conflicts: [],
      conflictPaths: [],
    });
  });

  it("sets cluster, role and the storage class label from the store", () => {
    const r = mergeMetadata(plain, meta({ cluster: "orders", role: "replica", storageClass: "ebs-gp3" }));
    expect(r.facts.identity).toMatchObject({
      cluster: "orders",
      role: "replica",
      labels: { storage_class: "ebs-gp3" },
    });
    expect(r.declared).toEqual(["identity.cluster", "identity.role", "identity.labels.storage_class"]);
    expect(r.conflicts).toEqual([]);
  });

  it("fills what no probe sees: platform facts and provider limits", () => {
    const r = mergeMetadata(
      plain,
      meta({
        managedService: "rds",
        storageFacts: {
          cloud: "aws",
          rdsOptimizedWrites: "auto",
          limits: { iops: 3000, ioUnitBytes: 16384 },
        },
      }),
    );
    // The exporter reported managed=none for a self-managed server: the measured value stays.
    expect(r.facts.platform?.managed).toBe("none");
    expect(r.conflicts).toEqual(["platform.managed: declared rds, measured none (measured value used)"]);
    expect(r.facts.platform).toMatchObject({ cloud: "aws", rdsOptimizedWrites: "auto" });
    expect(r.facts.storage?.limits).toEqual({ iops: 3000, ioUnitBytes: 16384 });
    expect(r.declared).toEqual(
      expect.arrayContaining(["platform.cloud", "platform.rdsOptimizedWrites", "storage.limits.iops"]),
    );
  });

  it("never lets a declaration override a measured storage fact", () => {
    const r = mergeMetadata(plain, meta({ storageFacts: { fsType: "zfs", zfsRecordsizeBytes: 16384 } }));
    expect(r.facts.storage?.fsType).toBe("ext4");
    expect(r.facts.storage?.zfsRecordsizeBytes).toBe(16384);
    expect(r.conflicts).toEqual(["storage.fsType: declared zfs, measured ext4 (measured value used)"]);
    expect(r.conflictPaths).toEqual(["storage.fsType"]);
    // ext4 with 4 KiB allocation stays unsafe whatever is declared.
    expect(advise(r.facts).safetyGate.status).toBe("unsafe");
  });

  it("declared torn-write protection is marked declared and feeds the safety gate", () => {
    // The atomic-storage fixture without its device attributes: the gate then lacks the atomic unit.
    const unknownUnit = structuredClone(atomic);
    unknownUnit.storage = { ...unknownUnit.storage, atomicWrite: { attributesPresent: false } };
    expect(advise(unknownUnit).safetyGate.status).not.toBe("verified");
    const r = mergeMetadata(
      unknownUnit,
      meta({
        storageFacts: { tornWriteProtection: { provider: "aws-ebs", unitBytes: 16384, note: "nvme id-ns" } },
      }),
    );
    expect(r.facts.storage?.tornWriteProtection).toEqual({
      provider: "aws-ebs",
      unitBytes: 16384,
      source: "declared",
      note: "nvme id-ns",
    });
    expect(advise(r.facts).safetyGate.status).toBe("verified");
  });

  it("does not leave empty sections behind", () => {
    const bare: InstanceFacts = {
      schemaVersion: 1,
      identity: { instance: "x" },
      server: plain.server,
      config: {},
    };
    const r = mergeMetadata(bare, meta({ cluster: "c" }));
    expect(r.facts).toEqual({ ...bare, identity: { instance: "x", cluster: "c" } });
  });
});
