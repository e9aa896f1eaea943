// A server that hangs, and addresses with no MySQL behind them: host.storage keeps its own budget, and the
// log says what is at the other end.
import { createServer, type Server, type Socket } from "node:net";
import { startUntornExporter } from "@untorn/testkit/exporters";
import { type MariaDb, startMariaDb } from "@untorn/testkit/mariadb";
import { freePort } from "@untorn/testkit/process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mustValue } from "./exposition.js";

describe("a frozen server (SIGSTOP)", () => {
  let db: MariaDb;
  beforeAll(async () => {
    db = await startMariaDb();
  });
  afterAll(async () => {
    if (db) process.kill(db.pid, "SIGCONT");
    await db?.destroy();
  });

  it("still gets host.storage reported from the last known datadir, within the scrape's budget", async () => {
    const exporter = await startUntornExporter({ db });
    try {
      const before = await exporter.get("/metrics");
      expect(mustValue(before.body, "untorn_mysql_up")).toBe(1);
      process.kill(db.pid, "SIGSTOP");
      for (let i = 0; i < 2; i++) {
        // the first scrape finds an idle connection that no longer answers, the second a new one that never
        // gets its greeting
        const res = await exporter.get("/metrics", {
          headers: { "X-Prometheus-Scrape-Timeout-Seconds": "3" },
        });
        expect(res.status).toBe(200);
        expect(mustValue(res.body, "untorn_mysql_up")).toBe(0);
        expect(mustValue(res.body, "untorn_exporter_collector_success", { collector: "host.storage" })).toBe(
          1,
        );
        expect(mustValue(res.body, "untorn_host_storage_datadir_visible")).toBe(1);
        expect(mustValue(res.body, "untorn_exporter_collector_success", { collector: "global_status" })).toBe(
          0,
        );
      }
    } finally {
      process.kill(db.pid, "SIGCONT");
      await exporter.stop();
    }
  });
});

/** A TCP listener that accepts and then does `behaviour` with each connection. */
async function listener(behaviour: (s: Socket) => void): Promise<{ address: string; server: Server }> {
  const port = await freePort();
  const server = createServer(behaviour);
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return { address: `127.0.0.1:${port}`, server };
}

describe("an address with no MySQL server behind it", () => {
  const open: Server[] = [];
  const held: Socket[] = [];
  afterAll(async () => {
    for (const s of held) s.destroy();
    await Promise.all(open.map((s) => new Promise((r) => s.close(r))));
  });

  it.each([
    [
      "a port that accepts and stays silent",
      "silent",
      /cannot connect to 127\.0\.0\.1:\d+: no MySQL greeting within \d+ ms/,
    ],
    [
      "a port that answers like a web server",
      "http",
      /cannot connect to 127\.0\.0\.1:\d+: .*(not a MySQL server|closed)/,
    ],
    ["a port nobody listens on", "closed", /cannot connect to 127\.0\.0\.1:\d+: connection refused/],
  ])("%s: up 0 and a log line that says so", async (_what, kind, message) => {
    let address: string;
    if (kind === "closed") {
      address = `127.0.0.1:${await freePort()}`;
    } else {
      const l = await listener((s) => {
        held.push(s);
        s.on("error", () => undefined);
        if (kind === "http") s.end("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n");
      });
      open.push(l.server);
      address = l.address;
    }
    const exporter = await startUntornExporter({
      args: [`--mysqld.address=${address}`, "--mysqld.username=exporter", "--no-collect.host.storage"],
    });
    try {
      const res = await exporter.get("/metrics");
      expect(res.status).toBe(200);
      expect(mustValue(res.body, "untorn_mysql_up")).toBe(0);
      await expect.poll(() => exporter.process.tail(100), { timeout: 10_000 }).toMatch(message);
      expect(exporter.process.tail(100)).not.toMatch(/err="?connect ETIMEDOUT"?$/m);
    } finally {
      await exporter.stop();
    }
  });
});
