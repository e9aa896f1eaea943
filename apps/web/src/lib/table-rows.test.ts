import { beforeAll, describe, expect, it } from "vitest";
import { smallSnapshot } from "../testing/fleet-facts.js";
import { applyFleetQuery, DEFAULT_QUERY, SORT_KEYS } from "./fleet-query.js";
import type { FleetRow } from "./fleet-row.js";
import { decodeRows, encodeRows, toTableRow } from "./table-rows.js";

let rows: readonly FleetRow[];

beforeAll(async () => {
  rows = (await smallSnapshot()).rows;
});

describe("table rows on the wire", () => {
  it("decode(encode(row)) keeps what the table shows, numbers rounded", () => {
    const encoded = encodeRows(rows);
    const back = decodeRows(encoded);
    expect(encodeRows(back)).toEqual(encoded);
    back.forEach((b, i) => {
      const t = toTableRow(rows[i]!);
      const { rank, instance, cluster, role, flavor, doublewrite, gate, verdict, dblwrShareBasis } = t;
      expect(b).toMatchObject({
        rank,
        instance,
        cluster,
        role,
        flavor,
        doublewrite,
        gate,
        verdict,
        dblwrShareBasis,
      });
      expect(b.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(b.confidence).toBeCloseTo(t.confidence, 2);
      if (t.dblwrShare !== null) expect(b.dblwrShare).toBeCloseTo(t.dblwrShare, 4);
      if (t.amplification !== null) expect(b.amplification).toBeCloseTo(t.amplification, 3);
      expect(b.gain === null).toBe(t.gain === null);
      if (t.gain) expect(b.gain?.throughput.high).toBeCloseTo(t.gain.throughput.high, 3);
    });
  });

  it("sorts and filters the same as the API's rows", () => {
    const back = decodeRows(encodeRows(rows));
    for (const sort of SORT_KEYS)
      for (const dir of ["asc", "desc"] as const) {
        const q = { ...DEFAULT_QUERY, sort, dir };
        expect(applyFleetQuery(back, q).map((r) => r.instance)).toEqual(
          applyFleetQuery(rows, q).map((r) => r.instance),
        );
      }
  });

  it("is several times smaller than the row objects", () => {
    const objects = JSON.stringify(rows).length;
    const encoded = JSON.stringify(encodeRows(rows)).length;
    expect(encoded * 2.5).toBeLessThan(objects);
  });
});
