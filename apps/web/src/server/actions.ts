"use server";
/**
 * Server Actions: thin, zod-validated, authorised writes. The data layer does the rest.
 */
import { revalidatePath } from "next/cache";
import { env } from "../env.js";
import { IDLE, type MetadataFormState, metadataFormSchema } from "../lib/metadata-form.js";
import { instanceHref } from "../lib/paths.js";
import { authorise } from "./auth.js";
import { metadataChanged, metadataStore } from "./data.js";
import { formFieldOf, toUpsertInput } from "./metadata-input.js";

function fail(message: string, fieldErrors: Record<string, string> = {}): MetadataFormState {
  return { status: "error", message, fieldErrors };
}

/** Saves one instance's metadata from the instance page's form (useActionState). */
export async function saveInstanceMetadata(
  _prev: MetadataFormState,
  data: FormData,
): Promise<MetadataFormState> {
  const raw: Record<string, string> = {};
  for (const [k, v] of data.entries()) if (typeof v === "string" && !k.startsWith("$")) raw[k] = v;
  const parsed = metadataFormSchema.safeParse(raw);
  if (!parsed.success) {
    const fieldErrors: Record<string, string> = {};
    for (const i of parsed.error.issues) fieldErrors[String(i.path[0] ?? "form")] ??= i.message;
    return fail("Some fields need fixing.", fieldErrors);
  }
  const form = parsed.data;
  const auth = authorise(env().UNTORN_ADMIN_TOKEN, form.token);
  if (!auth.ok) return fail(auth.reason, { token: auth.reason });

  let saved: Awaited<ReturnType<Awaited<ReturnType<typeof metadataStore>>["upsertInstanceMetadata"]>>;
  try {
    const store = await metadataStore();
    const existing = await store.getInstanceMetadata(form.instance);
    saved = await store.upsertInstanceMetadata(toUpsertInput(form, existing, auth.actor));
  } catch (err) {
    const e = err as Error & { issues?: { path: string; message: string }[] };
    if (e.name === "StoreValidationError" && Array.isArray(e.issues)) {
      const fieldErrors: Record<string, string> = {};
      for (const i of e.issues) fieldErrors[formFieldOf(i.path)] ??= i.message;
      return fail("The store refused some values.", fieldErrors);
    }
    return fail(`Could not save: ${e.message}`);
  }
  metadataChanged(form.instance, saved);
  revalidatePath(instanceHref(form.instance));
  revalidatePath("/");
  revalidatePath("/recommendations");
  return { ...IDLE, status: "saved", message: `Saved at ${new Date().toISOString().slice(11, 19)} UTC.` };
}
