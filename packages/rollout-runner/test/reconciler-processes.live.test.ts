// Two reconciler processes (test/fixtures/reconciler-process.ts: startReconcilerLoop, one JSON line per
// pass) against one real PostgreSQL and a real Prometheus serving backfilled synthetic history. The
// wave's step is carried out by a hook that takes a few seconds, so the pass that runs it holds the
// single-writer lock that long: the other process must do nothing meanwhile. The holder is then killed
// with SIGKILL in the middle of that pass; the other takes over on its next pass, does not run the
// hook a second time, and carries the rollout on once the operator has checked the server. The event
// log stays numbered without gaps. The processes share the test's clock, run 60 times faster than the
// wall clock so the read-back windows of the history pass in seconds.
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import { rm } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { SyntheticInstance } from "@untorn/fleet/testing/synthetic";
import type { PolicyInput } from "@untorn/rollout/policy";
import { openStore, type Store } from "@untorn/store/store";
import { createTestDatabase, type TestDatabase } from "@untorn/store/testing/postgres";
import { makeTempDir } from "@untorn/testkit/process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { candidateFacts } from "../src/observe.js";
import { createStoredRollout, getRollout, type RunnerDeps, runCommand } from "../src/runner.js";
import {
  type HistoryServer,
  historyEnd,
  startHistoryPrometheus,
  syntheticReplica,
} from "../src/testing/history.js";

const END = historyEnd();
const START = END - 120 * 60;
const STEP_AT = END - 90 * 60;
const FLEET: SyntheticInstance[] = [
  syntheticReplica("canary:9105", { doublewriteOffAt: STEP_AT, restartAt: STEP_AT }),
  syntheticReplica("control:9105"),
];
const metadata = FLEET.map((f) => [f.instance, { cluster: "orders", role: "replica" as const }] as const);
/** Rollout seconds per wall second in the reconciler processes and in this test's commands. */
const SPEED = 60;
const HOOK_SECONDS = 8;
const policy: PolicyInput = {
  applier: { kind: "hook", hook: "apply" },
  warmupSeconds: 0,
  // The fixed bake this test was written for (one hour, judged then): the processes, not the statistics.
  judgement: "fixed",
  bakeSeconds: 3600,
  verifyConsecutive: 2,
  verifyTimeoutSeconds: 3600,
  includePrimaries: false,
  maxInstancesPerWave: 1,
};
const CHILD = fileURLToPath(new URL("./fixtures/reconciler-process.ts", import.meta.url));
const alice = { id: "alice", kind: "operator" as const };

interface Line {
  pid: number;
  n?: number;
  startedAt?: number;
  endedAt?: number;
  acquired?: boolean;
  error?: string;
  rollouts?: { id: string; outcome: string; status: string; events: string[]; error?: string }[];
  stopped?: boolean;
}

function reconciler(config: object) {
  const proc = spawn(process.execPath, ["--conditions=@untorn/source", "--import", "tsx", CHILD], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, UNTORN_RECONCILER_CONFIG: JSON.stringify(config) },
  });
  const lines: Line[] = [];
  let buf = "";
  let stderr = "";
  proc.stdout!.on("data", (d: Buffer) => {
    buf += d.toString();
    const parts = buf.split("\n");
    buf = parts.pop()!;
    for (const p of parts) if (p.trim()) lines.push(JSON.parse(p) as Line);
  });
  proc.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  return { proc, lines, exited, stderr: () => stderr };
}
type Reconciler = ReturnType<typeof reconciler>;

async function until(what: string, pred: () => boolean, timeoutMs: number, why: () => string = () => "") {
  const deadline = Date.now() + timeoutMs;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; ${why()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

let dir = "";
let history: HistoryServer | undefined;
let db: TestDatabase | undefined;
let store: Store;
const children: ChildProcess[] = [];

beforeAll(async () => {
  dir = await makeTempDir("rollout-reconcilers");
  history = await startHistoryPrometheus(FLEET, { start: START, end: END, seed: 7 }, dir);
  db = await createTestDatabase();
  // Migrated here, before the reconcilers open it.
  store = await openStore({ databaseUrl: db.url });
}, 180_000);

afterAll(async () => {
  for (const c of children) c.kill("SIGKILL");
  await store?.close();
  await db?.drop();
  await history?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("two reconciler processes on one PostgreSQL", () => {
  it("one advances the rollout at a time; a kill -9 mid-pass hands over without loss or a second apply", async () => {
    const marker = path.join(dir, "hook.log");
    const hooksFile = path.join(dir, "hooks.json");
    const script = `const fs = require("node:fs"); const f = process.argv[1];
fs.appendFileSync(f, "start " + process.ppid + " " + process.env.UNTORN_INSTANCE + " " + Date.now() / 1000 + "\\n");
setTimeout(() => { fs.appendFileSync(f, "done " + process.ppid + "\\n"); }, ${HOOK_SECONDS * 1000});`;
    fs.writeFileSync(
      hooksFile,
      JSON.stringify({
        hooks: {
          apply: { kind: "command", command: [process.execPath, "-e", script, marker], timeoutSeconds: 60 },
        },
      }),
    );
    const wall0 = Date.now() / 1000;
    const t0 = STEP_AT - 10 * 60;
    const clock = () => t0 + SPEED * (Date.now() / 1000 - wall0);
    const deps = (): RunnerDeps => ({ store, clock });

    const facts = await candidateFacts(history!.api, {
      at: t0,
      metadata: new Map(metadata),
    });
    const { stored } = await createStoredRollout(deps(), {
      type: "create",
      key: "create-two-reconcilers",
      actor: alice,
      title: "doublewrite off, two reconcilers",
      input: {
        change: { kind: "doublewrite-off" },
        instances: facts.facts,
        targets: ["canary:9105"],
        policy,
      },
    });
    const id = stored.state.id;
    await runCommand(deps(), id, {
      type: "attest-backup",
      key: "two-backup",
      actor: alice,
      takenAt: t0 - 600,
    });
    await runCommand(deps(), id, { type: "approve", key: "two-approve", actor: alice, wave: 0 });

    const config = {
      databaseUrl: db!.url,
      promUrl: history!.prom.url,
      hooksFile,
      t0,
      wall0,
      speed: SPEED,
      intervalSeconds: 1,
      metadata,
    };
    const both: Reconciler[] = [reconciler(config), reconciler(config)];
    children.push(...both.map((r) => r.proc));
    const diag = () =>
      both.map((r) => `pid ${r.proc.pid}: ${JSON.stringify(r.lines.slice(-5))} ${r.stderr()}`).join("\n");
    const hookLines = () => (fs.existsSync(marker) ? fs.readFileSync(marker, "utf8").split("\n") : []);

    // One of them passes the pre-wave gate and starts the hook: that pass holds the lock.
    await until("the hook to start", () => hookLines().some((l) => l.startsWith("start ")), 60_000, diag);
    const [, ppid, instance, at] = hookLines()
      .find((l) => l.startsWith("start "))!
      .split(" ");
    expect(instance).toBe("canary:9105");
    const hookStartedAt = Number(at);
    const holder = both.find((r) => r.proc.pid === Number(ppid))!;
    const other = both.find((r) => r !== holder)!;
    expect(holder, `hook parent ${ppid}`).toBeDefined();

    // Meanwhile the other process finds the lock taken and does nothing.
    await until(
      "the other reconciler to find the lock held",
      () => other.lines.some((l) => l.acquired === false && l.startedAt! > hookStartedAt),
      HOOK_SECONDS * 1000 - 2000,
      diag,
    );
    expect(hookLines().some((l) => l.startsWith("done "))).toBe(false);
    holder.proc.kill("SIGKILL");
    const killedAt = Date.now() / 1000;
    expect(await holder.exited).toBeNull();

    // The holder's session died with it, and its advisory lock too: the other takes over.
    await until(
      "the other reconciler to take the lock over",
      () => other.lines.some((l) => l.acquired === true && l.startedAt! > killedAt),
      20_000,
      diag,
    );
    // Never two passes with the lock at once: none of the other's passes that held the lock ran
    // while the holder's pass (from before its hook to the kill) was in flight.
    for (const l of other.lines.filter((x) => x.acquired === true))
      expect(l.endedAt! < hookStartedAt || l.startedAt! > killedAt, JSON.stringify(l)).toBe(true);
    expect(other.lines.every((l) => l.error === undefined)).toBe(true);

    // The step the dead holder's hook was running stays `applying`: no hook runs twice.
    let s = (await getRollout(deps(), id)).state;
    expect(s.instances[0]).toMatchObject({ instance: "canary:9105", status: "applying" });
    const count = (type: string) => s.events.filter((e) => e.type === type).length;
    expect(count("hook-started")).toBe(1);
    expect(count("hook-result")).toBe(0);
    expect(await store.getRolloutCommand(`hook-started:${id}:0:canary:9105`)).toMatchObject({
      command: "hook-started",
    });

    // The operator checks the server (the hook did restart it with doublewrite off at STEP_AT) and
    // marks the step done; the surviving reconciler verifies it from the read-backs.
    await until("the history to pass the restart", () => clock() > STEP_AT + 60, 60_000);
    const done = await runCommand(deps(), id, {
      type: "step-done",
      key: "two-step-done",
      actor: alice,
      instance: "canary:9105",
    });
    expect(done.ok, JSON.stringify(done.refusal)).toBe(true);
    await until(
      "the survivor to verify the step",
      () =>
        other.lines.some((l) => l.rollouts?.some((r) => r.id === id && r.events.includes("step-verified"))),
      60_000,
      diag,
    );
    s = (await getRollout(deps(), id)).state;
    expect(s.instances[0]!.status).toBe("verified");
    for (const type of ["wave-started", "hook-started", "step-applied", "step-verified"])
      expect(count(type), type).toBe(1);
    expect(s.events.filter((e) => e.type === "gate" && e.gate?.gate === "pre-wave")).toHaveLength(1);
    const events = await store.listRolloutEvents(id);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.action)).toEqual(s.events.map((e) => e.type));

    // SIGTERM: the survivor finishes its pass, releases the lock and exits 0.
    other.proc.kill("SIGTERM");
    expect(await other.exited, other.stderr()).toBe(0);
    expect(other.lines.at(-1)).toMatchObject({ stopped: true });
    expect(await store.tryExclusive("rollout-reconciler", async () => "mine")).toEqual({
      acquired: true,
      value: "mine",
    });
  }, 240_000);
});
