// `untorn audit verify` against real stores (PGlite in a data directory, and PostgreSQL): an intact
// chain exits 0 with its head; a superuser's rewrite of one entry exits 4 naming that entry.
import {
  BACKENDS,
  openTestBackend,
  reconnectTestBackend,
  type TestBackend,
} from "@untorn/store/testing/backends";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../errors.js";
import { run } from "../program.js";
import { bufferIo } from "../testing/buffer-io.js";

describe.each(BACKENDS)("untorn audit verify on %s", (kind) => {
  let t: TestBackend;
  let args: string[];
  beforeAll(async () => {
    t = await openTestBackend(kind);
    for (let i = 0; i < 6; i++)
      await t.store.audit({
        actor: "alice (operator)",
        action: "test.entry",
        entity: "test",
        details: { i },
      });
    args =
      "dataDir" in t.reopen ? ["--data-dir", t.reopen.dataDir] : ["--database-url", t.reopen.databaseUrl];
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  // PGlite's data directory admits one process at a time: the test's own handle is closed around each run.
  async function verify(extra: string[] = []) {
    if (kind === "pglite") await t.backend.close();
    try {
      const io = bufferIo({});
      const code = await run(["audit", "verify", ...args, ...extra], io);
      return { code, out: io.stdout(), err: io.stderr() };
    } finally {
      if (kind === "pglite") t = await reconnectTestBackend(t);
    }
  }
  it("exits 0 on an intact chain and prints its head; --expect-head with that head holds", async () => {
    const r = await verify();
    expect(r.code, r.err).toBe(EXIT.ok);
    const head = /head ([0-9a-f]{64})/.exec(r.out)?.[1];
    expect(head).toBeDefined();
    expect((await verify(["--expect-head", head!])).code).toBe(EXIT.ok);
    expect((await verify(["--expect-head", "0".repeat(63) + "1"])).code).toBe(EXIT.verdict);
  });

  it("exits 4 with the first broken entry after a superuser rewrote one", async () => {
    const [, , victim] = await t.store.listAudit({ action: "test.entry" });
    await t.exec("ALTER TABLE untorn.audit_log DISABLE TRIGGER USER");
    await t.exec(`UPDATE untorn.audit_log SET details = '{"i": 99}' WHERE id = ${victim!.id}`);
    await t.exec("ALTER TABLE untorn.audit_log ENABLE TRIGGER USER");
    const r = await verify(["--json"]);
    expect(r.code).toBe(EXIT.verdict);
    expect(JSON.parse(r.out)).toMatchObject({ ok: false, brokenAt: victim!.seq, id: victim!.id });
    expect(r.err).toContain(`broken at entry ${victim!.seq}`);
  });
});
