/**
 * The rollout Server Actions against a real embedded store over a fake replay: create (and its double
 * submit), refusals with the engine's reasons, a conflict that names the other writer, idempotent
 * controls. The access table itself is server/auth/permissions.test.ts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { encodeReplay } from "@untorn/fleet/replay";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ROLLOUT_IDLE } from "../../lib/rollout-fields.js";
import { smallReplay } from "../../testing/fleet-facts.js";
import { type Principal, runAs } from "../auth/access.js";

/** Paths the actions asked Next.js to render again (what the browser's page then shows). */
const revalidated = vi.hoisted(() => [] as string[]);
vi.mock("next/cache", () => ({ revalidatePath: (p: string) => void revalidated.push(p) }));
class Redirected extends Error {
  constructor(readonly to: string) {
    super(`redirect ${to}`);
  }
}
vi.mock("next/navigation", () => ({
  redirect: (to: string) => {
    throw new Redirected(to);
  },
}));

let dir: string;
const olga: Principal = { name: "olga", role: "operator", via: "session" };
const otto: Principal = { name: "otto", role: "operator", via: "session" };
const vic: Principal = { name: "vic", role: "viewer", via: "session" };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-rollout-actions-"));
  fs.writeFileSync(path.join(dir, "fleet.json.gz"), encodeReplay(smallReplay()));
  process.env.UNTORN_REPLAY = path.join(dir, "fleet.json.gz");
  process.env.UNTORN_DATA_DIR = path.join(dir, "store");
  await import("./rollout-actions.js");
  const store = await (await import("../fleet/data.js")).metadataStore();
  for (const [instance, role] of [
    ["db-heavy-atomic:9105", "replica"],
    ["db-heavy-plain:9105", "replica"],
    ["db-off:9105", "primary"],
  ] as const)
    await store.upsertInstanceMetadata({ instance, cluster: "orders", role, actor: "test" });
}, 60_000);

afterAll(async () => {
  const { metadataStore } = await import("../fleet/data.js");
  await (await metadataStore()).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const form = (fields: Record<string, string | string[]>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) for (const x of [v].flat()) f.append(k, x);
  return f;
};

/** Runs createRollout; returns the rollout id it redirected to, or the form state it returned. */
async function create(who: Principal, fields: Record<string, string | string[]>) {
  const { createRollout } = await import("./rollout-actions.js");
  try {
    return { state: await runAs(who, () => createRollout(ROLLOUT_IDLE, form(fields))) };
  } catch (e) {
    if (e instanceof Redirected) return { id: decodeURIComponent(e.to.replace("/rollouts/", "")) };
    throw e;
  }
}

async function stored(id: string) {
  const { loadRollout } = await import("./rollout-deps.js");
  return (await loadRollout(id))!;
}

describe("createRollout", () => {
  it("refuses a viewer and stores nothing", async () => {
    const r = await create(vic, { target: "db-heavy-atomic:9105", key: "k-viewer-0001" });
    expect(r.state).toMatchObject({ status: "error", denied: 403 });
    const { metadataStore } = await import("../fleet/data.js");
    expect(await (await metadataStore()).listRollouts({ limit: 10 })).toEqual([]);
  });

  it("refuses a target the engine excludes, with its reason, on the instances field", async () => {
    const r = await create(olga, {
      target: ["db-heavy-atomic:9105", "db-heavy-plain:9105"],
      key: "k-refused-0001",
    });
    expect(r.state?.status).toBe("error");
    expect(r.state?.message).toMatch(/db-heavy-plain:9105: gate-not-verified/);
    expect(r.state?.fieldErrors.target).toBeDefined();
    // The values come back so the editor shows what was sent.
    expect(r.state?.values?.target).toEqual(["db-heavy-atomic:9105", "db-heavy-plain:9105"]);
  });

  it("names an unknown instance and a bad field", async () => {
    const r = await create(olga, { target: "nope:9105", key: "k-unknown-0001", bakeMinutes: "x" });
    expect(r.state?.fieldErrors).toMatchObject({ bakeMinutes: "a whole number in decimal digits" });
    const u = await create(olga, { target: "nope:9105", key: "k-unknown-0002" });
    expect(u.state?.fieldErrors.target).toBe("not in the fleet: nope:9105");
  });

  let id: string;
  it("creates a rollout with the canary and its control, attests the backup, and a double submit is one rollout", async () => {
    const fields = {
      target: "db-heavy-atomic:9105",
      key: "k-create-0001",
      title: "dw off canary",
      backupTakenAt: "2020-01-01T00:00",
    };
    const first = await create(olga, fields);
    expect(first.id).toBeDefined();
    id = first.id!;
    const again = await create(olga, fields);
    expect(again.id).toBe(id);
    const { metadataStore } = await import("../fleet/data.js");
    expect(await (await metadataStore()).listRollouts({ limit: 10 })).toHaveLength(1);
    const s = await stored(id);
    expect(s.state.title).toBe("dw off canary");
    expect(s.state.createdBy.id).toBe("olga (operator)");
    expect(s.state.waves[0]).toMatchObject({
      kind: "canary",
      instances: ["db-heavy-atomic:9105"],
      controls: ["db-heavy-plain:9105"],
    });
    expect(s.state.backup?.takenAt).toBe(Date.UTC(2020, 0, 1) / 1000);
  });

  it("pause, the same form again, then a stale abort: a conflict naming who paused, not a lost update", async () => {
    const { pauseRollout, abortRollout } = await import("./rollout-actions.js");
    const v = (await stored(id)).version;
    const pause = form({ id, version: String(v), key: "k-pause-0001", reason: "lag" });
    const p = await runAs(olga, () => pauseRollout(ROLLOUT_IDLE, pause));
    expect(p).toMatchObject({ status: "done" });
    expect(p.message).toMatch(/^Paused \(now paused, version \d+\)\.$/);
    const twice = await runAs(olga, () =>
      pauseRollout(ROLLOUT_IDLE, form({ id, version: String(v), key: "k-pause-0001", reason: "lag" })),
    );
    expect(twice.message).toMatch(/^Already done/);
    const stale = await runAs(otto, () =>
      abortRollout(ROLLOUT_IDLE, form({ id, version: String(v), key: "k-abort-0001", reason: "no" })),
    );
    expect(stale).toMatchObject({ status: "error", conflict: true });
    expect(stale.message).toMatch(
      /changed by olga \(operator\) at .* UTC \(pause: Paused: lag\): it is now paused/,
    );
    expect((await stored(id)).state.status).toBe("paused");
  });

  /** A reconciler pass's bookkeeping, committed as the runner's reconcile does (same document). */
  async function reconcilerBookkeeping(rolloutId: string) {
    const { metadataStore } = await import("../fleet/data.js");
    const store = await metadataStore();
    const row = (await store.getRollout(rolloutId))!;
    await store.commitRollout({
      id: rolloutId,
      expectedVersion: row.version,
      actor: "reconciler",
      command: "reconcile",
      state: row.state,
      document: row.document,
      events: [],
    });
  }

  it("a change by the reconciler alone is no conflict while the status the page showed holds", async () => {
    const { resumeRollout } = await import("./rollout-actions.js");
    const seen = await stored(id);
    expect(seen.state.status).toBe("paused");
    await reconcilerBookkeeping(id);
    expect((await stored(id)).version).toBeGreaterThan(seen.version);
    // The page showed another status: a conflict, naming the last person (olga's pause), not the
    // reconciler whose bookkeeping came after it.
    const shownActive = await runAs(olga, () =>
      resumeRollout(
        ROLLOUT_IDLE,
        form({ id, version: String(seen.version), key: "k-resume-0001", status: "active" }),
      ),
    );
    expect(shownActive).toMatchObject({ status: "error", conflict: true });
    expect(shownActive.message).toMatch(/changed by olga \(operator\) at .* UTC \(pause: Paused: lag\)/);
    expect(shownActive.message).not.toMatch(/reconciler/);
    const shownPaused = await runAs(olga, () =>
      resumeRollout(
        ROLLOUT_IDLE,
        form({ id, version: String(seen.version), key: "k-resume-0002", status: "paused" }),
      ),
    );
    expect(shownPaused).toMatchObject({ status: "done" });
    expect((await stored(id)).state.status).toBe("active");
  });

  it("a person's change stays a conflict even when the status holds and the reconciler wrote last", async () => {
    const { approveWave, pauseRollout } = await import("./rollout-actions.js");
    const seen = await stored(id);
    expect(seen.state.status).toBe("active");
    const approved = await runAs(olga, () =>
      approveWave(
        ROLLOUT_IDLE,
        form({ id, version: String(seen.version), key: "k-approve-0001", wave: "0", status: "active" }),
      ),
    );
    expect(approved).toMatchObject({ status: "done" });
    await reconcilerBookkeeping(id);
    const stale = await runAs(otto, () =>
      pauseRollout(
        ROLLOUT_IDLE,
        form({ id, version: String(seen.version), key: "k-pause-0002", reason: "stale", status: "active" }),
      ),
    );
    expect(stale).toMatchObject({ status: "error", conflict: true });
    expect(stale.message).toMatch(/changed by olga \(operator\) at .* UTC \(approve: /);
    expect((await stored(id)).state.status).toBe("active");
  });

  it("shows the engine's refusal (a step on a wave not open yet)", async () => {
    const { markStepDone } = await import("./rollout-actions.js");
    const s = await stored(id);
    const r = await runAs(olga, () =>
      markStepDone(
        ROLLOUT_IDLE,
        form({ id, version: String(s.version), key: "k-step-0001", instance: "db-heavy-atomic:9105" }),
      ),
    );
    expect(r.status).toBe("error");
    expect(r.message).toMatch(/^Refused by the engine \(wave-not-applying\)/);
  });

  it("marks a revert step done through the engine (refused while the rollout does not revert)", async () => {
    const { markRevertDone } = await import("./rollout-actions.js");
    const s = await stored(id);
    const r = await runAs(olga, () =>
      markRevertDone(
        ROLLOUT_IDLE,
        form({ id, version: String(s.version), key: "k-revert-done-0001", instance: "db-heavy-atomic:9105" }),
      ),
    );
    expect(r.status).toBe("error");
    expect(r.message).toMatch(/^Refused by the engine \(not-reverting\)/);
    const bad = await runAs(olga, () =>
      markRevertDone(ROLLOUT_IDLE, form({ id, version: String(s.version), key: "k-revert-done-0002" })),
    );
    expect(bad).toMatchObject({ status: "error", fieldErrors: { instance: "which instance?" } });
  });

  it("renders the page again after a refusal, whose record is a new version: the next command from it applies", async () => {
    const { markStepDone, pauseRollout } = await import("./rollout-actions.js");
    const s = await stored(id);
    revalidated.length = 0;
    const r = await runAs(olga, () =>
      markStepDone(
        ROLLOUT_IDLE,
        form({ id, version: String(s.version), key: "k-step-0002", instance: "db-heavy-atomic:9105" }),
      ),
    );
    expect(r.message).toMatch(/^Refused by the engine/);
    const after = await stored(id);
    expect(after.version).toBeGreaterThan(s.version);
    expect(revalidated).toContain(`/rollouts/${encodeURIComponent(id)}`);
    // The page rendered again carries the new version: the operator's pause applies.
    const p = await runAs(olga, () =>
      pauseRollout(
        ROLLOUT_IDLE,
        form({ id, version: String(after.version), key: "k-pause-0003", reason: "x", status: "active" }),
      ),
    );
    expect(p).toMatchObject({ status: "done" });
    expect((await stored(id)).state.status).toBe("paused");
  });

  it("another operator's refusal since the page was rendered is no conflict; a person's change still is, named", async () => {
    const { markStepDone, resumeRollout, pauseRollout, abortRollout } = await import("./rollout-actions.js");
    const seen = await stored(id);
    expect(seen.state.status).toBe("paused");
    const step = (key: string, version: number) =>
      form({ id, version: String(version), key, instance: "db-heavy-atomic:9105", status: "paused" });
    const refused = await runAs(olga, () => markStepDone(ROLLOUT_IDLE, step("k-step-0003", seen.version)));
    expect(refused.message).toMatch(/^Refused by the engine/);
    expect((await stored(id)).version).toBeGreaterThan(seen.version);
    // Otto's page still carries the version before olga's refusal: his resume applies.
    const resumed = await runAs(otto, () =>
      resumeRollout(
        ROLLOUT_IDLE,
        form({ id, version: String(seen.version), key: "k-resume-0003", status: "paused" }),
      ),
    );
    expect(resumed).toMatchObject({ status: "done" });
    expect((await stored(id)).state.status).toBe("active");

    const shown = await stored(id);
    const paused = await runAs(olga, () =>
      pauseRollout(
        ROLLOUT_IDLE,
        form({ id, version: String(shown.version), key: "k-pause-0004", reason: "again", status: "active" }),
      ),
    );
    expect(paused).toMatchObject({ status: "done" });
    // Otto's step from another tab, rendered after the pause, is refused (recorded); then his abort from
    // the page rendered before it: the conflict names olga's pause, not his refusal that came last.
    const tab = (await stored(id)).version;
    const ottoStep = await runAs(otto, () => markStepDone(ROLLOUT_IDLE, step("k-step-0004", tab)));
    expect(ottoStep.message).toMatch(/^Refused by the engine/);
    const stale = await runAs(otto, () =>
      abortRollout(
        ROLLOUT_IDLE,
        form({ id, version: String(shown.version), key: "k-abort-0002", reason: "x", status: "active" }),
      ),
    );
    expect(stale).toMatchObject({ status: "error", conflict: true });
    expect(stale.message).toMatch(
      /changed by olga \(operator\) at .* UTC \(pause: Paused: again\): it is now paused/,
    );
    expect((await stored(id)).state.status).toBe("paused");
  });

  it("a missing rollout and a malformed form say so", async () => {
    const { resumeRollout } = await import("./rollout-actions.js");
    const missing = await runAs(olga, () =>
      resumeRollout(ROLLOUT_IDLE, form({ id: "no-such", version: "1", key: "k-missing-0001" })),
    );
    expect(missing.message).toMatch(/no such rollout/);
    const bad = await runAs(olga, () => resumeRollout(ROLLOUT_IDLE, form({ id, version: "x", key: "k" })));
    expect(bad.message).toMatch(/reload the page/);
  });
});
