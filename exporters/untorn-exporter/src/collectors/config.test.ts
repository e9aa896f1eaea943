import { describe, expect, it } from "vitest";
import { doublewriteMode, managedService } from "./config.js";

describe("doublewriteMode", () => {
  it.each([
    ["ON", "on"],
    ["OFF", "off"],
    ["1", "on"],
    ["0", "off"],
    ["TRUE", "on"],
    ["FALSE", "off"],
    ["DETECT_ONLY", "detect_only"],
    ["DETECT_AND_RECOVER", "detect_and_recover"],
    ["fast", "fast"],
    ["", undefined],
    ["sometimes", undefined],
  ])("%s → %s", (raw, mode) => {
    expect(doublewriteMode(raw)).toBe(mode);
  });
});

describe("managedService", () => {
  it("detects RDS by basedir and Aurora by aurora_version", () => {
    expect(managedService(new Map([["basedir", "/rdsdbbin/mysql-8.0.36.R2/"]]))).toBe("rds");
    expect(managedService(new Map([["aurora_version", "3.05.2"]]))).toBe("aurora");
    expect(managedService(new Map([["basedir", "/usr/"]]))).toBe("none");
  });
});
