import { readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { describe, expect, it } from "vitest";
import { deviceOf, parseDiskStat, readDiskCounters } from "./device.js";

describe("parseDiskStat", () => {
  it("reads write I/Os, write sectors as bytes and flushes (Linux 5.5+)", () => {
    const line = "  36669 4 1165890 6127 68199 4823 2294936 33397 0 4952 42994 12 0 7077912 4 5460 3465";
    expect(parseDiskStat(line)).toEqual({ writes: 68199, writeBytes: 2294936 * 512, flushes: 5460 });
  });
  it("has no flushes on older kernels and refuses other text", () => {
    expect(parseDiskStat("1 2 3 4 5 6 7 8 9 10 11").flushes).toBeUndefined();
    expect(() => parseDiskStat("not a stat line")).toThrow(/not a block stat line/);
  });
});

describe("deviceOf", () => {
  it("names the device of a path as /sys/dev/block does", async () => {
    const dev = await deviceOf(tmpdir());
    expect(dev).toMatch(/^\d+:\d+$/);
    // Overlay and tmpfs have anonymous devices without block counters.
    if (await readDiskCounters(dev!)) {
      const stat = () => parseDiskStat(readFileSync(`/sys/dev/block/${dev}/stat`, "utf8"));
      // The disk is shared: other writes land between the reads, so the value lies between two reads.
      const before = stat();
      const counters = await readDiskCounters(dev!);
      const after = stat();
      expect(counters!.writes).toBeGreaterThanOrEqual(before.writes);
      expect(counters!.writes).toBeLessThanOrEqual(after.writes);
    }
    expect(await deviceOf("/no/such/path")).toBeUndefined();
    expect(await readDiskCounters("0:0")).toBeUndefined();
  });
});
