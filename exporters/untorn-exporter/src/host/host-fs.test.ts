import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nodeHostFs, readInteger, readOptional, realpathUnder } from "./host-fs.js";

describe("realpathUnder", () => {
  let root = "";
  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), "untorn-root-")));
    await mkdir(join(root, "data/mysql"), { recursive: true });
    await mkdir(join(root, "var/lib"), { recursive: true });
    await symlink("/data/mysql", join(root, "var/lib/mysql"));
    await symlink("../../data", join(root, "var/lib/rel"));
    await symlink("/../../../../data", join(root, "var/lib/up"));
    await symlink("loop-b", join(root, "loop-a"));
    await symlink("loop-a", join(root, "loop-b"));
    await writeFile(join(root, "file"), "x");
  });
  afterAll(async () => {
    if (root) await rm(root, { recursive: true, force: true });
  });

  it("resolves absolute links below root, as in a chroot", async () => {
    expect(await realpathUnder(nodeHostFs, root, "/var/lib/mysql/")).toBe(join(root, "data/mysql"));
    expect(await realpathUnder(nodeHostFs, `${root}/`, "/var/lib/rel/mysql")).toBe(join(root, "data/mysql"));
    expect(await realpathUnder(nodeHostFs, root, "/var/lib/up/mysql")).toBe(join(root, "data/mysql"));
    expect(await realpathUnder(nodeHostFs, root, "/../../data/./mysql")).toBe(join(root, "data/mysql"));
    expect(await realpathUnder(nodeHostFs, root, "/")).toBe(root);
  });

  it("fails like realpath: ENOENT, ENOTDIR, ELOOP", async () => {
    await expect(realpathUnder(nodeHostFs, root, "/var/lib/none")).rejects.toMatchObject({ code: "ENOENT" });
    await expect(realpathUnder(nodeHostFs, root, "/file/x")).rejects.toMatchObject({ code: "ENOTDIR" });
    await expect(realpathUnder(nodeHostFs, root, "/loop-a")).rejects.toMatchObject({ code: "ELOOP" });
  });

  it("is plain realpath with root /", async () => {
    expect(await realpathUnder(nodeHostFs, "/", join(root, "var/lib/rel/mysql"))).toBe(
      join(root, "data/mysql"),
    );
  });
});

describe("optional sysfs reads", () => {
  it("trims content and turns missing files and non-numbers into undefined", async () => {
    expect(await readOptional(nodeHostFs, "/proc/self/stat")).toMatch(/^\d+ /);
    expect(await readOptional(nodeHostFs, "/nonexistent")).toBeUndefined();
    expect(await readInteger(nodeHostFs, "/proc/sys/kernel/pid_max")).toBeGreaterThan(0);
    expect(await readInteger(nodeHostFs, "/proc/self/comm")).toBeUndefined();
  });
});
