/**
 * The pure packages do no I/O (docs/architecture.md, rules of the house), and biome.json's
 * `noRestrictedImports` enforces it. An exact-name list let sub-paths through (`@untorn/store/store` in
 * `packages/fleet/src` passed), so the rule also carries patterns. This plants imports in a copy of the
 * tree, lints it with the repository's own rule, and checks what is flagged and what is not.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const REPO = resolve(import.meta.dirname, "../../..");

describe("purity lint (biome noRestrictedImports)", () => {
  const dir = mkdtempSync(join(tmpdir(), "untorn-purity-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("flags I/O imports in pure packages, sub-paths included, and nothing in tests, the store's validation or other packages", () => {
    const config = JSON.parse(readFileSync(join(REPO, "biome.json"), "utf8")) as {
      overrides: { includes: string[]; linter?: { rules?: { style?: Record<string, unknown> } } }[];
    };
    const pure = config.overrides.find((o) => o.linter?.rules?.style?.noRestrictedImports);
    expect(pure).toBeDefined();
    const write = (path: string, code: string) => {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), code);
    };
    write(
      "biome.json",
      JSON.stringify({
        linter: { rules: { recommended: false } },
        overrides: [{ includes: pure!.includes, linter: pure!.linter }],
      }),
    );
    const planted: Record<string, string> = {
      "packages/fleet/src/a.ts":
        'import { openStore } from "@untorn/store/store";\nexport const a = openStore;\n',
      "packages/fleet/src/b.ts": 'import { readFileSync } from "fs";\nexport const b = readFileSync;\n',
      "packages/rollout/src/c.ts":
        'import { readFile } from "node:fs/promises";\nexport const c = readFile;\n',
      "packages/advisor/src/d.ts":
        'import { startMariaDb } from "@untorn/testkit/mariadb";\nexport const d = startMariaDb;\n',
      "packages/compare/src/e.ts": 'import { spawn } from "child_process";\nexport const e = spawn;\n',
      "packages/catalog/src/f.ts": 'import { Pool } from "pg";\nexport const f = Pool;\n',
    };
    const allowed: Record<string, string> = {
      "packages/fleet/src/ok.ts":
        'import { upsertInstanceMetadataInput } from "@untorn/store/validation";\nexport const ok = upsertInstanceMetadataInput;\n',
      "packages/fleet/src/path.ts": 'import { join } from "node:path";\nexport const p = join;\n',
      "packages/fleet/src/a.test.ts":
        'import { openStore } from "@untorn/store/store";\nexport const t = openStore;\n',
      "apps/web/src/server/g.ts": 'import { readFileSync } from "node:fs";\nexport const g = readFileSync;\n',
    };
    for (const [path, code] of Object.entries({ ...planted, ...allowed })) write(path, code);
    const r = spawnSync(join(REPO, "node_modules/.bin/biome"), ["lint", "--max-diagnostics=100", "."], {
      cwd: dir,
      encoding: "utf8",
    });
    const out = r.stdout + r.stderr;
    expect(r.status, out).not.toBe(0);
    const flagged = [
      ...new Set([...out.matchAll(/^(\S+\.ts):\d+:\d+ lint\/style\/noRestrictedImports/gm)].map((m) => m[1])),
    ];
    expect(flagged.sort(), out).toEqual(Object.keys(planted).sort());
    expect(out).toContain("do no I/O");
  }, 120_000);
});
