import fs from "node:fs";
import { fileURLToPath } from "node:url";
import { instanceAdvice } from "@untorn/fleet/pipeline";
import { beforeAll, describe, expect, it } from "vitest";
import { fleetResponse, fleetResponseJson, instanceResponse } from "../server/fleet/api.js";
import type { FleetView, Snapshot } from "../server/fleet/data.js";
import { smallSnapshot } from "../testing/fleet-facts.js";
import {
  API_SCHEMAS,
  errorSchema,
  fleetResponseSchema,
  instanceResponseSchema,
  renderApiSchema,
} from "./api-schema.js";
import { DEFAULT_QUERY, parseFleetQuery } from "./fleet-query.js";

const DOCS = fileURLToPath(new URL("../../../../docs/schemas/", import.meta.url));

describe("docs/schemas/api-*.schema.json", () => {
  for (const name of Object.keys(API_SCHEMAS) as (keyof typeof API_SCHEMAS)[]) {
    it(`${name} is up to date (npm run gen:schemas -w @untorn/web)`, () => {
      expect(fs.readFileSync(`${DOCS}${name}`, "utf8")).toBe(renderApiSchema(name));
    });
  }
});

describe("responses match their schemas", () => {
  let snap: Snapshot;
  let view: FleetView;
  beforeAll(async () => {
    snap = await smallSnapshot({ fetchedAt: Date.UTC(2026, 10, 18), fetchMs: 3 });
    view = {
      source: {
        kind: "recorded",
        file: "/x.json.gz",
        recordedAt: "2026-11-18T11:06:40.000Z",
        recordedFrom: "http://p:9090",
        window: "1h",
        end: snap.at,
        note: null,
      },
      status: { state: "ok", error: null, slowMs: null },
      snapshot: snap,
      rows: snap.rows,
    };
  });

  it("GET /api/v1/fleet, whole and filtered", () => {
    const all = fleetResponse(view, DEFAULT_QUERY);
    expect(fleetResponseSchema.parse(all)).toEqual(all);
    expect(all?.count).toBe(5);
    const some = fleetResponse(view, parseFleetQuery({ verdict: "write-bound", sort: "instance" }).query);
    expect(fleetResponseSchema.safeParse(some).success).toBe(true);
    expect(some?.query).toEqual({ verdict: "write-bound", sort: "instance", dir: "asc" });
    expect(some?.instances.every((r) => r.verdict === "write-bound")).toBe(true);
    const paged = fleetResponse(view, DEFAULT_QUERY, { limit: 2, offset: 1 });
    expect(fleetResponseSchema.safeParse(paged).success).toBe(true);
    expect(paged?.instances.map((r) => r.rank)).toEqual([2, 3]);
    expect(paged?.count).toBe(5);
    // The memoised body is the same JSON, and reused for the same view and query.
    const json = fleetResponseJson(view, DEFAULT_QUERY);
    expect(json).toBe(JSON.stringify(all));
    expect(fleetResponseJson({ ...view, status: { ...view.status } }, DEFAULT_QUERY)).toBe(json);
  });

  const fullAdvice = (instance: string) => {
    const r = instanceAdvice(snap, instance);
    if (!r || "failed" in r) throw new Error(`no advice for ${instance}: ${r ? r.failed : "not advised"}`);
    return r.advice;
  };

  it("GET /api/v1/instances/{id}", () => {
    const instance = "db-heavy-plain:9105";
    const body = instanceResponse({
      source: view.source,
      status: view.status,
      instance,
      at: snap.at,
      window: "1h",
      facts: snap.merged.get(instance)!.facts,
      measured: snap.measured.get(instance)!,
      advice: fullAdvice(instance),
      row: snap.rows.find((r) => r.instance === instance)!,
      missing: snap.missing[instance] ?? [],
      exporters: snap.exporters[instance]!,
      metadata: null,
      declaredMetadata: null,
      declared: [],
      conflicts: [],
      storeProblem: null,
    });
    const r = instanceResponseSchema.safeParse(JSON.parse(JSON.stringify(body)));
    expect(r.success ? [] : r.error.issues).toEqual([]);
    expect(body.advice.findings.length).toBeGreaterThan(0);
  });

  it("the error body", () => {
    expect(
      errorSchema.safeParse({ error: "x", issues: [{ param: "sort", value: "y", message: "z" }] }).success,
    ).toBe(true);
    expect(errorSchema.safeParse({ error: "x", extra: 1 }).success).toBe(false);
  });
});
