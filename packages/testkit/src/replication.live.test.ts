import { describe, expect, it } from "vitest";
import { startReplicaSet } from "./replication.js";
import { prepareSysbench, runSysbench, targetOf } from "./sysbench.js";
import { throttleAvailable } from "./throttle.js";

const unavailable = await throttleAvailable();
if (unavailable) console.warn(`SKIPPING the IOPS-capped replica test: ${unavailable}`);
const skipNote = unavailable ? ` (SKIPPED: ${unavailable})` : "";

describe("replica set", () => {
  it("refuses a throttled replica index outside the set", async () => {
    await expect(startReplicaSet({ replicas: 2, throttle: { replica: 2 } })).rejects.toThrow(
      /throttle.replica must be a replica index in 0..1/,
    );
  });

  it("replicates sysbench from the primary to two GTID replicas and survives a replica restart", async () => {
    const set = await startReplicaSet({ common: { bufferPoolSize: "16M" } });
    try {
      expect(set.replicas).toHaveLength(2);
      const ids = await Promise.all(
        [set.primary, ...set.replicas].map(async (db) => {
          const [row] = await db.query<{ id: number; ro: number }>(
            "SELECT @@server_id AS id, @@read_only AS ro",
          );
          return row;
        }),
      );
      expect(ids).toEqual([
        { id: 1, ro: 0 },
        { id: 2, ro: 1 },
        { id: 3, ro: 1 },
      ]);

      await prepareSysbench(set.primary, { tables: 1, tableSize: 2000 });
      const result = await runSysbench(targetOf(set.primary), {
        tables: 1,
        tableSize: 2000,
        time: 3,
        threads: 2,
        rate: 300,
      });
      expect(result.transactions).toBeGreaterThan(0);
      // --rate paces the load (a demand-bound workload): well under what 2 threads do unpaced.
      expect(result.tps).toBeLessThan(300 * 1.3);
      await set.waitForCatchUp({ timeoutMs: 60_000 });

      const count = async (db: (typeof set.replicas)[number]) => {
        const [row] = await db.query<{ n: number; s: string }>(
          "SELECT COUNT(*) AS n, SUM(k) AS s FROM sbtest.sbtest1",
        );
        return row;
      };
      const onPrimary = await count(set.primary);
      for (const r of set.replicas) {
        expect(await count(r)).toEqual(onPrimary);
        expect(await set.transactionsBehind(r)).toBe(0);
        const st = await set.status(r);
        expect(st).toMatchObject({ ioRunning: "Yes", sqlRunning: "Yes", lastSqlErrno: 0, masterServerId: 1 });
        expect(st.gtidIoPos).toMatch(/^0-1-\d+$/);
        expect(await set.lagSeconds(r)).toBe(0);
      }

      // The canary's move: restart with doublewrite off; replication resumes and catches up.
      const canary = set.replicas[0]!;
      await set.restartReplica(canary, { doublewrite: false });
      const [dw] = await canary.query<{ v: string }>("SELECT @@innodb_doublewrite AS v");
      expect(Number(dw?.v)).toBe(0);
      const [sid] = await canary.query<{ id: number }>("SELECT @@server_id AS id");
      expect(sid?.id).toBe(2);
      await set.primary.query("UPDATE sbtest.sbtest1 SET k = k + 1 WHERE id <= 100");
      await set.waitForCatchUp({ timeoutMs: 60_000 });
      expect(await count(canary)).toEqual(await count(set.primary));

      // A stopped applier: lag is unknown (null), not 0, and the primary's writes pile up.
      await canary.query("STOP SLAVE SQL_THREAD");
      await set.primary.query("UPDATE sbtest.sbtest1 SET k = k + 1 WHERE id <= 10");
      const stopped = await set.status(canary);
      expect(stopped.sqlRunning).toBe("No");
      expect(stopped.lagSeconds).toBeNull();
      expect(await set.transactionsBehind(canary)).toBeGreaterThan(0);
      await expect(set.waitForCatchUp({ replicas: [canary], timeoutMs: 1000 })).rejects.toThrow(
        /did not reach .* SQL No/,
      );
    } finally {
      await set.destroy();
    }
  });

  describe.skipIf(Boolean(unavailable))(`with an IOPS-capped replica${skipNote}`, () => {
    it("puts the chosen replica's datadir on the capped volume and its mariadbd in the cgroup", async () => {
      const set = await startReplicaSet({
        replicas: 2,
        common: { bufferPoolSize: "16M" },
        throttle: { replica: 1, writeIops: 400, sizeMiB: 1024 },
      });
      try {
        const v = set.volume!;
        const capped = set.replicas[1]!;
        expect(capped.datadir.startsWith(v.mountPoint)).toBe(true);
        expect(set.replicas[0]!.datadir.startsWith(v.mountPoint)).toBe(false);
        expect(await v.pids()).toContain(capped.pid);
        await set.primary.query("CREATE DATABASE t");
        await set.primary.query("CREATE TABLE t.a (id INT PRIMARY KEY) ENGINE=InnoDB");
        await set.primary.query("INSERT INTO t.a VALUES (1), (2), (3)");
        await set.waitForCatchUp({ timeoutMs: 60_000 });
        const [row] = await capped.query<{ n: number }>("SELECT COUNT(*) AS n FROM t.a");
        expect(row?.n).toBe(3);
        // Restarted with new options, it comes back inside the cgroup.
        await set.restartReplica(capped, { doublewrite: false });
        expect(await v.pids()).toContain(capped.pid);
      } finally {
        await set.destroy();
      }
      expect(set.volume).toBeUndefined();
    });
  });
});
