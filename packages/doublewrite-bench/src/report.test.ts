import { describe, expect, it } from "vitest";
import { changeText, markdownReport, textReport } from "./report.js";
import type { BenchResult, BenchRun } from "./result.js";
import { summarise } from "./summary.js";

function run(doublewrite: "on" | "off", threads: number, repeat: number, tps: number): BenchRun {
  return {
    doublewrite,
    repeat,
    threads,
    start: "2026-01-01T00:00:00.000Z",
    end: "2026-01-01T00:00:45.000Z",
    metrics: {
      transactions: tps * 45,
      seconds: 45,
      tps,
      latencyAvgMs: 10,
      latencyP95Ms: 20,
      errors: 0,
      writeOpsPerTrx: 5,
      writeBytesPerTrx: doublewrite === "on" ? 163_840 : 81_920,
      fsyncsPerTrx: 0.5,
      dblwrPagesPerTrx: doublewrite === "on" ? 5 : 0,
      pagesFlushedPerTrx: 5,
      redoBytesPerTrx: null,
      innodbWriteOpsPerSec: null,
      freePageWaitsPerSec: null,
      deviceWritesPerTrx: null,
      deviceWriteIops: null,
      deviceFlushesPerSec: null,
    },
  };
}

function result(runs: BenchRun[], kind: "throwaway" | "existing" = "throwaway"): BenchResult {
  return {
    version: 1,
    startedAt: "2026-01-01T00:00:00.000Z",
    finishedAt: "2026-01-01T01:00:00.000Z",
    server: {
      kind,
      label: kind === "existing" ? "existing server at /run/mysqld/mysqld.sock" : "throwaway",
      flavor: "mariadb",
      version: "10.11.19-MariaDB",
      pageSize: 16384,
      bufferPoolBytes: 64 << 20,
      flushLogAtTrxCommit: 2,
      flushMethod: "O_DIRECT",
      mdev31124: false,
      restartsBetweenRepeats: kind === "throwaway",
    },
    volume:
      kind === "throwaway" ? { writeIops: 500, meterKiB: 16, sizeMiB: 4096, device: "/dev/loop3" } : null,
    workload: {
      test: "oltp_write_only",
      tables: 8,
      tableSize: 200000,
      randType: "uniform",
      threads: [1, 16],
      seconds: 45,
      warmupSeconds: 20,
      repeats: 2,
      rate: 0,
    },
    machine: { cpus: 2, kernel: "6.1.0", node: "v20" },
    exporter: null,
    runs,
    summary: summarise(runs),
    notes: ["a | note"],
  };
}

describe("changeText", () => {
  it("shows the estimate with its range, or says noise or single run", () => {
    expect(changeText({ estimate: 0.84, low: 0.57, high: 1.1, call: "up" })).toBe("+84% (+57% to +110%)");
    expect(changeText({ estimate: -0.04, low: -0.1, high: 0.02, call: "within noise" })).toBe(
      "-4.0% (noise: -10% to +2.0%)",
    );
    expect(changeText({ estimate: 0.2, low: 0.2, high: 0.2, call: "single run" })).toBe("+20% (single run)");
    expect(changeText(null)).toBe("-");
  });
});

describe("reports", () => {
  const both = result([
    run("on", 1, 1, 16),
    run("off", 1, 1, 79),
    run("off", 1, 2, 80),
    run("on", 1, 2, 17),
    run("on", 16, 1, 74),
    run("off", 16, 1, 135),
    run("off", 16, 2, 130),
    run("on", 16, 2, 70),
  ]);

  it("puts ON → OFF side by side per thread count, like docs/reference/iops-metering.md §11", () => {
    const md = markdownReport(both, "tps.svg");
    expect(md).toContain("| threads | TPS ON → OFF | TPS change (range) |");
    expect(md).toMatch(/\| 16 \| 72 → 132\.5 \| \+84% \(\+76% to \+93%\) \|/);
    expect(md).toContain("| 160 → 80 |"); // KiB/trx
    expect(md).toContain("500 write IOPS, every 16 KiB counted");
    expect(md).toContain("![TPS vs threads](tps.svg)");
    expect(md).toContain("- a \\| note");
    expect(textReport(both)).toMatch(/^16\s+72 → 132\.5\s+\+84%/m);
  });

  it("shows one setting with its spread when only one was measured (existing server)", () => {
    const one = result([run("on", 16, 1, 70), run("on", 16, 2, 74)], "existing");
    const text = textReport(one);
    expect(text).toContain("TPS (doublewrite ON)");
    expect(text).toMatch(/^16\s+72 \(70–74\)/m);
    expect(text).toContain("existing server at /run/mysqld/mysqld.sock");
    expect(text).toContain("(no restarts)");
  });
});
