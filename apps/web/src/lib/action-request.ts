/**
 * The shape of a Server Action request, checked before Next decodes it (src/proxy.ts): Next answers a
 * body its decoder cannot read (not JSON, nested thousands deep, references to parts that were never
 * sent, a broken multipart) with HTTP 500, and calls the action with whatever arguments the body
 * made. Every action of this console is a form's `useActionState` action, `(state, FormData)`, so a
 * request that is anything else is the client's mistake: 400, naming what is wrong.
 *
 * React's client encodes those two arguments (react-server-dom-webpack's encodeReply) as a multipart
 * form whose field `0` is the JSON array `[state, "$K<n>"]` (n in hex), the form's own fields following
 * as `_<n>_<name>` (React 19.3; `<n>_<name>` before). Without JavaScript the form posts `$ACTION_REF_<n>` with `$ACTION_<n>:<k>` JSON fields
 * (decodeFormState). A `$` string inside the state is one of React's references; only those that need
 * no other part of the body are accepted.
 */

/** Deepest JSON nesting taken: a form state is an object of strings and flat objects. */
export const MAX_DEPTH = 32;

/** React references that stand for a value on their own (`$$…` escapes a string that begins with `$`). */
const STANDALONE = /^\$(\$|undefined$|NaN$|Infinity$|-Infinity$|-0$|D\d{4}-\d{2}-\d{2}T[\d:.]+Z$)/;

/** Why `text` is no JSON value nested at most MAX_DEPTH deep with no reference to another part; or null. */
export function jsonProblem(text: string, what: string): string | null {
  // Before parsing: a deep nesting is refused without building it.
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "[" || c === "{") {
      if (++depth > MAX_DEPTH) return `${what} is nested more than ${MAX_DEPTH} levels deep`;
    } else if (c === "]" || c === "}") depth--;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return `${what} is not JSON`;
  }
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v === "string" && v.startsWith("$") && !STANDALONE.test(v))
      return `${what} holds the reference ${JSON.stringify(v.slice(0, 40))} to a part the request does not have`;
    if (v && typeof v === "object") stack.push(...(Array.isArray(v) ? v : Object.values(v)));
  }
  return null;
}

/** The form argument's reference closing the arguments' array. */
const FORM_REFERENCE = /,\s*"\$K([0-9a-f]{1,9})"\s*\]\s*$/;

/** Why field `0` of a Server Action's multipart body is not `[state, "$K<n>"]`; or null. */
export function actionRootProblem(root: FormDataEntryValue | null, form: FormData): string | null {
  if (typeof root !== "string") return "a Server Action's form needs its arguments in field 0";
  const problem = jsonProblem(
    // The form-data reference is the one part-reference accepted, and only as the second argument.
    root.replace(FORM_REFERENCE, "]"),
    "the Server Action's arguments",
  );
  if (problem) return problem;
  const m = FORM_REFERENCE.exec(root);
  const args = JSON.parse(root) as unknown;
  if (!m || !Array.isArray(args) || args.length !== 2)
    return "this console's Server Actions take two arguments, the form's state and the form";
  for (const key of form.keys())
    if (key !== "0" && !key.startsWith(`_${m[1]}_`) && !key.startsWith(`${m[1]}_`))
      return `the field ${JSON.stringify(key.slice(0, 40))} belongs to no argument`;
  return null;
}

/** Why the fields of a form posted without JavaScript cannot be a Server Action's; or null. */
export function formPostProblem(form: FormData): string | null {
  for (const [key, value] of form.entries()) {
    if (key.startsWith("$ACTION_ID_"))
      return "this console's Server Actions take the form's state: post the form from its page";
    if (/^\$ACTION_\d+:\d+$/.test(key)) {
      if (typeof value !== "string") return `the field ${key} must be JSON`;
      const problem = jsonProblem(value.replace(/"\$@\d{1,9}"/g, "null"), `the field ${key}`);
      if (problem) return problem;
    }
  }
  return null;
}

const FORM_TYPES = /^(multipart\/form-data|application\/x-www-form-urlencoded)\s*(;|$)/i;

/**
 * Why a POST to a page (not /api/…) cannot be a Server Action of this console, or null when it may
 * be. `form` reads the body as a form (it throws on a malformed one); it is called only for a form body.
 */
export async function actionRequestProblem(
  headers: Headers,
  form: () => Promise<FormData>,
): Promise<string | null> {
  const type = headers.get("content-type") ?? "";
  const action = headers.get("next-action");
  if (action !== null && !/^multipart\/form-data\s*;/i.test(type))
    return "a Server Action request must be multipart/form-data (the arguments are a form's state and the form)";
  if (!FORM_TYPES.test(type)) return null;
  let data: FormData;
  try {
    data = await form();
  } catch {
    return "the request body is not a well-formed form";
  }
  return action === null ? formPostProblem(data) : actionRootProblem(data.get("0"), data);
}
