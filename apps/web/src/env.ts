/**
 * The app's configuration: every environment variable it reads, validated once with zod. Nothing else
 * in the app reads process.env. An empty value counts as unset (docker-compose writes `VAR=` for
 * unset variables).
 */
import { DEFAULT_FLEET_WINDOW } from "@untorn/catalog/rules";
import { z } from "zod";
import { parseRoleMap } from "./lib/role-map.js";
import { serverInfo } from "./lib/server-info.js";
import { parseTrustedPeers } from "./lib/trusted-peers.js";

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), schema.optional());

const httpUrl = (what: string) =>
  z
    .url({ protocol: /^https?$/, error: `${what} must be an http:// or https:// URL` })
    .transform((u) => u.replace(/\/+$/, ""));

/** An HTTP header name, lower-cased; never one the console itself relies on. */
const headerName = (what: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .regex(/^[a-z0-9-]{1,100}$/, `${what} must be an HTTP header name (letters, digits, -)`)
    .refine(
      (h) =>
        !["host", "cookie", "authorization", "origin", "content-type", "content-length"].includes(h) &&
        !h.startsWith("x-untorn-"),
      `${what} must not be a header the console reads for something else (host, cookie, authorization, origin, x-untorn-*)`,
    );

/** Decimal digits only: `1e3`, `0x10` and ` 5` are refused, not read as numbers. */
const positiveInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^\d{1,9}$/, "must be a whole number in decimal digits")
    .transform(Number)
    .pipe(z.number().int().min(min).max(max));

export const envSchema = z.object({
  /** Live mode: the Prometheus (or Thanos, Mimir, VictoriaMetrics) the fleet is read from. */
  PROMETHEUS_URL: optional(httpUrl("PROMETHEUS_URL")),
  /** Recorded mode: a replay file made by `untorn record`; wins over UNTORN_RECORDINGS_DIR. */
  UNTORN_REPLAY: optional(z.string()),
  /** Where to look for the newest replay file when neither PROMETHEUS_URL nor UNTORN_REPLAY is set. */
  UNTORN_RECORDINGS_DIR: optional(z.string()),
  /**
   * Declared instance facts (docs/schemas/metadata.schema.json) overlaid on the data source's facts, under
   * what users store. A recording's `<name>.metadata.json` beside it is used when this is unset.
   */
  UNTORN_METADATA_FILE: optional(z.string()),
  /** PostgreSQL store; without it the store is embedded PGlite in UNTORN_DATA_DIR. */
  DATABASE_URL: optional(
    z.string().regex(/^postgres(ql)?:\/\//, "DATABASE_URL must be a postgres:// or postgresql:// URL"),
  ),
  /**
   * PostgreSQL: the owner's URL, for migrations only. Set, the console migrates through it, grants
   * DATABASE_URL's role what it needs (the audit log: SELECT and INSERT only) and connects as that role;
   * unset, DATABASE_URL's role migrates and owns the tables (docs/security.md, Audit log).
   */
  UNTORN_MIGRATION_DATABASE_URL: optional(
    z
      .string()
      .regex(
        /^postgres(ql)?:\/\//,
        "UNTORN_MIGRATION_DATABASE_URL must be a postgres:// or postgresql:// URL",
      ),
  ),
  UNTORN_DATA_DIR: optional(z.string()).transform((v) => v ?? ".untorn-data"),
  /**
   * Where the last good fleet read is kept across restarts (fleet-read.json.gz), so a restarted console
   * serves its fleet pages at once; unset: UNTORN_DATA_DIR; `off` keeps nothing.
   */
  UNTORN_CACHE_DIR: optional(z.string()),
  /** Grafana base URL for the instance dashboard link (dashboard uid untorn-instance). */
  GRAFANA_URL: optional(httpUrl("GRAFANA_URL")),
  PORT: optional(positiveInt(1, 65535)).transform((v) => v ?? 3000),
  /** Removed: refused with a migration note (docs/security.md#migrating-from-untorn_admin_token). */
  UNTORN_ADMIN_TOKEN: optional(
    z.never({
      error:
        "UNTORN_ADMIN_TOKEN was removed: sign in with an account instead (set UNTORN_ADMIN_PASSWORD for the first admin; docs/security.md#migrating-from-untorn_admin_token)",
    }),
  ),
  /** How people sign in: local accounts in the store (default), an auth proxy's headers, or OIDC. */
  UNTORN_AUTH: optional(
    z.enum(["local", "proxy", "oidc"], { error: "UNTORN_AUTH must be local, proxy or oidc" }),
  ).transform((v) => v ?? "local"),
  /** Name of the admin account created on first run (UNTORN_AUTH=local). */
  UNTORN_ADMIN_USER: optional(
    z
      .string()
      .max(100)
      .regex(/^[A-Za-z0-9._@-]+$/, "UNTORN_ADMIN_USER may hold letters, digits and . _ @ - only"),
  ).transform((v) => v ?? "admin"),
  /** The first-run admin's password; unset, a random one is generated and printed once. */
  UNTORN_ADMIN_PASSWORD: optional(
    z.string().min(12, "UNTORN_ADMIN_PASSWORD must be at least 12 characters").max(1000),
  ),
  /** Address `npm start` (server.mjs) listens on; read there, and listed here so it is documented and checked. */
  UNTORN_HOST: optional(z.string().max(255)).transform((v) => v ?? "127.0.0.1"),
  /** Read-only API token for automation (`Authorization: Bearer …` on /api/v1, viewer role). */
  UNTORN_VIEWER_TOKEN: optional(
    z.string().min(32, "UNTORN_VIEWER_TOKEN must be at least 32 characters").max(1000),
  ),
  /** Idle-independent lifetime of a sign-in session. */
  UNTORN_SESSION_SECONDS: optional(positiveInt(5, 30 * 86_400)).transform((v) => v ?? 12 * 3600),
  /**
   * Host names (with optional :port) the console answers to, comma-separated; any other Host header is
   * refused (DNS rebinding). Unset: any host, with every write still needing a session.
   */
  UNTORN_ALLOWED_HOSTS: optional(
    z
      .string()
      .transform((s) =>
        s
          .split(",")
          .map((h) => h.trim().toLowerCase())
          .filter(Boolean),
      )
      .pipe(
        z
          .array(
            z
              .string()
              .regex(
                /^[a-z0-9.-]+(:\d{1,5})?$|^\[[0-9a-f:]+\](:\d{1,5})?$/,
                "UNTORN_ALLOWED_HOSTS: each entry is host or host:port",
              ),
          )
          .min(1, "UNTORN_ALLOWED_HOSTS lists no host"),
      ),
  ),
  /**
   * UNTORN_AUTH=proxy and oidc: the groups each role needs (lib/role-map.ts), e.g.
   * `dba-admins=admin,dbas=operator,*=viewer`.
   */
  UNTORN_ROLE_MAP: optional(
    z.string().transform((s, ctx) => {
      const r = parseRoleMap(s);
      if (r.ok) return r.map;
      ctx.addIssue({ code: "custom", message: `${r.error} (syntax: group=role,…,*=role)` });
      return z.NEVER;
    }),
  ),
  /**
   * Reverse proxies in front of the console, addresses or CIDR blocks (lib/trusted-peers.ts), default
   * none: only from these TCP peers are X-Forwarded-Host, -Proto and -For believed, and with
   * UNTORN_AUTH=proxy (where it is required) the identity headers.
   */
  UNTORN_TRUSTED_PROXIES: optional(
    z.string().transform((s, ctx) => {
      const r = parseTrustedPeers(s);
      if (r.ok) return r.peers;
      ctx.addIssue({ code: "custom", message: r.error });
      return z.NEVER;
    }),
  ),
  /** UNTORN_AUTH=proxy: the header naming the signed-in user (oauth2-proxy --pass-user-headers). */
  UNTORN_PROXY_USER_HEADER: optional(headerName("UNTORN_PROXY_USER_HEADER")).transform(
    (v) => v ?? "x-forwarded-user",
  ),
  /** UNTORN_AUTH=proxy: the header listing the user's groups, comma-separated. */
  UNTORN_PROXY_GROUPS_HEADER: optional(headerName("UNTORN_PROXY_GROUPS_HEADER")).transform(
    (v) => v ?? "x-forwarded-groups",
  ),
  /** UNTORN_AUTH=proxy: where "Sign out" goes, the proxy's own sign-out (oauth2-proxy: /oauth2/sign_out). */
  UNTORN_PROXY_SIGN_OUT_URL: optional(
    z
      .string()
      .max(2000)
      .regex(
        /^(\/(?!\/)|https?:\/\/)\S*$/,
        "UNTORN_PROXY_SIGN_OUT_URL must be a path (/oauth2/sign_out) or an http(s) URL",
      ),
  ),
  /** UNTORN_AUTH=oidc: the provider's issuer URL (its /.well-known/openid-configuration is read). */
  UNTORN_OIDC_ISSUER: optional(
    z.url({ protocol: /^https?$/, error: "UNTORN_OIDC_ISSUER must be an https:// URL" }).refine((u) => {
      const url = new URL(u);
      return url.protocol === "https:" || isLoopback(url.hostname);
    }, "UNTORN_OIDC_ISSUER must be https:// (http:// only on a loopback address, for tests)"),
  ),
  UNTORN_OIDC_CLIENT_ID: optional(z.string().max(500)),
  UNTORN_OIDC_CLIENT_SECRET: optional(
    z.string().min(8, "UNTORN_OIDC_CLIENT_SECRET must be at least 8 characters").max(2000),
  ),
  /** Space-separated scopes asked for; must include openid. */
  UNTORN_OIDC_SCOPES: optional(
    z
      .string()
      .regex(
        /^[\x21\x23-\x5b\x5d-\x7e]+( [\x21\x23-\x5b\x5d-\x7e]+)*$/,
        "UNTORN_OIDC_SCOPES must be scopes separated by single spaces",
      )
      .refine((s) => s.split(" ").includes("openid"), "UNTORN_OIDC_SCOPES must include openid"),
  ).transform((v) => v ?? "openid profile email"),
  /** The ID token or userinfo claim holding the user's groups (an array of strings, or one string). */
  UNTORN_OIDC_GROUPS_CLAIM: optional(z.string().max(200)).transform((v) => v ?? "groups"),
  /** The claim used as the console's user name. */
  UNTORN_OIDC_USERNAME_CLAIM: optional(z.string().max(200)).transform((v) => v ?? "preferred_username"),
  /**
   * The console's address as browsers reach it (scheme, host, port, no path): the OIDC redirect URI is
   * `<UNTORN_PUBLIC_URL>/api/auth/oidc/callback`.
   */
  UNTORN_PUBLIC_URL: optional(httpUrl("UNTORN_PUBLIC_URL")),
  /**
   * Window the fleet's workload statistics cover (PromQL duration). The default is the one the
   * untorn.window recording rules record, so the fleet page reads one sample per series.
   */
  UNTORN_WINDOW: optional(
    z.string().regex(/^\d+[smhdw]$/, "UNTORN_WINDOW must be a duration like 1h"),
  ).transform((v) => v ?? DEFAULT_FLEET_WINDOW),
  /** Per-request Prometheus timeout. */
  UNTORN_PROM_TIMEOUT_MS: optional(positiveInt(100, 600_000)).transform((v) => v ?? 15_000),
  /** A fleet read slower than this is reported as slow in the banner. */
  UNTORN_SLOW_MS: optional(positiveInt(1, 600_000)).transform((v) => v ?? 5_000),
  /** How long a live fleet snapshot is reused before Prometheus is asked again. */
  UNTORN_CACHE_SECONDS: optional(positiveInt(0, 86_400)).transform((v) => v ?? 30),
  /** Seconds between two passes of the rollout reconciler the console runs; 0 turns it off. */
  UNTORN_RECONCILE_SECONDS: optional(positiveInt(0, 86_400)).transform((v) => v ?? 30),
  /**
   * Step hooks the console's reconciler may run (docs/schemas/rollout-hooks.schema.json, the file
   * `untorn rollout reconcile --hooks` takes); unset = none, a rollout naming a hook then pauses.
   */
  UNTORN_HOOKS_FILE: optional(z.string().min(1)),
});

export type Env = z.infer<typeof envSchema>;

/**
 * The address the console listens on: what server.mjs (`npm start`) binds, UNTORN_HOST or 127.0.0.1;
 * under plain `next start`, its -H/--hostname argument, or every interface when there is none (Next's
 * default).
 */
export function bindHost(argv: readonly string[] = process.argv): string {
  const info = serverInfo();
  if (info) return info.host;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "-H" || a === "--hostname") return argv[i + 1] ?? "0.0.0.0";
    if (a.startsWith("--hostname=")) return a.slice("--hostname=".length);
  }
  return "0.0.0.0";
}

export const isLoopback = (host: string) => /^(localhost|127(\.\d{1,3}){3}|::1|\[::1\])$/i.test(host);

export class EnvError extends Error {
  constructor(readonly issues: readonly string[]) {
    super(`invalid configuration:\n  ${issues.join("\n  ")}`);
    this.name = "EnvError";
  }
}

const MODE_SETTINGS = {
  local: ["UNTORN_ADMIN_PASSWORD"],
  proxy: ["UNTORN_PROXY_USER_HEADER", "UNTORN_PROXY_GROUPS_HEADER", "UNTORN_PROXY_SIGN_OUT_URL"],
  oidc: [
    "UNTORN_OIDC_ISSUER",
    "UNTORN_OIDC_CLIENT_ID",
    "UNTORN_OIDC_CLIENT_SECRET",
    "UNTORN_OIDC_SCOPES",
    "UNTORN_OIDC_GROUPS_CLAIM",
    "UNTORN_OIDC_USERNAME_CLAIM",
  ],
} as const satisfies Record<Env["UNTORN_AUTH"], readonly string[]>;

const REQUIRED = {
  local: [],
  proxy: ["UNTORN_TRUSTED_PROXIES", "UNTORN_ROLE_MAP"],
  oidc: [
    "UNTORN_OIDC_ISSUER",
    "UNTORN_OIDC_CLIENT_ID",
    "UNTORN_OIDC_CLIENT_SECRET",
    "UNTORN_PUBLIC_URL",
    "UNTORN_ROLE_MAP",
  ],
} as const satisfies Record<Env["UNTORN_AUTH"], readonly (keyof Env)[]>;

/**
 * The rules between settings: what the chosen UNTORN_AUTH mode needs, and another mode's settings
 * refused (set by mistake, they would look in effect and be ignored).
 */
function modeIssues(source: Readonly<Record<string, string | undefined>>, e: Env): string[] {
  const issues: string[] = [];
  const mode = e.UNTORN_AUTH;
  for (const name of REQUIRED[mode])
    if (e[name] === undefined) issues.push(`${name}: required when UNTORN_AUTH=${mode}`);
  for (const [other, names] of Object.entries(MODE_SETTINGS)) {
    if (other === mode) continue;
    for (const name of names)
      if ((source[name] ?? "").trim() !== "")
        issues.push(`${name}: only used when UNTORN_AUTH=${other}, but UNTORN_AUTH=${mode}`);
  }
  if (e.UNTORN_MIGRATION_DATABASE_URL && !e.DATABASE_URL)
    issues.push("UNTORN_MIGRATION_DATABASE_URL: only used with DATABASE_URL (PostgreSQL)");
  if (mode === "local" && e.UNTORN_ROLE_MAP)
    issues.push("UNTORN_ROLE_MAP: only used when UNTORN_AUTH=proxy or oidc, but UNTORN_AUTH=local");
  return issues;
}

/** Parses an environment; throws EnvError naming every bad variable. Exported for tests. */
export function parseEnv(source: Readonly<Record<string, string | undefined>>): Env {
  const r = envSchema.safeParse(source);
  if (!r.success) throw new EnvError(r.error.issues.map((i) => `${i.path.join(".") || "env"}: ${i.message}`));
  const issues = modeIssues(source, r.data);
  if (issues.length > 0) throw new EnvError(issues);
  return r.data;
}

let cached: Env | undefined;

/** The process environment, parsed on first use (not at import, so `next build` never needs it). */
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
