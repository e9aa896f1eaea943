/**
 * Step hooks: how a rollout step can be carried out without Untorn holding database credentials.
 * A webhook (POST of the step as JSON) or a command (argv, no shell: an Ansible playbook, a
 * script) with a timeout. The output is kept for the audit; success only means "the hook says it
 * applied the change": the change is still verified from metrics afterwards.
 */
import { spawn } from "node:child_process";
import { z } from "zod";
import { inheritedEnv } from "./env.js";

/** Kept of a hook's output (stdout and stderr, or the HTTP body): the tail, where errors are. */
export const MAX_OUTPUT_BYTES = 64 * 1024;

const timeoutSeconds = z
  .number()
  .positive()
  .max(24 * 3600, "at most 86400 s (a day)")
  .default(600)
  .describe("Seconds before the hook is stopped and counted as failed; default 600.");

export const webhookHookSchema = z
  .object({
    kind: z.literal("webhook"),
    url: z.url({ protocol: /^https?$/, error: "expected an http(s) URL" }),
    /** Extra request headers, e.g. an Authorization for the receiving system. */
    headers: z.record(z.string().regex(/^[A-Za-z0-9-]+$/, "a header name"), z.string()).optional(),
    timeoutSeconds,
  })
  .strict();

export const commandHookSchema = z
  .object({
    kind: z.literal("command"),
    /** argv, run without a shell, e.g. ["ansible-playbook", "doublewrite-off.yml"]. */
    command: z.array(z.string().min(1, "must not be empty")).min(1, "needs the program to run"),
    cwd: z.string().min(1).optional(),
    timeoutSeconds,
  })
  .strict();

export const hookSchema = z.discriminatedUnion("kind", [webhookHookSchema, commandHookSchema]);
export type Hook = z.input<typeof hookSchema>;
export type ParsedHook = z.output<typeof hookSchema>;

/** What the hook is asked to do: sent as the webhook's JSON body, or the command's stdin and env. */
export interface StepRequest {
  rolloutId: string;
  /** Prometheus `instance` label. */
  instance: string;
  /** The step's id in the plan, e.g. `wave-1/db-2:3306/apply`. */
  step: string;
  /** The change in the core's JSON form. */
  change: unknown;
  /** Free details from the plan: the exact statements or option-file line to apply. */
  details?: unknown;
}

export interface HookResult {
  kind: "webhook" | "command";
  ok: boolean;
  startedAt: string;
  durationMs: number;
  /** Exit code (command) or HTTP status (webhook); null when it never finished. */
  code: number | null;
  timedOut: boolean;
  /** The tail of stdout + stderr, or the response body. */
  output: string;
  truncated: boolean;
  /** Why ok is false, in a sentence. */
  error?: string;
}

function tail(s: string): { output: string; truncated: boolean } {
  const b = Buffer.from(s);
  if (b.length <= MAX_OUTPUT_BYTES) return { output: s, truncated: false };
  return { output: b.subarray(b.length - MAX_OUTPUT_BYTES).toString(), truncated: true };
}

export async function runHook(hook: Hook, request: StepRequest): Promise<HookResult> {
  const h = hookSchema.parse(hook);
  return h.kind === "webhook" ? runWebhook(h, request) : runCommand(h, request);
}

async function runWebhook(h: z.output<typeof webhookHookSchema>, request: StepRequest): Promise<HookResult> {
  const started = Date.now();
  const base = { kind: "webhook" as const, startedAt: new Date(started).toISOString() };
  const ms = h.timeoutSeconds * 1000;
  try {
    const res = await fetch(h.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...h.headers },
      body: JSON.stringify(request),
      signal: AbortSignal.timeout(ms),
    });
    const { output, truncated } = tail(await res.text());
    return {
      ...base,
      ok: res.ok,
      durationMs: Date.now() - started,
      code: res.status,
      timedOut: false,
      output,
      truncated,
      ...(res.ok ? {} : { error: `webhook answered HTTP ${res.status}` }),
    };
  } catch (e) {
    const err = e as Error;
    const timedOut = err.name === "TimeoutError";
    return {
      ...base,
      ok: false,
      durationMs: Date.now() - started,
      code: null,
      timedOut,
      output: "",
      truncated: false,
      error: timedOut
        ? `webhook gave no answer within ${h.timeoutSeconds} s`
        : `webhook failed: ${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ""}`,
    };
  }
}

function runCommand(h: z.output<typeof commandHookSchema>, request: StepRequest): Promise<HookResult> {
  const started = Date.now();
  const base = { kind: "command" as const, startedAt: new Date(started).toISOString() };
  const [program, ...args] = h.command as [string, ...string[]];
  return new Promise((resolve) => {
    let out = "";
    let timedOut = false;
    const append = (d: Buffer) => {
      out += d.toString();
      // Keep memory bounded on a chatty playbook: drop all but the tail as we go.
      if (out.length > 4 * MAX_OUTPUT_BYTES) out = out.slice(-2 * MAX_OUTPUT_BYTES);
    };
    const proc = spawn(program, args, {
      ...(h.cwd ? { cwd: h.cwd } : {}),
      stdio: ["pipe", "pipe", "pipe"],
      // Own process group, so a timeout stops the whole tree (ansible forks workers).
      detached: true,
      env: {
        ...inheritedEnv(),
        UNTORN_ROLLOUT_ID: request.rolloutId,
        UNTORN_INSTANCE: request.instance,
        UNTORN_STEP: request.step,
      },
    });
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        process.kill(-proc.pid!, "SIGKILL");
      } catch {
        proc.kill("SIGKILL");
      }
    }, h.timeoutSeconds * 1000);
    proc.stdout.on("data", append);
    proc.stderr.on("data", append);
    proc.stdin.on("error", () => {});
    proc.stdin.end(JSON.stringify(request));
    let settled = false;
    const finish = (code: number | null, error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      const t = tail(out);
      resolve({
        ...base,
        ok: error === undefined && code === 0,
        durationMs: Date.now() - started,
        code,
        timedOut,
        ...t,
        ...(error !== undefined
          ? { error }
          : timedOut
            ? { error: `command ran longer than ${h.timeoutSeconds} s and was killed` }
            : code !== 0
              ? { error: `command exited with ${code}` }
              : {}),
      });
    };
    proc.on("error", (e) => finish(null, `cannot run ${program}: ${e.message}`));
    proc.on("close", (code, signal) => {
      if (timedOut) return finish(null);
      finish(code ?? null, code === null ? `command was killed by ${signal}` : undefined);
    });
  });
}
