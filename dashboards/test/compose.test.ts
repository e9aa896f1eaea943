// The docker-compose demo cannot run here (no Docker engine): this checks what can be checked without one.
// `docker-compose config` validates the file against the Compose schema, every bind mount must exist in
// the repository, and the demo's Prometheus configuration must pass `promtool check config` with the
// generated rule files.
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { requireBinary } from "@untorn/testkit/process";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";

const root = resolve(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const composeFile = join(root, "docker-compose.yml");

interface ComposeService {
  volumes?: string[];
  build?: string | { context: string; dockerfile?: string };
}

describe("docker-compose.yml", () => {
  it("is valid for docker-compose", () => {
    const bin = requireBinary("docker-compose", "docker-compose");
    const services = execFileSync(bin, ["-f", composeFile, "config", "--services"], {
      cwd: root,
      encoding: "utf8",
    });
    expect(services.split("\n").filter(Boolean)).toEqual(
      expect.arrayContaining([
        "mysql-primary",
        "mysql-replica1",
        "mysql-replica2",
        "mariadb",
        "prometheus",
        "grafana",
      ]),
    );
  });

  it("mounts and builds only files that exist", () => {
    const doc = parse(readFileSync(composeFile, "utf8"), { merge: true }) as {
      services: Record<string, ComposeService>;
    };
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

  it("gives every database the same instance label on untorn-exporter and mysqld_exporter", () => {
    const prom = parse(readFileSync(join(root, "compose", "prometheus", "prometheus.yml"), "utf8")) as {
      scrape_configs: { job_name: string; static_configs: { labels: { instance: string } }[] }[];
    };
    const instances = (job: string) =>
      prom.scrape_configs
        .find((j) => j.job_name === job)!
        .static_configs.map((s) => s.labels.instance)
        .sort();
    expect(instances("untorn")).toEqual(instances("mysqld"));
    expect(instances("untorn")).toEqual(["mariadb", "mysql-primary", "mysql-replica1", "mysql-replica2"]);
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
