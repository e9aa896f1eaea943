/**
 * The process's one store (embedded PGlite in UNTORN_DATA_DIR, or PostgreSQL with DATABASE_URL), opened
 * on first use. @untorn/store is loaded at run time, not bundled: it finds its SQL migrations next to
 * its own files, and PGlite loads its WASM the same way.
 */
import path from "node:path";
import type { Store } from "@untorn/store/store";
import type { Env } from "../env.js";

type StoreModule = typeof import("@untorn/store/store");

const importStore = (): Promise<StoreModule> =>
  import(/* turbopackIgnore: true */ /* webpackIgnore: true */ "@untorn/store/store") as Promise<StoreModule>;

interface Holder {
  store?: Promise<Store>;
  /** When the last open failed, and why (retried after RETRY_MS). */
  failed?: { at: number; error: Error };
}

const RETRY_MS = 10_000;
// One per process even when a dev server reloads this module.
const shared = globalThis as { __untornStore?: Holder };
shared.__untornStore ??= {};
const holder: Holder = shared.__untornStore;

export function storeLocation(e: Env): string {
  return e.DATABASE_URL ? "PostgreSQL (DATABASE_URL)" : path.resolve(e.UNTORN_DATA_DIR);
}

/** The store, or throws the open error (StoreOpenError says where and what to do). */
export async function getStore(e: Env): Promise<Store> {
  if (holder.failed && Date.now() - holder.failed.at < RETRY_MS) throw holder.failed.error;
  holder.store ??= importStore().then((m) =>
    m.openStore(
      e.DATABASE_URL
        ? {
            databaseUrl: e.DATABASE_URL,
            ...(e.UNTORN_MIGRATION_DATABASE_URL
              ? { migrationDatabaseUrl: e.UNTORN_MIGRATION_DATABASE_URL }
              : {}),
          }
        : { dataDir: path.resolve(e.UNTORN_DATA_DIR) },
    ),
  );
  try {
    const s = await holder.store;
    holder.failed = undefined;
    return s;
  } catch (err) {
    holder.store = undefined;
    holder.failed = { at: Date.now(), error: err as Error };
    throw err;
  }
}
