// TLS and basic auth from --web.config.file (the Prometheus exporter-toolkit format).
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { join } from "node:path";
import { startUntornExporter, untornExporterMain } from "@untorn/testkit/exporters";
import {
  freePort,
  makeTempDir,
  removeDir,
  requireBinary,
  spawnManaged,
  waitFor,
} from "@untorn/testkit/process";
import bcrypt from "bcryptjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

describe("basic auth", () => {
  let dir: string;
  let exporter: Awaited<ReturnType<typeof startUntornExporter>>;
  beforeAll(async () => {
    dir = await makeTempDir("web");
    const web = join(dir, "web.yml");
    writeFileSync(web, `basic_auth_users:\n  prom: '${bcrypt.hashSync("scrape-me", 4)}'\n`);
    exporter = await startUntornExporter({
      args: [`--web.config.file=${web}`, "--mysqld.address=/nonexistent.sock"],
    });
  });
  afterAll(async () => {
    await exporter?.stop();
    await removeDir(dir);
  });

  const auth = (user: string, pw: string) => ({
    Authorization: `Basic ${Buffer.from(`${user}:${pw}`).toString("base64")}`,
  });

  it("refuses missing or wrong credentials with 401 and accepts the right ones", async () => {
    expect((await exporter.get("/metrics")).status).toBe(401);
    expect((await exporter.get("/metrics", { headers: auth("prom", "nope") })).status).toBe(401);
    expect((await exporter.get("/metrics", { headers: auth("other", "scrape-me") })).status).toBe(401);
    const ok = await exporter.get("/metrics", { headers: auth("prom", "scrape-me") });
    expect(ok.status).toBe(200);
    expect(ok.body).toContain("untorn_mysql_up 0");
  });

  it("leaves /healthz open for liveness probes", async () => {
    expect((await exporter.get("/healthz")).status).toBe(200);
  });

  it("reports no Node.js process metrics unless asked", async () => {
    const ok = await exporter.get("/metrics", { headers: auth("prom", "scrape-me") });
    expect(ok.body).not.toMatch(/^untorn_exporter_(process|nodejs)_/m);
    // durations to the microsecond, not 17 significant digits
    const durations = [...ok.body.matchAll(/^untorn_exporter_collector_duration_seconds\{[^}]*\} (\S+)$/gm)];
    expect(durations.length).toBeGreaterThan(3);
    for (const [, v] of durations) expect(v).toMatch(/^\d+(\.\d{1,6})?$/);
  });
});

describe("--exporter.process-metrics", () => {
  it("adds the Node.js process metrics, in a form promtool accepts", async () => {
    const exporter = await startUntornExporter({
      args: ["--exporter.process-metrics", "--mysqld.address=/nonexistent.sock"],
    });
    try {
      const text = (await exporter.get("/metrics")).body;
      expect(text).toMatch(/^untorn_exporter_process_resident_memory_bytes \d+/m);
      expect(text).toMatch(/^untorn_exporter_nodejs_heap_size_used_bytes \d+/m);
      const promtool = requireBinary("promtool", "prometheus");
      const checked = spawnSync(promtool, ["check", "metrics"], { input: text, encoding: "utf8" });
      expect(`${checked.stdout}${checked.stderr}`).toBe("");
    } finally {
      await exporter.stop();
    }
  });
});

function httpsGet(url: string, ca: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ca }, (res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("TLS", () => {
  it("serves HTTPS with the configured certificate and refuses plain HTTP", async () => {
    const dir = await makeTempDir("tls");
    let proc: ReturnType<typeof spawnManaged> | undefined;
    try {
      execFileSync(
        "openssl",
        [
          "req",
          "-x509",
          "-newkey",
          "rsa:2048",
          "-nodes",
          "-days",
          "1",
          "-subj",
          "/CN=localhost",
          "-addext",
          "subjectAltName=DNS:localhost",
          "-keyout",
          join(dir, "key.pem"),
          "-out",
          join(dir, "cert.pem"),
        ],
        { stdio: "ignore" },
      );
      const web = join(dir, "web.yml");
      writeFileSync(
        web,
        `tls_server_config:\n  cert_file: ${join(dir, "cert.pem")}\n  key_file: ${join(dir, "key.pem")}\n`,
      );
      const port = await freePort();
      proc = spawnManaged(
        process.execPath,
        [
          untornExporterMain(),
          `--web.listen-address=127.0.0.1:${port}`,
          `--web.config.file=${web}`,
          "--mysqld.address=/nonexistent.sock",
        ],
        { logFile: join(dir, "exporter.log") },
      );
      const ca = readFileSync(join(dir, "cert.pem"), "utf8");
      const res = await waitFor("HTTPS exporter", () => httpsGet(`https://localhost:${port}/metrics`, ca), {
        detail: () => proc?.tail() ?? "",
      });
      expect(res.status).toBe(200);
      expect(res.body).toContain("untorn_mysql_up 0");
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    } finally {
      await proc?.stop();
      await removeDir(dir);
    }
  });
});
