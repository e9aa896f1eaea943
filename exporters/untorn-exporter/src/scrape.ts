import { metrics } from "@untorn/catalog/metrics";
import { Registry } from "prom-client";
import { type Collector, Emitter, type HostPaths, type Queryable, type ServerFacts } from "./collector.js";
import { HOST_COLLECTORS } from "./collectors/index.js";
import type { Logger } from "./log.js";
import { withTimeout } from "./timeout.js";
import { detectFlavor, parseVersion } from "./version.js";

const SERVER_SQL =
  "SELECT @@version AS version, @@version_comment AS version_comment, @@datadir AS datadir, " +
  "@@innodb_page_size AS page_size, @@performance_schema AS performance_schema";

export interface ScrapeRequest {
  /** Stable key for single-flight and the datadir cache, e.g. the target address. */
  key: string;
  /** Where queries go: a TargetPool, or a fixture-backed source in tests. */
  pool: QuerySource;
  collectors: readonly Collector[];
  /** Total budget for the whole scrape, in ms. */
  budgetMs: number;
  /** Upper bound for any one collector, in ms (also capped by the scrape budget). */
  collectorTimeoutMs: number;
  host: HostPaths;
  /** Overrides the server's datadir for host collectors (e.g. the path inside a container). */
  datadirOverride?: string;
}

export interface QuerySource {
  /** A Queryable whose statements must finish before `deadline` (epoch ms). */
  queryable(deadline: number): Queryable;
}

export interface ScrapeResult {
  registry: Registry;
  up: boolean;
}

export async function serverFacts(db: Queryable): Promise<ServerFacts> {
  const [row] = await db.query(SERVER_SQL);
  if (!row) throw new Error("server returned no row for its version");
  const version = String(row["version"] ?? "");
  const versionComment = String(row["version_comment"] ?? "");
  return {
    flavor: detectFlavor(version, versionComment),
    version,
    versionNumber: parseVersion(version),
    versionComment,
    datadir: String(row["datadir"] ?? ""),
    pageSize: Number(row["page_size"] ?? 16384),
    performanceSchema: Number(row["performance_schema"]) === 1,
  };
}

/**
 * One collection: a fresh registry per scrape; collectors run concurrently, each in its own registry,
 * each bounded by its timeout and the scrape deadline. A failed or late collector contributes only
 * collector_success 0; the others are still reported.
 */
export class Scraper {
  private readonly inflight = new Map<string, Promise<ScrapeResult>>();
  /** Last known server facts per target, so host collectors still work while the server is down. */
  private readonly lastFacts = new Map<string, ServerFacts>();
  /** Per target: what collectors carry from one scrape to the next (CollectContext.memory). */
  private readonly memory = new Map<string, Map<string, unknown>>();

  constructor(private readonly log: Logger) {}

  /** Concurrent scrapes of the same target and collectors share one collection (single-flight). */
  scrape(req: ScrapeRequest): Promise<ScrapeResult> {
    const key = `${req.key}|${req.collectors.map((c) => c.name).join(",")}`;
    const running = this.inflight.get(key);
    if (running) return running;
    const p = this.collect(req).finally(() => this.inflight.delete(key));
    this.inflight.set(key, p);
    return p;
  }

  private async collect(req: ScrapeRequest): Promise<ScrapeResult> {
    const deadline = Date.now() + req.budgetMs;
    const main = new Registry();
    const emit = new Emitter(main);
    // The version query gets half the budget at most (and no more than a collector): a server that
    // hangs must not eat the time host.storage needs to report from the last known datadir.
    const factsDeadline = Date.now() + Math.min(req.collectorTimeoutMs, req.budgetMs / 2);
    const db = req.pool.queryable(factsDeadline);

    let facts: ServerFacts | undefined;
    let up = false;
    try {
      facts = await serverFacts(db);
      up = true;
      this.lastFacts.set(req.key, facts);
    } catch (err) {
      this.log.warn("cannot reach the server", { target: req.key, err: (err as Error).message });
      facts = this.lastFacts.get(req.key);
    }
    emit.set(metrics.mysqlUp, up ? 1 : 0);
    if (facts && req.datadirOverride) facts = { ...facts, datadir: req.datadirOverride };

    let memory = this.memory.get(req.key);
    if (!memory) {
      memory = new Map();
      this.memory.set(req.key, memory);
    }
    const targetMemory = memory;
    const registries: Registry[] = [main];
    await Promise.all(
      req.collectors.map(async (collector) => {
        const started = performance.now();
        const reg = new Registry();
        let ok = false;
        const needsDb = !HOST_COLLECTORS.has(collector.name);
        if (facts && (up || !needsDb)) {
          const controller = new AbortController();
          const budget = Math.max(1, Math.min(req.collectorTimeoutMs, deadline - Date.now()));
          try {
            await withTimeout(
              collector.collect({
                db: req.pool.queryable(Math.min(deadline, Date.now() + budget)),
                server: facts,
                emit: new Emitter(reg),
                host: req.host,
                signal: controller.signal,
                memory: targetMemory,
              }),
              budget,
              () => new Error(`timed out after ${budget} ms`),
              () => controller.abort(),
            );
            ok = true;
            registries.push(reg);
          } catch (err) {
            this.log.warn("collector failed", {
              collector: collector.name,
              target: req.key,
              err: (err as Error).message,
            });
          }
        }
        emit.set(metrics.collectorSuccess, ok ? 1 : 0, { collector: collector.name });
        // to the microsecond: a whole number over 1e6 prints short, not with 17 significant digits
        emit.set(metrics.collectorDuration, Math.round((performance.now() - started) * 1000) / 1e6, {
          collector: collector.name,
        });
      }),
    );
    return { registry: Registry.merge(registries), up };
  }
}
