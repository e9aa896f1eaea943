"use server";
/**
 * Server Actions: each starts with requireRole (lib/permissions.ts says which role), then parses its
 * input with zod, then writes through the store, which records the audit entry. Adding an action means
 * adding its line to ACTIONS; auth/permissions.test.ts fails for an action that is not listed.
 */
import { mergeMetadata } from "@untorn/fleet/metadata";
import { revalidatePath } from "next/cache";
import { z } from "zod";
import { IDLE, type MetadataFormState, metadataFormSchema } from "../lib/metadata-form.js";
import { instanceHref } from "../lib/paths.js";
import type { ActionName } from "../lib/permissions.js";
import { ROLES } from "../lib/permissions.js";
import { AccessError, actorOf, type Principal, requireRole, sha256 } from "./auth/access.js";
import { hashPassword, randomToken } from "./auth/password.js";
import { metadataChanged, metadataStore } from "./fleet/data.js";
import { getInstance } from "./fleet/instance.js";
import { contradictedFields, formFieldOf, toUpsertInput } from "./fleet/metadata-input.js";

/**
 * requireRole for a form: a refusal comes back as the form's error (with `denied` = 401 or 403) instead
 * of the page's error boundary, so a user whose role changed sees why.
 */
async function authorize(action: ActionName): Promise<Principal | { denied: 401 | 403; message: string }> {
  try {
    return await requireRole(action);
  } catch (err) {
    if (err instanceof AccessError)
      return { denied: err.status === 403 ? 403 : 401, message: `Not allowed: ${err.message}.` };
    throw err;
  }
}

function fail(message: string, fieldErrors: Record<string, string> = {}): MetadataFormState {
  return { status: "error", message, fieldErrors };
}

const strings = (data: FormData) => {
  const raw: Record<string, string> = {};
  for (const [k, v] of data.entries()) if (typeof v === "string" && !k.startsWith("$")) raw[k] = v;
  return raw;
};

const fieldErrorsOf = (issues: readonly { path: readonly PropertyKey[]; message: string }[]) => {
  const out: Record<string, string> = {};
  for (const i of issues) out[String(i.path[0] ?? "form")] ??= i.message;
  return out;
};

/** Saves one instance's metadata from the instance page's form (useActionState). */
export async function saveInstanceMetadata(
  _prev: MetadataFormState,
  data: FormData,
): Promise<MetadataFormState> {
  const who = await authorize("saveInstanceMetadata");
  if ("denied" in who) return { ...fail(who.message), denied: who.denied };
  const { version, ...raw } = strings(data);
  const parsed = metadataFormSchema.safeParse(raw);
  if (!parsed.success) return fail("Some fields need fixing.", fieldErrorsOf(parsed.error.issues));
  // The version the page was loaded at is required: without it a stale save would overwrite silently.
  if (version === undefined || !/^\d{1,9}$/.test(version))
    return fail("The form has no version of the metadata it edits: reload the page.");
  const expected = Number(version);
  const form = parsed.data;
  // Metadata only for an instance the fleet has (never a made-up or path-like id).
  const lookup = await getInstance(form.instance);
  if (lookup.kind === "not-found" || lookup.kind === "unavailable")
    return fail(
      lookup.kind === "not-found"
        ? `No instance ${JSON.stringify(form.instance.slice(0, 100))} in the fleet: metadata is kept for the fleet's instances only.`
        : "The fleet cannot be read right now, so the instance cannot be checked: try again.",
    );

  let saved: Awaited<ReturnType<Awaited<ReturnType<typeof metadataStore>>["upsertInstanceMetadata"]>>;
  try {
    const store = await metadataStore();
    const existing = await store.getInstanceMetadata(form.instance);
    const input = toUpsertInput(form, existing, actorOf(who));
    // A declaration fills what no probe sees; one that contradicts a reading is refused, never stored.
    if (lookup.kind === "found") {
      const m = mergeMetadata(lookup.view.measured, input);
      const contradicted = contradictedFields(m.conflicts, m.conflictPaths);
      if (Object.keys(contradicted).length > 0)
        return fail("Not saved: a declared value contradicts what the exporter measured.", contradicted);
    }
    saved = await store.upsertInstanceMetadata(input, { expectedVersion: expected });
  } catch (err) {
    const e = err as Error & { issues?: { path: string; message: string }[] };
    if (e.name === "StoreValidationError" && Array.isArray(e.issues)) {
      const fieldErrors: Record<string, string> = {};
      for (const i of e.issues) fieldErrors[formFieldOf(i.path)] ??= i.message;
      return fail("The store refused some values.", fieldErrors);
    }
    if (e.name === "MetadataConflictError") return fail(`Not saved: ${e.message}.`);
    return fail(`Could not save: ${e.message}`);
  }
  metadataChanged(form.instance, saved);
  revalidatePath(instanceHref(form.instance));
  revalidatePath("/");
  revalidatePath("/recommendations");
  return {
    ...IDLE,
    status: "saved",
    message: `Saved at ${new Date().toISOString().slice(11, 19)} UTC (version ${saved.version}).`,
  };
}

export interface FormState {
  readonly status: "idle" | "saved" | "error";
  /** Set when access control refused the action: 401 not signed in, 403 role too weak. */
  readonly denied?: 401 | 403;
  readonly message: string;
  readonly fieldErrors: Readonly<Record<string, string>>;
  /** A secret shown once (a new API token). */
  readonly secret?: string;
}

const failed = (message: string, fieldErrors: Record<string, string> = {}): FormState => ({
  status: "error",
  message,
  fieldErrors,
});

const tokenForm = z.object({
  name: z.string().trim().min(1, "give the token a name").max(100, "at most 100 characters"),
});

/** Creates an API token for the signed-in user; the token is shown once and stored as its sha256. */
export async function createApiToken(_prev: FormState, data: FormData): Promise<FormState> {
  const who = await authorize("createApiToken");
  if ("denied" in who) return { ...failed(who.message), denied: who.denied };
  const parsed = tokenForm.safeParse(strings(data));
  if (!parsed.success) return failed("Some fields need fixing.", fieldErrorsOf(parsed.error.issues));
  if (!who.userId) return failed("Only a signed-in account can own API tokens.");
  const token = randomToken("untorn_");
  await (await metadataStore()).createApiToken({
    userId: who.userId,
    name: parsed.data.name,
    tokenHash: sha256(token),
    actor: actorOf(who),
  });
  revalidatePath("/account");
  return {
    status: "saved",
    message: "Token created: copy it now, it is not shown again.",
    fieldErrors: {},
    secret: token,
  };
}

const idForm = z.object({ id: z.uuid("not a token id") });

/** Revokes one of the user's own API tokens (an admin may revoke anyone's). */
export async function revokeApiToken(_prev: FormState, data: FormData): Promise<FormState> {
  const who = await authorize("revokeApiToken");
  if ("denied" in who) return { ...failed(who.message), denied: who.denied };
  const parsed = idForm.safeParse(strings(data));
  if (!parsed.success) return failed("Some fields need fixing.", fieldErrorsOf(parsed.error.issues));
  const store = await metadataStore();
  const mine = await store.listApiTokens(
    who.role === "admin" ? undefined : (who.userId ?? "00000000-0000-0000-0000-000000000000"),
  );
  if (!mine.some((t) => t.id === parsed.data.id)) return failed("No such token of yours.");
  const revoked = await store.revokeApiToken(parsed.data.id, actorOf(who));
  revalidatePath("/account");
  return {
    status: "saved",
    message: revoked ? "Token revoked." : "That token was already revoked.",
    fieldErrors: {},
  };
}

const username = z
  .string()
  .trim()
  .min(1, "required")
  .max(100, "at most 100 characters")
  .regex(/^[A-Za-z0-9._@-]+$/, "letters, digits and . _ @ - only");
const password = z.string().min(12, "at least 12 characters").max(1000, "at most 1000 characters");

const userForm = z.object({ username, password, role: z.enum(ROLES, "viewer, operator or admin") });

/** Admin: creates a local account. */
export async function createUser(_prev: FormState, data: FormData): Promise<FormState> {
  const who = await authorize("createUser");
  if ("denied" in who) return { ...failed(who.message), denied: who.denied };
  const parsed = userForm.safeParse(strings(data));
  if (!parsed.success) return failed("Some fields need fixing.", fieldErrorsOf(parsed.error.issues));
  try {
    await (await metadataStore()).createUser({
      username: parsed.data.username,
      passwordHash: await hashPassword(parsed.data.password),
      role: parsed.data.role,
      actor: actorOf(who),
    });
  } catch (err) {
    if ((err as { constraint?: string }).constraint?.startsWith("users_username_") === true)
      return failed("That username is taken.", { username: "taken" });
    throw err;
  }
  revalidatePath("/admin/users");
  return {
    status: "saved",
    message: `Created ${parsed.data.username} (${parsed.data.role}).`,
    fieldErrors: {},
  };
}

const updateForm = z.object({
  id: z.uuid("not a user id"),
  role: z.enum(ROLES, "viewer, operator or admin").optional(),
  password: z.union([z.literal(""), password]).optional(),
  disabled: z.enum(["true", "false"]).optional(),
});

/** Admin: changes a user's role, password or disabled state (a new password or disabling ends their sessions). */
export async function updateUser(_prev: FormState, data: FormData): Promise<FormState> {
  const who = await authorize("updateUser");
  if ("denied" in who) return { ...failed(who.message), denied: who.denied };
  const parsed = updateForm.safeParse(strings(data));
  if (!parsed.success) return failed("Some fields need fixing.", fieldErrorsOf(parsed.error.issues));
  const v = parsed.data;
  if (v.id === who.userId && (v.disabled === "true" || (v.role && v.role !== "admin")))
    return failed("You cannot disable or demote yourself: ask another admin.");
  const store = await metadataStore();
  let user: Awaited<ReturnType<typeof store.updateUser>>;
  try {
    user = await store.updateUser({
      id: v.id,
      actor: actorOf(who),
      ...(v.role ? { role: v.role } : {}),
      ...(v.password ? { passwordHash: await hashPassword(v.password) } : {}),
      ...(v.disabled ? { disabled: v.disabled === "true" } : {}),
    });
  } catch (err) {
    if ((err as Error).name === "NotFoundError")
      return failed("No such user: reload the page.", { id: "unknown" });
    throw err;
  }
  revalidatePath("/admin/users");
  return { status: "saved", message: `Updated ${user.username}.`, fieldErrors: {} };
}
