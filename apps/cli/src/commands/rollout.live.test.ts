// `untorn rollout` against real parts: a PGlite store in a temporary data directory and a real
// Prometheus serving synthetic untorn-exporter history backfilled with promtool. The synthetic
// history has no replication series, so the CLI's pre-wave gate reports "no replication data" and
// waits: the whole gated flow is covered in packages/rollout-runner (replication injected, and live).
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SyntheticInstance } from "@untorn/fleet/testing/synthetic";
import {
  type HistoryServer,
  historyEnd,
  startHistoryPrometheus,
  syntheticReplica,
} from "@untorn/rollout-runner/testing";
import { freePort } from "@untorn/testkit/process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../errors.js";
import { run } from "../program.js";
import { bufferIo } from "../testing/buffer-io.js";
import { spawnCli } from "../testing/spawn-cli.js";

const END = historyEnd();
const START = END - 90 * 60;
const FLEET: SyntheticInstance[] = [
  syntheticReplica("canary:9105"),
  syntheticReplica("control:9105"),
  syntheticReplica("unverified:9105", { atomicUnitBytes: 0 }),
];
const T0 = END - 60 * 60;

let dir = "";
let history: HistoryServer | undefined;
let metadataFile = "";
let dataDir = "";
const env = { USER: "alice" };

async function cli(args: string[], e: NodeJS.ProcessEnv = env) {
  const io = bufferIo(e);
  const code = await run(["rollout", ...args], io);
  return { code, out: io.stdout(), err: io.stderr() };
}
const store = () => ["--data-dir", dataDir];
const source = () => ["--prometheus", history!.prom.url, "--metadata", metadataFile, "--at", String(T0)];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "untorn-cli-rollout-"));
  history = await startHistoryPrometheus(FLEET, { start: START, end: END, noise: 0 }, dir);
  metadataFile = join(dir, "metadata.json");
  await writeFile(
    metadataFile,
    JSON.stringify({
      instances: Object.fromEntries(FLEET.map((f) => [f.instance, { cluster: "orders", role: "replica" }])),
    }),
  );
  dataDir = join(dir, "store");
}, 180_000);

afterAll(async () => {
  await history?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("untorn rollout", () => {
  it("plan: prints the waves and the dry run, and the plan as JSON", async () => {
    const r = await cli(["plan", "--change", "doublewrite-off", "--targets", "canary:9105", ...source()]);
    expect(r.code).toBe(EXIT.ok);
    expect(r.out).toContain("wave 0 (canary): canary:9105; control control:9105");
    expect(r.out).toMatch(/canary:9105\tON → OFF\tyes\tverified/);
    const j = await cli(["plan", "--change", '{"kind":"doublewrite-off"}', "--json", ...source()]);
    expect(j.code).toBe(EXIT.ok);
    const plan = JSON.parse(j.out);
    expect(plan.exclusions).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ instance: "unverified:9105", reason: "gate-not-verified" }),
      ]),
    );
  });

  it("create: refuses a target whose safety gate is not verified, with the reason, and stores nothing", async () => {
    const r = await cli([
      "create",
      "--title",
      "CHG-1",
      "--change",
      "doublewrite-off",
      "--targets",
      "unverified:9105",
      ...source(),
      ...store(),
    ]);
    expect(r.code).toBe(EXIT.refused);
    expect(r.err).toContain("unverified:9105: gate-not-verified");
    const list = await cli(["list", "--json", ...store()]);
    expect(JSON.parse(list.out)).toEqual([]);
  }, 180_000);

  it("a session: create, attest, approve, reconcile, conflict, refusal, report", async () => {
    const created = await cli([
      "create",
      "--title",
      "CHG-2 doublewrite off on the orders canary",
      "--change",
      "doublewrite-off",
      "--targets",
      "canary:9105",
      "--key",
      "chg-2-create",
      "--now",
      String(T0),
      "--json",
      ...source(),
      ...store(),
    ]);
    expect(created.code, created.err).toBe(EXIT.ok);
    const { id, version } = JSON.parse(created.out);
    expect(version).toBe(1);
    // Retried with the same key: the same rollout.
    const again = await cli([
      "create",
      "--title",
      "CHG-2 doublewrite off on the orders canary",
      "--change",
      "doublewrite-off",
      "--targets",
      "canary:9105",
      "--key",
      "chg-2-create",
      "--json",
      ...source(),
      ...store(),
    ]);
    expect(JSON.parse(again.out)).toMatchObject({ id, replayed: true });

    const backup = await cli([
      "attest-backup",
      id,
      "--taken-at",
      new Date((T0 - 600) * 1000).toISOString(),
      "--now",
      String(T0),
      ...store(),
    ]);
    expect(backup.code, backup.err).toBe(EXIT.ok);
    expect(backup.out).toContain("backup-attested");
    const approve = await cli([
      "approve",
      id,
      "--wave",
      "0",
      "--key",
      "chg-2-approve-0",
      "--now",
      String(T0 + 10),
      ...store(),
    ]);
    expect(approve.code, approve.err).toBe(EXIT.ok);
    // The same key again changes nothing.
    const twice = await cli([
      "approve",
      id,
      "--wave",
      "0",
      "--key",
      "chg-2-approve-0",
      "--now",
      String(T0 + 10),
      ...store(),
    ]);
    expect(twice.code).toBe(EXIT.ok);
    expect(twice.out).toContain("already done with this --key");

    // Prometheus down: exit 1, nothing recorded.
    const before = JSON.parse((await cli(["show", id, "--json", ...store()])).out).version;
    const down = await cli([
      "reconcile",
      "--prometheus",
      `http://127.0.0.1:${await freePort()}`,
      "--now",
      String(T0 + 20),
      ...store(),
    ]);
    expect(down.code).toBe(EXIT.failure);
    expect(down.err).toContain("not reconciled");
    expect(JSON.parse((await cli(["show", id, "--json", ...store()])).out).version).toBe(before);

    const rec = await cli([
      "reconcile",
      "--prometheus",
      history!.prom.url,
      "--metadata",
      metadataFile,
      "--now",
      String(T0 + 30),
      ...store(),
    ]);
    expect(rec.code, rec.err).toBe(EXIT.ok);
    expect(rec.out).toContain(`${id}: advanced`);
    expect(rec.out).toContain("pre-wave gate no-data");
    const shown = JSON.parse((await cli(["show", id, "--json", ...store()])).out);
    const gate = shown.state.events.find((e: { type: string }) => e.type === "gate").gate;
    expect(gate.checks).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: "safety-gate", outcome: "pass" }),
        expect.objectContaining({ id: "replication", outcome: "no-data" }),
      ]),
    );
    expect(shown.state.waves[0].phase).toBe("pending");

    // Stale version: a conflict naming the last person who changed it and what they did (the
    // reconciler's later bookkeeping is not a person).
    const stale = await cli(["pause", id, "--reason", "freeze", "--expected-version", "1", ...store()]);
    expect(stale.code).toBe(EXIT.refused);
    expect(stale.err).toMatch(
      /was changed by alice at \S+ \(approve\): expected version 1, found version \d+/,
    );
    expect(stale.err).not.toContain("changed by reconciler");
    // A command the state machine refuses: exit 5 with its reason, recorded in the audit.
    const wrong = await cli(["approve", id, "--wave", "7", ...store()]);
    expect(wrong.code).toBe(EXIT.refused);
    expect(wrong.err).toContain("refused the command (unknown-wave)");
    // Any command as JSON, as the console sends it.
    const cmdFile = join(dir, "pause.json");
    await writeFile(
      cmdFile,
      JSON.stringify({
        type: "pause",
        key: "chg-2-pause",
        actor: { id: "bob", kind: "operator" },
        reason: "change freeze",
      }),
    );
    const paused = await cli(["command", id, "--input", cmdFile, "--json", ...store()]);
    expect(paused.code, paused.err).toBe(EXIT.ok);
    expect(JSON.parse(paused.out)).toMatchObject({ ok: true, status: "paused" });

    const md = await cli(["report", id, ...store()]);
    expect(md.code).toBe(EXIT.ok);
    expect(md.out).toContain("CHG-2 doublewrite off on the orders canary");
    const out = join(dir, "report.json");
    const js = await cli(["report", id, "--format", "json", "--out", out, ...store()]);
    expect(js.code).toBe(EXIT.ok);
    const report = JSON.parse(await readFile(out, "utf8"));
    expect(report).toMatchObject({ id, status: "paused" });

    const list = await cli(["list", "--status", "paused", ...store()]);
    expect(list.out).toContain(id);
  }, 300_000);

  const ID = "0b7b1d2c-3e4f-4c8e-9a51-7d4e3b6a1f0c";
  it.each([
    [["show", "not-a-uuid"], EXIT.usage, 'rollout id "not-a-uuid": expected a UUID'],
    [["show", ID], EXIT.usage, `rollout ${ID} not found`],
    [["approve", ID, "--wave", "-1"], EXIT.usage, "--wave"],
    [["approve", ID, "--wave", "x"], EXIT.usage, '--wave "x": expected a whole number'],
    [["approve", ID, "--wave", "0", "--key", "short"], EXIT.usage, '--key "short": expected 8 to 200'],
    [
      ["approve", ID, "--wave", "0", "--now", "yesterday"],
      EXIT.usage,
      '--now "yesterday": expected an RFC 3339 time',
    ],
    [["approve", ID, "--wave", "0", "--expected-version", "0"], EXIT.usage, "--expected-version"],
    [
      ["attest-backup", ID, "--taken-at", "1700000000000"],
      EXIT.usage,
      "--taken-at 1700000000000 looks like milliseconds",
    ],
    [["pause", ID], EXIT.usage, "pause needs --reason"],
    [["list", "--status", "running"], EXIT.usage, "--status running: expected active, paused"],
    [["list", "--limit", "0"], EXIT.usage, "--limit"],
    [["report", ID, "--format", "pdf"], EXIT.usage, '--format "pdf": expected md or json'],
    [["plan", "--change", '{"kind":"doublewrite-sideways"}'], EXIT.invalidInput, "is not a valid change"],
    [["plan"], EXIT.usage, "what to roll out?"],
    [
      ["plan", "--change", "doublewrite-off", "--input", "x.json"],
      EXIT.usage,
      "either --input <file> or --change",
    ],
    [["list", "--database-url", "mysql://x"], EXIT.usage, "--database-url: expected a postgres://"],
    [["reconcile", "--hooks", "/nonexistent/hooks.json"], EXIT.invalidInput, "cannot read hooks file"],
    [["reconcile", "--interval", "10s"], EXIT.usage, "--interval paces --watch: add --watch"],
    [["reconcile", "--watch", "--interval", "10"], EXIT.usage, '--interval "10": expected whole numbers'],
    [
      ["reconcile", "--watch", "--interval", "500ms"],
      EXIT.usage,
      '--interval "500ms": expected from 1s to 24h',
    ],
    [["reconcile", "--watch", "--interval", "2d"], EXIT.usage, '--interval "2d": expected from 1s to 24h'],
    [["reconcile", "--watch", "--now", "1700000000"], EXIT.usage, "--watch runs on the wall clock: --now"],
    [["reconcile", "--watch", "--at", "1700000000"], EXIT.usage, "--watch runs on the wall clock: --at"],
  ])(
    "rollout %j exits %i: %s",
    async (args, code, message) => {
      const r = await cli([...args, ...(args[0] === "plan" ? [] : store())]);
      expect(r.err).toContain(message);
      expect(r.code).toBe(code);
      // The first case may create the durable store (migrations, fsyncs): over 30 s on a loaded machine.
    },
    120_000,
  );

  it("refuses an unknown target and a missing actor with what to do", async () => {
    const t = await cli(["plan", "--change", "doublewrite-off", "--targets", "nope:9105", ...source()]);
    expect(t.code).toBe(EXIT.usage);
    expect(t.err).toContain("--targets: no facts for nope:9105");
    const a = await cli(["approve", ID, "--wave", "0", ...store()], {});
    expect(a.code).toBe(EXIT.usage);
    expect(a.err).toContain("pass --actor <name> or set UNTORN_ACTOR");
  });

  it("reconcile --watch: one JSON line per pass until SIGTERM, which finishes the pass and exits 0", async () => {
    const watchDir = join(dir, "watch-store");
    const { proc, out, err, closed } = spawnCli(
      [
        "rollout",
        "reconcile",
        "--watch",
        "--interval",
        "1s",
        "--json",
        "--prometheus",
        history!.prom.url,
        "--data-dir",
        watchDir,
      ],
      { ...process.env, USER: "alice" },
    );
    proc.stdin?.end();
    try {
      // Generous: starting tsx and opening a durable PGlite store takes over a minute on a loaded machine.
      const deadline = Date.now() + 150_000;
      while (out().split("\n").filter(Boolean).length < 2) {
        expect(proc.exitCode, err()).toBeNull();
        expect(Date.now(), `two passes in time; stderr: ${err()}`).toBeLessThan(deadline);
        await new Promise((r) => setTimeout(r, 100));
      }
      proc.kill("SIGTERM");
      expect(await closed, err()).toBe(0);
    } finally {
      proc.kill("SIGKILL");
    }
    const passes = out()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(passes.length).toBeGreaterThanOrEqual(2);
    passes.forEach((p, i) => {
      expect(p).toMatchObject({ pass: i + 1, acquired: true, rollouts: [] });
      expect(Date.parse(p.startedAt)).not.toBeNaN();
    });
    expect(err()).toContain("SIGTERM: stopping after the pass in flight");
    expect(err()).toMatch(/stopped after \d+ pass\(es\), 0 failed/);
  }, 200_000);

  it("validates a hooks file field by field", async () => {
    const f = join(dir, "hooks.json");
    await writeFile(
      f,
      JSON.stringify({ hooks: { apply: { kind: "command", command: [], timeoutSeconds: -1 } } }),
    );
    const r = await cli(["reconcile", "--hooks", f, "--prometheus", history!.prom.url, ...store()]);
    expect(r.code).toBe(EXIT.invalidInput);
    expect(r.err).toContain("hooks.apply.command: needs the program to run");
    expect(r.err).toContain("hooks.apply.timeoutSeconds");
  });
});
