// Static checks of the docker-compose demo (`npm run test:compose` runs it for real, outside the main suite):
// `docker-compose config` validates the file against the Compose schema, every bind mount must exist in
// the repository, every image but Grafana is built here, ports are published on loopback only, the
// demo's Prometheus configuration must pass `promtool check config` with the generated rule files, and it
// scrapes the console's /metrics with the viewer token from the demo's env, never a committed one.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { requireBinary } from "@untorn/testkit/process";
import { afterAll, describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = resolve(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const composeFile = join(root, "docker-compose.yml");

interface ComposeService {
  image?: string;
  environment?: Record<string, string>;
  volumes?: string[];
  ports?: string[];
  profiles?: string[];
  build?: string | { context: string; dockerfile?: string };
}

const SERVERS = ["mariadb-primary", "mariadb-replica1", "mariadb-replica2", "mariadb-standalone"];
/** Where compose/prometheus/entrypoint.sh writes the viewer token for the console scrape job. */
const CONSOLE_TOKEN_FILE = "/run/untorn/viewer-token";

const loadCompose = () =>
  parse(readFileSync(composeFile, "utf8"), { merge: true }) as { services: Record<string, ComposeService> };

const scratch = mkdtempSync(join(tmpdir(), "untorn-compose-env-"));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** An env file with the two secrets docker-compose.yml requires (the real one is .env, never committed). */
function envFile(): string {
  const file = join(scratch, "with-secrets.env");
  writeFileSync(file, `UNTORN_ADMIN_PASSWORD=static-check\nUNTORN_VIEWER_TOKEN=${"t".repeat(32)}\n`);
  return file;
}

describe("docker-compose.yml", () => {
  it("is valid for docker-compose", () => {
    const bin = requireBinary("docker-compose", "docker-compose");
    const services = execFileSync(bin, ["-f", composeFile, "--env-file", envFile(), "config", "--services"], {
      cwd: root,
      encoding: "utf8",
    });
    expect(services.split("\n").filter(Boolean)).toEqual(
      expect.arrayContaining([...SERVERS, "prometheus", "web", "grafana"]),
    );
  });

  it("refuses to start without the console's secrets, naming the one missing", () => {
    const bin = requireBinary("docker-compose", "docker-compose");
    const config = (name: string, text: string) => {
      const file = join(scratch, name);
      writeFileSync(file, text);
      return () =>
        execFileSync(bin, ["-f", composeFile, "--env-file", file, "config", "-q"], {
          cwd: root,
          stdio: "pipe",
        });
    };
    expect(config("empty.env", "")).toThrow(/UNTORN_(ADMIN_PASSWORD|VIEWER_TOKEN)/);
    expect(config("no-token.env", "UNTORN_ADMIN_PASSWORD=static-check\n")).toThrow(/UNTORN_VIEWER_TOKEN/);
    expect(config("no-password.env", `UNTORN_VIEWER_TOKEN=${"t".repeat(32)}\n`)).toThrow(
      /UNTORN_ADMIN_PASSWORD/,
    );
  });

  it("builds every image here but Grafana's, which stays behind a profile", () => {
    const doc = loadCompose();
    const pulled = Object.entries(doc.services)
      .filter(([, svc]) => !svc.build)
      .map(([name, svc]) => ({ name, profiles: svc.profiles }));
    expect(pulled).toEqual([{ name: "grafana", profiles: ["grafana"] }]);
  });

  it("publishes ports on 127.0.0.1 only", () => {
    const ports = Object.values(loadCompose().services).flatMap((svc) => svc.ports ?? []);
    expect(ports.length).toBeGreaterThan(0);
    for (const p of ports) expect(p).toMatch(/^127\.0\.0\.1:/);
  });

  it("has one build stage text in the exporter's and the web console's Dockerfiles (shared layers)", () => {
    const stage = (file: string) => {
      const text = readFileSync(join(root, file), "utf8");
      return text.slice(
        text.indexOf("FROM node:20-bookworm-slim AS build"),
        text.indexOf("\nFROM ", text.indexOf("AS build")),
      );
    };
    const exporter = stage("exporters/untorn-exporter/Dockerfile");
    expect(exporter).toContain("npm ci");
    expect(stage("apps/web/Dockerfile")).toBe(exporter);
  });

  it("mounts and builds only files that exist", () => {
    const doc = loadCompose();
    const missing: string[] = [];
    for (const [name, svc] of Object.entries(doc.services)) {
      for (const v of svc.volumes ?? []) {
        const src = v.split(":")[0]!;
        if (src.startsWith(".") && !existsSync(join(root, src))) missing.push(`${name}: ${src}`);
      }
      const build = typeof svc.build === "string" ? { context: svc.build } : svc.build;
      if (build) {
        const dockerfile = join(root, build.context, build.dockerfile ?? "Dockerfile");
        const alt = join(root, build.dockerfile ?? "");
        if (!existsSync(dockerfile) && !existsSync(alt))
          missing.push(`${name}: ${build.dockerfile ?? "Dockerfile"}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("gives every database the same instance label on untorn-exporter, mysqld_exporter and node_exporter", () => {
    const prom = parse(readFileSync(join(root, "compose", "prometheus", "prometheus.yml"), "utf8")) as {
      scrape_configs: { job_name: string; static_configs: { labels: { instance: string } }[] }[];
    };
    const instances = (job: string) =>
      prom.scrape_configs
        .find((j) => j.job_name === job)!
        .static_configs.map((s) => s.labels.instance)
        .sort();
    expect(instances("untorn")).toEqual(SERVERS);
    expect(instances("mysqld")).toEqual(SERVERS);
    expect(instances("node")).toEqual(SERVERS);
  });

  it("ships a Prometheus configuration that promtool accepts with the generated rules", () => {
    const promtool = requireBinary("promtool", "prometheus");
    const dir = mkdtempSync(join(tmpdir(), "untorn-compose-"));
    // promtool checks that the console job's token file exists: a stand-in for the one the entrypoint writes.
    writeFileSync(join(dir, "viewer-token"), "t".repeat(32));
    const text = readFileSync(join(root, "compose", "prometheus", "prometheus.yml"), "utf8")
      .replaceAll("/etc/prometheus/untorn/", `${join(root, "dashboards", "generated", "prometheus")}/`)
      .replaceAll(CONSOLE_TOKEN_FILE, join(dir, "viewer-token"));
    writeFileSync(join(dir, "prometheus.yml"), text);
    const out = execFileSync(promtool, ["check", "config", join(dir, "prometheus.yml")], {
      encoding: "utf8",
    });
    expect(out).toMatch(/SUCCESS/);
  });

  it("scrapes the console's /metrics with the viewer token the demo's env gives the console", () => {
    interface Job {
      job_name: string;
      metrics_path?: string;
      authorization?: { credentials?: string; credentials_file?: string };
      static_configs: { targets: string[] }[];
    }
    const promText = readFileSync(join(root, "compose", "prometheus", "prometheus.yml"), "utf8");
    const prom = parse(promText) as { scrape_configs: Job[] };
    const job = prom.scrape_configs.find((j) => j.job_name === "untorn-console");
    expect(job?.metrics_path).toBe("/metrics");
    expect(job?.authorization).toEqual({ credentials_file: CONSOLE_TOKEN_FILE });
    expect(job?.static_configs.flatMap((c) => c.targets)).toEqual(["web:3000"]);
    const services = loadCompose().services;
    // The same variable from .env for both, never a literal token in a committed file.
    expect(services["web"]?.environment?.["UNTORN_VIEWER_TOKEN"]).toMatch(/^\$\{UNTORN_VIEWER_TOKEN:\?/);
    expect(services["prometheus"]?.environment?.["UNTORN_VIEWER_TOKEN"]).toBe(
      services["web"]?.environment?.["UNTORN_VIEWER_TOKEN"],
    );
    const entrypoint = readFileSync(join(root, "compose", "prometheus", "entrypoint.sh"), "utf8");
    expect(entrypoint).toContain(`token_file=${CONSOLE_TOKEN_FILE}`);
    expect(entrypoint).toContain("umask 077");
    expect(readFileSync(join(root, "compose", "prometheus", "Dockerfile"), "utf8")).toContain(
      'ENTRYPOINT ["/usr/local/bin/untorn-prometheus-entrypoint"]',
    );
  });

  it("starts the demo's Prometheus only with a viewer token, and keeps it in a file only its user reads", () => {
    const dir = mkdtempSync(join(scratch, "entrypoint-"));
    const script = readFileSync(join(root, "compose", "prometheus", "entrypoint.sh"), "utf8")
      .replace(CONSOLE_TOKEN_FILE, join(dir, "viewer-token"))
      // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion, not a template
      .replace('exec /usr/bin/prometheus "$@"', 'exec echo prometheus "$@" "${UNTORN_VIEWER_TOKEN:-unset}"');
    writeFileSync(join(dir, "entrypoint.sh"), script);
    const runWith = (token: string | undefined) =>
      spawnSync("sh", [join(dir, "entrypoint.sh"), "--config.file=x"], {
        encoding: "utf8",
        env: {
          PATH: process.env["PATH"] ?? "/usr/bin:/bin",
          ...(token ? { UNTORN_VIEWER_TOKEN: token } : {}),
        },
      });
    for (const bad of [undefined, "too-short"]) {
      const r = runWith(bad);
      expect(r.status, String(bad)).toBe(1);
      expect(r.stderr).toContain("UNTORN_VIEWER_TOKEN must be set");
      expect(existsSync(join(dir, "viewer-token"))).toBe(false);
    }
    const token = "v".repeat(40);
    const r = runWith(token);
    expect(r.status, r.stderr).toBe(0);
    // Prometheus gets its arguments, and not the token in its environment.
    expect(r.stdout.trim()).toBe("prometheus --config.file=x unset");
    expect(readFileSync(join(dir, "viewer-token"), "utf8")).toBe(token);
    expect(statSync(join(dir, "viewer-token")).mode & 0o777).toBe(0o600);
  });
});
