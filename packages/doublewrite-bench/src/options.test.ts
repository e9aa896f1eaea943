import { CliError, EXIT } from "@untorn/cli/errors";
import { describe, expect, it } from "vitest";
import { type BenchFlags, benchConfig, parseMeter, parseThreads } from "./options.js";

describe("benchConfig", () => {
  it("fills the docs/reference/iops-metering.md §11 defaults for a throwaway server", () => {
    const c = benchConfig({ throwaway: true }, {});
    expect(c.threads).toEqual([1, 4, 16, 64]);
    expect(c).toMatchObject({ seconds: 45, warmupSeconds: 20, repeats: 2 });
    expect(c.workload).toEqual({ tables: 8, tableSize: 200_000, randType: "uniform", rate: 0 });
    expect(c.throwaway).toEqual({
      bufferPool: "64M",
      flushLogAtTrxCommit: 2,
      performanceSchema: false,
      extra: {},
    });
    expect(c.existing).toBeUndefined();
  });

  it("takes the volume, server options and durations", () => {
    const c = benchConfig(
      {
        throwaway: true,
        iopsLimit: "500",
        meter: "256k",
        volumeSize: "2G",
        serverOption: ["innodb_io_capacity=1000", "innodb-flush-neighbors=0"],
        time: "1m",
        warmup: "0",
        threads: "16,4,4",
        exporterListen: "127.0.0.1:9105",
      },
      {},
    );
    expect(c.throwaway!.throttle).toEqual({ writeIops: 500, meterKiB: 256, sizeMiB: 2048 });
    expect(c.throwaway!.extra).toEqual({ innodb_io_capacity: "1000", innodb_flush_neighbors: "0" });
    expect(c).toMatchObject({
      seconds: 60,
      warmupSeconds: 0,
      threads: [4, 16],
      exporterListen: "127.0.0.1:9105",
    });
  });

  it("reads an existing server's password from the environment, never a flag", () => {
    const c = benchConfig({ host: "db1", port: "3307", user: "bench" }, { UNTORN_MYSQL_PASSWORD: "s3cret" });
    expect(c.existing).toEqual({
      host: "db1",
      port: 3307,
      user: "bench",
      password: "s3cret",
      database: "sbtest",
    });
    expect(benchConfig({ socket: "/s.sock", user: "u" }, { MYSQL_PWD: "p" }).existing!.password).toBe("p");
  });

  it.each<[BenchFlags, RegExp]>([
    [{}, /give --throwaway .* or --socket\/--host/],
    [{ throwaway: true, socket: "/s" }, /either --throwaway or --socket\/--host/],
    [{ socket: "/s", host: "h" }, /either --socket or --host/],
    [{ socket: "/s", iopsLimit: "500" }, /--iops-limit is for --throwaway only: untorn does not reconfigure/],
    [{ host: "h", bufferPool: "1G" }, /--buffer-pool is for --throwaway only/],
    [{ throwaway: true, against: "x.json" }, /--against is for an existing server/],
    [{ throwaway: true, meter: "16k" }, /give --iops-limit too/],
    [{ throwaway: true, iopsLimit: "0" }, /--iops-limit "0": expected a whole number from 1/],
    [{ throwaway: true, iopsLimit: "500", meter: "12k" }, /--meter "12k": expected a power of two/],
    [{ throwaway: true, bufferPool: "lots" }, /--buffer-pool "lots": expected a size/],
    [{ throwaway: true, bufferPool: "1M" }, /at least 5 MiB/],
    [{ throwaway: true, flushLogAtTrxCommit: "3" }, /expected 0, 1 or 2/],
    [{ throwaway: true, time: "1.5m" }, /--time "1.5m": invalid PromQL duration/],
    [{ throwaway: true, time: "500ms" }, /whole seconds/],
    [{ throwaway: true, threads: "1,0" }, /--threads "1,0": expected thread counts from 1/],
    [{ throwaway: true, repeats: "two" }, /--repeats "two"/],
    [{ throwaway: true, randType: "zipf" }, /--rand-type "zipf"/],
    [{ throwaway: true, serverOption: ["noequals"] }, /--server-option "noequals": expected name=value/],
    [{ throwaway: true, exporterListen: ":9105" }, /--exporter-listen ":9105": expected host:port/],
    [{ socket: "/s", database: "db; drop" }, /--database "db; drop"/],
  ])("refuses %j", (flags, message) => {
    let err: unknown;
    try {
      benchConfig(flags, {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT.usage);
    expect((err as CliError).message).toMatch(message);
  });
});

describe("parsers", () => {
  it("sorts and de-duplicates threads, reads meters in KiB", () => {
    expect(parseThreads("64, 1,16")).toEqual([1, 16, 64]);
    expect(parseMeter("16K")).toBe(16);
    expect(parseMeter("256")).toBe(256);
  });
});
