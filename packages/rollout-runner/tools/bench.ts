// Benchmark: one reconciler pass over 1,000 active instances (100 rollouts of 10 replicas each) against
// a real Prometheus holding synthetic untorn-exporter history (backfilled with promtool), with the store
// on PGlite and on PostgreSQL. Half the rollouts wait for their canary's read-back (read every pass, the
// state stored every pass), half wait at the pre-wave gate (fresh facts of 2 instances each, every
// pass). Reports per pass: wall time, Prometheus' own time for the very same requests (each re-issued
// with plain fetch right after), the store's time, and the rest (core + glue), side by side.
// Writes bench/results/rollout-reconciler.json. Run: npm run bench -w @untorn/rollout-runner
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import type { MatrixSeries, PromQueryApi, QueryAnswer, VectorSample } from "@untorn/fleet/api";
import { syntheticFleet } from "@untorn/fleet/testing/synthetic";
import { backfill } from "@untorn/fleet/tools/backfill";
import { PromClient } from "@untorn/prom/client";
import type { Replication } from "@untorn/rollout/observations";
import { openStore, type Store } from "@untorn/store/store";
import { makeTempDir, repoRoot, requireBinary } from "@untorn/testkit/process";
import { startPrometheus } from "@untorn/testkit/prometheus";
import pg from "pg";
import { candidateFacts } from "../src/observe.js";
import { createStoredRollout, reconcileRollouts, runCommand } from "../src/runner.js";

const CLUSTERS = 100;
const PER_CLUSTER = 10;
const PASSES = 3;
const STEP = 15;
const log = (m: string) => process.stderr.write(`[bench rollout] ${m}\n`);
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Times every request through the client, and re-issues it raw (plain fetch, nothing decoded) right after. */
class Paired implements PromQueryApi {
  rawMs = 0;
  requests = 0;
  constructor(
    private readonly inner: PromClient,
    private readonly url: string,
  ) {}
  async queryVector(expr: string, opts: { time: number }): Promise<QueryAnswer<VectorSample[]>> {
    const a = await this.inner.queryVector(expr, opts);
    this.requests++;
    this.rawMs += await raw(this.url, "query", { query: expr, time: String(opts.time) });
    return a;
  }
  async queryRange(
    expr: string,
    opts: { start: number; end: number; step: number },
  ): Promise<QueryAnswer<MatrixSeries[]>> {
    const a = await this.inner.queryRange(expr, opts);
    this.requests++;
    this.rawMs += await raw(this.url, "query_range", {
      query: expr,
      start: String(opts.start),
      end: String(opts.end),
      step: String(opts.step),
    });
    return a;
  }
}

async function raw(url: string, path: string, params: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${url}/api/v1/${path}`, {
    method: "POST",
    body: new URLSearchParams(params),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
  await res.text();
  return performance.now() - t0;
}

/** The store with every call timed (the time spent waiting on the database and the driver). */
function timed(store: Store): { store: Store; ms: () => number; calls: () => number; reset: () => void } {
  let ms = 0;
  let calls = 0;
  const out = { ...store } as Record<string, unknown>;
  for (const [k, v] of Object.entries(store)) {
    if (typeof v !== "function" || k === "tryExclusive" || k === "close") continue;
    out[k] = async (...args: unknown[]) => {
      const t0 = performance.now();
      try {
        return await (v as (...a: unknown[]) => Promise<unknown>)(...args);
      } finally {
        ms += performance.now() - t0;
        calls++;
      }
    };
  }
  return {
    store: out as unknown as Store,
    ms: () => ms,
    calls: () => calls,
    reset: () => {
      ms = 0;
      calls = 0;
    },
  };
}

const healthy = async (_api: PromQueryApi, instances: readonly string[]) =>
  new Map<string, Replication>(
    instances.map((i) => [i, { ioRunning: true, sqlRunning: true, lagSeconds: 0 }]),
  );

async function postgresUrl(): Promise<{ url: string; drop: () => Promise<void> } | string> {
  // Same server as the store tests; skipped (and said so) when it is not there.
  const admin = process.env["UNTORN_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";
  const name = `untorn_bench_${Date.now().toString(36)}`;
  const c = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 3000 });
  try {
    await c.connect();
    await c.query(`CREATE DATABASE ${name}`);
  } catch (e) {
    return `PostgreSQL not reachable at ${admin}: ${(e as Error).message}`;
  } finally {
    await c.end().catch(() => {});
  }
  const u = new URL(admin);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    drop: async () => {
      const d = new pg.Client({ connectionString: admin });
      await d.connect();
      await d.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await d.end();
    },
  };
}

async function benchBackend(kind: "pglite" | "postgres", promUrl: string, end: number) {
  const scratch = mkdtempSync(join(tmpdir(), "untorn-bench-rollout-"));
  let drop: (() => Promise<void>) | undefined;
  let opened: Store;
  if (kind === "postgres") {
    const p = await postgresUrl();
    if (typeof p === "string") {
      rmSync(scratch, { recursive: true, force: true });
      return { backend: kind, skipped: p };
    }
    drop = p.drop;
    opened = await openStore({ databaseUrl: p.url });
  } else opened = await openStore({ dataDir: join(scratch, "data") });
  const t = timed(opened);
  try {
    const api = new PromClient({ baseUrl: promUrl, timeoutMs: 120_000 });
    const metadata = new Map<string, { cluster: string; role: "replica" }>();
    for (let c = 0; c < CLUSTERS; c++)
      for (let i = 0; i < PER_CLUSTER; i++)
        metadata.set(`db-${String(c * PER_CLUSTER + i).padStart(4, "0")}`, {
          cluster: `c${c}`,
          role: "replica",
        });
    let clock = end - 25 * 60;
    const deps = { store: t.store, clock: () => clock };
    const setup0 = performance.now();
    const facts = await candidateFacts(api, { at: clock, window: "5m", metadata });
    const alice = { id: "bench", kind: "operator" as const };
    const ids: string[] = [];
    for (let c = 0; c < CLUSTERS; c++) {
      const mine = facts.facts.filter((f) => f.identity.cluster === `c${c}`);
      const r = await createStoredRollout(deps, {
        type: "create",
        key: `bench-create-${c}`,
        actor: alice,
        title: `cluster c${c}`,
        input: {
          change: { kind: "doublewrite-off" },
          instances: mine,
          policy: { maxInstancesPerWave: PER_CLUSTER, maxClusterShare: 1, includePrimaries: false },
        },
      });
      const id = r.stored.state.id;
      ids.push(id);
      await runCommand(deps, id, {
        type: "attest-backup",
        key: `bench-backup-${c}`,
        actor: alice,
        takenAt: clock - 60,
      });
      await runCommand(deps, id, { type: "approve", key: `bench-approve-${c}`, actor: alice, wave: 0 });
    }
    // Half the rollouts pass their pre-wave gate and get their canary step marked done.
    const half = ids.slice(0, CLUSTERS / 2);
    clock += 30;
    for (const id of half)
      await reconcileRollouts(deps, { api, rolloutId: id, replication: healthy, metadata });
    clock += 30;
    for (const id of half) {
      const s = (await t.store.getRollout(id))!;
      const inst = (s.document as { waves: { instances: string[] }[] }).waves[0]!.instances;
      for (const i of inst)
        await runCommand(deps, id, {
          type: "step-done",
          key: `bench-done-${id}-${i}`,
          actor: alice,
          instance: i,
        });
    }
    const setupMs = performance.now() - setup0;
    const active = new Set<string>();
    for (const r of await t.store.listRollouts({ limit: 1000 }))
      for (const x of (r.document as { waves: { instances: string[]; controls: string[] }[] }).waves)
        for (const i of [...x.instances, ...x.controls]) active.add(i);
    log(`${kind}: ${ids.length} rollouts over ${active.size} instances set up in ${round(setupMs / 1000)} s`);

    const passes = [];
    for (let p = 0; p < PASSES; p++) {
      clock += 60;
      const paired = new Paired(
        new PromClient({ baseUrl: promUrl, timeoutMs: 120_000, maxConcurrency: 1 }),
        promUrl,
      );
      t.reset();
      const t0 = performance.now();
      // Pre-wave half: no replication source, so the gate waits ("no data") and reads facts every pass.
      const r = await reconcileRollouts({ ...deps, store: t.store }, { api: paired, metadata });
      const wall = performance.now() - t0 - paired.rawMs;
      const outcomes: Record<string, number> = {};
      for (const x of r.rollouts) outcomes[x.outcome] = (outcomes[x.outcome] ?? 0) + 1;
      const row = {
        wallMs: round(wall, 0),
        prometheusMs: round(paired.rawMs, 0),
        storeMs: round(t.ms(), 0),
        coreAndGlueMs: round(wall - paired.rawMs - t.ms(), 0),
        requests: paired.requests,
        storeCalls: t.calls(),
        outcomes,
      };
      passes.push(row);
      log(`${kind} pass ${p + 1}: ${JSON.stringify(row)}`);
    }
    return {
      backend: kind,
      rollouts: ids.length,
      activeInstances: active.size,
      setupMs: round(setupMs, 0),
      passes,
      median: {
        wallMs: median(passes.map((x) => x.wallMs)),
        prometheusMs: median(passes.map((x) => x.prometheusMs)),
        storeMs: median(passes.map((x) => x.storeMs)),
        coreAndGlueMs: median(passes.map((x) => x.coreAndGlueMs)),
        wallOverPrometheus: round(median(passes.map((x) => x.wallMs / x.prometheusMs)), 2),
        wallOverStore: round(median(passes.map((x) => x.wallMs / x.storeMs)), 2),
      },
    };
  } finally {
    await opened.close();
    await drop?.();
    rmSync(scratch, { recursive: true, force: true });
  }
}

const end = Math.floor(Date.now() / 1000 / 60) * 60 - 300;
const fleet = syntheticFleet(CLUSTERS * PER_CLUSTER, 42).map((x) => ({
  ...x,
  doublewrite: true,
  atomicUnitBytes: 16384,
}));
const work = await makeTempDir("rollout-bench");
try {
  log(`backfilling ${fleet.length} instances`);
  const b = await backfill(
    fleet,
    { start: end - 30 * 60, end, stepSeconds: STEP, slowStepSeconds: 60, noise: 0.05 },
    work,
  );
  const prom = await startPrometheus({ jobs: [], storagePath: b.dir });
  try {
    const results = [];
    for (const kind of ["pglite", "postgres"] as const) results.push(await benchBackend(kind, prom.url, end));
    const out = {
      benchmark: "rollout reconciler: one pass over 1,000 active instances",
      generatedAt: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpu: cpus()[0]?.model ?? "",
        memoryBytes: totalmem(),
        node: process.version,
        prometheus: execFileSync(requireBinary("prometheus", "prometheus"), ["--version"], {
          encoding: "utf8",
        })
          .split("\n")[0]!
          .trim(),
      },
      setup: {
        clusters: CLUSTERS,
        replicasPerCluster: PER_CLUSTER,
        method:
          "100 rollouts (doublewrite-off, one per cluster of 10 replicas, one wave of 10 plus its control); 50 wait for the read-back of 10 applied steps (history still reads ON, so every pass reads back and stores the state), 50 wait at the pre-wave gate (fresh facts every pass, replication unknown). Each pass: one request at a time, each re-issued with plain fetch right after (Prometheus time, subtracted from the wall time); store time = time inside store calls; core and glue = the rest.",
      },
      results,
    };
    mkdirSync(join(repoRoot(), "bench", "results"), { recursive: true });
    writeFileSync(
      join(repoRoot(), "bench", "results", "rollout-reconciler.json"),
      `${JSON.stringify(out, null, 2)}\n`,
    );
    log("wrote bench/results/rollout-reconciler.json");
  } finally {
    await prom.stop();
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
