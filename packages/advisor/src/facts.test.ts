import { describe, expect, it } from "vitest";
import { parseInstanceFacts, safeParseInstanceFacts } from "./facts.js";

const minimal = {
  schemaVersion: 1,
  identity: { instance: "db1:3306" },
  server: { flavor: "mysql", version: "8.0.35" },
  config: {},
};

describe("InstanceFacts validation", () => {
  it.each([
    ["minimal: identity, server, empty config", minimal],
    [
      "nulls for unknowns",
      { ...minimal, config: { doublewrite: null, pageSizeBytes: null }, storage: null, workload: null },
    ],
    ["a $schema reference for editors", { ...minimal, $schema: "./instance-facts.schema.json" }],
    ["MariaDB version string", { ...minimal, server: { flavor: "mariadb", version: "10.11.6-MariaDB-log" } }],
    [
      "a window with a partial file-class record",
      {
        ...minimal,
        workload: { windowSeconds: 3600, fileIo: { doublewrite: { writesPerSecond: { avg: 3 } } } },
      },
    ],
  ])("valid: %s", (_n, input) => {
    expect(safeParseInstanceFacts(input).success).toBe(true);
  });

  it.each([
    ["missing identity", { ...minimal, identity: undefined }, "identity"],
    ["empty instance", { ...minimal, identity: { instance: "" } }, "identity.instance"],
    ["unknown flavor", { ...minimal, server: { flavor: "oracle", version: "8.0.35" } }, "server.flavor"],
    ["version without patch", { ...minimal, server: { flavor: "mysql", version: "8.0" } }, "server.version"],
    ["unknown doublewrite mode", { ...minimal, config: { doublewrite: "maybe" } }, "config.doublewrite"],
    ["odd page size", { ...minimal, config: { pageSizeBytes: 12288 } }, "config.pageSizeBytes"],
    [
      "negative rate",
      { ...minimal, workload: { windowSeconds: 60, rates: { dataWrites: { avg: -1 } } } },
      "workload.rates.dataWrites.avg",
    ],
    [
      "NaN is not a number",
      { ...minimal, workload: { windowSeconds: 60, rates: { dataWrites: { avg: Number.NaN } } } },
      "workload.rates.dataWrites.avg",
    ],
    ["zero-length window", { ...minimal, workload: { windowSeconds: 0 } }, "workload.windowSeconds"],
    ["gap ratio above 1", { ...minimal, workload: { windowSeconds: 60, gapRatio: 2 } }, "workload.gapRatio"],
    [
      "unknown file class",
      { ...minimal, workload: { windowSeconds: 60, fileIo: { ibdata: {} } } },
      "workload.fileIo",
    ],
    ["a typo is not silently dropped", { ...minimal, config: { doublewritePage: 4 } }, "config"],
    ["schema version 2", { ...minimal, schemaVersion: 2 }, "schemaVersion"],
  ])("invalid: %s", (_n, input, path) => {
    const r = safeParseInstanceFacts(input);
    expect(r.success).toBe(false);
    expect(r.error?.issues.map((i) => i.path.join("."))).toContain(path);
  });

  it("parseInstanceFacts throws on invalid input", () => {
    expect(() => parseInstanceFacts({})).toThrow();
  });
});
