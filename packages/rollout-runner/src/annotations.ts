/**
 * Grafana annotations for rollout steps and gates (HTTP API `POST /api/annotations`,
 * https://grafana.com/docs/grafana/latest/developers/http_api/annotations/). Tagged `untorn`, so the
 * `untorn-rollout` dashboard's tag annotation shows them, plus the rollout id to filter one rollout.
 * Optional and never fatal: a failure is logged and returned, the rollout goes on.
 */

export interface GrafanaTarget {
  /** Base URL, e.g. http://grafana:3000 (a sub-path such as https://example.com/grafana works). */
  url: string;
  /** Service account token with annotations:write; sent as `Authorization: Bearer`. */
  token?: string;
  /** Per request; default 5 s. */
  timeoutMs?: number;
}

export interface RolloutAnnotation {
  rolloutId: string;
  time: Date;
  /** For a span (a wave's bake window). */
  timeEnd?: Date;
  /** One line, e.g. "wave 1 gate passed: write bytes per transaction -41 % (CI -45..-37)". */
  text: string;
  /** Added to `untorn`, `rollout` and the rollout id, e.g. the event type or the instance. */
  tags?: string[];
}

export type AnnotateResult = { ok: true; id: number | null } | { ok: false; error: string };

export interface Annotator {
  readonly enabled: boolean;
  annotate(a: RolloutAnnotation): Promise<AnnotateResult>;
}

/** Grafana caps a tag's length; keep ours well under it. */
const MAX_TAG = 100;

export function annotationBody(a: RolloutAnnotation): Record<string, unknown> {
  const tags = [...new Set(["untorn", "rollout", a.rolloutId, ...(a.tags ?? [])])].map((t) =>
    t.slice(0, MAX_TAG),
  );
  return {
    time: a.time.getTime(),
    ...(a.timeEnd ? { timeEnd: a.timeEnd.getTime() } : {}),
    tags,
    text: a.text,
  };
}

/** An annotator that posts to Grafana, or a disabled one when `target` is null. */
export function createAnnotator(
  target: GrafanaTarget | null,
  log: (message: string) => void = (m) => console.warn(m),
): Annotator {
  if (!target)
    return { enabled: false, annotate: async () => ({ ok: false, error: "annotations disabled" }) };
  const endpoint = `${target.url.replace(/\/+$/, "")}/api/annotations`;
  const timeoutMs = target.timeoutMs ?? 5000;
  return {
    enabled: true,
    async annotate(a) {
      let error: string;
      try {
        const res = await fetch(endpoint, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            accept: "application/json",
            ...(target.token ? { authorization: `Bearer ${target.token}` } : {}),
          },
          body: JSON.stringify(annotationBody(a)),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const text = await res.text();
        if (res.ok) {
          let id: number | null = null;
          try {
            const v = JSON.parse(text) as { id?: unknown };
            if (typeof v.id === "number") id = v.id;
          } catch {
            // A 2xx without JSON still means Grafana stored it.
          }
          return { ok: true, id };
        }
        error = `HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ""}`;
      } catch (e) {
        const err = e as Error;
        error =
          err.name === "TimeoutError"
            ? `no answer within ${timeoutMs} ms`
            : `${err.message}${err.cause instanceof Error ? ` (${err.cause.message})` : ""}`;
      }
      const msg = `grafana annotation for rollout ${a.rolloutId} not written (${endpoint}): ${error}; the rollout goes on`;
      log(msg);
      return { ok: false, error };
    },
  };
}
