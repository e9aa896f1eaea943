"use server";
/**
 * Rollout Server Actions: create, step done, approve, pause, resume, abort, revert, revert done. Each starts with
 * requireRole (lib/permissions.ts: operator), parses its form with zod (lib/rollout-form.ts, the
 * engine's schemas underneath), and calls the runner with the version the form was rendered from and
 * the form's idempotency key: a second submit of the same form is the same command, once; a change
 * by someone else since is a conflict that names them, never a lost update.
 */
import type { CommandInput } from "@untorn/rollout/commands";
import { createStoredRollout, runCommand } from "@untorn/rollout-runner/runner";
import { revalidatePath } from "next/cache";
import { redirect } from "next/navigation";
import type { ActionName } from "../../lib/permissions.js";
import type { RolloutFormState } from "../../lib/rollout-fields.js";
import {
  type CommandFormName,
  parseCommandForm,
  parsePlanForm,
  parseTargets,
} from "../../lib/rollout-form.js";
import { AccessError, actorOf, type Principal, requireRole } from "../auth/access.js";
import { getFleetView } from "../fleet/data.js";
import { kickReconciler } from "./reconciler.js";
import { runnerDeps } from "./rollout-deps.js";

async function authorize(action: ActionName): Promise<Principal | { denied: 401 | 403; message: string }> {
  try {
    return await requireRole(action);
  } catch (err) {
    if (err instanceof AccessError)
      return { denied: err.status === 403 ? 403 : 401, message: `Not allowed: ${err.message}.` };
    throw err;
  }
}

const failed = (message: string, fieldErrors: Record<string, string> = {}): RolloutFormState => ({
  status: "error",
  message,
  fieldErrors,
});

const iso = (d: Date) => `${d.toISOString().slice(0, 19).replace("T", " ")} UTC`;

/** The store's and the runner's refusals in words, or null for an error that is a bug. */
function explain(err: unknown): RolloutFormState | null {
  const e = err as Error & {
    changedBy?: { actor: string; at: Date; action: string | null };
    lastPerson?: { actor: string; at: Date; action: string; message: string | null } | null;
    actualState?: string;
    actualVersion?: number;
    refusal?: { code: string; message: string };
    exclusions?: { instance: string; reason: string; detail: string }[];
  };
  switch (e.name) {
    case "VersionConflictError": {
      // The last person who changed it and what they did; the reconciler's bookkeeping after them is
      // no one's decision, so it is named only when no person ever changed the rollout.
      const p = e.lastPerson;
      const by = p
        ? `changed by ${p.actor} at ${iso(p.at)} (${p.message ? `${p.action}: ${p.message}` : p.action})`
        : e.changedBy
          ? `changed by ${e.changedBy.actor} at ${iso(e.changedBy.at)}${e.changedBy.action ? ` (${e.changedBy.action})` : ""}`
          : "changed by someone else";
      return {
        ...failed(
          `Not applied: this rollout was ${by}: it is now ${e.actualState ?? "in another state"} (version ${e.actualVersion ?? "?"}). Reload to see it, then decide again.`,
        ),
        conflict: true,
      };
    }
    case "IdempotencyKeyReuseError":
      return failed(`Not applied: ${e.message}. Reload the page for a fresh form.`);
    case "NotFoundError":
    case "StoreValidationError":
      return failed("Not applied: there is no such rollout (deleted, or a wrong link).");
    case "RolloutRefusedError":
      return failed(`Refused by the engine (${e.refusal?.code}): ${e.refusal?.message}`);
    case "RolloutTargetsRefusedError":
      return failed(
        `Refused: ${(e.exclusions ?? []).map((x) => `${x.instance}: ${x.reason} (${x.detail})`).join("; ")}. Update the dry run and plan again.`,
        { target: "some chosen instances cannot take this change now" },
      );
    case "RolloutDocumentError":
      return failed(`The stored rollout cannot be read by this version of Untorn: ${e.message}`);
    case "StoreOpenError":
    case "StoreLockedError":
    case "StoreConnectionError":
    case "StoreQueryError":
      return failed(`The store is unavailable, nothing was recorded: ${e.message}`);
    default:
      return null;
  }
}

/** Plans and stores a rollout from the plan editor, attests the backup given, and opens its page. */
export async function createRollout(_prev: RolloutFormState, data: FormData): Promise<RolloutFormState> {
  const who = await authorize("createRollout");
  if ("denied" in who) return { ...failed(who.message), denied: who.denied };
  const entries = [...data.entries()];
  const values: Record<string, string[]> = {};
  for (const [k, v] of entries)
    if (typeof v === "string" && !k.startsWith("$")) values[k] = [...(values[k] ?? []), v];
  const r = await create(who, data, entries);
  return r.status === "error" ? { ...r, values } : r;
}

async function create(
  who: Principal,
  data: FormData,
  entries: [string, FormDataEntryValue][],
): Promise<RolloutFormState> {
  const parsed = parsePlanForm(entries);
  if (!parsed.ok) return failed("Some fields need fixing.", parsed.fieldErrors);
  const targets = parseTargets(entries);
  if (!targets.ok) return failed("Some fields need fixing.", { target: targets.message });
  if (targets.targets.length === 0)
    return failed("Some fields need fixing.", { target: "choose at least one eligible instance" });
  const key = String(data.get("key") ?? "");
  if (!/^[\x21-\x7e]{8,200}$/.test(key))
    return failed("The form's idempotency key is missing or malformed: reload the page.");
  const v = parsed.value;
  const actor = { id: actorOf(who), kind: "operator" as const };

  const fleet = await getFleetView();
  const facts = fleet.snapshot ? [...fleet.snapshot.merged.values()].map((m) => m.facts) : [];
  if (facts.length === 0)
    return failed(`No fleet to plan on: ${fleet.status.error ?? "the data source has no instance"}.`);
  const known = new Set(facts.map((f) => f.identity.instance));
  const unknown = targets.targets.filter((t) => !known.has(t));
  if (unknown.length)
    return failed("Some fields need fixing.", { target: `not in the fleet: ${unknown.join(", ")}` });

  let id: string;
  try {
    const deps = await runnerDeps();
    const created = await createStoredRollout(deps, {
      type: "create",
      key,
      actor,
      title: v.title || `${v.change.kind} on ${targets.targets.length} instance(s)`,
      input: { change: v.change, instances: facts, targets: targets.targets, policy: v.policy },
    });
    id = created.stored.state.id;
    if (v.backupTakenAt !== null && !created.replayed) {
      const o = await runCommand(deps, id, {
        type: "attest-backup",
        key: `${key}:backup`,
        actor,
        takenAt: v.backupTakenAt,
        ...(v.backupNote ? { note: v.backupNote } : {}),
      });
      if (!o.ok && o.refusal)
        return failed(
          `Rollout ${id} was created, but the backup was not attested (${o.refusal.code}): ${o.refusal.message}`,
          { backupTakenAt: o.refusal.message },
        );
    }
  } catch (err) {
    const told = explain(err);
    if (told) return told;
    throw err;
  }
  kickReconciler();
  revalidatePath("/rollouts");
  redirect(`/rollouts/${encodeURIComponent(id)}`);
}

/** Runs one command on a rollout from a control's form. */
async function command(
  action: ActionName,
  form: CommandFormName,
  data: FormData,
  build: (v: Record<string, unknown>, base: Pick<CommandInput, "key" | "actor">) => CommandInput,
  done: (v: Record<string, unknown>) => string,
): Promise<RolloutFormState> {
  const who = await authorize(action);
  if ("denied" in who) return { ...failed(who.message), denied: who.denied };
  const parsed = parseCommandForm(form, [...data.entries()]);
  if (!parsed.ok) return failed(parsed.fieldErrors.form ?? "Some fields need fixing.", parsed.fieldErrors);
  const v = parsed.value as Record<string, unknown> & {
    id: string;
    version: number;
    key: string;
    status?: string;
  };
  const cmd = build(v, { key: v.key, actor: { id: actorOf(who), kind: "operator" } });
  let result: RolloutFormState;
  try {
    const deps = await runnerDeps();
    // The reconciler's own bookkeeping (a read-back counted, a gate re-checked) and commands the
    // engine refused are no person's decision. With the status the page showed, the runner lets the
    // command through such changes only (through refusals alone, always); any person's change since,
    // or a new status, stays a conflict.
    const o = await runCommand(deps, v.id, cmd, {
      expectedVersion: v.version,
      ...(v.status !== undefined ? { expectedStatus: v.status } : {}),
    });
    result = o.refusal
      ? failed(`Refused by the engine (${o.refusal.code}): ${o.refusal.message}`)
      : {
          status: "done",
          message: o.replayed
            ? "Already done: this form was submitted before, nothing was applied twice."
            : `${done(v)} (now ${o.state.status}, version ${o.version}).`,
          fieldErrors: {},
        };
  } catch (err) {
    const told = explain(err);
    if (told) return told;
    throw err;
  }
  if (result.status !== "error") kickReconciler();
  // A refusal is recorded too (its key and event: a new version): the page is rendered again either
  // way, so it shows the refusal on the timeline and its forms carry the version now (a command from
  // the version before a refusal is applied too: the runner tells a refusal from a change).
  revalidatePath(`/rollouts/${encodeURIComponent(v.id)}`);
  revalidatePath("/rollouts");
  return result;
}

const withNote = (v: Record<string, unknown>) => (v.note ? { note: String(v.note) } : {});

/** The operator carried out an instance's step; the server's time becomes the comparison's change point. */
export async function markStepDone(_prev: RolloutFormState, data: FormData): Promise<RolloutFormState> {
  return command(
    "markStepDone",
    "stepDone",
    data,
    (v, b) => ({ type: "step-done", ...b, instance: String(v.instance), ...withNote(v) }),
    (v) => `Step on ${String(v.instance)} marked done`,
  );
}

/** The operator carried out an instance's revert step; the read-back then checks the server is as before. */
export async function markRevertDone(_prev: RolloutFormState, data: FormData): Promise<RolloutFormState> {
  return command(
    "markRevertDone",
    "revertDone",
    data,
    (v, b) => ({ type: "revert-done", ...b, instance: String(v.instance), ...withNote(v) }),
    (v) => `Revert on ${String(v.instance)} marked done`,
  );
}

export async function approveWave(_prev: RolloutFormState, data: FormData): Promise<RolloutFormState> {
  return command(
    "approveWave",
    "approve",
    data,
    (v, b) => ({ type: "approve", ...b, wave: Number(v.wave), ...withNote(v) }),
    (v) => `Wave ${String(v.wave)} approved`,
  );
}

/** The operator attests a backup after the rollout was created (the pre-wave gate needs a recent one). */
export async function attestBackup(_prev: RolloutFormState, data: FormData): Promise<RolloutFormState> {
  return command(
    "attestBackup",
    "attestBackup",
    data,
    (v, b) => ({ type: "attest-backup", ...b, takenAt: Number(v.takenAt), ...withNote(v) }),
    (v) => `Backup taken at ${new Date(Number(v.takenAt) * 1000).toISOString().slice(0, 16)} UTC attested`,
  );
}

export async function pauseRollout(_prev: RolloutFormState, data: FormData): Promise<RolloutFormState> {
  return command(
    "pauseRollout",
    "pause",
    data,
    (v, b) => ({ type: "pause", ...b, reason: String(v.reason) }),
    () => "Paused",
  );
}

export async function resumeRollout(_prev: RolloutFormState, data: FormData): Promise<RolloutFormState> {
  return command(
    "resumeRollout",
    "resume",
    data,
    (v, b) => ({ type: "resume", ...b, ...withNote(v) }),
    () => "Resumed",
  );
}

export async function abortRollout(_prev: RolloutFormState, data: FormData): Promise<RolloutFormState> {
  return command(
    "abortRollout",
    "abort",
    data,
    (v, b) => ({ type: "abort", ...b, reason: String(v.reason) }),
    () => "Aborted",
  );
}

export async function revertRollout(_prev: RolloutFormState, data: FormData): Promise<RolloutFormState> {
  return command(
    "revertRollout",
    "revert",
    data,
    (v, b) => ({ type: "revert", ...b, reason: String(v.reason) }),
    () => "Revert started: carry out each instance's revert step",
  );
}
