/** The console's tests' and benchmark's mixed fleet, from the fixture instances, for any package's tests. */
import type { FakeInstance } from "./fake-api.js";
import { fakeInstance, HEAVY, IDLE, type Load } from "./fixtures.js";

const MEDIUM: Load = { flushed: 300, txn: 80, waitFree: 0, util: 0.35, writeLatency: 0.0008 };

/** A small mixed fleet: write-bound on plain and on atomic storage, doublewrite off, idle, MySQL. */
export const SMALL_FLEET: readonly FakeInstance[] = [
  fakeInstance("db-heavy-plain:9105", { load: HEAVY }),
  fakeInstance("db-heavy-atomic:9105", { load: HEAVY, storage: "atomic" }),
  fakeInstance("db-off:9105", { load: HEAVY, doublewrite: false }),
  fakeInstance("db-idle:9105", { load: IDLE }),
  fakeInstance("mysql-medium:9105", { load: MEDIUM, flavor: "mysql" }),
  { instance: "db-down:9105", presence: { untorn: 0 }, sampledSteps: 0 },
];
