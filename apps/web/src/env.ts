/**
 * The app's configuration: every environment variable it reads, validated once with zod. Nothing else
 * in the app reads process.env. An empty value counts as unset (docker-compose writes `VAR=` for
 * unset variables).
 */
import { z } from "zod";

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (typeof v === "string" && v.trim() === "" ? undefined : v), schema.optional());

const httpUrl = (what: string) =>
  z
    .url({ protocol: /^https?$/, error: `${what} must be an http:// or https:// URL` })
    .transform((u) => u.replace(/\/+$/, ""));

const positiveInt = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

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
  UNTORN_DATA_DIR: optional(z.string()).transform((v) => v ?? ".untorn-data"),
  /** Grafana base URL for the instance dashboard link (dashboard uid untorn-instance). */
  GRAFANA_URL: optional(httpUrl("GRAFANA_URL")),
  PORT: optional(positiveInt(1, 65535)).transform((v) => v ?? 3000),
  /** When set, editing fleet metadata needs this token. At least 12 characters. */
  UNTORN_ADMIN_TOKEN: optional(z.string().min(12, "UNTORN_ADMIN_TOKEN must be at least 12 characters")),
  /** Window the fleet's workload statistics cover (PromQL duration). */
  UNTORN_WINDOW: optional(
    z.string().regex(/^\d+[smhdw]$/, "UNTORN_WINDOW must be a duration like 1h"),
  ).transform((v) => v ?? "1h"),
  /** Per-request Prometheus timeout. */
  UNTORN_PROM_TIMEOUT_MS: optional(positiveInt(100, 600_000)).transform((v) => v ?? 15_000),
  /** A fleet read slower than this is reported as slow in the banner. */
  UNTORN_SLOW_MS: optional(positiveInt(1, 600_000)).transform((v) => v ?? 5_000),
  /** How long a live fleet snapshot is reused before Prometheus is asked again. */
  UNTORN_CACHE_SECONDS: optional(positiveInt(0, 86_400)).transform((v) => v ?? 30),
});

export type Env = z.infer<typeof envSchema>;

export class EnvError extends Error {
  constructor(readonly issues: readonly string[]) {
    super(`invalid configuration:\n  ${issues.join("\n  ")}`);
    this.name = "EnvError";
  }
}

/** Parses an environment; throws EnvError naming every bad variable. Exported for tests. */
export function parseEnv(source: Readonly<Record<string, string | undefined>>): Env {
  const r = envSchema.safeParse(source);
  if (r.success) return r.data;
  throw new EnvError(r.error.issues.map((i) => `${i.path.join(".") || "env"}: ${i.message}`));
}

let cached: Env | undefined;

/** The process environment, parsed on first use (not at import, so `next build` never needs it). */
export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
