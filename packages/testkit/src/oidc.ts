/**
 * A real OpenID Connect provider for tests (oidc-provider, in a child process on a free port): the
 * clients and users (with groups) the test names, a login form the browser fills in. Not a mock of the
 * protocol: discovery, JWKS, signed ID tokens, PKCE, the token and userinfo endpoints are the library's.
 */
import { fileURLToPath } from "node:url";
import { freePort, type ManagedProcess, spawnManaged, waitFor } from "./process.js";

export interface OidcTestClient {
  readonly clientId: string;
  readonly clientSecret: string;
  readonly redirectUris: readonly string[];
  readonly postLogoutRedirectUris?: readonly string[];
}

export interface OidcTestUser {
  /** The subject (`sub`) the provider issues. */
  readonly sub: string;
  /** What the login form takes, and the `preferred_username` claim. */
  readonly username: string;
  readonly password: string;
  /** The `groups` claim (scope `groups`); omitted: no claim at all. */
  readonly groups?: readonly string[];
  readonly email?: string;
}

export interface OidcProvider {
  /** Issuer URL, `http://127.0.0.1:<port>` (discovery at /.well-known/openid-configuration). */
  readonly issuer: string;
  readonly process: ManagedProcess;
  stop(): Promise<void>;
}

const MAIN = fileURLToPath(new URL("../oidc/provider.mjs", import.meta.url));

export async function startOidcProvider(opts: {
  clients: readonly OidcTestClient[];
  users: readonly OidcTestUser[];
  logFile: string;
  port?: number;
}): Promise<OidcProvider> {
  const port = opts.port ?? (await freePort());
  const issuer = `http://127.0.0.1:${port}`;
  const proc = spawnManaged(process.execPath, [MAIN], {
    logFile: opts.logFile,
    env: {
      PATH: process.env.PATH ?? "",
      NODE_ENV: "test",
      UNTORN_TEST_OIDC: JSON.stringify({ port, clients: opts.clients, users: opts.users }),
    },
  });
  try {
    await waitFor(
      `the test OIDC provider on ${issuer}`,
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`the test OIDC provider exited:\n${proc.tail()}`);
        const res = await fetch(`${issuer}/.well-known/openid-configuration`);
        const body = (await res.json()) as { issuer?: string };
        return body.issuer === issuer;
      },
      { timeoutMs: 30_000, intervalMs: 100, detail: () => proc.tail() },
    );
  } catch (err) {
    await proc.stop(2000);
    throw err;
  }
  return { issuer, process: proc, stop: () => proc.stop(5000) };
}
