/**
 * Runs in a separate process (node --import tsx) for tests that need a second process:
 *   open <dataDir>   open and close, print {"ok":true} or the error as JSON
 *   write <dataDir>  open, write one row, print "ready", then append audit rows forever,
 *                    printing "wrote <n>" after each commit, until killed
 *   rollout <dataDir|postgres URL> <rolloutId>
 *                    commits rollout commands (key `tick-<id>-<n>`, three events each) with the
 *                    version it read, printing "wrote <n>" after each commit, until killed
 */
import { openStore } from "../store.js";

const [mode, where, rolloutId] = process.argv.slice(2);
try {
  const store = await openStore(
    where!.startsWith("postgres") ? { databaseUrl: where! } : { dataDir: where! },
  );
  if (mode === "rollout") {
    let version = (await store.getRollout(rolloutId!))!.version;
    process.stdout.write("ready\n");
    for (let n = 1; ; n++) {
      const r = await store.commitRollout({
        id: rolloutId!,
        expectedVersion: version,
        actor: "child",
        command: "tick",
        idempotencyKey: `tick-${rolloutId}-${n}`,
        request: { n },
        state: "running",
        document: { ticks: n, padding: "x".repeat(2000) },
        events: [1, 2, 3].map((k) => ({ type: "tick", evidence: { n, k } })),
        outcome: { n },
      });
      version = r.version;
      process.stdout.write(`wrote ${n}\n`);
    }
  } else if (mode === "open") {
    await store.close();
    console.log(JSON.stringify({ ok: true }));
  } else {
    await store.upsertInstanceMetadata({
      instance: "before-crash:3306",
      notes: "committed before",
      actor: "child",
    });
    process.stdout.write("ready\n");
    for (let n = 1; ; n++) {
      await store.audit({ actor: "child", action: "tick", entity: "test", entityId: String(n) });
      process.stdout.write(`wrote ${n}\n`);
    }
  }
} catch (e) {
  const err = e as Error & { pid?: number };
  console.log(JSON.stringify({ ok: false, name: err.name, message: err.message, pid: err.pid }));
  process.exitCode = 1;
}
