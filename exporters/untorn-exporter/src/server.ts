import { createHash } from "node:crypto";
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { metrics } from "@untorn/catalog/metrics";
import bcrypt from "bcryptjs";
import { Counter, collectDefaultMetrics, Gauge, Registry } from "prom-client";
import type { Collector } from "./collector.js";
import { type Config, ConfigError } from "./config.js";
import { type ConnectionTarget, PoolCache } from "./db.js";
import type { Logger } from "./log.js";
import { moduleNameSchema, normalizeTarget, targetSchema } from "./probe-config.js";
import { Scraper } from "./scrape.js";

export const VERSION = "0.1.0";

/** A request the client got wrong: answered with `status` (400 unless said) and the message. */
class BadRequest extends Error {
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const PROBE_PARAMS = new Set(["target", "auth_module", "collect[]"]);

const isHostCollector = (name: string) => name.startsWith("host.");

const GAUGES_NAMED_AS_COUNTERS = [
  "nodejs_active_handles_total",
  "nodejs_active_requests_total",
  "nodejs_active_resources_total",
] as const;
const CREDENTIAL_PARAMS = new Set(["user", "username", "password", "pass", "dsn"]);

function landing(cfg: Config, allCollectors: readonly Collector[]): string {
  const rows = allCollectors
    .map((c) => {
      const on = cfg.collectors.includes(c);
      return `<tr><td><code>${c.name}</code></td><td>${on ? "enabled" : "disabled"}</td><td>${c.description.replace(/&/g, "&amp;").replace(/</g, "&lt;")}</td></tr>`;
    })
    .join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>untorn-exporter</title>
<style>body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}td{padding:.2rem .6rem;vertical-align:top}</style></head>
<body><h1>untorn-exporter ${VERSION}</h1>
<p>Doublewrite buffer, file-class I/O and datadir storage metrics for MySQL, MariaDB and Percona Server.</p>
<ul><li><a href="${cfg.telemetryPath}">${cfg.telemetryPath}</a>: the configured server</li>
<li><code>/probe?target=host:port&amp;auth_module=&lt;name&gt;</code>: ${cfg.probe ? "a target listed for that auth module" : "off (no --probe.config.file)"}</li>
<li><a href="/healthz">/healthz</a>: process health</li></ul>
<h2>Collectors</h2><table>${rows}</table></body></html>`;
}

/** Validates a /probe request against the auth modules; throws BadRequest with the answer. */
function probeRequest(cfg: Config, url: URL) {
  const probe = cfg.probe;
  if (!probe) {
    throw new BadRequest(
      "/probe is off: start the exporter with --probe.config.file naming the auth modules and their targets",
      403,
    );
  }
  for (const name of url.searchParams.keys()) {
    if (CREDENTIAL_PARAMS.has(name.toLowerCase())) {
      throw new BadRequest(
        `'${name}' is not accepted: credentials are never read from the URL; use auth_module`,
      );
    }
    if (!PROBE_PARAMS.has(name)) {
      throw new BadRequest(`unknown parameter '${name}'; /probe takes target, auth_module and collect[]`);
    }
  }
  const targets = url.searchParams.getAll("target");
  if (targets.length !== 1)
    throw new BadRequest("exactly one 'target' parameter is required, e.g. ?target=db1:3306");
  const target = targetSchema.safeParse(targets[0]);
  if (!target.success) throw new BadRequest(target.error.issues[0]!.message);
  const modules = url.searchParams.getAll("auth_module");
  if (modules.length !== 1) {
    throw new BadRequest(
      `exactly one 'auth_module' parameter is required; configured: ${[...probe.keys()].join(", ")}`,
    );
  }
  const mod = moduleNameSchema.safeParse(modules[0]);
  if (!mod.success) throw new BadRequest(mod.error.issues[0]!.message);
  const module = probe.get(mod.data);
  if (!module) {
    throw new BadRequest(
      `auth_module '${mod.data}' is not in --probe.config.file; configured: ${[...probe.keys()].join(", ")}`,
    );
  }
  const address = normalizeTarget(target.data);
  // The allow-list is checked before any connection exists: a target not listed never sees a packet.
  if (!module.targets.has(address)) {
    throw new BadRequest(`target '${target.data}' is not among auth_module '${module.name}' targets`, 403);
  }
  const names = url.searchParams.getAll("collect[]");
  // Host collectors read this machine's /proc and /sys: for a remote target they would describe the
  // exporter's disk under the database's name, so /probe never runs them.
  const local = names.filter(isHostCollector);
  if (local.length) {
    throw new BadRequest(
      `${local.join(", ")} reads the exporter's own machine and is not available through /probe; run an exporter on the database host for storage facts`,
    );
  }
  let collectors = cfg.collectors.filter((c) => !isHostCollector(c.name));
  if (names.length) {
    const unknown = names.filter((n) => !cfg.collectors.some((c) => c.name === n));
    if (unknown.length) {
      throw new BadRequest(
        `unknown or disabled collector(s) ${unknown.join(", ")}; enabled: ${cfg.collectors.map((c) => c.name).join(", ")}`,
      );
    }
    collectors = cfg.collectors.filter((c) => names.includes(c.name));
  }
  const key = `${address}|${module.name}`;
  return { key, target: { address, ...module.credentials }, collectors };
}

export interface ExporterServer {
  server: Server;
  close(): Promise<void>;
  /** The bound port (useful with port 0). */
  port(): number;
}

export function createExporterServer(
  cfg: Config,
  log: Logger,
  allCollectors: readonly Collector[],
): ExporterServer {
  const pools = new PoolCache(cfg.maxConnections, cfg.maxTargets, 5 * 60_000, cfg.idleTimeoutS * 1000);
  const scraper = new Scraper(log);

  // Long-lived process registry: Node.js process metrics, build info and the scrape counter.
  const processRegistry = new Registry();
  if (cfg.processMetrics) {
    collectDefaultMetrics({ register: processRegistry, prefix: "untorn_exporter_" });
    // prom-client names these gauges with a counter's `_total` suffix, which promtool check metrics (and
    // the naming conventions) reject; the rest of its process metrics stay.
    for (const name of GAUGES_NAMED_AS_COUNTERS)
      processRegistry.removeSingleMetric(`untorn_exporter_${name}`);
  }
  new Gauge({
    name: metrics.buildInfo.name,
    help: metrics.buildInfo.help,
    labelNames: [...metrics.buildInfo.labels],
    registers: [processRegistry],
  }).set({ version: VERSION, nodejs: process.version }, 1);
  const scrapes = new Counter({
    name: metrics.scrapesTotal.name,
    help: metrics.scrapesTotal.help,
    registers: [processRegistry],
  });

  const budgetMs = (req: IncomingMessage): number => {
    const header = Number(req.headers["x-prometheus-scrape-timeout-seconds"]);
    const seconds = Number.isFinite(header) && header > 0 ? header - cfg.timeoutOffsetS : cfg.defaultTimeoutS;
    return Math.max(100, seconds * 1000);
  };

  const collect = async (
    key: string,
    target: ConnectionTarget,
    collectors: readonly Collector[],
    req: IncomingMessage,
  ) => {
    scrapes.inc();
    const result = await scraper.scrape({
      key,
      pool: pools.get(key, target),
      collectors,
      budgetMs: budgetMs(req),
      collectorTimeoutMs: cfg.collectorTimeoutS * 1000,
      host: cfg.host,
      ...(cfg.datadirOverride ? { datadirOverride: cfg.datadirOverride } : {}),
    });
    return result.registry;
  };

  const authCache = new Map<string, boolean>();
  const authorised = (req: IncomingMessage): boolean => {
    const users = cfg.web.basicAuthUsers;
    if (!users) return true;
    const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(req.headers.authorization ?? "");
    if (!m) return false;
    const decoded = Buffer.from(m[1]!, "base64").toString("utf8");
    const sep = decoded.indexOf(":");
    if (sep < 0) return false;
    const user = decoded.slice(0, sep);
    const hash = users[user];
    if (!hash) return false;
    const key = createHash("sha256").update(decoded).digest("hex");
    let ok = authCache.get(key);
    if (ok === undefined) {
      ok = bcrypt.compareSync(decoded.slice(sep + 1), hash);
      if (authCache.size > 1000) authCache.clear();
      authCache.set(key, ok);
    }
    return ok;
  };

  const send = (res: ServerResponse, status: number, body: string, type = "text/plain; charset=utf-8") => {
    res.writeHead(status, { "Content-Type": type, "Cache-Control": "no-store" });
    res.end(body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? "/", "http://exporter");
    if (url.pathname === "/healthz") return send(res, 200, "ok\n");
    if (!authorised(req)) {
      res.writeHead(401, {
        "WWW-Authenticate": 'Basic realm="untorn-exporter"',
        "Content-Type": "text/plain",
      });
      res.end("unauthorized\n");
      return;
    }
    if (req.method !== "GET" && req.method !== "HEAD") return send(res, 405, "only GET and HEAD\n");
    if (url.pathname === cfg.telemetryPath) {
      const registry = await collect(`default|${cfg.target.address}`, cfg.target, cfg.collectors, req);
      const merged = Registry.merge([registry, processRegistry]);
      return send(res, 200, await merged.metrics(), merged.contentType);
    }
    if (url.pathname === "/probe") {
      const p = probeRequest(cfg, url);
      const registry = await collect(p.key, p.target, p.collectors, req);
      return send(res, 200, await registry.metrics(), registry.contentType);
    }
    if (url.pathname === "/") return send(res, 200, landing(cfg, allCollectors), "text/html; charset=utf-8");
    return send(res, 404, `not found: ${url.pathname}\n`);
  };

  const listener = (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res).catch((err: unknown) => {
      if (err instanceof BadRequest || err instanceof ConfigError) {
        send(res, err instanceof BadRequest ? err.status : 400, `${err.message}\n`);
        return;
      }
      log.error("request failed", { path: req.url?.split("?")[0], err: (err as Error).message });
      if (!res.headersSent) send(res, 500, `internal error: ${(err as Error).message}\n`);
      else res.destroy();
    });
  };

  const server = cfg.web.tls
    ? createHttpsServer({ cert: cfg.web.tls.cert, key: cfg.web.tls.key }, listener)
    : createHttpServer(listener);
  server.on("clientError", (_err, socket) => socket.destroy());
  server.headersTimeout = 30_000;
  server.requestTimeout = 120_000;

  return {
    server,
    port() {
      const a = server.address();
      return typeof a === "object" && a ? a.port : cfg.listenPort;
    },
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pools.closeAll();
    },
  };
}
