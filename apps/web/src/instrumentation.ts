/**
 * Runs once when the server starts: a bad configuration stops it here (exit 1, naming each setting and
 * its rule); a non-loopback address with nobody's password configured is refused; the store is opened
 * (its migrations run) and the first-run admin created, its password printed once when it was generated;
 * the rollout reconciler starts (server/reconciler.ts); and the first fleet read starts in the
 * background, so the first visitor does not wait for a 10,000-instance replay to load.
 */
export async function register(): Promise<void> {
  const { env, EnvError, bindHost, isLoopback } = await import("./env.js");
  let e: ReturnType<typeof env>;
  try {
    e = env();
  } catch (err) {
    if (!(err instanceof EnvError)) throw err;
    console.error(`untorn: refusing to start, ${err.message}`);
    process.exit(1);
  }
  if (e.UNTORN_AUTH !== "local") {
    console.error(
      `untorn: refusing to start, UNTORN_AUTH=${e.UNTORN_AUTH}: this build signs in with local accounts only (UNTORN_AUTH=local; docs/security.md)`,
    );
    process.exit(1);
  }
  const { getStore, storeLocation } = await import("./server/store.js");
  const host = bindHost();
  let storeError: Error | null = null;
  try {
    await getStore(e);
    console.log(`untorn: store ready at ${storeLocation(e)} (migrations applied)`);
  } catch (err) {
    storeError = err as Error;
    // Not fatal: the console still profiles the fleet, without the metadata users stored.
    console.error(
      `untorn: the store at ${storeLocation(e)} cannot be opened, fleet metadata and sign-in are unavailable until it can: ${storeError.message}`,
    );
  }
  if (e.UNTORN_AUTH === "local" && !storeError) {
    const { ensureFirstAdmin } = await import("./server/auth.js");
    const store = await getStore(e);
    const hadUsers = (await store.countUsers()) > 0;
    if (!hadUsers && !e.UNTORN_ADMIN_PASSWORD && !isLoopback(host)) {
      console.error(
        `untorn: refusing to listen on ${host} with no account configured: set UNTORN_ADMIN_PASSWORD (or listen on 127.0.0.1 with UNTORN_HOST)`,
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
  if (!storeError) {
    const { startReconciler } = await import("./server/reconciler.js");
    const off = startReconciler(e);
    if (off) console.log(`untorn: rollout reconciler off: ${off}`);
  } else console.error("untorn: rollout reconciler off: the store cannot be opened");
  const { getFleetView } = await import("./server/data.js");
  // After the server listens (decoding a large replay blocks for seconds). Failures are the first page's
  // to show (banner, empty state); here they only cost the head start.
  setTimeout(() => void getFleetView().catch(() => undefined), 0);
}
