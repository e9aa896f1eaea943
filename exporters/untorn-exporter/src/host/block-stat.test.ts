import { describe, expect, it } from "vitest";
import { parseBlockStat } from "./block-stat.js";

describe("parseBlockStat", () => {
  it("reads the 17 fields of Linux 5.5+ in base units (512-byte sectors, ms to s)", () => {
    const line =
      "  107894     8850  4297082    51151   134684    27600  7934048    46448        3    13572    99516    11096       32  1654360      755    22831     1161\n";
    expect(parseBlockStat(line)).toEqual({
      readsCompleted: 107894,
      readBytes: 4297082 * 512,
      readSeconds: 51.151,
      writesCompleted: 134684,
      writtenBytes: 7934048 * 512,
      writeSeconds: 46.448,
      inFlight: 3,
      ioSeconds: 13.572,
      flushesCompleted: 22831,
      flushSeconds: 1.161,
    });
  });

  it("has no flush counters before 5.5 (15 fields) or before 4.18 (11 fields)", () => {
    const fifteen = parseBlockStat("1 2 3 4 5 6 7 8 9 10 11 12 13 14 15");
    expect(fifteen?.writesCompleted).toBe(5);
    expect(fifteen?.writtenBytes).toBe(7 * 512);
    expect(fifteen).not.toHaveProperty("flushesCompleted");
    const eleven = parseBlockStat("1 2 3 4 5 6 7 8 9 10 11");
    expect(eleven?.ioSeconds).toBe(0.01);
    expect(eleven).not.toHaveProperty("flushSeconds");
  });

  it("rejects short or non-numeric content", () => {
    expect(parseBlockStat("")).toBeUndefined();
    expect(parseBlockStat("1 2 3 4 5 6 7 8 9 10")).toBeUndefined();
    expect(parseBlockStat("1 2 3 4 5 6 7 8 9 10 x")).toBeUndefined();
    expect(parseBlockStat("1 2 3 4 5 6 7 8 -9 10 11")).toBeUndefined();
  });
});
