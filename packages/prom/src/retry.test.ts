import { describe, expect, it } from "vitest";
import { backoffDelay, retryAfterMs } from "./retry.js";

describe("backoffDelay", () => {
  const opts = { baseDelayMs: 200, maxDelayMs: 1000 };

  it("doubles per retry and keeps half of it fixed", () => {
    expect([1, 2, 3].map((r) => backoffDelay(r, opts, () => 0))).toEqual([100, 200, 400]);
    expect([1, 2, 3].map((r) => backoffDelay(r, opts, () => 0.999999))).toEqual([200, 400, 800]);
  });

  it("stops growing at maxDelayMs", () => {
    expect(backoffDelay(10, opts, () => 0.5)).toBe(750);
    expect(backoffDelay(60, opts, () => 0.999999)).toBe(1000);
  });
});

describe("retryAfterMs", () => {
  it("reads delta seconds", () => {
    expect(retryAfterMs("3", 0)).toBe(3000);
    expect(retryAfterMs(" 0 ", 0)).toBe(0);
  });
  it("reads an HTTP date against now", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:05 GMT", now)).toBe(5000);
    expect(retryAfterMs("Wed, 31 Dec 2025 23:59:00 GMT", now)).toBe(0);
  });
  it("ignores a missing or unreadable header", () => {
    expect(retryAfterMs(null, 0)).toBeUndefined();
    expect(retryAfterMs("soon", 0)).toBeUndefined();
  });
});
