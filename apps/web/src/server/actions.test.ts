import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { encodeReplay } from "@untorn/fleet/replay";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { IDLE } from "../lib/metadata-form.js";
import { smallReplay } from "../testing/fleet-facts.js";

const revalidated: string[] = [];
vi.mock("next/cache", () => ({ revalidatePath: (p: string) => revalidated.push(p) }));

const TOKEN = "correct-horse-battery";
let dir: string;

beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-actions-"));
  fs.writeFileSync(path.join(dir, "fleet.json.gz"), encodeReplay(smallReplay()));
  process.env.UNTORN_REPLAY = path.join(dir, "fleet.json.gz");
  process.env.UNTORN_DATA_DIR = path.join(dir, "store");
  process.env.UNTORN_ADMIN_TOKEN = TOKEN;
});

afterAll(async () => {
  const { metadataStore } = await import("./data.js");
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
  it("refuses a missing or wrong admin token and writes nothing", async () => {
    const { saveInstanceMetadata } = await import("./actions.js");
    const { metadataStore } = await import("./data.js");
    const none = await saveInstanceMetadata(IDLE, form({ instance: "db-idle:9105", cluster: "x" }));
    expect(none).toMatchObject({
      status: "error",
      fieldErrors: { token: expect.stringMatching(/requires the admin token/) },
    });
    const wrong = await saveInstanceMetadata(
      IDLE,
      form({ instance: "db-idle:9105", cluster: "x", token: "nope" }),
    );
    expect(wrong.message).toBe("The admin token is wrong.");
    expect(await (await metadataStore()).getInstanceMetadata("db-idle:9105")).toBeNull();
  });

  it("reports bad fields by name", async () => {
    const { saveInstanceMetadata } = await import("./actions.js");
    const r = await saveInstanceMetadata(
      IDLE,
      form({ instance: "db-idle:9105", role: "leader", token: TOKEN }),
    );
    expect(r.status).toBe("error");
    expect(Object.keys(r.fieldErrors)).toEqual(["role"]);
  });

  it("saves, re-advises the instance and revalidates its pages", async () => {
    const { saveInstanceMetadata } = await import("./actions.js");
    const { getInstance } = await import("./data.js");
    await getInstance("db-idle:9105");
    const r = await saveInstanceMetadata(
      IDLE,
      form({
        instance: "db-idle:9105",
        cluster: "analytics",
        role: "replica",
        notes: "canary",
        token: TOKEN,
      }),
    );
    expect(r.status).toBe("saved");
    const after = await getInstance("db-idle:9105");
    expect(after.kind === "found" && after.view.row).toMatchObject({ cluster: "analytics", role: "replica" });
    expect(after.kind === "found" && after.view.metadata).toMatchObject({
      notes: "canary",
      updatedBy: "web (admin token)",
    });
    expect(revalidated).toEqual(expect.arrayContaining(["/instances/db-idle%3A9105", "/"]));
  });
});
