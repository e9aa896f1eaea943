import { describe, expect, it } from "vitest";
import { silentLogger } from "../log.js";
import { type QuerySource, Scraper } from "../scrape.js";
import {
  classify,
  dataFileClass,
  type IoTotals,
  monotonicData,
  perfSchemaFileIo,
} from "./perf-schema-file-io.js";

describe("dataFileClass", () => {
  it.each([
    ["/var/lib/mysql/ibdata1", "system_tablespace"],
    ["/var/lib/mysql/ibtmp1", "temp"],
    ["/var/lib/mysql/undo_001", "undo"],
    ["/var/lib/mysql/undo001", "undo"],
    ["/var/lib/mysql/my_undo.ibu", "undo"],
    ["/var/lib/mysql/shop/orders.ibd", "data"],
    ["C:\\data\\ibdata1", "system_tablespace"],
  ])("%s is %s", (file, cls) => {
    expect(dataFileClass(file)).toBe(cls);
  });
});

describe("classify", () => {
  const row = (extra: Record<string, unknown>, w: number) => ({
    ...extra,
    COUNT_READ: "0",
    SUM_TIMER_READ: "0",
    SUM_NUMBER_OF_BYTES_READ: "0",
    COUNT_WRITE: String(w),
    SUM_TIMER_WRITE: String(w * 1e9),
    SUM_NUMBER_OF_BYTES_WRITE: String(w * 16384),
    COUNT_MISC: "1",
    SUM_TIMER_MISC: "2000000000000",
  });

  it("splits innodb_data_file into system tablespace, undo and the rest, in seconds", () => {
    const out = classify(
      [
        row({ EVENT_NAME: "wait/io/file/innodb/innodb_data_file" }, 100),
        row({ EVENT_NAME: "wait/io/file/innodb/innodb_log_file" }, 7),
      ],
      [row({ FILE_NAME: "/d/ibdata1" }, 30), row({ FILE_NAME: "/d/undo_001" }, 5)],
    );
    expect(out.get("system_tablespace")?.writes).toBe(30);
    expect(out.get("undo")?.writes).toBe(5);
    expect(out.get("data")?.writes).toBe(65);
    expect(out.get("data")?.writeBytes).toBe(65 * 16384);
    expect(out.get("redo")?.writes).toBe(7);
    expect(out.get("redo")?.miscPico).toBe(2e12);
    expect(out.get("data")?.writePico).toBe(65e9);
    expect(out.has("doublewrite")).toBe(false);
  });

  it("never reports a negative remainder", () => {
    const out = classify(
      [row({ EVENT_NAME: "wait/io/file/innodb/innodb_data_file" }, 10)],
      [row({ FILE_NAME: "/d/ibdata1" }, 30)],
    );
    expect(out.get("data")?.writes).toBe(0);
  });
});

describe("monotonicData", () => {
  const t = (writes: number, writeBytes = writes * 16384): IoTotals => ({
    reads: 0,
    readPico: 0,
    readBytes: 0,
    writes,
    writePico: writes * 1e9,
    writeBytes,
    misc: 0,
    miscPico: 0,
  });

  it("takes the first remainder as it is", () => {
    expect(monotonicData(undefined, t(100), t(60)).data.writes).toBe(60);
  });

  it("never lets the remainder step back while the event total grows", () => {
    // Scrape 1 read the remainder high (ibdata1 wrote between the two reads), scrape 2 exactly.
    const first = monotonicData(undefined, t(100), t(70));
    const second = monotonicData(first, t(104), t(66));
    expect(second.data.writes).toBe(70);
    expect(second.data.writeBytes).toBe(70 * 16384);
    const third = monotonicData(second, t(130), t(85));
    expect(third.data.writes).toBe(85);
  });

  it("starts again when the event total falls (a restart or a truncated summary)", () => {
    const before = monotonicData(undefined, t(1000), t(700));
    const after = monotonicData(before, t(12), t(5));
    expect(after.data.writes).toBe(5);
    expect(after.eventTotal.writes).toBe(12);
  });

  it("keeps each field on its own: a field that grew is taken, one that dipped is held", () => {
    const first = monotonicData(undefined, t(100, 5000), t(70, 4000));
    const second = monotonicData(first, t(101, 6000), t(69, 4500));
    expect(second.data.writes).toBe(70);
    expect(second.data.writeBytes).toBe(4500);
  });
});

describe("the data class through the scraper", () => {
  // A hand-built server (no real mariadbd can make the two reads race on cue): the named file ibdata1
  // writes between the collector's two reads in the first scrape, not in the second.
  const io = (w: number) => ({
    COUNT_READ: "0",
    SUM_TIMER_READ: "0",
    SUM_NUMBER_OF_BYTES_READ: "0",
    COUNT_WRITE: String(w),
    SUM_TIMER_WRITE: "0",
    SUM_NUMBER_OF_BYTES_WRITE: String(w * 16384),
    COUNT_MISC: "0",
    SUM_TIMER_MISC: "0",
  });
  const scrapes = [
    { ibdata: 30, event: 110 }, // ibdata1 read at 30, then wrote 10 more before the event read: 80 (true 70)
    { ibdata: 41, event: 116 }, // no race: 75, lower than the 80 already emitted
  ];

  it("never steps back between scrapes of one target, and keeps targets apart", async () => {
    let n = 0;
    const source = (which: () => { ibdata: number; event: number }): QuerySource => ({
      queryable: () => ({
        async query(sql: string) {
          const now = which();
          if (sql.includes("@@version"))
            return [
              {
                version: "10.11.19-MariaDB",
                version_comment: "Debian",
                datadir: "/d/",
                page_size: 16384,
                performance_schema: 1,
              },
            ];
          if (sql.includes("setup_instruments"))
            return [{ NAME: "wait/io/file/innodb/innodb_data_file", ENABLED: "YES", TIMED: "YES" }];
          if (sql.includes("file_summary_by_instance"))
            return [{ FILE_NAME: "/d/ibdata1", ...io(now.ibdata) }];
          if (sql.includes("file_summary_by_event_name"))
            return [{ EVENT_NAME: "wait/io/file/innodb/innodb_data_file", ...io(now.event) }];
          return [];
        },
      }),
    });
    const scraper = new Scraper(silentLogger);
    const dataWrites = async (key: string, pool: QuerySource) => {
      const { registry } = await scraper.scrape({
        key,
        pool,
        collectors: [perfSchemaFileIo],
        budgetMs: 5000,
        collectorTimeoutMs: 5000,
        host: { proc: "/nonexistent", sys: "/nonexistent", dev: "/nonexistent", root: "/nonexistent" },
      });
      const text = await registry.metrics();
      const line = text
        .split("\n")
        .find((l) => l.startsWith('untorn_perf_schema_file_writes_total{class="data"}'));
      return Number(line?.split(" ")[1]);
    };
    const a = source(() => scrapes[n]!);
    expect(await dataWrites("a", a)).toBe(80);
    n = 1;
    expect(await dataWrites("a", a)).toBe(80);
    // Another target with the same numbers has its own memory: its first scrape is taken as it is.
    expect(
      await dataWrites(
        "b",
        source(() => scrapes[1]!),
      ),
    ).toBe(75);
  });
});
