import { describe, expect, it } from "vitest";
import { classify, dataFileClass } from "./perf-schema-file-io.js";

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
