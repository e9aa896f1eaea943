import { describe, expect, it } from "vitest";
import { lastSegment, parseInstanceId } from "./instance-id.js";

describe("parseInstanceId", () => {
  it("decodes the raw segment exactly once", () => {
    expect(parseInstanceId("db1%3A3306")).toEqual({ ok: true, id: "db1:3306" });
    expect(parseInstanceId("odd%2541label")).toEqual({ ok: true, id: "odd%41label" });
    expect(parseInstanceId(lastSegment("http://x/api/v1/instances/db1%3A3306"))).toEqual({
      ok: true,
      id: "db1:3306",
    });
  });

  it("refuses bad escapes, empty, over-long and control-character ids", () => {
    expect(parseInstanceId("%E0%A4%A")).toMatchObject({ ok: false, message: /percent-encoded/ });
    expect(parseInstanceId("")).toMatchObject({ ok: false, message: "must not be empty" });
    expect(parseInstanceId("x".repeat(513))).toMatchObject({
      ok: false,
      message: "must be at most 512 characters",
    });
    expect(parseInstanceId("db%01")).toMatchObject({
      ok: false,
      message: "must not contain control characters",
    });
  });
});
