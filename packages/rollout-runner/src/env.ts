/** The environment the rollout runner reads: validated here, once; process.env is read nowhere else. */
import { z } from "zod";

const empty = (v: unknown) => (v === "" ? undefined : v);

const EnvSchema = z.object({
  /** Grafana base URL for rollout annotations, e.g. http://grafana:3000; unset = no annotations. */
  GRAFANA_URL: z.preprocess(
    empty,
    z.url({ protocol: /^https?$/, error: "expected an http(s) URL such as http://grafana:3000" }).optional(),
  ),
  /** A Grafana service account token with annotations:write (sent as a Bearer token). */
  GRAFANA_TOKEN: z.preprocess(empty, z.string().min(1).optional()),
});

export type RunnerEnv = z.infer<typeof EnvSchema>;

export class RunnerEnvError extends Error {
  override name = "RunnerEnvError";
}

export function loadRunnerEnv(env: NodeJS.ProcessEnv = process.env): RunnerEnv {
  const r = EnvSchema.safeParse(env);
  if (!r.success) {
    throw new RunnerEnvError(
      `invalid environment: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  }
  if (r.data.GRAFANA_TOKEN && !r.data.GRAFANA_URL) {
    throw new RunnerEnvError("invalid environment: GRAFANA_TOKEN is set but GRAFANA_URL is not");
  }
  return r.data;
}

/** The environment a step's command hook inherits (the runner's own, plus the step's variables). */
export function inheritedEnv(): NodeJS.ProcessEnv {
  return process.env;
}
