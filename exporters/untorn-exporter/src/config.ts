import { existsSync, readFileSync } from "node:fs";
import { userInfo } from "node:os";
import { join } from "node:path";
import { parse as parseYaml } from "yaml";
import { z } from "zod";
import type { Collector, HostPaths } from "./collector.js";
import type { ConnectionTarget } from "./db.js";

import { ConfigError } from "./errors.js";
import { loadProbeConfig, type ProbeConfig } from "./probe-config.js";

export { ConfigError };

export interface FlagSpec {
  name: string;
  kind: "string" | "number" | "boolean";
  default?: string | number | boolean;
  help: string;
}

export const FLAGS: readonly FlagSpec[] = [
  {
    name: "web.listen-address",
    kind: "string",
    default: ":9105",
    help: "Address to listen on ([host]:port).",
  },
  {
    name: "web.telemetry-path",
    kind: "string",
    default: "/metrics",
    help: "Path for the configured target's metrics.",
  },
  {
    name: "web.config.file",
    kind: "string",
    help: "YAML with tls_server_config (cert_file, key_file) and/or basic_auth_users (user: bcrypt hash).",
  },
  {
    name: "config.my-cnf",
    kind: "string",
    help: "my.cnf-style file whose [client] section has the /metrics credentials (user, password, socket or host/port, ssl-ca, ssl-cert, ssl-key, server-public-key-path).",
  },
  {
    name: "probe.config.file",
    kind: "string",
    help: "YAML naming /probe's auth modules, each with its credentials and the targets it may be used for. Without it /probe is off.",
  },
  {
    name: "mysqld.address",
    kind: "string",
    help: "host:port or unix socket path of the server for /metrics (default: [client] in --config.my-cnf, else /run/mysqld/mysqld.sock if present, else 127.0.0.1:3306).",
  },
  {
    name: "mysqld.username",
    kind: "string",
    help: "User for /metrics (default: [client] user, else the OS user).",
  },
  {
    name: "mysqld.password-file",
    kind: "string",
    help: "File holding the password (else UNTORN_EXPORTER_PASSWORD, else [client] password). Never a flag.",
  },
  {
    name: "exporter.default-timeout",
    kind: "number",
    default: 10,
    help: "Scrape budget in seconds when Prometheus sends no X-Prometheus-Scrape-Timeout-Seconds.",
  },
  {
    name: "exporter.timeout-offset",
    kind: "number",
    default: 0.25,
    help: "Seconds kept back from Prometheus' scrape timeout for the reply.",
  },
  {
    name: "exporter.collector-timeout",
    kind: "number",
    default: 8,
    help: "Upper bound in seconds for any one collector.",
  },
  {
    name: "exporter.max-connections",
    kind: "number",
    default: 4,
    help: "Connections the process holds at most, over all targets: the collectors share all but one, kept for KILL QUERY of a statement past its budget. Set the user's MAX_USER_CONNECTIONS to this.",
  },
  {
    name: "exporter.idle-timeout",
    kind: "number",
    default: 30,
    help: "Seconds an idle database connection is kept (at most one per target) before it is closed.",
  },
  {
    name: "exporter.process-metrics",
    kind: "boolean",
    default: false,
    help: "Also report the exporter's own Node.js process metrics (CPU, memory, event loop lag, GC) on /metrics.",
  },
  {
    name: "exporter.max-targets",
    kind: "number",
    default: 100,
    help: "Connection pools kept for /probe targets (least recently used closed first).",
  },
  {
    name: "host.root",
    kind: "string",
    default: "/",
    help: "Where the host's / is mounted (e.g. /host in a container): /proc, /sys, /dev and the datadir are read below it.",
  },
  {
    name: "host.datadir",
    kind: "string",
    help: "Datadir path on this host, when it differs from the server's @@datadir.",
  },
  { name: "log.level", kind: "string", default: "info", help: "debug, info, warn or error." },
  { name: "log.format", kind: "string", default: "logfmt", help: "logfmt or json." },
];

export interface Config {
  listenHost: string | undefined;
  listenPort: number;
  telemetryPath: string;
  web: WebConfig;
  /** The /metrics target, or undefined when none is configured and no default is reachable. */
  target: ConnectionTarget;
  myCnf: MyCnf;
  /** /probe's auth modules; undefined = /probe is off. */
  probe: ProbeConfig | undefined;
  processMetrics: boolean;
  collectors: Collector[];
  defaultTimeoutS: number;
  timeoutOffsetS: number;
  collectorTimeoutS: number;
  maxConnections: number;
  idleTimeoutS: number;
  maxTargets: number;
  host: HostPaths;
  datadirOverride: string | undefined;
  logLevel: "debug" | "info" | "warn" | "error";
  logFormat: "logfmt" | "json";
}

export interface WebConfig {
  tls?: { cert: string; key: string };
  basicAuthUsers?: Record<string, string>;
}

/** Parses argv into flag → raw value; accepts --a=b, --a b, --flag, --no-flag. */
export function parseArgv(argv: readonly string[], known: Map<string, FlagSpec>): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) throw new ConfigError(`unexpected argument '${arg}' (flags start with --)`);
    let name = arg.slice(2);
    let value: string | undefined;
    const eq = name.indexOf("=");
    if (eq >= 0) {
      value = name.slice(eq + 1);
      name = name.slice(0, eq);
    }
    let spec = known.get(name);
    if (!spec && name.startsWith("no-") && value === undefined) {
      spec = known.get(name.slice(3));
      if (spec?.kind === "boolean") {
        out.set(spec.name, "false");
        continue;
      }
    }
    if (!spec) throw new ConfigError(`unknown flag --${name} (see --help)`);
    if (value === undefined) {
      if (spec.kind === "boolean") value = "true";
      else {
        const next = argv[i + 1];
        if (next === undefined || next.startsWith("--"))
          throw new ConfigError(`flag --${name} needs a value`);
        value = next;
        i++;
      }
    }
    out.set(spec.name, value);
  }
  return out;
}

export type MyCnf = Map<string, Map<string, string>>;

/** my.cnf: [section] headers, key=value or bare keys, # and ; comments, optional quotes. */
export function parseMyCnf(text: string, source = "my.cnf"): MyCnf {
  const out: MyCnf = new Map();
  let section: Map<string, string> | undefined;
  for (const [i, rawLine] of text.split(/\r?\n/).entries()) {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      const name = header[1]!.trim();
      section = out.get(name) ?? new Map();
      out.set(name, section);
      continue;
    }
    if (!section) throw new ConfigError(`${source}:${i + 1}: option outside a [section]`);
    const eq = line.indexOf("=");
    const key = (eq >= 0 ? line.slice(0, eq) : line).trim().replace(/_/g, "-");
    let value = eq >= 0 ? line.slice(eq + 1).trim() : "";
    if (/^(["']).*\1$/.test(value)) value = value.slice(1, -1);
    section.set(key, value);
  }
  return out;
}

/** Connection settings from a my.cnf section (the target address comes apart). */
export function credentialsFrom(cnf: MyCnf, module: string): Omit<ConnectionTarget, "address"> {
  const s = cnf.get(module);
  if (!s) throw new ConfigError(`[${module}] is not a section of the my.cnf file`);
  const ca = s.get("ssl-ca");
  const cert = s.get("ssl-cert");
  const key = s.get("ssl-key");
  const tls =
    ca || cert || key
      ? {
          ...(ca ? { ca: readFileSync(ca, "utf8") } : {}),
          ...(cert ? { cert: readFileSync(cert, "utf8") } : {}),
          ...(key ? { key: readFileSync(key, "utf8") } : {}),
          rejectUnauthorized: s.get("ssl-verify-server-cert") !== "false",
        }
      : undefined;
  const keyPath = s.get("server-public-key-path");
  let serverPublicKey: string | undefined;
  if (keyPath) {
    try {
      serverPublicKey = readFileSync(keyPath, "utf8");
    } catch (err) {
      throw new ConfigError(`server-public-key-path in [${module}]: ${(err as Error).message}`);
    }
  }
  return {
    user: s.get("user") ?? "",
    password: s.get("password") ?? "",
    ...(tls ? { tls } : {}),
    ...(serverPublicKey ? { serverPublicKey } : {}),
  };
}

const webConfigSchema = z
  .object({
    tls_server_config: z
      .object({ cert_file: z.string().min(1), key_file: z.string().min(1) })
      .strict()
      .optional(),
    basic_auth_users: z
      .record(z.string().min(1), z.string().regex(/^\$2[aby]\$\d\d\$/, "must be a bcrypt hash"))
      .optional(),
  })
  .strict();

export function loadWebConfig(path: string): WebConfig {
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, "utf8")) ?? {};
  } catch (err) {
    throw new ConfigError(`--web.config.file ${path}: ${(err as Error).message}`);
  }
  const parsed = webConfigSchema.safeParse(doc);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`--web.config.file ${path}: ${issue.path.join(".") || "(root)"}: ${issue.message}`);
  }
  const tls = parsed.data.tls_server_config;
  return {
    ...(tls
      ? { tls: { cert: readFileSync(tls.cert_file, "utf8"), key: readFileSync(tls.key_file, "utf8") } }
      : {}),
    ...(parsed.data.basic_auth_users ? { basicAuthUsers: parsed.data.basic_auth_users } : {}),
  };
}

function parseListen(addr: string): { host: string | undefined; port: number } {
  const m = /^(\[[^\]]+\]|[^:]*):(\d{1,5})$/.exec(addr);
  const port = Number(m?.[2]);
  if (!m || port < 0 || port > 65535)
    throw new ConfigError(`--web.listen-address '${addr}' is not [host]:port`);
  const host = m[1]!.replace(/^\[|\]$/g, "");
  return { host: host === "" ? undefined : host, port };
}

function num(name: string, raw: string, min: number): number {
  const n = Number(raw);
  if (!Number.isFinite(n) || n < min)
    throw new ConfigError(`--${name} must be a number >= ${min}, got '${raw}'`);
  return n;
}

function bool(name: string, raw: string): boolean {
  if (/^(true|1|yes|on)$/i.test(raw)) return true;
  if (/^(false|0|no|off)$/i.test(raw)) return false;
  throw new ConfigError(`--${name} must be true or false, got '${raw}'`);
}

export function collectorFlags(collectors: readonly Collector[]): FlagSpec[] {
  return collectors.map((c) => ({
    name: `collect.${c.name}`,
    kind: "boolean" as const,
    default: c.defaultEnabled,
    help: c.description,
  }));
}

export function usage(collectors: readonly Collector[]): string {
  const lines = [
    "usage: untorn-exporter [flags]",
    "       untorn-exporter storage-facts --output <file>.prom [flags]   (see storage-facts --help)",
    "",
    "Prometheus exporter for the InnoDB doublewrite buffer, file-class I/O and the datadir's storage.",
    "Endpoints: /metrics (configured target), /probe?target=host:port&auth_module=<name> (with --probe.config.file), /healthz.",
    "",
    "Flags:",
  ];
  for (const f of [...FLAGS, ...collectorFlags(collectors)]) {
    const def = f.default === undefined ? "" : ` (default ${JSON.stringify(f.default)})`;
    lines.push(`  --${f.name}${f.kind === "boolean" ? "" : "=<value>"}${def}`, `      ${f.help}`);
  }
  lines.push("  --help, --version", "", "Environment: UNTORN_EXPORTER_PASSWORD (password for /metrics).");
  return lines.join("\n");
}

/** Builds the configuration from argv and the environment; throws ConfigError with a precise message. */
export function loadConfig(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  collectors: readonly Collector[],
): Config {
  const specs = [...FLAGS, ...collectorFlags(collectors)];
  const known = new Map(specs.map((s) => [s.name, s]));
  const given = parseArgv(argv, known);
  const get = (name: string): string | undefined => {
    const v = given.get(name);
    if (v !== undefined) return v;
    const d = known.get(name)?.default;
    return d === undefined ? undefined : String(d);
  };

  const myCnfPath = get("config.my-cnf");
  let myCnf: MyCnf = new Map();
  if (myCnfPath) {
    if (!existsSync(myCnfPath)) throw new ConfigError(`--config.my-cnf ${myCnfPath} does not exist`);
    myCnf = parseMyCnf(readFileSync(myCnfPath, "utf8"), myCnfPath);
  }
  const client = myCnf.get("client") ?? new Map<string, string>();

  let password = client.get("password") ?? "";
  if (env["UNTORN_EXPORTER_PASSWORD"] !== undefined) password = env["UNTORN_EXPORTER_PASSWORD"];
  const pwFile = get("mysqld.password-file");
  if (pwFile) {
    try {
      password = readFileSync(pwFile, "utf8").replace(/\r?\n$/, "");
    } catch (err) {
      throw new ConfigError(`--mysqld.password-file: ${(err as Error).message}`);
    }
  }
  const cnfAddress =
    client.get("socket") ??
    (client.get("host") ? `${client.get("host")}:${client.get("port") ?? "3306"}` : undefined);
  const address =
    get("mysqld.address") ??
    cnfAddress ??
    (existsSync("/run/mysqld/mysqld.sock") ? "/run/mysqld/mysqld.sock" : "127.0.0.1:3306");
  const user = get("mysqld.username") ?? client.get("user") ?? userInfo().username;
  const fromCnf = myCnfPath && myCnf.has("client") ? credentialsFrom(myCnf, "client") : undefined;
  const tls = fromCnf?.tls;
  const serverPublicKey = fromCnf?.serverPublicKey;
  const probePath = get("probe.config.file");

  const enabled = collectors.filter((c) => bool(`collect.${c.name}`, get(`collect.${c.name}`)!));
  const listen = parseListen(get("web.listen-address")!);
  const telemetryPath = get("web.telemetry-path")!;
  if (!telemetryPath.startsWith("/")) throw new ConfigError("--web.telemetry-path must start with /");
  const webPath = get("web.config.file");
  const root = get("host.root")!;
  const level = get("log.level")!;
  if (!["debug", "info", "warn", "error"].includes(level))
    throw new ConfigError(`--log.level must be debug, info, warn or error`);
  const format = get("log.format")!;
  if (format !== "logfmt" && format !== "json") throw new ConfigError("--log.format must be logfmt or json");

  return {
    listenHost: listen.host,
    listenPort: listen.port,
    telemetryPath,
    web: webPath ? loadWebConfig(webPath) : {},
    target: {
      address,
      user,
      password,
      ...(tls ? { tls } : {}),
      ...(serverPublicKey ? { serverPublicKey } : {}),
    },
    myCnf,
    probe: probePath ? loadProbeConfig(probePath) : undefined,
    processMetrics: bool("exporter.process-metrics", get("exporter.process-metrics")!),
    collectors: enabled,
    defaultTimeoutS: num("exporter.default-timeout", get("exporter.default-timeout")!, 0.1),
    timeoutOffsetS: num("exporter.timeout-offset", get("exporter.timeout-offset")!, 0),
    collectorTimeoutS: num("exporter.collector-timeout", get("exporter.collector-timeout")!, 0.05),
    maxConnections: num("exporter.max-connections", get("exporter.max-connections")!, 2),
    idleTimeoutS: num("exporter.idle-timeout", get("exporter.idle-timeout")!, 0),
    maxTargets: num("exporter.max-targets", get("exporter.max-targets")!, 1),
    host: { root, proc: join(root, "proc"), sys: join(root, "sys"), dev: join(root, "dev") },
    datadirOverride: get("host.datadir"),
    logLevel: level as Config["logLevel"],
    logFormat: format,
  };
}
