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
