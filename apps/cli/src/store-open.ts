/** Which store a command opens (the embedded data directory or PostgreSQL) and opening it, for every command that reads or writes the store. */
import { StoreOpenError } from "@untorn/store/errors";
import { type OpenStoreOptions, openStore, type Store } from "@untorn/store/store";
import { z } from "zod";
import { CliError, EXIT } from "./errors.js";
import type { Io } from "./io.js";

export const DEFAULT_DATA_DIR = ".untorn-data";

export interface StoreFlags {
  dataDir?: string;
  databaseUrl?: string;
}

const POSTGRES_URL = /^postgres(ql)?:\/\//;

const StoreEnv = z.object({
  UNTORN_DATA_DIR: z.string().min(1).optional().catch(undefined),
  DATABASE_URL: z.string().min(1).optional().catch(undefined),
});

/** The store the flags and the environment name: a usage error for a URL that is not PostgreSQL's. */
export function storeTarget(flags: StoreFlags, io: Io): { databaseUrl: string } | { dataDir: string } {
  const env = StoreEnv.parse(io.env);
  const databaseUrl = flags.databaseUrl ?? env.DATABASE_URL;
  if (databaseUrl !== undefined && !POSTGRES_URL.test(databaseUrl))
    throw new CliError(
      `${flags.databaseUrl !== undefined ? "--database-url" : "DATABASE_URL"}: expected a postgres:// or postgresql:// URL`,
      EXIT.usage,
    );
  return databaseUrl
    ? { databaseUrl }
    : { dataDir: flags.dataDir ?? env.UNTORN_DATA_DIR ?? DEFAULT_DATA_DIR };
}

/** Opens the store; one that cannot be opened (locked, unreachable, not migrated) exits 1 with why. */
export async function openCliStore(
  target: ReturnType<typeof storeTarget>,
  options: Pick<OpenStoreOptions, "migrations"> = {},
): Promise<Store> {
  try {
    return await openStore({ ...target, ...options });
  } catch (e) {
    if (e instanceof StoreOpenError) throw new CliError(`cannot open the store: ${e.message}`, EXIT.failure);
    throw e;
  }
}
