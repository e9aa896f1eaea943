import net from "node:net";
import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { StoreConnectionError } from "./errors.js";
import { openStore } from "./store.js";
import { ADMIN_URL } from "./testing/postgres.js";

const PASSWORD = "s3cret-Pa55";

async function connectError(databaseUrl: string, connectTimeoutMs?: number): Promise<StoreConnectionError> {
  try {
    const s = await openStore({ databaseUrl, ...(connectTimeoutMs ? { connectTimeoutMs } : {}) });
    await s.close();
  } catch (e) {
    expect(e).toBeInstanceOf(StoreConnectionError);
    const err = e as StoreConnectionError;
    // Nowhere: not in the message, the location, the cause chain or a logged dump.
    expect(inspect(err, { depth: 10 })).not.toContain(PASSWORD);
    return err;
  }
  throw new Error("openStore succeeded");
}

const servers: net.Server[] = [];
const sockets: net.Socket[] = [];
afterEach(async () => {
  for (const s of sockets.splice(0)) s.destroy();
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

async function listen(server: net.Server): Promise<number> {
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return (server.address() as net.AddressInfo).port;
}

describe("PostgreSQL connection errors", () => {
  it("names host:port when nothing listens there, never the password", async () => {
    const probe = net.createServer();
    const port = await listen(probe);
    await new Promise((r) => probe.close(r));
    servers.length = 0;
    const e = await connectError(`postgres://untorn:${PASSWORD}@127.0.0.1:${port}/fleet`);
    expect(e.location).toBe(`untorn@127.0.0.1:${port}/fleet`);
    expect(e.message).toContain(`cannot connect to PostgreSQL at 127.0.0.1:${port}: connection refused.`);
    expect(e.message).toContain("pg_ctlcluster");
  });

  it("gives up on a server that never answers within the connect timeout", async () => {
    const port = await listen(net.createServer((s) => sockets.push(s)));
    const started = Date.now();
    const e = await connectError(`postgres://untorn:${PASSWORD}@127.0.0.1:${port}/fleet`, 300);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(e.message).toBe(
      `cannot connect to PostgreSQL at 127.0.0.1:${port}: no answer within 300 ms. Check the host, port and firewall; is it a PostgreSQL server?`,
    );
  });

  it("says which database is missing on a running server", async () => {
    const url = new URL(ADMIN_URL);
    url.pathname = "/untorn_no_such_db";
    const e = await connectError(url.toString());
    expect(e.message).toMatch(/database "untorn_no_such_db" does not exist\. Create it \(createdb\)/);
  });

  it("rejects a malformed URL without echoing it", async () => {
    const e = await connectError(`postgres://untorn:${PASSWORD}@[::1/fleet`);
    expect(e.message).toBe("DATABASE_URL is not a valid postgres:// connection URL");
  });
});
