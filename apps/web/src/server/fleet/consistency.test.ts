/**
 * One definition per number, on the recording the console ships with: the instance page's data, the
 * read API's body and `untorn fleet|instance --replay` on the same recording and window show the same
 * transactions, write bytes per transaction, doublewrite pages per flushed page, doublewrite share and
 * verdicts; every summary card's count is the rows its filter keeps. In-process (no server, no child
 * process): the CLI's run() with a buffer for its output.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { run } from "@untorn/cli/program";
import { bufferIo } from "@untorn/cli/testing/buffer-io";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "../../env.js";
import { applyFleetQuery, DEFAULT_QUERY, type FleetQuery, parseFleetQuery } from "../../lib/fleet-query.js";
import { fleetResponse, instanceResponse } from "./api.js";
import { type FleetView, getFleetView, metadataStore, resetCaches } from "./data.js";
import { getInstance, getInstanceCharts } from "./instance.js";
import { groupFindings, waitingInstances } from "./recommendations.js";

const here = path.dirname(fileURLToPath(import.meta.url));
const RECORDING = path.resolve(here, "../../../../../lab/recordings/mariadb-10.11-fleet.json.gz");
/** A replica the declared metadata names (role, cluster) and the recording's rollouts ran on. */
const REPLICA = "db-shop-replica-2";

let dir: string;
let view: FleetView;
const env = () => parseEnv({ UNTORN_DATA_DIR: path.join(dir, "store"), UNTORN_REPLAY: RECORDING });

async function cli(...argv: string[]): Promise<{ code: number; json: any; stderr: string }> {
  const io = bufferIo();
  const code = await run(["--replay", RECORDING, ...argv, "--json"], io);
  return { code, json: code === 0 ? JSON.parse(io.stdout()) : null, stderr: io.stderr() };
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-consistency-"));
  resetCaches();
  await metadataStore(env());
  view = await getFleetView(env());
}, 240_000);

afterAll(async () => {
  const store = await metadataStore(env()).catch(() => null);
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("the console, the API and the CLI on the shipped recording", () => {
  it("read the recording with its declared metadata", () => {
    expect(view.source.kind).toBe("recorded");
    expect(view.snapshot?.declared?.problem ?? null).toBeNull();
    const replica = view.rows.find((r) => r.instance.startsWith(REPLICA));
    expect(replica?.role).toBe("replica");
    expect(replica?.cluster).toBeTruthy();
  });

  it("give every instance the same verdict, gate and doublewrite numbers in `untorn fleet` and the console", async () => {
    const out = await cli("fleet");
    expect(out.code).toBe(0);
    expect(out.stderr).toMatch(/declared metadata from .*mariadb-10\.11-fleet\.metadata\.json/);
    const console = new Map(view.rows.map((r) => [r.instance, r]));
    expect(out.json.rows).toHaveLength(view.rows.length);
    for (const r of out.json.rows) {
      const c = console.get(r.instance);
      expect(c, r.instance).toBeDefined();
      expect({
        i: r.instance,
        verdict: r.verdict,
        gate: r.gate.status,
        role: r.role,
        cluster: r.cluster,
      }).toEqual({
        i: r.instance,
        verdict: c!.verdict,
        gate: c!.gate.status,
        role: c!.role,
        cluster: c!.cluster,
      });
      expect(r.amplification).toBe(c!.amplification);
      expect(r.dblwrShare).toBe(c!.dblwrShare);
      expect(r.dblwrShareBasis).toBe(c!.dblwrShareBasis);
      expect(r.waitingForGate).toBe(c!.waitingForGate);
    }
    expect(out.json.summary).toEqual(view.snapshot!.summary);
    expect(out.json.atRisk.map((a: { instance: string }) => a.instance)).toEqual(
      view.snapshot!.ranking.atRisk.map((a) => a.instance),
    );
  }, 240_000);

  it("show one transaction rate and one write bytes per transaction on the page, its chart, the API and `untorn instance`", async () => {
    const name = view.rows.find((r) => r.instance.startsWith(REPLICA))!.instance;
    const found = await getInstance(name, env());
    expect(found.kind).toBe("found");
    if (found.kind !== "found") return;
    // The metadata form is filled from the declared file's entry when nothing is stored.
    expect(found.view.metadata).toBeNull();
    expect(found.view.declaredMetadata?.entry.role).toBe("replica");
    expect(found.view.declaredMetadata?.file).toMatch(/mariadb-10\.11-fleet\.metadata\.json$/);
    const ind = found.view.advice.profile.indicators;
    // Client commits, the catalog's transactions_per_second, named as such.
    expect(ind.transactionRate.basis).toBe("client COMMIT + ROLLBACK/s");
    expect(ind.transactionRate.value).toBeGreaterThan(0);
    const api = instanceResponse(found.view);
    const apiInd = (api.advice as unknown as typeof found.view.advice).profile.indicators;
    const out = await cli("instance", name);
    expect(out.code).toBe(0);
    const cliInd = out.json.advice.profile.indicators;
    for (const id of [
      "transactionRate",
      "writeBytesPerTxn",
      "amplification",
      "dblwrShareOfInnodbWriteBytes",
    ] as const) {
      expect(apiInd[id].value, id).toBe(ind[id].value);
      expect(cliInd[id].value, id).toBe(ind[id].value);
      expect(cliInd[id].basis, id).toBe(ind[id].basis);
    }
    // The instance chart plots the same signal: the window's average lies within the plotted series.
    const charts = await getInstanceCharts(name, null, env());
    const chart = charts.charts?.charts.find((c) => c.id === "transactions");
    expect(chart?.title).toBe("Transactions/s");
    const values = chart!.series
      .flatMap((s) => s.points.map((p) => p[1]))
      .filter((v): v is number => Number.isFinite(v));
    expect(values.length).toBeGreaterThan(0);
    expect(ind.transactionRate.value!).toBeLessThanOrEqual(Math.max(...values) * 1.001);
    expect(ind.transactionRate.value!).toBeGreaterThanOrEqual(Math.min(...values) * 0.999);
  }, 240_000);
});

describe("every count on a summary card equals the rows behind its filter", () => {
  const count = (q: Partial<FleetQuery>) => applyFleetQuery(view.rows, { ...DEFAULT_QUERY, ...q }).length;
  const viaUrl = (params: Record<string, string>) => count(parseFleetQuery(params).query);

  it("on the shipped recording", () => {
    const s = view.snapshot!.summary;
    expect(viaUrl({})).toBe(s.instances);
    expect(viaUrl({ verdict: "write-bound" })).toBe(s.verdicts["write-bound"]);
    expect(viaUrl({ verdict: "likely" })).toBe(s.verdicts.likely);
    expect(viaUrl({ only: "can-drop" })).toBe(s.canDropDoublewrite);
    expect(viaUrl({ only: "waiting-for-gate" })).toBe(s.blockedByGate);
    expect(viaUrl({ only: "at-risk" })).toBe(s.atRisk);
    for (const g of ["verified", "unverified", "unsafe"] as const)
      expect(viaUrl({ gate: g })).toBe(s.gates[g]);
    // The fleet's gate and the API's body agree too.
    const body = fleetResponse(view, parseFleetQuery({ only: "waiting-for-gate" }).query);
    expect(body?.count).toBe(s.blockedByGate);
  });

  it("Recommendations names the instances the 'Waiting for the safety gate' card counts", () => {
    const groups = groupFindings(view.snapshot!.advice.values());
    const waiting = waitingInstances(groups);
    expect(waiting).toHaveLength(view.snapshot!.summary.blockedByGate);
    expect(waiting).toEqual(
      applyFleetQuery(view.rows, { ...DEFAULT_QUERY, only: "waiting-for-gate" })
        .map((r) => r.instance)
        .sort(),
    );
  });
});
