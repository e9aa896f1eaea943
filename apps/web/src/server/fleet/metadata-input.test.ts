import { upsertInstanceMetadataInput } from "@untorn/store/validation";
import { describe, expect, it } from "vitest";
import { metadataFormSchema } from "../../lib/metadata-form.js";
import { formFieldOf, toUpsertInput } from "./metadata-input.js";

const form = (over: Record<string, string> = {}) =>
  metadataFormSchema.parse({ instance: "db1:3306", ...over });

describe("toUpsertInput", () => {
  it("maps the form to a store input the store accepts", () => {
    const input = toUpsertInput(
      form({
        cluster: "orders",
        role: "replica",
        notes: "n",
        managedService: "rds",
        rdsOptimizedWrites: "auto",
        tornWriteProvider: "aws-ebs",
        tornWriteUnitBytes: "16384",
        tornWriteNote: " nvme id-ns ",
        limitsMetered: "true",
        limitsIops: "16000",
        limitsBandwidthMiBps: "1000",
        limitsIoUnitBytes: "262144",
      }),
      null,
      "web",
    );
    expect(input).toEqual({
      instance: "db1:3306",
      cluster: "orders",
      role: "replica",
      notes: "n",
      storageClass: null,
      managedService: "rds",
      storageFacts: {
        rdsOptimizedWrites: "auto",
        tornWriteProtection: { provider: "aws-ebs", unitBytes: 16384, note: "nvme id-ns" },
        limits: { metered: true, iops: 16000, bandwidthBytesPerSecond: 1000 * 1048576, ioUnitBytes: 262144 },
      },
      actor: "web",
    });
    expect(upsertInstanceMetadataInput.safeParse(input).success).toBe(true);
  });

  it("keeps declared facts the form does not show, and clears blanked ones", () => {
    const input = toUpsertInput(
      form({ cloud: "" }),
      { storageFacts: { cloud: "aws", fsBlockSizeBytes: 4096, limits: { writeIops: 500, iops: 9 } } },
      "web",
    );
    expect(input.storageFacts).toEqual({ fsBlockSizeBytes: 4096, limits: { writeIops: 500 } });
    expect(input.cluster).toBeNull();
  });
});

it("formFieldOf maps store paths to form fields", () => {
  expect(formFieldOf("storageFacts.tornWriteProtection.unitBytes")).toBe("tornWriteUnitBytes");
  expect(formFieldOf("cluster")).toBe("cluster");
  expect(formFieldOf("storageFacts.limits.bandwidthBytesPerSecond")).toBe("limitsBandwidthMiBps");
});
