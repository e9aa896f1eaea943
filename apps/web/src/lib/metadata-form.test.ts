import { describe, expect, it } from "vitest";
import { metadataFormSchema } from "./metadata-form.js";

describe("metadata form", () => {
  it("accepts a minimal form, blanks as not set", () => {
    const r = metadataFormSchema.parse({ instance: " db1:3306 ", fsType: " ZFS " });
    expect(r).toMatchObject({ instance: "db1:3306", cluster: "", role: "", fsType: "zfs", token: "" });
  });

  it("names each bad field", () => {
    const r = metadataFormSchema.safeParse({
      instance: "db1",
      role: "leader",
      limitsIops: "-5",
      limitsBandwidthMiBps: "fast",
      fsType: "ext4; rm -rf",
    });
    expect(r.success).toBe(false);
    const paths = r.success ? [] : r.error.issues.map((i) => i.path.join("."));
    expect(paths).toEqual(expect.arrayContaining(["role", "limitsIops", "limitsBandwidthMiBps", "fsType"]));
  });

  it("needs both who protects against torn writes and up to what size", () => {
    const r = metadataFormSchema.safeParse({ instance: "db1", tornWriteProvider: "aws-ebs" });
    expect(r.success ? [] : r.error.issues.map((i) => i.path.join("."))).toEqual(["tornWriteUnitBytes"]);
    const u = metadataFormSchema.safeParse({ instance: "db1", tornWriteUnitBytes: "16384" });
    expect(u.success ? [] : u.error.issues.map((i) => i.path.join("."))).toEqual(["tornWriteProvider"]);
  });
});
