// The recorded rollouts loader on a real embedded store (PGlite in a temp dir) with the lab's committed
// recording: loads once, a restart loads nothing, a changed file replaces only what a recording loaded,
// a user's rollout is never touched, and a malformed file is refused with a clear error, losing nothing.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { RECORDED_ACTOR, recordedRolloutsFileSchema } from "@untorn/rollout-runner/recorded";
import { openStore, type Store } from "@untorn/store/store";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { describeOutcome, loadRecordedRolloutsFor } from "./recorded-rollouts.js";

const RECORDINGS = fileURLToPath(new URL("../../../../../lab/recordings/", import.meta.url));
const replayName = fs.readdirSync(RECORDINGS).find((n) => n.endsWith(".json.gz"))!;
const committed = fs.readFileSync(
  path.join(RECORDINGS, replayName.replace(/\.json\.gz$/, ".rollouts.json")),
  "utf8",
);

let dir = "";
let store: Store;
/** A replay path in the temp dir, its rollouts sidecar written from `text`. */
const replayWith = (text: string, name = "fleet") => {
  fs.writeFileSync(path.join(dir, `${name}.rollouts.json`), text);
  return path.join(dir, `${name}.json.gz`);
};
const ids = async () => (await store.listRollouts({ limit: 1000 })).map((r) => r.id).sort();

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-recorded-rollouts-"));
  store = await openStore({ dataDir: path.join(dir, "data") });
});

afterAll(async () => {
  await store?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe("recorded rollouts at start", () => {
  const file = recordedRolloutsFileSchema.parse(JSON.parse(committed));
  const recorded = file.rollouts.map((r) => r.id).sort();
  let userRollout = "";

  it("does nothing in live mode or when the recording has no rollouts beside it", async () => {
    expect(await loadRecordedRolloutsFor(store, null)).toMatchObject({ kind: "none" });
    const none = await loadRecordedRolloutsFor(store, path.join(dir, "other.json.gz"));
    expect(none).toMatchObject({ kind: "none", reason: "no recorded rollouts beside other.json.gz" });
    expect(await ids()).toEqual([]);
  });

  it("loads the lab's recorded rollouts as recorded, with their events and evidence", async () => {
    // A user's rollout, there before the recording is loaded.
    const mine = await store.createRollout({
      name: "alice's rollout",
      change: { kind: "doublewrite-off" },
      targets: ["db-x"],
      waves: [],
      state: "active",
      actor: "alice",
    });
    userRollout = mine.id;
    const out = await loadRecordedRolloutsFor(store, replayWith(committed));
    expect(out.kind).toBe("loaded");
    expect(describeOutcome(out)).toMatch(/^untorn: loaded \d+ recorded rollouts from fleet\.rollouts\.json$/);
    expect(await ids()).toEqual([...recorded, userRollout].sort());
    for (const r of file.rollouts) {
      const row = (await store.getRollout(r.id))!;
      expect(row).toMatchObject({ createdBy: RECORDED_ACTOR, state: r.state, name: r.name });
      expect(row.document).toEqual(r.document);
      const events = await store.listRolloutEvents(r.id);
      expect(events.map((e) => e.action)).toEqual(r.events.map((e) => e.action));
      expect(events.map((e) => e.at.toISOString())).toEqual(r.events.map((e) => e.at));
      // The document's own actors say where they acted.
      const doc = r.document as { events: { actor: { id: string } }[] };
      expect(doc.events.every((e) => /^lab-recording\/|^reconciler$|^hook:/.test(e.actor.id))).toBe(true);
    }
  });

  it("loads nothing again on a restart with the same file", async () => {
    const before = await Promise.all(recorded.map((id) => store.getRollout(id)));
    const out = await loadRecordedRolloutsFor(store, replayWith(committed));
    expect(out).toMatchObject({ kind: "loaded", result: { unchanged: true, loaded: [] } });
    expect(describeOutcome(out)).toMatch(/already loaded/);
    expect(await Promise.all(recorded.map((id) => store.getRollout(id)))).toEqual(before);
    expect(await ids()).toEqual([...recorded, userRollout].sort());
  });

  it("refuses a malformed file with a clear error and keeps everything stored", async () => {
    const before = await ids();
    const cases: [string, RegExp][] = [
      [committed.slice(0, 200), /invalid JSON/],
      [JSON.stringify({ ...file, version: 2 }), /version: Invalid input: expected 1/],
      [
        JSON.stringify({
          ...file,
          rollouts: file.rollouts.map((r, i) =>
            i === 0 ? { ...r, document: { ...r.document, plan: 7 } } : r,
          ),
        }),
        /rollouts\.0\.document: plan/,
      ],
    ];
    for (const [text, error] of cases) {
      const out = await loadRecordedRolloutsFor(store, replayWith(text, "broken"));
      expect(out.kind).toBe("invalid");
      if (out.kind === "invalid") {
        expect(out.error).toMatch(
          /broken\.rollouts\.json: not a recorded-rollouts file .*nothing loaded or removed/,
        );
        expect(out.error).toMatch(error);
      }
      expect(await ids()).toEqual(before);
    }
  });

  it("replaces what an older recording loaded when the file changed, and never a user's rollout", async () => {
    const changed = { ...file, note: `${file.note} (re-recorded)` };
    const out = await loadRecordedRolloutsFor(store, replayWith(JSON.stringify(changed, null, 2)));
    expect(out).toMatchObject({
      kind: "loaded",
      result: { unchanged: false, loaded: file.rollouts.map((r) => r.id) },
    });
    if (out.kind === "loaded") expect([...out.result.replaced].sort()).toEqual(recorded);
    expect(await ids()).toEqual([...recorded, userRollout].sort());
    expect((await store.getRollout(userRollout))?.createdBy).toBe("alice");
    // The replaced rollouts' events are the new file's, not appended to the old ones.
    for (const r of file.rollouts) expect(await store.listRolloutEvents(r.id)).toHaveLength(r.events.length);
    const audit = await store.listAudit({ action: "rollout.delete" });
    expect(audit.map((a) => a.entityId).sort()).toEqual(recorded);
  });
});
