import { describe, expect, it } from "vitest";
import { DUMMY_HASH, hashPassword, randomToken, verifyPassword } from "./password.js";

describe("password hashing (scrypt)", () => {
  it("verifies the right password only, with a fresh salt each time", async () => {
    const a = await hashPassword("correct horse battery");
    const b = await hashPassword("correct horse battery");
    expect(a).toMatch(/^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword("correct horse battery", a)).toBe(true);
    expect(await verifyPassword("correct horse batterY", a)).toBe(false);
    expect(await verifyPassword("", a)).toBe(false);
  });

  it("says false for malformed or absurd hashes instead of throwing", async () => {
    expect(await verifyPassword("x", "plain-text")).toBe(false);
    expect(await verifyPassword("x", "scrypt$1073741824$8$1$AAAA$AAAA")).toBe(false);
    expect(await verifyPassword("x", DUMMY_HASH)).toBe(false);
  });

  it("makes 256-bit random tokens", () => {
    const t = randomToken("untorn_");
    expect(t).toMatch(/^untorn_[\w-]{43}$/);
    expect(randomToken()).not.toBe(randomToken());
  });
});
