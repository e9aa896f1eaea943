import { buildSnapshot } from "@untorn/fleet/pipeline";
import { expect, it } from "vitest";
import { factsOf } from "../testing/fleet-facts.js";
import { staleRows, webRows } from "./fleet-row.js";

it("webRows adds each instance's exporters, not stale; staleRows marks every row stale", async () => {
  const fleet = await factsOf();
  const snap = buildSnapshot({
    fleet,
    rowsOf: webRows,
    metadata: [],
    storeProblem: null,
    fetchedAt: 1,
    fetchMs: 12,
    window: "1h",
  });
  for (const r of snap.rows)
    expect(r.exporters).toEqual(fleet.exporters[r.instance] ?? { untorn: false, mysqldExporter: false });
  expect(staleRows(snap.rows).every((r) => r.stale)).toBe(true);
  expect(snap.rows.every((r) => !r.stale)).toBe(true);
});
