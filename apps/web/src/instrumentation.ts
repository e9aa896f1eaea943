/**
 * Runs once when the server starts: a bad configuration stops it here (exit 1, naming each setting and
 * its rule); a non-loopback address with nobody's password configured is refused; the store is opened
 * (its migrations run) and the first-run admin created, its password printed once when it was generated;
 * in replay mode the recording's rollouts are loaded into the store (idempotent,
 * server/rollouts/recorded-rollouts.ts); the rollout reconciler starts (server/rollouts/reconciler.ts)
 * with the step hooks of UNTORN_HOOKS_FILE (a broken file stops the server); and the first fleet view
 * starts in the background, so the first visitor does not wait for a read begun by their request: it
 * serves the kept fleet read of the last start when there is one for this build and source
 * (server/fleet/kept-read.ts), and reads the source otherwise (a live source also when there is one).
 */
export async function register(): Promise<void> {
  const { serverInfo } = await import("./lib/server-info.js");
  try {
    await startUp();
  } catch (err) {
    serverInfo()?.startedUp?.(`the start-up checks failed: ${(err as Error).message}`);
    throw err;
  }
  serverInfo()?.startedUp?.();
}

async function startUp(): Promise<void> {
  const { env, EnvError, bindHost, isLoopback } = await import("./env.js");
  let e: ReturnType<typeof env>;
  try {
    e = env();
  } catch (err) {
    if (!(err instanceof EnvError)) throw err;
    console.error(`untorn: refusing to start, ${err.message}`);
    process.exit(1);
  }
  if (e.UNTORN_AUTH === "proxy") {
    const { serverInfo } = await import("./lib/server-info.js");
    if (!serverInfo()) {
      console.error(
        "untorn: refusing to start, UNTORN_AUTH=proxy: the identity headers can only be checked against the proxy's address when the console runs from server.mjs (npm start, the Docker image), not from next start",
      );
      process.exit(1);
    }
    console.log(
      `untorn: sign-in by the auth proxy's ${e.UNTORN_PROXY_USER_HEADER} and ${e.UNTORN_PROXY_GROUPS_HEADER} headers, from ${e.UNTORN_TRUSTED_PROXIES!.entries.join(", ")} only`,
    );
  }
  const { getStore, storeLocation } = await import("./server/store.js");
  const host = bindHost();
  let storeError: Error | null = null;
  try {
    const store = await getStore(e);
    console.log(`untorn: store ready at ${storeLocation(e)} (migrations applied)`);
    // API token uses are written in batches: the last batch on the way out (server.mjs exits 2 s on).
    for (const signal of ["SIGTERM", "SIGINT"] as const)
      process.once(signal, () => {
        store.flushTokenUse().catch(() => {});
      });
  } catch (err) {
    storeError = err as Error;
    // Not fatal: the console still profiles the fleet, without the metadata users stored.
    console.error(
      `untorn: the store at ${storeLocation(e)} cannot be opened, fleet metadata and sign-in are unavailable until it can: ${storeError.message}`,
    );
  }
  if (e.UNTORN_AUTH === "local" && !storeError) {
    const { ensureFirstAdmin } = await import("./server/auth/auth.js");
    const store = await getStore(e);
    const hadUsers = (await store.countUsers()) > 0;
    if (!hadUsers && !e.UNTORN_ADMIN_PASSWORD && !isLoopback(host)) {
      const { serverInfo } = await import("./lib/server-info.js");
      const setting = serverInfo() ? "UNTORN_HOST" : "next start --hostname";
      console.error(
        `untorn: refusing to start, ${setting}=${host}: a non-loopback address needs an account to sign in with and the store has none; set UNTORN_ADMIN_PASSWORD (the first admin's password) or listen on 127.0.0.1`,
      );
      process.exit(1);
    }
    const first = await ensureFirstAdmin(e);
    if (first.generated)
      console.log(
        `untorn: created the first admin account "${e.UNTORN_ADMIN_USER}" with password ${first.generated} (shown once; set UNTORN_ADMIN_PASSWORD to choose it)`,
      );
    else if (first.created) console.log(`untorn: created the first admin account "${e.UNTORN_ADMIN_USER}"`);
  }
  if (!storeError && !e.PROMETHEUS_URL) {
    const { loadRecordedRolloutsFor, describeOutcome } = await import(
      "./server/rollouts/recorded-rollouts.js"
    );
    const { replayFile } = await import("./server/fleet/source.js");
    try {
      const outcome = await loadRecordedRolloutsFor(await getStore(e), replayFile(e));
      (outcome.kind === "invalid" ? console.error : console.log)(describeOutcome(outcome));
    } catch (err) {
      // Not fatal: the recorded fleet is still served, without its rollouts.
      console.error(`untorn: recorded rollouts not loaded: ${(err as Error).message}`);
    }
  }
  if (e.UNTORN_AUTH === "oidc") {
    const { oidcConfig, redirectUri } = await import("./server/auth/oidc.js");
    // Not fatal: the provider may come up later; each sign-in tries again.
    await oidcConfig(e).then(
      (c) =>
        console.log(
          `untorn: sign-in with OIDC at ${c.serverMetadata().issuer} (redirect URI ${redirectUri(e)})`,
        ),
      (err: Error) => console.error(`untorn: ${err.message}; sign-in fails until it can be read`),
    );
  }
  if (!storeError) {
    const { loadHooks, startReconciler } = await import("./server/rollouts/reconciler.js");
    let hooks: Awaited<ReturnType<typeof loadHooks>>;
    try {
      hooks = await loadHooks(e);
    } catch (err) {
      console.error(`untorn: refusing to start, ${(err as Error).message}`);
      process.exit(1);
    }
    const off = startReconciler(e, hooks);
    if (off) console.log(`untorn: rollout reconciler off: ${off}`);
  } else console.error("untorn: rollout reconciler off: the store cannot be opened");
  const { keptDir, keptOff } = await import("./server/fleet/kept-read.js");
  const keptWhy = keptOff(e);
  console.log(
    keptWhy
      ? `untorn: the fleet read is not kept across restarts: ${keptWhy}`
      : `untorn: the last good fleet read is kept across restarts in ${keptDir(e)}`,
  );
  const { getFleetView } = await import("./server/fleet/data.js");
  // The first fleet read starts now, in the background: a replay file is streamed, the facts' queries
  // and the advice give the event loop turns, so the server listens and the fleet page shows how far the
  // read has got ("reading the fleet") until it is done; the log says each step. Failures are the first
  // page's to show (banner, empty state); here they only cost the head start.
  setTimeout(() => void getFleetView().catch(() => undefined), 0);
}
