/**
 * Consoles in the two sign-in modes beside local accounts, each with what it signs in through: a real
 * OIDC provider process (@untorn/testkit/oidc) or a real reverse proxy (setup/identity-proxy.ts). Both
 * serve the committed lab recording (nothing set, as `npm start` does).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type OidcProvider, type OidcTestUser, startOidcProvider } from "@untorn/testkit/oidc";
import { freePort } from "@untorn/testkit/process";
import { type IdentityProxy, type ProxyUser, startIdentityProxy } from "./identity-proxy.js";
import { startWebServer, type WebServer } from "./web-server.js";

/** The groups-to-roles table both modes use. */
export const ROLE_MAP = "dba-admins=admin,dbas=operator,readers=viewer";
/** An instance of the lab recording. */
export const INSTANCE = "db-dw-on-small-bp-1";

export const OIDC_CLIENT = { clientId: "untorn-console", clientSecret: "oidc-client-secret-for-tests" };
export const OIDC_USERS = {
  operator: { sub: "sub-olga", username: "olga", password: "olga-password", groups: ["dbas", "staff"] },
  viewer: { sub: "sub-victor", username: "victor", password: "victor-password", groups: ["readers"] },
  outsider: { sub: "sub-nina", username: "nina", password: "nina-password", groups: ["contractors"] },
} as const satisfies Record<string, OidcTestUser>;

export const PROXY_USERS = {
  paula: { password: "paula-password", groups: ["dbas"] },
  rita: { password: "rita-password", groups: ["readers", "staff"] },
} as const satisfies Record<string, ProxyUser>;
/** The proxy's source address, the only one the console trusts; the browser comes from 127.0.0.1. */
export const PROXY_ADDRESS = "127.0.0.2";

export interface OidcConsole {
  readonly console: WebServer;
  readonly provider: OidcProvider;
  stop(): Promise<void>;
}

const noLocalAccounts = { UNTORN_ADMIN_PASSWORD: "" };

export async function startOidcConsole(): Promise<OidcConsole> {
  const workDir = await mkdtemp(join(tmpdir(), "untorn-e2e-oidc-"));
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const provider = await startOidcProvider({
    clients: [
      {
        ...OIDC_CLIENT,
        redirectUris: [`${publicUrl}/api/auth/oidc/callback`],
        postLogoutRedirectUris: [`${publicUrl}/login?signedOut=1`],
      },
    ],
    users: Object.values(OIDC_USERS),
    logFile: join(workDir, "oidc-provider.log"),
  });
  let web: WebServer;
  try {
    web = await startWebServer(
      "oidc",
      {
        ...noLocalAccounts,
        UNTORN_AUTH: "oidc",
        UNTORN_OIDC_ISSUER: provider.issuer,
        UNTORN_OIDC_CLIENT_ID: OIDC_CLIENT.clientId,
        UNTORN_OIDC_CLIENT_SECRET: OIDC_CLIENT.clientSecret,
        UNTORN_OIDC_SCOPES: "openid profile groups",
        UNTORN_PUBLIC_URL: publicUrl,
        UNTORN_ROLE_MAP: ROLE_MAP,
      },
      workDir,
      port,
    );
  } catch (err) {
    await provider.stop();
    throw err;
  }
  return {
    console: web,
    provider,
    stop: async () => {
      await web.stop();
      await provider.stop();
      if (!process.env.UNTORN_E2E_KEEP) await rm(workDir, { recursive: true, force: true });
    },
  };
}

export interface ProxyConsole {
  readonly console: WebServer;
  readonly proxy: IdentityProxy;
  stop(): Promise<void>;
}

export async function startProxyConsole(): Promise<ProxyConsole> {
  const workDir = await mkdtemp(join(tmpdir(), "untorn-e2e-proxy-"));
  const web = await startWebServer(
    "proxy",
    {
      ...noLocalAccounts,
      UNTORN_AUTH: "proxy",
      UNTORN_TRUSTED_PROXIES: `${PROXY_ADDRESS}/32`,
      UNTORN_ROLE_MAP: ROLE_MAP,
    },
    workDir,
  );
  const proxy = await startIdentityProxy({
    target: web.url,
    localAddress: PROXY_ADDRESS,
    users: PROXY_USERS,
  });
  return {
    console: web,
    proxy,
    stop: async () => {
      await proxy.stop();
      await web.stop();
      if (!process.env.UNTORN_E2E_KEEP) await rm(workDir, { recursive: true, force: true });
    },
  };
}
