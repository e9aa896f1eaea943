import { describe, expect, it } from "vitest";
import { ACTIONS, allows, ROUTES, TOKEN_ROUTES } from "./permissions.js";
import { foreignOrigin, hostRefused } from "./request-checks.js";

describe("allows", () => {
  it.each([
    [null, "anonymous", true],
    [null, "viewer", false],
    ["viewer", "viewer", true],
    ["viewer", "operator", false],
    ["operator", "operator", true],
    ["operator", "admin", false],
    ["admin", "operator", true],
    ["admin", "admin", true],
  ] as const)("%s may do what needs %s: %s", (role, needed, ok) => {
    expect(allows(role, needed)).toBe(ok);
  });

  it("writes need operator at least, user management admin, and tokens only read", () => {
    expect(ACTIONS.saveInstanceMetadata).toBe("operator");
    expect(ACTIONS.createUser).toBe("admin");
    expect(TOKEN_ROUTES.every((r) => r.startsWith("GET ") && ROUTES[r] === "viewer")).toBe(true);
  });
});

const headers = (h: Record<string, string>) => new Headers(h);

describe("foreignOrigin", () => {
  it("accepts the console's own origin and a client that sends none", () => {
    expect(foreignOrigin(headers({ host: "127.0.0.1:3000", origin: "http://127.0.0.1:3000" }))).toBeNull();
    expect(foreignOrigin(headers({ host: "127.0.0.1:3000" }))).toBeNull();
    // X-Forwarded-Host counts from a configured reverse proxy only (src/forwarded-headers.test.ts).
    expect(
      foreignOrigin(
        headers({
          host: "web:3000",
          "x-forwarded-host": "console.example",
          origin: "https://console.example",
        }),
      ),
    ).toMatch(/foreign Origin/);
  });

  it("refuses another site, a port change, a null origin and a cross-site fetch", () => {
    expect(foreignOrigin(headers({ host: "127.0.0.1:3000", origin: "http://evil.example" }))).toMatch(
      /foreign Origin/,
    );
    expect(foreignOrigin(headers({ host: "127.0.0.1:3000", origin: "http://127.0.0.1:4000" }))).toMatch(
      /foreign/,
    );
    expect(foreignOrigin(headers({ host: "127.0.0.1:3000", origin: "null" }))).toMatch(
      /foreign Origin "null"/,
    );
    expect(foreignOrigin(headers({ host: "127.0.0.1:3000", "sec-fetch-site": "cross-site" }))).toMatch(
      /cross-site/,
    );
  });
});

describe("hostRefused", () => {
  it("allows any host when unset, else only the listed ones (with or without the port)", () => {
    expect(hostRefused("rebind.evil.example:3000", undefined)).toBeNull();
    const allowed = ["console.example", "127.0.0.1:3000"];
    expect(hostRefused("console.example:8443", allowed)).toBeNull();
    expect(hostRefused("127.0.0.1:3000", allowed)).toBeNull();
    expect(hostRefused("127.0.0.1:3001", allowed)).toMatch(/not in UNTORN_ALLOWED_HOSTS/);
    expect(hostRefused("rebind.evil.example", allowed)).toMatch(/"rebind.evil.example"/);
  });
});
