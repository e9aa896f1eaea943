/** Opens each backend the same way openStore does, keeping the raw database for fault injection. */
import { sql } from "drizzle-orm";
import { type Backend, openBackend } from "../backend.js";
import { createRepository } from "../repository.js";
import type { Store } from "../store.js";
import { migratedDataDir } from "./pglite.js";
import { createTestDatabase } from "./postgres.js";

export const BACKENDS = ["pglite", "postgres"] as const;
export type BackendKind = (typeof BACKENDS)[number];

export interface TestBackend {
  kind: BackendKind;
  backend: Backend;
  store: Store;
  /** Options that open the same database again with openStore. */
  reopen: { dataDir: string } | { databaseUrl: string };
  /** Runs raw SQL on the store's own connection (PGlite allows no second one). */
  exec(statement: string): Promise<void>;
  cleanup(): Promise<void>;
}

/**
 * Opens `t`'s database again, after `t.backend.close()` (PGlite admits one process per data directory:
 * a test that runs another process on it closes its own handle first); cleanup drops it as before.
 */
export async function reconnectTestBackend(t: TestBackend): Promise<TestBackend> {
  const backend = await openBackend(t.reopen);
  return {
    ...t,
    backend,
    store: {
      ...createRepository(backend.db),
      backend: t.kind,
      location: backend.location,
      tryExclusive: backend.tryExclusive,
      flushTokenUse: async () => {},
      close: backend.close,
    },
    async exec(statement) {
      await backend.db.execute(sql.raw(statement));
    },
    async cleanup() {
      await backend.close();
      await t.cleanup();
    },
  };
}

export async function openTestBackend(kind: BackendKind): Promise<TestBackend> {
  let reopen: TestBackend["reopen"];
  let dispose: () => Promise<void>;
  if (kind === "pglite") {
    const dir = migratedDataDir();
    reopen = { dataDir: dir.path };
    dispose = async () => dir.remove();
  } else {
    const db = await createTestDatabase();
    reopen = { databaseUrl: db.url };
    dispose = db.drop;
  }
  let backend: Backend;
  try {
    backend = await openBackend(reopen);
  } catch (e) {
    await dispose();
    throw e;
  }
  const store: Store = {
    ...createRepository(backend.db),
    backend: kind,
    location: backend.location,
    tryExclusive: backend.tryExclusive,
    // Token uses go straight to recordTokenUse here; openStore's batching is tested through openStore.
    flushTokenUse: async () => {},
    close: backend.close,
  };
  return {
    kind,
    backend,
    store,
    reopen,
    async exec(statement) {
      await backend.db.execute(sql.raw(statement));
    },
    async cleanup() {
      await backend.close();
      await dispose();
    },
  };
}
