import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Collector } from "./collector.js";
import { ConfigError, credentialsFrom, loadConfig, parseMyCnf, usage } from "./config.js";

const fake = (name: Collector["name"], defaultEnabled = true): Collector => ({
  name,
  description: `${name} collector`,
  defaultEnabled,
  collect: async () => undefined,
});
const collectors = [fake("config"), fake("global_status"), fake("perf_schema.waits", false)];
const load = (argv: string[], env: NodeJS.ProcessEnv = {}) => loadConfig(argv, env, collectors);

describe("loadConfig", () => {
  it("has sane defaults", () => {
    const cfg = load(["--mysqld.address=/tmp/x.sock", "--mysqld.username=mon"]);
    expect(cfg.listenPort).toBe(9105);
    expect(cfg.listenHost).toBeUndefined();
    expect(cfg.target).toEqual({ address: "/tmp/x.sock", user: "mon", password: "" });
    expect(cfg.collectors.map((c) => c.name)).toEqual(["config", "global_status"]);
    expect(cfg.defaultTimeoutS).toBe(10);
    expect(cfg.host.proc).toBe("/proc");
  });

  it("switches collectors with --collect.x, --collect.x=false and --no-collect.x", () => {
    const cfg = load(["--collect.perf_schema.waits", "--no-collect.config", "--collect.global_status=false"]);
    expect(cfg.collectors.map((c) => c.name)).toEqual(["perf_schema.waits"]);
  });

  it("takes the password from the environment, then a file, never a flag", () => {
    expect(load([], { UNTORN_EXPORTER_PASSWORD: "s3cret" }).target.password).toBe("s3cret");
    const dir = mkdtempSync(join(tmpdir(), "untorn-cfg-"));
    writeFileSync(join(dir, "pw"), "fromfile\n");
    expect(
      load([`--mysqld.password-file=${join(dir, "pw")}`], { UNTORN_EXPORTER_PASSWORD: "x" }).target.password,
    ).toBe("fromfile");
    expect(() => load(["--mysqld.password=oops"])).toThrow(/unknown flag --mysqld.password/);
  });

  it("reads [client] from --config.my-cnf", () => {
    const dir = mkdtempSync(join(tmpdir(), "untorn-cfg-"));
    const cnf = join(dir, "my.cnf");
    writeFileSync(
      cnf,
      "[client]\nuser = exporter\npassword = 'pw'\nhost=db1\nport=3307\n\n[client.replicas]\nuser=r\npassword=rp\n",
    );
    const cfg = load([`--config.my-cnf=${cnf}`]);
    expect(cfg.target).toMatchObject({ address: "db1:3307", user: "exporter", password: "pw" });
    expect(credentialsFrom(cfg.myCnf, "client.replicas")).toEqual({ user: "r", password: "rp" });
    expect(() => credentialsFrom(cfg.myCnf, "client.none")).toThrow(/not a section/);
  });

  it.each([
    [["--bogus"], /unknown flag --bogus/],
    [["--web.listen-address=nope"], /not \[host\]:port/],
    [["--web.listen-address=:70000"], /not \[host\]:port/],
    [["--exporter.max-connections=1"], /must be a number >= 2/],
    [["--exporter.default-timeout=abc"], /must be a number/],
    [["--collect.config=maybe"], /must be true or false/],
    [["--log.level=loud"], /--log.level/],
    [["--config.my-cnf=/nonexistent/my.cnf"], /does not exist/],
    [["--mysqld.address"], /needs a value/],
    [["positional"], /unexpected argument/],
    [["--web.telemetry-path=metrics"], /must start with \//],
  ])("rejects %j with a clear message", (argv, message) => {
    expect(() => load(argv)).toThrow(ConfigError);
    expect(() => load(argv)).toThrow(message);
  });

  it("validates --web.config.file", () => {
    const dir = mkdtempSync(join(tmpdir(), "untorn-cfg-"));
    const bad = join(dir, "web.yml");
    writeFileSync(bad, "basic_auth_users:\n  admin: plaintext\n");
    expect(() => load([`--web.config.file=${bad}`])).toThrow(/basic_auth_users.admin: must be a bcrypt hash/);
    writeFileSync(bad, "tls_server_config: {cert_file: a}\n");
    expect(() => load([`--web.config.file=${bad}`])).toThrow(/key_file/);
    writeFileSync(bad, "basic_auth_users: [unclosed\n");
    expect(() => load([`--web.config.file=${bad}`])).toThrow(ConfigError);
  });
});

describe("parseMyCnf", () => {
  it("rejects options outside a section", () => {
    expect(() => parseMyCnf("user=x\n", "a.cnf")).toThrow(/a.cnf:1: option outside a \[section\]/);
  });
  it("normalises underscores and reads bare keys", () => {
    const c = parseMyCnf("[client]\nssl_ca=/x\nskip-ssl\n# comment\n");
    expect(c.get("client")?.get("ssl-ca")).toBe("/x");
    expect(c.get("client")?.has("skip-ssl")).toBe(true);
  });
});

describe("usage", () => {
  it("lists a --collect flag for every collector", () => {
    const text = usage(collectors);
    for (const c of collectors) expect(text).toContain(`--collect.${c.name}`);
    expect(text).toContain("--web.listen-address");
  });
});
