import { describe, expect, it } from "vitest";
import { StoreValidationError } from "./errors.js";
import {
  appendRolloutEventInput,
  parseInput,
  storageFactsSchema,
  upsertInstanceMetadataInput,
} from "./validation.js";

function issues(schema: Parameters<typeof parseInput>[1], input: unknown): string[] {
  try {
    parseInput("op", schema, input);
  } catch (e) {
    expect(e).toBeInstanceOf(StoreValidationError);
    return (e as StoreValidationError).issues.map((i) => `${i.path}: ${i.message}`);
  }
  throw new Error("input was accepted");
}

describe("storage facts", () => {
  it.each([
    [
      "RDS Optimized Writes on",
      { cloud: "aws", rdsOptimizedWrites: "auto", instanceClass: "db.r6g.2xlarge" },
    ],
    ["ZFS recordsize=16K", { fsType: "zfs", zfsRecordsizeBytes: 16384 }],
    [
      "EBS torn-write prevention verified",
      {
        cloud: "aws",
        fsType: "ext4",
        fsClusterSizeBytes: 16384,
        dataOffsetAlignmentBytes: 1048576,
        tornWriteProtection: {
          provider: "aws-ebs",
          unitBytes: 16384,
          note: "nvme id-ns NTWPU=3, 2026-05-02",
        },
        limits: { iops: 16000, bandwidthBytesPerSecond: 1000 * 1024 * 1024, ioUnitBytes: 262144 },
      },
    ],
    ["nothing declared", {}],
  ])("accepts %s", (_name, facts) => {
    expect(storageFactsSchema.parse(facts)).toEqual(facts);
  });

  it("normalises the file system type", () => {
    expect(storageFactsSchema.parse({ fsType: " XFS " })).toEqual({ fsType: "xfs" });
  });

  it("names every bad field, however deep", () => {
    expect(
      issues(storageFactsSchema, {
        zfsRecordsizeBytes: 16000,
        rdsOptimizedWrites: "on",
        tornWriteProtection: { provider: "ebs", unitBytes: 16384 },
        limits: { iops: -5, burst: true },
      }),
    ).toEqual([
      'rdsOptimizedWrites: Invalid option: expected one of "auto"|"off"',
      "zfsRecordsizeBytes: must be a power of two",
      expect.stringMatching(/^tornWriteProtection\.provider: Invalid option/),
      "limits.iops: Too small: expected number to be >0",
      "limits.burst: unknown field",
    ]);
  });
});

describe("inputs", () => {
  it("names the field holding a NUL character, inside JSON too", () => {
    expect(issues(upsertInstanceMetadataInput, { instance: "db\u0000:3306", actor: "a" })).toEqual([
      "instance: must not contain NUL (U+0000) characters",
    ]);
    expect(
      issues(appendRolloutEventInput, {
        rolloutId: "7b0c59a4-3e1a-4c55-9d7e-2f1f7f0b4a11",
        action: "note",
        details: { lines: ["ok", "bad\u0000"] },
        actor: "a",
      }),
    ).toEqual(["details.lines.1: must not contain NUL (U+0000) characters"]);
  });

  it("says which fields are missing and lists them all in the message", () => {
    let message = "";
    try {
      parseInput("upsertInstanceMetadata", upsertInstanceMetadataInput, { cluster: "" });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toBe(
      "upsertInstanceMetadata: invalid input: instance: Invalid input: expected string, received undefined; cluster: must not be empty (use null to clear); actor: Invalid input: expected string, received undefined",
    );
  });
});
