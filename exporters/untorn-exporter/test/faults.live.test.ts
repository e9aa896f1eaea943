// Faults: dead or vanishing servers, bad credentials, missing grants, slow queries, bad /probe input.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startUntornExporter } from "@untorn/testkit/exporters";
import { type MariaDb, startMariaDb } from "@untorn/testkit/mariadb";
import { makeTempDir, removeDir } from "@untorn/testkit/process";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Collector } from "../src/collector.js";
import { COLLECTORS } from "../src/collectors/index.js";
import { TargetPool } from "../src/db.js";
import { silentLogger } from "../src/log.js";
import { Scraper } from "../src/scrape.js";
import { mustValue, sampleValue } from "./exposition.js";

const host = { root: "/", proc: "/proc", sys: "/sys", dev: "/dev" };

describe("the server is down or goes away", () => {
  it("answers with untorn_mysql_up 0 when the server was never there", async () => {
    const dir = await makeTempDir("nodb");
    const exporter = await startUntornExporter({
      db: { socket: join(dir, "missing.sock"), user: "root", password: "" },
    });
    try {
      const res = await exporter.get("/metrics");
      expect(res.status).toBe(200);
      expect(mustValue(res.body, "untorn_mysql_up")).toBe(0);
      expect(mustValue(res.body, "untorn_exporter_collector_success", { collector: "global_status" })).toBe(
        0,
      );
      expect(sampleValue(res.body, "untorn_innodb_dblwr_pages_written_total")).toBeUndefined();
      expect(res.body).toContain("untorn_exporter_build_info");
      expect(exporter.process.child.exitCode).toBeNull();
    } finally {
      await exporter.stop();
      await removeDir(dir);
    }
  });

  it("keeps answering while the server stops and comes back", async () => {
    const db = await startMariaDb();
    const exporter = await startUntornExporter({ db });
    try {
      expect(mustValue((await exporter.get("/metrics")).body, "untorn_mysql_up")).toBe(1);
      await db.stop();
      const down = (await exporter.get("/metrics")).body;
      expect(mustValue(down, "untorn_mysql_up")).toBe(0);
      // host facts still come from the last known datadir
      expect(mustValue(down, "untorn_exporter_collector_success", { collector: "host.storage" })).toBe(1);
      await db.restart();
      const back = (await exporter.get("/metrics")).body;
      expect(mustValue(back, "untorn_mysql_up")).toBe(1);
      expect(mustValue(back, "untorn_exporter_collector_success", { collector: "global_status" })).toBe(1);
    } finally {
      await exporter.stop();
      await db.destroy();
    }
  });

  it("survives the server being killed (SIGKILL) while scrapes are in flight", async () => {
    const db = await startMariaDb({ performanceSchema: true });
    const exporter = await startUntornExporter({ db });
    try {
      expect(mustValue((await exporter.get("/metrics")).body, "untorn_mysql_up")).toBe(1);
      // Scrapes back to back, the kill lands in the middle of them: open connections die mid-statement.
      const results: { status: number; up: number | undefined }[] = [];
      let stop = false;
      const scraping = (async () => {
        while (!stop) {
          const r = await exporter.get("/metrics");
          results.push({ status: r.status, up: sampleValue(r.body, "untorn_mysql_up") });
        }
      })();
      await new Promise((r) => setTimeout(r, 300));
      process.kill(db.pid, "SIGKILL");
      await expect.poll(() => results.at(-1)?.up, { timeout: 15_000 }).toBe(0);
      stop = true;
      await scraping;
      expect(results.every((r) => r.status === 200)).toBe(true);
      expect(results.some((r) => r.up === 1)).toBe(true);
      expect(exporter.process.child.exitCode).toBeNull();
    } finally {
      await exporter.stop();
      await db.destroy();
    }
  });
});

describe("credentials and grants", () => {
  let db: MariaDb;
  beforeAll(async () => {
    db = await startMariaDb({ performanceSchema: true });
    await db.query("CREATE USER 'mon'@'localhost' IDENTIFIED BY 'right-password'");
    await db.query("CREATE USER 'nogrants'@'localhost' IDENTIFIED BY 'pw'");
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it("reports a wrong password as up 0 and never logs the password", async () => {
    const exporter = await startUntornExporter({
      db: { socket: db.socket, user: "mon", password: "wrong-password" },
    });
    try {
      const body = (await exporter.get("/metrics")).body;
      expect(mustValue(body, "untorn_mysql_up")).toBe(0);
      const log = exporter.process.tail(100);
      expect(log).toMatch(/Access denied for user 'mon'/);
      expect(log).not.toContain("wrong-password");
    } finally {
      await exporter.stop();
    }
  });

  it("reports collectors that lack grants as failed and still reports the others", async () => {
    const exporter = await startUntornExporter({
      db: { socket: db.socket, user: "nogrants", password: "pw" },
    });
    try {
      const body = (await exporter.get("/metrics")).body;
      expect(mustValue(body, "untorn_mysql_up")).toBe(1);
      expect(mustValue(body, "untorn_exporter_collector_success", { collector: "global_status" })).toBe(1);
      expect(mustValue(body, "untorn_exporter_collector_success", { collector: "config" })).toBe(1);
      expect(mustValue(body, "untorn_exporter_collector_success", { collector: "perf_schema.file_io" })).toBe(
        0,
      );
      expect(mustValue(body, "untorn_innodb_page_size_bytes")).toBe(16384);
      expect(exporter.process.tail(100)).toMatch(/collector failed.*perf_schema\.file_io.*denied/);
    } finally {
      await exporter.stop();
    }
  });

  it("needs SLAVE MONITOR on MariaDB 10.5.9+ for the replication collector: REPLICATION CLIENT is not enough", async () => {
    // MariaDB 10.5 made REPLICATION CLIENT an alias of BINLOG MONITOR and moved SHOW [ALL] SLAVE[S]
    // STATUS to SLAVE MONITOR (10.5.9; https://mariadb.com/kb/en/mariadb-maxscale-25-mariadb-monitor/#required-grants).
    await db.query("CREATE USER 'nomonitor'@'localhost' IDENTIFIED BY 'pw'");
    await db.query("GRANT PROCESS, REPLICATION CLIENT ON *.* TO 'nomonitor'@'localhost'");
    await db.query("GRANT SELECT ON performance_schema.* TO 'nomonitor'@'localhost'");
    const exporter = await startUntornExporter({
      db: { socket: db.socket, user: "nomonitor", password: "pw" },
    });
    try {
      const body = (await exporter.get("/metrics")).body;
      expect(mustValue(body, "untorn_exporter_collector_success", { collector: "replication" })).toBe(0);
      expect(mustValue(body, "untorn_exporter_collector_success", { collector: "config" })).toBe(1);
      expect(body).not.toContain("untorn_replication_role");
      expect(exporter.process.tail(100)).toMatch(/collector failed.*replication.*SLAVE MONITOR/);
    } finally {
      await exporter.stop();
    }
  });

  it("works with the documented least-privilege grants", async () => {
    await db.query("CREATE USER 'exporter'@'localhost' IDENTIFIED BY 'pw' WITH MAX_USER_CONNECTIONS 4");
    await db.query("GRANT PROCESS, REPLICATION CLIENT, SLAVE MONITOR ON *.* TO 'exporter'@'localhost'");
    await db.query("GRANT SELECT ON performance_schema.* TO 'exporter'@'localhost'");
    const exporter = await startUntornExporter({
      db: { socket: db.socket, user: "exporter", password: "pw" },
    });
    try {
      const body = (await exporter.get("/metrics")).body;
      for (const c of COLLECTORS) {
        expect(mustValue(body, "untorn_exporter_collector_success", { collector: c.name }), c.name).toBe(1);
      }
    } finally {
      await exporter.stop();
    }
  });
});

/** Five statements that sleep far past a budget of `ms` on a pool of three query connections. */
function runaway(pool: TargetPool, tag: string, ms: number) {
  const deadline = Date.now() + ms;
  return Promise.allSettled(
    Array.from({ length: 5 }, () => pool.queryable(deadline).query(`SELECT SLEEP(30) AS ${tag}`)),
  );
}

/** All three query connections of a 4-connection pool are usable: three concurrent statements in one budget. */
async function expectQueryConnectionsFree(pool: TargetPool): Promise<void> {
  const next = Date.now() + 5000;
  const again = await Promise.all(
    Array.from({ length: 3 }, (_, i) => pool.queryable(next).query(`SELECT ${i} + 1 AS n`)),
  );
  expect(again.map((rows) => Number(rows[0]?.n))).toEqual([1, 2, 3]);
}

describe("a query slower than its budget", () => {
  let db: MariaDb;
  beforeAll(async () => {
    db = await startMariaDb();
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it("is killed; the other collectors are still reported", async () => {
    const slow: Collector = {
      name: "perf_schema.waits",
      description: "test collector that sleeps",
      defaultEnabled: true,
      async collect({ db: q }) {
        await q.query("SELECT SLEEP(20) AS untorn_slow_probe");
      },
    };
    const pool = new TargetPool({ address: db.socket, user: "root", password: "" }, 3);
    const scraper = new Scraper(silentLogger);
    const globalStatus = COLLECTORS.find((c) => c.name === "global_status")!;
    try {
      const started = Date.now();
      const { registry, up } = await scraper.scrape({
        key: "slow",
        pool,
        collectors: [globalStatus, slow],
        budgetMs: 5000,
        collectorTimeoutMs: 800,
        host,
      });
      expect(Date.now() - started).toBeLessThan(4000);
      expect(up).toBe(true);
      const text = await registry.metrics();
      expect(mustValue(text, "untorn_exporter_collector_success", { collector: "perf_schema.waits" })).toBe(
        0,
      );
      expect(mustValue(text, "untorn_exporter_collector_success", { collector: "global_status" })).toBe(1);
      expect(mustValue(text, "untorn_innodb_buffer_pool_pages")).toBeGreaterThan(0);
      // the server-side statement is gone too
      await expect
        .poll(
          async () =>
            (
              await db.query(
                "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE '%untorn_slow_probe%' AND INFO NOT LIKE '%PROCESSLIST%'",
              )
            ).length,
          { timeout: 5000 },
        )
        .toBe(0);
    } finally {
      await pool.close();
    }
  });

  it("with a user capped at MAX_USER_CONNECTIONS = the pool's cap: every runaway statement is killed, no connection leaks", async () => {
    await db.query("CREATE USER 'capped'@'localhost' IDENTIFIED BY 'pw' WITH MAX_USER_CONNECTIONS 4");
    await db.query("GRANT PROCESS ON *.* TO 'capped'@'localhost'");
    const pool = new TargetPool({ address: db.socket, user: "capped", password: "pw" }, 4);
    const running = async () =>
      (
        await db.query(
          "SELECT ID FROM information_schema.PROCESSLIST WHERE USER = 'capped' AND INFO LIKE '%untorn_runaway%' AND INFO NOT LIKE '%PROCESSLIST%'",
        )
      ).length;
    try {
      // Rounds of five statements on three query connections: the running ones pass their budget, the
      // others wait for a connection past theirs. Those connections arrive late and must go back to the
      // pool: a leaked one is lost for good, and three rounds would leak them all.
      for (let round = 0; round < 3; round++) {
        const results = await runaway(pool, "untorn_runaway", 600);
        for (const r of results) {
          expect(r.status).toBe("rejected");
          if (r.status === "rejected") expect(String(r.reason)).toMatch(/budget/);
        }
        // The kills went through the reserved fourth connection, whatever the user's cap.
        await expect.poll(running, { timeout: 10_000 }).toBe(0);
      }
      await expectQueryConnectionsFree(pool);
    } finally {
      await pool.close();
    }
  });

  it("gives back a connection the pool hands out after its statement's budget has run out", async () => {
    // Uncapped user: nothing on the server side stops a leak from piling up over the rounds.
    const pool = new TargetPool({ address: db.socket, user: "root", password: "" }, 4);
    try {
      for (let round = 0; round < 3; round++) {
        const results = await runaway(pool, "untorn_leak_probe", 500);
        expect(results.every((r) => r.status === "rejected")).toBe(true);
      }
      await expectQueryConnectionsFree(pool);
    } finally {
      await pool.close();
    }
  });

  it("shares one collection between concurrent scrapes (single-flight)", async () => {
    let calls = 0;
    const counting: Collector = {
      name: "config",
      description: "counts calls",
      defaultEnabled: true,
      async collect({ db: q }) {
        calls++;
        await q.query("SELECT SLEEP(0.3)");
      },
    };
    const pool = new TargetPool({ address: db.socket, user: "root", password: "" }, 3);
    const scraper = new Scraper(silentLogger);
    try {
      const req = { key: "sf", pool, collectors: [counting], budgetMs: 5000, collectorTimeoutMs: 3000, host };
      const results = await Promise.all([scraper.scrape(req), scraper.scrape(req), scraper.scrape(req)]);
      expect(calls).toBe(1);
      expect(results[0]!.registry).toBeInstanceOf(Registry);
      await scraper.scrape(req);
      expect(calls).toBe(2);
    } finally {
      await pool.close();
    }
  });
});

describe("/probe and HTTP input", () => {
  let db: MariaDb;
  let dir: string;
  let exporter: Awaited<ReturnType<typeof startUntornExporter>>;
  beforeAll(async () => {
    db = await startMariaDb();
    await db.query("CREATE USER 'probe'@'localhost' IDENTIFIED BY 'probe-pw'");
    dir = await makeTempDir("probe");
    const cnf = join(dir, "my.cnf");
    writeFileSync(cnf, "[client]\nuser=nobody\npassword=x\n");
    const probe = join(dir, "probe.yml");
    writeFileSync(
      probe,
      `auth_modules:\n  client.lab:\n    user: probe\n    password: probe-pw\n    targets: ["${db.socket}"]\n`,
    );
    exporter = await startUntornExporter({
      args: [`--config.my-cnf=${cnf}`, `--probe.config.file=${probe}`],
    });
  });
  afterAll(async () => {
    await exporter?.stop();
    await db?.destroy();
    await removeDir(dir);
  });

  it("probes a target with credentials from the auth_module section", async () => {
    const res = await exporter.get(
      `/probe?target=${encodeURIComponent(db.socket)}&auth_module=client.lab&collect[]=global_status`,
    );
    expect(res.status).toBe(200);
    expect(mustValue(res.body, "untorn_mysql_up")).toBe(1);
    expect(mustValue(res.body, "untorn_exporter_collector_success", { collector: "global_status" })).toBe(1);
    expect(
      sampleValue(res.body, "untorn_exporter_collector_success", { collector: "config" }),
    ).toBeUndefined();
    expect(res.body).not.toContain("untorn_exporter_build_info");
  });

  it("never reports the exporter's own disk for a probed target", async () => {
    // The datadir path of a remote server may exist on the exporter's machine too: its device would be
    // labelled as the database's storage, which the safety gate trusts.
    const res = await exporter.get(`/probe?target=${encodeURIComponent(db.socket)}&auth_module=client.lab`);
    expect(res.status).toBe(200);
    expect(mustValue(res.body, "untorn_exporter_collector_success", { collector: "config" })).toBe(1);
    expect(
      sampleValue(res.body, "untorn_exporter_collector_success", { collector: "host.storage" }),
    ).toBeUndefined();
    expect(res.body).not.toMatch(/^untorn_(host|storage|device)_/m);
    // The configured target on /metrics still has it.
    const own = await exporter.get("/metrics");
    expect(
      sampleValue(own.body, "untorn_exporter_collector_success", { collector: "host.storage" }),
    ).toBeDefined();
  });

  // Every /probe input and its answer: test/probe-security.live.test.ts.
  it.each([
    ["/probe", 400, /exactly one 'target'/],
    ["/probe?target=db1:3306&auth_module=client.nope", 400, /not in --probe.config.file/],
    ["/probe?target=db1:3306&auth_module=client.lab", 403, /not among auth_module 'client.lab' targets/],
    ["/nope", 404, /not found/],
  ])("GET %s → %i", async (path, status, message) => {
    const res = await exporter.get(path);
    expect(res.status).toBe(status);
    expect(res.body).toMatch(message);
  });

  it("refuses other methods and serves /healthz and a landing page", async () => {
    expect((await exporter.get("/metrics", { method: "POST" })).status).toBe(405);
    expect((await exporter.get("/healthz")).body).toBe("ok\n");
    const landing = await exporter.get("/");
    expect(landing.headers.get("content-type")).toMatch(/text\/html/);
    expect(landing.body).toContain("perf_schema.file_io");
  });

  it("honours the scrape timeout header and survives a garbage one", async () => {
    const t = encodeURIComponent(db.socket);
    const ok = await exporter.get(`/probe?target=${t}&auth_module=client.lab`, {
      headers: { "X-Prometheus-Scrape-Timeout-Seconds": "garbage" },
    });
    expect(ok.status).toBe(200);
    const tight = await exporter.get(`/probe?target=${t}&auth_module=client.lab`, {
      headers: { "X-Prometheus-Scrape-Timeout-Seconds": "0.3" },
    });
    expect(tight.status).toBe(200);
    expect(exporter.process.child.exitCode).toBeNull();
  });
});

describe("the slow query log", () => {
  it("never holds the exporter's statements, even at long_query_time 0 with log_queries_not_using_indexes", async () => {
    const db = await startMariaDb({
      performanceSchema: true,
      extra: {
        slow_query_log: 1,
        slow_query_log_file: "slow.log",
        long_query_time: 0,
        log_queries_not_using_indexes: 1,
        log_output: "FILE",
      },
    });
    const exporter = await startUntornExporter({ db: { socket: db.socket, user: "root", password: "" } });
    try {
      // The log works: a statement of another session is there.
      await db.query("SELECT COUNT(*) AS untorn_control_statement FROM information_schema.PLUGINS");
      for (let i = 0; i < 2; i++) {
        const res = await exporter.get("/metrics");
        expect(
          mustValue(res.body, "untorn_exporter_collector_success", { collector: "perf_schema.file_io" }),
        ).toBe(1);
      }
      const log = readFileSync(join(db.datadir, "slow.log"), "utf8");
      expect(log).toContain("untorn_control_statement");
      for (const statement of ["SHOW GLOBAL STATUS", "SHOW GLOBAL VARIABLES", "file_summary_by", "@@datadir"])
        expect(log, statement).not.toContain(statement);
    } finally {
      await exporter.stop();
      await db.destroy();
    }
  });
});
