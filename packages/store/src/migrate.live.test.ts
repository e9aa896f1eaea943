import { execFile } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { sql } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openBackend } from "./backend.js";
import { MigrationError } from "./errors.js";
import { LOCK_FILE } from "./lock.js";
import { appliedMigrations, MIGRATIONS_FOLDER, type Migration, migrate, readMigrations } from "./migrate.js";
import { openStore } from "./store.js";
import { BACKENDS, openTestBackend, type TestBackend } from "./testing/backends.js";
import { tempDir } from "./testing/pglite.js";
import { createTestDatabase } from "./testing/postgres.js";

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

function listFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const p = path.join(dir, f);
    if (fs.statSync(p).isFile()) out[f] = fs.readFileSync(p, "utf8");
  }
  return out;
}

function extra(idx: number, tag: string, statements: string[]): Migration {
  return { idx, tag, hash: `test-${tag}`, statements };
}

describe("committed migrations", () => {
  it("match src/schema.ts: drizzle-kit generate finds nothing to add", async () => {
    const scratch = tempDir("untorn-drift-");
    try {
      const out = path.join(scratch.path, "migrations");
      fs.cpSync(MIGRATIONS_FOLDER, out, { recursive: true });
      const bin = path.join(path.dirname(createRequire(import.meta.url).resolve("drizzle-kit")), "bin.cjs");
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [bin, "generate", "--config", "drizzle.config.ts"],
        // drizzle-kit reads snapshots as `./${path}`, so an absolute out path breaks; it still exits 0.
        { cwd: PACKAGE_DIR, env: { ...process.env, DRIZZLE_OUT: path.relative(PACKAGE_DIR, out) } },
      );
      expect(stdout).toContain("No schema changes");
      // Would hold a new 000N_*.sql and snapshot if schema.ts had drifted; run `npm run gen:migrations`.
      expect(listFiles(out)).toEqual(listFiles(MIGRATIONS_FOLDER));
    } finally {
      scratch.remove();
    }
  });

  it("are numbered in order and split into statements", () => {
    const ms = readMigrations();
    expect(ms.length).toBeGreaterThan(0);
    expect(ms.map((m) => m.idx)).toEqual(ms.map((_, i) => i));
    expect(ms[0]!.statements[0]).toBe('CREATE SCHEMA "untorn";');
    for (const m of ms) expect(m.hash).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe.each(BACKENDS)("migrator on %s", (kind) => {
  let t: TestBackend;
  const base = readMigrations();
  beforeAll(async () => {
    t = await openTestBackend(kind);
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("records every migration with its hash and applies nothing twice", async () => {
    expect(await migrate(t.backend.db, t.backend.location)).toEqual([]);
    const applied = await appliedMigrations(t.backend.db);
    expect(applied.map(({ idx, tag, hash }) => ({ idx, tag, hash }))).toEqual(
      base.map(({ idx, tag, hash }) => ({ idx, tag, hash })),
    );
  });

  it("refuses to run when a committed migration was edited", async () => {
    const edited = base.map((m, i) => (i === 0 ? { ...m, hash: "0".repeat(64) } : m));
    const e = await migrate(t.backend.db, t.backend.location, edited).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MigrationError);
    expect((e as Error).message).toContain(`applied migration ${base[0]!.tag}`);
    expect((e as Error).message).toContain("a committed migration was edited");
  });

  it("rolls a failing migration back completely", async () => {
    const failing = [
      ...base,
      extra(base.length, "9999_half", [
        "CREATE TABLE untorn.half_done (x int)",
        "SELECT * FROM untorn.no_such_table",
      ]),
    ];
    const e = await migrate(t.backend.db, t.backend.location, failing).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MigrationError);
    expect((e as Error).message).toMatch(
      /migration 9999_half failed at statement 2: .*no_such_table.*rolled back/,
    );
    const exists = (await t.backend.db.execute(
      sql`SELECT to_regclass('untorn.half_done')::text AS t`,
    )) as unknown as {
      rows: { t: string | null }[];
    };
    expect(exists.rows[0]!.t).toBeNull();
    expect((await appliedMigrations(t.backend.db)).length).toBe(base.length);
  });

  it("applies a new migration, then refuses an older build that doesn't know it", async () => {
    const newer = [...base, extra(base.length, "9999_newer", ["CREATE TABLE untorn.newer_thing (x int)"])];
    expect(await migrate(t.backend.db, t.backend.location, newer)).toEqual(["9999_newer"]);
    await t.backend.close();
    const e = await openStore(t.reopen).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(MigrationError);
    expect((e as Error).message).toContain(`was migrated by a newer Untorn (migration 9999_newer)`);
    expect((e as Error).message).toContain(`this build knows migrations up to ${base.at(-1)!.tag}`);
    if ("dataDir" in t.reopen) {
      // A refused open releases the data directory.
      expect(fs.existsSync(path.join(t.reopen.dataDir, LOCK_FILE))).toBe(false);
    }
  });
});

describe("migrator on postgres, two processes starting at once", () => {
  it("applies each migration once under the advisory lock", async () => {
    const db = await createTestDatabase();
    try {
      const [a, b] = await Promise.all([
        openBackend({ databaseUrl: db.url }),
        openBackend({ databaseUrl: db.url }),
      ]);
      try {
        expect([a.applied, b.applied].sort((x, y) => y.length - x.length)).toEqual([
          readMigrations().map((m) => m.tag),
          [],
        ]);
      } finally {
        await a.close();
        await b.close();
      }
    } finally {
      await db.drop();
    }
  });
});
