// /probe's configuration: auth modules, each with its credentials and the only targets it may be used for
// (the way blackbox_exporter names its modules). Without this file /probe is off.
import { readFileSync } from "node:fs";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import type { ConnectionTarget } from "./db.js";
import { ConfigError } from "./errors.js";

const HOST_PORT = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:\d{1,5})?$/;
const V6_PORT = /^\[[0-9a-fA-F:.]+\](:\d{1,5})?$/;

/** A /probe target or an allow-list entry: host, host:port, [v6]:port or an absolute socket path. */
export const targetSchema = z
  .string()
  .min(1, "target is empty")
  .max(255, "target is longer than 255 characters")
  .refine(
    (t) => (t.startsWith("/") && !t.includes("\0")) || V6_PORT.test(t) || HOST_PORT.test(t),
    "target must be host, host:port, [ipv6]:port or an absolute unix socket path",
  )
  .refine((t) => {
    const port = /:(\d{1,5})$/.exec(t)?.[1];
    return t.startsWith("/") || port === undefined || (Number(port) >= 1 && Number(port) <= 65535);
  }, "target port must be 1-65535");

/** The form targets are compared in: host names lower-cased, the default port spelt out, socket paths as is. */
export function normalizeTarget(t: string): string {
  if (t.startsWith("/")) return t.replace(/\/{2,}/g, "/");
  const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(t);
  if (v6) return `[${v6[1]!.toLowerCase()}]:${Number(v6[2] ?? 3306)}`;
  const m = /^([^:]+)(?::(\d+))?$/.exec(t)!;
  return `${m[1]!.toLowerCase()}:${Number(m[2] ?? 3306)}`;
}

export const moduleNameSchema = z
  .string()
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
    "auth_module must be a module name of letters, digits, '.', '_' or '-'",
  );

const moduleSchema = z
  .object({
    user: z.string().min(1),
    password: z.string().optional(),
    password_file: z.string().min(1).optional(),
    targets: z.array(targetSchema).min(1, "an auth module needs at least one target"),
    tls: z
      .object({
        ca_file: z.string().min(1).optional(),
        cert_file: z.string().min(1).optional(),
        key_file: z.string().min(1).optional(),
        insecure_skip_verify: z.boolean().default(false),
      })
      .strict()
      .optional(),
    server_public_key_file: z.string().min(1).optional(),
    allow_cleartext_password: z.boolean().default(false),
  })
  .strict()
  .refine((m) => (m.password === undefined) !== (m.password_file === undefined), {
    message: "give exactly one of password and password_file",
  });

const fileSchema = z
  .object({
    auth_modules: z.record(moduleNameSchema, moduleSchema).refine((m) => Object.keys(m).length > 0, {
      message: "at least one auth module",
    }),
  })
  .strict();

export interface ProbeModule {
  name: string;
  /** Normalised allow-list. */
  targets: ReadonlySet<string>;
  credentials: Omit<ConnectionTarget, "address">;
}

export type ProbeConfig = ReadonlyMap<string, ProbeModule>;

function read(path: string, what: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (err) {
    throw new ConfigError(`${what}: ${(err as Error).message}`);
  }
}

export function loadProbeConfig(path: string): ProbeConfig {
  let doc: unknown;
  try {
    doc = parseYaml(read(path, `--probe.config.file ${path}`));
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw new ConfigError(`--probe.config.file ${path}: ${(err as Error).message}`);
  }
  const parsed = fileSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(
      `--probe.config.file ${path}: ${issue.path.join(".") || "(root)"}: ${issue.message}`,
    );
  }
  const out = new Map<string, ProbeModule>();
  for (const [name, m] of Object.entries(parsed.data.auth_modules)) {
    const where = `--probe.config.file ${path}: auth_modules.${name}`;
    const password =
      m.password_file !== undefined
        ? read(m.password_file, `${where}.password_file`).replace(/\r?\n$/, "")
        : (m.password ?? "");
    const tls = m.tls
      ? {
          ...(m.tls.ca_file ? { ca: read(m.tls.ca_file, `${where}.tls.ca_file`) } : {}),
          ...(m.tls.cert_file ? { cert: read(m.tls.cert_file, `${where}.tls.cert_file`) } : {}),
          ...(m.tls.key_file ? { key: read(m.tls.key_file, `${where}.tls.key_file`) } : {}),
          rejectUnauthorized: !m.tls.insecure_skip_verify,
        }
      : undefined;
    const key = m.server_public_key_file
      ? read(m.server_public_key_file, `${where}.server_public_key_file`)
      : undefined;
    out.set(name, {
      name,
      targets: new Set(m.targets.map(normalizeTarget)),
      credentials: {
        user: m.user,
        password,
        ...(tls ? { tls } : {}),
        ...(key ? { serverPublicKey: key } : {}),
        ...(m.allow_cleartext_password ? { allowCleartext: true } : {}),
      },
    });
  }
  return out;
}
