// Bounded connections: all targets of one process together never hold more than
// --exporter.max-connections, so a user with MAX_USER_CONNECTIONS equal to it never gets error 1226, and
// idle connections close.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { startUntornExporter } from "@untorn/testkit/exporters";
import { type MariaDb, startMariaDb } from "@untorn/testkit/mariadb";
import { makeTempDir, removeDir } from "@untorn/testkit/process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sampleValue } from "./exposition.js";

const LIMIT = 4;

describe("connections under MAX_USER_CONNECTIONS", () => {
  let db: MariaDb;
  let dir: string;
  let exporter: Awaited<ReturnType<typeof startUntornExporter>>;
  beforeAll(async () => {
    db = await startMariaDb({ performanceSchema: true });
    await db.query(
      `CREATE USER 'capped'@'localhost' IDENTIFIED BY 'capped-pw' WITH MAX_USER_CONNECTIONS ${LIMIT}`,
    );
    await db.query("GRANT PROCESS, REPLICATION CLIENT, SLAVE MONITOR ON *.* TO 'capped'@'localhost'");
    await db.query("GRANT SELECT ON performance_schema.* TO 'capped'@'localhost'");
    dir = await makeTempDir("conns");
    const probe = join(dir, "probe.yml");
    // Two modules for the same account: with /metrics, three pools against one server and one user.
    writeFileSync(
      probe,
      [
        "auth_modules:",
        ...["a", "b"].flatMap((m) => [
          `  ${m}:`,
          "    user: capped",
          "    password: capped-pw",
          `    targets: ["${db.socket}"]`,
        ]),
        "",
      ].join("\n"),
    );
    exporter = await startUntornExporter({
      db: { socket: db.socket, user: "capped", password: "capped-pw" },
      args: [
        `--probe.config.file=${probe}`,
        `--exporter.max-connections=${LIMIT}`,
        "--exporter.idle-timeout=1",
      ],
    });
  });
  afterAll(async () => {
    await exporter?.stop();
    await db?.destroy();
    await removeDir(dir);
  });

  const held = async () =>
    Number(
      (
        await db.query<{ n: number }>(
          "SELECT COUNT(*) AS n FROM information_schema.PROCESSLIST WHERE USER = 'capped'",
        )
      )[0]?.n,
    );

  it("never holds more than the limit across /metrics and /probe pools, never hits error 1226, and closes idle connections", async () => {
    const t = encodeURIComponent(db.socket);
    const paths = ["/metrics", `/probe?target=${t}&auth_module=a`, `/probe?target=${t}&auth_module=b`];
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, await held());
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const results: {
      path: string;
      round: number;
      tight: boolean;
      status: number;
      up: number | undefined;
      failed: number;
    }[] = [];
    for (let round = 0; round < 8; round++) {
      // Every path three times at once, some with a budget so tight that statements get killed (the
      // kill's connection counts against the limit too).
      const batch = paths.flatMap((path) =>
        [undefined, undefined, round % 2 ? "0.35" : undefined].map(async (timeout) => {
          const res = await exporter.get(path, {
            headers: timeout ? { "X-Prometheus-Scrape-Timeout-Seconds": timeout } : {},
          });
          const failed = [...res.body.matchAll(/^untorn_exporter_collector_success\{[^}]*\} 0$/gm)].length;
          const up = sampleValue(res.body, "untorn_mysql_up");
          results.push({ path, round, tight: timeout !== undefined, status: res.status, up, failed });
        }),
      );
      await Promise.all(batch);
    }
    sampling = false;
    await sampler;
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(results.some((r) => r.tight)).toBe(true);
    // The round before any tight budget saw the server up with every collector succeeding: no
    // connection was refused. (After a tight round, a default-budget scrape may join its target's
    // single-flight collection whose statements were killed; the round after the idle wait checks again.)
    for (const r of results.filter((x) => x.round === 0))
      expect({ path: r.path, up: r.up, failed: r.failed }).toMatchObject({ up: 1, failed: 0 });
    expect(exporter.process.tail(500)).not.toMatch(/max_user_connections|1226/);
    expect(most).toBeGreaterThanOrEqual(2);
    expect(most).toBeLessThanOrEqual(LIMIT);
    // Idle connections go after --exporter.idle-timeout.
    await expect.poll(held, { timeout: 20_000, interval: 250 }).toBe(0);
    // After the kills and the idle close, every pool opens again and every collector succeeds.
    const after = await Promise.all(
      paths.map(async (path) => {
        const res = await exporter.get(path);
        const failed = [...res.body.matchAll(/^untorn_exporter_collector_success\{[^}]*\} 0$/gm)].length;
        return { path, status: res.status, up: sampleValue(res.body, "untorn_mysql_up"), failed };
      }),
    );
    for (const r of after) expect(r).toMatchObject({ status: 200, up: 1, failed: 0 });
    expect(exporter.process.tail(500)).not.toMatch(/max_user_connections|1226/);
  });
});
