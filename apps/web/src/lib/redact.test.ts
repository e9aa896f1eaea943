import { describe, expect, it } from "vitest";
import { redactForReaders } from "./redact.js";

describe("redactForReaders", () => {
  it("keeps the last path component and drops process ids", () => {
    const m =
      "the data directory /srv/untorn/.untorn-data is locked by PID 4242 on db-host since 2026-01-01: stop it or remove /srv/untorn/.untorn-data/untorn.lock";
    const r = redactForReaders(m);
    expect(r).not.toMatch(/\/srv|4242/);
    expect(r).toContain("the data directory .untorn-data is locked by another process on db-host");
    expect(r).toContain("remove untorn.lock");
  });

  it("leaves URLs' hosts and plain text alone", () => {
    expect(redactForReaders("connection refused (ECONNREFUSED)")).toBe("connection refused (ECONNREFUSED)");
    expect(redactForReaders("user@db:5432/untorn is unreachable")).toBe("user@db:5432/untorn is unreachable");
  });
});
