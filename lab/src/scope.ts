/**
 * Everything a run starts, and how to stop it. Resources are cleaned up in layers, highest first (loads,
 * then Prometheus, exporters, servers, volumes), each layer in parallel; a start still in flight when
 * the scope closes is awaited first, so what it started is cleaned up too.
 */
export interface Cleanup {
  readonly layer: number;
  readonly what: string;
  readonly fn: () => Promise<void>;
}

export class Scope {
  private readonly cleanups: Cleanup[] = [];
  private readonly pending = new Set<Promise<unknown>>();
  private closing: Promise<Error[]> | undefined;

  /**
   * Runs `start`; if it succeeds, `cleanup` of its result runs when the scope closes. A start that
   * succeeds after close() was called is cleaned up by that close.
   */
  use<T>(layer: number, what: string, start: () => Promise<T>, cleanup: (v: T) => Promise<void>): Promise<T> {
    const run = (async () => {
      const v = await start();
      this.cleanups.push({ layer, what, fn: () => cleanup(v) });
      return v;
    })();
    this.pending.add(run);
    const forget = () => this.pending.delete(run);
    run.then(forget, forget);
    return run;
  }

  /** Registers a cleanup for something started elsewhere. */
  add(layer: number, what: string, fn: () => Promise<void>): void {
    this.cleanups.push({ layer, what, fn });
  }

  /** Runs every cleanup (once, even when called twice); returns the failures instead of throwing. */
  close(log: (line: string) => void = () => undefined): Promise<Error[]> {
    this.closing ??= (async () => {
      while (this.pending.size) await Promise.allSettled([...this.pending]);
      const errors: Error[] = [];
      const layers = [...new Set(this.cleanups.map((c) => c.layer))].sort((a, b) => b - a);
      for (const layer of layers) {
        const mine = this.cleanups.filter((c) => c.layer === layer);
        const results = await Promise.allSettled(mine.map((c) => c.fn()));
        results.forEach((r, i) => {
          if (r.status === "rejected") {
            const err = new Error(`${mine[i]!.what}: ${(r.reason as Error)?.message ?? String(r.reason)}`);
            errors.push(err);
            log(`cleanup failed: ${err.message}`);
          }
        });
      }
      this.cleanups.length = 0;
      return errors;
    })();
    return this.closing;
  }
}
