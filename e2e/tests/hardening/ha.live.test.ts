import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { candidateFacts } from "@untorn/rollout-runner/observe";
import { createStoredRollout, getRollout, type RunnerDeps, runCommand } from "@untorn/rollout-runner/runner";
import {
  type HistoryServer,
  historyEnd,
  startHistoryPrometheus,
  syntheticReplica,
  testPolicy,
} from "@untorn/rollout-runner/testing";
import { openStore, type Store } from "@untorn/store/store";
import { adminClient, createTestDatabase, type TestDatabase } from "@untorn/store/testing/postgres";
import { freePort, waitFor } from "@untorn/testkit/process";
import { ADMIN_PASSWORD, ADMIN_USER, signIn } from "../../fixtures/auth.js";
import { startWebServer, type WebServer } from "../../setup/web-server.js";

/**
 * Two consoles (server.mjs) on one PostgreSQL, as an HA deployment (docs/web.md, "Two consoles on one
 * PostgreSQL"), both running the rollout reconciler every second against a real Prometheus serving a
 * synthetic history. A proxy in front of Prometheus holds every query, so the pass that took the
 * single-writer lock stays in it; that console is killed with SIGKILL mid-pass. Its PostgreSQL session
 * ends with it, the other console takes the lock on its next pass (TAKEOVER_MS at most), and the
 * rollout gets the pass's one gate decision once: nothing of the dead pass was committed, nothing is
 * applied twice. A session made on either console is valid on the other, before and after the kill.
 */
const TAKEOVER_MS = 30_000;
const END = historyEnd();
const FLEET = [syntheticReplica("canary:9105"), syntheticReplica("control:9105")];
const RECONCILER_LOCK = "untorn:rollout-reconciler";
type Client = Awaited<ReturnType<typeof adminClient>>;

/** Forwards to Prometheus; while `holding`, keeps each request waiting until released. */
function holdingProxy(target: string) {
  const waiting: (() => void)[] = [];
  let holding = true;
  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const up = httpRequest(
      new URL(req.url ?? "/", target),
      { method: req.method, headers: req.headers },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on("error", () => res.destroy());
    req.pipe(up);
  };
  const server = createServer((req, res) => {
    if (holding) waiting.push(() => forward(req, res));
    else forward(req, res);
  });
  return {
    server,
    held: () => waiting.length,
    release() {
      holding = false;
      for (const go of waiting.splice(0)) go();
    },
  };
}

let workDir: string;
let history: HistoryServer | undefined;
let db: TestDatabase | undefined;
let store: Store | undefined;
let proxy: ReturnType<typeof holdingProxy> | undefined;
const consoles: WebServer[] = [];

test.afterAll(async () => {
  proxy?.release();
  for (const c of consoles) await c.stop();
  proxy?.server.close();
  await store?.close();
  await db?.drop();
  await history?.stop();
  if (workDir && !process.env.UNTORN_E2E_KEEP) await rm(workDir, { recursive: true, force: true });
});

/** Which console's session holds the reconciler's advisory lock (application_name), or null. */
async function lockHolder(client: Client): Promise<string | null> {
  // A bigint advisory key shows as classid (its high 32 bits) and objid (its low 32 bits).
  const r = await client.query<{ name: string }>(
    `SELECT a.application_name AS name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
      WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND a.datname = $2
        AND ((l.classid::bigint << 32) | l.objid::bigint) = hashtextextended($1, 0)`,
    [RECONCILER_LOCK, db!.name],
  );
  return r.rows[0]?.name ?? null;
}

const health = async (web: WebServer, cookie: string) =>
  (await fetch(`${web.url}/api/v1/health`, { headers: { cookie: `untorn_session=${cookie}` } })).status;

test("kill -9 of the console holding the reconciler lock mid-pass: the other takes over, nothing applied twice", async () => {
  test.setTimeout(420_000);
  workDir = await mkdtemp(join(tmpdir(), "untorn-e2e-ha-"));
  history = await startHistoryPrometheus(FLEET, { start: END - 90 * 60, end: END, seed: 3 }, workDir);
  db = await createTestDatabase();
  store = await openStore({ databaseUrl: db.url });
  const deps: RunnerDeps = { store, clock: () => Date.now() / 1000 };
  for (const f of FLEET)
    await store.upsertInstanceMetadata({
      instance: f.instance,
      cluster: "orders",
      role: "replica",
      actor: "ha test",
    });

  // An approved canary wave: the next reconciler pass checks its pre-wave gate.
  const facts = await candidateFacts(history.api, {
    at: END,
    metadata: new Map(FLEET.map((f) => [f.instance, { cluster: "orders", role: "replica" as const }])),
  });
  const alice = { id: "alice", kind: "operator" as const };
  const { stored } = await createStoredRollout(deps, {
    type: "create",
    key: "ha-create",
    actor: alice,
    title: "doublewrite off, two consoles",
    input: {
      change: { kind: "doublewrite-off" },
      instances: facts.facts,
      targets: ["canary:9105"],
      policy: testPolicy,
    },
  });
  const id = stored.state.id;
  await runCommand(deps, id, { type: "attest-backup", key: "ha-backup", actor: alice, takenAt: END - 600 });
  await runCommand(deps, id, { type: "approve", key: "ha-approve", actor: alice, wave: 0 });
  const before = (await getRollout(deps, id)).state.events.length;

  proxy = holdingProxy(history.prom.url);
  const port = await freePort();
  await new Promise<void>((resolve) => proxy!.server.listen(port, "127.0.0.1", resolve));
  const url = (name: string) => {
    const u = new URL(db!.url);
    u.searchParams.set("application_name", name);
    return u.toString();
  };
  const env = (name: string) => ({
    DATABASE_URL: url(name),
    PROMETHEUS_URL: `http://127.0.0.1:${port}`,
    UNTORN_RECONCILE_SECONDS: "1",
    UNTORN_CACHE_DIR: "off",
  });
  // One after the other: the first migrates (nothing to do) and makes the first admin.
  consoles.push(await startWebServer("ha-a", env("ha-a"), workDir));
  consoles.push(await startWebServer("ha-b", env("ha-b"), workDir));
  const [a, b] = consoles as [WebServer, WebServer];

  // Sessions live in the database: one made on either console is valid on both.
  const onA = await signIn(a.url, ADMIN_USER, ADMIN_PASSWORD);
  const onB = await signIn(b.url, ADMIN_USER, ADMIN_PASSWORD);
  for (const [web, cookie] of [
    [a, onB],
    [b, onA],
  ] as const)
    expect(await health(web, cookie)).toBe(200);

  const client = await adminClient();
  try {
    // A pass holds the lock while its Prometheus queries wait in the proxy: mid-pass.
    const holderName = await waitFor(
      "a console's reconciler pass to hold the lock and wait on Prometheus",
      async () => {
        const h = await lockHolder(client);
        return h && proxy!.held() > 0 ? h : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 200 },
    );
    expect(["ha-a", "ha-b"]).toContain(holderName);
    const holder = holderName === "ha-a" ? a : b;
    const survivor = holder === a ? b : a;
    const survivorName = holder === a ? "ha-b" : "ha-a";
    // The other console's passes find the lock taken meanwhile.
    expect(await lockHolder(client)).toBe(holderName);

    holder.process.child.kill("SIGKILL");
    await holder.process.exited;
    const killedAt = Date.now() / 1000;
    // Within TAKEOVER_MS the survivor's next pass has the lock (the dead session's lock went with it).
    await waitFor(
      "the survivor to take the reconciler lock",
      async () => (await lockHolder(client)) === survivorName,
      {
        timeoutMs: TAKEOVER_MS,
        intervalMs: 100,
      },
    );
    // Nothing of the killed pass was committed.
    expect((await getRollout(deps, id)).state.events.length).toBe(before);

    proxy.release();
    const decided = await waitFor(
      "the survivor's pass to record the pre-wave gate",
      async () => {
        const s = (await getRollout(deps, id)).state;
        return s.events.length > before ? s : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 250 },
    );
    // A few passes more: the gate is decided once, never again for the same result.
    const passesLater = Date.now() + 5_000;
    await waitFor("five seconds of passes", () => Date.now() > passesLater, { timeoutMs: 10_000 });
    const s = (await getRollout(deps, id)).state;
    const preWave = s.events.filter((e) => e.type === "gate" && e.gate?.gate === "pre-wave");
    expect(preWave).toHaveLength(1);
    // Decided by the survivor's pass, after the kill (what it decided is the synthetic history's business).
    expect(preWave[0]!.at).toBeGreaterThanOrEqual(Math.floor(killedAt));
    expect(preWave[0]!.gate?.outcome).toBeDefined();
    for (const type of ["wave-started", "step-applied", "step-verified"])
      expect(s.events.filter((e) => e.type === type).length, type).toBeLessThanOrEqual(1);
    expect(s.events.length).toBe(decided.events.length);
    const events = await store.listRolloutEvents(id);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));

    // The session made on the dead console still works on the survivor.
    expect(await health(survivor, holder === a ? onA : onB)).toBe(200);
  } finally {
    await client.end();
  }
});
