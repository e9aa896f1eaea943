import { z } from "zod";
import { CliError, describeIssues, EXIT } from "./errors.js";

/** A Prometheus (or Thanos / Mimir / VictoriaMetrics) base URL, http or https. */
export const PrometheusUrl = z.url({
  protocol: /^https?$/,
  error: "expected an http(s) URL such as http://prometheus:9090",
});

/** The environment the CLI reads: validated here, once; process.env is read nowhere else. */
const EnvSchema = z.object({
  PROMETHEUS_URL: z.preprocess((v) => (v === "" ? undefined : v), PrometheusUrl.optional()),
  /** Threads of `untorn compare` (as --threads; 1 keeps it on one thread). */
  UNTORN_COMPARE_THREADS: z.preprocess(
    (v) => (v === "" ? undefined : v),
    z.coerce
      .number({ error: "expected a whole number of threads, 1 or more" })
      .int({ error: "expected a whole number of threads, 1 or more" })
      .min(1, { error: "expected a whole number of threads, 1 or more" })
      .max(256)
      .optional(),
  ),
});

export type Env = z.infer<typeof EnvSchema>;

const cache = new WeakMap<NodeJS.ProcessEnv, Env>();

export function loadEnv(env: NodeJS.ProcessEnv): Env {
  const hit = cache.get(env);
  if (hit) return hit;
  const r = EnvSchema.safeParse(env);
  if (!r.success) throw new CliError(`invalid environment:\n${describeIssues(r.error.issues)}`, EXIT.usage);
  cache.set(env, r.data);
  return r.data;
}
