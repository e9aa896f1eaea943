import { facts, load, mariadb1011, mysql8035 } from "../fixtures/build.js";
import { indicatorGroupTester } from "../fixtures/indicator-group-tester.js";

indicatorGroupTester("waits", {
  valid: [
    {
      name: "MySQL 8.0.35 with module_dblwr",
      facts: facts(
        "a",
        mysql8035,
        load({
          flushed: 100,
          doublewrite: true,
          txn: 10,
          waitFree: 2,
          flushWaits: 5,
          pendingFsyncs: 1,
          checkpointShare: 0.5,
        }),
      ),
      values: {
        freePageWaitsRate: 2,
        logWaitsRate: 0,
        checkpointAgeShare: 0.5,
        dblwrFlushWaitsRate: 5,
        pendingFsyncs: 1,
      },
      peaks: { freePageWaitsRate: 2.2, checkpointAgeShare: 0.6 },
      basis: { checkpointAgeShare: /checkpoint max age/ },
    },
    {
      name: "checkpoint age against the redo capacity",
      facts: facts(
        "b",
        mysql8035,
        { config: { redoLogCapacityBytes: 1000 } },
        { workload: { windowSeconds: 3600, gauges: { checkpointAgeBytes: { avg: 600, p95: 800 } } } },
      ),
      values: { checkpointAgeShare: 0.6 },
      peaks: { checkpointAgeShare: 0.8 },
      basis: { checkpointAgeShare: /redo log capacity/ },
    },
  ],
  invalid: [
    {
      name: "MariaDB: no module_dblwr",
      facts: facts("c", mariadb1011, load({ flushed: 100, doublewrite: true, txn: 10, flushWaits: 5 })),
      nulls: { dblwrFlushWaitsRate: { note: /module_dblwr exists on MySQL\/Percona 8\.0\.20\+ only/ } },
    },
    {
      name: "no gauges, no redo capacity",
      facts: facts("d", mysql8035),
      nulls: {
        checkpointAgeShare: {
          missing: ["workload.gauges.checkpointAgeBytes", "config.redoLogCapacityBytes"],
        },
        pendingFsyncs: { missing: ["workload.gauges.pendingFsyncs"] },
        dblwrMutexWaitRate: { missing: ["workload.rates.dblwrMutexWaitSeconds"] },
      },
    },
  ],
});
