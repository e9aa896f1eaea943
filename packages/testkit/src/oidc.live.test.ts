import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OidcProvider, startOidcProvider } from "./oidc.js";

describe("startOidcProvider", () => {
  let dir: string;
  let provider: OidcProvider;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "untorn-oidc-"));
    provider = await startOidcProvider({
      clients: [{ clientId: "c1", clientSecret: "secret-1234", redirectUris: ["http://127.0.0.1:9/cb"] }],
      users: [{ sub: "s1", username: "ann", password: "pw", groups: ["dbas"] }],
      logFile: join(dir, "provider.log"),
    });
  }, 60_000);
  afterAll(async () => {
    await provider?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it("serves discovery for its issuer, with signing keys, PKCE S256 and end-session", async () => {
    const d = (await (await fetch(`${provider.issuer}/.well-known/openid-configuration`)).json()) as Record<
      string,
      unknown
    >;
    expect(d.issuer).toBe(provider.issuer);
    expect(d.code_challenge_methods_supported).toEqual(["S256"]);
    expect(d.scopes_supported).toEqual(expect.arrayContaining(["openid", "groups"]));
    expect(d.end_session_endpoint).toBe(`${provider.issuer}/session/end`);
    const jwks = (await (await fetch(String(d.jwks_uri))).json()) as { keys: unknown[] };
    expect(jwks.keys.length).toBeGreaterThan(0);
  });

  it("refuses an authorization request without PKCE, and one for an unregistered redirect URI", async () => {
    const ask = (params: Record<string, string>) =>
      fetch(
        `${provider.issuer}/auth?${new URLSearchParams({ client_id: "c1", response_type: "code", scope: "openid", ...params })}`,
        { redirect: "manual" },
      );
    const noPkce = await ask({ redirect_uri: "http://127.0.0.1:9/cb", state: "s" });
    expect(noPkce.headers.get("location")).toMatch(/error=invalid_request.*requires\+PKCE/);
    const elsewhere = await ask({
      redirect_uri: "http://evil.example/cb",
      code_challenge: "x".repeat(43),
      code_challenge_method: "S256",
    });
    expect(elsewhere.status).toBe(400);
    expect(await elsewhere.text()).toMatch(/redirect_uri did not match/);
  });
});
