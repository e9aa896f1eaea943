/** Throwaway PostgreSQL databases for tests: one uniquely named database per caller, dropped after. */
import { randomBytes } from "node:crypto";
import pg from "pg";

/** Server the tests create their databases on; the user needs CREATEDB. */
export const ADMIN_URL = process.env["UNTORN_TEST_DATABASE_URL"] ?? "postgres://postgres@127.0.0.1:5432/test";

const HOW_TO_START = `The store tests run on PGlite and on PostgreSQL, so PostgreSQL must be up: start it with \`pg_ctlcluster 15 main start\` (Debian; \`apt-get install postgresql\` if missing, trust auth for 127.0.0.1) or set UNTORN_TEST_DATABASE_URL to a server where the user may CREATE DATABASE.`;

export async function adminClient(): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 5000 });
  try {
    await client.connect();
  } catch (e) {
    await client.end().catch(() => {});
    const where = `${client.host}:${client.port}/${client.database}`;
    throw new Error(
      `PostgreSQL for the store tests is not reachable at ${where} as ${client.user}: ${(e as Error).message}. ${HOW_TO_START}`,
    );
  }
  return client;
}

export interface TestDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** CREATE DATABASE untorn_test_<time>_<pid>_<random>; parallel runs never share one. */
export async function createTestDatabase(): Promise<TestDatabase> {
  const name = `untorn_test_${Date.now().toString(36)}_${process.pid}_${randomBytes(3).toString("hex")}`;
  const admin = await adminClient();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    async drop() {
      const a = await adminClient();
      try {
        // FORCE (PostgreSQL 13+) ends sessions a failed test left open.
        await a.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await a.end();
      }
    },
  };
}
