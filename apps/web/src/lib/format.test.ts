import { describe, expect, it } from "vitest";
import { bytes, num, pct, pctRange, seconds, serverLabel, withUnit } from "./format.js";
import { gainText } from "./gain.js";

describe("format", () => {
  it("numbers, percentages, bytes and durations", () => {
    expect([num(12345.6), num(0.012345), num(null), num(Number.NaN)]).toEqual(["12,346", "0.012", "–", "–"]);
    expect([pct(0.4567), pct(0.004), pct(1)]).toEqual(["46%", "0.4%", "100%"]);
    expect(pct(6.684166647284321e74)).toBe("more than 100,000%");
    expect(pctRange(0.1, 0.4)).toBe("+10% to +40%");
    expect(bytes(16384)).toBe("16 KiB");
    expect([seconds(0.0042), seconds(90), seconds(0)]).toEqual(["4.2 ms", "1.5 min", "0 s"]);
    expect(withUnit(27852800, "bytes/s")).toBe("26.6 MiB/s");
    expect(serverLabel("mariadb", "10.11.19-MariaDB-0+deb12u1")).toBe("MariaDB 10.11.19");
  });

  it("gain: throughput when it may change, else the per-transaction saving", () => {
    const g = { throughput: { low: 0.1, high: 0.5 }, writeBytesPerTxn: { low: 0.45, high: 0.5 } };
    expect(gainText({ ...g, kind: "throughput" })).toBe("+10% to +50% write TPS");
    expect(gainText({ ...g, kind: "efficiency" })).toBe("45%–50% fewer write bytes/txn");
    expect(gainText({ ...g, kind: "none" })).toBe("none expected");
    expect(gainText(null)).toBe("none expected");
  });
});
