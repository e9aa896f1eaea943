import { describe, expect, it } from "vitest";
import { countGtidSet, parseMariadbGtidPos, replicaStatusSql } from "./replication.js";

describe("replicaStatusSql", () => {
  it.each([
    ["mariadb", [10, 11, 19], "SHOW ALL SLAVES STATUS"],
    ["mariadb", [10, 3, 39], "SHOW ALL SLAVES STATUS"],
    ["mysql", [5, 7, 44], "SHOW SLAVE STATUS"],
    ["mysql", [8, 0, 21], "SHOW SLAVE STATUS"],
    ["mysql", [8, 0, 22], "SHOW REPLICA STATUS"],
    ["percona", [8, 4, 3], "SHOW REPLICA STATUS"],
  ] as const)("%s %j → %s", (flavor, versionNumber, sql) => {
    expect(replicaStatusSql({ flavor, versionNumber })).toBe(sql);
  });
});

describe("parseMariadbGtidPos", () => {
  it("keeps the sequence per domain and drops the server_id", () => {
    expect(parseMariadbGtidPos("0-1-1024,7-3-15")).toEqual(
      new Map([
        ["0", 1024],
        ["7", 15],
      ]),
    );
  });
  it("returns no domain for an empty or missing position and skips malformed parts", () => {
    expect(parseMariadbGtidPos("").size).toBe(0);
    expect(parseMariadbGtidPos(undefined).size).toBe(0);
    expect(parseMariadbGtidPos("garbage,0-1-5")).toEqual(new Map([["0", 5]]));
  });
});

describe("countGtidSet", () => {
  it("sums intervals over UUIDs, across the server's line breaks", () => {
    expect(
      countGtidSet("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5:7,\n8a94f357-aab4-11df-86ab-c80aa9429563:10-19"),
    ).toBe(5 + 1 + 10);
  });
  it("counts tagged GTIDs (8.3+) like untagged ones", () => {
    expect(countGtidSet("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-3:etl:1-2")).toBe(5);
  });
  it("is 0 for an empty set and undefined when the variable is missing", () => {
    expect(countGtidSet("")).toBe(0);
    expect(countGtidSet(undefined)).toBeUndefined();
  });
});
