/**
 * Failed credentials against a real store (embedded PGlite): counted in the database, throttled per
 * account and per address, logged without the secret, audited for existing accounts.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Store } from "@untorn/store/store";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { type Env, parseEnv } from "../../env.js";
import { getStore } from "../store.js";
import { AccessError, principalOf } from "./access.js";
import { signIn } from "./auth.js";
import { hashPassword } from "./password.js";
import { MAX_FAILURES, MAX_FAILURES_PER_ADDRESS } from "./throttle.js";

let dir: string;
let e: Env;
let store: Store;
const PASSWORD = "the-right-password-42";

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-throttle-"));
  e = parseEnv({ UNTORN_DATA_DIR: path.join(dir, "store") });
  store = await getStore(e);
  for (const username of ["dave", "erin"])
    await store.createUser({
      username,
      passwordHash: await hashPassword(PASSWORD),
      role: "viewer",
      actor: "test",
    });
  await store.createUser({
    username: "carol",
    passwordHash: await hashPassword(PASSWORD),
    role: "viewer",
    actor: "test",
  });
}, 120_000);

afterAll(async () => {
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe("failed credentials", () => {
  it("throttles an account after MAX_FAILURES wrong passwords, the right one too, and audits them", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    for (let i = 0; i < MAX_FAILURES; i++)
      expect(await signIn(e, "carol", `wrong-guess-${i}`, `198.51.100.${i}`)).toMatchObject({ status: 401 });
    // Another address, the right password: still refused, the count is the account's.
    const r = await signIn(e, "carol", PASSWORD, "203.0.113.9");
    expect(r).toMatchObject({ ok: false, status: 429 });
    const logged = warn.mock.calls.map((c) => String(c[0])).join("\n");
    expect(logged).toContain('failed password sign-in for "carol" from 198.51.100.0 (wrong password)');
    expect(logged).toContain('throttled password sign-in for "carol" from 203.0.113.9');
    expect(logged).not.toContain("wrong-guess");
    expect(logged).not.toContain(PASSWORD);
    const audit = await store.listAudit({ entity: "user", entityId: "carol", action: "auth.sign-in-failed" });
    expect(audit).toHaveLength(MAX_FAILURES);
    expect(audit[0]).toMatchObject({
      actor: "carol (not signed in)",
      details: { reason: "wrong password" },
    });
    expect(JSON.stringify(audit)).not.toContain("wrong-guess");
    // Kept in the store, not in this process: what another console on the same database reads.
    expect(await store.authFailureWait("account:carol", MAX_FAILURES, 900)).toBeGreaterThan(0);
    warn.mockRestore();
  });

  it("does not audit unknown user names (an attacker could fill the log), but counts them", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    expect(await signIn(e, "nobody-here", "x".repeat(12), "192.0.2.50")).toMatchObject({ status: 401 });
    expect(await store.listAudit({ entityId: "nobody-here" })).toHaveLength(0);
    expect(String(warn.mock.calls.at(-1)?.[0])).toContain("(unknown user)");
    warn.mockRestore();
  });

  it("refuses bad API tokens from an address with 429 after MAX_FAILURES_PER_ADDRESS", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const h = (token: string) =>
      new Headers({ authorization: `Bearer ${token}`, "x-forwarded-for": "192.0.2.77" });
    const statusOf = (token: string) =>
      principalOf(h(token), { bearer: true }).then(
        () => 200,
        (err: unknown) => (err instanceof AccessError ? err.status : 500),
      );
    process.env.UNTORN_DATA_DIR = path.join(dir, "store");
    for (let i = 0; i < MAX_FAILURES_PER_ADDRESS; i++) expect(await statusOf(`untorn_guess${i}`)).toBe(401);
    expect(await statusOf("untorn_one-more")).toBe(429);
    expect(warn.mock.calls.map((c) => String(c[0])).join("\n")).not.toContain("untorn_guess");
    warn.mockRestore();
  });

  it("checks at most MAX_FAILURES passwords of 40 parallel guesses released at once (a barrier)", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    let release!: () => void;
    const barrier = new Promise<void>((r) => {
      release = r;
    });
    const guesses = Array.from({ length: 40 }, (_, i) =>
      barrier.then(() => signIn(e, "dave", `parallel-guess-${i}`, `198.51.100.${100 + i}`)),
    );
    release();
    const results = await Promise.all(guesses);
    const checked = await store.listAudit({
      entity: "user",
      entityId: "dave",
      action: "auth.sign-in-failed",
    });
    expect(checked.length).toBeLessThanOrEqual(MAX_FAILURES);
    expect(results.filter((r) => !r.ok && r.status === 401)).toHaveLength(checked.length);
    expect(results.filter((r) => !r.ok && r.status === 429)).toHaveLength(40 - checked.length);
    // The right password now too is refused: the account's window is full.
    expect(await signIn(e, "dave", PASSWORD, "203.0.113.20")).toMatchObject({ ok: false, status: 429 });
    warn.mockRestore();
  });

  it("does not count made-up bearer tokens against an address's password sign-ins", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
    const address = "192.0.2.99";
    const h = (token: string) =>
      new Headers({ authorization: `Bearer ${token}`, "x-forwarded-for": address });
    const statusOf = (token: string) =>
      principalOf(h(token), { bearer: true }).then(
        () => 200,
        (err: unknown) => (err instanceof AccessError ? err.status : 500),
      );
    for (let i = 0; i < MAX_FAILURES_PER_ADDRESS + 2; i++) await statusOf(`untorn_madeup${i}`);
    expect(await statusOf("untorn_madeup-last")).toBe(429);
    // The right password from the same address still signs in.
    expect(await signIn(e, "erin", PASSWORD, address)).toMatchObject({ ok: true, username: "erin" });
    warn.mockRestore();
  });

  it("gives a good password's reservation back: the account is not one attempt closer to its limit", async () => {
    for (let i = 0; i < MAX_FAILURES + 3; i++)
      expect(await signIn(e, "erin", PASSWORD, "203.0.113.30")).toMatchObject({ ok: true });
    expect(await store.authFailureWait("account:erin", 1, 900)).toBe(0);
  });
});
