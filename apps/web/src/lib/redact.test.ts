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

  it("drops the PID from the store's own lock messages", () => {
    // The wording of packages/store/src/lock.ts's StoreLockedError.
    const m =
      "data directory /home/dba/untorn/.untorn-data is locked by process 31337 (since 2026-11-25T02:00:00.000Z); stop that process (another Untorn web app or CLI) or give this one its own data directory. If process 31337 is not Untorn, delete /home/dba/untorn/.untorn-data/untorn.lock";
    const r = redactForReaders(m);
    expect(r).not.toMatch(/31337|\/home/);
    expect(r).toContain("is locked by another process (since");
    expect(redactForReaders("this process (4242) already has it open")).toBe(
      "this process already has it open",
    );
  });

  it("leaves URLs' hosts and plain text alone", () => {
    expect(redactForReaders("connection refused (ECONNREFUSED)")).toBe("connection refused (ECONNREFUSED)");
    expect(redactForReaders("user@db:5432/untorn is unreachable")).toBe("user@db:5432/untorn is unreachable");
  });
});
