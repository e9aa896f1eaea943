/**
 * The rollouts a recording ran (lab/recordings/<name>.rollouts.json, beside the replay), loaded into the
 * store when the console starts in replay mode (no PROMETHEUS_URL), so the embedded demo shows finished
 * and waiting rollouts from real recorded data. Loading is idempotent: a restart loads nothing again, a
 * changed file replaces the rollouts the older one loaded, and rollouts users created are never touched
 * (@untorn/rollout-runner/recorded). Loaded rollouts are created by `lab recording`, and the actors inside
 * them by `lab-recording/...`: the console shows them as recorded.
 */
import fs from "node:fs";
import path from "node:path";
import {
  type LoadResult,
  loadRecordedRollouts,
  RecordedRolloutsError,
  sidecarRolloutsPath,
} from "@untorn/rollout-runner/recorded";
import type { Store } from "@untorn/store/store";

export type RecordedRolloutsOutcome =
  | { readonly kind: "none"; readonly reason: string }
  | { readonly kind: "loaded"; readonly file: string; readonly result: LoadResult }
  | { readonly kind: "invalid"; readonly file: string; readonly error: string };

/**
 * Loads the recorded rollouts beside `replay` (null: live mode or no recording, nothing to do). A file
 * that does not parse is reported, never half-loaded: the store keeps what it had.
 */
export async function loadRecordedRolloutsFor(
  store: Store,
  replay: string | null,
): Promise<RecordedRolloutsOutcome> {
  if (!replay) return { kind: "none", reason: "not serving a recording" };
  const file = sidecarRolloutsPath(replay);
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT")
      return { kind: "none", reason: `no recorded rollouts beside ${path.basename(replay)}` };
    return { kind: "invalid", file, error: `cannot read ${file}: ${(err as Error).message}` };
  }
  try {
    return { kind: "loaded", file, result: await loadRecordedRollouts(store, path.basename(file), text) };
  } catch (err) {
    if (err instanceof RecordedRolloutsError) return { kind: "invalid", file, error: err.message };
    throw err;
  }
}

/** One log line for the server's start. */
export function describeOutcome(o: RecordedRolloutsOutcome): string {
  switch (o.kind) {
    case "none":
      return `untorn: no recorded rollouts to load (${o.reason})`;
    case "invalid":
      return `untorn: recorded rollouts not loaded: ${o.error}`;
    case "loaded": {
      const r = o.result;
      const name = path.basename(o.file);
      if (r.unchanged) return `untorn: recorded rollouts from ${name} already loaded`;
      return `untorn: loaded ${r.loaded.length} recorded rollouts from ${name}${r.replaced.length ? ` (replacing ${r.replaced.length} from an older recording)` : ""}`;
    }
  }
}
