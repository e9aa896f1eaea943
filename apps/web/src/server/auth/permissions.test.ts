/**
 * The access table: every Server Action and route handler called as anonymous, viewer, operator and
 * admin, with the outcome lib/permissions.ts promises; every page checks its role. An action, route or
 * page missing from lib/permissions.ts fails here.
 */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { ACTIONS, allows, PAGES, ROLES, ROUTES, type Role } from "../../lib/permissions.js";
import { isRefusal } from "../http.js";
import { AccessError, type Principal, runAs } from "./access.js";

const APP = fileURLToPath(new URL("../../app/", import.meta.url));
const SRC = fileURLToPath(new URL("../../", import.meta.url));
const WHO: (Principal | null)[] = [
  null,
  ...ROLES.map((role): Principal => ({ name: `test-${role}`, role, via: "session" })),
];
const label = (p: Principal | null) => p?.role ?? "anonymous";
const roleOf = (p: Principal | null): Role | null => p?.role ?? null;

function files(dir: string, name: RegExp): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((d) => d.isFile() && name.test(d.name))
    .map((d) => path.join(d.parentPath, d.name));
}
const routePath = (file: string) =>
  `/${path.relative(APP, path.dirname(file)).split(path.sep).join("/")}`.replace(/\/$/, "") || "/";

/** A module whose first statement is the "use server" directive: each of its exports is a Server Action. */
const USE_SERVER = /^(?:\s+|\/\/[^\n]*\n|\/\*[\s\S]*?\*\/)*["']use server["']/;
const sources = files(SRC, /\.tsx?$/).filter((f) => !/\.test\.tsx?$/.test(f));
const actionModules = sources.filter((f) => USE_SERVER.test(fs.readFileSync(f, "utf8")));
const actions: Record<string, unknown> = {};
const duplicated: string[] = [];
for (const f of actionModules)
  for (const [k, v] of Object.entries((await import(f)) as Record<string, unknown>)) {
    if (k in actions) duplicated.push(k);
    actions[k] = v;
  }

describe("Server Actions", () => {
  const exported = Object.keys(actions).sort();

  it('every action of every "use server" module is in ACTIONS, and every entry is exported', () => {
    expect(actionModules.map((f) => path.relative(SRC, f))).toContain("server/actions.ts");
    expect(duplicated).toEqual([]);
    expect(exported).toEqual(Object.keys(ACTIONS).sort());
  });

  it('no action is declared inline (a "use server" inside a function escapes this table)', () => {
    const inline = sources.filter((f) => {
      const src = fs.readFileSync(f, "utf8");
      return /["']use server["']/.test(src.replace(USE_SERVER, ""));
    });
    expect(inline.map((f) => path.relative(SRC, f))).toEqual([]);
  });

  describe.each(exported)("%s", (name) => {
    const action = (actions as Record<string, (prev: unknown, data: FormData) => Promise<unknown>>)[name]!;
    it.each(WHO.map((w) => [label(w), w] as const))("as %s", async (_l, who) => {
      const outcome = await runAs(who, () =>
        action({ status: "idle", message: "", fieldErrors: {} }, new FormData()),
      ).then(
        (r) => ({ ok: true as const, r }),
        (e: unknown) => ({ ok: false as const, e }),
      );
      const needed = ACTIONS[name as keyof typeof ACTIONS];
      if (allows(roleOf(who), needed)) {
        // Past the role check: the empty form is refused by validation, not by access control.
        expect(outcome.ok ? null : outcome.e).toBeNull();
        expect(outcome.ok && (outcome.r as { status: string }).status).toBe("error");
        expect(outcome.ok && (outcome.r as { denied?: number }).denied).toBeUndefined();
      } else {
        // Refused by access control: thrown, or returned as the form's error with the status.
        const status = outcome.ok
          ? (outcome.r as { denied?: number }).denied
          : outcome.e instanceof AccessError
            ? outcome.e.status
            : undefined;
        expect(status).toBe(who ? 403 : 401);
      }
    });
  });
});

/** A request per route that gets past access control and stops cheaply (validation) when allowed. */
const PROBES: Record<keyof typeof ROUTES, () => Request> = {
  "GET /api/v1/health": () => new Request("http://localhost/api/v1/health"),
  "GET /repo-files/[...path]": () => new Request("http://localhost/repo-files/package.json"),
  "GET /api/v1/fleet": () => new Request("http://localhost/api/v1/fleet?limit=1e3"),
  "GET /api/v1/fleet.csv": () => new Request("http://localhost/api/v1/fleet.csv?range=forever"),
  "GET /api/v1/recommendations.csv": () =>
    new Request("http://localhost/api/v1/recommendations.csv?severity=fatal"),
  "GET /metrics": () => new Request("http://localhost/metrics?x=1"),
  "GET /api/v1/instances/[id]": () => new Request(`http://localhost/api/v1/instances/${"x".repeat(600)}`),
  "GET /api/v1/rollouts": () => new Request("http://localhost/api/v1/rollouts?limit=0x10"),
  "GET /api/v1/rollouts/[id]": () => new Request("http://localhost/api/v1/rollouts/not-a-uuid"),
  "GET /api/v1/rollouts/[id]/report": () =>
    new Request("http://localhost/api/v1/rollouts/not-a-uuid/report?format=pdf"),
  "GET /api/v1/audit": () => new Request("http://localhost/api/v1/audit?limit=0x10"),
  "POST /api/auth/login": () =>
    new Request("http://localhost/api/auth/login", { method: "POST", headers: { host: "localhost" } }),
  "POST /api/auth/logout": () =>
    new Request("http://localhost/api/auth/logout", { method: "POST", headers: { host: "localhost" } }),
  "GET /api/auth/oidc/login": () => new Request("http://localhost/api/auth/oidc/login"),
  "GET /api/auth/oidc/callback": () => new Request("http://localhost/api/auth/oidc/callback?code=x&state=y"),
};

const routeFiles = files(APP, /^route\.ts$/);
const handlers: [string, (req: Request, ctx: unknown) => Promise<Response>][] = [];
/** Handlers that only answer 405 or 404 (server/http.ts): no role, nothing read. */
const refusals: [string, (req: Request) => Promise<Response>][] = [];
for (const f of routeFiles) {
  const mod = (await import(f)) as Record<string, unknown>;
  for (const [k, v] of Object.entries(mod))
    if (/^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)$/.test(k) && typeof v === "function") {
      const name = `${k} ${routePath(f)}`;
      if (isRefusal(v)) refusals.push([name, v]);
      else handlers.push([name, v as (req: Request, ctx: unknown) => Promise<Response>]);
    }
}

describe("route handlers", () => {
  it("every handler is in ROUTES, and every entry has a handler", () => {
    expect(handlers.map(([n]) => n).sort()).toEqual(Object.keys(ROUTES).sort());
  });

  describe.each(handlers)("%s", (name, handler) => {
    const needed = ROUTES[name as keyof typeof ROUTES];
    it.each(WHO.map((w) => [label(w), w] as const))("as %s", async (_l, who) => {
      const res = await runAs(who, () =>
        handler(PROBES[name as keyof typeof ROUTES](), { params: Promise.resolve({}) }),
      );
      if (allows(roleOf(who), needed)) expect([401, 403]).not.toContain(res.status);
      else {
        expect(res.status).toBe(who ? 403 : 401);
        expect((await res.json()).error).toMatch(/needs/);
      }
    });

    if (!name.startsWith("GET "))
      it("refuses a foreign Origin even from an admin", async () => {
        const p = PROBES[name as keyof typeof ROUTES]();
        const req = new Request(p.url, {
          method: "POST",
          headers: { host: "localhost", origin: "http://evil.example" },
        });
        const res = await runAs(WHO[3]!, () => handler(req, {}));
        expect(res.status).toBe(403);
        expect((await res.json()).error).toMatch(/foreign Origin "http:\/\/evil.example"/);
      });
  });
});

describe("refusing handlers", () => {
  it.each(refusals)("%s answers a JSON 405 with Allow, or a JSON 404", async (name, handler) => {
    const [method, path] = name.split(" ") as [string, string];
    const res = await handler(new Request(`http://localhost${path}`, { method }));
    const body = (await res.json()) as { error: string };
    if (path.startsWith("/api/[...rest]")) {
      expect(res.status).toBe(404);
      expect(body.error).toMatch(/^no API route/);
    } else {
      expect(res.status).toBe(405);
      expect(res.headers.get("allow")).toMatch(/^(GET|POST)$/);
      expect(body.error).toContain(`${method} is not allowed here`);
    }
  });

  it("every route file refuses the methods it does not take", () => {
    const byPath = new Map<string, Set<string>>();
    for (const [n] of [...handlers, ...refusals]) {
      const [m, p] = n.split(" ") as [string, string];
      byPath.set(p, (byPath.get(p) ?? new Set()).add(m));
    }
    for (const [p, methods] of byPath)
      for (const m of ["GET", "POST", "PUT", "PATCH", "DELETE"]) expect(methods, `${m} ${p}`).toContain(m);
  });
});

describe("pages", () => {
  const pages = files(APP, /^page\.tsx$/).map((f) => [routePath(f), f] as const);

  it("every page is in PAGES, and every entry is a page", () => {
    expect(pages.map(([p]) => p).sort()).toEqual(Object.keys(PAGES).sort());
  });

  it.each(pages)("%s checks its role with requirePage before rendering", (name, file) => {
    const src = fs.readFileSync(file, "utf8");
    if (PAGES[name as keyof typeof PAGES] === "anonymous") return;
    expect(src).toContain(`requirePage(${JSON.stringify(name)}`);
  });
});
