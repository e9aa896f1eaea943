// Static checks of the docker-compose demo (`npm run test:compose` runs it for real, outside the main suite):
// `docker-compose config` validates the file against the Compose schema, every bind mount must exist in
// the repository, every image but Grafana is built here, ports are published on loopback only, and the
// demo's Prometheus configuration must pass `promtool check config` with the generated rule files.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  volumes?: string[];
  ports?: string[];
  profiles?: string[];
  build?: string | { context: string; dockerfile?: string };
}

const SERVERS = ["mariadb-primary", "mariadb-replica1", "mariadb-replica2", "mariadb-standalone"];

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

  it("refuses to start without the console's secrets", () => {
    const bin = requireBinary("docker-compose", "docker-compose");
    const empty = join(scratch, "empty.env");
    writeFileSync(empty, "");
    expect(() =>
      execFileSync(bin, ["-f", composeFile, "--env-file", empty, "config", "-q"], {
        cwd: root,
        stdio: "pipe",
      }),
    ).toThrow(/UNTORN_ADMIN_PASSWORD/);
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
    const text = readFileSync(join(root, "compose", "prometheus", "prometheus.yml"), "utf8").replaceAll(
      "/etc/prometheus/untorn/",
      `${join(root, "dashboards", "generated", "prometheus")}/`,
    );
    writeFileSync(join(dir, "prometheus.yml"), text);
    const out = execFileSync(promtool, ["check", "config", join(dir, "prometheus.yml")], {
      encoding: "utf8",
    });
    expect(out).toMatch(/SUCCESS/);
  });
});
