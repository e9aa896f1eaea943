/**
 * What the fleet engine needs from Prometheus: instant vector queries at a given time and range queries.
 * `PromClient` from @untorn/prom satisfies it as is; RecordingApi and ReplayApi (replay.ts) and the test
 * fakes implement it too. Times are Unix seconds.
 */
import type { MatrixSeries, VectorSample } from "@untorn/prom/result";

export type { MatrixSeries, VectorSample };

export interface QueryAnswer<T> {
  readonly data: T;
  /** Server warnings (partial data, e.g. an unreachable Thanos store); shown to the user. */
  readonly warnings: readonly string[];
}

export interface PromQueryApi {
  queryVector(expr: string, opts: { time: number }): Promise<QueryAnswer<VectorSample[]>>;
  queryRange(
    expr: string,
    opts: { start: number; end: number; step: number },
  ): Promise<QueryAnswer<MatrixSeries[]>>;
  /**
   * Evaluation time to use when the caller gives none. Absent: the wall clock. A replay answers with the
   * end of its recording, so "now" means "the latest recorded moment".
   */
  defaultTime?(): number;
  /**
   * Which server answers (PromClient.backend()). The fleet asks it once before choosing "now", so that
   * VictoriaMetrics' hidden newest samples (-search.latencyOffset) are left out on every backend alike,
   * and whose rate() it reads (young.ts). Without `kind`, the Prometheus API's own semantics are assumed.
   */
  backend?(): Promise<{
    readonly queryDelaySeconds: number;
    readonly note: string | null;
    readonly kind?: "prometheus" | "victoriametrics";
  }>;
}

/** The api's notion of now, in whole Unix seconds. */
export function nowOf(api: PromQueryApi): number {
  return Math.floor(api.defaultTime ? api.defaultTime() : Date.now() / 1000);
}

/** Wraps an api and counts the requests made through it (the engine reports `queries` with this). */
export class CountingApi implements PromQueryApi {
  count = 0;
  constructor(private readonly inner: PromQueryApi) {}

  queryVector(expr: string, opts: { time: number }): Promise<QueryAnswer<VectorSample[]>> {
    this.count++;
    return this.inner.queryVector(expr, opts);
  }

  queryRange(
    expr: string,
    opts: { start: number; end: number; step: number },
  ): Promise<QueryAnswer<MatrixSeries[]>> {
    this.count++;
    return this.inner.queryRange(expr, opts);
  }

  defaultTime(): number {
    return nowOf(this.inner);
  }
}

/** Runs `tasks` with at most `limit` in flight, keeping the results in order. */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return out;
}

/** Brands a ReplayMissError whichever copy of this module made it (Symbol.for is process-wide). */
const REPLAY_MISS = Symbol.for("untorn.ReplayMissError");

/**
 * A query the replay cannot answer. `instanceof` holds across copies of this module: Next.js bundles it
 * once per bundle (the instrumentation hook, the pages), and the web console reads a replay once per
 * process, so the replay that throws may come from another copy than the code that catches.
 */
export class ReplayMissError extends Error {
  override readonly name = "ReplayMissError";
  readonly [REPLAY_MISS] = true;
  static override [Symbol.hasInstance](x: unknown): boolean {
    return typeof x === "object" && x !== null && (x as { [REPLAY_MISS]?: unknown })[REPLAY_MISS] === true;
  }
  constructor(
    readonly query: string,
    reason: string,
  ) {
    const shown = query.length > 400 ? `${query.slice(0, 399)}…` : query;
    super(`${reason}: ${shown}`);
  }
}
