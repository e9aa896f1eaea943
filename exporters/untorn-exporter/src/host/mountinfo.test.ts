import { describe, expect, it } from "vitest";
import {
  findMount,
  isUnder,
  type Mount,
  mountOptions,
  parseMountinfo,
  unescapeMountField,
} from "./mountinfo.js";

// Lines as the kernel prints them (proc(5) example, a Debian host, a bind mount, escapes).
const TEXT = [
  "36 35 98:0 /mnt1 /mnt/parent rw,noatime master:1 - ext3 /dev/root rw,errors=continue",
  "27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict",
  "70 27 8:17 / /srv/my\\040data rw,noatime shared:40 master:3 propagate_from:2 - ext4 /dev/sdb1 rw,errors=remount-ro",
  "71 27 8:17 /mysql /var/lib/mysql rw,noatime shared:41 - ext4 /dev/sdb1 rw",
  "72 27 0:45 /@db /var/lib/mysql2 rw - fuse.sshfs me@host:/a\\011b\\134c rw,user_id=0",
  "",
].join("\n");

const byPoint = (mounts: Mount[], p: string) => mounts.find((m) => m.mountPoint === p)!;

describe("parseMountinfo", () => {
  const { mounts, skipped } = parseMountinfo(TEXT);

  it("parses every field of the proc(5) example", () => {
    expect(skipped).toBe(0);
    expect(mounts[0]).toEqual({
      mountId: 36,
      parentId: 35,
      major: 98,
      minor: 0,
      root: "/mnt1",
      mountPoint: "/mnt/parent",
      options: ["rw", "noatime"],
      fsType: "ext3",
      source: "/dev/root",
      superOptions: ["rw", "errors=continue"],
    });
  });

  it("decodes octal escapes in paths and sources, with any number of optional fields", () => {
    const spaced = byPoint(mounts, "/srv/my data");
    expect(spaced.major).toBe(8);
    expect(spaced.minor).toBe(17);
    expect(spaced.fsType).toBe("ext4");
    expect(spaced.source).toBe("/dev/sdb1");
    expect(byPoint(mounts, "/var/lib/mysql2").source).toBe("me@host:/a\tb\\c");
    expect(byPoint(mounts, "/var/lib/mysql2").fsType).toBe("fuse.sshfs");
    expect(unescapeMountField("a\\040b\\012c")).toBe("a b\nc");
    expect(unescapeMountField("no\\escape")).toBe("no\\escape");
  });

  it("keeps a bind mount's root inside its file system", () => {
    expect(byPoint(mounts, "/var/lib/mysql").root).toBe("/mysql");
  });

  it("counts malformed lines instead of failing", () => {
    const r = parseMountinfo(
      "garbage\n27 1 254:0 / / rw - ext4 /dev/vda rw\n1 2 x:y / / rw - ext4 a rw\n27 1 8:1 / /a rw\n",
    );
    expect(r.mounts).toHaveLength(1);
    expect(r.skipped).toBe(3);
  });
});

describe("findMount", () => {
  const { mounts } = parseMountinfo(TEXT);

  it("picks the longest mount point by whole path components", () => {
    expect(findMount(mounts, "/var/lib/mysql/ibdata1")?.mountPoint).toBe("/var/lib/mysql");
    expect(findMount(mounts, "/var/lib/mysql")?.mountPoint).toBe("/var/lib/mysql");
    expect(findMount(mounts, "/var/lib/mysql2/x")?.mountPoint).toBe("/var/lib/mysql2");
    expect(findMount(mounts, "/var/lib/mysqlx")?.mountPoint).toBe("/");
    expect(findMount(mounts, "/srv/my data/mysql")?.mountPoint).toBe("/srv/my data");
    expect(findMount(mounts, "/srv/my")?.mountPoint).toBe("/");
  });

  it("takes the last of several mounts on one point (the one on top)", () => {
    const stacked = parseMountinfo(`${TEXT}\n90 71 259:4 / /var/lib/mysql rw - xfs /dev/nvme1n1 rw\n`).mounts;
    expect(findMount(stacked, "/var/lib/mysql/db")?.fsType).toBe("xfs");
  });

  it("finds nothing without a covering mount", () => {
    expect(
      findMount(
        mounts.filter((m) => m.mountPoint !== "/"),
        "/etc",
      ),
    ).toBeUndefined();
  });

  it("compares components, not string prefixes", () => {
    expect(isUnder("/a/bc", "/a/b")).toBe(false);
    expect(isUnder("/a/b/c", "/a/b")).toBe(true);
    expect(isUnder("/a/b", "/a/b")).toBe(true);
    expect(isUnder("/anything", "/")).toBe(true);
  });
});

describe("mountOptions", () => {
  it("lists mount options, then superblock options not already there, without the superblock's rw/ro", () => {
    const [m] = parseMountinfo(
      "611 610 8:17 / /host/db ro,noatime - ext4 /dev/sdb1 rw,noatime,errors=remount-ro",
    ).mounts;
    expect(mountOptions(m!)).toBe("ro,noatime,errors=remount-ro");
  });
});
