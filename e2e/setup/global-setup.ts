/**
 * Everything the specs run against, started once: the live throwaway stack and its recording, and seven
 * production servers of the console, one per situation a spec needs. Their URLs reach the workers as
 * environment variables (fixtures/test.ts reads them). Returns the teardown, which stops it all.
 */
import { existsSync, readdirSync, statSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FullConfig } from "@playwright/test";
import { openStore } from "@untorn/store/store";
import { freePort, repoRoot } from "@untorn/testkit/process";
import { VIEWER_TOKEN } from "../fixtures/auth.js";
import { GRAFANA, TARGETS, type Target, targetEnv } from "../fixtures/targets.js";
import { startLiveStack, WINDOW } from "./live-stack.js";
import { seedRollouts } from "./seed-rollouts.js";
import { startToggleProxy, type ToggleProxy } from "./toggle-proxy.js";
import { startWebServer, type WebServer } from "./web-server.js";

/** Fleet metadata the cluster filter and the instance pages show. */
const SEED = [
  { instance: "db-on", cluster: "orders", role: "primary" },
  { instance: "db-off", cluster: "orders", role: "replica" },
  { instance: "db-idle", cluster: "analytics", role: "standalone" },
] as const;

/**
 * The recorded console's replay: the throwaway fleet's recording, or with UNTORN_E2E_REPLAY=lab the
 * newest lab recording (lab/recordings/, made by `untorn record` from the doublewrite lab), which is
 * what `npm run screenshots` shows in docs/screenshots/.
 */
function recordedReplay(own: string): string {
  const wanted = process.env.UNTORN_E2E_REPLAY;
  if (!wanted) return own;
  if (wanted !== "lab") return wanted;
  const dir = join(repoRoot(), "lab", "recordings");
  const files = existsSync(dir)
    ? readdirSync(dir).filter(
        (f) => /\.json(\.gz)?$/.test(f) && !/\.(metadata|schema|rollouts)\.json$/.test(f),
      )
    : [];
  if (files.length === 0) throw new Error(`UNTORN_E2E_REPLAY=lab, but ${dir} has no recording`);
  const newest = files
    .map((f) => ({ f: join(dir, f), t: statSync(join(dir, f)).mtimeMs }))
    .sort((a, b) => b.t - a.t)[0]!.f;
  return newest;
}

async function seed(dataDir: string): Promise<void> {
  const store = await openStore({ dataDir });
  try {
    for (const s of SEED) await store.upsertInstanceMetadata({ ...s, actor: "e2e setup" });
  } finally {
    await store.close();
  }
}

/**
 * The live console, started again (up to three times) until its fleet snapshot has every instance: on a
 * loaded machine an exporter can miss a 1 s scrape deadline and report its server down for a moment,
 * and the specs compare the live fleet with the recorded one.
 */
async function startCompleteLiveServer(
  env: Record<string, string>,
  workDir: string,
  expected: number,
  log: (line: string) => void,
): Promise<WebServer> {
  for (let attempt = 1; ; attempt++) {
    const server = await startWebServer("live", env, workDir);
    const body = (await (
      await fetch(`${server.url}/api/v1/fleet`, { headers: { authorization: `Bearer ${VIEWER_TOKEN}` } })
    ).json()) as {
      total?: number;
      skipped?: { instance: string; reason: string }[];
    };
    if (body.total === expected) return server;
    const why = (body.skipped ?? []).map((s) => `${s.instance}: ${s.reason}`).join("; ");
    await server.stop();
    if (attempt === 3) throw new Error(`the live fleet never showed all ${expected} instances (${why})`);
    log(`live snapshot had ${body.total ?? 0} of ${expected} instances (${why}); starting again`);
    await new Promise((r) => setTimeout(r, 2000));
  }
}

export default async function globalSetup(_config: FullConfig): Promise<() => Promise<void>> {
  const started = Date.now();
  const log = (line: string) =>
    console.log(`[e2e setup +${Math.round((Date.now() - started) / 1000)}s] ${line}`);
  const workDir = await mkdtemp(join(tmpdir(), "untorn-e2e-"));
  const servers: WebServer[] = [];
  let proxy: ToggleProxy | undefined;
  let stack: Awaited<ReturnType<typeof startLiveStack>> | undefined;
  // Held open for the whole run: the "locked" console finds its data directory locked at start.
  let held: Awaited<ReturnType<typeof openStore>> | undefined;

  const teardown = async () => {
    await Promise.all(servers.map((s) => s.stop().catch(() => undefined)));
    await held?.close().catch(() => undefined);
    await proxy?.stop();
    await stack?.stop();
    if (process.env.UNTORN_E2E_KEEP) console.log(`[e2e] kept ${workDir}`);
    else await rm(workDir, { recursive: true, force: true });
  };

  try {
    // The stores are seeded while the fleet runs its load (PGlite takes seconds to open on a busy machine).
    const seeding = Promise.all([seed(join(workDir, "data-recorded")), seed(join(workDir, "data-live"))]);
    seeding.catch(() => undefined);
    stack = await startLiveStack(workDir, log);
    proxy = await startToggleProxy(stack.prometheus.url);
    const closed = await freePort();
    const envs: Record<Target, Record<string, string>> = {
      recorded: { UNTORN_REPLAY: recordedReplay(stack.replayFile), GRAFANA_URL: GRAFANA },
      // One snapshot for the whole run, taken when every instance reports (see startCompleteLiveServer).
      live: { PROMETHEUS_URL: stack.prometheus.url, UNTORN_WINDOW: WINDOW, UNTORN_CACHE_SECONDS: "900" },
      // Nothing listens there: Prometheus is down from the start.
      down: { PROMETHEUS_URL: `http://127.0.0.1:${closed}`, UNTORN_PROM_TIMEOUT_MS: "2000" },
      // Read on every request, so switching the proxy off shows the stale-data path at once.
      flaky: {
        PROMETHEUS_URL: proxy.url,
        UNTORN_WINDOW: WINDOW,
        UNTORN_CACHE_SECONDS: "0",
        UNTORN_PROM_TIMEOUT_MS: "2000",
      },
      empty: { UNTORN_RECORDINGS_DIR: join(workDir, "no-recordings") },
      // The recorded fleet, with a data directory another process holds (startWebServer's data-locked).
      locked: { UNTORN_REPLAY: recordedReplay(stack.replayFile) },
      // Nothing set: what `npm start` serves, the committed lab recording found from apps/web.
      demo: {},
    };
    await seeding;
    // Rollouts through the real engine into the recorded console's store; the "down" console (Prometheus
    // unreachable) serves a copy of it.
    const rollouts = await seedRollouts(join(workDir, "data-recorded"), workDir, log);
    await cp(join(workDir, "data-recorded"), join(workDir, "data-down"), { recursive: true });
    process.env.UNTORN_E2E_ROLLOUTS = JSON.stringify(rollouts);
    held = await openStore({ dataDir: join(workDir, "data-locked") });
    log("starting the console's servers");
    const all = await Promise.allSettled(
      TARGETS.map((t) =>
        t === "live"
          ? startCompleteLiveServer(envs[t], workDir, stack!.recorded.instances.length, log)
          : startWebServer(t, envs[t], workDir),
      ),
    );
    for (const s of all) if (s.status === "fulfilled") servers.push(s.value);
    const failed = all.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    for (const s of servers) process.env[targetEnv(s.name as Target)] = s.url;
    process.env.UNTORN_E2E_PROXY = proxy.url;
    // Specs that put a proxy of their own in front of the live fleet's Prometheus (tests/status/kept-read).
    process.env.UNTORN_E2E_PROMETHEUS = stack.prometheus.url;
    // Specs that start a console of their own (tests/rollouts/) replay the same recording.
    process.env.UNTORN_E2E_REPLAY_FILE = envs.recorded.UNTORN_REPLAY!;
    process.env.UNTORN_E2E_WORKDIR = workDir;
    process.env.UNTORN_E2E_INSTANCES = stack.recorded.instances.join(",");
    log(`ready: ${servers.map((s) => `${s.name} ${s.url}`).join(", ")}`);
  } catch (err) {
    await teardown();
    throw err;
  }
  return teardown;
}
