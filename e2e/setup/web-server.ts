/**
 * Starts the web console's production build (server.mjs, as `npm start` runs it) on a free port with its own environment and
 * data directory, and stops it. The build must exist: turbo's ^build runs `next build` before this
 * package's tests (e2e declares @untorn/web as a devDependency).
 */
import { existsSync } from "node:fs";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { freePort, type ManagedProcess, repoRoot, spawnManaged, waitFor } from "@untorn/testkit/process";
import { ADMIN_PASSWORD, VIEWER_TOKEN } from "../fixtures/auth.js";

export interface WebServer {
  readonly name: string;
  readonly url: string;
  readonly dataDir: string;
  readonly process: ManagedProcess;
  stop(): Promise<void>;
}

export function webDir(): string {
  return join(repoRoot(), "apps", "web");
}

/**
 * server.mjs as the package's start script runs it, on `port` (a free one by default), without waiting
 * for it to answer: for a spec that expects it to refuse to start. Its log is `web-<name>.log` in workDir.
 */
export async function spawnWebServer(
  name: string,
  env: Record<string, string>,
  workDir: string,
  port?: number,
): Promise<{ readonly process: ManagedProcess; readonly url: string; readonly dataDir: string }> {
  const dir = webDir();
  if (!existsSync(join(dir, ".next", "BUILD_ID")))
    throw new Error(`${dir}/.next is missing: build the console first (npm run build -w @untorn/web)`);
  const p = port ?? (await freePort());
  const dataDir = join(workDir, `data-${name}`);
  await mkdir(dataDir, { recursive: true });
  const proc = spawnManaged(process.execPath, [join(dir, "server.mjs")], {
    cwd: dir,
    logFile: join(workDir, `web-${name}.log`),
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      UNTORN_HOST: "127.0.0.1",
      PORT: String(p),
      UNTORN_DATA_DIR: dataDir,
      UNTORN_ADMIN_PASSWORD: ADMIN_PASSWORD,
      UNTORN_VIEWER_TOKEN: VIEWER_TOKEN,
      ...env,
    },
  });
  return { process: proc, url: `http://127.0.0.1:${p}`, dataDir };
}

/** server.mjs as the package's start script runs it, on `port` (a free one by default), once it answers. */
export async function startWebServer(
  name: string,
  env: Record<string, string>,
  workDir: string,
  port?: number,
): Promise<WebServer> {
  const { process: proc, url, dataDir } = await spawnWebServer(name, env, workDir, port);
  try {
    await waitFor(
      `web console "${name}" on ${url}`,
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`the console's server exited:\n${proc.tail()}`);
        const res = await fetch(`${url}/icon.svg`);
        await res.arrayBuffer();
        return res.ok;
      },
      // Global setup starts seven consoles at once on a machine other test runs share: a production
      // server's first answer can take a minute there (a dead server still fails at once, above).
      { timeoutMs: 120_000, intervalMs: 200, detail: () => proc.tail() },
    );
  } catch (err) {
    await proc.stop(2000);
    throw err;
  }
  return { name, url, dataDir, process: proc, stop: () => proc.stop(5000) };
}
