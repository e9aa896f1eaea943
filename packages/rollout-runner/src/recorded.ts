/**
 * Recorded rollouts: the stored state of rollouts the lab ran on real servers (documents, their event
 * timelines with every gate's evidence and comparison, saved comparisons), exported beside a replay file
 * and loaded into another store, where they read as recorded: created by `lab-recording`, their events
 * keep the actors of the run (e.g. `lab-recording/operator`).
 *
 * Loading is idempotent and never touches a rollout that was not loaded from a recording: the file's
 * digest is in each loaded rollout's create key, so the same file again loads nothing, and a changed
 * file deletes the rollouts an older file loaded before it loads its own, all in one transaction.
 */
import { createHash } from "node:crypto";
import { parseRolloutState } from "@untorn/rollout/state";
import type { Store } from "@untorn/store/store";
import type { JsonObject } from "@untorn/store/validation";
import { z } from "zod";

export const RECORDED_ROLLOUTS_FORMAT = "untorn-recorded-rollouts";
export const RECORDED_ROLLOUTS_VERSION = 1;
/**
 * Store actor of every loaded rollout (what the console shows as "created by"); no account can be named
 * so (a username has no spaces), so it also tells loaded rollouts from users' ones.
 */
export const RECORDED_ACTOR = "lab recording";
/** Prefix of the create key of a loaded rollout; the rest is the file's digest and the rollout id. */
const KEY_PREFIX = "recorded:";

const isoTime = z.iso.datetime({ offset: true });
const jsonObject = z.record(z.string(), z.unknown());

export const recordedEventSchema = z.strictObject({
  sequence: z.number().int().min(1),
  at: isoTime,
  actor: z.string().min(1).max(256),
  action: z.string().min(1).max(128),
  details: jsonObject,
});

export const recordedComparisonSchema = z.strictObject({
  createdAt: isoTime,
  createdBy: z.string().min(1).max(256),
  input: jsonObject,
  result: jsonObject,
});

export const recordedRolloutSchema = z.strictObject({
  id: z.uuid(),
  name: z.string().min(1).max(200),
  state: z.string().min(1),
  version: z.number().int().min(1),
  createdAt: isoTime,
  createdBy: z.string().min(1),
  updatedAt: isoTime,
  updatedBy: z.string().min(1),
  change: jsonObject,
  targets: z.array(z.string()),
  waves: z.array(jsonObject),
  /** The @untorn/rollout state, parsed with the core's schema on load. */
  document: jsonObject,
  events: z.array(recordedEventSchema).min(1),
  comparisons: z.array(recordedComparisonSchema),
});
export type RecordedRollout = z.infer<typeof recordedRolloutSchema>;

export const recordedRolloutsFileSchema = z
  .strictObject({
    format: z.literal(RECORDED_ROLLOUTS_FORMAT),
    version: z.literal(RECORDED_ROLLOUTS_VERSION),
    /** File name of the replay the rollouts ran beside (same recording run, same clock). */
    recording: z.string().min(1),
    recordedAt: isoTime,
    note: z.string().max(2000),
    rollouts: z.array(recordedRolloutSchema).max(100),
  })
  .meta({
    id: "RecordedRollouts",
    description: "Rollouts the lab ran during a recording, exported beside the replay file.",
  });
export type RecordedRolloutsFile = z.infer<typeof recordedRolloutsFileSchema>;

/** `fleet.json.gz` -> `fleet.rollouts.json`, like the metadata sidecar. */
export function sidecarRolloutsPath(replayFile: string): string {
  return replayFile.replace(/(\.json)?(\.gz)?$/, ".rollouts.json");
}

/** Everything the store holds about these rollouts, as a recorded-rollouts file. */
export async function exportRollouts(
  store: Store,
  ids: readonly string[],
  meta: { recording: string; note: string; recordedAt?: Date },
): Promise<RecordedRolloutsFile> {
  const rollouts: RecordedRollout[] = [];
  for (const id of ids) {
    const r = await store.getRollout(id);
    if (!r) throw new Error(`rollout ${id} is not in the store`);
    const events = await store.listRolloutEvents(id);
    const comparisons = await store.listComparisons({ rolloutId: id, limit: 1000 });
    rollouts.push({
      id: r.id,
      name: r.name,
      state: r.state,
      version: r.version,
      createdAt: r.createdAt.toISOString(),
      createdBy: r.createdBy,
      updatedAt: r.updatedAt.toISOString(),
      updatedBy: r.updatedBy,
      change: r.change as Record<string, unknown>,
      targets: [...(r.targets as string[])],
      waves: r.waves as Record<string, unknown>[],
      document: r.document as Record<string, unknown>,
      events: events.map((e) => ({
        sequence: e.sequence,
        at: e.at.toISOString(),
        actor: e.actor,
        action: e.action,
        details: e.details as Record<string, unknown>,
      })),
      comparisons: comparisons.reverse().map((c) => ({
        createdAt: c.createdAt.toISOString(),
        createdBy: c.createdBy,
        input: c.input as Record<string, unknown>,
        result: c.result as Record<string, unknown>,
      })),
    });
  }
  return recordedRolloutsFileSchema.parse({
    format: RECORDED_ROLLOUTS_FORMAT,
    version: RECORDED_ROLLOUTS_VERSION,
    recording: meta.recording,
    recordedAt: (meta.recordedAt ?? new Date()).toISOString(),
    note: meta.note,
    rollouts,
  });
}

/** The file is not a recorded-rollouts file this Untorn reads: nothing was loaded, nothing was removed. */
export class RecordedRolloutsError extends Error {
  override name = "RecordedRolloutsError";
  constructor(
    readonly file: string,
    readonly issues: string,
  ) {
    super(
      `${file}: not a recorded-rollouts file this Untorn can load (nothing loaded or removed): ${issues}`,
    );
  }
}

const issuesOf = (e: z.ZodError) =>
  e.issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
    .join("; ");

/** Parses a recorded-rollouts file (bytes or text) and every rollout document in it; throws RecordedRolloutsError. */
export function parseRecordedRollouts(file: string, text: string): RecordedRolloutsFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new RecordedRolloutsError(file, `invalid JSON: ${(e as Error).message}`);
  }
  const r = recordedRolloutsFileSchema.safeParse(json);
  if (!r.success) throw new RecordedRolloutsError(file, issuesOf(r.error));
  for (const [i, ro] of r.data.rollouts.entries()) {
    try {
      const state = parseRolloutState(ro.document);
      if (state.id !== ro.id) throw new Error(`the document's id ${state.id} is not the rollout's ${ro.id}`);
    } catch (e) {
      const why = e instanceof z.ZodError ? issuesOf(e) : (e as Error).message;
      throw new RecordedRolloutsError(file, `rollouts.${i}.document: ${why}`);
    }
  }
  return r.data;
}

export interface LoadResult {
  /** Rollouts created from this file. */
  loaded: string[];
  /** Rollouts of an older recording removed first. */
  replaced: string[];
  /** Already loaded from this very file: nothing written. */
  unchanged: boolean;
}

const digest = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

/**
 * Loads a recorded-rollouts file into the store (see the module comment). `text` is the file's content,
 * `file` its name for messages. A malformed file throws RecordedRolloutsError before anything is written.
 */
export async function loadRecordedRollouts(store: Store, file: string, text: string): Promise<LoadResult> {
  const parsed = parseRecordedRollouts(file, text);
  const hash = digest(text);
  const keyOf = (id: string) => `${KEY_PREFIX}${hash}:${id}`;

  return store.transaction(async (tx) => {
    // Loaded from a recording: created by RECORDED_ACTOR, which no account can be (it has a space).
    const previous = (await tx.listRollouts({ limit: 1000 }))
      .filter((r) => r.createdBy === RECORDED_ACTOR)
      .map((r) => r.id);
    const same =
      previous.length === parsed.rollouts.length &&
      (
        await Promise.all(
          parsed.rollouts.map(async (r) => (await tx.getRolloutCommand(keyOf(r.id)))?.rolloutId === r.id),
        )
      ).every(Boolean);
    if (same) return { loaded: [], replaced: [], unchanged: true };

    for (const id of previous) await tx.deleteRollout({ id, actor: RECORDED_ACTOR });
    for (const r of parsed.rollouts) {
      if (await tx.getRollout(r.id))
        throw new RecordedRolloutsError(
          file,
          `rollout ${r.id} is already in the store and was not loaded from a recording: nothing loaded`,
        );
      const events = [...r.events].sort((a, b) => a.sequence - b.sequence);
      await tx.createRollout({
        id: r.id,
        name: r.name,
        change: r.change as JsonObject,
        targets: r.targets,
        waves: r.waves as JsonObject[],
        state: r.state,
        document: r.document as JsonObject,
        idempotencyKey: keyOf(r.id),
        actor: RECORDED_ACTOR,
        events: events.map((e) => ({
          type: e.action,
          at: new Date(e.at),
          evidence: e.details as JsonObject,
        })),
      });
      for (const c of r.comparisons)
        await tx.saveComparison({
          rolloutId: r.id,
          input: c.input as JsonObject,
          result: c.result as JsonObject,
          actor: RECORDED_ACTOR,
        });
    }
    return { loaded: parsed.rollouts.map((r) => r.id), replaced: previous, unchanged: false };
  });
}
