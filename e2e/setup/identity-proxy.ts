/**
 * A small real reverse proxy that plays the auth proxy (what oauth2-proxy or a corporate SSO gateway does
 * in front of the console): it checks Basic credentials against its own user table, drops any identity
 * headers the client sent, sets its own, and forwards to the console from `localAddress`, the address
 * the console is told to trust.
 */
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ProxyUser {
  readonly password: string;
  readonly groups: readonly string[];
}

export interface IdentityProxy {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startIdentityProxy(opts: {
  target: string;
  /** Source address of the proxy's connections to the console (127.0.0.2: another loopback address). */
  localAddress: string;
  users: Readonly<Record<string, ProxyUser>>;
  userHeader?: string;
  groupsHeader?: string;
}): Promise<IdentityProxy> {
  const target = new URL(opts.target);
  const userHeader = opts.userHeader ?? "x-forwarded-user";
  const groupsHeader = opts.groupsHeader ?? "x-forwarded-groups";
  const server: Server = createServer((req, res) => {
    const basic = /^Basic (.+)$/i.exec(req.headers.authorization ?? "")?.[1];
    const [name, password] = basic ? Buffer.from(basic, "base64").toString("utf8").split(":") : [];
    const user = name ? opts.users[name] : undefined;
    if (!user || user.password !== password) {
      res.writeHead(401, { "www-authenticate": 'Basic realm="test sso"', "content-type": "text/plain" });
      res.end("sign in at the proxy");
      return;
    }
    const headers = { ...req.headers };
    delete headers[userHeader];
    delete headers[groupsHeader];
    delete headers.authorization;
    headers[userHeader] = name!;
    headers[groupsHeader] = user.groups.join(",");
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        localAddress: opts.localAddress,
        method: req.method,
        path: req.url,
        headers,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, up.headers);
        up.pipe(res);
      },
    );
    upstream.on("error", (err) => {
      if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" });
      res.end(`proxy: ${err.message}`);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
