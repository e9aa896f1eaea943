import { describe, expect, it } from "vitest";
import { smallSnapshot } from "../../testing/fleet-facts.js";
import { FLEET_CSV_HEADER, fleetCsv } from "./exports.js";

describe("fleetCsv", () => {
  it("writes every row given, in order, its cells as the row has them", async () => {
    const snap = await smallSnapshot();
    const rows = snap.rows;
    const lines = fleetCsv(rows).split("\r\n");
    expect(lines[0]).toBe(FLEET_CSV_HEADER.join(","));
    expect(lines).toHaveLength(rows.length + 2);
    const first = lines[1]!.split(",");
    const r = rows[0]!;
    const cell = (name: (typeof FLEET_CSV_HEADER)[number]) => first[FLEET_CSV_HEADER.indexOf(name)];
    expect(cell("instance")).toBe(r.instance);
    expect(cell("rank")).toBe(String(r.rank));
    expect(cell("verdict")).toBe(r.verdict);
    expect(cell("confidence")).toBe(String(r.confidence));
    expect(cell("dw_share_of_write_bytes")).toBe(r.dblwrShare === null ? "" : String(r.dblwrShare));
    expect(fleetCsv(rows.slice(1, 2)).split("\r\n")[1]?.split(",")[1]).toBe(rows[1]!.instance);
  });

  it("cannot carry a formula from a label into a spreadsheet", async () => {
    const snap = await smallSnapshot();
    const row = { ...snap.rows[0]!, instance: '=cmd|"/c calc"!A1', cluster: "@evil" };
    const line = fleetCsv([row]).split("\r\n")[1]!;
    expect(line).toContain(`"'=cmd|""/c calc""!A1"`);
    expect(line).toContain(",'@evil,");
  });
});
