// /probe against hostile servers: the password must never reach a target that is not listed for the auth
// module, and never leave over an unencrypted TCP connection, whatever the server at the other end asks.
// The servers are real listening sockets speaking the MySQL handshake (test/hostile-mysql.ts).
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startUntornExporter } from "@untorn/testkit/exporters";
import { freePort, makeTempDir, removeDir } from "@untorn/testkit/process";
import mysql from "mysql2/promise";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type HostileServer, type Scenario, startHostileServer } from "./hostile-mysql.js";

const SECRET = "Pr0be-S3cret-never-leaves";
const SCENARIOS: Scenario[] = ["mysql_clear_password", "caching_sha2_password", "sha256_password"];

type Servers = Record<
  "listedTcp" | "unlistedTcp" | "listedSock" | "unlistedSock",
  Record<Scenario, HostileServer>
>;

async function startAll(dir: string): Promise<Servers> {
  const make = async (kind: string, tcp: boolean) => {
    const out = {} as Record<Scenario, HostileServer>;
    for (const s of SCENARIOS)
      out[s] = await startHostileServer(tcp ? await freePort() : join(dir, `${kind}-${s}.sock`), s);
    return out;
  };
  return {
    listedTcp: await make("listed-tcp", true),
    unlistedTcp: await make("unlisted-tcp", true),
    listedSock: await make("listed", false),
    unlistedSock: await make("unlisted", false),
  };
}

describe("the hostile server itself", () => {
  // Without this control a test that never saw the password would prove nothing.
  it("gets the password out of an unguarded mysql2 client, by each route", async () => {
    const dir = await makeTempDir("hostile-control");
    try {
      for (const s of SCENARIOS) {
        const server = await startHostileServer(await freePort(), s);
        const [host, port] = server.address.split(":");
        await mysql
          .createConnection({
            host,
            port: Number(port),
            user: "u",
            password: SECRET,
            enableCleartextPlugin: true,
            connectTimeout: 5000,
          })
          .then(
            (c) => c.destroy(),
            () => undefined,
          );
        expect(server.saw(SECRET), s).toBe(true);
        await server.close();
      }
    } finally {
      await removeDir(dir);
    }
  });
});

describe("/probe is off by default", () => {
  it("answers 403 and connects nowhere without --probe.config.file", async () => {
    const dir = await makeTempDir("probe-off");
    const server = await startHostileServer(join(dir, "attacker.sock"), "caching_sha2_password");
    const exporter = await startUntornExporter({
      args: ["--mysqld.address=/nonexistent.sock", "--mysqld.username=exporter"],
      env: { UNTORN_EXPORTER_PASSWORD: SECRET },
    });
    try {
      for (const target of [server.address, "127.0.0.1:3306"]) {
        for (const mod of ["", "&auth_module=client"]) {
          const res = await exporter.get(`/probe?target=${encodeURIComponent(target)}${mod}`);
          expect(res.status).toBe(403);
          expect(res.body).toMatch(/\/probe is off/);
        }
      }
      expect(server.connections()).toBe(0);
    } finally {
      await exporter.stop();
      await server.close();
      await removeDir(dir);
    }
  });
});

describe("/probe with auth modules", () => {
  let dir: string;
  let servers: Servers;
  let exporter: Awaited<ReturnType<typeof startUntornExporter>>;
  let metricsServer: HostileServer;

  beforeAll(async () => {
    dir = await makeTempDir("probe-sec");
    servers = await startAll(dir);
    metricsServer = await startHostileServer(await freePort(), "caching_sha2_password");
    const listed = [
      ...SCENARIOS.map((s) => servers.listedTcp[s].address),
      ...SCENARIOS.map((s) => servers.listedSock[s].address),
    ];
    const pw = join(dir, "lab.password");
    writeFileSync(pw, `${SECRET}\n`);
    const cfg = join(dir, "probe.yml");
    writeFileSync(
      cfg,
      [
        "auth_modules:",
        "  lab:",
        "    user: probe",
        `    password_file: ${pw}`,
        "    targets:",
        ...listed.map((t) => `      - "${t}"`),
        "  other:",
        "    user: probe2",
        `    password: "${SECRET}-2"`,
        '    targets: ["db9:3306"]',
        "",
      ].join("\n"),
    );
    exporter = await startUntornExporter({
      args: [
        `--probe.config.file=${cfg}`,
        `--mysqld.address=${metricsServer.address}`,
        "--mysqld.username=exporter",
      ],
      env: { UNTORN_EXPORTER_PASSWORD: SECRET },
    });
  });
  afterAll(async () => {
    await exporter?.stop();
    for (const group of Object.values(servers ?? {})) for (const s of Object.values(group)) await s.close();
    await metricsServer?.close();
    await removeDir(dir);
  });

  const noLeak = () => {
    for (const [kind, group] of Object.entries(servers))
      for (const [s, server] of Object.entries(group)) expect(server.saw(SECRET), `${kind} ${s}`).toBe(false);
    expect(metricsServer.saw(SECRET)).toBe(false);
  };

  it("never connects to a target not listed for the module", async () => {
    for (const s of SCENARIOS) {
      for (const server of [servers.unlistedTcp[s], servers.unlistedSock[s]]) {
        const t = encodeURIComponent(server.address);
        for (const mod of ["lab", "other"]) {
          const res = await exporter.get(`/probe?target=${t}&auth_module=${mod}`);
          expect(res.status).toBe(403);
          expect(res.body).toMatch(new RegExp(`is not among auth_module '${mod}' targets`));
        }
        // a listed target under the other module is not listed for this one
        const cross = await exporter.get(
          `/probe?target=${encodeURIComponent(servers.listedTcp[s].address)}&auth_module=other`,
        );
        expect(cross.status).toBe(403);
        expect(server.connections()).toBe(0);
      }
    }
    noLeak();
  });

  it.each(SCENARIOS)("keeps the password from a listed TCP target that asks for it by %s", async (s) => {
    const server = servers.listedTcp[s];
    const res = await exporter.get(`/probe?target=${encodeURIComponent(server.address)}&auth_module=lab`);
    expect(res.status).toBe(200);
    expect(res.body).toMatch(/^untorn_mysql_up 0$/m);
    expect(server.connections()).toBeGreaterThan(0);
    expect(server.keyRequests()).toBe(0);
    expect(server.saw(SECRET)).toBe(false);
    await expect
      .poll(() => exporter.process.tail(200), { timeout: 10_000 })
      .toMatch(s === "mysql_clear_password" ? /refused mysql_clear_password/ : new RegExp(`refused ${s}`));
  });

  it("keeps mysql_clear_password shut on a listed socket too", async () => {
    const server = servers.listedSock.mysql_clear_password;
    const res = await exporter.get(`/probe?target=${encodeURIComponent(server.address)}&auth_module=lab`);
    expect(res.status).toBe(200);
    expect(res.body).toMatch(/^untorn_mysql_up 0$/m);
    expect(server.connections()).toBeGreaterThan(0);
    expect(server.saw(SECRET)).toBe(false);
  });

  it.each(["caching_sha2_password", "sha256_password"] as const)(
    "trusts a listed socket as the mysql client does: %s gets the password over it, never an RSA key request",
    async (s) => {
      // A unix socket is local and guarded by its directory's permissions; the operator listed this one.
      const server = servers.listedSock[s];
      const res = await exporter.get(`/probe?target=${encodeURIComponent(server.address)}&auth_module=lab`);
      expect(res.status).toBe(200);
      expect(server.keyRequests()).toBe(0);
      expect(server.saw(SECRET)).toBe(true);
      delete (servers.listedSock as Partial<Record<Scenario, HostileServer>>)[s];
      await server.close();
    },
  );

  it("keeps the /metrics password from a TCP server asking for full caching_sha2 authentication", async () => {
    const res = await exporter.get("/metrics");
    expect(res.status).toBe(200);
    expect(res.body).toMatch(/^untorn_mysql_up 0$/m);
    expect(metricsServer.connections()).toBeGreaterThan(0);
    expect(metricsServer.keyRequests()).toBe(0);
    expect(metricsServer.saw(SECRET)).toBe(false);
  });

  it("answers every malformed or hostile /probe input with a status and a message", async () => {
    const listed = encodeURIComponent(servers.listedTcp.caching_sha2_password.address);
    const table: [string, number, RegExp][] = [
      ["/probe", 400, /exactly one 'target'/],
      ["/probe?target=", 400, /target is empty/],
      ["/probe?target=a&target=b&auth_module=lab", 400, /exactly one 'target'/],
      ["/probe?target=db1:99999&auth_module=lab", 400, /port must be 1-65535/],
      ["/probe?target=db1;rm%20-rf&auth_module=lab", 400, /target must be host/],
      [`/probe?target=${listed}`, 400, /exactly one 'auth_module'.*configured: lab, other/],
      [`/probe?target=${listed}&auth_module=lab&auth_module=other`, 400, /exactly one 'auth_module'/],
      [`/probe?target=${listed}&auth_module=client`, 400, /'client' is not in --probe.config.file/],
      [`/probe?target=${listed}&auth_module=../../etc`, 400, /auth_module must be a module name/],
      [`/probe?target=${listed}&password=x`, 400, /never read from the URL/],
      [`/probe?target=${listed}&user=root`, 400, /never read from the URL/],
      [`/probe?target=${listed}&DSN=x`, 400, /never read from the URL/],
      ["/probe?target=db9:3306&auth_module=lab", 403, /is not among auth_module 'lab' targets/],
      [
        "/probe?target=DB9&auth_module=other&collect[]=bogus",
        400,
        /unknown or disabled collector\(s\) bogus/,
      ],
      [
        "/probe?target=db9:3306&auth_module=other&collect[]=host.storage",
        400,
        /reads the exporter's own machine/,
      ],
      ["/probe?target=db9:3306&auth_module=other&colect[]=config", 400, /unknown parameter 'colect\[\]'/],
    ];
    for (const [path, status, message] of table) {
      const res = await exporter.get(path);
      expect(res.status, path).toBe(status);
      expect(res.body, path).toMatch(message);
    }
    noLeak();
  });
});
