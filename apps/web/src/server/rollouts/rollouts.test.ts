/**
 * The rollout read API and data layer against a real embedded store (PGlite) holding rollouts the
 * engine created and moved (rollout-runner's createStoredRollout / runCommand), and the charts read
 * through a replay, then through a Prometheus nobody answers.
 */
import { randomUUID } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { encodeReplay } from "@untorn/fleet/replay";
import { fakeInstance, HEAVY } from "@untorn/fleet/testing/fake-fleet";
import { reportSchema } from "@untorn/rollout/report";
import { cluster, operator, playedRollout } from "@untorn/rollout/testing";
import { createStoredRollout, runCommand } from "@untorn/rollout-runner/runner";
import type { Store } from "@untorn/store/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorSchema, rolloutListResponseSchema, rolloutResponseSchema } from "../../lib/api-schema.js";
import { END, smallReplay } from "../../testing/fleet-facts.js";
import { type Principal, runAs } from "../auth/access.js";

const SUFFIX = ":9105";
const viewer: Principal = { name: "vic", role: "viewer", via: "session" };
let dir: string;
let store: Store;
let activeId: string;
let abortedId: string;

type Handler = (req: Request, ctx: unknown) => Promise<Response>;
const routes: Record<string, Handler> = {};
const get = async (url: string) => {
  const u = new URL(url, "http://localhost");
  const handler = u.pathname.endsWith("/report")
    ? routes.report!
    : u.pathname === "/api/v1/rollouts"
      ? routes.list!
      : routes.show!;
  return runAs(viewer, () => handler(new Request(u), { params: Promise.resolve({}) }));
};

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-rollouts-"));
  const fleet = ["p1", "r1", "r2", "r3"].map((n) => fakeInstance(`${n}${SUFFIX}`, { load: HEAVY }));
  fs.writeFileSync(path.join(dir, "fleet.json.gz"), encodeReplay(smallReplay(fleet)));
  process.env.UNTORN_REPLAY = path.join(dir, "fleet.json.gz");
  process.env.UNTORN_DATA_DIR = path.join(dir, "store");
  const { getStore } = await import("../store.js");
  const { env } = await import("../../env.js");
  store = await getStore(env());
  routes.list = (await import("../../app/api/v1/rollouts/route.js")).GET as Handler;
  routes.show = (await import("../../app/api/v1/rollouts/[id]/route.js")).GET as Handler;
  routes.report = (await import("../../app/api/v1/rollouts/[id]/report/route.js")).GET as Handler;

  let t = END - 3600;
  const deps = { store, clock: () => t };
  const input = { change: { kind: "doublewrite-off" as const }, instances: cluster(SUFFIX) };
  const a = await createStoredRollout(deps, {
    type: "create",
    key: "test-create-a",
    actor: operator,
    title: "doublewrite off on c1",
    input,
  });
  activeId = a.stored.state.id;
  await runCommand(deps, activeId, {
    type: "attest-backup",
    key: "test-a-attest",
    actor: operator,
    takenAt: t - 600,
  });
  await runCommand(deps, activeId, { type: "approve", key: "test-a-approve", actor: operator, wave: 0 });
  t += 60;
  // Newer, but finished: listed after the active one.
  const b = await createStoredRollout(deps, {
    type: "create",
    key: "test-create-b",
    actor: { id: "bob", kind: "operator" },
    title: "doublewrite off, abandoned",
    input: { ...input, instances: cluster(`-b${SUFFIX}`) },
  });
  abortedId = b.stored.state.id;
  await runCommand(deps, abortedId, {
    type: "abort",
    key: "test-b-abort",
    actor: { id: "bob", kind: "operator" },
    reason: "change freeze",
  });
  // Opening PGlite and running the migrations takes long on a loaded machine.
}, 240_000);

afterAll(async () => {
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("GET /api/v1/rollouts", () => {
  it("lists active rollouts first, in its schema", async () => {
    const res = await get("/api/v1/rollouts");
    expect(res.status).toBe(200);
    const body = rolloutListResponseSchema.parse(await res.json());
    expect(body.rollouts.map((r) => [r.id, r.status])).toEqual([
      [activeId, "active"],
      [abortedId, "aborted"],
    ]);
    const a = body.rollouts[0]!;
    expect(a.createdBy).toBe("alice");
    expect(a.progress).toMatchObject({ done: 0, total: 4 });
    expect(a.change).toMatch(/doublewrite/i);
    expect(body.rollouts[1]!.createdBy).toBe("bob");
  });

  it("filters by state and bounds the count", async () => {
    const only = rolloutListResponseSchema.parse(
      await (await get("/api/v1/rollouts?status=aborted,completed")).json(),
    );
    expect(only.rollouts.map((r) => r.id)).toEqual([abortedId]);
    const one = rolloutListResponseSchema.parse(await (await get("/api/v1/rollouts?limit=1")).json());
    expect(one.rollouts).toHaveLength(1);
    expect(one.limit).toBe(1);
  });

  it.each([
    ["status=finished", "status", /"finished"/],
    ["limit=0", "limit", /at least 1/],
    ["limit=1001", "limit", /at most 1000/],
    ["limit=ten", "limit", /whole number/],
    ["sort=name", "sort", /not a parameter/],
    ["limit=1&limit=2", "limit", /more than once/],
  ])("?%s is a 400 naming %s", async (q, param, message) => {
    const res = await get(`/api/v1/rollouts?${q}`);
    expect(res.status).toBe(400);
    const body = errorSchema.parse(await res.json());
    expect(body.issues?.[0]?.param).toBe(param);
    expect(body.issues?.[0]?.message).toMatch(message);
  });
});

describe("GET /api/v1/rollouts/{id}", () => {
  it("answers the document, the timeline and the gates, in its schema", async () => {
    const res = await get(`/api/v1/rollouts/${activeId}`);
    expect(res.status).toBe(200);
    const body = rolloutResponseSchema.parse(await res.json());
    expect(body.summary.id).toBe(activeId);
    expect(body.document.waves[0]!.approvedBy?.id).toBe("alice");
    expect(body.events.map((e) => e.type)).toEqual(["created", "backup-attested", "wave-approved"]);
    expect(body.gates).toEqual([]);
    expect(body.summary.version).toBe(3);
  });

  it("is a 404 for an unknown id and a 400 for a malformed one", async () => {
    const missing = await get(`/api/v1/rollouts/${randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(errorSchema.parse(await missing.json()).error).toMatch(/^no rollout/);
    const bad = await get("/api/v1/rollouts/r1;drop");
    expect(bad.status).toBe(400);
    expect(errorSchema.parse(await bad.json()).issues?.[0]).toMatchObject({ param: "id", value: "r1;drop" });
  });
});

describe("GET /api/v1/rollouts/{id}/report", () => {
  it("downloads the Markdown and the JSON report", async () => {
    const md = await get(`/api/v1/rollouts/${abortedId}/report?format=md`);
    expect(md.status).toBe(200);
    expect(md.headers.get("content-type")).toBe("text/markdown; charset=utf-8");
    expect(md.headers.get("content-disposition")).toBe(
      `attachment; filename="rollout-${abortedId}-report.md"`,
    );
    const text = await md.text();
    expect(text).toMatch(/^# Change report: doublewrite off, abandoned/);
    expect(text).toContain("**Verdict: aborted**");
    const json = await get(`/api/v1/rollouts/${abortedId}/report?format=json&download=0`);
    expect(json.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expect(json.headers.get("content-disposition")).toMatch(/^inline; filename="rollout-.+-report\.json"$/);
    const report = reportSchema.parse(await json.json());
    expect(report.verdict).toBe("aborted");
    expect(report.timeline.at(-1)?.type).toBe("aborted");
  });

  it("refuses an unknown format by name", async () => {
    const res = await get(`/api/v1/rollouts/${abortedId}/report?format=pdf`);
    expect(res.status).toBe(400);
    expect(errorSchema.parse(await res.json()).issues?.[0]).toMatchObject({ param: "format", value: "pdf" });
  });

  it("refuses format given twice (which one would it be?)", async () => {
    const res = await get(`/api/v1/rollouts/${abortedId}/report?format=md&format=json`);
    expect(res.status).toBe(400);
    expect(errorSchema.parse(await res.json()).issues?.[0]).toMatchObject({ param: "format" });
  });
});

describe("canary vs control charts", () => {
  const played = playedRollout({ t0: END - 2 * 3600, rounds: 20, facts: cluster(SUFFIX) });

  it("reads the wave's instances and its control around the change point from the replay", async () => {
    const { getRolloutCharts } = await import("./rollouts.js");
    const v = await getRolloutCharts(played);
    expect(v.error).toBeNull();
    expect(v.changePoint).not.toBeNull();
    expect(v.window!.start).toBeLessThan(v.changePoint!);
    const tps = v.charts.find((c) => c.id === "transactions_per_second")!;
    const w = played.waves[v.wave]!;
    expect(tps.series.map((s) => s.name)).toEqual([
      ...w.instances.map((i) => `${i} (${w.kind === "canary" ? "canary" : "changed"})`),
      ...w.controls.map((i) => `${i} (control)`),
    ]);
    expect(tps.series.every((s) => s.points.some(([, y]) => y !== null && y > 0))).toBe(true);
    expect(v.charts.map((c) => c.id)).toContain("doublewrite_pages_per_second");
    // The replay answers only what was recorded (the lab records no per-file-class write latency): the
    // rest is named, never drawn as zero.
    expect(v.notRecorded).toContain("file_write_latency_seconds");
    expect(v.charts.filter((c) => v.notRecorded.includes(c.id))).toEqual([]);
    expect(v.note).toBeNull();
  });

  it("says what failed, without throwing, when Prometheus is down", async () => {
    const { getRolloutCharts } = await import("./rollouts.js");
    const { parseEnv } = await import("../../env.js");
    const closed = parseEnv({
      ...process.env,
      PROMETHEUS_URL: "http://127.0.0.1:9",
      UNTORN_PROM_TIMEOUT_MS: "500",
    });
    const v = await getRolloutCharts(played, closed);
    expect(v.charts).toEqual([]);
    expect(v.error).toMatch(/127\.0\.0\.1:9|ECONNREFUSED|fetch failed|connect/i);
    expect(v.changePoint).not.toBeNull();
  });
});
