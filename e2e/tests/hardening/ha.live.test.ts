import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import type { PolicyInput } from "@untorn/rollout/policy";
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
import { waitFor } from "@untorn/testkit/process";
import { ADMIN_PASSWORD, ADMIN_USER, signIn } from "../../fixtures/auth.js";
import { startWebServer, type WebServer } from "../../setup/web-server.js";

/**
 * Two consoles (server.mjs) on one PostgreSQL, as an HA deployment (docs/web.md, "Two consoles on one
 * PostgreSQL"), both running the rollout reconciler every second against a real Prometheus serving a
 * synthetic history with healthy replication, both with the same step hook (UNTORN_HOOKS_FILE): a
 * script that appends one line per run to a file and then waits for a file the test writes. The pass
 * that decides the pre-wave gate starts the wave's hook and stays in it, holding the single-writer
 * lock; that console is killed with SIGKILL mid-pass. Its PostgreSQL session ends with it, the other
 * console takes the lock on its next pass (TAKEOVER_MS at most) and, as docs/rollout.md ("Hooks")
 * says, does not start the hook again: the step stays `applying` until the operator has checked the
 * server and marks it done, and is applied once. A session made on either console is valid on the
 * other, before and after the kill.
 */
const TAKEOVER_MS = 30_000;
// The history runs a quarter of an hour past now: the gate's instant reads at the wall clock find
// samples within the lookback however long the consoles take to start on a loaded machine.
const NOW = Date.now() / 1000;
const END = historyEnd(Date.now() + 15 * 60_000);
const REPLICA = { replication: { lagSeconds: 0 } };
const FLEET = [syntheticReplica("canary:9105", REPLICA), syntheticReplica("control:9105", REPLICA)];
const RECONCILER_LOCK = "untorn:rollout-reconciler";
const HOOK = "apply-doublewrite-off";
const policy: PolicyInput = { ...testPolicy, applier: { kind: "hook", hook: HOOK } };
type Client = Awaited<ReturnType<typeof adminClient>>;

/**
 * The hook: one line per run (its parent's pid, the instance, the rollout), then it waits for
 * `release` (or its marker gone with the test's directory; at most five minutes) and exits 0.
 */
const HOOK_SCRIPT = `const fs = require("node:fs");
const [marker, release] = process.argv.slice(1);
fs.appendFileSync(marker, process.ppid + " " + process.env.UNTORN_INSTANCE + " " + process.env.UNTORN_ROLLOUT_ID + "\\n");
const until = Date.now() + 300000;
const over = () => fs.existsSync(release) || !fs.existsSync(marker) || Date.now() > until;
const wait = () => (over() ? process.exit(0) : setTimeout(wait, 100));
wait();`;

let workDir: string;
let release = "";
let history: HistoryServer | undefined;
let db: TestDatabase | undefined;
let store: Store | undefined;
const consoles: WebServer[] = [];

test.afterAll(async () => {
  // The dead console's hook is still waiting: let it end.
  if (release) await writeFile(release, "");
  for (const c of consoles) await c.stop();
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

const alice = { id: "alice", kind: "operator" as const };

/** The rollout, created and its backup attested through the runner; its wave 0 not yet approved. */
async function createRollout(deps: RunnerDeps, api: HistoryServer["api"]): Promise<string> {
  const facts = await candidateFacts(api, {
    at: NOW,
    metadata: new Map(FLEET.map((f) => [f.instance, { cluster: "orders", role: "replica" as const }])),
  });
  const { stored } = await createStoredRollout(deps, {
    type: "create",
    key: "ha-create",
    actor: alice,
    title: "doublewrite off, two consoles, a hook",
    input: {
      change: { kind: "doublewrite-off" },
      instances: facts.facts,
      targets: ["canary:9105"],
      policy,
    },
  });
  const id = stored.state.id;
  await runCommand(deps, id, { type: "attest-backup", key: "ha-backup", actor: alice, takenAt: NOW - 600 });
  return id;
}

test("kill -9 of the console running a step hook under the reconciler lock: the other takes over, the hook is not run again, the step is applied once", async () => {
  test.setTimeout(420_000);
  workDir = await mkdtemp(join(tmpdir(), "untorn-e2e-ha-"));
  const marker = join(workDir, "hook-runs.log");
  release = join(workDir, "hook-release");
  const hooksFile = join(workDir, "hooks.json");
  await writeFile(
    hooksFile,
    JSON.stringify({
      hooks: {
        [HOOK]: {
          kind: "command",
          command: [process.execPath, "-e", HOOK_SCRIPT, marker, release],
          timeoutSeconds: 600,
        },
      },
    }),
  );
  const hookRuns = () => (existsSync(marker) ? readFileSync(marker, "utf8").split("\n").filter(Boolean) : []);

  history = await startHistoryPrometheus(FLEET, { start: NOW - 90 * 60, end: END, seed: 3 }, workDir);
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
  const id = await createRollout(deps, history.api);

  const url = (name: string) => {
    const u = new URL(db!.url);
    u.searchParams.set("application_name", name);
    return u.toString();
  };
  const env = (name: string) => ({
    DATABASE_URL: url(name),
    PROMETHEUS_URL: history!.prom.url,
    UNTORN_RECONCILE_SECONDS: "1",
    UNTORN_CACHE_DIR: "off",
    UNTORN_HOOKS_FILE: hooksFile,
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
    // Approved with both consoles up: the next pass of either passes the pre-wave gate, starts the
    // wave and runs its hook, which waits for the release file while that pass holds the lock.
    await runCommand(deps, id, { type: "approve", key: "ha-approve", actor: alice, wave: 0 });
    const run = await waitFor("a console's pass to start the hook", () => hookRuns()[0], {
      timeoutMs: 120_000,
      intervalMs: 200,
      detail: () => `${a.process.tail(10)}\n${b.process.tail(10)}`,
    });
    const [ppid, instance, rolloutId] = run.split(" ");
    expect([instance, rolloutId]).toEqual(["canary:9105", id]);
    const holder = consoles.find((c) => c.process.child.pid === Number(ppid));
    expect(holder, `the hook's parent ${ppid} is one of the consoles`).toBeDefined();
    const holderName = holder === a ? "ha-a" : "ha-b";
    const survivor = holder === a ? b : a;
    const survivorName = holder === a ? "ha-b" : "ha-a";
    // The pass running the hook holds the lock: the other console's passes find it taken.
    expect(await lockHolder(client)).toBe(holderName);
    let s = (await getRollout(deps, id)).state;
    const count = (type: string) => s.events.filter((e) => e.type === type).length;
    const preWave = () => s.events.filter((e) => e.type === "gate" && e.gate?.gate === "pre-wave");
    expect(preWave().map((e) => e.gate?.outcome)).toEqual(["pass"]);
    expect([count("wave-started"), count("hook-started"), count("hook-result")]).toEqual([1, 1, 0]);

    holder!.process.child.kill("SIGKILL");
    await holder!.process.exited;
    // Within TAKEOVER_MS the survivor's next pass has the lock (the dead session's lock went with it).
    // Its passes hold it for milliseconds (the step needs no observation while its hook is out): polled often.
    await waitFor(
      "the survivor to take the reconciler lock",
      async () => (await lockHolder(client)) === survivorName,
      {
        timeoutMs: TAKEOVER_MS,
        intervalMs: 10,
      },
    );
    // That pass ends (one that started the hook again would hold the lock while it waits), and a later
    // one takes the lock again.
    await waitFor("the survivor's pass to end", async () => (await lockHolder(client)) !== survivorName, {
      timeoutMs: 60_000,
      intervalMs: 10,
    });
    await waitFor("a later pass of the survivor", async () => (await lockHolder(client)) === survivorName, {
      timeoutMs: 60_000,
      intervalMs: 10,
    });
    await waitFor("that pass to end", async () => (await lockHolder(client)) !== survivorName, {
      timeoutMs: 60_000,
      intervalMs: 10,
    });
    // The hook ran once, on the dead console: its `hook-started` key is stored and the step stays applying.
    expect(hookRuns()).toHaveLength(1);
    s = (await getRollout(deps, id)).state;
    expect(s.instances.find((i) => i.instance === "canary:9105")?.status).toBe("applying");
    expect([count("hook-started"), count("hook-result"), count("step-applied")]).toEqual([1, 0, 0]);
    expect(await store.getRolloutCommand(`hook-started:${id}:0:canary:9105`)).toMatchObject({
      command: "hook-started",
    });

    // The documented recovery: the operator checks the server and marks the step done.
    const done = await runCommand(deps, id, {
      type: "step-done",
      key: "ha-step-done",
      actor: alice,
      instance: "canary:9105",
    });
    expect(done.ok, JSON.stringify(done.refusal)).toBe(true);
    // The survivor carries the step on: its passes read it back (the history keeps doublewrite on, so
    // it is not verified; what matters is that they act on the applied step and apply nothing).
    s = await waitFor(
      "the survivor's pass to read the applied step back",
      async () => {
        const st = (await getRollout(deps, id)).state;
        return st.instances.find((i) => i.instance === "canary:9105")?.lastReadBackAt ? st : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 250, detail: () => survivor.process.tail(10) },
    );
    expect(hookRuns()).toHaveLength(1);
    expect(preWave()).toHaveLength(1);
    for (const type of ["wave-started", "hook-started", "step-applied"]) expect(count(type), type).toBe(1);
    expect(count("hook-result")).toBe(0);
    const events = await store.listRolloutEvents(id);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.action)).toEqual(s.events.map((e) => e.type));

    // The session made on the dead console still works on the survivor.
    expect(await health(survivor, holder === a ? onA : onB)).toBe(200);
  } finally {
    await client.end();
  }
});
