// `untorn rollout plan|create|reconcile --replay` on the committed lab recording (lab/recordings/),
// the one the console serves on its embedded defaults, with a PGlite store in a temporary directory
// (in-process: no server is started). Every query the planner and the reconciler make is answered
// from the recording: never "query not in the replay file", never raw PromQL.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../errors.js";
import { run } from "../program.js";
import { bufferIo } from "../testing/buffer-io.js";

const lab = (f: string) => fileURLToPath(new URL(`../../../../lab/recordings/${f}`, import.meta.url));
const REPLAY = lab("mariadb-10.11-fleet.json.gz");
const METADATA = lab("mariadb-10.11-fleet.metadata.json");
const TARGET = "db-dw-off-iops300-16k";

let dir = "";
let policy = "";
const env = { USER: "alice" };

async function cli(args: string[]) {
  const io = bufferIo(env);
  const code = await run(["rollout", ...args], io);
  return { code, out: io.stdout(), err: io.stderr() };
}
const store = () => ["--data-dir", join(dir, "store")];
const source = ["--replay", REPLAY, "--metadata", METADATA];
const noRawPromql = (r: { out: string; err: string }) => {
  expect(r.out + r.err).not.toMatch(/not in the replay file|by \(instance|untorn_[a-z_]+\{/);
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "untorn-cli-rollout-replay-"));
  policy = join(dir, "policy.json");
  // A standalone server has no sibling control: judged before/after.
  await writeFile(policy, JSON.stringify({ requireControl: false }));
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("untorn rollout on the lab recording", () => {
  it("plan: doublewrite back ON on the standalone server running OFF on unverified storage", async () => {
    const r = await cli([
      "plan",
      ...source,
      "--change",
      "doublewrite-on",
      "--targets",
      TARGET,
      "--policy",
      policy,
      "--json",
    ]);
    noRawPromql(r);
    expect(r.code).toBe(EXIT.ok);
    const plan = JSON.parse(r.out) as {
      waves: { instances: string[] }[];
      steps: { target: string; restart: boolean }[];
    };
    expect(plan.waves).toEqual([expect.objectContaining({ instances: [TARGET] })]);
    // MariaDB 10.11: innodb_doublewrite is read-only before 11.0.6, so a restart.
    expect(plan.steps[0]).toMatchObject({ target: "ON", restart: true });
  }, 120_000);

  it("plan: the dry run says per wave how long its bake needs, or plainly why it cannot say (text and --json)", async () => {
    const text = await cli(["plan", ...source, "--change", "doublewrite-off"]);
    noRawPromql(text);
    expect(text.code).toBe(EXIT.ok);
    // The recording holds bytes per transaction, not the write bytes/s the bake sums: no baseline to read.
    expect(text.out).toMatch(
      /Time to a verdict:\n {2}Wave 0: no time to a verdict for the expected [\d.]+% lower write bytes per transaction: the metrics history holds no samples of write bytes per transaction for db-shop-replica-2 .*up to its maximum of 30 min/,
    );
    const json = await cli(["plan", ...source, "--change", "doublewrite-off", "--json"]);
    const plan = JSON.parse(json.out) as {
      bakeEstimates: { wave: number; outcome: string; maxBakeSeconds: number }[];
    };
    expect(plan.bakeEstimates).toEqual([
      expect.objectContaining({ wave: 0, outcome: "baseline-unusable", maxBakeSeconds: 1800 }),
    ]);
    // doublewrite back ON: the advisor puts no figure on it, and the plan says so.
    const on = await cli([
      "plan",
      ...source,
      "--change",
      "doublewrite-on",
      "--targets",
      TARGET,
      "--policy",
      policy,
    ]);
    expect(on.out).toMatch(/Wave 0: the advisor puts no figure on the effect here/);
  }, 120_000);

  it("create, attest a backup on the recording's clock, approve, reconcile: the pre-wave gate decides from the recording", async () => {
    const created = await cli([
      "create",
      ...source,
      ...store(),
      "--change",
      "doublewrite-on",
      "--targets",
      TARGET,
      "--policy",
      policy,
      "--title",
      "doublewrite back on",
      "--json",
    ]);
    noRawPromql(created);
    expect(created.code).toBe(EXIT.ok);
    const { id, state } = JSON.parse(created.out) as { id: string; state: { createdAt: number } };
    const end = 1795575664; // the recording's last evaluation time (its "now")
    // Created on the recording's clock, not the wall clock.
    expect(state.createdAt).toBe(end);
    const attest = await cli([
      "attest-backup",
      id,
      ...store(),
      "--taken-at",
      String(end - 120),
      "--now",
      String(end),
    ]);
    expect(attest.code, attest.err).toBe(EXIT.ok);
    const approve = await cli(["approve", id, ...store(), "--wave", "0", "--now", String(end)]);
    expect(approve.code, approve.err).toBe(EXIT.ok);
    const pass = await cli(["reconcile", ...source, ...store(), "--json"]);
    noRawPromql(pass);
    expect(pass.code, pass.err).toBe(EXIT.ok);
    const r = JSON.parse(pass.out) as {
      rollouts: { id: string; outcome: string; events: { type: string; message: string }[] }[];
    };
    const mine = r.rollouts.find((x) => x.id === id)!;
    expect(mine.outcome).toBe("advanced");
    expect(mine.events.map((e) => e.type)).toContain("wave-started");
  }, 180_000);
});
