import { describe, expect, it } from "vitest";
import { authorise } from "./auth.js";

describe("authorise", () => {
  it("is open when no token is configured", () => {
    expect(authorise(undefined, "")).toEqual({ ok: true, actor: "web" });
  });
  it("needs the configured token", () => {
    expect(authorise("s3cret-token-x", "").ok).toBe(false);
    expect(authorise("s3cret-token-x", "s3cret-token-y")).toEqual({
      ok: false,
      reason: "The admin token is wrong.",
    });
    expect(authorise("s3cret-token-x", "s3cret")).toMatchObject({ ok: false });
    expect(authorise("s3cret-token-x", "s3cret-token-x")).toEqual({ ok: true, actor: "web (admin token)" });
  });
});
