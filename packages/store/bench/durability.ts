// Benchmark: the embedded store's write-heavy operations, durable (the default: every commit's WAL
// fsync'ed) vs durable: false (PGlite's own fsync=off, tests and benchmarks only), side by side in one
// run: rounds alternate A, B, A, B so both see the same machine load. Each round on each store: metadata
// upserts (row + audit entry in one transaction), sessions created, and reads (which sync nothing).
// Writes bench/results/store-durability.json. Run: npm run bench -w @untorn/store
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { openStore, type Store } from "../src/store.js";

const ROUNDS = 5;
const WRITES = 100;
const READS = 200;
const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, "../../..");
const log = (m: string) => process.stderr.write(`[bench store] ${m}\n`);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;

async function timed(n: number, op: (i: number) => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await op(i);
  return (performance.now() - t0) / n;
}

interface Sample {
  upsertMs: number;
  sessionMs: number;
  readMs: number;
}

async function roundOn(store: Store, userId: string, r: number): Promise<Sample> {
  const upsertMs = await timed(WRITES, (i) =>
    store.upsertInstanceMetadata({
      instance: `db-${i % 20}:3306`,
      actor: "bench",
      notes: `round ${r} write ${i}`,
    }),
  );
  const sessionMs = await timed(WRITES, (i) =>
    store.createSession({
      idHash: createHash("sha256").update(`${r}-${i}-${Math.random()}`).digest("hex"),
      userId,
      expiresAt: new Date(Date.now() + 3600_000),
    }),
  );
  const readMs = await timed(READS, (i) => store.getInstanceMetadata(`db-${i % 20}:3306`));
  return { upsertMs, sessionMs, readMs };
}

// On the repository's own filesystem, not a tmpfs, so fsync reaches a disk.
const scratch = mkdtempSync(path.join(repo, ".bench-store-"));
try {
  const stores = {
    durable: await openStore({ dataDir: path.join(scratch, "durable") }),
    relaxed: await openStore({ dataDir: path.join(scratch, "relaxed"), durable: false }),
  };
  const users: Record<string, string> = {};
  for (const [k, s] of Object.entries(stores))
    users[k] = (
      await s.createUser({ username: "bench", passwordHash: "x", role: "viewer", actor: "bench" })
    ).id;
  const samples: Record<keyof typeof stores, Sample[]> = { durable: [], relaxed: [] };
  for (let r = 0; r < ROUNDS; r++)
    for (const k of (r % 2 ? ["relaxed", "durable"] : ["durable", "relaxed"]) as (keyof typeof stores)[]) {
      const s = await roundOn(stores[k], users[k]!, r);
      samples[k].push(s);
      log(
        `round ${r + 1} ${k}: upsert ${round(s.upsertMs)} ms, session ${round(s.sessionMs)} ms, read ${round(s.readMs)} ms`,
      );
    }
  for (const s of Object.values(stores)) await s.close();
  const summary = (k: keyof typeof stores) => ({
    upsertMsMedian: round(median(samples[k].map((s) => s.upsertMs))),
    sessionMsMedian: round(median(samples[k].map((s) => s.sessionMs))),
    readMsMedian: round(median(samples[k].map((s) => s.readMs)), 3),
  });
  const durable = summary("durable");
  const relaxed = summary("relaxed");
  const result = {
    bench: "store-durability",
    at: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      memGiB: round(totalmem() / 2 ** 30, 1),
      loadavg: loadavg().map((x) => round(x)),
    },
    note: "PGlite on the repository's ext4 filesystem; rounds interleaved; the machine is shared (load average above)",
    rounds: ROUNDS,
    opsPerRound: { upserts: WRITES, sessions: WRITES, reads: READS },
    durable,
    relaxed,
    ratio: {
      upsert: round(durable.upsertMsMedian / relaxed.upsertMsMedian),
      session: round(durable.sessionMsMedian / relaxed.sessionMsMedian),
      read: round(durable.readMsMedian / relaxed.readMsMedian),
    },
    samples,
  };
  const out = path.join(repo, "bench/results/store-durability.json");
  mkdirSync(path.dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(result, null, 2)}\n`);
  log(
    `durable/relaxed: upsert ${result.ratio.upsert}x, session ${result.ratio.session}x, read ${result.ratio.read}x -> ${out}`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
