import { readdir, readFile, readlink, realpath } from "node:fs/promises";
import { isAbsolute, join, relative, sep } from "node:path";
import { z } from "zod";
import { EXT4_MAGIC, SUPERBLOCK_OFFSET, SUPERBLOCK_SIZE } from "./ext4-superblock.js";
import type { HostFs } from "./host-fs.js";

const errnoName = z.enum(["ENOENT", "EACCES", "EPERM", "EIO", "ENOTSUP"]);
const u32 = z.union([
  z.number().int().min(0).max(0xffffffff),
  z
    .string()
    .regex(/^0x[0-9a-f]+$/i)
    .transform((s) => Number.parseInt(s, 16)),
]);

/** The raw superblock fields a fixture supplies; the fixture fs encodes them at their on-disk offsets. */
const superblockFields = z.strictObject({
  s_log_block_size: u32,
  s_log_cluster_size: u32,
  s_feature_ro_compat: u32,
  s_magic: u32.default(EXT4_MAGIC),
});

/** testdata/host/<case>/fixture.json: the scrape input and the answers a file tree cannot hold. */
export const fixtureSpec = z.strictObject({
  description: z.string(),
  /** The server's @@datadir. */
  datadir: z.string(),
  /** HostPaths.root (--host.root); proc, sys and dev are below it. */
  root: z.string().default("/"),
  /** Set when the collector must fail: a substring of the error message. No expected.prom then. */
  expectError: z.string().optional(),
  /** statfs answers by path (the datadir's real path), or the errno it fails with. */
  statfs: z
    .record(z.string(), z.union([z.strictObject({ bsize: z.number().int().positive() }), errnoName]))
    .default({}),
  /** ext superblocks by device node path, or the errno opening it fails with (e.g. EACCES when not root). */
  superblock: z.record(z.string(), z.union([superblockFields, errnoName])).default({}),
});
export type FixtureSpec = z.infer<typeof fixtureSpec>;

function errno(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`${code}: ${syscall} '${path}' (fixture)`);
  err.code = code;
  err.syscall = syscall;
  err.path = path;
  return err;
}

function encodeSuperblock(f: z.infer<typeof superblockFields>): Buffer {
  const dev = Buffer.alloc(SUPERBLOCK_OFFSET + SUPERBLOCK_SIZE);
  const sb = dev.subarray(SUPERBLOCK_OFFSET);
  sb.writeUInt32LE(f.s_log_block_size, 0x18);
  sb.writeUInt32LE(f.s_log_cluster_size, 0x1c);
  sb.writeUInt16LE(f.s_magic & 0xffff, 0x38);
  sb.writeUInt32LE(f.s_feature_ro_compat, 0x64);
  return dev;
}

/**
 * A HostFs over a fixture directory used as the root of the host: "/proc/self/mountinfo" reads
 * <dir>/proc/self/mountinfo, and sysfs symlinks (relative, as in the kernel) resolve inside the tree.
 * realpath returns host-absolute paths again. statfs and device superblocks come from fixture.json.
 */
export class FixtureHostFs implements HostFs {
  private constructor(
    private readonly dir: string,
    readonly spec: FixtureSpec,
  ) {}

  static async load(dir: string): Promise<FixtureHostFs> {
    const real = await realpath(dir);
    const spec = fixtureSpec.parse(JSON.parse(await readFile(join(real, "fixture.json"), "utf8")));
    return new FixtureHostFs(real, spec);
  }

  private map(path: string): string {
    if (!isAbsolute(path)) throw errno("ENOENT", "open", path);
    return join(this.dir, path);
  }

  async readText(path: string, _signal?: AbortSignal): Promise<string> {
    return readFile(this.map(path), "utf8");
  }

  async realpath(path: string): Promise<string> {
    const resolved = await realpath(this.map(path));
    const rel = relative(this.dir, resolved);
    if (rel.startsWith("..") || isAbsolute(rel))
      throw new Error(`fixture symlink ${path} leaves the fixture tree`);
    return `/${rel.split(sep).join("/")}`;
  }

  async readlink(path: string): Promise<string> {
    return readlink(this.map(path));
  }

  async readdir(path: string): Promise<string[]> {
    return readdir(this.map(path));
  }

  async statfs(path: string): Promise<{ bsize: number }> {
    const answer = this.spec.statfs[path];
    if (answer === undefined) throw errno("ENOTSUP", "statfs", path);
    if (typeof answer === "string") throw errno(answer, "statfs", path);
    return answer;
  }

  async readBytes(path: string, offset: number, length: number): Promise<Buffer> {
    const answer = this.spec.superblock[path];
    if (answer === undefined) throw errno("ENOENT", "open", path);
    if (typeof answer === "string") throw errno(answer, "open", path);
    return encodeSuperblock(answer).subarray(offset, offset + length);
  }
}
