import { readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { PACKAGE_DIR } from "./generate.js";
import { renderAll } from "./render.js";

const REGENERATE = "run `npm run generate -w @untorn/dashboards` and commit the result";

async function listFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) =>
      e.isDirectory() ? listFiles(join(dir, e.name)) : Promise.resolve([join(dir, e.name)]),
    ),
  );
  return nested.flat();
}

describe("generated files (regenerated in memory, compared with the committed ones)", () => {
  const files = renderAll();

  it.each([...files.keys()])("%s is up to date", async (path) => {
    const committed = await readFile(join(PACKAGE_DIR, path), "utf8").catch(() => undefined);
    expect(committed !== undefined, `${path} is missing: ${REGENERATE}`).toBe(true);
    expect(committed === files.get(path), `${path} is stale: ${REGENERATE}`).toBe(true);
  });

  it("leaves no stale file behind in generated/ and provisioning/", async () => {
    const onDisk = [
      ...(await listFiles(join(PACKAGE_DIR, "generated"))),
      ...(await listFiles(join(PACKAGE_DIR, "provisioning"))),
    ].map((f) => relative(PACKAGE_DIR, f));
    expect(onDisk.sort()).toEqual([...files.keys()].filter((p) => !p.startsWith("..")).sort());
  });

  it("renders the same bytes every time", () => {
    expect(renderAll()).toEqual(files);
  });
});
