import { describe, expect, it } from "vitest";
import { bindHost, EnvError, isLoopback, parseEnv } from "./env.js";

describe("parseEnv", () => {
  it("fills the defaults and treats empty values as unset", () => {
    const e = parseEnv({ PROMETHEUS_URL: "", GRAFANA_URL: " ", PORT: "" });
    expect(e).toMatchObject({
      PROMETHEUS_URL: undefined,
      GRAFANA_URL: undefined,
      UNTORN_DATA_DIR: ".untorn-data",
      PORT: 3000,
      UNTORN_WINDOW: "1h",
      UNTORN_CACHE_SECONDS: 30,
    });
  });

  it("strips trailing slashes from URLs and coerces numbers", () => {
    const e = parseEnv({
      PROMETHEUS_URL: "http://prom:9090/",
      GRAFANA_URL: "https://g.example/grafana/",
      PORT: "8080",
    });
    expect(e.PROMETHEUS_URL).toBe("http://prom:9090");
    expect(e.GRAFANA_URL).toBe("https://g.example/grafana");
    expect(e.PORT).toBe(8080);
  });

  it("names every bad variable", () => {
    let err: unknown;
    try {
      parseEnv({
        PROMETHEUS_URL: "ftp://prom",
        PORT: "70000",
        DATABASE_URL: "mysql://x",
        UNTORN_VIEWER_TOKEN: "short",
        UNTORN_WINDOW: "an hour",
      });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(EnvError);
    const issues = (err as EnvError).issues.join("\n");
    for (const name of ["PROMETHEUS_URL", "PORT", "DATABASE_URL", "UNTORN_VIEWER_TOKEN", "UNTORN_WINDOW"])
      expect(issues).toContain(name);
  });

  it("refuses the removed UNTORN_ADMIN_TOKEN with the migration note, and weak secrets", () => {
    const issues = (source: Record<string, string>) => {
      try {
        parseEnv(source);
      } catch (e) {
        return (e as EnvError).issues.join("\n");
      }
      return "";
    };
    expect(issues({ UNTORN_ADMIN_TOKEN: "a-long-enough-token" })).toMatch(
      /UNTORN_ADMIN_TOKEN: UNTORN_ADMIN_TOKEN was removed: .*UNTORN_ADMIN_PASSWORD/,
    );
    expect(issues({ UNTORN_VIEWER_TOKEN: "x".repeat(31) })).toMatch(
      /UNTORN_VIEWER_TOKEN must be at least 32/,
    );
    expect(issues({ UNTORN_ADMIN_PASSWORD: "short" })).toMatch(/UNTORN_ADMIN_PASSWORD must be at least 12/);
    expect(issues({ UNTORN_AUTH: "ldap" })).toMatch(/UNTORN_AUTH must be local, proxy or oidc/);
    expect(issues({ UNTORN_SESSION_SECONDS: "1e3" })).toMatch(/UNTORN_SESSION_SECONDS/);
    expect(issues({ UNTORN_ALLOWED_HOSTS: "console.example/evil" })).toMatch(/UNTORN_ALLOWED_HOSTS/);
    expect(issues({ UNTORN_ADMIN_USER: "root; drop" })).toMatch(/UNTORN_ADMIN_USER/);
  });

  it("auth defaults: local accounts, user admin, 12 h sessions, any host", () => {
    const e = parseEnv({ UNTORN_ALLOWED_HOSTS: "" });
    expect(e).toMatchObject({
      UNTORN_AUTH: "local",
      UNTORN_ADMIN_USER: "admin",
      UNTORN_SESSION_SECONDS: 43_200,
    });
    expect(e.UNTORN_ALLOWED_HOSTS).toBeUndefined();
    expect(
      parseEnv({ UNTORN_ALLOWED_HOSTS: "Console.example, 127.0.0.1:3000" }).UNTORN_ALLOWED_HOSTS,
    ).toEqual(["console.example", "127.0.0.1:3000"]);
  });

  it("finds the address next start listens on", () => {
    expect(bindHost(["node", "next", "start", "-H", "127.0.0.1"])).toBe("127.0.0.1");
    expect(bindHost(["node", "next", "start", "--hostname=::1"])).toBe("::1");
    expect(bindHost(["node", "next", "start"])).toBe("0.0.0.0");
    expect(["127.0.0.1", "localhost", "::1", "[::1]"].every(isLoopback)).toBe(true);
    expect(["0.0.0.0", "::", "10.0.0.1", "127.0.0.1.nip.io"].some(isLoopback)).toBe(false);
  });
});

describe("authentication modes", () => {
  const issues = (source: Record<string, string>) => {
    try {
      parseEnv(source);
      return "";
    } catch (err) {
      return (err as Error).message;
    }
  };
  const PROXY = {
    UNTORN_AUTH: "proxy",
    UNTORN_TRUSTED_PROXIES: "10.0.0.0/8,127.0.0.1",
    UNTORN_ROLE_MAP: "dba-admins=admin,dbas=operator,*=viewer",
  };
  const OIDC = {
    UNTORN_AUTH: "oidc",
    UNTORN_OIDC_ISSUER: "https://sso.example/realms/ops",
    UNTORN_OIDC_CLIENT_ID: "untorn",
    UNTORN_OIDC_CLIENT_SECRET: "a-client-secret",
    UNTORN_PUBLIC_URL: "https://untorn.example/",
    UNTORN_ROLE_MAP: "dbas=operator",
  };

  it("proxy mode: defaults to oauth2-proxy's X-Forwarded-User and -Groups", () => {
    const e = parseEnv(PROXY);
    expect(e.UNTORN_PROXY_USER_HEADER).toBe("x-forwarded-user");
    expect(e.UNTORN_PROXY_GROUPS_HEADER).toBe("x-forwarded-groups");
    expect(e.UNTORN_TRUSTED_PROXIES?.entries).toEqual(["10.0.0.0/8", "127.0.0.1/32"]);
    expect(e.UNTORN_ROLE_MAP?.get("dbas")).toBe("operator");
    expect(
      parseEnv({ ...PROXY, UNTORN_PROXY_USER_HEADER: "X-Auth-Request-User" }).UNTORN_PROXY_USER_HEADER,
    ).toBe("x-auth-request-user");
  });

  it("oidc mode: scopes and claims default, the public URL loses its trailing slash", () => {
    const e = parseEnv(OIDC);
    expect(e).toMatchObject({
      UNTORN_OIDC_SCOPES: "openid profile email",
      UNTORN_OIDC_GROUPS_CLAIM: "groups",
      UNTORN_OIDC_USERNAME_CLAIM: "preferred_username",
      UNTORN_PUBLIC_URL: "https://untorn.example",
    });
    expect(parseEnv({ ...OIDC, UNTORN_OIDC_ISSUER: "http://127.0.0.1:4000" }).UNTORN_OIDC_ISSUER).toBe(
      "http://127.0.0.1:4000",
    );
  });

  it.each([
    [{ UNTORN_AUTH: "proxy" }, /UNTORN_TRUSTED_PROXIES: required when UNTORN_AUTH=proxy/],
    [{ UNTORN_AUTH: "proxy" }, /UNTORN_ROLE_MAP: required when UNTORN_AUTH=proxy/],
    [
      { ...PROXY, UNTORN_TRUSTED_PROXIES: "proxy.internal" },
      /UNTORN_TRUSTED_PROXIES: "proxy.internal" is not an IP/,
    ],
    [{ ...PROXY, UNTORN_ROLE_MAP: "dbas=root" }, /UNTORN_ROLE_MAP: "dbas=root": role "root" is not one of/],
    [{ ...PROXY, UNTORN_PROXY_USER_HEADER: "Cookie" }, /UNTORN_PROXY_USER_HEADER must not be a header/],
    [{ ...PROXY, UNTORN_PROXY_GROUPS_HEADER: "x-untorn-peer" }, /UNTORN_PROXY_GROUPS_HEADER must not be/],
    [{ ...PROXY, UNTORN_PROXY_USER_HEADER: "x user" }, /must be an HTTP header name/],
    [{ ...PROXY, UNTORN_PROXY_SIGN_OUT_URL: "//evil.example" }, /UNTORN_PROXY_SIGN_OUT_URL must be a path/],
    [
      { ...PROXY, UNTORN_OIDC_ISSUER: "https://sso.example" },
      /UNTORN_OIDC_ISSUER: only used when UNTORN_AUTH=oidc, but UNTORN_AUTH=proxy/,
    ],
    [
      { ...PROXY, UNTORN_ADMIN_PASSWORD: "long-enough-password" },
      /UNTORN_ADMIN_PASSWORD: only used when UNTORN_AUTH=local/,
    ],
    [{ UNTORN_AUTH: "oidc" }, /UNTORN_OIDC_ISSUER: required when UNTORN_AUTH=oidc/],
    [{ UNTORN_AUTH: "oidc" }, /UNTORN_PUBLIC_URL: required when UNTORN_AUTH=oidc/],
    [
      { ...OIDC, UNTORN_OIDC_ISSUER: "http://sso.example" },
      /UNTORN_OIDC_ISSUER must be https:\/\/ \(http:\/\/ only on a loopback/,
    ],
    [{ ...OIDC, UNTORN_OIDC_CLIENT_SECRET: "short" }, /UNTORN_OIDC_CLIENT_SECRET must be at least 8/],
    [{ ...OIDC, UNTORN_OIDC_SCOPES: "profile email" }, /UNTORN_OIDC_SCOPES must include openid/],
    [{ ...OIDC, UNTORN_OIDC_SCOPES: "openid  profile" }, /scopes separated by single spaces/],
    [
      { ...OIDC, UNTORN_PROXY_USER_HEADER: "x-user" },
      /UNTORN_PROXY_USER_HEADER: only used when UNTORN_AUTH=proxy/,
    ],
    [{ UNTORN_ROLE_MAP: "dbas=operator" }, /UNTORN_ROLE_MAP: only used when UNTORN_AUTH=proxy or oidc/],
    [
      { UNTORN_OIDC_CLIENT_ID: "x" },
      /UNTORN_OIDC_CLIENT_ID: only used when UNTORN_AUTH=oidc, but UNTORN_AUTH=local/,
    ],
  ])("%j is refused: %s", (source, message) => {
    expect(issues(source as Record<string, string>)).toMatch(message);
  });

  it("another mode's setting left empty (docker-compose writes VAR=) is not a contradiction", () => {
    expect(() => parseEnv({ ...PROXY, UNTORN_ADMIN_PASSWORD: "", UNTORN_OIDC_ISSUER: " " })).not.toThrow();
  });
});
