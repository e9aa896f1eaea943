import { describe, expect, it } from "vitest";
import { managedService } from "./config.js";

describe("managedService", () => {
  it("detects RDS by basedir and Aurora by aurora_version", () => {
    expect(managedService(new Map([["basedir", "/rdsdbbin/mysql-8.0.36.R2/"]]))).toBe("rds");
    expect(managedService(new Map([["aurora_version", "3.05.2"]]))).toBe("aurora");
    expect(managedService(new Map([["basedir", "/usr/"]]))).toBe("none");
  });
});
