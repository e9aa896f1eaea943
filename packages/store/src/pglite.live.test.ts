import fs from "node:fs";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, inject, it, vi } from "vitest";
import { StoreLockedError, StoreOpenError } from "./errors.js";
import { LOCK_FILE } from "./lock.js";
import * as pglite from "./pglite.js";
import { MARKER_FILE, openPglite, PGDATA_DIR } from "./pglite.js";
import { openStore } from "./store.js";
import { migratedDataDir, type TempDir, tempDir } from "./testing/pglite.js";
import { child, killChildren } from "./testing/spawn-child.js";

const dirs: TempDir[] = [];
afterEach(() => {
  vi.restoreAllMocks();
  killChildren();
  for (const d of dirs.splice(0)) d.remove();
});

function scratch(): string {
  const d = tempDir();
  dirs.push(d);
  return d.path;
}

function migrated(): string {
  const d = migratedDataDir();
  dirs.push(d);
  return d.path;
}

/** A store directory that never gets as far as starting PGlite: marker and a PG_VERSION. */
function fakeStore(): string {
  const dir = path.join(scratch(), "data");
  fs.mkdirSync(path.join(dir, PGDATA_DIR), { recursive: true });
  fs.writeFileSync(path.join(dir, PGDATA_DIR, "PG_VERSION"), "18\n");
  fs.writeFileSync(
    path.join(dir, MARKER_FILE),
    JSON.stringify({
      format: "untorn-store",
      formatVersion: 1,
      engine: "pglite",
      state: "ready",
      createdAt: "x",
    }),
  );
  return dir;
}

async function openError(dataDir: string): Promise<StoreOpenError> {
  try {
    const s = await openStore({ dataDir });
    await s.close();
  } catch (e) {
    expect(e).toBeInstanceOf(StoreOpenError);
    return e as StoreOpenError;
  }
  throw new Error(`openStore(${dataDir}) succeeded`);
}

/** Every file under `dir` with its size and mtime: proves a refused open changed nothing. */
function snapshot(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true, withFileTypes: true }) as fs.Dirent[])
    .map((e) => {
      const p = path.join(e.parentPath, e.name);
      const s = fs.statSync(p);
      return `${path.relative(dir, p)} ${s.isFile() ? s.size : "dir"} ${s.mtimeMs}`;
    })
    .sort();
}

// PGlite's initdb and child processes take tens of seconds on a busy 2-core machine, more with fsync on.
describe("PGlite data directory", { timeout: 120_000 }, () => {
  it("creates a missing directory, initialises and migrates it without any network access", async () => {
    const dir = path.join(scratch(), "nested", "data");
    const fetchSpy = vi.spyOn(globalThis, "fetch").mockRejectedValue(new Error("no network in this test"));
    const store = await openStore({ dataDir: dir });
    try {
      expect(fetchSpy).not.toHaveBeenCalled();
      expect(store.backend).toBe("pglite");
      expect(store.location).toBe(dir);
      expect(JSON.parse(fs.readFileSync(path.join(dir, MARKER_FILE), "utf8"))).toMatchObject({
        format: "untorn-store",
        state: "ready",
      });
      expect(fs.readFileSync(path.join(dir, PGDATA_DIR, "PG_VERSION"), "utf8").trim()).toMatch(/^\d+$/);
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
      await store.upsertInstanceMetadata({ instance: "db:3306", actor: "alice" });
      expect(await store.getInstanceMetadata("db:3306")).not.toBeNull();
    } finally {
      await store.close();
    }
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  });

  it("redoes a first start that died before it finished", async () => {
    const dir = fakeStore();
    const marker = JSON.parse(fs.readFileSync(path.join(dir, MARKER_FILE), "utf8"));
    fs.writeFileSync(path.join(dir, MARKER_FILE), JSON.stringify({ ...marker, state: "initialising" }));
    fs.writeFileSync(path.join(dir, PGDATA_DIR, "half-written"), "x");
    const store = await openStore({ dataDir: dir });
    await store.close();
    expect(fs.existsSync(path.join(dir, PGDATA_DIR, "half-written"))).toBe(false);
    expect(JSON.parse(fs.readFileSync(path.join(dir, MARKER_FILE), "utf8")).state).toBe("ready");
  });

  it("refuses a path that is a file, and leaves the file alone", async () => {
    const file = path.join(scratch(), "store");
    fs.writeFileSync(file, "my notes");
    const e = await openError(file);
    expect(e.location).toBe(file);
    expect(e.message).toBe(
      `data directory ${file} is a file, not a directory. Move the file away or choose another data directory.`,
    );
    expect(fs.readFileSync(file, "utf8")).toBe("my notes");
  });

  it("refuses a path below a file", async () => {
    const file = path.join(scratch(), "store");
    fs.writeFileSync(file, "");
    const e = await openError(path.join(file, "data"));
    expect(e.message).toContain(`${path.join(file, "data")}`);
    expect(e.message).toMatch(/ENOTDIR|ENOENT|EEXIST/);
  });

  it("refuses a directory this user can't read and write", async () => {
    const parent = scratch();
    const dir = path.join(parent, "data");
    fs.mkdirSync(dir, { mode: 0o700 });
    if (process.getuid?.() === 0) {
      // root ignores permission bits: ask an unprivileged user to open root's 0700 directory.
      fs.chmodSync(parent, 0o755);
      const c = child(["open", dir], { uid: 65534, gid: 65534 });
      expect(await c.exited).toBe(1);
      const out = JSON.parse(c.lines.at(-1)!);
      expect(out).toMatchObject({ ok: false, name: "StoreOpenError" });
      expect(out.message).toBe(
        `data directory ${dir} is not readable and writable by this user (uid 65534) (EACCES). Fix its owner or permissions (chown/chmod), or choose another data directory.`,
      );
    } else {
      fs.chmodSync(dir, 0o500);
      const e = await openError(dir);
      expect(e.message).toContain("is not readable and writable by this user");
    }
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  it("refuses a non-empty directory it did not create, writing nothing into it", async () => {
    const dir = scratch();
    fs.writeFileSync(path.join(dir, "notes.txt"), "hello");
    fs.mkdirSync(path.join(dir, "backups"));
    const before = snapshot(dir);
    const e = await openError(dir);
    expect(e.message).toContain(`${dir} is not an Untorn data directory: it holds`);
    expect(e.message).toMatch(/notes\.txt/);
    expect(snapshot(dir)).toEqual(before);
  });

  it("refuses a damaged marker and one from a newer Untorn", async () => {
    const dir = fakeStore();
    const markerPath = path.join(dir, MARKER_FILE);
    const marker = fs.readFileSync(markerPath, "utf8");
    fs.writeFileSync(markerPath, "{ not json");
    expect((await openError(dir)).message).toContain(`${markerPath} is damaged`);
    fs.writeFileSync(markerPath, JSON.stringify({ ...JSON.parse(marker), formatVersion: 99 }));
    expect((await openError(dir)).message).toContain("was created by a newer Untorn (store format 99");
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  });

  it("refuses a store whose database files are gone instead of starting empty", async () => {
    const dir = fakeStore();
    fs.rmSync(path.join(dir, PGDATA_DIR), { recursive: true });
    const e = await openError(dir);
    expect(e.message).toContain(`data directory ${dir} is damaged: pgdata/PG_VERSION is missing`);
    expect(e.message).toContain("Restore the directory from a backup");
    expect(fs.readdirSync(dir)).toEqual([MARKER_FILE]);
  });

  it("reports PostgreSQL's own complaint about damaged or foreign database files", async () => {
    const dir = migrated();
    const control = path.join(dir, PGDATA_DIR, "global", "pg_control");
    fs.writeFileSync(control, Buffer.alloc(8192, 0x41));
    const e = await openError(dir);
    expect(e.message).toContain(`cannot open the embedded database in ${path.join(dir, PGDATA_DIR)}`);
    expect(e.message).toContain("PG_CONTROL_VERSION 1094795585");
    expect(e.message).toContain("restore the directory from a backup");
    expect(fs.readFileSync(control)).toEqual(Buffer.alloc(8192, 0x41));

    fs.copyFileSync(path.join(inject("pgliteTemplate"), PGDATA_DIR, "global", "pg_control"), control);
    fs.writeFileSync(path.join(dir, PGDATA_DIR, "PG_VERSION"), "16\n");
    const v = await openError(dir);
    expect(v.message).toContain("initialized by PostgreSQL version 16");
    expect(v.message).toContain("open them with the Untorn version that created them and export the data");
  });

  it("reports a WAL it cannot replay instead of crashing", async () => {
    const dir = migrated();
    const wal = path.join(dir, PGDATA_DIR, "pg_wal");
    for (const f of fs.readdirSync(wal).filter((n) => /^[0-9A-F]{24}$/.test(n))) {
      fs.writeFileSync(path.join(wal, f), Buffer.alloc(fs.statSync(path.join(wal, f)).size, 0x5a));
    }
    const e = await openError(dir);
    expect(e.message).toContain("PANIC: could not locate a valid checkpoint record");
    expect(e.message).toContain("Restore the directory from a backup");
    expect(fs.existsSync(path.join(dir, LOCK_FILE))).toBe(false);
  });
});

describe("PGlite data directory lock", { timeout: 120_000 }, () => {
  it("refuses a second open in the same process until the first closes", async () => {
    const dir = migrated();
    const first = await openStore({ dataDir: dir });
    try {
      const e = await openError(dir);
      expect(e).toBeInstanceOf(StoreLockedError);
      expect(e.message).toContain(`this process (${process.pid}) already has it open`);
    } finally {
      await first.close();
    }
    const second = await openStore({ dataDir: dir });
    await second.close();
  });

  it("refuses a directory another process has open, then recovers its committed writes after it is killed mid-write", async () => {
    const dir = migrated();
    const c = child(["write", dir]);
    await c.waitFor((l) => l.includes("ready"), "ready");
    const locked = await openError(dir);
    expect(locked).toBeInstanceOf(StoreLockedError);
    expect((locked as StoreLockedError).pid).toBe(c.proc.pid);
    expect(locked.message).toContain(`data directory ${dir} is locked by process ${c.proc.pid}`);

    await c.waitFor((l) => l.filter((x) => x.startsWith("wrote ")).length >= 20, "20 writes");
    c.proc.kill("SIGKILL");
    await c.exited;
    const acknowledged = Math.max(
      ...c.lines.filter((x) => x.startsWith("wrote ")).map((x) => Number(x.slice(6))),
    );

    const store = await openStore({ dataDir: dir });
    try {
      expect(await store.getInstanceMetadata("before-crash:3306")).toMatchObject({
        notes: "committed before",
      });
      const ticks = (await store.listAudit({ entity: "test", limit: 1000 })).map((a) => Number(a.entityId));
      // Every write the child saw committed survived; at most the one in flight may be extra.
      expect(ticks.length).toBeGreaterThanOrEqual(acknowledged);
      expect(ticks.length).toBeLessThanOrEqual(acknowledged + 1);
      expect([...ticks].sort((a, b) => a - b)).toEqual(Array.from({ length: ticks.length }, (_, i) => i + 1));
      expect(JSON.parse(fs.readFileSync(path.join(dir, LOCK_FILE), "utf8")).pid).toBe(process.pid);
    } finally {
      await store.close();
    }
  });
});

describe("durability", { timeout: 120_000 }, () => {
  const setting = async (b: pglite.PgliteBackend, name: "fsync" | "wal_sync_method" | "shared_buffers") =>
    ((await b.db.execute(sql.raw(`SHOW ${name}`))) as unknown as { rows: Record<string, string>[] }).rows[0]![
      name
    ];

  it("is durable by default: fsync on, and a commit reaches fsync(2)", async () => {
    const b = await openPglite(migrated());
    try {
      expect(await setting(b, "fsync")).toBe("on");
      expect(await setting(b, "wal_sync_method")).toBe("fsync");
      expect(await setting(b, "shared_buffers")).toBe(pglite.EMBEDDED_SHARED_BUFFERS);
      const before = pglite.fsyncCalls;
      await b.db.execute(sql.raw("CREATE TABLE durable_probe (x int)"));
      await b.db.execute(sql.raw("INSERT INTO durable_probe VALUES (1)"));
      expect(pglite.fsyncCalls).toBeGreaterThan(before);
    } finally {
      await b.close();
    }
  });

  it("skips fsync only when asked (tests and benchmarks)", async () => {
    const b = await openPglite(migrated(), { durable: false });
    try {
      expect(await setting(b, "fsync")).toBe("off");
      expect(await setting(b, "shared_buffers")).toBe(pglite.EMBEDDED_SHARED_BUFFERS);
      const before = pglite.fsyncCalls;
      await b.db.execute(sql.raw("CREATE TABLE relaxed_probe (x int)"));
      await b.db.execute(sql.raw("INSERT INTO relaxed_probe VALUES (1)"));
      expect(pglite.fsyncCalls).toBe(before);
    } finally {
      await b.close();
    }
  });

  it("durable start parameters drop PGlite's -F and sync the WAL with fsync", () => {
    expect(pglite.durableStartParams(["--single", "-F", "-O"])).toEqual([
      "--single",
      "-O",
      "-c",
      `shared_buffers=${pglite.EMBEDDED_SHARED_BUFFERS}`,
      "-c",
      "fsync=on",
      "-c",
      "wal_sync_method=fsync",
    ]);
  });
});
