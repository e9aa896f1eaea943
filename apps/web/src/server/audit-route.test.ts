/** GET /api/v1/audit with bad input: each a 400 naming the parameter, never a 500 (a real PGlite store). */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Principal, runAs } from "./auth/access.js";

let dir: string;
const admin: Principal = { name: "ada", role: "admin", via: "session" };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-audit-route-"));
  process.env.UNTORN_DATA_DIR = path.join(dir, "store");
  const { getStore } = await import("./store.js");
  const { env } = await import("../env.js");
  const store = await getStore(env());
  await store.audit({ actor: "alice (operator)", action: "test.x", entity: "test" });
}, 120_000);

afterAll(async () => {
  const { getStore } = await import("./store.js");
  const { env } = await import("../env.js");
  await (await getStore(env())).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function get(
  query: string,
): Promise<{ status: number; body: { error?: string; entries?: unknown[] } }> {
  const { GET } = await import("../app/api/v1/audit/route.js");
  const res = await runAs(admin, () => GET(new Request(`http://127.0.0.1:3000/api/v1/audit?${query}`), {}));
  return { status: res.status, body: await res.json() };
}

describe("GET /api/v1/audit", () => {
  it.each([
    ["actor=%00", /actor/],
    ["entityId=a%00b", /entityId/],
    ["action=%0a", /action/],
    ["from=yesterday", /from/],
    ["to=2026-02-30", /to/],
    ["limit=0", /limit/],
    ["actor=a&actor=b", /more than once/],
    ["nonsense=1", /nonsense|Unrecognized/i],
  ])("%s is a 400", async (query, why) => {
    const r = await get(query);
    expect(r.status).toBe(400);
    expect(r.body.error).toMatch(why);
  });

  it("filters by date", async () => {
    expect((await get("from=2000-01-01")).body.entries?.length).toBeGreaterThan(0);
    expect((await get("to=2000-01-01")).body.entries).toHaveLength(0);
  });
});
