import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { encodeReplay } from "@untorn/fleet/replay";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { IDLE } from "../lib/metadata-form.js";
import { smallReplay } from "../testing/fleet-facts.js";
import { type Principal, runAs } from "./auth/access.js";

const revalidated: string[] = [];
vi.mock("next/cache", () => ({ revalidatePath: (p: string) => revalidated.push(p) }));

let dir: string;
const operator: Principal = { name: "olga", role: "operator", via: "session" };
const viewer: Principal = { name: "vic", role: "viewer", via: "session" };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-actions-"));
  fs.writeFileSync(path.join(dir, "fleet.json.gz"), encodeReplay(smallReplay()));
  process.env.UNTORN_REPLAY = path.join(dir, "fleet.json.gz");
  process.env.UNTORN_DATA_DIR = path.join(dir, "store");
  // Loaded and opened here, under the hook's longer timeout, not in the first test.
  await import("./actions.js");
  await (await import("./fleet/data.js")).metadataStore();
});

afterAll(async () => {
  const { metadataStore } = await import("./fleet/data.js");
  await (await metadataStore()).close();
  fs.rmSync(dir, { recursive: true, force: true });
});

const form = (fields: Record<string, string>) => {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  f.set("$ACTION_ID_abc", "");
  return f;
};

describe("saveInstanceMetadata", () => {
  it("refuses anyone but an operator or admin and writes nothing", async () => {
    const { saveInstanceMetadata } = await import("./actions.js");
    const { metadataStore } = await import("./fleet/data.js");
    for (const who of [null, viewer]) {
      const r = await runAs(who, () =>
        saveInstanceMetadata(IDLE, form({ instance: "db-idle:9105", cluster: "x" })),
      );
      expect(r).toMatchObject({ status: "error", denied: who ? 403 : 401 });
      expect(r.message).toMatch(who ? /needs the operator role; vic is viewer/ : /sign in first/);
    }
    expect(await (await metadataStore()).getInstanceMetadata("db-idle:9105")).toBeNull();
    // The signed-in viewer's refused call is in the audit; the anonymous one is not.
    const denied = await (await metadataStore()).listAudit({ action: "access.denied" });
    expect(denied).toHaveLength(1);
    expect(denied[0]).toMatchObject({
      actor: "vic (viewer)",
      entityId: "saveInstanceMetadata",
      details: { needed: "operator", role: "viewer" },
    });
  });

  it("reports bad fields by name", async () => {
    const { saveInstanceMetadata } = await import("./actions.js");
    const r = await runAs(operator, () =>
      saveInstanceMetadata(IDLE, form({ instance: "db-idle:9105", role: "leader" })),
    );
    expect(r.status).toBe("error");
    expect(Object.keys(r.fieldErrors)).toEqual(["role"]);
  });

  it("saves, re-advises the instance and revalidates its pages", async () => {
    const { saveInstanceMetadata } = await import("./actions.js");
    const { getInstance } = await import("./fleet/instance.js");
    await getInstance("db-idle:9105");
    const r = await runAs(operator, () =>
      saveInstanceMetadata(
        IDLE,
        form({
          instance: "db-idle:9105",
          cluster: "analytics",
          role: "replica",
          notes: "canary",
          version: "0",
        }),
      ),
    );
    expect(r.status).toBe("saved");
    const after = await getInstance("db-idle:9105");
    expect(after.kind === "found" && after.view.row).toMatchObject({ cluster: "analytics", role: "replica" });
    expect(after.kind === "found" && after.view.metadata).toMatchObject({
      notes: "canary",
      updatedBy: "olga (operator)",
    });
    expect(revalidated).toEqual(expect.arrayContaining(["/instances/db-idle%3A9105", "/"]));
  });

  it("a save from a page loaded before someone else's save is refused, naming them and the fields", async () => {
    const { saveInstanceMetadata } = await import("./actions.js");
    const { metadataStore } = await import("./fleet/data.js");
    const first = await runAs(operator, () =>
      saveInstanceMetadata(IDLE, form({ instance: "db-off:9105", notes: "first", version: "0" })),
    );
    expect(first.status).toBe("saved");
    const stale = await runAs({ name: "bob", role: "admin", via: "session" }, () =>
      saveInstanceMetadata(IDLE, form({ instance: "db-off:9105", notes: "second", version: "0" })),
    );
    expect(stale.status).toBe("error");
    expect(stale.message).toMatch(/changed by olga \(operator\) at .* \(.*notes.*\) after you loaded it/);
    expect((await (await metadataStore()).getInstanceMetadata("db-off:9105"))?.notes).toBe("first");
  });

  it("refuses a declaration that contradicts what the exporter measured, naming the field, storing nothing", async () => {
    const { saveInstanceMetadata } = await import("./actions.js");
    const { metadataStore } = await import("./fleet/data.js");
    const { getInstance } = await import("./fleet/instance.js");
    const found = await getInstance("db-off:9105");
    expect(found.kind === "found" && found.view.measured.storage?.fsType).toBe("ext4");
    const before = await (await metadataStore()).getInstanceMetadata("db-off:9105");
    const r = await runAs(operator, () =>
      saveInstanceMetadata(
        IDLE,
        form({ instance: "db-off:9105", fsType: "zfs", version: String(before?.version ?? 0) }),
      ),
    );
    expect(r.status).toBe("error");
    expect(r.message).toMatch(/contradicts what the exporter measured/);
    expect(r.fieldErrors).toEqual({
      fsType: "contradicts what the exporter measured: storage.fsType: declared zfs, measured ext4",
    });
    expect(await (await metadataStore()).getInstanceMetadata("db-off:9105")).toEqual(before);
  });

  it("refuses a save without the version it was loaded at (no silent overwrite)", async () => {
    const { saveInstanceMetadata } = await import("./actions.js");
    const { metadataStore } = await import("./fleet/data.js");
    const before = await (await metadataStore()).getInstanceMetadata("db-off:9105");
    const r = await runAs(operator, () =>
      saveInstanceMetadata(IDLE, form({ instance: "db-off:9105", notes: "stale, no version" })),
    );
    expect(r).toMatchObject({ status: "error" });
    expect(r.message).toMatch(/no version/);
    expect(await (await metadataStore()).getInstanceMetadata("db-off:9105")).toEqual(before);
  });

  it.each(["../../../etc/passwd", "no-such-db:3306", "db-off:9105/../x"])(
    "refuses metadata for %s, an instance no fleet has",
    async (instance) => {
      const { saveInstanceMetadata } = await import("./actions.js");
      const { metadataStore } = await import("./fleet/data.js");
      const r = await runAs(operator, () =>
        saveInstanceMetadata(IDLE, form({ instance, notes: "x", version: "0" })),
      );
      expect(r).toMatchObject({ status: "error" });
      expect(r.message).toMatch(/in the fleet/);
      expect(await (await metadataStore()).getInstanceMetadata(instance)).toBeNull();
    },
  );
});

describe("updateUser", () => {
  it("answers a specific error for an id that names no user, not a crash", async () => {
    const { updateUser } = await import("./actions.js");
    const admin: Principal = { name: "ada", role: "admin", via: "session" };
    const r = await runAs(admin, () =>
      updateUser(
        { status: "idle", message: "", fieldErrors: {} },
        form({ id: "00000000-0000-4000-8000-000000000000", role: "viewer" }),
      ),
    );
    expect(r).toMatchObject({ status: "error", fieldErrors: { id: "unknown" } });
  });
});
