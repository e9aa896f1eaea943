import { describe, expect, it } from "vitest";
import { csvCell, csvResponse, toCsv } from "./csv.js";

describe("csvCell", () => {
  it("quotes commas, quotes and line breaks, doubling quotes", () => {
    expect(csvCell("plain")).toBe("plain");
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("two\nlines")).toBe('"two\nlines"');
  });
  it("prefixes a text cell that a spreadsheet would run as a formula", () => {
    expect(csvCell('=HYPERLINK("http://x")')).toBe('"\'=HYPERLINK(""http://x"")"');
    expect(csvCell("+1")).toBe("'+1");
    expect(csvCell("-2+3")).toBe("'-2+3");
    expect(csvCell("@SUM(A1)")).toBe("'@SUM(A1)");
    expect(csvCell("\tcmd")).toBe("'\tcmd");
    expect(csvCell("\r=1")).toBe('"\'\r=1"');
    expect(csvCell("db-1=x")).toBe("db-1=x");
  });
  it("writes numbers as numbers, null and non-finite as empty", () => {
    expect(csvCell(-0.25)).toBe("-0.25");
    expect(csvCell(0)).toBe("0");
    expect(csvCell(null)).toBe("");
    expect(csvCell(Number.NaN)).toBe("");
    expect(csvCell(true)).toBe("true");
  });
});

describe("toCsv and csvResponse", () => {
  it("writes a header and rows with CRLF line ends", () => {
    expect(
      toCsv(
        ["a", "b"],
        [
          ["x", 1],
          [null, "=2"],
        ],
      ),
    ).toBe("a,b\r\nx,1\r\n,'=2\r\n");
  });
  it("is an attachment of type text/csv, not cached", async () => {
    const r = csvResponse("a\r\n", "fleet.csv");
    expect(r.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(r.headers.get("content-disposition")).toBe('attachment; filename="fleet.csv"');
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(await r.text()).toBe("a\r\n");
  });
});
